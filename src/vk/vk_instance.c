/* The Vulkan instance every device of a factory shares, and the validation layer's messenger
 * (ORTVK_VALIDATION=1), whose messages fail tests. */
#include "vk/vk_instance.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ort/ort_status.h"

static VKAPI_ATTR VkBool32 VKAPI_CALL on_validation_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                            VkDebugUtilsMessageTypeFlagsEXT types,
                                                            const VkDebugUtilsMessengerCallbackDataEXT *data,
                                                            void *user)
{
    (void)types;
    ortvk_instance *instance = user;
    if (severity < VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) return VK_FALSE;
    atomic_fetch_add(&instance->validation_messages, 1);
    /* Tests fail on this prefix; it goes to stderr as well as ORT's log so that it is never filtered out. */
    fprintf(stderr, "VALIDATION: ortvk device: %s\n", data->pMessage);
    ORTVK_LOG_ERROR(instance->logger, "Vulkan validation: %s", data->pMessage);
    return VK_FALSE;
}

static bool env_enabled(const char *name)
{
    const char *v = getenv(name);
    return v != NULL && v[0] != '\0' && strcmp(v, "0") != 0;
}

static bool instance_has_layer(const char *name)
{
    uint32_t count = 0;
    if (vkEnumerateInstanceLayerProperties(&count, NULL) != VK_SUCCESS || count == 0) return false;
    VkLayerProperties *layers = calloc(count, sizeof(*layers));
    if (layers == NULL) return false;
    bool found = false;
    if (vkEnumerateInstanceLayerProperties(&count, layers) == VK_SUCCESS) {
        for (uint32_t i = 0; i < count && !found; i++) found = strcmp(layers[i].layerName, name) == 0;
    }
    free(layers);
    return found;
}

static OrtStatus *create_messenger(ortvk_instance *instance, const VkDebugUtilsMessengerCreateInfoEXT *info)
{
    PFN_vkCreateDebugUtilsMessengerEXT create =
        (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(instance->vk, "vkCreateDebugUtilsMessengerEXT");
    VkResult r = create ? create(instance->vk, info, NULL, &instance->messenger) : VK_ERROR_EXTENSION_NOT_PRESENT;
    if (r != VK_SUCCESS) return ortvk_status_vk(r, "vkCreateDebugUtilsMessengerEXT", "enabling validation messages");
    return NULL;
}

OrtStatus *ortvk_instance_create(const OrtLogger *logger, ortvk_instance **out)
{
    *out = NULL;
    uint32_t loader_version = VK_API_VERSION_1_0;
    if (vkEnumerateInstanceVersion(&loader_version) != VK_SUCCESS || loader_version < VK_API_VERSION_1_2) {
        return ortvk_status(ORT_EP_FAIL, "the Vulkan loader supports API %u.%u; ortvk needs 1.2 or newer",
                            VK_API_VERSION_MAJOR(loader_version), VK_API_VERSION_MINOR(loader_version));
    }

    ortvk_instance *instance = calloc(1, sizeof(*instance));
    if (instance == NULL) return ortvk_status(ORT_FAIL, "out of host memory creating the Vulkan instance");
    atomic_init(&instance->refs, 1);
    atomic_init(&instance->validation_messages, 0);
    instance->logger = logger;

    const char *layers[1];
    const char *extensions[1];
    uint32_t layer_count = 0, extension_count = 0;
    if (env_enabled("ORTVK_VALIDATION")) {
        if (!instance_has_layer("VK_LAYER_KHRONOS_validation")) {
            free(instance);
            return ortvk_status(ORT_EP_FAIL, "ORTVK_VALIDATION=1 but VK_LAYER_KHRONOS_validation is not installed "
                                             "(Debian: vulkan-validationlayers)");
        }
        instance->validation = true;
        layers[layer_count++] = "VK_LAYER_KHRONOS_validation";
        extensions[extension_count++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    }

    VkValidationFeatureEnableEXT sync_validation = VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT;
    VkValidationFeaturesEXT features = {
        .sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT,
        .enabledValidationFeatureCount = 1,
        .pEnabledValidationFeatures = &sync_validation,
    };
    VkDebugUtilsMessengerCreateInfoEXT messenger_info = {
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
        .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                           VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
        .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
        .pfnUserCallback = on_validation_message,
        .pUserData = instance,
    };
    if (instance->validation && env_enabled("ORTVK_SYNC_VALIDATION")) messenger_info.pNext = &features;

    VkApplicationInfo app = {
        .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
        .pApplicationName = "onnxruntime",
        .pEngineName = "ortvk",
        .apiVersion = VK_API_VERSION_1_3 <= loader_version ? VK_API_VERSION_1_3 : VK_API_VERSION_1_2,
    };
    VkInstanceCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
        .pNext = instance->validation ? &messenger_info : NULL,
        .pApplicationInfo = &app,
        .enabledLayerCount = layer_count,
        .ppEnabledLayerNames = layers,
        .enabledExtensionCount = extension_count,
        .ppEnabledExtensionNames = extensions,
    };
    VkResult r = vkCreateInstance(&info, NULL, &instance->vk);
    if (r != VK_SUCCESS) {
        free(instance);
        return ortvk_status_vk(r, "vkCreateInstance", "creating the Vulkan instance");
    }
    if (instance->validation) {
        /* The validation features chained for instance creation do not belong to the messenger's own info. */
        messenger_info.pNext = NULL;
        OrtStatus *status = create_messenger(instance, &messenger_info);
        if (status != NULL) {
            vkDestroyInstance(instance->vk, NULL);
            free(instance);
            return status;
        }
    }
    *out = instance;
    return NULL;
}

void ortvk_instance_ref(ortvk_instance *instance)
{
    atomic_fetch_add(&instance->refs, 1);
}

void ortvk_instance_unref(ortvk_instance *instance)
{
    if (instance == NULL || atomic_fetch_sub(&instance->refs, 1) != 1) return;
    if (instance->messenger != VK_NULL_HANDLE) {
        PFN_vkDestroyDebugUtilsMessengerEXT destroy_messenger = (PFN_vkDestroyDebugUtilsMessengerEXT)
            vkGetInstanceProcAddr(instance->vk, "vkDestroyDebugUtilsMessengerEXT");
        if (destroy_messenger) destroy_messenger(instance->vk, instance->messenger, NULL);
    }
    vkDestroyInstance(instance->vk, NULL);
    free(instance);
}
