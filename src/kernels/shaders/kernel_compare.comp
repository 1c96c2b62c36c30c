// Comparisons (float, float16, int32 or int64 operands) and logic (bool operands), to bool (one byte: 0 or 1), with
// ONNX multidirectional broadcasting over at most 6 coalesced dims like kernel_binary. The function is specialization
// constant 0: ORTVK_COMPARE_x (plus ORTVK_COMPARE_INT32 or _INT64 for integers) or ORTVK_LOGIC_x (kernel_ids.h; Not
// leaves b unused). int64 is read as two 32-bit words (no shaderInt64 needed).
#version 460
#extension GL_EXT_shader_8bit_storage : require
#define ORTVK_BYTES
#include "common.glsl"

layout(push_constant) uniform Push {
    uvec2 a, b, c;
    uint n, rank;
    uint dims[6];
    uint sa[6];
    uint sb[6];
} p;

layout(constant_id = 0) const uint FN = 0u;
const uint OP = FN >= ORTVK_COMPARE_INT32 ? FN & 7u : FN;

// x - y as -1, 0 or 1 for integer operands: int32 signed; int64 by its high words (signed), then its low ones.
int compare_ints(uint ia, uint ib)
{
    if (FN < ORTVK_COMPARE_INT64) {
        int x = int(ORTVK_WORD(0, p.a, ia)), y = int(ORTVK_WORD(1, p.b, ib));
        return x < y ? -1 : (x > y ? 1 : 0);
    }
    int xh = int(ORTVK_WORD(0, p.a, 2u * ia + 1u)), yh = int(ORTVK_WORD(1, p.b, 2u * ib + 1u));
    if (xh != yh) return xh < yh ? -1 : 1;
    uint xl = ORTVK_WORD(0, p.a, 2u * ia), yl = ORTVK_WORD(1, p.b, 2u * ib);
    return xl < yl ? -1 : (xl > yl ? 1 : 0);
}

bool apply(uint ia, uint ib)
{
    if (FN >= ORTVK_COMPARE_INT32) {
        int d = compare_ints(ia, ib);
        switch (OP) {
        case ORTVK_COMPARE_EQUAL: return d == 0;
        case ORTVK_COMPARE_GREATER: return d > 0;
        case ORTVK_COMPARE_LESS: return d < 0;
        case ORTVK_COMPARE_GREATER_EQUAL: return d >= 0;
        }
        return d <= 0;
    }
    if (FN >= ORTVK_LOGIC_AND) {
        bool x = uint(ORTVK_BYTE(0, p.a, ia)) != 0u;
        if (FN == ORTVK_LOGIC_NOT) return !x;
        bool y = uint(ORTVK_BYTE(1, p.b, ib)) != 0u;
        return FN == ORTVK_LOGIC_AND ? x && y : (FN == ORTVK_LOGIC_OR ? x || y : x != y);
    }
    float x = ORTVK_GET(0, p.a, ia), y = ORTVK_GET(1, p.b, ib);
    switch (FN) {
    case ORTVK_COMPARE_EQUAL: return ortvk_equal(x, y);
    case ORTVK_COMPARE_GREATER: return ortvk_less(y, x);
    case ORTVK_COMPARE_LESS: return ortvk_less(x, y);
    case ORTVK_COMPARE_GREATER_EQUAL: return ortvk_less_equal(y, x);
    }
    return ortvk_less_equal(x, y);
}

void main()
{
    uint i = ortvk_index();
    if (i >= p.n) return;
    uint ia = 0u, ib = 0u, r = i;
    for (int k = int(p.rank) - 1; k >= 0; k--) {
        uint d = p.dims[k];
        uint q = r / d;
        uint c = r - q * d;
        r = q;
        ia += c * p.sa[k];
        ib += c * p.sb[k];
    }
    ORTVK_BYTE(2, p.c, i) = uint8_t(apply(ia, ib) ? 1u : 0u);
}
