/* MatMulInteger, QLinearMatMul, ConvInteger and QLinearConv on the device (shaders/kernel_qmm.comp): uint8/int8
 * operands less their zero points, int32 sums that wrap like MLAS's accumulators; QLinearMatMul and QLinearConv
 * requantized as MLAS does. Zero points per tensor (MatMulInteger's B also per column); the convolutions 1-D and 2-D
 * with groups, strides, dilations and pads; QLinearConv's scales per tensor or per output channel, its int32 bias. */
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "kernels/kernel_internal.h"

#define T_UINT8 ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8
#define T_INT8 ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8
#define T_INT32 ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32
#define T_FLOAT ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT

/* The most terms one output element sums: 32,768 of ORTVK_FOR's blocks of 16, half of lavapipe's loop cap. */
#define QMM_MAX_TERMS (INT64_C(1) << 19)

enum { FN_MATMUL, FN_CONV, FN_QLINEAR, FN_QPARAMS, FN_QSCALES, FN_QCONV, FN_PACK_WEIGHTS, FN_PACK_INPUT };

typedef struct push_qmm {
    uint64_t a, b, za, zb, y;
    uint32_t flags; /* 1: a int8, 2: b int8, 4: zb per column / output channel */
    uint32_t d[16];
} push_qmm;

static bool is_8bit(const ortvk_kvalue *v)
{
    return v->present && (v->type == T_UINT8 || v->type == T_INT8);
}

/* A scale or zero point of one value (rank 0 or [1]), or of a rank not known before the run, whose count the run
 * checks (qlinear_gather). */
static bool one_value(const ortvk_kvalue *v)
{
    return v->rank <= 0 || (v->rank == 1 && v->dims[0] == 1);
}

/* A zero point (input k) of the operand's type: absent, or one value (rank 0 or [1]); `column` (MatMulInteger's B)
 * also takes a 1-D one, checked against N in the run. */
static bool zero_point_ok(const ortvk_knode *node, size_t k, bool column)
{
    if (node->n_in <= k || !node->in[k].present) return true;
    const ortvk_kvalue *z = &node->in[k], *of = &node->in[k - 2];
    if (z->type != of->type || z->rank < 0 || z->rank > 1) return false;
    return z->rank == 0 || z->dims[0] == 1 || column;
}

static uint32_t type_flags(const ortvk_krun *run)
{
    return (run->in[0].type == T_INT8 ? 1u : 0u) | (run->in[1].type == T_INT8 ? 2u : 0u);
}

static VkDeviceAddress input_address(const ortvk_krun *run, size_t k)
{
    return run->n_in > k && run->in[k].present ? run->in[k].address : 0;
}

/* MatMulInteger's and ConvInteger's operands, which they take in the same order: A, B, A's and B's zero points (0
 * where absent), and Y, with A's and B's types in the flags. */
static push_qmm integer_operands(const ortvk_krun *run)
{
    return (push_qmm){
        .a = run->in[0].address,
        .b = run->in[1].address,
        .za = input_address(run, 2),
        .zb = input_address(run, 3),
        .y = run->out[0].address,
        .flags = type_flags(run),
    };
}

/* Whether ORT's CPU EP, on the CPU this runs on, sums uint8 x int8 products in pairs saturated to 16 bits. MLAS's
 * U8S8 kernels for AVX2 and for AVX-512 without VNNI multiply with vpmaddubsw, which adds a_k b_k + a_k+1 b_k+1 into
 * an int16 that saturates at +-32767 (ORT's quantization guide calls it the saturation issue and suggests
 * reduce_range); its AVX-VNNI and AVX512-VNNI kernels sum exactly, as ortvk does. Where the CPU EP saturates, its
 * answer differs from the exact one wherever such a pair passes 32767, so ortvk leaves those nodes to it: a model's
 * answer does not change with the EP it lands on. Reads the CPU's features as MLAS does (cpuid, and the registers
 * the OS saves: xgetbv). */
static bool cpu_ep_saturates_u8s8(void)
{
#if defined(__x86_64__) || defined(__i386__)
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 27))) return false; /* no OSXSAVE: no AVX */
    unsigned lo = 0, hi = 0;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    bool ymm = (lo & 0x6u) == 0x6u, zmm = (lo & 0xe6u) == 0xe6u;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
    bool avx2 = ymm && (b & (1u << 5)), avx512_vnni = zmm && (c & (1u << 11));
    bool avx_vnni = __get_cpuid_count(7, 1, &a, &b, &c, &d) && ymm && (a & (1u << 4));
    return avx2 && !avx512_vnni && !avx_vnni;
#else
    return false; /* ARM's MLAS kernels (sdot, udot, smmla) sum exactly */
#endif
}

/* Whether a product of A (type at) and B (type bt) is one the CPU EP saturates here: then ortvk refuses it. */
static bool refused_u8s8(ONNXTensorElementDataType at, ONNXTensorElementDataType bt, char *why, size_t why_len)
{
    if (at != T_UINT8 || bt != T_INT8 || !cpu_ep_saturates_u8s8()) return false;
    ortvk_krefuse(why, why_len, "uint8 x int8 on a CPU whose CPU EP saturates pairs of products (AVX2 without VNNI)");
    return true;
}

/* ---- MatMulInteger -------------------------------------------------------------------------------------- */

static bool matmul_ranks(const ortvk_kvalue *a, const ortvk_kvalue *b, char *why, size_t why_len);

/* A uint8 with B uint8 or int8, or A int8 with B int8 (ORT's CPU EP's kernels). */
static bool matmul_prepare(const ortvk_knode *node, ortvk_kparams *params, char *why, size_t why_len)
{
    params->quant.weights = 1;
    const ortvk_kvalue *a = &node->in[0], *b = &node->in[1];
    if (node->n_in < 2 || node->n_in > 4 || node->n_out != 1 || !is_8bit(a) || !is_8bit(b) ||
        node->out[0].type != T_INT32 || (a->type == T_INT8 && b->type != T_INT8))
        return ortvk_krefuse(why, why_len, "types other than uint8/int8 in, int32 out");
    if (refused_u8s8(a->type, b->type, why, why_len)) return false;
    if (!zero_point_ok(node, 2, false) || !zero_point_ok(node, 3, b->rank == 2))
        return ortvk_krefuse(why, why_len, "zero points other than one value (or one per column of a 2-D B)");
    return matmul_ranks(a, b, why, why_len);
}

/* A and B of rank >= 2; B of rank 2, or of A's rank with the same batch dims, known. */
static bool matmul_ranks(const ortvk_kvalue *a, const ortvk_kvalue *b, char *why, size_t why_len)
{
    if (a->rank < 2 || b->rank < 2 || a->rank > ORTVK_KMAX_RANK)
        return ortvk_krefuse(why, why_len, "ranks %d and %d (ortvk runs 2 and more)", a->rank, b->rank);
    if (a->dims[a->rank - 1] == 0) /* as MatMul's K = 0 (kernel_math.c): the CPU EP leaves its sums uninitialised */
        return ortvk_krefuse(why, why_len, "K = 0");
    if (b->rank > 2) {
        if (b->rank != a->rank) return ortvk_krefuse(why, why_len, "batch dims that broadcast");
        for (int d = 0; d < a->rank - 2; d++) {
            if (a->dims[d] < 0 || a->dims[d] != b->dims[d])
                return ortvk_krefuse(why, why_len, "batch dims that are not known to be equal");
        }
    }
    return true;
}

/* y's dims (A's with N last) from A and B (inputs ia and ib) of `op`. */
static OrtStatus *matmul_dims(const char *op, ortvk_krun *run, size_t ia, size_t ib, ONNXTensorElementDataType type)
{
    const ortvk_ktensor *a = &run->in[ia], *b = &run->in[ib];
    ortvk_ktensor *y = &run->out[0];
    size_t r = a->rank;
    if (r < 2 || b->rank < 2 || (b->rank > 2 && b->rank != r))
        return ortvk_status(ORT_INVALID_ARGUMENT, "%s: A of rank %zu, B of rank %zu", op, r, b->rank);
    if (a->dims[r - 1] != b->dims[b->rank - 2])
        return ortvk_status(ORT_INVALID_ARGUMENT, "%s: A's K %lld is not B's %lld", op, (long long)a->dims[r - 1],
                            (long long)b->dims[b->rank - 2]);
    for (size_t d = 0; b->rank > 2 && d + 2 < r; d++) {
        if (a->dims[d] != b->dims[d])
            return ortvk_status(ORT_INVALID_ARGUMENT, "%s: batch dim %zu of A %lld and B %lld", op, d,
                                (long long)a->dims[d], (long long)b->dims[d]);
    }
    if (a->dims[r - 1] == 0 && ortvk_kcount(a->dims, r - 1) > 0 && b->dims[b->rank - 1] > 0)
        return ortvk_status(ORT_NOT_IMPLEMENTED, "%s: K = 0 (an empty inner dim) with a non-empty output: not "
                            "computed (ORT's CPU EP gives no defined answer for it)", op);
    if (a->dims[r - 1] > QMM_MAX_TERMS)
        return ortvk_status(ORT_NOT_IMPLEMENTED, "%s: K %lld past ortvk's %lld", op, (long long)a->dims[r - 1],
                            (long long)QMM_MAX_TERMS);
    y->type = type;
    y->rank = r;
    memcpy(y->dims, a->dims, sizeof(a->dims));
    y->dims[r - 1] = b->dims[b->rank - 1];
    return NULL;
}

/* The shader's M, N, K, batches and A's and B's batch strides. */
static void matmul_plan(const ortvk_krun *run, size_t ia, size_t ib, uint32_t d[6])
{
    const ortvk_ktensor *a = &run->in[ia], *b = &run->in[ib];
    size_t r = a->rank;
    uint32_t M = (uint32_t)a->dims[r - 2], K = (uint32_t)a->dims[r - 1], N = (uint32_t)b->dims[b->rank - 1];
    uint32_t v[6] = {M, N, K, (uint32_t)(run->out[0].count / ((size_t)M * N)), M * K, b->rank > 2 ? K * N : 0};
    memcpy(d, v, sizeof(v));
}

/* Weights repacked for the shader's block forms (kernel_qmm.comp's pack_weights, FN_PACK_WEIGHTS): `entries` x
 * `blocks` blocks of `width` outputs (of an entry's `outputs`) by K terms (in uvec4s of 16) by `taps`, from bytes
 * whose strides are `strides` (an entry, an output, a term, a tap). Constant weights are repacked once, at Compile
 * (pack_constant: after their bytes as ONNX lays them out, which the one-output form reads); others each run, into a
 * scratch buffer. */
typedef struct weight_layout {
    uint64_t entries, blocks, width, outputs, K, taps, strides[4];
} weight_layout;

/* The layout's steps of 16 terms, and its uvec4s. */
static uint64_t layout_k16(const weight_layout *l)
{
    return (l->K + 15) / 16;
}

static uint64_t layout_uvec4s(const weight_layout *l)
{
    return l->entries * l->blocks * layout_k16(l) * l->taps * l->width;
}

/* B of a product with N columns of K terms, `entries` batch entries of it: blocks of 8 columns. */
static weight_layout matmul_layout(uint64_t entries, uint64_t N, uint64_t K)
{
    return (weight_layout){.entries = entries, .blocks = (N + 7) / 8, .width = 8, .outputs = N, .K = K, .taps = 1,
                           .strides = {K * N, 1, N, 0}};
}

/* Where a packed constant's repacked uvec4s start: after its own bytes, at a multiple of 16. */
static uint64_t packed_start(const ortvk_ktensor *t)
{
    return ((uint64_t)t->count + 15) / 16 * 16;
}

/* The weights `w` repacked in layout l, for a run's block form: a constant's, repacked at Compile, or repacked now
 * into a scratch buffer. */
static OrtStatus *weights_of(ortvk_krun *run, const ortvk_ktensor *w, const weight_layout *l, VkDeviceAddress *packed)
{
    if (w->packed) {
        *packed = w->address + packed_start(w);
        return NULL;
    }
    uint64_t uvec4s = layout_uvec4s(l);
    uint64_t d[11] = {l->blocks, l->entries, l->K, layout_k16(l), l->taps, l->strides[0], l->strides[1], l->strides[2],
                      l->strides[3], l->width, l->outputs};
    push_qmm pack = {.a = w->address};
    for (int k = 0; k < 11; k++) pack.d[k] = (uint32_t)d[k];
    ORTVK_TRY(ortvk_krun_scratch(run, (size_t)(uvec4s * 16), &pack.y));
    *packed = pack.y;
    return ortvk_krun_dispatch_fn(run, ORTVK_SHADER_QMM, FN_PACK_WEIGHTS, &pack, sizeof(pack), uvec4s);
}

/* Compile's packing (ortvk_kpack_fn) of constant weights t whose block form reads layout l: t's bytes, then from
 * packed_start the uvec4s FN_PACK_WEIGHTS would write, byte by byte (its words are little-endian). Returns the bytes
 * that takes; writes them where `packed` is not NULL. */
static size_t pack_constant(const ortvk_ktensor *t, const uint8_t *data, const weight_layout *l, uint8_t *packed)
{
    uint64_t start = packed_start(t), uvec4s = layout_uvec4s(l), K16 = layout_k16(l);
    size_t bytes = (size_t)(start + uvec4s * 16);
    if (packed == NULL) return bytes;
    memset(packed, 0, bytes);
    memcpy(packed, data, t->count);
    for (uint64_t i = 0; i < uvec4s; i++) {
        uint64_t j = i % l->width, rest = i / l->width, tap = rest % l->taps, k16 = (rest / l->taps) % K16;
        uint64_t block = rest / l->taps / K16, out_j = (block % l->blocks) * l->width + j;
        uint64_t from = (block / l->blocks) * l->strides[0] + out_j * l->strides[1] + tap * l->strides[3];
        for (uint64_t b = 0; b < 16 && out_j < l->outputs && 16 * k16 + b < l->K; b++)
            packed[start + 16 * i + b] = data[from + (16 * k16 + b) * l->strides[2]];
    }
    return bytes;
}

/* A product's dispatch (FN_MATMUL or FN_QLINEAR, A input 0, B input ib, push->d planned). Where K is a multiple of 16
 * and A 16-byte aligned, 8 x 8 outputs an invocation, reading 16 k's of a row of A a load, over B repacked so that
 * a column's 16 k's are one load too (the shader's variant 2); else, where N is a multiple of 4 and B 4-byte
 * aligned, 4 x 4, one 32-bit load serving a row of B's 4 columns (variant 1); else one output an invocation. */
static OrtStatus *matmul_dispatch(ortvk_krun *run, uint32_t fn, push_qmm *push, size_t ib)
{
    uint64_t M = push->d[0], N = push->d[1], K = push->d[2], batches = push->d[3];
    if (K % 16 == 0 && run->in[0].address % 16 == 0) {
        weight_layout b = matmul_layout(push->d[5] != 0 ? batches : 1, N, K);
        ORTVK_TRY(weights_of(run, &run->in[ib], &b, &push->b));
        return ortvk_krun_dispatch_fn(run, ORTVK_SHADER_QMM, fn + 2 * ORTVK_KVARIANT, push, sizeof(*push),
                                      batches * ((M + 7) / 8) * ((N + 7) / 8));
    }
    if (N % 4 != 0 || run->in[ib].address % 4 != 0)
        return ortvk_krun_dispatch_fn(run, ORTVK_SHADER_QMM, fn, push, sizeof(*push), run->out[0].count);
    return ortvk_krun_dispatch_fn(run, ORTVK_SHADER_QMM, fn + ORTVK_KVARIANT, push, sizeof(*push),
                                  batches * ((M + 3) / 4) * (N / 4));
}

static OrtStatus *matmul_shape(const ortvk_kparams *params, ortvk_krun *run)
{
    (void)params;
    return matmul_dims("MatMulInteger", run, 0, 1, T_INT32);
}

static OrtStatus *matmul_record(const ortvk_kparams *params, ortvk_krun *run)
{
    (void)params;
    push_qmm push = integer_operands(run);
    matmul_plan(run, 0, 1, push.d);
    bool column = run->n_in > 3 && run->in[3].present && run->in[3].count != 1;
    if (column && run->in[3].count != push.d[1])
        return ortvk_status(ORT_INVALID_ARGUMENT, "MatMulInteger: B's zero point of %zu values for N %u",
                            run->in[3].count, push.d[1]);
    push.flags |= column ? 4u : 0u;
    return matmul_dispatch(run, FN_MATMUL, &push, 1);
}

/* MatMulInteger's and QLinearMatMul's constant B (input params->quant.weights) repacked for the 8 x 8 form where K
 * is a multiple of 16 (matmul_dispatch): B of rank 2, or of A's batch dims (matmul_ranks), entries of [K, N]. */
size_t ortvk_kqmm_matmul_pack(const ortvk_kparams *params, size_t input, const ortvk_ktensor *t, const void *data,
                              void *packed)
{
    if (input != params->quant.weights || t->rank < 2 || t->count == 0) return 0;
    uint64_t K = (uint64_t)t->dims[t->rank - 2], N = (uint64_t)t->dims[t->rank - 1];
    if (K % 16 != 0) return 0;
    weight_layout l = matmul_layout(t->count / (K * N), N, K);
    return pack_constant(t, data, &l, packed);
}

/* ---- QLinearMatMul -------------------------------------------------------------------------------------- */

/* Inputs a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point: A and y uint8 with B uint8 or
 * int8, or all int8 (the CPU EP's kernels); float scales and zero points of one value each. */
static bool qlinear_prepare(const ortvk_knode *node, ortvk_kparams *params, char *why, size_t why_len)
{
    params->quant.weights = 3;
    if (node->n_in != 8 || node->n_out != 1) return ortvk_krefuse(why, why_len, "not 8 inputs and 1 output");
    const ortvk_kvalue *a = &node->in[0], *b = &node->in[3], *y = &node->out[0];
    bool s8 = a->type == T_INT8;
    if (!is_8bit(a) || !is_8bit(b) || y->type != a->type || (s8 && b->type != T_INT8))
        return ortvk_krefuse(why, why_len, "types other than the CPU EP's (uint8 x uint8/int8, int8 x int8)");
    if (refused_u8s8(a->type, b->type, why, why_len)) return false;
    static const size_t scales[3] = {1, 4, 6}, zps[3] = {2, 5, 7};
    for (int k = 0; k < 3; k++) {
        const ortvk_kvalue *sv = &node->in[scales[k]], *zv = &node->in[zps[k]];
        ONNXTensorElementDataType zt = k == 0 ? a->type : k == 1 ? b->type : y->type;
        if (!sv->present || sv->type != T_FLOAT || !one_value(sv) || !zv->present || zv->type != zt ||
            !one_value(zv))
            return ortvk_krefuse(why, why_len, "scales or zero points other than one value each");
    }
    return matmul_ranks(a, b, why, why_len);
}

static OrtStatus *qlinear_shape(const ortvk_kparams *params, ortvk_krun *run)
{
    (void)params;
    return matmul_dims("QLinearMatMul", run, 0, 3, run->in[0].type);
}

/* QLinearMatMul's and QLinearConv's types (A or x input 0, B or w input 3, y) in the shader's flags. */
static uint32_t qlinear_flags(const ortvk_krun *run)
{
    return (run->in[0].type == T_INT8 ? 1u : 0u) | (run->in[3].type == T_INT8 ? 2u : 0u) |
           (run->out[0].type == T_INT8 ? 8u : 0u);
}

/* The requantization's parameters, from inputs 1, 2 and 4-7 (QLinearMatMul's and QLinearConv's alike: A's scale and
 * zero point, B's, y's), into a scratch buffer `words` that the product reads: the zero points (FN 3), then `scales`
 * output scales (FN 4). Inputs 1, 2, 6 and 7 must hold one value each. */
static OrtStatus *qlinear_gather(const char *op, ortvk_krun *run, uint32_t flags, uint32_t scales,
                                 VkDeviceAddress *words)
{
    static const size_t ones[4] = {1, 2, 6, 7};
    for (size_t k = 0; k < 4; k++) {
        if (run->in[ones[k]].count != 1)
            return ortvk_status(ORT_INVALID_ARGUMENT, "%s: input %zu has %zu values, not one", op, ones[k],
                                run->in[ones[k]].count);
    }
    ORTVK_TRY(ortvk_krun_scratch(run, (3 + (size_t)scales) * sizeof(uint32_t), words));
    push_qmm gather = {.a = run->in[2].address, .b = run->in[5].address, .zb = run->in[7].address, .y = *words,
                       .flags = flags};
    gather.d[6] = 1;
    ORTVK_TRY(ortvk_krun_dispatch_fn(run, ORTVK_SHADER_QMM, FN_QPARAMS, &gather, sizeof(gather), 1));
    push_qmm scale = {.a = run->in[1].address, .b = run->in[4].address, .zb = run->in[6].address, .y = *words,
                      .flags = flags};
    scale.d[6] = scales;
    return ortvk_krun_dispatch_fn(run, ORTVK_SHADER_QMM, FN_QSCALES, &scale, sizeof(scale), scales);
}

static OrtStatus *qlinear_record(const ortvk_kparams *params, ortvk_krun *run)
{
    (void)params;
    if (run->in[4].count != 1 || run->in[5].count != 1)
        return ortvk_status(ORT_INVALID_ARGUMENT, "QLinearMatMul: b_scale of %zu and b_zero_point of %zu values, "
                            "not one", run->in[4].count, run->in[5].count);
    VkDeviceAddress words = 0;
    uint32_t flags = qlinear_flags(run);
    ORTVK_TRY(qlinear_gather("QLinearMatMul", run, flags, 1, &words));
    push_qmm push = {.a = run->in[0].address, .b = run->in[3].address, .za = words, .y = run->out[0].address,
                     .flags = flags};
    matmul_plan(run, 0, 3, push.d);
    return matmul_dispatch(run, FN_QLINEAR, &push, 3);
}

/* ---- ConvInteger ---------------------------------------------------------------------------------------- */

/* An ints attribute of exactly `n` values, each in [low, 2^30] (absent: every value `fallback`). */
static bool ints_n(const ortvk_knode *node, const char *name, int64_t *out, int n, int64_t fallback, int64_t low)
{
    int count = 0;
    int64_t v[6];
    if (!ortvk_knode_ints(node, name, v, 6, &count) || (count >= 0 && count != n)) return false;
    for (int i = 0; i < n; i++) out[i] = count < 0 ? fallback : v[i];
    for (int i = 0; i < n; i++) {
        if (out[i] < low || out[i] > (INT64_C(1) << 30)) return false;
    }
    return true;
}

/* A convolution's geometry (ConvInteger's, QLinearConv's): X and W (inputs 0 and iw) of rank 3 or 4, and the
 * attributes. */
static bool conv_geometry(const ortvk_knode *node, size_t iw, ortvk_kparams_conv *p, char *why, size_t why_len)
{
    const ortvk_kvalue *x = &node->in[0], *w = &node->in[iw];
    int rank = x->rank, n = rank - 2;
    if ((rank != 3 && rank != 4) || w->rank != rank)
        return ortvk_krefuse(why, why_len, "input rank %d (ortvk runs 1-D and 2-D)", rank);
    int64_t pads[4];
    p->spatial = n;
    if (!ortvk_knode_int(node, "group", 1, &p->group) || p->group < 1 ||
        !ortvk_knode_auto_pad(node, &p->auto_pad) ||
        !ints_n(node, "kernel_shape", p->kernel, n, 0, 0) || !ints_n(node, "strides", p->strides, n, 1, 1) ||
        !ints_n(node, "dilations", p->dilations, n, 1, 1) || !ints_n(node, "pads", pads, 2 * n, 0, 0))
        return ortvk_krefuse(why, why_len, "attribute values");
    for (int i = 0; i < n; i++) {
        p->pads[i] = pads[i];
        p->pads[2 + i] = pads[n + i];
        /* SAME with dilations or a kernel below the stride: ORT's CPU EP pads otherwise than ONNX; left to it. */
        int64_t k = p->kernel[i] != 0 ? p->kernel[i] : w->dims[2 + i];
        if (p->auto_pad >= ORTVK_AUTO_PAD_SAME_UPPER && (p->dilations[i] > 1 || k < 1 || k < p->strides[i]))
            return ortvk_krefuse(why, why_len, "auto_pad SAME_* with dilations or a kernel below the stride");
    }
    if (n == 1) { /* 1-D runs as 2-D with H = 1 */
        p->kernel[1] = p->kernel[0], p->kernel[0] = 1;
        p->strides[1] = p->strides[0], p->strides[0] = 1;
        p->dilations[1] = p->dilations[0], p->dilations[0] = 1;
        p->pads[1] = p->pads[0], p->pads[3] = p->pads[2], p->pads[0] = p->pads[2] = 0;
    }
    return true;
}

/* X and W uint8 (the CPU EP's only ConvInteger), of rank 3 or 4, zero points of one value each. */
static bool conv_prepare(const ortvk_knode *node, ortvk_kparams *params, char *why, size_t why_len)
{
    params->quant.weights = 1;
    const ortvk_kvalue *x = &node->in[0], *w = &node->in[1];
    if (node->n_in < 2 || node->n_in > 4 || node->n_out != 1 || !is_8bit(x) || x->type != T_UINT8 ||
        !is_8bit(w) || w->type != T_UINT8 || node->out[0].type != T_INT32)
        return ortvk_krefuse(why, why_len, "types other than uint8 in, int32 out");
    if (!zero_point_ok(node, 2, false) || !zero_point_ok(node, 3, false))
        return ortvk_krefuse(why, why_len, "zero points other than one value");
    return conv_geometry(node, 1, &params->quant.conv, why, why_len);
}

static void as_4d(const ortvk_ktensor *t, int64_t d[4])
{
    if (t->rank == 3) d[0] = t->dims[0], d[1] = t->dims[1], d[2] = 1, d[3] = t->dims[2];
    else memcpy(d, t->dims, 4 * sizeof(int64_t));
}

/* The run's geometry in the shader's order (kernel_qmm.comp's conv_sums()): N, C, H, W, M, KH, KW, OH, OW, groups,
 * strides, dilations, begin pads; W is input iw of `op`. */
static OrtStatus *conv_plan(const char *op, const ortvk_kparams_conv *p, const ortvk_krun *run, size_t iw,
                            int64_t g[16])
{
    int64_t x[4], w[4];
    as_4d(&run->in[0], x);
    as_4d(&run->in[iw], w);
    int64_t G = p->group, M = w[0];
    if (x[1] % G != 0 || M % G != 0 || w[1] * G != x[1])
        return ortvk_status(ORT_INVALID_ARGUMENT, "%s: %lld channels, weights %lld x %lld, group %lld", op,
                            (long long)x[1], (long long)w[0], (long long)w[1], (long long)G);
    int64_t v[16] = {x[0], x[1], x[2], x[3], M, w[2], w[3], 0, 0, G, p->strides[0], p->strides[1],
                     p->dilations[0], p->dilations[1], 0, 0};
    for (int d = 0; d < 2; d++) {
        int64_t k = w[2 + d], in = x[2 + d], s = p->strides[d];
        if (p->kernel[d] != 0 && p->kernel[d] != k)
            return ortvk_status(ORT_INVALID_ARGUMENT, "%s: kernel_shape %lld, weights %lld", op,
                                (long long)p->kernel[d], (long long)k);
        int64_t dk = (k - 1) * p->dilations[d] + 1, pb = p->pads[d], pe = p->pads[2 + d];
        ortvk_kauto_pad(p->auto_pad, in, s, dk, &pb, &pe);
        if (in + pb + pe < dk || in + pb + pe > (INT64_C(1) << 30))
            return ortvk_status(ORT_INVALID_ARGUMENT, "%s: kernel %lld over a padded input of %lld", op,
                                (long long)dk, (long long)(in + pb + pe));
        v[7 + d] = (in + pb + pe - dk) / s + 1;
        v[14 + d] = pb;
    }
    if (w[1] * w[2] * w[3] > QMM_MAX_TERMS)
        return ortvk_status(ORT_NOT_IMPLEMENTED, "%s: %lld taps an output, past ortvk's %lld", op,
                            (long long)(w[1] * w[2] * w[3]), (long long)QMM_MAX_TERMS);
    memcpy(g, v, sizeof(v));
    return NULL;
}

/* y of `type`, the shape of X (input 0) convolved with W (input iw) of `op`. */
static OrtStatus *conv_dims(const char *op, const ortvk_kparams *params, ortvk_krun *run, size_t iw,
                            ONNXTensorElementDataType type)
{
    const ortvk_ktensor *x = &run->in[0];
    if (run->in[iw].rank != x->rank || x->rank < 3)
        return ortvk_status(ORT_INVALID_ARGUMENT, "%s: weights of rank %zu", op, run->in[iw].rank);
    int64_t g[16];
    ORTVK_TRY(conv_plan(op, &params->quant.conv, run, iw, g));
    ortvk_ktensor *y = &run->out[0];
    y->type = type;
    y->rank = x->rank;
    y->dims[0] = g[0];
    y->dims[1] = g[4];
    if (x->rank == 3) y->dims[2] = g[8];
    else y->dims[2] = g[7], y->dims[3] = g[8];
    return NULL;
}

static OrtStatus *conv_shape(const ortvk_kparams *params, ortvk_krun *run)
{
    return conv_dims("ConvInteger", params, run, 1, T_INT32);
}

/* The output channels and columns of the shader's variant 1 block (variant 2's: 16 channels by 4 columns), and the
 * most steps of a tap (16 channels each) its loop takes (lavapipe ends loops past 65,535 iterations). */
#define QCONV_BLOCK 8
#define QCONV_MAX_STEPS 32768

/* x repacked for the block forms (FN_PACK_INPUT) into a scratch buffer of `uvec4s`, which then replaces push->a. */
static OrtStatus *pack_input(ortvk_krun *run, push_qmm *push, uint64_t uvec4s, VkDeviceAddress x_zero_point)
{
    push_qmm pack = *push;
    pack.za = x_zero_point;
    ORTVK_TRY(ortvk_krun_scratch(run, (size_t)(uvec4s * 16), &pack.y));
    push->a = pack.y;
    return ortvk_krun_dispatch_fn(run, ORTVK_SHADER_QMM, FN_PACK_INPUT, &pack, sizeof(pack), uvec4s);
}

/* The forms of a convolution (kernel_qmm.comp), over x and w repacked so that one 16-byte load reads 16 input
 * channels of a pixel or of a tap's weights (FN_PACK_INPUT, FN_PACK_WEIGHTS):
 * - depthwise (a channel a group): 16 channels by 4 columns an invocation (variant 2), the geometry passed as one
 *   group of C channels;
 * - a group of 4 output channels or more: blocks of 8 of them by 8 columns (variant 1);
 * - else, or past the limits below, one output an invocation (variant 0), x and w as they are.
 * The columns' input indices, (ox + q) * stride + kx * dilation - pad, stay inside 32-bit ints with strides and
 * dilations below 2^16 (the padded input is below 2^30: conv_plan), and a tap's loop within QCONV_MAX_STEPS. */
typedef enum { QCONV_ONE, QCONV_BLOCKS, QCONV_DEPTHWISE } qconv_form;

/* The form of groups of Cg input and Mg output channels over `taps` taps, strides and dilations `steps` (h, w, h, w);
 * x's size may still make a run's the one-output form (conv_dispatch). */
static qconv_form conv_form(uint64_t Cg, uint64_t Mg, uint64_t taps, const int64_t steps[4])
{
    for (int k = 0; k < 4; k++) {
        if (steps[k] >= 65536) return QCONV_ONE;
    }
    if (Cg == 1 && Mg == 1 && taps <= QCONV_MAX_STEPS) return QCONV_DEPTHWISE;
    if (Mg >= 4 && (Cg + 15) / 16 * taps <= QCONV_MAX_STEPS) return QCONV_BLOCKS;
    return QCONV_ONE;
}

/* The weights' layout of a block form: [M, Cg, taps] bytes as blocks of 8 output channels of a group, or (depthwise)
 * as one entry of the C = G channels' taps. */
static weight_layout conv_layout(qconv_form form, uint64_t G, uint64_t Cg, uint64_t Mg, uint64_t taps)
{
    if (form == QCONV_DEPTHWISE)
        return (weight_layout){.entries = 1, .blocks = 1, .width = 1, .outputs = 1, .K = G, .taps = taps,
                               .strides = {0, 0, taps, 1}};
    return (weight_layout){.entries = G, .blocks = (Mg + QCONV_BLOCK - 1) / QCONV_BLOCK, .width = QCONV_BLOCK,
                           .outputs = Mg, .K = Cg, .taps = taps, .strides = {Mg * Cg * taps, Cg * taps, taps, 1}};
}

/* A convolution's dispatch (FN_CONV or FN_QCONV) over geometry g, weights w, x's zero point at x_zero_point (0:
 * none), in conv_form's form; the repacked x's uvec4s are counted in 32 bits. */
static OrtStatus *conv_dispatch(ortvk_krun *run, uint32_t fn, push_qmm *push, const int64_t g[16],
                                const ortvk_ktensor *w, VkDeviceAddress x_zero_point)
{
    for (int k = 0; k < 16; k++) push->d[k] = (uint32_t)g[k];
    uint64_t G = (uint64_t)g[9], C = (uint64_t)g[1], Cg = C / G, Mg = (uint64_t)g[4] / G;
    uint64_t C16 = (Cg + 15) / 16, all16 = (C + 15) / 16; /* steps of 16 channels: of a group, of all of them */
    uint64_t taps = (uint64_t)(g[5] * g[6]), pixels = (uint64_t)(g[0] * g[2] * g[3]);
    uint64_t columns = (uint64_t)g[8], rows = (uint64_t)(g[0] * g[7]);
    qconv_form form = conv_form(Cg, Mg, taps, g + 10);
    if ((form == QCONV_DEPTHWISE && pixels * all16 >= (UINT64_C(1) << 31)) ||
        (form == QCONV_BLOCKS && pixels * G * C16 >= (UINT64_C(1) << 31)))
        form = QCONV_ONE;
    if (form == QCONV_ONE)
        return ortvk_krun_dispatch_fn(run, ORTVK_SHADER_QMM, fn, push, sizeof(*push), run->out[0].count);
    weight_layout l = conv_layout(form, G, Cg, Mg, taps);
    ORTVK_TRY(weights_of(run, w, &l, &push->b));
    if (form == QCONV_DEPTHWISE) {
        push->d[9] = 1;
        ORTVK_TRY(pack_input(run, push, pixels * all16, x_zero_point));
        return ortvk_krun_dispatch_fn(run, ORTVK_SHADER_QMM, fn + 2 * ORTVK_KVARIANT, push, sizeof(*push),
                                      rows * all16 * ((columns + 3) / 4));
    }
    ORTVK_TRY(pack_input(run, push, pixels * G * C16, x_zero_point));
    return ortvk_krun_dispatch_fn(run, ORTVK_SHADER_QMM, fn + ORTVK_KVARIANT, push, sizeof(*push),
                                  rows * G * l.blocks * ((columns + QCONV_BLOCK - 1) / QCONV_BLOCK));
}

/* ConvInteger's and QLinearConv's constant w (input params->quant.weights, [M, C/G, taps...]) repacked for their
 * block form, where conv_form gives one. */
size_t ortvk_kqmm_conv_pack(const ortvk_kparams *params, size_t input, const ortvk_ktensor *t, const void *data,
                            void *packed)
{
    const ortvk_kparams_conv *p = &params->quant.conv;
    if (input != params->quant.weights || (t->rank != 3 && t->rank != 4) || t->count == 0) return 0;
    uint64_t G = (uint64_t)p->group, M = (uint64_t)t->dims[0], Cg = (uint64_t)t->dims[1];
    uint64_t taps = t->count / (M * Cg);
    int64_t steps[4] = {p->strides[0], p->strides[1], p->dilations[0], p->dilations[1]};
    if (M % G != 0) return 0; /* the run refuses it */
    qconv_form form = conv_form(Cg, M / G, taps, steps);
    if (form == QCONV_ONE) return 0;
    weight_layout l = conv_layout(form, G, Cg, M / G, taps);
    return pack_constant(t, data, &l, packed);
}

static OrtStatus *conv_record(const ortvk_kparams *params, ortvk_krun *run)
{
    int64_t g[16];
    ORTVK_TRY(conv_plan("ConvInteger", &params->quant.conv, run, 1, g));
    push_qmm push = integer_operands(run);
    return conv_dispatch(run, FN_CONV, &push, g, &run->in[1], input_address(run, 2));
}

/* ---- QLinearConv ---------------------------------------------------------------------------------------- */

/* Whether the CPU EP may take its symmetric kernels (MlasConvSym*): int8 weights and their zero points constants, the
 * zero points all 0, and x's zero point a constant (QLinearConv's PrePack). Their AVX-VNNI depthwise kernel
 * accumulates with vpdpbusds, which saturates at +-2^31 where every other kernel's int32 sums wrap, as ortvk's do. */
static bool cpu_ep_symmetric(const ortvk_knode *node)
{
    const uint8_t *z = NULL;
    size_t n = 0;
    if (node->in[3].type != T_INT8 || !node->in[3].constant || !node->in[2].constant ||
        !ortvk_knode_const_bytes(node, 5, &z, &n))
        return false;
    for (size_t i = 0; i < n; i++) {
        if (z[i] != 0) return false;
    }
    return true;
}

/* Whether a sum of W's taps stays inside int32 whatever the values (|x - x_zero_point| <= 255, |w| <= 128, which the
 * symmetric kernels' input of x - 128 keeps too), so that saturating and wrapping sums agree. Needs W's dims. */
static bool symmetric_sums_fit(const ortvk_kvalue *w)
{
    double taps = 1.0;
    for (int d = 1; d < w->rank; d++) taps *= (double)w->dims[d];
    return w->rank >= 3 && taps >= 0.0 && taps * 255.0 * 128.0 < 0x1p31;
}

/* One value, or (per output channel) one a channel, all equal: the CPU EP takes w's zero points only so. */
static bool weight_zero_points_ok(const ortvk_knode *node)
{
    const ortvk_kvalue *z = &node->in[5];
    if (!z->present || z->type != node->in[3].type || z->rank < 0 || z->rank > 1) return false;
    if (z->rank == 0 || z->dims[0] == 1) return true;
    const uint8_t *v = NULL;
    size_t n = 0;
    if (!ortvk_knode_const_bytes(node, 5, &v, &n)) return false;
    for (size_t i = 1; i < n; i++) {
        if (v[i] != v[0]) return false;
    }
    return true;
}

/* Inputs x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point and an optional int32 bias B, of
 * the CPU EP's types (x and y uint8 with w uint8 or int8, or all int8); float scales; x's and y's scales and zero
 * points of one value, w's one or one an output channel (its zero points all equal, as the CPU EP requires). */
static bool qconv_prepare(const ortvk_knode *node, ortvk_kparams *params, char *why, size_t why_len)
{
    params->quant.weights = 3;
    if ((node->n_in != 8 && node->n_in != 9) || node->n_out != 1)
        return ortvk_krefuse(why, why_len, "not 8 or 9 inputs and 1 output");
    const ortvk_kvalue *x = &node->in[0], *w = &node->in[3], *y = &node->out[0];
    if (!is_8bit(x) || !is_8bit(w) || y->type != x->type || (x->type == T_INT8 && w->type != T_INT8))
        return ortvk_krefuse(why, why_len, "types other than the CPU EP's (uint8 x uint8/int8, int8 x int8)");
    if (refused_u8s8(x->type, w->type, why, why_len)) return false;
    static const size_t scales[3] = {1, 4, 6}, zps[2] = {2, 7};
    for (int k = 0; k < 3; k++) {
        const ortvk_kvalue *sv = &node->in[scales[k]];
        if (!sv->present || sv->type != T_FLOAT || !(one_value(sv) || (k == 1 && sv->rank == 1)))
            return ortvk_krefuse(why, why_len, "scales other than float, of one value (w's: or one a channel)");
    }
    for (int k = 0; k < 2; k++) {
        const ortvk_kvalue *zv = &node->in[zps[k]];
        if (!zv->present || zv->type != x->type || !one_value(zv))
            return ortvk_krefuse(why, why_len, "x's or y's zero point other than one value of its type");
    }
    if (!weight_zero_points_ok(node))
        return ortvk_krefuse(why, why_len, "w's zero points: not one value, nor constant and all equal");
    const ortvk_kvalue *b = node->n_in > 8 ? &node->in[8] : NULL;
    if (b && b->present && (b->type != T_INT32 || b->rank != 1))
        return ortvk_krefuse(why, why_len, "a bias other than 1-D int32");
    if (cpu_ep_symmetric(node) && !symmetric_sums_fit(w))
        return ortvk_krefuse(why, why_len, "int8 weights of zero points 0 and so many taps an output that a sum may "
                             "pass 2^31 (the CPU EP's symmetric kernels may saturate it, ortvk's wraps)");
    return conv_geometry(node, 3, &params->quant.conv, why, why_len);
}

static OrtStatus *qconv_shape(const ortvk_kparams *params, ortvk_krun *run)
{
    return conv_dims("QLinearConv", params, run, 3, run->in[0].type);
}

/* The parameters gathered (FN 3 and 4), then the convolution (FN 5, conv_dispatch). */
static OrtStatus *qconv_record(const ortvk_kparams *params, ortvk_krun *run)
{
    int64_t g[16];
    ORTVK_TRY(conv_plan("QLinearConv", &params->quant.conv, run, 3, g));
    size_t M = (size_t)g[4], scales = run->in[4].count;
    bool bias = run->n_in > 8 && run->in[8].present;
    if ((scales != 1 && scales != M) || (run->in[5].count != 1 && run->in[5].count != M) ||
        (bias && run->in[8].count != M))
        return ortvk_status(ORT_INVALID_ARGUMENT, "QLinearConv: w_scale of %zu, w_zero_point of %zu and B of %zu "
                            "values for %zu output channels", scales, run->in[5].count,
                            bias ? run->in[8].count : M, M);
    if (g[1] == 0 && run->out[0].count > 0)
        return ortvk_status(ORT_NOT_IMPLEMENTED, "QLinearConv: no input channels with a non-empty output: not "
                            "computed (ORT's CPU EP gives no defined answer for it)");
    VkDeviceAddress words = 0;
    uint32_t flags = qlinear_flags(run) | (scales > 1 ? 4u : 0u);
    ORTVK_TRY(qlinear_gather("QLinearConv", run, flags, (uint32_t)scales, &words));
    push_qmm push = {.a = run->in[0].address, .b = run->in[3].address, .za = words,
                     .zb = bias ? run->in[8].address : 0, .y = run->out[0].address, .flags = flags};
    return conv_dispatch(run, FN_QCONV, &push, g, &run->in[3], run->in[2].address);
}

const ortvk_kop ortvk_kops_qmm[] = {
    {"MatMulInteger", 10, 10, "", 0, matmul_prepare, matmul_shape, matmul_record},
    {"QLinearMatMul", 10, 10, "", 0, qlinear_prepare, qlinear_shape, qlinear_record},
    {"ConvInteger", 10, 10, "auto_pad dilations group kernel_shape pads strides", 0, conv_prepare, conv_shape,
     conv_record},
    {"QLinearConv", 10, 10, "auto_pad dilations group kernel_shape pads strides", 0, qconv_prepare, qconv_shape,
     qconv_record},
    {NULL, 0, 0, NULL, 0, NULL, NULL, NULL},
};
