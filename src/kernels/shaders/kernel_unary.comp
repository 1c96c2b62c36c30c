// Element-wise functions of one float tensor: y[i] = f(x[i]), the function (ortvk_unary_fn) fixed per pipeline by
// specialization constant 0, so that a pipeline holds only its own function's code.
#version 460
#include "common.glsl"
#include "trig.glsl"

layout(push_constant) uniform Push {
    uvec2 x, y;
    uint n;
    float alpha, beta, gamma;
    uvec2 lo, hi; // Clip: bounds computed on the device (scalar tensors), else 0 and alpha/beta hold them
} p;

layout(constant_id = 0) const uint FN = 0u;

// ln(1 + e^v): v itself above 20 (where e^v swamps the 1).
float softplus(float v)
{
    if (v > 20.0) return v;
    return ortvk_log1p(ortvk_exp(v));
}

float trig(float v, uint which)
{
    switch (which) {
    case ORTVK_TRIG_ASIN: return ortvk_asin(v);
    case ORTVK_TRIG_ACOS: return ortvk_acos(v);
    case ORTVK_TRIG_ATAN: return ortvk_atan(v);
    case ORTVK_TRIG_SINH: return ortvk_sinh(v);
    case ORTVK_TRIG_COSH: return ortvk_cosh(v);
    case ORTVK_TRIG_ASINH: return ortvk_asinh(v);
    case ORTVK_TRIG_ACOSH: return ortvk_acosh(v);
    case ORTVK_TRIG_ATANH: return ortvk_atanh(v);
    }
    return ORTVK_NAN;
}

float apply(float v)
{
    // A subnormal v where the device may flush it (ORTVK_EXACT): Floor, Ceil and Sign by its sign alone.
    bool tiny = ORTVK_EXACT && ortvk_is_subnormal(v), negative = (floatBitsToUint(v) >> 31) != 0u;
    switch (FN) {
    case ORTVK_UNARY_COPY: return v;
    case ORTVK_UNARY_RELU: return v < 0.0 ? 0.0 : v;  // NaN stays NaN
    case ORTVK_UNARY_LEAKY_RELU: return ortvk_less(v, 0.0) ? ortvk_mul(v, p.alpha) : v;
    case ORTVK_UNARY_SIGMOID: return ortvk_sigmoid(v);
    case ORTVK_UNARY_HARD_SIGMOID: return ortvk_hard_sigmoid(v, p.alpha, p.beta);
    case ORTVK_UNARY_HARD_SWISH: return ortvk_hard_swish(v);
    case ORTVK_UNARY_TANH: return ortvk_tanh(v);
    case ORTVK_UNARY_EXP: return ortvk_exp(v);
    case ORTVK_UNARY_LOG: return ortvk_log(v);
    case ORTVK_UNARY_ABS: return abs(v);
    case ORTVK_UNARY_NEG: return -v;
    case ORTVK_UNARY_SQRT: return ortvk_sqrt(v);
    case ORTVK_UNARY_ERF: return ortvk_erf(v);
    case ORTVK_UNARY_CLIP: return ortvk_isnan(v) ? v : min(max(v, p.alpha), p.beta);  // NaN stays NaN
    case ORTVK_UNARY_RECIPROCAL: return ortvk_div(1.0, v);
    case ORTVK_UNARY_FLOOR: return tiny ? (negative ? -1.0 : 0.0) : floor(v);
    case ORTVK_UNARY_CEIL: return tiny ? (negative ? -0.0 : 1.0) : ceil(v);
    case ORTVK_UNARY_ELU: return v < 0.0 ? p.alpha * ortvk_expm1(v) : v;
    case ORTVK_UNARY_SOFTPLUS: return softplus(v);
    case ORTVK_UNARY_SELU: return v <= 0.0 ? p.gamma * (p.alpha * ortvk_expm1(v)) : p.gamma * v;
    case ORTVK_UNARY_SIGN: // NaN stays NaN
        if (tiny) return negative ? -1.0 : 1.0;
        return ortvk_isnan(v) ? v : (v > 0.0 ? 1.0 : (v < 0.0 ? -1.0 : 0.0));
    case ORTVK_UNARY_ROUND: return roundEven(v);  // halves to even
    case ORTVK_UNARY_SOFTSIGN: return v / (1.0 + abs(v));
    case ORTVK_UNARY_THRESHOLDED_RELU: return v > p.alpha ? v : 0.0;
    case ORTVK_UNARY_CELU:
        return ortvk_isnan(v) ? v : max(0.0, v) + min(0.0, p.alpha * ortvk_expm1(ortvk_div(v, p.alpha)));
    case ORTVK_UNARY_SHRINK: // lambd, bias
        return ortvk_less(v, -p.alpha) ? v + p.beta : (ortvk_less(p.alpha, v) ? v - p.beta : 0.0);
    case ORTVK_UNARY_DIVIDE: return v / p.alpha;  // Mean's division by the count
    case ORTVK_UNARY_SIN: return ortvk_sin(v);
    case ORTVK_UNARY_COS: return ortvk_cos(v);
    case ORTVK_UNARY_TAN: return ortvk_tan(v);
    case ORTVK_UNARY_TRIG: return trig(v, uint(p.alpha));  // Asin ... Atanh (ORTVK_TRIG_*)
    }
    return ORTVK_NAN;
}

// Constant 1: 1 for the vectorised form, where each invocation maps 64 elements as vec4 (n and the offsets
// multiples of 4 elements and 16 bytes: kernel_elementwise.c checks): in a workgroup's whole block of 4,096, 16
// vec4s spread as common.glsl's ortvk_lanes_start says; in the last, partial block, 64 contiguous elements each. The
// loops are left loops: unrolled, the driver would inline the function 64 times, and pipelines take that much
// longer to build.
layout(constant_id = 1) const uint VEC = 0u;

vec4 apply4(vec4 v)
{
    if (FN == ORTVK_UNARY_SIGMOID) return ortvk_sigmoid4(v);
    vec4 r;
    for (int c = 0; c < 4; c++) r[c] = apply(v[c]);
    return r;
}

void main()
{
    if (VEC != 0u && (FN != ORTVK_UNARY_CLIP || (p.lo == uvec2(0u) && p.hi == uvec2(0u)))) {
        uint step, e0 = ortvk_lanes_start(ortvk_workgroup() * 4096u, p.n, 64u, step);
        if (step != 4u) { // a whole block: no test per vec4 (lavapipe masks every load and store behind one)
            [[dont_unroll]] for (uint j = 0u; j < 16u * ORTVK_LANES_STEP; j += ORTVK_LANES_STEP)
                ORTVK_SET4(1, p.y, e0 + j, apply4(ORTVK_TEXEL4(0, p.x, e0 + j)));
            return;
        }
        [[dont_unroll]] for (uint j = 0u; j < 64u; j += 4u) {
            if (e0 + j < p.n) ORTVK_SET4(1, p.y, e0 + j, apply4(ORTVK_TEXEL4(0, p.x, e0 + j)));
        }
        return;
    }
    uint i = ortvk_index();
    if (i >= p.n) return;
    float v = ORTVK_TEXEL(0, p.x, i);
    if (FN == ORTVK_UNARY_CLIP && (p.lo != uvec2(0u) || p.hi != uvec2(0u))) {
        float lo = p.lo != uvec2(0u) ? ORTVK_GET(2, p.lo, 0) : p.alpha;
        float hi = p.hi != uvec2(0u) ? ORTVK_GET(3, p.hi, 0) : p.beta;
        ORTVK_SET(1, p.y, i, ortvk_isnan(v) ? v : min(max(v, lo), hi));
        return;
    }
    ORTVK_SET(1, p.y, i, apply(v));
}
