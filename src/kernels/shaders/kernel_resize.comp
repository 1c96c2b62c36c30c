// Resize (nearest, n-linear and bicubic) by tables the host computes per run exactly as ORT's CPU EP does: per
// output coordinate of each dim, two source indices and their weights (four, and their sum, for bicubic). Dims in
// `interp` are interpolated, the others take their first index. The host pads the rank to 4 with leading dims of 1,
// so every loop here has a constant count and is unrolled, and the interpolated dims and the count of leading dims
// that map onto themselves are specialization constants: arrays indexed by loop variables that stay loops live in
// memory on lavapipe, and it runs both sides of every branch under a mask (the rank-generic form took ~400 ns per
// output element there).
#version 460
#include "common.glsl"

layout(push_constant) uniform Push {
    uvec2 x, y, table;
    uint n;
    uint in_dims[4];
    uint out_dims[4];
    uint offset[4]; // first table entry (4 words each) of each dim
    float inv[4];   // 1 / out_dims[d], rounded
} p;

// Constant 0: INTERP, bit (3 - d) set where dim d is interpolated (ORT's X11, X21, X12, X22 order), plus 16 where the
// output has 2^24 elements or more (BIG: exact integer division). Constant 1: dims 0 .. SAME - 1 map each
// coordinate onto itself (no table).
layout(constant_id = 0) const uint FN = 0u;
layout(constant_id = 1) const uint SAME = 0u;
const uint INTERP = FN & 15u;
const bool BIG = (FN & 16u) != 0u;

// r / d. lavapipe scalarises integer division (8 divides a SIMD row); below 2^24 a float estimate is within 2 of
// the quotient (r is exact in float, inv and the product each rounded once), and two corrections make it exact.
uint resize_div(uint r, uint d, float inv)
{
    if (BIG) return r / d;
    uint q = uint(float(r) * inv);
    [[unroll]] for (uint t = 0u; t < 2u; t++) {
        int rem = int(r) - int(q * d);
        q = rem < 0 ? q - 1u : rem >= int(d) ? q + 1u : q;
    }
    return q;
}

// SAME = 5: nearest upsampling of the last two dims by exactly 2 (the host checked its tables: input index = output
// index / 2), rows of a multiple of 4: an invocation reads 4 input pixels as a vec4 and writes their 2x2 copies.
void main_up2()
{
    uint i = ortvk_index();
    uint H = p.in_dims[2], W = p.in_dims[3], blocks = W / 4u;
    if (i >= p.in_dims[0] * p.in_dims[1] * H * blocks) return;
    uint b = i % blocks, row = i / blocks; // row: (n, c, ih)
    vec4 v = ORTVK_TEXEL4(0, p.x, row * W + 4u * b);
    uint ih = row % H, nc = row / H, OW = 2u * W;
    uint o = (nc * 2u * H + 2u * ih) * OW + 8u * b;
    vec4 lo = v.xxyy, hi = v.zzww;
    ORTVK_SET4(1, p.y, o, lo);
    ORTVK_SET4(1, p.y, o + 4u, hi);
    ORTVK_SET4(1, p.y, o + OW, lo);
    ORTVK_SET4(1, p.y, o + OW + 4u, hi);
}

// SAME = 7: nearest upsampling of the last two dims by whole factors kh, kw (the host checked its tables: input
// index = output index / factor; it passes the factors in offset[2], offset[3]), the others unchanged, output rows a
// multiple of 4 long. An invocation takes 16 columns of one input row's output row, finds their input columns by
// counting (one division an invocation), and stores them as vec4s into each of the kh output rows the input row makes.
vec4 upk_value(uint src, inout uint ix, inout uint rem, uint kw)
{
    vec4 v;
    if (kw % 4u == 0u) { // the four share one input pixel
        v = vec4(ORTVK_TEXEL(0, p.x, src + ix));
        rem += 4u;
        if (rem == kw) {
            rem = 0u;
            ix++;
        }
        return v;
    }
    [[unroll]] for (uint c = 0u; c < 4u; c++) {
        v[c] = ORTVK_TEXEL(0, p.x, src + ix);
        rem++;
        if (rem == kw) {
            rem = 0u;
            ix++;
        }
    }
    return v;
}

void main_upk()
{
    uint i = ortvk_index();
    uint H = p.in_dims[2], W = p.in_dims[3], OW = p.out_dims[3], kh = p.offset[2], kw = p.offset[3];
    uint segs = (OW + 15u) / 16u;
    uint row = i / segs, ox = (i - row * segs) * 16u; // row: (n, c, ih)
    if (row >= p.in_dims[0] * p.in_dims[1] * H) return;
    uint ix = ox / kw, rem = ox - ix * kw, src = row * W;
    uint nc = row / H, ih = row - nc * H;
    uint o = (nc * p.out_dims[2] + ih * kh) * OW + ox;
    if (ox + 16u <= OW) { // no test per vec4 (lavapipe masks every load and store behind one)
        vec4 v0 = upk_value(src, ix, rem, kw), v1 = upk_value(src, ix, rem, kw);
        vec4 v2 = upk_value(src, ix, rem, kw), v3 = upk_value(src, ix, rem, kw);
        [[dont_unroll]] for (uint r = 0u; r < kh; r++, o += OW) {
            ORTVK_SET4(1, p.y, o, v0);
            ORTVK_SET4(1, p.y, o + 4u, v1);
            ORTVK_SET4(1, p.y, o + 8u, v2);
            ORTVK_SET4(1, p.y, o + 12u, v3);
        }
        return;
    }
    [[unroll]] for (uint j = 0u; j < 16u; j += 4u) {
        if (ox + j >= OW) return;
        vec4 v = upk_value(src, ix, rem, kw);
        [[dont_unroll]] for (uint r = 0u; r < kh; r++) ORTVK_SET4(1, p.y, o + r * OW + j, v);
    }
}

// SAME = 6: bicubic over dims 2 and 3 in ORT's order: per output, four rows each interpolated along the last dim
// (its weights already divided by their sum), then those four along dim 2, each times its weight, divided by the sum.
// Table entries of 9 words: 4 input indices (clamped), 4 weights, the sum (kernel_resize.c, cubic_entry).
void main_cubic()
{
    uint i = ortvk_index();
    if (i >= p.n) return;
    uint OW = p.out_dims[3], OH = p.out_dims[2];
    uint ox = i % OW, r = i / OW;
    uint oy = r % OH, plane = r / OH;
    uint ex = (p.offset[3] + ox) * 9u, ey = (p.offset[2] + oy) * 9u;
    uint W = p.in_dims[3], base = plane * p.in_dims[2] * W;
    float ysum = uintBitsToFloat(ORTVK_WORD(2, p.table, ey + 8u));
    precise float result = 0.0;
    [[unroll]] for (uint j = 0u; j < 4u; j++) {
        uint row = base + ORTVK_WORD(2, p.table, ey + j) * W;
        precise float along = 0.0;
        [[unroll]] for (uint k = 0u; k < 4u; k++) {
            float w = uintBitsToFloat(ORTVK_WORD(2, p.table, ex + 4u + k));
            precise float term = w * ORTVK_TEXEL(0, p.x, row + ORTVK_WORD(2, p.table, ex + k));
            along = along + term;
        }
        precise float weighted = along * uintBitsToFloat(ORTVK_WORD(2, p.table, ey + 4u + j));
        result = result + weighted / ysum;
    }
    ORTVK_SET(1, p.y, i, result);
}

void main()
{
    if (SAME == 5u) {
        main_up2();
        return;
    }
    if (SAME == 6u) {
        main_cubic();
        return;
    }
    if (SAME == 7u) {
        main_upk();
        return;
    }
    uint i = ortvk_index();
    if (i >= p.n) return;
    uint i0[4], i1[4];
    float w0[4], w1[4];
    uint r = i;
    [[unroll]] for (int d = 3; d >= 0; d--) {
        uint c = r;
        if (d > 0) {
            uint q = resize_div(r, p.out_dims[d], p.inv[d]);
            c = r - q * p.out_dims[d];
            r = q;
        }
        i0[d] = c;
        i1[d] = c;
        w0[d] = 1.0;
        w1[d] = 0.0;
        if (uint(d) >= SAME) {
            uint e = (p.offset[d] + c) * 4u;
            i0[d] = ORTVK_WORD(2, p.table, e);
            if ((INTERP & (1u << uint(3 - d))) != 0u) {
                i1[d] = ORTVK_WORD(2, p.table, e + 1u);
                w0[d] = uintBitsToFloat(ORTVK_WORD(2, p.table, e + 2u));
                w1[d] = uintBitsToFloat(ORTVK_WORD(2, p.table, e + 3u));
            }
        }
    }
    if (INTERP == 0u) {
        uint idx = ((i0[0] * p.in_dims[1] + i0[1]) * p.in_dims[2] + i0[2]) * p.in_dims[3] + i0[3];
        ORTVK_SET(1, p.y, i, ORTVK_TEXEL(0, p.x, idx));
        return;
    }
    float sum = 0.0;
    [[unroll]] for (uint k = 0u; k < 16u; k++) {
        if ((k & ~INTERP) != 0u) continue;
        uint idx = 0u;
        float w = 1.0;
        bool first = true;
        [[unroll]] for (uint d = 0u; d < 4u; d++) {
            bool hi = (k & (1u << (3u - d))) != 0u;
            idx = idx * p.in_dims[d] + (hi ? i1[d] : i0[d]);
            if ((INTERP & (1u << (3u - d))) != 0u) {
                float wd = hi ? w1[d] : w0[d];
                w = first ? wd : wd * w;
                first = false;
            }
        }
        sum += w * ORTVK_TEXEL(0, p.x, idx);
    }
    ORTVK_SET(1, p.y, i, sum);
}
