/* The per-op device profiler: a timestamp query pool per profiled partition run, the cost estimate of each node
 * (FLOPs of Conv, ConvTranspose, MatMul and Gemm; bytes read and written for every op), the events read back on
 * retire, and the Chrome-trace JSON with its per-op summary written when the last reference goes. */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernels/kernel_internal.h"
#include "kernels/kernel_profile.h"
#include "ort/ort_tensor.h"

#define MAX_EVENTS 2000000 /* then events are counted as dropped: a profile of a long-running app stays bounded */

typedef ortvk_profile_event pevent;

struct ortvk_profile {
    atomic_int refs;
    ortvk_device *device; /* holds a reference */
    char *path;           /* NULL: no file (ORT's profiler alone) */
    double period_ns;     /* timestampPeriod */
    uint64_t mask;        /* timestampValidBits */
    char note[512];       /* why there are no events, or "" */
    atomic_int partitions;
    pthread_mutex_t lock; /* guards everything below */
    pevent *events;
    size_t count, capacity, dropped;
    uint32_t *runs;       /* runs begun, per partition */
    size_t runs_capacity;
    struct ortvk_profile_run *pending; /* runs not yet collected (a list through `next`) */
};

/* What a node's record left in the run, kept until the timestamps are read. */
typedef struct pnode {
    char *name, *inputs, *outputs;
    char op[32];
    char pipelines[64]; /* ortvk_krun's */
    double flops, bytes;
} pnode;

struct ortvk_profile_run {
    ortvk_profile *profile; /* holds a reference */
    VkQueryPool pool;
    uint32_t queries, written;
    int partition;
    char *partition_name;
    uint32_t index;
    size_t input_bytes;
    size_t n_nodes;
    pnode *nodes;
    atomic_int refs;        /* the recording side and the retire side */
    atomic_bool ok;
    double host_ns;         /* CLOCK_MONOTONIC when the run was recorded */
    /* Under the profile's lock: */
    struct ortvk_profile_run *next, **prev;
    ortvk_semaphore_point done; /* the stream's timeline value that marks the GPU done with it (0: unknown) */
    bool collected;
};

double ortvk_profile_monotonic_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

OrtStatus *ortvk_profile_create(ortvk_device *device, const char *path, const char *option, ortvk_profile **out)
{
    *out = NULL;
    FILE *f = path != NULL ? fopen(path, "w") : NULL;
    if (path != NULL && f == NULL)
        return ortvk_status(ORT_INVALID_ARGUMENT, "%s = \"%s\": cannot write the profile there: %s", option, path,
                            strerror(errno));
    if (f != NULL) fclose(f);
    ortvk_profile *p = calloc(1, sizeof(*p));
    if (p == NULL || (path != NULL && (p->path = strdup(path)) == NULL)) {
        free(p);
        return ortvk_status(ORT_FAIL, "out of host memory creating a profile");
    }
    atomic_init(&p->refs, 1);
    pthread_mutex_init(&p->lock, NULL);
    p->period_ns = device->caps.props.limits.timestampPeriod;
    uint32_t families = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(device->physical, &families, NULL);
    VkQueueFamilyProperties *props = calloc(families + 1, sizeof(*props));
    uint32_t bits = 0;
    if (props != NULL) {
        vkGetPhysicalDeviceQueueFamilyProperties(device->physical, &families, props);
        if (device->caps.queue_family < families) bits = props[device->caps.queue_family].timestampValidBits;
        free(props);
    }
    p->mask = bits >= 64 ? UINT64_MAX : (1ull << bits) - 1;
    if (bits == 0)
        snprintf(p->note, sizeof(p->note), "queue family %u of %s has no timestamps (timestampValidBits 0): no events",
                 device->caps.queue_family, device->caps.props.deviceName);
    ortvk_device_ref(device);
    p->device = device;
    *out = p;
    return NULL;
}

void ortvk_profile_ref(ortvk_profile *p)
{
    atomic_fetch_add(&p->refs, 1);
}

int ortvk_profile_next_partition(ortvk_profile *p)
{
    return atomic_fetch_add(&p->partitions, 1);
}

/* ---- cost estimates ------------------------------------------------------------------------------------- */

static double product(const int64_t *dims, size_t from, size_t to)
{
    double n = 1;
    for (size_t i = from; i < to; i++) n *= (double)dims[i];
    return n;
}

/* Multiply-adds count 2 FLOPs; bias, activation and padding are left out. Bytes: every tensor the node's device
 * work reads or writes, counted once (what a perfect cache would move). */
/* Whether `op` is `name`, or a fused kernel led by it ("Conv+Add+Clip"). */
static bool led_by(const char *op, const char *name)
{
    size_t n = strlen(name);
    return strncmp(op, name, n) == 0 && (op[n] == '\0' || op[n] == '+');
}

static void node_cost(const char *op, const ortvk_kparams *params, const ortvk_krun *run, double *flops,
                      double *bytes)
{
    *flops = 0;
    *bytes = 0;
    for (size_t i = 0; i < run->n_in + run->n_out; i++) {
        const ortvk_ktensor *t = i < run->n_in ? &run->in[i] : &run->out[i - run->n_in];
        if (t->present) *bytes += (double)t->count * (double)ortvk_element_size(t->type);
    }
    const ortvk_ktensor *x = &run->in[0], *w = &run->in[1], *y = &run->out[0];
    if (!x->present || !y->present) return;
    if (led_by(op, "Conv") && w->present && w->rank >= 2) {
        /* y[n, m, ...] sums over C/group channels and the kernel window: W is [M, C/group, k...]. */
        *flops = 2.0 * (double)y->count * product(w->dims, 1, w->rank);
    } else if (strcmp(op, "ConvTranspose") == 0 && w->present && w->rank >= 2) {
        /* Each input element scatters into M/group channels over the kernel window: W is [C, M/group, k...]. */
        *flops = 2.0 * (double)x->count * product(w->dims, 1, w->rank);
    } else if (led_by(op, "MatMul") && x->rank >= 1) {
        *flops = 2.0 * (double)y->count * (double)x->dims[x->rank - 1];
    } else if (led_by(op, "Gemm") && x->rank == 2) {
        *flops = 2.0 * (double)y->count * (double)x->dims[params->gemm.trans_a ? 0 : 1];
    } else if (strcmp(op, "MLP") == 0) {
        *flops = params->mlp.flops;
    }
}

/* "1x3x320x320 float, 16x3x3x3 float" for the present tensors among `ts`. */
static char *shapes_of(const ortvk_ktensor *ts, size_t count)
{
    char text[1024];
    size_t at = 0;
    text[0] = '\0';
    for (size_t i = 0; i < count && at < sizeof(text) - 64; i++) {
        const ortvk_ktensor *t = &ts[i];
        if (!t->present) continue;
        if (at > 0) at += (size_t)snprintf(text + at, sizeof(text) - at, ", ");
        for (size_t d = 0; d < t->rank && at < sizeof(text) - 64; d++)
            at += (size_t)snprintf(text + at, sizeof(text) - at, "%s%lld", d ? "x" : "", (long long)t->dims[d]);
        if (t->rank == 0) at += (size_t)snprintf(text + at, sizeof(text) - at, "scalar");
        at += (size_t)snprintf(text + at, sizeof(text) - at, " %s", ortvk_element_name(t->type));
    }
    return strdup(text);
}

/* ---- runs ----------------------------------------------------------------------------------------------- */

static void run_free(ortvk_profile_run *r)
{
    pthread_mutex_lock(&r->profile->lock);
    if (r->prev != NULL) {
        *r->prev = r->next;
        if (r->next != NULL) r->next->prev = r->prev;
    }
    pthread_mutex_unlock(&r->profile->lock);
    for (size_t i = 0; i < r->n_nodes; i++) {
        free(r->nodes[i].name);
        free(r->nodes[i].inputs);
        free(r->nodes[i].outputs);
    }
    free(r->nodes);
    free(r->partition_name);
    if (r->pool != VK_NULL_HANDLE) vkDestroyQueryPool(r->profile->device->vk, r->pool, NULL);
    ortvk_profile_put(r->profile);
    free(r);
}

ortvk_profile_run *ortvk_profile_run_begin(ortvk_profile *p, VkCommandBuffer cmd, int partition,
                                           const char *partition_name, size_t nodes)
{
    if (p->note[0] != '\0' || nodes > UINT32_MAX - 2) return NULL;
    ortvk_profile_run *r = calloc(1, sizeof(*r));
    if (r == NULL) return NULL;
    ortvk_profile_ref(p);
    r->profile = p;
    r->queries = (uint32_t)nodes + 2;
    r->partition = partition;
    r->partition_name = strdup(partition_name ? partition_name : "");
    r->nodes = calloc(nodes + 1, sizeof(*r->nodes));
    atomic_init(&r->refs, 2);
    VkQueryPoolCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
        .queryType = VK_QUERY_TYPE_TIMESTAMP,
        .queryCount = r->queries,
    };
    if (r->partition_name == NULL || r->nodes == NULL ||
        vkCreateQueryPool(p->device->vk, &info, NULL, &r->pool) != VK_SUCCESS) {
        run_free(r);
        return NULL;
    }
    pthread_mutex_lock(&p->lock);
    if ((size_t)partition >= p->runs_capacity) {
        size_t capacity = (size_t)partition + 8;
        uint32_t *grown = realloc(p->runs, capacity * sizeof(*grown));
        if (grown != NULL) {
            memset(grown + p->runs_capacity, 0, (capacity - p->runs_capacity) * sizeof(*grown));
            p->runs = grown;
            p->runs_capacity = capacity;
        }
    }
    if ((size_t)partition < p->runs_capacity) r->index = p->runs[partition]++;
    r->next = p->pending;
    if (r->next != NULL) r->next->prev = &r->next;
    r->prev = &p->pending;
    p->pending = r;
    r->host_ns = ortvk_profile_monotonic_ns();
    pthread_mutex_unlock(&p->lock);
    /* Every query is reset before its use in this command buffer (a new pool's queries are undefined). */
    vkCmdResetQueryPool(cmd, r->pool, 0, r->queries);
    /* BOTTOM_OF_PIPE: written once every earlier command of the buffer has finished, so the interval between two
     * timestamps is the device time of the commands between them, not their queueing. */
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, r->pool, r->written++);
    return r;
}

void ortvk_profile_run_inputs(ortvk_profile_run *r, VkCommandBuffer cmd, size_t bytes)
{
    if (r == NULL || r->written != 1) return;
    r->input_bytes = bytes;
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, r->pool, r->written++);
}

void ortvk_profile_run_node(ortvk_profile_run *r, const char *name, const char *op_type,
                            const union ortvk_kparams *params, const struct ortvk_krun *run)
{
    if (r == NULL || r->written < 2 || r->written >= r->queries) return;
    pnode *n = &r->nodes[r->n_nodes++];
    n->name = strdup(name ? name : "");
    snprintf(n->op, sizeof(n->op), "%s", op_type);
    snprintf(n->pipelines, sizeof(n->pipelines), "%s", run->pipelines);
    n->inputs = shapes_of(run->in, run->n_in);
    n->outputs = shapes_of(run->out, run->n_out);
    node_cost(op_type, params, run, &n->flops, &n->bytes);
    vkCmdWriteTimestamp(run->cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, r->pool, r->written++);
}

static void add_event(ortvk_profile *p, const ortvk_profile_run *r, const char *name, const char *op,
                      const char *pipelines, const char *inputs, const char *outputs, double start, double host,
                      double dur, double flops, double bytes)
{
    pevent *grown = p->count < MAX_EVENTS ? ortvk_kgrow(p->events, &p->capacity, p->count, sizeof(*grown), 256) : NULL;
    if (grown == NULL) {
        p->dropped++;
        return;
    }
    p->events = grown;
    pevent *e = &p->events[p->count];
    *e = (pevent){.tid = r->partition, .run = r->index, .start_ns = start, .host_ns = host, .dur_ns = dur,
                  .flops = flops, .bytes = bytes};
    snprintf(e->op, sizeof(e->op), "%s", op);
    snprintf(e->pipelines, sizeof(e->pipelines), "%s", pipelines);
    e->name = strdup(name);
    e->partition = strdup(r->partition_name);
    e->inputs = strdup(inputs ? inputs : "");
    e->outputs = strdup(outputs ? outputs : "");
    if (e->name == NULL || e->partition == NULL || e->inputs == NULL || e->outputs == NULL) {
        free(e->name), free(e->partition), free(e->inputs), free(e->outputs);
        p->dropped++;
        return;
    }
    p->count++;
}

/* Lock held. The GPU is done with the run (and recording and submission succeeded): its timestamps become events.
 * Events are placed on the host clock at the run's recording plus their offset in the run (device durations are
 * exact; where a run waited in the queue, its host placement is early by that wait). */
static void run_collect(ortvk_profile_run *r)
{
    ortvk_profile *p = r->profile;
    uint64_t ticks[2 + 4096], *heap = NULL, *t = ticks;
    if (r->collected || r->written < 2) return;
    r->collected = true;
    if (r->written > sizeof(ticks) / sizeof(ticks[0]) && (t = heap = calloc(r->written, sizeof(*t))) == NULL) {
        p->dropped += r->n_nodes;
        return;
    }
    /* No WAIT flag: the GPU is done with the submission, so every written query is available. */
    VkResult result = vkGetQueryPoolResults(p->device->vk, r->pool, 0, r->written, r->written * sizeof(uint64_t), t,
                                            sizeof(uint64_t), VK_QUERY_RESULT_64_BIT);
    if (result != VK_SUCCESS) {
        p->dropped += r->n_nodes;
        free(heap);
        return;
    }
    double period = p->period_ns;
    if (r->input_bytes > 0) {
        double dur = (double)((t[1] - t[0]) & p->mask) * period;
        add_event(p, r, "host inputs", "Upload", "", "", "", (double)t[0] * period, r->host_ns, dur, 0,
                  (double)r->input_bytes);
    }
    for (size_t i = 0; i < r->n_nodes && i + 2 < r->written; i++) {
        const pnode *n = &r->nodes[i];
        double dur = (double)((t[i + 2] - t[i + 1]) & p->mask) * period;
        double host = r->host_ns + (double)((t[i + 1] - t[0]) & p->mask) * period;
        add_event(p, r, n->name, n->op, n->pipelines, n->inputs, n->outputs, (double)t[i + 1] * period, host, dur,
                  n->flops, n->bytes);
    }
    free(heap);
}

static void run_drop(ortvk_profile_run *r)
{
    if (atomic_fetch_sub(&r->refs, 1) != 1) return;
    if (atomic_load(&r->ok)) {
        pthread_mutex_lock(&r->profile->lock);
        run_collect(r);
        pthread_mutex_unlock(&r->profile->lock);
    }
    run_free(r);
}

void ortvk_profile_run_end(ortvk_profile_run *r, bool ok, ortvk_semaphore_point done)
{
    if (r == NULL) return;
    pthread_mutex_lock(&r->profile->lock);
    r->done = ok ? done : (ortvk_semaphore_point){0};
    pthread_mutex_unlock(&r->profile->lock);
    atomic_store(&r->ok, ok); /* before the drop: the retire side may be the last and read it */
    run_drop(r);
}

/* Lock held. Collects the pending runs the GPU has finished but their streams have not retired yet (a stream
 * retires a submission at its next use or at the end of a run). */
static void collect_finished(ortvk_profile *p)
{
    for (ortvk_profile_run *r = p->pending; r != NULL; r = r->next) {
        uint64_t value = 0;
        if (r->collected || r->done.value == 0 || !atomic_load(&r->ok) ||
            vkGetSemaphoreCounterValue(p->device->vk, r->done.semaphore, &value) != VK_SUCCESS ||
            value < r->done.value)
            continue;
        run_collect(r);
    }
}

void ortvk_profile_run_retire(ortvk_profile_run *r)
{
    if (r != NULL) run_drop(r);
}

/* ---- the file ------------------------------------------------------------------------------------------- */

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c == '"' || *c == '\\') fprintf(f, "\\%c", *c);
        else if (*c < 0x20) fprintf(f, "\\u%04x", *c);
        else fputc(*c, f);
    }
    fputc('"', f);
}

typedef struct op_total {
    char op[32];
    size_t count;
    double ns, flops, bytes;
} op_total;

static int by_time(const void *a, const void *b)
{
    double x = ((const op_total *)a)->ns, y = ((const op_total *)b)->ns;
    return x < y ? 1 : x > y ? -1 : strcmp(((const op_total *)a)->op, ((const op_total *)b)->op);
}

/* Lock held. Per-op totals, most time first; *n_out entries (malloc'd), and the sum of all device time. */
static op_total *summarize(const ortvk_profile *p, size_t *n_out, double *all_ns)
{
    op_total *totals = calloc(p->count + 1, sizeof(*totals));
    size_t n = 0;
    *all_ns = 0;
    for (size_t i = 0; totals != NULL && i < p->count; i++) {
        const pevent *e = &p->events[i];
        size_t k = 0;
        while (k < n && strcmp(totals[k].op, e->op) != 0) k++;
        if (k == n) snprintf(totals[n++].op, sizeof(totals[k].op), "%s", e->op);
        totals[k].count++;
        totals[k].ns += e->dur_ns;
        totals[k].flops += e->flops;
        totals[k].bytes += e->bytes;
        *all_ns += e->dur_ns;
    }
    if (totals != NULL) qsort(totals, n, sizeof(*totals), by_time);
    *n_out = n;
    return totals;
}

/* Lock held. */
static uint32_t max_runs(const ortvk_profile *p)
{
    uint32_t runs = 0;
    for (size_t i = 0; i < p->runs_capacity; i++) runs = p->runs[i] > runs ? p->runs[i] : runs;
    return runs;
}

static void print_summary_locked(ortvk_profile *p, FILE *to)
{
    size_t n = 0;
    double all = 0;
    op_total *totals = summarize(p, &n, &all);
    fprintf(to, "ortvk profile: %zu node runs over %u run(s), %.3f ms of device time\n", p->count, max_runs(p),
            all / 1e6);
    fprintf(to, "  %-24s %7s %12s %7s %14s\n", "op", "count", "total ms", "share", "rate");
    for (size_t i = 0; i < n; i++) {
        const op_total *t = &totals[i];
        double s = t->ns / 1e9;
        char rate[32] = "";
        if (s > 0 && t->flops > 0) snprintf(rate, sizeof(rate), "%.2f GFLOP/s", t->flops / s / 1e9);
        else if (s > 0 && t->bytes > 0) snprintf(rate, sizeof(rate), "%.2f GB/s", t->bytes / s / 1e9);
        fprintf(to, "  %-24s %7zu %12.3f %6.1f%% %14s\n", t->op, t->count, t->ns / 1e6, all > 0 ? 100 * t->ns / all : 0,
                rate);
    }
    free(totals);
}

/* Lock held. Chrome's trace event format (JSON object form): "X" (complete) events, ts and dur in microseconds on
 * the device's clock from the first event; pid 1, tid the partition. Perfetto and chrome://tracing open it. */
static bool write_file(ortvk_profile *p)
{
    if (p->path == NULL) return true;
    FILE *f = fopen(p->path, "w");
    if (f == NULL) return false;
    double base = 0;
    for (size_t i = 0; i < p->count; i++)
        if (i == 0 || p->events[i].start_ns < base) base = p->events[i].start_ns;
    fprintf(f, "{\"displayTimeUnit\": \"ms\",\n\"traceEvents\": [\n");
    for (size_t i = 0; i < p->count; i++) {
        const pevent *e = &p->events[i];
        fputc('{', f);
        fprintf(f, "\"name\": ");
        json_string(f, e->name);
        fprintf(f, ", \"cat\": ");
        json_string(f, e->op);
        fprintf(f, ", \"ph\": \"X\", \"pid\": 1, \"tid\": %d, \"ts\": %.3f, \"dur\": %.3f, \"args\": {\"op\": ", e->tid,
                (e->start_ns - base) / 1e3, e->dur_ns / 1e3);
        json_string(f, e->op);
        fprintf(f, ", \"partition\": ");
        json_string(f, e->partition);
        fprintf(f, ", \"run\": %u, \"inputs\": ", e->run);
        json_string(f, e->inputs);
        fprintf(f, ", \"outputs\": ");
        json_string(f, e->outputs);
        if (e->pipelines[0]) {
            fprintf(f, ", \"pipelines\": ");
            json_string(f, e->pipelines);
        }
        fprintf(f, ", \"bytes\": %.0f", e->bytes);
        if (e->flops > 0) fprintf(f, ", \"flops\": %.0f", e->flops);
        fprintf(f, "}}%s\n", i + 1 < p->count ? "," : "");
    }
    fprintf(f, "],\n\"otherData\": {\"producer\": \"ortvk\", \"device\": ");
    json_string(f, p->device->caps.props.deviceName);
    fprintf(f, ", \"clock\": \"device timestamps, BOTTOM_OF_PIPE between nodes\", \"runs\": %u, \"events\": %zu, "
               "\"dropped\": %zu, \"note\": ",
            max_runs(p), p->count, p->dropped);
    json_string(f, p->note);
    fprintf(f, "},\n\"ortvkSummary\": [\n");
    size_t n = 0;
    double all = 0;
    op_total *totals = summarize(p, &n, &all);
    for (size_t i = 0; totals != NULL && i < n; i++) {
        const op_total *t = &totals[i];
        fprintf(f, "{\"op\": ");
        json_string(f, t->op);
        fprintf(f, ", \"count\": %zu, \"total_ms\": %.6f, \"share\": %.6f, \"flops\": %.0f, \"bytes\": %.0f}%s\n",
                t->count, t->ns / 1e6, all > 0 ? t->ns / all : 0, t->flops, t->bytes, i + 1 < n ? "," : "");
    }
    free(totals);
    fprintf(f, "]}\n");
    return fclose(f) == 0;
}

void ortvk_profile_put(ortvk_profile *p)
{
    if (p == NULL || atomic_fetch_sub(&p->refs, 1) != 1) return;
    pthread_mutex_lock(&p->lock);
    if (!write_file(p))
        ORTVK_LOG_ERROR(p->device->instance->logger, "writing the ortvk profile %s failed: %s", p->path,
                        strerror(errno));
    const char *summary = getenv("ORTVK_PROFILE_SUMMARY");
    if (summary != NULL && summary[0] != '\0' && strcmp(summary, "0") != 0) print_summary_locked(p, stderr);
    for (size_t i = 0; i < p->count; i++) {
        free(p->events[i].name);
        free(p->events[i].partition);
        free(p->events[i].inputs);
        free(p->events[i].outputs);
    }
    pthread_mutex_unlock(&p->lock);
    free(p->events);
    free(p->runs);
    pthread_mutex_destroy(&p->lock);
    ortvk_device_unref(p->device);
    free(p->path);
    free(p);
}

void ortvk_profile_foreach_event(ortvk_profile *p, ortvk_profile_event_fn fn, void *context)
{
    pthread_mutex_lock(&p->lock);
    collect_finished(p);
    for (size_t i = 0; i < p->count && fn(&p->events[i], context); i++) {
    }
    pthread_mutex_unlock(&p->lock);
}
