/* InstanceNormalization and LayerNormalization: one invocation per row computes its mean and variance, then the
 * normalized values with scale and bias, as ORT's CPU EP does (shaders/kernel_norm.comp says how). */
#include <string.h>

#include "kernels/kernel_internal.h"

/* The element count of dims [first, last), or -1 when one of them is symbolic. */
static int64_t static_count(const int64_t *dims, int first, int last)
{
    int64_t n = 1;
    for (int d = first; d < last; d++) {
        if (dims[d] < 0) return -1;
        n *= dims[d];
    }
    return n;
}

static bool norm_prepare(const ortvk_knode *node, ortvk_kparams *params, char *why, size_t why_len)
{
    ortvk_kparams_norm *p = &params->norm;
    p->layer = strcmp(node->op_type, "LayerNormalization") == 0;
    size_t n_in = p->layer ? 2 : 3;
    if (node->n_in < n_in || node->n_in > 3) return ortvk_krefuse(why, why_len, "%zu inputs", node->n_in);
    for (size_t i = 0; i < node->n_in; i++) {
        if ((i < n_in || node->in[i].present) && !ortvk_kvalue_float(&node->in[i]))
            return ortvk_krefuse(why, why_len, "input %zu is not float", i);
    }
    if (node->n_out < 1 || !ortvk_kvalue_float(&node->out[0]))
        return ortvk_krefuse(why, why_len, "output is not float");
    for (size_t i = 1; i < node->n_out; i++) {
        /* Mean and InvStdDev are float (stash_type 1) even for float16 data; ortvk writes them as float. */
        if (node->out[i].present && node->out[i].type != ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT)
            return ortvk_krefuse(why, why_len, "output %zu is not float", i);
    }
    int64_t stash = 1;
    if (!ortvk_knode_float(node, "epsilon", 1e-5f, &p->epsilon) || !ortvk_knode_int(node, "axis", -1, &p->axis) ||
        !ortvk_knode_int(node, "stash_type", 1, &stash) || stash != 1)
        return ortvk_krefuse(why, why_len, "epsilon, axis or stash_type");
    int rank = node->in[0].rank;
    if (rank < (p->layer ? 1 : 3)) return ortvk_krefuse(why, why_len, "rank %d", rank);
    if (p->layer && (p->axis < -rank || p->axis >= rank))
        return ortvk_krefuse(why, why_len, "axis %lld of rank %d", (long long)p->axis, rank);
    /* Scale and bias must hold one value per normalized element (layer) or channel (instance): refused here when
     * the shapes say otherwise (broadcasting within the normalized shape is not implemented). */
    int first = p->layer ? (int)(p->axis < 0 ? p->axis + rank : p->axis) : 1;
    int last = p->layer ? rank : 2;
    int64_t want = static_count(node->in[0].dims, first, last);
    for (size_t i = 1; i < node->n_in; i++) {
        const ortvk_kvalue *v = &node->in[i];
        int64_t have = v->present && v->rank >= 0 ? static_count(v->dims, 0, v->rank) : -1;
        if (want >= 0 && have >= 0 && have != want)
            return ortvk_krefuse(why, why_len, "input %zu has %lld values for %lld", i, (long long)have,
                                 (long long)want);
    }
    return true;
}

/* Rows, their length and the scale's channel count; the scale and bias must hold exactly what each row uses (no
 * broadcasting within the normalized shape). */
static OrtStatus *norm_plan(const ortvk_kparams_norm *p, const ortvk_krun *run, size_t *rows, size_t *len)
{
    const ortvk_ktensor *x = &run->in[0], *scale = &run->in[1];
    const ortvk_ktensor *bias = run->n_in > 2 && run->in[2].present ? &run->in[2] : NULL;
    const char *op = p->layer ? "LayerNormalization" : "InstanceNormalization";
    size_t axis = p->layer ? (size_t)(p->axis < 0 ? p->axis + (int64_t)x->rank : p->axis) : 2;
    if (axis >= x->rank)
        return ortvk_status(ORT_INVALID_ARGUMENT, "%s: axis %lld for rank %zu", op, (long long)p->axis, x->rank);
    *rows = ortvk_kcount(x->dims, axis);
    *len = ortvk_kcount(x->dims + axis, x->rank - axis);
    /* ORT's CPU EP fails LayerNormalization over nothing (X.shape[axis:] of 0 elements), whatever the rows. */
    if (p->layer && *len == 0)
        return ortvk_status(ORT_INVALID_ARGUMENT, "LayerNormalization: X.shape[%zu:] holds no elements", axis);
    size_t want = p->layer ? *len : (size_t)x->dims[1];
    if (scale->count != want || (bias != NULL && bias->count != want))
        return ortvk_status(ORT_INVALID_ARGUMENT, "%s: scale of %zu and bias of %zu values where %zu are needed", op,
                            scale->count, bias != NULL ? bias->count : want, want);
    return NULL;
}

static OrtStatus *norm_shape(const ortvk_kparams *params, ortvk_krun *run)
{
    const ortvk_ktensor *x = &run->in[0];
    size_t rows = 0, len = 0;
    ORTVK_TRY(norm_plan(&params->norm, run, &rows, &len));
    run->out[0].type = x->type;
    run->out[0].rank = x->rank;
    memcpy(run->out[0].dims, x->dims, sizeof(x->dims));
    /* LayerNormalization's Mean and InvStdDev: X's shape with the normalized dims set to 1. */
    size_t axis = (size_t)(params->norm.axis < 0 ? params->norm.axis + (int64_t)x->rank : params->norm.axis);
    for (size_t i = 1; i < run->n_out && i < 3; i++) {
        ortvk_ktensor *t = &run->out[i];
        t->type = ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;
        t->rank = x->rank;
        for (size_t d = 0; d < x->rank; d++) t->dims[d] = d < axis ? x->dims[d] : 1;
    }
    return NULL;
}

typedef struct push_norm {
    uint64_t x, y, scale, bias, mean, inv_std;
    uint32_t rows, len, channels, per_element;
    float epsilon;
} push_norm;

static OrtStatus *norm_record(const ortvk_kparams *params, ortvk_krun *run)
{
    const ortvk_kparams_norm *p = &params->norm;
    size_t rows = 0, len = 0;
    ORTVK_TRY(norm_plan(p, run, &rows, &len));
    if (len == 0) return NULL; /* rows of nothing: Y is empty (Mean/InvStdDev would be 0/0) */
    push_norm push = {
        .x = run->in[0].address,
        .y = run->out[0].address,
        .scale = run->in[1].address,
        .bias = run->n_in > 2 && run->in[2].present ? run->in[2].address : 0,
        .mean = run->n_out > 1 && run->out[1].present ? run->out[1].address : 0,
        .inv_std = run->n_out > 2 && run->out[2].present ? run->out[2].address : 0,
        .rows = (uint32_t)rows,
        .len = (uint32_t)len,
        .channels = p->layer ? 1 : (uint32_t)run->in[0].dims[1],
        .per_element = p->layer,
        .epsilon = p->epsilon,
    };
    bool by_rows = ortvk_krun_rows_form(run, len); /* a GPU's: a workgroup a row */
    return ortvk_krun_dispatch_fn(run, ORTVK_SHADER_NORM, by_rows ? 1 : 0, &push, sizeof(push),
                                  by_rows ? (uint64_t)rows * 64 : (uint64_t)rows);
}

const ortvk_kop ortvk_kops_norm[] = {
    {"InstanceNormalization", 6, 22, "epsilon", 0, norm_prepare, norm_shape, norm_record},
    {"LayerNormalization", 17, 17, "axis epsilon stash_type", 0, norm_prepare, norm_shape, norm_record},
    {NULL, 0, 0, NULL, 0, NULL, NULL, NULL},
};
