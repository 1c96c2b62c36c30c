/* ortvk-bench 2: the frame path. A producer thread (the application's renderer/decoder: its own Vulkan device)
 * fills frame k with a compute pass and signals its timeline; the application's thread turns it into model output
 * that lands back in the producer's memory. Two ways, same model, same sizes, same producer:
 *
 *   zero-copy  import the producer's allocation once (input view at 0, output view after it); per frame
 *              WaitSemaphore(ready) -> Run(input view -> output view) -> SignalSemaphore(done) on an ortvk stream.
 *              The semaphore is the producer's Vulkan timeline, imported as an FD, where the driver exports one;
 *              otherwise an ortvk host timeline the producer thread signals when its fill completes.
 *   today      CPU fence wait on the producer's timeline -> read the frame back into a host buffer -> Run on host
 *              tensors -> write the output back into the producer's memory (the call returns when it is there) ->
 *              tell the producer (a host timeline signal).
 *
 * One frame in flight at a time, so latency is latency: the producer submits frame k+1 only once it has seen frame
 * k's output. Measured per frame:
 *   latency    from the first CPU observation of the fill's completion (the producer thread's host wait on its
 *              timeline; in the today path also the application's fence wait, whichever returns first) to the
 *              moment the producer thread sees "output done" (its timeline or the host timeline reaching the
 *              done value);
 *   app CPU    CPU time of the application's thread for the frame (CLOCK_THREAD_CPUTIME_ID; ORT runs with
 *              --threads intra-op threads, 1 by default, so the model's compute is on this thread too);
 *   app wall   the application thread's wall time from "frame submitted" to the end of its frame work;
 *   bytes      copied by the application (known from what it does) and moved by ortvk's data transfer (its
 *              counters, read through the stream's ortvk_stream_info before and after the measured frames). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

enum { PATH_ZERO = 0, PATH_TODAY = 1 };

typedef struct frame_ctx {
    bench *b;
    int path;
    bool vk_semaphore; /* zero-copy over the producer's Vulkan timeline */
    vk_producer_buffer *buffer;
    uint32_t count; /* input floats */
    const int64_t *input_shape, *output_shape;
    size_t output_rank, input_bytes, output_bytes, output_offset;
    ortvk_host_timeline *timeline;
    uint64_t vk_base; /* the producer's timeline before frame 0 */
    int total, warmup;

    pthread_mutex_t lock;
    pthread_cond_t cond;
    int submitted;        /* frames the producer has submitted */
    bool producer_failed; /* the producer thread gave up */
    double *ready_at;     /* per frame: when the producer thread saw its fill complete (µs) */
    double *app_ready_at; /* today: when the application's fence wait returned (µs) */
    double *done_at;      /* when the producer thread saw the output done (µs) */
} frame_ctx;

static float frame_base(int k)
{
    return -1.0f - 0.125f * (float)(k % 8);
}

static float frame_scale(uint32_t count)
{
    return 2.0f / (float)count;
}

static uint64_t vk_ready(const frame_ctx *c, int k)
{
    return c->vk_base + 2 * (uint64_t)k + 1;
}

static void post(frame_ctx *c, int submitted, bool failed)
{
    pthread_mutex_lock(&c->lock);
    c->submitted = submitted;
    c->producer_failed = c->producer_failed || failed;
    pthread_cond_broadcast(&c->cond);
    pthread_mutex_unlock(&c->lock);
}

/* Waits until frame k is submitted; false when the producer failed first. */
static bool wait_submitted(frame_ctx *c, int k)
{
    pthread_mutex_lock(&c->lock);
    while (c->submitted <= k && !c->producer_failed) pthread_cond_wait(&c->cond, &c->lock);
    bool ok = c->submitted > k;
    pthread_mutex_unlock(&c->lock);
    return ok;
}

static void *producer_main(void *arg)
{
    frame_ctx *c = arg;
    vk_producer *p = c->b->producer;
    for (int k = 0; k < c->total; k++) {
        uint64_t ready = vk_ready(c, k), done = ready + 1;
        /* Zero-copy over the Vulkan timeline: the GPU also waits for the previous frame's done value (already
         * reached here; this is how a real producer would order its next write after ortvk's read). */
        uint64_t gate = c->path == PATH_ZERO && c->vk_semaphore && k > 0 ? ready - 1 : 0;
        int rc = vk_producer_fill_after(p, c->buffer, 0, c->count, frame_base(k), frame_scale(c->count), gate, ready);
        if (rc != 0) {
            fprintf(stderr, "ortvk-bench: producer: vk_producer_fill_after(frame %d) failed: %s\n", k, strerror(-rc));
            break;
        }
        post(c, k + 1, false);
        rc = vk_producer_timeline_wait(p, ready, BENCH_WAIT_NS);
        if (rc != 0) {
            fprintf(stderr, "ortvk-bench: producer: vk_producer_timeline_wait(%llu) failed: %s\n",
                    (unsigned long long)ready, strerror(-rc));
            break;
        }
        c->ready_at[k] = bench_now_us();
        if (c->path == PATH_ZERO && !c->vk_semaphore) {
            rc = ortvk_host_timeline_signal(c->timeline, 2 * (uint64_t)k + 1);
            if (rc != 0) {
                fprintf(stderr, "ortvk-bench: producer: ortvk_host_timeline_signal(%llu) failed: %s\n",
                        (unsigned long long)(2 * (uint64_t)k + 1), strerror(-rc));
                break;
            }
        }
        if (c->path == PATH_ZERO && c->vk_semaphore) rc = vk_producer_timeline_wait(p, done, BENCH_WAIT_NS);
        else rc = ortvk_host_timeline_wait(c->timeline, 2 * (uint64_t)k + 2, BENCH_WAIT_NS);
        if (rc != 0) {
            fprintf(stderr, "ortvk-bench: producer: waiting for frame %d's output failed: %s\n", k, strerror(-rc));
            break;
        }
        c->done_at[k] = bench_now_us();
        if (k + 1 == c->total) return NULL;
    }
    post(c, c->submitted, true);
    return NULL;
}

static const ortvk_transfer_stats *transfer_stats(bench *b, OrtSyncStream *stream)
{
    const ortvk_stream_info *info = b->app.api->SyncStream_GetHandle(stream);
    if (info == NULL || info->version != ORTVK_STREAM_INFO_VERSION) {
        fprintf(stderr, "ortvk-bench: SyncStream_GetHandle gave no ortvk_stream_info (version %u)\n",
                info ? info->version : 0);
        return NULL;
    }
    return info->transfer_stats;
}

/* The zero-copy path's resources. */
typedef struct zero_io {
    OrtExternalMemoryHandle *memory;
    OrtExternalSemaphoreHandle *semaphore;
    OrtValue *input, *output;
} zero_io;

static int zero_setup(frame_ctx *c, zero_io *z)
{
    bench *b = c->b;
    const OrtInteropApi *interop = b->app.interop;
    int fd = vk_producer_buffer_export_fd(c->buffer);
    if (fd < 0) {
        fprintf(stderr, "ortvk-bench: vk_producer_buffer_export_fd failed: %s\n", strerror(-fd));
        return -1;
    }
    OrtExternalMemoryDescriptor md = {.version = b->app.api_version,
                                      .handle_type = ORT_EXTERNAL_MEMORY_HANDLE_TYPE_MEMORY_OPAQUE_FD,
                                      .native_handle = (void *)(intptr_t)fd,
                                      .size_bytes = vk_producer_buffer_alloc_size(c->buffer)};
    bool failed = BENCH_ORT(b, interop->ImportMemory(b->importer, &md, &z->memory));
    close(fd);
    if (failed) return -1;
    OrtExternalTensorDescriptor td = {.version = b->app.api_version,
                                      .element_type = ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT,
                                      .shape = c->input_shape,
                                      .rank = 4};
    if (BENCH_ORT(b, interop->CreateTensorFromMemory(b->importer, z->memory, &td, &z->input))) return -1;
    td.shape = c->output_shape;
    td.rank = c->output_rank;
    td.offset_bytes = c->output_offset;
    if (BENCH_ORT(b, interop->CreateTensorFromMemory(b->importer, z->memory, &td, &z->output))) return -1;

    OrtExternalSemaphoreDescriptor sd = {.version = b->app.api_version};
    int semaphore_fd = -1;
    if (c->vk_semaphore) {
        semaphore_fd = vk_producer_timeline_export_fd(b->producer);
        if (semaphore_fd < 0) {
            fprintf(stderr, "ortvk-bench: vk_producer_timeline_export_fd failed: %s\n", strerror(-semaphore_fd));
            return -1;
        }
        sd.type = ORT_EXTERNAL_SEMAPHORE_VK_TIMELINE_SEMAPHORE_OPAQUE_FD;
        sd.native_handle = (void *)(intptr_t)semaphore_fd;
    } else {
        sd.type = (OrtExternalSemaphoreType)ORTVK_EXTERNAL_SEMAPHORE_HOST_TIMELINE;
        sd.native_handle = (void *)(intptr_t)ortvk_host_timeline_fd(c->timeline);
    }
    failed = BENCH_ORT(b, interop->ImportSemaphore(b->importer, &sd, &z->semaphore));
    if (semaphore_fd >= 0) close(semaphore_fd);
    return failed ? -1 : 0;
}

static void zero_release(bench *b, zero_io *z)
{
    b->app.api->ReleaseValue(z->input);
    b->app.api->ReleaseValue(z->output);
    if (z->memory) b->app.interop->ReleaseExternalMemoryHandle(z->memory);
    if (z->semaphore) b->app.interop->ReleaseExternalSemaphoreHandle(z->semaphore);
}

/* The application thread's side of one frame. */
static int zero_frame(frame_ctx *c, zero_io *z, OrtSyncStream *stream, const OrtRunOptions *run_options, int k)
{
    bench *b = c->b;
    uint64_t ready = c->vk_semaphore ? vk_ready(c, k) : 2 * (uint64_t)k + 1;
    const char *in_name = b->model.input_name, *out_name = b->model.output_name;
    if (BENCH_ORT(b, b->app.interop->WaitSemaphore(b->importer, z->semaphore, stream, ready))) return -1;
    if (BENCH_ORT(b, b->app.api->Run(b->session, run_options, &in_name, (const OrtValue *const *)&z->input, 1,
                                     &out_name, 1, &z->output)))
        return -1;
    if (BENCH_ORT(b, b->app.interop->SignalSemaphore(b->importer, z->semaphore, stream, ready + 1))) return -1;
    return 0;
}

static int today_frame(frame_ctx *c, float *host_in, float *host_out, OrtValue *in, OrtValue *out, int k)
{
    bench *b = c->b;
    const char *in_name = b->model.input_name, *out_name = b->model.output_name;
    int rc = vk_producer_timeline_wait(b->producer, vk_ready(c, k), BENCH_WAIT_NS);
    if (rc != 0) {
        fprintf(stderr, "ortvk-bench: vk_producer_timeline_wait (the application's fence wait) failed: %s\n",
                strerror(-rc));
        return -1;
    }
    c->app_ready_at[k] = bench_now_us();
    rc = vk_producer_buffer_read(c->buffer, 0, host_in, c->input_bytes);
    if (rc != 0) {
        fprintf(stderr, "ortvk-bench: vk_producer_buffer_read failed: %s\n", strerror(-rc));
        return -1;
    }
    if (BENCH_ORT(b, b->app.api->Run(b->session, NULL, &in_name, (const OrtValue *const *)&in, 1, &out_name, 1,
                                     &out)))
        return -1;
    rc = vk_producer_buffer_write(c->buffer, c->output_offset, host_out, c->output_bytes);
    if (rc != 0) {
        fprintf(stderr, "ortvk-bench: vk_producer_buffer_write failed: %s\n", strerror(-rc));
        return -1;
    }
    rc = ortvk_host_timeline_signal(c->timeline, 2 * (uint64_t)k + 2);
    if (rc != 0) {
        fprintf(stderr, "ortvk-bench: ortvk_host_timeline_signal failed: %s\n", strerror(-rc));
        return -1;
    }
    return 0;
}

static OrtValue *host_tensor(bench *b, float *data, size_t bytes, const int64_t *shape, size_t rank)
{
    OrtMemoryInfo *info = NULL;
    OrtValue *value = NULL;
    if (BENCH_ORT(b, b->app.api->CreateCpuMemoryInfo(OrtDeviceAllocator, OrtMemTypeDefault, &info))) return NULL;
    BENCH_ORT(b, b->app.api->CreateTensorWithDataAsOrtValue(info, data, bytes, shape, rank,
                                                            ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &value));
    b->app.api->ReleaseMemoryInfo(info);
    return value;
}

/* Elements of the output that differ from the reference (NULL: Relu of the last frame's input); -1 on error. */
static long verify(frame_ctx *c, const float *reference, float *scratch)
{
    int rc = vk_producer_buffer_read(c->buffer, c->output_offset, scratch, c->output_bytes);
    if (rc != 0) {
        fprintf(stderr, "ortvk-bench: vk_producer_buffer_read (verification) failed: %s\n", strerror(-rc));
        return -1;
    }
    size_t n = c->output_bytes / sizeof(float);
    long wrong = 0;
    int k = c->total - 1;
    float base = frame_base(k), scale = frame_scale(c->count);
    for (size_t i = 0; i < n; i++) {
        float want;
        if (reference) want = reference[i];
        else {
            float x = base + scale * (float)i;
            want = x > 0.0f ? x : 0.0f;
        }
        float d = scratch[i] - want, tolerance = 1e-5f * (want < 0 ? -want : want) + 1e-6f;
        wrong += !(d <= tolerance && -d <= tolerance);
    }
    return wrong;
}

/* Runs one path at one size; fills the path's half of `r`. */
static int run_path(bench *b, frame_ctx *c, frame_result *r, float *reference, float *scratch)
{
    int n = b->opt.frames;
    c->warmup = b->opt.warmup_frames;
    c->total = c->warmup + n;
    c->vk_base = b->producer_value;
    b->producer_value += 2 * (uint64_t)c->total;
    c->submitted = 0;
    c->producer_failed = false;
    double *times = calloc(3 * (size_t)c->total, sizeof(double));
    double *latency = calloc((size_t)n, sizeof(double));
    double *cpu = calloc((size_t)n, sizeof(double)), *wall = calloc((size_t)n, sizeof(double));
    float *host_in = NULL, *host_out = NULL;
    OrtValue *in = NULL, *out = NULL;
    zero_io z = {0};
    OrtSyncStream *stream = NULL;
    OrtRunOptions *run_options = NULL;
    c->ready_at = times;
    c->app_ready_at = times ? times + c->total : NULL;
    c->done_at = times ? times + 2 * c->total : NULL;
    int rc = times && latency && cpu && wall ? 0 : -1;
    if (rc == 0 && ortvk_host_timeline_create(0, &c->timeline) != 0) {
        fprintf(stderr, "ortvk-bench: ortvk_host_timeline_create failed\n");
        rc = -1;
    }
    if (rc == 0 && BENCH_ORT(b, b->app.api->CreateSyncStreamForEpDevice(b->device, NULL, &stream))) rc = -1;
    const ortvk_transfer_stats *stats = rc == 0 ? transfer_stats(b, stream) : NULL;
    if (stats == NULL) rc = -1;
    if (rc == 0 && c->path == PATH_ZERO) rc = zero_setup(c, &z);
    /* ORT 1.24.3 and 1.30.0 crash in Run when the run options carry a stream and the session has none of that
     * device (every node on the CPU EP): the stream goes in only when ortvk runs the input's consumer. Without
     * it ortvk still orders Run's copies after every stream's queued work (docs/interop.md). */
    if (rc == 0 && c->path == PATH_ZERO && b->ortvk_consumes_input) {
        if (BENCH_ORT(b, b->app.api->CreateRunOptions(&run_options))) rc = -1;
        else b->app.api->RunOptionsSetSyncStream(run_options, stream);
    }
    if (rc == 0 && c->path == PATH_TODAY) {
        host_in = aligned_alloc(64, (c->input_bytes + 63) / 64 * 64);
        host_out = aligned_alloc(64, (c->output_bytes + 63) / 64 * 64);
        if (host_in && host_out) {
            in = host_tensor(b, host_in, c->input_bytes, c->input_shape, 4);
            out = host_tensor(b, host_out, c->output_bytes, c->output_shape, c->output_rank);
        }
        if (!in || !out) rc = -1;
    }
    if (rc != 0) goto out;

    pthread_t thread;
    if (pthread_create(&thread, NULL, producer_main, c) != 0) {
        fprintf(stderr, "ortvk-bench: pthread_create failed\n");
        rc = -1;
        goto out;
    }
    uint64_t bytes0 = 0, copies0 = 0;
    for (int k = 0; k < c->total; k++) {
        if (!wait_submitted(c, k)) {
            rc = -1;
            break;
        }
        if (k == c->warmup) {
            bytes0 = __atomic_load_n(&stats->bytes, __ATOMIC_ACQUIRE);
            copies0 = __atomic_load_n(&stats->copies, __ATOMIC_ACQUIRE);
        }
        double t0 = bench_now_us(), c0 = bench_thread_cpu_us();
        rc = c->path == PATH_ZERO ? zero_frame(c, &z, stream, run_options, k)
                                  : today_frame(c, host_in, host_out, in, out, k);
        double t1 = bench_now_us(), c1 = bench_thread_cpu_us();
        if (rc != 0) break;
        if (k >= c->warmup) {
            wall[k - c->warmup] = t1 - t0;
            cpu[k - c->warmup] = c1 - c0;
        }
    }
    pthread_join(thread, NULL);
    if (rc == 0 && c->producer_failed) rc = -1;
    if (rc != 0) goto out;
    uint64_t bytes1 = __atomic_load_n(&stats->bytes, __ATOMIC_ACQUIRE);
    uint64_t copies1 = __atomic_load_n(&stats->copies, __ATOMIC_ACQUIRE);

    /* From the first CPU observation of the fill's completion: on two cores whichever of the producer thread and
     * the application's fence wait wakes first may run for a while before the other is scheduled. */
    for (int j = 0; j < n; j++) {
        int k = c->warmup + j;
        double ready = c->ready_at[k];
        if (c->app_ready_at[k] > 0 && c->app_ready_at[k] < ready) ready = c->app_ready_at[k];
        latency[j] = c->done_at[k] - ready;
    }
    int p = c->path;
    r->latency[p] = bench_stat_of(latency, (size_t)n);
    r->app_cpu[p] = bench_stat_of(cpu, (size_t)n);
    r->app_wall[p] = bench_stat_of(wall, (size_t)n);
    r->app_bytes[p] = p == PATH_TODAY ? (double)(c->input_bytes + c->output_bytes) : 0.0;
    r->ortvk_bytes[p] = (double)(bytes1 - bytes0) / n;
    r->ortvk_copies[p] = (double)(copies1 - copies0) / n;
    /* The today path's last output is the reference a zero-copy run of an external model is checked against. */
    if (p == PATH_TODAY && reference != NULL && !b->model.builtin) memcpy(reference, host_out, c->output_bytes);
    long wrong = verify(c, b->model.builtin ? NULL : reference, scratch);
    r->verified[p] = wrong == 0;
    if (wrong != 0) {
        fprintf(stderr, "ortvk-bench: %s, %s: the last frame's output in the producer's memory is WRONG (%ld of %zu "
                "elements)\n", r->size, p == PATH_ZERO ? "zero-copy" : "today", wrong, c->output_bytes / 4);
        b->failures++;
    }
out:
    zero_release(b, &z);
    b->app.api->ReleaseValue(in);
    b->app.api->ReleaseValue(out);
    free(host_in);
    free(host_out);
    if (run_options) b->app.api->ReleaseRunOptions(run_options);
    if (stream) b->app.api->ReleaseSyncStream(stream);
    ortvk_host_timeline_close(c->timeline);
    c->timeline = NULL;
    free(times);
    free(latency);
    free(cpu);
    free(wall);
    return rc;
}

/* The output's shape for an input of `input_shape`: one Run on a host tensor of zeros. */
static int output_shape(bench *b, const int64_t input_shape[4], int64_t *shape, size_t *rank)
{
    size_t count = (size_t)(input_shape[1] * input_shape[2] * input_shape[3]);
    float *zeros = calloc(count, sizeof(float));
    OrtValue *in = zeros ? host_tensor(b, zeros, count * sizeof(float), input_shape, 4) : NULL, *out = NULL;
    const char *in_name = b->model.input_name, *out_name = b->model.output_name;
    OrtTensorTypeAndShapeInfo *info = NULL;
    ONNXTensorElementDataType type = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
    int rc = in ? 0 : -1;
    if (rc == 0 && BENCH_ORT(b, b->app.api->Run(b->session, NULL, &in_name, (const OrtValue *const *)&in, 1,
                                                &out_name, 1, &out)))
        rc = -1;
    if (rc == 0 && BENCH_ORT(b, b->app.api->GetTensorTypeAndShape(out, &info))) rc = -1;
    if (rc == 0 && (BENCH_ORT(b, b->app.api->GetTensorElementType(info, &type)) ||
                    BENCH_ORT(b, b->app.api->GetDimensionsCount(info, rank))))
        rc = -1;
    if (rc == 0 && (type != ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT || *rank > 8)) {
        fprintf(stderr, "ortvk-bench: output %s is not a float tensor of rank <= 8 (type %d, rank %zu)\n", out_name,
                (int)type, *rank);
        rc = -1;
    }
    if (rc == 0 && BENCH_ORT(b, b->app.api->GetDimensions(info, shape, *rank))) rc = -1;
    if (info) b->app.api->ReleaseTensorTypeAndShapeInfo(info);
    b->app.api->ReleaseValue(in);
    b->app.api->ReleaseValue(out);
    free(zeros);
    return rc;
}

int bench_frames(bench *b)
{
    bool can_fd = false, can_vk = false;
    if (BENCH_ORT(b, b->app.interop->CanImportMemory(b->importer, ORT_EXTERNAL_MEMORY_HANDLE_TYPE_MEMORY_OPAQUE_FD,
                                                     &can_fd)) ||
        BENCH_ORT(b, b->app.interop->CanImportSemaphore(
                         b->importer, ORT_EXTERNAL_SEMAPHORE_VK_TIMELINE_SEMAPHORE_OPAQUE_FD, &can_vk)))
        return -1;
    if (!can_fd) {
        fprintf(stderr, "ortvk-bench: the frame path needs opaque FD memory import, which %s lacks\n", b->device_name);
        return -1;
    }
    int probe = can_vk && !b->opt.host_timeline ? vk_producer_timeline_export_fd(b->producer) : -1;
    bool vk_semaphore = probe >= 0;
    if (probe >= 0) close(probe);

    for (int s = 0; s < b->opt.size_count; s++) {
        const bench_size *size = &b->opt.sizes[s];
        frame_result *r = &b->frames[b->frame_count];
        memset(r, 0, sizeof(*r));
        snprintf(r->size, sizeof(r->size), "%dx%d", size->width, size->height);
        snprintf(r->semaphore, sizeof(r->semaphore), "%s", vk_semaphore ? "Vulkan timeline FD" : "host timeline");
        int64_t input_shape[4] = {1, 3, size->height, size->width}, out_shape[8];
        size_t out_rank = 0;
        if (output_shape(b, input_shape, out_shape, &out_rank) != 0) return -1;
        size_t out_count = 1;
        for (size_t i = 0; i < out_rank; i++) out_count *= (size_t)out_shape[i];
        frame_ctx c = {
            .b = b,
            .vk_semaphore = vk_semaphore,
            .count = (uint32_t)(3 * size->width * size->height),
            .input_shape = input_shape,
            .output_shape = out_shape,
            .output_rank = out_rank,
            .input_bytes = (size_t)3 * (size_t)size->width * (size_t)size->height * sizeof(float),
            .output_bytes = out_count * sizeof(float),
        };
        c.output_offset = (c.input_bytes + 65535) / 65536 * 65536;
        r->input_bytes = c.input_bytes;
        r->output_bytes = c.output_bytes;
        int rc = vk_producer_buffer_create_in_type(b->producer, c.output_offset + c.output_bytes,
                                                   b->opaque_fd_memory_type, &c.buffer);
        if (rc != 0) {
            fprintf(stderr, "ortvk-bench: vk_producer_buffer_create_in_type(%zu bytes, memory type %u) failed: %s\n",
                    c.output_offset + c.output_bytes, b->opaque_fd_memory_type, strerror(-rc));
            return -1;
        }
        float *reference = malloc(c.output_bytes), *scratch = malloc(c.output_bytes);
        pthread_mutex_init(&c.lock, NULL);
        pthread_cond_init(&c.cond, NULL);
        rc = reference && scratch ? 0 : -1;
        /* today first: its output is the reference for an external model */
        for (int p = PATH_TODAY; p >= PATH_ZERO && rc == 0; p--) {
            bench_progress(b, "frame path, %s, %s: %d frames (+%d warm-up)", r->size,
                           p == PATH_ZERO ? "zero-copy" : "today", b->opt.frames, b->opt.warmup_frames);
            c.path = p;
            rc = run_path(b, &c, r, reference, scratch);
        }
        pthread_mutex_destroy(&c.lock);
        pthread_cond_destroy(&c.cond);
        free(reference);
        free(scratch);
        vk_producer_buffer_destroy(c.buffer);
        if (rc != 0) return -1;
        b->frame_count++;
    }
    return 0;
}
