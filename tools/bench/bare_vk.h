/* The floor of an import: a minimal VkInstance/VkDevice of ortvk-bench's own on the physical device with a given
 * deviceUUID, that imports memory the way the Vulkan spec requires and frees it again, with nothing of ortvk or ORT
 * in between. With ORTVK_VALIDATION=1 it enables the Khronos validation layer and prints each message as a
 * "VALIDATION: [bench] ..." line, like ortvk and the test producer. */
#ifndef ORTVK_BENCH_BARE_VK_H
#define ORTVK_BENCH_BARE_VK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct bare_vk bare_vk;

/* 0 on success; otherwise -1 and `error` names the failing call and its VkResult. */
int bare_vk_create(const uint8_t device_uuid[16], bare_vk **out, char *error, size_t error_len);
void bare_vk_destroy(bare_vk *v);

bool bare_vk_has_opaque_fd(const bare_vk *v);
bool bare_vk_has_host_import(const bare_vk *v);
size_t bare_vk_host_alignment(const bare_vk *v); /* minImportedHostPointerAlignment */

/* vkAllocateMemory with VkImportMemoryFdInfoKHR (OPAQUE_FD) of `size` bytes in memory type `type`, then
 * vkFreeMemory. Vulkan owns `fd` once the import succeeds; on failure it is closed here. `dedicated` chains
 * VkMemoryDedicatedAllocateInfo for a buffer (which the driver then demands). With `with_buffer` it also does what
 * an importer needs before it can use the memory: a VkBuffer with VkExternalMemoryBufferCreateInfo, bound, its
 * device address queried (when the device has bufferDeviceAddress), destroyed. 0, or -1 after printing the
 * failing call. */
int bare_vk_import_fd(bare_vk *v, int fd, uint64_t size, uint32_t type, bool dedicated, bool with_buffer);

/* vkGetMemoryHostPointerPropertiesEXT, vkAllocateMemory with VkImportMemoryHostPointerInfoEXT, vkFreeMemory. */
int bare_vk_import_host(bare_vk *v, void *pointer, uint64_t size);

#endif
