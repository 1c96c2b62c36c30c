// MatMulInteger (FN 0), ConvInteger (FN 1), QLinearMatMul (FN 2) and QLinearConv (FN 5; FN 3 and 4 gather the last
// two's parameters first, FN 6 and 7 repack weights and the convolutions' input): int32 sums of products of 8-bit
// operands less their zero points, one output element an invocation or a block of them (constant 1). The sums wrap
// modulo 2^32 like MLAS's int32 accumulators (the same sum modulo 2^32 in any order). The convolutions' padding reads
// as the input's zero point (ORT's CPU EP pads its im2col buffer with it), so padded taps add nothing. QLinearMatMul
// and QLinearConv requantize the sum (plus QLinearConv's bias, wrapping) as MLAS does: float(sum) * (a_scale *
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

// Four 32-bit words of operand n at once, j counted in uvec4s from its start (a multiple of 16 bytes). The texel
// operands, a and b, are also bound as RGBA32UI texel views where the dispatch could (ORTVK_TEXELS; kernel_shaders.def:
// WORDS), which lavapipe reads 2-3x faster than storage buffers; the block forms read their repacked operands so.
layout(set = 0, binding = 0, std430) restrict buffer QmmWords4 { uvec4 v[]; } qmm_words4[ORTVK_BINDINGS];
layout(set = 0, binding = 1) uniform utextureBuffer qmm_texels4[ORTVK_BINDINGS];
#define QMM_WORDS4(n, ref, j) qmm_words4[n].v[((ref).x >> 4u) + uint(j)]
#define QMM_TEXEL4(n, ref, j) \
    (ORTVK_TEXELS != 0u ? texelFetch(qmm_texels4[n], int(((ref).x >> 4u) + uint(j))) : QMM_WORDS4(n, ref, j))

layout(constant_id = 0) const uint FN = 0u;
// Constant 1, how much an invocation computes. lavapipe loads from storage buffers one lane at a time, one 32-bit
// component or byte a load, and those loads were most of the time, so the larger forms load each byte once for
// several sums:
// 0: one output element.
// 1: a block. MatMulInteger and QLinearMatMul: 4 rows by 4 columns, a row k of B's 4 columns one word (N a multiple
//    of 4). The convolutions: 8 output channels of a group by 8 neighbouring columns, over input and weights
//    repacked (FN 7 and 6) so that a uvec4 holds 16 input channels' bytes of a pixel or of an output channel's tap.
// 2: the products' 8 x 8 block, a row's 16 k's of A a uvec4 (K a multiple of 16) and B repacked (FN 6) so that a
//    column's 16 k's are one too.
layout(constant_id = 1) const uint VARIANT = 0u;

// The 4 bytes of a word, first byte first, as int8 (s8) or uint8 values.
ivec4 bytes_of(uint word, bool s8)
{
    return s8 ? ivec4(uvec4(word) << uvec4(24u, 16u, 8u, 0u)) >> 24
              : ivec4((uvec4(word) >> uvec4(0u, 8u, 16u, 24u)) & 0xffu);
}

// The sum of the products of a's and b's 4 values.
int dot4(ivec4 a, ivec4 b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
}

// Byte i from `offset` of operand n, as int8 (s8) or uint8.
int byte_of(uint n, uint offset, uint i, bool s8)
{
    uint v = uint(ortvk_bytes[n].v[offset + i]);
    return s8 ? int(v << 24) >> 24 : int(v);
}

int zero_point(uint n, uvec2 ref, uint i, bool s8)
{
    return ref == uvec2(0u) ? 0 : byte_of(n, ref.x, i, s8);
}

// The products' blocks: RT rows by CT columns an invocation (variant 1: 4 x 4, N a multiple of 4; variant 2: 8 x 8).
const uint RT = VARIANT == 2u ? 8u : VARIANT == 1u ? 4u : 1u;
const uint CT = RT;

// The (batched) product's invocations: blocks of its M x N outputs. d: M, N, K, batches, A's and B's batch strides.
uint matmul_invocations()
{
    return p.d[3] * ((p.d[0] + RT - 1u) / RT) * ((p.d[1] + CT - 1u) / CT);
}

// Invocation i's first row m0, first column n0 and batch entry.
void matmul_output(uint i, out uint m0, out uint n0, out uint batch)
{
    uint columns = (p.d[1] + CT - 1u) / CT, rows = (p.d[0] + RT - 1u) / RT, rest = i / columns;
    n0 = (i - rest * columns) * CT;
    m0 = (rest % rows) * RT;
    batch = rest / rows;
}

// The sums of the block at row m0, column n0 of batch entry `batch` less the zero points za and zb[j] (of column
// n0 + j): acc[r * CT + j] is row m0 + r, column n0 + j; rows past M read row M - 1, columns past N are B's repacked
// zeros, and neither is stored. In variant 1, B's 4 columns at row k are one aligned 32-bit word (the host's choice: N
// a multiple of 4, B 4-byte aligned). In variant 2 a row's 16 k's of A are one aligned uvec4 (K a multiple of 16, A
// 16-byte aligned), and B is repacked by FN 6 so that a column's 16 k's are one too: 16 loads for 1,024 products.
void matmul_sums(uint m0, uint n0, uint batch, int za, int zb[8], out uint acc[64])
{
    uint M = p.d[0], N = p.d[1], K = p.d[2];
    bool sa = (p.flags & 1u) != 0u, sb = (p.flags & 2u) != 0u;
    uint a0[RT], b0 = batch * p.d[5] + n0; // byte offsets in A and B
    [[unroll]] for (uint r = 0u; r < RT; r++) a0[r] = batch * p.d[4] + min(m0 + r, M - 1u) * K;
    [[unroll]] for (uint k = 0u; k < RT * CT; k++) acc[k] = 0u;
    if (VARIANT == 2u) {
        uint K16 = K / 16u, block = (p.d[5] != 0u ? batch * ((N + CT - 1u) / CT) : 0u) + n0 / CT;
        [[dont_unroll]] for (uint k16 = 0u; k16 < K16; k16++) { // at most 32,768: K <= 2^19
            uvec4 aw[RT], bw[CT];
            [[unroll]] for (uint r = 0u; r < RT; r++) aw[r] = QMM_TEXEL4(0, p.a, (a0[r] >> 4u) + k16);
            [[unroll]] for (uint j = 0u; j < CT; j++) bw[j] = QMM_TEXEL4(1, p.b, (block * K16 + k16) * CT + j);
            [[unroll]] for (uint s = 0u; s < 4u; s++) {
                ivec4 bv[CT];
                [[unroll]] for (uint j = 0u; j < CT; j++) bv[j] = bytes_of(bw[j][s], sb) - zb[j];
                [[unroll]] for (uint r = 0u; r < RT; r++) {
                    ivec4 av = bytes_of(aw[r][s], sa) - za;
                    [[unroll]] for (uint j = 0u; j < CT; j++) acc[r * CT + j] += uint(dot4(av, bv[j]));
                }
            }
        }
        return;
    }
    ivec4 zb4;
    [[unroll]] for (uint j = 0u; j < 4u; j++) zb4[j] = zb[min(j, CT - 1u)];
    ORTVK_FOR(k, 0u, K) {
        ivec4 bv = CT == 4u ? bytes_of(ORTVK_WORD(1, p.b, (b0 + k * N) >> 2u), sb) - zb4
                            : ivec4(byte_of(1, p.b.x + b0, k * N, sb) - zb[0]);
        [[unroll]] for (uint r = 0u; r < RT; r++) {
            int av = byte_of(0, p.a.x + a0[r], k, sa) - za;
            [[unroll]] for (uint j = 0u; j < CT; j++) acc[r * CT + j] += uint(av * bv[j]);
        }
    }
}

// Output (r, j) of the block at m0, n0 of batch entry `batch`: its element, and whether it exists.
bool matmul_element(uint m0, uint n0, uint batch, uint r, uint j, out uint element)
{
    element = (batch * p.d[0] + m0 + r) * p.d[1] + n0 + j;
    return m0 + r < p.d[0] && n0 + j < p.d[1];
}

void matmul(uint i)
{
    if (i >= matmul_invocations()) return;
    bool sa = (p.flags & 1u) != 0u, sb = (p.flags & 2u) != 0u, per_column = (p.flags & 4u) != 0u;
    uint m0, n0, batch, acc[64], element;
    matmul_output(i, m0, n0, batch);
    int zb[8];
    [[unroll]] for (uint j = 0u; j < CT; j++)
        zb[j] = zero_point(3, p.zb, per_column ? min(n0 + j, p.d[1] - 1u) : 0u, sb); // columns past N: not stored
    matmul_sums(m0, n0, batch, zero_point(2, p.za, 0u, sa), zb, acc);
    [[unroll]] for (uint r = 0u; r < RT; r++) {
        [[unroll]] for (uint j = 0u; j < CT; j++) {
            if (matmul_element(m0, n0, batch, r, j, element)) ORTVK_WORD(4, p.y, element) = acc[r * CT + j];
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
    uint m0, n0, batch, acc[64], element;
    matmul_output(i, m0, n0, batch);
    int zb[8];
    [[unroll]] for (uint j = 0u; j < CT; j++) zb[j] = int(ORTVK_WORD(2, p.za, 2u));
    matmul_sums(m0, n0, batch, int(ORTVK_WORD(2, p.za, 0u)), zb, acc);
    [[unroll]] for (uint r = 0u; r < RT; r++) {
        [[unroll]] for (uint j = 0u; j < CT; j++) {
            if (matmul_element(m0, n0, batch, r, j, element)) requantize(element, acc[r * CT + j], 0u);
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
        precise float ab = ortvk_mul(ORTVK_FLOAT(0, p.a, 0u), ORTVK_FLOAT(1, p.b, i)); // a subnormal scale kept
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

// The convolutions' variant 1: blocks of CO = 8 output channels of a group (the last of a group may be partial) by
// PX = 8 neighbouring columns of a row, over x and w repacked (FN 7 and 6) so that one 16-byte load reads 16 input
// channels' bytes of a pixel or of a tap's weights: a step of 16 channels loads 16 uvec4s for 1,024 products.
// Variant 2, depthwise (a channel a group): 16 channels by 4 columns, x and w repacked alike, a tap's 5 uvec4s for 64
// products. The host passes its geometry as one group of C channels (d[9] = 1), so that the blocks, the repacked x
// and the outputs are counted as variant 1's; only the sums differ.
const uint CO = VARIANT == 1u ? 8u : VARIANT == 2u ? 16u : 1u;
const uint PX = VARIANT == 1u ? 8u : VARIANT == 2u ? 4u : 1u;
const uint ACC = CO * PX;

// A convolution's geometry: d: batches, C, H, W, M, KH, KW, OH, OW, groups, stride h/w, dilation h/w, pad h/w (begin).
// Its invocations: batches x groups x blocks of a group x OH x column blocks.
uint conv_blocks() // of a group
{
    return (p.d[4] / p.d[9] + CO - 1u) / CO;
}

uint conv_invocations()
{
    return p.d[0] * p.d[9] * conv_blocks() * p.d[7] * ((p.d[8] + PX - 1u) / PX);
}

// Invocation i's outputs: batch entry `batch`, group g's channels mg .. mg + CO - 1 (those below the group's
// M / groups) at row oy, columns ox .. ox + PX - 1 (those below OW).
struct conv_block {
    uint batch, g, mg, oy, ox;
};

conv_block conv_output(uint i)
{
    conv_block o;
    uint columns = (p.d[8] + PX - 1u) / PX, rest = i / columns, blocks = conv_blocks();
    o.ox = (i - rest * columns) * PX;
    o.oy = rest % p.d[7];
    rest /= p.d[7];
    o.mg = (rest % blocks) * CO;
    rest /= blocks;
    o.g = rest % p.d[9];
    o.batch = rest / p.d[9];
    return o;
}

// The next tap after (c, ky, kx) in the order (channel, ky, kx), ky in [ky0, ky1) and kx in [kx0, kx1).
void next_tap(inout uint c, inout uint ky, inout uint kx, uint ky0, uint ky1, uint kx0, uint kx1)
{
    bool next_row = ++kx == kx1, next_plane = next_row && ky + 1u == ky1;
    kx = next_row ? kx0 : kx;
    ky = next_plane ? ky0 : ky + (next_row ? 1u : 0u);
    c += next_plane ? 1u : 0u;
}

// The repacked x's uvec4s of the PX columns ix0 + q * stride + kx * dilation of a row (its first uvec4 `row`); a
// column outside the input reads za4, x's zero point in each byte.
void columns_of(uint row, int ix0, uint kx, uint za4, out uvec4 xw[PX])
{
    [[unroll]] for (uint q = 0u; q < PX; q++) {
        int ix = ix0 + int(q * p.d[11] + kx * p.d[13]);
        xw[q] = ix >= 0 && ix < int(p.d[3]) ? QMM_TEXEL4(0, p.a, row + uint(ix)) : uvec4(za4);
    }
}

// The first element of tap row ky (dilation p.d[12]) of channel plane c from x0, in the plane's rows of W, for an
// output row whose first input row is iy0: uvec4s of the repacked x (variants 1, 2) or bytes of x (variant 0).
uint conv_row(uint x0, uint c, int iy0, uint ky)
{
    return x0 + (c * p.d[2] + uint(iy0 + int(ky * p.d[12]))) * p.d[3];
}

// The sums of block o's outputs less the zero points za and zb: acc[j * PX + q] is the group's channel o.mg + j at
// column o.ox + q. The taps visited run (channel, ky, kx) with counters rather than divisions (lavapipe divides
// integers lane by lane), over the kx any of the PX columns reaches inside the input; a column's taps outside it add
// nothing (x - za read as 0). In variants 1 and 2 they read the repacked x (p.a) and w (p.b), variant 1's channel
// counter counting steps of 16 channels, in a loop of at most 32,768 steps (the host's choice; lavapipe's cap is
// 65,535); variant 0's loop is ORTVK_FOR.
void conv_sums(conv_block o, int za, int zb, out uint acc[ACC])
{
    uint H = p.d[2], W = p.d[3], KH = p.d[5], KW = p.d[6], Cg = p.d[1] / p.d[9], Mg = p.d[4] / p.d[9];
    uint steps = CO > 1u ? (Cg + 15u) / 16u : Cg, plane = (o.batch * p.d[9] + o.g) * steps;
    bool sa = (p.flags & 1u) != 0u, sb = (p.flags & 2u) != 0u;
    // Variants 1 and 2: uvec4 indices in the repacked x and w; variant 0: byte offsets.
    uint x0 = plane * H * W, w0 = (o.g * conv_blocks() + o.mg / CO) * steps * KH * KW;
    if (CO == 1u) x0 = p.a.x + plane * H * W, w0 = p.b.x + (o.g * Mg + o.mg) * Cg * KH * KW;
    int iy0 = int(o.oy * p.d[10]) - int(p.d[14]), ix0 = int(o.ox * p.d[11]) - int(p.d[15]);
    // Only the taps inside the input: ky in [ky0, ky1), kx in [kx0, kx1), so an output over padding costs nothing.
    uint ky0 = taps_from(iy0, p.d[12]), ky1 = max(taps_to(iy0, p.d[12], H, KH), ky0);
    uint kx0 = taps_from(ix0 + int((PX - 1u) * p.d[11]), p.d[13]), kx1 = max(taps_to(ix0, p.d[13], W, KW), kx0);
    uint za4 = (uint(za) & 0xffu) * 0x01010101u, taps = steps * (ky1 - ky0) * (kx1 - kx0);
    [[unroll]] for (uint k = 0u; k < ACC; k++) acc[k] = 0u;
    uint c = 0u, ky = ky0, kx = kx0;
    if (VARIANT == 2u) { // channel o.mg + j sums its own input channel's taps only
        uint c16 = o.mg / 16u;
        [[dont_unroll]] for (uint t = 0u; t < (ky1 - ky0) * (kx1 - kx0); t++) {
            uvec4 xw[PX], ww = QMM_TEXEL4(1, p.b, c16 * KH * KW + ky * KW + kx);
            columns_of(conv_row(x0, c16, iy0, ky), ix0, kx, za4, xw);
            [[unroll]] for (uint s = 0u; s < 4u; s++) {
                ivec4 wv = bytes_of(ww[s], sb) - zb;
                [[unroll]] for (uint q = 0u; q < PX; q++) {
                    ivec4 xv = bytes_of(xw[q][s], sa) - za;
                    [[unroll]] for (uint b = 0u; b < 4u; b++) acc[(4u * s + b) * PX + q] += uint(xv[b] * wv[b]);
                }
            }
            next_tap(c, ky, kx, ky0, ky1, kx0, kx1);
        }
        return;
    }
    if (CO > 1u) {
        [[dont_unroll]] for (uint t = 0u; t < taps; t++) {
            uint w = (c * KH + ky) * KW + kx;
            uvec4 xw[PX], ww[CO];
            columns_of(conv_row(x0, c, iy0, ky), ix0, kx, za4, xw);
            [[unroll]] for (uint j = 0u; j < CO; j++) ww[j] = QMM_TEXEL4(1, p.b, (w0 + w) * CO + j);
            [[unroll]] for (uint s = 0u; s < 4u; s++) {
                ivec4 xv[PX];
                [[unroll]] for (uint q = 0u; q < PX; q++) xv[q] = bytes_of(xw[q][s], sa) - za;
                [[unroll]] for (uint j = 0u; j < CO; j++) {
                    ivec4 wv = bytes_of(ww[j][s], sb) - zb;
                    [[unroll]] for (uint q = 0u; q < PX; q++) acc[j * PX + q] += uint(dot4(xv[q], wv));
                }
            }
            next_tap(c, ky, kx, ky0, ky1, kx0, kx1);
        }
        return;
    }
    ORTVK_FOR(t, 0u, taps) {
        uint row = conv_row(x0, c, iy0, ky), w = (c * KH + ky) * KW + kx;
        acc[0] += uint((byte_of(0, row, uint(ix0 + int(kx * p.d[13])), sa) - za) * (byte_of(1, w0, w, sb) - zb));
        next_tap(c, ky, kx, ky0, ky1, kx0, kx1);
    }
}

// The output channel of block o's channel j (of all M; past the group's last where o's block is partial).
uint conv_channel(conv_block o, uint j)
{
    return o.g * (p.d[4] / p.d[9]) + o.mg + j;
}

// The output element of block o's channel j at column q, and whether it exists.
bool conv_element(conv_block o, uint j, uint q, out uint element)
{
    element = ((o.batch * p.d[4] + conv_channel(o, j)) * p.d[7] + o.oy) * p.d[8] + o.ox + q;
    return o.mg + j < p.d[4] / p.d[9] && o.ox + q < p.d[8];
}

// ConvInteger: its zero points of one value each.
void conv(uint i)
{
    if (i >= conv_invocations()) return;
    bool sa = (p.flags & 1u) != 0u, sb = (p.flags & 2u) != 0u;
    conv_block o = conv_output(i);
    uint acc[ACC], element;
    conv_sums(o, zero_point(2, p.za, 0u, sa), zero_point(3, p.zb, 0u, sb), acc);
    [[unroll]] for (uint j = 0u; j < CO; j++) {
        [[unroll]] for (uint q = 0u; q < PX; q++) {
            if (conv_element(o, j, q, element)) ORTVK_WORD(4, p.y, element) = acc[j * PX + q];
        }
    }
}

// QLinearConv: p.za the gathered parameters, p.zb the int32 bias (absent: 0), a scale an output channel (flags 4).
void qlinear_conv(uint i)
{
    if (i >= conv_invocations()) return;
    conv_block o = conv_output(i);
    uint acc[ACC], element;
    conv_sums(o, int(ORTVK_WORD(2, p.za, 0u)), int(ORTVK_WORD(2, p.za, 2u)), acc);
    [[unroll]] for (uint j = 0u; j < CO; j++) {
        uint m = min(conv_channel(o, j), p.d[4] - 1u); // past the group's last: not stored
        uint bias = p.zb == uvec2(0u) ? 0u : ORTVK_WORD(3, p.zb, m), c = (p.flags & 4u) != 0u ? m : 0u;
        [[unroll]] for (uint q = 0u; q < PX; q++) {
            if (conv_element(o, j, q, element)) requantize(element, acc[j * PX + q] + bias, c);
        }
    }
}

// FN 6: weights p.a repacked into p.y for the block forms, in blocks of d[9] outputs (output channels or columns) by
// 16 summed terms (input channels or k's) by a tap: uvec4 ((block * K16 + k16) * T + t) * d[9] + j holds, 4 a word,
// the bytes of the block's output j at terms 16 k16 .. 16 k16 + 15 and tap t (terms past K and outputs past an entry's
// d[10]: 0). A block is block % U of entry block / U (a group, or a batch entry of B). d: U, entries, K, K16, T, then
// the byte strides of an entry, an output, a term and a tap, the block's outputs, an entry's outputs.
void pack_weights(uint i)
{
    uint U = p.d[0], K = p.d[2], K16 = p.d[3], T = p.d[4], width = p.d[9];
    if (i >= p.d[1] * U * K16 * T * width) return;
    uint j = i % width, rest = i / width, t = rest % T, k16 = (rest / T) % K16, block = rest / T / K16;
    uint out_j = (block % U) * width + j, from = p.a.x + (block / U) * p.d[5] + out_j * p.d[6] + t * p.d[8];
    uvec4 words = uvec4(0u);
    [[unroll]] for (uint b = 0u; b < 16u; b++) {
        uint k = 16u * k16 + b;
        if (k < K && out_j < p.d[10]) words[b / 4u] |= uint(ortvk_bytes[0].v[from + k * p.d[7]]) << (8u * (b % 4u));
    }
    QMM_WORDS4(4, p.y, i) = words;
}

// FN 7: a convolution's x (p.a; d its geometry) repacked into p.y for variant 1: uvec4 ((batch * groups + g) * C16 +
// c16) * H * W + pixel holds, 4 a word, the bytes of group g's channels 16 c16 .. 16 c16 + 15 at that pixel; channels
// past the group's read as x's zero point (p.za), so that they add nothing.
void pack_input(uint i)
{
    uint plane = p.d[2] * p.d[3], Cg = p.d[1] / p.d[9], C16 = (Cg + 15u) / 16u;
    if (i >= p.d[0] * p.d[9] * C16 * plane) return;
    uint pixel = i % plane, rest = i / plane, c16 = rest % C16, group = rest / C16; // group: batch * groups + g
    uint za = uint(zero_point(2, p.za, 0u, (p.flags & 1u) != 0u)) & 0xffu;
    uvec4 words = uvec4(0u);
    [[unroll]] for (uint b = 0u; b < 16u; b++) {
        uint c = 16u * c16 + b;
        uint v = c < Cg ? uint(ortvk_bytes[0].v[p.a.x + (group * Cg + c) * plane + pixel]) : za;
        words[b / 4u] |= v << (8u * (b % 4u));
    }
    QMM_WORDS4(4, p.y, i) = words;
}

void main()
{
    if (FN == 0u) matmul(ortvk_index());
    else if (FN == 1u) conv(ortvk_index());
    else if (FN == 2u) qlinear_matmul(ortvk_index());
    else if (FN == 5u) qlinear_conv(ortvk_index());
    else if (FN == 6u) pack_weights(ortvk_index());
    else if (FN == 7u) pack_input(ortvk_index());
    else qlinear_params(ortvk_index());
}
