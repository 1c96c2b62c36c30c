/* Imported semaphores: the table of semaphore kinds (Vulkan timeline semaphores from opaque FDs, ortvk host
 * timelines), ImportSemaphore's checks, and WaitSemaphore/SignalSemaphore queued on an ortvk stream. */
#include <stdlib.h>
#include <unistd.h>

#include "interop/interop.h"
#include "ort/ort_status.h"

ORTVK_DEFINE_BASE_CAST(semaphore_cast, ortvk_semaphore_import, OrtExternalSemaphoreHandle)

static void unref_owner(void *owner)
{
    ortvk_semaphore_import_unref(owner);
}

/* The reference a queued wait or signal holds until the GPU (or the stream's helper thread) is done with it. */
static ortvk_retire hold(ortvk_semaphore_import *semaphore)
{
    atomic_fetch_add(&semaphore->refs, 1);
    return (ortvk_retire){.release = unref_owner, .owner = semaphore};
}

/* ---- Vulkan timeline semaphore, opaque FD --------------------------------------------------------------- */

static bool vk_timeline_supported(const ortvk_device *device)
{
    return device->caps.import_timeline_opaque_fd;
}

static OrtStatus *vk_timeline_import(ortvk_semaphore_import *semaphore, int fd)
{
    ortvk_device *device = semaphore->device;
    VkSemaphoreTypeCreateInfo type = {
        .sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
        .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE,
    };
    VkSemaphoreCreateInfo info = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &type};
    VkResult r = vkCreateSemaphore(device->vk, &info, NULL, &semaphore->vk);
    if (r != VK_SUCCESS) return ortvk_status_vk(r, "vkCreateSemaphore", "importing a timeline semaphore");
    /* A successful import takes ownership of the FD it is given: give it a duplicate. */
    int dup_fd = dup(fd);
    if (dup_fd < 0) {
        vkDestroySemaphore(device->vk, semaphore->vk, NULL);
        return ortvk_status(ORT_INVALID_ARGUMENT, "desc->native_handle: fd %d is not an open file descriptor", fd);
    }
    VkImportSemaphoreFdInfoKHR import = {
        .sType = VK_STRUCTURE_TYPE_IMPORT_SEMAPHORE_FD_INFO_KHR,
        .semaphore = semaphore->vk,
        .handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT,
        .fd = dup_fd,
    };
    r = device->ImportSemaphoreFdKHR(device->vk, &import);
    if (r != VK_SUCCESS) {
        close(dup_fd);
        vkDestroySemaphore(device->vk, semaphore->vk, NULL);
        semaphore->vk = VK_NULL_HANDLE;
        return ortvk_status_vk(r, "vkImportSemaphoreFdKHR", "importing fd %d as a timeline semaphore", fd);
    }
    return NULL;
}

static OrtStatus *vk_timeline_wait(ortvk_semaphore_import *semaphore, ortvk_stream *stream, uint64_t value)
{
    ortvk_semaphore_point point = {semaphore->vk, value};
    return ortvk_stream_submit(stream, VK_NULL_HANDLE, &point, 1, NULL, 0, hold(semaphore), NULL);
}

static OrtStatus *vk_timeline_signal(ortvk_semaphore_import *semaphore, ortvk_stream *stream, uint64_t value)
{
    ortvk_semaphore_point point = {semaphore->vk, value};
    return ortvk_stream_submit(stream, VK_NULL_HANDLE, NULL, 0, &point, 1, hold(semaphore), NULL);
}

static uint64_t vk_timeline_current(ortvk_semaphore_import *semaphore)
{
    uint64_t value = 0;
    vkGetSemaphoreCounterValue(semaphore->device->vk, semaphore->vk, &value);
    return value;
}

static void vk_timeline_destroy(ortvk_semaphore_import *semaphore)
{
    if (semaphore->vk != VK_NULL_HANDLE) vkDestroySemaphore(semaphore->device->vk, semaphore->vk, NULL);
}

/* ---- ortvk host timeline -------------------------------------------------------------------------------- */

static bool host_timeline_supported(const ortvk_device *device)
{
    (void)device;
    return true; /* needs nothing from the driver: the helper thread bridges it */
}

static OrtStatus *host_timeline_import(ortvk_semaphore_import *semaphore, int fd)
{
    int rc = ortvk_host_timeline_open(fd, &semaphore->host);
    if (rc == 0) return NULL;
    return ortvk_status(ORT_INVALID_ARGUMENT, "desc->native_handle: fd %d is not an ortvk host timeline (%s)", fd,
                        rc == -EBADF ? "not an open file descriptor" : "wrong kind of file, size, seals or magic");
}

/* Queues a host timeline wait or signal (`queue`) on the stream's helper thread, which holds a reference on the
 * semaphore until it is done. */
static OrtStatus *host_timeline_queue(ortvk_semaphore_import *semaphore, ortvk_stream *stream, uint64_t value,
                                      OrtStatus *(*queue)(ortvk_stream *, ortvk_host_timeline *, uint64_t,
                                                          void (*)(void *), void *))
{
    ortvk_retire ref = hold(semaphore);
    OrtStatus *status = queue(stream, semaphore->host, value, ref.release, ref.owner);
    if (status != NULL) ortvk_semaphore_import_unref(semaphore);
    return status;
}

static OrtStatus *host_timeline_wait(ortvk_semaphore_import *semaphore, ortvk_stream *stream, uint64_t value)
{
    return host_timeline_queue(semaphore, stream, value, ortvk_stream_wait_host_timeline);
}

static OrtStatus *host_timeline_signal(ortvk_semaphore_import *semaphore, ortvk_stream *stream, uint64_t value)
{
    return host_timeline_queue(semaphore, stream, value, ortvk_stream_signal_host_timeline);
}

static uint64_t host_timeline_current(ortvk_semaphore_import *semaphore)
{
    return ortvk_host_timeline_value(semaphore->host);
}

static void host_timeline_destroy(ortvk_semaphore_import *semaphore)
{
    ortvk_host_timeline_close(semaphore->host);
}

static const ortvk_semaphore_kind semaphore_kinds[] = {
    {.type = ORT_EXTERNAL_SEMAPHORE_D3D12_FENCE, .name = "D3D12_FENCE"},
    {.type = ORT_EXTERNAL_SEMAPHORE_VK_TIMELINE_SEMAPHORE_WIN32, .name = "VK_TIMELINE_SEMAPHORE_WIN32"},
    {
        .type = ORT_EXTERNAL_SEMAPHORE_VK_TIMELINE_SEMAPHORE_OPAQUE_FD,
        .name = "VK_TIMELINE_SEMAPHORE_OPAQUE_FD",
        .supported = vk_timeline_supported,
        .import = vk_timeline_import,
        .wait = vk_timeline_wait,
        .signal = vk_timeline_signal,
        .current = vk_timeline_current,
        .destroy = vk_timeline_destroy,
    },
    {
        .type = ORTVK_EXTERNAL_SEMAPHORE_HOST_TIMELINE,
        .name = "ORTVK_HOST_TIMELINE",
        .supported = host_timeline_supported,
        .import = host_timeline_import,
        .wait = host_timeline_wait,
        .signal = host_timeline_signal,
        .current = host_timeline_current,
        .destroy = host_timeline_destroy,
    },
};

const ortvk_semaphore_kind *ortvk_semaphore_kind_find(int type)
{
    for (size_t i = 0; i < sizeof(semaphore_kinds) / sizeof(semaphore_kinds[0]); i++) {
        if (semaphore_kinds[i].type == type) return &semaphore_kinds[i];
    }
    return NULL;
}

/* ---- handles -------------------------------------------------------------------------------------------- */

void ortvk_semaphore_import_unref(ortvk_semaphore_import *semaphore)
{
    if (semaphore == NULL || atomic_fetch_sub(&semaphore->refs, 1) != 1) return;
    semaphore->kind->destroy(semaphore);
    pthread_mutex_destroy(&semaphore->lock);
    ortvk_device_unref(semaphore->device);
    free(semaphore);
}

static void ORT_API_CALL semaphore_release(OrtExternalSemaphoreHandle *handle)
{
    ortvk_semaphore_import_unref(semaphore_cast(handle));
}

ortvk_semaphore_import *ortvk_semaphore_import_from_ort(const OrtExternalSemaphoreHandle *handle)
{
    if (handle == NULL || handle->Release != semaphore_release) return NULL;
    return semaphore_cast(handle);
}

OrtStatus *ortvk_semaphore_import_create(ortvk_importer *importer, const OrtExternalSemaphoreDescriptor *desc,
                                  OrtExternalSemaphoreHandle **out)
{
    ORTVK_TRY(ortvk_check_version("desc", desc->version));
    const ortvk_semaphore_kind *kind = ortvk_semaphore_kind_find((int)desc->type);
    if (kind == NULL) {
        return ortvk_status(ORT_INVALID_ARGUMENT, "desc->type %d is not an external semaphore type", (int)desc->type);
    }
    ortvk_device *device = importer->device;
    if (kind->import == NULL || !kind->supported(device)) {
        return ortvk_status(ORT_NOT_IMPLEMENTED, "desc->type %s (%d) cannot be imported into device %u (%s)",
                            kind->name, kind->type, device->index, device->caps.props.deviceName);
    }
    int fd;
    ORTVK_TRY(ortvk_fd_from_handle("desc", desc->native_handle, &fd));
    ortvk_semaphore_import *semaphore = calloc(1, sizeof(*semaphore));
    if (semaphore == NULL) return ortvk_status(ORT_FAIL, "out of host memory importing a %s", kind->name);
    semaphore->kind = kind;
    semaphore->device = device;
    OrtStatus *status = kind->import(semaphore, fd);
    if (status != NULL) {
        free(semaphore);
        return status;
    }
    ortvk_device_ref(device);
    atomic_init(&semaphore->refs, 1);
    pthread_mutex_init(&semaphore->lock, NULL);
    semaphore->base = (OrtExternalSemaphoreHandle){
        .version = ortvk_ort_version,
        .ep_device = importer->ep_device,
        .descriptor = *desc,
        .Release = semaphore_release,
    };
    *out = &semaphore->base;
    return NULL;
}

static OrtStatus *stream_arg(ortvk_importer *importer, OrtSyncStream *ort_stream, ortvk_stream **out)
{
    ortvk_stream *stream = ortvk_stream_from_ort(ort_stream);
    if (stream == NULL) {
        return ortvk_status(ORT_INVALID_ARGUMENT, "stream %p is not an ortvk stream (it belongs to another EP)",
                            (void *)ort_stream);
    }
    if (stream->device != importer->device) {
        return ortvk_status(ORT_INVALID_ARGUMENT, "stream belongs to ortvk device %u, the importer to device %u",
                            stream->device->index, importer->device->index);
    }
    *out = stream;
    /* A failure the stream's helper thread saw (a host wait that timed out) surfaces here, once. */
    return ortvk_stream_take_error(stream);
}

OrtStatus *ortvk_semaphore_import_wait(ortvk_importer *importer, ortvk_semaphore_import *semaphore,
                                       OrtSyncStream *ort_stream, uint64_t value)
{
    ortvk_stream *stream = NULL;
    ORTVK_TRY(stream_arg(importer, ort_stream, &stream));
    return semaphore->kind->wait(semaphore, stream, value);
}

OrtStatus *ortvk_semaphore_import_signal(ortvk_importer *importer, ortvk_semaphore_import *semaphore,
                                         OrtSyncStream *ort_stream, uint64_t value)
{
    ortvk_stream *stream = NULL;
    ORTVK_TRY(stream_arg(importer, ort_stream, &stream));
    /* A timeline only moves forward: a value at or below one already signaled or queued would be an error on
     * the GPU (Vulkan) or silently lost (host timeline). */
    pthread_mutex_lock(&semaphore->lock);
    uint64_t floor = semaphore->last_signal;
    uint64_t current = semaphore->kind->current(semaphore);
    if (current > floor) floor = current;
    bool increases = value > floor;
    if (increases) semaphore->last_signal = value;
    pthread_mutex_unlock(&semaphore->lock);
    if (!increases) {
        return ortvk_status(ORT_INVALID_ARGUMENT,
                            "value %llu does not increase the %s (already signaled or queued: %llu)",
                            (unsigned long long)value, semaphore->kind->name, (unsigned long long)floor);
    }
    /* "Once all work submitted before it completes": a run the application did not hand this stream went to a
     * session's own stream, so the signal also waits for the sessions' streams (not for other applications'
     * streams: see ORTVK_ORDER_SESSIONS). */
    ortvk_stream_order_after_device(stream, ORTVK_ORDER_SESSIONS);
    OrtStatus *status = semaphore->kind->signal(semaphore, stream, value);
    if (status != NULL) {
        pthread_mutex_lock(&semaphore->lock);
        if (semaphore->last_signal == value) semaphore->last_signal = floor;
        pthread_mutex_unlock(&semaphore->lock);
    }
    return status;
}
