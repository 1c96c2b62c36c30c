// Pad (constant, edge, reflect) as a gather: each output coordinate maps back to an input coordinate, or to the
// constant. Negative pads crop.
#version 460
#include "common.glsl"

layout(push_constant) uniform Push {
    uvec2 x, y;
    uint n, rank, mode; // mode: 0 constant, 1 reflect, 2 edge
    float value;
    uint out_dims[6];
    uint in_dims[6];
    int begin[6];
} p;

void main()
{
    uint i = ortvk_index();
    if (i >= p.n) return;
    uint r = i;
    uint src = 0u, stride = 1u;
    bool outside = false;
    for (int d = int(p.rank) - 1; d >= 0; d--) {
        uint q = r / p.out_dims[d];
        int c = int(r - q * p.out_dims[d]) - p.begin[d];
        r = q;
        int len = int(p.in_dims[d]);
        if (c < 0 || c >= len) {
            if (p.mode == 0u) outside = true;
            else if (p.mode == 2u) c = clamp(c, 0, len - 1);
            else {
                // Reflect without repeating the edge; ONNX bounds pads by len - 1, so one fold is enough.
                if (c < 0) c = -c;
                if (c >= len) c = 2 * (len - 1) - c;
            }
        }
        src += uint(c) * stride;
        stride *= p.in_dims[d];
    }
    ORTVK_SET(1, p.y, i, outside ? p.value : ORTVK_GET(0, p.x, src));
}
