/* One run of a compiled partition (Compute): the fused node's inputs, each node's outputs and dispatches recorded
 * into one command buffer (after a planning pass, the first time), submitted without waiting; what the run holds
 * until its submission retires. */
#include <stdlib.h>
#include <string.h>

#include "kernels/kernel_partition.h"
#include "ort/ort_tensor.h"
#include "vk/vk_heap.h"
#include "vk/vk_transfer.h"

/* Fills a tensor view from an ORT value: in ortvk memory, or in host memory (then `host` is set and the data is
 * staged into device memory once the run records; see stage_host_inputs). */
static OrtStatus *view(ortvk_krun *run, const OrtValue *value, ortvk_ktensor *t, const void **host, const char *what,
                       size_t index)
{
    const int64_t *dims = NULL;
    size_t rank = 0;
    ORTVK_TRY(ortvk_ort->GetTensorElementTypeAndShapeDataReference(value, &t->type, &dims, &rank));
    if (rank > ORTVK_KMAX_RANK) return ortvk_status(ORT_EP_FAIL, "%s %zu has rank %zu", what, index, rank);
    t->present = true;
    t->rank = rank;
    if (rank > 0) memcpy(t->dims, dims, rank * sizeof(int64_t));
    t->count = ortvk_kcount(t->dims, rank);
    size_t bytes = t->count * ortvk_element_size(t->type);
    if (t->count == 0) return NULL;
    void *data = NULL;
    ORTVK_TRY(ortvk_ort->GetTensorMutableData((OrtValue *)value, &data));
    /* A reference for the submission: ORT may free the tensor, and the application release its import, as soon
     * as Compute returns, which is before the GPU has run it. */
    t->buffer = ortvk_device_acquire(run->device, data, bytes, &t->offset);
    if (t->buffer != NULL) {
        t->address = (VkDeviceAddress)(uintptr_t)data;
        return ortvk_krun_hold(run, t->buffer);
    }
    const OrtMemoryInfo *where = NULL;
    OrtMemoryInfoDeviceType device = OrtMemoryInfoDeviceType_GPU;
    const char *memory = "?";
    ORTVK_TRY(ortvk_ort->GetTensorMemoryInfo(value, &where));
    ortvk_ort->MemoryInfoGetDeviceType(where, &device);
    if (device == OrtMemoryInfoDeviceType_CPU && host != NULL) {
        *host = data;
        return NULL;
    }
    OrtStatus *status = ortvk_ort->MemoryInfoGetName(where, &memory);
    if (status != NULL) ortvk_ort->ReleaseStatus(status);
    return ortvk_status(ORT_EP_FAIL, "%s %zu (%p, %zu bytes, memory \"%s\") is not in ortvk memory of device %u", what,
                        index, data, bytes, memory, run->device->index);
}

/* ORT 1.24 and 1.30 run the MemcpyFromHost they insert before a plugin EP's node on the CPU EP, which leaves its
 * output in host memory (microsoft/onnxruntime#27272). Such an input is complete when Compute is called (the CPU
 * EP is synchronous), so the run copies it into device memory at record time, ahead of its dispatches. */
static OrtStatus *stage_host_inputs(ortvk_krun *run, ortvk_ktensor *values, const void *const *host, size_t count)
{
    for (size_t v = 0; v < count; v++) {
        ortvk_ktensor *t = &values[v];
        if (host[v] == NULL) continue;
        size_t bytes = t->count * ortvk_element_size(t->type);
        run->scratch_count = 0;
        ORTVK_TRY(ortvk_krun_upload(run, host[v], bytes, &t->address));
        t->buffer = ortvk_device_resolve(run->device, (const void *)(uintptr_t)t->address, bytes, &t->offset);
    }
    return NULL;
}

/* Imported opaque-FD memory belongs to VK_QUEUE_FAMILY_EXTERNAL between uses (ortvk_buffer_ownership): acquire it
 * before the run's commands and release it after them. */
static void ownership(ortvk_krun *run, bool acquire)
{
    if (run->plan != NULL) return;
    const ortvk_buffer *seen[ORTVK_KMAX_INPUTS + ORTVK_KMAX_OUTPUTS];
    size_t n_seen = 0;
    for (size_t i = 0; i < run->n_in + run->n_out; i++) {
        const ortvk_ktensor *t = i < run->n_in ? &run->in[i] : &run->out[i - run->n_in];
        if (t->buffer == NULL || t->buffer->kind != ORTVK_BUFFER_OPAQUE_FD) continue;
        bool dup = false;
        for (size_t j = 0; j < n_seen && !dup; j++) dup = seen[j] == t->buffer;
        if (dup) continue;
        seen[n_seen++] = t->buffer;
        ortvk_buffer_ownership(run->cmd, t->buffer, acquire,
                               VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                               VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT,
                               VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
    }
}

/* Buffers of internal values whose last reader is recorded, for later values of the same run (the barrier before
 * each command orders the new writes after the old reads). */
typedef struct free_buffers {
    size_t count, capacity;
    ortvk_buffer **buffers;
} free_buffers;

/* A buffer of at least `bytes` for an internal value: the smallest free one that fits, else a new one. */
static OrtStatus *internal_buffer(ortvk_krun *run, free_buffers *pool, size_t bytes, ortvk_buffer **out)
{
    size_t best = pool->count;
    for (size_t i = 0; i < pool->count; i++) {
        VkDeviceSize size = pool->buffers[i]->size;
        if (size >= bytes && (best == pool->count || size < pool->buffers[best]->size)) best = i;
    }
    if (best < pool->count) {
        *out = pool->buffers[best];
        pool->buffers[best] = pool->buffers[--pool->count];
        return NULL;
    }
    ORTVK_TRY(ortvk_buffer_allocate(run->device, bytes, out));
    return ortvk_krun_hold(run, *out); /* released with the submission */
}

static void free_buffer(free_buffers *pool, ortvk_buffer *buffer)
{
    ortvk_buffer **grown = ortvk_kgrow(pool->buffers, &pool->capacity, pool->count, sizeof(*grown), 16);
    if (grown == NULL) return; /* not reused: it still goes with the submission */
    pool->buffers = grown;
    pool->buffers[pool->count++] = buffer;
}

/* `status` of a node's run with the node's name in front (ORT reports the fused node's, which names no model node). */
static OrtStatus *with_node(const ortvk_kernel *kernel, OrtStatus *status)
{
    const char *message = ortvk_ort->GetErrorMessage(status);
    if (strncmp(message, "ortvk: ", 7) == 0) message += 7;
    OrtStatus *named = ortvk_status(ortvk_ort->GetErrorCode(status), "node %s (%s): %s", kernel->name,
                                    kernel->op_type, message);
    if (named == NULL) return status;
    ortvk_ort->ReleaseStatus(status);
    return named;
}

/* Records node `index` of the partition: its inputs from `values`, its output shapes, its outputs (ORT's for the
 * fused node's outputs, the run's own for internal values), its commands. */
static OrtStatus *record_kernel(ortvk_partition *p, size_t index, ortvk_krun *run, ortvk_ktensor *values,
                                free_buffers *pool, OrtKernelContext *context)
{
    ortvk_kernel *kernel = p->kernels[index];
    run->n_in = kernel->n_in;
    run->n_out = kernel->n_out;
    run->float16 = kernel->float16;
    run->scratch_count = 0;
    run->pipelines[0] = '\0';
    memset(run->in, 0, sizeof(run->in));
    memset(run->out, 0, sizeof(run->out));
    for (size_t i = 0; i < kernel->n_in; i++) {
        if (kernel->consts[i] != NULL) {
            /* The partition may be released, its session with it, while this run is still queued. */
            run->in[i] = kernel->consts[i]->view;
            if (run->in[i].buffer != NULL && ortvk_buffer_try_ref(run->in[i].buffer))
                ORTVK_TRY(ortvk_krun_hold(run, run->in[i].buffer));
        } else if (kernel->in_slot[i] >= 0) {
            run->in[i] = values[kernel->in_slot[i]];
        }
    }
    run->chain = 0;
    if (kernel->chain_consts != NULL) {
        ortvk_buffer *buffer = kernel->chain_consts->buffer;
        if (ortvk_buffer_try_ref(buffer)) ORTVK_TRY(ortvk_krun_hold(run, buffer));
        run->chain = buffer->address;
    }
    ORTVK_TRY(kernel->op->shape(&kernel->params, run));
    bool any = false;
    for (size_t i = 0; i < kernel->n_out; i++) {
        ortvk_ktensor *t = &run->out[i];
        int64_t count = 0;
        if (t->rank > ORTVK_KMAX_RANK || !ortvk_kcount_checked(t->dims, t->rank, ortvk_element_size(t->type), &count))
            return ortvk_status(ORT_INVALID_ARGUMENT, "%s: output %zu of rank %zu, dims [%lld, %lld, ...]: a negative "
                                "dim or more elements than 64 bits count", kernel->op_type, i, t->rank,
                                (long long)t->dims[0], (long long)(t->rank > 1 ? t->dims[1] : 0));
        int slot = kernel->out_slot[i];
        const pvalue *v = slot >= 0 ? &p->values[slot] : NULL;
        if (v == NULL || (v->fused_out < 0 && v->last_use < 0)) {
            t->present = false; /* nobody reads it: not computed */
            continue;
        }
        t->present = true;
        t->count = ortvk_kcount(t->dims, t->rank);
        if (v->fused_out >= 0) {
            OrtValue *value = NULL;
            ONNXTensorElementDataType want = t->type;
            ORTVK_TRY(ortvk_ort->KernelContext_GetOutput(context, (size_t)v->fused_out, t->dims, t->rank, &value));
            ORTVK_TRY(view(run, value, t, NULL, "output", i));
            if (t->type != want)
                return ortvk_status(ORT_EP_FAIL, "%s: output %zu is %s, expected %s", kernel->op_type, i,
                                    ortvk_element_name(t->type), ortvk_element_name(want));
        } else if (t->count > 0) {
            ORTVK_TRY(internal_buffer(run, pool, t->count * ortvk_element_size(t->type), &t->buffer));
            t->address = t->buffer->address;
            t->offset = 0;
        }
        values[slot] = *t;
        any = any || t->count > 0;
    }
    for (size_t i = 0; any && i < run->n_in + run->n_out; i++) {
        const ortvk_ktensor *t = i < run->n_in ? &run->in[i] : &run->out[i - run->n_in];
        if (t->present && t->count > INT32_MAX)
            return ortvk_status(ORT_EP_FAIL, "%s: %s %zu holds %zu elements (the shaders take int32 strides)",
                                kernel->op_type, i < run->n_in ? "input" : "output",
                                i < run->n_in ? i : i - run->n_in, t->count);
    }
    if (any) {
        ownership(run, true);
        OrtStatus *status = kernel->op->record(&kernel->params, run);
        ownership(run, false);
        if (status != NULL) return status;
    }
    /* Internal values read for the last time: their buffers serve later nodes. */
    for (size_t i = 0; i < kernel->n_in; i++) {
        int slot = kernel->in_slot[i];
        if (slot < 0 || p->values[slot].last_use != (int)index || p->values[slot].fused_out >= 0 ||
            p->values[slot].fused_in >= 0 || values[slot].buffer == NULL)
            continue;
        free_buffer(pool, values[slot].buffer);
        values[slot].buffer = NULL; /* once, even if the node reads it twice */
    }
    return NULL;
}

OrtStatus *ortvk_krun_host(ortvk_krun *run, size_t bytes, void **out)
{
    void **grown = ortvk_kgrow(run->host_blocks, &run->host_capacity, run->n_host_blocks, sizeof(*grown), 16);
    if (grown == NULL) return ortvk_status(ORT_FAIL, "out of host memory running a partition");
    run->host_blocks = grown;
    if ((*out = calloc(1, bytes ? bytes : 1)) == NULL)
        return ortvk_status(ORT_FAIL, "out of host memory for a value of %zu bytes", bytes);
    run->host_blocks[run->n_host_blocks++] = *out;
    return NULL;
}

/* A fused input's values on the host: where ORT gave it in host memory, or, for an input some node reads on the
 * host (a shape, bounds) that arrives in device memory, a copy read back after the work that made it (a host
 * wait: the one case that costs a round trip, when an unclaimed node or a partition boundary separates a shape
 * value from its reader). */
static OrtStatus *host_values(ortvk_krun *run, ortvk_stream *stream, ortvk_ktensor *t, const void *host,
                              bool needed)
{
    if (host != NULL) {
        t->host = host;
        return NULL;
    }
    size_t bytes = t->count * ortvk_element_size(t->type);
    if (!needed || bytes == 0 || t->buffer == NULL) return NULL;
    if (t->count > ORTVK_KHOST_MAX)
        return ortvk_status(ORT_EP_FAIL, "an input of %zu elements read on the host (at most %d)", t->count,
                            ORTVK_KHOST_MAX);
    void *data = NULL;
    ORTVK_TRY(ortvk_krun_host(run, bytes, &data));
    ortvk_copy_end dst = {.host = data}, src = {.buffer = t->buffer, .offset = t->offset};
    ORTVK_TRY(ortvk_transfer_copy(stream, dst, src, bytes, true));
    t->host = data;
    return NULL;
}

/* Frees `run` (NULL is fine) and its host blocks; its held references went with its submission, or were released. */
static void run_free(ortvk_krun *run)
{
    if (run == NULL) return;
    for (size_t b = 0; b < run->n_host_blocks; b++) free(run->host_blocks[b]);
    free(run->host_blocks);
    free(run);
}

/* The first run of a partition records it twice. First a planning pass: the same recording without a command
 * buffer (run->plan: nothing recorded, no texel views, uploads without their data; buffers taken and given back),
 * which gathers the pipelines the dispatches will bind; ortvk_kernel_device_prepare creates those not made yet
 * several at a time. Then the real recording finds them made: on lavapipe, whose pipeline creation compiles the
 * shader's NIR on the calling thread (about 2 s for the PP-OCRv4 detector's 30-odd), the first Run takes about 1 s
 * less on 2 cores. Best effort: a failure here is the real recording's to report. `inputs` and `host`, the fused
 * inputs, are not changed. */
static void plan_pipelines(ortvk_partition *p, ortvk_device *device, const ortvk_ktensor *inputs,
                           const void *const *host, OrtKernelContext *context)
{
    ortvk_kplan plan = {0};
    ortvk_krun *run = calloc(1, sizeof(*run));
    ortvk_ktensor *values = calloc(p->n_values + 1, sizeof(*values));
    free_buffers pool = {0};
    if (run != NULL && values != NULL) {
        memcpy(values, inputs, p->n_values * sizeof(*values));
        run->kdev = p->kdev;
        run->device = device;
        run->plan = &plan;
        OrtStatus *status = stage_host_inputs(run, values, host, p->n_values);
        for (size_t k = 0; k < p->n_kernels && status == NULL; k++)
            status = record_kernel(p, k, run, values, &pool, context);
        if (status != NULL) ortvk_ort->ReleaseStatus(status);
        ortvk_kernel_device_prepare(p->kdev, &plan);
    }
    if (run != NULL) ortvk_kheld_release(run->held); /* nothing was submitted */
    run_free(run);
    free(pool.buffers);
    free(plan.keys);
    free(values);
}

OrtStatus *ortvk_partition_run(ortvk_partition *p, ortvk_stream *stream, OrtKernelContext *context)
{
    ortvk_krun *run = calloc(1, sizeof(*run));
    ortvk_ktensor *values = calloc(p->n_values + 1, sizeof(*values));
    const void **host = calloc(p->n_values + 1, sizeof(*host));
    free_buffers pool = {0};
    OrtStatus *status = NULL;
    if (run == NULL || values == NULL || host == NULL) {
        status = ortvk_status(ORT_FAIL, "out of host memory running a partition of %zu nodes", p->n_kernels);
        goto out;
    }
    run->kdev = p->kdev;
    run->device = stream->device;
    /* The fused node's inputs, with a reference each for the submission (see view). */
    for (size_t v = 0; v < p->n_values && status == NULL; v++) {
        if (p->values[v].fused_in < 0) continue;
        const OrtValue *value = NULL;
        status = ortvk_ort->KernelContext_GetInput(context, (size_t)p->values[v].fused_in, &value);
        if (status == NULL && value != NULL)
            status = view(run, value, &values[v], &host[v], "input", (size_t)p->values[v].fused_in);
        if (status == NULL) status = host_values(run, stream, &values[v], host[v], p->values[v].host_read);
    }
    if (status == NULL && !atomic_load(&p->planned) && !atomic_exchange(&p->planned, true))
        plan_pipelines(p, stream->device, values, host, context);
    if (status == NULL) status = ortvk_stream_begin(stream, &run->cmd);
    if (status != NULL) {
        ortvk_kheld_release(run->held); /* nothing was submitted */
        goto out;
    }
    /* Profiling: timestamps around the staging and after each node, read when the submission retires. */
    ortvk_profile_run *profile = ortvk_krun_profile_begin(run, p->profile, p->profile_id, p->name, p->n_kernels);
    status = stage_host_inputs(run, values, host, p->n_values);
    if (profile != NULL) {
        size_t staged = 0;
        for (size_t v = 0; v < p->n_values; v++)
            if (host[v] != NULL) staged += values[v].count * ortvk_element_size(values[v].type);
        ortvk_profile_run_inputs(profile, run->cmd, staged);
    }
    for (size_t k = 0; k < p->n_kernels && status == NULL; k++) {
        status = record_kernel(p, k, run, values, &pool, context);
        if (status != NULL) status = with_node(p->kernels[k], status);
        if (profile != NULL && status == NULL)
            ortvk_profile_run_node(profile, p->kernels[k]->name, p->kernels[k]->op_type, &p->kernels[k]->params, run);
    }
    /* Submitted even when recording failed part way: the commands recorded so far are valid, and submission is
     * what returns the command buffer and drops the held references once the GPU is done with them. */
    ortvk_retire retire = {0};
    if (run->held != NULL) retire = (ortvk_retire){.release = ortvk_kheld_release, .owner = run->held};
    uint64_t done = 0;
    OrtStatus *submit = ortvk_stream_submit(stream, run->cmd, NULL, 0, NULL, 0, retire, &done);
    ortvk_profile_run_end(profile, status == NULL && submit == NULL, (ortvk_semaphore_point){stream->timeline, done});
    if (status == NULL) status = submit;
    else if (submit != NULL) ortvk_ort->ReleaseStatus(submit);
out:
    run_free(run);
    free(pool.buffers);
    free(host);
    free(values);
    return status;
}
