/* The Vulkan instance and devices: probing what a physical device can import, creating the VkDevice ortvk runs
 * on, its queue, and the address table that resolves tensor data pointers to buffers. */
#include "vk/vk_device.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ort/ort_status.h"
#include "ortvk.h"
#include "vk/vk_memory.h"

/* ---- instance ------------------------------------------------------------------------------------------ */

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
        PFN_vkCreateDebugUtilsMessengerEXT create_messenger =
            (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(instance->vk, "vkCreateDebugUtilsMessengerEXT");
        /* The validation features chained for instance creation do not belong to the messenger's own info. */
        messenger_info.pNext = NULL;
        r = create_messenger ? create_messenger(instance->vk, &messenger_info, NULL, &instance->messenger)
                             : VK_ERROR_EXTENSION_NOT_PRESENT;
        if (r != VK_SUCCESS) {
            vkDestroyInstance(instance->vk, NULL);
            free(instance);
            return ortvk_status_vk(r, "vkCreateDebugUtilsMessengerEXT", "enabling validation messages");
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

/* ---- probing ------------------------------------------------------------------------------------------- */

static bool has_extension(const VkExtensionProperties *exts, uint32_t count, const char *name)
{
    for (uint32_t i = 0; i < count; i++) {
        if (strcmp(exts[i].extensionName, name) == 0) return true;
    }
    return false;
}

/* The usage every ortvk buffer has, imported or allocated: probes must ask about exactly this. */
#define ORTVK_BUFFER_USAGE                                                                                     \
    (VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT | \
     VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT | VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT)

static bool buffer_importable(VkPhysicalDevice physical, VkExternalMemoryHandleTypeFlagBits type)
{
    VkPhysicalDeviceExternalBufferInfo info = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_BUFFER_INFO,
        .usage = ORTVK_BUFFER_USAGE,
        .handleType = type,
    };
    VkExternalBufferProperties props = {.sType = VK_STRUCTURE_TYPE_EXTERNAL_BUFFER_PROPERTIES};
    vkGetPhysicalDeviceExternalBufferProperties(physical, &info, &props);
    return (props.externalMemoryProperties.externalMemoryFeatures & VK_EXTERNAL_MEMORY_FEATURE_IMPORTABLE_BIT) != 0;
}

static bool timeline_importable(VkPhysicalDevice physical)
{
    VkSemaphoreTypeCreateInfo type = {
        .sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
        .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE,
    };
    VkPhysicalDeviceExternalSemaphoreInfo info = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_SEMAPHORE_INFO,
        .pNext = &type,
        .handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT,
    };
    VkExternalSemaphoreProperties props = {.sType = VK_STRUCTURE_TYPE_EXTERNAL_SEMAPHORE_PROPERTIES};
    vkGetPhysicalDeviceExternalSemaphoreProperties(physical, &info, &props);
    return (props.externalSemaphoreFeatures & VK_EXTERNAL_SEMAPHORE_FEATURE_IMPORTABLE_BIT) != 0;
}

static int find_memory_type(const VkPhysicalDeviceMemoryProperties *mem, VkMemoryPropertyFlags want)
{
    for (uint32_t i = 0; i < mem->memoryTypeCount; i++) {
        if ((mem->memoryTypes[i].propertyFlags & want) == want) return (int)i;
    }
    return -1;
}

bool ortvk_device_probe(VkPhysicalDevice physical, ortvk_device_caps *caps, char *why, size_t why_len)
{
    memset(caps, 0, sizeof(*caps));
    vkGetPhysicalDeviceProperties(physical, &caps->props);
    if (caps->props.apiVersion < VK_API_VERSION_1_2) {
        snprintf(why, why_len, "Vulkan %u.%u (ortvk needs 1.2)", VK_API_VERSION_MAJOR(caps->props.apiVersion),
                 VK_API_VERSION_MINOR(caps->props.apiVersion));
        return false;
    }

    VkPhysicalDeviceExternalMemoryHostPropertiesEXT host_props = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_MEMORY_HOST_PROPERTIES_EXT,
    };
    caps->driver.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES;
    VkPhysicalDeviceIDProperties ids = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES,
                                        .pNext = &caps->driver};
    VkPhysicalDeviceProperties2 props2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &ids};

    uint32_t ext_count = 0;
    vkEnumerateDeviceExtensionProperties(physical, NULL, &ext_count, NULL);
    VkExtensionProperties *exts = calloc(ext_count ? ext_count : 1, sizeof(*exts));
    if (exts == NULL) {
        snprintf(why, why_len, "out of host memory");
        return false;
    }
    vkEnumerateDeviceExtensionProperties(physical, NULL, &ext_count, exts);
    bool has_host = has_extension(exts, ext_count, VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME);
    bool has_memory_fd = has_extension(exts, ext_count, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
    bool has_semaphore_fd = has_extension(exts, ext_count, VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME);
    caps->push_descriptor = has_extension(exts, ext_count, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);
    free(exts);
    if (has_host) caps->driver.pNext = &host_props;
    vkGetPhysicalDeviceProperties2(physical, &props2);
    caps->driver.pNext = NULL;
    memcpy(caps->device_uuid, ids.deviceUUID, VK_UUID_SIZE);
    memcpy(caps->driver_uuid, ids.driverUUID, VK_UUID_SIZE);

    VkPhysicalDeviceVulkan11Features f11 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
    VkPhysicalDeviceVulkan12Features f12 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
                                            .pNext = &f11};
    VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &f12};
    vkGetPhysicalDeviceFeatures2(physical, &f2);
    if (!f12.timelineSemaphore || !f12.bufferDeviceAddress) {
        snprintf(why, why_len, "missing %s", !f12.timelineSemaphore ? "timelineSemaphore" : "bufferDeviceAddress");
        return false;
    }
    caps->storage_16bit = f11.storageBuffer16BitAccess;
    caps->storage_8bit = f12.storageBuffer8BitAccess;

    uint32_t family_count = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(physical, &family_count, NULL);
    VkQueueFamilyProperties families[32];
    if (family_count > 32) family_count = 32;
    vkGetPhysicalDeviceQueueFamilyProperties(physical, &family_count, families);
    caps->queue_family_count = family_count;
    caps->queue_family = UINT32_MAX;
    size_t used = 0;
    for (uint32_t i = 0; i < family_count && used < sizeof(caps->queue_families); i++) {
        VkQueueFlags f = families[i].queueFlags;
        int n = snprintf(caps->queue_families + used, sizeof(caps->queue_families) - used, "%s%u:%s%s%s x%u",
                         i ? "; " : "", i, f & VK_QUEUE_GRAPHICS_BIT ? "graphics+" : "",
                         f & VK_QUEUE_COMPUTE_BIT ? "compute+" : "", f & VK_QUEUE_TRANSFER_BIT ? "transfer" : "",
                         families[i].queueCount);
        if (n > 0) used += (size_t)n;
    }
    for (uint32_t i = 0; i < family_count; i++) {
        if (families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
            caps->queue_family = i;
            break;
        }
    }
    if (caps->queue_family == UINT32_MAX) {
        snprintf(why, why_len, "no compute queue family");
        return false;
    }

    VkPhysicalDeviceMemoryProperties mem;
    vkGetPhysicalDeviceMemoryProperties(physical, &mem);
    int device_type = find_memory_type(&mem, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    int staging_type = find_memory_type(&mem, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    if (device_type < 0) device_type = staging_type;
    if (device_type < 0 || staging_type < 0) {
        snprintf(why, why_len, "no %s memory type", device_type < 0 ? "device-local" : "host-visible coherent");
        return false;
    }
    caps->device_memory_type = (uint32_t)device_type;
    caps->staging_memory_type = (uint32_t)staging_type;

    caps->import_opaque_fd_memory =
        has_memory_fd && buffer_importable(physical, VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT);
    caps->import_host_memory =
        has_host && buffer_importable(physical, VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT);
    caps->host_pointer_alignment = has_host ? host_props.minImportedHostPointerAlignment : 0;
    caps->import_timeline_opaque_fd = has_semaphore_fd && timeline_importable(physical);
    return true;
}

/* ---- device -------------------------------------------------------------------------------------------- */

OrtStatus *ortvk_device_create(ortvk_instance *instance, VkPhysicalDevice physical, const ortvk_device_caps *caps,
                               uint32_t index, ortvk_device **out)
{
    *out = NULL;
    ortvk_device *device = calloc(1, sizeof(*device));
    if (device == NULL) return ortvk_status(ORT_FAIL, "out of host memory creating device %u", index);
    atomic_init(&device->refs, 1);
    device->index = index;
    device->physical = physical;
    device->caps = *caps;

    const char *extensions[5];
    uint32_t extension_count = 0;
    if (caps->push_descriptor) extensions[extension_count++] = VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME;
    if (caps->import_opaque_fd_memory) extensions[extension_count++] = VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME;
    if (caps->import_host_memory) extensions[extension_count++] = VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME;
    if (caps->import_timeline_opaque_fd) extensions[extension_count++] = VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME;

    VkPhysicalDeviceVulkan11Features f11 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES,
        .storageBuffer16BitAccess = caps->storage_16bit ? VK_TRUE : VK_FALSE,
    };
    VkPhysicalDeviceVulkan12Features f12 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
        .pNext = &f11,
        .timelineSemaphore = VK_TRUE,
        .bufferDeviceAddress = VK_TRUE,
        .storageBuffer8BitAccess = caps->storage_8bit ? VK_TRUE : VK_FALSE,
    };
    float priority = 1.0f;
    VkDeviceQueueCreateInfo queue_info = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
        .queueFamilyIndex = caps->queue_family,
        .queueCount = 1,
        .pQueuePriorities = &priority,
    };
    VkDeviceCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
        .pNext = &f12,
        .queueCreateInfoCount = 1,
        .pQueueCreateInfos = &queue_info,
        .enabledExtensionCount = extension_count,
        .ppEnabledExtensionNames = extensions,
    };
    OrtStatus *status = ortvk_ort->CreateMemoryInfo_V2(ORTVK_EP_NAME, OrtMemoryInfoDeviceType_GPU,
                                                       caps->props.vendorID, (int32_t)index,
                                                       OrtDeviceMemoryType_DEFAULT, 0, OrtDeviceAllocator,
                                                       &device->memory_info);
    if (status != NULL) {
        free(device);
        return status;
    }
    VkResult r = vkCreateDevice(physical, &info, NULL, &device->vk);
    if (r != VK_SUCCESS) {
        ortvk_ort->ReleaseMemoryInfo(device->memory_info);
        free(device);
        return ortvk_status_vk(r, "vkCreateDevice", "creating device %u (%s)", index, caps->props.deviceName);
    }
    vkGetDeviceQueue(device->vk, caps->queue_family, 0, &device->queue);
    if (caps->import_opaque_fd_memory)
        device->GetMemoryFdKHR = (PFN_vkGetMemoryFdKHR)vkGetDeviceProcAddr(device->vk, "vkGetMemoryFdKHR");
    if (caps->import_timeline_opaque_fd)
        device->ImportSemaphoreFdKHR =
            (PFN_vkImportSemaphoreFdKHR)vkGetDeviceProcAddr(device->vk, "vkImportSemaphoreFdKHR");
    if (caps->import_host_memory)
        device->GetMemoryHostPointerPropertiesEXT = (PFN_vkGetMemoryHostPointerPropertiesEXT)vkGetDeviceProcAddr(
            device->vk, "vkGetMemoryHostPointerPropertiesEXT");

    pthread_mutex_init(&device->queue_lock, NULL);
    pthread_mutex_init(&device->address_lock, NULL);
    pthread_mutex_init(&device->streams_lock, NULL);
    pthread_mutex_init(&device->staging_lock, NULL);
    pthread_mutex_init(&device->host_lock, NULL);
    ortvk_instance_ref(instance);
    device->instance = instance;
    *out = device;
    return NULL;
}

void ortvk_device_ref(ortvk_device *device)
{
    atomic_fetch_add(&device->refs, 1);
}

void ortvk_device_unref(ortvk_device *device)
{
    if (device == NULL || atomic_fetch_sub(&device->refs, 1) != 1) return;
    vkDeviceWaitIdle(device->vk);
    ortvk_staging_cache_clear(device);
    vkDestroyDevice(device->vk, NULL);
    ortvk_ort->ReleaseMemoryInfo(device->memory_info);
    pthread_mutex_destroy(&device->queue_lock);
    pthread_mutex_destroy(&device->address_lock);
    pthread_mutex_destroy(&device->streams_lock);
    pthread_mutex_destroy(&device->staging_lock);
    pthread_mutex_destroy(&device->host_lock);
    free(device->host_imports);
    free(device->ranges);
    free(device->streams);
    ortvk_instance_unref(device->instance);
    free(device);
}

OrtStatus *ortvk_device_submit(ortvk_device *device, const VkSubmitInfo *submit, const char *what)
{
    pthread_mutex_lock(&device->queue_lock);
    VkResult r = vkQueueSubmit(device->queue, 1, submit, VK_NULL_HANDLE);
    pthread_mutex_unlock(&device->queue_lock);
    if (r != VK_SUCCESS) return ortvk_status_vk(r, "vkQueueSubmit", "%s", what);
    return NULL;
}

/* ---- address table ------------------------------------------------------------------------------------- */

/* Index of the first range whose address is > `address`. */
static size_t upper_bound(const ortvk_device *device, VkDeviceAddress address)
{
    size_t lo = 0, hi = device->range_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (device->ranges[mid].address <= address) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

OrtStatus *ortvk_device_add_range(ortvk_device *device, VkDeviceAddress address, VkDeviceSize size,
                                  ortvk_buffer *buffer)
{
    pthread_mutex_lock(&device->address_lock);
    if (device->range_count == device->range_capacity) {
        size_t capacity = device->range_capacity ? device->range_capacity * 2 : 64;
        ortvk_address_range *ranges = realloc(device->ranges, capacity * sizeof(*ranges));
        if (ranges == NULL) {
            pthread_mutex_unlock(&device->address_lock);
            return ortvk_status(ORT_FAIL, "out of host memory growing the address table");
        }
        device->ranges = ranges;
        device->range_capacity = capacity;
    }
    size_t at = upper_bound(device, address);
    memmove(&device->ranges[at + 1], &device->ranges[at], (device->range_count - at) * sizeof(*device->ranges));
    device->ranges[at] = (ortvk_address_range){address, size, buffer};
    device->range_count++;
    pthread_mutex_unlock(&device->address_lock);
    return NULL;
}

void ortvk_device_remove_range(ortvk_device *device, VkDeviceAddress address, const ortvk_buffer *buffer)
{
    pthread_mutex_lock(&device->address_lock);
    /* Entries with equal addresses sit together just below upper_bound: find this buffer's among them. Removing
     * just any of them would leave a live address mapped to this (freed) buffer. */
    for (size_t at = upper_bound(device, address); at > 0 && device->ranges[at - 1].address == address; at--) {
        if (device->ranges[at - 1].buffer != buffer) continue;
        memmove(&device->ranges[at - 1], &device->ranges[at], (device->range_count - at) * sizeof(*device->ranges));
        device->range_count--;
        break;
    }
    pthread_mutex_unlock(&device->address_lock);
}

/* The range holding [address, address + size), the last added first among those that start together; with `ref`,
 * one whose buffer a reference could be taken on. Ranges overlap only where memory is imported twice (two host
 * imports of overlapping ranges, whose device addresses are their host addresses on lavapipe): when the ranges that
 * start nearest below miss, every range that starts below is tried, from the nearest down. Lock held. */
static ortvk_buffer *find_range(ortvk_device *device, VkDeviceAddress address, size_t size, bool ref,
                                VkDeviceSize *offset)
{
    size_t at = upper_bound(device, address);
    for (int pass = 0; pass < 2; pass++) {
        for (size_t k = at; k-- > 0;) {
            const ortvk_address_range *range = &device->ranges[k];
            if (pass == 0 && range->address != device->ranges[at - 1].address) break;
            VkDeviceSize into = address - range->address;
            if (into <= range->size && size <= range->size - into && (!ref || ortvk_buffer_try_ref(range->buffer))) {
                *offset = into;
                return range->buffer;
            }
        }
    }
    return NULL;
}

ortvk_buffer *ortvk_device_resolve(ortvk_device *device, const void *pointer, size_t size, VkDeviceSize *offset)
{
    pthread_mutex_lock(&device->address_lock);
    ortvk_buffer *found = find_range(device, (VkDeviceAddress)(uintptr_t)pointer, size, false, offset);
    pthread_mutex_unlock(&device->address_lock);
    return found;
}

ortvk_buffer *ortvk_device_acquire(ortvk_device *device, const void *pointer, size_t size, VkDeviceSize *offset)
{
    pthread_mutex_lock(&device->address_lock);
    ortvk_buffer *found = find_range(device, (VkDeviceAddress)(uintptr_t)pointer, size, true, offset);
    pthread_mutex_unlock(&device->address_lock);
    return found;
}

/* ---- stream registry ----------------------------------------------------------------------------------- */

OrtStatus *ortvk_device_add_stream(ortvk_device *device, ortvk_stream *stream)
{
    pthread_mutex_lock(&device->streams_lock);
    if (device->stream_count == device->stream_capacity) {
        size_t capacity = device->stream_capacity ? device->stream_capacity * 2 : 8;
        ortvk_stream **streams = realloc(device->streams, capacity * sizeof(*streams));
        if (streams == NULL) {
            pthread_mutex_unlock(&device->streams_lock);
            return ortvk_status(ORT_FAIL, "out of host memory registering a stream");
        }
        device->streams = streams;
        device->stream_capacity = capacity;
    }
    device->streams[device->stream_count++] = stream;
    pthread_mutex_unlock(&device->streams_lock);
    return NULL;
}

void ortvk_device_remove_stream(ortvk_device *device, ortvk_stream *stream)
{
    pthread_mutex_lock(&device->streams_lock);
    for (size_t i = 0; i < device->stream_count; i++) {
        if (device->streams[i] == stream) {
            device->streams[i] = device->streams[--device->stream_count];
            break;
        }
    }
    pthread_mutex_unlock(&device->streams_lock);
}

void ortvk_uuid_hex(const uint8_t uuid[VK_UUID_SIZE], char out[2 * VK_UUID_SIZE + 1])
{
    static const char digits[] = "0123456789abcdef";
    for (unsigned i = 0; i < VK_UUID_SIZE; i++) {
        out[2 * i] = digits[uuid[i] >> 4];
        out[2 * i + 1] = digits[uuid[i] & 15];
    }
    out[2 * VK_UUID_SIZE] = '\0';
}
