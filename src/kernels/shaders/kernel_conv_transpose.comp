// Transposed convolution, NCHW (1-D runs with H = 1), as a gather: output oh takes input ih through tap kh when
// oh = ih SH - PH + kh DH (likewise for w); weights are (C, M / G, KH, KW). Each invocation computes TM output
// channels (1, 2 or 4 of one group) and visits only the taps that reach its output, in ascending order. A fused
// element-wise chain (common.glsl's ortvk_chain, its per-channel steps included) applies to each stored result.
#version 460
#include "common.glsl"

// Only every step-th tap can reach a given output (step = S / gcd(D, S)), and the input index moves by
// di = step D / S from one such tap to the next: the first is found once per invocation.
layout(push_constant) uniform Push {
    uvec2 x, w, b, y;
    uint N, C, H, W;
    uint M, OH, OW;
    uint KH, KW, SH, SW;
    int PH, PW;
    uint DH, DW, G;
    uint TM;
    uint step_h, step_w;
    int di_h, di_w;
    uint unused;
    uvec2 chain; // a fused chain's step operands and per-channel operands (ORTVK_CHAIN_LOAD, ORTVK_CHAIN_CHANNEL)
} p;

// Output channel m's value v as stored: the fused chain on it, with m's per-channel operands (v without a chain).
float chained(uint m, float v)
{
    if (ORTVK_CHAIN_COUNT == 0u) return v;
    ORTVK_CHAIN_CHANNEL(4, p.chain, m, p.M);
    return ortvk_chain(v);
}

// The first tap k (< K) through which output o reads an input, and that input's index; k = K when none does.
uint first_tap(int o, int pad, uint K, uint S, uint D, uint step, out int input_index)
{
    input_index = 0;
    for (uint k = 0u; k < step && k < K; k++) {
        int t = o + pad - int(k * D);
        if (t < 0) return K; // t only falls as k grows
        if (t % int(S) == 0) {
            input_index = t / int(S);
            return k;
        }
    }
    return K;
}

// Constant 0: 1 where the kernel equals the stride (KH = SH, KW = SW) without dilation: the "upsampling" form, where
// each output reads exactly one tap of one input pixel per input channel, found without a search.
layout(constant_id = 0) const uint DIRECT = 0u;

void main_direct()
{
    uint i = ortvk_index();
    uint m_blocks = p.M / p.TM;
    if (i >= p.N * m_blocks * p.OH * p.OW) return;
    uint ow = i % p.OW;
    uint t = i / p.OW;
    uint oh = t % p.OH;
    t /= p.OH;
    uint m0 = (t % m_blocks) * p.TM;
    uint n = t / m_blocks;
    uint cg = p.C / p.G, mg = p.M / p.G;
    uint g = m0 / mg, ml0 = m0 % mg;
    uint ph = oh + uint(p.PH), pw = ow + uint(p.PW);
    uint ih = ph / p.SH, iw = pw / p.SW;
    uint kh = ph - ih * p.SH, kw = pw - iw * p.SW;
    uint taps = p.KH * p.KW;
    float acc[4] = float[4](0.0, 0.0, 0.0, 0.0);
    if (ih < p.H && iw < p.W) { // outputs past the input (output_padding) take the bias only
        uint xi = ((n * p.C + g * cg) * p.H + ih) * p.W + iw, hw = p.H * p.W;
        uint wi = ((g * cg) * mg + ml0) * taps + kh * p.KW + kw;
        // cg iterations: the host keeps them under lavapipe's loop cap.
        for (uint c = 0u; c < cg; c++, xi += hw, wi += mg * taps) {
            float xv = ORTVK_TEXEL(0, p.x, xi);
            [[unroll]] for (uint j = 0u; j < 4u; j++) {
                if (j < p.TM) acc[j] += xv * ORTVK_TEXEL(1, p.w, wi + j * taps);
            }
        }
    }
    [[unroll]] for (uint j = 0u; j < 4u; j++) {
        if (j >= p.TM) break;
        uint m = m0 + j;
        float sum = acc[j];
        if (p.b != uvec2(0u)) sum += ORTVK_GET(2, p.b, m);
        ORTVK_SET(3, p.y, ((n * p.M + m) * p.OH + oh) * p.OW + ow, chained(m, sum));
    }
}

// Constant 0 = 2: kernel and stride 2x2 without pads, outputs twice the input: an invocation takes one input pixel
// and writes the 2x2 outputs it reaches, for TM channels; one channel's 4 taps are one vec4 of the weights.
void main_blocks()
{
    uint i = ortvk_index();
    uint m_blocks = p.M / p.TM;
    if (i >= p.N * m_blocks * p.H * p.W) return;
    uint iw = i % p.W;
    uint t = i / p.W;
    uint ih = t % p.H;
    t /= p.H;
    uint m0 = (t % m_blocks) * p.TM;
    uint n = t / m_blocks;
    uint cg = p.C / p.G, mg = p.M / p.G;
    uint g = m0 / mg, ml0 = m0 % mg;
    uint hw = p.H * p.W;
    uint xi = ((n * p.C + g * cg) * p.H + ih) * p.W + iw;
    uint wi = ((g * cg) * mg + ml0) * 4u;
    vec4 acc[4] = vec4[4](vec4(0.0), vec4(0.0), vec4(0.0), vec4(0.0));
    // cg iterations: the host keeps them under lavapipe's loop cap.
    for (uint c = 0u; c < cg; c++, xi += hw, wi += mg * 4u) {
        float xv = ORTVK_TEXEL(0, p.x, xi);
        [[unroll]] for (uint j = 0u; j < 4u; j++) {
            if (j < p.TM) acc[j] += xv * ORTVK_TEXEL4(1, p.w, wi + 4u * j);
        }
    }
    [[unroll]] for (uint j = 0u; j < 4u; j++) {
        if (j >= p.TM) break;
        uint m = m0 + j;
        vec4 sum = acc[j];
        if (p.b != uvec2(0u)) sum += ORTVK_GET(2, p.b, m);
        uint o = ((n * p.M + m) * p.OH + 2u * ih) * p.OW + 2u * iw;
        if (ORTVK_CHAIN_COUNT != 0u) {
            ORTVK_CHAIN_CHANNEL(4, p.chain, m, p.M);
            sum = ortvk_chain4(sum);
        }
        ORTVK_SET(3, p.y, o, sum.x);
        ORTVK_SET(3, p.y, o + 1u, sum.y);
        ORTVK_SET(3, p.y, o + p.OW, sum.z);
        ORTVK_SET(3, p.y, o + p.OW + 1u, sum.w);
    }
}

// Constant 0 = 3 + log2(TM): the 2x2 form as register tiles. An invocation takes 4 << constant 1 input pixels of a
// row (vec4 reads) and 1 << (constant 0 - 3) output channels, 16 outputs a pixel-quad and channel in vec4
// accumulators: per input channel one x fetch per quad and one weight vec4 per output channel serve them all. The
// host asks for W a multiple of the pixels, x, w and y 16-byte aligned (vec4 reads and stores).
layout(constant_id = 1) const uint PIX_LOG = 0u;
#define TILE_TM (1u << ((DIRECT - 3u) & 3u))
#define TILE_Q (1u << PIX_LOG)

void main_tiles()
{
    uint i = ortvk_index();
    uint m_blocks = p.M / TILE_TM, quads = p.W / (4u * TILE_Q);
    if (i >= p.N * m_blocks * p.H * quads) return;
    uint iw = (i % quads) * 4u * TILE_Q;
    uint t = i / quads;
    uint ih = t % p.H;
    t /= p.H;
    uint m0 = (t % m_blocks) * TILE_TM;
    uint n = t / m_blocks;
    uint cg = p.C / p.G, mg = p.M / p.G;
    uint g = m0 / mg, ml0 = m0 % mg;
    uint hw = p.H * p.W;
    uint xi = ((n * p.C + g * cg) * p.H + ih) * p.W + iw;
    uint wi = ((g * cg) * mg + ml0) * 4u;
    // acc[(j Q + q) 4 + r]: channel j, quad q; r = 0, 1 the output row 2 ih (columns 8q.. and 8q + 4..), 2, 3 the next
    vec4 acc[TILE_TM * TILE_Q * 4u];
    [[unroll]] for (uint k = 0u; k < TILE_TM * TILE_Q * 4u; k++) acc[k] = vec4(0.0);
    // cg iterations: the host keeps them under lavapipe's loop cap.
    for (uint c = 0u; c < cg; c++, xi += hw, wi += mg * 4u) {
        vec4 xv[TILE_Q];
        [[unroll]] for (uint q = 0u; q < TILE_Q; q++) xv[q] = ORTVK_TEXEL4(0, p.x, xi + 4u * q);
        [[unroll]] for (uint j = 0u; j < TILE_TM; j++) {
            vec4 wv = ORTVK_TEXEL4(1, p.w, wi + 4u * j); // taps (0,0), (0,1), (1,0), (1,1)
            [[unroll]] for (uint q = 0u; q < TILE_Q; q++) {
                uint k = (j * TILE_Q + q) * 4u;
                acc[k] += xv[q].xxyy * wv.xyxy;
                acc[k + 1u] += xv[q].zzww * wv.xyxy;
                acc[k + 2u] += xv[q].xxyy * wv.zwzw;
                acc[k + 3u] += xv[q].zzww * wv.zwzw;
            }
        }
    }
    [[unroll]] for (uint j = 0u; j < TILE_TM; j++) {
        uint m = m0 + j;
        float bias = p.b != uvec2(0u) ? ORTVK_GET(2, p.b, m) : 0.0;
        uint o = ((n * p.M + m) * p.OH + 2u * ih) * p.OW + 2u * iw;
        ORTVK_CHAIN_CHANNEL(4, p.chain, m, p.M); // once a channel (nothing without per-channel steps)
        [[unroll]] for (uint q = 0u; q < TILE_Q; q++) {
            uint k = (j * TILE_Q + q) * 4u, oq = o + 8u * q;
            ORTVK_SET4(3, p.y, oq, ortvk_chain4(acc[k] + bias));
            ORTVK_SET4(3, p.y, oq + 4u, ortvk_chain4(acc[k + 1u] + bias));
            ORTVK_SET4(3, p.y, oq + p.OW, ortvk_chain4(acc[k + 2u] + bias));
            ORTVK_SET4(3, p.y, oq + p.OW + 4u, ortvk_chain4(acc[k + 3u] + bias));
        }
    }
}

void main()
{
    ORTVK_CHAIN_LOAD(4, p.chain);
    if (DIRECT >= 3u) {
        main_tiles();
        return;
    }
    if (DIRECT == 2u) {
        main_blocks();
        return;
    }
    if (DIRECT != 0u) {
        main_direct();
        return;
    }
    uint i = ortvk_index();
    uint m_blocks = p.M / p.TM;
    if (i >= p.N * m_blocks * p.OH * p.OW) return;
    uint ow = i % p.OW;
    uint t = i / p.OW;
    uint oh = t % p.OH;
    t /= p.OH;
    uint m0 = (t % m_blocks) * p.TM;
    uint n = t / m_blocks;
    uint cg = p.C / p.G, mg = p.M / p.G;
    uint g = m0 / mg, ml0 = m0 % mg;
    int ih0, iw0;
    uint kh0 = first_tap(int(oh), p.PH, p.KH, p.SH, p.DH, p.step_h, ih0);
    uint kw0 = first_tap(int(ow), p.PW, p.KW, p.SW, p.DW, p.step_w, iw0);
    uint taps = p.KH * p.KW; // between the weights of neighbouring output channels
    float acc[4] = float[4](0.0, 0.0, 0.0, 0.0);
    ORTVK_FOR(c, 0u, cg) {
        uint ci = g * cg + c;
        uint xc = (n * p.C + ci) * p.H;
        uint wc = (ci * mg + ml0) * p.KH;
        int ih = ih0;
        for (uint kh = kh0; kh < p.KH; kh += p.step_h, ih -= p.di_h) {
            if (ih < 0) break;
            if (ih >= int(p.H)) continue;
            uint xrow = (xc + uint(ih)) * p.W;
            uint wrow = (wc + kh) * p.KW;
            int iw = iw0;
            for (uint kw = kw0; kw < p.KW; kw += p.step_w, iw -= p.di_w) {
                if (iw < 0) break;
                if (iw >= int(p.W)) continue;
                float xv = ORTVK_TEXEL(0, p.x, xrow + uint(iw));
                [[unroll]] for (uint j = 0u; j < 4u; j++) {
                    if (j >= p.TM) break;
                    acc[j] += xv * ORTVK_TEXEL(1, p.w, wrow + kw + j * taps);
                }
            }
        }
    }
    [[unroll]] for (uint j = 0u; j < 4u; j++) {
        if (j >= p.TM) break;
        uint m = m0 + j;
        float sum = acc[j];
        if (p.b != uvec2(0u)) sum += ORTVK_GET(2, p.b, m);
        ORTVK_SET(3, p.y, ((n * p.M + m) * p.OH + oh) * p.OW + ow, chained(m, sum));
    }
}
