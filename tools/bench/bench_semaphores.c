/* ortvk-bench 3: what WaitSemaphore and SignalSemaphore cost the calling thread on an ortvk stream, and proof
 * that WaitSemaphore does not block it.
 *
 * Enqueue cost, per iteration i: WaitSemaphore(2i+1) on a value nobody has signaled yet (the case that matters:
 * the application queues the wait before the producer is done) and SignalSemaphore(2i+2), each timed alone; then,
 * untimed, the "producer" signals 2i+1 and the bench waits for ortvk's 2i+2, so each iteration starts from an idle
 * stream.
 *
 * Proof: a producer thread signals the awaited value only after --delay-ms. The bench calls WaitSemaphore, reads
 * the semaphore's value as soon as the call returns, queues SignalSemaphore(value + 1) behind it and waits for
 * that on the host. It passes when every trial's WaitSemaphore returned with the semaphore still below the awaited
 * value and in under a quarter of the delay, and ortvk's signal came only after the producer's. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

#define PROOF_TRIALS 3

/* One semaphore as the bench drives it: an ortvk host timeline, or the producer's Vulkan timeline. */
typedef struct sem_kind {
    bench *b;
    bool vk;
    ortvk_host_timeline *timeline;
    uint64_t base; /* values used are base + 1, base + 2, ... */
} sem_kind;

static int host_signal(sem_kind *s, uint64_t value)
{
    int rc =
        s->vk ? vk_producer_timeline_signal(s->b->producer, value) : ortvk_host_timeline_signal(s->timeline, value);
    if (rc != 0)
        fprintf(stderr, "ortvk-bench: %s(%llu) failed: %s\n",
                s->vk ? "vk_producer_timeline_signal" : "ortvk_host_timeline_signal", (unsigned long long)value,
                strerror(-rc));
    return rc;
}

static int host_wait(sem_kind *s, uint64_t value)
{
    int rc = s->vk ? vk_producer_timeline_wait(s->b->producer, value, BENCH_WAIT_NS)
                   : ortvk_host_timeline_wait(s->timeline, value, BENCH_WAIT_NS);
    if (rc != 0)
        fprintf(stderr, "ortvk-bench: waiting for ortvk's signal of %llu failed: %s\n", (unsigned long long)value,
                strerror(-rc));
    return rc;
}

static uint64_t current_value(sem_kind *s)
{
    uint64_t v = 0;
    if (s->vk) vk_producer_timeline_value(s->b->producer, &v);
    else v = ortvk_host_timeline_value(s->timeline);
    return v;
}

typedef struct delayed {
    sem_kind *s;
    uint64_t value;
    int delay_ms;
    double signaled_at_us;
    int rc;
} delayed;

static void *delayed_signal(void *arg)
{
    delayed *d = arg;
    bench_sleep_ms(d->delay_ms);
    d->signaled_at_us = bench_now_us();
    d->rc = host_signal(d->s, d->value);
    return NULL;
}

static int measure(sem_kind *s, OrtExternalSemaphoreHandle *handle, semaphore_result *r)
{
    bench *b = s->b;
    const OrtInteropApi *interop = b->app.interop;
    OrtSyncStream *stream = NULL;
    if (BENCH_ORT(b, b->app.api->CreateSyncStreamForEpDevice(b->device, NULL, &stream))) return -1;
    int n = b->opt.iterations, warmup = n / 10 + 1;
    double *waits = calloc((size_t)n, sizeof(double)), *signals = calloc((size_t)n, sizeof(double));
    int rc = waits && signals ? 0 : -1;
    uint64_t v = s->base;
    for (int i = 0; i < warmup + n && rc == 0; i++, v += 2) {
        double t0 = bench_now_us();
        if (BENCH_ORT(b, interop->WaitSemaphore(b->importer, handle, stream, v + 1))) rc = -1;
        double t1 = bench_now_us();
        if (rc == 0 && BENCH_ORT(b, interop->SignalSemaphore(b->importer, handle, stream, v + 2))) rc = -1;
        double t2 = bench_now_us();
        if (rc == 0) rc = host_signal(s, v + 1);
        if (rc == 0) rc = host_wait(s, v + 2);
        if (rc == 0 && i >= warmup) {
            waits[i - warmup] = t1 - t0;
            signals[i - warmup] = t2 - t1;
        }
    }
    if (rc == 0) {
        r->wait = bench_stat_of(waits, (size_t)n);
        r->signal = bench_stat_of(signals, (size_t)n);
    }

    /* The proof. */
    r->trials = PROOF_TRIALS;
    r->below_at_return = true;
    r->min_signal_after_ms = r->min_done_after_ms = 1e300;
    double limit_us = b->opt.delay_ms * 1000.0 / 4;
    bool ordered = true;
    for (int t = 0; t < PROOF_TRIALS && rc == 0; t++, v += 2) {
        delayed d = {.s = s, .value = v + 1, .delay_ms = b->opt.delay_ms};
        pthread_t thread;
        if (pthread_create(&thread, NULL, delayed_signal, &d) != 0) {
            fprintf(stderr, "ortvk-bench: pthread_create failed\n");
            rc = -1;
            break;
        }
        double call0 = bench_now_us();
        OrtStatus *status = interop->WaitSemaphore(b->importer, handle, stream, v + 1);
        double call1 = bench_now_us();
        uint64_t seen = current_value(s);
        if (BENCH_ORT(b, status)) rc = -1;
        if (rc == 0 && BENCH_ORT(b, interop->SignalSemaphore(b->importer, handle, stream, v + 2))) rc = -1;
        pthread_join(thread, NULL);
        if (rc == 0 && d.rc != 0) rc = -1;
        if (rc == 0) rc = host_wait(s, v + 2);
        double done = bench_now_us();
        if (rc != 0) break;
        r->awaited = v + 1;
        if (call1 - call0 > r->max_wait_call_us) r->max_wait_call_us = call1 - call0;
        if (seen > r->max_value_at_return) r->max_value_at_return = seen;
        r->below_at_return = r->below_at_return && seen < v + 1;
        double signal_after = (d.signaled_at_us - call0) / 1000, done_after = (done - call0) / 1000;
        if (signal_after < r->min_signal_after_ms) r->min_signal_after_ms = signal_after;
        if (done_after < r->min_done_after_ms) r->min_done_after_ms = done_after;
        ordered = ordered && done >= d.signaled_at_us;
    }
    r->pass = rc == 0 && r->below_at_return && r->max_wait_call_us < limit_us && ordered;
    if (rc == 0 && !r->pass) {
        fprintf(stderr,
                "ortvk-bench: %s: WaitSemaphore BLOCKED or misordered: slowest call %.1f us (limit %.1f us), value at "
                "return %llu (awaited %llu)\n",
                r->semaphore, r->max_wait_call_us, limit_us, (unsigned long long)r->max_value_at_return,
                (unsigned long long)r->awaited);
        b->failures++;
    }
    s->base = v;
    free(waits);
    free(signals);
    b->app.api->ReleaseSyncStream(stream);
    return rc;
}

int bench_semaphores(bench *b)
{
    const OrtInteropApi *interop = b->app.interop;
    bool can_host = false, can_vk = false;
    if (BENCH_ORT(b, interop->CanImportSemaphore(
                         b->importer, (OrtExternalSemaphoreType)ORTVK_EXTERNAL_SEMAPHORE_HOST_TIMELINE, &can_host)) ||
        BENCH_ORT(b, interop->CanImportSemaphore(b->importer, ORT_EXTERNAL_SEMAPHORE_VK_TIMELINE_SEMAPHORE_OPAQUE_FD,
                                                 &can_vk)))
        return -1;

    /* ortvk host timeline */
    semaphore_result *r = &b->semaphores[b->semaphore_count++];
    memset(r, 0, sizeof(*r));
    snprintf(r->semaphore, sizeof(r->semaphore), "host timeline");
    if (!can_host) {
        snprintf(r->why_not, sizeof(r->why_not), "CanImportSemaphore(HOST_TIMELINE) says no on %s", b->device_name);
    } else {
        sem_kind s = {.b = b};
        if (ortvk_host_timeline_create(0, &s.timeline) != 0) {
            fprintf(stderr, "ortvk-bench: ortvk_host_timeline_create failed\n");
            return -1;
        }
        OrtExternalSemaphoreDescriptor sd = {.version = b->app.api_version,
                                             .type = (OrtExternalSemaphoreType)ORTVK_EXTERNAL_SEMAPHORE_HOST_TIMELINE,
                                             .native_handle = (void *)(intptr_t)ortvk_host_timeline_fd(s.timeline)};
        OrtExternalSemaphoreHandle *handle = NULL;
        int rc = BENCH_ORT(b, interop->ImportSemaphore(b->importer, &sd, &handle)) ? -1 : 0;
        if (rc == 0) {
            bench_progress(b, "semaphores, host timeline: %d iterations, then the non-blocking proof",
                           b->opt.iterations);
            r->available = true;
            rc = measure(&s, handle, r);
            interop->ReleaseExternalSemaphoreHandle(handle);
        }
        ortvk_host_timeline_close(s.timeline);
        if (rc != 0) return -1;
    }

    /* the producer's Vulkan timeline, imported as an FD */
    r = &b->semaphores[b->semaphore_count++];
    memset(r, 0, sizeof(*r));
    snprintf(r->semaphore, sizeof(r->semaphore), "Vulkan timeline FD");
    int fd = can_vk ? vk_producer_timeline_export_fd(b->producer) : -1;
    if (!can_vk || fd < 0) {
        if (!can_vk)
            snprintf(r->why_not, sizeof(r->why_not),
                     "not measured: CanImportSemaphore(VK_TIMELINE_SEMAPHORE_OPAQUE_FD) says no on %s", b->device_name);
        else
            snprintf(r->why_not, sizeof(r->why_not), "not measured: the producer's driver exports no timeline "
                     "semaphore FDs (vk_producer_timeline_export_fd: %s)", strerror(-fd));
        if (fd >= 0) close(fd);
        return 0;
    }
    OrtExternalSemaphoreDescriptor sd = {.version = b->app.api_version,
                                         .type = ORT_EXTERNAL_SEMAPHORE_VK_TIMELINE_SEMAPHORE_OPAQUE_FD,
                                         .native_handle = (void *)(intptr_t)fd};
    OrtExternalSemaphoreHandle *handle = NULL;
    bool failed = BENCH_ORT(b, interop->ImportSemaphore(b->importer, &sd, &handle));
    close(fd);
    if (failed) return -1;
    bench_progress(b, "semaphores, Vulkan timeline FD: %d iterations, then the non-blocking proof", b->opt.iterations);
    r->available = true;
    sem_kind s = {.b = b, .vk = true, .base = b->producer_value};
    int rc = measure(&s, handle, r);
    b->producer_value = s.base;
    interop->ReleaseExternalSemaphoreHandle(handle);
    return rc;
}
