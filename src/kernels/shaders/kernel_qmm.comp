// MatMulInteger (FN 0), ConvInteger (FN 1), QLinearMatMul (FN 2) and QLinearConv (FN 5; FN 3 and 4 gather the last
// two's parameters first, FN 6 repacks the convolutions' weights): int32 sums of products of 8-bit operands less their
// zero points, one output element an invocation (the convolutions: up to 4 x 4, constant 1). The sums wrap modulo 2^32
// like MLAS's int32 accumulators (the same sum modulo 2^32 in any order). The convolutions' padding reads as the
// input's zero point (ORT's CPU EP pads its im2col buffer with it), so padded taps add nothing. QLinearMatMul and
// QLinearConv requantize the sum (plus QLinearConv's bias, wrapping) as MLAS does: float(sum) * (a_scale *
// b_scale[c] / y_scale), saturated and rounded half to even.
#version 460
#extension GL_EXT_shader_8bit_storage : require
#define ORTVK_BYTES
#include "common.glsl"
#include "quant.glsl"

layout(push_constant) uniform Push {
    uvec2 a, b, za, zb, y;
    uint flags; // 1: a is int8, 2: b is int8, 4: zb per column (MatMulInteger) / a scale per output channel
                // (QLinearConv), 8: y is int8 (QLinearMatMul, QLinearConv)
    uint d[16]; // MatMulInteger, QLinearMatMul: M, N, K, batches, a's and b's batch strides; the convolutions: see
                // conv_invocations()
} p;

layout(constant_id = 0) const uint FN = 0u;
// Constant 1: 1 where an invocation computes a block of 4 x 4 outputs (MatMulInteger's and QLinearMatMul's 4 rows by 4
// columns, the convolutions' 4 output channels by 4 columns), where one 32-bit load serves the 4 columns' or channels'
// weights: byte loads, which lavapipe makes one lane at a time, were most of the time. 0: one output an invocation.
layout(constant_id = 1) const uint VARIANT = 0u;
const uint TILE = VARIANT == 1u ? 4u : 1u;

int byte_of(uint n, uint offset, uint i, bool s8)
{
    uint v = uint(ortvk_bytes[n].v[offset + i]);
    return s8 ? int(v << 24) >> 24 : int(v);
}

int zero_point(uint n, uvec2 ref, uint i, bool s8)
{
    return ref == uvec2(0u) ? 0 : byte_of(n, ref.x, i, s8);
}

// The (batched) product's invocations: TILE x TILE blocks of its M x N outputs (N a multiple of TILE). d: M, N, K,
// batches, A's and B's batch strides.
uint matmul_invocations()
{
    return p.d[3] * ((p.d[0] + TILE - 1u) / TILE) * (p.d[1] / TILE);
}

// The sums of invocation i's outputs less the zero points za and zb[j] (of column n0 + j): acc[r * 4 + j] is row
// m0 + r, column n0 + j, of batch entry `batch`. In variant 1, B's 4 columns at row k are one aligned 32-bit word (the
// host's choice: N a multiple of 4, B 4-byte aligned); rows past M read row M - 1 and are not stored.
void matmul_sums(uint i, int za, ivec4 zb, out uint acc[16], out uint m0, out uint n0, out uint batch)
{
    uint M = p.d[0], N = p.d[1], K = p.d[2], columns = N / TILE, rows = (M + TILE - 1u) / TILE, rest = i / columns;
    n0 = (i - rest * columns) * TILE;
    m0 = (rest % rows) * TILE;
    batch = rest / rows;
    bool sa = (p.flags & 1u) != 0u, sb = (p.flags & 2u) != 0u;
    uint a0[4], b0 = batch * p.d[5] + n0;
    [[unroll]] for (uint r = 0u; r < 4u; r++) a0[r] = p.a.x + batch * p.d[4] + min(m0 + r, M - 1u) * K;
    [[unroll]] for (uint k = 0u; k < 16u; k++) acc[k] = 0u;
    ORTVK_FOR(k, 0u, K) {
        int bv[4];
        if (TILE == 4u) {
            uint word = ORTVK_WORD(1, p.b, (b0 + k * N) >> 2u);
            [[unroll]] for (uint j = 0u; j < 4u; j++)
                bv[j] = (sb ? int(word << (24u - 8u * j)) >> 24 : int((word >> (8u * j)) & 0xffu)) - zb[j];
        } else {
            bv[0] = byte_of(1, p.b.x + b0, k * N, sb) - zb[0];
        }
        [[unroll]] for (uint r = 0u; r < TILE; r++) {
            int av = byte_of(0, a0[r], k, sa) - za;
            [[unroll]] for (uint j = 0u; j < TILE; j++) acc[r * 4u + j] += uint(av * bv[j]);
        }
    }
}

void matmul(uint i)
{
    if (i >= matmul_invocations()) return;
    bool sa = (p.flags & 1u) != 0u, sb = (p.flags & 2u) != 0u, per_column = (p.flags & 4u) != 0u;
    uint M = p.d[0], N = p.d[1], n0 = (i % (N / TILE)) * TILE, m0, batch, acc[16];
    ivec4 zb;
    [[unroll]] for (uint j = 0u; j < 4u; j++) zb[j] = zero_point(3, p.zb, per_column ? n0 + min(j, TILE - 1u) : 0u, sb);
    matmul_sums(i, zero_point(2, p.za, 0u, sa), zb, acc, m0, n0, batch);
    [[unroll]] for (uint r = 0u; r < TILE; r++) {
        [[unroll]] for (uint j = 0u; j < TILE; j++) {
            if (m0 + r < M) ORTVK_WORD(4, p.y, (batch * M + m0 + r) * N + n0 + j) = acc[r * 4u + j];
        }
    }
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
    if (i >= matmul_invocations()) return;
    uint M = p.d[0], N = p.d[1], m0, n0, batch, acc[16];
    matmul_sums(i, int(ORTVK_WORD(2, p.za, 0u)), ivec4(int(ORTVK_WORD(2, p.za, 2u))), acc, m0, n0, batch);
    [[unroll]] for (uint r = 0u; r < TILE; r++) {
        [[unroll]] for (uint j = 0u; j < TILE; j++) {
            if (m0 + r < M) requantize((batch * M + m0 + r) * N + n0 + j, acc[r * 4u + j], 0u);
        }
    }
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

// The convolutions' variant 1: CO = 4 output channels (the group's channels a multiple of 4) by PX = 4 neighbouring
// pixels of a row, so that each input byte loaded serves 4 sums and each weight 4; p.b then holds the weights
// repacked by FN 6, a 32-bit word a tap for each 4 output channels.
const uint CO = TILE;
const uint PX = TILE;

// A convolution's invocations. d: batches, C, H, W, M, KH, KW, OH, OW, groups, stride h/w, dilation h/w, pad h/w
// (begin).
uint conv_invocations()
{
    return p.d[0] * (p.d[4] / CO) * p.d[7] * ((p.d[8] + PX - 1u) / PX);
}

// Invocation i's first output channel m, batch entry, row oy and first column ox: its outputs are channels m .. m +
// CO - 1 by columns ox .. ox + PX - 1 (those below OW).
void conv_output(uint i, out uint m, out uint batch, out uint oy, out uint ox)
{
    uint blocks = (p.d[8] + PX - 1u) / PX, rest = i / blocks;
    ox = (i - rest * blocks) * PX;
    oy = rest % p.d[7];
    rest /= p.d[7];
    m = (rest % (p.d[4] / CO)) * CO;
    batch = rest / (p.d[4] / CO);
}

// The sums of invocation i's outputs less the zero points za and zb: acc[j * 4 + q] is channel m + j at column
// ox + q. The taps visited run (channel, ky, kx) with counters rather than divisions (lavapipe divides integers lane by
// lane), over the kx any of the PX columns reaches inside the input; a column's taps outside it add nothing (x - za
// read as 0).
void conv_sums(uint i, int za, int zb, out uint acc[16])
{
    uint C = p.d[1], H = p.d[2], W = p.d[3], M = p.d[4], KH = p.d[5], KW = p.d[6];
    uint m, batch, oy, ox;
    conv_output(i, m, batch, oy, ox);
    uint Cg = C / p.d[9], g = m / (M / p.d[9]), taps = Cg * KH * KW;
    bool sa = (p.flags & 1u) != 0u, sb = (p.flags & 2u) != 0u;
    uint x0 = p.a.x + (batch * C + g * Cg) * H * W, w0 = p.b.x + m * taps;
    int iy0 = int(oy * p.d[10]) - int(p.d[14]), ix0 = int(ox * p.d[11]) - int(p.d[15]);
    // Only the taps inside the input: ky in [ky0, ky1), kx in [kx0, kx1), so an output over padding costs nothing.
    uint ky0 = taps_from(iy0, p.d[12]), ky1 = max(taps_to(iy0, p.d[12], H, KH), ky0);
    uint kx0 = taps_from(ix0 + int((PX - 1u) * p.d[11]), p.d[13]), kx1 = max(taps_to(ix0, p.d[13], W, KW), kx0);
    [[unroll]] for (uint k = 0u; k < 16u; k++) acc[k] = 0u;
    uint c = 0u, ky = ky0, kx = kx0;
    ORTVK_FOR(t, 0u, Cg * (ky1 - ky0) * (kx1 - kx0)) {
        uint row = x0 + (c * H + uint(iy0 + int(ky * p.d[12]))) * W;
        int xv[4];
        [[unroll]] for (uint q = 0u; q < PX; q++) {
            int ix = ix0 + int(q * p.d[11] + kx * p.d[13]);
            bool inside = PX == 1u || (ix >= 0 && ix < int(W));
            xv[q] = inside ? byte_of(0, row, uint(clamp(ix, 0, int(W) - 1)), sa) - za : 0;
        }
        uint w = (c * KH + ky) * KW + kx;
        if (CO == 4u) {
            uint word = ORTVK_WORD(1, p.b, (m / 4u) * taps + w);
            [[unroll]] for (uint j = 0u; j < 4u; j++) {
                int wv = (sb ? int(word << (24u - 8u * j)) >> 24 : int((word >> (8u * j)) & 0xffu)) - zb;
                [[unroll]] for (uint q = 0u; q < PX; q++) acc[j * 4u + q] += uint(xv[q] * wv);
            }
        } else {
            acc[0] += uint(xv[0] * (byte_of(1, w0, w, sb) - zb));
        }
        bool next_row = ++kx == kx1, next_plane = next_row && ky + 1u == ky1;
        kx = next_row ? kx0 : kx;
        ky = next_plane ? ky0 : ky + (next_row ? 1u : 0u);
        c += next_plane ? 1u : 0u;
    }
}

// Output element of channel m + j at column ox + q (of batch entry `batch`, row oy), and whether it exists.
bool conv_element(uint m, uint batch, uint oy, uint ox, uint j, uint q, out uint element)
{
    element = ((batch * p.d[4] + m + j) * p.d[7] + oy) * p.d[8] + ox + q;
    return ox + q < p.d[8];
}

// ConvInteger: its zero points of one value each.
void conv(uint i)
{
    if (i >= conv_invocations()) return;
    bool sa = (p.flags & 1u) != 0u, sb = (p.flags & 2u) != 0u;
    uint m, batch, oy, ox, acc[16], element;
    conv_output(i, m, batch, oy, ox);
    conv_sums(i, zero_point(2, p.za, 0u, sa), zero_point(3, p.zb, 0u, sb), acc);
    [[unroll]] for (uint j = 0u; j < CO; j++) {
        [[unroll]] for (uint q = 0u; q < PX; q++) {
            if (conv_element(m, batch, oy, ox, j, q, element)) ORTVK_WORD(4, p.y, element) = acc[j * 4u + q];
        }
    }
}

// QLinearConv: p.za the gathered parameters, p.zb the int32 bias (absent: 0), a scale an output channel (flags 4).
void qlinear_conv(uint i)
{
    if (i >= conv_invocations()) return;
    uint m, batch, oy, ox, acc[16], element;
    conv_output(i, m, batch, oy, ox);
    conv_sums(i, int(ORTVK_WORD(2, p.za, 0u)), int(ORTVK_WORD(2, p.za, 2u)), acc);
    [[unroll]] for (uint j = 0u; j < CO; j++) {
        uint bias = p.zb == uvec2(0u) ? 0u : ORTVK_WORD(3, p.zb, m + j), c = (p.flags & 4u) != 0u ? m + j : 0u;
        [[unroll]] for (uint q = 0u; q < PX; q++) {
            if (conv_element(m, batch, oy, ox, j, q, element)) requantize(element, acc[j * 4u + q] + bias, c);
        }
    }
}

// FN 6: the weights p.a ([M][taps] bytes) repacked into p.y for variant 1: word q * taps + t holds tap t of output
// channels 4q .. 4q + 3, one a byte (d[0]: M / 4, d[1]: taps).
void pack_weights(uint i)
{
    uint taps = p.d[1];
    if (i >= p.d[0] * taps) return;
    uint q = i / taps, t = i - q * taps, word = 0u;
    [[unroll]] for (uint j = 0u; j < 4u; j++)
        word |= uint(ortvk_bytes[0].v[p.a.x + (4u * q + j) * taps + t]) << (8u * j);
    ORTVK_WORD(4, p.y, i) = word;
}

void main()
{
    if (FN == 0u) matmul(ortvk_index());
    else if (FN == 1u) conv(ortvk_index());
    else if (FN == 2u) qlinear_matmul(ortvk_index());
    else if (FN == 5u) qlinear_conv(ortvk_index());
    else if (FN == 6u) pack_weights(ortvk_index());
    else qlinear_params(ortvk_index());
}
