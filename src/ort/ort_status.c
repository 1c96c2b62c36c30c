/* The ORT tables ortvk calls (bound once when ORT loads the library), OrtStatus construction, VkResult names and
 * logging through ORT's logger. */
#include "ort/ort_status.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The only mutable globals of ortvk: set by CreateEpFactories before anything else runs, identical on every
 * later call (a process has one ONNX Runtime). */
const OrtApi *ortvk_ort;
const OrtEpApi *ortvk_ep_api;
uint32_t ortvk_ort_version;

OrtStatus *ortvk_ort_bind(const OrtApiBase *base)
{
    /* Members newer than the host's version are never read: the version we speak is the host's, capped at what
     * our declarations describe. */
    uint32_t version = ortvk_ort_api_version_for(base->GetVersionString());
    const OrtApi *api = version >= ORTVK_ORT_MIN_API_VERSION ? base->GetApi(version) : NULL;
    if (api == NULL) {
        /* No ORT table to build a status with: report through the oldest table every host has. */
        const OrtApi *v1 = base->GetApi(1);
        if (v1 == NULL) return NULL;
        char message[256];
        snprintf(message, sizeof(message),
                 "ortvk: ONNX Runtime %s is too old: ortvk needs ORT API version %d (ONNX Runtime 1.%d) or newer",
                 base->GetVersionString(), ORTVK_ORT_MIN_API_VERSION, ORTVK_ORT_MIN_API_VERSION);
        return v1->CreateStatus(ORT_NOT_IMPLEMENTED, message);
    }
    ortvk_ort_version = version;
    ortvk_ort = api;
    ortvk_ep_api = api->GetEpApi();
    return NULL;
}

static OrtStatus *vstatus(OrtErrorCode code, const char *prefix, const char *fmt, va_list ap)
{
    char message[1024];
    int n = snprintf(message, sizeof(message), "ortvk: %s", prefix);
    if (n < 0 || (size_t)n >= sizeof(message)) n = 0;
    vsnprintf(message + n, sizeof(message) - (size_t)n, fmt, ap);
    return ortvk_ort->CreateStatus(code, message);
}

OrtStatus *ortvk_status(OrtErrorCode code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    OrtStatus *status = vstatus(code, "", fmt, ap);
    va_end(ap);
    return status;
}

OrtStatus *ortvk_status_vk(VkResult result, const char *call, const char *fmt, ...)
{
    char context[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(context, sizeof(context), fmt, ap);
    va_end(ap);
    OrtErrorCode code = result == VK_ERROR_INVALID_EXTERNAL_HANDLE ? ORT_INVALID_ARGUMENT : ORT_EP_FAIL;
    return ortvk_status(code, "%s: %s failed: %s (%d)", context, call, ortvk_vk_result_name(result), (int)result);
}

const char *ortvk_vk_result_name(VkResult result)
{
    switch (result) {
#define NAME(r) \
    case r: return #r;
        NAME(VK_SUCCESS)
        NAME(VK_NOT_READY)
        NAME(VK_TIMEOUT)
        NAME(VK_EVENT_SET)
        NAME(VK_EVENT_RESET)
        NAME(VK_INCOMPLETE)
        NAME(VK_ERROR_OUT_OF_HOST_MEMORY)
        NAME(VK_ERROR_OUT_OF_DEVICE_MEMORY)
        NAME(VK_ERROR_INITIALIZATION_FAILED)
        NAME(VK_ERROR_DEVICE_LOST)
        NAME(VK_ERROR_MEMORY_MAP_FAILED)
        NAME(VK_ERROR_LAYER_NOT_PRESENT)
        NAME(VK_ERROR_EXTENSION_NOT_PRESENT)
        NAME(VK_ERROR_FEATURE_NOT_PRESENT)
        NAME(VK_ERROR_INCOMPATIBLE_DRIVER)
        NAME(VK_ERROR_TOO_MANY_OBJECTS)
        NAME(VK_ERROR_FORMAT_NOT_SUPPORTED)
        NAME(VK_ERROR_FRAGMENTED_POOL)
        NAME(VK_ERROR_UNKNOWN)
        NAME(VK_ERROR_OUT_OF_POOL_MEMORY)
        NAME(VK_ERROR_INVALID_EXTERNAL_HANDLE)
        NAME(VK_ERROR_FRAGMENTATION)
        NAME(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
        NAME(VK_PIPELINE_COMPILE_REQUIRED)
#undef NAME
    default: return "VkResult(unknown)";
    }
}

void ortvk_log_at(const OrtLogger *logger, OrtLoggingLevel level, const char *file, int line, const char *function,
                  const char *fmt, ...)
{
    if (logger == NULL || ortvk_ort == NULL) return;
    char message[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof(message), fmt, ap);
    va_end(ap);
    /* ORT prints the file's last component: "ep.c:107 ortvk_ep_get_capability". */
    OrtStatus *status = ortvk_ort->Logger_LogMessage(logger, level, message, file, line, function);
    if (status != NULL) ortvk_ort->ReleaseStatus(status);
}
