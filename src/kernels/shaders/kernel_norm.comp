// InstanceNormalization and LayerNormalization: one invocation per row (a channel of one image, or the normalized
// trailing dims) computes its mean and population variance, then for LayerNormalization y = (x - mean) *
// (1 / sqrt(var + epsilon)) * scale + bias per element of the row, and Mean and InvStdDev; for InstanceNormalization
// the CPU EP's folded form y = x * s + (bias - mean * s), s = scale / sqrt(var + epsilon) per channel, so that a row
// of one value with a tiny epsilon gives its answer. LayerNormalization's mean and variance are a running update in
// order (Welford's), which keeps a row of FLT_MAX or 1e20 at variance 0 as ORT 1.30.0's CPU EP does (a sum
// overflows there); InstanceNormalization's are two passes (sum, then squared differences). `precise`: no fma.
// A GPU's form (specialization constant 0; docs/kernels.md, "Forms per device"): one workgroup a row, each
// invocation taking elements t, t + 64, ...: LayerNormalization's running means combined through rows.glsl's tree,
// InstanceNormalization's two passes through it.
#version 460
#include "common.glsl"
#include "rows.glsl"

layout(push_constant) uniform Push {
    uvec2 x, y, scale, bias; // bias is 0 when absent
    uvec2 mean, inv_std;     // 0 when not wanted; float tensors whatever x's type
    uint rows, len, channels;
    uint per_element;        // 1: scale[k] and bias[k] for element k of the row; 0: scale[row % channels]
    float epsilon;
} p;

// Welford's update by the k-th value v (from 0) of the running mean and sum of squared differences.
void welford_step(float v, uint k, inout float mean, inout float sq)
{
    precise float d = v - mean;
    precise float m = mean + d / float(k + 1u);
    precise float s = sq + d * (v - m);
    mean = m;
    sq = s;
}

layout(constant_id = 0) const uint ROWS = 0u;

// The workgroup form: invocation t takes the row's elements t, t + 64, ... in each pass.
void rows_main()
{
    uint row = ortvk_index() / 64u, t = gl_LocalInvocationID.x;
    if (row >= p.rows) return; // a whole workgroup: the barriers stay in uniform control flow
    uint base = row * p.len, mine = ortvk_row_share(p.len, t);
    precise float mean = 0.0, sq = 0.0;
    if (p.per_element != 0u) {
        // Welford's in each invocation's share, then the shares combined (rows.glsl): a constant row keeps its
        // value as its mean and variance 0, as in the one-invocation form and on the CPU EP.
        ORTVK_FOR(j, 0u, mine) welford_step(ORTVK_GET(0, p.x, base + t + 64u * j), j, mean, sq);
        float n = float(mine);
        ortvk_row_welford(n, mean, sq);
    } else {
        precise float sum = 0.0;
        ORTVK_FOR(j, 0u, mine) sum += ORTVK_GET(0, p.x, base + t + 64u * j);
        mean = ortvk_row_reduce(sum, ORTVK_ROW_SUM) / float(p.len);
        ORTVK_FOR(j, 0u, mine) {
            precise float d = ORTVK_GET(0, p.x, base + t + 64u * j) - mean;
            sq += d * d;
        }
        sq = ortvk_row_reduce(sq, ORTVK_ROW_SUM);
    }
    precise float inv_std = 1.0 / sqrt(sq / float(p.len) + p.epsilon);
    if (t == 0u && p.mean != uvec2(0u)) ORTVK_FLOAT(4, p.mean, row) = mean;
    if (t == 0u && p.inv_std != uvec2(0u)) ORTVK_FLOAT(5, p.inv_std, row) = inv_std;
    if (p.per_element != 0u) {
        ORTVK_FOR(j, 0u, mine) {
            uint k = t + 64u * j;
            float v = (ORTVK_GET(0, p.x, base + k) - mean) * inv_std * ORTVK_GET(2, p.scale, k);
            if (p.bias != uvec2(0u)) v += ORTVK_GET(3, p.bias, k);
            ORTVK_SET(1, p.y, base + k, v);
        }
        return;
    }
    uint c = row % p.channels;
    precise float s = inv_std * ORTVK_GET(2, p.scale, c);
    precise float shift = (p.bias != uvec2(0u) ? ORTVK_GET(3, p.bias, c) : 0.0) - mean * s;
    ORTVK_FOR(j, 0u, mine) {
        uint at = base + t + 64u * j;
        precise float v = ORTVK_GET(0, p.x, at) * s + shift;
        ORTVK_SET(1, p.y, at, v);
    }
}

void main()
{
    if (ROWS != 0u) {
        rows_main();
        return;
    }
    uint row = ortvk_index();
    if (row >= p.rows) return;
    uint base = row * p.len;
    precise float mean = 0.0, sq = 0.0;
    if (p.per_element != 0u) {
        ORTVK_FOR(k, 0u, p.len) welford_step(ORTVK_GET(0, p.x, base + k), k, mean, sq);
    } else {
        precise float sum = 0.0;
        ORTVK_FOR(k, 0u, p.len) sum += ORTVK_GET(0, p.x, base + k);
        mean = sum / float(p.len);
        ORTVK_FOR(k, 0u, p.len) {
            precise float d = ORTVK_GET(0, p.x, base + k) - mean;
            sq += d * d;
        }
    }
    precise float inv_std = 1.0 / sqrt(sq / float(p.len) + p.epsilon);
    if (p.mean != uvec2(0u)) ORTVK_FLOAT(4, p.mean, row) = mean;
    if (p.inv_std != uvec2(0u)) ORTVK_FLOAT(5, p.inv_std, row) = inv_std;
    if (p.per_element != 0u) {
        ORTVK_FOR(k, 0u, p.len) {
            float v = (ORTVK_GET(0, p.x, base + k) - mean) * inv_std * ORTVK_GET(2, p.scale, k);
            if (p.bias != uvec2(0u)) v += ORTVK_GET(3, p.bias, k);
            ORTVK_SET(1, p.y, base + k, v);
        }
        return;
    }
    uint c = row % p.channels;
    precise float s = inv_std * ORTVK_GET(2, p.scale, c);
    precise float shift = (p.bias != uvec2(0u) ? ORTVK_GET(3, p.bias, c) : 0.0) - mean * s;
    ORTVK_FOR(k, 0u, p.len) {
        precise float v = ORTVK_GET(0, p.x, base + k) * s + shift;
        ORTVK_SET(1, p.y, base + k, v);
    }
}
