/* The application side of ONNX Runtime for ortvk's tools, tests and examples: dlopen a libonnxruntime, bind its
 * API tables, create an environment, register libortvk.so and find its EP devices, as any application would. */
#ifndef ORTVK_ORTAPP_H
#define ORTVK_ORTAPP_H

#include <stddef.h>

#include "ort/ort_abi.h"

typedef struct ortapp {
    void *library;
    const OrtApiBase *base;
    const OrtApi *api;
    const OrtInteropApi *interop;
    uint32_t api_version;      /* min(host ORT_API_VERSION, ORTVK_ORT_API_VERSION) */
    const char *version;       /* e.g. "1.30.0" */
    char library_path[512];
    OrtEnv *env;
    bool registered;
    char ep_library_path[4096]; /* the libortvk.so ortapp_register registered */
} ortapp;

/* Opens ONNX Runtime: `ort_library` or $ORTVK_ORT_LIBRARY or the build-time default (the fetched 1.30.0) or, when
 * that is gone, libonnxruntime.so.1 from the loader's search path. 0 on success; on failure `error` says why. */
int ortapp_open(ortapp *app, const char *ort_library, OrtLoggingLevel level, char *error, size_t error_len);

/* Registers ortvk under the name "ortvk": `ep_library` or $ORTVK_EP_LIBRARY or, for a program installed in
 * <prefix>/bin, the installed <prefix>/<libdir>/libortvk.so.0, else the build's libortvk.so. Always an absolute path
 * (ONNX Runtime looks for a relative one next to itself); app->ep_library_path says which. */
OrtStatus *ortapp_register(ortapp *app, const char *ep_library);

/* ortvk's EP devices, in ORT's order (most capable first). Returns how many were written. */
size_t ortapp_devices(ortapp *app, const OrtEpDevice **out, size_t max);

void ortapp_close(ortapp *app);

/* Prints `s` to stdout as a JSON string literal (quotes and control characters escaped). */
void ortapp_print_json_string(const char *s);

/* Prints and releases a status; returns 1 if there was one (an error), else 0. */
int ortapp_check(ortapp *app, OrtStatus *status, const char *what);

#endif
