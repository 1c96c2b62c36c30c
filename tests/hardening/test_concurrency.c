/* Concurrency through ORT's OrtInteropApi.
 *
 * Part 1, independent pipelines at once: WORKERS threads, each with its own importer, stream, session (Relu on
 * [32, 32]), imported host allocation (input view at 0, output view at 64 KiB) and host timeline, plus a producer
 * thread each. Frame k: the worker queues WaitSemaphore(2k+1) on its stream, runs Relu with that stream in the run
 * options and queues SignalSemaphore(2k+2); its producer waits for 2k (frame k-1 done), checks frame k-1's output
 * element by element (exactly relu(input)), writes frame k's input and signals 2k+1. All pipelines share one
 * ortvk device: its queue, address table and stream registry.
 *
 * Part 2, one importer shared by SHARED_THREADS threads at once: each imports its own host allocation and its own
 * slice of a common allocation, makes views, copies a pattern in and the views out with CopyTensors (no stream:
 * all threads share ortvk's synchronous-copy stream) and compares exactly, imports and releases a shared host
 * timeline semaphore, and releases everything, ITERATIONS times. ortvk's importer (src/interop/importer.c) holds no
 * mutable state besides the device's reference count: what the threads share is the device's locked tables,
 * queue and synchronous-copy stream.
 *
 * $ORTVK_CONCURRENCY_ALIASED_IMPORTS=1 makes every thread import the whole common allocation instead of its slice:
 * the same address imported by several threads at once (ctest: test_concurrency_aliased). On lavapipe the imports
 * share one device address and a copy through one thread's view may use another thread's buffer while that thread
 * releases it: ortvk bug 5 of docs/reliability.md (AddressSanitizer: heap-use-after-free in ortvk_transfer_copy),
 * fixed by lookups that hold a reference until the GPU is done.
 *
 * $ORTVK_CONCURRENCY_FRAMES and $ORTVK_CONCURRENCY_ITERATIONS scale the run down (valgrind, ThreadSanitizer).
 *
 * A watchdog fails the test when nothing moves for $ORTVK_CONCURRENCY_STALL_S seconds (default 60): it prints what
 * every pipeline and thread was doing (the call it is in, the timeline value its producer waits for) and exits,
 * rather than leave a hung process to ctest's timeout (the device-wide hang of docs/reliability.md, bug 8). */
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "test_util.h"

#define WORKERS 4
#define SHARED_THREADS 4
#define DEFAULT_FRAMES 100
#define DEFAULT_ITERATIONS 300
#define COUNT 1024
#define OUTPUT_OFFSET (64 * 1024)
#define REGION_BYTES (OUTPUT_OFFSET + COUNT * 4)
#define WAIT_LIMIT_NS 20000000000ull

static const int64_t shape[2] = {32, 32};
static ortapp app;
static const OrtEpDevice *device;
static int frames = DEFAULT_FRAMES, iterations = DEFAULT_ITERATIONS;

/* test_util's CHECK counts into a plain int; threads report through this instead and the main thread adds up. */
static atomic_int thread_failures;

/* Bumped by every step any thread completes; the watchdog fails the test when it stops moving. */
static atomic_uint progress;

typedef enum step {
    STEP_SETUP,
    STEP_WAIT_SEMAPHORE,
    STEP_RUN,
    STEP_SIGNAL_SEMAPHORE,
    STEP_RELEASE,
    STEP_DONE,
    STEP_IMPORT,
    STEP_COPY,
    STEP_SEMAPHORE,
} step;

static const char *const step_names[] = {"setting up", "WaitSemaphore", "Run", "SignalSemaphore", "releasing",
                                         "done", "importing", "copying", "importing the timeline"};

static void moved(atomic_int *where, step now)
{
    if (where) atomic_store(where, (int)now);
    atomic_fetch_add(&progress, 1);
}

static void thread_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void thread_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "FAIL (thread): ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    atomic_fetch_add(&thread_failures, 1);
}

static bool ok(OrtStatus *status, const char *what)
{
    if (status == NULL) return true;
    thread_fail("%s: %s (code %d)", what, app.api->GetErrorMessage(status), (int)app.api->GetErrorCode(status));
    app.api->ReleaseStatus(status);
    return false;
}

static float input_value(int worker, int k, int i)
{
    return (float)((i * 7 + k * 13 + worker * 29) % 101) - 50.0f + 0.25f * (float)k;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static OrtValue *view(OrtExternalResourceImporter *importer, OrtExternalMemoryHandle *memory, size_t offset,
                      int rank, const int64_t *dims)
{
    OrtExternalTensorDescriptor desc = {
        .version = app.api_version,
        .element_type = ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT,
        .shape = dims,
        .rank = (size_t)rank,
        .offset_bytes = offset,
    };
    OrtValue *value = NULL;
    ok(app.interop->CreateTensorFromMemory(importer, memory, &desc, &value), "CreateTensorFromMemory");
    return value;
}

static OrtExternalMemoryHandle *import_host(OrtExternalResourceImporter *importer, void *host, size_t size)
{
    OrtExternalMemoryDescriptor desc = {
        .version = app.api_version,
        .handle_type = ORT_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION,
        .native_handle = host,
        .size_bytes = size,
    };
    OrtExternalMemoryHandle *memory = NULL;
    ok(app.interop->ImportMemory(importer, &desc, &memory), "ImportMemory");
    return memory;
}

static OrtExternalSemaphoreHandle *import_timeline(OrtExternalResourceImporter *importer, ortvk_host_timeline *t)
{
    OrtExternalSemaphoreDescriptor desc = {
        .version = app.api_version,
        .type = (OrtExternalSemaphoreType)ORTVK_EXTERNAL_SEMAPHORE_HOST_TIMELINE,
        .native_handle = (void *)(intptr_t)ortvk_host_timeline_fd(t),
    };
    OrtExternalSemaphoreHandle *semaphore = NULL;
    ok(app.interop->ImportSemaphore(importer, &desc, &semaphore), "ImportSemaphore");
    return semaphore;
}

/* ---- part 0: a session released while a host timeline wait is pending -------------------------------- */

/* Bug 8 of docs/reliability.md, step by step: a stream waits on a host timeline value nobody has signaled yet, so
 * the queue holds work behind the wait's bridge; another session is released (its stream drains the queue); a Run
 * on the waiting stream submits; then the producer signals. ortvk drained under the queue lock: the Run, holding
 * its stream's lock, waited for the queue lock, the stream's helper thread waited for the stream's lock, and the
 * drain for the helper thread's bridge signal. Every thread of the device hung. */

typedef struct release_job {
    OrtSession *session;
    OrtRunOptions *run_options;
    OrtValue *input, *output;
    atomic_bool done;
    bool ok;
} release_job;

static void *release_main(void *arg)
{
    release_job *j = arg;
    app.api->ReleaseSession(j->session);
    j->ok = true;
    atomic_store(&j->done, true);
    return NULL;
}

static void *run_main(void *arg)
{
    release_job *j = arg;
    const char *in_names[] = {"x"}, *out_names[] = {"z"};
    const OrtValue *inputs[] = {j->input};
    OrtValue *outputs[] = {j->output};
    j->ok = ok(app.api->Run(j->session, j->run_options, in_names, inputs, 1, out_names, 1, outputs), "Run");
    atomic_store(&j->done, true);
    return NULL;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static OrtSession *relu_session(const uint8_t *model, size_t len)
{
    OrtSessionOptions *options = NULL;
    OrtSession *session = NULL;
    if (!ok(app.api->CreateSessionOptions(&options), "session options")) return NULL;
    if (ok(app.api->SessionOptionsAppendExecutionProvider_V2(options, app.env, &device, 1, NULL, NULL, 0),
           "append ortvk"))
        ok(app.api->CreateSessionFromArray(app.env, model, len, options, &session), "session");
    app.api->ReleaseSessionOptions(options);
    return session;
}

static void release_during_host_wait(void)
{
    uint8_t *model = NULL;
    size_t len = 0;
    OrtExternalResourceImporter *importer = NULL;
    OrtSyncStream *stream = NULL;
    OrtSession *waiting = NULL, *released = NULL;
    OrtRunOptions *run_options = NULL;
    OrtExternalMemoryHandle *memory = NULL;
    OrtExternalSemaphoreHandle *semaphore = NULL;
    OrtValue *input = NULL, *output = NULL;
    ortvk_host_timeline *timeline = NULL;
    char *host = test_page_alloc(REGION_BYTES, NULL);
    if (!CHECK(host && test_model_one_op("Relu", 1, 2, shape, &model, &len) == 0 &&
                   ortvk_host_timeline_create(0, &timeline) == 0,
               "part 0 resources"))
        goto out;
    if (!ok(app.interop->CreateExternalResourceImporterForDevice(device, &importer), "importer") ||
        !ok(app.api->CreateSyncStreamForEpDevice(device, NULL, &stream), "stream") ||
        !ok(app.api->CreateRunOptions(&run_options), "run options"))
        goto out;
    app.api->RunOptionsSetSyncStream(run_options, stream);
    ok(app.api->AddRunConfigEntry(run_options, "disable_synchronize_execution_providers", "1"), "run config");
    waiting = relu_session(model, len);
    released = relu_session(model, len);
    memory = import_host(importer, host, REGION_BYTES);
    input = memory ? view(importer, memory, 0, 2, shape) : NULL;
    output = memory ? view(importer, memory, OUTPUT_OFFSET, 2, shape) : NULL;
    semaphore = import_timeline(importer, timeline);
    if (!waiting || !released || !input || !output || !semaphore) goto out;
    const char *in_names[] = {"x"}, *out_names[] = {"z"};
    const OrtValue *inputs[] = {input};
    OrtValue *outputs[] = {output};
    float *in = (float *)host, *out = (float *)(host + OUTPUT_OFFSET);
    for (int i = 0; i < COUNT; i++) in[i] = input_value(0, 0, i);
    /* The released session runs once on its own stream, which its release then drains. */
    if (!ok(app.api->Run(released, NULL, in_names, inputs, 1, out_names, 1, outputs), "Run (released session)"))
        goto out;
    memset(out, 0xff, COUNT * sizeof(float)); /* NaN: the Run behind the wait must write it again */
    if (!ok(app.interop->WaitSemaphore(importer, semaphore, stream, 1), "WaitSemaphore")) goto out;

    release_job release = {.session = released}, run = {
        .session = waiting, .run_options = run_options, .input = input, .output = output};
    atomic_init(&release.done, false);
    atomic_init(&run.done, false);
    pthread_t releaser, runner;
    if (!CHECK(pthread_create(&releaser, NULL, release_main, &release) == 0, "start the release")) goto out;
    released = NULL;
    sleep_ms(500); /* the release is now draining the queue, which waits for the host timeline */
    if (!CHECK(pthread_create(&runner, NULL, run_main, &run) == 0, "start the run")) {
        pthread_join(releaser, NULL);
        goto out;
    }
    sleep_ms(500); /* the Run is now submitting behind the host wait */
    moved(NULL, 0);
    ortvk_host_timeline_signal(timeline, 1);
    double give_up = now_ms() + 20000.0;
    while ((!atomic_load(&release.done) || !atomic_load(&run.done)) && now_ms() < give_up) sleep_ms(10);
    if (!atomic_load(&release.done) || !atomic_load(&run.done)) {
        /* The hung threads cannot be joined: report and leave. */
        fprintf(stderr, "FAIL: part 0: %s%s%s still hung 20 s after the host timeline was signaled (a device-wide "
                        "deadlock: docs/reliability.md, bug 8)\n",
                atomic_load(&release.done) ? "" : "ReleaseSession", !atomic_load(&release.done) &&
                !atomic_load(&run.done) ? " and " : "", atomic_load(&run.done) ? "" : "Run");
        _exit(1);
    }
    pthread_join(releaser, NULL);
    pthread_join(runner, NULL);
    if (run.ok && ok(app.interop->SignalSemaphore(importer, semaphore, stream, 2), "SignalSemaphore") &&
        CHECK(ortvk_host_timeline_wait(timeline, 2, WAIT_LIMIT_NS) == 0, "part 0: the signal after the Run came")) {
        int wrong = 0;
        for (int i = 0; i < COUNT; i++) wrong += out[i] != (in[i] > 0.0f ? in[i] : 0.0f);
        CHECK(wrong == 0, "part 0: %d of %d outputs wrong", wrong, COUNT);
    }
    printf("part 0: a session released while a host timeline wait was pending, and a Run behind the wait: both "
           "finished once the producer signaled\n");
out:
    if (released) app.api->ReleaseSession(released);
    if (waiting) app.api->ReleaseSession(waiting);
    if (run_options) app.api->ReleaseRunOptions(run_options);
    app.api->ReleaseValue(input);
    app.api->ReleaseValue(output);
    if (memory) app.interop->ReleaseExternalMemoryHandle(memory);
    if (semaphore) app.interop->ReleaseExternalSemaphoreHandle(semaphore);
    if (stream) app.api->ReleaseSyncStream(stream);
    if (importer) app.interop->ReleaseExternalResourceImporter(importer);
    ortvk_host_timeline_close(timeline);
    free(host);
    free(model);
}

/* ---- part 1: independent pipelines ------------------------------------------------------------------- */

typedef struct pipeline {
    int index;
    uint8_t *model;
    size_t model_len;
    char *host;                     /* the imported allocation, as the producer sees it */
    ortvk_host_timeline *timeline;  /* the application's handle */
    atomic_bool stop;
    int verified;
    double run_ms_max;
    atomic_int step;           /* the worker's current call (step) */
    atomic_int frame;          /* the worker's frame */
    atomic_ullong awaited;     /* the timeline value the producer waits for; 0 when it does not wait */
} pipeline;

/* What the watchdog reports on; set while the threads that use them run. */
static pthread_mutex_t watched_lock = PTHREAD_MUTEX_INITIALIZER;
static pipeline *watched_pipelines;

static void describe_pipeline(pipeline *p, char *text, size_t size)
{
    unsigned long long awaited = atomic_load(&p->awaited);
    snprintf(text, size, "worker at frame %d in %s; producer %s%llu; timeline at %llu; %d frames verified",
             atomic_load(&p->frame), step_names[atomic_load(&p->step)], awaited ? "waits for " : "not waiting ",
             awaited, (unsigned long long)ortvk_host_timeline_value(p->timeline), p->verified);
}

static void *producer_main(void *arg)
{
    pipeline *p = arg;
    float *in = (float *)p->host, *out = (float *)(p->host + OUTPUT_OFFSET);
    for (int k = 0; k <= frames && !atomic_load(&p->stop); k++) {
        uint64_t previous_done = 2 * (uint64_t)k; /* frame k-1's output is written */
        if (k > 0) {
            int rc = -ETIMEDOUT;
            double give_up = now_ms() + WAIT_LIMIT_NS / 1e6;
            atomic_store(&p->awaited, previous_done);
            while (rc == -ETIMEDOUT && !atomic_load(&p->stop) && now_ms() < give_up)
                rc = ortvk_host_timeline_wait(p->timeline, previous_done, 50000000ull);
            if (rc != 0) {
                char state[256];
                describe_pipeline(p, state, sizeof(state));
                if (!atomic_load(&p->stop))
                    thread_fail("pipeline %d: frame %d's output never came (%s)", p->index, k - 1, state);
                return NULL;
            }
            atomic_store(&p->awaited, 0);
            moved(NULL, 0);
            int wrong = 0;
            for (int i = 0; i < COUNT; i++) {
                float x = input_value(p->index, k - 1, i);
                wrong += out[i] != (x > 0.0f ? x : 0.0f);
            }
            if (wrong) thread_fail("pipeline %d: frame %d: %d of %d outputs wrong", p->index, k - 1, wrong, COUNT);
            else p->verified++;
        }
        if (k == frames) break;
        for (int i = 0; i < COUNT; i++) in[i] = input_value(p->index, k, i);
        memset(out, 0xff, COUNT * sizeof(float)); /* NaN: an output that is never written cannot pass */
        ortvk_host_timeline_signal(p->timeline, previous_done + 1);
    }
    return NULL;
}

static void *pipeline_main(void *arg)
{
    pipeline *p = arg;
    OrtExternalResourceImporter *importer = NULL;
    OrtSyncStream *stream = NULL;
    OrtSession *session = NULL;
    OrtRunOptions *run_options = NULL;
    OrtExternalMemoryHandle *memory = NULL;
    OrtExternalSemaphoreHandle *semaphore = NULL;
    OrtValue *input = NULL, *output = NULL;
    pthread_t producer;
    bool producing = false;

    /* Everything is made on this thread, at the same time as the other pipelines make theirs. */
    if (!ok(app.interop->CreateExternalResourceImporterForDevice(device, &importer), "importer") ||
        !ok(app.api->CreateSyncStreamForEpDevice(device, NULL, &stream), "stream"))
        goto out;
    moved(NULL, 0);
    OrtSessionOptions *options = NULL;
    if (ok(app.api->CreateSessionOptions(&options), "session options")) {
        ok(app.api->SetIntraOpNumThreads(options, 1), "intra-op threads");
        if (ok(app.api->SessionOptionsAppendExecutionProvider_V2(options, app.env, &device, 1, NULL, NULL, 0),
               "append ortvk"))
            ok(app.api->CreateSessionFromArray(app.env, p->model, p->model_len, options, &session), "session");
        app.api->ReleaseSessionOptions(options);
    }
    moved(NULL, 0);
    if (session == NULL || !ok(app.api->CreateRunOptions(&run_options), "run options")) goto out;
    app.api->RunOptionsSetSyncStream(run_options, stream);
    ok(app.api->AddRunConfigEntry(run_options, "disable_synchronize_execution_providers", "1"), "run config");
    memory = import_host(importer, p->host, REGION_BYTES);
    if (memory == NULL) goto out;
    input = view(importer, memory, 0, 2, shape);
    output = view(importer, memory, OUTPUT_OFFSET, 2, shape);
    semaphore = import_timeline(importer, p->timeline);
    if (input == NULL || output == NULL || semaphore == NULL) goto out;
    if (pthread_create(&producer, NULL, producer_main, p) != 0) {
        thread_fail("pipeline %d: cannot start its producer", p->index);
        goto out;
    }
    producing = true;

    const char *in_names[] = {"x"}, *out_names[] = {"z"};
    const OrtValue *inputs[] = {input};
    OrtValue *outputs[] = {output};
    int k = 0;
    for (; k < frames; k++) {
        uint64_t ready = 2 * (uint64_t)k + 1, done = ready + 1;
        atomic_store(&p->frame, k);
        moved(&p->step, STEP_WAIT_SEMAPHORE);
        if (!ok(app.interop->WaitSemaphore(importer, semaphore, stream, ready), "WaitSemaphore")) break;
        moved(&p->step, STEP_RUN);
        double t0 = now_ms();
        if (!ok(app.api->Run(session, run_options, in_names, inputs, 1, out_names, 1, outputs), "Run")) break;
        double ran = now_ms() - t0;
        if (ran > p->run_ms_max) p->run_ms_max = ran;
        moved(&p->step, STEP_SIGNAL_SEMAPHORE);
        if (!ok(app.interop->SignalSemaphore(importer, semaphore, stream, done), "SignalSemaphore")) break;
    }

    if (k < frames) atomic_store(&p->stop, true); /* the producer stops by itself after the last frame */

out:
    moved(&p->step, STEP_RELEASE);
    if (producing) pthread_join(producer, NULL);
    if (run_options) app.api->ReleaseRunOptions(run_options);
    if (session) app.api->ReleaseSession(session);
    app.api->ReleaseValue(input);
    app.api->ReleaseValue(output);
    if (memory) app.interop->ReleaseExternalMemoryHandle(memory);
    if (semaphore) app.interop->ReleaseExternalSemaphoreHandle(semaphore);
    if (stream) app.api->ReleaseSyncStream(stream);
    if (importer) app.interop->ReleaseExternalResourceImporter(importer);
    moved(&p->step, STEP_DONE);
    return NULL;
}

static void independent_pipelines(void)
{
    pipeline p[WORKERS];
    pthread_t threads[WORKERS];
    uint8_t *model = NULL;
    size_t len = 0;
    if (!CHECK(test_model_one_op("Relu", 1, 2, shape, &model, &len) == 0, "Relu model")) return;
    double t0 = now_ms();
    int started = 0;
    pthread_mutex_lock(&watched_lock);
    watched_pipelines = p;
    pthread_mutex_unlock(&watched_lock);
    for (int w = 0; w < WORKERS; w++) {
        memset(&p[w], 0, sizeof(p[w]));
        p[w].index = w;
        p[w].model = model;
        p[w].model_len = len;
        p[w].host = test_page_alloc(REGION_BYTES, NULL);
        atomic_init(&p[w].stop, false);
        atomic_init(&p[w].step, STEP_SETUP);
        atomic_init(&p[w].frame, 0);
        atomic_init(&p[w].awaited, 0);
        if (!CHECK(p[w].host && ortvk_host_timeline_create(0, &p[w].timeline) == 0, "pipeline %d resources", w))
            break;
        if (!CHECK(pthread_create(&threads[w], NULL, pipeline_main, &p[w]) == 0, "start pipeline %d", w)) break;
        started++;
    }
    for (int w = 0; w < started; w++) pthread_join(threads[w], NULL);
    double elapsed = now_ms() - t0;
    pthread_mutex_lock(&watched_lock);
    watched_pipelines = NULL;
    pthread_mutex_unlock(&watched_lock);
    int verified = 0;
    for (int w = 0; w < started; w++) {
        verified += p[w].verified;
        CHECK(p[w].verified == frames, "pipeline %d: %d of %d frames verified", w, p[w].verified, frames);
        printf("pipeline %d: %d/%d frames verified exactly, slowest Run %.1f ms\n", w, p[w].verified, frames,
               p[w].run_ms_max);
    }
    printf("part 1: %d pipelines x %d frames = %d frames verified in %.0f ms\n", started, frames, verified, elapsed);
    for (int w = 0; w < WORKERS; w++) {
        ortvk_host_timeline_close(p[w].timeline);
        free(p[w].host);
    }
    free(model);
}

/* ---- part 2: one importer, many threads --------------------------------------------------------------- */

typedef struct shared {
    OrtExternalResourceImporter *importer;
    float *common;                 /* a slice per thread (or all of it by every thread: aliased); read only */
    size_t common_size;
    bool aliased;
    ortvk_host_timeline *timeline; /* imported by every thread at once */
} shared;

typedef struct shared_thread {
    shared *s;
    int index;
    int copies;
    atomic_int step;
    atomic_int iteration;
} shared_thread;

static shared_thread *watched_shared;

static OrtValue *host_value(float *data, int64_t count)
{
    OrtMemoryInfo *info = NULL;
    OrtValue *value = NULL;
    if (!ok(app.api->CreateCpuMemoryInfo(OrtDeviceAllocator, OrtMemTypeDefault, &info), "cpu info")) return NULL;
    ok(app.api->CreateTensorWithDataAsOrtValue(info, data, (size_t)count * sizeof(float), &count, 1,
                                               ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &value),
       "host tensor");
    app.api->ReleaseMemoryInfo(info);
    return value;
}

static bool copy(OrtValue *src, OrtValue *dst)
{
    const OrtValue *s[1] = {src};
    OrtValue *d[1] = {dst};
    return ok(app.api->CopyTensors(app.env, s, d, NULL, 1), "CopyTensors");
}

static void *shared_main(void *arg)
{
    shared_thread *t = arg;
    shared *s = t->s;
    const int64_t count = COUNT;
    size_t own_size = 0;
    float *own = test_page_alloc(COUNT * sizeof(float) * 2, &own_size);
    float pattern[COUNT], back[COUNT];
    OrtValue *pattern_value = host_value(pattern, count), *back_value = host_value(back, count);
    if (own == NULL || pattern_value == NULL || back_value == NULL) {
        thread_fail("shared thread %d: setup", t->index);
        goto out;
    }
    for (int it = 0; it < iterations && atomic_load(&thread_failures) == 0; it++) {
        atomic_store(&t->iteration, it);
        moved(&t->step, STEP_IMPORT);
        /* Its own allocation: a pattern in, then the view out, both exact. */
        OrtExternalMemoryHandle *memory = import_host(s->importer, own, own_size);
        OrtValue *v = memory ? view(s->importer, memory, (size_t)(it % 2) * COUNT * sizeof(float), 1, &count) : NULL;
        if (memory) app.interop->ReleaseExternalMemoryHandle(memory); /* the view keeps the import */
        if (v == NULL) break;
        for (int i = 0; i < COUNT; i++) pattern[i] = (float)(t->index * 100000 + it * 1000 + i);
        memset(back, 0, sizeof(back));
        moved(&t->step, STEP_COPY);
        if (copy(pattern_value, v) && copy(v, back_value)) {
            if (memcmp(back, pattern, sizeof(back)) != 0 ||
                memcmp(own + (it % 2) * COUNT, pattern, sizeof(pattern)) != 0)
                thread_fail("shared thread %d, iteration %d: the copies through its own view are wrong", t->index, it);
            else t->copies += 2;
        }
        app.api->ReleaseValue(v);

        moved(&t->step, STEP_IMPORT);
        /* The common allocation: this thread's two-page slice (aliased: all of it, viewed at this thread's slice). */
        size_t slice = 2 * COUNT, at = (size_t)t->index * slice + (size_t)(it % 2) * COUNT; /* in floats */
        memory = s->aliased ? import_host(s->importer, s->common, s->common_size)
                            : import_host(s->importer, s->common + (size_t)t->index * slice, slice * sizeof(float));
        size_t offset = (s->aliased ? at : (size_t)(it % 2) * COUNT) * sizeof(float);
        v = memory ? view(s->importer, memory, offset, 1, &count) : NULL;
        moved(&t->step, STEP_COPY);
        if (v && copy(v, back_value)) {
            if (memcmp(back, s->common + at, sizeof(back)) != 0)
                thread_fail("shared thread %d, iteration %d: the common view reads wrong data", t->index, it);
            else t->copies++;
        }
        app.api->ReleaseValue(v);
        if (memory) app.interop->ReleaseExternalMemoryHandle(memory);

        /* The common host timeline. */
        moved(&t->step, STEP_SEMAPHORE);
        OrtExternalSemaphoreHandle *semaphore = import_timeline(s->importer, s->timeline);
        if (semaphore) app.interop->ReleaseExternalSemaphoreHandle(semaphore);
    }
out:
    app.api->ReleaseValue(pattern_value);
    app.api->ReleaseValue(back_value);
    free(own);
    moved(&t->step, STEP_DONE);
    return NULL;
}

static void shared_importer(void)
{
    shared s = {0};
    ok(app.interop->CreateExternalResourceImporterForDevice(device, &s.importer), "shared importer");
    s.common = test_page_alloc(COUNT * sizeof(float) * 2 * SHARED_THREADS, &s.common_size);
    s.aliased =
        getenv("ORTVK_CONCURRENCY_ALIASED_IMPORTS") && strcmp(getenv("ORTVK_CONCURRENCY_ALIASED_IMPORTS"), "1") == 0;
    if (!CHECK(s.importer && s.common && ortvk_host_timeline_create(0, &s.timeline) == 0, "shared resources")) return;
    for (size_t i = 0; i < s.common_size / sizeof(float); i++) s.common[i] = (float)i * 0.5f - 7.0f;
    shared_thread t[SHARED_THREADS];
    pthread_t threads[SHARED_THREADS];
    double t0 = now_ms();
    int started = 0;
    pthread_mutex_lock(&watched_lock);
    watched_shared = t;
    pthread_mutex_unlock(&watched_lock);
    for (int i = 0; i < SHARED_THREADS; i++) {
        t[i] = (shared_thread){.s = &s, .index = i};
        atomic_init(&t[i].step, STEP_SETUP);
        atomic_init(&t[i].iteration, 0);
        if (!CHECK(pthread_create(&threads[i], NULL, shared_main, &t[i]) == 0, "start shared thread %d", i)) break;
        started++;
    }
    int copies = 0;
    for (int i = 0; i < started; i++) {
        pthread_join(threads[i], NULL);
        copies += t[i].copies;
        CHECK(t[i].copies == 3 * iterations, "shared thread %d: %d of %d copies verified", i, t[i].copies,
              3 * iterations);
    }
    pthread_mutex_lock(&watched_lock);
    watched_shared = NULL;
    pthread_mutex_unlock(&watched_lock);
    printf("part 2: %d threads x %d iterations on one importer (%s common imports): %d imports, %d copies verified "
           "exactly in %.0f ms\n", started, iterations, s.aliased ? "aliased" : "sliced", started * iterations * 3,
           copies, now_ms() - t0);
    app.interop->ReleaseExternalResourceImporter(s.importer);
    ortvk_host_timeline_close(s.timeline);
    free(s.common);
}

/* ---- watchdog ----------------------------------------------------------------------------------------- */

static atomic_bool watchdog_stop;
static int stall_s = 60;

static void *watchdog_main(void *arg)
{
    (void)arg;
    unsigned seen = atomic_load(&progress);
    double since = now_ms();
    while (!atomic_load(&watchdog_stop)) {
        struct timespec tick = {0, 100 * 1000 * 1000};
        nanosleep(&tick, NULL);
        unsigned now = atomic_load(&progress);
        if (now != seen) {
            seen = now;
            since = now_ms();
            continue;
        }
        if (now_ms() - since < stall_s * 1e3) continue;
        pthread_mutex_lock(&watched_lock);
        fprintf(stderr, "FAIL: nothing moved for %d s (a hang); what each thread was doing:\n", stall_s);
        for (int w = 0; watched_pipelines && w < WORKERS; w++) {
            char state[256];
            describe_pipeline(&watched_pipelines[w], state, sizeof(state));
            fprintf(stderr, "  pipeline %d: %s\n", w, state);
        }
        for (int i = 0; watched_shared && i < SHARED_THREADS; i++) {
            fprintf(stderr, "  shared thread %d: iteration %d, %s\n", i, atomic_load(&watched_shared[i].iteration),
                    step_names[atomic_load(&watched_shared[i].step)]);
        }
        pthread_mutex_unlock(&watched_lock);
        fflush(stderr);
        _exit(1); /* the hung threads cannot be joined */
    }
    return NULL;
}

static int env_int(const char *name, int fallback)
{
    const char *text = getenv(name);
    int n = text ? atoi(text) : 0;
    return n > 0 ? n : fallback;
}

int main(void)
{
    setenv("ORT_DISABLE_TELEMETRY", "1", 0);
    setvbuf(stdout, NULL, _IONBF, 0);
    frames = env_int("ORTVK_CONCURRENCY_FRAMES", DEFAULT_FRAMES);
    iterations = env_int("ORTVK_CONCURRENCY_ITERATIONS", DEFAULT_ITERATIONS);
    stall_s = env_int("ORTVK_CONCURRENCY_STALL_S", stall_s);
    atomic_init(&thread_failures, 0);
    atomic_init(&progress, 0);
    atomic_init(&watchdog_stop, false);
    test_open(&app, &device);
    bool can = false;
    OrtExternalResourceImporter *probe = NULL;
    ORT_OK(&app, app.interop->CreateExternalResourceImporterForDevice(device, &probe));
    if (probe) ORT_OK(&app, app.interop->CanImportMemory(probe, ORT_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION, &can));
    if (probe) app.interop->ReleaseExternalResourceImporter(probe);
    if (!can) {
        ortapp_close(&app);
        printf("SKIP: the device cannot import host allocations\n");
        return 77;
    }
    printf("%d pipelines x %d frames; %d threads x %d iterations on a shared importer\n", WORKERS, frames,
           SHARED_THREADS, iterations);
    pthread_t watchdog;
    if (pthread_create(&watchdog, NULL, watchdog_main, NULL) != 0) {
        ortapp_close(&app);
        fprintf(stderr, "FAIL: cannot start the watchdog\n");
        return 1;
    }
    release_during_host_wait();
    independent_pipelines();
    shared_importer();
    atomic_store(&watchdog_stop, true);
    pthread_join(watchdog, NULL);
    test_failures += atomic_load(&thread_failures);
    return test_finish(&app, "test_concurrency");
}
