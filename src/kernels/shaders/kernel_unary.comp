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

// NaN stays NaN, and so does alpha * x + beta when it is NaN (0 * inf), as on the CPU EP.
float hard_sigmoid(float v)
{
    float t = p.alpha * v + p.beta;
    return ortvk_isnan(t) ? t : max(0.0, min(1.0, t));
}

float trig(float v, uint which)
{
    switch (which) {
    case 0u: return ortvk_asin(v);
    case 1u: return ortvk_acos(v);
    case 2u: return ortvk_atan(v);
    case 3u: return ortvk_sinh(v);
    case 4u: return ortvk_cosh(v);
    case 5u: return ortvk_asinh(v);
    case 6u: return ortvk_acosh(v);
    case 7u: return ortvk_atanh(v);
    }
    return ORTVK_NAN;
}

float apply(float v)
{
    switch (FN) {
    case 0u: return v;                                                     // copy
    case 1u: return v < 0.0 ? 0.0 : v;                                     // Relu (NaN stays NaN)
    case 2u: return v < 0.0 ? v * p.alpha : v;                             // LeakyRelu
    case 3u: return ortvk_sigmoid(v);                                      // Sigmoid
    case 4u: return hard_sigmoid(v);                                       // HardSigmoid
    case 5u: return v * max(0.0, min(1.0, v * (1.0 / 6.0) + 0.5));        // HardSwish
    case 6u: return ortvk_tanh(v);                                         // Tanh
    case 7u: return ortvk_exp(v);                                          // Exp
    case 8u: return ortvk_log(v);                                          // Log
    case 9u: return abs(v);                                                // Abs
    case 10u: return -v;                                                   // Neg
    case 11u: return v < 0.0 ? ORTVK_NAN : sqrt(v);                        // Sqrt
    case 12u: return ortvk_erf(v);                                         // Erf
    case 13u: return ortvk_isnan(v) ? v : min(max(v, p.alpha), p.beta);    // Clip (NaN stays NaN)
    case 14u: return 1.0 / v;                                              // Reciprocal
    case 15u: return floor(v);                                             // Floor
    case 16u: return ceil(v);                                              // Ceil
    case 17u: return v < 0.0 ? p.alpha * ortvk_expm1(v) : v;               // Elu
    case 18u: return softplus(v);                                          // Softplus
    case 19u: return v <= 0.0 ? p.gamma * (p.alpha * ortvk_expm1(v)) : p.gamma * v; // Selu
    case 20u: return ortvk_isnan(v) ? v : (v > 0.0 ? 1.0 : (v < 0.0 ? -1.0 : 0.0)); // Sign (NaN stays NaN)
    case 21u: return roundEven(v);                                         // Round (halves to even)
    case 22u: return v / (1.0 + abs(v));                                   // Softsign
    case 23u: return v > p.alpha ? v : 0.0;                                // ThresholdedRelu
    case 24u: return ortvk_isnan(v) ? v : max(0.0, v) + min(0.0, p.alpha * ortvk_expm1(v / p.alpha)); // Celu
    case 25u: return v < -p.alpha ? v + p.beta : (v > p.alpha ? v - p.beta : 0.0); // Shrink (lambd, bias)
    case 26u: return v / p.alpha;                                          // Mean's division by the count
    case 27u: return ortvk_sin(v);                                         // Sin
    case 28u: return ortvk_cos(v);                                         // Cos
    case 29u: return ortvk_tan(v);                                         // Tan
    case 30u: return trig(v, uint(p.alpha));                               // Asin ... Atanh (ORTVK_TRIG_*)
    }
    return ORTVK_NAN;
}

// Constant 1: 1 for the vectorised form, where each invocation maps 16 elements as vec4 (n and the offsets
// multiples of 4 elements and 16 bytes: kernel_elementwise.c checks).
layout(constant_id = 1) const uint VEC = 0u;

vec4 apply4(vec4 v)
{
    vec4 r;
    for (int c = 0; c < 4; c++) r[c] = apply(v[c]);
    return r;
}

void main()
{
    if (VEC != 0u && (FN != 13u || (p.lo == uvec2(0u) && p.hi == uvec2(0u)))) {
        uint e0 = ortvk_index() * 16u;
        if (e0 + 16u <= p.n) { // no test per vec4 (lavapipe masks every load and store behind one)
            for (uint j = 0u; j < 16u; j += 4u)
                ORTVK_SET4(1, p.y, e0 + j, apply4(ORTVK_TEXEL4(0, p.x, e0 + j)));
            return;
        }
        for (uint j = 0u; j < 16u; j += 4u) {
            if (e0 + j < p.n) ORTVK_SET4(1, p.y, e0 + j, apply4(ORTVK_TEXEL4(0, p.x, e0 + j)));
        }
        return;
    }
    uint i = ortvk_index();
    if (i >= p.n) return;
    float v = ORTVK_TEXEL(0, p.x, i);
    if (FN == 13u && (p.lo != uvec2(0u) || p.hi != uvec2(0u))) {
        float lo = p.lo != uvec2(0u) ? ORTVK_GET(2, p.lo, 0) : p.alpha;
        float hi = p.hi != uvec2(0u) ? ORTVK_GET(3, p.hi, 0) : p.beta;
        ORTVK_SET(1, p.y, i, ortvk_isnan(v) ? v : min(max(v, lo), hi));
        return;
    }
    ORTVK_SET(1, p.y, i, apply(v));
}
