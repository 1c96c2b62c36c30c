// Where: y = cond ? x : y_else, the bool condition (one byte) and both values broadcast into the output over at
// most 5 coalesced dims (push constants hold four operands' strides).
#version 460
#extension GL_EXT_shader_8bit_storage : require
#include "common.glsl"

layout(buffer_reference, std430, buffer_reference_align = 1) buffer Bytes { uint8_t v[]; };

layout(push_constant) uniform Push {
    uvec2 cond, x, y, out_;
    uint n, rank;
    uint dims[5];
    uint sc[5];
    uint sx[5];
    uint sy[5];
} p;

void main()
{
    uint i = ortvk_index();
    if (i >= p.n) return;
    uint ic = 0u, ix = 0u, iy = 0u, r = i;
    for (int k = int(p.rank) - 1; k >= 0; k--) {
        uint d = p.dims[k];
        uint q = r / d;
        uint c = r - q * d;
        r = q;
        ic += c * p.sc[k];
        ix += c * p.sx[k];
        iy += c * p.sy[k];
    }
    bool take_x = uint(Bytes(p.cond).v[ic]) != 0u;
    ORTVK_SET(Elems(p.out_), i, take_x ? ORTVK_GET(Elems(p.x), ix) : ORTVK_GET(Elems(p.y), iy));
}
