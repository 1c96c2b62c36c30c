/* Element-wise chains: which nodes can be a step (Add/Sub/Mul/Div with a constant scalar or with the chain's input,
 * Clip with constant bounds, Relu, Sigmoid, HardSigmoid, HardSwish, LeakyRelu, Tanh), and the fused op that runs a
 * chain in one dispatch (shaders/kernel_chain.comp). The partition compiler (kernel_fuse.c) finds the chains; each
 * step computes what its node's own kernel computes. */
#include <string.h>

#include "kernels/kernel_internal.h"

/* The step of a binary node whose input `scalar` is a constant of one float element, applied to input `data`. */
static bool scalar_step(const ortvk_knode *node, ortvk_binary_fn fn, size_t scalar, ortvk_chain_step *step, int *input)
{
    size_t data = 1 - scalar, count = 0;
    float value = 0.0f;
    /* The output keeps the data input's shape only when the constant's rank does not exceed its rank. */
    if (node->in[data].constant != NULL || node->in[data].rank < 0 || node->in[scalar].rank > node->in[data].rank ||
        node->in[scalar].type != ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT ||
        !ortvk_knode_const_floats(node, scalar, &value, 1, &count) || count != 1)
        return false;
    bool first = scalar == 0; /* the constant is the left operand */
    switch (fn) {
    case ORTVK_BINARY_ADD: step->kind = ORTVK_CHAIN_ADD; break;
    case ORTVK_BINARY_MUL: step->kind = ORTVK_CHAIN_MUL; break;
    case ORTVK_BINARY_SUB: step->kind = first ? ORTVK_CHAIN_RSUB : ORTVK_CHAIN_SUB; break;
    case ORTVK_BINARY_DIV: step->kind = first ? ORTVK_CHAIN_RDIV : ORTVK_CHAIN_DIV; break;
    default: return false;
    }
    step->a = value;
    *input = (int)data;
    return true;
}

/* Activations that are a step of their own, computed by the same shader function as their unary op's. */
static const struct {
    const char *op_type;
    ortvk_chain_kind kind;
} activations[] = {
    {"Sigmoid", ORTVK_CHAIN_SIGMOID},       {"HardSigmoid", ORTVK_CHAIN_HARD_SIGMOID},
    {"HardSwish", ORTVK_CHAIN_HARD_SWISH},  {"LeakyRelu", ORTVK_CHAIN_LEAKY_RELU},
    {"Tanh", ORTVK_CHAIN_TANH},
};

/* Six kinds of 5 bits in each of the two specialization words (common.glsl's ortvk_chain4 unpacks them). */
#define CHAIN_PER_WORD 6
_Static_assert(ORTVK_CHAIN_KIND_BITS * CHAIN_PER_WORD < 32 && 2 * CHAIN_PER_WORD >= ORTVK_KMAX_CHAIN,
               "a chain's kinds fit the two specialization words, the second's top bit left to ORTVK_CHAIN_RESIDUAL");
_Static_assert(ORTVK_CHAIN_TANH < (1u << ORTVK_CHAIN_KIND_BITS), "every chain kind fits its bits");

bool ortvk_kchain_step(const ortvk_knode *node, const ortvk_kop *op, const ortvk_kparams *params,
                       ortvk_chain_step *step, int *input)
{
    *step = (ortvk_chain_step){0};
    *input = -1;
    if (node->n_out != 1 || node->out[0].type != ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT) return false;
    const char *type = op->op_type;
    for (size_t i = 0; i < sizeof(activations) / sizeof(activations[0]); i++) {
        if (strcmp(type, activations[i].op_type) != 0) continue;
        if (node->n_in != 1 || node->in[0].type != ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT) return false;
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
        return node->in[0].type == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;
    }
    bool add = strcmp(type, "Add") == 0, mul = strcmp(type, "Mul") == 0;
    if (!add && !mul && strcmp(type, "Sub") != 0 && strcmp(type, "Div") != 0) return false;
    if (node->n_in != 2 || params->binary.variadic) return false;
    if (node->in[1].constant != NULL) return scalar_step(node, params->binary.fn, 1, step, input);
    if (node->in[0].constant != NULL) return scalar_step(node, params->binary.fn, 0, step, input);
    /* Two tensors: a step only as t + x or t * x (exact either way round), where the fusion finds x. */
    if (!add && !mul) return false;
    step->kind = add ? ORTVK_CHAIN_ADD_X : ORTVK_CHAIN_MUL_X;
    return node->in[0].type == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT &&
           node->in[1].type == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;
}

bool ortvk_kchain_residual_shapes(const ortvk_knode *node)
{
    if (node->n_in != 2 || node->in[0].rank < 0 || node->in[0].rank != node->in[1].rank) return false;
    for (int d = 0; d < node->in[0].rank; d++) {
        if (node->in[0].dims[d] < 0 || node->in[0].dims[d] != node->in[1].dims[d]) return false;
    }
    return true;
}

OrtStatus *ortvk_kchain_residual(const ortvk_kparams_chain *chain, const ortvk_krun *run, VkDeviceAddress *out)
{
    *out = 0;
    if (chain->residual <= 0) return NULL;
    const ortvk_ktensor *r = &run->in[chain->residual], *y = &run->out[0];
    bool same = r->present && r->type == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT && r->rank == y->rank;
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
    out->words[2] = (uint32_t)chain->count;
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
    uint64_t constants; /* the steps' operands (ortvk_kchain_constants) */
    uint64_t r;         /* the residual (ORTVK_CHAIN_ADD_R, MUL_R), or 0 */
} push_chain;

static OrtStatus *chain_record(const ortvk_kparams *params, ortvk_krun *run)
{
    push_chain push = {.x = run->in[0].address, .y = run->out[0].address, .n = (uint32_t)run->out[0].count,
                       .constants = run->chain};
    ORTVK_TRY(ortvk_kchain_residual(&params->chain, run, &push.r));
    ortvk_kspec spec;
    ortvk_kchain_spec(&params->chain, &spec);
    /* Vectorised: 16 elements an invocation, as vec4. */
    if (push.n % 4 == 0 && push.x % 16 == 0 && push.y % 16 == 0 && push.r % 16 == 0)
        return ortvk_krun_dispatch_spec(run, ORTVK_SHADER_CHAIN, 1, &spec, &push, sizeof(push), (push.n + 15) / 16);
    return ortvk_krun_dispatch_spec(run, ORTVK_SHADER_CHAIN, 0, &spec, &push, sizeof(push), push.n);
}

const ortvk_kop ortvk_kop_chain = {"Chain", 0, 0, "", 0, NULL, ortvk_kshape_same, chain_record};
