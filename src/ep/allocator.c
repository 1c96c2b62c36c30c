/* The OrtAllocator of an ortvk device's memory. Each allocation is its own ortvk_buffer; the pointer ORT sees is
 * the buffer's device address, which the device's address table resolves back to the buffer on Free. */
#include <stdlib.h>

#include "ep/ep.h"
#include "ort/ort_status.h"
#include "vk/vk_heap.h"

typedef struct ortvk_allocator {
    OrtAllocator base; /* first */
    ortvk_device *device;
} ortvk_allocator;

ORTVK_DEFINE_BASE_CAST(allocator_cast, ortvk_allocator, OrtAllocator)

static void *ORT_API_CALL allocator_alloc(OrtAllocator *base, size_t size)
{
    ortvk_allocator *allocator = allocator_cast(base);
    ortvk_buffer *buffer = NULL;
    OrtStatus *status = ortvk_buffer_allocate(allocator->device, size, &buffer);
    if (status != NULL) {
        ORTVK_LOG_ERROR(allocator->device->instance->logger, "%s", ortvk_ort->GetErrorMessage(status));
        ortvk_ort->ReleaseStatus(status);
        return NULL;
    }
    return ortvk_buffer_pointer(buffer, 0);
}

static void ORT_API_CALL allocator_free(OrtAllocator *base, void *p)
{
    if (p == NULL) return;
    ortvk_allocator *allocator = allocator_cast(base);
    VkDeviceSize offset = 0;
    ortvk_buffer *buffer = ortvk_device_resolve(allocator->device, p, 0, &offset);
    if (buffer == NULL || offset != 0 || buffer->kind != ORTVK_BUFFER_DEVICE) {
        ORTVK_LOG_ERROR(allocator->device->instance->logger, "Free(%p): not an allocation of this allocator", p);
        return;
    }
    /* ORT frees a tensor once its last consumer's Compute has returned, before the GPU has run it: the work that
     * uses it holds references of its own (ortvk_device_acquire), so the memory goes with the last of them. */
    ortvk_buffer_unref(buffer);
}

static const OrtMemoryInfo *ORT_API_CALL allocator_info(const OrtAllocator *base)
{
    return allocator_cast(base)->device->memory_info;
}

OrtStatus *ortvk_allocator_create(ortvk_device *device, OrtAllocator **out)
{
    ortvk_allocator *allocator = calloc(1, sizeof(*allocator));
    if (allocator == NULL) return ortvk_status(ORT_FAIL, "out of host memory creating an allocator");
    allocator->base.version = ortvk_ort_version;
    allocator->base.Alloc = allocator_alloc;
    allocator->base.Free = allocator_free;
    allocator->base.Info = allocator_info;
    ortvk_device_ref(device);
    allocator->device = device;
    *out = &allocator->base;
    return NULL;
}

void ortvk_allocator_destroy(OrtAllocator *base)
{
    if (base == NULL) return;
    ortvk_allocator *allocator = allocator_cast(base);
    ortvk_device_unref(allocator->device);
    free(allocator);
}
