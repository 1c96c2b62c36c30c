/* The session pair of the differential kernel tests: ORT's CPU EP alone and ortvk (strict placement, or recording
 * where each node went) for the same model, run on the same inputs so that their outputs can be compared. */
#include "kernel_check.h"

bool kc_pair_open(ortapp *app, const OrtEpDevice *device, const uint8_t *model, size_t len, const uint8_t *vk_model,
                  size_t vk_len, bool strict, const char *what, kc_pair *pair)
{
    OrtStatus *error = NULL;
    pair->vk = NULL;
    pair->cpu = kc_session(app, NULL, model, len, false, false, &error);
    if (pair->cpu != NULL)
        pair->vk = kc_session(app, device, vk_model ? vk_model : model, vk_model ? vk_len : len, strict, !strict,
                              &error);
    bool ok = CHECK(pair->vk != NULL, "%s: %s: %s", what,
                    pair->cpu == NULL ? "session on the CPU EP"
                    : strict          ? "session with every node on ortvk (disable_cpu_ep_fallback=1)"
                                      : "session with ortvk",
                    error ? app->api->GetErrorMessage(error) : "");
    if (error) app->api->ReleaseStatus(error);
    if (!ok) kc_pair_close(app, pair);
    return ok;
}

void kc_pair_close(ortapp *app, kc_pair *pair)
{
    if (pair->vk) app->api->ReleaseSession(pair->vk);
    if (pair->cpu) app->api->ReleaseSession(pair->cpu);
    pair->vk = pair->cpu = NULL;
}

bool kc_pair_run(ortapp *app, const kc_pair *pair, const char *const *in_names, OrtValue *const *cpu_inputs,
                 OrtValue *const *vk_inputs, size_t n_in, const char *const *out_names, size_t n_out, OrtValue **want,
                 OrtValue **got)
{
    for (size_t o = 0; o < n_out; o++) want[o] = got[o] = NULL;
    return ORT_OK(app, app->api->Run(pair->cpu, NULL, in_names, (const OrtValue *const *)cpu_inputs, n_in,
                                     out_names, n_out, want)) &&
           ORT_OK(app, app->api->Run(pair->vk, NULL, in_names,
                                     (const OrtValue *const *)(vk_inputs ? vk_inputs : cpu_inputs), n_in, out_names,
                                     n_out, got));
}

void kc_pair_release(ortapp *app, OrtValue **want, OrtValue **got, size_t n_out)
{
    for (size_t o = 0; o < n_out; o++) {
        if (want[o]) app->api->ReleaseValue(want[o]);
        if (got[o]) app->api->ReleaseValue(got[o]);
        want[o] = got[o] = NULL;
    }
}

size_t kc_tensor_shape(ortapp *app, OrtValue *value, int64_t *dims, size_t max)
{
    OrtTensorTypeAndShapeInfo *info = NULL;
    size_t rank = 0;
    if (!ORT_OK(app, app->api->GetTensorTypeAndShape(value, &info))) return 0;
    app->api->GetDimensionsCount(info, &rank);
    if (rank <= max) app->api->GetDimensions(info, dims, rank);
    app->api->ReleaseTensorTypeAndShapeInfo(info);
    return rank;
}
