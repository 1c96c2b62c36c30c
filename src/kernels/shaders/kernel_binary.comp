// Element-wise functions of two float tensors with ONNX multidirectional broadcasting: the host coalesces the
// shapes into at most 6 dims and gives each operand's element strides (0 where it is broadcast). The function
// (ortvk_binary_fn) is specialization constant 0.
#version 460
#include "common.glsl"

layout(push_constant) uniform Push {
    uvec2 a, b, c;
    uint n, rank;
    uint dims[6];
    uint sa[6];
    uint sb[6];
    uint groups; // the vectorised form: workgroups a row of the last dim (0: rows share workgroups)
} p;

layout(constant_id = 0) const uint FN = 0u;

float apply(float x, float y)
{
    switch (FN) {
    case ORTVK_BINARY_ADD: return x + y;
    case ORTVK_BINARY_SUB: return x - y;
    case ORTVK_BINARY_MUL: return ortvk_mul(x, y);
    case ORTVK_BINARY_DIV: return ortvk_div(x, y);
    case ORTVK_BINARY_POW: return ortvk_pow(x, y);
    case ORTVK_BINARY_PRELU: return ortvk_less(x, 0.0) ? ortvk_mul(x, y) : x; // PRelu (slope broadcast like b)
    case ORTVK_BINARY_MAX: return ortvk_isnan(x) || ortvk_isnan(y) ? ORTVK_NAN : max(x, y);
    case ORTVK_BINARY_MIN: return ortvk_isnan(x) || ortvk_isnan(y) ? ORTVK_NAN : min(x, y);
    }
    return ORTVK_NAN;
}

// The same on four lanes, as vector operations: four calls would inline `apply` whole four times at each of the
// vectorised form's 12 sites, and the driver parses the SPIR-V of every function before the constant picks one.
// Pow, long, runs as a loop over the lanes (lavapipe did not unroll such a loop well for the others: 2.5x slower).
vec4 apply4(vec4 a, vec4 b)
{
    bvec4 nan = bvec4(uvec4(ortvk_isnan4(a)) | uvec4(ortvk_isnan4(b)));
    switch (FN) {
    case ORTVK_BINARY_ADD: return a + b;
    case ORTVK_BINARY_SUB: return a - b;
    case ORTVK_BINARY_MUL: return ortvk_mul4(a, b);
    case ORTVK_BINARY_DIV: return ortvk_div4(a, b);
    case ORTVK_BINARY_PRELU: return mix(a, ortvk_mul4(a, b), ortvk_less4(a, vec4(0.0)));
    case ORTVK_BINARY_MAX: return mix(max(a, b), vec4(ORTVK_NAN), nan);
    case ORTVK_BINARY_MIN: return mix(min(a, b), vec4(ORTVK_NAN), nan);
    }
    vec4 r;
    for (int c = 0; c < 4; c++) r[c] = apply(a[c], b[c]);
    return r;
}

// Constant 1: 1 for the vectorised form, where the last (coalesced) dim, a multiple of 4 long, is cut into runs of
// RUN elements, one an invocation, as vec4; a and b step 0 or 1 along it (kernel_elementwise.c checks, and the
// offsets). Each row of the last dim (the product of the other dims) of a workgroup's 64 runs or more has `groups`
// whole workgroups of its own, so the row, and where an operand is broadcast along the last dim its value (a
// per-channel scale or bias), are the same for the whole workgroup: found once from the workgroup's index (groups 0:
// shorter rows, found from the invocation's index). Such a workgroup's block of 64 RUN elements, where the row holds
// all of it, is spread over the invocations as common.glsl's ortvk_lanes_start says; a row's last, partial block and
// shorter rows take RUN contiguous elements an invocation. 64 elements an invocation rather than 16: a third less
// time in the shader on lavapipe (docs/benchmarks.md, run L). The loops stay loops ([[dont_unroll]]): unrolled, the
// driver's copies of the function made pipelines 3-10x slower to build (Pow: 4 s) for no measurable speed.
layout(constant_id = 1) const uint VEC = 0u;
const uint RUN = 64u;

void main_vec()
{
    uint last = p.rank - 1u, len = p.dims[last];
    uint row, col, step = 4u; // step: elements from one of the invocation's vec4s to the next
    if (p.groups != 0u) {
        uint g = ortvk_workgroup();
        row = g / p.groups;
        col = ortvk_lanes_start((g - row * p.groups) * 64u * RUN, len, RUN, step);
    } else { // rows shorter than a workgroup's 64 runs: ceil(len / RUN) invocations a row
        uint i = ortvk_index(), runs = (len + RUN - 1u) / RUN;
        row = i / runs;
        col = (i - row * runs) * RUN;
    }
    if (row >= p.n / len || col >= len) return;
    uint ia = 0u, ib = 0u, r = row;
    for (int k = int(last) - 1; k >= 0; k--) {
        uint d = p.dims[k];
        uint q = r / d;
        uint c = r - q * d;
        r = q;
        ia += c * p.sa[k];
        ib += c * p.sb[k];
    }
    uint e = row * len + col;
    bool va = p.sa[last] != 0u, vb = p.sb[last] != 0u;
    ia += va ? col : 0u;
    ib += vb ? col : 0u;
    if (step != 4u || col + RUN <= len) { // no test per vec4 (lavapipe masks every load and store behind one)
        uint end = RUN / 4u * step;
        if (!va) {
            vec4 a = vec4(ORTVK_TEXEL(0, p.a, ia));
            [[dont_unroll]] for (uint j = 0u; j < end; j += step)
                ORTVK_SET4(2, p.c, e + j, apply4(a, ORTVK_TEXEL4(1, p.b, ib + j)));
        } else if (!vb) {
            vec4 b = vec4(ORTVK_TEXEL(1, p.b, ib));
            [[dont_unroll]] for (uint j = 0u; j < end; j += step)
                ORTVK_SET4(2, p.c, e + j, apply4(ORTVK_TEXEL4(0, p.a, ia + j), b));
        } else {
            [[dont_unroll]] for (uint j = 0u; j < end; j += step)
                ORTVK_SET4(2, p.c, e + j, apply4(ORTVK_TEXEL4(0, p.a, ia + j), ORTVK_TEXEL4(1, p.b, ib + j)));
        }
        return;
    }
    [[dont_unroll]] for (uint j = 0u; j < RUN && col + j < len; j += 4u) {
        vec4 a = va ? ORTVK_TEXEL4(0, p.a, ia + j) : vec4(ORTVK_TEXEL(0, p.a, ia));
        vec4 b = vb ? ORTVK_TEXEL4(1, p.b, ib + j) : vec4(ORTVK_TEXEL(1, p.b, ib));
        ORTVK_SET4(2, p.c, e + j, apply4(a, b));
    }
}

// Constant 1 = 2 (b) or 3 (a): one operand is one value a row of the last dim (a per-channel scale or bias: stride 0
// along it), the other, and c, contiguous; rows of 64 elements or more, a multiple of 4 (kernel_elementwise.c
// checks). An invocation takes 64 elements of c in flat order, so no invocation idles at a row's end; they span at
// most two rows, whose two values it loads first and picks per vec4 (a select, not a branch). Constant 1 = 4 (b)
// or 5 (a): the same for rows of any length of 64 or more, or offsets not a multiple of 16 bytes, element by
// element (the detector's 17 x 30 maps at 960x544: no index divided per element, as the general form does).
uint row_index(uint row, bool of_a)
{
    uint idx = 0u, r = row;
    for (int k = int(p.rank) - 2; k >= 0; k--) {
        uint d = p.dims[k];
        uint q = r / d;
        uint c = r - q * d;
        r = q;
        idx += c * (of_a ? p.sa[k] : p.sb[k]);
    }
    return idx;
}

void main_flat()
{
    uint e = ortvk_index() * RUN;
    if (e >= p.n) return;
    uint len = p.dims[p.rank - 1u];
    uint row = e / len, next = (row + 1u) * len, row1 = min(row + 1u, p.n / len - 1u);
    bool of_a = VEC == 3u || VEC == 5u;
    float s0 = of_a ? ORTVK_TEXEL(0, p.a, row_index(row, true)) : ORTVK_TEXEL(1, p.b, row_index(row, false));
    float s1 = of_a ? ORTVK_TEXEL(0, p.a, row_index(row1, true)) : ORTVK_TEXEL(1, p.b, row_index(row1, false));
    uint end = min(e + RUN, p.n);
    if (VEC >= 4u) {
        [[dont_unroll]] for (uint j = e; j < end; j++) {
            float s = j < next ? s0 : s1;
            ORTVK_SET(2, p.c, j, of_a ? apply(s, ORTVK_TEXEL(1, p.b, j)) : apply(ORTVK_TEXEL(0, p.a, j), s));
        }
        return;
    }
    if (end == e + RUN) { // no test per vec4 (lavapipe masks every load and store behind one)
        [[dont_unroll]] for (uint j = e; j < e + RUN; j += 4u) {
            vec4 s = vec4(j < next ? s0 : s1);
            ORTVK_SET4(2, p.c, j, of_a ? apply4(s, ORTVK_TEXEL4(1, p.b, j)) : apply4(ORTVK_TEXEL4(0, p.a, j), s));
        }
        return;
    }
    [[dont_unroll]] for (uint j = e; j < end; j += 4u) {
        vec4 s = vec4(j < next ? s0 : s1);
        ORTVK_SET4(2, p.c, j, of_a ? apply4(s, ORTVK_TEXEL4(1, p.b, j)) : apply4(ORTVK_TEXEL4(0, p.a, j), s));
    }
}

void main()
{
    if (VEC >= 2u) {
        main_flat();
        return;
    }
    if (VEC != 0u) {
        main_vec();
        return;
    }
    uint i = ortvk_index();
    if (i >= p.n) return;
    uint ia = 0u, ib = 0u, r = i;
    if (p.rank == 1u) { // same shapes, or a scalar: no division (costly where a driver runs lanes one by one)
        ia = i * p.sa[0];
        ib = i * p.sb[0];
    }
    for (int k = p.rank == 1u ? -1 : int(p.rank) - 1; k >= 0; k--) {
        uint d = p.dims[k];
        uint q = r / d;
        uint c = r - q * d;
        r = q;
        ia += c * p.sa[k];
        ib += c * p.sb[k];
    }
    ORTVK_SET(2, p.c, i, apply(ORTVK_TEXEL(0, p.a, ia), ORTVK_TEXEL(1, p.b, ib)));
}
