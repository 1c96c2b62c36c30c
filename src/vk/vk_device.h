/* Private to ortvk. A device ortvk runs on: what it can do (probed once), its VkDevice and queue, its extension
 * entry points, and the registries others use through accessors: live streams, and one slot per subsystem. */
#ifndef ORTVK_VK_DEVICE_H
#define ORTVK_VK_DEVICE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

#include "ort/ort_abi.h"
#include "ortvk.h"
#include "vk/vk_instance.h"
#include "vk/vk_memory_types.h"

typedef struct ortvk_buffer ortvk_buffer;
typedef struct ortvk_heap ortvk_heap;
typedef struct ortvk_stream ortvk_stream;

/* The usage every ortvk buffer has, imported or allocated: probes ask about exactly this, buffers are created with
 * it (vk_buffer.c). */
#define ORTVK_BUFFER_USAGE                                                                                     \
    (VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT | \
     VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT | VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT)

/* The float semantics a device's shaders can be asked for (VkPhysicalDeviceFloatControlsProperties), per width:
 * [0] 16-bit, [1] 32-bit, [2] 64-bit. Without them a driver may flush subnormals to zero and assume no NaN,
 * infinity or signed zero (NVIDIA does both), where ORT's CPU EP keeps them. */
typedef struct ortvk_float_controls {
    bool denorm_preserve[3];                        /* shaderDenormPreserveFloat16/32/64 */
    bool nan_preserve[3];                           /* shaderSignedZeroInfNanPreserveFloat16/32/64 */
    VkShaderFloatControlsIndependence denorm_independence; /* which widths may differ in subnormal handling */
} ortvk_float_controls;

/* What a physical device offers, probed once. Everything ortvk-info and the EP metadata print comes from here. */
typedef struct ortvk_device_caps {
    VkPhysicalDeviceProperties props;
    VkPhysicalDeviceDriverProperties driver;
    uint8_t device_uuid[VK_UUID_SIZE];
    uint8_t driver_uuid[VK_UUID_SIZE];
    uint32_t queue_family;               /* a family with VK_QUEUE_COMPUTE_BIT */
    uint32_t queue_family_count;
    char queue_families[256];            /* "0:graphics+compute+transfer x1; 1:transfer x2" */
    bool import_opaque_fd_memory;        /* VK_KHR_external_memory_fd, buffer import supported */
    bool import_host_memory;             /* VK_EXT_external_memory_host */
    VkDeviceSize host_pointer_alignment; /* minImportedHostPointerAlignment */
    bool import_timeline_opaque_fd;      /* VK_KHR_external_semaphore_fd for timeline semaphores */
    ortvk_memory_types memory;           /* the memory types of tensors and of staging (vk_memory_types.h) */
    bool storage_16bit;                  /* storageBuffer16BitAccess: the float16 kernels run */
    bool texels_16bit;                   /* R16F and RGBA16F uniform texel buffers: they read float16 as texels */
    bool storage_8bit;                   /* storageBuffer8BitAccess: the kernels that read or write bool run */
    bool push_descriptor;                /* VK_KHR_push_descriptor: the kernels bind their tensors with it */
    ortvk_float_controls float_controls; /* what the kernels' SPIR-V asks for (kernel_float_controls.c) */
} ortvk_device_caps;

/* "staged": ORT's copies between the host and ortvk's tensors go through staging buffers and the queue, as on a
 * discrete GPU, even where device memory could be mapped (read by the factory when it lists the devices). */
#define ORTVK_HOST_COPIES_ENV "ORTVK_HOST_COPIES"

/* Probes `physical`; returns false (with `why` filled) when ortvk cannot run on it. */
bool ortvk_device_probe(VkPhysicalDevice physical, ortvk_device_caps *caps, char *why, size_t why_len);

/* Per-device state of a subsystem above this layer, one slot each (the kernels keep their pipelines here). The
 * subsystem creates, counts and frees its state; the device only holds the pointer, and must outlive it. */
typedef enum ortvk_device_slot {
    ORTVK_DEVICE_SLOT_KERNELS,
    ORTVK_DEVICE_SLOT_COUNT,
} ortvk_device_slot;

typedef struct ortvk_device {
    atomic_int refs;
    ortvk_instance *instance;
    uint32_t index;                      /* position in the factory's list; the OrtMemoryDevice device id */
    VkPhysicalDevice physical;
    ortvk_device_caps caps;
    VkDevice vk;

    pthread_mutex_t queue_lock;          /* VkQueue use must be externally synchronized */
    VkQueue queue;

    PFN_vkGetMemoryFdKHR GetMemoryFdKHR;
    PFN_vkImportSemaphoreFdKHR ImportSemaphoreFdKHR;
    PFN_vkGetMemoryHostPointerPropertiesEXT GetMemoryHostPointerPropertiesEXT;

    /* The memory behind this device's buffers: address table, caches, host-import sharing (vk_heap.h). */
    ortvk_heap *heap;

    /* Live streams, so a copy without a stream can order itself after all of them. Used through
     * ortvk_device_foreach_stream / ortvk_device_find_stream only. */
    pthread_mutex_t streams_lock;
    ortvk_stream **streams;
    size_t stream_count, stream_capacity;

    /* ortvk_device_slot_lock / _unlock only. */
    pthread_mutex_t slots_lock;
    void *slots[ORTVK_DEVICE_SLOT_COUNT];

    /* What the data transfer moved (include/ortvk.h); updated with atomic adds. */
    ortvk_transfer_stats transfer_stats;

    /* ORT's description of this device's memory: GPU, vendor = Vulkan vendorID, device id = index. */
    OrtMemoryInfo *memory_info;
} ortvk_device;

OrtStatus *ortvk_device_create(ortvk_instance *instance, VkPhysicalDevice physical, const ortvk_device_caps *caps,
                               uint32_t index, ortvk_device **out) ORTVK_MUST_CHECK;
void ortvk_device_ref(ortvk_device *device);
void ortvk_device_unref(ortvk_device *device);

/* Queue submission under the device's queue lock. */
OrtStatus *ortvk_device_submit(ortvk_device *device, const VkSubmitInfo *submit, const char *what) ORTVK_MUST_CHECK;

/* A timeline semaphore at value 0. */
OrtStatus *ortvk_device_create_timeline(ortvk_device *device, VkSemaphore *out) ORTVK_MUST_CHECK;

/* Waits until all work submitted to the queue so far has finished, without holding the queue lock while it waits
 * (see vk_device.c); failures are logged, naming `what`. */
void ortvk_device_drain(ortvk_device *device, const char *what);

/* The state in `slot`, with the slot locked until ortvk_device_slot_unlock stores `value` (the same state, a new
 * one, or NULL once freed): get-or-create and release of a subsystem's state are one step each. */
void *ortvk_device_slot_lock(ortvk_device *device, ortvk_device_slot slot);
void ortvk_device_slot_unlock(ortvk_device *device, ortvk_device_slot slot, void *value);

/* The ortvk device an OrtMemoryDevice names, or NULL for memory ortvk does not own. */
ortvk_device *ortvk_device_for_memory(ortvk_device *const *devices, size_t device_count,
                                      const OrtMemoryDevice *memory);

/* Stream registry: every live stream of the device (ortvk_stream_create adds, ortvk_stream_destroy removes). */
OrtStatus *ortvk_device_add_stream(ortvk_device *device, ortvk_stream *stream) ORTVK_MUST_CHECK;
void ortvk_device_remove_stream(ortvk_device *device, ortvk_stream *stream);
/* Calls `fn` for every live stream, with the registry locked: a stream cannot go meanwhile, and `fn` may take the
 * stream's own lock (the lock order is the registry, then a stream) but must not use the registry. */
void ortvk_device_foreach_stream(ortvk_device *device, void (*fn)(ortvk_stream *stream, void *arg), void *arg);
/* The first live stream `match` accepts, or NULL. */
ortvk_stream *ortvk_device_find_stream(ortvk_device *device, bool (*match)(const ortvk_stream *stream,
                                                                           const void *arg), const void *arg);

/* Hex of a UUID into `out` (33 bytes). */
void ortvk_uuid_hex(const uint8_t uuid[VK_UUID_SIZE], char out[2 * VK_UUID_SIZE + 1]);

#endif
