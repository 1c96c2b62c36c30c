// BatchNormalization (inference): y = (x - mean[c]) / sqrt(var[c] + epsilon) * scale[c] + B[c], in the order of
// ONNX's reference, with c the channel (dim 1) of element i.
#version 460
#include "common.glsl"

layout(push_constant) uniform Push {
    uvec2 x, scale, bias, mean, var, y;
    uint n, C, inner;
    float epsilon;
} p;

void main()
{
    uint i = ortvk_index();
    if (i >= p.n) return;
    uint c = (i / p.inner) % p.C;
    float v = ORTVK_GET(0, p.x, i);
    float r = (v - ORTVK_GET(3, p.mean, c)) / sqrt(ORTVK_GET(4, p.var, c) + p.epsilon);
    ORTVK_SET(5, p.y, i, r * ORTVK_GET(1, p.scale, c) + ORTVK_GET(2, p.bias, c));
}
