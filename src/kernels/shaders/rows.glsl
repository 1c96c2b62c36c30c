// The workgroup-a-row form of the row reductions (docs/kernels.md, "Forms per device"), shared by the shaders that
// have it: the 64 invocations' partial results combined in shared memory in a fixed tree, so that every device
// sums in the same order whatever its subgroup size. Included after common.glsl.

shared float ortvk_row_partial[64];

const uint ORTVK_ROW_SUM = 0u, ORTVK_ROW_PRODUCT = 1u, ORTVK_ROW_MAX = 2u, ORTVK_ROW_MIN = 3u;

// Two partial results; max and min propagate NaN.
float ortvk_row_combine(float a, float b, uint how)
{
    if (how == ORTVK_ROW_SUM) return a + b;
    if (how == ORTVK_ROW_PRODUCT) return ortvk_mul(a, b);
    if (ortvk_isnan(a) || ortvk_isnan(b)) return ORTVK_NAN;
    return how == ORTVK_ROW_MAX ? max(a, b) : min(a, b);
}

// `v` of every invocation of the workgroup combined: partial[t] with partial[t + s] for s = 32, 16, ..., 1. Every
// invocation gets the result. Call it in uniform control flow (it holds barriers).
float ortvk_row_reduce(float v, uint how)
{
    uint t = gl_LocalInvocationID.x;
    ortvk_row_partial[t] = v;
    memoryBarrierShared();
    barrier();
    [[unroll]] for (uint s = 32u; s > 0u; s >>= 1u) {
        if (t < s) ortvk_row_partial[t] = ortvk_row_combine(ortvk_row_partial[t], ortvk_row_partial[t + s], how);
        memoryBarrierShared();
        barrier();
    }
    float r = ortvk_row_partial[0];
    barrier(); // every invocation has read it before the next call writes the partials
    return r;
}

// A running mean and sum of squared differences (Welford's, as LayerNormalization's one-invocation form keeps them)
// of every invocation combined, by Chan et al.'s rule for two parts (n, mean, m2) in the same tree as above: a
// constant row stays at its value with m2 = 0 exactly, as it does in order. Every invocation gets the result.
shared float ortvk_row_count[64], ortvk_row_m2[64];

void ortvk_row_welford(inout float n, inout float mean, inout float m2)
{
    uint t = gl_LocalInvocationID.x;
    ortvk_row_count[t] = n;
    ortvk_row_partial[t] = mean;
    ortvk_row_m2[t] = m2;
    memoryBarrierShared();
    barrier();
    [[unroll]] for (uint s = 32u; s > 0u; s >>= 1u) {
        if (t < s) {
            precise float na = ortvk_row_count[t], nb = ortvk_row_count[t + s], nt = na + nb;
            if (nb > 0.0) {
                precise float delta = ortvk_row_partial[t + s] - ortvk_row_partial[t];
                precise float share = nb / nt;
                ortvk_row_partial[t] += delta * share;
                ortvk_row_m2[t] += ortvk_row_m2[t + s] + delta * delta * na * share;
                ortvk_row_count[t] = nt;
            }
        }
        memoryBarrierShared();
        barrier();
    }
    n = ortvk_row_count[0];
    mean = ortvk_row_partial[0];
    m2 = ortvk_row_m2[0];
    barrier(); // every invocation has read them before the next call writes the partials
}

// How many of a row's n elements invocation t of the workgroup takes (t, t + 64, t + 128, ...).
uint ortvk_row_share(uint n, uint t)
{
    return t < n ? (n - t + 63u) / 64u : 0u;
}
