// ArgMax and ArgMin over the middle dim of an (outer, R, inner) view: y[o, i] = the index r of the extreme x[o, r, i],
// as int64 (two 32-bit words, low first). Rows longer than one dispatch's share of lavapipe's loop cap run as several
// dispatches over [begin, end): each resumes from the index the one before stored in y (its value is x at that index).
#version 460
#include "common.glsl"

layout(push_constant) uniform Push {
    uvec2 x, y;
    uint outer, R, inner;
    uint begin, end; // the part of each row this dispatch scans; begin 0 starts a row
    uint flags;      // 1: ArgMin (else ArgMax), 2: select_last_index, 4: the first NaN wins (rank-1 input)
} p;

void main()
{
    uint i = ortvk_index();
    if (i >= p.outer * p.inner) return;
    uint o = i / p.inner, in_ = i % p.inner;
    uint base = o * p.R * p.inner + in_;
    bool is_min = (p.flags & 1u) != 0u, last = (p.flags & 2u) != 0u, nan_first = (p.flags & 4u) != 0u;
    // ORT's CPU EP starts from the first value and takes a later one when it is greater (ArgMax; or equal with
    // select_last_index): a NaN is never taken, and a NaN first stays. For a rank-1 input without
    // select_last_index it asks Eigen's maxCoeff/minCoeff, which returns the first NaN if there is one.
    uint best = p.begin == 0u ? 0u : ORTVK_WORD(1, p.y, 2u * i);
    float acc = ORTVK_GET(0, p.x, base + best * p.inner);
    uint from = p.begin == 0u ? 1u : p.begin;
    ORTVK_FOR(r, from, p.end) {
        float v = ORTVK_GET(0, p.x, base + r * p.inner);
        bool v_nan = ortvk_isnan(v), acc_nan = ortvk_isnan(acc);
        bool better = is_min ? (last ? ortvk_less_equal(v, acc) : ortvk_less(v, acc))
                             : (last ? ortvk_less_equal(acc, v) : ortvk_less(acc, v)); // subnormals exactly
        if ((!v_nan && !acc_nan && better) || (nan_first && v_nan && !acc_nan)) {
            acc = v;
            best = r;
        }
    }
    ORTVK_WORD(1, p.y, 2u * i) = best;
    ORTVK_WORD(1, p.y, 2u * i + 1u) = 0u;
}
