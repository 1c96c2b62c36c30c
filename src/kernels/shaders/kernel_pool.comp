// MaxPool and AveragePool over up to 3 spatial dims (fewer run with size-1 dims). Padding never counts for max;
// for average it counts only with count_include_pad (then the divisor is the kernel size, like ORT's CPU EP).
#version 460
#include "common.glsl"

layout(push_constant) uniform Push {
    uvec2 x, y;
    uint NC, ID, IH, IW, OD, OH, OW;
    uint KD, KH, KW, SD, SH, SW;
    int PD, PH, PW;
    uint DD, DH, DW;
    uint mode; // 0 max, 1 average (padding excluded), 2 average (padding included)
} p;

void main()
{
    uint i = ortvk_index();
    uint total = p.NC * p.OD * p.OH * p.OW;
    if (i >= total) return;
    uint ow = i % p.OW;
    uint t = i / p.OW;
    uint oh = t % p.OH;
    t /= p.OH;
    uint od = t % p.OD;
    uint nc = t / p.OD;
    int d0 = int(od * p.SD) - p.PD, h0 = int(oh * p.SH) - p.PH, w0 = int(ow * p.SW) - p.PW;
    uint base = nc * p.ID * p.IH * p.IW;
    float acc = p.mode == 0u ? -ORTVK_INF : 0.0;
    uint count = 0u;
    for (uint kd = 0u; kd < p.KD; kd++) {
        int id = d0 + int(kd * p.DD);
        if (id < 0 || id >= int(p.ID)) continue;
        for (uint kh = 0u; kh < p.KH; kh++) {
            int ih = h0 + int(kh * p.DH);
            if (ih < 0 || ih >= int(p.IH)) continue;
            for (uint kw = 0u; kw < p.KW; kw++) {
                int iw = w0 + int(kw * p.DW);
                if (iw < 0 || iw >= int(p.IW)) continue;
                float v = ORTVK_GET(0, p.x, base + (uint(id) * p.IH + uint(ih)) * p.IW + uint(iw));
                if (p.mode == 0u) {
                    if (v > acc || ortvk_isnan(v)) acc = v;
                } else {
                    acc += v;
                }
                count++;
            }
        }
    }
    if (p.mode == 1u) acc = acc / float(count);
    else if (p.mode == 2u) acc = acc / float(p.KD * p.KH * p.KW);
    ORTVK_SET(1, p.y, i, acc);
}
