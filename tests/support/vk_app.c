/* The Vulkan set-up that the tests' and tools' own applications share (see vk_app.h): instance, validation
 * messages, physical device by UUID, extension queries. */
#define _POSIX_C_SOURCE 200809L

#include "vk_app.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vk_producer.h" /* vk_producer_result_name, vk_producer_validation_messages */

static atomic_uint vk_app_messages;

unsigned vk_producer_validation_messages(void)
{
    return atomic_load(&vk_app_messages);
}

int vk_app_errno(VkResult r)
{
    switch (r) {
    case VK_ERROR_OUT_OF_HOST_MEMORY:
    case VK_ERROR_OUT_OF_DEVICE_MEMORY:
    case VK_ERROR_OUT_OF_POOL_MEMORY:
    case VK_ERROR_FRAGMENTED_POOL:
    case VK_ERROR_FRAGMENTATION:
        return -ENOMEM;
    case VK_ERROR_LAYER_NOT_PRESENT:
    case VK_ERROR_EXTENSION_NOT_PRESENT:
    case VK_ERROR_FEATURE_NOT_PRESENT:
    case VK_ERROR_FORMAT_NOT_SUPPORTED:
        return -ENOTSUP;
    case VK_ERROR_INCOMPATIBLE_DRIVER:
        return -ENODEV;
    case VK_ERROR_INVALID_EXTERNAL_HANDLE:
        return -EBADF;
    case VK_ERROR_TOO_MANY_OBJECTS:
        return -EMFILE;
    case VK_TIMEOUT:
        return -ETIMEDOUT;
    default:
        return -EIO;
    }
}

static int vk_app_failed(const char *who, VkResult r, const char *call)
{
    fprintf(stderr, "%s: %s failed: %s (%d)\n", who, call, vk_producer_result_name(r), (int)r);
    return vk_app_errno(r);
}

static VKAPI_ATTR VkBool32 VKAPI_CALL vk_app_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                     VkDebugUtilsMessageTypeFlagsEXT types,
                                                     const VkDebugUtilsMessengerCallbackDataEXT *data, void *who)
{
    (void)types;
    atomic_fetch_add(&vk_app_messages, 1u);
    fprintf(stderr, "VALIDATION: [%s %s] %s: %s\n", (const char *)who,
            (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) ? "error" : "warning",
            data->pMessageIdName ? data->pMessageIdName : "-", data->pMessage ? data->pMessage : "");
    return VK_FALSE;
}

bool vk_app_env_on(const char *name)
{
    const char *v = getenv(name);
    return v != NULL && v[0] != '\0' && strcmp(v, "0") != 0;
}

static bool vk_app_has_layer(const char *name)
{
    uint32_t n = 0;
    if (vkEnumerateInstanceLayerProperties(&n, NULL) != VK_SUCCESS || n == 0) return false;
    VkLayerProperties *props = calloc(n, sizeof(*props));
    bool found = false;
    if (props != NULL && vkEnumerateInstanceLayerProperties(&n, props) == VK_SUCCESS)
        for (uint32_t i = 0; i < n && !found; i++) found = strcmp(props[i].layerName, name) == 0;
    free(props);
    return found;
}

bool vk_app_has_extension(VkPhysicalDevice phys, const char *layer, const char *ext)
{
    uint32_t n = 0;
    VkResult r = phys != VK_NULL_HANDLE ? vkEnumerateDeviceExtensionProperties(phys, layer, &n, NULL)
                                        : vkEnumerateInstanceExtensionProperties(layer, &n, NULL);
    if (r != VK_SUCCESS || n == 0) return false;
    VkExtensionProperties *props = calloc(n, sizeof(*props));
    if (props == NULL) return false;
    r = phys != VK_NULL_HANDLE ? vkEnumerateDeviceExtensionProperties(phys, layer, &n, props)
                               : vkEnumerateInstanceExtensionProperties(layer, &n, props);
    bool found = false;
    if (r == VK_SUCCESS || r == VK_INCOMPLETE)
        for (uint32_t i = 0; i < n && !found; i++) found = strcmp(props[i].extensionName, ext) == 0;
    free(props);
    return found;
}

int vk_app_instance_open(const char *app_name, const char *who, vk_app_instance *out)
{
    *out = (vk_app_instance){VK_NULL_HANDLE, VK_NULL_HANDLE, NULL};
    uint32_t api = 0;
    if (vkEnumerateInstanceVersion(&api) != VK_SUCCESS || api < VK_API_VERSION_1_2) {
        fprintf(stderr, "%s: the Vulkan loader is older than 1.2\n", who);
        return -ENOTSUP;
    }
    bool validation = vk_app_env_on("ORTVK_VALIDATION");
    bool sync_validation = validation && vk_app_env_on("ORTVK_SYNC_VALIDATION");
    const char *layer = "VK_LAYER_KHRONOS_validation";
    const char *exts[2];
    uint32_t n_exts = 0;
    if (validation) {
        const char *missing = !vk_app_has_layer(layer) ? "VK_LAYER_KHRONOS_validation is not installed"
                              : !vk_app_has_extension(VK_NULL_HANDLE, NULL, VK_EXT_DEBUG_UTILS_EXTENSION_NAME)
                                  ? "VK_EXT_debug_utils is missing"
                              : sync_validation &&
                                      !vk_app_has_extension(VK_NULL_HANDLE, layer,
                                                            VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME)
                                  ? "VK_EXT_validation_features is missing (ORTVK_SYNC_VALIDATION=1)"
                                  : NULL;
        if (missing != NULL) {
            fprintf(stderr, "%s: ORTVK_VALIDATION=1 but %s\n", who, missing);
            return -ENOTSUP;
        }
        exts[n_exts++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
        if (sync_validation) exts[n_exts++] = VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME;
    }
    VkValidationFeatureEnableEXT sync_feature = VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT;
    VkValidationFeaturesEXT features = {
        .sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT,
        .enabledValidationFeatureCount = 1,
        .pEnabledValidationFeatures = &sync_feature,
    };
    /* Chained into VkInstanceCreateInfo too, so that vkCreateInstance's and vkDestroyInstance's messages count. */
    VkDebugUtilsMessengerCreateInfoEXT messenger_info = {
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
        .pNext = sync_validation ? &features : NULL,
        .messageSeverity =
            VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
        .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
        .pfnUserCallback = vk_app_message,
        .pUserData = (void *)who,
    };
    VkApplicationInfo app = {
        .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
        .pApplicationName = app_name,
        .apiVersion = VK_API_VERSION_1_2,
    };
    VkInstanceCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
        .pNext = validation ? &messenger_info : NULL,
        .pApplicationInfo = &app,
        .enabledLayerCount = validation ? 1u : 0u,
        .ppEnabledLayerNames = &layer,
        .enabledExtensionCount = n_exts,
        .ppEnabledExtensionNames = exts,
    };
    VkResult r = vkCreateInstance(&info, NULL, &out->vk);
    if (r != VK_SUCCESS) return vk_app_failed(who, r, "vkCreateInstance");
    if (!validation) return 0;
    PFN_vkCreateDebugUtilsMessengerEXT create =
        (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(out->vk, "vkCreateDebugUtilsMessengerEXT");
    out->destroy_messenger =
        (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(out->vk, "vkDestroyDebugUtilsMessengerEXT");
    messenger_info.pNext = NULL;
    r = create != NULL && out->destroy_messenger != NULL ? create(out->vk, &messenger_info, NULL, &out->messenger)
                                                          : VK_ERROR_EXTENSION_NOT_PRESENT;
    if (r == VK_SUCCESS) return 0;
    vk_app_instance_close(out);
    return vk_app_failed(who, r, "vkCreateDebugUtilsMessengerEXT");
}

void vk_app_instance_close(vk_app_instance *instance)
{
    if (instance == NULL) return;
    if (instance->messenger != VK_NULL_HANDLE) instance->destroy_messenger(instance->vk, instance->messenger, NULL);
    if (instance->vk != VK_NULL_HANDLE) vkDestroyInstance(instance->vk, NULL);
    *instance = (vk_app_instance){VK_NULL_HANDLE, VK_NULL_HANDLE, NULL};
}

VkPhysicalDevice vk_app_physical_by_uuid(VkInstance instance, const uint8_t device_uuid[VK_UUID_SIZE],
                                         const uint8_t *driver_uuid)
{
    uint32_t n = 0;
    if (vkEnumeratePhysicalDevices(instance, &n, NULL) != VK_SUCCESS || n == 0) return VK_NULL_HANDLE;
    VkPhysicalDevice *devices = calloc(n, sizeof(*devices));
    if (devices == NULL) return VK_NULL_HANDLE;
    VkResult r = vkEnumeratePhysicalDevices(instance, &n, devices);
    VkPhysicalDevice found = VK_NULL_HANDLE;
    for (uint32_t i = 0; (r == VK_SUCCESS || r == VK_INCOMPLETE) && i < n && found == VK_NULL_HANDLE; i++) {
        VkPhysicalDeviceIDProperties id = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
        VkPhysicalDeviceProperties2 props = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &id};
        vkGetPhysicalDeviceProperties2(devices[i], &props);
        if (memcmp(id.deviceUUID, device_uuid, VK_UUID_SIZE) == 0 &&
            (driver_uuid == NULL || memcmp(id.driverUUID, driver_uuid, VK_UUID_SIZE) == 0))
            found = devices[i];
    }
    free(devices);
    return found;
}

int vk_app_device_create(const char *who, VkPhysicalDevice phys, uint32_t family, const void *features,
                         const char *const *exts, uint32_t n_exts, VkDevice *out)
{
    float priority = 1.0f;
    VkDeviceQueueCreateInfo queue = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
        .queueFamilyIndex = family,
        .queueCount = 1,
        .pQueuePriorities = &priority,
    };
    VkDeviceCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
        .pNext = features,
        .queueCreateInfoCount = 1,
        .pQueueCreateInfos = &queue,
        .enabledExtensionCount = n_exts,
        .ppEnabledExtensionNames = exts,
    };
    VkResult r = vkCreateDevice(phys, &info, NULL, out);
    if (r == VK_SUCCESS) return 0;
    *out = VK_NULL_HANDLE;
    return vk_app_failed(who, r, "vkCreateDevice");
}
