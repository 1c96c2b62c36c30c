// Reductions over the middle dim of an (outer, R, inner) view: y[o, i] = reduce over r of x[o, r, i]. The Reduce*
// ops and the global pools (inner = 1). LogSumExp subtracts the maximum first, as ORT's CPU EP does.
// Two forms (specialization constant 0): one invocation an output, walking its row in order (CPUs: lavapipe's
// threads are few and each runs whole workgroups); or, for contiguous rows (inner = 1), one workgroup a row
// (GPUs: docs/kernels.md, "Forms per device").
#version 460
#include "common.glsl"
#include "rows.glsl"

layout(push_constant) uniform Push {
    uvec2 x, y;
    uint outer, R, inner, fn; // fn: 0 sum, 1 mean, 2 max, 3 min, 4 L1, 5 L2, 6 sum of squares, 7 log of the sum,
                              //     8 log-sum-exp, 9 product
} p;

// ReduceLogSum where the device may flush subnormals (ORTVK_EXACT): they are summed apart, in `small`, each scaled
// up by 2^64 (ortvk_subnormal_up), and joined with the other elements' sum before the log (log_sum). The product
// takes subnormal factors exactly (ortvk_mul).
float reduce_step(float acc, float v, float shift, inout float small)
{
    if (p.fn <= 1u || p.fn == 7u) {
        if (!ORTVK_EXACT || p.fn != 7u || !ortvk_is_subnormal(v)) return acc + v;
        small += ortvk_subnormal_up(v);
        return acc;
    }
    if (p.fn == 4u) return acc + abs(v);
    if (p.fn == 5u || p.fn == 6u) return acc + v * v;
    if (p.fn == 8u) return acc + ortvk_exp(v - shift);
    if (p.fn == 9u) return ortvk_mul(acc, v);
    if (ortvk_isnan(v) || ortvk_isnan(acc)) return ORTVK_NAN;
    return p.fn == 2u ? max(acc, v) : min(acc, v);
}

// log(acc + small 2^-64): where acc is below 2^-60, as log(acc 2^64 + small) - 64 ln 2.
float log_sum(float acc, float small)
{
    if (small == 0.0) return ortvk_log(acc);
    if (abs(acc) >= uintBitsToFloat(0x21800000u)) return ortvk_log(acc + small * ORTVK_P2_DOWN); // 2^-60
    return ortvk_log(acc * ORTVK_P2_UP + small) - 44.3614195558365;
}

// One element, or a vec4's four in order.
#define REDUCE4(acc, v, shift, small) \
    reduce_step(reduce_step(reduce_step(reduce_step(acc, (v).x, shift, small), (v).y, shift, small), (v).z, shift, \
                            small), (v).w, shift, small)

layout(constant_id = 0) const uint ROWS = 0u;

// The workgroup form: invocation t folds the row's elements t, t + 64, t + 128, ... (vec4 t, t + 64, ... where the
// row is whole vec4s) in order, then rows.glsl's tree. Reads of neighbouring invocations are neighbouring addresses.
void rows_main()
{
    uint row = ortvk_index() / 64u, t = gl_LocalInvocationID.x;
    if (row >= p.outer) return; // a whole workgroup: the barriers stay in uniform control flow
    uint base = row * p.R;
    bool vec = p.R % 4u == 0u && p.x.x % 16u == 0u;
    uint n = vec ? p.R / 4u : p.R;
    uint mine = ortvk_row_share(n, t);
    float shift = 0.0;
    if (p.fn == 8u) {
        float mx = -ORTVK_INF;
        ORTVK_FOR(j, 0u, mine) {
            uint q = t + 64u * j;
            if (vec) {
                vec4 v = ORTVK_GET4(0, p.x, base + q * 4u);
                mx = max(max(max(max(mx, v.x), v.y), v.z), v.w);
            } else {
                mx = max(mx, ORTVK_GET(0, p.x, base + q));
            }
        }
        mx = ortvk_row_reduce(mx, ORTVK_ROW_MAX);
        if (!isinf(mx)) shift = mx;
    }
    float acc = p.fn == 2u ? -ORTVK_INF : (p.fn == 3u ? ORTVK_INF : (p.fn == 9u ? 1.0 : 0.0)), small = 0.0;
    ORTVK_FOR(j, 0u, mine) {
        uint q = t + 64u * j;
        if (vec) {
            acc = REDUCE4(acc, ORTVK_GET4(0, p.x, base + q * 4u), shift, small);
        } else {
            acc = reduce_step(acc, ORTVK_GET(0, p.x, base + q), shift, small);
        }
    }
    acc = ortvk_row_reduce(acc, p.fn == 9u   ? ORTVK_ROW_PRODUCT
                                : p.fn == 2u ? ORTVK_ROW_MAX
                                : p.fn == 3u ? ORTVK_ROW_MIN
                                             : ORTVK_ROW_SUM);
    if (ORTVK_EXACT && p.fn == 7u) small = ortvk_row_reduce(small, ORTVK_ROW_SUM);
    if (t != 0u) return;
    if (p.fn == 1u) acc = acc / float(p.R);
    else if (p.fn == 5u) acc = sqrt(acc);
    else if (p.fn == 7u) acc = log_sum(acc, small);
    else if (p.fn == 8u) acc = ortvk_log(acc) + shift;
    ORTVK_SET(1, p.y, row, acc);
}

void main()
{
    if (ROWS != 0u) {
        rows_main();
        return;
    }
    uint i = ortvk_index();
    if (i >= p.outer * p.inner) return;
    uint o = i / p.inner, in_ = i % p.inner;
    uint base = o * p.R * p.inner + in_;
    // Contiguous rows (inner = 1, the global pools) of a multiple of 4 at a 16-byte offset: read as vec4, the same
    // order.
    bool vec = p.inner == 1u && p.R % 4u == 0u && p.x.x % 16u == 0u;
    float acc = p.fn == 2u ? -ORTVK_INF : (p.fn == 3u ? ORTVK_INF : (p.fn == 9u ? 1.0 : 0.0));
    float shift = 0.0;
    if (p.fn == 8u) {
        float mx = -ORTVK_INF;
        if (vec) {
            ORTVK_FOR(q, 0u, p.R / 4u) {
                vec4 v = ORTVK_GET4(0, p.x, base + q * 4u);
                mx = max(max(max(max(mx, v.x), v.y), v.z), v.w);
            }
        } else {
            ORTVK_FOR(r, 0u, p.R) mx = max(mx, ORTVK_GET(0, p.x, base + r * p.inner));
        }
        if (!isinf(mx)) shift = mx; // all -inf (or none): log(0) = -inf below; an inf stays inf
    }
    float small = 0.0;
    if (vec) {
        ORTVK_FOR(q, 0u, p.R / 4u) acc = REDUCE4(acc, ORTVK_GET4(0, p.x, base + q * 4u), shift, small);
    } else {
        ORTVK_FOR(r, 0u, p.R) acc = reduce_step(acc, ORTVK_GET(0, p.x, base + r * p.inner), shift, small);
    }
    if (p.fn == 1u) acc = acc / float(p.R);
    else if (p.fn == 5u) acc = sqrt(acc);
    else if (p.fn == 7u) acc = log_sum(acc, small);
    else if (p.fn == 8u) acc = ortvk_log(acc) + shift;
    ORTVK_SET(1, p.y, i, acc);
}
