// A chain of element-wise steps fused at Compile (kernel_chain.c): t = x[i], each step applied to t in order with
// the same float operations the unfused ops use, y[i] = t. The steps' kinds (ortvk_chain_kind) are specialization
// constants, so that a pipeline holds only its chain's operations; their constants a and b are push constants.
#version 460
#include "common.glsl"

layout(push_constant) uniform Push {
    uvec2 x, y;
    uint n;
    uint unused_[3];
    vec4 a[2];   // step k's a in a[k / 4][k % 4]
    vec4 b[2];   // and its b (Clip's upper bound)
} p;

// Constant 0: 1 for the vectorised form (16 elements an invocation as vec4; n and the offsets multiples of 4).
layout(constant_id = 0) const uint VEC = 0u;
// Constants 3 and 4 (the pipeline's key): step k's kind in bits 4k..4k+3 of KINDS, and the count of steps.
layout(constant_id = 3) const uint KINDS = 0u;
layout(constant_id = 4) const uint COUNT = 0u;

// Four elements at a time (the scalar form uses the first): per component, the same operations as the unfused ops.
vec4 apply(vec4 x)
{
    // precise: each step rounds as the op it replaces does (no fused multiply-add across steps).
    precise vec4 t = x;
    [[unroll]] for (uint k = 0u; k < 8u; k++) {
        if (k >= COUNT) break;
        uint kind = (KINDS >> (4u * k)) & 15u;
        float a = p.a[k / 4u][k % 4u];
        switch (kind) {
        case 0u: t = t + a; break;
        case 1u: t = t - a; break;
        case 2u: t = a - t; break;
        case 3u: t = t * a; break;
        case 4u: t = t / a; break;
        case 5u: t = a / t; break;
        case 6u: { // Clip: NaN stays NaN
            bvec4 nan = greaterThan(floatBitsToUint(t) & 0x7fffffffu, uvec4(0x7f800000u));
            t = mix(min(max(t, a), p.b[k / 4u][k % 4u]), t, nan);
            break;
        }
        case 7u: t = mix(t, vec4(0.0), lessThan(t, vec4(0.0))); break; // Relu: NaN and -0 stay
        case 8u: t = t + x; break;
        case 9u: t = t * x; break;
        }
    }
    return t;
}

void main()
{
    if (VEC != 0u) {
        uint e0 = ortvk_index() * 16u;
        [[unroll]] for (uint j = 0u; j < 16u; j += 4u) {
            if (e0 + j >= p.n) return;
            ORTVK_SET4(1, p.y, e0 + j, apply(ORTVK_TEXEL4(0, p.x, e0 + j)));
        }
        return;
    }
    uint i = ortvk_index();
    if (i >= p.n) return;
    ORTVK_SET(1, p.y, i, apply(vec4(ORTVK_TEXEL(0, p.x, i))).x);
}
