/* ortvk_stream: ORT's OrtSyncStreamImpl; submissions ordered by a timeline semaphore, and the deferred release of
 * what the GPU still uses. The host timeline bridge (helper thread) is vk_host_bridge.c. */
#include "vk/vk_stream.h"

#include <stdlib.h>
#include <string.h>

#include "ort/ort_status.h"

/* ---- ORT callbacks ------------------------------------------------------------------------------------- */

typedef struct ortvk_notification {
    OrtSyncNotificationImpl base; /* first */
    ortvk_stream *stream;         /* the producer; ORT keeps it alive while the notification lives */
    ortvk_semaphore_point point;  /* set by Activate */
} ortvk_notification;

ORTVK_DEFINE_BASE_CAST(notification_cast, ortvk_notification, OrtSyncNotificationImpl)
ORTVK_DEFINE_BASE_CAST(stream_cast, ortvk_stream, OrtSyncStreamImpl)

static void ORT_API_CALL notification_release(OrtSyncNotificationImpl *impl)
{
    free(notification_cast(impl));
}

/* Submits the waits a stream holds for its next submission (ortvk_stream_add_wait), so that its tail covers them. */
static OrtStatus *flush_waits(ortvk_stream *stream)
{
    pthread_mutex_lock(&stream->lock);
    bool pending = stream->wait_count > 0;
    pthread_mutex_unlock(&stream->lock);
    if (!pending) return NULL;
    return ortvk_stream_submit(stream, VK_NULL_HANDLE, NULL, 0, NULL, 0, (ortvk_retire){0}, NULL);
}

static OrtStatus *ORT_API_CALL notification_activate(OrtSyncNotificationImpl *impl)
{
    ortvk_notification *n = notification_cast(impl);
    ORTVK_TRY(flush_waits(n->stream));
    n->point = ortvk_stream_tail(n->stream);
    return NULL;
}

static OrtStatus *ORT_API_CALL notification_wait_on_device(OrtSyncNotificationImpl *impl, OrtSyncStream *consumer)
{
    ortvk_notification *n = notification_cast(impl);
    ortvk_stream *theirs = ortvk_stream_from_ort(consumer);
    if (theirs == n->stream || n->point.value == 0) return NULL;
    /* A consumer on our device waits on the GPU; anything else (another device, another EP) waits here. */
    if (theirs != NULL && theirs->device == n->stream->device) return ortvk_stream_add_wait(theirs, n->point);
    return ortvk_stream_wait_host(n->stream, n->point.value);
}

static OrtStatus *ORT_API_CALL notification_wait_on_host(OrtSyncNotificationImpl *impl)
{
    ortvk_notification *n = notification_cast(impl);
    if (n->point.value == 0) return NULL;
    return ortvk_stream_wait_host(n->stream, n->point.value);
}

static void ORT_API_CALL stream_release(OrtSyncStreamImpl *impl)
{
    ortvk_stream_destroy(stream_cast(impl));
}

static void *ORT_API_CALL stream_get_handle(OrtSyncStreamImpl *impl)
{
    return &stream_cast(impl)->info;
}

static OrtStatus *ORT_API_CALL stream_create_notification(OrtSyncStreamImpl *impl, OrtSyncNotificationImpl **out)
{
    ortvk_notification *n = calloc(1, sizeof(*n));
    if (n == NULL) return ortvk_status(ORT_FAIL, "out of host memory creating a notification");
    n->base.ort_version_supported = ortvk_ort_version;
    n->base.Release = notification_release;
    n->base.Activate = notification_activate;
    n->base.WaitOnDevice = notification_wait_on_device;
    n->base.WaitOnHost = notification_wait_on_host;
    n->stream = stream_cast(impl);
    *out = &n->base;
    return NULL;
}

/* Submissions go to the queue immediately, so a flush has nothing to push; it reports late failures. */
static OrtStatus *ORT_API_CALL stream_flush(OrtSyncStreamImpl *impl)
{
    return ortvk_stream_take_error(stream_cast(impl));
}

static void collect_retired(ortvk_stream *stream);

static void release_retire(ortvk_retire *what)
{
    ortvk_buffer_unref(what->buffer);
    if (what->release) what->release(what->owner);
    *what = (ortvk_retire){0};
}

static OrtStatus *ORT_API_CALL stream_on_session_run_end(OrtSyncStreamImpl *impl)
{
    ortvk_stream *stream = stream_cast(impl);
    pthread_mutex_lock(&stream->lock);
    collect_retired(stream);
    pthread_mutex_unlock(&stream->lock);
    return ortvk_stream_take_error(stream);
}

ortvk_stream *ortvk_stream_from_ort(OrtSyncStream *stream)
{
    if (stream == NULL) return NULL;
    const OrtSyncStreamImpl *impl = ortvk_ep_api->SyncStream_GetImpl(stream);
    /* Our Release pointer is the tag: it sits inside the base struct every impl has, so reading it is safe. */
    if (impl == NULL || impl->Release != stream_release) return NULL;
    return stream_cast(impl);
}

/* ---- life ---------------------------------------------------------------------------------------------- */

OrtStatus *ortvk_stream_create(ortvk_device *device, uint64_t host_timeout_ms, const void *owner,
                               ortvk_stream **out)
{
    *out = NULL;
    ortvk_stream *stream = calloc(1, sizeof(*stream));
    if (stream == NULL) return ortvk_status(ORT_FAIL, "out of host memory creating a stream");
    OrtStatus *status;
    VkCommandPoolCreateInfo pool_info = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
        .flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT,
        .queueFamilyIndex = device->caps.queue_family,
    };
    VkResult r = vkCreateCommandPool(device->vk, &pool_info, NULL, &stream->pool);
    if (r != VK_SUCCESS) {
        status = ortvk_status_vk(r, "vkCreateCommandPool", "creating a stream on device %u", device->index);
        goto err_pool;
    }
    status = ortvk_device_create_timeline(device, &stream->timeline);
    if (status != NULL) goto err_timeline;
    stream->owner = owner;
    stream->base.ort_version_supported = ortvk_ort_version;
    stream->base.Release = stream_release;
    stream->base.GetHandle = stream_get_handle;
    stream->base.CreateNotification = stream_create_notification;
    stream->base.Flush = stream_flush;
    stream->base.OnSessionRunEnd = stream_on_session_run_end;
    stream->info = (ortvk_stream_info){
        .version = ORTVK_STREAM_INFO_VERSION,
        .instance = device->instance->vk,
        .physical_device = device->physical,
        .device = device->vk,
        .queue = device->queue,
        .queue_family_index = device->caps.queue_family,
        .timeline = stream->timeline,
        .transfer_stats = &device->transfer_stats,
    };
    pthread_mutex_init(&stream->host_order, NULL);
    pthread_mutex_init(&stream->lock, NULL);
    pthread_mutex_init(&stream->jobs_lock, NULL);
    pthread_cond_init(&stream->jobs_changed, NULL);
    stream->host_timeout_ms = host_timeout_ms ? host_timeout_ms : ORTVK_DEFAULT_HOST_WAIT_TIMEOUT_MS;
    stream->device = device;
    /* Last: once listed, other threads order work after this stream and read its lock and timeline. */
    status = ortvk_device_add_stream(device, stream);
    if (status != NULL) goto err_register;
    ortvk_device_ref(device);
    *out = stream;
    return NULL;

err_register:
    pthread_cond_destroy(&stream->jobs_changed);
    pthread_mutex_destroy(&stream->jobs_lock);
    pthread_mutex_destroy(&stream->lock);
    pthread_mutex_destroy(&stream->host_order);
    vkDestroySemaphore(device->vk, stream->timeline, NULL);
err_timeline:
    vkDestroyCommandPool(device->vk, stream->pool, NULL);
err_pool:
    free(stream);
    return status;
}

static OrtStatus *wait_value(ortvk_stream *stream, uint64_t value, uint64_t timeout_ns);

void ortvk_stream_destroy(ortvk_stream *stream)
{
    if (stream == NULL) return;
    ortvk_device *device = stream->device;
    if (stream->thread_started) {
        /* Pending host waits are abandoned (their bridges signaled) so the GPU work behind them can drain. */
        pthread_mutex_lock(&stream->jobs_lock);
        stream->stopping = true;
        pthread_cond_broadcast(&stream->jobs_changed);
        pthread_mutex_unlock(&stream->jobs_lock);
        pthread_join(stream->thread, NULL);
    }
    ortvk_device_remove_stream(device, stream);
    /* Work that waits on an imported Vulkan semaphore nobody signals never finishes. Rather than hang the
     * application's release call, give it the stream's host-wait timeout, then leave its Vulkan objects (and the
     * device) alive: destroying what the GPU may still use would be worse than the leak. */
    OrtStatus *status = wait_value(stream, UINT64_MAX, stream->host_timeout_ms * 1000000ull);
    if (status != NULL) {
        ORTVK_LOG_ERROR(device->instance->logger,
                        "releasing a stream whose work has not finished (%s); its Vulkan objects are leaked",
                        ortvk_ort->GetErrorMessage(status));
        ortvk_ort->ReleaseStatus(status);
    } else {
        /* The timeline reaching its last value is not the end of the driver's use of it: Mesa 22.3's timeline
         * emulation (lavapipe) still releases each submission's wait point, under the semaphore's mutex, after the
         * work is done. Destroying it first crashed or hung its queue thread. A queue drain closes that window. */
        ortvk_device_drain(device, "before releasing a stream");
        for (size_t i = 0; i < stream->retired_count; i++) release_retire(&stream->retired[i].what);
        vkDestroyCommandPool(device->vk, stream->pool, NULL);
        vkDestroySemaphore(device->vk, stream->timeline, NULL);
        if (stream->bridge != VK_NULL_HANDLE) vkDestroySemaphore(device->vk, stream->bridge, NULL);
        ortvk_device_unref(device);
    }
    pthread_cond_destroy(&stream->jobs_changed);
    pthread_mutex_destroy(&stream->jobs_lock);
    pthread_mutex_destroy(&stream->lock);
    pthread_mutex_destroy(&stream->host_order);
    free(stream->waits);
    free(stream->retired);
    free(stream);
}

/* ---- submission ---------------------------------------------------------------------------------------- */

static uint64_t completed_value(ortvk_stream *stream)
{
    uint64_t value = 0;
    if (vkGetSemaphoreCounterValue(stream->device->vk, stream->timeline, &value) != VK_SUCCESS) return 0;
    return value;
}

/* Lock held. */
static void collect_retired(ortvk_stream *stream)
{
    if (stream->retired_count == 0) return;
    uint64_t done = completed_value(stream);
    size_t kept = 0;
    for (size_t i = 0; i < stream->retired_count; i++) {
        ortvk_retired *r = &stream->retired[i];
        if (r->value <= done) {
            if (r->commands != VK_NULL_HANDLE) vkFreeCommandBuffers(stream->device->vk, stream->pool, 1, &r->commands);
            release_retire(&r->what);
        } else {
            stream->retired[kept++] = *r;
        }
    }
    stream->retired_count = kept;
}

/* Lock held. Reserves room so that a later append cannot fail after a submission. */
static bool reserve(void **items, size_t *capacity, size_t count, size_t extra, size_t size)
{
    if (count + extra <= *capacity) return true;
    size_t grown = *capacity ? *capacity * 2 : 16;
    while (grown < count + extra) grown *= 2;
    void *p = realloc(*items, grown * size);
    if (p == NULL) return false;
    *items = p;
    *capacity = grown;
    return true;
}

OrtStatus *ortvk_stream_begin(ortvk_stream *stream, VkCommandBuffer *out)
{
    VkCommandBufferAllocateInfo info = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
        .commandPool = stream->pool,
        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
        .commandBufferCount = 1,
    };
    pthread_mutex_lock(&stream->lock);
    collect_retired(stream);
    VkResult r = vkAllocateCommandBuffers(stream->device->vk, &info, out);
    pthread_mutex_unlock(&stream->lock);
    if (r != VK_SUCCESS) return ortvk_status_vk(r, "vkAllocateCommandBuffers", "recording on a stream");
    VkCommandBufferBeginInfo begin = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
        .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
    };
    r = vkBeginCommandBuffer(*out, &begin);
    if (r != VK_SUCCESS) {
        pthread_mutex_lock(&stream->lock);
        vkFreeCommandBuffers(stream->device->vk, stream->pool, 1, out);
        pthread_mutex_unlock(&stream->lock);
        return ortvk_status_vk(r, "vkBeginCommandBuffer", "recording on a stream");
    }
    return NULL;
}

/* What collect_device_tails gathers. */
typedef struct device_tails {
    const ortvk_stream *self;
    int order;
    ortvk_semaphore_point **points;
    size_t *count, *capacity;
    bool ok;
} device_tails;

/* Another stream's last value and the waits it holds for its next submission (a host timeline's bridge, say):
 * what comes after that stream's work must also come after those. */
static void add_tail(ortvk_stream *other, void *arg)
{
    device_tails *t = arg;
    if (!t->ok || other == t->self || (t->order == ORTVK_ORDER_SESSIONS && other->owner == NULL)) return;
    pthread_mutex_lock(&other->lock);
    t->ok = reserve((void **)t->points, t->capacity, *t->count, other->wait_count + 1, sizeof(**t->points));
    if (t->ok && other->submitted > 0)
        (*t->points)[(*t->count)++] = (ortvk_semaphore_point){other->timeline, other->submitted};
    for (size_t i = 0; t->ok && i < other->wait_count; i++) (*t->points)[(*t->count)++] = other->waits[i];
    pthread_mutex_unlock(&other->lock);
}

/* The last submitted value of every other stream of the device, and their pending waits, appended to `points` (a
 * growable array). Called without the stream's own lock: the lock order is the device's stream registry, then a
 * stream. */
static bool collect_device_tails(ortvk_stream *stream, int order, ortvk_semaphore_point **points, size_t *count,
                                 size_t *capacity)
{
    device_tails t = {stream, order, points, count, capacity, true};
    ortvk_device_foreach_stream(stream->device, add_tail, &t);
    return t.ok;
}

/* Appends the stream's last submitted value and its queued cross-stream waits to `points` (a growable array), with
 * room left for `extra` more. Lock held. */
static bool add_own_waits(ortvk_stream *stream, size_t extra, ortvk_semaphore_point **points, size_t *count,
                          size_t *capacity)
{
    if (!reserve((void **)points, capacity, *count, stream->wait_count + 1 + extra, sizeof(**points))) return false;
    if (stream->submitted > 0) (*points)[(*count)++] = (ortvk_semaphore_point){stream->timeline, stream->submitted};
    for (size_t i = 0; i < stream->wait_count; i++) (*points)[(*count)++] = stream->waits[i];
    return true;
}

void ortvk_stream_order_after_device(ortvk_stream *stream, int order)
{
    int current = atomic_load(&stream->order_after_device);
    while (current < order && !atomic_compare_exchange_weak(&stream->order_after_device, &current, order)) {
    }
}

/* Room for every semaphore of one submission (waits, then signals), sized by the caller. */
typedef struct submit_arrays {
    VkSemaphore *handles;
    uint64_t *values;
    VkPipelineStageFlags *stages;
} submit_arrays;

/* Submits `commands` (may be VK_NULL_HANDLE) waiting for `wait_points`, signaling the stream's timeline at `next`
 * and `signals`. Lock held. */
static OrtStatus *queue_submit(ortvk_stream *stream, VkCommandBuffer commands,
                               const ortvk_semaphore_point *wait_points, size_t wait_total,
                               const ortvk_semaphore_point *signals, size_t signal_count, uint64_t next,
                               submit_arrays arrays)
{
    VkSemaphore *wait_sems = arrays.handles, *signal_sems = arrays.handles + wait_total;
    uint64_t *wait_values = arrays.values, *signal_values = arrays.values + wait_total;
    for (size_t i = 0; i < wait_total; i++) {
        wait_sems[i] = wait_points[i].semaphore;
        wait_values[i] = wait_points[i].value;
        arrays.stages[i] = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
    }
    signal_sems[0] = stream->timeline;
    signal_values[0] = next;
    for (size_t i = 0; i < signal_count; i++) {
        signal_sems[i + 1] = signals[i].semaphore;
        signal_values[i + 1] = signals[i].value;
    }
    VkTimelineSemaphoreSubmitInfo timeline = {
        .sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
        .waitSemaphoreValueCount = (uint32_t)wait_total,
        .pWaitSemaphoreValues = wait_values,
        .signalSemaphoreValueCount = (uint32_t)(signal_count + 1),
        .pSignalSemaphoreValues = signal_values,
    };
    VkSubmitInfo submit = {
        .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
        .pNext = &timeline,
        .waitSemaphoreCount = (uint32_t)wait_total,
        .pWaitSemaphores = wait_sems,
        .pWaitDstStageMask = arrays.stages,
        .commandBufferCount = commands != VK_NULL_HANDLE ? 1 : 0,
        .pCommandBuffers = &commands,
        .signalSemaphoreCount = (uint32_t)(signal_count + 1),
        .pSignalSemaphores = signal_sems,
    };
    return ortvk_device_submit(stream->device, &submit, "submitting stream work");
}

OrtStatus *ortvk_stream_submit(ortvk_stream *stream, VkCommandBuffer commands, const ortvk_semaphore_point *waits,
                               size_t wait_count, const ortvk_semaphore_point *signals, size_t signal_count,
                               ortvk_retire retire, uint64_t *value)
{
    ortvk_device *device = stream->device;
    OrtStatus *status = NULL;
    if (commands != VK_NULL_HANDLE) {
        VkResult r = vkEndCommandBuffer(commands);
        if (r != VK_SUCCESS) {
            status = ortvk_status_vk(r, "vkEndCommandBuffer", "recording on a stream");
            pthread_mutex_lock(&stream->lock);
            vkFreeCommandBuffers(device->vk, stream->pool, 1, &commands);
            pthread_mutex_unlock(&stream->lock);
            release_retire(&retire);
            return status;
        }
    }

    /* Every semaphore this submission waits for: the stream's own last value, the other streams' when asked to
     * (ortvk_stream_order_after_device), pending cross-stream waits, and the caller's. */
    ortvk_semaphore_point *wait_points = NULL;
    size_t wait_total = 0, wait_capacity = 0;
    bool ok = true;
    int order = atomic_exchange(&stream->order_after_device, ORTVK_ORDER_NONE);
    if (order != ORTVK_ORDER_NONE) ok = collect_device_tails(stream, order, &wait_points, &wait_total, &wait_capacity);

    pthread_mutex_lock(&stream->lock);
    ok = ok && add_own_waits(stream, wait_count, &wait_points, &wait_total, &wait_capacity);
    size_t semaphores = wait_total + wait_count + signal_count + 1;
    VkSemaphore *handles = ok ? malloc(semaphores * sizeof(*handles)) : NULL;
    uint64_t *values = handles ? malloc(semaphores * sizeof(*values)) : NULL;
    VkPipelineStageFlags *stages = values ? malloc(semaphores * sizeof(*stages)) : NULL;
    if (stages == NULL ||
        !reserve((void **)&stream->retired, &stream->retired_capacity, stream->retired_count, 1,
                 sizeof(*stream->retired))) {
        status = ortvk_status(ORT_FAIL, "out of host memory submitting %zu semaphores", semaphores);
        goto out;
    }
    for (size_t i = 0; i < wait_count; i++) wait_points[wait_total++] = waits[i];
    uint64_t next = stream->submitted + 1;
    status = queue_submit(stream, commands, wait_points, wait_total, signals, signal_count, next,
                          (submit_arrays){handles, values, stages});
    if (status != NULL) goto out;
    stream->submitted = next;
    stream->wait_count = 0;
    if (commands != VK_NULL_HANDLE || retire.buffer != NULL || retire.release != NULL) {
        stream->retired[stream->retired_count++] = (ortvk_retired){next, commands, retire};
        commands = VK_NULL_HANDLE;
        retire = (ortvk_retire){0};
    }
    if (value) *value = next;
out:
    if (commands != VK_NULL_HANDLE) vkFreeCommandBuffers(device->vk, stream->pool, 1, &commands);
    pthread_mutex_unlock(&stream->lock);
    free(wait_points);
    free(handles);
    free(values);
    free(stages);
    release_retire(&retire);
    return status;
}

OrtStatus *ortvk_stream_add_wait(ortvk_stream *stream, ortvk_semaphore_point point)
{
    pthread_mutex_lock(&stream->lock);
    bool ok = reserve((void **)&stream->waits, &stream->wait_capacity, stream->wait_count, 1, sizeof(*stream->waits));
    if (ok) stream->waits[stream->wait_count++] = point;
    pthread_mutex_unlock(&stream->lock);
    if (!ok) return ortvk_status(ORT_FAIL, "out of host memory queuing a cross-stream wait");
    return NULL;
}

ortvk_semaphore_point ortvk_stream_tail(ortvk_stream *stream)
{
    pthread_mutex_lock(&stream->lock);
    ortvk_semaphore_point point = {stream->timeline, stream->submitted};
    pthread_mutex_unlock(&stream->lock);
    return point;
}

OrtStatus *ortvk_stream_wait_host_ordered(ortvk_stream *stream)
{
    ortvk_semaphore_point *points = NULL;
    size_t count = 0, capacity = 0;
    bool ok = true;
    int order = atomic_load(&stream->order_after_device);
    if (order != ORTVK_ORDER_NONE) ok = collect_device_tails(stream, order, &points, &count, &capacity);
    pthread_mutex_lock(&stream->lock);
    ok = ok && add_own_waits(stream, 0, &points, &count, &capacity);
    pthread_mutex_unlock(&stream->lock);
    OrtStatus *status = ok ? ortvk_semaphore_points_wait(stream->device, points, count, UINT64_MAX)
                           : ortvk_status(ORT_FAIL, "out of host memory waiting for %zu semaphores", count + 1);
    free(points);
    return status;
}

OrtStatus *ortvk_semaphore_points_wait(ortvk_device *device, const ortvk_semaphore_point *points, size_t count,
                                      uint64_t timeout_ns)
{
    for (size_t i = 0; i < count; i++) {
        if (points[i].value == 0) continue;
        VkSemaphoreWaitInfo info = {
            .sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
            .semaphoreCount = 1,
            .pSemaphores = &points[i].semaphore,
            .pValues = &points[i].value,
        };
        VkResult r = vkWaitSemaphores(device->vk, &info, timeout_ns);
        if (r != VK_SUCCESS)
            return ortvk_status_vk(r, "vkWaitSemaphores", "waiting for timeline value %llu",
                                   (unsigned long long)points[i].value);
    }
    return NULL;
}

static OrtStatus *wait_value(ortvk_stream *stream, uint64_t value, uint64_t timeout_ns)
{
    ortvk_semaphore_point tail = ortvk_stream_tail(stream);
    if (value < tail.value) tail.value = value;
    return ortvk_semaphore_points_wait(stream->device, &tail, 1, timeout_ns);
}

OrtStatus *ortvk_stream_wait_host(ortvk_stream *stream, uint64_t value)
{
    return wait_value(stream, value, UINT64_MAX);
}

OrtStatus *ortvk_stream_take_error(ortvk_stream *stream)
{
    char message[sizeof(stream->error)];
    pthread_mutex_lock(&stream->jobs_lock);
    memcpy(message, stream->error, sizeof(message));
    stream->error[0] = '\0';
    /* The application now knows: signals it queues from here on are delivered again. */
    if (stream->withhold_until == UINT64_MAX) stream->withhold_until = stream->job_seq;
    pthread_mutex_unlock(&stream->jobs_lock);
    if (message[0] == '\0') return NULL;
    return ortvk_status(ORT_EP_FAIL, "%s", message);
}
