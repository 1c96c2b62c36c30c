// MaxPool and AveragePool over up to 3 spatial dims (fewer run with size-1 dims). Padding never counts for max;
// for average it counts only with count_include_pad (then the divisor is the kernel size, like ORT's CPU EP).
//
// Each output visits only the taps that touch the input: per dim the range [lo, hi) of kernel indices whose input
// index lies inside it, so a kernel far larger than the input costs what the input does. The host bounds every
// value so that this arithmetic stays within 32 bits. An output's taps (in d, h, w order) are split into passes of
// at most a few thousand, one dispatch each ([t0, t1)), each continuing from what the previous one stored (in a
// float scratch buffer, so that float16 tensors are rounded once): lavapipe silently ends a shader loop after about
// 65,535 iterations.
#version 460
#include "common.glsl"

layout(push_constant) uniform Push {
    uvec2 x, y, partial; // partial: one float per output between passes (0 when there is one pass)
    uint NC, ID, IH, IW, OD, OH, OW;
    uint KD, KH, KW, SD, SH, SW;
    int PD, PH, PW;
    uint DD, DH, DW;
    uint mode;     // 0 max, 1 average (padding excluded), 2 average (padding included)
    uint t0, t1;   // this pass's share of each output's taps
    uint flags;    // 1: the first pass (else it continues from partial), 2: the last (average: divide; store y),
                   // 4: max starts from -inf
    float divisor; // mode 2: the kernel's size
} p;

// The kernel indices k of one dim whose input index o S - P + k D lies in [0, I): [lo, hi).
void taps(uint o, uint S, int P, uint D, uint I, uint K, out uint lo, out uint hi)
{
    int start = int(o * S) - P;
    uint span = start < 0 ? I + uint(-start) : (I > uint(start) ? I - uint(start) : 0u);
    lo = start < 0 ? (uint(-start) + D - 1u) / D : 0u;
    hi = max(lo, min(K, (span + D - 1u) / D));
}

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
    uint dlo, dhi, hlo, hhi, wlo, whi;
    taps(od, p.SD, p.PD, p.DD, p.ID, p.KD, dlo, dhi);
    taps(oh, p.SH, p.PH, p.DH, p.IH, p.KH, hlo, hhi);
    taps(ow, p.SW, p.PW, p.DW, p.IW, p.KW, wlo, whi);
    uint nh = hhi - hlo, nw = whi - wlo;
    uint n = (dhi - dlo) * nh * nw;
    // The first input index of each dim (wrapping arithmetic: the sums below land in [0, I)).
    uint d0 = od * p.SD - uint(p.PD), h0 = oh * p.SH - uint(p.PH), w0 = ow * p.SW - uint(p.PW);
    uint base = nc * p.ID * p.IH * p.IW;
    // Max starts from -FLT_MAX, as the CPU EP's MLAS pooling does (a window of only -inf gives -FLT_MAX), or from
    // -inf (flag 4: its loops for dilations and storage_order).
    float lowest = (p.flags & 4u) != 0u ? -ORTVK_INF : uintBitsToFloat(0xff7fffffu);
    float acc = (p.flags & 1u) != 0u ? (p.mode == 0u ? lowest : 0.0) : ORTVK_FLOAT(2, p.partial, i);
    uint end = min(p.t1, n);
    // Tap t0 as (kd, kh, kw) once; then counters that carry, with no division per tap.
    uint r = p.t0 / max(nw, 1u);
    uint kw = wlo + (p.t0 - r * nw), kh = hlo + r % max(nh, 1u), kd = dlo + r / max(nh, 1u);
    for (uint k = p.t0; k < end; k++) {
        uint id = d0 + kd * p.DD, ih = h0 + kh * p.DH, iw = w0 + kw * p.DW;
        float v = ORTVK_GET(0, p.x, base + (id * p.IH + ih) * p.IW + iw);
        if (p.mode == 0u) {
            if (v > acc || ortvk_isnan(v)) acc = v;
        } else {
            acc += v;
        }
        if (++kw == whi) {
            kw = wlo;
            if (++kh == hhi) {
                kh = hlo;
                kd++;
            }
        }
    }
    if ((p.flags & 2u) == 0u) {
        ORTVK_FLOAT(2, p.partial, i) = acc;
        return;
    }
    if (p.mode == 1u) acc = acc / float(n);
    else if (p.mode == 2u) acc = acc / p.divisor;
    ORTVK_SET(1, p.y, i, acc);
}
