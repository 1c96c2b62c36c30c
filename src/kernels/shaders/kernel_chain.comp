// A chain of element-wise steps fused at Compile (kernel_chain.c): y[i] = ortvk_chain(x[i]), the steps (common.glsl)
// applied in order with the same float operations the unfused ops use; r[i] where the chain reads a residual r.
#version 460
#include "common.glsl"

layout(push_constant) uniform Push {
    uvec2 x, y;
    uint n;
    uvec2 constants; // the steps' operands (common.glsl's ORTVK_CHAIN_LOAD)
    uvec2 r;         // the residual (common.glsl's ORTVK_CHAIN_R), a tensor of y's shape, or 0
} p;

// Constant 0: 1 for the vectorised form (16 elements an invocation as vec4; n and the offsets multiples of 4).
layout(constant_id = 0) const uint VEC = 0u;

void main()
{
    ORTVK_CHAIN_LOAD(2, p.constants);
    if (VEC != 0u) {
        uint e0 = ortvk_index() * 16u;
        [[unroll]] for (uint j = 0u; j < 16u; j += 4u) {
            if (e0 + j >= p.n) return;
            vec4 r = ORTVK_CHAIN_R ? ORTVK_TEXEL4(3, p.r, e0 + j) : vec4(0.0);
            ORTVK_SET4(1, p.y, e0 + j, ortvk_chain4r(ORTVK_TEXEL4(0, p.x, e0 + j), r));
        }
        return;
    }
    uint i = ortvk_index();
    if (i >= p.n) return;
    ORTVK_SET(1, p.y, i, ortvk_chainr(ORTVK_TEXEL(0, p.x, i), ORTVK_CHAIN_R ? ORTVK_TEXEL(3, p.r, i) : 0.0));
}
