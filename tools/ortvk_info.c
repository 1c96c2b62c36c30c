/* ortvk-info: loads ONNX Runtime, registers ortvk, and prints each ortvk EP device with its metadata (which
 * Vulkan device it is, its UUIDs, and which memory and semaphore handles it can import). --json for scripts. */
#include <stdio.h>
#include <stdlib.h>
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

static void usage(FILE *f)
{
    fprintf(f, "usage: ortvk-info [--json] [--ort PATH] [--ep PATH]\n"
               "  Lists ortvk's EP devices as ONNX Runtime sees them; exits 1 when there are none.\n"
               "  --json      machine-readable output\n"
               "  --ort PATH  libonnxruntime.so to load (default: $ORTVK_ORT_LIBRARY, else the fetched 1.30.0,\n"
               "              else libonnxruntime.so.1 from the loader's path)\n"
               "  --ep PATH   libortvk.so to register (default: $ORTVK_EP_LIBRARY, else the installed plugin when\n"
               "              ortvk-info is installed, else the build's)\n");
}

int main(int argc, char **argv)
{
    bool json = false;
    const char *ort_path = NULL, *ep_path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) json = true;
        else if (strcmp(argv[i], "--ort") == 0 && i + 1 < argc) ort_path = argv[++i];
        else if (strcmp(argv[i], "--ep") == 0 && i + 1 < argc) ep_path = argv[++i];
        else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else {
            bool missing = (strcmp(argv[i], "--ort") == 0 || strcmp(argv[i], "--ep") == 0);
            fprintf(stderr, "ortvk-info: %s %s\n", missing ? "missing value for" : "unknown argument", argv[i]);
            usage(stderr);
            return 2;
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
    /* ortvk fails to load with ORTVK_VALIDATION=1 when the layer is missing: having devices means it is on. */
    const char *env = getenv("ORTVK_VALIDATION");
    bool validation_on = validation && env != NULL && strcmp(env, "1") == 0;
    if (json) {
        printf("{\"onnxruntime\":{\"version\":\"%s\",\"api_version\":%u,\"library\":", app.version,
               app.api_version);
        ortapp_print_json_string(app.library_path);
        printf("},\"plugin\":");
        ortapp_print_json_string(app.ep_library_path);
        printf(",\"validation_layer\":%s,\"validation_on\":%s,\"devices\":[", validation ? "true" : "false",
               validation_on ? "true" : "false");
    } else {
        printf("ONNX Runtime %s (API %u) from %s\nortvk plugin: %s\nVulkan validation layer: %s\n"
               "ortvk EP devices: %zu\n",
               app.version, app.api_version, app.library_path, app.ep_library_path,
               validation_on ? "on (ORTVK_VALIDATION=1): ortvk's Vulkan instance runs with it"
               : validation  ? "available (ORTVK_VALIDATION=1 enables it)"
                             : "not installed",
               count);
    }
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
    else if (count == 0)
        fprintf(stderr, "ortvk-info: ortvk offers no EP device (it needs a Vulkan 1.2 device with a compute queue, "
                        "timeline semaphores and buffer device addresses; warnings above say more)\n");
    ortapp_close(&app);
    return count == 0 ? 1 : 0;
}
