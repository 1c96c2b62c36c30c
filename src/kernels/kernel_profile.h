/* Private to ortvk. The per-op device profiler (ep.ortvk.profile / ORTVK_PROFILE): timestamps around each node of a
 * partition's command buffer, read back when the submission retires, written as a Chrome-trace JSON (one event per
 * node run: op, shapes, device time, bytes, FLOPs) with a per-op summary. See docs/benchmarks.md ("Profiling"). */
#ifndef ORTVK_KERNEL_PROFILE_H
#define ORTVK_KERNEL_PROFILE_H

#include <stdio.h>

#include "vk/vk_device.h"
#include "vk/vk_stream.h"

/* One session's profile. Reference counted: the EP, its partitions and every run still queued on the GPU hold one;
 * the last reference writes the file. */
typedef struct ortvk_profile ortvk_profile;

/* A profile written to `path` (checked writable now: a bad path fails session creation, naming `option`; NULL: no
 * file, the events only go to ORT's profiler, see ortvk_profile_ort_profiler). Where
 * the device's queue family has no timestamps (timestampValidBits 0) the profile is still made, with no events
 * and a note saying why. */
OrtStatus *ortvk_profile_create(ortvk_device *device, const char *path, const char *option, ortvk_profile **out);
void ortvk_profile_ref(ortvk_profile *profile);
/* Drops a reference (NULL is fine); the last one writes the file. */
void ortvk_profile_put(ortvk_profile *profile);
/* A number for a new partition (0, 1, ...): its events' "tid". */
int ortvk_profile_next_partition(ortvk_profile *profile);

/* One run of a partition being profiled: a query pool of 2 + nodes timestamps, recorded into `cmd`. */
typedef struct ortvk_profile_run ortvk_profile_run;

/* Starts a run: resets the queries and writes the first timestamp (NULL when the profile has no timestamps or the
 * pool cannot be made: the run goes unprofiled). `partition` names the fused node. */
ortvk_profile_run *ortvk_profile_run_begin(ortvk_profile *profile, VkCommandBuffer cmd, int partition,
                                           const char *partition_name, size_t nodes);
/* A timestamp after the run's host inputs are staged (`bytes` of them; the interval is an event when > 0). */
void ortvk_profile_run_inputs(ortvk_profile_run *run, VkCommandBuffer cmd, size_t bytes);

/* A timestamp after node `name`'s commands (recorded into run->cmd), with what its record left in `run`: the
 * shapes of its inputs and outputs, and its cost estimate. */
struct ortvk_krun;
union ortvk_kparams;
void ortvk_profile_run_node(ortvk_profile_run *run, const char *name, const char *op_type,
                            const union ortvk_kparams *params, const struct ortvk_krun *krun);

/* The end of the run's recording and submission (`ok`: both succeeded; `done`: the stream's timeline value that
 * marks the GPU done with it) and the end of the GPU's use of it (the submission retired, or failed). The second of
 * the two reads the timestamps (when `ok`) and frees the run. */
void ortvk_profile_run_end(ortvk_profile_run *run, bool ok, ortvk_semaphore_point done);
void ortvk_profile_run_retire(ortvk_profile_run *run);

/* One node run as the profile keeps it. */
typedef struct ortvk_profile_event {
    char *name, *partition, *inputs, *outputs; /* owned by the profile */
    char op[32];
    char pipelines[64];      /* the node's dispatches, "<shader>.<function>" each ("gemm.5": docs/kernels.md) */
    int tid;                 /* the partition's number */
    uint32_t run;
    double start_ns, dur_ns; /* device clock */
    double host_ns;          /* the start placed on the host's CLOCK_MONOTONIC (for ORT's profile) */
    double flops, bytes;     /* 0 when the op has no estimate */
} ortvk_profile_event;

/* Calls `fn` on each node run collected so far (runs the GPU finished are collected first), under the profile's
 * lock, until it returns false. */
typedef bool (*ortvk_profile_event_fn)(const ortvk_profile_event *event, void *context);
void ortvk_profile_foreach_event(ortvk_profile *profile, ortvk_profile_event_fn fn, void *context);
/* CLOCK_MONOTONIC in ns, the host clock events are placed on (ORT's steady clock). */
double ortvk_profile_monotonic_ns(void);

/* ORT's profiler (OrtEp::CreateProfiler, kernel_profile_ort.c, read by ORT >= 1.30): when ORT profiles the
 * session (session option enable_profiling), *slot (the EP's profile, NULL when ep.ortvk.profile is off) becomes a
 * profile of its own if it was NULL, and at the end of ORT's profile every node run collected so far goes into it
 * as a "Kernel" event with its device time. ORT calls it while it creates the session, before Compile. */
OrtStatus *ortvk_profile_ort_profiler(ortvk_device *device, ortvk_profile **slot, OrtEpProfilerImpl **out);

#endif
