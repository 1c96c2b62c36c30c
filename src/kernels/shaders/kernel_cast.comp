// Cast between float, int32 and int64 (int64 as two 32-bit words, little-endian), with the rounding of C casts:
// float to integer truncates, integer to float rounds to nearest even. The float16 variant adds float <-> float16.
#version 460
#include "common.glsl"

layout(push_constant) uniform Push {
    uvec2 x, y;
    uint n, mode; // 0 f32->i32, 1 i32->f32, 2 f32->i64, 3 i64->f32, 4 i32->i64, 5 i64->i32, 6 f32->f16, 7 f16->f32
} p;

// Correctly rounded conversion of the 64-bit integer (hi, lo) to float.
float i64_to_float(uint lo, uint hi)
{
    bool neg = (hi & 0x80000000u) != 0u;
    if (neg) { // two's complement negate
        lo = ~lo + 1u;
        hi = ~hi + (lo == 0u ? 1u : 0u);
    }
    if (hi == 0u && lo < 16777216u) return neg ? -float(lo) : float(lo);
    int top = hi != 0u ? 32 + findMSB(hi) : findMSB(lo); // index of the leading bit, >= 24
    int shift = top - 23;                               // bits below the 24-bit mantissa
    uint mant, dropped_top, sticky; // kept bits, the first dropped bit, whether any later dropped bit is set
    if (shift >= 32) {
        mant = hi >> uint(shift - 32);
        uint below_mask = shift - 32 == 0 ? 0u : (1u << uint(shift - 32)) - 1u;
        uint below = hi & below_mask;
        dropped_top = shift - 32 == 0 ? (lo >> 31) : (below >> uint(shift - 33)) & 1u;
        uint rest = shift - 32 == 0 ? (lo & 0x7fffffffu) : ((below & ((1u << uint(shift - 33)) - 1u)) | lo);
        sticky = rest != 0u ? 1u : 0u;
    } else {
        mant = (lo >> uint(shift)) | (hi << uint(32 - shift));
        dropped_top = (lo >> uint(shift - 1)) & 1u;
        sticky = (lo & ((1u << uint(shift - 1)) - 1u)) != 0u ? 1u : 0u;
    }
    if (dropped_top == 1u && (sticky == 1u || (mant & 1u) == 1u)) mant += 1u;
    float r = ldexp(float(mant), shift); // mant <= 2^24: exact
    return neg ? -r : r;
}

void main()
{
    uint i = ortvk_index();
    if (i >= p.n) return;
    if (p.mode == 0u) {
        ORTVK_WORD(1, p.y, i) = uint(int(uintBitsToFloat(ORTVK_WORD(0, p.x, i))));
    } else if (p.mode == 1u) {
        ORTVK_WORD(1, p.y, i) = floatBitsToUint(float(int(ORTVK_WORD(0, p.x, i))));
    } else if (p.mode == 2u) {
        float f = trunc(uintBitsToFloat(ORTVK_WORD(0, p.x, i)));
        float a = abs(f);
        float h = floor(a * (1.0 / 4294967296.0));
        float l = a - h * 4294967296.0; // exact: a multiple of a's ULP below 2^32
        uint lo = uint(l), hi = uint(h);
        if (f < 0.0) { // two's complement negate
            lo = ~lo + 1u;
            hi = ~hi + (lo == 0u ? 1u : 0u);
        }
        ORTVK_WORD(1, p.y, 2u * i) = lo;
        ORTVK_WORD(1, p.y, 2u * i + 1u) = hi;
    } else if (p.mode == 3u) {
        uint lo = ORTVK_WORD(0, p.x, 2u * i), hi = ORTVK_WORD(0, p.x, 2u * i + 1u);
        ORTVK_WORD(1, p.y, i) = floatBitsToUint(i64_to_float(lo, hi));
    } else if (p.mode == 4u) {
        uint v = ORTVK_WORD(0, p.x, i);
        ORTVK_WORD(1, p.y, 2u * i) = v;
        ORTVK_WORD(1, p.y, 2u * i + 1u) = (v & 0x80000000u) != 0u ? 0xffffffffu : 0u;
    } else if (p.mode == 5u) {
        ORTVK_WORD(1, p.y, i) = ORTVK_WORD(0, p.x, 2u * i);
    }
#ifdef ORTVK_F16
    else if (p.mode == 6u) {
        ORTVK_SET(1, p.y, i, uintBitsToFloat(ORTVK_WORD(0, p.x, i)));
    } else if (p.mode == 7u) {
        ORTVK_WORD(1, p.y, i) = floatBitsToUint(ORTVK_GET(0, p.x, i));
    }
#endif
}
