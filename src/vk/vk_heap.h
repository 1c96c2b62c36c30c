/* Private to ortvk. ortvk_heap: the memory behind one device's buffers. It owns the address table that turns a
 * tensor data pointer back into a buffer and an offset (docs/design.md, "Data pointers"), the caches of freed
 * staging and device buffers, the list of live host-allocation imports (shared between imports of one range), and
 * the final freeing of a buffer's Vulkan objects. The device creates and destroys it, vk_buffer.c uses the rest,
 * and copies and kernels look pointers up (ortvk_device_resolve, ortvk_device_acquire). */
#ifndef ORTVK_VK_HEAP_H
#define ORTVK_VK_HEAP_H

#include "vk/vk_buffer.h"

#define ORTVK_STAGING_CACHE 8                       /* freed staging buffers kept for reuse, at most */
/* Freed device buffers kept for reuse, at most: a run's whole set, for the next run of the same shapes. PP-OCR's
 * detector frees about 150 a run; a buffer the cache drops comes back as a fresh allocation, whose first writes
 * page-fault (128 cost its 640x640 runs 20-30%: docs/benchmarks.md, run AE). */
#define ORTVK_DEVICE_CACHE 512
#define ORTVK_DEVICE_CACHE_BYTES (512ull << 20)     /* and at most this many bytes of them */

/* `device_index` only names the device in messages. */
OrtStatus *ortvk_heap_create(uint32_t device_index, ortvk_heap **out) ORTVK_MUST_CHECK;
/* Frees every cached buffer, then the heap; its device calls it before destroying the VkDevice. */
void ortvk_heap_destroy(ortvk_heap *heap);

/* Enters `buffer` (address and size set) into the address table. */
OrtStatus *ortvk_heap_add_range(ortvk_heap *heap, ortvk_buffer *buffer) ORTVK_MUST_CHECK;

/* A cached buffer of `kind` (staging, readback or device) and exactly `size` bytes, taken out of the cache with one
 * reference (the caller takes back the device reference cached buffers do not hold), or NULL. */
ortvk_buffer *ortvk_heap_take_cached(ortvk_heap *heap, ortvk_buffer_kind kind, VkDeviceSize size);
/* Keeps `buffer` (its last reference gone) for reuse while the cache has room: then true, and the caller drops
 * the buffer's device reference; false when the caller should free it. Cached device buffers keep their
 * address-table entries with no reference, so no lookup can take a reference on them. */
bool ortvk_heap_keep(ortvk_heap *heap, ortvk_buffer *buffer);
/* Frees `buffer`'s Vulkan objects and takes it out of the address table. Not its device reference. */
void ortvk_heap_free(ortvk_heap *heap, ortvk_buffer *buffer);

/* Host-allocation imports: the live import of exactly [pointer, pointer + size) with one more reference, or NULL
 * (a dying one, refs already 0, is not shared); listing and unlisting an import. */
ortvk_buffer *ortvk_heap_share_host(ortvk_heap *heap, const void *pointer, VkDeviceSize size);
void ortvk_heap_list_host(ortvk_heap *heap, ortvk_buffer *buffer);
void ortvk_heap_unlist_host(ortvk_heap *heap, ortvk_buffer *buffer);

/* Lookup of a tensor data pointer: the buffer holding [pointer, pointer + size) and the offset into it, or NULL.
 * Several buffers may start at one address (lavapipe gives a host-pointer import the host address, so two imports
 * of one allocation share it): removal takes out a buffer's own entry, never another's. */
ortvk_buffer *ortvk_device_resolve(ortvk_device *device, const void *pointer, size_t size, VkDeviceSize *offset);
/* Like ortvk_device_resolve, for a user rather than the owner: the buffer comes with one more reference, which
 * keeps it alive until the caller drops it (ortvk_buffer_unref) once the GPU is done with it. Of several buffers
 * at one address it picks one that is not dying: the pointer's own import may be another, equally valid view of the
 * same memory, and its owner may release it meanwhile. NULL when no live buffer holds the range. */
ortvk_buffer *ortvk_device_acquire(ortvk_device *device, const void *pointer, size_t size, VkDeviceSize *offset);

#endif
