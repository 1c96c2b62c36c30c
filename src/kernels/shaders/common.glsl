// Shared by every ortvk kernel shader: tensor access through storage buffers (push constants carry each operand's
// offset), the invocation index of ortvk_krun_dispatch's 1-D grid, and float math with accuracy of its own.
//
// Why our own exp/log/tanh/erf: Vulkan lets exp() and log() be off by 3 ULP plus an absolute 2^-21 near 1, and
// tanh() inherits the error of its sinh/cosh formula, so a driver may miss ONNX's tolerance (atol 1e-7) for small
// results. These use only +, -, *, /, which Vulkan rounds (nearly) exactly; `precise` keeps compilers from
// reassociating the range reductions (lavapipe did, costing exp 34 ULP). tests/ort/test_kernels_math.c measures
// them over their whole ranges: exp, log, tanh, sigmoid, elu within 1 ULP, erf 3.5, pow 13.
#extension GL_EXT_control_flow_attributes : require
#include "kernel_ids.h"
#ifdef ORTVK_F16
#extension GL_EXT_shader_16bit_storage : require
#endif

layout(local_size_x = 64) in;

// Tensors are storage buffers, pushed per dispatch (VK_KHR_push_descriptor): a shader's operand k (the k-th uvec2 of
// its push constants, in the order they are declared) is element k of the descriptor array at binding 0. The
// dispatch rewrites that uvec2 to (the operand's byte offset from the start of its binding, 1), or leaves (0, 0)
// for an absent operand; so `p.b != uvec2(0u)` still tests presence. Storage buffers rather than buffer device
// addresses: drivers see bounded, restrict-qualified buffers (lavapipe read them 4-7x faster).
#define ORTVK_BINDINGS 6
layout(set = 0, binding = 0, std430) restrict buffer OrtvkWords { uint v[]; } ortvk_words[ORTVK_BINDINGS];
layout(set = 0, binding = 0, std430) restrict buffer OrtvkFloats { float v[]; } ortvk_floats[ORTVK_BINDINGS];
layout(set = 0, binding = 0, std430) restrict buffer OrtvkVec4 { vec4 v[]; } ortvk_vec4s[ORTVK_BINDINGS];
#ifdef ORTVK_BYTES
layout(set = 0, binding = 0, std430) restrict buffer OrtvkBytes { uint8_t v[]; } ortvk_bytes[ORTVK_BINDINGS];
#define ORTVK_BYTE(n, ref, i) ortvk_bytes[n].v[(ref).x + uint(i)]
#endif
// Operands a shader lists as texel operands (kernel_device.c) are also bound as uniform texel buffers over the same
// range, RGBA32F at binding 1 and R32F at binding 2 (RGBA16F and R16F in the float16 variant: the device converts
// each element to float32, exactly): lavapipe fetches texels 2-3x faster than it loads from storage buffers.
// ORTVK_TEXELS (a specialization constant) says whether the dispatch bound them; where it could not (a range past
// the device's maxTexelBufferElements, a device without the 16-bit formats), the same macros read the storage buffer.
layout(constant_id = 2) const uint ORTVK_TEXELS = 0u;
#extension GL_EXT_samplerless_texture_functions : require
layout(set = 0, binding = 1) uniform textureBuffer ortvk_texels4[ORTVK_BINDINGS];
layout(set = 0, binding = 2) uniform textureBuffer ortvk_texels1[ORTVK_BINDINGS];

// 32-bit words and float32 values of operand n (`ref` its push constant), whatever the tensors' float type.
#define ORTVK_WORD(n, ref, i) ortvk_words[n].v[((ref).x >> 2u) + uint(i)]
#define ORTVK_FLOAT(n, ref, i) ortvk_floats[n].v[((ref).x >> 2u) + uint(i)]
// vec4 j of operand n counted from its first element: needs the offset a multiple of 16 bytes (float32 tensors).
#define ORTVK_VEC4(n, ref, j) ortvk_vec4s[n].v[((ref).x >> 4u) + uint(j)]

// float16 <-> float32 on bit patterns. Exact both ways for every value (float16 subnormals are float32 normals);
// to float16 rounds to nearest even, like ONNX Runtime's CPU EP, with NaN kept NaN and overflow going to infinity.
// Written out rather than left to the driver: Vulkan lets a conversion to float16 round either way. Four at a time
// and without branches (one select per case), as every float16 kernel's loads and stores take them.
vec4 ortvk_half_to_float4(uvec4 h)
{
    uvec4 sign = (h & 0x8000u) << 16;
    uvec4 e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    uvec4 bits = sign | mix((e + 112u) << 23, uvec4(0x7f800000u), equal(e, uvec4(31u))) | (m << 13);
    vec4 small = vec4(m) * 5.9604644775390625e-8; // e == 0: m * 2^-24, zero or a subnormal, exact
    return mix(uintBitsToFloat(bits), uintBitsToFloat(floatBitsToUint(small) | sign), equal(e, uvec4(0u)));
}

uvec4 ortvk_float_to_half4(vec4 f)
{
    uvec4 x = floatBitsToUint(f);
    uvec4 sign = (x >> 16) & 0x8000u;
    uvec4 a = x & 0x7fffffffu;
    // A normal float16 (>= 2^-14): 13 bits rounded off to nearest even (a carry may reach the exponent), the
    // exponent rebiased (127 -> 15). Below: the count of 2^-24 units, rounded to even (1024 is the smallest normal).
    uvec4 normal = ((a + 0xfffu + ((a >> 13) & 1u)) >> 13) - (112u << 10);
    uvec4 h = mix(uvec4(roundEven(uintBitsToFloat(a) * 16777216.0)), normal, greaterThanEqual(a, uvec4(0x38800000u)));
    h = mix(h, uvec4(0x7c00u), greaterThanEqual(a, uvec4(0x477ff000u)));            // >= 65520: infinity
    h = mix(h, 0x7e00u | ((a >> 13) & 0x3ffu), greaterThan(a, uvec4(0x7f800000u))); // NaN stays NaN (quiet)
    return sign | h;
}

float ortvk_half_to_float(uint h)
{
    return ortvk_half_to_float4(uvec4(h)).x;
}

uint ortvk_float_to_half(float f)
{
    return ortvk_float_to_half4(vec4(f)).x;
}

// Tensor elements: ORTVK_GET reads element i of operand n as a float, ORTVK_SET stores a float there.
// The shaders are compiled twice: as written (float32 tensors) and with ORTVK_F16 defined (float16 tensors, read
// and written through 16-bit storage, computed in float32 and rounded once per stored result).
#ifdef ORTVK_F16
// An operand of the float16 variant may hold float32 elements: on a CPU device (its CPU forms) Conv's, MatMul's and
// Gemm's constant weights are widened at Compile (kernel_consts.c), so that the inner loops convert only the
// activations. Constant 8 has bit n set for an operand n of float32 elements (such a constant, or a Cast's float32
// side, which its shader reads and writes as words); ORTVK_GET, ORTVK_GET4, ORTVK_TEXEL and ORTVK_TEXEL4 then read
// its float32 elements, at the same element indices. ORTVK_SET stores float16: outputs are never widened.
layout(constant_id = 8) const uint ORTVK_WIDE = 0u;
#define ORTVK_WIDE_OPERAND(n) (((ORTVK_WIDE >> uint(n)) & 1u) != 0u)
layout(set = 0, binding = 0, std430) restrict buffer OrtvkElems { uint16_t v[]; } ortvk_elems[ORTVK_BINDINGS];
#define ORTVK_ELEM(n, ref, i) ortvk_elems[n].v[((ref).x >> 1u) + uint(i)]
#define ORTVK_GET(n, ref, i) \
    (ORTVK_WIDE_OPERAND(n) ? ORTVK_FLOAT(n, ref, i) : ortvk_half_to_float(uint(ORTVK_ELEM(n, ref, i))))
#define ORTVK_SET(n, ref, i, x) (ORTVK_ELEM(n, ref, i) = uint16_t(ortvk_float_to_half(x)))
// Four float16 elements are two 32-bit words, the first element in the low half (i even, the offset on 4 bytes).
#define ORTVK_HALF4_WORD(n, ref, i) ORTVK_WORD(n, ref, uint(i) / 2u)
vec4 ortvk_half4_of(uint lo, uint hi)
{
    return ortvk_half_to_float4(uvec4(lo & 0xffffu, lo >> 16, hi & 0xffffu, hi >> 16));
}
#define ORTVK_FLOAT4(n, ref, i) vec4(ORTVK_FLOAT(n, ref, i), ORTVK_FLOAT(n, ref, uint(i) + 1u), \
                                     ORTVK_FLOAT(n, ref, uint(i) + 2u), ORTVK_FLOAT(n, ref, uint(i) + 3u))
#define ORTVK_GET4(n, ref, i) (ORTVK_WIDE_OPERAND(n) ? ORTVK_FLOAT4(n, ref, i) \
    : ortvk_half4_of(ORTVK_HALF4_WORD(n, ref, i), ORTVK_HALF4_WORD(n, ref, uint(i) + 2u)))
#define ORTVK_SET4(n, ref, i, value) { uvec4 h4_ = ortvk_float_to_half4(value); uint i4_ = uint(i); \
    ORTVK_HALF4_WORD(n, ref, i4_) = h4_.x | (h4_.y << 16); ORTVK_HALF4_WORD(n, ref, i4_ + 2u) = h4_.z | (h4_.w << 16); }
#else
#define ORTVK_ELEM(n, ref, i) ortvk_floats[n].v[((ref).x >> 2u) + uint(i)]
#define ORTVK_GET(n, ref, i) ORTVK_ELEM(n, ref, i)
#define ORTVK_SET(n, ref, i, x) (ORTVK_ELEM(n, ref, i) = (x))
#define ORTVK_GET4(n, ref, i) ORTVK_VEC4(n, ref, uint(i) >> 2u)
#define ORTVK_SET4(n, ref, i, value) (ORTVK_VEC4(n, ref, uint(i) >> 2u) = (value))
#endif
// Reads of a texel operand: ORTVK_TEXEL(n, ref, i) element i as a float, ORTVK_TEXEL4(n, ref, i) elements i..i+3
// (i a multiple of 4, the offset a multiple of 16 bytes).
#ifdef ORTVK_F16
#define ORTVK_TEXEL(n, ref, i) (ORTVK_TEXELS != 0u \
    ? texelFetch(ortvk_texels1[n], int(((ref).x >> (ORTVK_WIDE_OPERAND(n) ? 2u : 1u)) + uint(i))).x \
    : ORTVK_GET(n, ref, i))
#define ORTVK_TEXEL4(n, ref, i) (ORTVK_TEXELS != 0u \
    ? texelFetch(ortvk_texels4[n], int(ORTVK_WIDE_OPERAND(n) ? ((ref).x + 4u * uint(i)) >> 4u \
                                                            : ((ref).x + 2u * uint(i)) >> 3u)) \
    : ORTVK_GET4(n, ref, i))
#else
#define ORTVK_TEXEL(n, ref, i) \
    (ORTVK_TEXELS != 0u ? texelFetch(ortvk_texels1[n], int(((ref).x >> 2u) + uint(i))).x : ORTVK_GET(n, ref, i))
#define ORTVK_TEXEL4(n, ref, i) \
    (ORTVK_TEXELS != 0u ? texelFetch(ortvk_texels4[n], int(((ref).x + 4u * uint(i)) >> 4u)) : ORTVK_GET4(n, ref, i))
#endif
// ORTVK_GET4/SET4: elements i..i+3 (i a multiple of 4, the operand's offset a multiple of 16 bytes).

// lavapipe (llvmpipe) ends a shader's loops, silently, once they have run about 65535 iterations in one invocation,
// all its loops counted together (a Softmax over rows of 40000 runs 3 loops of 40000 and broke). A loop whose count
// comes from the tensors runs as ORTVK_FOR: blocks of ORTVK_LOOP_BLOCK iterations, each block unrolled, so only
// the blocks count. ORTVK_FOR(k, begin, end) { body } runs body for k = begin .. end - 1 in order; `continue` ends
// one k, `break` is not allowed. Loops of more blocks than the cap are split over dispatches by the ops.
#define ORTVK_LOOP_BLOCK 16u
#define ORTVK_FOR(k, begin, end) \
    for (uint k##_b = (begin); k##_b < (end); k##_b += ORTVK_LOOP_BLOCK) \
        [[unroll]] for (uint k##_j = 0u; k##_j < ORTVK_LOOP_BLOCK; k##_j++) \
            if (k##_b + k##_j < (end)) \
                [[unroll]] for (uint k = k##_b + k##_j, k##_once = 0u; k##_once < 1u; k##_once++)

// Float32 subnormals where the device may flush them. Vulkan lets a device read a subnormal operand of any float
// instruction as zero and flush a subnormal result (NVIDIA's do: they offer no DenormPreserve for 32 bits); ORT's
// CPU EP keeps them. Constant 7 (ortvk_kernel_subnormals, the same for every pipeline of a device) turns on the
// exact forms below: where a flushed operand would change an answer by more than a value below FLT_MIN (a quotient,
// a product by a large value, a square root, a comparison, a sign), the operand is read from its bits. Moves and
// bit casts keep subnormals on every device; results below FLT_MIN may still come out as zero (docs/kernels.md,
// "Subnormals"). Off, each helper is the plain operation.
layout(constant_id = 7) const uint ORTVK_EXACT_SUBNORMALS = 0u;
const bool ORTVK_EXACT = ORTVK_EXACT_SUBNORMALS != 0u;
#define ORTVK_P2_UP uintBitsToFloat(0x5f800000u)   // 2^64
#define ORTVK_P2_DOWN uintBitsToFloat(0x1f800000u) // 2^-64

// The helpers are written without branches, on vec4s (a float's form is the vec4's first lane): a chain step
// inlines them once for every kind the step could be before the constants fold the switch, and pipelines of fused
// chains build several times slower on lavapipe when each is a branchy scalar function (docs/kernels.md,
// "Subnormals").
bvec4 ortvk_is_subnormal4(vec4 x)
{
    return lessThan((floatBitsToUint(x) & 0x7fffffffu) - 1u, uvec4(0x007fffffu)); // 0 < |x| < FLT_MIN
}

bvec4 ortvk_isnan4(vec4 x)
{
    return greaterThan(floatBitsToUint(x) & 0x7fffffffu, uvec4(0x7f800000u));
}

bool ortvk_is_subnormal(float x)
{
    return ortvk_is_subnormal4(vec4(x)).x;
}

// x * 2^64 for a subnormal x, exactly, as a normal float: its significand m (an integer below 2^23, exact as a
// float) is x / 2^-149, and m * 2^-85 = x * 2^64. x itself where it is not subnormal.
vec4 ortvk_subnormal_up4(vec4 x)
{
    uvec4 b = floatBitsToUint(x);
    vec4 m = vec4(b & 0x7fffffu) * uintBitsToFloat(0x15000000u); // 2^-85
    return mix(x, uintBitsToFloat(floatBitsToUint(m) | (b & 0x80000000u)), ortvk_is_subnormal4(x));
}

float ortvk_subnormal_up(float x)
{
    return ortvk_subnormal_up4(vec4(x)).x;
}

// x * y and x / y: a subnormal operand scaled up by 2^64 and the result scaled back (exact unless it is itself
// below FLT_MIN). Two subnormal factors give a zero of their sign, as IEEE's product does. `precise`, as the ops
// they serve are: no product here fuses into a caller's addition (a chain's BN_C step adds b to one).
vec4 ortvk_mul4(vec4 x, vec4 y)
{
    precise vec4 p = x * y;
    if (!ORTVK_EXACT) return p;
    uvec4 n = uvec4(ortvk_is_subnormal4(x)) + uvec4(ortvk_is_subnormal4(y)); // subnormal factors: 0, 1 or 2
    vec4 back = mix(mix(vec4(1.0), vec4(ORTVK_P2_DOWN), greaterThan(n, uvec4(0u))), vec4(0.0),
                    greaterThan(n, uvec4(1u)));
    precise vec4 r = ortvk_subnormal_up4(x) * ortvk_subnormal_up4(y);
    precise vec4 scaled = r * back;
    return scaled;
}

vec4 ortvk_div4(vec4 x, vec4 y)
{
    if (!ORTVK_EXACT) return x / y;
    vec4 back = mix(vec4(1.0), vec4(ORTVK_P2_DOWN), ortvk_is_subnormal4(x)) *
                mix(vec4(1.0), vec4(ORTVK_P2_UP), ortvk_is_subnormal4(y)); // 2^-64, 1 or 2^64: exact
    precise vec4 q = ortvk_subnormal_up4(x) / ortvk_subnormal_up4(y);
    precise vec4 scaled = q * back;
    return scaled;
}

float ortvk_mul(float x, float y)
{
    return ortvk_mul4(vec4(x), vec4(y)).x;
}

float ortvk_div(float x, float y)
{
    return ortvk_div4(vec4(x), vec4(y)).x;
}

// Comparisons: on integers of the floats' order (-0 and +0 equal), false when either is NaN.
ivec4 ortvk_order_key4(vec4 x)
{
    ivec4 b = floatBitsToInt(x);
    return mix(-(b & 0x7fffffff), b, greaterThanEqual(b, ivec4(0)));
}

uvec4 ortvk_ordered4(vec4 x, vec4 y) // 1 where neither is NaN
{
    return uvec4(not(ortvk_isnan4(x))) & uvec4(not(ortvk_isnan4(y)));
}

bvec4 ortvk_less4(vec4 x, vec4 y)
{
    if (!ORTVK_EXACT) return lessThan(x, y);
    return bvec4(ortvk_ordered4(x, y) & uvec4(lessThan(ortvk_order_key4(x), ortvk_order_key4(y))));
}

bvec4 ortvk_equal4(vec4 x, vec4 y)
{
    if (!ORTVK_EXACT) return equal(x, y);
    return bvec4(ortvk_ordered4(x, y) & uvec4(equal(ortvk_order_key4(x), ortvk_order_key4(y))));
}

bvec4 ortvk_less_equal4(vec4 x, vec4 y)
{
    if (!ORTVK_EXACT) return lessThanEqual(x, y);
    return bvec4(ortvk_ordered4(x, y) & uvec4(lessThanEqual(ortvk_order_key4(x), ortvk_order_key4(y))));
}

bool ortvk_less(float x, float y)
{
    return ortvk_less4(vec4(x), vec4(y)).x;
}

bool ortvk_equal(float x, float y)
{
    return ortvk_equal4(vec4(x), vec4(y)).x;
}

bool ortvk_less_equal(float x, float y)
{
    return ortvk_less_equal4(vec4(x), vec4(y)).x;
}

// A chain of element-wise steps fused after an op's result, or run on its own (kernel_chain.c): specialization
// constants 3 and 4 hold the steps' kinds (ortvk_chain_kind, 5 bits each: steps 0-5, then 6-11), 5 their count, so
// that a pipeline holds only its chain's operations. Their operands are not constants (a pipeline per set of values
// would be one per chain of a model): a buffer of 24 floats, step k's a at k and its b at 12 + k, is an operand of
// the shader, which reads it once with ORTVK_CHAIN_LOAD(n, ref) before it applies the chain. No steps by default:
// ortvk_chain4(x) is x.
layout(constant_id = 3) const uint ORTVK_CHAIN_KINDS0 = 0u;
layout(constant_id = 4) const uint ORTVK_CHAIN_KINDS1 = 0u;
layout(constant_id = 5) const uint ORTVK_CHAIN_COUNT = 0u;
float ortvk_chain_a[12], ortvk_chain_b[12];
#define ORTVK_CHAIN_LOAD(n, ref) \
    for (uint k_ = 0u; k_ < ORTVK_CHAIN_COUNT; k_++) { \
        ortvk_chain_a[k_] = ORTVK_FLOAT(n, ref, k_); \
        ortvk_chain_b[k_] = ORTVK_FLOAT(n, ref, 12u + k_); \
    }

// The kind of step k of a chain whose kinds are the words kinds0 and kinds1 (ortvk_kchain_spec's).
uint ortvk_chain_kind_of(uint kinds0, uint kinds1, uint k)
{
    return ((k < 6u ? kinds0 : kinds1) >> (ORTVK_CHAIN_KIND_BITS * (k % 6u))) & 31u;
}
// The kind of step k of the pipeline's chain (a specialization constant once k is).
uint ortvk_chain_kind(uint k)
{
    return ortvk_chain_kind_of(ORTVK_CHAIN_KINDS0, ORTVK_CHAIN_KINDS1, k);
}
// Per-channel steps (a ConvTranspose's epilogue): their operands follow the 24 step floats in the chain's buffer, C
// values each in step order (ADD_C, MUL_C: a; BN_C: scale, B, mean, var, its epsilon the step's a).
// ORTVK_CHAIN_CHANNEL(n, ref, c, C) sets each such step's a (and b) to channel c's before ortvk_chain4 runs: BN_C's
// folded scale and bias computed as kernel_batchnorm.comp computes them, so that the two agree to the bit.
#define ORTVK_CHAIN_CHANNEL(n, ref, c, C) { \
    uint at_ = 24u; \
    [[unroll]] for (uint k_ = 0u; k_ < 12u; k_++) { \
        if (k_ >= ORTVK_CHAIN_COUNT) break; \
        uint kind_ = ortvk_chain_kind(k_); \
        if (kind_ == ORTVK_CHAIN_ADD_C || kind_ == ORTVK_CHAIN_MUL_C) { \
            ortvk_chain_a[k_] = ORTVK_FLOAT(n, ref, at_ + (c)); \
            at_ += (C); \
        } else if (kind_ == ORTVK_CHAIN_BN_C) { \
            precise float inv_std_ = 1.0 / sqrt(ORTVK_FLOAT(n, ref, at_ + 3u * (C) + (c)) + ORTVK_FLOAT(n, ref, k_)); \
            precise float s_ = inv_std_ * ORTVK_FLOAT(n, ref, at_ + (c)); \
            precise float b_ = ORTVK_FLOAT(n, ref, at_ + (C) + (c)) - ORTVK_FLOAT(n, ref, at_ + 2u * (C) + (c)) * s_; \
            ortvk_chain_a[k_] = s_; \
            ortvk_chain_b[k_] = b_; \
            at_ += 4u * (C); \
        } \
    } }

// The activations a chain can end with, defined below with the other functions.
vec4 ortvk_sigmoid4(vec4 v);
float ortvk_tanh(float x);
vec4 ortvk_sqrt4(vec4 x);
float ortvk_hard_sigmoid(float v, float alpha, float beta);
float ortvk_hard_swish(float v);
// Whether the chain reads a residual r (ADD_R, MUL_R steps): a tensor of the output's shape, an operand of the shader
// read at the index of the element being stored (ortvk_chain4r). Known when the pipeline is made.
const bool ORTVK_CHAIN_R = (ORTVK_CHAIN_KINDS1 & ORTVK_CHAIN_RESIDUAL) != 0u;
// Whether it also reads a second operand q (ADD_Q, MUL_Q): only the stand-alone chain kernel (kernel_chain.comp).
const bool ORTVK_CHAIN_Q = (ORTVK_CHAIN_KINDS1 & ORTVK_CHAIN_SECOND) != 0u;

// Each step as its own op computes it: `precise` keeps steps from fusing into multiply-adds; NaN stays NaN through
// Clip and Relu (and -0 through Relu). t + x and t * x use x, the chain's input or the value a MARK step kept;
// t + r and t * r the residual r, t + q and t * q the second operand q. One step of kind `kind` (ortvk_chain_kind)
// with its operands a and b, applied to t_in.
vec4 ortvk_chain_step4(uint kind, vec4 t_in, inout vec4 kept, vec4 r, vec4 q, float a, float b)
{
    precise vec4 t = t_in;
    // The products and quotients share one ortvk_mul4 and one ortvk_div4 a step (their exact forms are long).
    bool product = kind == ORTVK_CHAIN_MUL || kind == ORTVK_CHAIN_MUL_X || kind == ORTVK_CHAIN_MUL_R ||
                   kind == ORTVK_CHAIN_MUL_Q || kind == ORTVK_CHAIN_MUL_C || kind == ORTVK_CHAIN_BN_C ||
                   kind == ORTVK_CHAIN_LEAKY_RELU;
    if (product) {
        vec4 f = kind == ORTVK_CHAIN_MUL_X ? kept
               : kind == ORTVK_CHAIN_MUL_R ? r
               : kind == ORTVK_CHAIN_MUL_Q ? q : vec4(a);
        precise vec4 tf = ortvk_mul4(t, f);
        if (kind == ORTVK_CHAIN_BN_C) t = tf + b;
        else if (kind == ORTVK_CHAIN_LEAKY_RELU) t = mix(t, tf, ortvk_less4(t, vec4(0.0)));
        else t = tf;
        return t;
    }
    if (kind == ORTVK_CHAIN_DIV || kind == ORTVK_CHAIN_RDIV) {
        bool reversed = kind == ORTVK_CHAIN_RDIV;
        t = ortvk_div4(reversed ? vec4(a) : t, reversed ? t : vec4(a));
        return t;
    }
    switch (kind) {
    case ORTVK_CHAIN_ADD: t = t + a; break;
    case ORTVK_CHAIN_SUB: t = t - a; break;
    case ORTVK_CHAIN_RSUB: t = a - t; break;
    case ORTVK_CHAIN_CLIP: t = mix(min(max(t, a), b), t, ortvk_isnan4(t)); break; // NaN stays NaN
    case ORTVK_CHAIN_RELU: t = mix(t, vec4(0.0), lessThan(t, vec4(0.0))); break;
    case ORTVK_CHAIN_ADD_X: t = t + kept; break;
    case ORTVK_CHAIN_MARK: kept = t; break;
    case ORTVK_CHAIN_SIGMOID: t = ortvk_sigmoid4(t); break;
    case ORTVK_CHAIN_HARD_SIGMOID:
        t = vec4(ortvk_hard_sigmoid(t.x, a, b), ortvk_hard_sigmoid(t.y, a, b), ortvk_hard_sigmoid(t.z, a, b),
                 ortvk_hard_sigmoid(t.w, a, b));
        break;
    case ORTVK_CHAIN_HARD_SWISH:
        t = vec4(ortvk_hard_swish(t.x), ortvk_hard_swish(t.y), ortvk_hard_swish(t.z), ortvk_hard_swish(t.w));
        break;
    case ORTVK_CHAIN_TANH: t = vec4(ortvk_tanh(t.x), ortvk_tanh(t.y), ortvk_tanh(t.z), ortvk_tanh(t.w)); break;
    case ORTVK_CHAIN_ADD_R: t = t + r; break;
    case ORTVK_CHAIN_ADD_Q: t = t + q; break;
    case ORTVK_CHAIN_ADD_C: t = t + a; break; // a, b: channel c's (ORTVK_CHAIN_CHANNEL)
    case ORTVK_CHAIN_SQUARE: t = t * t; break; // Pow(t, 2): x * x for every x, as ortvk_pow
    case ORTVK_CHAIN_SQRT: t = ortvk_sqrt4(t); break;
    }
    return t;
}

// A float16 chain rounds the head's result and each step's to float16, as each node stores its own when it runs
// alone: fusing float16 nodes changes no bit of the result. ortvk_round_half4(t) is
// ortvk_half_to_float4(ortvk_float_to_half4(t)) without leaving float32 (a NaN may keep more of its payload).
vec4 ortvk_round_half4(vec4 t)
{
    uvec4 x = floatBitsToUint(t), a = x & 0x7fffffffu;
    // A normal float16: 13 bits rounded off to nearest even in place (a carry may reach the exponent).
    vec4 normal = uintBitsToFloat((x + 0xfffu + ((x >> 13) & 1u)) & ~0x1fffu);
    // Below 2^-14: a multiple of 2^-24, rounded to even (exact: a float16 subnormal is a float32 normal).
    vec4 r = mix(roundEven(t * 16777216.0) * 5.9604644775390625e-8, normal, greaterThanEqual(a, uvec4(0x38800000u)));
    r = mix(r, uintBitsToFloat((x & 0x80000000u) | 0x7f800000u), greaterThanEqual(a, uvec4(0x477ff000u)));
    return mix(r, t, greaterThan(a, uvec4(0x7f800000u))); // NaN stays NaN
}
#ifdef ORTVK_F16
#define ORTVK_CHAIN_ROUND4(t) ortvk_round_half4(t)
#else
#define ORTVK_CHAIN_ROUND4(t) (t)
#endif

// The pipeline's chain (its kinds specialization constants, so each step's switch folds to its one case).
vec4 ortvk_chain4rq(vec4 x, vec4 r, vec4 q)
{
    precise vec4 t = ORTVK_CHAIN_COUNT == 0u ? x : ORTVK_CHAIN_ROUND4(x);
    vec4 kept = t;
    [[unroll]] for (uint k = 0u; k < 12u; k++) {
        if (k >= ORTVK_CHAIN_COUNT) break;
        vec4 stepped = ortvk_chain_step4(ortvk_chain_kind(k), t, kept, r, q, ortvk_chain_a[k], ortvk_chain_b[k]);
        t = ORTVK_CHAIN_ROUND4(stepped);
    }
    return t;
}

vec4 ortvk_chain4r(vec4 x, vec4 r)
{
    return ortvk_chain4rq(x, r, vec4(0.0));
}

vec4 ortvk_chain4(vec4 x)
{
    return ortvk_chain4r(x, vec4(0.0));
}

float ortvk_chainr(float x, float r)
{
    return ORTVK_CHAIN_COUNT == 0u ? x : ortvk_chain4r(vec4(x), vec4(r)).x;
}

float ortvk_chain(float x)
{
    return ortvk_chainr(x, 0.0);
}

// Matches ortvk_krun_dispatch: workgroups of 64 over x, then y.
uint ortvk_workgroup()
{
    return gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
}
uint ortvk_index()
{
    return ortvk_workgroup() * 64u + gl_LocalInvocationID.x;
}

// Element-wise shaders map a workgroup to a block of 64 x `run` elements (`run` a multiple of 4 an invocation).
// Where the block ends at or before `end` (the tensor's or its row's), ortvk_lanes_start spreads it: invocation i
// starts at vec4 (i / 8) run / 4 x 8 + i mod 8 of the block and steps by ORTVK_LANES_STEP elements (8 vec4s), so a
// group of 8 neighbouring invocations reads and writes 128 contiguous bytes a step. A CPU device runs such a group
// as one SIMD step (lavapipe: 8 lanes, which store lane by lane) and a GPU's subgroup of 32 as 4 such runs. The 8
// is not the device's subgroup size, so the mapping covers the block once on every device. On lavapipe it is
// 1.4-1.6x faster than `run` contiguous elements an invocation (docs/benchmarks.md, run Y), which a partial block
// keeps (`step` 4). Returns the invocation's first element; `step` the elements from one of its vec4s to the next.
#define ORTVK_LANES_STEP 32u
uint ortvk_lanes_start(uint block, uint end, uint run, out uint step)
{
    bool whole = block + 64u * run <= end;
    step = whole ? ORTVK_LANES_STEP : 4u;
    uint i = gl_LocalInvocationID.x;
    return block + (whole ? (i >> 3u) * run * 8u + 4u * (i & 7u) : i * run);
}

#define ORTVK_INF uintBitsToFloat(0x7f800000u)
#define ORTVK_NAN uintBitsToFloat(0x7fc00000u)

bool ortvk_isnan(float x) { return (floatBitsToUint(x) & 0x7fffffffu) > 0x7f800000u; }

// e^x = p * 2^n: x = n ln2 + r with ln2 split in two parts (Cody-Waite), a degree-6 polynomial p for e^r on
// |r| <= ln2/2. One body for float and vec4 (ortvk_exp and ortvk_sigmoid4 must agree bit for bit: fused and unfused
// Sigmoids are compared at 0 ULP). precise: the reduction only works evaluated as written (no reassociation, no
// n * (C1 + C2)).
#define ORTVK_DEFINE_EXP_CORE(T)                                                                                   \
    T ortvk_exp_core(T x, out T n)                                                                                 \
    {                                                                                                              \
        n = floor(x * 1.44269504088896341 + 0.5);                                                                  \
        precise T r = x - n * 0.693359375;                                                                         \
        r = r - n * -2.12194440e-4;                                                                                \
        T z = r * r;                                                                                               \
        T p = T(1.9875691500e-4);                                                                                  \
        p = p * r + 1.3981999507e-3;                                                                               \
        p = p * r + 8.3334519073e-3;                                                                               \
        p = p * r + 4.1665795894e-2;                                                                               \
        p = p * r + 1.6666665459e-1;                                                                               \
        p = p * r + 5.0000001201e-1;                                                                               \
        return p * z + r + 1.0;                                                                                    \
    }
ORTVK_DEFINE_EXP_CORE(float)
ORTVK_DEFINE_EXP_CORE(vec4)

// 2^e for e in -126..127, from its bits.
float ortvk_pow2(int e)
{
    return intBitsToFloat((e + 127) << 23);
}
vec4 ortvk_pow2(ivec4 e)
{
    return intBitsToFloat((e + 127) << 23);
}

float ortvk_exp(float x)
{
    if (ortvk_isnan(x)) return x;
    if (x > 88.72283935546875) return ORTVK_INF;
    if (x < -87.33654475) return 0.0; // below FLT_MIN: devices may flush denormals anyway
    float n;
    float p = ortvk_exp_core(x, n);
    int e = int(n); // -126..128 here, and p * 2^e is a normal float: a product by 2^e is exact, as ldexp is
    // 2^128 does not exist: e^88.7 (just below FLT_MAX) is 2p * 2^127. 2^e from its bits rather than ldexp, which
    // lavapipe lowers to a long sequence (the exps were half a Softmax's time on lavapipe).
    if (e > 127) p *= 2.0;
    return p * ortvk_pow2(min(e, 127));
}

// e^x - 1 without the cancellation near 0 (Elu, Selu): a Taylor polynomial for |x| < 0.35.
float ortvk_expm1(float x)
{
    if (abs(x) >= 0.35) return ortvk_exp(x) - 1.0;
    float p = 1.0 / 5040.0;
    p = p * x + 1.0 / 720.0;
    p = p * x + 1.0 / 120.0;
    p = p * x + 1.0 / 24.0;
    p = p * x + 1.0 / 6.0;
    p = p * x + 0.5;
    return (p * x + 1.0) * x;
}

// ln x: x = m 2^e with m in [sqrt(1/2), sqrt(2)), a degree-9 polynomial for ln(1 + (m - 1)).
// Signs, zeros and subnormals are read from the bits: Vulkan lets a device flush subnormals (lavapipe's frexp
// read 1e-45 as 2^-126), so a subnormal's significand is taken as an integer and 2^-149 added to the exponent.
float ortvk_log(float x)
{
    uint bits = floatBitsToUint(x);
    if (ortvk_isnan(x) || (bits > 0x80000000u)) return ORTVK_NAN; // negative (not -0)
    if ((bits & 0x7fffffffu) == 0u) return -ORTVK_INF;           // +0 and -0
    if (x == ORTVK_INF) return ORTVK_INF;
    int e;
    float m;
    if (bits < 0x00800000u) { // subnormal: bits * 2^-149, and bits < 2^23 is exact as a float
        m = frexp(float(bits), e);
        e -= 149;
    } else {
        m = frexp(x, e);
    }
    if (m < 0.70710678118654752440) {
        e -= 1;
        m = m + m - 1.0;
    } else {
        m = m - 1.0;
    }
    precise float z = m * m;
    precise float y = 7.0376836292e-2;
    y = y * m - 1.1514610310e-1;
    y = y * m + 1.1676998740e-1;
    y = y * m - 1.2420140846e-1;
    y = y * m + 1.4249322787e-1;
    y = y * m - 1.6668057665e-1;
    y = y * m + 2.0000714765e-1;
    y = y * m - 2.4999993993e-1;
    y = y * m + 3.3333331174e-1;
    y = y * m * z;
    float fe = float(e);
    y += -2.12194440e-4 * fe;
    y += -0.5 * z;
    precise float r = m + y;
    return r + 0.693359375 * fe;
}

// ln(1 + x) for small x: ln(u) * x / (u - 1) with u = 1 + x corrects the rounding of u (Goldberg's trick).
float ortvk_log1p(float x)
{
    precise float u = 1.0 + x;
    if (u == 1.0) return x;
    precise float d = u - 1.0;
    return ortvk_log(u) * (x / d);
}

// Sqrt as the unary op and a chain step compute it: NaN below 0 (-0 gives -0); subnormals exactly (ORTVK_EXACT).
vec4 ortvk_sqrt4(vec4 x)
{
    vec4 r = mix(sqrt(x), vec4(ORTVK_NAN), lessThan(x, vec4(0.0)));
    if (!ORTVK_EXACT) return r;
    // A subnormal x: sqrt(x 2^64) 2^-32, NaN where it is negative.
    uvec4 b = floatBitsToUint(x);
    vec4 e = mix(sqrt(ortvk_subnormal_up4(x)) * uintBitsToFloat(0x2f800000u), vec4(ORTVK_NAN),
                 greaterThanEqual(b, uvec4(0x80000000u)));
    return mix(r, e, ortvk_is_subnormal4(x));
}

float ortvk_sqrt(float x)
{
    return ortvk_sqrt4(vec4(x)).x;
}

// tanh: an odd polynomial near 0 (where 1 - e^-2x would cancel), 1 - 2 / (e^2|x| + 1) elsewhere.
float ortvk_tanh(float x)
{
    if (ortvk_isnan(x)) return x;
    float a = abs(x);
    if (a < 0.625) {
        float z = x * x;
        float p = -5.70498872745e-3;
        p = p * z + 2.06390887954e-2;
        p = p * z - 5.37397155531e-2;
        p = p * z + 1.33314422036e-1;
        p = p * z - 3.33332819422e-1;
        return p * z * x + x;
    }
    if (a > 9.0) return sign(x);
    float t = 1.0 - 2.0 / (ortvk_exp(2.0 * a) + 1.0);
    return x < 0.0 ? -t : t;
}

float ortvk_sigmoid(float x)
{
    if (ortvk_isnan(x)) return x;
    // For x < 0, e^x / (1 + e^x) keeps the relative accuracy of tiny results.
    if (x >= 0.0) return 1.0 / (1.0 + ortvk_exp(-x));
    float e = ortvk_exp(x);
    return e / (1.0 + e);
}

// Sigmoid on four lanes with one exp, of -|v| (<= 0: no overflow guard), as vector operations: lavapipe runs both
// sides of ortvk_sigmoid's branch (two exps, each with its guards) under a mask. The same numerator (1, or e^v below
// 0) over the same 1 + e^-|v| as ortvk_sigmoid, through ortvk_exp's core; NaN stays NaN.
vec4 ortvk_sigmoid4(vec4 v)
{
    vec4 t = -abs(v);
    vec4 n;
    vec4 q = ortvk_exp_core(t, n);
    vec4 e = q * ortvk_pow2(ivec4(max(n, vec4(-126.0)))); // as ortvk_exp's
    e = mix(e, vec4(0.0), lessThan(t, vec4(-87.33654475))); // below FLT_MIN, as ortvk_exp
    vec4 s = mix(vec4(1.0), e, lessThan(v, vec4(0.0))) / (1.0 + e);
    return mix(s, v, notEqual(v, v));
}

// HardSigmoid: NaN stays NaN, and so does alpha * x + beta when it is NaN (0 * inf), as on the CPU EP.
float ortvk_hard_sigmoid(float v, float alpha, float beta)
{
    float t = alpha * v + beta;
    return ortvk_isnan(t) ? t : max(0.0, min(1.0, t));
}

float ortvk_hard_swish(float v)
{
    return v * max(0.0, min(1.0, v * (1.0 / 6.0) + 0.5));
}

// erf: its Maclaurin series for |x| < 2 (every term is accurate; the largest partial sum is 2.4 at x = 2),
// 1 - erfc(x) from erfc's continued fraction (evaluated backwards) for 2 <= |x| < 4, and 1 beyond.
float ortvk_erf(float x)
{
    if (ortvk_isnan(x)) return x;
    float a = abs(x);
    float r;
    if (a < 2.0) {
        float z = a * a;
        float term = a, sum = a;
        for (int n = 1; n < 40; n++) {
            term *= -z / float(n);
            float add = term / float(2 * n + 1);
            sum += add;
            if (abs(add) < 1e-9 * abs(sum)) break;
        }
        r = sum * 1.12837916709551257; // 2 / sqrt(pi)
    } else if (a < 4.0) {
        float t = a;
        for (int k = 40; k >= 1; k--) t = a + (float(k) * 0.5) / t;
        r = 1.0 - ortvk_exp(-a * a) * 0.564189583547756287 / t; // 1 / sqrt(pi)
    } else {
        r = 1.0;
    }
    return x < 0.0 ? -r : r;
}

// x^y as C99's pow (Annex F) defines it for floats, which is what ORT's CPU EP computes: 1 for y = ±0 and for x = 1
// (NaN included), (-1)^±inf = 1, |x|^±inf, infinite bases and zero bases by the sign and parity of y, NaN for a
// negative base with a non-integral exponent. Every float of magnitude 2^24 or more is an even integer. Signs and
// zeros are read from the bits (a device may flush subnormals).
float ortvk_pow(float x, float y)
{
    if ((floatBitsToUint(y) & 0x7fffffffu) == 0u) return 1.0;
    // A subnormal exponent acts as any tiny one that is not an integer (2^-100 keeps its sign); a subnormal base is
    // read from its bits below (ortvk_log, ortvk_sqrt).
    bool tiny_y = ortvk_is_subnormal(y);
    if (ORTVK_EXACT && tiny_y) y = uintBitsToFloat((floatBitsToUint(y) & 0x80000000u) | 0x0d800000u);
    if (x == 1.0) return 1.0;
    if (ortvk_isnan(x) || ortvk_isnan(y)) return ORTVK_NAN;
    float ax = uintBitsToFloat(floatBitsToUint(x) & 0x7fffffffu), ay = abs(y); // |x| by its bits: kept if subnormal
    bool negative = (floatBitsToUint(x) >> 31) != 0u;
    if (ay == ORTVK_INF) {
        if (ax == 1.0) return 1.0;
        return (ax < 1.0) == (y > 0.0) ? 0.0 : ORTVK_INF;
    }
    bool integer = floor(y) == y;
    bool odd = integer && ay < 16777216.0 && mod(ay, 2.0) == 1.0;
    if (ax == ORTVK_INF || (floatBitsToUint(x) & 0x7fffffffu) == 0u) {
        bool big = (ax == ORTVK_INF) == (y > 0.0); // inf^positive and 0^negative are infinite
        float r = big ? ORTVK_INF : 0.0;
        return negative && odd ? -r : r;
    }
    // Small integral exponents multiply exactly like the reference does (x*x, x*x*x).
    if (y == 1.0) return x;
    if (y == 2.0) return x * x;
    if (y == 3.0) return x * x * x;
    if (y == 0.5 && !negative) return ortvk_sqrt(x);
    if (negative && !integer) return ORTVK_NAN;
    float r = ortvk_exp(y * ortvk_log(ax));
    return negative && odd ? -r : r;
}
