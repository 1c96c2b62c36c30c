/* dlopen of ONNX Runtime, ortvk registration and EP device lookup for tools, tests and examples. */
#include "ortapp.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ortvk.h"

int ortapp_open(ortapp *app, const char *ort_library, OrtLoggingLevel level, char *error, size_t error_len)
{
    memset(app, 0, sizeof(*app));
    const char *path = ort_library ? ort_library : getenv("ORTVK_ORT_LIBRARY");
    if (path == NULL || path[0] == '\0') {
        /* The build's fetched runtime, else whatever the loader finds (an installed tool whose build is gone). */
        path = ORTVK_DEFAULT_ORT_LIBRARY;
        if (access(path, R_OK) != 0) path = "libonnxruntime.so.1";
    }
    snprintf(app->library_path, sizeof(app->library_path), "%s", path);
    app->library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (app->library == NULL) {
        snprintf(error, error_len, "cannot load ONNX Runtime from %s: %s (run scripts/fetch-ort.sh)", path, dlerror());
        return -1;
    }
    ortvk_get_api_base_fn get_base = (ortvk_get_api_base_fn)dlsym(app->library, "OrtGetApiBase");
    if (get_base == NULL) {
        snprintf(error, error_len, "%s has no OrtGetApiBase", path);
        dlclose(app->library);
        return -1;
    }
    app->base = get_base();
    app->version = app->base->GetVersionString();
    app->api_version = ortvk_ort_api_version_for(app->version);
    if (app->api_version >= ORTVK_ORT_MIN_API_VERSION) app->api = app->base->GetApi(app->api_version);
    if (app->api == NULL) {
        snprintf(error, error_len, "ONNX Runtime %s is older than 1.%d", app->version, ORTVK_ORT_MIN_API_VERSION);
        dlclose(app->library);
        return -1;
    }
    app->interop = app->api->GetInteropApi();
    OrtStatus *status = app->api->CreateEnv(level, "ortvk", &app->env);
    if (status != NULL) {
        snprintf(error, error_len, "CreateEnv: %s", app->api->GetErrorMessage(status));
        app->api->ReleaseStatus(status);
        dlclose(app->library);
        return -1;
    }
    return 0;
}

/* The installed plugin when this program is installed (<prefix>/bin/x -> <prefix>/<libdir>/libortvk.so.0), else
 * the build's, into `out`. */
static void default_ep_library(char *out, size_t out_len)
{
    char exe[PATH_MAX], dir[PATH_MAX + 64], libdir[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash != NULL) *slash = '\0';
        snprintf(dir, sizeof(dir), "%s/%s", exe, ORTVK_INSTALLED_EP_DIR);
        if (slash != NULL && realpath(dir, libdir) != NULL) {
            snprintf(dir, sizeof(dir), "%s/%s", libdir, ORTVK_INSTALLED_EP_NAME);
            size_t len = strlen(dir);
            if (access(dir, R_OK) == 0 && len < out_len) {
                memcpy(out, dir, len + 1);
                return;
            }
        }
    }
    snprintf(out, out_len, "%s", ORTVK_DEFAULT_EP_LIBRARY);
}

OrtStatus *ortapp_register(ortapp *app, const char *ep_library)
{
    const char *path = ep_library ? ep_library : getenv("ORTVK_EP_LIBRARY");
    char absolute[PATH_MAX];
    if (path != NULL && path[0] != '\0' && path[0] != '/' && realpath(path, absolute) != NULL) path = absolute;
    if (path != NULL && path[0] != '\0') snprintf(app->ep_library_path, sizeof(app->ep_library_path), "%s", path);
    else default_ep_library(app->ep_library_path, sizeof(app->ep_library_path));
    path = app->ep_library_path;
    OrtStatus *status = app->api->RegisterExecutionProviderLibrary(app->env, ORTVK_EP_NAME, path);
    if (status == NULL) app->registered = true;
    return status;
}

size_t ortapp_devices(ortapp *app, const OrtEpDevice **out, size_t max)
{
    const OrtEpDevice *const *all = NULL;
    size_t count = 0, n = 0;
    OrtStatus *status = app->api->GetEpDevices(app->env, &all, &count);
    if (status != NULL) {
        app->api->ReleaseStatus(status);
        return 0;
    }
    for (size_t i = 0; i < count && n < max; i++) {
        if (strcmp(app->api->EpDevice_EpName(all[i]), ORTVK_EP_NAME) == 0) out[n++] = all[i];
    }
    return n;
}

void ortapp_close(ortapp *app)
{
    if (app->library == NULL) return;
    if (app->registered) {
        OrtStatus *status = app->api->UnregisterExecutionProviderLibrary(app->env, ORTVK_EP_NAME);
        if (status != NULL) app->api->ReleaseStatus(status);
    }
    app->api->ReleaseEnv(app->env);
    /* ONNX Runtime does not support being unloaded and reloaded in one process; keep it mapped. */
    memset(app, 0, sizeof(*app));
}

int ortapp_check(ortapp *app, OrtStatus *status, const char *what)
{
    if (status == NULL) return 0;
    fprintf(stderr, "%s: %s (code %d)\n", what, app->api->GetErrorMessage(status), (int)app->api->GetErrorCode(status));
    app->api->ReleaseStatus(status);
    return 1;
}

void ortapp_print_json_string(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') printf("\\%c", c);
        else if (c < 0x20) printf("\\u%04x", c);
        else putchar(c);
    }
    putchar('"');
}
