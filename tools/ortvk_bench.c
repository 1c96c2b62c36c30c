/* ortvk-bench: measures ortvk's external resource import side by side with what it replaces, in one run.
 *   1. import cost: ImportMemory + CreateTensorFromMemory + release through ORT, against the bare Vulkan import of
 *      the same FD (and host allocation) on a VkDevice of the bench's own;
 *   2. the frame path: a producer device's compute pass -> model -> output back in the producer's memory, zero-copy
 *      through ortvk against today's fence wait + read back + host tensors + write back, at several frame sizes;
 *   3. WaitSemaphore/SignalSemaphore enqueue cost on an ortvk stream, and proof that WaitSemaphore does not block.
 * Median and p99 of each and their ratio, as aligned tables (or --json). Details: docs/benchmarks.md; the parts
 * live in tools/bench/. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "onnx_proto.h"
#include "test_util.h" /* test_model_one_op */

static const bench_size default_sizes[] = {{224, 224}, {640, 640}, {1920, 1080}};

static void usage(FILE *to)
{
    fprintf(to,
            "usage: ortvk-bench [options]\n"
            "  Import cost, the frame path (zero-copy vs today's copies) and semaphore enqueue cost of ortvk, each\n"
            "  side by side with its baseline: median, p99 and their ratio.\n"
            "  --iterations N   import and semaphore calls measured per case (default 200)\n"
            "  --frames N       frames measured per size and path (default 30)\n"
            "  --warmup N       frames run first and not measured (default 2)\n"
            "  --sizes LIST     frame sizes WxH, comma-separated (default 224x224,640x640,1920x1080);\n"
            "                   the input is [1,3,H,W] float\n"
            "  --model PATH     run this ONNX model (one float input [1,3,H,W], float output) instead of the\n"
            "                   built-in z = Relu(x); e.g. .cache/models/ch_PP-OCRv4_det_infer.onnx with sizes\n"
            "                   that are multiples of 32\n"
            "  --compare-model PATH  instead: this model on ortvk and on ORT's CPU EP, side by side (e.g. the\n"
            "                   PP-OCRv4 detector); --compare-sizes LIST (default 640x640,960x544),\n"
            "                   --compare-frames N (default 3); ORT's WebGPU EP runs too where Dawn finds an\n"
            "                   adapter; --profile adds ortvk's per-op device profile of each size;\n"
            "                   --float16 runs the model converted to float16 on every EP (its input too)\n"
            "  --ops LIST       instead: single ops on ortvk and the CPU EP (all, or some of conv3x3,conv1x1,\n"
            "                   qconv3x3,qmatmul,qdw3x3,conv480,convres,pwsmall,conv1d,lstm,dw3x3,matmul,add,mul,\n"
            "                   mulch,sigmoid,softmax,transpose,se,gap,neck,resize,resizelin,convt2x2,head,dwres,\n"
            "                   stem,small: a 7-node model of three small Gemms, whole Runs; or model:\n"
            "                   the --model PATH at --compare-sizes);\n"
            "                   --compare-frames N runs each\n"
            "  --device INDEX   ortvk EP device to use (default 0, the most capable; see ortvk-info)\n"
            "  --threads N      ORT intra-op threads (default 1: the model's compute runs on the app thread)\n"
            "  --delay-ms N     the non-blocking proof's producer delay (default 50)\n"
            "  --host-timeline  frame path over an ortvk host timeline even where Vulkan timeline FDs import\n"
            "  --json           one JSON object on stdout instead of tables\n"
            "  --ort PATH       libonnxruntime.so to load (default: $ORTVK_ORT_LIBRARY or the fetched 1.30.0)\n"
            "  --ep PATH        libortvk.so to register (default: $ORTVK_EP_LIBRARY or the build's)\n"
            "  --help           this text\n"
            "Exit status: 0 when everything ran and checked out, 1 on a failure, 2 for bad options, 77 (skip)\n"
            "when ONNX Runtime cannot be loaded.\n"
            "Environment: ORTVK_VALIDATION=1 turns on the Vulkan validation layer (ortvk, producer, bench device).\n");
}

static bool parse_int(const char *text, int min, int max, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || v < min || v > max) return false;
    *out = (int)v;
    return true;
}

static bool parse_sizes(const char *text, bench_size *sizes, int *count)
{
    *count = 0;
    const char *p = text;
    while (*p) {
        if (*count == BENCH_MAX_SIZES) return false;
        char *end;
        long w = strtol(p, &end, 10);
        if (end == p || (*end != 'x' && *end != 'X')) return false;
        p = end + 1;
        long h = strtol(p, &end, 10);
        if (end == p || (*end != ',' && *end != '\0')) return false;
        if (w < 1 || h < 1 || w > 16384 || h > 16384) return false;
        sizes[(*count)++] = (bench_size){(int)w, (int)h};
        p = *end == ',' ? end + 1 : end;
    }
    return *count > 0;
}

static int parse_args(int argc, char **argv, bench_options *o, const char **ort_path, const char **ep_path)
{
    *o = (bench_options){.iterations = 200, .frames = 30, .warmup_frames = 2, .threads = 1, .delay_ms = 50,
                         .compare_sizes = {{640, 640}, {960, 544}}, .compare_size_count = 2, .compare_frames = 3};
    memcpy(o->sizes, default_sizes, sizeof(default_sizes));
    o->size_count = (int)(sizeof(default_sizes) / sizeof(default_sizes[0]));
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            exit(0);
        }
        if (strcmp(a, "--json") == 0) {
            o->json = true;
            continue;
        }
        if (strcmp(a, "--host-timeline") == 0) {
            o->host_timeline = true;
            continue;
        }
        if (strcmp(a, "--profile") == 0) {
            o->profile = true;
            continue;
        }
        if (strcmp(a, "--float16") == 0) {
            o->float16 = true;
            continue;
        }
        static const char *const with_value[] = {
            "--iterations",    "--frames",        "--warmup",         "--sizes", "--model",
            "--device",        "--threads",       "--delay-ms",       "--ort",   "--ep",
            "--compare-model", "--compare-sizes", "--compare-frames", "--ops"};
        bool known = false;
        for (size_t k = 0; k < sizeof(with_value) / sizeof(with_value[0]); k++) known |= strcmp(a, with_value[k]) == 0;
        if (!known || i + 1 >= argc) {
            fprintf(stderr, "ortvk-bench: %s: %s (see --help)\n", a, known ? "missing value" : "unknown option");
            return -1;
        }
        const char *v = argv[++i];
        bool ok = true;
        if (strcmp(a, "--iterations") == 0) ok = parse_int(v, 1, 10000000, &o->iterations);
        else if (strcmp(a, "--frames") == 0) ok = parse_int(v, 1, 1000000, &o->frames);
        else if (strcmp(a, "--warmup") == 0) ok = parse_int(v, 0, 1000000, &o->warmup_frames);
        else if (strcmp(a, "--sizes") == 0) ok = parse_sizes(v, o->sizes, &o->size_count);
        else if (strcmp(a, "--compare-sizes") == 0) ok = parse_sizes(v, o->compare_sizes, &o->compare_size_count);
        else if (strcmp(a, "--compare-frames") == 0) ok = parse_int(v, 1, 1000000, &o->compare_frames);
        else if (strcmp(a, "--compare-model") == 0) o->compare_model = v;
        else if (strcmp(a, "--ops") == 0) o->ops = v;
        else if (strcmp(a, "--model") == 0) o->model_path = v;
        else if (strcmp(a, "--device") == 0) ok = parse_int(v, 0, 1000, &o->device_index);
        else if (strcmp(a, "--threads") == 0) ok = parse_int(v, 0, 1024, &o->threads);
        else if (strcmp(a, "--delay-ms") == 0) ok = parse_int(v, 4, 60000, &o->delay_ms);
        else if (strcmp(a, "--ort") == 0) *ort_path = v;
        else *ep_path = v;
        if (!ok) {
            fprintf(stderr, "ortvk-bench: %s: bad value \"%s\" (see --help)\n", a, v);
            return -1;
        }
    }
    return 0;
}

static void copy_meta(bench *b, const OrtKeyValuePairs *meta, const char *key, char *out, size_t len)
{
    const char *v = b->app.api->GetKeyValue(meta, key);
    snprintf(out, len, "%s", v ? v : "?");
}

static bool parse_uuid(const char *hex, uint8_t out[16])
{
    if (hex == NULL || strlen(hex) != 32) return false;
    for (int i = 0; i < 16; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1) return false;
        out[i] = (uint8_t)v;
    }
    return true;
}

static void read_cpu(bench *b)
{
    snprintf(b->cpu_model, sizeof(b->cpu_model), "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    while (f && fgets(line, sizeof(line), f)) {
        if (strncmp(line, "model name", 10) != 0) continue;
        const char *colon = strchr(line, ':');
        if (colon == NULL) continue;
        colon++;
        while (*colon == ' ' || *colon == '\t') colon++;
        snprintf(b->cpu_model, sizeof(b->cpu_model), "%s", colon);
        b->cpu_model[strcspn(b->cpu_model, "\n")] = '\0';
        break;
    }
    if (f) fclose(f);
    b->cores = sysconf(_SC_NPROCESSORS_ONLN);
}

static int load_model(bench *b)
{
    bench_model *m = &b->model;
    if (b->opt.model_path == NULL) {
        const int64_t shape[4] = {1, 3, -1, -1}; /* H and W symbolic: one session for every size */
        int rc = test_model_one_op("Relu", 1, 4, shape, &m->bytes, &m->len);
        if (rc != ONNX_OK) {
            fprintf(stderr, "ortvk-bench: building the Relu model failed: %s\n", onnx_strerror(rc));
            return -1;
        }
        m->builtin = true;
        snprintf(m->input_name, sizeof(m->input_name), "x");
        snprintf(m->output_name, sizeof(m->output_name), "z");
        return 0;
    }
    int rc = onnx_read_file(b->opt.model_path, &m->bytes, &m->len);
    if (rc != ONNX_OK) {
        fprintf(stderr, "ortvk-bench: cannot read %s: %s (scripts/fetch-models.sh fetches the PP-OCR models)\n",
                b->opt.model_path, onnx_strerror(rc));
        return -1;
    }
    return 0;
}

/* The name of the session's first input or output. */
static int session_io_name(bench *b, bool input, char *out, size_t len)
{
    OrtAllocator *allocator = NULL;
    char *name = NULL;
    if (BENCH_ORT(b, b->app.api->GetAllocatorWithDefaultOptions(&allocator))) return -1;
    OrtStatus *status = input ? b->app.api->SessionGetInputName(b->session, 0, allocator, &name)
                              : b->app.api->SessionGetOutputName(b->session, 0, allocator, &name);
    if (bench_ort_failed(b, status, input ? "SessionGetInputName(0)" : "SessionGetOutputName(0)")) return -1;
    snprintf(out, len, "%s", name);
    BENCH_ORT(b, b->app.api->AllocatorFree(allocator, name));
    return 0;
}

static int create_session(bench *b)
{
    const OrtApi *api = b->app.api;
    OrtSessionOptions *options = NULL;
    if (BENCH_ORT(b, api->CreateSessionOptions(&options))) return -1;
    int rc = 0;
    if (BENCH_ORT(b, api->SetIntraOpNumThreads(options, b->opt.threads)) ||
        BENCH_ORT(b,
                  api->SessionOptionsAppendExecutionProvider_V2(options, b->app.env, &b->device, 1, NULL, NULL, 0)) ||
        BENCH_ORT(b, api->CreateSessionFromArray(b->app.env, b->model.bytes, b->model.len, options, &b->session)))
        rc = -1;
    api->ReleaseSessionOptions(options);
    size_t inputs = 0;
    if (rc == 0 && BENCH_ORT(b, api->SessionGetInputCount(b->session, &inputs))) rc = -1;
    if (rc == 0 && inputs != 1) {
        fprintf(stderr, "ortvk-bench: %s has %zu inputs; the bench feeds one float [1,3,H,W] input\n",
                b->opt.model_path ? b->opt.model_path : "the model", inputs);
        rc = -1;
    }
    if (rc == 0 && !b->model.builtin &&
        (session_io_name(b, true, b->model.input_name, sizeof(b->model.input_name)) != 0 ||
         session_io_name(b, false, b->model.output_name, sizeof(b->model.output_name)) != 0))
        rc = -1;
    /* Whether ortvk runs the node that consumes the input: then Run may (and should) be given the stream. */
    const OrtEpDevice *consumer = NULL;
    if (rc == 0 && !BENCH_ORT(b, api->SessionGetEpDeviceForInputs(b->session, &consumer, 1)))
        b->ortvk_consumes_input = consumer == b->device;
    return rc;
}

static int setup(bench *b, const char *ort_path, const char *ep_path)
{
    char error[512];
    if (ortapp_open(&b->app, ort_path, ORT_LOGGING_LEVEL_WARNING, error, sizeof(error)) != 0) {
        /* Like the test suite: no ONNX Runtime is a skip (exit 77), not a failure. */
        printf("SKIP: ortvk-bench: %s\n", error);
        exit(77);
    }
    if (BENCH_ORT(b, ortapp_register(&b->app, ep_path))) return -1;
    const OrtEpDevice *devices[16];
    size_t count = ortapp_devices(&b->app, devices, 16);
    if ((size_t)b->opt.device_index >= count) {
        fprintf(stderr, "ortvk-bench: --device %d: ortvk offers %zu EP device(s) (see ortvk-info)\n",
                b->opt.device_index, count);
        return -1;
    }
    b->device = devices[b->opt.device_index];
    const OrtKeyValuePairs *meta = b->app.api->EpDevice_EpMetadata(b->device);
    char driver_name[96], driver_info[96], uuid[64], type[16], align[32];
    copy_meta(b, meta, ORTVK_META_DEVICE_NAME, b->device_name, sizeof(b->device_name));
    copy_meta(b, meta, ORTVK_META_DEVICE_TYPE, b->device_type, sizeof(b->device_type));
    copy_meta(b, meta, ORTVK_META_DRIVER_NAME, driver_name, sizeof(driver_name));
    copy_meta(b, meta, ORTVK_META_DRIVER_INFO, driver_info, sizeof(driver_info));
    copy_meta(b, meta, ORTVK_META_API_VERSION, b->api_version, sizeof(b->api_version));
    copy_meta(b, meta, ORTVK_META_MEMORY_IMPORT, b->memory_import, sizeof(b->memory_import));
    copy_meta(b, meta, ORTVK_META_SEMAPHORE_IMPORT, b->semaphore_import, sizeof(b->semaphore_import));
    copy_meta(b, meta, ORTVK_META_DEVICE_UUID, uuid, sizeof(uuid));
    copy_meta(b, meta, ORTVK_META_OPAQUE_FD_MEMORY_TYPE, type, sizeof(type));
    copy_meta(b, meta, ORTVK_META_HOST_POINTER_ALIGNMENT, align, sizeof(align));
    snprintf(b->driver, sizeof(b->driver), "%s, %s", driver_name, driver_info);
    b->opaque_fd_memory_type = (uint32_t)strtoul(type, NULL, 10);
    b->host_alignment = (size_t)strtoull(align, NULL, 10);
    if (!parse_uuid(uuid, b->device_uuid)) {
        fprintf(stderr, "ortvk-bench: EP metadata %s is \"%s\", not 32 hex digits\n", ORTVK_META_DEVICE_UUID, uuid);
        return -1;
    }
    read_cpu(b);
    const char *validation = getenv("ORTVK_VALIDATION");
    b->validation = validation && validation[0] && strcmp(validation, "0") != 0;

    if (BENCH_ORT(b, b->app.interop->CreateExternalResourceImporterForDevice(b->device, &b->importer))) return -1;
    if (b->importer == NULL) {
        fprintf(stderr, "ortvk-bench: CreateExternalResourceImporterForDevice gave no importer for %s\n",
                b->device_name);
        return -1;
    }
    int rc = vk_producer_create_by_uuid(b->device_uuid, &b->producer);
    if (rc != 0) {
        fprintf(stderr, "ortvk-bench: vk_producer_create_by_uuid(%s) failed: %s\n", uuid, strerror(-rc));
        return -1;
    }
    if (bare_vk_create(b->device_uuid, &b->bare, error, sizeof(error)) != 0) {
        fprintf(stderr, "ortvk-bench: %s\n", error);
        return -1;
    }
    if (load_model(b) != 0 || create_session(b) != 0) return -1;
    return 0;
}

static void teardown(bench *b)
{
    if (b->session) b->app.api->ReleaseSession(b->session);
    if (b->importer) b->app.interop->ReleaseExternalResourceImporter(b->importer);
    vk_producer_destroy(b->producer);
    bare_vk_destroy(b->bare);
    free(b->model.bytes);
    ortapp_close(&b->app);
}

int main(int argc, char **argv)
{
    static bench b; /* large: results live in it */
    const char *ort_path = NULL, *ep_path = NULL;
    if (parse_args(argc, argv, &b.opt, &ort_path, &ep_path) != 0) return 2;
    if (b.opt.compare_model != NULL) return bench_model_compare(&b.opt, ort_path, ep_path);
    if (b.opt.ops != NULL) return bench_ops(&b.opt, ort_path, ep_path);
    int rc = setup(&b, ort_path, ep_path);
    int errors = 0;
    if (rc == 0) {
        b.failed[0] = bench_import(&b) != 0;
        b.failed[1] = bench_frames(&b) != 0;
        b.failed[2] = bench_semaphores(&b) != 0;
        errors = b.failed[0] + b.failed[1] + b.failed[2];
        if (b.opt.json) bench_report_json(&b);
        else bench_report_text(&b);
    }
    teardown(&b);
    unsigned messages = vk_producer_validation_messages() /* the bare import's too */;
    if (messages) fprintf(stderr, "ortvk-bench: the validation layer reported %u message(s) (see above)\n", messages);
    if (rc != 0) return 1;
    if (errors) fprintf(stderr, "ortvk-bench: %d benchmark(s) could not complete (see above)\n", errors);
    return errors || b.failures || messages ? 1 : 0;
}
