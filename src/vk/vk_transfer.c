/* Copies host <-> ortvk buffer <-> ortvk buffer through staging buffers, and ORT's OrtDataTransferImpl:
 * asynchronous on the ortvk stream ORT passes, synchronous (ordered after every stream of the device) without. */
#include "vk/vk_transfer.h"

#include <stdlib.h>
#include <string.h>

#include "ort/ort_status.h"
#include "ort/ort_tensor.h"

static void barrier(VkCommandBuffer cmd, VkPipelineStageFlags dst_stage, VkAccessFlags dst_access)
{
    VkMemoryBarrier b = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
        .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
        .dstAccessMask = dst_access,
    };
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, dst_stage, 0, 1, &b, 0, NULL, 0, NULL);
}

/* Queue-ownership barriers around a copy's use of imported memory (ortvk_buffer_ownership). */
static void ownership(VkCommandBuffer cmd, const ortvk_buffer *buffer, bool acquire)
{
    ortvk_buffer_ownership(cmd, buffer, acquire, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT,
                           VK_ACCESS_TRANSFER_WRITE_BIT);
}

/* The references a copy holds on its ends until the GPU is done with it. */
typedef struct copy_refs {
    ortvk_buffer *buffers[2];
} copy_refs;

static void release_copy_refs(void *owner)
{
    copy_refs *refs = owner;
    if (refs == NULL) return;
    for (int i = 0; i < 2; i++) ortvk_buffer_unref(refs->buffers[i]);
    free(refs);
}

/* A copy between the host and an ortvk-allocated buffer the host can map (caps.memory.device_mapped) needs no
 * submission: into the buffer, when no submission holds it (its only references are its owner's and the caller's,
 * `held`): nothing queued reads or writes it, and the stream's later submissions see the host's writes; out of it,
 * after a host wait for all the stream's next submission would wait for (the sync stream's: every stream of the
 * device). Returns false (and does nothing) where that does not apply. */
static bool copy_mapped(ortvk_stream *stream, ortvk_copy_end dst, ortvk_copy_end src, size_t bytes,
                        OrtStatus **status)
{
    ortvk_buffer *device = dst.buffer != NULL ? dst.buffer : src.buffer;
    if ((dst.buffer != NULL) == (src.buffer != NULL) || device->kind != ORTVK_BUFFER_DEVICE || device->mapped == NULL)
        return false;
    if (dst.buffer != NULL) {
        if (atomic_load(&device->refs) != (dst.held ? 2 : 1)) return false;
        memcpy((uint8_t *)device->mapped + dst.offset, src.host, bytes);
        *status = NULL;
        return true;
    }
    *status = ortvk_stream_wait_host_ordered(stream);
    if (*status == NULL) memcpy(dst.host, (const uint8_t *)device->mapped + src.offset, bytes);
    return true;
}

OrtStatus *ortvk_transfer_copy(ortvk_stream *stream, ortvk_copy_end dst, ortvk_copy_end src, size_t bytes,
                               bool wait)
{
    copy_refs *refs = NULL;
    if (dst.held || src.held) {
        refs = calloc(1, sizeof(*refs));
        if (refs == NULL) {
            if (dst.held) ortvk_buffer_unref(dst.buffer);
            if (src.held) ortvk_buffer_unref(src.buffer);
            return ortvk_status(ORT_FAIL, "out of host memory copying %zu bytes", bytes);
        }
        refs->buffers[0] = dst.held ? dst.buffer : NULL;
        refs->buffers[1] = src.held ? src.buffer : NULL;
    }
    if (bytes == 0 || (dst.buffer == NULL && src.buffer == NULL)) {
        if (bytes > 0) memcpy(dst.host, src.host, bytes);
        release_copy_refs(refs);
        return NULL;
    }
    ortvk_device *device = stream->device;
    ortvk_buffer *staging = NULL;
    OrtStatus *status = NULL;
    if (copy_mapped(stream, dst, src, bytes, &status)) {
        release_copy_refs(refs);
        return status;
    }
    if (dst.buffer == NULL || src.buffer == NULL) {
        /* Copies to the host read their staging back: from cached memory where the device has it (a discrete
         * GPU's first host-visible type is write-combined, which the host reads slowly). */
        ortvk_buffer_kind kind = dst.buffer == NULL ? ORTVK_BUFFER_READBACK : ORTVK_BUFFER_STAGING;
        status = ortvk_buffer_allocate_staging(device, kind, bytes, &staging);
        if (status != NULL) {
            release_copy_refs(refs);
            return status;
        }
        if (src.buffer == NULL) memcpy(staging->mapped, src.host, bytes);
    }
    VkCommandBuffer cmd;
    status = ortvk_stream_begin(stream, &cmd);
    if (status != NULL) {
        ortvk_buffer_unref(staging);
        release_copy_refs(refs);
        return status;
    }
    VkBuffer from = src.buffer ? src.buffer->vk : staging->vk;
    VkBuffer to = dst.buffer ? dst.buffer->vk : staging->vk;
    VkBufferCopy region = {
        .srcOffset = src.buffer ? src.offset : 0,
        .dstOffset = dst.buffer ? dst.offset : 0,
        .size = bytes,
    };
    ownership(cmd, src.buffer, true);
    if (dst.buffer != src.buffer) ownership(cmd, dst.buffer, true);
    vkCmdCopyBuffer(cmd, from, to, 1, &region);
    /* Later work on the stream (copies, kernels) may read what this copy wrote, and so may the host: it reads
     * staging, and an application reads imported host or host-visible memory once a semaphore says so. */
    if (dst.buffer == NULL) barrier(cmd, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
    else barrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT | VK_PIPELINE_STAGE_HOST_BIT,
                 VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT | VK_ACCESS_HOST_READ_BIT);
    ownership(cmd, src.buffer, false);
    if (dst.buffer != src.buffer) ownership(cmd, dst.buffer, false);

    bool to_host = dst.buffer == NULL;
    uint64_t value = 0;
    /* A staging buffer the host still has to read from is kept here; others retire with the stream. */
    ortvk_retire retire = {.buffer = to_host ? NULL : staging, .release = refs ? release_copy_refs : NULL,
                           .owner = refs};
    status = ortvk_stream_submit(stream, cmd, NULL, 0, NULL, 0, retire, &value);
    if (status != NULL) {
        if (to_host) ortvk_buffer_unref(staging);
        return status;
    }
    if (to_host || wait) status = ortvk_stream_wait_host(stream, value);
    if (to_host) {
        if (status == NULL) memcpy(dst.host, staging->mapped, bytes);
        ortvk_buffer_unref(staging);
    }
    return status;
}

/* ---- OrtDataTransferImpl ------------------------------------------------------------------------------- */

struct ortvk_data_transfer {
    OrtDataTransferImpl base; /* first */
    size_t device_count;
    ortvk_device **devices;   /* references */
    ortvk_stream **sync;      /* per device, created on first synchronous copy */
    pthread_mutex_t lock;     /* guards sync[] creation */
    pthread_mutex_t copy_lock; /* held by a copy on a sync stream, from recording to completion */
};

ORTVK_DEFINE_BASE_CAST(transfer_cast, ortvk_data_transfer, OrtDataTransferImpl)

static bool is_host(const OrtMemoryDevice *memory)
{
    return ortvk_ep_api->MemoryDevice_GetDeviceType(memory) == OrtMemoryInfoDeviceType_CPU;
}

static bool ORT_API_CALL transfer_can_copy(const OrtDataTransferImpl *impl, const OrtMemoryDevice *src,
                                           const OrtMemoryDevice *dst)
{
    ortvk_data_transfer *t = transfer_cast(impl);
    ortvk_device *from = ortvk_device_for_memory(t->devices, t->device_count, src);
    ortvk_device *to = ortvk_device_for_memory(t->devices, t->device_count, dst);
    if (from && to) return from == to;
    return (from && is_host(dst)) || (to && is_host(src));
}

/* The stream a copy without a usable ORT stream runs on: ordered after everything every stream of the device
 * has submitted, so it sees their results (semaphore waits included). */
static OrtStatus *sync_stream(ortvk_data_transfer *t, ortvk_device *device, ortvk_stream **out)
{
    OrtStatus *status = NULL;
    pthread_mutex_lock(&t->lock);
    if (t->sync[device->index] == NULL) status = ortvk_stream_create(device, 0, NULL, &t->sync[device->index]);
    ortvk_stream *stream = t->sync[device->index];
    pthread_mutex_unlock(&t->lock);
    if (status != NULL) return status;
    ortvk_stream_order_after_device(stream, ORTVK_ORDER_ALL);
    *out = stream;
    return NULL;
}

static OrtStatus *copy_one(ortvk_data_transfer *t, const OrtValue *src, OrtValue *dst, OrtSyncStream *ort_stream)
{
    const OrtMemoryDevice *src_memory = ortvk_ep_api->Value_GetMemoryDevice(src);
    const OrtMemoryDevice *dst_memory = ortvk_ep_api->Value_GetMemoryDevice(dst);
    ortvk_device *from = ortvk_device_for_memory(t->devices, t->device_count, src_memory);
    ortvk_device *to = ortvk_device_for_memory(t->devices, t->device_count, dst_memory);
    ortvk_device *device = from ? from : to;
    if (device == NULL || (from && to && from != to)) {
        return ortvk_status(ORT_INVALID_ARGUMENT, "ortvk cannot copy between these memory devices");
    }
    size_t src_bytes = 0, dst_bytes = 0;
    ORTVK_TRY(ortvk_tensor_bytes(src, &src_bytes));
    ORTVK_TRY(ortvk_tensor_bytes(dst, &dst_bytes));
    if (src_bytes != dst_bytes) {
        return ortvk_status(ORT_INVALID_ARGUMENT, "copying %zu bytes into a %zu-byte tensor", src_bytes, dst_bytes);
    }
    /* An empty tensor has no data (ORT gives it a NULL pointer) and nothing to copy: ortvk's kernels can produce
     * one (a zero-size Split or Slice output), and ORT still copies it to the host. */
    if (src_bytes == 0) return NULL;
    void *src_data = NULL, *dst_data = NULL;
    ORTVK_TRY(ortvk_ort->GetTensorMutableData((OrtValue *)src, &src_data));
    ORTVK_TRY(ortvk_ort->GetTensorMutableData(dst, &dst_data));

    /* The copy holds references on both ends until the GPU is done: ORT, or the application releasing an
     * import, may free a tensor right after CopyTensors returns. */
    ortvk_copy_end src_end = {.host = src_data, .held = from != NULL};
    ortvk_copy_end dst_end = {.host = dst_data, .held = to != NULL};
    if (from) {
        src_end.buffer = ortvk_device_acquire(from, src_data, src_bytes, &src_end.offset);
        if (src_end.buffer == NULL)
            return ortvk_status(ORT_INVALID_ARGUMENT, "source tensor data %p (%zu bytes) is not ortvk memory",
                                src_data, src_bytes);
    }
    if (to) {
        dst_end.buffer = ortvk_device_acquire(to, dst_data, dst_bytes, &dst_end.offset);
        if (dst_end.buffer == NULL) {
            ortvk_buffer_unref(src_end.buffer);
            return ortvk_status(ORT_INVALID_ARGUMENT, "destination tensor data %p (%zu bytes) is not ortvk memory",
                                dst_data, dst_bytes);
        }
    }
    __atomic_fetch_add(&device->transfer_stats.copies, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&device->transfer_stats.bytes, (uint64_t)src_bytes, __ATOMIC_RELAXED);
    ortvk_stream *stream = ortvk_stream_from_ort(ort_stream);
    if (stream != NULL && stream->device == device)
        return ortvk_transfer_copy(stream, dst_end, src_end, src_bytes, false);
    /* The sync stream is shared by every thread that copies without a stream of this device, and Vulkan wants a
     * command pool used by one thread at a time (recording, ending, freeing): these copies take turns. */
    pthread_mutex_lock(&t->copy_lock);
    OrtStatus *status = sync_stream(t, device, &stream);
    if (status == NULL) {
        status = ortvk_transfer_copy(stream, dst_end, src_end, src_bytes, true);
    } else {
        ortvk_buffer_unref(src_end.buffer);
        ortvk_buffer_unref(dst_end.buffer);
    }
    pthread_mutex_unlock(&t->copy_lock);
    return status;
}

static OrtStatus *ORT_API_CALL transfer_copy_tensors(OrtDataTransferImpl *impl, const OrtValue **src,
                                                     OrtValue **dst, OrtSyncStream **streams, size_t count)
{
    ortvk_data_transfer *t = transfer_cast(impl);
    for (size_t i = 0; i < count; i++) {
        OrtStatus *status = copy_one(t, src[i], dst[i], streams ? streams[i] : NULL);
        if (status != NULL) return status;
    }
    return NULL;
}

static void ORT_API_CALL transfer_release(OrtDataTransferImpl *impl)
{
    ortvk_data_transfer *t = transfer_cast(impl);
    for (size_t i = 0; i < t->device_count; i++) {
        ortvk_stream_destroy(t->sync[i]);
        ortvk_device_unref(t->devices[i]);
    }
    pthread_mutex_destroy(&t->lock);
    pthread_mutex_destroy(&t->copy_lock);
    free(t->sync);
    free(t->devices);
    free(t);
}

OrtStatus *ortvk_data_transfer_create(ortvk_device *const *devices, size_t device_count, OrtDataTransferImpl **out)
{
    ortvk_data_transfer *t = calloc(1, sizeof(*t));
    if (t != NULL) {
        t->devices = calloc(device_count ? device_count : 1, sizeof(*t->devices));
        t->sync = calloc(device_count ? device_count : 1, sizeof(*t->sync));
    }
    if (t == NULL || t->devices == NULL || t->sync == NULL) {
        if (t) free(t->devices), free(t->sync), free(t);
        return ortvk_status(ORT_FAIL, "out of host memory creating the data transfer");
    }
    for (size_t i = 0; i < device_count; i++) {
        ortvk_device_ref(devices[i]);
        t->devices[i] = devices[i];
    }
    t->device_count = device_count;
    pthread_mutex_init(&t->lock, NULL);
    pthread_mutex_init(&t->copy_lock, NULL);
    t->base.ort_version_supported = ortvk_ort_version;
    t->base.Release = transfer_release;
    t->base.CanCopy = transfer_can_copy;
    t->base.CopyTensors = transfer_copy_tensors;
    *out = &t->base;
    return NULL;
}
