/* The bare Vulkan import ortvk-bench compares ortvk against (see bare_vk.h). */
#include "bare_vk.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <vulkan/vulkan.h>

#include "vk_producer.h" /* vk_producer_result_name */

struct bare_vk {
    VkInstance instance;
    VkDebugUtilsMessengerEXT messenger;
    PFN_vkDestroyDebugUtilsMessengerEXT destroy_messenger;
    VkPhysicalDevice phys;
    VkDevice device;
    bool opaque_fd, host_import, bda;
    VkDeviceSize host_alignment;
    PFN_vkGetMemoryHostPointerPropertiesEXT get_host_pointer_properties;
};

static atomic_uint bare_validation_messages;

unsigned bare_vk_validation_messages(void)
{
    return atomic_load(&bare_validation_messages);
}

static VKAPI_ATTR VkBool32 VKAPI_CALL messenger_cb(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                   VkDebugUtilsMessageTypeFlagsEXT types,
                                                   const VkDebugUtilsMessengerCallbackDataEXT *data, void *user)
{
    (void)types, (void)user;
    atomic_fetch_add(&bare_validation_messages, 1u);
    fprintf(stderr, "VALIDATION: [bench %s] %s: %s\n",
            (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) ? "error" : "warning",
            data->pMessageIdName ? data->pMessageIdName : "-", data->pMessage ? data->pMessage : "");
    return VK_FALSE;
}

static bool env_on(const char *name)
{
    const char *v = getenv(name);
    return v != NULL && v[0] != '\0' && strcmp(v, "0") != 0;
}

static bool has_layer(const char *name)
{
    uint32_t n = 0;
    if (vkEnumerateInstanceLayerProperties(&n, NULL) != VK_SUCCESS || n == 0) return false;
    VkLayerProperties *props = calloc(n, sizeof(*props));
    bool found = false;
    if (props && vkEnumerateInstanceLayerProperties(&n, props) >= 0)
        for (uint32_t i = 0; i < n && !found; i++) found = strcmp(props[i].layerName, name) == 0;
    free(props);
    return found;
}

static bool has_device_extension(VkPhysicalDevice phys, const char *name)
{
    uint32_t n = 0;
    if (vkEnumerateDeviceExtensionProperties(phys, NULL, &n, NULL) != VK_SUCCESS || n == 0) return false;
    VkExtensionProperties *props = calloc(n, sizeof(*props));
    bool found = false;
    if (props && vkEnumerateDeviceExtensionProperties(phys, NULL, &n, props) >= 0)
        for (uint32_t i = 0; i < n && !found; i++) found = strcmp(props[i].extensionName, name) == 0;
    free(props);
    return found;
}

#define FAIL_VK(r, call)                                                                                       \
    do {                                                                                                       \
        snprintf(error, error_len, "bare Vulkan: %s failed: %s (%d)", (call), vk_producer_result_name((int)(r)), \
                 (int)(r));                                                                                    \
        bare_vk_destroy(v);                                                                                    \
        return -1;                                                                                             \
    } while (0)

int bare_vk_create(const uint8_t device_uuid[16], bare_vk **out, char *error, size_t error_len)
{
    *out = NULL;
    bare_vk *v = calloc(1, sizeof(*v));
    if (v == NULL) {
        snprintf(error, error_len, "bare Vulkan: out of memory");
        return -1;
    }
    bool validation = env_on("ORTVK_VALIDATION") && has_layer("VK_LAYER_KHRONOS_validation");
    const char *layer = "VK_LAYER_KHRONOS_validation";
    const char *instance_ext = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    VkDebugUtilsMessengerCreateInfoEXT messenger_info = {
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
        .messageSeverity =
            VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
        .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
        .pfnUserCallback = messenger_cb,
    };
    VkApplicationInfo app_info = {
        .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
        .pApplicationName = "ortvk-bench",
        .apiVersion = VK_API_VERSION_1_2,
    };
    VkInstanceCreateInfo instance_info = {
        .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
        .pNext = validation ? &messenger_info : NULL,
        .pApplicationInfo = &app_info,
        .enabledLayerCount = validation ? 1u : 0u,
        .ppEnabledLayerNames = &layer,
        .enabledExtensionCount = validation ? 1u : 0u,
        .ppEnabledExtensionNames = &instance_ext,
    };
    VkResult r = vkCreateInstance(&instance_info, NULL, &v->instance);
    if (r != VK_SUCCESS) FAIL_VK(r, "vkCreateInstance");
    if (validation) {
        PFN_vkCreateDebugUtilsMessengerEXT create =
            (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(v->instance, "vkCreateDebugUtilsMessengerEXT");
        v->destroy_messenger = (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(
            v->instance, "vkDestroyDebugUtilsMessengerEXT");
        if (create != NULL && v->destroy_messenger != NULL) {
            r = create(v->instance, &messenger_info, NULL, &v->messenger);
            if (r != VK_SUCCESS) FAIL_VK(r, "vkCreateDebugUtilsMessengerEXT");
        }
    }

    /* The physical device with ortvk's deviceUUID. */
    uint32_t count = 0;
    r = vkEnumeratePhysicalDevices(v->instance, &count, NULL);
    if (r != VK_SUCCESS) FAIL_VK(r, "vkEnumeratePhysicalDevices");
    VkPhysicalDevice *phys = calloc(count ? count : 1, sizeof(*phys));
    if (phys == NULL) FAIL_VK(VK_ERROR_OUT_OF_HOST_MEMORY, "calloc");
    r = vkEnumeratePhysicalDevices(v->instance, &count, phys);
    for (uint32_t i = 0; i < count && r >= 0 && v->phys == VK_NULL_HANDLE; i++) {
        VkPhysicalDeviceIDProperties id = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
        VkPhysicalDeviceProperties2 props = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &id};
        vkGetPhysicalDeviceProperties2(phys[i], &props);
        if (memcmp(id.deviceUUID, device_uuid, VK_UUID_SIZE) == 0) v->phys = phys[i];
    }
    free(phys);
    if (v->phys == VK_NULL_HANDLE) {
        snprintf(error, error_len, "bare Vulkan: no physical device has ortvk's deviceUUID");
        bare_vk_destroy(v);
        return -1;
    }

    v->opaque_fd = has_device_extension(v->phys, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
    v->host_import = has_device_extension(v->phys, VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME);
    const char *extensions[2];
    uint32_t extension_count = 0;
    if (v->opaque_fd) extensions[extension_count++] = VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME;
    if (v->host_import) {
        extensions[extension_count++] = VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME;
        VkPhysicalDeviceExternalMemoryHostPropertiesEXT host = {
            .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_MEMORY_HOST_PROPERTIES_EXT};
        VkPhysicalDeviceProperties2 props = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &host};
        vkGetPhysicalDeviceProperties2(v->phys, &props);
        v->host_alignment = host.minImportedHostPointerAlignment;
    }
    VkPhysicalDeviceVulkan12Features supported12 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceFeatures2 supported = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
                                           .pNext = &supported12};
    vkGetPhysicalDeviceFeatures2(v->phys, &supported);
    v->bda = supported12.bufferDeviceAddress == VK_TRUE;
    VkPhysicalDeviceVulkan12Features enabled12 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
        .bufferDeviceAddress = v->bda ? VK_TRUE : VK_FALSE,
    };
    float priority = 1.0f;
    VkDeviceQueueCreateInfo queue = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
        .queueFamilyIndex = 0,
        .queueCount = 1,
        .pQueuePriorities = &priority,
    };
    VkDeviceCreateInfo device_info = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
        .pNext = &enabled12,
        .queueCreateInfoCount = 1,
        .pQueueCreateInfos = &queue,
        .enabledExtensionCount = extension_count,
        .ppEnabledExtensionNames = extensions,
    };
    r = vkCreateDevice(v->phys, &device_info, NULL, &v->device);
    if (r != VK_SUCCESS) FAIL_VK(r, "vkCreateDevice");
    if (v->host_import) {
        v->get_host_pointer_properties = (PFN_vkGetMemoryHostPointerPropertiesEXT)vkGetDeviceProcAddr(
            v->device, "vkGetMemoryHostPointerPropertiesEXT");
        v->host_import = v->get_host_pointer_properties != NULL;
    }
    *out = v;
    return 0;
}

void bare_vk_destroy(bare_vk *v)
{
    if (v == NULL) return;
    if (v->device) vkDestroyDevice(v->device, NULL);
    if (v->messenger) v->destroy_messenger(v->instance, v->messenger, NULL);
    if (v->instance) vkDestroyInstance(v->instance, NULL);
    free(v);
}

bool bare_vk_has_opaque_fd(const bare_vk *v)
{
    return v->opaque_fd;
}

bool bare_vk_has_host_import(const bare_vk *v)
{
    return v->host_import;
}

size_t bare_vk_host_alignment(const bare_vk *v)
{
    return (size_t)v->host_alignment;
}

static int report(VkResult r, const char *call)
{
    fprintf(stderr, "bare Vulkan: %s failed: %s (%d)\n", call, vk_producer_result_name((int)r), (int)r);
    return -1;
}

int bare_vk_import_fd(bare_vk *v, int fd, uint64_t size, uint32_t type, bool dedicated, bool with_buffer)
{
    VkBuffer buffer = VK_NULL_HANDLE;
    VkResult r = VK_SUCCESS;
    if (with_buffer || dedicated) {
        VkExternalMemoryBufferCreateInfo external = {
            .sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO,
            .handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT,
        };
        VkBufferCreateInfo info = {
            .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
            .pNext = &external,
            .size = size,
            .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                     VK_BUFFER_USAGE_TRANSFER_DST_BIT | (v->bda ? VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT : 0),
            .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
        };
        r = vkCreateBuffer(v->device, &info, NULL, &buffer);
        if (r != VK_SUCCESS) {
            close(fd);
            return report(r, "vkCreateBuffer");
        }
    }
    VkMemoryAllocateFlagsInfo flags = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO,
        .flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT,
    };
    VkMemoryDedicatedAllocateInfo dedicated_info = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO,
        .pNext = with_buffer && v->bda ? &flags : NULL,
        .buffer = buffer,
    };
    VkImportMemoryFdInfoKHR import = {
        .sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR,
        .pNext = dedicated ? (void *)&dedicated_info : with_buffer && v->bda ? (void *)&flags : NULL,
        .handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT,
        .fd = fd,
    };
    VkMemoryAllocateInfo alloc = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
        .pNext = &import,
        .allocationSize = size,
        .memoryTypeIndex = type,
    };
    VkDeviceMemory memory = VK_NULL_HANDLE;
    r = vkAllocateMemory(v->device, &alloc, NULL, &memory);
    if (r != VK_SUCCESS) {
        close(fd);
        vkDestroyBuffer(v->device, buffer, NULL);
        return report(r, "vkAllocateMemory(VkImportMemoryFdInfoKHR)");
    }
    int rc = 0;
    if (with_buffer) {
        r = vkBindBufferMemory(v->device, buffer, memory, 0);
        if (r != VK_SUCCESS) rc = report(r, "vkBindBufferMemory");
        if (rc == 0 && v->bda) {
            VkBufferDeviceAddressInfo address_info = {.sType = VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO,
                                                      .buffer = buffer};
            if (vkGetBufferDeviceAddress(v->device, &address_info) == 0)
                rc = report(VK_ERROR_UNKNOWN, "vkGetBufferDeviceAddress");
        }
    }
    vkDestroyBuffer(v->device, buffer, NULL);
    vkFreeMemory(v->device, memory, NULL);
    return rc;
}

int bare_vk_import_host(bare_vk *v, void *pointer, uint64_t size)
{
    VkMemoryHostPointerPropertiesEXT props = {.sType = VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT};
    VkResult r = v->get_host_pointer_properties(v->device, VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT,
                                                pointer, &props);
    if (r != VK_SUCCESS) return report(r, "vkGetMemoryHostPointerPropertiesEXT");
    if (props.memoryTypeBits == 0)
        return report(VK_ERROR_INVALID_EXTERNAL_HANDLE, "vkGetMemoryHostPointerPropertiesEXT");
    uint32_t type = (uint32_t)__builtin_ctz(props.memoryTypeBits);
    VkImportMemoryHostPointerInfoEXT import = {
        .sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT,
        .handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT,
        .pHostPointer = pointer,
    };
    VkMemoryAllocateInfo alloc = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
        .pNext = &import,
        .allocationSize = size,
        .memoryTypeIndex = type,
    };
    VkDeviceMemory memory = VK_NULL_HANDLE;
    r = vkAllocateMemory(v->device, &alloc, NULL, &memory);
    if (r != VK_SUCCESS) return report(r, "vkAllocateMemory(VkImportMemoryHostPointerInfoEXT)");
    vkFreeMemory(v->device, memory, NULL);
    return 0;
}
