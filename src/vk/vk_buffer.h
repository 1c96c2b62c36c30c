/* Private to ortvk. ortvk_buffer: one VkBuffer bound to one VkDeviceMemory, allocated by ortvk or imported from
 * an opaque FD or a host allocation; its references, and the queue-ownership barriers of imported memory. Every
 * non-staging buffer has a device address and sits in its device heap's address table, which is how a tensor's
 * data pointer is resolved (vk_heap.h; docs/design.md, "Data pointers"). */
#ifndef ORTVK_VK_BUFFER_H
#define ORTVK_VK_BUFFER_H

#include "vk/vk_device.h"

typedef enum ortvk_buffer_kind {
    ORTVK_BUFFER_DEVICE,        /* allocated by ortvk's allocator */
    ORTVK_BUFFER_STAGING,       /* staging of uploads: mapped (caps.memory.upload), no device address */
    ORTVK_BUFFER_READBACK,      /* staging of copies to the host: mapped, cached where the device has such memory
                                   (caps.memory.readback), no device address */
    ORTVK_BUFFER_OPAQUE_FD,     /* imported VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT */
    ORTVK_BUFFER_HOST,          /* imported VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT */
} ortvk_buffer_kind;

struct ortvk_buffer {
    ortvk_device *device;       /* holds a reference */
    ortvk_buffer_kind kind;
    VkBuffer vk;
    VkDeviceMemory memory;
    VkDeviceSize size;          /* bytes the buffer covers, from memory offset 0 */
    VkDeviceSize vk_size;       /* bytes of the VkBuffer: `size`, and for ortvk's own device buffers a tail after it
                                   that texel views may cover (ORTVK_BUFFER_TAIL) */
    VkDeviceAddress address;    /* 0 for staging buffers */
    void *mapped;               /* staging and readback buffers, and ORTVK_BUFFER_DEVICE ones where
                                   caps.memory.device_mapped */
    void *host_pointer;         /* ORTVK_BUFFER_HOST: the imported address */
    atomic_int refs;            /* the owner's, one per sharing import (ortvk_buffer_import_host), and one per
                                   submission using it (ortvk_device_acquire) */
};

/* The bytes after the tensor that every device buffer ortvk allocates keeps (the 15 of a last partial texel and 256
 * more), so that a texel view of any tensor in it can end where the driver wants (kernel_record.c: on lavapipe, a
 * pipeline is compiled again for each new "power of two or not" of a bound texel buffer's size and "bits 8-15 zero
 * or not" of its view's size; with the tail every view of ortvk's memory gives the same answers, whatever the tensor
 * sizes). */
#define ORTVK_BUFFER_TAIL 272u

OrtStatus *ortvk_buffer_allocate(ortvk_device *device, VkDeviceSize size, ortvk_buffer **out) ORTVK_MUST_CHECK;
/* A mapped buffer of at least `size` bytes for a host copy: `kind` is ORTVK_BUFFER_STAGING (the host writes it, the
 * queue reads it) or ORTVK_BUFFER_READBACK (the queue writes it, the host reads it). */
OrtStatus *ortvk_buffer_allocate_staging(ortvk_device *device, ortvk_buffer_kind kind, VkDeviceSize size,
                                         ortvk_buffer **out) ORTVK_MUST_CHECK;

/* Whether buffers of `kind` are the staging of host copies: mapped, without a device address, cached apart. */
static inline bool ortvk_buffer_kind_staging(ortvk_buffer_kind kind)
{
    return kind == ORTVK_BUFFER_STAGING || kind == ORTVK_BUFFER_READBACK;
}

/* Imports `fd` (not consumed: ortvk imports a duplicate) covering `size` bytes. */
OrtStatus *ortvk_buffer_import_fd(ortvk_device *device, int fd, VkDeviceSize size,
                                  ortvk_buffer **out) ORTVK_MUST_CHECK;

/* Imports the host range [pointer, pointer + size); both must be aligned to caps.host_pointer_alignment. A range
 * imported already (same address, same size) gives the same buffer with one more reference: on drivers whose device
 * address of host memory is the host address (lavapipe) two buffers would otherwise share an address, and a tensor
 * pointer could resolve to the other import's buffer while it is being freed. */
OrtStatus *ortvk_buffer_import_host(ortvk_device *device, void *pointer, VkDeviceSize size,
                                    ortvk_buffer **out) ORTVK_MUST_CHECK;

/* One more reference, unless the buffer is already dying (its last reference gone): then false. */
static inline bool ortvk_buffer_try_ref(ortvk_buffer *buffer)
{
    int refs = atomic_load(&buffer->refs);
    while (refs > 0 && !atomic_compare_exchange_weak(&buffer->refs, &refs, refs + 1)) {
    }
    return refs > 0;
}

/* Drops a reference (NULL: nothing); the last one frees the buffer, or gives it to its device heap's cache while
 * there is room (staging and ortvk-allocated buffers). */
void ortvk_buffer_unref(ortvk_buffer *buffer);

/* The name src/kernels still uses for ortvk_buffer_unref. */
static inline void ortvk_buffer_destroy(ortvk_buffer *buffer)
{
    ortvk_buffer_unref(buffer);
}

/* Memory imported from another device or process (opaque FD) belongs to VK_QUEUE_FAMILY_EXTERNAL between uses:
 * ortvk acquires it before touching it and releases it after, the other half of what a producer does around its own
 * writes (Vulkan spec, "Queue Family Ownership Transfer" for external memory). Records that barrier for `buffer`
 * (nothing for other buffers or NULL): on acquire, before `work` stages that read or write it with `reads` and
 * `writes` access; on release, after them. */
void ortvk_buffer_ownership(VkCommandBuffer cmd, const ortvk_buffer *buffer, bool acquire, VkPipelineStageFlags work,
                            VkAccessFlags reads, VkAccessFlags writes);

/* The tensor data pointer of byte `offset` of `buffer`. */
static inline void *ortvk_buffer_pointer(const ortvk_buffer *buffer, VkDeviceSize offset)
{
    return (void *)(uintptr_t)(buffer->address + offset);
}

#endif
