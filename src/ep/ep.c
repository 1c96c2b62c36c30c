/* The OrtEp ortvk creates for a session: which device it runs on (from the EP devices ORT selected and the
 * ep.ortvk.* session options), the streams it gives ORT, and the nodes it claims: GetCapability offers every node
 * src/kernels runs exactly (and QDQ groups whole), consecutive ones fused into one partition; Compile turns each
 * partition into a compute info whose Compute records it on the session's stream. */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ep/ep.h"
#include "kernels/kernel_profile.h"
#include "kernels/kernels.h"
#include "ort/ort_status.h"
#include "ortvk.h"
#include "vk/vk_transfer.h"

typedef struct ortvk_ep {
    OrtEp base; /* first */
    ortvk_factory *factory;
    ortvk_device *device; /* holds a reference */
    ortvk_kernel_device *kernels; /* the device's pipelines; holds a reference */
    const OrtLogger *logger;
    uint64_t host_timeout_ms;
    bool host_timeout_set;        /* ep.ortvk.host_wait_timeout_ms was given */
    atomic_bool timeout_warned;   /* the application's stream keeps its own timeout: said once */
    pthread_mutex_t lock;         /* guards own_stream and used */
    ortvk_stream *own_stream;     /* only when ORT gives a Compute no stream (see compute_stream) */
    ortvk_stream *used[16];       /* streams Compute submitted to, for OnRunEnd; entries may be stale */
    size_t used_count;
    atomic_bool stream_logged;    /* how Compute found its stream is logged once */
    ortvk_profile *profile;       /* ep.ortvk.profile / ORTVK_PROFILE; NULL when off */
    atomic_size_t claimed;        /* nodes GetCapability claimed, over the model's main graph and subgraphs */
    atomic_int main_claimed;      /* nodes claimed in the main graph; -1 before GetCapability saw it */
    bool fuse_qdq;                /* ORT's QDQ fusion is on (session.disable_quant_qdq is not "1"): QDQ groups
                                     run as one integer kernel each, as ORT's CPU EP runs them */
} ortvk_ep;

/* What Compile returns for one claimed partition. */
typedef struct ortvk_compute_info {
    OrtNodeComputeInfo base; /* first */
    ortvk_ep *ep;
    ortvk_partition *partition;
} ortvk_compute_info;

ORTVK_DEFINE_BASE_CAST(compute_info_cast, ortvk_compute_info, OrtNodeComputeInfo)

ORTVK_DEFINE_BASE_CAST(ep_cast, ortvk_ep, OrtEp)

OrtStatus *ortvk_parse_u64(const char *key, const char *text, uint64_t max, uint64_t *value)
{
    if (text == NULL) return NULL;
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (text[0] == '\0' || text[0] == '-' || *end != '\0' || errno != 0 || v > max) {
        return ortvk_status(ORT_INVALID_ARGUMENT, "%s = \"%s\" is not a whole number from 0 to %llu", key, text,
                            (unsigned long long)max);
    }
    *value = v;
    return NULL;
}

static const char *ORT_API_CALL ep_get_name(const OrtEp *base)
{
    (void)base;
    return ORTVK_EP_NAME;
}

/* Logs why node `node` stays with the CPU EP (ORT's verbose log). */
static void log_refusal(const ortvk_ep *ep, const OrtNode *node, const char *why)
{
    const char *name = "", *op = "";
    OrtStatus *ignored = ortvk_ort->Node_GetName(node, &name);
    if (ignored == NULL) ignored = ortvk_ort->Node_GetOperatorType(node, &op);
    if (ignored != NULL) ortvk_ort->ReleaseStatus(ignored);
    ortvk_log(ep->logger, ORT_LOGGING_LEVEL_VERBOSE, "node %s%s%s (%s) stays with the CPU EP: %s", name[0] ? "\"" : "",
              name[0] ? name : "(unnamed)", name[0] ? "\"" : "", op, why);
}

/* Which of `nodes` ortvk claims (supported[i]): each node it runs exactly, and each QDQ group (kernels.h) it runs as
 * ORT's CPU EP does, as one integer kernel: whole, and only where no node it leaves to the CPU EP lies between the
 * group's nodes in ORT's order (so that the group falls in one partition). A group that answers alike however it
 * runs is taken as its float ops where ortvk runs all of them (a part of it on the CPU EP would run there as float
 * ops, not as the CPU EP runs the group); other QDQ groups stay with the CPU EP, whose fused integer kernels round
 * otherwise than float ops would. */
static void claim_nodes(const ortvk_ep *ep, const OrtNode *const *nodes, size_t count, bool runs, ptrdiff_t *group,
                        bool *supported)
{
    char why[256];
    if (!ep->fuse_qdq || !ortvk_nodes_qdq_groups(nodes, count, group)) {
        for (size_t i = 0; i < count; i++) group[i] = -1;
    }
    for (size_t i = 0; i < count; i++) {
        if (group[i] >= 0) continue;
        snprintf(why, sizeof(why), "no reason given");
        supported[i] = ortvk_kernel_supported(nodes[i], &ep->device->caps, why, sizeof(why));
        if (!supported[i]) log_refusal(ep, nodes[i], why);
    }
    for (size_t c = 0; c < count; c++) {
        if (group[c] != (ptrdiff_t)c) continue;
        snprintf(why, sizeof(why), "%s", runs ? "no reason given" : "a QDQ group in a graph whose node order ORT gives "
                 "is not topological (each node a partition of its own: the group's could not be one kernel)");
        bool ok = runs && ortvk_qdq_group_supported(nodes, count, group, c, &ep->device->caps, why, sizeof(why));
        bool apart = !ok && ortvk_qdq_group_exact(nodes, count, group, c);
        for (size_t j = 0; j < count && apart; j++) { /* all of it, or (a part on the CPU EP) none */
            if (group[j] == (ptrdiff_t)c)
                apart = ortvk_kernel_supported(nodes[j], &ep->device->caps, why, sizeof(why));
        }
        /* A group taken apart is a group no more: its nodes are partitioned as any others. */
        for (size_t j = 0; j < count; j++) {
            if (group[j] != (ptrdiff_t)c) continue;
            supported[j] = ok || apart;
            if (apart) group[j] = -1;
        }
        if (!ok && !apart) log_refusal(ep, nodes[c], why);
    }
    /* A group with a node between its own that stays with the CPU EP goes to the CPU EP too; which may split
     * another group: until none is split. */
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t c = 0; c < count; c++) {
            if (group[c] != (ptrdiff_t)c || !supported[c]) continue;
            size_t first = count, last = 0;
            for (size_t j = 0; j < count; j++) {
                if (group[j] != (ptrdiff_t)c) continue;
                if (first == count) first = j;
                last = j;
            }
            bool whole = true;
            for (size_t j = first; j <= last && whole; j++) whole = supported[j];
            if (whole) continue;
            for (size_t j = first; j <= last; j++) {
                if (group[j] == (ptrdiff_t)c) supported[j] = false;
            }
            log_refusal(ep, nodes[c], "a QDQ group with a node between its own that ortvk does not run");
            changed = true;
        }
    }
}

static OrtStatus *ORT_API_CALL ep_get_capability(OrtEp *base, const OrtGraph *graph, OrtEpGraphSupportInfo *info)
{
    ortvk_ep *ep = ep_cast(base);
    size_t count = 0;
    ORTVK_TRY(ortvk_ort->Graph_GetNumNodes(graph, &count));
    /* The node holding this graph (If, Loop, Scan), NULL for the model's main graph. */
    const OrtNode *parent = NULL;
    OrtStatus *unknown = ortvk_ort->Graph_GetParentNode(graph, &parent);
    if (unknown != NULL) {
        ortvk_ort->ReleaseStatus(unknown);
        parent = (const OrtNode *)graph; /* unknown: treated as a subgraph */
    }
    /* ORT before 1.30 (measured: 1.24.3) names fused nodes <ep>_<model hash>_<n> with n counted from 0 in each
     * graph, so fused nodes in two graphs of one model (the main graph and an If's branch) get the same name and
     * session creation fails ("Conflicting with a registered kernel"). There, ortvk claims nodes of the main
     * graph only; the CPU EP runs the subgraphs. */
    if (parent != NULL && ortvk_ort_version < 30) {
        ORTVK_LOG_INFO(ep->logger, "the %zu nodes of a subgraph stay with the CPU EP: ONNX Runtime before 1.30 cannot "
                                   "name fused nodes of two graphs of a model apart", count);
        return NULL;
    }
    if (count == 0) {
        if (parent == NULL) atomic_store(&ep->main_claimed, 0);
        return NULL;
    }
    const OrtNode **nodes = calloc(count, sizeof(*nodes));
    if (nodes == NULL) return ortvk_status(ORT_FAIL, "out of host memory reading a graph of %zu nodes", count);
    OrtStatus *status = ortvk_ort->Graph_GetNodes(graph, nodes, count);
    /* ORT would hand a fused node its constant initializers in host memory: they are dropped from its inputs,
     * and Compile copies those the device reads into device memory once (the others, shapes, scales and bounds,
     * the kernels read on the host from the graph). */
    OrtNodeFusionOptions options = {.ort_version_supported = ortvk_ort_version, .drop_constant_initializers = true};
    /* Partitions are runs of claimed nodes that are consecutive in a topological order: a path from one of them
     * to another leaves the run forward and never comes back, so fusing a run makes no cycle. In any other
     * order, each node is a partition of its own. */
    bool runs = status == NULL && ortvk_nodes_topological(nodes, count);
    bool *supported = status == NULL ? calloc(count, sizeof(*supported)) : NULL;
    ptrdiff_t *group = supported != NULL ? calloc(count, sizeof(*group)) : NULL;
    if (status == NULL && group == NULL) status = ortvk_status(ORT_FAIL, "out of host memory reading a graph");
    if (status == NULL) claim_nodes(ep, nodes, count, runs, group, supported);
    size_t claimed = 0, partitions = 0, start = 0, length = 0;
    for (size_t i = 0; i <= count && status == NULL; i++) {
        bool taken = i < count && supported[i];
        if (taken && length == 0) start = i;
        if (taken) length++;
        if (length > 0 && (!taken || !runs)) {
            status = ortvk_ep_api->EpGraphSupportInfo_AddNodesToFuse(info, &nodes[start], length, &options);
            claimed += length;
            partitions++;
            length = 0;
        }
    }
    free(nodes);
    free(supported);
    free(group);
    if (status != NULL) return status;
    ORTVK_LOG_INFO(ep->logger, "ortvk claims %zu of %zu nodes in %zu partitions", claimed, count, partitions);
    size_t total = atomic_fetch_add(&ep->claimed, claimed) + claimed;
    if (parent != NULL) return NULL;
    atomic_store(&ep->main_claimed, claimed > INT32_MAX ? INT32_MAX : (int)claimed);
    /* ORT partitions subgraphs before the graph that holds them: at the main graph, the count is the model's. */
    if (claimed == 0) {
        ORTVK_LOG_WARNING(ep->logger,
                          "ortvk claims none of the %zu nodes of this model's main graph (%zu in its subgraphs): "
                          "ORT's CPU EP runs them. Runs of this session drop any sync stream from their run options "
                          "(RunOptionsSetSyncStream): ONNX Runtime 1.24 to 1.30 crash on one when the main graph has "
                          "no node on its device (docs/interop.md)",
                          count, total);
    }
    return NULL;
}

/* The EP's own stream, created on first use: for copies at Compile, and Computes ORT gives no stream. */
static OrtStatus *own_stream(ortvk_ep *ep, ortvk_stream **out)
{
    OrtStatus *status = NULL;
    pthread_mutex_lock(&ep->lock);
    if (ep->own_stream == NULL) status = ortvk_stream_create(ep->device, ep->host_timeout_ms, ep, &ep->own_stream);
    *out = ep->own_stream;
    pthread_mutex_unlock(&ep->lock);
    return status;
}

static bool stream_has_handle(const ortvk_stream *stream, const void *handle)
{
    return (const void *)&stream->info == handle;
}

/* The stream a Compute records on: the OrtSyncStream ORT assigned to the node. ORT >= 1.28 hands it out directly
 * (KernelContext_GetSyncStream); older ones give its native handle (KernelContext_GetGPUComputeStream), which for
 * an ortvk stream is &stream->info, found among the device's live streams. Without any, an EP-owned stream: then
 * ORT's copies have no stream either and run synchronously, after every stream of the device. */
static OrtStatus *compute_stream(ortvk_ep *ep, OrtKernelContext *context, ortvk_stream **out)
{
    *out = NULL;
    int how = 3;
    if (ortvk_ort_version >= 28) {
        OrtSyncStream *ort_stream = NULL;
        ORTVK_TRY(ortvk_ort->KernelContext_GetSyncStream(context, &ort_stream));
        ortvk_stream *stream = ortvk_stream_from_ort(ort_stream);
        if (stream != NULL && stream->device == ep->device) *out = stream, how = 1;
    }
    if (*out == NULL) {
        void *handle = NULL;
        ORTVK_TRY(ortvk_ort->KernelContext_GetGPUComputeStream(context, &handle));
        if (handle != NULL) *out = ortvk_device_find_stream(ep->device, stream_has_handle, handle);
        if (*out != NULL) how = 2;
    }
    /* The session option sets the timeout of the session's own streams; a stream the application created keeps the
     * one it was created with (stream option host_wait_timeout_ms): one stream may serve several sessions. */
    if (*out != NULL && (*out)->owner != ep && ep->host_timeout_set && (*out)->host_timeout_ms != ep->host_timeout_ms &&
        atomic_exchange(&ep->timeout_warned, true) == false) {
        ORTVK_LOG_WARNING(ep->logger,
                          "ep.ortvk.host_wait_timeout_ms = %llu sets this session's own streams; the application's "
                          "stream given to Run keeps its own host wait timeout (%llu ms), set by the stream option "
                          "\"%s\" of CreateSyncStreamForEpDevice",
                          (unsigned long long)ep->host_timeout_ms, (unsigned long long)(*out)->host_timeout_ms,
                          ORTVK_STREAM_OPTION_HOST_WAIT_TIMEOUT_MS);
    }
    if (atomic_exchange(&ep->stream_logged, true) == false) {
        static const char *const ways[] = {"", "KernelContext_GetSyncStream", "KernelContext_GetGPUComputeStream",
                                           "none given: the EP's own stream"};
        ortvk_log(ep->logger, ORT_LOGGING_LEVEL_VERBOSE, "Compute's stream: %s", ways[how]);
    }
    return *out != NULL ? NULL : own_stream(ep, out);
}

/* Remembers that the EP submitted to `stream`, so that OnRunEnd can wait for it. */
static void note_stream(ortvk_ep *ep, ortvk_stream *stream)
{
    pthread_mutex_lock(&ep->lock);
    bool known = false;
    for (size_t i = 0; i < ep->used_count && !known; i++) known = ep->used[i] == stream;
    if (!known) {
        /* Full: keep the newest (a stale entry is dropped at the next OnRunEnd anyway). */
        if (ep->used_count == sizeof(ep->used) / sizeof(ep->used[0])) {
            memmove(ep->used, ep->used + 1, (ep->used_count - 1) * sizeof(ep->used[0]));
            ep->used_count--;
        }
        ep->used[ep->used_count++] = stream;
    }
    pthread_mutex_unlock(&ep->lock);
}

#define ORTVK_EP_USED (sizeof(((ortvk_ep *)0)->used) / sizeof(((ortvk_ep *)0)->used[0]))

/* The last submitted point of each stream of ep->used still alive (value 0 for the others): gathered under the
 * device's stream registry, so that none goes meanwhile. */
typedef struct run_end_points {
    const ortvk_ep *ep;
    ortvk_semaphore_point points[ORTVK_EP_USED];
    bool live[ORTVK_EP_USED];
} run_end_points;

static void keep_live_stream(ortvk_stream *stream, void *arg)
{
    run_end_points *live = arg;
    for (size_t i = 0; i < live->ep->used_count; i++) {
        if (live->ep->used[i] != stream) continue;
        live->live[i] = true;
        live->points[i] = ortvk_stream_tail(stream);
        return;
    }
}

/* The end of Run. With sync_stream (ORT's default, unless the run option "disable_synchronize_execution_providers"
 * is "1") Run must return with its results in place, as with any EP: wait for what the session's nodes submitted.
 * This is the run's one host wait, after its last node; applications that synchronize through streams or
 * semaphores turn it off. */
static OrtStatus *ORT_API_CALL ep_on_run_end(OrtEp *base, const OrtRunOptions *run_options, bool sync_stream)
{
    (void)run_options;
    ortvk_ep *ep = ep_cast(base);
    if (!sync_stream) return NULL;
    run_end_points live = {.ep = ep};
    pthread_mutex_lock(&ep->lock);
    ortvk_device_foreach_stream(ep->device, keep_live_stream, &live);
    size_t count = ep->used_count, kept = 0;
    for (size_t i = 0; i < count; i++) {
        if (live.live[i]) ep->used[kept++] = ep->used[i]; /* the others were released by ORT since, and waited for */
    }
    ep->used_count = kept;
    pthread_mutex_unlock(&ep->lock);
    return ortvk_semaphore_points_wait(ep->device, live.points, count, UINT64_MAX);
}

static OrtStatus *ORT_API_CALL compute_create_state(OrtNodeComputeInfo *base, OrtNodeComputeContext *context,
                                                    void **state)
{
    (void)context;
    *state = base;
    return NULL;
}

static OrtStatus *ORT_API_CALL compute_compute(OrtNodeComputeInfo *base, void *state, OrtKernelContext *context)
{
    (void)state;
    ortvk_compute_info *info = compute_info_cast(base);
    ortvk_stream *stream = NULL;
    ORTVK_TRY(compute_stream(info->ep, context, &stream));
    note_stream(info->ep, stream);
    return ortvk_partition_run(info->partition, stream, context);
}

static void ORT_API_CALL compute_release_state(OrtNodeComputeInfo *base, void *state)
{
    (void)base, (void)state;
}

static void compute_info_destroy(OrtNodeComputeInfo *base)
{
    if (base == NULL) return;
    ortvk_compute_info *info = compute_info_cast(base);
    ortvk_partition_destroy(info->partition);
    free(info);
}

static OrtStatus *compile_one(ortvk_ep *ep, const OrtGraph *graph, const OrtNode *fused, OrtNodeComputeInfo **out)
{
    ortvk_compute_info *info = calloc(1, sizeof(*info));
    if (info == NULL) return ortvk_status(ORT_FAIL, "out of host memory compiling a partition");
    ortvk_stream *stream = NULL;
    OrtStatus *status = own_stream(ep, &stream);
    if (status == NULL)
        status = ortvk_partition_create(ep->kernels, stream, graph, fused, ep->fuse_qdq, &info->partition);
    if (status == NULL) ortvk_partition_set_profile(info->partition, ep->profile);
    if (status != NULL) {
        free(info);
        return status;
    }
    info->base = (OrtNodeComputeInfo){
        .ort_version_supported = ortvk_ort_version,
        .CreateState = compute_create_state,
        .Compute = compute_compute,
        .ReleaseState = compute_release_state,
    };
    info->ep = ep;
    *out = &info->base;
    return NULL;
}

static OrtStatus *ORT_API_CALL ep_compile(OrtEp *base, const OrtGraph **graphs, const OrtNode **fused_nodes,
                                          size_t count, OrtNodeComputeInfo **infos, OrtNode **ep_context_nodes)
{
    (void)ep_context_nodes;
    ortvk_ep *ep = ep_cast(base);
    for (size_t i = 0; i < count; i++) infos[i] = NULL;
    for (size_t i = 0; i < count; i++) {
        OrtStatus *status = compile_one(ep, graphs[i], fused_nodes[i], &infos[i]);
        if (status != NULL) {
            /* ORT keeps (and later releases) every non-NULL info: hand back none on failure. */
            for (size_t j = 0; j < i; j++) {
                compute_info_destroy(infos[j]);
                infos[j] = NULL;
            }
            return status;
        }
    }
    return NULL;
}

static void ORT_API_CALL ep_release_compute_infos(OrtEp *base, OrtNodeComputeInfo **infos, size_t count)
{
    (void)base;
    for (size_t i = 0; i < count; i++) compute_info_destroy(infos[i]);
}

static OrtStatus *ORT_API_CALL ep_create_stream(OrtEp *base, const OrtMemoryDevice *memory, OrtSyncStreamImpl **out)
{
    ortvk_ep *ep = ep_cast(base);
    *out = NULL;
    ortvk_device *device = ortvk_device_for_memory(&ep->device, 1, memory);
    if (device == NULL) return NULL; /* not our memory: no stream */
    ortvk_stream *stream = NULL;
    ORTVK_TRY(ortvk_stream_create(device, ep->host_timeout_ms, ep, &stream));
    *out = &stream->base;
    return NULL;
}

/* A stream of this session (owned by `ep`) waits, at its next submission, for every other stream of the device. */
static void order_session_stream(ortvk_stream *stream, void *ep)
{
    if (stream->owner == ep) ortvk_stream_order_after_device(stream, ORTVK_ORDER_ALL);
}

/* The start of Run. An application that queued WaitSemaphore on its own stream but did not hand that stream to Run
 * (RunOptionsSetSyncStream) still expects the run to see what it waited for: the session's streams are ordered
 * after everything submitted to the device's streams before the run began (their next submission waits for it
 * on the GPU; nothing waits on the host). A run on the application's stream is ordered by the stream itself. */
static OrtStatus *ORT_API_CALL ep_on_run_start(OrtEp *base, const OrtRunOptions *run_options)
{
    ortvk_ep *ep = ep_cast(base);
    ortvk_device_foreach_stream(ep->device, order_session_stream, ep);
    /* ONNX Runtime 1.24.3 and 1.30.0 dereference NULL right after OnRunStart when the run options carry a sync
     * stream and the main graph's plan has no stream of that device, i.e. when ortvk claimed no node of the main
     * graph (nodes in an If's branches do not count): take the stream out of the run options then (ORT reads the
     * application's own OrtRunOptions, and offers no way to read the stream back). Nothing of the run needs it:
     * the session's streams were just ordered after every stream of the device, and ORT's copies of ortvk memory
     * without a stream wait for all of them. */
    if (atomic_load(&ep->main_claimed) == 0 && run_options != NULL)
        ortvk_ort->RunOptionsSetSyncStream((OrtRunOptions *)run_options, NULL);
    return NULL;
}

/* ORT's profiler (ORT >= 1.30): the per-op device times go into ORT's profile too (kernels/kernel_profile.h). */
static OrtStatus *ORT_API_CALL ep_create_profiler(OrtEp *base, OrtEpProfilerImpl **out)
{
    ortvk_ep *ep = ep_cast(base);
    return ortvk_profile_ort_profiler(ep->device, &ep->profile, out);
}

/* Reads session config entry `key` into `buffer` (empty when absent). */
static OrtStatus *read_config(const OrtSessionOptions *options, const char *key, char *buffer, size_t size)
{
    buffer[0] = '\0';
    int has = 0;
    ORTVK_TRY(ortvk_ort->HasSessionConfigEntry(options, key, &has));
    if (!has) return NULL;
    ORTVK_TRY(ortvk_ort->GetSessionConfigEntry(options, key, buffer, &size));
    return NULL;
}

/* Reads "ep.ortvk.<key>" into `buffer` (empty when absent). */
static OrtStatus *read_option(const OrtSessionOptions *options, const char *key, char *buffer, size_t size)
{
    char full[128];
    snprintf(full, sizeof(full), "ep.%s.%s", ORTVK_EP_NAME, key);
    return read_config(options, full, buffer, size);
}

/* The ep.ortvk.* keys ortvk reads. */
static const char *const known_options[] = {ORTVK_OPTION_DEVICE_INDEX, ORTVK_OPTION_DEVICE_UUID,
                                            ORTVK_OPTION_HOST_WAIT_TIMEOUT_MS, ORTVK_OPTION_PROFILE};

/* Warns about each ep.ortvk.<key> that ortvk does not read (a misspelt key would otherwise do nothing, silently).
 * The session's config entries are listed with GetSessionOptionsConfigEntries (slot 379, pinned in ort_abi.h); its
 * answer to NULL arguments is checked first, so that a runtime whose slot held something else is left alone. */
static void warn_unknown_options(const OrtSessionOptions *options, const OrtLogger *logger)
{
    OrtKeyValuePairs *entries = NULL;
    OrtStatus *probe = ortvk_ort->GetSessionOptionsConfigEntries(NULL, &entries);
    bool usable = probe != NULL && strstr(ortvk_ort->GetErrorMessage(probe), "options") != NULL;
    if (probe != NULL) ortvk_ort->ReleaseStatus(probe);
    if (!usable) {
        ORTVK_LOG_INFO(logger, "this ONNX Runtime does not list session config entries: unknown ep.%s.* keys go "
                               "unnoticed", ORTVK_EP_NAME);
        return;
    }
    entries = NULL;
    OrtStatus *status = ortvk_ort->GetSessionOptionsConfigEntries(options, &entries);
    if (status != NULL) {
        ortvk_ort->ReleaseStatus(status);
        return;
    }
    if (entries == NULL) return;
    const char *const *keys = NULL, *const *values = NULL;
    size_t count = 0;
    ortvk_ort->GetKeyValuePairs(entries, &keys, &values, &count);
    const char prefix[] = "ep." ORTVK_EP_NAME ".";
    for (size_t i = 0; i < count; i++) {
        if (keys[i] == NULL || strncmp(keys[i], prefix, sizeof(prefix) - 1) != 0) continue;
        const char *key = keys[i] + sizeof(prefix) - 1;
        bool known = false;
        for (size_t k = 0; k < sizeof(known_options) / sizeof(known_options[0]) && !known; k++)
            known = strcmp(key, known_options[k]) == 0;
        if (known) continue;
        char list[256] = "";
        for (size_t k = 0; k < sizeof(known_options) / sizeof(known_options[0]); k++)
            snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", k ? ", " : "", known_options[k]);
        ORTVK_LOG_WARNING(logger, "session option %s = \"%s\" is not an ortvk option and is ignored; ortvk reads %s%s",
                          keys[i], values[i] ? values[i] : "", prefix, list);
    }
    ortvk_ort->ReleaseKeyValuePairs(entries);
}

/* Picks the device among `candidates` (what ORT selected), honoring ep.ortvk.device_index / device_uuid. */
static OrtStatus *choose_device(ortvk_factory *factory, ortvk_device *const *candidates, size_t count,
                                const OrtSessionOptions *options, ortvk_device **out)
{
    char index_text[32], uuid[80];
    ORTVK_TRY(read_option(options, ORTVK_OPTION_DEVICE_INDEX, index_text, sizeof(index_text)));
    ORTVK_TRY(read_option(options, ORTVK_OPTION_DEVICE_UUID, uuid, sizeof(uuid)));
    *out = candidates[0];
    if (index_text[0] != '\0') {
        uint64_t index = 0;
        ORTVK_TRY(ortvk_parse_u64("ep.ortvk.device_index", index_text, factory->device_count - 1, &index));
        *out = factory->devices[index];
    } else if (uuid[0] != '\0') {
        *out = NULL;
        for (size_t i = 0; i < factory->device_count && *out == NULL; i++) {
            char hex[2 * VK_UUID_SIZE + 1];
            ortvk_uuid_hex(factory->devices[i]->caps.device_uuid, hex);
            if (strcmp(hex, uuid) == 0) *out = factory->devices[i];
        }
        if (*out == NULL)
            return ortvk_status(ORT_INVALID_ARGUMENT, "ep.ortvk.device_uuid = \"%s\" names no ortvk device", uuid);
    } else {
        return NULL;
    }
    for (size_t i = 0; i < count; i++) {
        if (candidates[i] == *out) return NULL;
    }
    return ortvk_status(ORT_INVALID_ARGUMENT,
                        "the ep.ortvk device option names device %u (%s), which is not among the EP devices given "
                        "to the session",
                        (*out)->index, (*out)->caps.props.deviceName);
}

OrtStatus *ortvk_ep_create(ortvk_factory *factory, ortvk_device *const *candidates, size_t count,
                           const OrtSessionOptions *options, const OrtLogger *logger, OrtEp **out)
{
    ortvk_device *device = NULL;
    warn_unknown_options(options, logger);
    ORTVK_TRY(choose_device(factory, candidates, count, options, &device));
    char timeout_text[32];
    uint64_t timeout = ORTVK_DEFAULT_HOST_WAIT_TIMEOUT_MS;
    ORTVK_TRY(read_option(options, ORTVK_OPTION_HOST_WAIT_TIMEOUT_MS, timeout_text, sizeof(timeout_text)));
    if (timeout_text[0] != '\0')
        ORTVK_TRY(ortvk_parse_u64("ep.ortvk.host_wait_timeout_ms", timeout_text, UINT32_MAX, &timeout));

    /* ORT's own key: "1" turns its QDQ fusion off, and the CPU EP then runs QDQ groups as the float ops they are. */
    char no_qdq[16];
    OrtStatus *unread = read_config(options, "session.disable_quant_qdq", no_qdq, sizeof(no_qdq));
    if (unread != NULL) ortvk_ort->ReleaseStatus(unread), no_qdq[0] = '\0'; /* too long to be "1" */

    char profile_path[1024];
    ORTVK_TRY(read_option(options, ORTVK_OPTION_PROFILE, profile_path, sizeof(profile_path)));
    const char *profile_option = "ep.ortvk.profile";
    if (profile_path[0] == '\0' && getenv("ORTVK_PROFILE") != NULL) {
        snprintf(profile_path, sizeof(profile_path), "%s", getenv("ORTVK_PROFILE"));
        profile_option = "ORTVK_PROFILE";
    }
    ortvk_profile *profile = NULL;
    if (profile_path[0] != '\0') ORTVK_TRY(ortvk_profile_create(device, profile_path, profile_option, &profile));

    ortvk_kernel_device *kernels = NULL;
    OrtStatus *status = ortvk_kernel_device_get(device, &kernels);
    ortvk_ep *ep = status == NULL ? calloc(1, sizeof(*ep)) : NULL;
    if (ep == NULL) {
        ortvk_profile_put(profile);
        if (status != NULL) return status;
        ortvk_kernel_device_put(kernels);
        return ortvk_status(ORT_FAIL, "out of host memory creating the EP");
    }
    ep->profile = profile;
    ep->base = (OrtEp){
        .ort_version_supported = ortvk_ort_version,
        .GetName = ep_get_name,
        .GetCapability = ep_get_capability,
        .Compile = ep_compile,
        .ReleaseNodeComputeInfos = ep_release_compute_infos,
        .OnRunStart = ep_on_run_start,
        .OnRunEnd = ep_on_run_end,
        .CreateSyncStreamForDevice = ep_create_stream,
        .CreateProfiler = ortvk_ort_version >= 30 ? ep_create_profiler : NULL,
    };
    ep->factory = factory;
    ortvk_device_ref(device);
    ep->device = device;
    ep->kernels = kernels;
    pthread_mutex_init(&ep->lock, NULL);
    ep->logger = logger;
    ep->host_timeout_ms = timeout;
    ep->host_timeout_set = timeout_text[0] != '\0';
    ep->fuse_qdq = strcmp(no_qdq, "1") != 0;
    atomic_init(&ep->main_claimed, -1);
    ORTVK_LOG_INFO(logger, "session runs on device %u: %s", device->index, device->caps.props.deviceName);
    *out = &ep->base;
    return NULL;
}

void ortvk_ep_destroy(OrtEp *base)
{
    if (base == NULL) return;
    ortvk_ep *ep = ep_cast(base);
    ortvk_stream_destroy(ep->own_stream);
    ortvk_profile_put(ep->profile); /* written now, or by the last of its runs still queued */
    ortvk_kernel_device_put(ep->kernels);
    pthread_mutex_destroy(&ep->lock);
    ortvk_device_unref(ep->device);
    free(ep);
}
