// Gather with indices known in the run: y[o, j, i] = x[o, index[j], i] over (outer, count, inner) views, elements of
// one 32-bit word (or one 16-bit half in the float16 variant, words = 0). The indices are int32, made non-negative
// and checked against the axis on the host before the dispatch (kernel_gather.c), so every read is in bounds.
#version 460
#include "common.glsl"

layout(push_constant) uniform Push {
    uvec2 src, dst, index;
    uint n, count, len, inner, words;
} p;

void main()
{
    uint i = ortvk_index();
    if (i >= p.n) return;
    uint k = i % p.inner, r = i / p.inner;
    uint j = r % p.count, o = r / p.count;
    uint si = (o * p.len + ORTVK_WORD(2, p.index, j)) * p.inner + k;
    if (p.words == 1u) {
        ORTVK_WORD(1, p.dst, i) = ORTVK_WORD(0, p.src, si);
    } else {
#ifdef ORTVK_F16
        ORTVK_ELEM(1, p.dst, i) = ORTVK_ELEM(0, p.src, si);
#endif
    }
}
