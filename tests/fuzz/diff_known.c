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
static bool is_finite_huge(float v) { return isfinite(v) && fabsf(v) >= 1e19f; }
/* A finite value of magnitude 1e19 or more in an input, an attribute or a float initializer (weights). */
static bool finite_huge_value(const dcase *c) { return c->const_huge || any_value(c, is_finite_huge); }
static bool gpu_forms_finite_huge(const dcase *c) { return c->gpu_forms && finite_huge_value(c); }
/* A float32 subnormal and a value of magnitude 1e19 or more (infinities included) read by an op that multiplies
 * matrices, on a device that may flush subnormals: ortvk's exact forms leave the products to the device, which reads
 * a subnormal factor as zero (float16 values read as floats are never subnormal ones). Below 1e19 the difference,
 * at most |a| FLT_MIN a product, is far inside the tolerance. */
static bool flushed_subnormal_product(const dcase *c)
{
    static const char *const products[] = {"MatMul", "Gemm", "Conv", "ConvTranspose", "LSTM", "GRU", "RNN", "MLP"};
    bool product = false;
    for (size_t i = 0; i < sizeof(products) / sizeof(products[0]); i++)
        product = product || strcmp(c->op_name, products[i]) == 0;
    return product && c->flushes_subnormals && (c->const_subnormal || any_value(c, is_subnormal)) &&
           (c->const_huge || any_value(c, is_huge));
}
static bool is_nonzero_normal(float v) { return v != 0 && !is_subnormal(v); }
/* Every float32 value subnormal or zero (one subnormal at least), on a device that may flush subnormals: a range
 * below FLT_MIN (DynamicQuantizeLinear's scale is computed in the shader, where it is flushed). */
static bool flushed_subnormal_range(const dcase *c)
{
    return c->flushes_subnormals && any_value(c, is_subnormal) && !any_value(c, is_nonzero_normal);
}
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
 * (ReduceSum then Log, ReduceSumSquare then Sqrt, ...), which ortvk may claim step by step. */
static bool half_reduce_body(const dcase *c)
{
    static const char *const bodied[] = {"ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"};
    bool body = false;
    for (size_t i = 0; i < sizeof(bodied) / sizeof(bodied[0]); i++) body = body || strcmp(c->op_name, bodied[i]) == 0;
    if (!body || !c->half || c->opset < 18) return false;
    static const char *const flags[] = {"keepdims", "noop_with_empty_axes"};
    for (int i = 0; i < 2; i++) {
        const dc_attr *a = dc_get(c, flags[i]);
        if (a != NULL && a->kind == 'i' && a->v[0] != 0 && a->v[0] != 1) return true;
    }
    /* Axes given at run time (ortvk refuses; seed 153 case 109211: 100,003 squares overflow float16's sum). */
    for (int i = 0; i < c->n_in; i++)
        if (strcmp(c->in[i].name, "axes") == 0) return true;
    const dc_attr *axes = dc_get(c, "axes");
    if (axes == NULL || axes->n <= 1) return false;
    if (c->shapes == 2) return true;
    /* Axes that are not contiguous once size-1 dims are set aside (ortvk's own refusal; seed 152 case 20223). */
    const dc_tensor *x = &c->in[0];
    bool reduced[16] = {false};
    for (int i = 0; i < axes->n && i < 8; i++) {
        int64_t a = axes->v[i] < 0 ? axes->v[i] + x->rank : axes->v[i];
        if (a >= 0 && a < x->rank && a < 16) reduced[a] = true;
    }
    int first = -1, last = -1;
    for (int d = 0; d < x->rank && d < 16; d++) {
        if (!reduced[d] || x->dims[d] == 1) continue;
        if (first < 0) first = d;
        last = d;
    }
    for (int d = first + 1; first >= 0 && d < last; d++)
        if (!reduced[d] && x->dims[d] != 1) return true;
    return false;
}
static bool constant_or_special_input(const dcase *c) { return c->values == DC_VALUES_ONE_SPECIAL || special_input(c); }
/* a value of magnitude 1e38 or more (FLT_MAX, infinities) */
static bool is_near_float_max(float v) { return !isnan(v) && fabsf(v) >= 1e38f; }
static bool near_float_max_input(const dcase *c) { return any_value(c, is_near_float_max); }
/* a value of magnitude 1e19 or more (squares past FLT_MAX), or rows of one value (ONE_SPECIAL: variance 0) */
static bool huge_or_constant_input(const dcase *c)
{
    return c->values == DC_VALUES_ONE_SPECIAL || any_value(c, is_huge);
}

static bool ill_conditioned(const dcase *c) { return c->ill_conditioned; }

/* Keep the reasons to one line each: the summary prints them. */
const dc_known dc_known_findings[] = {
    /* special values */
    {"*", flushed_subnormal_product, "a matrix product of a float32 subnormal and a value of 1e19 or more, on a "
     "device that flushes subnormals",
     "device: NVIDIA's Vulkan driver flushes float32 subnormals (no DenormPreserve for 32 bits); ortvk takes them "
     "exactly but in matrix products: inf * 1e-40 is NaN there (H200; lavapipe flushing, seed 258 case 2302)"},
    {"DynamicQuantizeLinear", flushed_subnormal_range, "values all subnormal or zero, on a device that flushes "
     "subnormals", "device: the scale (max - min) / 255 is below FLT_MIN and flushed in the shader: y then quantizes "
     "by a scale of 1 (lavapipe flushing, seed 259 case 3879)"},
    {"Selu", half_special_attribute, "float16 with an extreme alpha or gamma (refused by ortvk)",
     "reference: ORT inlines Selu's float16 function body (gamma FLT_MAX -> inf: inf * 0 = NaN); the float model -0"},
    {"HardSigmoid", half_special_attribute, "float16 with an extreme alpha or beta (refused by ortvk)",
     "reference: ORT inlines HardSigmoid's float16 function body (beta -FLT_MAX -> -inf: inf - inf = NaN); the float "
     "model 1 (seed 120 case 333)"},
    {"LeakyRelu", half_special_attribute, "float16 with an extreme alpha (refused by ortvk)",
     "reference: ORT inlines LeakyRelu-16's float16 function body (a subnormal alpha is -0 as a float16 constant: "
     "-inf * -0 = NaN); the float model inf (seed 191 case 2531)"},
    {"Reduce*", half_reduce_body,
     "float16, opset 18, an op with a function body, refused by ortvk (flags not 0 or 1, axes at run time, of an "
     "unknown rank or not contiguous)",
     "reference: ortvk refuses the node, ORT runs its function body (ReduceSum, Log), each step rounded to float16; "
     "the reference is the float model, rounded once (ReduceLogSum seed 78 case 1693: 0.6 %, seed 120 case 13623: "
     "0.4 %; ReduceL2 seed 300 case 3611: 65,535 squares overflow float16's sum)"},
    {"ReduceMax", nan_input, "a NaN input",
     "chosen: ortvk propagates NaN (numpy); the CPU EP's Eigen reduction keeps or drops it by SIMD lane and alignment"},
    {"ReduceMin", nan_input, "a NaN input",
     "chosen: ortvk propagates NaN (numpy); the CPU EP's Eigen reduction keeps or drops it by SIMD lane and alignment"},
    {"ReduceLogSumExp", nan_input, "a NaN input",
     "chosen: ortvk propagates NaN (numpy); over all axes the CPU EP returns its Eigen maximum where that is +-inf, "
     "which keeps or drops a NaN by SIMD lane (seed 300 case 32874: inf)"},
    {"InstanceNormalization", constant_or_special_input, "constant inputs (variance 0) or special values",
     "wrong: the CPU EP's mean is an Eigen SIMD sum, its order set by the input's address (the first 16-byte "
     "boundary): a constant row's x - mean (and overflow) differ"},
    {"LayerNormalization", near_float_max_input, "values of magnitude 1e38 or more (FLT_MAX, infinities)",
     "wrong: NaN vs 0 * scale + bias: the running mean overflows on +-FLT_MAX where the CPU EP's does not"},
    {"LayerNormWritten", huge_or_constant_input, "values of magnitude 1e19 or more, or rows of one value",
     "reference: the CPU EP fuses the nodes into a running mean, which ONNX's form does not compute (squares of x - "
     "mean past FLT_MAX: y the bias; a constant row's x - mean is the sum's rounding over sqrt(epsilon)); ortvk "
     "computes ONNX's form where it does not fuse (a scale that is an input) and overflows on +-FLT_MAX where it "
     "does (as LayerNormalization) (seed 214 cases 29414, 36185; seed 215 case 1886)"},
    {"Conv", finite_huge_value, "a finite value of 1e19 or more (inputs or weights)",
     "wrong: partial sums of huge finite terms overflow to +-inf (then inf - inf = NaN) in another order than MLAS's; "
     "weights holding NaN or infinity are refused (padded taps)"},
    {"ConvTranspose", finite_huge_value, "a finite value of 1e19 or more (inputs or weights)",
     "wrong: partial sums of huge finite terms overflow in another order than MLAS's GEMM and col2im"},
    {"MatMul", finite_huge_value, "a finite value of 1e19 or more (inputs or weights)",
     "wrong: no fused multiply-add on lavapipe: a product past FLT_MAX is inf (inf - inf = NaN), MLAS's FMA is not"},
    {"Gemm", finite_huge_value, "a finite value of 1e19 or more (inputs or weights)",
     "wrong: no fused multiply-add on lavapipe: a product past FLT_MAX is inf (inf - inf = NaN), MLAS's FMA is not"},
    {"Reduce*", finite_huge_value, "a finite value of 1e19 or more",
     "wrong: sums of +-1e20 and FLT_MAX terms overflow or cancel in another order (beyond any tolerance)"},
    {"GlobalAveragePool", gpu_forms_finite_huge, "a finite value of 1e19 or more, the kernels in their GPU forms",
     "wrong: as Reduce*'s: the GPU form sums a plane in its own order, not MLAS's (the CPU form follows MLAS to the "
     "bit; seed 152, a build with the GPU form for planes of any size: 8 of 1,000 cases)"},
    {"LSTM", finite_huge_value, "a finite value of 1e19 or more (inputs or weights)",
     "wrong: X W^T and H R^T of huge finite terms, as MatMul's; then a saturated gate or NaN"},
    {"GRU", finite_huge_value, "a finite value of 1e19 or more (inputs or weights)", "wrong: as LSTM's"},
    {"RNN", finite_huge_value, "a finite value of 1e19 or more (inputs or weights)", "wrong: as LSTM's"},
    {"DynamicQuantizeLinear", nan_input, "a NaN input",
     "chosen: ortvk's min and max skip NaN; MLAS's keep or drop it by SIMD lane and thread block"},
    {"Fusion", ill_conditioned,
     "a scalar divided by a head's sum or a Sigmoid/Tanh (k / t), or such a t / 0, t * inf, t * FLT_MAX (a scalar or "
     "an operand holding one) or t * x * x",
     "ill-conditioned: near t = 0 or k / t = FLT_MAX, last-bit differences (sums in another order, MLAS's Sigmoid 0 "
     "below -17) become +-inf or NaN on one side (seed 23 cases 6489, 10559; 0 / 0 and 0 * inf = NaN on one side: "
     "seed 145 case 43119; Tanh * FLT_MAX: seed 219 case 15649, seed 264 case 200464; Sigmoid * x^3: seed 220 case "
     "121321)"},
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
