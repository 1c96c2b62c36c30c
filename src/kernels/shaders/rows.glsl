// The workgroup-a-row form of the row reductions (docs/kernels.md, "Forms per device"), shared by the shaders that
// have it: the 64 invocations' partial results combined in shared memory in a fixed tree, so that every device
// sums in the same order whatever its subgroup size. Included after common.glsl.

shared float ortvk_row_partial[64];

const uint ORTVK_ROW_SUM = 0u, ORTVK_ROW_PRODUCT = 1u, ORTVK_ROW_MAX = 2u, ORTVK_ROW_MIN = 3u;

// Two partial results; max and min propagate NaN.
float ortvk_row_combine(float a, float b, uint how)
{
    if (how == ORTVK_ROW_SUM) return a + b;
    if (how == ORTVK_ROW_PRODUCT) return a * b;
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

// How many of a row's n elements invocation t of the workgroup takes (t, t + 64, t + 128, ...).
uint ortvk_row_share(uint n, uint t)
{
    return t < n ? (n - t + 63u) / 64u : 0u;
}
