// InstanceNormalization and LayerNormalization: one invocation per row (a channel of one image, or the normalized
// trailing dims) computes its mean, then its population variance, then y = (x - mean) / sqrt(var + epsilon) *
// scale + bias, scale and bias per channel (instance) or per element of the row (layer), and Mean and InvStdDev.
#version 460
#include "common.glsl"

layout(push_constant) uniform Push {
    uvec2 x, y, scale, bias; // bias is 0 when absent
    uvec2 mean, inv_std;     // 0 when not wanted; float tensors whatever x's type
    uint rows, len, channels;
    uint per_element;        // 1: scale[k] and bias[k] for element k of the row; 0: scale[row % channels]
    float epsilon;
} p;

void main()
{
    uint row = ortvk_index();
    if (row >= p.rows) return;
    uint base = row * p.len;
    float sum = 0.0;
    ORTVK_FOR(k, 0u, p.len) sum += ORTVK_GET(0, p.x, base + k);
    float mean = sum / float(p.len);
    float sq = 0.0;
    ORTVK_FOR(k, 0u, p.len) {
        float d = ORTVK_GET(0, p.x, base + k) - mean;
        sq += d * d;
    }
    float inv_std = 1.0 / sqrt(sq / float(p.len) + p.epsilon);
    if (p.mean != uvec2(0u)) ORTVK_FLOAT(4, p.mean, row) = mean;
    if (p.inv_std != uvec2(0u)) ORTVK_FLOAT(5, p.inv_std, row) = inv_std;
    uint c = row % p.channels;
    ORTVK_FOR(k, 0u, p.len) {
        uint s = p.per_element != 0u ? k : c;
        float v = (ORTVK_GET(0, p.x, base + k) - mean) * inv_std * ORTVK_GET(2, p.scale, s);
        if (p.bias != uvec2(0u)) v += ORTVK_GET(3, p.bias, s);
        ORTVK_SET(1, p.y, base + k, v);
    }
}
