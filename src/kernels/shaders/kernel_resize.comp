// Resize (nearest and n-linear) by tables the host computes per run exactly as ORT's CPU EP does: per output
// coordinate of each dim, two source indices and their weights. Dims in `interp` are interpolated, the others
// take their first index.
#version 460
#include "common.glsl"

layout(push_constant) uniform Push {
    uvec2 x, y, table;
    uint n, rank, interp;
    uint in_dims[4];
    uint out_dims[4];
    uint offset[4]; // first table entry (4 words each) of each dim
} p;

void main()
{
    uint i = ortvk_index();
    if (i >= p.n) return;
    uint i0[4], i1[4];
    float w0[4], w1[4];
    uint r = i;
    for (int d = int(p.rank) - 1; d >= 0; d--) {
        uint q = r / p.out_dims[d];
        uint c = r - q * p.out_dims[d];
        r = q;
        uint e = (p.offset[d] + c) * 4u;
        i0[d] = ORTVK_WORD(2, p.table, e);
        i1[d] = ORTVK_WORD(2, p.table, e + 1u);
        w0[d] = uintBitsToFloat(ORTVK_WORD(2, p.table, e + 2u));
        w1[d] = uintBitsToFloat(ORTVK_WORD(2, p.table, e + 3u));
    }
    float sum = 0.0;
    uint corners = 1u << p.rank;
    for (uint k = 0u; k < corners; k++) {
        // Corner bit for dim d is bit (rank - 1 - d): the last dim varies fastest, like ORT's X11, X21, X12, X22.
        if ((k & ~p.interp) != 0u) continue;
        uint idx = 0u;
        float w = 1.0;
        bool first = true;
        for (uint d = 0u; d < p.rank; d++) {
            bool hi = (k & (1u << (p.rank - 1u - d))) != 0u;
            idx = idx * p.in_dims[d] + (hi ? i1[d] : i0[d]);
            if ((p.interp & (1u << (p.rank - 1u - d))) != 0u) {
                float wd = hi ? w1[d] : w0[d];
                w = first ? wd : wd * w;
                first = false;
            }
        }
        sum += p.interp == 0u ? ORTVK_GET(0, p.x, idx) : w * ORTVK_GET(0, p.x, idx);
    }
    ORTVK_SET(1, p.y, i, sum);
}
