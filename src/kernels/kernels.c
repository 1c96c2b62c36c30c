/* The kernels' driver: finds a node's op implementation (GetCapability), compiles a claimed partition (its nodes in
 * topological order, the values between them) and records it once per Compute into one command buffer submitted
 * without waiting (docs/kernels.md, "The compile path"). Also the recording helpers ops share. */
#include <stdlib.h>
#include <string.h>

#include "kernels/kernel_internal.h"
#include "kernels/kernel_profile.h"
#include "ort/ort_tensor.h"
#include "vk/vk_heap.h"
#include "vk/vk_transfer.h"

/* A constant initializer input, copied into device memory at Compile. */
typedef struct kconst {
    ortvk_ktensor view;   /* what a run sees as the input */
    ortvk_buffer *buffer; /* owned */
    void *host;           /* owned: the values of a constant the op reads on the host at run time */
} kconst;

/* One node of a partition, compiled. */
typedef struct ortvk_kernel {
    const ortvk_kop *op;
    ortvk_kparams params;
    size_t n_in, n_out;
    int in_slot[ORTVK_KMAX_INPUTS];   /* the partition value each input reads; -1: omitted or constant */
    int out_slot[ORTVK_KMAX_OUTPUTS]; /* the value each output writes; -1: omitted */
    kconst *consts[ORTVK_KMAX_INPUTS]; /* constant inputs the device reads; NULL for the others */
    bool float16;                      /* runs the shaders' float16 variant */
    bool chainable;                    /* can be a step of an element-wise chain (fuse_chains) */
    ortvk_chain_step step;
    int chain_input;                   /* the input carrying the chained value; -1: either (t + x, t * x) */
    char op_type[32];
    char *name;                        /* the node's name (the profile, run-time errors) */
} ortvk_kernel;

/* A value a partition's nodes read or write: an input of the fused node ORT runs, one of its outputs, or internal
 * (made and used inside the partition: in a buffer of the run's own). */
typedef struct pvalue {
    char *name;
    int fused_in, fused_out; /* index among the fused node's inputs / outputs, or -1 */
    int last_use;            /* the last kernel that reads it, -1 when none does */
    bool produced;           /* a node of the partition writes it */
    bool on_host;            /* ... a node evaluated on the host, which keeps its values there */
    bool host_read;          /* a node reads its values on the host (kernel_shape_ops.c) */
} pvalue;

struct ortvk_partition {
    ortvk_kernel_device *kdev; /* holds a reference */
    size_t n_kernels;
    ortvk_kernel **kernels;    /* topological order */
    size_t n_values, values_capacity;
    pvalue *values;
    char *name;                /* the fused node's */
    ortvk_profile *profile;    /* NULL unless profiling; holds a reference */
    int profile_id;
};

/* The host-evaluated ops first: they take the nodes of integer shape values that the device ops refuse. */
static const ortvk_kop *const families[] = {
    ortvk_kops_shape,  ortvk_kops_elementwise, ortvk_kops_conv, ortvk_kops_pool,
    ortvk_kops_resize, ortvk_kops_layout,      ortvk_kops_math,
};

/* Whether `name` is a word of the space-separated `list`. */
static bool listed(const char *list, const char *name)
{
    size_t len = strlen(name);
    for (const char *p = list; p != NULL && *p != '\0';) {
        const char *end = strchr(p, ' ');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n == len && strncmp(p, name, n) == 0) return true;
        p = end ? end + 1 : NULL;
    }
    return false;
}

/* The shaders index elements with 32 bits and take strides and offsets as int32: a tensor whose static shape holds
 * 2^31 elements or more (or overflows) is left to the CPU EP here; record_kernel checks the shapes of each run. */
static bool indexable(const ortvk_knode *node, char *why, size_t why_len)
{
    for (size_t i = 0; i < node->n_in + node->n_out; i++) {
        const ortvk_kvalue *v = i < node->n_in ? &node->in[i] : &node->out[i - node->n_in];
        int64_t count = 1;
        bool known = v->present && v->rank >= 0;
        for (int d = 0; known && d < v->rank; d++) known = v->dims[d] >= 0;
        if (!known || v->constant != NULL) continue;
        if (!ortvk_kcount_checked(v->dims, (size_t)v->rank, 1, &count) || count > INT32_MAX)
            return ortvk_krefuse(why, why_len, "%s of 2^31 elements or more", v->name ? v->name : "a tensor");
    }
    return true;
}

/* The op implementation for `node`, with its parameters, or NULL (with `why`). */
static const ortvk_kop *find_op(const ortvk_knode *node, ortvk_kparams *params, char *why, size_t why_len)
{
    if (node->domain[0] != '\0' && strcmp(node->domain, "ai.onnx") != 0) {
        ortvk_krefuse(why, why_len, "domain %s", node->domain);
        return NULL;
    }
    bool known = false, refused = false;
    for (size_t f = 0; f < sizeof(families) / sizeof(families[0]); f++) {
        for (const ortvk_kop *op = families[f]; op->op_type != NULL; op++) {
            if (strcmp(op->op_type, node->op_type) != 0) continue;
            known = true;
            if (node->opset < op->min_opset || node->opset > op->max_opset) continue;
            bool attributes = true;
            for (size_t a = 0; a < node->n_attrs && attributes; a++) {
                if (!listed(op->attributes, node->attrs[a].name))
                    attributes = ortvk_krefuse(why, why_len, "attribute %s", node->attrs[a].name);
            }
            refused = refused || !attributes;
            if (!attributes) continue;
            memset(params, 0, sizeof(*params));
            refused = true; /* the next implementation of the op may take it; else the last reason stands */
            if (!op->prepare(node, params, why, why_len) || !indexable(node, why, why_len)) continue;
            return op;
        }
    }
    if (!refused) ortvk_krefuse(why, why_len, known ? "opset %d" : "no kernel", node->opset);
    return NULL;
}

/* The element types of the tensors `op` reads on the device and writes, against what the device can store: its
 * float type is one of float and float16, never both (except Cast, whose input and output types are its job), and
 * float16 only where the device has 16-bit storage; bool only with 8-bit storage. Sets *float16 when the float
 * type is float16 (or, for Cast, when either side is). */
static bool element_types(const ortvk_knode *node, const ortvk_kop *op, const ortvk_device_caps *caps,
                          bool *float16, char *why, size_t why_len)
{
    bool f32 = false, f16 = false, bytes = false;
    for (size_t i = 0; i < node->n_in + node->n_out; i++) {
        const ortvk_kvalue *v = i < node->n_in ? &node->in[i] : &node->out[i - node->n_in];
        if (!v->present || (i < node->n_in && (op->host_inputs & (1u << i)))) continue;
        f32 = f32 || v->type == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;
        f16 = f16 || v->type == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16;
        bytes = bytes || v->type == ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL;
    }
    *float16 = f16;
    if (f16 && f32 && strcmp(node->op_type, "Cast") != 0) return ortvk_krefuse(why, why_len, "float and float16 mixed");
    if (f16 && !caps->storage_16bit) return ortvk_krefuse(why, why_len, "float16 (the device lacks 16-bit storage)");
    if (bytes && !caps->storage_8bit) return ortvk_krefuse(why, why_len, "bool (the device lacks 8-bit storage)");
    return true;
}

bool ortvk_kernel_supported(const OrtNode *node, const ortvk_device_caps *caps, char *why, size_t why_len)
{
    ortvk_knode *k = malloc(sizeof(*k));
    ortvk_kparams *params = malloc(sizeof(*params));
    const ortvk_kop *op = NULL;
    bool float16 = false;
    bool ok = k != NULL && params != NULL &&
              (caps->push_descriptor || ortvk_krefuse(why, why_len, "the device lacks VK_KHR_push_descriptor")) &&
              ortvk_knode_read(node, k, why, why_len) &&
              (op = find_op(k, params, why, why_len)) != NULL &&
              element_types(k, op, caps, &float16, why, why_len);
    free(k);
    free(params);
    return ok;
}

/* Index of the value named `name` among `infos`, or -1. */
static int index_of(const OrtValueInfo *const *infos, size_t count, const char *name)
{
    for (size_t i = 0; i < count; i++) {
        const char *n = NULL;
        if (infos[i] == NULL) continue;
        OrtStatus *status = ortvk_ort->GetValueInfoName(infos[i], &n);
        if (status != NULL) {
            ortvk_ort->ReleaseStatus(status);
            continue;
        }
        if (n != NULL && strcmp(n, name) == 0) return (int)i;
    }
    return -1;
}

/* Copies constant input `index` into a device buffer through `stream` (a host wait: Compile is before any run).
 * ORT keeps initializers of a fused node in host memory, so the device needs its own copy. */
static OrtStatus *upload_const(ortvk_kernel *kernel, ortvk_stream *stream, const ortvk_knode *k, size_t index)
{
    const OrtValue *value = k->in[index].constant;
    kconst *c = calloc(1, sizeof(*c));
    if (c == NULL) return ortvk_status(ORT_FAIL, "out of host memory compiling %s", k->name);
    kernel->consts[index] = c;
    ortvk_ktensor *t = &c->view;
    const int64_t *dims = NULL;
    ORTVK_TRY(ortvk_ort->GetTensorElementTypeAndShapeDataReference(value, &t->type, &dims, &t->rank));
    if (t->rank > ORTVK_KMAX_RANK) return ortvk_status(ORT_EP_FAIL, "%s: constant of rank %zu", k->name, t->rank);
    if (t->rank > 0) memcpy(t->dims, dims, t->rank * sizeof(int64_t));
    t->present = true;
    t->count = ortvk_kcount(t->dims, t->rank);
    size_t bytes = t->count * ortvk_element_size(t->type);
    if (bytes == 0) return NULL;
    const void *data = NULL;
    ORTVK_TRY(ortvk_ort->GetTensorData(value, &data));
    ORTVK_TRY(ortvk_buffer_allocate(stream->device, bytes, &c->buffer));
    t->buffer = c->buffer;
    t->address = c->buffer->address;
    void *packed = strcmp(k->op_type, "Conv") == 0 ? malloc(bytes) : NULL;
    if (packed != NULL && ortvk_kconv_pack(&kernel->params, index, t, data, packed)) {
        t->packed = true;
        data = packed;
    }
    ortvk_copy_end dst = {.buffer = c->buffer}, src = {.host = (void *)data};
    OrtStatus *status = ortvk_transfer_copy(stream, dst, src, bytes, true);
    free(packed);
    return status;
}

/* Keeps a host copy of constant input `index`, which the op reads on the host at run time. */
static OrtStatus *keep_const(ortvk_kernel *kernel, const ortvk_knode *k, size_t index)
{
    kconst *c = calloc(1, sizeof(*c));
    if (c == NULL) return ortvk_status(ORT_FAIL, "out of host memory compiling %s", k->name);
    kernel->consts[index] = c;
    ortvk_ktensor *t = &c->view;
    const int64_t *dims = NULL;
    const void *data = NULL;
    ORTVK_TRY(ortvk_ort->GetTensorElementTypeAndShapeDataReference(k->in[index].constant, &t->type, &dims, &t->rank));
    if (t->rank > ORTVK_KMAX_RANK) return ortvk_status(ORT_EP_FAIL, "%s: constant of rank %zu", k->name, t->rank);
    if (t->rank > 0) memcpy(t->dims, dims, t->rank * sizeof(int64_t));
    t->present = true;
    t->count = ortvk_kcount(t->dims, t->rank);
    size_t bytes = t->count * ortvk_element_size(t->type);
    if (bytes == 0) return NULL;
    ORTVK_TRY(ortvk_ort->GetTensorData(k->in[index].constant, &data));
    if ((c->host = malloc(bytes)) == NULL) return ortvk_status(ORT_FAIL, "out of host memory compiling %s", k->name);
    memcpy(c->host, data, bytes);
    t->host = c->host;
    return NULL;
}

static void free_consts(ortvk_kernel *kernel)
{
    for (size_t i = 0; i < ORTVK_KMAX_INPUTS; i++) {
        if (kernel->consts[i] == NULL) continue;
        free(kernel->consts[i]->host);
        ortvk_buffer_destroy(kernel->consts[i]->buffer); /* runs still queued hold their own references */
        free(kernel->consts[i]);
        kernel->consts[i] = NULL;
    }
}

static void kernel_destroy(ortvk_kernel *kernel)
{
    if (kernel == NULL) return;
    free_consts(kernel);
    free(kernel->name);
    free(kernel);
}

/* The slot of the value named `name`, added when new. */
static OrtStatus *value_slot(ortvk_partition *p, const char *name, int *out)
{
    for (size_t v = 0; v < p->n_values; v++) {
        if (strcmp(p->values[v].name, name) == 0) {
            *out = (int)v;
            return NULL;
        }
    }
    if (p->n_values == p->values_capacity) {
        size_t capacity = p->values_capacity ? 2 * p->values_capacity : 16;
        pvalue *grown = realloc(p->values, capacity * sizeof(*grown));
        if (grown == NULL) return ortvk_status(ORT_FAIL, "out of host memory compiling a partition");
        p->values = grown;
        p->values_capacity = capacity;
    }
    char *copy = strdup(name);
    if (copy == NULL) return ortvk_status(ORT_FAIL, "out of host memory compiling a partition");
    p->values[p->n_values] = (pvalue){.name = copy, .fused_in = -1, .fused_out = -1, .last_use = -1};
    *out = (int)p->n_values++;
    return NULL;
}

/* The fused node's inputs and outputs, as ORT lists them (malloc'd arrays). */
typedef struct fused_io {
    size_t n_in, n_out;
    const OrtValueInfo **ins, **outs;
} fused_io;

static OrtStatus *kernel_create(ortvk_partition *p, ortvk_stream *stream, const OrtNode *node, const fused_io *io,
                                ortvk_kernel **out)
{
    *out = NULL;
    char why[256] = "";
    ortvk_knode *k = malloc(sizeof(*k));
    ortvk_kernel *kernel = calloc(1, sizeof(*kernel));
    OrtStatus *status = NULL;
    if (k == NULL || kernel == NULL) {
        status = ortvk_status(ORT_FAIL, "out of host memory compiling a node");
        goto fail;
    }
    bool read = ortvk_knode_read(node, k, why, sizeof(why));
    k->compiling = true;
    for (size_t i = 0; read && i < k->n_in; i++) {
        const pvalue *v = NULL;
        for (size_t s = 0; k->in[i].present && s < p->n_values && v == NULL; s++)
            if (strcmp(p->values[s].name, k->in[i].name) == 0) v = &p->values[s];
        bool integer = k->in[i].type == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64 ||
                       k->in[i].type == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32 ||
                       k->in[i].type == ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL;
        if (v != NULL ? v->produced && v->on_host : integer) k->host_known |= 1u << i;
    }
    if (!read ||
        (kernel->op = find_op(k, &kernel->params, why, sizeof(why))) == NULL ||
        !element_types(k, kernel->op, &stream->device->caps, &kernel->float16, why, sizeof(why))) {
        /* GetCapability accepted this node: a refusal now means ORT changed it in between. */
        status = ortvk_status(ORT_EP_FAIL, "compiling node %s (%s): %s", k->name, k->op_type, why);
        goto fail;
    }
    /* Shape values computed on the host stay there: never a step of a device chain. */
    kernel->chainable = !kernel->float16 && !ortvk_kop_on_host(kernel->op) &&
                        ortvk_kchain_step(k, kernel->op, &kernel->params, &kernel->step, &kernel->chain_input);
    int index = (int)p->n_kernels;
    for (size_t i = 0; i < k->n_in && status == NULL; i++) {
        kernel->in_slot[i] = -1;
        if (!k->in[i].present) continue;
        if (k->in[i].constant != NULL) {
            if (!(kernel->op->host_inputs & (1u << i))) status = upload_const(kernel, stream, k, i);
            else status = keep_const(kernel, k, i);
            continue;
        }
        /* Made by an earlier node of the partition, or else an input of the fused node: ORT drops constant
         * initializers from those (drop_constant_initializers), every other outside value must be there. */
        status = value_slot(p, k->in[i].name, &kernel->in_slot[i]);
        if (status != NULL) break;
        pvalue *v = &p->values[kernel->in_slot[i]];
        v->last_use = index;
        v->host_read = v->host_read || (kernel->op->host_inputs & (1u << i));
        if (v->fused_in < 0 && !v->produced) v->fused_in = index_of(io->ins, io->n_in, k->in[i].name);
        if (!v->produced && v->fused_in < 0)
            status = ortvk_status(ORT_EP_FAIL, "%s (%s): input %s is neither made in its partition nor an input of "
                                  "the fused node", k->name, k->op_type, k->in[i].name);
    }
    for (size_t i = 0; i < k->n_out && status == NULL; i++) {
        kernel->out_slot[i] = -1;
        if (!k->out[i].present) continue;
        status = value_slot(p, k->out[i].name, &kernel->out_slot[i]);
        if (status != NULL) break;
        pvalue *v = &p->values[kernel->out_slot[i]];
        v->produced = true;
        v->on_host = ortvk_kop_on_host(kernel->op);
        v->fused_out = index_of(io->outs, io->n_out, k->out[i].name);
    }
    if (status != NULL) goto fail;
    kernel->n_in = k->n_in;
    kernel->n_out = k->n_out;
    snprintf(kernel->op_type, sizeof(kernel->op_type), "%s", k->op_type);
    kernel->name = strdup(k->name ? k->name : "");
    if (kernel->name == NULL) {
        status = ortvk_status(ORT_FAIL, "out of host memory compiling a node");
        goto fail;
    }
    free(k);
    *out = kernel;
    return NULL;
fail:
    kernel_destroy(kernel);
    free(k);
    return status;
}

/* The names of a node's inputs and outputs ("" for omitted ones; the strings are ORT's, valid while its graph is). */
typedef struct node_names {
    size_t n_in, n_out;
    const char **in, **out; /* malloc'd */
} node_names;

static void names_free(node_names *names, size_t count)
{
    for (size_t j = 0; names != NULL && j < count; j++) {
        free(names[j].in);
        free(names[j].out);
    }
    free(names);
}

static OrtStatus *names_of(const OrtNode *node, node_names *n)
{
    ORTVK_TRY(ortvk_ort->Node_GetNumInputs(node, &n->n_in));
    ORTVK_TRY(ortvk_ort->Node_GetNumOutputs(node, &n->n_out));
    size_t most = n->n_in > n->n_out ? n->n_in : n->n_out;
    const OrtValueInfo **infos = calloc(most + 1, sizeof(*infos));
    n->in = calloc(n->n_in + 1, sizeof(*n->in));
    n->out = calloc(n->n_out + 1, sizeof(*n->out));
    OrtStatus *status = NULL;
    if (infos == NULL || n->in == NULL || n->out == NULL)
        status = ortvk_status(ORT_FAIL, "out of host memory reading a node of %zu inputs", n->n_in);
    for (int side = 0; side < 2 && status == NULL; side++) {
        size_t count = side == 0 ? n->n_in : n->n_out;
        const char **names = side == 0 ? n->in : n->out;
        if (count > 0)
            status = side == 0 ? ortvk_ort->Node_GetInputs(node, infos, count)
                               : ortvk_ort->Node_GetOutputs(node, infos, count);
        for (size_t i = 0; i < count && status == NULL; i++) {
            names[i] = "";
            if (infos[i] != NULL) status = ortvk_ort->GetValueInfoName(infos[i], &names[i]);
            if (names[i] == NULL) names[i] = "";
        }
    }
    free(infos);
    return status;
}

typedef struct named_output {
    const char *name;
    size_t node;
} named_output;

static int compare_outputs(const void *a, const void *b)
{
    return strcmp(((const named_output *)a)->name, ((const named_output *)b)->name);
}

bool ortvk_nodes_topological(const OrtNode *const *nodes, size_t count)
{
    node_names *names = calloc(count + 1, sizeof(*names));
    size_t n_outputs = 0;
    bool ok = names != NULL;
    for (size_t j = 0; j < count && ok; j++) {
        OrtStatus *status = names_of(nodes[j], &names[j]);
        if (status != NULL) ortvk_ort->ReleaseStatus(status), ok = false;
        else n_outputs += names[j].n_out;
    }
    named_output *outputs = ok ? calloc(n_outputs + 1, sizeof(*outputs)) : NULL;
    ok = outputs != NULL;
    size_t at = 0;
    for (size_t j = 0; j < count && ok; j++) {
        for (size_t o = 0; o < names[j].n_out; o++) outputs[at++] = (named_output){names[j].out[o], j};
    }
    if (ok) qsort(outputs, n_outputs, sizeof(*outputs), compare_outputs);
    /* Every input made by a node of the list must be made by an earlier one. */
    for (size_t j = 0; j < count && ok; j++) {
        for (size_t i = 0; i < names[j].n_in && ok; i++) {
            named_output key = {names[j].in[i], 0};
            if (key.name[0] == '\0') continue;
            const named_output *found = bsearch(&key, outputs, n_outputs, sizeof(*outputs), compare_outputs);
            ok = found == NULL || found->node < j;
        }
    }
    free(outputs);
    names_free(names, count);
    return ok;
}

/* Whether node `j` reads nothing that a node of the partition not yet taken writes. */
static bool node_ready(const node_names *names, const bool *done, size_t count, size_t j)
{
    for (size_t i = 0; i < names[j].n_in; i++) {
        if (names[j].in[i][0] == '\0') continue;
        for (size_t k = 0; k < count; k++) {
            if (done[k] || k == j) continue;
            for (size_t o = 0; o < names[k].n_out; o++) {
                if (strcmp(names[k].out[o], names[j].in[i]) == 0) return false;
            }
        }
    }
    return true;
}

void ortvk_partition_destroy(ortvk_partition *p)
{
    if (p == NULL) return;
    for (size_t i = 0; i < p->n_kernels; i++) kernel_destroy(p->kernels[i]);
    for (size_t v = 0; v < p->n_values; v++) free(p->values[v].name);
    free(p->kernels);
    free(p->values);
    free(p->name);
    ortvk_profile_put(p->profile);
    ortvk_kernel_device_put(p->kdev);
    free(p);
}

/* ---- element-wise chains -------------------------------------------------------------------------------- */

/* The kernel after `from` that reads value `slot`, and the input it reads it as. */
static int reader_of(const ortvk_partition *p, size_t from, int slot, size_t *input)
{
    for (size_t j = from + 1; j < p->n_kernels; j++) {
        const ortvk_kernel *k = p->kernels[j];
        for (size_t i = 0; k != NULL && i < k->n_in; i++) {
            if (k->in_slot[i] == slot) {
                *input = i;
                return (int)j;
            }
        }
    }
    return -1;
}

/* Whether kernel `k`, reading the chain's value as input `input`, continues a chain whose input is value `x`. */
static bool continues_chain(const ortvk_kernel *k, size_t input, int x)
{
    if (!k->chainable || k->n_out != 1) return false;
    if (k->chain_input >= 0) return (size_t)k->chain_input == input;
    /* t + x or t * x: the other input must be the chain's own input. */
    return k->n_in == 2 && k->in_slot[1 - input] == x;
}

/* A chain being found: its kernels (the first is its head: the Conv it follows, or its first step), and where the
 * value entering a kernel becomes the chain's x (a MARK step: that value is read again by later t + x or t * x). */
typedef struct chain_plan {
    size_t members[ORTVK_KMAX_CHAIN + 1];
    bool mark[ORTVK_KMAX_CHAIN + 1];
    int count, steps;
} chain_plan;

/* Extends `c` with the kernels that continue it, its x being value `x` (for a Conv head: its result). */
static void extend_chain(const ortvk_partition *p, const int *readers, int x, chain_plan *c)
{
    while (c->steps < ORTVK_KMAX_CHAIN) {
        size_t last = c->members[c->count - 1], input = 0;
        int t = p->kernels[last]->out_slot[0];
        if (t < 0 || p->values[t].fused_out >= 0) break;
        int next = reader_of(p, last, t, &input);
        if (next < 0) break;
        /* A value read more than once must be read by the chain only: it becomes x (checked by check_marks). */
        bool mark = readers[t] != 1 && t != x;
        if (mark && (c->steps + 2 > ORTVK_KMAX_CHAIN || p->kernels[next]->chain_input < 0)) break;
        if (!continues_chain(p->kernels[next], input, mark ? t : x)) break;
        if (mark) x = t;
        c->mark[c->count] = mark;
        c->members[c->count++] = (size_t)next;
        c->steps += mark ? 2 : 1;
    }
}

/* Each value the chain keeps as x (marked, or a Conv head's result when `head_x`) must be read by nobody but the
 * chain: once by the step after it and once by each t + x or t * x until the next mark. Cuts the chain before the
 * first that is not. */
static void check_marks(const ortvk_partition *p, const int *readers, bool head_x, chain_plan *c)
{
    for (int m = 1; m < c->count; m++) {
        if (!c->mark[m] && !(m == 1 && head_x)) continue;
        int value = p->kernels[c->members[m - 1]]->out_slot[0], reads = 1;
        for (int k = m + 1; k < c->count && !c->mark[k]; k++) reads += p->kernels[c->members[k]]->chain_input < 0;
        reads += p->kernels[c->members[m]]->chain_input < 0 && p->kernels[c->members[m]]->in_slot[0] == value &&
                 p->kernels[c->members[m]]->in_slot[1] == value; /* t * t */
        if (readers[value] != reads) {
            c->count = m;
            return;
        }
    }
}

/* Collects the steps of the chain's kernels from index `keep` on into `chain` (keep = 1: the head is the Conv the
 * chain follows) and their op types joined by '+' into `type`; destroys every member but the head. Returns the
 * value the last member wrote. */
static int take_steps(ortvk_partition *p, const chain_plan *c, int keep, ortvk_kparams_chain *chain, char *type,
                      size_t type_len)
{
    for (int m = 0; m < c->count; m++) {
        ortvk_kernel *k = p->kernels[c->members[m]];
        if (m >= keep && c->mark[m]) chain->steps[chain->count++] = (ortvk_chain_step){.kind = ORTVK_CHAIN_MARK};
        if (m >= keep) chain->steps[chain->count++] = k->step;
        size_t used = strlen(type); /* the names as far as they fit */
        if (snprintf(type + used, type_len - used, "%s%s", m ? "+" : "", k->op_type) < 0) type[used] = '\0';
    }
    int out = p->kernels[c->members[c->count - 1]]->out_slot[0];
    for (int m = 1; m < c->count; m++) {
        kernel_destroy(p->kernels[c->members[m]]);
        p->kernels[c->members[m]] = NULL;
    }
    return out;
}

/* Runs of element-wise nodes, each the only reader of the one before (whose output stays inside the partition),
 * become one kernel: one dispatch and one pass over memory instead of one each (the "hard swish" of MobileNet-like
 * models is Add, Clip, Div and Mul). A value read again by a later t + x or t * x of the same chain is kept in a
 * register (MARK). The fused kernel takes the place of the chain's first node. A chain right after a float32 Conv
 * runs in the Conv's own stores (its epilogue), its x being the Conv's result. */
static OrtStatus *fuse_chains(ortvk_partition *p)
{
    int *readers = calloc(p->n_values + 1, sizeof(*readers));
    if (readers == NULL) return ortvk_status(ORT_FAIL, "out of host memory compiling a partition");
    for (size_t j = 0; j < p->n_kernels; j++) {
        for (size_t i = 0; i < p->kernels[j]->n_in; i++) {
            if (p->kernels[j]->in_slot[i] >= 0) readers[p->kernels[j]->in_slot[i]]++;
        }
    }
    for (size_t j = 0; j < p->n_kernels; j++) {
        ortvk_kernel *head = p->kernels[j];
        if (head == NULL) continue;
        chain_plan c = {.members = {j}, .count = 1};
        char type[sizeof(head->op_type)] = "";
        if (strcmp(head->op->op_type, "Conv") == 0 && !head->float16 && head->n_out == 1) {
            extend_chain(p, readers, head->out_slot[0], &c);
            check_marks(p, readers, true, &c);
            if (c.count == 1) continue;
            head->out_slot[0] = take_steps(p, &c, 1, &head->params.conv.epilogue, type, sizeof(type));
            snprintf(head->op_type, sizeof(head->op_type), "%s", type);
            continue;
        }
        if (!head->chainable || head->chain_input < 0) continue;
        int x = head->in_slot[head->chain_input];
        c.steps = 1;
        extend_chain(p, readers, x, &c);
        check_marks(p, readers, false, &c);
        if (c.count == 1) continue;
        ortvk_kparams_chain chain = {0};
        int out = take_steps(p, &c, 0, &chain, type, sizeof(type));
        free_consts(head);
        head->op = &ortvk_kop_chain;
        head->params.chain = chain;
        head->n_in = head->n_out = 1;
        head->in_slot[0] = x;
        head->out_slot[0] = out;
        head->chainable = false;
        snprintf(head->op_type, sizeof(head->op_type), "%s", type);
    }
    free(readers);
    /* Close the gaps, and say again which kernel reads each value last. */
    size_t n = 0;
    for (size_t j = 0; j < p->n_kernels; j++) {
        if (p->kernels[j] != NULL) p->kernels[n++] = p->kernels[j];
    }
    p->n_kernels = n;
    for (size_t v = 0; v < p->n_values; v++) p->values[v].last_use = -1;
    for (size_t j = 0; j < n; j++) {
        for (size_t i = 0; i < p->kernels[j]->n_in; i++) {
            if (p->kernels[j]->in_slot[i] >= 0) p->values[p->kernels[j]->in_slot[i]].last_use = (int)j;
        }
    }
    return NULL;
}

OrtStatus *ortvk_partition_create(ortvk_kernel_device *kdev, ortvk_stream *stream, const OrtGraph *graph,
                                  const OrtNode *fused, ortvk_partition **out)
{
    *out = NULL;
    size_t count = 0;
    fused_io io = {0};
    ORTVK_TRY(ortvk_ort->Graph_GetNumNodes(graph, &count));
    ORTVK_TRY(ortvk_ort->Node_GetNumInputs(fused, &io.n_in));
    ORTVK_TRY(ortvk_ort->Node_GetNumOutputs(fused, &io.n_out));
    ortvk_partition *p = calloc(1, sizeof(*p));
    const OrtNode **nodes = calloc(count + 1, sizeof(*nodes));
    node_names *names = calloc(count + 1, sizeof(*names));
    bool *done = calloc(count + 1, sizeof(*done));
    io.ins = calloc(io.n_in + 1, sizeof(*io.ins));
    io.outs = calloc(io.n_out + 1, sizeof(*io.outs));
    OrtStatus *status = NULL;
    if (p == NULL || nodes == NULL || names == NULL || done == NULL || io.ins == NULL || io.outs == NULL ||
        (p->kernels = calloc(count + 1, sizeof(*p->kernels))) == NULL) {
        status = ortvk_status(ORT_FAIL, "out of host memory compiling a partition of %zu nodes", count);
        goto out;
    }
    ortvk_kernel_device_ref(kdev);
    p->kdev = kdev;
    const char *fused_name = NULL;
    status = ortvk_ort->Node_GetName(fused, &fused_name);
    if (status == NULL && (p->name = strdup(fused_name ? fused_name : "")) == NULL)
        status = ortvk_status(ORT_FAIL, "out of host memory compiling a partition of %zu nodes", count);
    if (status == NULL && count > 0) status = ortvk_ort->Graph_GetNodes(graph, nodes, count);
    if (status == NULL && io.n_in > 0) status = ortvk_ort->Node_GetInputs(fused, io.ins, io.n_in);
    if (status == NULL && io.n_out > 0) status = ortvk_ort->Node_GetOutputs(fused, io.outs, io.n_out);
    for (size_t j = 0; j < count && status == NULL; j++) status = names_of(nodes[j], &names[j]);
    /* Topological order: each round takes the first node whose producers inside the partition are all taken. */
    while (status == NULL && p->n_kernels < count) {
        size_t next = count;
        for (size_t j = 0; j < count && next == count; j++) {
            if (!done[j] && node_ready(names, done, count, j)) next = j;
        }
        if (next == count) {
            status = ortvk_status(ORT_EP_FAIL, "the nodes of a partition form a cycle");
            break;
        }
        done[next] = true;
        status = kernel_create(p, stream, nodes[next], &io, &p->kernels[p->n_kernels]);
        if (status == NULL) p->n_kernels++;
    }
    if (status == NULL) status = fuse_chains(p);
out:
    free(nodes);
    names_free(names, count);
    free(done);
    free(io.ins);
    free(io.outs);
    if (status != NULL) {
        ortvk_partition_destroy(p);
        return status;
    }
    *out = p;
    return NULL;
}

size_t ortvk_partition_size(const ortvk_partition *p)
{
    return p->n_kernels;
}

void ortvk_partition_set_profile(ortvk_partition *p, ortvk_profile *profile)
{
    if (profile == NULL) return;
    ortvk_profile_ref(profile);
    ortvk_profile_put(p->profile);
    p->profile = profile;
    p->profile_id = ortvk_profile_next_partition(profile);
}

/* ---- one run -------------------------------------------------------------------------------------------- */

size_t ortvk_kcount(const int64_t *dims, size_t rank)
{
    size_t n = 1;
    for (size_t i = 0; i < rank; i++) n *= (size_t)dims[i];
    return n;
}

bool ortvk_kcount_checked(const int64_t *dims, size_t rank, size_t esize, int64_t *out)
{
    int64_t n = 1, bytes = 0;
    for (size_t i = 0; i < rank; i++) {
        if (dims[i] < 0 || !ortvk_kmul(n, dims[i], &n)) return false;
    }
    if (!ortvk_kmul(n, (int64_t)esize, &bytes)) return false;
    *out = n;
    return true;
}

/* The texel views of one range of a buffer, made for a run's dispatches (kernel_device.c). */
typedef struct held_views {
    VkBuffer buffer;
    VkDeviceSize offset, range;
    ortvk_ktexels views;
} held_views;

struct ortvk_kheld {
    size_t count, capacity;
    ortvk_buffer **buffers;
    ortvk_profile_run *profile; /* the run's timestamps, read once the GPU is done */
    ortvk_device *device;       /* with a reference, set with the first views: they go before it (the session, its
                                   kernels' state with it, may be gone when the submission retires) */
    size_t n_views, views_capacity;
    held_views *views;
};

static void release_held(void *owner)
{
    ortvk_kheld *list = owner;
    if (list == NULL) return;
    ortvk_profile_run_retire(list->profile);
    for (size_t i = 0; i < list->n_views; i++)
        ortvk_kernel_device_texels_destroy(list->device->vk, &list->views[i].views);
    free(list->views);
    for (size_t i = 0; i < list->count; i++) ortvk_buffer_destroy(list->buffers[i]);
    free(list->buffers);
    if (list->device != NULL) ortvk_device_unref(list->device);
    free(list);
}

static OrtStatus *held_list(ortvk_krun *run)
{
    if (run->held == NULL && (run->held = calloc(1, sizeof(*run->held))) == NULL)
        return ortvk_status(ORT_FAIL, "out of host memory running a partition");
    return NULL;
}

/* Adds a reference to the run's list; on failure drops it. */
static OrtStatus *hold(ortvk_krun *run, ortvk_buffer *buffer)
{
    OrtStatus *status = held_list(run);
    if (status != NULL) {
        ortvk_buffer_destroy(buffer);
        return status;
    }
    ortvk_kheld *list = run->held;
    if (list->count == list->capacity) {
        size_t capacity = list->capacity ? 2 * list->capacity : 32;
        ortvk_buffer **grown = realloc(list->buffers, capacity * sizeof(*grown));
        if (grown == NULL) {
            ortvk_buffer_destroy(buffer);
            return ortvk_status(ORT_FAIL, "out of host memory running a partition");
        }
        list->buffers = grown;
        list->capacity = capacity;
    }
    list->buffers[list->count++] = buffer;
    return NULL;
}

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
        return hold(run, t->buffer);
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
    return hold(run, *out); /* released with the submission */
}

static void free_buffer(free_buffers *pool, ortvk_buffer *buffer)
{
    if (pool->count == pool->capacity) {
        size_t capacity = pool->capacity ? 2 * pool->capacity : 16;
        ortvk_buffer **grown = realloc(pool->buffers, capacity * sizeof(*grown));
        if (grown == NULL) return; /* not reused: it still goes with the submission */
        pool->buffers = grown;
        pool->capacity = capacity;
    }
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
    memset(run->in, 0, sizeof(run->in));
    memset(run->out, 0, sizeof(run->out));
    for (size_t i = 0; i < kernel->n_in; i++) {
        if (kernel->consts[i] != NULL) {
            /* The partition may be released, its session with it, while this run is still queued. */
            run->in[i] = kernel->consts[i]->view;
            if (run->in[i].buffer != NULL && ortvk_buffer_try_ref(run->in[i].buffer))
                ORTVK_TRY(hold(run, run->in[i].buffer));
        } else if (kernel->in_slot[i] >= 0) {
            run->in[i] = values[kernel->in_slot[i]];
        }
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
    if (run->n_host_blocks == run->host_capacity) {
        size_t capacity = run->host_capacity ? 2 * run->host_capacity : 16;
        void **grown = realloc(run->host_blocks, capacity * sizeof(*grown));
        if (grown == NULL) return ortvk_status(ORT_FAIL, "out of host memory running a partition");
        run->host_blocks = grown;
        run->host_capacity = capacity;
    }
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
    if (status == NULL) status = ortvk_stream_begin(stream, &run->cmd);
    if (status != NULL) {
        release_held(run->held); /* nothing was submitted */
        goto out;
    }
    /* Profiling: timestamps around the staging and after each node, read when the submission retires. */
    ortvk_profile_run *profile = NULL;
    if (p->profile != NULL && (run->held != NULL || (run->held = calloc(1, sizeof(*run->held))) != NULL)) {
        profile = ortvk_profile_run_begin(p->profile, run->cmd, p->profile_id, p->name, p->n_kernels);
        run->held->profile = profile;
    }
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
    if (run->held != NULL) retire = (ortvk_retire){.release = release_held, .owner = run->held};
    uint64_t done = 0;
    OrtStatus *submit = ortvk_stream_submit(stream, run->cmd, NULL, 0, NULL, 0, retire, &done);
    ortvk_profile_run_end(profile, status == NULL && submit == NULL, (ortvk_semaphore_point){stream->timeline, done});
    if (status == NULL) status = submit;
    else if (submit != NULL) ortvk_ort->ReleaseStatus(submit);
out:
    for (size_t b = 0; run != NULL && b < run->n_host_blocks; b++) free(run->host_blocks[b]);
    if (run != NULL) free(run->host_blocks);
    free(pool.buffers);
    free(host);
    free(values);
    free(run);
    return status;
}

/* ---- recording helpers ---------------------------------------------------------------------------------- */

/* Orders the next command after everything recorded so far in this run (reads and writes, shaders and copies). */
static void barrier(ortvk_krun *run)
{
    if (!run->recorded) return;
    VkMemoryBarrier b = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
        .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
        .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                         VK_ACCESS_TRANSFER_WRITE_BIT,
    };
    VkPipelineStageFlags stages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
    vkCmdPipelineBarrier(run->cmd, stages, stages, 0, 1, &b, 0, NULL, 0, NULL);
}

#define WORKGROUP 64u
#define MAX_GROUPS 65535u

OrtStatus *ortvk_krun_dispatch(ortvk_krun *run, ortvk_shader shader, const void *push, uint32_t push_size,
                               uint64_t invocations)
{
    return ortvk_krun_dispatch_fn(run, shader, 0, push, push_size, invocations);
}

/* Where the tensor at `address` lies: its buffer, its byte offset there and the end of the tensor (or of the buffer,
 * for a scratch buffer). */
static OrtStatus *locate_operand(ortvk_krun *run, VkDeviceAddress address, ortvk_buffer **out, VkDeviceSize *offset,
                                 VkDeviceSize *end)
{
    for (size_t i = 0; i < run->n_in + run->n_out; i++) {
        const ortvk_ktensor *t = i < run->n_in ? &run->in[i] : &run->out[i - run->n_in];
        VkDeviceSize size = t->count * ortvk_element_size(t->type);
        if (t->buffer == NULL || address < t->address || address - t->address >= size) continue;
        *out = t->buffer;
        *offset = t->offset + (address - t->address);
        *end = t->offset + size;
        return NULL;
    }
    *out = ortvk_device_resolve(run->device, (const void *)(uintptr_t)address, 1, offset);
    if (*out == NULL)
        return ortvk_status(ORT_EP_FAIL, "address 0x%llx is not ortvk memory", (unsigned long long)address);
    *end = (*out)->size;
    return NULL;
}

/* The run's texel views of [offset, offset + range) of `buffer`: made once a run, kept until its submission retires. */
static OrtStatus *texel_views(ortvk_krun *run, const ortvk_buffer *buffer, VkDeviceSize offset, VkDeviceSize range,
                              ortvk_ktexels *out)
{
    ORTVK_TRY(held_list(run));
    ortvk_kheld *list = run->held;
    for (size_t i = 0; i < list->n_views; i++) {
        const held_views *h = &list->views[i];
        if (h->buffer == buffer->vk && h->offset == offset && h->range == range) {
            *out = h->views;
            return NULL;
        }
    }
    if (list->n_views == list->views_capacity) {
        size_t capacity = list->views_capacity ? 2 * list->views_capacity : 16;
        held_views *grown = realloc(list->views, capacity * sizeof(*grown));
        if (grown == NULL) return ortvk_status(ORT_FAIL, "out of host memory running a partition");
        list->views = grown;
        list->views_capacity = capacity;
    }
    if (list->device == NULL) {
        ortvk_device_ref(run->device);
        list->device = run->device;
    }
    held_views *h = &list->views[list->n_views];
    *h = (held_views){.buffer = buffer->vk, .offset = offset, .range = range};
    ORTVK_TRY(ortvk_kernel_device_texels_create(run->device->vk, buffer->vk, offset, range, &h->views));
    list->n_views++;
    *out = h->views;
    return NULL;
}

/* Binds the tensor at `address` as a storage buffer, and where `texels` also as texel buffers: its buffer from the
 * offset aligned down to what the device requires, up to the end of the tensor; *into gets the tensor's byte offset
 * from the binding's start (the same for both kinds). *texels becomes false where the texel views cannot cover the
 * tensor (a buffer that ends inside the last texel, or more texels than the device's maxTexelBufferElements). */
static OrtStatus *bind_operand(ortvk_krun *run, VkDeviceAddress address, ortvk_kbindings *bindings, uint32_t slot,
                               bool *texels, uint32_t *into)
{
    ortvk_buffer *buffer = NULL;
    VkDeviceSize offset = 0, end = 0;
    ORTVK_TRY(locate_operand(run, address, &buffer, &offset, &end));
    const VkPhysicalDeviceLimits *limits = &run->device->caps.props.limits;
    VkDeviceSize align = 16; /* a texel of RGBA32F; the alignments are powers of two */
    if (limits->minStorageBufferOffsetAlignment > align) align = limits->minStorageBufferOffsetAlignment;
    if (limits->minTexelBufferOffsetAlignment > align) align = limits->minTexelBufferOffsetAlignment;
    VkDeviceSize start = offset - offset % align;
    if (end - start > limits->maxStorageBufferRange)
        return ortvk_status(ORT_EP_FAIL, "a tensor of %llu bytes exceeds the device's maxStorageBufferRange (%u)",
                            (unsigned long long)(end - offset), limits->maxStorageBufferRange);
    bindings->buffers[slot] = (VkDescriptorBufferInfo){.buffer = buffer->vk, .offset = start, .range = end - start};
    *into = (uint32_t)(offset - start);
    if (*texels) {
        VkDeviceSize range = (end - start + 15) / 16 * 16;
        *texels = start + range <= buffer->size && range / 4 <= limits->maxTexelBufferElements;
        if (*texels) ORTVK_TRY(texel_views(run, buffer, start, range, &bindings->texels[slot]));
    }
    return NULL;
}

OrtStatus *ortvk_krun_dispatch_fn(ortvk_krun *run, ortvk_shader shader, uint32_t fn, const void *push,
                                  uint32_t push_size, uint64_t invocations)
{
    return ortvk_krun_dispatch_spec(run, shader, fn, NULL, push, push_size, invocations);
}

OrtStatus *ortvk_krun_dispatch_spec(ortvk_krun *run, ortvk_shader shader, uint32_t fn, const ortvk_kspec *spec,
                                    const void *push, uint32_t push_size, uint64_t invocations)
{
    if (invocations == 0) return NULL;
    uint64_t groups = (invocations + WORKGROUP - 1) / WORKGROUP;
    uint64_t gx = groups < MAX_GROUPS ? groups : MAX_GROUPS;
    uint64_t gy = (groups + gx - 1) / gx;
    if (invocations > UINT32_MAX || gy > MAX_GROUPS)
        return ortvk_status(ORT_EP_FAIL, "a dispatch of %llu invocations is too large",
                            (unsigned long long)invocations);
    uint32_t operands = ortvk_kernel_device_operands(shader);
    /* float32 shaders read some operands as texel buffers where every one of them can be (specialization). */
    uint32_t texel_operands = run->float16 ? 0 : ortvk_kernel_device_texels(shader);
    bool texels = texel_operands != 0;
    uint32_t words[32] = {0};
    if (push_size > sizeof(words)) return ortvk_status(ORT_EP_FAIL, "%u bytes of push constants", push_size);
    memcpy(words, push, push_size);
    ortvk_kbindings bindings = {0};
    for (uint32_t k = 0, slot = 0; k < 16 && slot < ORTVK_KBINDINGS; k++) {
        if (!(operands & (1u << k))) continue;
        uint64_t address;
        memcpy(&address, &words[2 * k], sizeof(address));
        words[2 * k] = words[2 * k + 1] = 0;
        if (address != 0) {
            bool wanted = texels && (texel_operands & (1u << k)), as_texels = wanted;
            ORTVK_TRY(bind_operand(run, address, &bindings, slot, &as_texels, &words[2 * k]));
            if (wanted && !as_texels) texels = false; /* one operand without views: none read as texels */
            words[2 * k + 1] = 1;
        }
        slot++;
    }
    VkPipeline pipeline;
    VkPipelineLayout layout;
    ORTVK_TRY(ortvk_kernel_device_pipeline(run->kdev, shader, run->float16, texels, fn, spec, &pipeline, &layout));
    barrier(run);
    vkCmdBindPipeline(run->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
    ortvk_kernel_device_bind(run->kdev, run->cmd, &bindings);
    vkCmdPushConstants(run->cmd, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, (push_size + 3) & ~3u, words);
    vkCmdDispatch(run->cmd, (uint32_t)gx, (uint32_t)gy, 1);
    run->recorded = true;
    return NULL;
}

/* The buffer behind [address, address + bytes) of one of the run's tensors (held by the run), or of a constant
 * or scratch buffer (owned by the kernel or the run). */
static OrtStatus *resolve(ortvk_krun *run, VkDeviceAddress address, VkDeviceSize bytes, ortvk_buffer **buffer,
                          VkDeviceSize *offset)
{
    for (size_t i = 0; i < run->n_in + run->n_out; i++) {
        const ortvk_ktensor *t = i < run->n_in ? &run->in[i] : &run->out[i - run->n_in];
        if (t->buffer == NULL || address < t->address) continue;
        VkDeviceSize into = address - t->address, size = t->count * ortvk_element_size(t->type);
        if (into <= size && bytes <= size - into) {
            *buffer = t->buffer;
            *offset = t->offset + into;
            return NULL;
        }
    }
    *buffer = ortvk_device_resolve(run->device, (const void *)(uintptr_t)address, bytes, offset);
    if (*buffer == NULL)
        return ortvk_status(ORT_EP_FAIL, "address 0x%llx (%llu bytes) is not ortvk memory",
                            (unsigned long long)address, (unsigned long long)bytes);
    return NULL;
}

OrtStatus *ortvk_krun_copy(ortvk_krun *run, VkDeviceAddress dst, VkDeviceAddress src, VkDeviceSize bytes)
{
    if (bytes == 0) return NULL;
    ortvk_buffer *from, *to;
    VkDeviceSize from_offset, to_offset;
    ORTVK_TRY(resolve(run, src, bytes, &from, &from_offset));
    ORTVK_TRY(resolve(run, dst, bytes, &to, &to_offset));
    barrier(run);
    VkBufferCopy region = {.srcOffset = from_offset, .dstOffset = to_offset, .size = bytes};
    vkCmdCopyBuffer(run->cmd, from->vk, to->vk, 1, &region);
    run->recorded = true;
    return NULL;
}

OrtStatus *ortvk_krun_fill(ortvk_krun *run, VkDeviceAddress dst, VkDeviceSize bytes, uint32_t word)
{
    if (bytes == 0) return NULL;
    ortvk_buffer *to;
    VkDeviceSize offset;
    ORTVK_TRY(resolve(run, dst, bytes, &to, &offset));
    barrier(run);
    vkCmdFillBuffer(run->cmd, to->vk, offset, bytes, word);
    run->recorded = true;
    return NULL;
}

/* A scratch or staging buffer for the run, released with its submission. */
static OrtStatus *scratch_buffer(ortvk_krun *run, size_t bytes, bool staging, ortvk_buffer **out)
{
    if (run->scratch_count == ORTVK_KMAX_SCRATCH)
        return ortvk_status(ORT_EP_FAIL, "too many scratch buffers in a node");
    ortvk_buffer *buffer = NULL;
    ORTVK_TRY(staging ? ortvk_buffer_allocate_staging(run->device, bytes, &buffer)
                      : ortvk_buffer_allocate(run->device, bytes, &buffer));
    ORTVK_TRY(hold(run, buffer));
    run->scratch_count++;
    *out = buffer;
    return NULL;
}

OrtStatus *ortvk_krun_scratch(ortvk_krun *run, size_t bytes, VkDeviceAddress *address)
{
    ortvk_buffer *buffer = NULL;
    ORTVK_TRY(scratch_buffer(run, bytes, false, &buffer));
    *address = buffer->address;
    return NULL;
}

/* vkCmdUpdateBuffer takes at most 65536 bytes per call, and keeps a copy in the command buffer: fine for tables
 * and small tensors; larger data goes through a staging buffer. */
#define UPDATE_CHUNK 65536u
#define UPDATE_MAX (4u * UPDATE_CHUNK)

OrtStatus *ortvk_krun_upload(ortvk_krun *run, const void *data, size_t bytes, VkDeviceAddress *address)
{
    size_t padded = (bytes + 3) & ~(size_t)3;
    ortvk_buffer *buffer = NULL;
    ORTVK_TRY(scratch_buffer(run, padded, false, &buffer));
    *address = buffer->address;
    if (padded > UPDATE_MAX) {
        ortvk_buffer *staging = NULL;
        ORTVK_TRY(scratch_buffer(run, bytes, true, &staging));
        memcpy(staging->mapped, data, bytes);
        barrier(run);
        VkBufferCopy region = {.srcOffset = 0, .dstOffset = 0, .size = bytes};
        vkCmdCopyBuffer(run->cmd, staging->vk, buffer->vk, 1, &region);
        run->recorded = true;
        return NULL;
    }
    barrier(run);
    for (size_t at = 0; at < padded; at += UPDATE_CHUNK) {
        size_t n = padded - at < UPDATE_CHUNK ? padded - at : UPDATE_CHUNK;
        if (at + n <= bytes) {
            vkCmdUpdateBuffer(run->cmd, buffer->vk, at, n, (const uint8_t *)data + at);
        } else { /* the last chunk, padded to 4 bytes */
            uint8_t tail[UPDATE_CHUNK];
            memset(tail, 0, n);
            memcpy(tail, (const uint8_t *)data + at, bytes - at);
            vkCmdUpdateBuffer(run->cmd, buffer->vk, at, n, tail);
        }
    }
    run->recorded = true;
    return NULL;
}

/* ---- shapes --------------------------------------------------------------------------------------------- */

bool ortvk_kbroadcast(const int64_t *a, size_t ra, const int64_t *b, size_t rb, int64_t *out, size_t *rout)
{
    size_t r = ra > rb ? ra : rb;
    for (size_t i = 0; i < r; i++) {
        int64_t da = i < r - ra ? 1 : a[i - (r - ra)];
        int64_t db = i < r - rb ? 1 : b[i - (r - rb)];
        if (da == db || db == 1) out[i] = da;
        else if (da == 1) out[i] = db;
        else return false;
    }
    *rout = r;
    return true;
}

void ortvk_kbroadcast_strides(const int64_t *dims, size_t rank, size_t out_rank, const int64_t *out_dims,
                              int64_t *strides)
{
    int64_t s = 1;
    for (size_t i = out_rank; i-- > 0;) {
        size_t k = i + rank - out_rank; /* the operand's dim aligned with output dim i */
        if (i < out_rank - rank) {
            strides[i] = 0;
        } else {
            strides[i] = dims[k] == 1 && out_dims[i] != 1 ? 0 : s;
            s *= dims[k];
        }
    }
}

void ortvk_kcoalesce(ortvk_kstrides *s, int operands)
{
    /* Drop size-1 dims (their coordinate is always 0). */
    int r = 0;
    for (int i = 0; i < s->rank; i++) {
        if (s->dims[i] == 1) continue;
        s->dims[r] = s->dims[i];
        for (int o = 0; o < operands; o++) s->stride[o][r] = s->stride[o][i];
        r++;
    }
    s->rank = r;
    /* Merge dim i into dim i + 1 when every operand steps over dim i + 1 exactly once per step of dim i. */
    int w = 0;
    for (int i = 1; i < s->rank; i++) {
        bool merge = true;
        for (int o = 0; o < operands && merge; o++) merge = s->stride[o][w] == s->stride[o][i] * s->dims[i];
        if (merge) {
            s->dims[w] *= s->dims[i];
            for (int o = 0; o < operands; o++) s->stride[o][w] = s->stride[o][i];
        } else {
            w++;
            s->dims[w] = s->dims[i];
            for (int o = 0; o < operands; o++) s->stride[o][w] = s->stride[o][i];
        }
    }
    s->rank = s->rank > 0 ? w + 1 : 0;
    if (s->rank == 0) { /* a scalar: one element */
        s->rank = 1;
        s->dims[0] = 1;
        for (int o = 0; o < operands; o++) s->stride[o][0] = 1;
    }
}
