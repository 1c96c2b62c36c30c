/* WaitSemaphore/SignalSemaphore after a failure, on host timelines: a signal queued behind a wait that timed out, or
 * that was abandoned when its stream was released, is never delivered; the failure is reported by the next call on
 * the stream, and signals queued after that report are delivered again. Then a long mixed sequence (values going
 * backwards, UINT64_MAX, a second timeline and stream) that must leave no validation-layer message behind. */
#include <string.h>
#include <time.h>

#include "test_util.h"

static void sleep_ms(unsigned ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

typedef struct ctx {
    ortapp *app;
    const OrtEpDevice *device;
    OrtExternalResourceImporter *importer;
} ctx;

static OrtSyncStream *make_stream(ctx *c, unsigned timeout_ms)
{
    OrtKeyValuePairs *options = NULL;
    char text[32];
    snprintf(text, sizeof(text), "%u", timeout_ms);
    c->app->api->CreateKeyValuePairs(&options);
    c->app->api->AddKeyValuePair(options, ORTVK_STREAM_OPTION_HOST_WAIT_TIMEOUT_MS, text);
    OrtSyncStream *stream = NULL;
    ORT_OK(c->app, c->app->api->CreateSyncStreamForEpDevice(c->device, options, &stream));
    c->app->api->ReleaseKeyValuePairs(options);
    return stream;
}

static OrtExternalSemaphoreHandle *import_timeline(ctx *c, ortvk_host_timeline *timeline)
{
    return test_import_host_timeline(c->app, c->importer, timeline);
}

/* Waits up to `ms` for `timeline` to reach `value`; true when it did. */
static bool reaches(ortvk_host_timeline *timeline, uint64_t value, unsigned ms)
{
    return ortvk_host_timeline_wait(timeline, value, (uint64_t)ms * 1000000ull) == 0;
}

/* A wait that times out (200 ms), a signal queued behind it: withheld, reported, then signals work again. */
static void timed_out_wait(ctx *c)
{
    ortvk_host_timeline *in = NULL, *out = NULL;
    if (!CHECK(ortvk_host_timeline_create(0, &in) == 0 && ortvk_host_timeline_create(0, &out) == 0, "timelines"))
        return;
    OrtExternalSemaphoreHandle *hin = import_timeline(c, in), *hout = import_timeline(c, out);
    OrtSyncStream *stream = make_stream(c, 200);
    if (hin && hout && stream) {
        ORT_OK(c->app, c->app->interop->WaitSemaphore(c->importer, hin, stream, 1)); /* nobody signals 1 */
        ORT_OK(c->app, c->app->interop->SignalSemaphore(c->importer, hout, stream, 1));
        bool delivered = reaches(out, 1, 1000);
        CHECK(!delivered, "a signal queued behind a wait that timed out is withheld (the consumer saw %llu)",
              (unsigned long long)ortvk_host_timeline_value(out));
        /* The next call on the stream reports the failure (and is not carried out). */
        ORT_FAILS(c->app, c->app->interop->SignalSemaphore(c->importer, hout, stream, 2), ORT_EP_FAIL, "timed out");
        CHECK(ortvk_host_timeline_value(out) == 0, "the failed call queued nothing");
        /* Reported: the stream serves again. */
        ORT_OK(c->app, c->app->interop->SignalSemaphore(c->importer, hout, stream, 3));
        CHECK(reaches(out, 3, 5000), "a signal queued after the report is delivered (value %llu)",
              (unsigned long long)ortvk_host_timeline_value(out));
        ortvk_host_timeline_signal(in, 1);
    }
    if (stream) c->app->api->ReleaseSyncStream(stream);
    if (hin) c->app->interop->ReleaseExternalSemaphoreHandle(hin);
    if (hout) c->app->interop->ReleaseExternalSemaphoreHandle(hout);
    ortvk_host_timeline_close(in);
    ortvk_host_timeline_close(out);
}

/* A wait still pending when its stream is released is abandoned: the signal behind it is withheld too. */
static void released_stream(ctx *c)
{
    ortvk_host_timeline *in = NULL, *out = NULL;
    if (!CHECK(ortvk_host_timeline_create(0, &in) == 0 && ortvk_host_timeline_create(0, &out) == 0, "timelines"))
        return;
    OrtExternalSemaphoreHandle *hin = import_timeline(c, in), *hout = import_timeline(c, out);
    OrtSyncStream *stream = make_stream(c, 60000);
    if (hin && hout && stream) {
        ORT_OK(c->app, c->app->interop->WaitSemaphore(c->importer, hin, stream, 5));
        ORT_OK(c->app, c->app->interop->SignalSemaphore(c->importer, hout, stream, 10));
        c->app->api->ReleaseSyncStream(stream);
        stream = NULL;
        CHECK(!reaches(out, 10, 300), "a signal behind a wait abandoned by the stream's release is withheld (%llu)",
              (unsigned long long)ortvk_host_timeline_value(out));
    }
    if (stream) c->app->api->ReleaseSyncStream(stream);
    if (hin) c->app->interop->ReleaseExternalSemaphoreHandle(hin);
    if (hout) c->app->interop->ReleaseExternalSemaphoreHandle(hout);
    ortvk_host_timeline_close(in);
    ortvk_host_timeline_close(out);
}

/* Waits and signals with values going backwards, UINT64_MAX, then a second timeline and stream. Every call either
 * succeeds or fails with a status; the final signals arrive; the validation layer (on in the suite) stays silent. */
static void mixed_sequence(ctx *c)
{
    ortvk_host_timeline *t1 = NULL, *t2 = NULL;
    if (!CHECK(ortvk_host_timeline_create(0, &t1) == 0 && ortvk_host_timeline_create(0, &t2) == 0, "timelines"))
        return;
    OrtExternalSemaphoreHandle *h1 = import_timeline(c, t1), *h2 = import_timeline(c, t2);
    OrtSyncStream *s1 = make_stream(c, 100), *s2 = make_stream(c, 100);
    if (h1 && h2 && s1 && s2) {
        const uint64_t waits[] = {3, 1, 7, 2, 0, UINT64_MAX, 5, UINT64_MAX - 1, 1};
        const uint64_t signals[] = {5, 4, 9, 9, 20, UINT64_MAX - 1, 6, UINT64_MAX, 2};
        const char *rounds_text = getenv("ORTVK_TEST_ROUNDS");
        int rounds = rounds_text ? atoi(rounds_text) : 1;
        for (size_t i = 0; i < rounds * sizeof(waits) / sizeof(waits[0]); i++) {
            size_t k = i % (sizeof(waits) / sizeof(waits[0]));
            OrtStatus *st = c->app->interop->WaitSemaphore(c->importer, h1, s1, waits[k]);
            if (st) c->app->api->ReleaseStatus(st);
            st = c->app->interop->SignalSemaphore(c->importer, h1, s1, signals[k]);
            if (st) c->app->api->ReleaseStatus(st);
            sleep_ms(30);
        }
        sleep_ms(300); /* the UINT64_MAX wait times out after 100 ms */
        /* The second timeline and stream work from scratch, whatever the first went through. */
        for (uint64_t v = 1; v <= 4; v++) {
            ORT_OK(c->app, c->app->interop->SignalSemaphore(c->importer, h2, s2, 2 * v));
            ORT_OK(c->app, c->app->interop->WaitSemaphore(c->importer, h2, s2, 2 * v));
        }
        CHECK(reaches(t2, 8, 5000), "the second timeline reaches 8 (value %llu)",
              (unsigned long long)ortvk_host_timeline_value(t2));
    }
    if (s1) c->app->api->ReleaseSyncStream(s1);
    if (s2) c->app->api->ReleaseSyncStream(s2);
    if (h1) c->app->interop->ReleaseExternalSemaphoreHandle(h1);
    if (h2) c->app->interop->ReleaseExternalSemaphoreHandle(h2);
    ortvk_host_timeline_close(t1);
    ortvk_host_timeline_close(t2);
}

int main(void)
{
    ortapp app;
    ctx c = {.app = &app};
    test_open(&app, &c.device);
    ORT_OK(&app, app.interop->CreateExternalResourceImporterForDevice(c.device, &c.importer));
    if (!CHECK(c.importer != NULL, "ortvk gives an importer"))
        return test_finish(&app, "test_interop_semaphore_failures");
    timed_out_wait(&c);
    released_stream(&c);
    mixed_sequence(&c);
    app.interop->ReleaseExternalResourceImporter(c.importer);
    return test_finish(&app, "test_interop_semaphore_failures");
}
