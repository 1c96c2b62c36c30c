/* Element-wise ops on float tensors: the unary functions, the binary ones with ONNX multidirectional broadcasting
 * (shapes coalesced on the host into <= 6 dims; Max, Min, Sum and Mean of any number of inputs), comparisons and
 * logic to bool, and Where. Each shader takes its function as a specialization constant. */
#include <float.h>
#include <string.h>

#include "kernels/kernel_internal.h"

static bool is_float(const ortvk_kvalue *v)
{
    return v->present && ortvk_kfloat(v->type);
}

/* Every present input and output is float, with `n_out` outputs. */
static bool all_float(const ortvk_knode *node, size_t n_out, char *why, size_t why_len)
{
    for (size_t i = 0; i < node->n_in; i++) {
        if (node->in[i].present && !is_float(&node->in[i]))
            return ortvk_krefuse(why, why_len, "input %zu is not float", i);
    }
    if (node->n_out != n_out) return ortvk_krefuse(why, why_len, "%zu outputs", node->n_out);
    for (size_t i = 0; i < node->n_out; i++) {
        if (!is_float(&node->out[i])) return ortvk_krefuse(why, why_len, "output %zu is not float", i);
    }
    return true;
}

/* ---- unary ---------------------------------------------------------------------------------------------- */

static const struct {
    const char *op;
    ortvk_unary_fn fn;
    float alpha, beta, gamma; /* attribute defaults */
} unary_ops[] = {
    {"Relu", ORTVK_UNARY_RELU, 0, 0, 0},
    {"LeakyRelu", ORTVK_UNARY_LEAKY_RELU, 0.01f, 0, 0},
    {"Sigmoid", ORTVK_UNARY_SIGMOID, 0, 0, 0},
    {"HardSigmoid", ORTVK_UNARY_HARD_SIGMOID, 0.2f, 0.5f, 0},
    {"HardSwish", ORTVK_UNARY_HARD_SWISH, 0, 0, 0},
    {"Tanh", ORTVK_UNARY_TANH, 0, 0, 0},
    {"Exp", ORTVK_UNARY_EXP, 0, 0, 0},
    {"Log", ORTVK_UNARY_LOG, 0, 0, 0},
    {"Abs", ORTVK_UNARY_ABS, 0, 0, 0},
    {"Neg", ORTVK_UNARY_NEG, 0, 0, 0},
    {"Sqrt", ORTVK_UNARY_SQRT, 0, 0, 0},
    {"Erf", ORTVK_UNARY_ERF, 0, 0, 0},
    {"Clip", ORTVK_UNARY_CLIP, -FLT_MAX, FLT_MAX, 0},
    {"Reciprocal", ORTVK_UNARY_RECIPROCAL, 0, 0, 0},
    {"Floor", ORTVK_UNARY_FLOOR, 0, 0, 0},
    {"Ceil", ORTVK_UNARY_CEIL, 0, 0, 0},
    {"Elu", ORTVK_UNARY_ELU, 1.0f, 0, 0},
    {"Softplus", ORTVK_UNARY_SOFTPLUS, 0, 0, 0},
    {"Selu", ORTVK_UNARY_SELU, 1.67326319217681884765625f, 0, 1.05070102214813232421875f},
    {"Sign", ORTVK_UNARY_SIGN, 0, 0, 0},
    {"Round", ORTVK_UNARY_ROUND, 0, 0, 0},
    {"Softsign", ORTVK_UNARY_SOFTSIGN, 0, 0, 0},
    {"ThresholdedRelu", ORTVK_UNARY_THRESHOLDED_RELU, 1.0f, 0, 0},
    {"Celu", ORTVK_UNARY_CELU, 1.0f, 0, 0},
    {"Shrink", ORTVK_UNARY_SHRINK, 0.5f, 0, 0}, /* alpha: lambd, beta: bias */
    {"Sin", ORTVK_UNARY_SIN, 0, 0, 0},
    {"Cos", ORTVK_UNARY_COS, 0, 0, 0},
    {"Tan", ORTVK_UNARY_TAN, 0, 0, 0},
    {"Asin", ORTVK_UNARY_TRIG, ORTVK_TRIG_ASIN, 0, 0}, /* alpha: the function */
    {"Acos", ORTVK_UNARY_TRIG, ORTVK_TRIG_ACOS, 0, 0},
    {"Atan", ORTVK_UNARY_TRIG, ORTVK_TRIG_ATAN, 0, 0},
    {"Sinh", ORTVK_UNARY_TRIG, ORTVK_TRIG_SINH, 0, 0},
    {"Cosh", ORTVK_UNARY_TRIG, ORTVK_TRIG_COSH, 0, 0},
    {"Asinh", ORTVK_UNARY_TRIG, ORTVK_TRIG_ASINH, 0, 0},
    {"Acosh", ORTVK_UNARY_TRIG, ORTVK_TRIG_ACOSH, 0, 0},
    {"Atanh", ORTVK_UNARY_TRIG, ORTVK_TRIG_ATANH, 0, 0},
    {"Identity", ORTVK_UNARY_COPY, 0, 0, 0},
};

static bool unary_prepare(const ortvk_knode *node, ortvk_kparams *params, char *why, size_t why_len)
{
    ortvk_kparams_unary *p = &params->unary;
    size_t i = 0;
    while (strcmp(unary_ops[i].op, node->op_type) != 0) i++; /* the op table lists only these */
    p->fn = unary_ops[i].fn;
    p->beta = unary_ops[i].beta;
    if (!all_float(node, 1, why, why_len)) return false;
    if (!ortvk_knode_float(node, "alpha", unary_ops[i].alpha, &p->alpha) ||
        !ortvk_knode_float(node, "gamma", unary_ops[i].gamma, &p->gamma))
        return ortvk_krefuse(why, why_len, "alpha or gamma is not a float");
    if (p->fn == ORTVK_UNARY_HARD_SIGMOID && !ortvk_knode_float(node, "beta", unary_ops[i].beta, &p->beta))
        return ortvk_krefuse(why, why_len, "beta is not a float");
    if (p->fn == ORTVK_UNARY_SHRINK &&
        (!ortvk_knode_float(node, "lambd", unary_ops[i].alpha, &p->alpha) ||
         !ortvk_knode_float(node, "bias", unary_ops[i].beta, &p->beta)))
        return ortvk_krefuse(why, why_len, "lambd or bias is not a float");
    if (p->fn == ORTVK_UNARY_CELU && p->alpha == 0.0f)
        return ortvk_krefuse(why, why_len, "Celu with alpha 0");
    /* A NaN, infinite, subnormal or absurdly large (1e19+) attribute: the products and their overflow (gamma * alpha
     * * expm1(x) with gamma of FLT_MAX, inf * 0, ...) come out in the CPU EP's order and flushing only there. */
    if (p->fn != ORTVK_UNARY_CLIP && p->fn != ORTVK_UNARY_COPY) {
        const float values[3] = {p->alpha, p->beta, p->gamma};
        for (int k = 0; k < 3; k++) {
            float v = values[k] < 0 ? -values[k] : values[k];
            if (!(v <= 1e19f) || (v != 0.0f && v < FLT_MIN))
                return ortvk_krefuse(why, why_len, "%s with an attribute of %g", node->op_type, (double)values[k]);
        }
    }
    if (p->fn != ORTVK_UNARY_CLIP) {
        if (node->n_in != 1) return ortvk_krefuse(why, why_len, "%zu inputs", node->n_in);
        return true;
    }
    /* Clip: bounds are attributes before opset 11, optional scalar inputs from 11 on: constants go into the push
     * constants, bounds computed at run time are read by the shader from their tensors. */
    p->alpha = -FLT_MAX;
    p->beta = FLT_MAX;
    if (node->opset < 11) {
        if (!ortvk_knode_float(node, "min", -FLT_MAX, &p->alpha) || !ortvk_knode_float(node, "max", FLT_MAX, &p->beta))
            return ortvk_krefuse(why, why_len, "min or max is not a float");
        /* ORT's CPU EP rejects min > max (or NaN) in the attributes: left to it. */
        if (!(p->alpha <= p->beta)) return ortvk_krefuse(why, why_len, "min %g above max %g", p->alpha, p->beta);
        return node->n_in == 1 || ortvk_krefuse(why, why_len, "%zu inputs", node->n_in);
    }
    if (node->n_in > 3) return ortvk_krefuse(why, why_len, "%zu inputs", node->n_in);
    for (size_t k = 1; k < node->n_in; k++) {
        if (!node->in[k].present) continue;
        if (node->in[k].constant == NULL) {
            if (node->in[k].rank > 0) return ortvk_krefuse(why, why_len, "Clip bound of rank %d", node->in[k].rank);
            continue; /* read on the device; unary_record checks it is one float */
        }
        float bound;
        size_t count = 0;
        if (!ortvk_knode_const_floats(node, k, &bound, 1, &count) || count != 1)
            return ortvk_krefuse(why, why_len, "Clip %s is not a float scalar", k == 1 ? "min" : "max");
        if (k == 1) p->alpha = bound;
        else p->beta = bound;
    }
    return true;
}

/* Dropout in inference: the identity. Claimed only without its mask output (a bool tensor ortvk does not write)
 * and when training_mode is absent or a constant false; the ratio is then irrelevant. */
static bool dropout_prepare(const ortvk_knode *node, ortvk_kparams *params, char *why, size_t why_len)
{
    params->unary.fn = ORTVK_UNARY_COPY;
    if (node->n_in < 1 || !ortvk_kfloat(node->in[0].type) || node->n_out < 1 ||
        !ortvk_kfloat(node->out[0].type))
        return ortvk_krefuse(why, why_len, "not float");
    if (node->n_out > 1 && node->out[1].present) return ortvk_krefuse(why, why_len, "mask output");
    /* ORT's CPU EP checks the ratio input even in inference (0 <= ratio < 1): a constant one in range, or left to
     * it. */
    if (node->n_in > 1 && node->in[1].present) {
        float ratio = 0.0f;
        size_t count = 0;
        if (!ortvk_knode_const_floats(node, 1, &ratio, 1, &count) || count != 1 || !(ratio >= 0.0f && ratio < 1.0f))
            return ortvk_krefuse(why, why_len, "ratio not a constant in [0, 1)");
    }
    if (node->n_in > 2 && node->in[2].present) {
        int64_t training = 1;
        size_t n = 0;
        const ortvk_kvalue *t = &node->in[2];
        if (t->constant == NULL || t->type != ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL)
            return ortvk_krefuse(why, why_len, "training_mode is not a constant");
        /* A bool scalar: one byte. */
        const void *data = NULL;
        ONNXTensorElementDataType type;
        const int64_t *dims = NULL;
        OrtStatus *status = ortvk_ort->GetTensorElementTypeAndShapeDataReference(t->constant, &type, &dims, &n);
        if (status == NULL && ortvk_kcount(dims, n) == 1) status = ortvk_ort->GetTensorData(t->constant, &data);
        if (status != NULL) ortvk_ort->ReleaseStatus(status);
        if (status == NULL && data != NULL) training = *(const uint8_t *)data;
        if (training != 0) return ortvk_krefuse(why, why_len, "training_mode");
    }
    return true;
}

OrtStatus *ortvk_kshape_same(const ortvk_kparams *params, ortvk_krun *run)
{
    (void)params;
    const ortvk_ktensor *x = &run->in[0];
    run->out[0].type = x->type;
    run->out[0].rank = x->rank;
    memcpy(run->out[0].dims, x->dims, sizeof(x->dims));
    return NULL;
}

typedef struct push_unary {
    uint64_t x, y;
    uint32_t n;
    float alpha, beta, gamma;
    uint64_t lo, hi;
} push_unary;

static OrtStatus *unary_record(const ortvk_kparams *params, ortvk_krun *run)
{
    const ortvk_kparams_unary *p = &params->unary;
    if (p->fn == ORTVK_UNARY_COPY)
        return ortvk_krun_copy(run, run->out[0].address, run->in[0].address,
                               run->in[0].count * ortvk_element_size(run->in[0].type));
    push_unary push = {
        .x = run->in[0].address,
        .y = run->out[0].address,
        .n = (uint32_t)run->out[0].count,
        .alpha = p->alpha,
        .beta = p->beta,
        .gamma = p->gamma,
    };
    /* Clip bounds that arrive at run time (constant ones are in alpha and beta already). */
    for (size_t k = 1; p->fn == ORTVK_UNARY_CLIP && k < run->n_in && k < 3; k++) {
        const ortvk_ktensor *b = &run->in[k];
        if (!b->present || b->address == 0) continue;
        if (b->count != 1 || b->type != run->in[0].type)
            return ortvk_status(ORT_INVALID_ARGUMENT, "Clip: %s is not one value of the input's type",
                                k == 1 ? "min" : "max");
        if (k == 1) push.lo = b->address;
        else push.hi = b->address;
    }
    /* Vectorised: 64 elements an invocation, as vec4 (shaders/kernel_unary.comp). */
    if (push.n % 4 == 0 && push.x % 16 == 0 && push.y % 16 == 0 && push.lo == 0 && push.hi == 0)
        return ortvk_krun_dispatch_fn(run, ORTVK_SHADER_UNARY, (uint32_t)p->fn + ORTVK_KVARIANT, &push, sizeof(push),
                                      (run->out[0].count + 63) / 64);
    return ortvk_krun_dispatch_fn(run, ORTVK_SHADER_UNARY, (uint32_t)p->fn, &push, sizeof(push), run->out[0].count);
}

/* ---- binary --------------------------------------------------------------------------------------------- */

static bool binary_prepare(const ortvk_knode *node, ortvk_kparams *params, char *why, size_t why_len)
{
    static const struct {
        const char *op;
        ortvk_binary_fn fn;
    } ops[] = {
        {"Add", ORTVK_BINARY_ADD}, {"Sub", ORTVK_BINARY_SUB}, {"Mul", ORTVK_BINARY_MUL},
        {"Div", ORTVK_BINARY_DIV}, {"Pow", ORTVK_BINARY_POW}, {"PRelu", ORTVK_BINARY_PRELU},
        {"Max", ORTVK_BINARY_MAX}, {"Min", ORTVK_BINARY_MIN}, {"Sum", ORTVK_BINARY_ADD},
        {"Mean", ORTVK_BINARY_ADD},
    };
    size_t i = 0;
    while (strcmp(ops[i].op, node->op_type) != 0) i++;
    params->binary.fn = ops[i].fn;
    /* Max, Min, Sum and Mean take 1 to ORTVK_KMAX_INPUTS inputs, folded left to right into the output. */
    params->binary.variadic = strcmp(node->op_type, "Max") == 0 || strcmp(node->op_type, "Min") == 0 ||
                              strcmp(node->op_type, "Sum") == 0 || strcmp(node->op_type, "Mean") == 0;
    params->binary.mean = strcmp(node->op_type, "Mean") == 0;
    if (node->n_in < 1 || (!params->binary.variadic && node->n_in != 2))
        return ortvk_krefuse(why, why_len, "%zu inputs", node->n_in);
    for (size_t k = 0; k < node->n_in; k++) {
        if (!node->in[k].present) return ortvk_krefuse(why, why_len, "input %zu omitted", k);
    }
    if (!all_float(node, 1, why, why_len)) return false;
    /* float16: the fold stores each partial sum in the output, rounded to float16 every time (and Mean's sum may
     * overflow where the mean would not): more than the one rounding a node's output may carry. */
    bool half = node->in[0].type == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16;
    if (half && ((strcmp(node->op_type, "Sum") == 0 && node->n_in > 2) || (params->binary.mean && node->n_in > 1)))
        return ortvk_krefuse(why, why_len, "float16 %s of %zu inputs (partial sums rounded)", node->op_type,
                             node->n_in);
    /* The shader takes 6 dims; coalescing only lowers the rank, so a known rank <= 6 is enough. An unknown rank (a
     * Reshape to a shape computed in the run) is checked in the run, after coalescing (broadcast_dispatch). */
    for (size_t k = 0; k < node->n_in; k++) {
        if (node->in[k].rank > ORTVK_KMAX_SHADER_RANK)
            return ortvk_krefuse(why, why_len, "input %zu has rank %d", k, node->in[k].rank);
    }
    return true;
}

/* out's shape: the multidirectional broadcast of the run's inputs' shapes. */
static OrtStatus *broadcast_inputs(const ortvk_krun *run, ortvk_ktensor *out)
{
    out->rank = run->in[0].rank;
    memcpy(out->dims, run->in[0].dims, sizeof(out->dims));
    for (size_t k = 1; k < run->n_in; k++) {
        int64_t dims[ORTVK_KMAX_RANK];
        size_t rank;
        if (!ortvk_kbroadcast(out->dims, out->rank, run->in[k].dims, run->in[k].rank, dims, &rank))
            return ortvk_status(ORT_INVALID_ARGUMENT, "inputs of shapes that do not broadcast");
        memcpy(out->dims, dims, sizeof(dims));
        out->rank = rank;
    }
    return NULL;
}

static OrtStatus *binary_shape(const ortvk_kparams *params, ortvk_krun *run)
{
    const ortvk_ktensor *a = &run->in[0];
    ortvk_ktensor *c = &run->out[0];
    c->type = a->type;
    ORTVK_TRY(broadcast_inputs(run, c));
    /* PRelu broadcasts the slope into X's shape only (unidirectional). */
    if (params->binary.fn == ORTVK_BINARY_PRELU &&
        (c->rank != a->rank || memcmp(c->dims, a->dims, a->rank * sizeof(int64_t)) != 0))
        return ortvk_status(ORT_INVALID_ARGUMENT, "PRelu slope does not broadcast to X");
    return NULL;
}

typedef struct push_binary {
    uint64_t a, b, c;
    uint32_t n, rank;
    uint32_t dims[6], sa[6], sb[6];
    uint32_t groups; /* the vectorised binary form: workgroups per row of the last dim */
} push_binary;

/* 2 where b is one value a row of the last dim and a steps as c does in every dim, 3 the other way round, else 0. */
static int broadcast_flat(const ortvk_kstrides *s)
{
    int last = s->rank - 1;
    for (int x = 0; x < 2; x++) {
        bool steps = true;
        for (int k = 0; k < s->rank; k++) steps = steps && s->stride[x][k] == s->stride[2][k];
        if (steps && s->stride[1 - x][last] == 0) return x == 0 ? 2 : 3;
    }
    return 0;
}

/* c = a fn b, both broadcast into c's shape, by `shader` (kernel_binary or kernel_compare: the same push constants). */
static OrtStatus *broadcast_dispatch(ortvk_krun *run, ortvk_shader shader, uint32_t fn, const ortvk_ktensor *a,
                                     const ortvk_ktensor *b, const ortvk_ktensor *c)
{
    ortvk_kstrides s = {.rank = (int)c->rank};
    memcpy(s.dims, c->dims, sizeof(c->dims));
    ortvk_kbroadcast_strides(a->dims, a->rank, c->rank, c->dims, s.stride[0]);
    ortvk_kbroadcast_strides(b->dims, b->rank, c->rank, c->dims, s.stride[1]);
    ortvk_kbroadcast_strides(c->dims, c->rank, c->rank, c->dims, s.stride[2]);
    ortvk_kcoalesce(&s, 3);
    if (s.rank > ORTVK_KMAX_SHADER_RANK) return ortvk_status(ORT_EP_FAIL, "broadcast of rank %d", s.rank);
    push_binary push = {
        .a = a->address,
        .b = b->address,
        .c = c->address,
        .n = (uint32_t)c->count,
        .rank = (uint32_t)s.rank,
    };
    for (int k = 0; k < s.rank; k++) {
        push.dims[k] = (uint32_t)s.dims[k];
        push.sa[k] = (uint32_t)s.stride[0][k];
        push.sb[k] = (uint32_t)s.stride[1][k];
    }
    /* Vectorised (the binary shader): 64 elements an invocation, runs of 4 along the last dim read as vec4 where an
     * operand steps along it, or one value where it is broadcast; each row of the last dim of 4,096 elements or more
     * gets whole workgroups of 64 invocations (shaders/kernel_binary.comp). */
    int last = s.rank - 1;
    if (shader == ORTVK_SHADER_BINARY && c->count > 0 && s.dims[last] % 4 == 0 && s.stride[0][last] <= 1 &&
        s.stride[1][last] <= 1 && s.stride[2][last] == 1 && push.a % 16 == 0 && push.b % 16 == 0 && push.c % 16 == 0) {
        uint64_t len = (uint64_t)s.dims[last], rows = c->count / len, runs = (len + 63) / 64;
        /* One operand a value a row, the other contiguous as c, rows of 64 to 4,095: 64 elements of c an invocation
         * in flat order (the shader's constant 1 = 2 where b is the row's value, 3 where a is). Longer rows take
         * whole workgroups, whose invocations spread over their block (common.glsl's ortvk_lanes_start). */
        int flat = len >= 64 && len < 64 * 64 ? broadcast_flat(&s) : 0;
        if (flat != 0) return ortvk_krun_dispatch_fn(run, shader, fn + (uint32_t)flat * ORTVK_KVARIANT, &push,
                                                     sizeof(push), (c->count + 63) / 64);
        if (len >= 64 * 64) push.groups = (uint32_t)((runs + 63) / 64);
        uint64_t invocations = push.groups != 0 ? rows * push.groups * 64 : rows * runs;
        return ortvk_krun_dispatch_fn(run, shader, fn + ORTVK_KVARIANT, &push, sizeof(push), invocations);
    }
    /* The same flat order element by element (constant 1 = 4 or 5) where the rows are not whole vec4s or an offset
     * is not 16-byte aligned: no index divided per element, as the general form below does. */
    int flat = shader == ORTVK_SHADER_BINARY && c->count > 0 && s.dims[last] >= 64 ? broadcast_flat(&s) : 0;
    if (flat != 0)
        return ortvk_krun_dispatch_fn(run, shader, fn + (uint32_t)(flat + 2) * ORTVK_KVARIANT, &push, sizeof(push),
                                      (c->count + 63) / 64);
    return ortvk_krun_dispatch_fn(run, shader, fn, &push, sizeof(push), c->count);
}


static OrtStatus *binary_record(const ortvk_kparams *params, ortvk_krun *run)
{
    const ortvk_ktensor *c = &run->out[0];
    if (run->n_in == 1) /* a variadic op of one input: its copy */
        return ortvk_krun_copy(run, c->address, run->in[0].address, c->count * ortvk_element_size(c->type));
    /* Left to right, like ORT's CPU EP: c = in0 fn in1, then c = c fn in_k (each element read, then written). */
    uint32_t fn = (uint32_t)params->binary.fn;
    ORTVK_TRY(broadcast_dispatch(run, ORTVK_SHADER_BINARY, fn, &run->in[0], &run->in[1], c));
    for (size_t k = 2; k < run->n_in; k++)
        ORTVK_TRY(broadcast_dispatch(run, ORTVK_SHADER_BINARY, fn, c, &run->in[k], c));
    if (!params->binary.mean) return NULL;
    push_unary push = {.x = c->address, .y = c->address, .n = (uint32_t)c->count, .alpha = (float)run->n_in};
    return ortvk_krun_dispatch_fn(run, ORTVK_SHADER_UNARY, ORTVK_UNARY_DIVIDE, &push, sizeof(push), c->count);
}

/* ---- comparisons, logic and Where ------------------------------------------------------------------------ */

static bool is_bool(const ortvk_kvalue *v)
{
    return v->present && v->type == ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL;
}

/* Equal, Greater, Less, GreaterOrEqual, LessOrEqual (float, float16, int32 or int64 operands of one type) and And,
 * Or, Xor, Not (bool), to bool, broadcast like the binary ops. */
_Static_assert(ORTVK_COMPARE_INT64 + ORTVK_COMPARE_LESS_EQUAL < ORTVK_KVARIANT,
               "a comparison's function, integer kind added, stays specialization constant 0");

static bool compare_prepare(const ortvk_knode *node, ortvk_kparams *params, char *why, size_t why_len)
{
    static const struct {
        const char *op;
        ortvk_compare_fn fn;
    } ops[] = {
        {"Equal", ORTVK_COMPARE_EQUAL},         {"Greater", ORTVK_COMPARE_GREATER},
        {"Less", ORTVK_COMPARE_LESS},           {"GreaterOrEqual", ORTVK_COMPARE_GREATER_EQUAL},
        {"LessOrEqual", ORTVK_COMPARE_LESS_EQUAL}, {"And", ORTVK_LOGIC_AND},
        {"Or", ORTVK_LOGIC_OR},                 {"Xor", ORTVK_LOGIC_XOR},
        {"Not", ORTVK_LOGIC_NOT},
    };
    size_t i = 0;
    while (strcmp(ops[i].op, node->op_type) != 0) i++;
    ortvk_compare_fn fn = params->binary.compare = ops[i].fn;
    size_t n_in = fn == ORTVK_LOGIC_NOT ? 1 : 2;
    if (node->n_in != n_in || node->n_out != 1 || !is_bool(&node->out[0]))
        return ortvk_krefuse(why, why_len, "%zu inputs, or an output that is not bool", node->n_in);
    bool int32 = node->in[0].type == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32;
    bool int64 = node->in[0].type == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64;
    if (fn < ORTVK_LOGIC_AND) params->binary.compare += int32 ? ORTVK_COMPARE_INT32 : int64 ? ORTVK_COMPARE_INT64 : 0;
    for (size_t k = 0; k < n_in; k++) {
        const ortvk_kvalue *v = &node->in[k];
        bool ok = fn >= ORTVK_LOGIC_AND ? is_bool(v) : v->present && v->type == node->in[0].type &&
                                                           (ortvk_kfloat(v->type) || int32 || int64);
        if (!ok) return ortvk_krefuse(why, why_len, "input %zu is of type %d", k, (int)v->type);
        if (v->rank > ORTVK_KMAX_SHADER_RANK) /* unknown: checked in the run (broadcast_dispatch) */
            return ortvk_krefuse(why, why_len, "input %zu has rank %d", k, v->rank);
    }
    return true;
}

static OrtStatus *compare_shape(const ortvk_kparams *params, ortvk_krun *run)
{
    (void)params;
    run->out[0].type = ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL;
    return broadcast_inputs(run, &run->out[0]);
}

static OrtStatus *compare_record(const ortvk_kparams *params, ortvk_krun *run)
{
    const ortvk_ktensor *b = run->n_in > 1 ? &run->in[1] : &run->in[0]; /* Not: b is unused */
    return broadcast_dispatch(run, ORTVK_SHADER_COMPARE, (uint32_t)params->binary.compare, &run->in[0], b,
                              &run->out[0]);
}

#define WHERE_RANK 5 /* the push constants hold four operands' strides over this many dims */

static bool where_prepare(const ortvk_knode *node, ortvk_kparams *params, char *why, size_t why_len)
{
    (void)params;
    if (node->n_in != 3 || node->n_out != 1 || !is_bool(&node->in[0]) || !ortvk_kfloat(node->in[1].type) ||
        node->in[2].type != node->in[1].type || node->out[0].type != node->in[1].type)
        return ortvk_krefuse(why, why_len, "not Where(bool, float, float)");
    for (size_t k = 0; k < 3; k++) {
        if (node->in[k].rank > WHERE_RANK) /* unknown: checked in the run (where_record) */
            return ortvk_krefuse(why, why_len, "input %zu has rank %d", k, node->in[k].rank);
    }
    return true;
}

static OrtStatus *where_shape(const ortvk_kparams *params, ortvk_krun *run)
{
    (void)params;
    run->out[0].type = run->in[1].type;
    return broadcast_inputs(run, &run->out[0]);
}

typedef struct push_where {
    uint64_t cond, x, y, out;
    uint32_t n, rank;
    uint32_t dims[WHERE_RANK], sc[WHERE_RANK], sx[WHERE_RANK], sy[WHERE_RANK];
} push_where;

static OrtStatus *where_record(const ortvk_kparams *params, ortvk_krun *run)
{
    (void)params;
    const ortvk_ktensor *y = &run->out[0];
    ortvk_kstrides s = {.rank = (int)y->rank};
    memcpy(s.dims, y->dims, sizeof(y->dims));
    for (int k = 0; k < 3; k++)
        ortvk_kbroadcast_strides(run->in[k].dims, run->in[k].rank, y->rank, y->dims, s.stride[k]);
    ortvk_kbroadcast_strides(y->dims, y->rank, y->rank, y->dims, s.stride[3]);
    ortvk_kcoalesce(&s, 4);
    if (s.rank > WHERE_RANK) return ortvk_status(ORT_EP_FAIL, "Where over %d dims", s.rank);
    push_where push = {.cond = run->in[0].address, .x = run->in[1].address, .y = run->in[2].address,
                       .out = y->address, .n = (uint32_t)y->count, .rank = (uint32_t)s.rank};
    for (int k = 0; k < s.rank; k++) {
        push.dims[k] = (uint32_t)s.dims[k];
        push.sc[k] = (uint32_t)s.stride[0][k];
        push.sx[k] = (uint32_t)s.stride[1][k];
        push.sy[k] = (uint32_t)s.stride[2][k];
    }
    return ortvk_krun_dispatch(run, ORTVK_SHADER_WHERE, &push, sizeof(push), y->count);
}

#define UNARY(name, lo, hi, attrs) {name, lo, hi, attrs, 0x6, unary_prepare, ortvk_kshape_same, unary_record}
#define BINARY(name, lo, hi) {name, lo, hi, "", 0, binary_prepare, binary_shape, binary_record}

/* Opset ranges: the schema versions whose semantics these follow (later ones only added types). */
/* ---- Cast ----------------------------------------------------------------------------------------------- */

static bool cast_prepare(const ortvk_knode *node, ortvk_kparams *params, char *why, size_t why_len)
{
    if (node->n_in != 1 || node->n_out != 1) return ortvk_krefuse(why, why_len, "inputs");
    int64_t to = 0, saturate = 1;
    if (!ortvk_knode_int(node, "to", 0, &to) || !ortvk_knode_int(node, "saturate", 1, &saturate))
        return ortvk_krefuse(why, why_len, "to");
    /* saturate is for float8 targets, which ortvk does not cast to: ORT's CPU EP rejects 0 for other targets and
     * answered otherwise than the plain cast for values other than 0 and 1, so any value but 1 is left to it. */
    if (saturate != 1) return ortvk_krefuse(why, why_len, "saturate %lld", (long long)saturate);
    ONNXTensorElementDataType from = node->in[0].type;
    params->cast.to = (ONNXTensorElementDataType)to;
    /* int32/int64 -> float and int32 <-> int64, rounding as C casts do (what ORT's CPU EP does), and float <->
     * float16 (to nearest even, NaN stays NaN, overflow to infinity: ORT's conversion). Float to integer is only
     * exact within the integer's range; casting NaN or out-of-range values is undefined in C and differs between
     * implementations, so those models stay on the CPU EP: this EP claims Cast only where float is on the wider
     * side, both sides are integers, or both are floats. */
    bool f = from == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, i32 = from == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32,
         i64 = from == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64, h = from == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16;
    bool tf = to == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, ti32 = to == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32,
         ti64 = to == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64, th = to == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16;
    bool ok = ((f || h) && (tf || th)) || ((i32 || i64) && tf) || ((i32 || i64) && (ti32 || ti64));
    if (!ok) return ortvk_krefuse(why, why_len, "Cast %d to %lld", (int)from, (long long)to);
    if (node->out[0].type != (ONNXTensorElementDataType)to) return ortvk_krefuse(why, why_len, "output type");
    return true;
}

static OrtStatus *cast_shape(const ortvk_kparams *params, ortvk_krun *run)
{
    const ortvk_ktensor *x = &run->in[0];
    ortvk_ktensor *y = &run->out[0];
    y->type = params->cast.to;
    y->rank = x->rank;
    memcpy(y->dims, x->dims, sizeof(x->dims));
    return NULL;
}

typedef struct push_cast {
    uint64_t x, y;
    uint32_t n, mode;
} push_cast;

static OrtStatus *cast_record(const ortvk_kparams *params, ortvk_krun *run)
{
    const ortvk_ktensor *x = &run->in[0], *y = &run->out[0];
    ONNXTensorElementDataType from = x->type, to = params->cast.to;
    if (from == to) return ortvk_krun_copy(run, y->address, x->address, x->count * ortvk_element_size(from));
    uint32_t mode;
    if (from == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32 && to == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT) mode = 1;
    else if (from == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64 && to == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT) mode = 3;
    else if (from == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32) mode = 4;
    else if (from == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64) mode = 5;
    else if (from == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT) mode = 6; /* to float16: the run uses the float16 variant */
    else mode = 7;                                                 /* float16 to float */
    push_cast push = {.x = x->address, .y = y->address, .n = (uint32_t)x->count, .mode = mode};
    return ortvk_krun_dispatch(run, ORTVK_SHADER_CAST, &push, sizeof(push), x->count);
}

const ortvk_kop ortvk_kops_elementwise[] = {
    UNARY("Relu", 6, 14, ""),
    UNARY("LeakyRelu", 6, 16, "alpha"),
    UNARY("Sigmoid", 6, 13, ""),
    UNARY("HardSigmoid", 6, 22, "alpha beta"),
    UNARY("HardSwish", 14, 22, ""),
    UNARY("Tanh", 6, 13, ""),
    UNARY("Exp", 6, 13, ""),
    UNARY("Log", 6, 13, ""),
    UNARY("Abs", 6, 13, ""),
    UNARY("Neg", 6, 13, ""),
    UNARY("Sqrt", 6, 13, ""),
    UNARY("Erf", 9, 13, ""),
    UNARY("Clip", 6, 13, "min max"),
    UNARY("Reciprocal", 6, 13, ""),
    UNARY("Floor", 6, 13, ""),
    UNARY("Ceil", 6, 13, ""),
    UNARY("Elu", 6, 22, "alpha"),
    UNARY("Softplus", 1, 22, ""),
    UNARY("Selu", 6, 22, "alpha gamma"),
    UNARY("Sign", 9, 13, ""),
    UNARY("Round", 11, 22, ""),
    UNARY("Softsign", 1, 22, ""),
    UNARY("ThresholdedRelu", 10, 22, "alpha"),
    UNARY("Celu", 12, 22, "alpha"),
    UNARY("Shrink", 9, 22, "bias lambd"),
    UNARY("Sin", 7, 22, ""),
    UNARY("Cos", 7, 22, ""),
    UNARY("Tan", 7, 22, ""),
    UNARY("Asin", 7, 22, ""),
    UNARY("Acos", 7, 22, ""),
    UNARY("Atan", 7, 22, ""),
    UNARY("Sinh", 9, 22, ""),
    UNARY("Cosh", 9, 22, ""),
    UNARY("Asinh", 9, 22, ""),
    UNARY("Acosh", 9, 22, ""),
    UNARY("Atanh", 9, 22, ""),
    UNARY("Identity", 1, 21, ""),
    {"Dropout", 7, 22, "ratio seed", 0x6, dropout_prepare, ortvk_kshape_same, unary_record},
    BINARY("Add", 7, 14),
    BINARY("Sub", 7, 14),
    BINARY("Mul", 7, 14),
    BINARY("Div", 7, 14),
    BINARY("Pow", 7, 15),
    BINARY("PRelu", 7, 16),
    BINARY("Max", 8, 13),
    BINARY("Min", 8, 13),
    BINARY("Sum", 8, 13),
    BINARY("Mean", 8, 13),
#define COMPARE(name, lo, hi) {name, lo, hi, "", 0, compare_prepare, compare_shape, compare_record}
    COMPARE("Equal", 11, 18),
    COMPARE("Greater", 9, 13),
    COMPARE("Less", 9, 13),
    COMPARE("GreaterOrEqual", 12, 16),
    COMPARE("LessOrEqual", 12, 16),
    COMPARE("And", 7, 7),
    COMPARE("Or", 7, 7),
    COMPARE("Xor", 7, 7),
    COMPARE("Not", 1, 1),
#undef COMPARE
    {"Where", 9, 16, "", 0, where_prepare, where_shape, where_record},
    {"Cast", 6, 21, "saturate to", 0, cast_prepare, cast_shape, cast_record},
    {NULL, 0, 0, NULL, 0, NULL, NULL, NULL},
};
