// Softmax and LogSoftmax along the middle dim of an (outer, len, inner) view, one invocation per row:
// y = exp(x - max) / sum exp(x - max), or x - max - log(sum).
#version 460
#include "common.glsl"

layout(push_constant) uniform Push {
    uvec2 x, y;
    uint rows, len, inner, log_;
} p;

void main()
{
    uint i = ortvk_index();
    if (i >= p.rows) return;
    uint o = i / p.inner, in_ = i % p.inner;
    uint base = o * p.len * p.inner + in_;
    float mx = -ORTVK_INF;
    ORTVK_FOR(k, 0u, p.len) mx = max(mx, ORTVK_GET(0, p.x, base + k * p.inner));
    float sum = 0.0;
    ORTVK_FOR(k, 0u, p.len) sum += ortvk_exp(ORTVK_GET(0, p.x, base + k * p.inner) - mx);
    if (p.log_ != 0u) {
        float ls = ortvk_log(sum);
        ORTVK_FOR(k, 0u, p.len) {
            uint at = base + k * p.inner;
            ORTVK_SET(1, p.y, at, ORTVK_GET(0, p.x, at) - mx - ls);
        }
    } else {
        ORTVK_FOR(k, 0u, p.len) {
            uint at = base + k * p.inner;
            ORTVK_SET(1, p.y, at, ortvk_exp(ORTVK_GET(0, p.x, at) - mx) / sum);
        }
    }
}
