// MaxPool and AveragePool over up to 3 spatial dims (fewer run with size-1 dims). Padding never counts for max;
// for average it counts only with count_include_pad (then the divisor is the kernel size, like ORT's CPU EP).
//
// Each output visits only the taps that touch the input: per dim the range [lo, hi) of kernel indices whose input
// index lies inside it, so a kernel far larger than the input costs what the input does. The host bounds every
// value so that this arithmetic stays within 32 bits. An output's taps (in d, h, w order) are split into passes of
// at most a few thousand (the global kernel's, 16 groups of 4 taps an iteration: about a million), one dispatch
// each ([t0, t1)), each continuing from what the previous one stored (in a float scratch buffer, so that float16
// tensors are rounded once): lavapipe silently ends a shader loop after about 65,535 iterations.
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
                   // 16: MLAS's is its 3-D one, 32: KIND_GLOBAL over planes that start 16-byte aligned (vec4 texels)
    float divisor; // mode 2: the kernel's size
} p;

// Each pool follows the CPU EP's kernel for the node, bit for bit: its max over NaN and windows of only -inf, its
// order of summing (see docs/kernels.md, "Limits and edge cases"). _mm_max_ps(a, b) is a > b ? a : b (NaN in b
// kept, NaN in a dropped); std::max(a, b) is a < b ? b : a (the reverse); MLAS's max starts from -FLT_MAX where it
// starts from anything, its sums from 0.
const uint KIND_GENERIC = 0u; // MLAS's generic kernels (and AveragePool-19's loops): taps in order; max: std::max
const uint KIND_FIRST = 1u;   // MaxPool's own loops (dilations, storage_order): the first tap, then each greater one
const uint KIND_VECTOR = 2u;  // MLAS's vector kernels: per column down the rows, then across (one pass)
const uint KIND_GLOBAL = 3u;  // MLAS's global kernel: 4 lanes, folded, then the tail
// Specialization constant 0: the kind (bits 0-1), so that a pipeline holds one kind's code; bit 2: no dilation in
// any dim; bit 3: fewer than 2^24 outputs. lavapipe divides integers lane by lane (x86 has no vector division): the
// 9 divisions of an output's index and its taps' ranges were most of a small pool's time (the recognizer's
// AveragePool of 6 taps: 1.8 ms for 19,200 outputs). Without dilation the ranges need none; below 2^24 the index's
// take a float quotient, corrected in integers (pool_div).
layout(constant_id = 0) const uint FN = 0u;
const uint KIND = FN & 3u;
const bool NO_DILATION = (FN & 4u) != 0u;
const bool SMALL_INDEX = (FN & 8u) != 0u;

// n / d for n < 2^24 and d >= 1 (SMALL_INDEX): the float quotient is within a few units of it (Vulkan lets a
// division be 2.5 ULP off), and the steps below put it in place; exact, as the integer division is.
uint pool_div(uint n, uint d)
{
    if (!SMALL_INDEX) return n / d;
    uint q = uint(float(n) / float(d));
    [[unroll]] for (uint s = 0u; s < 3u; s++) q -= q * d > n ? 1u : 0u;
    [[unroll]] for (uint s = 0u; s < 3u; s++) q += (q + 1u) * d <= n ? 1u : 0u;
    return q;
}
#define LOWEST uintBitsToFloat(0xff7fffffu)

float mm_max(float a, float b) { return a > b ? a : b; }
float std_max(float a, float b) { return a < b ? b : a; }

// The kernel indices k of one dim whose input index o S - P + k D lies in [0, I): [lo, hi).
void taps(uint o, uint S, int P, uint D, uint I, uint K, out uint lo, out uint hi)
{
    int start = int(o * S) - P;
    uint span = start < 0 ? I + uint(-start) : (I > uint(start) ? I - uint(start) : 0u);
    if (NO_DILATION) { // D = 1
        lo = start < 0 ? uint(-start) : 0u;
        hi = max(lo, min(K, span));
        return;
    }
    lo = start < 0 ? (uint(-start) + D - 1u) / D : 0u;
    hi = max(lo, min(K, (span + D - 1u) / D));
}

// MLAS's vector kernel: each input column of the window reduced down its rows (2-D: from the first row; 3-D: from
// -FLT_MAX or 0, over planes then rows) with _mm_max_ps in the columns its 4-wide loop covers and std::max in the
// last IW % 4 (average: +); then the window's columns, a column in the padding being -FLT_MAX (average: 0), with
// _mm_max_ps (+) from the first; average divides by the taps inside the input or by the kernel's size.
float pool_vector(uint base, uint d0, uint h0, uint w0, uint dlo, uint dhi, uint hlo, uint hhi, uint n)
{
    bool three = (p.flags & 16u) != 0u, max_pool = p.mode == 0u;
    uint vector_end = p.IW & ~3u;
    float pad = max_pool ? LOWEST : 0.0;
    precise float r = pad;
    for (uint kw = 0u; kw < p.KW; kw++) {
        uint iw = w0 + kw; // wraps past the left edge: then >= IW
        precise float col = pad;
        if (iw < p.IW) {
            bool first = !three;
            for (uint kd = dlo; kd < dhi; kd++) {
                for (uint kh = hlo; kh < hhi; kh++) {
                    float v = ORTVK_GET(0, p.x, base + ((d0 + kd) * p.IH + h0 + kh) * p.IW + iw);
                    col = first ? v : (!max_pool ? col + v : iw < vector_end ? mm_max(col, v) : std_max(col, v));
                    first = false;
                }
            }
        }
        r = kw == 0u ? col : (max_pool ? mm_max(r, col) : r + col);
    }
    return max_pool ? r : r / (p.mode == 1u ? float(n) : p.divisor);
}

// MLAS's global kernel (a window that is the whole input; also GlobalAveragePool's) over taps [t0, t1) of output
// i: lane l takes the taps 4 g + l of the groups g below n / 4, from -FLT_MAX with _mm_max_ps (max) or from 0 with
// + (average); the last pass folds the lanes (2 into 0, 3 into 1, then 1 into 0) and takes the last n % 4 taps
// with std::max or +. Between passes the lanes stay in partial (4 floats per output).
vec4 global_step(vec4 lanes, vec4 v) { return p.mode == 0u ? vec4(mm_max(lanes.x, v.x), mm_max(lanes.y, v.y),
                                                                  mm_max(lanes.z, v.z), mm_max(lanes.w, v.w))
                                                            : lanes + v; }

// The 4 taps from `at` (a multiple of 4): one vec4 texel where the planes start on a whole texel, else 4 texels.
// Texels: lavapipe fetches them several times faster than it loads from a storage buffer.
vec4 global_taps(uint at, bool aligned)
{
    return aligned ? ORTVK_TEXEL4(0, p.x, at)
                   : vec4(ORTVK_TEXEL(0, p.x, at), ORTVK_TEXEL(0, p.x, at + 1u), ORTVK_TEXEL(0, p.x, at + 2u),
                          ORTVK_TEXEL(0, p.x, at + 3u));
}

// Groups [g, g1) of the plane at base into the lanes, in order: blocks of 16 groups unrolled with no test per
// group (only the blocks count towards lavapipe's loop cap; the host's passes keep them below it), then the rest.
vec4 global_groups(vec4 lanes, uint base, uint g, uint g1, bool aligned)
{
    for (; g + 16u <= g1; g += 16u) {
        [[unroll]] for (uint j = 0u; j < 16u; j++)
            lanes = global_step(lanes, global_taps(base + 4u * (g + j), aligned));
    }
    for (; g < g1; g++) lanes = global_step(lanes, global_taps(base + 4u * g, aligned));
    return lanes;
}

float pool_global(uint i, uint base, uint n)
{
    vec4 lanes = (p.flags & 1u) != 0u ? vec4(p.mode == 0u ? LOWEST : 0.0)
                                       : vec4(ORTVK_FLOAT(2, p.partial, 4u * i), ORTVK_FLOAT(2, p.partial, 4u * i + 1u),
                                              ORTVK_FLOAT(2, p.partial, 4u * i + 2u),
                                              ORTVK_FLOAT(2, p.partial, 4u * i + 3u));
    uint groups = n / 4u, g0 = p.t0 / 4u, g1 = min(p.t1 / 4u, groups);
    if ((p.flags & 32u) != 0u) lanes = global_groups(lanes, base, g0, g1, true);
    else lanes = global_groups(lanes, base, g0, g1, false);
    if ((p.flags & 2u) == 0u) {
        for (uint l = 0u; l < 4u; l++) ORTVK_FLOAT(2, p.partial, 4u * i + l) = lanes[l];
        return 0.0;
    }
    vec4 folded = global_step(lanes, lanes.zwzw);
    precise float r = p.mode == 0u ? mm_max(folded.x, folded.y) : folded.x + folded.y;
    for (uint k = 4u * groups; k < n; k++) {
        float v = ORTVK_TEXEL(0, p.x, base + k);
        r = p.mode == 0u ? std_max(r, v) : r + v;
    }
    return p.mode == 0u ? r : r / float(n);
}

void main()
{
    uint i = ortvk_index();
    uint total = p.NC * p.OD * p.OH * p.OW;
    if (i >= total) return;
    uint t = pool_div(i, p.OW);
    uint ow = i - t * p.OW;
    uint t2 = pool_div(t, p.OH);
    uint oh = t - t2 * p.OH;
    uint nc = pool_div(t2, p.OD);
    uint od = t2 - nc * p.OD;
    uint dlo, dhi, hlo, hhi, wlo, whi;
    taps(od, p.SD, p.PD, p.DD, p.ID, p.KD, dlo, dhi);
    taps(oh, p.SH, p.PH, p.DH, p.IH, p.KH, hlo, hhi);
    taps(ow, p.SW, p.PW, p.DW, p.IW, p.KW, wlo, whi);
    uint nh = hhi - hlo, nw = whi - wlo;
    uint n = (dhi - dlo) * nh * nw;
    // The first input index of each dim (wrapping arithmetic: the sums below land in [0, I)).
    uint d0 = od * p.SD - uint(p.PD), h0 = oh * p.SH - uint(p.PH), w0 = ow * p.SW - uint(p.PW);
    uint base = nc * p.ID * p.IH * p.IW;
    if (KIND == KIND_VECTOR) {
        ORTVK_SET(1, p.y, i, pool_vector(base, d0, h0, w0, dlo, dhi, hlo, hhi, n));
        return;
    }
    if (KIND == KIND_GLOBAL) {
        float r = pool_global(i, base, n);
        if ((p.flags & 2u) != 0u) ORTVK_SET(1, p.y, i, r);
        return;
    }
    // An empty window (dilated taps that all miss the input) gives -FLT_MAX in every kernel of the CPU EP.
    float acc = (p.flags & 1u) != 0u ? (p.mode == 0u ? LOWEST : 0.0) : ORTVK_FLOAT(2, p.partial, i);
    uint end = min(p.t1, n);
    // Tap t0 as (kd, kh, kw) once; then counters that carry, with no division per tap.
    uint r = p.t0 / max(nw, 1u);
    uint kw = wlo + (p.t0 - r * nw), kh = hlo + r % max(nh, 1u), kd = dlo + r / max(nh, 1u);
    for (uint k = p.t0; k < end; k++) {
        uint id = d0 + kd * p.DD, ih = h0 + kh * p.DH, iw = w0 + kw * p.DW;
        float v = ORTVK_GET(0, p.x, base + (id * p.IH + ih) * p.IW + iw);
        if (p.mode == 0u) {
            acc = KIND == KIND_FIRST ? (k == 0u || v > acc ? v : acc) : std_max(acc, v);
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
