/* ortvk-bench --compare-model: one real model (e.g. the PP-OCRv4 detector) at a few frame sizes, run by ortvk, by
 * ORT's CPU EP and, where Dawn finds an adapter, by ORT's own WebGPU EP, in one process: median and p99 of each Run,
 * their ratio, and how far the outputs differ (a mismatch with the CPU EP fails the bench). With --profile, ortvk's
 * per-op device profile (ep.ortvk.profile) of each size, as a table beside the CPU EP's time. With --float16, the
 * model converted to float16 (kc_model_to_float16), run so by every EP. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "kernel_check.h"
#include "onnx_proto.h"

/* ONNX's model-test tolerances: |ortvk - cpu| <= ATOL + RTOL * |cpu| for every element. */
#define ATOL 1e-4
#define RTOL 1e-3
/* With --float16: the CPU EP computes much of a float16 model in float32 between Casts it inserts, a network of its
 * own (docs/kernels.md, "Float16"); ortvk rounds every tensor to float16 as the model says. Their outputs agree only
 * to float16's precision grown with the network's depth: the PP-OCRv4 detector's map by up to about 0.05. */
#define ATOL_FLOAT16 0.15
#define RTOL_FLOAT16 1e-2

#define ort_failed bench_app_failed

/* Keeps ORT's message in `why` instead of printing it. */
static int ort_failed_quiet(ortapp *app, OrtStatus *status, char *why, size_t len)
{
    if (status == NULL) return 0;
    snprintf(why, len, "%s", app->api->GetErrorMessage(status));
    why[strcspn(why, "\n")] = '\0';
    app->api->ReleaseStatus(status);
    return 1;
}

/* A session on ortvk's `device` (with `profile` as ep.ortvk.profile when not NULL), on the EP named `provider`, or
 * on the CPU EP alone (both NULL; with ORT's profiler writing <ort_profile>_<date>.json when not NULL). NULL on
 * failure, with ORT's message in `why`. */
static OrtSession *session_for(ortapp *app, const OrtEpDevice *device, const char *provider, const char *profile,
                               const char *ort_profile, const uint8_t *model, size_t len, int threads, char *why,
                               size_t why_len)
{
    OrtSessionOptions *options = NULL;
    OrtSession *session = NULL;
    if (ort_failed_quiet(app, app->api->CreateSessionOptions(&options), why, why_len)) return NULL;
    int failed = ort_failed_quiet(app, app->api->SetIntraOpNumThreads(options, threads), why, why_len);
    if (!failed && ort_profile != NULL)
        failed = ort_failed_quiet(app, app->api->EnableProfiling(options, ort_profile), why, why_len);
    const char *keys[] = {ORTVK_OPTION_PROFILE}, *values[] = {profile};
    if (!failed && device != NULL)
        failed = ort_failed_quiet(app, app->api->SessionOptionsAppendExecutionProvider_V2(
                                           options, app->env, &device, 1, profile ? keys : NULL,
                                           profile ? values : NULL, profile ? 1 : 0),
                                  why, why_len);
    if (!failed && provider != NULL)
        failed = ort_failed_quiet(
            app, app->api->SessionOptionsAppendExecutionProvider(options, provider, NULL, NULL, 0), why, why_len);
    if (!failed) ort_failed_quiet(app, app->api->CreateSessionFromArray(app->env, model, len, options, &session), why,
                                  why_len);
    app->api->ReleaseSessionOptions(options);
    return session;
}

/* The first output of a run: its float values copied (malloc'd; float16 ones converted) and their count; NULL with
 * `why` when it is not a float or float16 tensor. */
static float *copy_output(ortapp *app, OrtValue *output, size_t *count, char *why, size_t why_len)
{
    OrtTensorTypeAndShapeInfo *info = NULL;
    ONNXTensorElementDataType type = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
    float *copy = NULL, *data = NULL;
    *count = 0;
    if (ort_failed_quiet(app, app->api->GetTensorTypeAndShape(output, &info), why, why_len)) return NULL;
    int failed = ort_failed_quiet(app, app->api->GetTensorElementType(info, &type), why, why_len) ||
                 ort_failed_quiet(app, app->api->GetTensorShapeElementCount(info, count), why, why_len);
    app->api->ReleaseTensorTypeAndShapeInfo(info);
    if (failed) return NULL;
    bool half = type == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16;
    if (type != ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT && !half) {
        snprintf(why, why_len, "the first output is not a float or float16 tensor (element type %d)", (int)type);
        return NULL;
    }
    copy = malloc(*count * sizeof(float) + 1);
    if (copy == NULL) {
        snprintf(why, why_len, "out of memory for %zu output values", *count);
        return NULL;
    }
    if (*count > 0 && ort_failed_quiet(app, app->api->GetTensorMutableData(output, (void **)&data), why, why_len)) {
        free(copy);
        return NULL;
    }
    for (size_t i = 0; half && i < *count; i++) copy[i] = kc_half_to_float(((const uint16_t *)(void *)data)[i]);
    if (*count > 0 && !half) memcpy(copy, data, *count * sizeof(float));
    return copy;
}

/* One EP's runs at one size. */
typedef struct side {
    const char *label;
    OrtSession *session;
    double *ms;
    double first_ms;  /* the first (warm-up) run's time: on lavapipe mostly the shaders' machine code at first use */
    float *first;     /* the first run's output (malloc'd) */
    size_t count;     /* its values */
    char why[384];    /* why it could not run, or "" */
    bench_stat stat;
} side;

/* Runs `s->session` on `input` `warmup + frames` times, with a progress line on stderr for runs that take long;
 * fills s->ms with the measured frames' Run times and s->first with the first output. */
static int time_runs(ortapp *app, side *s, const char *size, const char *in_name, const char *out_name,
                     OrtValue *input, int warmup, int frames)
{
    double began = bench_now_us();
    for (int k = 0; k < warmup + frames; k++) {
        OrtValue *output = NULL;
        double start = bench_now_us();
        if (ort_failed_quiet(app, app->api->Run(s->session, NULL, &in_name, (const OrtValue *const *)&input, 1,
                                                &out_name, 1, &output),
                             s->why, sizeof(s->why)))
            return -1;
        double took = (bench_now_us() - start) / 1000.0;
        if (k >= warmup) s->ms[k - warmup] = took;
        if (k == 0) s->first_ms = took;
        if (k == 0) s->first = copy_output(app, output, &s->count, s->why, sizeof(s->why));
        app->api->ReleaseValue(output);
        if (k == 0 && s->first == NULL) return -1;
        if ((bench_now_us() - began) > 2e6)
            fprintf(stderr, "ortvk-bench: %s %s: run %d of %d took %.1f ms%s\n", size, s->label, k + 1,
                    warmup + frames, took, k < warmup ? " (warm-up)" : "");
    }
    s->stat = bench_stat_of(s->ms, (size_t)frames);
    return 0;
}

/* Largest |a - b|, and whether every element is within atol + rtol * |ref| (counts must agree). */
static bool outputs_match(const side *a, const side *ref, double atol, double rtol, double *max_diff)
{
    *max_diff = 0;
    if (a->count != ref->count) return false;
    bool ok = true;
    for (size_t i = 0; i < a->count; i++) {
        double d = fabs((double)a->first[i] - (double)ref->first[i]);
        if (!(d <= atol + rtol * fabs((double)ref->first[i]))) ok = false; /* NaN fails too */
        if (d > *max_diff || isnan(d)) *max_diff = isnan(d) ? INFINITY : d;
    }
    return ok;
}

int bench_model_compare(const bench_options *opt, const char *ort_path, const char *ep_path)
{
    ortapp app;
    const OrtEpDevice *device;
    int rc = bench_app_open(&app, opt, ort_path, ep_path, &device), mismatches = 0;
    if (rc == 77) return 77;
    uint8_t *model = NULL;
    size_t len = 0;
    if (rc != 0) goto out;
    rc = 1;
    if (onnx_read_file(opt->compare_model, &model, &len) != 0) {
        fprintf(stderr, "ortvk-bench: cannot read %s\n", opt->compare_model);
        goto out;
    }
    uint8_t *model16 = NULL;
    size_t len16 = 0;
    if (opt->float16) {
        if (kc_model_to_float16(model, len, &model16, &len16) != 0) {
            fprintf(stderr, "ortvk-bench: --float16: %s cannot be converted to float16\n", opt->compare_model);
            goto out;
        }
        free(model);
        model = model16;
        len = len16;
    }
    side ortvk = {.label = "ortvk"}, cpu = {.label = "CPU EP"}, webgpu = {.label = "WebGPU EP"};
    side *sides[3] = {&ortvk, &cpu, &webgpu};
    char profile_base[256] = "";
    if (opt->profile) {
        const char *tmp = getenv("TMPDIR");
        snprintf(profile_base, sizeof(profile_base), "%s/ortvk-profile-%d", tmp && tmp[0] ? tmp : "/tmp",
                 (int)getpid());
    }
    /* With --profile each size gets a session (and a profile file) of its own, made in the size's loop. */
    if (!opt->profile)
        ortvk.session = session_for(&app, device, NULL, NULL, NULL, model, len, opt->threads, ortvk.why,
                                    sizeof(ortvk.why));
    cpu.session = session_for(&app, NULL, NULL, NULL, NULL, model, len, opt->threads, cpu.why, sizeof(cpu.why));
    /* ORT's WebGPU EP (Dawn) where this ONNX Runtime has it and Dawn finds an adapter. Not with 1.24.3: once its
     * Dawn has found no adapter (lavapipe), releasing the environment hangs in ORT's teardown. */
    if (app.api_version >= 30)
        webgpu.session = session_for(&app, NULL, "WebGPU", NULL, NULL, model, len, opt->threads, webgpu.why,
                                     sizeof(webgpu.why));
    else
        snprintf(webgpu.why, sizeof(webgpu.why), "not tried with ONNX Runtime %s (only with 1.30 and later)",
                 app.version);
    const char *plain = strstr(webgpu.why, "Failed to get a WebGPU adapter"); /* past ORT's source location */
    if (plain != NULL) memmove(webgpu.why, plain, strlen(plain) + 1);
    OrtAllocator *allocator = NULL;
    char *in_name = NULL, *out_name = NULL;
    if ((!opt->profile && ortvk.session == NULL) || cpu.session == NULL) {
        fprintf(stderr, "ortvk-bench: creating the %s session failed: %s\n", cpu.session ? "ortvk" : "CPU EP",
                cpu.session ? ortvk.why : cpu.why);
        goto sessions;
    }
    if (ort_failed(&app, app.api->GetAllocatorWithDefaultOptions(&allocator), "GetAllocatorWithDefaultOptions") ||
        ort_failed(&app, app.api->SessionGetInputName(cpu.session, 0, allocator, &in_name), "SessionGetInputName") ||
        ort_failed(&app, app.api->SessionGetOutputName(cpu.session, 0, allocator, &out_name), "SessionGetOutputName"))
        goto sessions;

    const OrtKeyValuePairs *meta = app.api->EpDevice_EpMetadata(device);
    const char *device_name = app.api->GetKeyValue(meta, ORTVK_META_DEVICE_NAME);
    /* How the inputs reach the device and the outputs come back: a memcpy through a mapping, or staging buffers in
     * the memory types named (on a discrete GPU, readbacks should be in cached memory). */
    const char *host_copies = app.api->GetKeyValue(meta, ORTVK_META_HOST_COPIES);
    if (host_copies == NULL) host_copies = "unknown";
    if (opt->json) {
        printf("{\"model\": \"%s\", \"float16\": %s, \"device\": \"%s\", \"onnxruntime\": \"%s\", "
               "\"host_copies\": \"%s\", \"webgpu\": ", opt->compare_model, opt->float16 ? "true" : "false",
               device_name, app.version, host_copies);
        ortapp_print_json_string(webgpu.session ? "runs" : webgpu.why);
        printf(", \"sizes\": [");
    } else {
        printf("Model on ortvk against ORT's CPU EP (%d intra-op threads), Run time in ms over %d frames (+1 warm-up)\n"
               "  model  %s%s\n  device %s, ONNX Runtime %s; inputs in host memory, outputs allocated by ORT; "
               "host copies %s\n",
               opt->threads, opt->compare_frames, opt->compare_model, opt->float16 ? ", converted to float16" : "",
               device_name, app.version, host_copies);
        if (webgpu.session == NULL) printf("  ORT's WebGPU EP (Dawn): not run: %s\n", webgpu.why);
        printf("  size        ortvk median      p99   CPU EP median      p99   ratio (ortvk / CPU)  max |diff|  "
               "ortvk first Run%s\n",
               webgpu.session ? "   WebGPU median   ratio (WebGPU / CPU)  max |diff|" : "");
    }
    rc = 0;
    for (int s = 0; s < opt->compare_size_count && rc == 0; s++) {
        int w = opt->compare_sizes[s].width, h = opt->compare_sizes[s].height;
        char size[32], profile_path[300] = "", cpu_prefix[300] = "", cpu_profile[600] = "";
        snprintf(size, sizeof(size), "%dx%d", w, h);
        size_t n = (size_t)3 * (size_t)w * (size_t)h, esize = opt->float16 ? sizeof(uint16_t) : sizeof(float);
        float *in = malloc(n * sizeof(float));
        OrtValue *input = NULL;
        int64_t shape[4] = {1, 3, h, w};
        OrtMemoryInfo *host = NULL;
        rc = in ? 0 : 1;
        for (int i = 0; i < 3 && rc == 0; i++) {
            sides[i]->ms = calloc((size_t)opt->compare_frames, sizeof(double));
            if (sides[i]->ms == NULL) rc = 1;
        }
        if (rc == 0 && opt->profile) {
            snprintf(profile_path, sizeof(profile_path), "%s-%s.json", profile_base, size);
            ortvk.session = session_for(&app, device, NULL, profile_path, NULL, model, len, opt->threads, ortvk.why,
                                        sizeof(ortvk.why));
            if (ortvk.session == NULL) {
                fprintf(stderr, "ortvk-bench: creating the ortvk session failed: %s\n", ortvk.why);
                rc = 1;
            }
            /* The CPU EP's per-op times come from ORT's profiler, on a session of the size's own. */
            snprintf(cpu_prefix, sizeof(cpu_prefix), "%s-%s-cpu", profile_base, size);
            OrtSession *profiled = rc == 0 ? session_for(&app, NULL, NULL, NULL, cpu_prefix, model, len, opt->threads,
                                                         cpu.why, sizeof(cpu.why))
                                           : NULL;
            if (profiled != NULL) {
                if (cpu.session != NULL) app.api->ReleaseSession(cpu.session);
                cpu.session = profiled;
            } else if (rc == 0) {
                fprintf(stderr, "ortvk-bench: the CPU EP session with ORT's profiler failed: %s\n", cpu.why);
                cpu_prefix[0] = '\0';
                rc = cpu.session != NULL ? 0 : 1;
            }
        }
        for (size_t i = 0; rc == 0 && i < n; i++) in[i] = (float)((i * 2654435761u) % 1000) / 500.0f - 1.0f;
        /* float16 in place: value i's half overwrites bytes of values already read (those up to i / 2). */
        for (size_t i = 0; rc == 0 && opt->float16 && i < n; i++) ((uint16_t *)(void *)in)[i] = kc_float_to_half(in[i]);
        if (rc == 0) rc = ort_failed(&app, app.api->CreateCpuMemoryInfo(OrtDeviceAllocator, OrtMemTypeDefault, &host),
                                     "CreateCpuMemoryInfo");
        if (rc == 0)
            rc = ort_failed(&app,
                            app.api->CreateTensorWithDataAsOrtValue(host, in, n * esize, shape, 4,
                                                                    opt->float16 ? ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16
                                                                                 : ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT,
                                                                    &input),
                            "CreateTensorWithDataAsOrtValue");
        for (int i = 0; i < 3 && rc == 0; i++) {
            side *e = sides[i];
            if (e->session == NULL) continue;
            fprintf(stderr, "ortvk-bench: %s: running on %s (%d frames + 1 warm-up)\n", size, e->label,
                    opt->compare_frames);
            if (time_runs(&app, e, size, in_name, out_name, input, 1, opt->compare_frames) != 0) {
                if (e == &webgpu) {
                    fprintf(stderr, "ortvk-bench: %s on the WebGPU EP failed: %s\n", size, e->why);
                    app.api->ReleaseSession(webgpu.session), webgpu.session = NULL;
                    continue;
                }
                fprintf(stderr, "ortvk-bench: %s on %s failed: %s\n", size, e->label, e->why);
                rc = 1;
            }
        }
        if (rc == 0 && opt->profile) {
            app.api->ReleaseSession(ortvk.session); /* writes the profile */
            ortvk.session = NULL;
            if (cpu_prefix[0] != '\0') {
                app.api->ReleaseSession(cpu.session); /* ORT writes its profile */
                cpu.session = NULL;
                bench_find_file(cpu_prefix, cpu_profile, sizeof(cpu_profile)); /* the next size makes its own */
            }
        }
        if (rc == 0) {
            double diff = 0, wdiff = 0;
            double atol = opt->float16 ? ATOL_FLOAT16 : ATOL, rtol = opt->float16 ? RTOL_FLOAT16 : RTOL;
            bool match = outputs_match(&ortvk, &cpu, atol, rtol, &diff);
            bool wmatch = webgpu.session != NULL && outputs_match(&webgpu, &cpu, atol, rtol, &wdiff);
            if (!match) {
                mismatches++;
                fprintf(stderr, "ortvk-bench: %s: MISMATCH: ortvk's output (%zu values) differs from the CPU EP's "
                        "(%zu values): max |diff| %.3g beyond %g + %g * |cpu|\n", size, ortvk.count, cpu.count, diff,
                        atol, rtol);
            }
            bench_stat o = ortvk.stat, p = cpu.stat, g = webgpu.stat;
            if (opt->json) {
                printf("%s{\"size\": \"%s\", \"outputs\": %zu, \"ortvk_ms\": {\"median\": %.3f, \"p99\": %.3f}, "
                       "\"cpu_ms\": {\"median\": %.3f, \"p99\": %.3f}, \"ratio\": %.3f, \"max_abs_diff\": %.3g, "
                       "\"match\": %s, \"ortvk_first_run_ms\": %.3f",
                       s ? ", " : "", size, cpu.count, o.median, o.p99, p.median, p.p99, o.median / p.median, diff,
                       match ? "true" : "false", ortvk.first_ms);
                if (webgpu.session != NULL)
                    printf(", \"webgpu_ms\": {\"median\": %.3f, \"p99\": %.3f}, \"webgpu_max_abs_diff\": %.3g, "
                           "\"webgpu_match\": %s",
                           g.median, g.p99, wdiff, wmatch ? "true" : "false");
            } else {
                printf("  %-9s %12.1f %8.1f %15.1f %8.1f %12.2fx %17.2g %16.1f%s", size, o.median, o.p99, p.median,
                       p.p99, o.median / p.median, diff, ortvk.first_ms, match ? "" : " MISMATCH");
                if (webgpu.session != NULL)
                    printf(" %15.1f %12.2fx %17.2g%s", g.median, g.median / p.median, wdiff, wmatch ? "" : " differs");
                printf("\n");
            }
            if (opt->profile) bench_report_profile(opt, profile_path, cpu_profile, size, p.median, o.median);
            if (opt->json) printf("}");
        }
        app.api->ReleaseValue(input);
        app.api->ReleaseMemoryInfo(host);
        free(in);
        for (int i = 0; i < 3; i++) {
            free(sides[i]->ms), sides[i]->ms = NULL;
            free(sides[i]->first), sides[i]->first = NULL;
        }
    }
    if (opt->json) printf("]}\n");
    if (mismatches) {
        fprintf(stderr, "ortvk-bench: %d size(s) with outputs that differ from the CPU EP's\n", mismatches);
        rc = 1;
    }
sessions:
    if (in_name) app.api->AllocatorFree(allocator, in_name);
    if (out_name) app.api->AllocatorFree(allocator, out_name);
    for (int i = 0; i < 3; i++) {
        if (sides[i]->session) app.api->ReleaseSession(sides[i]->session);
        free(sides[i]->ms);
        free(sides[i]->first);
    }
out:
    free(model);
    ortapp_close(&app);
    return rc;
}
