/* What a run holds until its submission retires: references on the buffers it reads and writes (scratch ones
 * included), the texel views it made of them, and its profile's timestamps; released by the stream's retire. */
#include <stdlib.h>

#include "kernels/kernel_partition.h"
#include "vk/vk_buffer.h"

/* The texel views of one range of a buffer, made for a run's dispatches (kernel_device.c). */
typedef struct held_views {
    VkBuffer buffer;
    VkDeviceSize offset, range;
    ortvk_ktexel_type type;
    ortvk_ktexels views;
} held_views;

struct ortvk_kheld {
    size_t count, capacity;
    ortvk_buffer **buffers;
    ortvk_profile_run *profile; /* the run's timestamps, read once the GPU is done */
    ortvk_device *device;       /* with a reference, set with the first views: they go before it (the session, its
                                   kernels' state with it, may be gone when the submission retires) */
    size_t n_views, views_capacity;
    held_views *views;
};

void ortvk_kheld_release(void *owner)
{
    ortvk_kheld *list = owner;
    if (list == NULL) return;
    ortvk_profile_run_retire(list->profile);
    for (size_t i = 0; i < list->n_views; i++)
        ortvk_kernel_device_texels_destroy(list->device->vk, &list->views[i].views);
    free(list->views);
    for (size_t i = 0; i < list->count; i++) ortvk_buffer_destroy(list->buffers[i]);
    free(list->buffers);
    if (list->device != NULL) ortvk_device_unref(list->device);
    free(list);
}

static OrtStatus *held_list(ortvk_krun *run)
{
    if (run->held == NULL && (run->held = calloc(1, sizeof(*run->held))) == NULL)
        return ortvk_status(ORT_FAIL, "out of host memory running a partition");
    return NULL;
}

OrtStatus *ortvk_krun_hold(ortvk_krun *run, ortvk_buffer *buffer)
{
    OrtStatus *status = held_list(run);
    if (status != NULL) {
        ortvk_buffer_destroy(buffer);
        return status;
    }
    ortvk_kheld *list = run->held;
    ortvk_buffer **grown = ortvk_kgrow(list->buffers, &list->capacity, list->count, sizeof(*grown), 32);
    if (grown == NULL) {
        ortvk_buffer_destroy(buffer);
        return ortvk_status(ORT_FAIL, "out of host memory running a partition");
    }
    list->buffers = grown;
    list->buffers[list->count++] = buffer;
    return NULL;
}

OrtStatus *ortvk_krun_hold_views(ortvk_krun *run, const ortvk_buffer *buffer, VkDeviceSize offset,
                                 VkDeviceSize range, ortvk_ktexel_type type, ortvk_ktexels *out)
{
    ORTVK_TRY(held_list(run));
    ortvk_kheld *list = run->held;
    for (size_t i = 0; i < list->n_views; i++) {
        const held_views *h = &list->views[i];
        if (h->buffer == buffer->vk && h->offset == offset && h->range == range && h->type == type) {
            *out = h->views;
            return NULL;
        }
    }
    held_views *grown = ortvk_kgrow(list->views, &list->views_capacity, list->n_views, sizeof(*grown), 16);
    if (grown == NULL) return ortvk_status(ORT_FAIL, "out of host memory running a partition");
    list->views = grown;
    if (list->device == NULL) {
        ortvk_device_ref(run->device);
        list->device = run->device;
    }
    held_views *h = &list->views[list->n_views];
    *h = (held_views){.buffer = buffer->vk, .offset = offset, .range = range, .type = type};
    ORTVK_TRY(ortvk_kernel_device_texels_create(run->device->vk, buffer->vk, offset, range, type, &h->views));
    list->n_views++;
    *out = h->views;
    return NULL;
}

ortvk_profile_run *ortvk_krun_profile_begin(ortvk_krun *run, ortvk_profile *profile, int id, const char *name,
                                            size_t nodes)
{
    if (profile == NULL || (run->held == NULL && (run->held = calloc(1, sizeof(*run->held))) == NULL)) return NULL;
    run->held->profile = ortvk_profile_run_begin(profile, run->cmd, id, name, nodes);
    return run->held->profile;
}
