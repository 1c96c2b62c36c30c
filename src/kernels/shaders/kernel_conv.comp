// Direct convolution, NCHW (1-D runs with H = 1): one invocation per output element sums its group's input
// channels over the kernel window, then adds the bias, in the order of ONNX's reference.
#version 460
#include "common.glsl"

layout(push_constant) uniform Push {
    uvec2 x, w, b, y; // b is 0 without bias
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
    uint g = m / mg;
    Elems X = Elems(p.x);
    Elems Wt = Elems(p.w);
    float sum = 0.0;
    int ih0 = int(oh * p.SH) - p.PH, iw0 = int(ow * p.SW) - p.PW;
    for (uint c = 0u; c < cg; c++) {
        uint xc = (n * p.C + g * cg + c) * p.H;
        uint wc = (m * cg + c) * p.KH;
        for (uint kh = 0u; kh < p.KH; kh++) {
            int ih = ih0 + int(kh * p.DH);
            if (ih < 0 || ih >= int(p.H)) continue;
            uint xrow = (xc + uint(ih)) * p.W;
            uint wrow = (wc + kh) * p.KW;
            for (uint kw = 0u; kw < p.KW; kw++) {
                int iw = iw0 + int(kw * p.DW);
                if (iw < 0 || iw >= int(p.W)) continue;
                sum += ORTVK_GET(X, xrow + uint(iw)) * ORTVK_GET(Wt, wrow + kw);
            }
        }
    }
    if (p.b != uvec2(0u)) sum += ORTVK_GET(Elems(p.b), m);
    ORTVK_SET(Elems(p.y), i, sum);
}
