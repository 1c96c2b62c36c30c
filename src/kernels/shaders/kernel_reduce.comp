// Reductions over the middle dim of an (outer, R, inner) view: y[o, i] = reduce over r of x[o, r, i]. ReduceSum,
// ReduceMean, ReduceMax, ReduceMin and the global pools (inner = 1).
#version 460
#include "common.glsl"

layout(push_constant) uniform Push {
    uvec2 x, y;
    uint outer, R, inner, fn; // fn: 0 sum, 1 mean, 2 max, 3 min
} p;

void main()
{
    uint i = ortvk_index();
    if (i >= p.outer * p.inner) return;
    uint o = i / p.inner, in_ = i % p.inner;
    Elems X = Elems(p.x);
    uint base = o * p.R * p.inner + in_;
    float acc = p.fn == 2u ? -ORTVK_INF : (p.fn == 3u ? ORTVK_INF : 0.0);
    for (uint r = 0u; r < p.R; r++) {
        float v = ORTVK_GET(X, base + r * p.inner);
        if (p.fn <= 1u) acc += v;
        else if (ortvk_isnan(v) || ortvk_isnan(acc)) acc = ORTVK_NAN;
        else acc = p.fn == 2u ? max(acc, v) : min(acc, v);
    }
    if (p.fn == 1u) acc = acc / float(p.R);
    ORTVK_SET(Elems(p.y), i, acc);
}
