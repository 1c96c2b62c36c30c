// QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear's three steps, on 8-bit tensors (one byte an element,
// 8-bit storage) with float32 scales, as ORT's CPU EP computes them: MLAS's quantize (x / scale clamped to
// [qmin - zp, qmax - zp] with _mm_max_ps/_mm_min_ps, so NaN gives qmin; rounded half to even; plus zp) and its
// dequantize (float(x - zp) * scale). The function is specialization constant 0 (FN): 0 quantize, 1 dequantize,
// 2 DynamicQuantizeLinear's min and max per chunk, 3 its scale and zero point from them.
#version 460
#extension GL_EXT_shader_8bit_storage : require
#define ORTVK_BYTES
#include "common.glsl"
#include "quant.glsl"

layout(push_constant) uniform Push {
    uvec2 x, s, z, y; // FN 2: y holds the partial (min, max) pairs; FN 3: reads them from y, writes s and z
    uint n;           // elements (FN 3: partial pairs)
    uint inner;       // elements per step of the axis (per-axis scales); FN 2: elements per chunk
    uint channels;    // the axis' extent, 1 for one scale; FN 2: the chunks
    uint flags;       // 1: the 8-bit type is int8, 2: the quantized input is int32 (dequantize)
} p;

layout(constant_id = 0) const uint FN = 0u;

int zero_point(uint c)
{
    if (p.z == uvec2(0u)) return 0;
    uint b = uint(ORTVK_BYTE(2, p.z, c));
    return (p.flags & 1u) != 0u ? int(b << 24) >> 24 : int(b);
}

// The quantized value of v for scale s and zero point zp, as MLAS's vector kernel computes it.
uint quantize(float v, float s, int zp)
{
    return ortvk_saturate(divide(v, s), zp, (p.flags & 1u) != 0u);
}

void main()
{
    uint i = ortvk_index();
    if (FN == 3u) { // one invocation: fold the partials, then GetQuantizationParameter's uint8 scale and zero point
        if (i != 0u) return;
        float lo = 0.0, hi = 0.0; // the range always holds 0
        ORTVK_FOR(k, 0u, p.n) {
            float a = ORTVK_FLOAT(3, p.y, 2u * k), b = ORTVK_FLOAT(3, p.y, 2u * k + 1u);
            lo = a < lo ? a : lo;
            hi = b > hi ? b : hi;
        }
        float scale = hi == lo ? 1.0 : divide(hi - lo, 255.0);
        float zp = 0.0 - divide(lo, scale);
        zp = zp < 255.0 ? zp : 255.0; // std::min(255.f, zp)
        zp = 0.0 < zp ? zp : 0.0;     // std::max(0.f, zp)
        ORTVK_FLOAT(1, p.s, 0u) = scale;
        ORTVK_BYTE(2, p.z, 0u) = uint8_t(uint(roundEven(zp)));
        return;
    }
    if (FN == 2u) { // the min and max of chunk i (NaN skipped); `channels` counts the chunks
        if (i >= p.channels) return;
        float lo = ORTVK_INF, hi = -ORTVK_INF;
        uint begin = i * p.inner, end = min(begin + p.inner, p.n);
        ORTVK_FOR(k, begin, end) {
            float v = ORTVK_FLOAT(0, p.x, k);
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
        ORTVK_FLOAT(3, p.y, 2u * i) = lo;
        ORTVK_FLOAT(3, p.y, 2u * i + 1u) = hi;
        return;
    }
    if (i >= p.n) return;
    uint c = (i / p.inner) % p.channels;
    if (FN == 0u) {
        uint q = quantize(ORTVK_FLOAT(0, p.x, i), ORTVK_FLOAT(1, p.s, c), zero_point(c));
        ORTVK_BYTE(3, p.y, i) = uint8_t(q);
    } else {
        int v;
        if ((p.flags & 2u) != 0u) {
            v = int(ORTVK_WORD(0, p.x, i));
        } else {
            uint b = uint(ORTVK_BYTE(0, p.x, i));
            v = (p.flags & 1u) != 0u ? int(b << 24) >> 24 : int(b);
        }
        ORTVK_FLOAT(3, p.y, i) = float(v - zero_point(c)) * ORTVK_FLOAT(1, p.s, c);
    }
}
