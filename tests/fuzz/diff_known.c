/* The known-open findings of the differential fuzzer (tests/fuzz/diff_known.h): one entry per finding that is open
 * (an entry goes when its fix lands; docs/reliability.md, section 6, keeps the history). Each predicate is as narrow
 * as the finding allows; the summary of every session prints the entries and how many cases each excluded, and
 * `fuzz_diff --all` runs them. */
#include "diff_known.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "kernel_check.h"

/* Whether some float value the node reads (graph inputs and recorded float constants) satisfies `f`. */
static bool any_value(const dcase *c, bool (*f)(float))
{
    for (int i = 0; i < c->n_in; i++) {
        const dc_tensor *t = &c->in[i];
        if (t->type != ONNX_FLOAT && t->type != ONNX_FLOAT16) continue;
        size_t n = t->bytes / onnx_elem_size(t->type);
        for (size_t k = 0; k < n; k++) {
            float v = t->type == ONNX_FLOAT ? ((const float *)t->data)[k]
                                            : kc_half_to_float(((const uint16_t *)t->data)[k]);
            if (f(v)) return true;
        }
    }
    for (int i = 0; i < c->n_attr; i++) {
        const dc_attr *a = &c->attr[i];
        for (int k = 0; a->kind == 'f' && k < (a->n < 0 ? 1 : a->n) && k < 8; k++)
            if (f(a->f[k])) return true;
    }
    return false;
}

static bool is_nan(float v) { return isnan(v); }
static bool is_subnormal(float v) { return v != 0 && fabsf(v) < FLT_MIN; }
static bool is_huge(float v) { return !isnan(v) && fabsf(v) >= 1e19f; }
static bool is_special(float v) { return !isfinite(v) || is_subnormal(v) || (v == 0 && signbit(v)) || is_huge(v); }

static bool nan_input(const dcase *c) { return any_value(c, is_nan); }
static bool special_input(const dcase *c) { return any_value(c, is_special); }
static bool huge_input(const dcase *c) { return any_value(c, is_huge); }
static bool is_nonfinite_or_huge(float v) { return !isfinite(v) || is_huge(v); }
static bool nonfinite_or_huge_input(const dcase *c) { return any_value(c, is_nonfinite_or_huge); }
/* float16 with a NaN, infinite, subnormal or 1e19+ float attribute: ortvk refuses the node */
static bool half_special_attribute(const dcase *c)
{
    for (int i = 0; c->half && i < c->n_attr; i++) {
        const dc_attr *a = &c->attr[i];
        if (a->kind == 'f' && a->src == 'a' && a->n < 0 && is_special(a->f[0])) return true;
    }
    return false;
}
/* float16, opset 18 or later, where ortvk refuses the node — keepdims or noop_with_empty_axes other than 0 and 1,
 * or more than one axis of an input whose rank ORT does not know — and ORT runs the op's ONNX function body instead
 * (ReduceSum then Log, ...), which ortvk may claim step by step. */
static bool half_reduce_body(const dcase *c)
{
    if (!c->half || c->opset < 18) return false;
    static const char *const flags[] = {"keepdims", "noop_with_empty_axes"};
    for (int i = 0; i < 2; i++) {
        const dc_attr *a = dc_get(c, flags[i]);
        if (a != NULL && a->kind == 'i' && a->v[0] != 0 && a->v[0] != 1) return true;
    }
    const dc_attr *axes = dc_get(c, "axes");
    return c->shapes == 2 && axes != NULL && axes->n > 1;
}
static bool constant_or_special_input(const dcase *c) { return c->values == DC_VALUES_ONE_SPECIAL || special_input(c); }
/* a value of magnitude 1e38 or more (FLT_MAX, infinities) */
/* The case's values are of a special kind: its constants (weights) hold them too, which any_value does not see. */
static bool special_kind(const dcase *c)
{
    return c->values == DC_VALUES_SPECIAL || c->values == DC_VALUES_ONE_SPECIAL;
}
static bool is_near_float_max(float v) { return !isnan(v) && fabsf(v) >= 1e38f; }
static bool near_float_max_input(const dcase *c) { return any_value(c, is_near_float_max); }

static bool ill_conditioned(const dcase *c) { return c->ill_conditioned; }

/* Keep the reasons to one line each: the summary prints them. */
const dc_known dc_known_findings[] = {
    /* special values */
    {"Selu", half_special_attribute, "float16 with an extreme alpha or gamma (refused by ortvk)",
     "reference: ORT inlines Selu's float16 function body (gamma FLT_MAX -> inf: inf * 0 = NaN); the float model -0"},
    {"HardSigmoid", half_special_attribute, "float16 with an extreme alpha or beta (refused by ortvk)",
     "reference: ORT inlines HardSigmoid's float16 function body (beta -FLT_MAX -> -inf: inf - inf = NaN); the float "
     "model 1 (seed 120 case 333)"},
    {"ReduceLogSum", half_reduce_body, "float16, opset 18, refused by ortvk (flags not 0 or 1, axes of an unknown rank)",
     "reference: ortvk refuses the node, ORT runs its function body (ReduceSum, Log), each step rounded to float16; "
     "the reference is the float model, rounded once (seed 78 case 1693: 0.6 %; seed 120 case 13623: 0.4 %)"},
    {"ReduceMax", nan_input, "a NaN input",
     "chosen: ortvk propagates NaN (numpy); the CPU EP's Eigen reduction keeps or drops it by SIMD lane and alignment"},
    {"ReduceMin", nan_input, "a NaN input",
     "chosen: ortvk propagates NaN (numpy); the CPU EP's Eigen reduction keeps or drops it by SIMD lane and alignment"},
    {"InstanceNormalization", constant_or_special_input, "constant inputs (variance 0) or special values",
     "wrong: the CPU EP's mean is an Eigen SIMD sum: a constant row's x - mean (and overflow) differ"},
    {"LayerNormalization", near_float_max_input, "values of magnitude 1e38 or more (FLT_MAX, infinities)",
     "wrong: NaN vs 0 * scale + bias: the running mean overflows on +-FLT_MAX where the CPU EP's does not"},
    {"Conv", nonfinite_or_huge_input, "an infinite, NaN or 1e19+ input",
     "wrong: NaN vs +-inf: sums overflow in another order; packed weights times padding (0 * inf) vs taps skipped"},
    {"ConvTranspose", nonfinite_or_huge_input, "an infinite, NaN or 1e19+ input",
     "wrong: NaN where the CPU EP gives +-inf (sums of infinite/huge terms in another order; not analysed)"},
    {"MatMul", nonfinite_or_huge_input, "an infinite, NaN or 1e19+ input",
     "wrong: no fused multiply-add on lavapipe: a product past FLT_MAX is inf (inf - inf = NaN), MLAS's FMA is not"},
    {"Gemm", nonfinite_or_huge_input, "an infinite, NaN or 1e19+ input",
     "wrong: no fused multiply-add on lavapipe: a product past FLT_MAX is inf (inf - inf = NaN), MLAS's FMA is not"},
    {"Reduce*", huge_input, "values of 1e19 or more",
     "wrong: sums of +-1e20 and FLT_MAX terms overflow or cancel in another order (beyond any tolerance)"},
    {"LSTM", special_kind, "special values (NaN, infinities, FLT_MAX) in inputs or weights",
     "wrong: NaN or a saturated gate where the CPU EP gives another (X W^T of infinite terms, as MatMul; MLAS's "
     "logistic and tanh of NaN and infinities; not analysed further)"},
    {"GRU", special_kind, "special values (NaN, infinities, FLT_MAX) in inputs or weights",
     "wrong: as LSTM's"},
    {"RNN", special_kind, "special values (NaN, infinities, FLT_MAX) in inputs or weights",
     "wrong: as LSTM's"},
    {"DynamicQuantizeLinear", nan_input, "a NaN input",
     "chosen: ortvk's min and max skip NaN; MLAS's keep or drop it by SIMD lane and thread block"},
    {"Fusion", ill_conditioned, "a scalar divided by a head's sum or a Sigmoid/Tanh (k / t)",
     "ill-conditioned: near t = 0 or k / t = FLT_MAX, last-bit differences (sums in another order, MLAS's Sigmoid 0 "
     "below -17) become +-inf or NaN on one side (seed 23 cases 6489, 10559)"},
    {NULL, NULL, NULL, NULL},
};
const size_t dc_known_count = sizeof(dc_known_findings) / sizeof(dc_known_findings[0]) - 1;

int dc_known_match(const dcase *c)
{
    for (size_t i = 0; i < dc_known_count; i++) {
        const char *op = dc_known_findings[i].op;
        size_t n = strlen(op);
        bool named = op[n - 1] == '*' ? strncmp(op, c->op_name, n - 1) == 0 : strcmp(op, c->op_name) == 0;
        if (named && dc_known_findings[i].match(c)) return (int)i;
    }
    return -1;
}
