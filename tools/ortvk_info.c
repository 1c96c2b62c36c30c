/* ortvk-info: loads ONNX Runtime, registers ortvk, and prints each ortvk EP device with its metadata (which
 * Vulkan device it is, its UUIDs, and which memory and semaphore handles it can import). --json for scripts. */
#include <stdio.h>
#include <string.h>

#include <vulkan/vulkan.h>

#include "ortapp.h"

/* Whether the Khronos validation layer can be enabled (ORTVK_VALIDATION=1 needs it). */
static bool validation_layer_available(void)
{
    uint32_t count = 0;
    if (vkEnumerateInstanceLayerProperties(&count, NULL) != VK_SUCCESS || count == 0) return false;
    VkLayerProperties layers[64];
    if (count > 64) count = 64;
    if (vkEnumerateInstanceLayerProperties(&count, layers) < 0) return false;
    for (uint32_t i = 0; i < count; i++)
        if (strcmp(layers[i].layerName, "VK_LAYER_KHRONOS_validation") == 0) return true;
    return false;
}


static const char *hardware_type(OrtHardwareDeviceType type)
{
    switch (type) {
    case OrtHardwareDeviceType_CPU: return "cpu";
    case OrtHardwareDeviceType_GPU: return "gpu";
    case OrtHardwareDeviceType_NPU: return "npu";
    default: return "unknown";
    }
}

static void usage(void)
{
    printf("usage: ortvk-info [--json] [--ort PATH] [--ep PATH]\n"
           "  Lists ortvk's EP devices as ONNX Runtime sees them.\n"
           "  --json      machine-readable output\n"
           "  --ort PATH  libonnxruntime.so to load (default: $ORTVK_ORT_LIBRARY or the fetched 1.30.0)\n"
           "  --ep PATH   libortvk.so to register (default: $ORTVK_EP_LIBRARY or the build's)\n");
}

int main(int argc, char **argv)
{
    bool json = false;
    const char *ort_path = NULL, *ep_path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) json = true;
        else if (strcmp(argv[i], "--ort") == 0 && i + 1 < argc) ort_path = argv[++i];
        else if (strcmp(argv[i], "--ep") == 0 && i + 1 < argc) ep_path = argv[++i];
        else {
            usage();
            return strcmp(argv[i], "--help") == 0 ? 0 : 2;
        }
    }
    ortapp app;
    char error[512];
    if (ortapp_open(&app, ort_path, ORT_LOGGING_LEVEL_WARNING, error, sizeof(error)) != 0) {
        fprintf(stderr, "ortvk-info: %s\n", error);
        return 1;
    }
    if (ortapp_check(&app, ortapp_register(&app, ep_path), "ortvk-info: RegisterExecutionProviderLibrary")) {
        ortapp_close(&app);
        return 1;
    }
    const OrtEpDevice *devices[16];
    size_t count = ortapp_devices(&app, devices, 16);

    bool validation = validation_layer_available();
    if (json) printf("{\"onnxruntime\":{\"version\":\"%s\",\"api_version\":%u},\"validation_layer\":%s,"
                     "\"devices\":[",
                     app.version, app.api_version, validation ? "true" : "false");
    else printf("ONNX Runtime %s (API %u) from %s\nVulkan validation layer: %s\nortvk EP devices: %zu\n",
                app.version, app.api_version, app.library_path,
                validation ? "available (ORTVK_VALIDATION=1 enables it)" : "not installed", count);
    for (size_t i = 0; i < count; i++) {
        const OrtHardwareDevice *hw = app.api->EpDevice_Device(devices[i]);
        const OrtKeyValuePairs *meta = app.api->EpDevice_EpMetadata(devices[i]);
        const char *const *keys = NULL, *const *values = NULL;
        size_t n = 0;
        app.api->GetKeyValuePairs(meta, &keys, &values, &n);
        if (json) {
            printf("%s{\"hardware\":{\"type\":\"%s\",\"vendor_id\":%u,\"device_id\":%u},\"metadata\":{", i ? "," : "",
                   hardware_type(app.api->HardwareDevice_Type(hw)), app.api->HardwareDevice_VendorId(hw),
                   app.api->HardwareDevice_DeviceId(hw));
            for (size_t k = 0; k < n; k++) {
                printf("%s", k ? "," : "");
                ortapp_print_json_string(keys[k]);
                putchar(':');
                ortapp_print_json_string(values[k]);
            }
            printf("}}");
        } else {
            const char *name = app.api->GetKeyValue(meta, "ortvk.device_name");
            printf("\n[%zu] %s\n    ORT hardware device: %s, vendor 0x%04x, device 0x%04x\n", i, name ? name : "?",
                   hardware_type(app.api->HardwareDevice_Type(hw)), app.api->HardwareDevice_VendorId(hw),
                   app.api->HardwareDevice_DeviceId(hw));
            for (size_t k = 0; k < n; k++) printf("    %-32s %s\n", keys[k], values[k]);
        }
    }
    if (json) printf("]}\n");
    ortapp_close(&app);
    return 0;
}
