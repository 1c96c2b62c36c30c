// MatMulInteger (FN 0), ConvInteger (FN 1), QLinearMatMul (FN 2) and QLinearConv (FN 5; FN 3 and 4 gather the last
// two's parameters first): int32 sums of products of 8-bit operands less their zero points, one output element an
// invocation. The sums wrap modulo 2^32 like MLAS's int32 accumulators (the same sum modulo 2^32 in any order). The
// convolutions' padding reads as the input's zero point (ORT's CPU EP pads its im2col buffer with it), so padded taps
// add nothing. QLinearMatMul and QLinearConv requantize the sum (plus QLinearConv's bias, wrapping) as MLAS does:
// float(sum) * (a_scale * b_scale[c] / y_scale), saturated and rounded half to even.
#version 460
#extension GL_EXT_shader_8bit_storage : require
#define ORTVK_BYTES
#include "common.glsl"
#include "quant.glsl"

layout(push_constant) uniform Push {
    uvec2 a, b, za, zb, y;
    uint flags; // 1: a is int8, 2: b is int8, 4: zb per column (MatMulInteger) / per output channel (ConvInteger),
                // a scale per output channel (QLinearConv), 8: y is int8 (QLinearMatMul, QLinearConv)
    uint d[16]; // MatMulInteger, QLinearMatMul: M, N, K, batches, a's and b's batch strides; the convolutions: see
                // conv_sum()
} p;

layout(constant_id = 0) const uint FN = 0u;

int byte_of(uint n, uint offset, uint i, bool s8)
{
    uint v = uint(ortvk_bytes[n].v[offset + i]);
    return s8 ? int(v << 24) >> 24 : int(v);
}

int zero_point(uint n, uvec2 ref, uint i, bool s8)
{
    return ref == uvec2(0u) ? 0 : byte_of(n, ref.x, i, s8);
}

// The sum of output element i of the (batched) product less the zero points za and zb (of its column n).
uint matmul_sum(uint i, int za, int zb)
{
    uint M = p.d[0], N = p.d[1], K = p.d[2];
    uint n = i % N, m = (i / N) % M, batch = i / (M * N);
    bool sa = (p.flags & 1u) != 0u, sb = (p.flags & 2u) != 0u;
    uint a0 = p.a.x + batch * p.d[4] + m * K, b0 = p.b.x + batch * p.d[5] + n;
    uint acc = 0u;
    ORTVK_FOR(k, 0u, K) {
        acc += uint((byte_of(0, a0, k, sa) - za) * (byte_of(1, b0, k * N, sb) - zb));
    }
    return acc;
}

void matmul(uint i)
{
    if (i >= p.d[0] * p.d[1] * p.d[3]) return;
    bool sa = (p.flags & 1u) != 0u, sb = (p.flags & 2u) != 0u;
    uint n = i % p.d[1];
    int za = zero_point(2, p.za, 0u, sa), zb = zero_point(3, p.zb, (p.flags & 4u) != 0u ? n : 0u, sb);
    ORTVK_WORD(4, p.y, i) = matmul_sum(i, za, zb);
}

// The requantized output element i (FN 2, 5): the sum (with a bias) times output scale c, into y's type. The
// parameters, gathered by FN 3 and 4 into the words of p.za: [0] a's zero point, [1] y's, [2] b's, then the output
// scales (float bits).
void requantize(uint i, uint sum, uint c)
{
    precise float f = float(int(sum)) * uintBitsToFloat(ORTVK_WORD(2, p.za, 3u + c));
    ORTVK_BYTE(4, p.y, i) = uint8_t(ortvk_saturate(f, int(ORTVK_WORD(2, p.za, 1u)), (p.flags & 8u) != 0u));
}

void qlinear_matmul(uint i)
{
    if (i >= p.d[0] * p.d[1] * p.d[3]) return;
    requantize(i, matmul_sum(i, int(ORTVK_WORD(2, p.za, 0u)), int(ORTVK_WORD(2, p.za, 2u))), 0u);
}

// FN 3: the zero points (a: p.a, b: p.b, y: p.zb; one byte each, b's first: the CPU EP takes a QLinearConv's zero
// points of b only when they are all equal) as words into p.y; FN 4: the d[6] output scales a_scale * b_scale[i] /
// y_scale (a: p.a, b: p.b, y: p.zb) after them, each rounded as the CPU computes it.
void qlinear_params(uint i)
{
    if (i >= p.d[6]) return;
    if (FN == 3u) {
        ORTVK_WORD(4, p.y, 0u) = uint(zero_point(0, p.a, 0u, (p.flags & 1u) != 0u));
        ORTVK_WORD(4, p.y, 1u) = uint(zero_point(3, p.zb, 0u, (p.flags & 8u) != 0u));
        ORTVK_WORD(4, p.y, 2u) = uint(zero_point(1, p.b, 0u, (p.flags & 2u) != 0u));
    } else {
        precise float ab = ORTVK_FLOAT(0, p.a, 0u) * ORTVK_FLOAT(1, p.b, i);
        ORTVK_WORD(4, p.y, 3u + i) = floatBitsToUint(divide(ab, ORTVK_FLOAT(3, p.zb, 0u)));
    }
}

// The first tap k (of dilation d) whose input index i0 + k d is >= 0, and the end of those below `size` (at most K).
uint taps_from(int i0, uint d)
{
    return i0 >= 0 ? 0u : (uint(-i0) + d - 1u) / d;
}

uint taps_to(int i0, uint d, uint size, uint K)
{
    if (i0 >= int(size)) return 0u;
    return min(K, (uint(int(size) - i0) + d - 1u) / d);
}

// Output element i of a convolution: its count and output channel. d: batches, C, H, W, M, KH, KW, OH, OW, groups,
// stride h/w, dilation h/w, pad h/w (begin).
uint conv_outputs()
{
    return p.d[0] * p.d[4] * p.d[7] * p.d[8];
}

uint conv_channel(uint i)
{
    return (i / (p.d[8] * p.d[7])) % p.d[4];
}

// The sum of output element i less the zero points za and zb.
uint conv_sum(uint i, int za, int zb)
{
    uint C = p.d[1], H = p.d[2], W = p.d[3], M = p.d[4], KH = p.d[5], KW = p.d[6], OH = p.d[7], OW = p.d[8];
    uint ox = i % OW, oy = (i / OW) % OH, m = conv_channel(i), batch = i / (OW * OH * M);
    uint Cg = C / p.d[9], g = m / (M / p.d[9]);
    bool sa = (p.flags & 1u) != 0u, sb = (p.flags & 2u) != 0u;
    uint x0 = p.a.x + (batch * C + g * Cg) * H * W, w0 = p.b.x + m * Cg * KH * KW;
    int iy0 = int(oy * p.d[10]) - int(p.d[14]), ix0 = int(ox * p.d[11]) - int(p.d[15]);
    // Only the taps inside the input: ky in [ky0, ky1), kx in [kx0, kx1), so an output over padding costs nothing.
    uint ky0 = taps_from(iy0, p.d[12]), ky1 = max(taps_to(iy0, p.d[12], H, KH), ky0);
    uint kx0 = taps_from(ix0, p.d[13]), kx1 = max(taps_to(ix0, p.d[13], W, KW), kx0);
    uint KHv = ky1 - ky0, KWv = kx1 - kx0;
    uint acc = 0u;
    ORTVK_FOR(t, 0u, Cg * KHv * KWv) {
        uint kx = kx0 + t % KWv, ky = ky0 + (t / KWv) % KHv, c = t / (KWv * KHv);
        uint iy = uint(iy0 + int(ky * p.d[12])), ix = uint(ix0 + int(kx * p.d[13]));
        int xv = byte_of(0, x0, (c * H + iy) * W + ix, sa);
        acc += uint((xv - za) * (byte_of(1, w0, (c * KH + ky) * KW + kx, sb) - zb));
    }
    return acc;
}

void conv(uint i)
{
    if (i >= conv_outputs()) return;
    bool sa = (p.flags & 1u) != 0u, sb = (p.flags & 2u) != 0u;
    int zb = zero_point(3, p.zb, (p.flags & 4u) != 0u ? conv_channel(i) : 0u, sb);
    ORTVK_WORD(4, p.y, i) = conv_sum(i, zero_point(2, p.za, 0u, sa), zb);
}

// QLinearConv: p.za the gathered parameters, p.zb the int32 bias (absent: 0).
void qlinear_conv(uint i)
{
    if (i >= conv_outputs()) return;
    uint m = conv_channel(i), bias = p.zb == uvec2(0u) ? 0u : ORTVK_WORD(3, p.zb, m);
    requantize(i, conv_sum(i, int(ORTVK_WORD(2, p.za, 0u)), int(ORTVK_WORD(2, p.za, 2u))) + bias,
               (p.flags & 4u) != 0u ? m : 0u);
}

void main()
{
    if (FN == 0u) matmul(ortvk_index());
    else if (FN == 1u) conv(ortvk_index());
    else if (FN == 2u) qlinear_matmul(ortvk_index());
    else if (FN == 5u) qlinear_conv(ortvk_index());
    else qlinear_params(ortvk_index());
}
