/* ortvk-bench --compare-model: one real model (e.g. the PP-OCRv4 detector) at a few frame sizes, run by ortvk and by
 * ORT's CPU EP in one process, median and p99 of each Run and their ratio, plus how far the outputs differ. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "onnx_proto.h"

static int ort_failed(ortapp *app, OrtStatus *status, const char *what)
{
    if (status == NULL) return 0;
    fprintf(stderr, "ortvk-bench: %s: %s\n", what, app->api->GetErrorMessage(status));
    app->api->ReleaseStatus(status);
    return 1;
}

static OrtSession *session_for(ortapp *app, const OrtEpDevice *device, const uint8_t *model, size_t len, int threads)
{
    OrtSessionOptions *options = NULL;
    OrtSession *session = NULL;
    if (ort_failed(app, app->api->CreateSessionOptions(&options), "CreateSessionOptions")) return NULL;
    int failed = ort_failed(app, app->api->SetIntraOpNumThreads(options, threads), "SetIntraOpNumThreads");
    if (!failed && device != NULL)
        failed = ort_failed(app, app->api->SessionOptionsAppendExecutionProvider_V2(options, app->env, &device, 1,
                                                                                    NULL, NULL, 0),
                            "SessionOptionsAppendExecutionProvider_V2");
    if (!failed) ort_failed(app, app->api->CreateSessionFromArray(app->env, model, len, options, &session),
                            "CreateSessionFromArray");
    app->api->ReleaseSessionOptions(options);
    return session;
}

/* Runs `session` on `input` `warmup + frames` times; fills `ms` with the measured frames' Run times and `first`
 * (when not NULL) with the first output. */
static int time_runs(ortapp *app, OrtSession *session, const char *in_name, const char *out_name, OrtValue *input,
                     int warmup, int frames, double *ms, float *first, size_t count)
{
    for (int k = 0; k < warmup + frames; k++) {
        OrtValue *output = NULL;
        double start = bench_now_us();
        if (ort_failed(app, app->api->Run(session, NULL, &in_name, (const OrtValue *const *)&input, 1, &out_name, 1,
                                          &output),
                       "Run"))
            return -1;
        if (k >= warmup) ms[k - warmup] = (bench_now_us() - start) / 1000.0;
        if (k == 0 && first != NULL) {
            float *data = NULL;
            if (!ort_failed(app, app->api->GetTensorMutableData(output, (void **)&data), "GetTensorMutableData"))
                memcpy(first, data, count * sizeof(float));
        }
        app->api->ReleaseValue(output);
    }
    return 0;
}

int bench_model_compare(const bench_options *opt, const char *ort_path, const char *ep_path)
{
    ortapp app;
    char error[512];
    if (ortapp_open(&app, ort_path, ORT_LOGGING_LEVEL_WARNING, error, sizeof(error)) != 0) {
        fprintf(stderr, "ortvk-bench: %s\n", error);
        return 77;
    }
    const OrtEpDevice *devices[16];
    size_t count = 0;
    if (!ort_failed(&app, ortapp_register(&app, ep_path), "RegisterExecutionProviderLibrary"))
        count = ortapp_devices(&app, devices, 16);
    uint8_t *model = NULL;
    size_t len = 0;
    int rc = 1;
    if ((size_t)opt->device_index >= count || onnx_read_file(opt->compare_model, &model, &len) != 0) {
        fprintf(stderr, "ortvk-bench: no ortvk device %d, or cannot read %s\n", opt->device_index, opt->compare_model);
        goto out;
    }
    const OrtEpDevice *device = devices[opt->device_index];
    OrtSession *on_ortvk = session_for(&app, device, model, len, opt->threads);
    OrtSession *on_cpu = session_for(&app, NULL, model, len, opt->threads);
    OrtAllocator *allocator = NULL;
    char *in_name = NULL, *out_name = NULL;
    if (on_ortvk == NULL || on_cpu == NULL ||
        ort_failed(&app, app.api->GetAllocatorWithDefaultOptions(&allocator), "GetAllocatorWithDefaultOptions") ||
        ort_failed(&app, app.api->SessionGetInputName(on_cpu, 0, allocator, &in_name), "SessionGetInputName") ||
        ort_failed(&app, app.api->SessionGetOutputName(on_cpu, 0, allocator, &out_name), "SessionGetOutputName"))
        goto sessions;

    const char *device_name = app.api->GetKeyValue(app.api->EpDevice_EpMetadata(device), ORTVK_META_DEVICE_NAME);
    if (opt->json) printf("{\"model\": \"%s\", \"device\": \"%s\", \"onnxruntime\": \"%s\", \"sizes\": [",
                          opt->compare_model, device_name, app.version);
    else printf("Model on ortvk against ORT's CPU EP (%d intra-op threads), Run time in ms over %d frames (+1 warm-up)\n"
                "  model  %s\n  device %s, ONNX Runtime %s; inputs in host memory, outputs allocated by ORT\n"
                "  size        ortvk median      p99   CPU EP median      p99   ratio (ortvk / CPU)  max |diff|\n",
                opt->threads, opt->compare_frames, opt->compare_model, device_name, app.version);
    rc = 0;
    for (int s = 0; s < opt->compare_size_count && rc == 0; s++) {
        int w = opt->compare_sizes[s].width, h = opt->compare_sizes[s].height;
        size_t n = (size_t)3 * (size_t)w * (size_t)h, out_count = (size_t)w * (size_t)h; /* [1,1,H,W] maps */
        float *in = malloc(n * sizeof(float));
        float *a = calloc(out_count, sizeof(float)), *c = calloc(out_count, sizeof(float));
        double *ms_ortvk = calloc((size_t)opt->compare_frames, sizeof(double));
        double *ms_cpu = calloc((size_t)opt->compare_frames, sizeof(double));
        OrtValue *input = NULL;
        int64_t shape[4] = {1, 3, h, w};
        OrtMemoryInfo *cpu = NULL;
        rc = in && a && c && ms_ortvk && ms_cpu ? 0 : 1;
        for (size_t i = 0; rc == 0 && i < n; i++) in[i] = (float)((i * 2654435761u) % 1000) / 500.0f - 1.0f;
        if (rc == 0) rc = ort_failed(&app, app.api->CreateCpuMemoryInfo(OrtDeviceAllocator, OrtMemTypeDefault, &cpu),
                                     "CreateCpuMemoryInfo");
        if (rc == 0) rc = ort_failed(&app, app.api->CreateTensorWithDataAsOrtValue(cpu, in, n * sizeof(float), shape, 4,
                                                                               ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT,
                                                                               &input),
                                     "CreateTensorWithDataAsOrtValue");
        if (rc == 0) rc = time_runs(&app, on_ortvk, in_name, out_name, input, 1, opt->compare_frames, ms_ortvk, a,
                                    out_count);
        if (rc == 0) rc = time_runs(&app, on_cpu, in_name, out_name, input, 1, opt->compare_frames, ms_cpu, c,
                                    out_count);
        if (rc == 0) {
            double diff = 0;
            for (size_t i = 0; i < out_count; i++) diff = fmax(diff, fabs((double)a[i] - (double)c[i]));
            bench_stat o = bench_stat_of(ms_ortvk, (size_t)opt->compare_frames);
            bench_stat p = bench_stat_of(ms_cpu, (size_t)opt->compare_frames);
            if (opt->json)
                printf("%s{\"size\": \"%dx%d\", \"ortvk_ms\": {\"median\": %.3f, \"p99\": %.3f}, \"cpu_ms\": "
                       "{\"median\": %.3f, \"p99\": %.3f}, \"ratio\": %.3f, \"max_abs_diff\": %.3g}",
                       s ? ", " : "", w, h, o.median, o.p99, p.median, p.p99, o.median / p.median, diff);
            else
                printf("  %4dx%-4d %12.1f %8.1f %15.1f %8.1f %12.2fx %17.2g\n", w, h, o.median, o.p99, p.median, p.p99,
                       o.median / p.median, diff);
        }
        app.api->ReleaseValue(input);
        app.api->ReleaseMemoryInfo(cpu);
        free(in), free(a), free(c), free(ms_ortvk), free(ms_cpu);
    }
    if (opt->json) printf("]}\n");
sessions:
    if (in_name) app.api->AllocatorFree(allocator, in_name);
    if (out_name) app.api->AllocatorFree(allocator, out_name);
    if (on_ortvk) app.api->ReleaseSession(on_ortvk);
    if (on_cpu) app.api->ReleaseSession(on_cpu);
out:
    free(model);
    ortapp_close(&app);
    return rc;
}
