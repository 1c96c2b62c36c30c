/* Private to ortvk. The ORT API tables ortvk calls into (set once when ORT loads the library), and the helpers
 * that turn every failure into an OrtStatus whose message names the field, the value or the Vulkan result. */
#ifndef ORTVK_ORT_STATUS_H
#define ORTVK_ORT_STATUS_H

#include <vulkan/vulkan.h>

#include "ort/ort_abi.h"

/* The host's tables. `ortvk_ort_version` is the API version ortvk and the host both speak:
 * min(host's ORT_API_VERSION, ORTVK_ORT_API_VERSION). Members added after it are never read. */
extern const OrtApi *ortvk_ort;
extern const OrtEpApi *ortvk_ep_api;
extern uint32_t ortvk_ort_version;

/* Binds the tables from `base`; fails when the host is older than ORTVK_ORT_MIN_API_VERSION. */
OrtStatus *ortvk_ort_bind(const OrtApiBase *base) ORTVK_MUST_CHECK;

#if defined(__GNUC__)
#define ORTVK_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define ORTVK_PRINTF(f, a)
#endif

/* An OrtStatus with `code` and a formatted message prefixed with "ortvk: ". */
OrtStatus *ortvk_status(OrtErrorCode code, const char *fmt, ...) ORTVK_PRINTF(2, 3) ORTVK_MUST_CHECK;

/* ORT_EP_FAIL naming the call and the result: "ortvk: <context>: vkAllocateMemory failed: VK_ERROR_... (-2)". */
OrtStatus *ortvk_status_vk(VkResult result, const char *call, const char *fmt, ...) ORTVK_PRINTF(3, 4)
    ORTVK_MUST_CHECK;

/* The VkResult's enumerator name, or "VkResult(<n>)" into a static "unknown" string. */
const char *ortvk_vk_result_name(VkResult result);

/* Logging through ORT's logger (never stdout). `logger` may be NULL: then the message is dropped. ortvk_log is a
 * macro so that ORT's log line names the caller's file, line and function, not this helper's. */
void ortvk_log_at(const OrtLogger *logger, OrtLoggingLevel level, const char *file, int line, const char *function,
                  const char *fmt, ...) ORTVK_PRINTF(6, 7);
#define ortvk_log(logger, level, ...) ortvk_log_at((logger), (level), __FILE__, __LINE__, __func__, __VA_ARGS__)

#define ORTVK_LOG_WARNING(logger, ...) ortvk_log((logger), ORT_LOGGING_LEVEL_WARNING, __VA_ARGS__)
#define ORTVK_LOG_ERROR(logger, ...) ortvk_log((logger), ORT_LOGGING_LEVEL_ERROR, __VA_ARGS__)
#define ORTVK_LOG_INFO(logger, ...) ortvk_log((logger), ORT_LOGGING_LEVEL_INFO, __VA_ARGS__)

/* Early return of a non-NULL status. */
#define ORTVK_TRY(expr)                                                                                        \
    do {                                                                                                       \
        OrtStatus *ortvk_try_status_ = (expr);                                                                 \
        if (ortvk_try_status_ != NULL) return ortvk_try_status_;                                               \
    } while (0)

#endif
