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
} p;

layout(constant_id = 0) const uint FN = 0u;

float apply(float x, float y)
{
    switch (FN) {
    case ORTVK_BINARY_ADD: return x + y;
    case ORTVK_BINARY_SUB: return x - y;
    case ORTVK_BINARY_MUL: return x * y;
    case ORTVK_BINARY_DIV: return x / y;
    case ORTVK_BINARY_POW: return ortvk_pow(x, y);
    case ORTVK_BINARY_PRELU: return x < 0.0 ? x * y : x;      // PRelu (slope broadcast like b)
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
    bvec4 nan = bvec4(uvec4(greaterThan(floatBitsToUint(a) & 0x7fffffffu, uvec4(0x7f800000u))) |
                      uvec4(greaterThan(floatBitsToUint(b) & 0x7fffffffu, uvec4(0x7f800000u))));
    switch (FN) {
    case ORTVK_BINARY_ADD: return a + b;
    case ORTVK_BINARY_SUB: return a - b;
    case ORTVK_BINARY_MUL: return a * b;
    case ORTVK_BINARY_DIV: return a / b;
    case ORTVK_BINARY_PRELU: return mix(a, a * b, lessThan(a, vec4(0.0)));
    case ORTVK_BINARY_MAX: return mix(max(a, b), vec4(ORTVK_NAN), nan);
    case ORTVK_BINARY_MIN: return mix(min(a, b), vec4(ORTVK_NAN), nan);
    }
    vec4 r;
    for (int c = 0; c < 4; c++) r[c] = apply(a[c], b[c]);
    return r;
}

// Constant 1: 1 for the vectorised form, where each invocation maps 16 elements as 4 runs of 4 along the last
// (coalesced) dim, a multiple of 4 long; a and b step 0 or 1 along it (kernel_elementwise.c checks, and the offsets).
layout(constant_id = 1) const uint VEC = 0u;

void main_vec()
{
    uint e0 = ortvk_index() * 16u;
    uint last = p.rank - 1u;
    if (p.rank == 1u && e0 + 16u <= p.n) {
        // Same shapes or a scalar operand: no index arithmetic, no test per vec4 (lavapipe masks every load and
        // store behind one).
        [[unroll]] for (uint j = 0u; j < 16u; j += 4u) {
            uint e = e0 + j;
            vec4 a = p.sa[0] != 0u ? ORTVK_TEXEL4(0, p.a, e) : vec4(ORTVK_TEXEL(0, p.a, 0u));
            vec4 b = p.sb[0] != 0u ? ORTVK_TEXEL4(1, p.b, e) : vec4(ORTVK_TEXEL(1, p.b, 0u));
            ORTVK_SET4(2, p.c, e, apply4(a, b));
        }
        return;
    }
    if (p.dims[last] % 16u == 0u && e0 + 16u <= p.n) {
        // The 16 elements lie in one run of the last dim (a per-channel scale or bias, say): indices found once.
        uint ia = 0u, ib = 0u, r = e0;
        for (int k = int(last); k >= 0; k--) {
            uint d = p.dims[k];
            uint q = r / d;
            uint c = r - q * d;
            r = q;
            ia += c * p.sa[k];
            ib += c * p.sb[k];
        }
        [[unroll]] for (uint j = 0u; j < 16u; j += 4u) {
            vec4 a = p.sa[last] != 0u ? ORTVK_TEXEL4(0, p.a, ia + j) : vec4(ORTVK_TEXEL(0, p.a, ia));
            vec4 b = p.sb[last] != 0u ? ORTVK_TEXEL4(1, p.b, ib + j) : vec4(ORTVK_TEXEL(1, p.b, ib));
            ORTVK_SET4(2, p.c, e0 + j, apply4(a, b));
        }
        return;
    }
    [[unroll]] for (uint j = 0u; j < 16u; j += 4u) {
        uint e = e0 + j;
        if (e >= p.n) return;
        uint ia = 0u, ib = 0u, r = e;
        for (int k = int(last); k >= 0; k--) {
            uint d = p.dims[k];
            uint q = r / d;
            uint c = r - q * d;
            r = q;
            ia += c * p.sa[k];
            ib += c * p.sb[k];
        }
        vec4 a = p.sa[last] != 0u ? ORTVK_TEXEL4(0, p.a, ia) : vec4(ORTVK_TEXEL(0, p.a, ia));
        vec4 b = p.sb[last] != 0u ? ORTVK_TEXEL4(1, p.b, ib) : vec4(ORTVK_TEXEL(1, p.b, ib));
        ORTVK_SET4(2, p.c, e, apply4(a, b));
    }
}

void main()
{
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
