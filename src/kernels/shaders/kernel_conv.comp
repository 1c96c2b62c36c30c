// Direct convolution, NCHW (1-D runs with H = 1): each invocation computes TM output channels (1, 2 or 4 of one
// group) by TW neighbouring columns, so every loaded input serves TM channels and every weight TW columns. Sums run
// over the group's channels and the kernel window, then the bias, in the order of ONNX's reference.
#version 460
#extension GL_EXT_control_flow_attributes : require
#include "common.glsl"

layout(push_constant) uniform Push {
    uvec2 x, w, b, y; // b is 0 without bias
    uint N, C, H, W;
    uint M, OH, OW;
    uint KH, KW, SH, SW;
    int PH, PW;
    uint DH, DW, G;
    uint TM; // output channels per invocation: 1, 2 or 4, dividing the channels of a group
} p;

#define TW 8u // output columns per invocation

void main()
{
    uint i = ortvk_index();
    uint col_blocks = (p.OW + TW - 1u) / TW;
    uint m_blocks = p.M / p.TM;
    if (i >= p.N * m_blocks * p.OH * col_blocks) return;
    uint ow0 = (i % col_blocks) * TW;
    uint t = i / col_blocks;
    uint oh = t % p.OH;
    t /= p.OH;
    uint m0 = (t % m_blocks) * p.TM;
    uint n = t / m_blocks;
    uint cg = p.C / p.G, mg = p.M / p.G;
    uint g = m0 / mg;

    float acc[4][TW];
    bool col_in[TW];
    int iw0[TW];
    [[unroll]] for (uint c = 0u; c < TW; c++) {
        col_in[c] = ow0 + c < p.OW;
        iw0[c] = int((ow0 + c) * p.SW) - p.PW;
        [[unroll]] for (uint j = 0u; j < 4u; j++) acc[j][c] = 0.0;
    }
    int ih0 = int(oh * p.SH) - p.PH;
    uint w_stride = cg * p.KH * p.KW; // between the weights of neighbouring output channels
    for (uint c = 0u; c < cg; c++) {
        uint xc = (n * p.C + g * cg + c) * p.H;
        uint wc = (m0 * cg + c) * p.KH;
        for (uint kh = 0u; kh < p.KH; kh++) {
            int ih = ih0 + int(kh * p.DH);
            if (ih < 0 || ih >= int(p.H)) continue;
            uint xrow = (xc + uint(ih)) * p.W;
            uint wrow = (wc + kh) * p.KW;
            for (uint kw = 0u; kw < p.KW; kw++) {
                float xv[TW];
                bool in_[TW];
                [[unroll]] for (uint c = 0u; c < TW; c++) {
                    int iw = iw0[c] + int(kw * p.DW);
                    in_[c] = col_in[c] && iw >= 0 && iw < int(p.W);
                    xv[c] = 0.0;
                    if (in_[c]) xv[c] = ORTVK_GET(0, p.x, xrow + uint(iw));
                }
                [[unroll]] for (uint j = 0u; j < 4u; j++) {
                    if (j >= p.TM) break;
                    float wv = ORTVK_GET(1, p.w, wrow + kw + j * w_stride);
                    [[unroll]] for (uint c = 0u; c < TW; c++) {
                        if (in_[c]) acc[j][c] += xv[c] * wv;
                    }
                }
            }
        }
    }
    [[unroll]] for (uint j = 0u; j < 4u; j++) {
        if (j >= p.TM) break;
        uint m = m0 + j;
        float bias = p.b != uvec2(0u) ? ORTVK_GET(2, p.b, m) : 0.0;
        uint row = ((n * p.M + m) * p.OH + oh) * p.OW;
        [[unroll]] for (uint c = 0u; c < TW; c++) {
            if (!col_in[c]) continue;
            float sum = acc[j][c];
            if (p.b != uvec2(0u)) sum += bias;
            ORTVK_SET(3, p.y, row + ow0 + c, sum);
        }
    }
}
