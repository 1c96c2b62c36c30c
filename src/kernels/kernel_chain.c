/* Element-wise chains: which nodes can be a step (Add/Sub/Mul/Div with a constant scalar, Add/Mul with the chain's
 * input or another tensor, Clip with constant bounds, Relu, Sigmoid, HardSigmoid, HardSwish, LeakyRelu, Tanh, Sqrt,
 * Pow with a constant exponent of 2; in a
 * ConvTranspose's epilogue also Add/Mul with a constant per channel and BatchNormalization of constants), and
 * the fused op that runs a chain in one dispatch, its operands broadcast (shaders/kernel_chain.comp). The partition
 * compiler (kernel_fuse.c) finds the chains; each step computes what its node's own kernel computes. */
#include <string.h>

#include "kernels/kernel_internal.h"

/* A step's tensors are float, or float16 (a node never mixes the two: kernels.c): its shader's float16 variant
 * rounds each step's result as the step's own node stores it (shaders/common.glsl, ortvk_chain4rq). */
static bool step_type(ONNXTensorElementDataType type)
{
    return type == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT || type == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16;
}

/* The step of a binary node whose input `scalar` is a constant of one float element, applied to input `data`. Pow
 * takes one only as its exponent, and only 2: t * t, which Pow's own kernel computes for it (ortvk_pow), as the CPU
 * EP does. */
static bool scalar_step(const ortvk_knode *node, ortvk_binary_fn fn, size_t scalar, ortvk_chain_step *step, int *input)
{
    size_t data = 1 - scalar, count = 0;
    float value = 0.0f;
    /* The output keeps the data input's shape only when the constant's rank does not exceed its rank: always for a
     * constant of rank 0, whether the data's rank is known or not (ORT knows none of a recognizer's at Compile). */
    const ortvk_kvalue *k = &node->in[scalar], *x = &node->in[data];
    if (x->constant != NULL || (k->rank != 0 && (x->rank < 0 || k->rank > x->rank)) || !step_type(k->type) ||
        !ortvk_knode_const_floats(node, scalar, &value, 1, &count) || count != 1)
        return false;
    bool first = scalar == 0; /* the constant is the left operand */
    switch (fn) {
    case ORTVK_BINARY_ADD: step->kind = ORTVK_CHAIN_ADD; break;
    case ORTVK_BINARY_MUL: step->kind = ORTVK_CHAIN_MUL; break;
    case ORTVK_BINARY_SUB: step->kind = first ? ORTVK_CHAIN_RSUB : ORTVK_CHAIN_SUB; break;
    case ORTVK_BINARY_DIV: step->kind = first ? ORTVK_CHAIN_RDIV : ORTVK_CHAIN_DIV; break;
    case ORTVK_BINARY_POW:
        if (first || value != 2.0f) return false;
        step->kind = ORTVK_CHAIN_SQUARE;
        break;
    default: return false;
    }
    step->a = value;
    *input = (int)data;
    return true;
}

/* The step of an Add or Mul whose input `constant` is a float or float16 constant of one value per channel (dim 1 of
 * input `data`, of a rank known and not below the constant's, and of its type): ADD_C, MUL_C. The fusion checks its
 * count against the channels of the ConvTranspose it follows (kernel_fuse.c). */
static bool channel_step(const ortvk_knode *node, ortvk_binary_fn fn, size_t constant, ortvk_chain_step *step,
                         int *input)
{
    const ortvk_kvalue *c = &node->in[constant], *x = &node->in[1 - constant];
    if ((fn != ORTVK_BINARY_ADD && fn != ORTVK_BINARY_MUL) || x->constant != NULL || x->rank < 2 || c->rank > x->rank ||
        !step_type(x->type) || c->type != x->type)
        return false;
    for (int d = 0; d < c->rank; d++) {
        if (c->dims[d] != 1 && d + x->rank - c->rank != 1) return false; /* another dim than the channel's */
    }
    step->kind = fn == ORTVK_BINARY_ADD ? ORTVK_CHAIN_ADD_C : ORTVK_CHAIN_MUL_C;
    *input = (int)(1 - constant);
    return true;
}

/* The step of a binary node whose input `constant` is a constant: a scalar's or a per-channel one's. */
static bool constant_step(const ortvk_knode *node, ortvk_binary_fn fn, size_t constant, ortvk_chain_step *step,
                          int *input)
{
    return scalar_step(node, fn, constant, step, input) || channel_step(node, fn, constant, step, input);
}

/* Activations that are a step of their own, computed by the same shader function as their unary op's. */
static const struct {
    const char *op_type;
    ortvk_chain_kind kind;
} activations[] = {
    {"Sigmoid", ORTVK_CHAIN_SIGMOID},       {"HardSigmoid", ORTVK_CHAIN_HARD_SIGMOID},
    {"HardSwish", ORTVK_CHAIN_HARD_SWISH},  {"LeakyRelu", ORTVK_CHAIN_LEAKY_RELU},
    {"Tanh", ORTVK_CHAIN_TANH},             {"Sqrt", ORTVK_CHAIN_SQRT},
};

/* Six kinds of 5 bits in each of the two specialization words (common.glsl's ortvk_chain4 unpacks them). */
#define CHAIN_PER_WORD 6
_Static_assert(ORTVK_CHAIN_KIND_BITS * CHAIN_PER_WORD <= 30 && 2 * CHAIN_PER_WORD >= ORTVK_KMAX_CHAIN,
               "a chain's kinds fit the two specialization words, the second's top bits left to ORTVK_CHAIN_RESIDUAL "
               "and ORTVK_CHAIN_SECOND");
_Static_assert(ORTVK_CHAIN_TANH < (1u << ORTVK_CHAIN_KIND_BITS) && ORTVK_CHAIN_SQRT < (1u << ORTVK_CHAIN_KIND_BITS),
               "every chain kind fits its bits");

bool ortvk_kchain_step(const ortvk_knode *node, const ortvk_kop *op, const ortvk_kparams *params,
                       ortvk_chain_step *step, int *input)
{
    *step = (ortvk_chain_step){0};
    *input = -1;
    if (node->n_out != 1 || !step_type(node->out[0].type)) return false;
    const char *type = op->op_type;
    for (size_t i = 0; i < sizeof(activations) / sizeof(activations[0]); i++) {
        if (strcmp(type, activations[i].op_type) != 0) continue;
        if (node->n_in != 1 || !step_type(node->in[0].type)) return false;
        *step = (ortvk_chain_step){activations[i].kind, params->unary.alpha, params->unary.beta};
        *input = 0;
        return true;
    }
    if (strcmp(type, "Relu") == 0 || strcmp(type, "Clip") == 0) {
        for (size_t i = 1; i < node->n_in; i++) {
            if (node->in[i].present && node->in[i].constant == NULL) return false; /* a bound known at run time */
        }
        step->kind = type[0] == 'R' ? ORTVK_CHAIN_RELU : ORTVK_CHAIN_CLIP;
        step->a = params->unary.alpha;
        step->b = params->unary.beta;
        *input = 0;
        return step_type(node->in[0].type);
    }
    if (strcmp(type, "BatchNormalization") == 0) { /* BN_C: its four per-channel inputs constants (kernel_fuse.c) */
        for (size_t i = 0; i < node->n_in; i++) {
            if (!step_type(node->in[i].type) || node->in[i].type != node->in[0].type ||
                (i > 0) != (node->in[i].constant != NULL))
                return false;
        }
        *step = (ortvk_chain_step){ORTVK_CHAIN_BN_C, params->batchnorm.epsilon, 0.0f};
        *input = 0;
        return node->n_in == 5;
    }
    if (strcmp(type, "Pow") == 0)
        return node->n_in == 2 && node->in[1].constant != NULL && scalar_step(node, params->binary.fn, 1, step, input);
    bool add = strcmp(type, "Add") == 0, mul = strcmp(type, "Mul") == 0;
    if (!add && !mul && strcmp(type, "Sub") != 0 && strcmp(type, "Div") != 0) return false;
    if (node->n_in != 2 || params->binary.variadic) return false;
    if (node->in[1].constant != NULL) return constant_step(node, params->binary.fn, 1, step, input);
    if (node->in[0].constant != NULL) return constant_step(node, params->binary.fn, 0, step, input);
    /* Two tensors: a step only as t + x or t * x (exact either way round), where the fusion finds x. */
    if (!add && !mul) return false;
    step->kind = add ? ORTVK_CHAIN_ADD_X : ORTVK_CHAIN_MUL_X;
    return step_type(node->in[0].type) && step_type(node->in[1].type);
}

bool ortvk_kchain_residual_shapes(const ortvk_knode *node)
{
    if (node->n_in != 2 || node->in[0].rank < 0 || node->in[0].rank != node->in[1].rank) return false;
    for (int d = 0; d < node->in[0].rank; d++) {
        if (node->in[0].dims[d] < 0 || node->in[0].dims[d] != node->in[1].dims[d]) return false;
    }
    return true;
}

bool ortvk_kchain_operand_shapes(const ortvk_knode *node, int *x)
{
    *x = 0;
    if (node->n_in != 2 || node->in[0].rank < 0 || node->in[1].rank < 0) return false;
    /* x is the input that is not known to be broadcast up into the other: the other is then r or q. */
    const ortvk_kvalue *a = &node->in[0], *b = &node->in[1];
    bool smaller = a->rank < b->rank;
    for (int d = 1; d <= a->rank && d <= b->rank && !smaller; d++)
        smaller = a->dims[a->rank - d] == 1 && b->dims[b->rank - d] != 1;
    *x = smaller ? 1 : 0;
    return true;
}

OrtStatus *ortvk_kchain_residual(const ortvk_kparams_chain *chain, const ortvk_krun *run, VkDeviceAddress *out)
{
    *out = 0;
    if (chain->residual <= 0) return NULL;
    const ortvk_ktensor *r = &run->in[chain->residual], *y = &run->out[0];
    bool same = r->present && r->type == y->type && r->rank == y->rank;
    for (size_t d = 0; same && d < y->rank; d++) same = r->dims[d] == y->dims[d];
    if (!same)
        return ortvk_status(ORT_EP_FAIL, "a fused residual of rank %zu and %zu elements does not match the output of "
                            "rank %zu and %zu elements", r->rank, r->count, y->rank, y->count);
    *out = r->address;
    return NULL;
}

void ortvk_kchain_spec(const ortvk_kparams_chain *chain, ortvk_kspec *out)
{
    memset(out, 0, sizeof(*out));
    for (int k = 0; k < chain->count; k++)
        out->words[k / CHAIN_PER_WORD] |= chain->steps[k].kind << (ORTVK_CHAIN_KIND_BITS * (k % CHAIN_PER_WORD));
    if (chain->residual > 0) out->words[1] |= ORTVK_CHAIN_RESIDUAL;
    if (chain->second > 0) out->words[1] |= ORTVK_CHAIN_SECOND;
    out->words[2] = (uint32_t)chain->count;
}

bool ortvk_kchain_kind_is_exp(ortvk_chain_kind kind)
{
    return kind == ORTVK_CHAIN_SIGMOID || kind == ORTVK_CHAIN_TANH;
}

bool ortvk_kchain_kind_is_channel(ortvk_chain_kind kind)
{
    return kind == ORTVK_CHAIN_ADD_C || kind == ORTVK_CHAIN_MUL_C || kind == ORTVK_CHAIN_BN_C;
}

void ortvk_kchain_constants(const ortvk_kparams_chain *chain, float out[ORTVK_KCHAIN_FLOATS])
{
    memset(out, 0, ORTVK_KCHAIN_FLOATS * sizeof(float));
    for (int k = 0; k < chain->count; k++) {
        out[k] = chain->steps[k].a;
        out[ORTVK_KMAX_CHAIN + k] = chain->steps[k].b;
    }
}

typedef struct push_chain {
    uint64_t x, y;
    uint32_t n;
    uint32_t groups;    /* the vectorised broadcast form: workgroups a row of the last dim, or 0 */
    uint64_t constants; /* the steps' operands (ortvk_kchain_constants) */
    uint64_t r;         /* the residual (ORTVK_CHAIN_ADD_R, MUL_R), or 0 */
    uint64_t q;         /* the second operand (ORTVK_CHAIN_ADD_Q, MUL_Q), or 0 */
    uint64_t table;     /* the broadcast form's dims and strides (shaders/kernel_chain.comp) in a buffer, or 0 */
    uint32_t words[1 + 4 * 4]; /* ... or here, where they are 4 dims or fewer */
} push_chain;
_Static_assert(sizeof(push_chain) <= 128, "push_chain fits the 128 bytes of push constants");

/* x, the residual and the second operand: their broadcast is the output's shape (each step's output is the
 * broadcast of its inputs, and broadcasting composes). NULL for those the chain lacks. */
static void chain_operands(const ortvk_kparams_chain *chain, const ortvk_krun *run, const ortvk_ktensor *out[3])
{
    out[0] = &run->in[0];
    out[1] = chain->residual > 0 ? &run->in[chain->residual] : NULL;
    out[2] = chain->second > 0 ? &run->in[chain->second] : NULL;
}

static OrtStatus *chain_shape(const ortvk_kparams *params, ortvk_krun *run)
{
    const ortvk_ktensor *in[3];
    chain_operands(&params->chain, run, in);
    ortvk_ktensor *y = &run->out[0];
    y->type = in[0]->type;
    y->rank = in[0]->rank;
    memcpy(y->dims, in[0]->dims, sizeof(y->dims));
    for (int k = 1; k < 3; k++) {
        if (in[k] == NULL) continue;
        int64_t dims[ORTVK_KMAX_RANK];
        size_t rank = 0;
        if (!in[k]->present || in[k]->type != in[0]->type ||
            !ortvk_kbroadcast(y->dims, y->rank, in[k]->dims, in[k]->rank, dims, &rank))
            return ortvk_status(ORT_INVALID_ARGUMENT, "a fused chain's operand %d of rank %zu does not broadcast with "
                                "its value of rank %zu", k, in[k]->rank, y->rank);
        memcpy(y->dims, dims, sizeof(dims));
        y->rank = rank;
    }
    return NULL;
}

/* The broadcast form's table (shaders/kernel_chain.comp): the output's dims coalesced with x's, r's and q's strides,
 * in push->words where they are 4 dims or fewer (*in_buffer false), else uploaded; *segments whether each operand
 * steps 0 or 1 along the last dim, *vec whether the vectorised form applies too (that last dim a multiple of 16);
 * *len the last dim; *steps bit k where operand k steps 1 along it (the vectorised and segments forms' constant 1,
 * kernel_chain.comp's STEPS). */
static OrtStatus *broadcast_table(ortvk_krun *run, const ortvk_ktensor *in[3], const ortvk_ktensor *y,
                                  push_chain *push, bool *in_buffer, bool *vec, bool *segments, uint64_t *len,
                                  uint32_t *steps)
{
    ortvk_kstrides s = {.rank = (int)y->rank};
    memcpy(s.dims, y->dims, sizeof(y->dims));
    for (int k = 0; k < 3; k++) {
        if (in[k] != NULL) ortvk_kbroadcast_strides(in[k]->dims, in[k]->rank, y->rank, y->dims, s.stride[k]);
    }
    ortvk_kbroadcast_strides(y->dims, y->rank, y->rank, y->dims, s.stride[3]);
    ortvk_kcoalesce(&s, 4);
    if (s.rank > ORTVK_KMAX_SHADER_RANK)
        return ortvk_status(ORT_EP_FAIL, "a fused chain's operands broadcast over %d dims (at most %d)", s.rank,
                            ORTVK_KMAX_SHADER_RANK);
    *in_buffer = s.rank > 4;
    int R = *in_buffer ? ORTVK_KMAX_SHADER_RANK : 4, last = s.rank - 1;
    uint32_t words[1 + 4 * ORTVK_KMAX_SHADER_RANK] = {(uint32_t)s.rank};
    *len = (uint64_t)s.dims[last];
    *vec = s.dims[last] % 16 == 0;
    for (int d = 0; d < s.rank; d++) {
        words[1 + d] = (uint32_t)s.dims[d];
        for (int k = 0; k < 3; k++) words[1 + (k + 1) * R + d] = (uint32_t)s.stride[k][d];
    }
    *steps = 0;
    *segments = true;
    for (int k = 0; k < 3; k++) {
        *segments = *segments && s.stride[k][last] <= 1;
        if (in[k] != NULL && s.stride[k][last] == 1) *steps |= 1u << k;
    }
    *vec = *vec && *segments;
    if (*in_buffer) return ortvk_krun_upload(run, words, sizeof(words), &push->table);
    memcpy(push->words, words, sizeof(push->words));
    return NULL;
}

static OrtStatus *chain_record(const ortvk_kparams *params, ortvk_krun *run)
{
    const ortvk_ktensor *in[3], *y = &run->out[0];
    chain_operands(&params->chain, run, in);
    push_chain push = {.x = in[0]->address, .y = y->address, .n = (uint32_t)y->count, .constants = run->chain,
                       .r = in[1] != NULL ? in[1]->address : 0, .q = in[2] != NULL ? in[2]->address : 0};
    ortvk_kspec spec;
    ortvk_kchain_spec(&params->chain, &spec);
    bool same = true, aligned = push.x % 16 == 0 && push.y % 16 == 0 && push.r % 16 == 0 && push.q % 16 == 0;
    for (int k = 0; k < 3; k++) {
        if (in[k] == NULL) continue;
        same = same && in[k]->rank == y->rank && memcmp(in[k]->dims, y->dims, y->rank * sizeof(int64_t)) == 0;
    }
    if (!same) { /* operands read at each element's broadcast index */
        bool vec = false, segments = false, in_buffer = false;
        uint64_t len = 0, invocations = push.n / 16;
        uint32_t steps = 0;
        ORTVK_TRY(broadcast_table(run, in, y, &push, &in_buffer, &vec, &segments, &len, &steps));
        uint32_t mode = 2 + (in_buffer ? 4 : 0);
        /* Rows of the last dim of 1,024 elements or more: whole workgroups of 64 invocations a row. */
        if (len >= 1024) push.groups = (uint32_t)((len / 16 + 63) / 64);
        if (push.groups != 0) invocations = push.n / len * push.groups * 64;
        if (vec && aligned)
            return ortvk_krun_dispatch_spec(run, ORTVK_SHADER_CHAIN, mode + 1 + ORTVK_KVARIANT * steps, &spec, &push,
                                            sizeof(push), invocations);
        /* Rows that are not whole blocks of 16 (the detector's 34 x 60 and 17 x 30 maps at 960x544) or offsets not
         * 16-byte aligned, every operand stepping 0 or 1 along them: 16 elements of a row an invocation, element by
         * element (constant 0's bit 3), rather than each element's indices divided out of the table. */
        if (segments) {
            push.groups = 0;
            return ortvk_krun_dispatch_spec(run, ORTVK_SHADER_CHAIN, mode + 8 + ORTVK_KVARIANT * steps, &spec, &push,
                                            sizeof(push), push.n / len * ((len + 15) / 16));
        }
        return ortvk_krun_dispatch_spec(run, ORTVK_SHADER_CHAIN, mode, &spec, &push, sizeof(push), push.n);
    }
    /* Vectorised: 16 elements an invocation, as vec4. */
    if (push.n % 4 == 0 && aligned)
        return ortvk_krun_dispatch_spec(run, ORTVK_SHADER_CHAIN, 1, &spec, &push, sizeof(push), (push.n + 15) / 16);
    return ortvk_krun_dispatch_spec(run, ORTVK_SHADER_CHAIN, 0, &spec, &push, sizeof(push), push.n);
}

const ortvk_kop ortvk_kop_chain = {"Chain", 0, 0, "", 0, NULL, chain_shape, chain_record};
