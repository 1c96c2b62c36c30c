/* End to end through ORT's OrtInteropApi, as an application with a CPU producer would use ortvk: one imported
 * allocation (a page-aligned host allocation, then memory of another Vulkan device exported as an opaque FD) with
 * two tensor views, and an ortvk host timeline semaphore. Per frame k a producer thread writes the input view and
 * signals 2k+1; the main thread has already queued WaitSemaphore(2k+1) on an ortvk stream (which must not block:
 * the timeline is still below 2k+1 when it returns), runs the session (the stream in the run options where ORT
 * allows it) and queues SignalSemaphore(2k+2); the producer waits for 2k+2 and checks every output element
 * exactly. The producer writes frame k only after the main thread has entered Run, so work that did not wait for
 * the semaphore would compute on frame k-1 and be caught. Two sessions: Relu, which ortvk runs on the stream, and
 * Sign, which ORT's CPU EP runs, so that Run copies the views through ortvk's data transfer without a stream.
 * Also: a wait nobody satisfies times out (host_wait_timeout_ms), the next semaphore call on the stream reports it
 * once, and the stream and session keep working; SignalSemaphore refuses values that do not increase the timeline
 * (at or below its value, or at or below a value already queued); two threads queuing waits and signals on one
 * stream at once keep a consistent order. */
#include <stdarg.h>
#include <stdatomic.h>
#include <string.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include "test_util.h"
#include "vk_producer.h"

#define COUNT 1024                /* floats per tensor */
#define OUTPUT_OFFSET (64 * 1024) /* byte offset of the output view (aligned for any device) */
#define REGION_BYTES (OUTPUT_OFFSET + COUNT * 4)
#define FRAMES 24
#define PRODUCER_DELAY_MS 100       /* how long the producer holds frame k back after the main thread queued its wait */
#define FAULT_TIMEOUT_MS 200        /* host_wait_timeout_ms of the stream the timeout fault runs on */
#define WAIT_LIMIT_NS 30000000000ull /* any wait in this test gives up after 30 s instead of hanging (valgrind on a
                                       loaded machine: the first run builds its pipelines) */

static const int64_t shape[2] = {32, 32};

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void sleep_ms(unsigned ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

/* Frame k's input: differs from frame k-1's in every element, about half negative. */
static float input_value(int k, int i)
{
    return (float)((i * 7 + k * 13) % 101) - 50.0f + 0.25f * (float)k;
}

/* ---- the application's resources ---------------------------------------------------------------------- */

typedef struct app_ctx {
    ortapp *app;
    const OrtEpDevice *device;
    OrtExternalResourceImporter *importer;
    /* The session the passes run on, and its one op: Relu (ortvk runs it), then Sign (ORT's CPU EP runs it). */
    OrtSession *session;
    const char *session_name;
    const char *op_name;
    float (*op)(float);
    bool ortvk_runs;  /* ortvk runs the node (else ORT's CPU EP does, and Run copies the views synchronously) */
    bool run_stream;  /* Run gets the stream through RunOptionsSetSyncStream (see run_stream_usable) */
    bool error_cases; /* the host allocation pass also runs the error cases */
} app_ctx;

/* Whether ortvk runs the node that reads the session's input. */
static bool ortvk_runs_input(app_ctx *c)
{
    const OrtEpDevice *consumer = NULL;
    if (!ORT_OK(c->app, c->app->api->SessionGetEpDeviceForInputs(c->session, &consumer, 1))) return false;
    return consumer == c->device;
}

/* ONNX Runtime 1.24.3 and 1.30.0 crash inside Run (a NULL dereference, after OnRunStart) when the run options
 * carry a sync stream and the session's execution plan has no stream of that device: every node on ORT's CPU EP.
 * ortvk now takes the stream out of the run options of such a session (test_interop_unclaimed); Run's copies of its
 * memory still wait for every stream's queued work. So the stream goes into the run options when ortvk runs the
 * session's input node, or when ORTVK_TEST_RUN_STREAM=1 asks for it anyway. =0 leaves it out everywhere. */
static bool run_stream_usable(bool ortvk_runs)
{
    const char *force = getenv("ORTVK_TEST_RUN_STREAM");
    if (force != NULL && force[0] != '\0') return strcmp(force, "0") != 0;
    return ortvk_runs;
}

static OrtSyncStream *make_stream(app_ctx *c, unsigned timeout_ms)
{
    OrtKeyValuePairs *options = NULL;
    OrtSyncStream *stream = NULL;
    if (timeout_ms) {
        char text[32];
        snprintf(text, sizeof(text), "%u", timeout_ms);
        c->app->api->CreateKeyValuePairs(&options);
        c->app->api->AddKeyValuePair(options, ORTVK_STREAM_OPTION_HOST_WAIT_TIMEOUT_MS, text);
    }
    ORT_OK(c->app, c->app->api->CreateSyncStreamForEpDevice(c->device, options, &stream));
    if (options) c->app->api->ReleaseKeyValuePairs(options);
    return stream;
}

static OrtRunOptions *make_run_options(app_ctx *c, OrtSyncStream *stream)
{
    OrtRunOptions *options = NULL;
    if (!ORT_OK(c->app, c->app->api->CreateRunOptions(&options))) return NULL;
    if (c->run_stream) c->app->api->RunOptionsSetSyncStream(options, stream);
    ORT_OK(c->app, c->app->api->AddRunConfigEntry(options, "disable_synchronize_execution_providers", "1"));
    return options;
}

static OrtExternalSemaphoreHandle *import_timeline(app_ctx *c, ortvk_host_timeline *timeline)
{
    return test_import_host_timeline(c->app, c->importer, timeline);
}

static OrtValue *make_view(app_ctx *c, OrtExternalMemoryHandle *memory, size_t offset)
{
    OrtExternalTensorDescriptor desc = {
        .version = c->app->api_version,
        .element_type = ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT,
        .shape = shape,
        .rank = 2,
        .offset_bytes = offset,
    };
    OrtValue *value = NULL;
    ORT_OK(c->app, c->app->interop->CreateTensorFromMemory(c->importer, memory, &desc, &value));
    return value;
}

/* ---- one pass: an imported allocation, its views, a timeline ------------------------------------------ */

typedef struct pass {
    app_ctx *c;
    const char *name;
    OrtValue *input, *output;             /* views of the imported allocation */
    ortvk_host_timeline *timeline;        /* the application's own handle */
    OrtExternalSemaphoreHandle *semaphore; /* the same timeline, imported into ortvk */
    char *host;                           /* host allocation: the producer's view of the memory */
    vk_producer_buffer *buffer;           /* opaque FD: the producer's view of the memory */
    int next_frame;                       /* frame number (selects values) of the next frame */
} pass;

/* The producer's side of frames [first, first + count): timeline values base + 2j + 1 (input ready) and
 * base + 2j + 2 (output ready) for the j-th of them. */
typedef struct producer {
    pass *p;
    int first, count;
    uint64_t base;
    unsigned delay_ms;
    atomic_int queued;  /* frames whose WaitSemaphore the main thread has issued */
    atomic_bool stop;   /* the main thread gave up */
    int good, wrong, timeouts, late_main;
    char error[256];
} producer;

static void producer_error(producer *pr, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void producer_error(producer *pr, const char *fmt, ...)
{
    char message[sizeof(pr->error)];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof(message), fmt, ap);
    va_end(ap);
    if (pr->error[0] == '\0') memcpy(pr->error, message, sizeof(message));
    fprintf(stderr, "producer (%s): %s\n", pr->p->name, message);
}

static int write_input(pass *p, int k)
{
    float frame[COUNT], poison[COUNT];
    for (int i = 0; i < COUNT; i++) frame[i] = input_value(k, i);
    memset(poison, 0xff, sizeof(poison)); /* NaN: a frame whose output is never written cannot pass */
    if (p->host) {
        memcpy(p->host, frame, sizeof(frame));
        memcpy(p->host + OUTPUT_OFFSET, poison, sizeof(poison));
        return 0;
    }
    int rc = vk_producer_buffer_write(p->buffer, 0, frame, sizeof(frame));
    if (rc == 0) rc = vk_producer_buffer_write(p->buffer, OUTPUT_OFFSET, poison, sizeof(poison));
    return rc;
}

static float relu(float x) { return x > 0.0f ? x : 0.0f; }
static float sign(float x) { return x > 0.0f ? 1.0f : x < 0.0f ? -1.0f : 0.0f; }

/* Elements of the output that are not exactly op(frame k); -1 when it could not be read. */
static int check_output(pass *p, int k)
{
    float out[COUNT];
    if (p->host) memcpy(out, p->host + OUTPUT_OFFSET, sizeof(out));
    else if (vk_producer_buffer_read(p->buffer, OUTPUT_OFFSET, out, sizeof(out)) != 0) return -1;
    int wrong = 0;
    for (int i = 0; i < COUNT; i++) {
        float x = input_value(k, i);
        wrong += out[i] != p->c->op(x);
    }
    return wrong;
}

static void *producer_main(void *arg)
{
    producer *pr = arg;
    pass *p = pr->p;
    for (int j = 0; j < pr->count && !atomic_load(&pr->stop); j++) {
        int k = pr->first + j;
        uint64_t ready = pr->base + 2 * (uint64_t)j + 1, done = ready + 1;
        /* Hold frame k back until the main thread has queued its wait (a WaitSemaphore that blocked would never
         * get here: after 2 s the frame is signaled anyway and the main thread's check fails), then long enough
         * for the main thread to be inside Run: a copy that ignored the wait would read frame k-1 now. */
        double limit = now_ms() + 2000;
        while (atomic_load(&pr->queued) <= j && now_ms() < limit && !atomic_load(&pr->stop)) sleep_ms(1);
        if (atomic_load(&pr->queued) <= j) pr->late_main++;
        sleep_ms(pr->delay_ms);
        if (write_input(p, k) != 0) {
            producer_error(pr, "frame %d: writing the input failed", k);
            break;
        }
        if (ortvk_host_timeline_signal(p->timeline, ready) != 0) {
            producer_error(pr, "frame %d: signaling %llu failed", k, (unsigned long long)ready);
            break;
        }
        int rc = -ETIMEDOUT;
        double give_up = now_ms() + WAIT_LIMIT_NS / 1e6;
        while (rc == -ETIMEDOUT && now_ms() < give_up && !atomic_load(&pr->stop))
            rc = ortvk_host_timeline_wait(p->timeline, done, 50000000ull);
        if (rc != 0) {
            pr->timeouts++;
            producer_error(pr, "frame %d: output-ready value %llu never came", k, (unsigned long long)done);
            break;
        }
        int wrong = check_output(p, k);
        if (wrong != 0) {
            pr->wrong++;
            producer_error(pr, "frame %d: %d of %d output elements are not %s(frame %d)", k, wrong, COUNT,
                           p->c->op_name, k);
        } else {
            pr->good++;
        }
    }
    return NULL;
}

typedef struct frame_stats {
    double max_wait_ms, min_run_ms, max_run_ms, sum_run_ms;
    int runs;
} frame_stats;

/* Runs `count` frames on `stream` against a producer thread; returns the number of frames the producer verified. */
static int run_frames(pass *p, OrtSyncStream *stream, int count, unsigned delay_ms, frame_stats *stats)
{
    app_ctx *c = p->c;
    OrtRunOptions *run_options = make_run_options(c, stream);
    if (run_options == NULL) return 0;
    producer pr = {.p = p, .first = p->next_frame, .count = count, .delay_ms = delay_ms};
    pr.base = ortvk_host_timeline_value(p->timeline);
    atomic_init(&pr.queued, 0);
    atomic_init(&pr.stop, false);
    pthread_t thread;
    if (!CHECK(pthread_create(&thread, NULL, producer_main, &pr) == 0, "start the producer thread")) {
        c->app->api->ReleaseRunOptions(run_options);
        return 0;
    }
    const char *in_names[] = {"x"}, *out_names[] = {"z"};
    const OrtValue *inputs[] = {p->input};
    OrtValue *outputs[] = {p->output};
    for (int j = 0; j < count; j++) {
        int k = p->next_frame + j;
        uint64_t ready = pr.base + 2 * (uint64_t)j + 1, done = ready + 1;
        double t0 = now_ms();
        if (!ORT_OK(c->app, c->app->interop->WaitSemaphore(c->importer, p->semaphore, stream, ready))) break;
        double waited = now_ms() - t0;
        uint64_t seen = ortvk_host_timeline_value(p->timeline);
        atomic_store(&pr.queued, j + 1);
        CHECK(seen < ready, "%s frame %d: WaitSemaphore(%llu) returned only after the producer signaled (value %llu, "
              "%.1f ms): it blocked the host", p->name, k, (unsigned long long)ready, (unsigned long long)seen, waited);
        double t1 = now_ms();
        if (!ORT_OK(c->app, c->app->api->Run(c->session, run_options, in_names, inputs, 1, out_names, 1, outputs)))
            break;
        double ran = now_ms() - t1;
        if (!ORT_OK(c->app, c->app->interop->SignalSemaphore(c->importer, p->semaphore, stream, done))) break;
        if (waited > stats->max_wait_ms) stats->max_wait_ms = waited;
        if (stats->runs == 0 || ran < stats->min_run_ms) stats->min_run_ms = ran;
        if (ran > stats->max_run_ms) stats->max_run_ms = ran;
        stats->sum_run_ms += ran;
        stats->runs++;
    }
    if (stats->runs < count) atomic_store(&pr.stop, true);
    pthread_join(thread, NULL);
    CHECK(pr.good == count, "%s: the producer verified %d of %d frames (%d wrong, %d timed out): %s", p->name, pr.good,
          count, pr.wrong, pr.timeouts, pr.error[0] ? pr.error : "main thread stopped early");
    CHECK(pr.late_main == 0, "%s: %d frames: WaitSemaphore had not returned 2 s after the previous frame", p->name,
          pr.late_main);
    p->next_frame += count;
    c->app->api->ReleaseRunOptions(run_options);
    return pr.good;
}

static void print_stats(const char *what, const frame_stats *s)
{
    if (s->runs == 0) return;
    printf("%s: %d frames; WaitSemaphore max %.3f ms; Run min %.1f / mean %.1f / max %.1f ms (the producer held each "
           "frame back %d ms after the wait was queued)\n",
           what, s->runs, s->max_wait_ms, s->min_run_ms, s->sum_run_ms / s->runs, s->max_run_ms, PRODUCER_DELAY_MS);
}

/* Waits on the host for `timeline` >= value; returns the milliseconds it took, or -1 after 10 s. */
static double host_wait(ortvk_host_timeline *timeline, uint64_t value)
{
    double t0 = now_ms();
    return ortvk_host_timeline_wait(timeline, value, WAIT_LIMIT_NS) == 0 ? now_ms() - t0 : -1.0;
}

/* SignalSemaphore refuses a value that does not increase the timeline: at or below its value, or at or below a
 * value already queued. */
static void signal_must_increase(pass *p, OrtSyncStream *stream)
{
    app_ctx *c = p->c;
    uint64_t value = ortvk_host_timeline_value(p->timeline);
    ORT_FAILS(c->app, c->app->interop->SignalSemaphore(c->importer, p->semaphore, stream, value), ORT_INVALID_ARGUMENT,
              "does not increase");
    ORT_FAILS(c->app, c->app->interop->SignalSemaphore(c->importer, p->semaphore, stream, 1), ORT_INVALID_ARGUMENT,
              "does not increase");
    ORT_FAILS(c->app, c->app->interop->SignalSemaphore(c->importer, p->semaphore, stream, 0), ORT_INVALID_ARGUMENT,
              "does not increase");

    /* Queued behind a gate: value + 2 is queued but not reached, so value + 1 and value + 2 must be refused. */
    ortvk_host_timeline *gate = NULL;
    if (!CHECK(ortvk_host_timeline_create(0, &gate) == 0, "create a gate timeline")) return;
    OrtExternalSemaphoreHandle *gate_sem = import_timeline(c, gate);
    if (gate_sem != NULL &&
        ORT_OK(c->app, c->app->interop->WaitSemaphore(c->importer, gate_sem, stream, 1)) &&
        ORT_OK(c->app, c->app->interop->SignalSemaphore(c->importer, p->semaphore, stream, value + 2))) {
        CHECK(ortvk_host_timeline_value(p->timeline) == value, "a signal queued behind an unsignaled wait waits");
        ORT_FAILS(c->app, c->app->interop->SignalSemaphore(c->importer, p->semaphore, stream, value + 1),
                  ORT_INVALID_ARGUMENT, "already signaled or queued");
        ORT_FAILS(c->app, c->app->interop->SignalSemaphore(c->importer, p->semaphore, stream, value + 2),
                  ORT_INVALID_ARGUMENT, "already signaled or queued");
        ortvk_host_timeline_signal(gate, 1);
        CHECK(host_wait(p->timeline, value + 2) >= 0, "the queued signal lands once the gate opens");
    }
    if (gate_sem) c->app->interop->ReleaseExternalSemaphoreHandle(gate_sem);
    ortvk_host_timeline_close(gate);
}

/* A stream call after a timed-out wait: 1 when it reported the timeout (ORT_EP_FAIL, "timed out"), 0 when it
 * succeeded; any other failure is one of the test's. Takes the status. */
static int report_or_ok(ortapp *app, OrtStatus *status, const char *call)
{
    if (status == NULL) {
        printf("timeout fault: %s succeeded and did not report the timeout\n", call);
        return 0;
    }
    printf("timeout fault: %s reported: %s\n", call, app->api->GetErrorMessage(status));
    return ORT_FAILS(app, status, ORT_EP_FAIL, "timed out") ? 1 : 0;
}

/* A wait nobody satisfies: it must not block WaitSemaphore, must let the stream go on after the stream's
 * host_wait_timeout_ms, and the next stream call must report it, once. Then normal frames run on that stream. */
static void timeout_fault(pass *p)
{
    app_ctx *c = p->c;
    OrtSyncStream *stream = make_stream(c, FAULT_TIMEOUT_MS);
    ortvk_host_timeline *never = NULL, *done = NULL;
    OrtExternalSemaphoreHandle *never_sem = NULL, *done_sem = NULL;
    if (stream == NULL ||
        !CHECK(ortvk_host_timeline_create(0, &never) == 0 && ortvk_host_timeline_create(0, &done) == 0,
               "create timelines"))
        goto out;
    never_sem = import_timeline(c, never);
    done_sem = import_timeline(c, done);
    if (never_sem == NULL || done_sem == NULL) goto out;

    double t0 = now_ms();
    if (!ORT_OK(c->app, c->app->interop->WaitSemaphore(c->importer, never_sem, stream, 5))) goto out;
    double queued = now_ms() - t0;
    CHECK(queued < 100.0, "WaitSemaphore on a value nobody signals returned at once (took %.1f ms)", queued);
    /* A signal queued behind the dead wait is withheld (docs/interop.md): the consumer never sees it. */
    OrtStatus *status = c->app->interop->SignalSemaphore(c->importer, done_sem, stream, 1);
    bool early = status != NULL;
    if (early) { /* only if this thread stalled for the whole timeout between the two calls */
        printf("note: the timeout surfaced already at the SignalSemaphore right after the wait\n");
        ORT_FAILS(c->app, status, ORT_EP_FAIL, "timed out");
    }
    CHECK(ortvk_host_timeline_wait(done, 1, (uint64_t)FAULT_TIMEOUT_MS * 5 * 1000000ull) != 0,
          "a signal queued behind a timed-out wait is withheld (the timeline says %llu)",
          (unsigned long long)ortvk_host_timeline_value(done));
    double since = now_ms() - t0;
    printf("timeout fault: WaitSemaphore took %.3f ms; %.1f ms later the signal behind it is still withheld "
           "(host_wait_timeout_ms=%d)\n",
           queued, since, FAULT_TIMEOUT_MS);

    if (!early) {
        /* The next stream call reports the failure... */
        status = c->app->interop->SignalSemaphore(c->importer, done_sem, stream, 2);
        if (status) printf("timeout fault: the next SignalSemaphore says: %s\n", c->app->api->GetErrorMessage(status));
        ORT_FAILS(c->app, status, ORT_EP_FAIL, "timed out");
        double reported = now_ms() - t0;
        CHECK(reported < 5000.0, "the timeout was reported %.1f ms after the wait (limit 5 s)", reported);
    }
    /* ... once: the same call now works (signals queued after the report are delivered), and the refused one
     * queued nothing. */
    ORT_OK(c->app, c->app->interop->SignalSemaphore(c->importer, done_sem, stream, 2));
    CHECK(host_wait(done, 2) >= 0, "a signal after the reported timeout lands");

    /* A second dead wait, to see which other stream calls report it: CopyTensors on the stream, Run with the
     * stream (when it can be in the run options), then SignalSemaphore. Exactly one of them must, once. */
    if (ORT_OK(c->app, c->app->interop->WaitSemaphore(c->importer, never_sem, stream, 6)) &&
        ORT_OK(c->app, c->app->interop->SignalSemaphore(c->importer, done_sem, stream, 3)) &&
        CHECK(ortvk_host_timeline_wait(done, 3, (uint64_t)FAULT_TIMEOUT_MS * 5 * 1000000ull) != 0,
              "the signal behind the second dead wait is withheld too")) {
        int reports = 0;
        float back[COUNT];
        OrtValue *host = test_host_tensor(c->app, back, COUNT, 2, shape);
        status = host ? test_copy(c->app, p->input, host, stream) : NULL;
        reports += report_or_ok(c->app, status, "CopyTensors with the stream");
        c->app->api->ReleaseValue(host);
        OrtRunOptions *run_options = c->run_stream ? make_run_options(c, stream) : NULL;
        if (run_options) {
            const char *in_names[] = {"x"}, *out_names[] = {"z"};
            const OrtValue *inputs[] = {p->input};
            OrtValue *outputs[] = {p->output};
            status = c->app->api->Run(c->session, run_options, in_names, inputs, 1, out_names, 1, outputs);
            reports += report_or_ok(c->app, status, "Run with the stream in its run options");
            c->app->api->ReleaseRunOptions(run_options);
        }
        status = c->app->interop->SignalSemaphore(c->importer, done_sem, stream, 4);
        bool signal_reported = status != NULL;
        reports += report_or_ok(c->app, status, "SignalSemaphore");
        CHECK(reports == 1, "the second timeout was reported %d times (once expected)", reports);
        if (signal_reported) /* it reported the timeout and queued nothing: it works now */
            ORT_OK(c->app, c->app->interop->SignalSemaphore(c->importer, done_sem, stream, 4));
        CHECK(host_wait(done, 4) >= 0, "the stream signals again after the second timeout");
    }

    /* The stream and the session still do real work. */
    frame_stats stats = {0};
    run_frames(p, stream, 3, 10, &stats);
    printf("timeout fault: %d normal frames on the same stream afterwards\n", stats.runs);

out:
    if (never_sem) c->app->interop->ReleaseExternalSemaphoreHandle(never_sem);
    if (done_sem) c->app->interop->ReleaseExternalSemaphoreHandle(done_sem);
    if (stream) c->app->api->ReleaseSyncStream(stream);
    ortvk_host_timeline_close(never);
    ortvk_host_timeline_close(done);
}

/* ---- one stream, two threads -------------------------------------------------------------------------------- */

#define RACE_CALLS 500

typedef struct racer {
    app_ctx *c;
    OrtSyncStream *stream;
    OrtExternalSemaphoreHandle *semaphore;
    bool signal;  /* SignalSemaphore 1..RACE_CALLS, else WaitSemaphore 1..RACE_CALLS */
    int failures;
    char error[256];
} racer;

static void *racer_main(void *arg)
{
    racer *r = arg;
    const OrtInteropApi *interop = r->c->app->interop;
    for (uint64_t v = 1; v <= RACE_CALLS; v++) {
        OrtStatus *status = r->signal ? interop->SignalSemaphore(r->c->importer, r->semaphore, r->stream, v)
                                      : interop->WaitSemaphore(r->c->importer, r->semaphore, r->stream, v);
        if (status != NULL) {
            if (r->failures++ == 0)
                snprintf(r->error, sizeof(r->error), "%s(%llu): %s", r->signal ? "SignalSemaphore" : "WaitSemaphore",
                         (unsigned long long)v, r->c->app->api->GetErrorMessage(status));
            r->c->app->api->ReleaseStatus(status);
        }
    }
    return NULL;
}

/* Two threads queue host timeline waits and signals on one stream at once: a wait racing a signal, then two waits.
 * The stream must keep them in a consistent order: every signal lands, no Vulkan usage error, no hang. */
static void two_threads_one_stream(app_ctx *c)
{
    OrtSyncStream *stream = make_stream(c, 2000);
    ortvk_host_timeline *ready = NULL, *done = NULL;
    OrtExternalSemaphoreHandle *ready_sem = NULL, *done_sem = NULL;
    if (stream == NULL || !CHECK(ortvk_host_timeline_create(RACE_CALLS, &ready) == 0 &&
                                     ortvk_host_timeline_create(0, &done) == 0, "create timelines"))
        goto out;
    ready_sem = import_timeline(c, ready); /* already at RACE_CALLS: every wait is satisfied at once */
    done_sem = import_timeline(c, done);
    if (ready_sem == NULL || done_sem == NULL) goto out;
    for (int round = 0; round < 2; round++) {
        racer r[2] = {{.c = c, .stream = stream, .semaphore = ready_sem},
                      {.c = c, .stream = stream, .semaphore = round == 0 ? done_sem : ready_sem, .signal = round == 0}};
        pthread_t threads[2];
        double t0 = now_ms();
        int started = 0;
        for (; started < 2; started++)
            if (!CHECK(pthread_create(&threads[started], NULL, racer_main, &r[started]) == 0, "start a thread")) break;
        for (int i = 0; i < started; i++) pthread_join(threads[i], NULL);
        for (int i = 0; i < started; i++)
            CHECK(r[i].failures == 0, "round %d: %d calls failed; first: %s", round, r[i].failures, r[i].error);
        if (round == 0) {
            CHECK(host_wait(done, RACE_CALLS) >= 0, "every signal racing the waits lands (value %llu of %d)",
                  (unsigned long long)ortvk_host_timeline_value(done), RACE_CALLS);
        } else {
            /* Behind all the waits of both threads. */
            if (ORT_OK(c->app, c->app->interop->SignalSemaphore(c->importer, done_sem, stream, RACE_CALLS + 1)))
                CHECK(host_wait(done, RACE_CALLS + 1) >= 0, "a signal after two threads' waits lands");
        }
        printf("one stream, two threads (%s): %d + %d calls in %.0f ms\n",
               round == 0 ? "waits racing signals" : "waits racing waits", RACE_CALLS, RACE_CALLS, now_ms() - t0);
    }
    ORT_OK(c->app, c->app->interop->SignalSemaphore(c->importer, done_sem, stream, RACE_CALLS + 2)); /* no error left */
out:
    if (ready_sem) c->app->interop->ReleaseExternalSemaphoreHandle(ready_sem);
    if (done_sem) c->app->interop->ReleaseExternalSemaphoreHandle(done_sem);
    if (stream) c->app->api->ReleaseSyncStream(stream);
    ortvk_host_timeline_close(ready);
    ortvk_host_timeline_close(done);
}

/* Views, a timeline, FRAMES frames on a fresh stream, then the error cases. `memory` is the pass's import. */
static void run_pass(pass *p, OrtExternalMemoryHandle *memory, bool error_cases)
{
    app_ctx *c = p->c;
    p->input = make_view(c, memory, 0);
    p->output = make_view(c, memory, OUTPUT_OFFSET);
    OrtSyncStream *stream = make_stream(c, 0);
    if (p->input == NULL || p->output == NULL || stream == NULL ||
        !CHECK(ortvk_host_timeline_create(0, &p->timeline) == 0, "create the host timeline"))
        goto out;
    p->semaphore = import_timeline(c, p->timeline);
    if (p->semaphore == NULL) goto out;

    frame_stats stats = {0};
    double t0 = now_ms();
    run_frames(p, stream, FRAMES, PRODUCER_DELAY_MS, &stats);
    char what[96];
    snprintf(what, sizeof(what), "%s (%.0f ms)", p->name, now_ms() - t0);
    print_stats(what, &stats);
    /* On the CPU EP each Run had to wait out the producer's delay: its input copy (synchronous, no stream) was
     * ordered after the semaphore wait. (On ortvk, Run only queues work behind the wait and returns.) */
    if (stats.runs > 0 && !c->ortvk_runs)
        CHECK(stats.min_run_ms >= PRODUCER_DELAY_MS * 0.5, "%s: a Run finished after %.1f ms, before the producer "
              "wrote its frame; its input cannot have been current", p->name, stats.min_run_ms);
    if (error_cases) {
        signal_must_increase(p, stream);
        timeout_fault(p);
        two_threads_one_stream(c);
    }
out:
    if (stream) c->app->api->ReleaseSyncStream(stream);
    if (p->semaphore) c->app->interop->ReleaseExternalSemaphoreHandle(p->semaphore);
    ortvk_host_timeline_close(p->timeline);
    c->app->api->ReleaseValue(p->input);
    c->app->api->ReleaseValue(p->output);
}

static bool host_allocation_pass(app_ctx *c)
{
    bool can = false;
    ORT_OK(c->app,
           c->app->interop->CanImportMemory(c->importer, ORT_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION, &can));
    if (!can) {
        printf("SKIP: host allocation pass: the device cannot import host allocations\n");
        return false;
    }
    size_t size = 0;
    char *host = test_page_alloc(REGION_BYTES, &size);
    if (!CHECK(host != NULL, "page-aligned allocation")) return true;
    OrtExternalMemoryDescriptor desc = {
        .version = c->app->api_version,
        .handle_type = ORT_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION,
        .native_handle = host,
        .size_bytes = size,
    };
    OrtExternalMemoryHandle *memory = NULL;
    if (ORT_OK(c->app, c->app->interop->ImportMemory(c->importer, &desc, &memory))) {
        char name[96];
        snprintf(name, sizeof(name), "host allocation, %s", c->session_name);
        pass p = {.c = c, .name = name, .host = host};
        run_pass(&p, memory, c->error_cases);
        c->app->interop->ReleaseExternalMemoryHandle(memory);
    }
    free(host);
    return true;
}

static bool opaque_fd_pass(app_ctx *c)
{
    bool can = false;
    ORT_OK(c->app,
           c->app->interop->CanImportMemory(c->importer, ORT_EXTERNAL_MEMORY_HANDLE_TYPE_MEMORY_OPAQUE_FD, &can));
    if (!can) {
        printf("SKIP: opaque FD pass: the device cannot import opaque FD memory\n");
        return false;
    }
    vk_producer *producer = NULL;
    vk_producer_buffer *buffer = NULL;
    if (!CHECK(test_producer_create(&producer) == 0, "producer device") ||
        !CHECK(test_producer_buffer(producer, REGION_BYTES, &buffer) == 0, "producer buffer"))
        goto out;
    int fd = vk_producer_buffer_export_fd(buffer);
    if (!CHECK(fd >= 0, "export the producer's memory: %d", fd)) goto out;
    OrtExternalMemoryDescriptor desc = {
        .version = c->app->api_version,
        .handle_type = ORT_EXTERNAL_MEMORY_HANDLE_TYPE_MEMORY_OPAQUE_FD,
        .native_handle = (void *)(intptr_t)fd,
        .size_bytes = vk_producer_buffer_alloc_size(buffer),
    };
    OrtExternalMemoryHandle *memory = NULL;
    bool ok = ORT_OK(c->app, c->app->interop->ImportMemory(c->importer, &desc, &memory));
    close(fd);
    if (ok) {
        char name[96];
        snprintf(name, sizeof(name), "opaque FD, %s", c->session_name);
        pass p = {.c = c, .name = name, .buffer = buffer};
        run_pass(&p, memory, false);
        c->app->interop->ReleaseExternalMemoryHandle(memory);
    }
out:
    vk_producer_buffer_destroy(buffer);
    vk_producer_destroy(producer);
    return true;
}

int main(void)
{
    ortapp app;
    app_ctx c = {.app = &app};
    test_open(&app, &c.device);
    setvbuf(stdout, NULL, _IONBF, 0);
    if (!CHECK(app.interop != NULL, "ORT has the interop API")) return test_finish(&app, "test_interop_host_timeline");
    ORT_OK(&app, app.interop->CreateExternalResourceImporterForDevice(c.device, &c.importer));
    if (!CHECK(c.importer != NULL, "ortvk gives an importer")) return test_finish(&app, "test_interop_host_timeline");
    bool can = false;
    ORT_OK(&app, app.interop->CanImportSemaphore(
                     c.importer, (OrtExternalSemaphoreType)ORTVK_EXTERNAL_SEMAPHORE_HOST_TIMELINE, &can));
    CHECK(can, "ortvk imports its host timeline semaphores on every device");

    /* Relu, which ortvk runs (the stream goes into the run options), then Sign, which it does not: ORT's CPU EP
     * runs it, and Run copies the input view to the host and the output back through ortvk's data transfer without
     * a stream. Those copies must still wait for the semaphore wait queued on the application's stream. (A session
     * without ortvk appended cannot stand in for the second: ORT skips every device copy in a CPU-only session and
     * hands its kernels the views' device addresses as if they were host memory.) */
    static const struct {
        const char *op, *name;
        float (*fn)(float);
    } sessions[] = {{"Relu", "Relu session", relu}, {"Sign", "Sign session", sign}};
    bool ran = false;
    for (size_t which = 0; which < sizeof(sessions) / sizeof(sessions[0]); which++) {
        uint8_t *model = NULL;
        size_t len = 0;
        if (!CHECK(test_model_one_op(sessions[which].op, 1, 2, shape, &model, &len) == 0, "build the %s model",
                   sessions[which].op))
            continue;
        c.session = test_session(&app, c.device, model, len, NULL, NULL, 0);
        free(model);
        if (c.session == NULL) continue;
        c.session_name = sessions[which].name;
        c.op_name = sessions[which].op;
        c.op = sessions[which].fn;
        c.error_cases = which == 0;
        c.ortvk_runs = ortvk_runs_input(&c);
        c.run_stream = run_stream_usable(c.ortvk_runs);
        printf("%s: %s runs the node; Run gets the stream in its run options: %s\n", c.session_name,
               c.ortvk_runs ? "ortvk" : "ORT's CPU EP", c.run_stream ? "yes" : "no (see run_stream_usable)");
        if (which == 1 && c.ortvk_runs)
            printf("note: ortvk now runs %s too, so nothing here covers Run's stream-less copies any more: give the "
                   "second session an op ortvk does not claim\n", c.op_name);
        ran |= host_allocation_pass(&c);
        ran |= opaque_fd_pass(&c);
        app.api->ReleaseSession(c.session);
    }
    app.interop->ReleaseExternalResourceImporter(c.importer);
    if (!ran && test_failures == 0) {
        ortapp_close(&app);
        printf("SKIP: the device imports neither host allocations nor opaque FD memory\n");
        return 77;
    }
    return test_finish(&app, "test_interop_host_timeline");
}
