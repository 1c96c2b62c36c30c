/* ORT's profiler for the EP (OrtEpProfilerImpl, ORT >= 1.30): when ORT profiles a session, the node runs the
 * device profile collected (kernel_profile.c) go into ORT's profile as "Kernel" events with their device time. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "kernels/kernel_profile.h"
#include "ort/ort_status.h"

typedef struct ort_profiler {
    OrtEpProfilerImpl base; /* first */
    ortvk_device *device;   /* holds a reference */
    ortvk_profile **slot;   /* the EP's; only read in StartProfiling, which ORT calls while the EP lives */
    ortvk_profile *profile; /* holds a reference once ORT profiles */
    double start_ns;        /* ORT's profile start on CLOCK_MONOTONIC (ORT's steady clock) */
} ort_profiler;

static void ORT_API_CALL ort_profiler_release(OrtEpProfilerImpl *base)
{
    ort_profiler *o = (ort_profiler *)base;
    ortvk_profile_put(o->profile);
    ortvk_device_unref(o->device);
    free(o);
}

static OrtStatus *ORT_API_CALL ort_profiler_start(OrtEpProfilerImpl *base, int64_t offset_ns)
{
    ort_profiler *o = (ort_profiler *)base;
    o->start_ns = ortvk_profile_monotonic_ns() - (double)offset_ns;
    if (o->profile != NULL) return NULL;
    if (*o->slot == NULL) ORTVK_TRY(ortvk_profile_create(o->device, NULL, NULL, o->slot));
    ortvk_profile_ref(*o->slot);
    o->profile = *o->slot;
    return NULL;
}

static OrtStatus *ORT_API_CALL ort_profiler_event(OrtEpProfilerImpl *base, uint64_t id)
{
    (void)base, (void)id;
    return NULL;
}

static OrtStatus *ORT_API_CALL ort_profiler_stop_event(OrtEpProfilerImpl *base, uint64_t id,
                                                      const OrtProfilingEvent *event)
{
    (void)base, (void)id, (void)event;
    return NULL;
}

/* Adds one node run to ORT's container as a "Kernel" event; stops at the first failure. */
typedef struct add_context {
    OrtProfilingEventsContainer *container;
    double start_ns;
    int pid;
    OrtStatus *status;
} add_context;

static bool add_event(const ortvk_profile_event *e, void *context)
{
    add_context *c = context;
    char run[16], bytes[32], flops[32], dur[32];
    snprintf(run, sizeof(run), "%u", e->run);
    snprintf(bytes, sizeof(bytes), "%.0f", e->bytes);
    snprintf(flops, sizeof(flops), "%.0f", e->flops);
    snprintf(dur, sizeof(dur), "%.3f", e->dur_ns / 1e3);
    const char *keys[] = {"op_name", "provider", "partition", "run", "inputs", "outputs", "pipelines", "bytes",
                          "device_dur_us", "flops"};
    const char *values[] = {e->op, ORTVK_EP_NAME, e->partition, run, e->inputs, e->outputs, e->pipelines, bytes, dur,
                            flops};
    double ts = (e->host_ns - c->start_ns) / 1e3;
    OrtProfilingEvent *event = NULL;
    c->status = ortvk_ep_api->CreateProfilingEvent(OrtProfilingEventCategory_KERNEL, c->pid, e->tid, e->name,
                                                   ts > 0 ? (int64_t)ts : 0, (int64_t)(e->dur_ns / 1e3 + 0.5), keys,
                                                   values, e->flops > 0 ? 10 : 9, &event);
    if (c->status == NULL) {
        const OrtProfilingEvent *const events[] = {event};
        c->status = ortvk_ep_api->ProfilingEventsContainer_AddEvents(c->container, events, 1);
        ortvk_ep_api->ReleaseProfilingEvent(event);
    }
    return c->status == NULL;
}

static OrtStatus *ORT_API_CALL ort_profiler_end(OrtEpProfilerImpl *base, OrtProfilingEventsContainer *container)
{
    ort_profiler *o = (ort_profiler *)base;
    if (o->profile == NULL) return NULL;
    add_context c = {.container = container, .start_ns = o->start_ns, .pid = (int)getpid()};
    ortvk_profile_foreach_event(o->profile, add_event, &c);
    return c.status;
}

OrtStatus *ortvk_profile_ort_profiler(ortvk_device *device, ortvk_profile **slot, OrtEpProfilerImpl **out)
{
    *out = NULL;
    ort_profiler *o = calloc(1, sizeof(*o));
    if (o == NULL) return ortvk_status(ORT_FAIL, "out of host memory creating the EP's profiler");
    o->base = (OrtEpProfilerImpl){
        .ort_version_supported = ortvk_ort_version,
        .Release = ort_profiler_release,
        .StartProfiling = ort_profiler_start,
        .StartEvent = ort_profiler_event,
        .StopEvent = ort_profiler_stop_event,
        .EndProfiling = ort_profiler_end,
    };
    ortvk_device_ref(device);
    o->device = device;
    o->slot = slot;
    *out = &o->base;
    return NULL;
}
