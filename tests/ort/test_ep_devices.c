/* ORT loads libortvk.so and lists its EP devices with the metadata an application uses to find the device it
 * renders on; the EP device's memory is ortvk's GPU-typed memory; registration can be undone and redone. */
#include <ctype.h>
#include <string.h>

#include "test_util.h"

static int is_hex(const char *s, size_t len)
{
    if (s == NULL || strlen(s) != len) return 0;
    for (size_t i = 0; i < len; i++)
        if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i])) return 0;
    return 1;
}

/* Every entry of a comma list is one of `allowed`. */
static int list_within(const char *list, const char *const *allowed, size_t n)
{
    char copy[256];
    snprintf(copy, sizeof(copy), "%s", list ? list : "?");
    for (char *save = NULL, *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int found = 0;
        for (size_t i = 0; i < n; i++) found |= strcmp(tok, allowed[i]) == 0;
        if (!found) return 0;
    }
    return 1;
}

int main(void)
{
    ortapp app;
    const OrtEpDevice *device;
    test_open(&app, &device);
    const OrtApi *api = app.api;

    CHECK(strcmp(api->EpDevice_EpName(device), "ortvk") == 0, "EP name %s", api->EpDevice_EpName(device));
    CHECK(strcmp(api->EpDevice_EpVendor(device), "ortvk") == 0, "EP vendor %s", api->EpDevice_EpVendor(device));
    const OrtKeyValuePairs *meta = api->EpDevice_EpMetadata(device);
    const char *device_uuid = api->GetKeyValue(meta, ORTVK_META_DEVICE_UUID);
    const char *driver_uuid = api->GetKeyValue(meta, ORTVK_META_DRIVER_UUID);
    const char *name = api->GetKeyValue(meta, ORTVK_META_DEVICE_NAME);
    printf("device: %s, deviceUUID %s, driverUUID %s\n", name, device_uuid, driver_uuid);
    CHECK(is_hex(device_uuid, 32), "deviceUUID is 32 lowercase hex digits: %s", device_uuid);
    CHECK(is_hex(driver_uuid, 32), "driverUUID is 32 lowercase hex digits: %s", driver_uuid);
    CHECK(name && name[0], "device name present");
    static const char *keys[] = {ORTVK_META_DEVICE_INDEX, ORTVK_META_DEVICE_TYPE, ORTVK_META_DRIVER_NAME,
                                 ORTVK_META_DRIVER_INFO, ORTVK_META_DRIVER_VERSION, ORTVK_META_VENDOR_ID,
                                 ORTVK_META_DEVICE_ID, ORTVK_META_API_VERSION, ORTVK_META_OPAQUE_FD_MEMORY_TYPE,
                                 ORTVK_META_HOST_POINTER_ALIGNMENT, ORTVK_META_KERNEL_TYPES,
                                 ORTVK_META_FLOAT_CONTROLS, ORTVK_META_HOST_COPIES};
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
        CHECK(api->GetKeyValue(meta, keys[i]) != NULL, "metadata key %s present", keys[i]);
    CHECK(strcmp(api->GetKeyValue(meta, ORTVK_META_DEVICE_INDEX), "0") == 0, "first device has index 0");
    /* A CPU device (lavapipe: one memory type, host-visible, coherent and cached) copies its tensors through a
     * mapping; a GPU says which, or which staging memory types it takes. */
    const char *copies = api->GetKeyValue(meta, ORTVK_META_HOST_COPIES);
    unsigned upload = 0, readback = 0;
    bool cpu = strcmp(api->GetKeyValue(meta, ORTVK_META_DEVICE_TYPE), "cpu") == 0;
    CHECK(copies && (strcmp(copies, "mapped") == 0 ||
                     (!cpu && sscanf(copies, "staged upload:%u readback:%u", &upload, &readback) == 2)),
          "host copies %s", copies ? copies : "(none)");
    static const char *memory_kinds[] = {"opaque_fd", "host_allocation"};
    static const char *semaphore_kinds[] = {"vk_timeline_opaque_fd", "host_timeline"};
    const char *memory = api->GetKeyValue(meta, ORTVK_META_MEMORY_IMPORT);
    const char *semaphores = api->GetKeyValue(meta, ORTVK_META_SEMAPHORE_IMPORT);
    CHECK(list_within(memory, memory_kinds, 2), "memory import list %s", memory);
    CHECK(list_within(semaphores, semaphore_kinds, 2), "semaphore import list %s", semaphores);
    CHECK(semaphores && strstr(semaphores, "host_timeline"), "host timelines import everywhere: %s", semaphores);

    /* The device's memory: GPU-typed, the Vulkan vendor id, ortvk's device index. */
    const OrtMemoryInfo *info = api->EpDevice_MemoryInfo(device, OrtDeviceMemoryType_DEFAULT);
    if (CHECK(info != NULL, "DEFAULT memory info")) {
        OrtMemoryInfoDeviceType type = OrtMemoryInfoDeviceType_CPU;
        api->MemoryInfoGetDeviceType(info, &type);
        CHECK(type == OrtMemoryInfoDeviceType_GPU, "memory device type %d", (int)type);
        char vendor[16];
        snprintf(vendor, sizeof(vendor), "0x%04x", api->MemoryInfoGetVendorId(info));
        CHECK(strcmp(vendor, api->GetKeyValue(meta, ORTVK_META_VENDOR_ID)) == 0, "memory vendor %s", vendor);
        int id = -1;
        ORT_OK(&app, api->MemoryInfoGetId(info, &id));
        CHECK(id == 0, "memory device id %d", id);
    }

    /* The hardware device ORT associates: its CPU device for a CPU implementation, a GPU otherwise. */
    const OrtHardwareDevice *hw = api->EpDevice_Device(device);
    const char *kind = api->GetKeyValue(meta, ORTVK_META_DEVICE_TYPE);
    OrtHardwareDeviceType hw_type = api->HardwareDevice_Type(hw);
    CHECK(strcmp(kind, "cpu") == 0 ? hw_type == OrtHardwareDeviceType_CPU : hw_type == OrtHardwareDeviceType_GPU,
          "hardware type %d for a %s device", (int)hw_type, kind);

    /* Unregistering releases the factory (and its devices); registering again offers the device again. A second
     * registration under the same name is not tried: ORT refuses it but never releases the factories it made. */
    ORT_OK(&app, api->UnregisterExecutionProviderLibrary(app.env, ORTVK_EP_NAME));
    app.registered = false;
    const OrtEpDevice *none[1];
    CHECK(ortapp_devices(&app, none, 1) == 0, "no ortvk device after unregistering");
    ORT_OK(&app, ortapp_register(&app, NULL));
    CHECK(ortapp_devices(&app, none, 1) == 1, "the device is back after registering again");
    return test_finish(&app, "test_ep_devices");
}
