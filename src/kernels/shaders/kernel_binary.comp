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
    case 0u: return x + y;
    case 1u: return x - y;
    case 2u: return x * y;
    case 3u: return x / y;
    case 4u: return ortvk_pow(x, y);
    case 5u: return x < 0.0 ? x * y : x;      // PRelu (slope broadcast like b)
    case 6u: return ortvk_isnan(x) || ortvk_isnan(y) ? ORTVK_NAN : max(x, y);
    case 7u: return ortvk_isnan(x) || ortvk_isnan(y) ? ORTVK_NAN : min(x, y);
    }
    return ORTVK_NAN;
}

void main()
{
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
    ORTVK_SET(2, p.c, i, apply(ORTVK_GET(0, p.a, ia), ORTVK_GET(1, p.b, ib)));
}
