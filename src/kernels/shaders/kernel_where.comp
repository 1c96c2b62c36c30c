// Where: y = cond ? x : y_else, the bool condition (one byte) and both values broadcast into the output over at
// most 5 coalesced dims (push constants hold four operands' strides).
#version 460
#extension GL_EXT_shader_8bit_storage : require
#define ORTVK_BYTES
#include "common.glsl"

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
    bool take_x = uint(ORTVK_BYTE(0, p.cond, ic)) != 0u;
    ORTVK_SET(3, p.out_, i, take_x ? ORTVK_GET(1, p.x, ix) : ORTVK_GET(2, p.y, iy));
}
