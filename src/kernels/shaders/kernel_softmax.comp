// Softmax and LogSoftmax along the middle dim of an (outer, len, inner) view: y = exp(x - max) / sum exp(x - max), or
// x - max - log(sum). One invocation a row, or (specialization constant 0, rows of contiguous elements on a GPU:
// docs/kernels.md, "Forms per device") one workgroup a row, its maximum and sum found with rows.glsl's tree.
#version 460
#include "common.glsl"
#include "rows.glsl"

layout(push_constant) uniform Push {
    uvec2 x, y;
    uint rows, len, inner, log_;
} p;

layout(constant_id = 0) const uint ROWS = 0u;
// The workgroup form (inner = 1): invocation t takes the row's elements t, t + 64, ... for the maximum, the sum and
// the outputs.
void rows_main()
{
    uint row = ortvk_index() / 64u, t = gl_LocalInvocationID.x;
    if (row >= p.rows) return; // a whole workgroup: the barriers stay in uniform control flow
    uint base = row * p.len, mine = ortvk_row_share(p.len, t);
    float mx = -ORTVK_INF;
    ORTVK_FOR(j, 0u, mine) mx = max(mx, ORTVK_TEXEL(0, p.x, base + t + 64u * j));
    mx = ortvk_row_reduce(mx, ORTVK_ROW_MAX);
    // Each exp(x - max) is computed again for the outputs: on lavapipe that costs less than keeping it in y, whose
    // stores and loads run lane by lane (Softmax over 40 rows of 6,625: 2.6 -> 1.7-2.2 ms; docs/benchmarks.md, run
    // AE). The same exp, so the same outputs.
    float sum = 0.0;
    ORTVK_FOR(j, 0u, mine) sum += ortvk_exp(ORTVK_TEXEL(0, p.x, base + t + 64u * j) - mx);
    sum = ortvk_row_reduce(sum, ORTVK_ROW_SUM);
    if (p.log_ != 0u) {
        float ls = ortvk_log(sum);
        ORTVK_FOR(j, 0u, mine) {
            uint at = base + t + 64u * j;
            ORTVK_SET(1, p.y, at, ORTVK_TEXEL(0, p.x, at) - mx - ls);
        }
    } else {
        ORTVK_FOR(j, 0u, mine) {
            uint at = base + t + 64u * j;
            ORTVK_SET(1, p.y, at, ortvk_exp(ORTVK_TEXEL(0, p.x, at) - mx) / sum);
        }
    }
}

void main()
{
    if (ROWS != 0u) {
        rows_main();
        return;
    }
    uint i = ortvk_index();
    if (i >= p.rows) return;
    uint o = i / p.inner, in_ = i % p.inner;
    uint base = o * p.len * p.inner + in_;
    float mx = -ORTVK_INF;
    ORTVK_FOR(k, 0u, p.len) mx = max(mx, ORTVK_TEXEL(0, p.x, base + k * p.inner));
    float sum = 0.0;
    ORTVK_FOR(k, 0u, p.len) sum += ortvk_exp(ORTVK_TEXEL(0, p.x, base + k * p.inner) - mx);
    if (p.log_ != 0u) {
        float ls = ortvk_log(sum);
        ORTVK_FOR(k, 0u, p.len) {
            uint at = base + k * p.inner;
            ORTVK_SET(1, p.y, at, ORTVK_TEXEL(0, p.x, at) - mx - ls);
        }
    } else {
        ORTVK_FOR(k, 0u, p.len) {
            uint at = base + k * p.inner;
            ORTVK_SET(1, p.y, at, ortvk_exp(ORTVK_TEXEL(0, p.x, at) - mx) / sum);
        }
    }
}
