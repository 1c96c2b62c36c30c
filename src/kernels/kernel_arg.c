/* ArgMax and ArgMin on the device: the index of each row's extreme along one axis, as int64, with ORT's CPU EP's
 * answers for ties, NaN and its reading of keepdims and select_last_index (shaders/kernel_arg.comp). */
#include <string.h>

#include "kernels/kernel_internal.h"

/* Elements of a row one dispatch scans: 32768 of ORTVK_FOR's blocks of 16, half of lavapipe's loop cap. */
#define ARG_CHUNK (1u << 19)

static bool arg_prepare(const ortvk_knode *node, ortvk_kparams *params, char *why, size_t why_len)
{
    ortvk_kparams_arg *p = &params->arg;
    p->min = strcmp(node->op_type, "ArgMin") == 0;
    if (node->n_in != 1 || node->n_out != 1 || !node->in[0].present || !ortvk_kfloat(node->in[0].type))
        return ortvk_krefuse(why, why_len, "input is not float or float16");
    if (node->out[0].type != ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64)
        return ortvk_krefuse(why, why_len, "output is not int64");
    int64_t keepdims = 1, last = 0;
    if (!ortvk_knode_int(node, "axis", 0, &p->axis) || !ortvk_knode_int(node, "keepdims", 1, &keepdims) ||
        !ortvk_knode_int(node, "select_last_index", 0, &last))
        return ortvk_krefuse(why, why_len, "axis, keepdims or select_last_index is not an int");
    /* ORT's CPU EP (1.24 and 1.30) keeps the dim only for keepdims == 1 (2 and -1 drop it) and takes the last
     * index for any select_last_index other than 0. */
    p->keepdims = keepdims == 1;
    p->last = last != 0;
    int rank = node->in[0].rank;
    if (rank == 0 || (rank > 0 && (p->axis < -rank || p->axis >= rank)))
        return ortvk_krefuse(why, why_len, "axis %lld of rank %d", (long long)p->axis, rank);
    return true;
}

/* The axis as a dim index of x, or an error naming it. */
static OrtStatus *arg_axis(const ortvk_kparams_arg *p, const ortvk_ktensor *x, size_t *axis)
{
    const char *op = p->min ? "ArgMin" : "ArgMax";
    int64_t rank = (int64_t)x->rank, a = p->axis < 0 ? p->axis + rank : p->axis;
    if (rank == 0 || a < 0 || a >= rank)
        return ortvk_status(ORT_INVALID_ARGUMENT, "%s: axis %lld of an input of rank %lld", op, (long long)p->axis,
                            (long long)rank);
    *axis = (size_t)a;
    return NULL;
}

/* The output's dims: x's with dim `axis` kept as 1 or dropped (an axis matching no dim keeps them all). */
static void arg_dims(const ortvk_kparams_arg *p, const ortvk_ktensor *x, int64_t axis, ortvk_ktensor *y)
{
    y->type = ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64;
    y->rank = 0;
    for (size_t d = 0; d < x->rank; d++) {
        if ((int64_t)d != axis) y->dims[y->rank++] = x->dims[d];
        else if (p->keepdims) y->dims[y->rank++] = 1;
    }
}

static OrtStatus *arg_shape(const ortvk_kparams *params, ortvk_krun *run)
{
    const ortvk_kparams_arg *p = &params->arg;
    const ortvk_ktensor *x = &run->in[0];
    ortvk_ktensor *y = &run->out[0];
    /* An empty input: ORT's CPU EP compares the axis with the dim indices as given (as for the Reduce ops), so a
     * negative or out-of-range one matches none and the output keeps the input's shape, keepdims or not. */
    if (x->count == 0) {
        arg_dims(p, x, p->axis, y);
        /* The axis is the one empty dim: no index to give, and the CPU EP fails the run. */
        if (ortvk_kcount(y->dims, y->rank) > 0)
            return ortvk_status(ORT_INVALID_ARGUMENT, "%s: axis %lld of the input has no elements",
                                p->min ? "ArgMin" : "ArgMax", (long long)p->axis);
        return NULL;
    }
    size_t axis = 0;
    ORTVK_TRY(arg_axis(p, x, &axis));
    arg_dims(p, x, (int64_t)axis, y);
    return NULL;
}

typedef struct push_arg {
    uint64_t x, y;
    uint32_t outer, R, inner;
    uint32_t begin, end;
    uint32_t flags; /* 1: ArgMin, 2: select_last_index, 4: the first NaN wins */
} push_arg;

static OrtStatus *arg_record(const ortvk_kparams *params, ortvk_krun *run)
{
    const ortvk_kparams_arg *p = &params->arg;
    const ortvk_ktensor *x = &run->in[0];
    size_t axis = 0;
    ORTVK_TRY(arg_axis(p, x, &axis));
    size_t outer = ortvk_kcount(x->dims, axis), R = (size_t)x->dims[axis];
    size_t inner = ortvk_kcount(x->dims + axis + 1, x->rank - axis - 1);
    /* A rank-1 input without select_last_index: ORT's CPU EP asks Eigen, whose first NaN wins (see the shader). */
    bool nan_first = x->rank == 1 && !p->last;
    push_arg push = {
        .x = x->address,
        .y = run->out[0].address,
        .outer = (uint32_t)outer,
        .R = (uint32_t)R,
        .inner = (uint32_t)inner,
        .flags = (p->min ? 1u : 0u) | (p->last ? 2u : 0u) | (nan_first ? 4u : 0u),
    };
    /* Counts fit: the run refuses tensors of more than INT32_MAX elements. Each dispatch after the first resumes
     * from the index the one before stored in y (ortvk_krun_dispatch orders them with barriers). */
    for (size_t begin = 0; begin == 0 || begin < R; begin += ARG_CHUNK) {
        push.begin = (uint32_t)begin;
        push.end = (uint32_t)(R - begin > ARG_CHUNK ? begin + ARG_CHUNK : R);
        ORTVK_TRY(ortvk_krun_dispatch(run, ORTVK_SHADER_ARG, &push, sizeof(push), outer * inner));
    }
    return NULL;
}

const ortvk_kop ortvk_kops_arg[] = {
    {"ArgMax", 1, 13, "axis keepdims select_last_index", 0, arg_prepare, arg_shape, arg_record},
    {"ArgMin", 1, 13, "axis keepdims select_last_index", 0, arg_prepare, arg_shape, arg_record},
    {NULL, 0, 0, NULL, 0, NULL, NULL, NULL},
};
