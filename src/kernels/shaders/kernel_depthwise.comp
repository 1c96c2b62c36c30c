// Depthwise convolution, NCHW (one input channel per group, as many output channels; 1-D runs with H = 1): each
// invocation computes a tile of one channel's outputs, the taps of each output summed in ascending order (kernel row,
// then column), then the bias, then a fused element-wise chain (common.glsl's ortvk_chain). kernel_depthwise.c.
#version 460
#include "common.glsl"

layout(push_constant) uniform Push {
    uvec2 x, w, b, y; // b is 0 without bias
    uvec2 chain;      // a fused chain's step operands (common.glsl's ORTVK_CHAIN_LOAD)
    uint NC, C, H, W; // NC: images times channels
    uint OH, OW, KH, KW;
    uint SH, SW, DH, DW;
    int PH, PW;
    uvec2 r;          // a fused chain's residual (common.glsl's ORTVK_CHAIN_R), a tensor of y's shape, or 0
} p;

// Constant 0, the form: 0 the general one (any kernel, strides, dilations and pads; 8 columns of one row an
// invocation). 1-4 square windows without dilation whose column pad is half the kernel (the "same" convolutions and
// their stride-2 twins): 1 3x3 stride 1, 2 3x3 stride 2, 3 5x5 stride 1, 4 5x5 stride 2; an invocation computes
// TW columns of R rows (below), reading each input row once for all the R rows it serves. Bit 3 (8): rows read one value at
// a time (not as aligned vec4); bit 4 (16): results stored as vec4 (output rows of a multiple of 4, aligned).
// Constant 1, forms 1-4: the row stride where it differs from the column stride (1 or 2; 0: the same), as in
// PP-OCR's recognizer, whose depthwise Convs take strides (2, 1) and (1, 2).
layout(constant_id = 0) const uint FN = 0u;
layout(constant_id = 1) const uint ROW_STRIDE = 0u;
const uint FORM = FN & 7u;
const bool SCALAR = (FN & 8u) != 0u;
const bool STORE4 = (FN & 16u) != 0u;
const uint K = FORM <= 2u ? 3u : 5u;
const uint S = FORM % 2u == 1u ? 1u : 2u; // the column stride
const uint SR = ROW_STRIDE == 0u ? S : ROW_STRIDE;
const uint P = K / 2u;
// The tile: forms 1-4 16 columns by 4 rows (measured on lavapipe against 8 by 2, 8 by 4, 16 by 2, 8 by 8 and
// 16 by 8: 1.2-1.6x less CPU time), the general form 8 columns of one row.
const uint TW = FORM == 0u ? 8u : 16u;
const uint R = FORM == 0u ? 1u : 4u;
// Columns a row of the window spans: ow0 * S - 4 .. as NV aligned vec4 (tap kw of column c is xr[c S + kw + 4 - P]).
const uint NV = ((TW - 1u) * S + K - P + 4u + 3u) / 4u;
const uint ROWS_IN = (R - 1u) * SR + K;

// The channel (n * C + m) and the first output row and column of this invocation; false past the work.
// Consecutive invocations take consecutive tiles of one channel, then the next channel's: no lane idles at the end
// of a channel (workgroups of 64 that each kept to one channel left 48 of 448 lanes idle at 160x160 and 28 of 128
// at 80x80; the weights' reads, once an invocation, gained nothing from a workgroup's single channel on lavapipe).
bool depthwise_tile(out uint nc, out uint oh0, out uint ow0)
{
    uint col_blocks = (p.OW + TW - 1u) / TW;
    uint tiles = (p.OH + R - 1u) / R * col_blocks;
    uint i = ortvk_index();
    uint t = i % tiles;
    nc = i / tiles;
    ow0 = (t % col_blocks) * TW;
    oh0 = (t / col_blocks) * R;
    return nc < p.NC;
}

// Bias and chain, then the store of `v`, outputs `o` .. `o` + 3 of a row whose first `left` of them exist.
void depthwise_store4(uint o, vec4 v, uint left, float bias)
{
    if (p.b != uvec2(0u)) v += bias;
    vec4 r = vec4(0.0); // the residual, read at the outputs' indices (aligned as y where STORE4)
    if (ORTVK_CHAIN_R && STORE4 && left >= 4u) r = ORTVK_TEXEL4(5, p.r, o);
    else if (ORTVK_CHAIN_R) {
        [[unroll]] for (uint q = 0u; q < 4u; q++) r[q] = q < left ? ORTVK_TEXEL(5, p.r, o + q) : 0.0;
    }
    v = ORTVK_CHAIN_COUNT == 0u ? v : ortvk_chain4r(v, r);
    if (STORE4) {
        if (left >= 4u) ORTVK_SET4(3, p.y, o, v);
        return;
    }
    [[unroll]] for (uint q = 0u; q < 4u; q++) {
        if (q < left) ORTVK_SET(3, p.y, o + q, v[q]);
    }
}

void main_general()
{
    uint nc, oh, ow0;
    if (!depthwise_tile(nc, oh, ow0)) return;
    uint m = nc % p.C;
    float acc[TW];
    [[unroll]] for (uint c = 0u; c < TW; c++) acc[c] = 0.0;
    int ih0 = int(oh * p.SH) - p.PH;
    int iw0 = int(ow0 * p.SW) - p.PW;
    // Padded taps add 0 * w, as the CPU EP does (0 * inf is NaN). The host keeps KH times the blocks of KW under
    // lavapipe's loop cap.
    for (uint kh = 0u; kh < p.KH; kh++) {
        int ih = ih0 + int(kh * p.DH);
        bool row_in = ih >= 0 && ih < int(p.H);
        uint xrow = (nc * p.H + uint(row_in ? ih : 0)) * p.W;
        uint wrow = (m * p.KH + kh) * p.KW;
        ORTVK_FOR(kw, 0u, p.KW) {
            float wv = ORTVK_TEXEL(1, p.w, wrow + kw);
            [[unroll]] for (uint c = 0u; c < TW; c++) {
                int iw = iw0 + int(c * p.SW + kw * p.DW);
                float xv = row_in && iw >= 0 && iw < int(p.W) ? ORTVK_TEXEL(0, p.x, xrow + uint(iw)) : 0.0;
                acc[c] += xv * wv;
            }
        }
    }
    float bias = p.b != uvec2(0u) ? ORTVK_GET(2, p.b, m) : 0.0;
    uint row = (nc * p.OH + oh) * p.OW;
    [[unroll]] for (uint q = 0u; q < TW; q += 4u) {
        if (ow0 + q >= p.OW) break;
        depthwise_store4(row + ow0 + q, vec4(acc[q], acc[q + 1u], acc[q + 2u], acc[q + 3u]), p.OW - ow0 - q, bias);
    }
}

void main_square()
{
    uint nc, oh0, ow0;
    if (!depthwise_tile(nc, oh0, ow0)) return;
    uint m = nc % p.C;
    float wk[K * K];
    [[unroll]] for (uint k = 0u; k < K * K; k++) wk[k] = ORTVK_TEXEL(1, p.w, m * K * K + k);
    float acc[R][TW];
    [[unroll]] for (uint r = 0u; r < R; r++) {
        [[unroll]] for (uint c = 0u; c < TW; c++) acc[r][c] = 0.0;
    }
    int start = int(ow0 * S) - 4;
    int ih0 = int(oh0 * SR) - p.PH;
    // Input row ir serves output row r through kernel row ir - r SR: rows in ascending order keep each output's taps
    // in ascending order. Rows in the padding count as zeros times the weights, as the CPU EP's (0 * inf is NaN).
    [[unroll]] for (uint ir = 0u; ir < ROWS_IN; ir++) {
        int ih = ih0 + int(ir);
        bool row_in = ih >= 0 && ih < int(p.H);
        uint xrow = (nc * p.H + uint(row_in ? ih : 0)) * p.W;
        float xr[NV * 4u];
        if (SCALAR) {
            // Only the columns the taps use: 4 - P .. (TW - 1) S + K - P + 3 of the window.
            [[unroll]] for (uint q = 0u; q < NV * 4u; q++) {
                int col = start + int(q);
                bool used = q + P >= 4u && q + P < 4u + (TW - 1u) * S + K;
                xr[q] = used && row_in && col >= 0 && col < int(p.W) ? ORTVK_TEXEL(0, p.x, xrow + uint(col)) : 0.0;
            }
        } else {
            [[unroll]] for (uint q = 0u; q < NV; q++) {
                int col = start + int(q * 4u);
                vec4 v = row_in && col >= 0 && col < int(p.W) ? ORTVK_TEXEL4(0, p.x, xrow + uint(col)) : vec4(0.0);
                xr[q * 4u] = v.x, xr[q * 4u + 1u] = v.y, xr[q * 4u + 2u] = v.z, xr[q * 4u + 3u] = v.w;
            }
        }
        [[unroll]] for (uint r = 0u; r < R; r++) {
            if (ir < r * SR || ir - r * SR >= K) continue;
            uint kh = ir - r * SR;
            [[unroll]] for (uint kw = 0u; kw < K; kw++) {
                float wv = wk[kh * K + kw];
                [[unroll]] for (uint c = 0u; c < TW; c++) acc[r][c] += xr[c * S + kw + 4u - P] * wv;
            }
        }
    }
    float bias = p.b != uvec2(0u) ? ORTVK_GET(2, p.b, m) : 0.0;
    [[unroll]] for (uint r = 0u; r < R; r++) {
        if (oh0 + r >= p.OH) break;
        uint row = (nc * p.OH + oh0 + r) * p.OW;
        [[unroll]] for (uint q = 0u; q < TW; q += 4u) {
            if (ow0 + q >= p.OW) break;
            vec4 v = vec4(acc[r][q], acc[r][q + 1u], acc[r][q + 2u], acc[r][q + 3u]);
            depthwise_store4(row + ow0 + q, v, p.OW - ow0 - q, bias);
        }
    }
}

void main()
{
    ORTVK_CHAIN_LOAD(4, p.chain);
    if (FORM == 0u) main_general();
    else main_square();
}
