/* The library's two entry points and the OrtEpFactory they make: Vulkan devices found and ordered at creation,
 * offered to ORT as EP devices with their metadata, and the allocators, data transfer, streams, importers and
 * graphics interop ORT asks the factory for. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ep/ep.h"
#include "interop/interop.h"
#include "kernels/kernels.h"
#include "ort/ort_status.h"
#include "ortvk.h"
#include "vk/vk_transfer.h"

#define ORTVK_EXPORT __attribute__((visibility("default")))

ORTVK_DEFINE_BASE_CAST(factory_cast, ortvk_factory, OrtEpFactory)

ortvk_device *ortvk_factory_device_for_ep_device(const ortvk_factory *factory, const OrtEpDevice *ep_device)
{
    for (size_t i = 0; i < factory->device_count; i++) {
        if (factory->ep_devices[i] == ep_device) return factory->devices[i];
    }
    return NULL;
}

/* ---- devices -------------------------------------------------------------------------------------------- */

static int type_rank(VkPhysicalDeviceType type)
{
    switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 0;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 1;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return 3;
    default: return 4;
    }
}

static const char *type_name(VkPhysicalDeviceType type)
{
    static const char *names[] = {"discrete", "integrated", "virtual", "cpu", "other"};
    return names[type_rank(type)];
}

typedef struct candidate {
    VkPhysicalDevice physical;
    ortvk_device_caps caps;
    uint32_t order;
} candidate;

static int compare_candidates(const void *a, const void *b)
{
    const candidate *x = a, *y = b;
    int rx = type_rank(x->caps.props.deviceType), ry = type_rank(y->caps.props.deviceType);
    if (rx != ry) return rx - ry;
    return (int)x->order - (int)y->order; /* stable: Vulkan's order within a kind */
}

/* Finds the Vulkan devices ortvk can run on, most capable first, and creates a VkDevice for each. */
static OrtStatus *factory_open_devices(ortvk_factory *factory)
{
    /* A discrete GPU's host copies (staging buffers, the queue) on any device: for tests and measurements. */
    const char *copies = getenv(ORTVK_HOST_COPIES_ENV);
    bool staged = copies != NULL && copies[0] != '\0';
    if (staged && strcmp(copies, "staged") != 0)
        return ortvk_status(ORT_INVALID_ARGUMENT, "%s=\"%.64s\": expected \"staged\"", ORTVK_HOST_COPIES_ENV, copies);
    ORTVK_TRY(ortvk_instance_create(factory->logger, &factory->instance));
    uint32_t count = 0;
    VkResult r = vkEnumeratePhysicalDevices(factory->instance->vk, &count, NULL);
    if (r != VK_SUCCESS) return ortvk_status_vk(r, "vkEnumeratePhysicalDevices", "listing Vulkan devices");
    VkPhysicalDevice physical[16];
    if (count > 16) count = 16;
    r = vkEnumeratePhysicalDevices(factory->instance->vk, &count, physical);
    if (r != VK_SUCCESS && r != VK_INCOMPLETE)
        return ortvk_status_vk(r, "vkEnumeratePhysicalDevices", "listing Vulkan devices");

    candidate found[16];
    uint32_t usable = 0;
    for (uint32_t i = 0; i < count; i++) {
        char why[128];
        if (!ortvk_device_probe(physical[i], &found[usable].caps, why, sizeof(why))) {
            ORTVK_LOG_INFO(factory->logger, "skipping Vulkan device %u (%s): %s", i,
                           found[usable].caps.props.deviceName, why);
            continue;
        }
        if (staged) found[usable].caps.memory.device_mapped = false;
        found[usable].physical = physical[i];
        found[usable].order = i;
        usable++;
    }
    qsort(found, usable, sizeof(found[0]), compare_candidates);
    for (uint32_t i = 0; i < usable && factory->device_count < ORTVK_MAX_DEVICES; i++) {
        ortvk_device *device = NULL;
        OrtStatus *status = ortvk_device_create(factory->instance, found[i].physical, &found[i].caps,
                                                (uint32_t)factory->device_count, &device);
        if (status != NULL) {
            ORTVK_LOG_WARNING(factory->logger, "%s", ortvk_ort->GetErrorMessage(status));
            ortvk_ort->ReleaseStatus(status);
            continue;
        }
        factory->devices[factory->device_count++] = device;
    }
    return NULL;
}

/* The ORT hardware device a Vulkan device is: ORT's CPU device for a CPU implementation (lavapipe), the GPU with
 * the same PCI vendor and device id otherwise. */
static const OrtHardwareDevice *match_hardware(const ortvk_device *device, const OrtHardwareDevice *const *hardware,
                                               size_t count, const bool *taken, size_t *at)
{
    bool cpu = device->caps.props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
    for (size_t i = 0; i < count; i++) {
        if (taken[i] && !cpu) continue;
        OrtHardwareDeviceType type = ortvk_ort->HardwareDevice_Type(hardware[i]);
        if (cpu ? type == OrtHardwareDeviceType_CPU
                : (type == OrtHardwareDeviceType_GPU &&
                   ortvk_ort->HardwareDevice_VendorId(hardware[i]) == device->caps.props.vendorID &&
                   ortvk_ort->HardwareDevice_DeviceId(hardware[i]) == device->caps.props.deviceID)) {
            *at = i;
            return hardware[i];
        }
    }
    return NULL;
}

/* Appends `label` and the widths (16, 32, 64) whose flag is set, comma-separated: "subnormals:16,32". */
static void append_widths(char *text, size_t len, const char *label, const bool on[3])
{
    static const char *const widths[3] = {"16", "32", "64"};
    snprintf(text + strlen(text), len - strlen(text), "%s", label);
    const char *separator = "";
    for (int k = 0; k < 3; k++) {
        if (!on[k]) continue;
        snprintf(text + strlen(text), len - strlen(text), "%s%s", separator, widths[k]);
        separator = ",";
    }
}

static void add_u32(OrtKeyValuePairs *kv, const char *key, const char *fmt, uint32_t value)
{
    char text[32];
    snprintf(text, sizeof(text), fmt, value);
    ortvk_ort->AddKeyValuePair(kv, key, text);
}

static OrtKeyValuePairs *device_metadata(const ortvk_device *device)
{
    const ortvk_device_caps *caps = &device->caps;
    OrtKeyValuePairs *kv = NULL;
    ortvk_ort->CreateKeyValuePairs(&kv);
    char text[256];
    add_u32(kv, ORTVK_META_DEVICE_INDEX, "%u", device->index);
    ortvk_ort->AddKeyValuePair(kv, ORTVK_META_DEVICE_NAME, caps->props.deviceName);
    ortvk_ort->AddKeyValuePair(kv, ORTVK_META_DEVICE_TYPE, type_name(caps->props.deviceType));
    ortvk_uuid_hex(caps->device_uuid, text);
    ortvk_ort->AddKeyValuePair(kv, ORTVK_META_DEVICE_UUID, text);
    ortvk_uuid_hex(caps->driver_uuid, text);
    ortvk_ort->AddKeyValuePair(kv, ORTVK_META_DRIVER_UUID, text);
    ortvk_ort->AddKeyValuePair(kv, ORTVK_META_DRIVER_NAME, caps->driver.driverName);
    ortvk_ort->AddKeyValuePair(kv, ORTVK_META_DRIVER_INFO, caps->driver.driverInfo);
    add_u32(kv, ORTVK_META_DRIVER_VERSION, "%u", caps->props.driverVersion);
    add_u32(kv, ORTVK_META_VENDOR_ID, "0x%04x", caps->props.vendorID);
    add_u32(kv, ORTVK_META_DEVICE_ID, "0x%04x", caps->props.deviceID);
    snprintf(text, sizeof(text), "%u.%u.%u", VK_API_VERSION_MAJOR(caps->props.apiVersion),
             VK_API_VERSION_MINOR(caps->props.apiVersion), VK_API_VERSION_PATCH(caps->props.apiVersion));
    ortvk_ort->AddKeyValuePair(kv, ORTVK_META_API_VERSION, text);

    /* The handle kinds listed and their labels are this function's; whether the device supports one is asked of the
     * kind tables CanImportMemory/CanImportSemaphore read (ortvk_memory_kind_find, ortvk_semaphore_kind_find). */
    static const struct {
        int type;
        const char *label;
    } memory[] = {{ORT_EXTERNAL_MEMORY_HANDLE_TYPE_MEMORY_OPAQUE_FD, "opaque_fd"},
                  {ORT_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION, "host_allocation"}},
      semaphore[] = {{ORT_EXTERNAL_SEMAPHORE_VK_TIMELINE_SEMAPHORE_OPAQUE_FD, "vk_timeline_opaque_fd"},
                     {ORTVK_EXTERNAL_SEMAPHORE_HOST_TIMELINE, "host_timeline"}};
    text[0] = '\0';
    for (size_t i = 0; i < sizeof(memory) / sizeof(memory[0]); i++) {
        const ortvk_memory_kind *kind = ortvk_memory_kind_find(memory[i].type);
        if (kind->supported(device)) snprintf(text + strlen(text), sizeof(text) - strlen(text), "%s%s",
                                              text[0] ? "," : "", memory[i].label);
    }
    ortvk_ort->AddKeyValuePair(kv, ORTVK_META_MEMORY_IMPORT, text);
    text[0] = '\0';
    for (size_t i = 0; i < sizeof(semaphore) / sizeof(semaphore[0]); i++) {
        const ortvk_semaphore_kind *kind = ortvk_semaphore_kind_find(semaphore[i].type);
        if (kind->supported(device)) snprintf(text + strlen(text), sizeof(text) - strlen(text), "%s%s",
                                              text[0] ? "," : "", semaphore[i].label);
    }
    ortvk_ort->AddKeyValuePair(kv, ORTVK_META_SEMAPHORE_IMPORT, text);
    add_u32(kv, ORTVK_META_OPAQUE_FD_MEMORY_TYPE, "%u", caps->memory.device);
    if (caps->memory.device_mapped) snprintf(text, sizeof(text), "mapped");
    else snprintf(text, sizeof(text), "staged upload:%u readback:%u", caps->memory.upload, caps->memory.readback);
    ortvk_ort->AddKeyValuePair(kv, ORTVK_META_HOST_COPIES, text);
    add_u32(kv, ORTVK_META_HOST_POINTER_ALIGNMENT, "%u", (uint32_t)caps->host_pointer_alignment);
    ortvk_ort->AddKeyValuePair(kv, ORTVK_META_QUEUE_FAMILIES, caps->queue_families);
    add_u32(kv, ORTVK_META_QUEUE_FAMILY, "%u", caps->queue_family);
    const char *types[] = {"float", "float,bool", "float,float16", "float,float16,bool"};
    ortvk_ort->AddKeyValuePair(kv, ORTVK_META_KERNEL_TYPES, types[(caps->storage_16bit ? 2 : 0) + caps->storage_8bit]);
    text[0] = '\0';
    append_widths(text, sizeof(text), "subnormals:", caps->float_controls.denorm_preserve);
    append_widths(text, sizeof(text), " nan_inf:", caps->float_controls.nan_preserve);
    bool exact = false;
    OrtStatus *invalid = ortvk_kernel_subnormals(device, &exact); /* creating an EP on the device fails with it */
    snprintf(text + strlen(text), sizeof(text) - strlen(text), " float32_subnormals:%s",
             invalid != NULL ? "invalid" : (exact ? "exact" : "native"));
    if (invalid != NULL) ortvk_ort->ReleaseStatus(invalid);
    ortvk_ort->AddKeyValuePair(kv, ORTVK_META_FLOAT_CONTROLS, text);
    return kv;
}

/* ---- OrtEpFactory --------------------------------------------------------------------------------------- */

static const char *ORT_API_CALL factory_get_name(const OrtEpFactory *base)
{
    (void)base;
    return ORTVK_EP_NAME;
}

static const char *ORT_API_CALL factory_get_vendor(const OrtEpFactory *base)
{
    (void)base;
    return "ortvk";
}

static uint32_t ORT_API_CALL factory_get_vendor_id(const OrtEpFactory *base)
{
    (void)base;
    return 0; /* ortvk is not a hardware vendor */
}

static const char *ORT_API_CALL factory_get_version(const OrtEpFactory *base)
{
    (void)base;
    return ORTVK_VERSION_STRING;
}

static OrtStatus *ORT_API_CALL factory_get_supported_devices(OrtEpFactory *base,
                                                             const OrtHardwareDevice *const *hardware,
                                                             size_t hardware_count, OrtEpDevice **ep_devices,
                                                             size_t max_ep_devices, size_t *ep_device_count)
{
    ortvk_factory *factory = factory_cast(base);
    *ep_device_count = 0;
    bool taken[64] = {false};
    if (hardware_count > 64) hardware_count = 64;
    for (size_t i = 0; i < factory->device_count && *ep_device_count < max_ep_devices; i++) {
        ortvk_device *device = factory->devices[i];
        size_t at = 0;
        const OrtHardwareDevice *hw = match_hardware(device, hardware, hardware_count, taken, &at);
        if (hw != NULL) {
            taken[at] = true;
        } else if (factory->own_hardware[i] != NULL) {
            hw = factory->own_hardware[i];
        } else {
            /* A device ORT did not enumerate (e.g. no PCI information): describe it ourselves. */
            OrtHardwareDeviceType type = device->caps.props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU
                                             ? OrtHardwareDeviceType_CPU
                                             : OrtHardwareDeviceType_GPU;
            OrtStatus *status = ortvk_ep_api->CreateHardwareDevice(type, device->caps.props.vendorID,
                                                               device->caps.props.deviceID,
                                                               device->caps.driver.driverName, NULL,
                                                               &factory->own_hardware[i]);
            if (status != NULL) {
                ORTVK_LOG_WARNING(factory->logger, "device %zu (%s) is not offered: %s", i,
                                  device->caps.props.deviceName, ortvk_ort->GetErrorMessage(status));
                ortvk_ort->ReleaseStatus(status);
                continue;
            }
            hw = factory->own_hardware[i];
        }
        OrtKeyValuePairs *metadata = device_metadata(device);
        OrtEpDevice *ep_device = NULL;
        OrtStatus *status = ortvk_ep_api->CreateEpDevice(base, hw, metadata, NULL, &ep_device);
        ortvk_ort->ReleaseKeyValuePairs(metadata);
        if (status == NULL) status = ortvk_ep_api->EpDevice_AddAllocatorInfo(ep_device, device->memory_info);
        if (status != NULL) {
            if (ep_device) ortvk_ep_api->ReleaseEpDevice(ep_device);
            return status;
        }
        factory->ep_devices[i] = ep_device;
        ep_devices[(*ep_device_count)++] = ep_device;
    }
    return NULL;
}

/* Metadata ORT hands CreateEp for each selected device names ortvk's device index. */
static ortvk_device *device_from_metadata(ortvk_factory *factory, const OrtKeyValuePairs *metadata)
{
    const char *text = metadata ? ortvk_ort->GetKeyValue(metadata, ORTVK_META_DEVICE_INDEX) : NULL;
    uint64_t index = 0;
    if (text == NULL) return NULL;
    OrtStatus *status = ortvk_parse_u64(ORTVK_META_DEVICE_INDEX, text, factory->device_count - 1, &index);
    if (status != NULL) {
        ortvk_ort->ReleaseStatus(status);
        return NULL;
    }
    return factory->devices[index];
}

static OrtStatus *ORT_API_CALL factory_create_ep(OrtEpFactory *base, const OrtHardwareDevice *const *hardware,
                                                 const OrtKeyValuePairs *const *metadata, size_t count,
                                                 const OrtSessionOptions *options, const OrtLogger *logger,
                                                 OrtEp **out)
{
    (void)hardware;
    ortvk_factory *factory = factory_cast(base);
    ortvk_device *candidates[ORTVK_MAX_DEVICES];
    size_t n = 0;
    for (size_t i = 0; i < count && n < ORTVK_MAX_DEVICES; i++) {
        ortvk_device *device = device_from_metadata(factory, metadata[i]);
        if (device != NULL) candidates[n++] = device;
    }
    if (n == 0) return ortvk_status(ORT_INVALID_ARGUMENT, "none of the %zu devices given is an ortvk device", count);
    return ortvk_ep_create(factory, candidates, n, options, logger, out);
}

static void ORT_API_CALL factory_release_ep(OrtEpFactory *base, OrtEp *ep)
{
    (void)base;
    ortvk_ep_destroy(ep);
}

static OrtStatus *ORT_API_CALL factory_create_allocator(OrtEpFactory *base, const OrtMemoryInfo *info,
                                                        const OrtKeyValuePairs *options, OrtAllocator **out)
{
    (void)options;
    ortvk_factory *factory = factory_cast(base);
    *out = NULL;
    const OrtMemoryDevice *memory = info ? ortvk_ep_api->MemoryInfo_GetMemoryDevice(info) : NULL;
    ortvk_device *device = ortvk_device_for_memory(factory->devices, factory->device_count, memory);
    if (device == NULL) return ortvk_status(ORT_INVALID_ARGUMENT, "memory_info does not describe ortvk memory");
    return ortvk_allocator_create(device, out);
}

static void ORT_API_CALL factory_release_allocator(OrtEpFactory *base, OrtAllocator *allocator)
{
    (void)base;
    ortvk_allocator_destroy(allocator);
}

static OrtStatus *ORT_API_CALL factory_create_data_transfer(OrtEpFactory *base, OrtDataTransferImpl **out)
{
    ortvk_factory *factory = factory_cast(base);
    *out = NULL;
    if (factory->device_count == 0) return NULL;
    return ortvk_data_transfer_create(factory->devices, factory->device_count, out);
}

static bool ORT_API_CALL factory_is_stream_aware(const OrtEpFactory *base)
{
    (void)base;
    return true;
}

static OrtStatus *ORT_API_CALL factory_create_stream(OrtEpFactory *base, const OrtMemoryDevice *memory,
                                                     const OrtKeyValuePairs *options, OrtSyncStreamImpl **out)
{
    ortvk_factory *factory = factory_cast(base);
    *out = NULL;
    ortvk_device *device = ortvk_device_for_memory(factory->devices, factory->device_count, memory);
    if (device == NULL) return ortvk_status(ORT_INVALID_ARGUMENT, "memory_device is not an ortvk device");
    uint64_t timeout = ORTVK_DEFAULT_HOST_WAIT_TIMEOUT_MS;
    const char *text = options ? ortvk_ort->GetKeyValue(options, ORTVK_STREAM_OPTION_HOST_WAIT_TIMEOUT_MS) : NULL;
    ORTVK_TRY(ortvk_parse_u64("stream option " ORTVK_STREAM_OPTION_HOST_WAIT_TIMEOUT_MS, text, UINT32_MAX, &timeout));
    ortvk_stream *stream = NULL;
    ORTVK_TRY(ortvk_stream_create(device, timeout, NULL, &stream));
    *out = &stream->base;
    return NULL;
}

static OrtStatus *ORT_API_CALL factory_create_importer(OrtEpFactory *base, const OrtEpDevice *ep_device,
                                                       OrtExternalResourceImporterImpl **out)
{
    ortvk_factory *factory = factory_cast(base);
    *out = NULL;
    ortvk_device *device = ortvk_factory_device_for_ep_device(factory, ep_device);
    if (device == NULL) return ortvk_status(ORT_INVALID_ARGUMENT, "ep_device %p is not an ortvk EP device",
                                            (const void *)ep_device);
    return ortvk_importer_create(device, ep_device, out);
}

static OrtStatus *ORT_API_CALL factory_get_num_custom_op_domains(OrtEpFactory *base, size_t *count)
{
    (void)base;
    *count = 0;
    return NULL;
}

static OrtStatus *ORT_API_CALL factory_get_custom_op_domains(OrtEpFactory *base, OrtCustomOpDomain **domains,
                                                            size_t count)
{
    (void)base, (void)domains, (void)count;
    return NULL;
}

/* A UUID option, when given, must be the EP device's: the application's Vulkan device must be the one ortvk
 * runs on for opaque FDs to import. */
static OrtStatus *check_uuid_option(const OrtKeyValuePairs *options, const char *key, const uint8_t uuid[VK_UUID_SIZE])
{
    const char *given = options ? ortvk_ort->GetKeyValue(options, key) : NULL;
    if (given == NULL) return NULL;
    char ours[2 * VK_UUID_SIZE + 1];
    ortvk_uuid_hex(uuid, ours);
    if (strcmp(given, ours) != 0) {
        return ortvk_status(ORT_INVALID_ARGUMENT,
                            "config->additional_options[\"%s\"] = \"%s\" does not match the EP device's %s", key, given,
                            ours);
    }
    return NULL;
}

static OrtStatus *ORT_API_CALL factory_init_graphics_interop(OrtEpFactory *base, const OrtEpDevice *ep_device,
                                                             const OrtGraphicsInteropConfig *config)
{
    ortvk_factory *factory = factory_cast(base);
    ortvk_device *device = ortvk_factory_device_for_ep_device(factory, ep_device);
    if (device == NULL) return ortvk_status(ORT_INVALID_ARGUMENT, "ep_device is not an ortvk EP device");
    if (config == NULL) return ortvk_status(ORT_INVALID_ARGUMENT, "config must not be NULL");
    ORTVK_TRY(ortvk_check_version("config", config->version));
    switch ((int)config->graphics_api) {
    case ORT_GRAPHICS_API_VULKAN: break;
    case ORT_GRAPHICS_API_D3D12:
        return ortvk_status(ORT_NOT_IMPLEMENTED, "config->graphics_api D3D12 (1): ortvk interoperates with Vulkan");
    default:
        return ortvk_status(ORT_INVALID_ARGUMENT, "config->graphics_api %d is not a graphics API ortvk accepts (2 = "
                                                  "VULKAN)",
                            (int)config->graphics_api);
    }
    ORTVK_TRY(
        check_uuid_option(config->additional_options, ORTVK_GRAPHICS_OPTION_DEVICE_UUID, device->caps.device_uuid));
    ORTVK_TRY(
        check_uuid_option(config->additional_options, ORTVK_GRAPHICS_OPTION_DRIVER_UUID, device->caps.driver_uuid));
    /* ortvk's streams already live on a plain Vulkan queue: there is no graphics context to set up or keep. */
    return NULL;
}

static OrtStatus *ORT_API_CALL factory_deinit_graphics_interop(OrtEpFactory *base, const OrtEpDevice *ep_device)
{
    ortvk_factory *factory = factory_cast(base);
    ortvk_device *device = ortvk_factory_device_for_ep_device(factory, ep_device);
    if (device == NULL) return ortvk_status(ORT_INVALID_ARGUMENT, "ep_device is not an ortvk EP device");
    return NULL; /* nothing was set up (factory_init_graphics_interop) */
}

static void factory_destroy(ortvk_factory *factory)
{
    for (size_t i = 0; i < factory->device_count; i++) {
        if (factory->own_hardware[i]) ortvk_ep_api->ReleaseHardwareDevice(factory->own_hardware[i]);
        ortvk_device_unref(factory->devices[i]);
    }
    ortvk_instance_unref(factory->instance);
    free(factory);
}

ORTVK_EXPORT OrtStatus *CreateEpFactories(const char *registered_name, const OrtApiBase *base,
                                          const OrtLogger *logger, OrtEpFactory **factories, size_t max_factories,
                                          size_t *factory_count)
{
    (void)registered_name;
    OrtStatus *status = ortvk_ort_bind(base);
    if (status != NULL) return status;
    /* Tensors, handles and streams may outlive UnregisterExecutionProviderLibrary (ORT unloads the library then):
     * keep ortvk's code mapped so that their Release still has somewhere to go. */
    Dl_info self;
    if (dladdr((void *)&CreateEpFactories, &self) != 0 && self.dli_fname != NULL)
        dlopen(self.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
    *factory_count = 0;
    if (max_factories < 1) return ortvk_status(ORT_INVALID_ARGUMENT, "max_factories is 0");

    ortvk_factory *factory = calloc(1, sizeof(*factory));
    if (factory == NULL) return ortvk_status(ORT_FAIL, "out of host memory creating the factory");
    factory->logger = logger;
    /* Members after the host's version are never read by it; set them all the same. */
    factory->base = (OrtEpFactory){
        .ort_version_supported = ortvk_ort_version,
        .GetName = factory_get_name,
        .GetVendor = factory_get_vendor,
        .GetSupportedDevices = factory_get_supported_devices,
        .CreateEp = factory_create_ep,
        .ReleaseEp = factory_release_ep,
        .GetVendorId = factory_get_vendor_id,
        .GetVersion = factory_get_version,
        .CreateAllocator = factory_create_allocator,
        .ReleaseAllocator = factory_release_allocator,
        .CreateDataTransfer = factory_create_data_transfer,
        .IsStreamAware = factory_is_stream_aware,
        .CreateSyncStreamForDevice = factory_create_stream,
        .CreateExternalResourceImporterForDevice = factory_create_importer,
        .GetNumCustomOpDomains = factory_get_num_custom_op_domains,
        .GetCustomOpDomains = factory_get_custom_op_domains,
        .InitGraphicsInterop = factory_init_graphics_interop,
        .DeinitGraphicsInterop = factory_deinit_graphics_interop,
    };
    status = factory_open_devices(factory);
    if (status != NULL) {
        /* No Vulkan is not an error for the host process: the EP simply offers no device. */
        ORTVK_LOG_WARNING(logger, "no Vulkan devices: %s", ortvk_ort->GetErrorMessage(status));
        ortvk_ort->ReleaseStatus(status);
    }
    factories[0] = &factory->base;
    *factory_count = 1;
    return NULL;
}

ORTVK_EXPORT OrtStatus *ReleaseEpFactory(OrtEpFactory *base)
{
    if (base != NULL) factory_destroy(factory_cast(base));
    return NULL;
}
