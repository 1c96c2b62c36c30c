// Strided copy of elements of 1, 2 or 4 32-bit words (or of one 16-bit half, words = 0, in the float16 variant):
// dst[dst_offset + sum c_k dstride_k] = src[src_offset + sum c_k sstride_k] over the coordinates c of `dims`.
// Transpose, Slice, Split, Concat and Expand are all this (kernel_layout.c). On a CPU device an invocation copies a
// run of up to ORTVK_COPY_RUN elements along the last dim, dividing out the other coordinates once per run (integer
// division is scalar there); on a GPU (FN = ORTVK_COPY_SINGLE) one element, neighbouring invocations neighbouring
// elements, so that their accesses coalesce. With words = ORTVK_COPY_TILES an element is a 4 x 4 tile of a
// transpose, moved as vec4s: the last two dims count tiles, tile_s is the source's stride along the last dim and
// tile_d the destination's along the one before. (lavapipe loads and stores lane by lane: by single elements, a
// rank-4 Transpose took 13 ns an element; docs/benchmarks.md, run AG.)
#version 460
#include "common.glsl"

layout(push_constant) uniform Push {
    uvec2 src, dst;
    uint n, rank, words;
    int src_offset, dst_offset;
    uint dims[6];
    int sstride[6];
    int dstride[6];
    int tile_s, tile_d;
} p;

layout(constant_id = 0) const uint FN = 0u;
const uint RUN = FN == ORTVK_COPY_SINGLE ? 1u : ORTVK_COPY_RUN;

layout(set = 0, binding = 0, std430) restrict buffer OrtvkUvec4 { uvec4 v[]; } ortvk_uvec4s[ORTVK_BINDINGS];
// vec4 i of operand n, counted from its first element: a 16-byte element (words = 4), or 32-bit elements 4i..4i+3.
#define COPY_WORDS4(n, ref, i) ortvk_uvec4s[n].v[((ref).x >> 4u) + uint(i)]

// The offsets of the coordinates of `index` over dims[0 .. end - 1], added to si and di.
void coordinates(uint index, int end, inout int si, inout int di)
{
    uint r = index;
    for (int k = end - 1; k >= 0; k--) {
        uint d = p.dims[k];
        uint q = r / d;
        int c = int(r - q * d);
        r = q;
        si += c * p.sstride[k];
        di += c * p.dstride[k];
    }
}

// The 4 x 4 tile whose source and destination start at elements si and di.
void copy_tile(int si, int di)
{
    uvec4 a0 = floatBitsToUint(ORTVK_TEXEL4(0, p.src, si));
    uvec4 a1 = floatBitsToUint(ORTVK_TEXEL4(0, p.src, si + p.tile_s));
    uvec4 a2 = floatBitsToUint(ORTVK_TEXEL4(0, p.src, si + 2 * p.tile_s));
    uvec4 a3 = floatBitsToUint(ORTVK_TEXEL4(0, p.src, si + 3 * p.tile_s));
    COPY_WORDS4(1, p.dst, di / 4) = uvec4(a0.x, a1.x, a2.x, a3.x);
    COPY_WORDS4(1, p.dst, (di + p.tile_d) / 4) = uvec4(a0.y, a1.y, a2.y, a3.y);
    COPY_WORDS4(1, p.dst, (di + 2 * p.tile_d) / 4) = uvec4(a0.z, a1.z, a2.z, a3.z);
    COPY_WORDS4(1, p.dst, (di + 3 * p.tile_d) / 4) = uvec4(a0.w, a1.w, a2.w, a3.w);
}

void main()
{
    uint last = p.rank - 1u, inner = p.dims[last];
    uint runs = (inner + RUN - 1u) / RUN;
    uint i = ortvk_index(), row = i / runs;
    if (row >= p.n / inner) return;
    uint first = (i - row * runs) * RUN, count = min(RUN, inner - first);
    int ss = p.sstride[last], ds = p.dstride[last];
    int si = p.src_offset + int(first) * ss, di = p.dst_offset + int(first) * ds;
    coordinates(row, int(last), si, di);
    if (p.words == ORTVK_COPY_TILES) {
        [[unroll]] for (uint j = 0u; j < RUN; j++)
            if (j < count) copy_tile(si + int(j) * ss, di + int(j) * ds);
    } else if (p.words == 1u) {
        [[unroll]] for (uint j = 0u; j < RUN; j++)
            if (j < count) ORTVK_WORD(1, p.dst, di + int(j) * ds) = ORTVK_WORD(0, p.src, si + int(j) * ss);
    } else if (p.words == 4u) {
        [[unroll]] for (uint j = 0u; j < RUN; j++)
            if (j < count) COPY_WORDS4(1, p.dst, di + int(j) * ds) = COPY_WORDS4(0, p.src, si + int(j) * ss);
    } else if (p.words == 0u) {
#ifdef ORTVK_F16
        [[unroll]] for (uint j = 0u; j < RUN; j++)
            if (j < count) ORTVK_ELEM(1, p.dst, di + int(j) * ds) = ORTVK_ELEM(0, p.src, si + int(j) * ss);
#endif
    } else {
        [[unroll]] for (uint j = 0u; j < RUN; j++) {
            if (j < count) {
                int s = 2 * (si + int(j) * ss), d = 2 * (di + int(j) * ds);
                ORTVK_WORD(1, p.dst, d) = ORTVK_WORD(0, p.src, s);
                ORTVK_WORD(1, p.dst, d + 1) = ORTVK_WORD(0, p.src, s + 1);
            }
        }
    }
}
