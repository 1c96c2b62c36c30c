/* The bare Vulkan import ortvk-bench compares ortvk against (see bare_vk.h). */
#include "bare_vk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <vulkan/vulkan.h>

#include "vk_app.h"
#include "vk_producer.h" /* vk_producer_result_name */

struct bare_vk {
    vk_app_instance instance;
    VkPhysicalDevice phys;
    VkDevice device;
    bool opaque_fd, host_import, bda;
    VkDeviceSize host_alignment;
    PFN_vkGetMemoryHostPointerPropertiesEXT get_host_pointer_properties;
};

/* Gives up creating `v`: says `why` in `error`, frees what was made. -1. */
static int create_failed(bare_vk *v, const char *why, char *error, size_t error_len)
{
    snprintf(error, error_len, "bare Vulkan: %s", why);
    bare_vk_destroy(v);
    return -1;
}

int bare_vk_create(const uint8_t device_uuid[16], bare_vk **out, char *error, size_t error_len)
{
    *out = NULL;
    bare_vk *v = calloc(1, sizeof(*v));
    if (v == NULL) return create_failed(v, "out of memory", error, error_len);
    if (vk_app_instance_open("ortvk-bench", "bench", &v->instance) != 0)
        return create_failed(v, "no Vulkan instance (stderr says why)", error, error_len);
    /* The physical device with ortvk's deviceUUID. */
    v->phys = vk_app_physical_by_uuid(v->instance.vk, device_uuid, NULL);
    if (v->phys == VK_NULL_HANDLE)
        return create_failed(v, "no physical device has ortvk's deviceUUID", error, error_len);

    v->opaque_fd = vk_app_has_extension(v->phys, NULL, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
    v->host_import = vk_app_has_extension(v->phys, NULL, VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME);
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
    if (vk_app_device_create("bench", v->phys, 0, &enabled12, extensions, extension_count, &v->device) != 0)
        return create_failed(v, "vkCreateDevice failed (stderr says why)", error, error_len);
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
    vk_app_instance_close(&v->instance);
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
