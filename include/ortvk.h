/* ortvk.h — public extensions of ortvk, the Vulkan execution provider for ONNX Runtime.
 *
 * WHAT IT IS
 *   ortvk is loaded by ONNX Runtime: RegisterExecutionProviderLibrary(env, ORTVK_EP_NAME, plugin_path), where
 *   plugin_path is ABSOLUTE: `pkg-config --variable=plugin ortvk`, CMake's ortvk_PLUGIN (find_package(ortvk)),
 *   or the build's build/libortvk.so. ONNX Runtime resolves a relative path next to libonnxruntime.so, so a bare
 *   "libortvk.so" fails. Applications talk to ortvk through ONNX Runtime's public C API (onnxruntime_c_api.h,
 *   from ONNX Runtime's release) — above all OrtInteropApi (import memory and semaphores, wrap memory as tensors,
 *   wait and signal on a stream); README.md's quickstart (examples/quickstart.c) is a complete program. This
 *   header adds what ONNX Runtime's own headers cannot say:
 *     - the values ortvk gives to ORT's open enums (its host timeline semaphore type),
 *     - what OrtSyncStream's native handle (SyncStream_GetHandle) points to on an ortvk stream,
 *     - the names of ortvk's EP metadata keys, session options and graphics interop options,
 *     - the host timeline semaphore itself: a header-only C API (ortvk_host_timeline.h, included below), so a
 *       CPU producer or another process needs no library of ours to signal or wait.
 *   libortvk.so exports only CreateEpFactories and ReleaseEpFactory; nothing here needs linking.
 *
 * HANDLES ORTVK IMPORTS (OrtExternalMemoryDescriptor / OrtExternalSemaphoreDescriptor)
 *   ORT_EXTERNAL_MEMORY_HANDLE_TYPE_MEMORY_OPAQUE_FD (3): native_handle = (void*)(intptr_t)fd of memory exported
 *       with vkGetMemoryFdKHR by a device with the same deviceUUID and driverUUID, allocated from the memory type
 *       named by the EP metadata key "ortvk.opaque_fd_memory_type", with VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT.
 *       size_bytes = the allocation's size. ortvk imports a dup() of the fd: close yours whenever you like.
 *   ORT_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION (4): native_handle = a host address; address and size_bytes
 *       must be multiples of "ortvk.host_pointer_alignment" (the page size on most drivers). The memory must
 *       stay allocated until the last tensor made from it is released.
 *   ORT_EXTERNAL_SEMAPHORE_VK_TIMELINE_SEMAPHORE_OPAQUE_FD (2): native_handle = (void*)(intptr_t)fd of a timeline
 *       semaphore exported with vkGetSemaphoreFdKHR; ortvk imports a dup().
 *   ORTVK_EXTERNAL_SEMAPHORE_HOST_TIMELINE: native_handle = (void*)(intptr_t)fd from ortvk_host_timeline_fd();
 *       ortvk maps a dup().
 *
 * LIFETIMES
 *   A tensor made by CreateTensorFromMemory keeps its import alive: releasing the OrtExternalMemoryHandle while
 *   tensors still view it is allowed; the Vulkan memory goes away with the last of them. Handles do not depend on
 *   the importer and may outlive it. See docs/interop.md for the full contract, error codes and thread-safety.
 *
 * WAITS THAT FAIL
 *   A host timeline WaitSemaphore that times out (the stream's host_wait_timeout_ms) or is abandoned (its stream
 *   released) lets the stream go on; the next call on the stream returns ORT_EP_FAIL saying so. Host timeline
 *   signals queued on the stream behind the failed wait, before that report, are never delivered.
 *
 * DESCRIPTOR VERSIONS
 *   Any version from 24 on is accepted; ortvk reads the fields of its own version (30) and ignores later ones.
 *
 * RUN OPTIONS WITH A STREAM
 *   When ortvk claims no node of a model's main graph, each Run of that session removes the sync stream from the
 *   run options it is given (ONNX Runtime 1.24.3 and 1.30.0 crash on it otherwise); session creation warns.
 */
#ifndef ORTVK_H
#define ORTVK_H

#include <stdint.h>
#include <vulkan/vulkan.h>

#include "ortvk_host_timeline.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ORTVK_VERSION_MAJOR 0
#define ORTVK_VERSION_MINOR 1
#define ORTVK_VERSION_PATCH 0
#define ORTVK_VERSION_STRING "0.1.0"

/* The name ortvk's factory gives its EP (OrtEpDevice's EP name, the "ep.<name>." option prefix). */
#define ORTVK_EP_NAME "ortvk"

/* ONNX Runtime passes enum values it does not know to the EP unchanged. ortvk's own values live in
 * [ORTVK_ENUM_RANGE_BEGIN, ORTVK_ENUM_RANGE_END], far above ORT's small sequential values ("ovk\0"). */
#define ORTVK_ENUM_RANGE_BEGIN 0x6F766B00
#define ORTVK_ENUM_RANGE_END 0x6F766BFF

/* OrtExternalSemaphoreType value for a host timeline semaphore (ortvk_host_timeline.h). */
#define ORTVK_EXTERNAL_SEMAPHORE_HOST_TIMELINE 0x6F766B01

/* Counters of the data ortvk's data transfer moved on one device (all streams, all sessions), since the device
 * was opened. They only grow; read them with atomic loads. A run whose inputs and outputs are imported and whose
 * nodes all run on the device moves nothing: the counters do not change. */
typedef struct ortvk_transfer_stats {
    uint64_t copies;       /* tensors copied (CopyTensors entries) */
    uint64_t bytes;        /* bytes copied */
} ortvk_transfer_stats;

/* What SyncStream_GetHandle returns for an ortvk stream: a pointer to this struct, valid while the stream
 * lives. It describes; it does not hand over: never submit to `queue` (ortvk serializes its use internally). */
typedef struct ortvk_stream_info {
    uint32_t version;              /* ORTVK_STREAM_INFO_VERSION */
    VkInstance instance;
    VkPhysicalDevice physical_device;
    VkDevice device;
    VkQueue queue;
    uint32_t queue_family_index;
    VkSemaphore timeline;          /* each submission on the stream signals the next value of this semaphore */
    const ortvk_transfer_stats *transfer_stats; /* the device's copy counters */
} ortvk_stream_info;

#define ORTVK_STREAM_INFO_VERSION 1

/* EP metadata keys (EpDevice_EpMetadata). UUIDs are 32 lowercase hex digits. */
#define ORTVK_META_DEVICE_INDEX "ortvk.device_index"
#define ORTVK_META_DEVICE_NAME "ortvk.device_name"
#define ORTVK_META_DEVICE_TYPE "ortvk.device_type"           /* discrete, integrated, virtual, cpu, other */
#define ORTVK_META_DEVICE_UUID "ortvk.device_uuid"
#define ORTVK_META_DRIVER_UUID "ortvk.driver_uuid"
#define ORTVK_META_DRIVER_NAME "ortvk.driver_name"
#define ORTVK_META_DRIVER_INFO "ortvk.driver_info"
#define ORTVK_META_DRIVER_VERSION "ortvk.driver_version"     /* VkPhysicalDeviceProperties::driverVersion, decimal */
#define ORTVK_META_VENDOR_ID "ortvk.vendor_id"               /* 0x%04x */
#define ORTVK_META_DEVICE_ID "ortvk.device_id"               /* 0x%04x */
#define ORTVK_META_API_VERSION "ortvk.api_version"           /* e.g. 1.3.230 */
#define ORTVK_META_MEMORY_IMPORT "ortvk.memory_import"       /* comma list: opaque_fd, host_allocation */
#define ORTVK_META_SEMAPHORE_IMPORT "ortvk.semaphore_import" /* comma list: vk_timeline_opaque_fd, host_timeline */
#define ORTVK_META_OPAQUE_FD_MEMORY_TYPE "ortvk.opaque_fd_memory_type"
#define ORTVK_META_HOST_POINTER_ALIGNMENT "ortvk.host_pointer_alignment"
#define ORTVK_META_QUEUE_FAMILIES "ortvk.queue_families"     /* "0:graphics+compute+transfer x1; ..." */
#define ORTVK_META_QUEUE_FAMILY "ortvk.queue_family"         /* the family ortvk submits to */
#define ORTVK_META_KERNEL_TYPES "ortvk.kernel_types"       /* tensor types its kernels run: "float,float16,bool" */
/* The float widths whose subnormals the kernels keep, and whose NaN, infinities and signed zeros they honour, by the
 * device's promise (SPIR-V float controls), then how the kernels take float32 subnormal operands:
 * "subnormals:16 nan_inf:16,32,64 float32_subnormals:exact". A width not listed follows the driver's default: a GPU
 * may flush subnormals to zero there, where ORT's CPU EP keeps them. "exact": where the device may flush them, ops
 * whose answer a flushed operand would change by more than a value below FLT_MIN read it from its bits (results
 * below FLT_MIN may still come out as zero); "native": left to the device (ORTVK_SUBNORMALS overrides; "invalid"
 * when it holds neither word, and EPs on the device then fail to create). */
#define ORTVK_META_FLOAT_CONTROLS "ortvk.float_controls"

/* How ORT's copies between the host and ortvk's tensors go: "mapped" where ortvk's device memory is host-visible,
 * coherent and cached (lavapipe, unified memory: a memcpy through the mapping); else "staged upload:3
 * readback:4", the memory types of the staging buffers each way (readbacks in cached memory where the device has
 * it). Informational. */
#define ORTVK_META_HOST_COPIES "ortvk.host_copies"

/* Session options, read as "ep.ortvk.<key>" (SessionOptionsAppendExecutionProvider_V2 adds the prefix). */
#define ORTVK_OPTION_DEVICE_INDEX "device_index"             /* pick among the EP devices given, by index */
#define ORTVK_OPTION_DEVICE_UUID "device_uuid"               /* ... or by deviceUUID (hex) */
#define ORTVK_OPTION_HOST_WAIT_TIMEOUT_MS "host_wait_timeout_ms"
/* A file the session writes a per-op device profile to when it ends (Chrome trace JSON; docs/benchmarks.md,
 * "Profiling"); the environment variable ORTVK_PROFILE does the same for sessions without the option. Off by
 * default: no timestamps are recorded then. */
#define ORTVK_OPTION_PROFILE "profile"

/* Stream options (CreateSyncStreamForEpDevice's OrtKeyValuePairs). */
#define ORTVK_STREAM_OPTION_HOST_WAIT_TIMEOUT_MS "host_wait_timeout_ms"
#define ORTVK_DEFAULT_HOST_WAIT_TIMEOUT_MS 10000

/* Graphics interop (InitGraphicsInteropForEpDevice, ORT >= 1.25) with ORT_GRAPHICS_API_VULKAN:
 * additional_options keys, both optional; when given they must equal the EP device's UUIDs. */
#define ORTVK_GRAPHICS_OPTION_DEVICE_UUID "ortvk.device_uuid"
#define ORTVK_GRAPHICS_OPTION_DRIVER_UUID "ortvk.driver_uuid"

#ifdef __cplusplus
}
#endif

#endif
