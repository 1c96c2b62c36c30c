// A chain of element-wise steps fused at Compile (kernel_chain.c): y[i] = ortvk_chain(x[i]), the steps (common.glsl)
// applied in order with the same float operations the unfused ops use; r[i] and q[i] where the chain reads a residual
// r and a second operand q. Where x, r and q all have y's shape each is read at i; otherwise each is read at i's
// broadcast index (ONNX multidirectional broadcasting, as the unfused Add and Mul read them) from a table of the
// coalesced dims and each operand's strides, in the push constants (a buffer per run would be one more buffer for
// the device's cache each run).
#version 460
#include "common.glsl"

layout(push_constant) uniform Push {
    uvec2 x, y;
    uint n;
    uint groups;     // the vectorised broadcast form: workgroups a row of the last dim (0: rows share workgroups)
    uvec2 constants; // the steps' operands (common.glsl's ORTVK_CHAIN_LOAD)
    uvec2 r;         // the residual (common.glsl's ORTVK_CHAIN_R), or 0
    uvec2 q;         // the second operand (ORTVK_CHAIN_Q), or 0
    uvec2 t;         // the broadcast form's table in a buffer (more than 4 dims), or 0
    uint words[17];  // ... or here (4 dims or fewer)
} p;

// Constant 0: bit 0 for the vectorised form (16 elements an invocation as vec4; n and the offsets multiples of 4,
// and in the broadcast form the last dim a multiple of 16 that each operand steps along by 0 or 1), bit 1 for the
// broadcast form (operands read through the table), bit 2 where its table is in a buffer (5 or 6 dims), bit 3 for
// the broadcast form in row segments (each operand stepping 0 or 1 along the last dim, of any length and offset:
// 16 elements of a row an invocation, read element by element, their indices found once).
layout(constant_id = 0) const uint MODE = 0u;
const bool VEC = (MODE & 1u) != 0u, BROADCAST = (MODE & 2u) != 0u, TABLE_BUFFER = (MODE & 4u) != 0u;
const bool SEGMENTS = (MODE & 8u) != 0u;
// Constant 1, the vectorised broadcast form's and the segments': bit k where operand k (x, r, q) steps along the
// last dim (a vec4 of its own each 4 elements), clear where it does not (one value for the row, read once). Known
// when the pipeline is made rather than read from the table: no read tests it at run time (the neck's chain 0.65x
// the device time on lavapipe, docs/benchmarks.md run T (chain)).
layout(constant_id = 1) const uint STEPS = 0u;
const uvec3 STEP = uvec3(STEPS & 1u, (STEPS >> 1) & 1u, (STEPS >> 2) & 1u);

// The table: word 0 the rank, dim d at 1 + d, then x's, r's and q's strides (0: broadcast), R words each.
const uint R = TABLE_BUFFER ? 6u : 4u;
uint table(uint k)
{
    return TABLE_BUFFER ? ORTVK_WORD(5, p.t, k) : p.words[k];
}

// The index in x, r and q of element e, or with `first` 1 (the vectorised form) of row e of the last dim's first
// element.
uvec3 operand_indices(uint e, uint first)
{
    uint rank = table(0u);
    uvec3 at = uvec3(0u);
    for (uint k = rank - first; k > 0u; k--) {
        uint d = table(k), c = e % d;
        e /= d;
        at += c * uvec3(table(R + k), table(2u * R + k), table(3u * R + k));
    }
    return at;
}

// Four elements from `at` of operand n: a vec4 where it steps along the last dim, its one value where it does not.
#define OPERAND4(n, ref, at, step) ((step) != 0u ? ORTVK_TEXEL4(n, ref, at) : vec4(ORTVK_TEXEL(n, ref, at)))
// Elements base + step * k.x, ... of operand n, one by one (the segments form).
#define GATHER4(n, ref, base, step, k) \
    vec4(ORTVK_TEXEL(n, ref, (base) + (step) * (k).x), ORTVK_TEXEL(n, ref, (base) + (step) * (k).y), \
         ORTVK_TEXEL(n, ref, (base) + (step) * (k).z), ORTVK_TEXEL(n, ref, (base) + (step) * (k).w))

void main()
{
    ORTVK_CHAIN_LOAD(2, p.constants);
    if (VEC && BROADCAST) {
        // Each row of the last dim of 1,024 elements or more has `groups` whole workgroups of its own: the row, and
        // each operand's index of its first element (a per-channel value's), found once from the workgroup's index
        // (a division per workgroup rather than per invocation); shorter rows from the invocation's index.
        // A workgroup's block of 1,024 elements that its row holds whole is spread over the invocations as
        // common.glsl's ortvk_lanes_start says (step: elements from one of an invocation's vec4s to the next).
        uint rank = table(0u), len = table(rank), row, col, step = 4u;
        if (p.groups != 0u) {
            uint g = ortvk_workgroup();
            row = g / p.groups;
            col = ortvk_lanes_start((g - row * p.groups) * 1024u, len, 16u, step);
        } else {
            uint e = ortvk_index() * 16u;
            row = e / len;
            col = e - row * len;
        }
        uint e0 = row * len + col;
        if (col >= len || e0 >= p.n) return;
        uvec3 at = operand_indices(row, 1u) + STEP * col;
        [[unroll]] for (uint k = 0u; k < 4u; k++) {
            uint j = k * step;
            uvec3 o = at + STEP * j;
            vec4 r = ORTVK_CHAIN_R ? OPERAND4(3, p.r, o.y, STEP.y) : vec4(0.0);
            vec4 q = ORTVK_CHAIN_Q ? OPERAND4(4, p.q, o.z, STEP.z) : vec4(0.0);
            ORTVK_SET4(1, p.y, e0 + j, ortvk_chain4rq(OPERAND4(0, p.x, o.x, STEP.x), r, q));
        }
        return;
    }
    if (VEC) {
        uint step, e0 = ortvk_lanes_start(ortvk_workgroup() * 1024u, p.n, 16u, step);
        if (step != 4u) { // a whole block, spread as in the broadcast form; no test per vec4
            [[unroll]] for (uint j = 0u; j < 4u * ORTVK_LANES_STEP; j += ORTVK_LANES_STEP) {
                vec4 r = ORTVK_CHAIN_R ? ORTVK_TEXEL4(3, p.r, e0 + j) : vec4(0.0);
                vec4 q = ORTVK_CHAIN_Q ? ORTVK_TEXEL4(4, p.q, e0 + j) : vec4(0.0);
                ORTVK_SET4(1, p.y, e0 + j, ortvk_chain4rq(ORTVK_TEXEL4(0, p.x, e0 + j), r, q));
            }
            return;
        }
        [[unroll]] for (uint j = 0u; j < 16u; j += 4u) {
            if (e0 + j >= p.n) return;
            vec4 r = ORTVK_CHAIN_R ? ORTVK_TEXEL4(3, p.r, e0 + j) : vec4(0.0);
            vec4 q = ORTVK_CHAIN_Q ? ORTVK_TEXEL4(4, p.q, e0 + j) : vec4(0.0);
            ORTVK_SET4(1, p.y, e0 + j, ortvk_chain4rq(ORTVK_TEXEL4(0, p.x, e0 + j), r, q));
        }
        return;
    }
    if (SEGMENTS) { // a row's 16 elements from col, as 4 groups of 4 (clamped reads, stores tested, past the row's end)
        uint rank = table(0u), len = table(rank), segments = (len + 15u) / 16u;
        uint i = ortvk_index(), row = i / segments, col = (i - row * segments) * 16u;
        if (row >= p.n / len) return;
        uint e0 = row * len + col, last = min(16u, len - col) - 1u;
        uvec3 at = operand_indices(row, 1u) + STEP * col;
        [[unroll]] for (uint j = 0u; j < 16u; j += 4u) {
            if (j > last) break;
            uvec4 k = min(uvec4(j, j + 1u, j + 2u, j + 3u), uvec4(last));
            vec4 x = GATHER4(0, p.x, at.x, STEP.x, k);
            vec4 r = ORTVK_CHAIN_R ? GATHER4(3, p.r, at.y, STEP.y, k) : vec4(0.0);
            vec4 q = ORTVK_CHAIN_Q ? GATHER4(4, p.q, at.z, STEP.z, k) : vec4(0.0);
            vec4 y = ortvk_chain4rq(x, r, q);
            [[unroll]] for (uint c = 0u; c < 4u; c++) {
                if (j + c <= last) ORTVK_SET(1, p.y, e0 + j + c, y[c]);
            }
        }
        return;
    }
    uint i = ortvk_index();
    if (i >= p.n) return;
    uvec3 o = BROADCAST ? operand_indices(i, 0u) : uvec3(i);
    float r = ORTVK_CHAIN_R ? ORTVK_TEXEL(3, p.r, o.y) : 0.0, q = ORTVK_CHAIN_Q ? ORTVK_TEXEL(4, p.q, o.z) : 0.0;
    ORTVK_SET(1, p.y, i, ORTVK_CHAIN_COUNT == 0u ? ORTVK_TEXEL(0, p.x, o.x) :
                         ortvk_chain4rq(vec4(ORTVK_TEXEL(0, p.x, o.x)), vec4(r), vec4(q)).x);
}
