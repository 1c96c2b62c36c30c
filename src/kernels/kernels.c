/* The kernels' driver: finds a node's op implementation (GetCapability) and compiles a claimed partition (its nodes
 * in topological order, the values between them; docs/kernels.md, "The compile path"). The fusion of element-wise
 * runs is kernel_fuse.c, a run's recording kernel_run.c, the recording helpers ops share kernel_record.c. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernel_partition.h"
#include "ort/ort_tensor.h"

/* The host-evaluated ops first: they take the nodes of integer shape values that the device ops refuse. */
static const ortvk_kop *const families[] = {
    ortvk_kops_shape, ortvk_kops_elementwise, ortvk_kops_conv, ortvk_kops_pool, ortvk_kops_resize,
    ortvk_kops_layout, ortvk_kops_gather, ortvk_kops_math, ortvk_kops_norm, ortvk_kops_arg,
    ortvk_kops_rnn,
    ortvk_kops_quant, ortvk_kops_qmm,
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
        bytes = bytes || v->type == ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL ||
                v->type == ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8 || v->type == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8;
    }
    *float16 = f16;
    if (f16 && f32 && strcmp(node->op_type, "Cast") != 0) return ortvk_krefuse(why, why_len, "float and float16 mixed");
    if (f16 && !caps->storage_16bit) return ortvk_krefuse(why, why_len, "float16 (the device lacks 16-bit storage)");
    if (bytes && !caps->storage_8bit)
        return ortvk_krefuse(why, why_len, "bool or 8-bit integers (the device lacks 8-bit storage)");
    return true;
}

bool ortvk_knode_supported(const ortvk_knode *k, const ortvk_device_caps *caps, char *why, size_t why_len)
{
    ortvk_kparams *params = malloc(sizeof(*params));
    const ortvk_kop *op = NULL;
    bool float16 = false;
    bool ok = (params != NULL || ortvk_krefuse(why, why_len, "out of host memory")) &&
              (op = find_op(k, params, why, why_len)) != NULL && element_types(k, op, caps, &float16, why, why_len);
    free(params);
    return ok;
}

bool ortvk_kernel_supported(const OrtNode *node, const ortvk_device_caps *caps, char *why, size_t why_len)
{
    ortvk_knode *k = malloc(sizeof(*k));
    bool ok = k != NULL &&
              (caps->push_descriptor || ortvk_krefuse(why, why_len, "the device lacks VK_KHR_push_descriptor")) &&
              ortvk_knode_read(node, k, why, why_len) && ortvk_knode_supported(k, caps, why, why_len);
    free(k);
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

/* The slot of the value named `name`, added when new. */
static OrtStatus *value_slot(ortvk_partition *p, const char *name, int *out)
{
    for (size_t v = 0; v < p->n_values; v++) {
        if (strcmp(p->values[v].name, name) == 0) {
            *out = (int)v;
            return NULL;
        }
    }
    pvalue *grown = ortvk_kgrow(p->values, &p->values_capacity, p->n_values, sizeof(*grown), 16);
    if (grown == NULL) return ortvk_status(ORT_FAIL, "out of host memory compiling a partition");
    p->values = grown;
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

/* The kernel of node `k` as read (by ortvk_knode_read, or ortvk_qdq_read for a QDQ group; `read` false when that
 * failed, with `why`); `k` is the caller's scratch. */
static OrtStatus *kernel_create(ortvk_partition *p, ortvk_stream *stream, ortvk_knode *k, bool read, char *why,
                                size_t why_len, const fused_io *io, ortvk_kernel **out)
{
    *out = NULL;
    ortvk_kernel *kernel = calloc(1, sizeof(*kernel));
    OrtStatus *status = NULL;
    if (kernel == NULL) return ortvk_status(ORT_FAIL, "out of host memory compiling a node");
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
        (kernel->op = find_op(k, &kernel->params, why, why_len)) == NULL ||
        !element_types(k, kernel->op, &stream->device->caps, &kernel->float16, why, why_len)) {
        /* GetCapability accepted this node: a refusal now means ORT changed it in between. */
        status = ortvk_status(ORT_EP_FAIL, "compiling node %s (%s): %s", k->name ? k->name : "",
                              k->op_type ? k->op_type : "", why);
        goto fail;
    }
    /* Shape values computed on the host stay there: never a step of a device chain. */
    kernel->chainable = !ortvk_kop_on_host(kernel->op) &&
                        ortvk_kchain_step(k, kernel->op, &kernel->params, &kernel->step, &kernel->chain_input);
    kernel->residual_ok = kernel->chainable && kernel->chain_input < 0 && ortvk_kchain_residual_shapes(k);
    kernel->operand_ok = kernel->chainable && kernel->chain_input < 0 &&
                         ortvk_kchain_operand_shapes(k, &kernel->operand_x);
    int index = (int)p->n_kernels;
    for (size_t i = 0; i < k->n_in && status == NULL; i++) {
        kernel->in_slot[i] = -1;
        if (!k->in[i].present) continue;
        if (k->in[i].constant != NULL) {
            if (kernel->op->host_inputs & (1u << i)) status = ortvk_kernel_keep_const(kernel, k, i);
            else status = ortvk_kernel_upload_const(kernel, p->kdev, stream, k, i);
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
    kernel->x_rank = k->n_in > 0 ? k->in[0].rank : -1;
    kernel->x_last = kernel->x_rank > 0 ? k->in[0].dims[kernel->x_rank - 1] : -1;
    size_t scalars = 0;
    kernel->has_scalar = k->n_in == 2 && k->in[1].constant != NULL && k->in[1].rank <= 1 &&
                         k->in[1].type == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT &&
                         ortvk_knode_const_floats(k, 1, &kernel->scalar, 1, &scalars) && scalars == 1;
    snprintf(kernel->op_type, sizeof(kernel->op_type), "%s", k->op_type);
    kernel->name = strdup(k->name ? k->name : "");
    if (kernel->name == NULL) {
        status = ortvk_status(ORT_FAIL, "out of host memory compiling a node");
        goto fail;
    }
    *out = kernel;
    return NULL;
fail:
    ortvk_kernel_destroy(kernel);
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

/* The names of a list of nodes' inputs and outputs, and those outputs sorted by name (producer_of). */
typedef struct node_index {
    node_names *names;
    named_output *outputs;
    size_t n_outputs;
} node_index;

static void node_index_free(node_index *x, size_t count)
{
    free(x->outputs);
    names_free(x->names, count);
}

static bool node_index_build(const OrtNode *const *nodes, size_t count, node_index *x)
{
    *x = (node_index){.names = calloc(count + 1, sizeof(*x->names))};
    bool ok = x->names != NULL;
    for (size_t j = 0; j < count && ok; j++) {
        OrtStatus *status = names_of(nodes[j], &x->names[j]);
        if (status != NULL) ortvk_ort->ReleaseStatus(status), ok = false;
        else x->n_outputs += x->names[j].n_out;
    }
    x->outputs = ok ? calloc(x->n_outputs + 1, sizeof(*x->outputs)) : NULL;
    ok = x->outputs != NULL;
    size_t at = 0;
    for (size_t j = 0; j < count && ok; j++) {
        for (size_t o = 0; o < x->names[j].n_out; o++) x->outputs[at++] = (named_output){x->names[j].out[o], j};
    }
    if (ok) qsort(x->outputs, x->n_outputs, sizeof(*x->outputs), compare_outputs);
    if (!ok) node_index_free(x, count);
    return ok;
}

/* The index of the node of the list that writes value `name`, or -1 (a graph input, an initializer, an omitted
 * input: ""). */
static ptrdiff_t producer_of(const node_index *x, const char *name)
{
    named_output key = {name, 0};
    if (name[0] == '\0') return -1;
    const named_output *found = bsearch(&key, x->outputs, x->n_outputs, sizeof(*x->outputs), compare_outputs);
    return found != NULL ? (ptrdiff_t)found->node : -1;
}

bool ortvk_nodes_topological(const OrtNode *const *nodes, size_t count)
{
    node_index x;
    if (!node_index_build(nodes, count, &x)) return false;
    /* Every input made by a node of the list must be made by an earlier one. */
    bool ok = true;
    for (size_t j = 0; j < count && ok; j++) {
        for (size_t i = 0; i < x.names[j].n_in && ok; i++) ok = producer_of(&x, x.names[j].in[i]) < (ptrdiff_t)j;
    }
    node_index_free(&x, count);
    return ok;
}

bool ortvk_nodes_qdq_groups(const OrtNode *const *nodes, size_t count, ptrdiff_t *group)
{
    for (size_t j = 0; j < count; j++) group[j] = -1;
    node_index x;
    if (!node_index_build(nodes, count, &x)) return false;
    enum { OTHER, DEQUANTIZE, QUANTIZE, RELU };
    struct {
        int kind;
        size_t quantize_readers, other_readers; /* reads of its outputs by QuantizeLinear nodes, by others */
        size_t relu_readers;                    /* ... by Relu nodes that only QuantizeLinear nodes read */
        bool dequantized_input;                 /* an input made by a DequantizeLinear */
    } *n = calloc(count + 1, sizeof(*n));
    bool ok = n != NULL;
    for (size_t j = 0; j < count && ok; j++) {
        const char *op = NULL;
        OrtStatus *status = ortvk_ort->Node_GetOperatorType(nodes[j], &op);
        if (status != NULL) ortvk_ort->ReleaseStatus(status), ok = false;
        else n[j].kind = strcmp(op, "DequantizeLinear") == 0 ? DEQUANTIZE
                         : strcmp(op, "QuantizeLinear") == 0 ? QUANTIZE
                         : strcmp(op, "Relu") == 0           ? RELU
                                                             : OTHER;
    }
    for (size_t j = 0; j < count && ok; j++) {
        for (size_t i = 0; i < x.names[j].n_in; i++) {
            ptrdiff_t p = producer_of(&x, x.names[j].in[i]);
            if (p < 0) continue;
            if (n[j].kind == QUANTIZE) n[p].quantize_readers++;
            else n[p].other_readers++;
            if (n[p].kind == DEQUANTIZE) n[j].dequantized_input = true;
        }
    }
    /* A Relu between a centre and its QuantizeLinear nodes: read by them only. */
    for (size_t j = 0; j < count && ok; j++) {
        if (n[j].kind != RELU || n[j].quantize_readers == 0 || n[j].other_readers > 0 || x.names[j].n_in < 1) continue;
        ptrdiff_t p = producer_of(&x, x.names[j].in[0]);
        if (p >= 0) n[p].relu_readers++;
    }
    /* The groups' centres (a Relu reading a DequantizeLinear is one), then their other nodes. */
    for (size_t j = 0; j < count && ok; j++) {
        bool centre = n[j].kind != DEQUANTIZE && n[j].kind != QUANTIZE && n[j].dequantized_input &&
                      n[j].quantize_readers + n[j].relu_readers > 0 && n[j].other_readers == n[j].relu_readers;
        if (centre) group[j] = (ptrdiff_t)j;
    }
    for (size_t j = 0; j < count && ok; j++) {
        for (size_t i = 0; i < x.names[j].n_in; i++) {
            ptrdiff_t p = producer_of(&x, x.names[j].in[i]);
            if (p < 0) continue;
            if (group[j] == (ptrdiff_t)j && n[p].kind == DEQUANTIZE && group[p] < 0) group[p] = (ptrdiff_t)j;
            if (group[p] == p && group[j] < 0 && (n[j].kind == QUANTIZE || n[j].kind == RELU)) group[j] = p;
        }
    }
    /* The QuantizeLinear nodes after a group's Relu. */
    for (size_t j = 0; j < count && ok; j++) {
        for (size_t i = 0; i < x.names[j].n_in && n[j].kind == QUANTIZE && group[j] < 0; i++) {
            ptrdiff_t p = producer_of(&x, x.names[j].in[i]);
            if (p >= 0 && n[p].kind == RELU && group[p] >= 0 && group[p] != p) group[j] = group[p];
        }
    }
    if (!ok) {
        for (size_t j = 0; j < count; j++) group[j] = -1;
    }
    free(n);
    node_index_free(&x, count);
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
    for (size_t i = 0; i < p->n_kernels; i++) ortvk_kernel_destroy(p->kernels[i]);
    for (size_t v = 0; v < p->n_values; v++) free(p->values[v].name);
    free(p->kernels);
    free(p->values);
    free(p->name);
    ortvk_profile_put(p->profile);
    ortvk_kernel_device_put(p->kdev);
    free(p);
}

OrtStatus *ortvk_partition_create(ortvk_kernel_device *kdev, ortvk_stream *stream, const OrtGraph *graph,
                                  const OrtNode *fused, bool fuse_qdq, ortvk_partition **out)
{
    *out = NULL;
    size_t count = 0, done_count = 0;
    fused_io io = {0};
    ORTVK_TRY(ortvk_ort->Graph_GetNumNodes(graph, &count));
    ORTVK_TRY(ortvk_ort->Node_GetNumInputs(fused, &io.n_in));
    ORTVK_TRY(ortvk_ort->Node_GetNumOutputs(fused, &io.n_out));
    ortvk_partition *p = calloc(1, sizeof(*p));
    const OrtNode **nodes = calloc(count + 1, sizeof(*nodes));
    node_names *names = calloc(count + 1, sizeof(*names));
    bool *done = calloc(count + 1, sizeof(*done));
    ptrdiff_t *group = calloc(count + 1, sizeof(*group));
    bool *fused_group = calloc(count + 1, sizeof(*fused_group));
    ortvk_knode *k = malloc(sizeof(*k));
    io.ins = calloc(io.n_in + 1, sizeof(*io.ins));
    io.outs = calloc(io.n_out + 1, sizeof(*io.outs));
    OrtStatus *status = NULL;
    if (p == NULL || nodes == NULL || names == NULL || done == NULL || group == NULL || fused_group == NULL ||
        k == NULL || io.ins == NULL || io.outs == NULL ||
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
    /* QDQ groups GetCapability claimed run as one integer node (kernel_qdq.c), made where their QuantizeLinear is. */
    char why[256] = "";
    if (status == NULL && fuse_qdq) ortvk_nodes_qdq_groups(nodes, count, group);
    for (size_t j = 0; j < count && status == NULL; j++) {
        if (!fuse_qdq) group[j] = -1;
        if (group[j] == (ptrdiff_t)j)
            fused_group[j] = ortvk_qdq_read(nodes, count, group, j, &stream->device->caps, k, why, sizeof(why));
    }
    /* Topological order: each round takes the first node whose producers inside the partition are all taken. */
    while (status == NULL && done_count < count) {
        size_t next = count;
        for (size_t j = 0; j < count && next == count; j++) {
            if (!done[j] && node_ready(names, done, count, j)) next = j;
        }
        if (next == count) {
            status = ortvk_status(ORT_EP_FAIL, "the nodes of a partition form a cycle");
            break;
        }
        done[next] = true;
        done_count++;
        memset(k, 0, sizeof(*k));
        bool read = false;
        if (group[next] >= 0 && fused_group[group[next]]) {
            const char *op = "";
            status = ortvk_ort->Node_GetOperatorType(nodes[next], &op);
            if (status != NULL || op == NULL || strcmp(op, "QuantizeLinear") != 0) continue;
            read = ortvk_qdq_read(nodes, count, group, (size_t)group[next], &stream->device->caps, k, why,
                                  sizeof(why));
        } else {
            read = ortvk_knode_read(nodes[next], k, why, sizeof(why));
        }
        status = kernel_create(p, stream, k, read, why, sizeof(why), &io, &p->kernels[p->n_kernels]);
        if (status == NULL) p->n_kernels++;
    }
    if (status == NULL) ortvk_partition_fuse_norms(p);
    if (status == NULL) status = ortvk_partition_fuse(p, stream);
    if (status == NULL) status = ortvk_partition_fuse_mlp(p, stream);
    /* The constants' copies went to the stream without a wait each: one wait for all of them. */
    if (status == NULL) status = ortvk_stream_wait_host(stream, UINT64_MAX);
out:
    free(nodes);
    names_free(names, count);
    free(done);
    free(group);
    free(fused_group);
    free(k);
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
