/* Private to ortvk. Which of a device's memory types ortvk uses for what: its tensors, the staging buffers of host
 * copies each way, and whether its tensors can be copied through a mapping instead. A pure choice over the
 * device's table, so that it can be unit-tested over the tables of real drivers. */
#ifndef ORTVK_VK_MEMORY_TYPES_H
#define ORTVK_VK_MEMORY_TYPES_H

#include <stdbool.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

typedef struct ortvk_memory_types {
    uint32_t device;    /* tensors and opaque-FD imports: the first device-local type that is host-visible, coherent
                           and cached, else the first device-local type, else `upload` */
    uint32_t upload;    /* staging the host writes and the queue reads: the first host-visible, coherent type */
    uint32_t readback;  /* staging the queue writes and the host reads: the first host-visible, coherent, cached
                           type, or `upload` where none is cached */
    bool device_mapped; /* `device` is host-visible, coherent and cached too (lavapipe, unified memory): host
                           copies of tensors go through a mapping, not the queue */
} ortvk_memory_types;

/* Fills `out`; false where the device has no host-visible, coherent type (ortvk could not copy to or from it). */
bool ortvk_memory_types_choose(const VkPhysicalDeviceMemoryProperties *mem, ortvk_memory_types *out);

#endif
