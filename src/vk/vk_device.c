/* Devices: probing what a physical device can import, creating the VkDevice ortvk runs on with its queue and heap,
 * and the device's registries (live streams, subsystem slots). */
#include "vk/vk_device.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ort/ort_status.h"
#include "ortvk.h"
#include "vk/vk_heap.h"

/* ---- probing ------------------------------------------------------------------------------------------- */

static bool has_extension(const VkExtensionProperties *exts, uint32_t count, const char *name)
{
    for (uint32_t i = 0; i < count; i++) {
        if (strcmp(exts[i].extensionName, name) == 0) return true;
    }
    return false;
}

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

/* The queue families (described in caps->queue_families) and the first with compute. */
static bool probe_queue_families(VkPhysicalDevice physical, ortvk_device_caps *caps, char *why, size_t why_len)
{
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
    return true;
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
    VkPhysicalDeviceFloatControlsProperties floats = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FLOAT_CONTROLS_PROPERTIES,
    };
    VkPhysicalDeviceIDProperties ids = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES,
                                        .pNext = &floats};
    floats.pNext = &caps->driver;
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
    caps->float_controls = (ortvk_float_controls){
        .denorm_preserve = {floats.shaderDenormPreserveFloat16, floats.shaderDenormPreserveFloat32,
                            floats.shaderDenormPreserveFloat64},
        .nan_preserve = {floats.shaderSignedZeroInfNanPreserveFloat16, floats.shaderSignedZeroInfNanPreserveFloat32,
                         floats.shaderSignedZeroInfNanPreserveFloat64},
        .denorm_independence = floats.denormBehaviorIndependence,
    };

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
    caps->texels_16bit = true;
    const VkFormat half_formats[] = {VK_FORMAT_R16_SFLOAT, VK_FORMAT_R16G16B16A16_SFLOAT};
    for (size_t i = 0; i < sizeof(half_formats) / sizeof(half_formats[0]); i++) {
        VkFormatProperties format;
        vkGetPhysicalDeviceFormatProperties(physical, half_formats[i], &format);
        caps->texels_16bit &= (format.bufferFeatures & VK_FORMAT_FEATURE_UNIFORM_TEXEL_BUFFER_BIT) != 0;
    }
    caps->storage_8bit = f12.storageBuffer8BitAccess;

    if (!probe_queue_families(physical, caps, why, why_len)) return false;
    VkPhysicalDeviceMemoryProperties memory;
    vkGetPhysicalDeviceMemoryProperties(physical, &memory);
    if (!ortvk_memory_types_choose(&memory, &caps->memory)) {
        snprintf(why, why_len, "no host-visible coherent memory type");
        return false;
    }
    caps->import_opaque_fd_memory =
        has_memory_fd && buffer_importable(physical, VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT);
    caps->import_host_memory =
        has_host && buffer_importable(physical, VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT);
    caps->host_pointer_alignment = has_host ? host_props.minImportedHostPointerAlignment : 0;
    caps->import_timeline_opaque_fd = has_semaphore_fd && timeline_importable(physical);
    return true;
}

/* ---- device -------------------------------------------------------------------------------------------- */

/* The VkDevice with one queue of caps->queue_family and the extensions and features ortvk uses that it has. */
static OrtStatus *create_vk_device(VkPhysicalDevice physical, const ortvk_device_caps *caps, uint32_t index,
                                   VkDevice *out)
{
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
    VkResult r = vkCreateDevice(physical, &info, NULL, out);
    if (r != VK_SUCCESS)
        return ortvk_status_vk(r, "vkCreateDevice", "creating device %u (%s)", index, caps->props.deviceName);
    return NULL;
}

/* The queue and the extension entry points the device's caps enable. */
static void load_device_functions(ortvk_device *device)
{
    const ortvk_device_caps *caps = &device->caps;
    vkGetDeviceQueue(device->vk, caps->queue_family, 0, &device->queue);
    if (caps->import_opaque_fd_memory)
        device->GetMemoryFdKHR = (PFN_vkGetMemoryFdKHR)vkGetDeviceProcAddr(device->vk, "vkGetMemoryFdKHR");
    if (caps->import_timeline_opaque_fd)
        device->ImportSemaphoreFdKHR =
            (PFN_vkImportSemaphoreFdKHR)vkGetDeviceProcAddr(device->vk, "vkImportSemaphoreFdKHR");
    if (caps->import_host_memory)
        device->GetMemoryHostPointerPropertiesEXT = (PFN_vkGetMemoryHostPointerPropertiesEXT)vkGetDeviceProcAddr(
            device->vk, "vkGetMemoryHostPointerPropertiesEXT");
}

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
    OrtStatus *status = ortvk_ort->CreateMemoryInfo_V2(ORTVK_EP_NAME, OrtMemoryInfoDeviceType_GPU,
                                                       caps->props.vendorID, (int32_t)index,
                                                       OrtDeviceMemoryType_DEFAULT, 0, OrtDeviceAllocator,
                                                       &device->memory_info);
    if (status != NULL) goto err_info;
    status = ortvk_heap_create(device->index, &device->heap);
    if (status != NULL) goto err_heap;
    status = create_vk_device(physical, caps, index, &device->vk);
    if (status != NULL) goto err_device;
    load_device_functions(device);
    pthread_mutex_init(&device->queue_lock, NULL);
    pthread_mutex_init(&device->streams_lock, NULL);
    pthread_mutex_init(&device->slots_lock, NULL);
    ortvk_instance_ref(instance);
    device->instance = instance;
    *out = device;
    return NULL;

err_device:
    ortvk_heap_destroy(device->heap);
err_heap:
    ortvk_ort->ReleaseMemoryInfo(device->memory_info);
err_info:
    free(device);
    return status;
}

void ortvk_device_ref(ortvk_device *device)
{
    atomic_fetch_add(&device->refs, 1);
}

void ortvk_device_unref(ortvk_device *device)
{
    if (device == NULL || atomic_fetch_sub(&device->refs, 1) != 1) return;
    vkDeviceWaitIdle(device->vk);
    ortvk_heap_destroy(device->heap); /* frees the cached buffers: before the VkDevice */
    vkDestroyDevice(device->vk, NULL);
    ortvk_ort->ReleaseMemoryInfo(device->memory_info);
    pthread_mutex_destroy(&device->queue_lock);
    pthread_mutex_destroy(&device->streams_lock);
    pthread_mutex_destroy(&device->slots_lock);
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

OrtStatus *ortvk_device_create_timeline(ortvk_device *device, VkSemaphore *out)
{
    VkSemaphoreTypeCreateInfo type = {
        .sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
        .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE,
        .initialValue = 0,
    };
    VkSemaphoreCreateInfo info = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &type};
    VkResult r = vkCreateSemaphore(device->vk, &info, NULL, out);
    if (r != VK_SUCCESS)
        return ortvk_status_vk(r, "vkCreateSemaphore", "creating a timeline semaphore on device %u", device->index);
    return NULL;
}

/* A fence signaled by an empty submission orders after every earlier submission, as vkQueueWaitIdle does (Mesa
 * implements it the same way), but only the submission needs the queue lock, not the wait. Holding the lock through
 * the wait closes a cycle when queued work waits on a host timeline's bridge: that wait ends only when the producer's
 * signal reaches the bridging stream's helper thread, which takes its stream's lock, which a thread submitting on
 * that stream holds while it waits for the queue lock: the whole device hung (docs/reliability.md, bug 8). */
void ortvk_device_drain(ortvk_device *device, const char *what)
{
    VkFenceCreateInfo info = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkFence fence = VK_NULL_HANDLE;
    VkResult r = vkCreateFence(device->vk, &info, NULL, &fence);
    if (r == VK_SUCCESS) {
        pthread_mutex_lock(&device->queue_lock);
        r = vkQueueSubmit(device->queue, 0, NULL, fence);
        pthread_mutex_unlock(&device->queue_lock);
        if (r == VK_SUCCESS) r = vkWaitForFences(device->vk, 1, &fence, VK_TRUE, UINT64_MAX);
        vkDestroyFence(device->vk, fence, NULL);
    }
    if (r != VK_SUCCESS) {
        ORTVK_LOG_ERROR(device->instance->logger, "draining the queue %s: %s (%d)", what, ortvk_vk_result_name(r),
                        r);
    }
}

/* ---- registries ----------------------------------------------------------------------------------- */

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

void ortvk_device_foreach_stream(ortvk_device *device, void (*fn)(ortvk_stream *stream, void *arg), void *arg)
{
    pthread_mutex_lock(&device->streams_lock);
    for (size_t i = 0; i < device->stream_count; i++) fn(device->streams[i], arg);
    pthread_mutex_unlock(&device->streams_lock);
}

ortvk_stream *ortvk_device_find_stream(ortvk_device *device, bool (*match)(const ortvk_stream *stream,
                                                                           const void *arg), const void *arg)
{
    ortvk_stream *found = NULL;
    pthread_mutex_lock(&device->streams_lock);
    for (size_t i = 0; i < device->stream_count && found == NULL; i++) {
        if (match(device->streams[i], arg)) found = device->streams[i];
    }
    pthread_mutex_unlock(&device->streams_lock);
    return found;
}

void *ortvk_device_slot_lock(ortvk_device *device, ortvk_device_slot slot)
{
    pthread_mutex_lock(&device->slots_lock);
    return device->slots[slot];
}

void ortvk_device_slot_unlock(ortvk_device *device, ortvk_device_slot slot, void *value)
{
    device->slots[slot] = value;
    pthread_mutex_unlock(&device->slots_lock);
}

ortvk_device *ortvk_device_for_memory(ortvk_device *const *devices, size_t device_count,
                                      const OrtMemoryDevice *memory)
{
    if (memory == NULL || ortvk_ep_api->MemoryDevice_GetDeviceType(memory) != OrtMemoryInfoDeviceType_GPU ||
        ortvk_ep_api->MemoryDevice_GetMemoryType(memory) != OrtDeviceMemoryType_DEFAULT)
        return NULL;
    uint32_t vendor = ortvk_ep_api->MemoryDevice_GetVendorId(memory);
    uint32_t id = ortvk_ep_api->MemoryDevice_GetDeviceId(memory);
    for (size_t i = 0; i < device_count; i++) {
        if (devices[i]->caps.props.vendorID == vendor && devices[i]->index == id) return devices[i];
    }
    return NULL;
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
