/* The memory types ortvk takes for tensors and for the staging of host copies (vk_memory_types.h). A discrete GPU
 * lists host-visible, coherent memory first without the cache (write-combined: fast for the host to write, slow
 * for it to read), then the same memory cached: uploads take the first, readbacks the second. Where device memory
 * is also host memory (unified memory, lavapipe), tensors take a type the host can map and read fast. */
#include "vk/vk_memory_types.h"

static const VkMemoryPropertyFlags host_visible =
    VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
static const VkMemoryPropertyFlags host_cached =
    VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT | VK_MEMORY_PROPERTY_HOST_CACHED_BIT;

static int first_type(const VkPhysicalDeviceMemoryProperties *mem, VkMemoryPropertyFlags want)
{
    for (uint32_t i = 0; i < mem->memoryTypeCount && i < VK_MAX_MEMORY_TYPES; i++) {
        if ((mem->memoryTypes[i].propertyFlags & want) == want) return (int)i;
    }
    return -1;
}

bool ortvk_memory_types_choose(const VkPhysicalDeviceMemoryProperties *mem, ortvk_memory_types *out)
{
    int upload = first_type(mem, host_visible);
    if (upload < 0) return false;
    int device = first_type(mem, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | host_cached);
    if (device < 0) device = first_type(mem, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    int readback = first_type(mem, host_cached);
    out->upload = (uint32_t)upload;
    out->device = device >= 0 ? (uint32_t)device : out->upload;
    out->readback = readback >= 0 ? (uint32_t)readback : out->upload;
    out->device_mapped = (mem->memoryTypes[out->device].propertyFlags & host_cached) == host_cached;
    return true;
}
