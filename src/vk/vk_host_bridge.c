/* The host timeline bridge of an ortvk stream: a helper thread per stream that turns waits for and signals of host
 * timelines (ortvk_host_timeline) into GPU-side waits and signals in the stream's order, without blocking callers. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ort/ort_status.h"
#include "vk/vk_stream.h"

/* How long the helper thread sleeps between checks for a stop request while it waits. */
#define HOST_WAIT_SLICE_NS (20ull * 1000 * 1000)

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void free_job(ortvk_host_job *job)
{
    if (job->release) job->release(job->owner);
    free(job);
}

static void set_error(ortvk_stream *stream, const char *fmt, ...) ORTVK_PRINTF(2, 3);
static void set_error(ortvk_stream *stream, const char *fmt, ...)
{
    pthread_mutex_lock(&stream->jobs_lock);
    if (stream->error[0] == '\0') {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(stream->error, sizeof(stream->error), fmt, ap);
        va_end(ap);
    }
    pthread_mutex_unlock(&stream->jobs_lock);
}

static bool stopping(ortvk_stream *stream)
{
    pthread_mutex_lock(&stream->jobs_lock);
    bool stop = stream->stopping;
    pthread_mutex_unlock(&stream->jobs_lock);
    return stop;
}

static void run_wait_job(ortvk_stream *stream, const ortvk_host_job *job)
{
    uint64_t deadline = now_ms() + stream->host_timeout_ms;
    int rc;
    do {
        rc = ortvk_host_timeline_wait(job->timeline, job->value, HOST_WAIT_SLICE_NS);
    } while (rc == -ETIMEDOUT && now_ms() < deadline && !stopping(stream));
    if (rc != 0) {
        pthread_mutex_lock(&stream->jobs_lock);
        stream->withhold_until = UINT64_MAX;
        pthread_mutex_unlock(&stream->jobs_lock);
        set_error(stream,
                  "host timeline wait for value %llu %s after %llu ms (its value is %llu; is the producer gone?); "
                  "the stream went on without it, and host timeline signals queued behind it are withheld",
                  (unsigned long long)job->value, stopping(stream) ? "was abandoned" : "timed out",
                  (unsigned long long)stream->host_timeout_ms,
                  (unsigned long long)ortvk_host_timeline_value(job->timeline));
    }
    /* Signal the bridge whatever happened: GPU work queued behind it must never hang the device. */
    VkSemaphoreSignalInfo signal = {
        .sType = VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO,
        .semaphore = stream->bridge,
        .value = job->gpu_value,
    };
    VkResult r = vkSignalSemaphore(stream->device->vk, &signal);
    if (r != VK_SUCCESS) set_error(stream, "vkSignalSemaphore failed: %s (%d)", ortvk_vk_result_name(r), r);
}

static void run_signal_job(ortvk_stream *stream, const ortvk_host_job *job)
{
    VkSemaphoreWaitInfo info = {
        .sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
        .semaphoreCount = 1,
        .pSemaphores = &stream->timeline,
        .pValues = &job->gpu_value,
    };
    /* In slices, so that releasing the stream is not held up by GPU work that never finishes. */
    VkResult r;
    while ((r = vkWaitSemaphores(stream->device->vk, &info, HOST_WAIT_SLICE_NS)) == VK_TIMEOUT && !stopping(stream)) {
    }
    if (r != VK_SUCCESS) {
        set_error(stream, "waiting for stream value %llu before a host signal: vkWaitSemaphores failed: %s (%d)",
                  (unsigned long long)job->gpu_value, ortvk_vk_result_name(r), r);
        return;
    }
    /* Never signal a value whose preceding wait failed: the consumer would take invalid output for valid. */
    pthread_mutex_lock(&stream->jobs_lock);
    bool withheld = job->seq <= stream->withhold_until;
    pthread_mutex_unlock(&stream->jobs_lock);
    if (withheld) {
        set_error(stream, "host timeline signal of value %llu withheld: a host timeline wait queued before it on this "
                          "stream failed",
                  (unsigned long long)job->value);
        return;
    }
    int rc = ortvk_host_timeline_signal(job->timeline, job->value);
    if (rc != 0) {
        set_error(stream, "signaling host timeline value %llu failed (its value is already %llu)",
                  (unsigned long long)job->value, (unsigned long long)ortvk_host_timeline_value(job->timeline));
    }
}

/* Takes `jobs_lock` only, never `lock` (vk_stream.h): the thread that would unblock a submitter must not wait for
 * it. */
static void *host_thread(void *arg)
{
    ortvk_stream *stream = arg;
    for (;;) {
        pthread_mutex_lock(&stream->jobs_lock);
        while (stream->jobs_head == NULL && !stream->stopping)
            pthread_cond_wait(&stream->jobs_changed, &stream->jobs_lock);
        ortvk_host_job *job = stream->jobs_head;
        if (job != NULL) {
            stream->jobs_head = job->next;
            if (stream->jobs_head == NULL) stream->jobs_tail = NULL;
        }
        pthread_mutex_unlock(&stream->jobs_lock);
        if (job == NULL) return NULL; /* stopping and drained */
        if (job->kind == ORTVK_HOST_JOB_WAIT) run_wait_job(stream, job);
        else run_signal_job(stream, job);
        free_job(job);
    }
}

/* Lock held. */
static OrtStatus *start_thread(ortvk_stream *stream)
{
    if (stream->thread_started) return NULL;
    OrtStatus *status = ortvk_device_create_timeline(stream->device, &stream->bridge);
    if (status != NULL) return status;
    int rc = pthread_create(&stream->thread, NULL, host_thread, stream);
    if (rc != 0) {
        vkDestroySemaphore(stream->device->vk, stream->bridge, NULL);
        stream->bridge = VK_NULL_HANDLE;
        return ortvk_status(ORT_FAIL, "starting the stream's host timeline thread: error %d", rc);
    }
    stream->thread_started = true;
    return NULL;
}

static void push_job(ortvk_stream *stream, ortvk_host_job *job)
{
    pthread_mutex_lock(&stream->jobs_lock);
    job->seq = ++stream->job_seq;
    if (stream->jobs_tail) stream->jobs_tail->next = job;
    else stream->jobs_head = job;
    stream->jobs_tail = job;
    pthread_cond_signal(&stream->jobs_changed);
    pthread_mutex_unlock(&stream->jobs_lock);
}

static ortvk_host_job *new_job(ortvk_host_job_kind kind, ortvk_host_timeline *timeline, uint64_t value,
                               void (*release)(void *), void *owner)
{
    ortvk_host_job *job = calloc(1, sizeof(*job));
    if (job == NULL) return NULL;
    *job = (ortvk_host_job){.kind = kind, .timeline = timeline, .value = value, .release = release, .owner = owner};
    return job;
}

OrtStatus *ortvk_stream_wait_host_timeline(ortvk_stream *stream, ortvk_host_timeline *timeline, uint64_t value,
                                           void (*release)(void *), void *owner)
{
    ortvk_host_job *job = new_job(ORTVK_HOST_JOB_WAIT, timeline, value, NULL, NULL);
    if (job == NULL) return ortvk_status(ORT_FAIL, "out of host memory queuing a host timeline wait");
    /* From the bridge value to the job's push, no other host wait or signal on this stream may interleave: the
     * helper thread signals bridge values in the order jobs arrive (a lower value after a higher one is invalid),
     * and a signal job waits for every submission made before it, this wait's included. */
    pthread_mutex_lock(&stream->host_order);
    pthread_mutex_lock(&stream->lock);
    OrtStatus *status = start_thread(stream);
    uint64_t bridge_value = ++stream->bridge_next; /* a value lost to a failed submit is simply skipped */
    pthread_mutex_unlock(&stream->lock);
    if (status == NULL) {
        /* The GPU side first: the stream's next submission waits for the bridge value, and every later one behind
         * it (no submission of its own: the wait joins the next work, or whoever observes the stream's tail). */
        ortvk_semaphore_point bridge = {stream->bridge, bridge_value};
        status = ortvk_stream_add_wait(stream, bridge);
    }
    if (status == NULL) {
        job->gpu_value = bridge_value;
        job->release = release;
        job->owner = owner;
        push_job(stream, job);
    }
    pthread_mutex_unlock(&stream->host_order);
    if (status != NULL) free(job);
    return status;
}

OrtStatus *ortvk_stream_signal_host_timeline(ortvk_stream *stream, ortvk_host_timeline *timeline, uint64_t value,
                                             void (*release)(void *), void *owner)
{
    ortvk_host_job *job = new_job(ORTVK_HOST_JOB_SIGNAL, timeline, value, NULL, NULL);
    if (job == NULL) return ortvk_status(ORT_FAIL, "out of host memory queuing a host timeline signal");
    pthread_mutex_lock(&stream->host_order); /* see ortvk_stream_wait_host_timeline */
    OrtStatus *status = NULL;
    /* Work of other streams this signal must follow joins the stream's timeline through an empty submission. */
    if (atomic_load(&stream->order_after_device) != ORTVK_ORDER_NONE)
        status = ortvk_stream_submit(stream, VK_NULL_HANDLE, NULL, 0, NULL, 0, (ortvk_retire){0}, NULL);
    pthread_mutex_lock(&stream->lock);
    if (status == NULL) status = start_thread(stream);
    job->gpu_value = stream->submitted;
    pthread_mutex_unlock(&stream->lock);
    if (status == NULL) {
        job->release = release;
        job->owner = owner;
        push_job(stream, job); /* still under host_order: jobs keep the order of their stream values */
    }
    pthread_mutex_unlock(&stream->host_order);
    if (status != NULL) free(job);
    return status;
}
