/* What the Vulkan applications of the tests and tools (the producer, test_vk_producer's importing consumer and
 * ortvk-bench's bare import) set up alike: an instance with the validation layer where ORTVK_VALIDATION asks for it
 * and one count of its messages, a physical device found by UUID, extension queries, VkResult errnos. */
#ifndef ORTVK_TESTS_VK_APP_H
#define ORTVK_TESTS_VK_APP_H

#include <stdbool.h>
#include <stdint.h>

#include <vulkan/vulkan.h>

typedef struct vk_app_instance {
    VkInstance vk;
    VkDebugUtilsMessengerEXT messenger; /* VK_NULL_HANDLE without validation */
    PFN_vkDestroyDebugUtilsMessengerEXT destroy_messenger;
} vk_app_instance;

/* A Vulkan 1.2 instance of `app_name`. With ORTVK_VALIDATION on: VK_LAYER_KHRONOS_validation (with synchronization
 * validation where ORTVK_SYNC_VALIDATION is on too) and a messenger, chained into vkCreateInstance as well, that
 * prints each warning or error on stderr as one line "VALIDATION: [<who> error|warning] <id>: <message>" (tests fail
 * on that prefix) and counts it in vk_producer_validation_messages(). Validation asked for but not installed fails
 * rather than check nothing. 0, or a negative errno with one line on stderr; `out` is closed on failure. */
int vk_app_instance_open(const char *app_name, const char *who, vk_app_instance *out);
/* NULL-safe; after every device of the instance is destroyed. */
void vk_app_instance_close(vk_app_instance *instance);

/* A logical device of `phys` with one queue of `family`, the device extensions `exts` and the feature chain
 * `features` (a VkPhysicalDevice*Features struct chain, or NULL). 0, or a negative errno with one line on stderr
 * naming `who`. */
int vk_app_device_create(const char *who, VkPhysicalDevice phys, uint32_t family, const void *features,
                         const char *const *exts, uint32_t n_exts, VkDevice *out);

/* Whether the environment variable `name` is set to something other than "" and "0". */
bool vk_app_env_on(const char *name);
/* Whether `ext` is offered by the instance (phys VK_NULL_HANDLE, layer NULL), by a layer, or by a device. */
bool vk_app_has_extension(VkPhysicalDevice phys, const char *layer, const char *ext);
/* The physical device of `instance` with this deviceUUID (and driverUUID where not NULL), or VK_NULL_HANDLE. */
VkPhysicalDevice vk_app_physical_by_uuid(VkInstance instance, const uint8_t device_uuid[VK_UUID_SIZE],
                                         const uint8_t *driver_uuid);
/* A negative errno for a failed VkResult, so that callers can tell "not available here" (-ENOTSUP, -ENODEV) from
 * "ran out" (-ENOMEM) and from "broken" (-EIO). */
int vk_app_errno(VkResult r);

#endif
