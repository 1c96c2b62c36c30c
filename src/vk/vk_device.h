/* Private to ortvk. The Vulkan instance and devices ortvk runs on: what each device can do, its queue, its
 * extension entry points, and the table that turns a tensor data pointer back into a buffer and an offset. */
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

typedef struct ortvk_buffer ortvk_buffer;

#define ORTVK_STAGING_CACHE 8
#define ORTVK_DEVICE_CACHE 128                      /* freed device buffers kept for reuse, at most */
#define ORTVK_DEVICE_CACHE_BYTES (512ull << 20)     /* and at most this many bytes of them */
typedef struct ortvk_stream ortvk_stream;

/* One VkInstance shared by every device of a factory; reference counted because devices (and through them
 * handles the application may release late) keep it alive. */
typedef struct ortvk_instance {
    atomic_int refs;
    VkInstance vk;
    VkDebugUtilsMessengerEXT messenger; /* only with ORTVK_VALIDATION=1 */
    bool validation;
    const OrtLogger *logger;            /* ORT's default logger, for validation messages */
    atomic_uint validation_messages;
} ortvk_instance;

OrtStatus *ortvk_instance_create(const OrtLogger *logger, ortvk_instance **out);
void ortvk_instance_ref(ortvk_instance *instance);
void ortvk_instance_unref(ortvk_instance *instance);

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
    uint32_t device_memory_type;         /* where ortvk allocates tensors and imports opaque FDs */
    uint32_t staging_memory_type;        /* host-visible, coherent: staging for host copies */
    bool storage_16bit;                  /* storageBuffer16BitAccess: the float16 kernels run */
    bool storage_8bit;                   /* storageBuffer8BitAccess: the kernels that read or write bool run */
    bool push_descriptor;                /* VK_KHR_push_descriptor: the kernels bind their tensors with it */
} ortvk_device_caps;

/* Probes `physical`; returns false (with `why` filled) when ortvk cannot run on it. */
bool ortvk_device_probe(VkPhysicalDevice physical, ortvk_device_caps *caps, char *why, size_t why_len);

/* One entry of the address table: [address, address + size) belongs to `buffer`. */
typedef struct ortvk_address_range {
    VkDeviceAddress address;
    VkDeviceSize size;
    ortvk_buffer *buffer;
} ortvk_address_range;

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

    /* Every ortvk buffer on this device, sorted by address: resolves tensor data pointers. */
    pthread_mutex_t address_lock;
    ortvk_address_range *ranges;
    size_t range_count, range_capacity;

    /* Live streams, so a copy without a stream can order itself after all of them. */
    pthread_mutex_t streams_lock;
    ortvk_stream **streams;
    size_t stream_count, stream_capacity;

    /* Staging buffers kept for reuse: a fresh host-visible allocation per copy costs page faults on every byte
     * (dominant for large frames). Cached buffers hold no device reference; the device frees them last. */
    pthread_mutex_t staging_lock;
    ortvk_buffer *staging[ORTVK_STAGING_CACHE];
    size_t staging_count;
    /* Device buffers freed by ORT's allocator and by runs, kept (under staging_lock) for an allocation of the very
     * same size: a model run frame after frame asks for the same sizes, and each vkAllocateMemory costs (a driver
     * call, and on lavapipe page faults on every byte). They keep their address-table entries with no reference,
     * so no lookup can take them; the device frees them last. */
    ortvk_buffer *cached[ORTVK_DEVICE_CACHE];
    size_t cached_count;
    VkDeviceSize cached_bytes;

    /* Live host-allocation imports, to share a buffer between imports of one range. */
    pthread_mutex_t host_lock;
    ortvk_buffer **host_imports;
    size_t host_count, host_capacity;

    /* What the data transfer moved (include/ortvk.h); updated with atomic adds. */
    ortvk_transfer_stats transfer_stats;

    /* ORT's description of this device's memory: GPU, vendor = Vulkan vendorID, device id = index. */
    OrtMemoryInfo *memory_info;
} ortvk_device;

OrtStatus *ortvk_device_create(ortvk_instance *instance, VkPhysicalDevice physical, const ortvk_device_caps *caps,
                               uint32_t index, ortvk_device **out);
void ortvk_device_ref(ortvk_device *device);
void ortvk_device_unref(ortvk_device *device);

/* Queue submission under the device's queue lock. */
OrtStatus *ortvk_device_submit(ortvk_device *device, const VkSubmitInfo *submit, const char *what);

/* Address table. Lookup returns the buffer holding [address, address + size) and the offset into it, or NULL.
 * Several buffers may start at one address (lavapipe gives a host-pointer import the host address, so two imports
 * of one allocation share it): removal takes out `buffer`'s own entry, never another's. */
OrtStatus *ortvk_device_add_range(ortvk_device *device, VkDeviceAddress address, VkDeviceSize size,
                                  ortvk_buffer *buffer);
void ortvk_device_remove_range(ortvk_device *device, VkDeviceAddress address, const ortvk_buffer *buffer);
ortvk_buffer *ortvk_device_resolve(ortvk_device *device, const void *pointer, size_t size, VkDeviceSize *offset);
/* Like ortvk_device_resolve, for a user rather than the owner: the buffer comes with one more reference, which
 * keeps it alive until the caller drops it (ortvk_buffer_destroy) once the GPU is done with it. Of several buffers
 * at one address it picks one that is not dying: the pointer's own import may be another, equally valid view of the
 * same memory, and its owner may release it meanwhile. NULL when no live buffer holds the range. */
ortvk_buffer *ortvk_device_acquire(ortvk_device *device, const void *pointer, size_t size, VkDeviceSize *offset);

/* Stream registry used by synchronous copies. */
OrtStatus *ortvk_device_add_stream(ortvk_device *device, ortvk_stream *stream);
void ortvk_device_remove_stream(ortvk_device *device, ortvk_stream *stream);

/* Hex of a UUID into `out` (33 bytes). */
void ortvk_uuid_hex(const uint8_t uuid[VK_UUID_SIZE], char out[2 * VK_UUID_SIZE + 1]);

#endif
