/* Private to ortvk. The VkInstance shared by every device of a factory, with the validation layer's messenger when
 * ORTVK_VALIDATION=1. */
#ifndef ORTVK_VK_INSTANCE_H
#define ORTVK_VK_INSTANCE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <vulkan/vulkan.h>

#include "ort/ort_abi.h"

/* One VkInstance shared by every device of a factory; reference counted because devices (and through them
 * handles the application may release late) keep it alive. */
typedef struct ortvk_instance {
    atomic_int refs;
    VkInstance vk;
    VkDebugUtilsMessengerEXT messenger; /* only with ORTVK_VALIDATION=1 */
    bool validation;
    const OrtLogger *logger;            /* ORT's default logger, for validation messages */
    atomic_uint validation_messages;
} ortvk_instance;

OrtStatus *ortvk_instance_create(const OrtLogger *logger, ortvk_instance **out) ORTVK_MUST_CHECK;
void ortvk_instance_ref(ortvk_instance *instance);
void ortvk_instance_unref(ortvk_instance *instance);

#endif
