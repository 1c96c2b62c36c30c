// Transposed convolution, NCHW (1-D runs with H = 1), as a gather: output (oh, ow) takes input (ih, iw) through
// kernel tap (kh, kw) when oh = ih * SH - PH + kh * DH (likewise for w). Weights are (C, M / G, KH, KW).
#version 460
#include "common.glsl"

layout(push_constant) uniform Push {
    uvec2 x, w, b, y;
    uint N, C, H, W;
    uint M, OH, OW;
    uint KH, KW, SH, SW;
    int PH, PW;
    uint DH, DW, G;
} p;

void main()
{
    uint i = ortvk_index();
    uint total = p.N * p.M * p.OH * p.OW;
    if (i >= total) return;
    uint ow = i % p.OW;
    uint t = i / p.OW;
    uint oh = t % p.OH;
    t /= p.OH;
    uint m = t % p.M;
    uint n = t / p.M;
    uint cg = p.C / p.G, mg = p.M / p.G;
    uint g = m / mg, ml = m % mg;
    Elems X = Elems(p.x);
    Elems Wt = Elems(p.w);
    float sum = 0.0;
    for (uint c = 0u; c < cg; c++) {
        uint ci = g * cg + c;
        for (uint kh = 0u; kh < p.KH; kh++) {
            int th = int(oh) + p.PH - int(kh * p.DH);
            if (th < 0 || th % int(p.SH) != 0) continue;
            int ih = th / int(p.SH);
            if (ih >= int(p.H)) continue;
            for (uint kw = 0u; kw < p.KW; kw++) {
                int tw = int(ow) + p.PW - int(kw * p.DW);
                if (tw < 0 || tw % int(p.SW) != 0) continue;
                int iw = tw / int(p.SW);
                if (iw >= int(p.W)) continue;
                sum += ORTVK_GET(X, ((n * p.C + ci) * p.H + uint(ih)) * p.W + uint(iw)) *
                       ORTVK_GET(Wt, ((ci * mg + ml) * p.KH + kh) * p.KW + kw);
            }
        }
    }
    if (p.b != uvec2(0u)) sum += ORTVK_GET(Elems(p.b), m);
    ORTVK_SET(Elems(p.y), i, sum);
}
