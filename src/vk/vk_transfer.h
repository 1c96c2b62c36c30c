/* Private to ortvk. Copies between host memory and ortvk buffers through staging buffers, and ORT's
 * OrtDataTransferImpl built on them (asynchronous on an ortvk stream, synchronous otherwise). */
#ifndef ORTVK_VK_TRANSFER_H
#define ORTVK_VK_TRANSFER_H

#include "vk/vk_heap.h"
#include "vk/vk_stream.h"

/* One end of a copy: a range of an ortvk buffer, or host memory when `buffer` is NULL. */
typedef struct ortvk_copy_end {
    ortvk_buffer *buffer;
    VkDeviceSize offset;
    void *host;
    bool held; /* the caller's reference on `buffer` (ortvk_device_acquire) passes to the copy, which drops it once
                  the GPU is done with it (or at once when the copy fails) */
} ortvk_copy_end;

/* The end `offset` bytes into `buffer`, with a reference of its own for the copy: for a copy not waited for, whose
 * buffer the caller may drop before the GPU is done with it. */
static inline ortvk_copy_end ortvk_copy_end_held(ortvk_buffer *buffer, VkDeviceSize offset)
{
    return (ortvk_copy_end){.buffer = buffer, .offset = offset, .held = ortvk_buffer_try_ref(buffer)};
}

/* Queues the copy on `stream`. Copies to the host always complete before returning (the host is about to read);
 * others complete before returning only when `wait` is set. */
OrtStatus *ortvk_transfer_copy(ortvk_stream *stream, ortvk_copy_end dst, ortvk_copy_end src, size_t bytes,
                               bool wait) ORTVK_MUST_CHECK;

/* ORT's data transfer for a factory's devices. Holds references on them. */
typedef struct ortvk_data_transfer ortvk_data_transfer;

OrtStatus *ortvk_data_transfer_create(ortvk_device *const *devices, size_t device_count,
                                      OrtDataTransferImpl **out) ORTVK_MUST_CHECK;

#endif
