/* Private to ortvk. The EP factory ORT creates through CreateEpFactories (one per library registration), the
 * OrtEp it creates per session, and the device allocator. */
#ifndef ORTVK_EP_H
#define ORTVK_EP_H

#include "vk/vk_device.h"

#define ORTVK_MAX_DEVICES 8

typedef struct ortvk_factory {
    OrtEpFactory base; /* first: ORT hands us this pointer */
    const OrtLogger *logger;
    ortvk_instance *instance; /* NULL when Vulkan is unavailable: the factory then offers no device */
    size_t device_count;
    ortvk_device *devices[ORTVK_MAX_DEVICES];        /* most capable first; devices[i]->index == i */
    const OrtEpDevice *ep_devices[ORTVK_MAX_DEVICES]; /* what GetSupportedDevices created, owned by ORT */
    OrtHardwareDevice *own_hardware[ORTVK_MAX_DEVICES]; /* hardware devices ortvk had to create itself */
} ortvk_factory;

/* The ortvk device behind an EP device of this factory, or NULL. */
ortvk_device *ortvk_factory_device_for_ep_device(const ortvk_factory *factory, const OrtEpDevice *ep_device);

/* OrtEp for a session on one of `candidates` (the devices ORT selected for it; the first unless a session option
 * names another). */
OrtStatus *ortvk_ep_create(ortvk_factory *factory, ortvk_device *const *candidates, size_t count,
                           const OrtSessionOptions *options, const OrtLogger *logger, OrtEp **out) ORTVK_MUST_CHECK;
void ortvk_ep_destroy(OrtEp *ep);

/* OrtAllocator of `device`'s memory (data pointers are device addresses, see docs/design.md). */
OrtStatus *ortvk_allocator_create(ortvk_device *device, OrtAllocator **out) ORTVK_MUST_CHECK;
void ortvk_allocator_destroy(OrtAllocator *allocator);

/* Reads an unsigned decimal option; absent leaves *value unchanged. */
OrtStatus *ortvk_parse_u64(const char *key, const char *text, uint64_t max, uint64_t *value) ORTVK_MUST_CHECK;

#endif
