/* Test/demo stand-in for an application's own Vulkan renderer or decoder: a separate
 * VkInstance/VkDevice that allocates OPAQUE_FD-exportable buffers, fills them with a
 * compute shader and signals its own timeline semaphore. Not part of the provider. */
#ifndef ORTVK_TESTS_VK_PRODUCER_H
#define ORTVK_TESTS_VK_PRODUCER_H

#include <stddef.h>
#include <stdint.h>

/* The header stays free of <vulkan/vulkan.h> so callers that load Vulkan their own way
 * (or not at all) can include it. Every function returns 0 (or an fd >= 0) on success
 * and a negative errno value on failure; failing Vulkan calls also print one line
 * "vk_producer: <call> failed: <VkResult name> (<value>)" to stderr.
 * A producer and its buffers are not thread-safe: use them from one thread at a time.
 *
 * Environment (read by vk_producer_create):
 *   ORTVK_VALIDATION=1       enable VK_LAYER_KHRONOS_validation plus a debug-utils
 *                            messenger that prints each warning/error as a line
 *                            starting with "VALIDATION: " and counts it
 *                            (see vk_producer_validation_messages).
 *   ORTVK_SYNC_VALIDATION=1  additionally turn on synchronization validation.
 *   ORTVK_PRODUCER_STAGING=1 do buffer_write/read through staging copies even when the
 *                            memory is host-visible (exercises the discrete-GPU path). */

typedef struct vk_producer vk_producer;
typedef struct vk_producer_buffer vk_producer_buffer;

/* Own instance, device (first queue family with compute), command pool, compute
 * pipeline and timeline semaphore (initial value 0). device_index indexes
 * vkEnumeratePhysicalDevices; -1 picks the first device that qualifies (Vulkan 1.2,
 * timelineSemaphore, a compute queue). */
int vk_producer_create(int device_index, vk_producer **out);
/* Waits for the device to go idle first: any GPU wait queued by vk_producer_fill_after
 * must be satisfiable, or this blocks forever. NULL is fine. */
void vk_producer_destroy(vk_producer *p);
/* VkPhysicalDeviceIDProperties.deviceUUID / driverUUID, for matching the importer's
 * physical device. */
void vk_producer_uuids(const vk_producer *p, uint8_t device_uuid[16], uint8_t driver_uuid[16]);

/* Warning/error messages the validation messengers saw, summed over every instance this
 * process opened through vk_app.h (producers, the test consumer, the bench's bare import;
 * destroyed ones included, so leaks reported at teardown count). */
unsigned vk_producer_validation_messages(void);
/* Name of a VkResult value ("VK_ERROR_OUT_OF_DEVICE_MEMORY"); "VK_RESULT_<unknown>" for
 * values it does not know. Takes int so this header needs no Vulkan types. */
const char *vk_producer_result_name(int vk_result);

/* A VkBuffer (STORAGE | TRANSFER_SRC | TRANSFER_DST, plus SHADER_DEVICE_ADDRESS when the
 * device has bufferDeviceAddress) bound at offset 0 to its own VkDeviceMemory. The
 * memory is exportable as OPAQUE_FD when the device has VK_KHR_external_memory_fd,
 * host-visible when a compatible type allows it, and allocated with
 * VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT when bufferDeviceAddress is on. */
int vk_producer_buffer_create(vk_producer *p, size_t size, vk_producer_buffer **out);
/* Waits for the producer's queued work, then frees. NULL is fine. */
void vk_producer_buffer_destroy(vk_producer_buffer *b);

/* A new OPAQUE_FD for the memory on every call (vkGetMemoryFdKHR); the caller owns it.
 * -ENOTSUP when the memory is not exportable.
 *
 * What an importer must do with it (as tests/unit/test_vk_producer.c does):
 *  - use a VkPhysicalDevice whose deviceUUID and driverUUID equal vk_producer_uuids;
 *  - vkAllocateMemory with VkImportMemoryFdInfoKHR (OPAQUE_FD), allocationSize =
 *    vk_producer_buffer_alloc_size, memoryTypeIndex = vk_producer_buffer_memory_type,
 *    and VkMemoryDedicatedAllocateInfo for its own buffer when
 *    vk_producer_buffer_dedicated says so; on success Vulkan owns the fd;
 *  - bind a VkBuffer created with VkExternalMemoryBufferCreateInfo (OPAQUE_FD);
 *  - hand-off: after every GPU write the producer releases the buffer to
 *    VK_QUEUE_FAMILY_EXTERNAL and before its next GPU use it acquires it back, so the
 *    importer should acquire from / release to VK_QUEUE_FAMILY_EXTERNAL around its own
 *    GPU accesses, after waiting for the producer's timeline value. */
int vk_producer_buffer_export_fd(vk_producer_buffer *b);
/* VkMemoryRequirements.size actually allocated (>= the requested size). */
size_t vk_producer_buffer_alloc_size(const vk_producer_buffer *b);
/* Index into the producer device's memory types; valid on an importer's device only
 * when the UUIDs match. */
uint32_t vk_producer_buffer_memory_type(const vk_producer_buffer *b);
/* 1 when the driver demanded a dedicated allocation for exportable buffers. */
int vk_producer_buffer_dedicated(const vk_producer_buffer *b);

/* Copy n bytes in/out at a byte offset, through the mapping or a staging copy. Both
 * first wait for every piece of the producer's queued GPU work, and return only when the
 * copy is done, so the data is current with respect to this producer's own submissions.
 * Writes by another device are the caller's to order. */
int vk_producer_buffer_write(vk_producer_buffer *b, size_t offset, const void *src, size_t n);
int vk_producer_buffer_read(vk_producer_buffer *b, size_t offset, void *dst, size_t n);

/* Compute pass: the `count` floats at byte `offset` (multiple of 4) become
 * base + scale * i (i = 0..count-1, float multiply then add, no fma). When
 * signal_value != 0 the producer's timeline is signalled to it on completion; it must
 * exceed every value passed before (fills and host signals), else -EINVAL.
 * Submits and returns without waiting. */
int vk_producer_fill(vk_producer *p, vk_producer_buffer *b, size_t offset, uint32_t count, float base,
                     float scale, uint64_t signal_value);
/* Same, but the GPU first waits for the timeline to reach wait_value (0: no wait), e.g.
 * for a value the demo signals later from the host or via an imported semaphore. */
int vk_producer_fill_after(vk_producer *p, vk_producer_buffer *b, size_t offset, uint32_t count, float base,
                           float scale, uint64_t wait_value, uint64_t signal_value);

/* Host wait until the timeline reaches value; -ETIMEDOUT (no message) if it does not
 * within timeout_ns (0 polls). */
int vk_producer_timeline_wait(vk_producer *p, uint64_t value, uint64_t timeout_ns);
/* Host signal (vkSignalSemaphore). Vulkan requires value to exceed the current counter
 * and to stay below every still-pending GPU signal value. */
int vk_producer_timeline_signal(vk_producer *p, uint64_t value);
/* Current counter value of the timeline, or a negative errno. */
int vk_producer_timeline_value(vk_producer *p, uint64_t *value);
/* A new OPAQUE_FD for the timeline semaphore (caller owns it), or -ENOTSUP when the
 * driver cannot export timeline semaphores as OPAQUE_FD (lavapipe). */
int vk_producer_timeline_export_fd(vk_producer *p);

/* ---- additions for the demo (tools/ortvk_demo.c) ----------------------------------- */

/* vk_producer_create on the physical device whose deviceUUID equals device_uuid: how an
 * application finds the GPU an ortvk EP device runs on (metadata "ortvk.device_uuid").
 * -ENODEV when no device has it or the one that does lacks what vk_producer_create needs. */
int vk_producer_create_by_uuid(const uint8_t device_uuid[16], vk_producer **out);
/* VkPhysicalDeviceProperties.deviceName of the producer's device. */
const char *vk_producer_device_name(const vk_producer *p);
/* vk_producer_buffer_create, but the memory comes from memoryTypeIndex memory_type (an
 * importer may demand one: ortvk imports opaque FDs into "ortvk.opaque_fd_memory_type").
 * -ENOTSUP when the buffer cannot live in that type. buffer_write/read use staging copies
 * when the type is not host-visible. */
int vk_producer_buffer_create_in_type(vk_producer *p, size_t size, uint32_t memory_type, vk_producer_buffer **out);

/* One line of text for vk_producer_draw_text. Glyphs are 5x7 font pixels in 6x8 cells,
 * each font pixel scale x scale device pixels; the line may run off the frame (clipped). */
#define VK_PRODUCER_TEXT_MAX_LINES 3
#define VK_PRODUCER_TEXT_MAX_CHARS 16
typedef struct vk_producer_text_line {
    int x, y;          /* top-left corner of the first cell, in pixels */
    uint32_t scale;    /* >= 1 */
    const char *text;  /* <= VK_PRODUCER_TEXT_MAX_CHARS of 0-9 A-Z space . , : - ! / ? # % ( ) + =
                        * (a-z are drawn as A-Z) */
} vk_producer_text_line;

/* Compute pass (producer_text.comp): renders a frame of dark text on a light background
 * as float32 NCHW [1,3,height,width] at byte `offset` (multiple of 4), each channel
 * normalised as PP-OCR expects: (pixel / 255 - mean) / std, mean 0.485 0.456 0.406, std
 * 0.229 0.224 0.225 (RGB). `frame` tints the background slightly. Signals the timeline to
 * signal_value (when != 0) like vk_producer_fill, releases the buffer to
 * VK_QUEUE_FAMILY_EXTERNAL the same way, and returns without waiting. -EINVAL for a bad
 * size, range, line or character, or a non-increasing signal value. */
int vk_producer_draw_text(vk_producer *p, vk_producer_buffer *b, size_t offset, uint32_t width, uint32_t height,
                          uint32_t frame, const vk_producer_text_line *lines, uint32_t line_count,
                          uint64_t signal_value);

#endif
