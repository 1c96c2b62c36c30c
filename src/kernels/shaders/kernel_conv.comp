// Direct convolution, NCHW (1-D runs with H = 1): each invocation computes TM output channels (1, 2 or 4 of one
// group; 4 or 8 with packed weights) by TW neighbouring columns (4 in variant 2), so every loaded input serves TM
// channels and every weight TW columns. Sums run over the group's channels and the kernel window, then the bias, in
// the order of ONNX's reference. Specialization constant FN: 0 weights as ONNX lays them out; else packed at Compile
// as [g][c][kh][kw][m of the group] (kernel_conv.c), read 4 channels per vec4: bit 0 TM = 4, bit 1 TM = 8, bit 2 the
// input rows read as vec4 (a 1x1 convolution of stride 1 without pads, run as one row of H * W columns), bit 3 the
// same for windows of 3 columns, pad 1 (main_row3; there bit 2 is stride 2, bit 4 3x3 windows and two output rows,
// without it 1x3 windows and one row).
// Specialization constant 1 (VARIANT): below; 2 is the general loops over rows of at most 4 columns, 4 is a
// GPU's form, tiles through shared memory (main_tiles), 5 and 6 sum few outputs of many taps in slices of the channels
// (main_packed, main_slices; 6 also adds the tiles' slices).
// A fused element-wise chain (common.glsl's ortvk_chain) applies to each stored result (conv_store).
#version 460
#include "common.glsl"

layout(push_constant) uniform Push {
    uvec2 x, w, b, y; // b is 0 without bias
    uint N, C, H, W;
    uint M, OH, OW;
    uint KH, KW, SH, SW;
    int PH, PW;
    uint DH, DW, G;
    uint TM; // output channels per invocation: 1, 2 or 4, dividing the channels of a group
    // The channels of a group this dispatch sums: all of them, or a range where one loop over them all would pass
    // lavapipe's loop cap (common.glsl); a range after the first adds to y's partial sums, the last adds the bias.
    // The tiles (variant 4) sum them all in one dispatch: there c_end is the taps a slice sums (K unsliced).
    uint c_begin, c_end;
    // Packed weights: 0, or the group's channels in this many slices (variants 5 and 6; 1 without them), an
    // invocation per block and slice (main_packed); the tiles (variant 4): 0 or 1, or K's slices of c_end taps
    uint slices;
    uvec2 chain;   // a fused chain's step operands (common.glsl's ORTVK_CHAIN_LOAD)
    // float16 tensors over several ranges: the partial sums in float32 (y's element count); float32 tensors with a
    // chain that reads a residual (ORTVK_CHAIN_R): the residual, a tensor of y's shape
    uvec2 partial;
} p;

#define TW 8u // output columns per invocation

layout(constant_id = 0) const uint FN = 0u;
// Specialization constant 1, the variant: 0 none; 1 the row3 form's results stored as vec4, 4 columns at a time
// (main_row3: output rows of a multiple of 4 columns, y and a residual 16-byte aligned, one range of channels); 2
// main's and main_packed's general loop with 4 columns an invocation (outputs of at most 4 columns, 1-D convolutions
// over a few frames: each column costs an input fetch a tap, wanted or not); 4 a GPU's tiles (main_tiles); 5 and 6
// packed weights in slices (main_packed, main_slices).
layout(constant_id = 1) const uint VARIANT = 0u;
const bool STORE4 = VARIANT == 1u;
const uint COLUMNS = VARIANT == 2u ? 4u : TW; // output columns an invocation of main_packed's general loop and main's
// Packed weights of few outputs and many taps (the recognizer's 1x3 Convs over 960 channels of 40 pixels: 75 blocks
// of outputs, 5 to a workgroup): variant 5 sums p.slices ranges of the group's channels in separate invocations,
// each range's partial sums stored in `partial` (float32, slice s's at s times y's element count); then variant 6
// adds them, slice after slice, and stores the results with the bias and the chain (main_slices). No residual
// then: its operand is `partial`.
const bool SLICED = VARIANT == 5u;
const bool SLICE_SUM = VARIANT == 6u;

// X and W are texel operands (kernel_device.c): read as texels where the dispatch could bind them.
#define WEIGHTS4(i) ORTVK_TEXEL4(1, p.w, i)
#define INPUT4(i) ORTVK_TEXEL4(0, p.x, i)

// The partial sums of the ranges before this dispatch's (p.c_begin > 0): float32 in `partial`, or y itself.
#define PARTIAL (!ORTVK_CHAIN_R && p.partial != uvec2(0u))
float conv_partial(uint i)
{
    return PARTIAL ? ORTVK_FLOAT(5, p.partial, i) : ORTVK_GET(3, p.y, i);
}

// Stores output element i's sum: a partial sum before the last range; after it, with the bias `bias` (read where
// there is one) and the fused element-wise chain, its residual read at i.
void conv_store(uint i, float sum, float bias, bool last)
{
    if (!last) {
        if (PARTIAL) ORTVK_FLOAT(5, p.partial, i) = sum;
        else ORTVK_SET(3, p.y, i, sum);
        return;
    }
    if (p.b != uvec2(0u)) sum += bias;
    ORTVK_SET(3, p.y, i, ortvk_chainr(sum, ORTVK_CHAIN_R ? ORTVK_TEXEL(5, p.partial, i) : 0.0));
}

// The same for outputs i .. i + 3 of a row (i a multiple of 4, y and the residual 16-byte aligned), after the last
// range: bias, then the chain on the 4 values (the same steps as conv_store's, value by value).
void conv_store4(uint i, vec4 sum, float bias)
{
    if (p.b != uvec2(0u)) sum += bias;
    vec4 r = ORTVK_CHAIN_R ? ORTVK_TEXEL4(5, p.partial, i) : vec4(0.0);
    ORTVK_SET4(3, p.y, i, ORTVK_CHAIN_COUNT == 0u ? sum : ortvk_chain4r(sum, r));
}

// A sliced form's partial sum of output i (slice `slice`): float32 in `partial`, the slices y's element count apart.
void conv_slice_store(uint slice, uint i, float sum)
{
    ORTVK_FLOAT(5, p.partial, slice * (p.N * p.M * p.OH * p.OW) + i) = sum;
}

// Variant 4, a GPU's form: the convolution as an implicit GEMM in tiles through shared memory (tiles.glsl),
// per image and group: the group's M / G output channels by OH x OW pixels over its C / G x KH x KW taps in the
// order of the other forms (channel, then kh, then kw; padded taps add 0 times their weight, as an im2col does),
// then the bias and the chain (a residual too). FN is 1 where the weights are packed ([g][c][kh][kw][m of the
// group]: A along m), else 0. `base` is the group's first weight, or the image's and group's first input.
// Few tiles over many taps (a deep layer's small maps: the tiles' loop over K is a chain of loads and barriers that
// leaves most of a GPU idle) sum K in p.slices slices of p.c_end taps, each tile's slices in workgroups of their own,
// into float32 partial sums (`partial`; no residual then), which variant 6 adds slice after slice (main_slices).
const bool ORTVK_TILES = VARIANT == 4u;
float ortvk_tile_a(uint base, uint m, uint k)
{
    return ORTVK_TEXEL(1, p.w, base + (FN != 0u ? k * (p.M / p.G) + m : m * (p.C / p.G * p.KH * p.KW) + k));
}
float ortvk_tile_b(uint base, uint k, uint n)
{
    uint taps = p.KH * p.KW, c = k / taps, r = k - c * taps, ky = r / p.KW, kx = r - ky * p.KW;
    uint oy = n / p.OW, ox = n - oy * p.OW;
    int iy = int(oy * p.SH + ky * p.DH) - p.PH, ix = int(ox * p.SW + kx * p.DW) - p.PW;
    if (iy < 0 || iy >= int(p.H) || ix < 0 || ix >= int(p.W)) return 0.0;
    return ORTVK_TEXEL(0, p.x, base + (c * p.H + uint(iy)) * p.W + uint(ix));
}
#include "tiles.glsl"

void main_tiles()
{
    uint mg = p.M / p.G, cg = p.C / p.G, K = cg * p.KH * p.KW, pixels = p.OH * p.OW, m0, n0, batch;
    uint slices = max(p.slices, 1u), entries = p.N * p.G;
    if (!ortvk_tile_of_workgroup(mg, pixels, entries * slices, m0, n0, batch)) return;
    uint slice = batch / entries; // the slices after each other, each of all the tiles
    batch -= slice * entries;
    uint image = batch / p.G, g = batch - image * p.G; // batch entries: image, then group
    uint k_begin = slices > 1u ? slice * p.c_end : 0u, k_end = slices > 1u ? min(K, k_begin + p.c_end) : K;
    vec4 acc[4];
    ortvk_tiles(m0, n0, mg, pixels, k_begin, k_end, g * mg * K, (image * p.C + g * cg) * p.H * p.W, FN == 0u, true,
                acc);
    [[unroll]] for (uint i = 0u; i < 4u; i++) {
        uint m = ortvk_tile_row(m0, i);
        if (m >= mg) continue;
        float bias = p.b != uvec2(0u) && slices == 1u ? ORTVK_GET(2, p.b, g * mg + m) : 0.0;
        [[unroll]] for (uint j = 0u; j < 4u; j++) {
            uint n = ortvk_tile_column(n0, j), at = (batch * mg + m) * pixels + n;
            if (n >= pixels) continue;
            if (slices > 1u) conv_slice_store(slice, at, acc[i][j]);
            else conv_store(at, acc[i][j], bias, true);
        }
    }
}

// Windows of 3 columns, pad 1 in W, dilation 1, rows of a multiple of 4 (FN bit 3): with FN bit 4, 3x3 windows of
// stride 1 (the "same" convolutions) or 2 in both dims (bit 2), two output rows an invocation; without it, one row
// (1x3, stride 1: the recognizer's last Convs). R3_ROWS output rows by TW columns by R3_TM channels (4 or 8) an
// invocation. An input row, columns S ow0 - 4 .. as aligned vec4 (zero outside the image), serves every output
// row whose window holds it, and each weight fetched every row; each output still sums its taps in the order of the
// other forms (channel, then kh, then kw).
const uint R3_KH = (FN & 16u) != 0u ? 3u : 1u;
const uint R3_ROWS = R3_KH == 3u ? 2u : 1u;
const uint R3_TM = (FN & 2u) != 0u ? 8u : 4u;
const uint R3_ACC = R3_ROWS * R3_TM / 4u;
const uint R3_S = (FN & 4u) != 0u ? 2u : 1u;
const uint R3_NV = R3_S == 1u ? 4u : 6u; // vec4 of an input row: columns S ow0 - 4 .. S ow0 + 4 NV - 5

// The block of outputs of a packed form's invocation: its pixel block `pb` (of `pixel_blocks`) and its channel
// block `mt` (of p.N times `m_blocks`), and with SLICED its slice; false past the work. With p.slices 0, a
// workgroup's 64 invocations share their output channels: the weights' index is uniform across them (one load serves
// the workgroup where a driver sees that), the inputs' differs by column block. Else an invocation per block and
// slice, the blocks of a slice after each other: pixel blocks, then channel blocks (one slice, without SLICED: few
// pixel blocks, whose invocations would leave most of a workgroup idle).
bool packed_block(uint pixel_blocks, uint m_blocks, out uint pb, out uint mt, out uint slice)
{
    if (p.slices != 0u) {
        uint i = ortvk_index(), blocks = p.N * m_blocks * pixel_blocks;
        slice = i / blocks;
        pb = i % pixel_blocks;
        mt = i % blocks / pixel_blocks;
        return slice < p.slices;
    }
    uint groups_per_m = (pixel_blocks + 63u) / 64u;
    uint wg = ortvk_workgroup();
    pb = (wg % groups_per_m) * 64u + gl_LocalInvocationID.x;
    mt = wg / groups_per_m;
    slice = 0u;
    return pb < pixel_blocks && mt < p.N * m_blocks;
}

// The channels of a group an invocation sums: the dispatch's range, or with SLICED slice `slice` of it.
void packed_channels(uint slice, out uint c_lo, out uint c_hi)
{
    c_lo = p.c_begin;
    c_hi = p.c_end;
    if (SLICED) {
        uint step = (p.c_end - p.c_begin + p.slices - 1u) / p.slices;
        c_lo = min(p.c_end, p.c_begin + slice * step);
        c_hi = min(p.c_end, c_lo + step);
    }
}


void main_row3()
{
    uint col_blocks = (p.OW + TW - 1u) / TW;
    uint pixel_blocks = (p.OH + R3_ROWS - 1u) / R3_ROWS * col_blocks;
    uint m_blocks = p.M / R3_TM;
    uint pb, mt, slice, c_lo, c_hi;
    if (!packed_block(pixel_blocks, m_blocks, pb, mt, slice)) return;
    packed_channels(slice, c_lo, c_hi);
    uint ow0 = (pb % col_blocks) * TW;
    uint oh0 = (pb / col_blocks) * R3_ROWS;
    uint m0 = (mt % m_blocks) * R3_TM;
    uint n = mt / m_blocks;
    uint cg = p.C / p.G, mg = p.M / p.G;
    uint g = m0 / mg, ml0 = m0 - g * mg;
    bool row_out[R3_ROWS], col_in[TW];
    vec4 acc[R3_ACC][TW];
    [[unroll]] for (uint q = 0u; q < TW; q++) col_in[q] = ow0 + q < p.OW;
    [[unroll]] for (uint r = 0u; r < R3_ROWS; r++) row_out[r] = oh0 + r < p.OH;
    [[unroll]] for (uint a = 0u; a < R3_ACC; a++) {
        [[unroll]] for (uint q = 0u; q < TW; q++) acc[a][q] = vec4(0.0);
    }
    if (p.c_begin > 0u) {
        [[unroll]] for (uint a = 0u; a < R3_ACC; a++) {
            uint r = a / (R3_TM / 4u);
            if (!row_out[r]) continue;
            [[unroll]] for (uint j = 0u; j < 4u; j++) {
                uint row = ((n * p.M + m0 + (a % (R3_TM / 4u)) * 4u + j) * p.OH + oh0 + r) * p.OW + ow0;
                [[unroll]] for (uint q = 0u; q < TW; q++) {
                    if (col_in[q]) acc[a][q][j] = conv_partial(row + q);
                }
            }
        }
    }
    for (uint c = c_lo; c < c_hi; c++) {
        uint xc = (n * p.C + g * cg + c) * p.H;
        uint wc = (g * cg + c) * (R3_KH * 3u) * mg + ml0;
        // The channel's taps' weights, fetched once for all the rows.
        vec4 wv[R3_KH * 3u * R3_TM / 4u];
        [[unroll]] for (uint k = 0u; k < R3_KH * 3u; k++) {
            [[unroll]] for (uint j4 = 0u; j4 < R3_TM / 4u; j4++)
                wv[k * (R3_TM / 4u) + j4] = WEIGHTS4(wc + k * mg + j4 * 4u);
        }
        [[unroll]] for (uint ir = 0u; ir < (R3_ROWS - 1u) * R3_S + R3_KH; ir++) {
            int ih = int(oh0 * R3_S) - p.PH + int(ir);
            if (ih < 0 || ih >= int(p.H)) continue;
            uint xrow = (xc + uint(ih)) * p.W;
            float xr[R3_NV * 4u];
            [[unroll]] for (uint q = 0u; q < R3_NV; q++) {
                int col = int(ow0 * R3_S) - 4 + int(q * 4u);
                vec4 v = col >= 0 && col < int(p.W) ? INPUT4(xrow + uint(col)) : vec4(0.0);
                xr[q * 4u] = v.x, xr[q * 4u + 1u] = v.y, xr[q * 4u + 2u] = v.z, xr[q * 4u + 3u] = v.w;
            }
            [[unroll]] for (uint r = 0u; r < R3_ROWS; r++) {
                if (ir < r * R3_S || ir - r * R3_S >= R3_KH) continue;
                [[unroll]] for (uint kw = 0u; kw < 3u; kw++) {
                    [[unroll]] for (uint j4 = 0u; j4 < R3_TM / 4u; j4++) {
                        vec4 w = wv[((ir - r * R3_S) * 3u + kw) * (R3_TM / 4u) + j4];
                        [[unroll]] for (uint q = 0u; q < TW; q++)
                            acc[r * (R3_TM / 4u) + j4][q] += xr[q * R3_S + kw + 3u] * w;
                    }
                }
            }
        }
    }
    bool last = p.c_end == cg;
    [[unroll]] for (uint a = 0u; a < R3_ACC; a++) {
        uint r = a / (R3_TM / 4u);
        if (!row_out[r]) continue;
        [[unroll]] for (uint j = 0u; j < 4u; j++) {
            uint m = m0 + (a % (R3_TM / 4u)) * 4u + j;
            float bias = p.b != uvec2(0u) && last ? ORTVK_GET(2, p.b, m) : 0.0;
            uint row = ((n * p.M + m) * p.OH + oh0 + r) * p.OW + ow0;
            if (SLICED) {
                [[unroll]] for (uint q = 0u; q < TW; q++) {
                    if (col_in[q]) conv_slice_store(slice, row + q, acc[a][q][j]);
                }
                continue;
            }
            if (STORE4) {
                [[unroll]] for (uint q = 0u; q < TW; q += 4u) {
                    if (col_in[q])
                        conv_store4(row + q, vec4(acc[a][q][j], acc[a][q + 1u][j], acc[a][q + 2u][j],
                                                  acc[a][q + 3u][j]), bias);
                }
                continue;
            }
            [[unroll]] for (uint q = 0u; q < TW; q++) {
                if (col_in[q]) conv_store(row + q, acc[a][q][j], bias, last);
            }
        }
    }
}

void main_packed()
{
    const uint TM8 = (FN & 2u) != 0u ? 8u : 4u;
    const bool XVEC = (FN & 4u) != 0u;
    const bool ROW3 = (FN & 8u) != 0u;
    if (ROW3) {
        main_row3();
        return;
    }
    uint col_blocks = (p.OW + COLUMNS - 1u) / COLUMNS;
    uint pixel_blocks = p.OH * col_blocks;
    uint m_blocks = p.M / TM8;
    uint pb, mt, slice, c_lo, c_hi;
    if (!packed_block(pixel_blocks, m_blocks, pb, mt, slice)) return;
    packed_channels(slice, c_lo, c_hi);
    uint ow0 = (pb % col_blocks) * COLUMNS;
    uint oh = pb / col_blocks;
    uint m0 = (mt % m_blocks) * TM8;
    uint n = mt / m_blocks;
    uint cg = p.C / p.G, mg = p.M / p.G;
    uint g = m0 / mg, ml0 = m0 - g * mg;

    vec4 acc[2][COLUMNS];
    bool col_in[COLUMNS];
    int iw0[COLUMNS];
    [[unroll]] for (uint c = 0u; c < COLUMNS; c++) {
        col_in[c] = ow0 + c < p.OW;
        iw0[c] = int((ow0 + c) * p.SW) - p.PW;
        acc[0][c] = vec4(0.0);
        acc[1][c] = vec4(0.0);
    }
    if (p.c_begin > 0u) {
        [[unroll]] for (uint j = 0u; j < 8u; j++) {
            if (j >= TM8) break;
            uint row = ((n * p.M + m0 + j) * p.OH + oh) * p.OW;
            [[unroll]] for (uint c = 0u; c < COLUMNS; c++) {
                if (!col_in[c]) continue;
                acc[j / 4u][c][j % 4u] = conv_partial(row + ow0 + c);
            }
        }
    }
    int ih0 = int(oh * p.SH) - p.PH;
    if (XVEC) {
        // 1x1, one row: no window loops (each loop iteration costs lavapipe more than this body's loads). A plain
        // loop over the channels: the host keeps a dispatch's range under lavapipe's loop cap (conv_dispatch).
        for (uint c = c_lo; c < c_hi; c++) {
            uint xrow = (n * p.C + g * cg + c) * p.W;
            vec4 lo = INPUT4(xrow + ow0);
            vec4 hi = ow0 + 4u < p.OW ? INPUT4(xrow + ow0 + 4u) : vec4(0.0);
            float xv[COLUMNS]; // TW here: the host never takes variant 2 with XVEC
            [[unroll]] for (uint q = 0u; q < COLUMNS; q++) xv[q] = q < 4u ? lo[q] : hi[q - 4u];
            uint wi = (g * cg + c) * mg + ml0;
            vec4 w0 = WEIGHTS4(wi);
            [[unroll]] for (uint q = 0u; q < COLUMNS; q++) acc[0][q] += xv[q] * w0;
            if (TM8 == 8u) {
                vec4 w1 = WEIGHTS4(wi + 4u);
                [[unroll]] for (uint q = 0u; q < COLUMNS; q++) acc[1][q] += xv[q] * w1;
            }
        }
    } else {
        for (uint c = c_lo; c < c_hi; c++) {
            uint xc = (n * p.C + g * cg + c) * p.H;
            uint wc = (g * cg + c) * p.KH;
            for (uint kh = 0u; kh < p.KH; kh++) {
                int ih = ih0 + int(kh * p.DH);
                if (ih < 0 || ih >= int(p.H)) continue;
                uint xrow = (xc + uint(ih)) * p.W;
                uint wrow = (wc + kh) * p.KW;
                for (uint kw = 0u; kw < p.KW; kw++) {
                    float xv[COLUMNS];
                    [[unroll]] for (uint c = 0u; c < COLUMNS; c++) {
                        int iw = iw0[c] + int(kw * p.DW);
                        xv[c] = 0.0;
                        if (col_in[c] && iw >= 0 && iw < int(p.W)) xv[c] = ORTVK_TEXEL(0, p.x, xrow + uint(iw));
                    }
                    uint wi = (wrow + kw) * mg + ml0;
                    vec4 w0 = WEIGHTS4(wi);
                    [[unroll]] for (uint c = 0u; c < COLUMNS; c++) acc[0][c] += xv[c] * w0;
                    if (TM8 == 8u) {
                        vec4 w1 = WEIGHTS4(wi + 4u);
                        [[unroll]] for (uint c = 0u; c < COLUMNS; c++) acc[1][c] += xv[c] * w1;
                    }
                }
            }
        }
    }
    [[unroll]] for (uint j = 0u; j < 8u; j++) {
        if (j >= TM8) break;
        uint m = m0 + j;
        uint row = ((n * p.M + m) * p.OH + oh) * p.OW;
        if (SLICED) {
            [[unroll]] for (uint c = 0u; c < COLUMNS; c++) {
                if (col_in[c]) conv_slice_store(slice, row + ow0 + c, acc[j / 4u][c][j % 4u]);
            }
            continue;
        }
        float bias = p.b != uvec2(0u) ? ORTVK_GET(2, p.b, m) : 0.0;
        [[unroll]] for (uint c = 0u; c < COLUMNS; c++) {
            if (col_in[c]) conv_store(row + ow0 + c, acc[j / 4u][c][j % 4u], bias, p.c_end == cg);
        }
    }
}

// Variant 6: output i is the sum of variant 5's (or 4's) partial sums, in the order of the slices, then the bias
// and the chain.
void main_slices()
{
    uint i = ortvk_index(), count = p.N * p.M * p.OH * p.OW;
    if (i >= count) return;
    float sum = 0.0;
    for (uint s = 0u; s < p.slices; s++) sum += ORTVK_FLOAT(5, p.partial, s * count + i);
    uint m = i / (p.OH * p.OW) % p.M;
    conv_store(i, sum, p.b != uvec2(0u) ? ORTVK_GET(2, p.b, m) : 0.0, true);
}


void main()
{
    ORTVK_CHAIN_LOAD(4, p.chain);
    if (ORTVK_TILES) {
        main_tiles();
        return;
    }
    if (SLICE_SUM) {
        main_slices();
        return;
    }
    if (FN != 0u) {
        main_packed();
        return;
    }
    uint i = ortvk_index();
    uint col_blocks = (p.OW + COLUMNS - 1u) / COLUMNS;
    uint m_blocks = p.M / p.TM;
    if (i >= p.N * m_blocks * p.OH * col_blocks) return;
    uint ow0 = (i % col_blocks) * COLUMNS;
    uint t = i / col_blocks;
    uint oh = t % p.OH;
    t /= p.OH;
    uint m0 = (t % m_blocks) * p.TM;
    uint n = t / m_blocks;
    uint cg = p.C / p.G, mg = p.M / p.G;
    uint g = m0 / mg;

    float acc[4][COLUMNS];
    bool col_in[COLUMNS];
    int iw0[COLUMNS];
    [[unroll]] for (uint c = 0u; c < COLUMNS; c++) {
        col_in[c] = ow0 + c < p.OW;
        iw0[c] = int((ow0 + c) * p.SW) - p.PW;
        [[unroll]] for (uint j = 0u; j < 4u; j++) acc[j][c] = 0.0;
    }
    if (p.c_begin > 0u) {
        [[unroll]] for (uint j = 0u; j < 4u; j++) {
            if (j >= p.TM) break;
            uint row = ((n * p.M + m0 + j) * p.OH + oh) * p.OW;
            [[unroll]] for (uint c = 0u; c < COLUMNS; c++) {
                if (!col_in[c]) continue;
                acc[j][c] = conv_partial(row + ow0 + c);
            }
        }
    }
    int ih0 = int(oh * p.SH) - p.PH;
    uint w_stride = cg * p.KH * p.KW; // between the weights of neighbouring output channels
    {
        for (uint c = p.c_begin; c < p.c_end; c++) {
            uint xc = (n * p.C + g * cg + c) * p.H;
            uint wc = (m0 * cg + c) * p.KH;
            // Padded taps add 0 * w, as the CPU EP's im2col does for weights it has not packed (0 * inf is NaN).
            for (uint kh = 0u; kh < p.KH; kh++) {
                int ih = ih0 + int(kh * p.DH);
                bool row_in = ih >= 0 && ih < int(p.H);
                uint xrow = (xc + uint(row_in ? ih : 0)) * p.W;
                uint wrow = (wc + kh) * p.KW;
                for (uint kw = 0u; kw < p.KW; kw++) {
                    float xv[COLUMNS];
                    [[unroll]] for (uint c = 0u; c < COLUMNS; c++) {
                        int iw = iw0[c] + int(kw * p.DW);
                        xv[c] = 0.0;
                        if (row_in && col_in[c] && iw >= 0 && iw < int(p.W))
                            xv[c] = ORTVK_TEXEL(0, p.x, xrow + uint(iw));
                    }
                    [[unroll]] for (uint j = 0u; j < 4u; j++) {
                        if (j >= p.TM) break;
                        float wv = ORTVK_TEXEL(1, p.w, wrow + kw + j * w_stride);
                        [[unroll]] for (uint c = 0u; c < COLUMNS; c++) acc[j][c] += xv[c] * wv;
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
        [[unroll]] for (uint c = 0u; c < COLUMNS; c++) {
            if (col_in[c]) conv_store(row + ow0 + c, acc[j][c], bias, p.c_end == cg);
        }
    }
}
