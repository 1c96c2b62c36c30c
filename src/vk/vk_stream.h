/* Private to ortvk. ortvk_stream: ORT's OrtSyncStreamImpl on a Vulkan queue. Every submission waits for the
 * stream's timeline semaphore at the previous value and signals the next one, so work on a stream runs in
 * submission order; a helper thread (vk_host_bridge.c) bridges host timelines into that order without blocking. */
#ifndef ORTVK_VK_STREAM_H
#define ORTVK_VK_STREAM_H

#include "ortvk.h"
#include "vk/vk_buffer.h"

/* A semaphore a submission waits for or signals, besides the stream's own timeline. */
typedef struct ortvk_semaphore_point {
    VkSemaphore semaphore;
    uint64_t value;
} ortvk_semaphore_point;

/* What a submission keeps alive until the GPU is done with it: a staging buffer, and/or a reference dropped
 * through `release(owner)` (an imported semaphore the submission waits on or signals). */
typedef struct ortvk_retire {
    ortvk_buffer *buffer;
    void (*release)(void *owner);
    void *owner;
} ortvk_retire;

typedef struct ortvk_retired {
    uint64_t value;
    VkCommandBuffer commands;
    ortvk_retire what;
} ortvk_retired;

/* A host-side job run in order by the stream's helper thread. */
typedef enum ortvk_host_job_kind {
    ORTVK_HOST_JOB_WAIT,   /* wait for `timeline` >= value, then signal the bridge semaphore */
    ORTVK_HOST_JOB_SIGNAL, /* wait for the stream's timeline to pass gpu_value, then signal `timeline` */
} ortvk_host_job_kind;

typedef struct ortvk_host_job {
    struct ortvk_host_job *next;
    ortvk_host_job_kind kind;
    ortvk_host_timeline *timeline;
    uint64_t value;
    uint64_t gpu_value;          /* SIGNAL: stream timeline value to wait for; WAIT: bridge value to signal */
    void (*release)(void *owner); /* drops the job's reference on whoever owns `timeline` */
    void *owner;
    uint64_t seq;                /* 1, 2, ... in the order jobs reach the helper thread */
} ortvk_host_job;

struct ortvk_stream {
    OrtSyncStreamImpl base;      /* first: ORT hands us this pointer */
    ortvk_device *device;        /* holds a reference */
    const void *owner;           /* the OrtEp whose session stream this is; NULL for an application's stream */
    atomic_int order_after_device; /* ORTVK_ORDER_*: what the next submission also waits for */
    ortvk_stream_info info;      /* what GetHandle returns (include/ortvk.h) */

    /* Held across a whole host timeline wait (bridge value, its submission, its job) or signal (stream value, its
     * job), so that jobs reach the helper thread in the order of their bridge values and never after a signal job
     * whose stream value depends on them. Taken before `lock`. */
    pthread_mutex_t host_order;
    /* Guards the submission state below, and is held across vkQueueSubmit (and the wait for the device's queue
     * lock): a stream's timeline values must reach the queue in order. A driver may block in vkQueueSubmit until
     * the GPU moves, so the helper thread never takes this lock (see `jobs_lock`). */
    pthread_mutex_t lock;
    VkCommandPool pool;
    VkSemaphore timeline;
    uint64_t submitted;          /* last value a submission will signal */
    ortvk_semaphore_point *waits; /* consumed by the next submission */
    size_t wait_count, wait_capacity;
    ortvk_retired *retired;
    size_t retired_count, retired_capacity;

    /* Host bridge: created on the first host timeline wait or signal (under `lock`). */
    VkSemaphore bridge;          /* signaled from the host by the helper thread */
    uint64_t bridge_next;
    pthread_t thread;
    bool thread_started;
    uint64_t host_timeout_ms;

    /* The helper thread's side, guarded by `jobs_lock` alone. The helper thread signals the bridge that queued GPU
     * work waits for, and the host timelines producers wait for before they let that work go: it must never wait
     * for a thread that holds `lock`, which may sit in vkQueueSubmit until the GPU gets through that work (NVIDIA's
     * did, then gave up with VK_ERROR_DEVICE_LOST: docs/reliability.md, bug 9; lavapipe's never blocks). Nothing
     * Vulkan is called with `jobs_lock` held, and `lock` is never taken under it. */
    pthread_mutex_t jobs_lock;
    pthread_cond_t jobs_changed;
    ortvk_host_job *jobs_head, *jobs_tail;
    bool stopping;
    char error[512];             /* failure from the helper thread, reported by the next stream call */
    /* After a host wait failed (timed out, or abandoned when the stream is released), the signal jobs queued behind
     * it are withheld: those with seq <= withhold_until. UINT64_MAX until the failure is reported
     * (ortvk_stream_take_error), then the last seq queued by then; 0 when nothing failed. */
    uint64_t job_seq;
    uint64_t withhold_until;
};

/* `owner` tags a session's streams (the OrtEp, which finds them through ortvk_device_foreach_stream); NULL for
 * other streams. It is set before the stream becomes visible in the device's stream registry. */
OrtStatus *ortvk_stream_create(ortvk_device *device, uint64_t host_timeout_ms, const void *owner,
                               ortvk_stream **out) ORTVK_MUST_CHECK;
void ortvk_stream_destroy(ortvk_stream *stream);

/* The ortvk stream behind an ORT OrtSyncStream, or NULL when the stream is another EP's. */
ortvk_stream *ortvk_stream_from_ort(OrtSyncStream *stream);

/* A command buffer in the recording state, from the stream's pool. */
OrtStatus *ortvk_stream_begin(ortvk_stream *stream, VkCommandBuffer *out) ORTVK_MUST_CHECK;

/* Ends and submits `commands` (may be VK_NULL_HANDLE for a pure wait/signal), ordered after all earlier work,
 * also waiting for `waits` and signaling `signals`. `retire` is released once the GPU is done, or at once when
 * the submission fails. On success *value (may be NULL) is the stream timeline value that marks completion. */
OrtStatus *ortvk_stream_submit(ortvk_stream *stream, VkCommandBuffer commands, const ortvk_semaphore_point *waits,
                               size_t wait_count, const ortvk_semaphore_point *signals, size_t signal_count,
                               ortvk_retire retire, uint64_t *value) ORTVK_MUST_CHECK;

/* What a stream's next submission also waits for, besides its own earlier work. */
enum {
    ORTVK_ORDER_NONE = 0,
    ORTVK_ORDER_SESSIONS = 1, /* the last value of every session's stream (streams with an owner) */
    ORTVK_ORDER_ALL = 2,      /* the last value of every other stream of the device */
};

/* Makes the next submission also wait for what `order` names (the wider request wins). SignalSemaphore asks for
 * ORTVK_ORDER_SESSIONS only: waiting for other applications' streams, which may hold waits on their producers,
 * could close a cycle between two pipelines (each producer waiting for the other's output). */
void ortvk_stream_order_after_device(ortvk_stream *stream, int order);

/* Makes the next submission wait for `point` (another stream's timeline, for notifications). */
OrtStatus *ortvk_stream_add_wait(ortvk_stream *stream, ortvk_semaphore_point point) ORTVK_MUST_CHECK;

/* Host wait until every point's semaphore reaches its value (points of value 0 are skipped). */
OrtStatus *ortvk_semaphore_points_wait(ortvk_device *device, const ortvk_semaphore_point *points, size_t count,
                                      uint64_t timeout_ns) ORTVK_MUST_CHECK;

/* Host wait until the stream's timeline reaches `value` (UINT64_MAX: everything submitted so far). */
OrtStatus *ortvk_stream_wait_host(ortvk_stream *stream, uint64_t value) ORTVK_MUST_CHECK;

/* Queues a host timeline wait (the GPU waits, the caller does not) or signal. On success the job owns a
 * reference on `owner`, dropped through `release` when the job finishes. */
OrtStatus *ortvk_stream_wait_host_timeline(ortvk_stream *stream, ortvk_host_timeline *timeline, uint64_t value,
                                           void (*release)(void *), void *owner) ORTVK_MUST_CHECK;
OrtStatus *ortvk_stream_signal_host_timeline(ortvk_stream *stream, ortvk_host_timeline *timeline, uint64_t value,
                                             void (*release)(void *), void *owner) ORTVK_MUST_CHECK;

/* Reports (and clears) a failure of the helper thread, e.g. a host timeline wait that timed out. Host timeline
 * signals queued on the stream before the report, behind the failed wait, are never delivered; those queued after
 * it are. */
OrtStatus *ortvk_stream_take_error(ortvk_stream *stream) ORTVK_MUST_CHECK;

/* The stream's last submitted timeline point. */
ortvk_semaphore_point ortvk_stream_tail(ortvk_stream *stream);

/* Host wait for everything the stream's next submission would wait for: its last submitted value, the cross-stream
 * waits queued on it (ortvk_stream_add_wait) and the device's other streams it is to be ordered after
 * (ortvk_stream_order_after_device, left in place for that submission). A host access in stream order then needs no
 * submission of its own. */
OrtStatus *ortvk_stream_wait_host_ordered(ortvk_stream *stream) ORTVK_MUST_CHECK;

#endif
