/* ortvk-demo, ortvk's main job end to end: a producer with its own VkDevice (a stand-in for a renderer or decoder)
 * renders text frames into exportable memory; ONNX Runtime, through ortvk, runs PP-OCRv4's text detector on that
 * memory where it lies and writes the probability map back into it. The application copies nothing to feed ORT. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ortapp.h"
#include "ortvk.h"
#include "png.h"
#include "vk_producer.h"

/* The producer gives up waiting for ORT after 600 s: on lavapipe the first frame compiles every shader at its first
 * dispatch — seconds where Mesa's shader cache holds them, a minute or more on a machine where it is cold (two
 * minutes and more when the machine is busy; docs/benchmarks.md, run R (jit)). */
#define WAIT_NS (600ull * 1000 * 1000 * 1000)
#define TEXT_THRESHOLD 0.3f                  /* PP-OCR's default binarisation threshold (det_db_thresh) */

static ortapp app; /* ONNX Runtime, loaded with dlopen: app.api is the OrtApi, app.interop the OrtInteropApi */

/* Ends the process at once: the other thread may be inside ONNX Runtime or Vulkan. */
static void die(void)
{
    fflush(stdout);
    fflush(stderr);
    _exit(1);
}

/* Every ORT call goes through this: on failure it names the function (not the whole C expression) and quotes
 * ORT's message. */
#define ORT_CHECK(call) ort_check((call), #call)
static void ort_check(OrtStatus *status, const char *call)
{
    if (status == NULL) return;
    const char *paren = strchr(call, '('), *name = call;
    if (paren == NULL) paren = call + strlen(call);
    for (const char *p = call; p + 1 < paren; p++)
        if (p[0] == '-' && p[1] == '>') name = p + 2; /* "app.api->Run(...)" -> "Run" */
    fprintf(stderr, "ortvk-demo: %.*s failed: %s (OrtErrorCode %d)\n", (int)(paren - name), name,
            app.api->GetErrorMessage(status), (int)app.api->GetErrorCode(status));
    die();
}

/* The producer's and the host timeline's calls return 0 (or an fd) or a negative errno; the producer also prints
 * the failing Vulkan call itself. */
#define ERRNO_CHECK(call) errno_check((call), #call)
static int errno_check(int result, const char *call)
{
    if (result >= 0) return result;
    fprintf(stderr, "ortvk-demo: %s failed: %s\n", call, strerror(-result));
    die();
    return result;
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* ---- command line ------------------------------------------------------------------------------------------ */

typedef struct options {
    int frames;
    uint32_t width, height;
    int device;
    const char *model, *out;
} options;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: ortvk-demo [--frames N] [--size WxH] [--device INDEX] [--model PATH] [--out DIR]\n"
            "  A second Vulkan device renders text frames; ONNX Runtime runs PP-OCRv4's text detector on them\n"
            "  through ortvk, in the producer's memory, ordered by an imported semaphore.\n"
            "  --frames N      frames to render and detect (default 8)\n"
            "  --size WxH      frame size, multiples of 32 (default 320x320)\n"
            "  --device INDEX  which ortvk EP device, as `ortvk-info` lists them (default 0, the most capable)\n"
            "  --model PATH    the detector (default %s;\n"
            "                  scripts/fetch-models.sh fetches it)\n"
            "  --out DIR       where input.png, map.png and overlay.png go (default %s)\n"
            "  ONNX Runtime: $ORTVK_ORT_LIBRARY or the fetched 1.30.0. ORTVK_VALIDATION=1: Vulkan validation.\n",
            ORTVK_DEMO_MODEL, ORTVK_DEMO_OUT);
}

static void bad_usage(const char *what, const char *value)
{
    fprintf(stderr, "ortvk-demo: %s%s%s\n", what, value ? ": " : "", value ? value : "");
    usage(stderr);
    exit(2);
}

/* A decimal integer in [min, max], the whole string. */
static long parse_long(const char *s, long min, long max, const char *flag)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < min || v > max) bad_usage(flag, s);
    return v;
}

static options parse_options(int argc, char **argv)
{
    options o = {.frames = 8, .width = 320, .height = 320, .device = 0, .model = ORTVK_DEMO_MODEL,
                 .out = ORTVK_DEMO_OUT};
    for (int i = 1; i < argc; i++) {
        const char *flag = argv[i];
        if (strcmp(flag, "--help") == 0 || strcmp(flag, "-h") == 0) {
            usage(stdout);
            exit(0);
        }
        if (strncmp(flag, "--", 2) != 0) bad_usage("unexpected argument", flag);
        if (i + 1 >= argc) bad_usage("missing value for", flag);
        const char *value = argv[++i];
        if (strcmp(flag, "--frames") == 0) {
            o.frames = (int)parse_long(value, 1, 100000, "--frames must be 1 to 100000");
        } else if (strcmp(flag, "--size") == 0) {
            unsigned w, h;
            char extra;
            if (sscanf(value, "%ux%u%c", &w, &h, &extra) != 2 || w == 0 || h == 0 || w % 32 || h % 32 ||
                w > 4096 || h > 4096)
                bad_usage("--size must be WxH, multiples of 32 up to 4096", value);
            o.width = w, o.height = h;
        } else if (strcmp(flag, "--device") == 0) {
            o.device = (int)parse_long(value, 0, 63, "--device must be an EP device index");
        } else if (strcmp(flag, "--model") == 0) {
            o.model = value;
        } else if (strcmp(flag, "--out") == 0) {
            o.out = value;
        } else {
            bad_usage("unknown flag", flag);
        }
    }
    return o;
}

/* mkdir -p, then a file created and removed in it: a folder the PNGs cannot go to fails before the first frame. */
static int make_dirs(const char *path)
{
    char buf[4096];
    if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf) - 32) return errno = ENAMETOOLONG, -1;
    for (char *p = buf + 1;; p++) {
        if (*p == '/' || *p == '\0') {
            char c = *p;
            *p = '\0';
            struct stat st;
            if (mkdir(buf, 0777) != 0 && (errno != EEXIST || stat(buf, &st) != 0)) return -1;
            if (errno == EEXIST && !S_ISDIR(st.st_mode)) return errno = ENOTDIR, -1;
            *p = c;
            if (c == '\0') break;
        }
    }
    strcat(buf, "/.ortvk-demo-write-test");
    FILE *f = fopen(buf, "wb");
    if (f == NULL) return -1;
    fclose(f);
    return unlink(buf);
}

/* ---- the producer thread ------------------------------------------------------------------------------------ */

/* Everything the producer thread owns while the frame loop runs. Frame k: it renders into the input region and
 * makes the shared semaphore reach 2k+1; ORT waits for that, runs, and makes it reach 2k+2 once the map is in the
 * output region; the producer waits for 2k+2 and consumes the map. */
typedef struct producer {
    vk_producer *vk;
    vk_producer_buffer *buffer;
    ortvk_host_timeline *host_timeline; /* NULL: ortvk imported the producer's own Vulkan timeline */
    uint32_t width, height;
    int frames;
    size_t output_offset;
    float *map;                /* the consumer's host copy of one probability map */
    double *latency_ms;        /* per frame: producer signal -> output ready */
    uint64_t bytes_read;       /* what the consumer copied out of device memory */
} producer;

static const char *const phrases[] = {"HELLO VULKAN", "ONNX RUNTIME", "NO HOST COPIES", "SHARED MEMORY",
                                      "TIMELINE 2K+1", "PP-OCR V4 DET", "GPU TO GPU", "OPAQUE FD"};

/* A triangle wave: 0 .. range .. 0 as t grows, so text glides back and forth. */
static int bounce(int t, int range)
{
    if (range <= 0) return 0;
    t %= 2 * range;
    return t < range ? t : 2 * range - t;
}

/* Three lines of text for frame k, placed so they move with the frame number. */
static void frame_text(const producer *p, int k, char frame_label[16], vk_producer_text_line lines[3])
{
    int w = (int)p->width, h = (int)p->height;
    uint32_t scale = p->width / 100 > 1 ? p->width / 100 : 1; /* strokes several pixels wide from 200 up */
    snprintf(frame_label, 16, "FRAME %04d", k % 10000);
    const char *texts[3] = {"ORTVK ZERO COPY", frame_label, phrases[k % (sizeof(phrases) / sizeof(phrases[0]))]};
    for (int l = 0; l < 3; l++) {
        int text_w = (int)(strlen(texts[l]) * 6 - 1) * (int)scale, text_h = 7 * (int)scale;
        lines[l] = (vk_producer_text_line){
            .x = 4 + bounce(k * (9 + 6 * l), w - 8 - text_w),
            .y = h * (2 * l + 1) / 6 - text_h / 2 + bounce(k * 3, h / 12) - h / 24,
            .scale = scale,
            .text = texts[l],
        };
    }
}

static void *produce(void *arg)
{
    producer *p = arg;
    size_t map_bytes = (size_t)p->width * p->height * sizeof(float);
    for (int k = 0; k < p->frames; k++) {
        uint64_t ready = 2 * (uint64_t)k + 1, done = 2 * (uint64_t)k + 2;
        char label[16];
        vk_producer_text_line lines[3];
        frame_text(p, k, label, lines);

        /* Render frame k with a compute pass; the GPU signals the producer's timeline to 2k+1 when done. */
        ERRNO_CHECK(vk_producer_draw_text(p->vk, p->buffer, 0, p->width, p->height, (uint32_t)k, lines, 3, ready));
        ERRNO_CHECK(vk_producer_timeline_wait(p->vk, ready, WAIT_NS));
        /* With a Vulkan timeline FD ortvk waits for 2k+1 on its own queue; no host is involved. With a host
         * timeline the producer forwards the value: its GPU work is complete, so signal ortvk's timeline. */
        if (p->host_timeline) ERRNO_CHECK(ortvk_host_timeline_signal(p->host_timeline, ready));
        double signalled = now_ms();

        /* Consume frame k's output once ORT says it is there. */
        int waited = p->host_timeline ? ortvk_host_timeline_wait(p->host_timeline, done, WAIT_NS)
                                      : vk_producer_timeline_wait(p->vk, done, WAIT_NS);
        if (waited != 0) {
            fprintf(stderr, "ortvk-demo: frame %d: waiting for semaphore value %llu failed: %s\n", k,
                    (unsigned long long)done, waited == -ETIMEDOUT ? "not reached within 120 s" : strerror(-waited));
            die();
        }
        p->latency_ms[k] = now_ms() - signalled;
        ERRNO_CHECK(vk_producer_buffer_read(p->buffer, p->output_offset, p->map, map_bytes));
        p->bytes_read += map_bytes;
        long text_pixels = 0;
        for (size_t i = 0; i < (size_t)p->width * p->height; i++) text_pixels += p->map[i] > TEXT_THRESHOLD;
        printf("frame %4d  latency %8.1f ms  text pixels %7ld (%4.1f%%)\n", k, p->latency_ms[k], text_pixels,
               100.0 * (double)text_pixels / ((double)p->width * p->height));
    }
    return NULL;
}

/* ---- small helpers ------------------------------------------------------------------------------------------ */

/* The name of the session's first input or output. */
static void session_io_name(OrtSession *session, bool input, char *out, size_t out_len)
{
    OrtAllocator *allocator;
    char *name;
    ORT_CHECK(app.api->GetAllocatorWithDefaultOptions(&allocator));
    if (input) ORT_CHECK(app.api->SessionGetInputName(session, 0, allocator, &name));
    else ORT_CHECK(app.api->SessionGetOutputName(session, 0, allocator, &name));
    snprintf(out, out_len, "%s", name);
    ORT_CHECK(app.api->AllocatorFree(allocator, name));
}

static int parse_uuid(const char *hex, uint8_t uuid[16])
{
    if (hex == NULL || strlen(hex) != 32) return -1;
    for (int i = 0; i < 16; i++)
        if (sscanf(hex + 2 * i, "%2hhx", &uuid[i]) != 1) return -1;
    return 0;
}

static const char *metadata(const OrtEpDevice *device, const char *key)
{
    const char *value = app.api->GetKeyValue(app.api->EpDevice_EpMetadata(device), key);
    return value ? value : "?";
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The q-quantile by nearest rank (q = 0.5: median, 0.99: p99). Sorts v. */
static double quantile(double *v, int n, double q)
{
    qsort(v, (size_t)n, sizeof(*v), compare_double);
    int rank = (int)(q * n + 0.999999);
    return v[rank < 1 ? 0 : rank - 1];
}

/* Binary units, as ortvk-bench prints them. */
static void print_bytes(const char *before, uint64_t bytes, const char *after)
{
    if (bytes < 1024) printf("%s%llu B%s", before, (unsigned long long)bytes, after);
    else if (bytes < 1024 * 1024) printf("%s%.1f KiB%s", before, (double)bytes / 1024, after);
    else printf("%s%.2f MiB%s", before, (double)bytes / (1024 * 1024), after);
}

static uint8_t to_byte(float v)
{
    v = v * 255.0f + 0.5f;
    return v <= 0.0f ? 0 : v >= 255.0f ? 255 : (uint8_t)v;
}

/* PNGs of one frame: the input denormalised to RGB, the probability map as grayscale, and the two blended. */
static void write_pngs(const char *dir, const float *input, const float *map, uint32_t w, uint32_t h)
{
    static const float mean[3] = {0.485f, 0.456f, 0.406f}, std[3] = {0.229f, 0.224f, 0.225f};
    size_t n = (size_t)w * h;
    uint8_t *rgb = malloc(3 * n), *gray = malloc(n), *overlay = malloc(3 * n);
    if (rgb == NULL || gray == NULL || overlay == NULL) {
        fprintf(stderr, "ortvk-demo: out of memory for the PNGs\n");
        die();
    }
    for (size_t i = 0; i < n; i++) {
        float p = map[i] < 0.0f ? 0.0f : map[i] > 1.0f ? 1.0f : map[i];
        gray[i] = to_byte(p);
        for (int c = 0; c < 3; c++) {
            float v = input[c * n + i] * std[c] + mean[c]; /* undo (pixel / 255 - mean) / std */
            rgb[3 * i + c] = to_byte(v);
            float red = c == 0 ? 1.0f : 0.0f;              /* the map, in red, over the frame */
            overlay[3 * i + c] = to_byte(v * (1.0f - 0.6f * p) + red * 0.6f * p);
        }
    }
    const struct { const char *name; const uint8_t *pixels; int channels; } files[] = {
        {"input.png", rgb, 3}, {"map.png", gray, 1}, {"overlay.png", overlay, 3}};
    for (size_t f = 0; f < 3; f++) {
        char path[4200];
        snprintf(path, sizeof(path), "%s/%s", dir, files[f].name);
        if (png_write(path, files[f].pixels, w, h, files[f].channels) != 0) {
            fprintf(stderr, "ortvk-demo: png_write(%s) failed: %s\n", path, strerror(errno));
            die();
        }
        printf("  %s\n", path);
    }
    free(rgb);
    free(gray);
    free(overlay);
}

/* ---- main --------------------------------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    options opt = parse_options(argc, argv);
    const uint32_t W = opt.width, H = opt.height;
    setvbuf(stdout, NULL, _IOLBF, 0); /* progress lines appear as they happen, even through a pipe */
    if (make_dirs(opt.out) != 0) {
        fprintf(stderr, "ortvk-demo: --out %s: cannot write there: %s\n", opt.out, strerror(errno));
        return 1;
    }

    /* 1. ONNX Runtime, with ortvk registered as a plugin EP, and the EP device to run on. */
    char error[512];
    if (ortapp_open(&app, NULL, ORT_LOGGING_LEVEL_WARNING, error, sizeof(error)) != 0) {
        fprintf(stderr, "ortvk-demo: %s\n", error);
        return 1;
    }
    ORT_CHECK(ortapp_register(&app, NULL));
    const OrtEpDevice *devices[64];
    size_t device_count = ortapp_devices(&app, devices, 64);
    if ((size_t)opt.device >= device_count) {
        fprintf(stderr, "ortvk-demo: --device %d: ortvk offers %zu EP device(s) (see ortvk-info)\n", opt.device,
                device_count);
        return 1;
    }
    const OrtEpDevice *device = devices[opt.device];
    printf("ONNX Runtime %s, ortvk EP device %d: %s (%s)\n", app.version, opt.device,
           metadata(device, ORTVK_META_DEVICE_NAME), metadata(device, ORTVK_META_DEVICE_TYPE));
    printf("ortvk plugin: %s\n", app.ep_library_path);
    /* ortvk refuses to load with ORTVK_VALIDATION=1 when the layer is missing: here it is on. */
    const char *validation = getenv("ORTVK_VALIDATION");
    if (validation != NULL && strcmp(validation, "1") == 0)
        printf("Vulkan validation layer: on (ORTVK_VALIDATION=1), in ortvk's instance\n");

    /* 2. The producer: its own VkDevice on the same GPU, found by deviceUUID (EP metadata). */
    uint8_t device_uuid[16], driver_uuid[16], producer_device_uuid[16], producer_driver_uuid[16];
    if (parse_uuid(metadata(device, ORTVK_META_DEVICE_UUID), device_uuid) != 0 ||
        parse_uuid(metadata(device, ORTVK_META_DRIVER_UUID), driver_uuid) != 0) {
        fprintf(stderr, "ortvk-demo: the EP device's metadata has no valid %s / %s\n", ORTVK_META_DEVICE_UUID,
                ORTVK_META_DRIVER_UUID);
        return 1;
    }
    producer prod = {.width = W, .height = H, .frames = opt.frames};
    ERRNO_CHECK(vk_producer_create_by_uuid(device_uuid, &prod.vk));
    vk_producer_uuids(prod.vk, producer_device_uuid, producer_driver_uuid);
    if (memcmp(producer_driver_uuid, driver_uuid, 16) != 0) {
        fprintf(stderr, "ortvk-demo: the producer's driver is not ortvk's (driverUUID differs): no memory sharing\n");
        return 1;
    }
    printf("producer: its own VkDevice on %s (same deviceUUID and driverUUID)\n", vk_producer_device_name(prod.vk));

    /* 3. The session: the detector, with ortvk appended. */
    if (access(opt.model, R_OK) != 0) {
        fprintf(stderr, "ortvk-demo: cannot read the model %s: %s (scripts/fetch-models.sh fetches it)\n",
                opt.model, strerror(errno));
        return 1;
    }
    OrtSessionOptions *session_options;
    OrtSession *session;
    ORT_CHECK(app.api->CreateSessionOptions(&session_options));
    ORT_CHECK(app.api->SessionOptionsAppendExecutionProvider_V2(session_options, app.env, &device, 1, NULL, NULL, 0));
    ORT_CHECK(app.api->CreateSession(app.env, opt.model, session_options, &session));
    char input_name[256], output_name[256];
    session_io_name(session, true, input_name, sizeof(input_name));
    session_io_name(session, false, output_name, sizeof(output_name));
    printf("model: %s (fed \"%s\" as [1,3,%u,%u], read \"%s\" as [1,1,%u,%u])\n", opt.model, input_name, H, W,
           output_name, H, W);

    /* 4. One exportable allocation holds the frame (input) and the probability map (output). Opaque FD imports
     * must use the exporter's memory type: allocate from the one ortvk imports into. */
    OrtExternalResourceImporter *importer;
    ORT_CHECK(app.interop->CreateExternalResourceImporterForDevice(device, &importer));
    if (importer == NULL) {
        fprintf(stderr, "ortvk-demo: this EP device offers no external resource importer\n");
        return 1;
    }
    bool can_import = false;
    ORT_CHECK(app.interop->CanImportMemory(importer, ORT_EXTERNAL_MEMORY_HANDLE_TYPE_MEMORY_OPAQUE_FD, &can_import));
    if (!can_import) {
        fprintf(stderr, "ortvk-demo: CanImportMemory(MEMORY_OPAQUE_FD) says no on this device (%s: %s)\n",
                ORTVK_META_MEMORY_IMPORT, metadata(device, ORTVK_META_MEMORY_IMPORT));
        return 1;
    }
    const size_t input_bytes = 3 * (size_t)W * H * sizeof(float), output_bytes = (size_t)W * H * sizeof(float);
    prod.output_offset = input_bytes;
    uint32_t memory_type = (uint32_t)strtoul(metadata(device, ORTVK_META_OPAQUE_FD_MEMORY_TYPE), NULL, 10);
    ERRNO_CHECK(vk_producer_buffer_create_in_type(prod.vk, input_bytes + output_bytes, memory_type, &prod.buffer));

    int memory_fd = ERRNO_CHECK(vk_producer_buffer_export_fd(prod.buffer));
    OrtExternalMemoryDescriptor memory_desc = {
        .version = app.api_version,
        .handle_type = ORT_EXTERNAL_MEMORY_HANDLE_TYPE_MEMORY_OPAQUE_FD,
        .native_handle = (void *)(intptr_t)memory_fd,
        .size_bytes = vk_producer_buffer_alloc_size(prod.buffer),
        .offset_bytes = 0,
    };
    OrtExternalMemoryHandle *memory;
    ORT_CHECK(app.interop->ImportMemory(importer, &memory_desc, &memory));
    close(memory_fd); /* ortvk imported a duplicate */

    /* Two tensor views of the one import: no copy, no allocation. */
    const int64_t input_shape[4] = {1, 3, H, W}, output_shape[4] = {1, 1, H, W};
    OrtExternalTensorDescriptor input_desc = {.version = app.api_version,
                                              .element_type = ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT,
                                              .shape = input_shape, .rank = 4, .offset_bytes = 0};
    OrtExternalTensorDescriptor output_desc = {.version = app.api_version,
                                               .element_type = ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT,
                                               .shape = output_shape, .rank = 4, .offset_bytes = input_bytes};
    OrtValue *input, *output;
    ORT_CHECK(app.interop->CreateTensorFromMemory(importer, memory, &input_desc, &input));
    ORT_CHECK(app.interop->CreateTensorFromMemory(importer, memory, &output_desc, &output));
    print_bytes("memory: one opaque FD import of ", memory_desc.size_bytes, "");
    printf(" (memory type %u); input view at byte 0, output view at byte %zu\n", memory_type, input_bytes);

    /* 5. The semaphore, imported once: the producer's own Vulkan timeline when both sides can share it as an FD,
     * else an ortvk host timeline that the producer signals from the CPU once its GPU work is done. */
    OrtExternalSemaphoreDescriptor semaphore_desc = {.version = app.api_version};
    bool can_vk_timeline = false;
    int timeline_fd = -ENOTSUP;
    ORT_CHECK(app.interop->CanImportSemaphore(importer, ORT_EXTERNAL_SEMAPHORE_VK_TIMELINE_SEMAPHORE_OPAQUE_FD,
                                              &can_vk_timeline));
    if (can_vk_timeline) timeline_fd = vk_producer_timeline_export_fd(prod.vk);
    if (timeline_fd >= 0) {
        semaphore_desc.type = ORT_EXTERNAL_SEMAPHORE_VK_TIMELINE_SEMAPHORE_OPAQUE_FD;
        semaphore_desc.native_handle = (void *)(intptr_t)timeline_fd;
        printf("semaphore: the producer's own Vulkan timeline, exported as an opaque FD;\n"
               "           ortvk waits for it and signals it on the GPU, no host thread involved\n");
    } else {
        ERRNO_CHECK(ortvk_host_timeline_create(0, &prod.host_timeline));
        semaphore_desc.type = (OrtExternalSemaphoreType)ORTVK_EXTERNAL_SEMAPHORE_HOST_TIMELINE;
        semaphore_desc.native_handle = (void *)(intptr_t)ortvk_host_timeline_fd(prod.host_timeline);
        printf("semaphore: an ortvk host timeline, because %s;\n"
               "           the producer host-waits its own timeline after each frame, then signals the host timeline\n",
               !can_vk_timeline ? "CanImportSemaphore(VK_TIMELINE_SEMAPHORE_OPAQUE_FD) says no for this device"
                                : "the producer's driver cannot export its timeline semaphore as an FD");
    }
    OrtExternalSemaphoreHandle *semaphore;
    ORT_CHECK(app.interop->ImportSemaphore(importer, &semaphore_desc, &semaphore));
    if (timeline_fd >= 0) close(timeline_fd); /* ortvk imported a duplicate */

    /* 6. A stream of the EP device: waits and signals are queued on it and never block this thread. Its native
     * handle describes the device, including the counters of ortvk's data transfer. Run gets the stream when
     * ortvk runs the node that reads the input (ORT 1.24.3 and 1.30.0 crash when handed a stream of a device the
     * session runs nothing on); with "disable_synchronize_execution_providers" Run then returns without waiting
     * for the device. Either way ortvk orders the run after WaitSemaphore and SignalSemaphore after the run. */
    OrtSyncStream *stream;
    ORT_CHECK(app.api->CreateSyncStreamForEpDevice(device, NULL, &stream));
    const OrtEpDevice *input_device = NULL;
    ORT_CHECK(app.api->SessionGetEpDeviceForInputs(session, &input_device, 1));
    bool ortvk_runs_input = input_device == device;
    OrtRunOptions *run_options;
    ORT_CHECK(app.api->CreateRunOptions(&run_options));
    if (ortvk_runs_input) {
        app.api->RunOptionsSetSyncStream(run_options, stream);
        ORT_CHECK(app.api->AddRunConfigEntry(run_options, "disable_synchronize_execution_providers", "1"));
    }
    printf("run: %s\n", ortvk_runs_input ? "the model's input node runs on ortvk; Run gets the stream and returns "
                                             "without waiting for the device"
                                           : "the model's input node runs on ORT's CPU EP; Run keeps the stream out");
    const ortvk_stream_info *info = app.api->SyncStream_GetHandle(stream);
    if (info == NULL || info->version != ORTVK_STREAM_INFO_VERSION || info->transfer_stats == NULL) {
        fprintf(stderr, "ortvk-demo: SyncStream_GetHandle gave no ortvk_stream_info version %d\n",
                ORTVK_STREAM_INFO_VERSION);
        return 1;
    }

    /* 7. The frame loop. This thread only queues: wait for 2k+1, run, signal 2k+2. */
    prod.map = malloc(output_bytes);
    prod.latency_ms = calloc((size_t)opt.frames, sizeof(double));
    double *wall_ms = calloc((size_t)opt.frames, sizeof(double));
    if (prod.map == NULL || prod.latency_ms == NULL || wall_ms == NULL) {
        fprintf(stderr, "ortvk-demo: out of memory\n");
        return 1;
    }
    printf("\n%d frames of %ux%u:\n", opt.frames, W, H);
    /* lavapipe builds a shader's machine code at its first dispatch: say why frame 0 takes long. */
    if (strcmp(metadata(device, ORTVK_META_DEVICE_TYPE), "cpu") == 0)
        printf("(frame 0 builds the shaders on this CPU device: 1-2 s with a warm Mesa shader cache, 20-60 s\n"
               " with an empty one, as on a new machine; Mesa keeps them in ~/.cache/mesa_shader_cache)\n");
    uint64_t copies_before = __atomic_load_n(&info->transfer_stats->copies, __ATOMIC_ACQUIRE);
    uint64_t bytes_before = __atomic_load_n(&info->transfer_stats->bytes, __ATOMIC_ACQUIRE);
    pthread_t thread;
    if (pthread_create(&thread, NULL, produce, &prod) != 0) {
        fprintf(stderr, "ortvk-demo: pthread_create failed\n");
        return 1;
    }
    const char *input_names[] = {input_name}, *output_names[] = {output_name};
    for (int k = 0; k < opt.frames; k++) {
        double start = now_ms();
        ORT_CHECK(app.interop->WaitSemaphore(importer, semaphore, stream, 2 * (uint64_t)k + 1));
        OrtStatus *status = app.api->Run(session, run_options, input_names, (const OrtValue *const *)&input, 1,
                                         output_names, 1, &output);
        if (status != NULL) {
            fprintf(stderr, "ortvk-demo: Run failed on frame %d: %s (OrtErrorCode %d)\n", k,
                    app.api->GetErrorMessage(status), (int)app.api->GetErrorCode(status));
            if (app.api->GetErrorCode(status) == ORT_INVALID_ARGUMENT)
                fprintf(stderr, "ortvk-demo: --model %s: the demo needs a text detector like PP-OCRv4's, with one "
                                "float input [1,3,H,W] and one float output [1,1,H,W]\n", opt.model);
            die();
        }
        ORT_CHECK(app.interop->SignalSemaphore(importer, semaphore, stream, 2 * (uint64_t)k + 2));
        wall_ms[k] = now_ms() - start;
    }
    pthread_join(thread, NULL);
    uint64_t copies = __atomic_load_n(&info->transfer_stats->copies, __ATOMIC_ACQUIRE) - copies_before;
    uint64_t bytes = __atomic_load_n(&info->transfer_stats->bytes, __ATOMIC_ACQUIRE) - bytes_before;

    /* 8. The summary. */
    printf("\nsummary\n");
    printf("  frames                 %d of %ux%u\n", opt.frames, W, H);
    double lat_median = quantile(prod.latency_ms, opt.frames, 0.5),
           lat_p99 = quantile(prod.latency_ms, opt.frames, 0.99);
    double wall_median = quantile(wall_ms, opt.frames, 0.5), wall_p99 = quantile(wall_ms, opt.frames, 0.99);
    printf("  latency                median %.1f ms, p99 %.1f ms (producer signal -> output ready)\n", lat_median,
           lat_p99);
    printf("  app time per frame     median %.1f ms, p99 %.1f ms (WaitSemaphore + Run + SignalSemaphore)\n",
           wall_median, wall_p99);
    printf("  app copies             0 B host -> device (the producer renders each frame into the imported memory)\n");
    print_bytes("                         ", prod.bytes_read,
                " device -> host (the consumer reads each map to count text pixels)\n");
    print_bytes("  ortvk data transfer    ", bytes, "");
    printf(" in %llu copies during the loop", (unsigned long long)copies);
    print_bytes(" (", copies ? bytes / (uint64_t)opt.frames : 0, " per frame)\n");
    if (bytes != 0)
        printf("                         (ORT runs some of the model's nodes on its CPU EP on this device, and moves "
               "their inputs and outputs through ortvk)\n");

    /* 9. Pictures of the last frame: read after the loop, outside the frame path. */
    float *frame = malloc(input_bytes);
    if (frame == NULL) {
        fprintf(stderr, "ortvk-demo: out of memory\n");
        return 1;
    }
    ERRNO_CHECK(vk_producer_buffer_read(prod.buffer, 0, frame, input_bytes));
    ERRNO_CHECK(vk_producer_buffer_read(prod.buffer, prod.output_offset, prod.map, output_bytes));
    printf("\nframe %d and its text probability map:\n", opt.frames - 1);
    write_pngs(opt.out, frame, prod.map, W, H);
    free(frame);

    /* 10. Release in dependency order: tensors, handles, stream, importer, session; then the producer's memory,
     * which must outlive the tensors that view it. */
    app.api->ReleaseValue(input);
    app.api->ReleaseValue(output);
    app.interop->ReleaseExternalMemoryHandle(memory);
    app.interop->ReleaseExternalSemaphoreHandle(semaphore);
    app.api->ReleaseRunOptions(run_options);
    app.api->ReleaseSyncStream(stream);
    app.interop->ReleaseExternalResourceImporter(importer);
    app.api->ReleaseSession(session);
    app.api->ReleaseSessionOptions(session_options);
    vk_producer_buffer_destroy(prod.buffer);
    vk_producer_destroy(prod.vk);
    if (prod.host_timeline) ortvk_host_timeline_close(prod.host_timeline);
    free(prod.map);
    free(prod.latency_ms);
    free(wall_ms);
    ortapp_close(&app);
    return 0;
}
