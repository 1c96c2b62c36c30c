// Strided copy of elements of 1 or 2 32-bit words (or of one 16-bit half, words = 0, in the float16 variant):
// dst[dst_offset + sum c_k dstride_k] = src[src_offset + sum c_k sstride_k] over the coordinates c of `dims`.
// Transpose, Slice, Split, Concat and Expand are all this.
#version 460
#include "common.glsl"

layout(push_constant) uniform Push {
    uvec2 src, dst;
    uint n, rank, words;
    int src_offset, dst_offset;
    uint dims[6];
    int sstride[6];
    int dstride[6];
} p;

void main()
{
    uint i = ortvk_index();
    if (i >= p.n) return;
    int si = p.src_offset, di = p.dst_offset;
    uint r = i;
    for (int k = int(p.rank) - 1; k >= 0; k--) {
        uint d = p.dims[k];
        uint q = r / d;
        int c = int(r - q * d);
        r = q;
        si += c * p.sstride[k];
        di += c * p.dstride[k];
    }
    if (p.words == 1u) {
        ORTVK_WORD(1, p.dst, di) = ORTVK_WORD(0, p.src, si);
    } else if (p.words == 0u) {
#ifdef ORTVK_F16
        ORTVK_ELEM(1, p.dst, di) = ORTVK_ELEM(0, p.src, si);
#endif
    } else {
        ORTVK_WORD(1, p.dst, 2 * di) = ORTVK_WORD(0, p.src, 2 * si);
        ORTVK_WORD(1, p.dst, 2 * di + 1) = ORTVK_WORD(0, p.src, 2 * si + 1);
    }
}
