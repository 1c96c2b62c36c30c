// BatchNormalization (inference): y = x * s + (B[c] - mean[c] * s) with s = 1 / sqrt(var[c] + epsilon) * scale[c],
// c the channel (dim 1) of element i: the CPU EP's order (its folded scale and bias), so that values near FLT_MAX
// overflow and var + epsilon = 0 gives inf or NaN as there. `precise` keeps the compiler from fusing into fma.
#version 460
#include "common.glsl"

layout(push_constant) uniform Push {
    uvec2 x, scale, bias, mean, var, y;
    uint n, C, inner;
    float epsilon;
} p;

// Constant 0: 1 where each invocation takes 16 elements of one channel (inner a multiple of 16), read and written
// as vec4, the channel's scale and bias computed once.
layout(constant_id = 0) const uint VEC = 0u;

void main()
{
    uint i = ortvk_index();
    if (VEC != 0u) {
        uint e0 = i * 16u;
        if (e0 >= p.n) return;
        uint c = (e0 / p.inner) % p.C;
        precise float inv_std = 1.0 / sqrt(ORTVK_GET(4, p.var, c) + p.epsilon);
        precise float s = inv_std * ORTVK_GET(1, p.scale, c);
        precise float b = ORTVK_GET(2, p.bias, c) - ORTVK_GET(3, p.mean, c) * s;
        [[unroll]] for (uint j = 0u; j < 16u; j += 4u) {
            precise vec4 y = ORTVK_TEXEL4(0, p.x, e0 + j) * s + b;
            ORTVK_SET4(5, p.y, e0 + j, y);
        }
        return;
    }
    if (i >= p.n) return;
    uint c = (i / p.inner) % p.C;
    float v = ORTVK_TEXEL(0, p.x, i);
    precise float inv_std = 1.0 / sqrt(ORTVK_GET(4, p.var, c) + p.epsilon);
    precise float s = inv_std * ORTVK_GET(1, p.scale, c);
    precise float b = ORTVK_GET(2, p.bias, c) - ORTVK_GET(3, p.mean, c) * s;
    precise float y = v * s + b;
    ORTVK_SET(5, p.y, i, y);
}
