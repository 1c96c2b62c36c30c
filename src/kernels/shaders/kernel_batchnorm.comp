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
    float v = Floats(p.x).v[i];
    float r = (v - Floats(p.mean).v[c]) / sqrt(Floats(p.var).v[c] + p.epsilon);
    Floats(p.y).v[i] = r * Floats(p.scale).v[c] + Floats(p.bias).v[c];
}
