/* Conv and ConvTranspose (1-D and 2-D, groups, strides, dilations, pads and auto_pad, bias) as direct sums blocked
 * over output channels and columns, and BatchNormalization in inference mode. Output sizes and pads follow the ONNX
 * operator definitions. */
#include <stddef.h>
#include <string.h>

#include "kernels/kernel_internal.h"

static bool float_input(const ortvk_knode *node, size_t i)
{
    return i < node->n_in && node->in[i].present && ortvk_kfloat(node->in[i].type);
}

/* Reads an ints attribute of exactly `n` values (absent: every value `fallback`). */
static bool ints_n(const ortvk_knode *node, const char *name, int64_t *out, int n, int64_t fallback)
{
    int count = 0;
    int64_t v[2 * 3];
    if (!ortvk_knode_ints(node, name, v, 6, &count)) return false;
    if (count < 0) {
        for (int i = 0; i < n; i++) out[i] = fallback;
        return true;
    }
    if (count != n) return false;
    memcpy(out, v, (size_t)n * sizeof(int64_t));
    return true;
}

static bool conv_prepare(const ortvk_knode *node, ortvk_kparams *params, char *why, size_t why_len)
{
    ortvk_kparams_conv *p = &params->conv;
    bool transpose = strcmp(node->op_type, "ConvTranspose") == 0;
    if (node->n_in < 2 || node->n_in > 3 || !float_input(node, 0) || !float_input(node, 1) ||
        (node->n_in == 3 && node->in[2].present && !float_input(node, 2)))
        return ortvk_krefuse(why, why_len, "inputs are not X, W[, B] of float");
    if (node->n_out != 1 || !ortvk_kfloat(node->out[0].type))
        return ortvk_krefuse(why, why_len, "output is not float");
    /* Constant weights holding NaN or infinity: where a window overlaps the padding, the answer depends on how the
     * CPU EP computes (MLAS's NCHWc kernels skip padded taps; its im2col multiplies them, 0 * inf = NaN), which
     * ORT picks by channel counts and layout: left to the CPU EP, whose answer is then the model's. */
    if (ortvk_knode_const_nonfinite(node, 1)) return ortvk_krefuse(why, why_len, "weights hold NaN or infinity");
    /* X's rank may be unknown to ORT (after an If's branch, a run-time Reshape): W's rank is X's, as both EPs
     * require; a run whose X has another rank fails (geometry). */
    int rank = node->in[0].rank >= 0 ? node->in[0].rank : node->in[1].rank;
    if (rank != 3 && rank != 4) return ortvk_krefuse(why, why_len, "input rank %d (ortvk runs 1-D and 2-D)", rank);
    if (node->in[1].rank >= 0 && node->in[1].rank != rank)
        return ortvk_krefuse(why, why_len, "weights of rank %d", node->in[1].rank);
    int n = rank - 2;
    p->spatial = n;
    int64_t pads[4];
    if (!ortvk_knode_int(node, "group", 1, &p->group) || p->group < 1 ||
        !ortvk_knode_auto_pad(node, &p->auto_pad) ||
        !ints_n(node, "kernel_shape", p->kernel, n, 0) || !ints_n(node, "strides", p->strides, n, 1) ||
        !ints_n(node, "dilations", p->dilations, n, 1) || !ints_n(node, "pads", pads, 2 * n, 0))
        return ortvk_krefuse(why, why_len, "unsupported attribute values");
    for (int i = 0; i < n; i++) {
        if (p->strides[i] < 1 || p->dilations[i] < 1 || p->kernel[i] < 0 || pads[i] < 0 || pads[n + i] < 0)
            return ortvk_krefuse(why, why_len, "non-positive strides/dilations or negative pads");
        /* The shaders take these as 32-bit values and compute indices with them; 2^30 keeps every product exact. */
        int64_t most = INT64_C(1) << 30;
        if (p->strides[i] > most || p->dilations[i] > most || p->kernel[i] > most || pads[i] > most ||
            pads[n + i] > most)
            return ortvk_krefuse(why, why_len, "strides, dilations, kernel_shape or pads past 2^30");
        p->pads[i] = pads[i];
        p->pads[2 + i] = pads[n + i];
    }
    /* ORT's CPU EP rejects SAME_* with dilations ("Dilation not supported for AutoPadType::SAME_UPPER or
     * AutoPadType::SAME_LOWER"): left to it. A kernel more than 1 below the stride makes its SAME pads negative
     * (total (ceil(in / stride) - 1) * stride + kernel - in, down to kernel - stride), and its convolution then
     * places the windows otherwise than either rounding of them: left to it too. One below the stride needs a
     * total of -1 at most, a head pad of 0 in both EPs (1x1 convolutions of stride 2). */
    bool same = p->auto_pad == ORTVK_AUTO_PAD_SAME_UPPER || p->auto_pad == ORTVK_AUTO_PAD_SAME_LOWER;
    for (int i = 0; !transpose && same && i < n; i++) {
        if (p->dilations[i] > 1)
            return ortvk_krefuse(why, why_len, "auto_pad SAME_* with dilations[%d] = %lld", i,
                                 (long long)p->dilations[i]);
        int64_t k = p->kernel[i] != 0 ? p->kernel[i] : node->in[1].rank == rank ? node->in[1].dims[2 + i] : -1;
        if (p->strides[i] > 2 && k < p->strides[i] - 1)
            return ortvk_krefuse(why, why_len, "auto_pad SAME_* with kernel dim %d of %lld below strides[%d] = %lld "
                                 "less 1 (negative pads)", i, (long long)k, i, (long long)p->strides[i]);
    }
    if (transpose) {
        if (!ints_n(node, "output_padding", p->output_padding, n, 0))
            return ortvk_krefuse(why, why_len, "output_padding");
        /* output_shape gives the spatial dims, or (as some exporters write it) the whole shape. */
        int count = 0;
        int64_t shape[ORTVK_KMAX_RANK];
        if (!ortvk_knode_ints(node, "output_shape", shape, ORTVK_KMAX_RANK, &count) ||
            (count >= 0 && count != n && count != n + 2))
            return ortvk_krefuse(why, why_len, "output_shape");
        p->has_output_shape = count >= 0;
        for (int i = 0; i < n && p->has_output_shape; i++) p->output_shape[i] = shape[count - n + i];
        for (int i = 0; i < n; i++) {
            /* ONNX allows output_padding below the stride or the dilation; ORT's CPU EP rejects one not below the
             * stride (its output would not convolve back to the input's size): left to it. */
            if (p->output_padding[i] < 0 || p->output_padding[i] >= p->strides[i])
                return ortvk_krefuse(why, why_len, "output_padding[%d] = %lld not in [0, stride)", i,
                                     (long long)p->output_padding[i]);
            /* SAME with a stride: ONNX's output is input * stride, ORT's CPU EP gives less where the kernel is
             * smaller than the stride; left to it. */
            if (p->strides[i] > 1 &&
                (p->auto_pad == ORTVK_AUTO_PAD_SAME_UPPER || p->auto_pad == ORTVK_AUTO_PAD_SAME_LOWER))
                return ortvk_krefuse(why, why_len, "auto_pad SAME_* with a stride > 1");
        }
    }
    /* 1-D runs as 2-D with H = 1: shift the attributes into the W slot. */
    if (n == 1) {
        p->kernel[1] = p->kernel[0], p->kernel[0] = 1;
        p->strides[1] = p->strides[0], p->strides[0] = 1;
        p->dilations[1] = p->dilations[0], p->dilations[0] = 1;
        p->pads[1] = p->pads[0], p->pads[3] = p->pads[2], p->pads[0] = p->pads[2] = 0;
        p->output_padding[1] = p->output_padding[0], p->output_padding[0] = 0;
        p->output_shape[1] = p->output_shape[0], p->output_shape[0] = 1;
    }
    return true;
}

/* Input and weight dims as 4-D (N, C, H, W) and (M|C, C/G|M/G, KH, KW). */
static void as_4d(const ortvk_ktensor *t, int64_t d[4])
{
    if (t->rank == 3) {
        d[0] = t->dims[0], d[1] = t->dims[1], d[2] = 1, d[3] = t->dims[2];
    } else {
        memcpy(d, t->dims, 4 * sizeof(int64_t));
    }
}

/* Effective pads and output size of one spatial dim of Conv. */
static OrtStatus *conv_dim(const ortvk_kparams_conv *p, int d, int64_t in, int64_t k, int64_t *pad_begin,
                           int64_t *out)
{
    int64_t s = p->strides[d], dk = (k - 1) * p->dilations[d] + 1;
    int64_t pb = p->pads[d], pe = p->pads[2 + d];
    ortvk_kauto_pad(p->auto_pad, in, s, dk, &pb, &pe);
    if (in + pb + pe < dk) return ortvk_status(ORT_INVALID_ARGUMENT, "Conv: kernel larger than the padded input");
    *pad_begin = pb;
    *out = (in + pb + pe - dk) / s + 1;
    return NULL;
}

/* Effective pads and output size of one spatial dim of ConvTranspose (ONNX ConvTranspose, opset 11). */
static OrtStatus *conv_transpose_dim(const ortvk_kparams_conv *p, int d, int64_t in, int64_t k, int64_t *pad_begin,
                                     int64_t *out)
{
    int64_t s = p->strides[d], dk = (k - 1) * p->dilations[d] + 1, adj = p->output_padding[d];
    int64_t full = s * (in - 1) + adj + dk;
    if (p->has_output_shape || p->auto_pad == ORTVK_AUTO_PAD_SAME_UPPER || p->auto_pad == ORTVK_AUTO_PAD_SAME_LOWER) {
        int64_t target = p->has_output_shape ? p->output_shape[d] : in * s;
        int64_t total = full - target;
        /* ORT's CPU EP fails these runs: an output dim below 1, and an input dim below the one output_shape
         * implies, (target - output_padding - dk) / stride + 1 (less only leaves a total pad above -stride). */
        if (target < 1)
            return ortvk_status(ORT_INVALID_ARGUMENT, "ConvTranspose: output dim %d of %lld (input dim %lld)", d,
                                (long long)target, (long long)in);
        if (p->has_output_shape && in < (target - adj - dk) / s + 1)
            return ortvk_status(ORT_INVALID_ARGUMENT, "ConvTranspose: output_shape dim %d of %lld needs more than "
                                "the input dim %lld (kernel %lld, stride %lld, dilation %lld, output_padding %lld)",
                                d, (long long)target, (long long)in, (long long)k, (long long)s,
                                (long long)p->dilations[d], (long long)adj);
        if (total < 0) total = 0;
        *pad_begin = p->auto_pad == ORTVK_AUTO_PAD_SAME_UPPER ? total / 2 : total - total / 2;
        *out = target;
        return NULL;
    }
    int64_t pb = p->auto_pad == ORTVK_AUTO_PAD_VALID ? 0 : p->pads[d];
    int64_t pe = p->auto_pad == ORTVK_AUTO_PAD_VALID ? 0 : p->pads[2 + d];
    *pad_begin = pb;
    *out = full - pb - pe;
    if (*out < 1) return ortvk_status(ORT_INVALID_ARGUMENT, "ConvTranspose: empty output");
    return NULL;
}

typedef struct conv_geometry {
    int64_t x[4], w[4], out[4];
    int64_t pad[2];
} conv_geometry;

static OrtStatus *geometry(const ortvk_kparams_conv *p, bool transpose, ortvk_krun *run, conv_geometry *g)
{
    const ortvk_ktensor *x = &run->in[0], *w = &run->in[1];
    if (x->rank != (size_t)p->spatial + 2 || w->rank != x->rank)
        return ortvk_status(ORT_INVALID_ARGUMENT, "Conv: X of rank %zu, W of rank %zu (the node was claimed for "
                            "rank %d)", x->rank, w->rank, p->spatial + 2);
    as_4d(x, g->x);
    as_4d(w, g->w);
    int64_t G = p->group, C = g->x[1];
    int64_t M = transpose ? g->w[1] * G : g->w[0];
    if (transpose ? g->w[0] != C : g->w[1] * G != C)
        return ortvk_status(ORT_INVALID_ARGUMENT, "Conv: %lld input channels do not match the weights",
                            (long long)C);
    if (C % G != 0 || M % G != 0) return ortvk_status(ORT_INVALID_ARGUMENT, "Conv: channels not divisible by group");
    for (int d = 0; d < 2; d++) {
        if (p->kernel[d] != 0 && p->kernel[d] != g->w[2 + d])
            return ortvk_status(ORT_INVALID_ARGUMENT, "Conv: kernel_shape does not match the weights");
    }
    const ortvk_ktensor *b = run->n_in > 2 ? &run->in[2] : NULL;
    if (b != NULL && b->present && (b->rank != 1 || b->dims[0] != M))
        return ortvk_status(ORT_INVALID_ARGUMENT, "Conv: bias is not of shape [%lld]", (long long)M);
    g->out[0] = g->x[0];
    g->out[1] = M;
    for (int d = 0; d < 2; d++) {
        ORTVK_TRY((transpose ? conv_transpose_dim : conv_dim)(p, d, g->x[2 + d], g->w[2 + d], &g->pad[d],
                                                             &g->out[2 + d]));
    }
    return NULL;
}

static OrtStatus *conv_shape_common(const ortvk_kparams *params, ortvk_krun *run, bool transpose)
{
    conv_geometry g = {0};
    ORTVK_TRY(geometry(&params->conv, transpose, run, &g));
    ortvk_ktensor *y = &run->out[0];
    y->type = run->in[0].type;
    y->rank = run->in[0].rank;
    y->dims[0] = g.out[0];
    y->dims[1] = g.out[1];
    if (y->rank == 3) y->dims[2] = g.out[3];
    else y->dims[2] = g.out[2], y->dims[3] = g.out[3];
    return NULL;
}

static OrtStatus *conv_shape(const ortvk_kparams *params, ortvk_krun *run)
{
    return conv_shape_common(params, run, false);
}

static OrtStatus *conv_transpose_shape(const ortvk_kparams *params, ortvk_krun *run)
{
    return conv_shape_common(params, run, true);
}

typedef struct push_conv {
    uint64_t x, w, b, y;
    uint32_t N, C, H, W;
    uint32_t M, OH, OW;
    uint32_t KH, KW, SH, SW;
    int32_t PH, PW;
    uint32_t DH, DW, G;
    uint32_t TM;                   /* output channels per invocation: 1, 2 or 4 of one group */
    uint32_t step_h, step_w;       /* ConvTranspose: taps between those that reach one output; Conv: the range of
                                      a group's input channels a dispatch sums (conv_dispatch) */
    union {
        int32_t di_h;              /* ConvTranspose: how far the input index moves from one such tap to the next */
        uint32_t slices;           /* Conv with packed weights: 0, or an invocation per block and slice: the slices
                                      of its split sums (packed_sliced), 1 unsplit (packed_record) */
    };
    union {
        struct {
            int32_t di_w;          /* ConvTranspose: di_h's twin */
            uint32_t unused;
        };
        uint64_t chain;            /* Conv: its fused chain's step operands (ortvk_krun's chain), or 0 */
    };
    uint64_t partial;              /* Conv of float16 tensors over several ranges: float32 partial sums; of float32
                                      tensors with a chain that reads a residual: the residual; ConvTranspose: its
                                      fused chain's step and per-channel operands (run->chain), or 0 */
} push_conv;
_Static_assert(offsetof(push_conv, chain) == 112 && sizeof(push_conv) == 128,
               "push_conv: the shader's operands `chain` and `partial` are its last two 8-byte words");

/* Output columns per invocation of the Conv shader (its TW). */
#define CONV_COLUMNS 8
/* The shader's variant 2: its general loops (weights packed or not) over 4 output columns an invocation. */
#define CONV_NARROW (2 * ORTVK_KVARIANT)
#define CONV_NARROW_COLUMNS 4

static uint32_t gcd(uint32_t a, uint32_t b)
{
    while (b != 0) {
        uint32_t r = a % b;
        a = b;
        b = r;
    }
    return a;
}

/* The input channels of one of conv_dispatch's ranges at most. */
static uint32_t conv_chunk(const push_conv *push)
{
    uint32_t per_channel = 1 + push->KH + push->KH * push->KW; /* iterations of its loops per input channel */
    uint32_t chunk = 16000 / per_channel;
    return chunk == 0 ? 1 : chunk;
}

bool ortvk_kconv_sums_at_once(const ortvk_ktensor *w)
{
    if (w->rank != 3 && w->rank != 4) return false;
    int64_t d[4];
    as_4d(w, d);
    push_conv push = {.KH = (uint32_t)d[2], .KW = (uint32_t)d[3]};
    return d[1] <= (int64_t)conv_chunk(&push);
}

/* Records Conv's dispatches: one, or one per range of input channels where a loop over all of them would pass
 * lavapipe's cap of 65535 loop iterations an invocation (shaders/common.glsl); ranges after the first add to the
 * partial sums in y, in the same order. */
static OrtStatus *conv_dispatch(ortvk_krun *run, uint32_t fn, const ortvk_kspec *spec, push_conv *push,
                                uint64_t invocations)
{
    uint32_t cg = push->G > 0 ? push->C / push->G : 0;
    uint32_t chunk = conv_chunk(push);
    push->step_h = 0;
    push->step_w = cg;
    if (cg <= chunk)
        return ortvk_krun_dispatch_spec(run, ORTVK_SHADER_CONV, fn, spec, push, sizeof(*push), invocations);
    /* float16 partial sums would round once per range: they stay float32 in a scratch buffer. */
    if (run->float16) ORTVK_TRY(ortvk_krun_scratch(run, run->out[0].count * sizeof(float), &push->partial));
    for (uint32_t c = 0; c < cg; c += chunk) {
        push->step_h = c;
        push->step_w = cg - c < chunk ? cg : c + chunk;
        ORTVK_TRY(ortvk_krun_dispatch_spec(run, ORTVK_SHADER_CONV, fn, spec, push, sizeof(*push), invocations));
    }
    return NULL;
}

/* The residual a Conv's fused chain reads (push_conv's `partial` holds it), for the GEMM's stores: 0 without one. */
static VkDeviceAddress chain_residual(const push_conv *push, const ortvk_kspec *spec)
{
    return (spec->words[1] & ORTVK_CHAIN_RESIDUAL) ? push->partial : 0;
}

/* A pointwise convolution (1x1, stride 1, no pads, group 1; `push` with H = 1 and W = the pixels) as the GEMM
 * shader's fast form, where it applies, or of one pixel in any form (*done): Y[n] (M x HW) = W (M x C) X[n]
 * (C x HW) + bias, W as ONNX lays it out or packed as its transpose; with one pixel (squeeze-excitation) and packed
 * weights, Y[n]^T = X[n]^T W^T. */
static OrtStatus *conv_as_gemm(ortvk_krun *run, const push_conv *push, bool packed, const ortvk_kspec *spec,
                               bool *done)
{
    *done = false;
    if (push->G != 1) return NULL;
    int64_t M = push->M, C = push->C, HW = push->W;
    ortvk_kgemm_plan g = {
        .M = M, .N = HW, .K = C, .batch_rank = 1, .batch = {push->N}, .a_batch = {0}, .b_batch = {C * HW},
        .a_sm = packed ? 1 : C, .a_sk = packed ? M : 1, .b_sk = HW, .b_sn = 1,
        .c_sm = 1, .c_sn = 0, .has_c = push->b != 0, .residual = chain_residual(push, spec),
        .b_odd = true, /* pixels not a multiple of 4 (17 x 30): B's rows element by element, 6-10x the conv shader */
    };
    VkDeviceAddress a = push->w, b = push->x;
    if (HW == 1 && packed) {
        g = (ortvk_kgemm_plan){
            .M = 1, .N = M, .K = C, .batch_rank = 1, .batch = {push->N}, .a_batch = {C}, .b_batch = {0},
            .a_sm = C, .a_sk = 1, .b_sk = M, .b_sn = 1, .c_sm = 0, .c_sn = 1, .has_c = push->b != 0,
            .residual = chain_residual(push, spec), /* at y's index, which one pixel leaves as it is */
        };
        a = push->x;
        b = push->w;
    }
    /* One pixel takes the GEMM in any form: its generic one still beats the conv shader's blocks of 8 columns, 7
     * of them idle (the squeeze-excitation's Convs of 10-50 channels: 0.27-1.3 ms -> 0.2 ms and less, run AG). */
    if (HW != 1 && !ortvk_kgemm_takes(run, &g, a, b, push->y)) return NULL;
    *done = true;
    return ortvk_kgemm_record(run, &g, a, b, push->b, push->y, 1.0f, 1.0f, spec);
}

/* Whether a Conv of these attributes, one input channel and weights of `taps` taps runs as a GEMM of its windows
 * (signal_as_gemm) wherever its input starts on 16 bytes: 1-D, no pads, no dilation, taps and stride multiples of 4
 * (an STFT written as a Conv). Its weights then stay as ONNX lays them out (ortvk_kconv_pack), the GEMM's A. */
static bool signal_conv(const ortvk_kparams_conv *p, int64_t group, int64_t group_channels, int64_t taps)
{
    return p->spatial == 1 && group == 1 && group_channels == 1 && taps % 4 == 0 && p->strides[1] % 4 == 0 &&
           p->dilations[1] == 1 && p->pads[1] == 0 && p->pads[3] == 0 &&
           (p->auto_pad == ORTVK_AUTO_PAD_NOTSET || p->auto_pad == ORTVK_AUTO_PAD_VALID);
}

/* A 1-D convolution of one input channel without pads (Silero VAD's STFT: 1 -> 258 channels, kernel 256, stride
 * 128): y[m, n] = sum_k W[m, k] x[n * stride + k], the GEMM of W's rows by the input's windows, B's columns read
 * along k as vec4 and overlapping one another. The conv shader's general loop took a fetch per column and tap
 * for 2 or 4 channels (docs/benchmarks.md, run AJ). *done says whether it ran. */
static OrtStatus *signal_as_gemm(ortvk_krun *run, const push_conv *push, const ortvk_kspec *spec, bool *done)
{
    *done = false;
    if (run->in[1].packed || push->G != 1 || push->C != 1 || push->H != 1 || push->KH != 1 || push->PH != 0 ||
        push->PW != 0 || push->OH != 1 || push->OW == 0)
        return NULL;
    /* Every window within the input (no end pads). */
    if ((uint64_t)(push->OW - 1) * push->SW + (uint64_t)(push->KW - 1) * push->DW >= push->W) return NULL;
    ortvk_kgemm_plan g = {
        .M = push->M, .N = push->OW, .K = push->KW, .batch_rank = 1, .batch = {push->N}, .a_batch = {0},
        .b_batch = {push->W}, .a_sm = push->KW, .a_sk = 1, .b_sk = push->DW, .b_sn = push->SW,
        .c_sm = 1, .c_sn = 0, .has_c = push->b != 0, .residual = chain_residual(push, spec),
    };
    if (!ortvk_kgemm_takes(run, &g, push->w, push->x, push->y)) return NULL;
    *done = true;
    return ortvk_kgemm_record(run, &g, push->w, push->x, push->b, push->y, 1.0f, 1.0f, spec);
}

/* The push constants of a convolution of geometry `g`; with empty inputs or weights (a zero-sized channel count)
 * the sums are of nothing: bias only, or zeros. */
static push_conv conv_push(const ortvk_kparams_conv *p, const conv_geometry *g, const ortvk_krun *run, bool transpose)
{
    const ortvk_ktensor *b = run->n_in > 2 && run->in[2].present ? &run->in[2] : NULL;
    push_conv push = {
        .chain = transpose ? 0 : run->chain,
        .x = run->in[0].address,
        .w = run->in[1].address,
        .b = b != NULL ? b->address : 0,
        .y = run->out[0].address,
        .N = (uint32_t)g->x[0],
        .C = (uint32_t)g->x[1],
        .H = (uint32_t)g->x[2],
        .W = (uint32_t)g->x[3],
        .M = (uint32_t)g->out[1],
        .OH = (uint32_t)g->out[2],
        .OW = (uint32_t)g->out[3],
        .KH = (uint32_t)g->w[2],
        .KW = (uint32_t)g->w[3],
        .SH = (uint32_t)p->strides[0],
        .SW = (uint32_t)p->strides[1],
        .PH = (int32_t)g->pad[0],
        .PW = (int32_t)g->pad[1],
        .DH = (uint32_t)p->dilations[0],
        .DW = (uint32_t)p->dilations[1],
        .G = (uint32_t)p->group,
    };
    if (run->in[0].count == 0 || run->in[1].count == 0) {
        push.C = 0;
        push.x = push.w = push.y;
    }
    /* Blocks of output channels that stay within one group. */
    uint32_t group_channels = push.M / push.G;
    push.TM = group_channels % 4 == 0 ? 4 : group_channels % 2 == 0 ? 2 : 1;
    return push;
}

/* A depthwise convolution (one input channel per group, as many output channels): kernel_depthwise.c. */
static OrtStatus *depthwise_record(ortvk_krun *run, const push_conv *push, const ortvk_kspec *spec)
{
    ortvk_kdepthwise d = {
        .x = push->x, .w = push->w, .b = push->b, .y = push->y, .r = push->partial, .N = push->N, .C = push->C,
        .H = push->H,
        .W = push->W, .OH = push->OH, .OW = push->OW, .KH = push->KH, .KW = push->KW, .SH = push->SH,
        .SW = push->SW, .DH = push->DH, .DW = push->DW, .PH = push->PH, .PW = push->PW,
    };
    return ortvk_kdepthwise_record(run, &d, spec);
}

/* Whether the convolution is pointwise: 1x1, stride 1, no pads, the output the input's size. */
static bool pointwise(const push_conv *push, const conv_geometry *g)
{
    return push->KH == 1 && push->KW == 1 && push->SH == 1 && push->SW == 1 && push->PH == 0 && push->PW == 0 &&
           g->pad[0] == 0 && g->pad[1] == 0 && push->OH == push->H && push->OW == push->W;
}

/* The shader's variants 5 and 6: packed weights in slices of the channels (packed_sliced), and the sum of a sliced
 * form's partial sums with the bias and the chain (after packed_sliced, or the tiles in slices of K). */
#define CONV_SLICED (5 * ORTVK_KVARIANT)
#define CONV_SLICE_SUM (6 * ORTVK_KVARIANT)

/* A GPU's form (docs/kernels.md, "Forms per device"): a convolution that is not depthwise as an implicit GEMM per
 * image and group in tiles through shared memory (the shader's variant 4, main_tiles; constant 0 says
 * whether the weights are packed), all the channels in one dispatch; a pointwise one of group 1 as the GEMM's tiles
 * where the GEMM takes it (no residual). Few tiles over many taps sum them in slices of K (ortvk_krun_tiles_slices)
 * into float32 partial sums, added by a second dispatch (variant 6); not with a residual, whose operand would hold
 * them. *done stays false where the form does not apply. */
#define CONV_TILES (4 * ORTVK_KVARIANT)
static OrtStatus *tiles_record(ortvk_krun *run, push_conv *push, const conv_geometry *g, const ortvk_kspec *spec,
                               bool *done)
{
    *done = false;
    uint64_t K = (uint64_t)push->C / push->G * push->KH * push->KW;
    if (!ortvk_krun_tiles_form(run, K)) return NULL;
    if (push->G == 1 && pointwise(push, g)) {
        push_conv flat = *push;
        flat.W = flat.OW = push->H * push->W;
        flat.H = flat.OH = 1;
        ORTVK_TRY(conv_as_gemm(run, &flat, run->in[1].packed, spec, done));
        if (*done) return NULL;
    }
    uint64_t mg = push->M / push->G, pixels = (uint64_t)push->OH * push->OW, entries = (uint64_t)push->N * push->G;
    uint32_t step = (uint32_t)K, slices = 1;
    if (!(spec->words[1] & ORTVK_CHAIN_RESIDUAL)) slices = ortvk_krun_tiles_slices(mg, pixels, entries, K, &step);
    push->step_h = 0; /* one range of channels: all of them, in slices of `step` taps (K where unsliced) */
    push->step_w = step;
    push->slices = slices > 1 ? slices : 0;
    *done = true;
    if (slices > 1)
        ORTVK_TRY(ortvk_krun_scratch(run, (size_t)slices * run->out[0].count * sizeof(float), &push->partial));
    ORTVK_TRY(ortvk_krun_dispatch_spec(run, ORTVK_SHADER_CONV, (run->in[1].packed ? 1 : 0) + CONV_TILES, spec, push,
                                       sizeof(*push), ortvk_krun_tiles_invocations(mg, pixels, entries * slices)));
    if (slices < 2) return NULL;
    return ortvk_krun_dispatch_spec(run, ORTVK_SHADER_CONV, CONV_SLICE_SUM, spec, push, sizeof(*push),
                                    run->out[0].count);
}

/* Invocations a sliced convolution aims for (packed_sliced), and the taps a slice sums at least. */
#define CONV_SLICED_INVOCATIONS 512
#define CONV_SLICE_TAPS 256

/* Packed weights of few output blocks and many taps, where one invocation per block would leave most lanes and
 * cores idle (the recognizer's 1x3 Convs: 60 channels of 40 pixels over 960 x 3 taps, 75 blocks, 2.8 GFLOP/s): the
 * group's channels in slices summed by their own invocations into float32 partial sums, then added slice after
 * slice with the bias and the chain (the shader's variants 5 and 6). Not with a residual (its operand holds the
 * partial sums) and not where the blocks alone make enough invocations. *done says whether it ran. */
static OrtStatus *packed_sliced(ortvk_krun *run, push_conv *push, uint32_t fn, const ortvk_kspec *spec,
                                uint64_t pixel_blocks, bool *done)
{
    *done = false;
    uint64_t blocks = (uint64_t)push->N * (push->M / push->TM) * pixel_blocks;
    uint32_t cg = push->C / push->G, taps = push->KH * push->KW;
    if (blocks >= CONV_SLICED_INVOCATIONS / 2 || (spec->words[1] & ORTVK_CHAIN_RESIDUAL)) return NULL;
    uint64_t slices = (CONV_SLICED_INVOCATIONS + blocks - 1) / blocks;
    uint64_t most = (uint64_t)cg * taps / CONV_SLICE_TAPS; /* slices of CONV_SLICE_TAPS taps at least */
    if (slices > most) slices = most;
    if (slices < 2) return NULL;
    uint32_t step = (uint32_t)((cg + slices - 1) / slices);
    slices = (cg + step - 1) / step; /* none empty */
    if (step > conv_chunk(push) || slices < 2) return NULL; /* a slice's loop within lavapipe's cap */
    uint64_t count = run->out[0].count;
    ORTVK_TRY(ortvk_krun_scratch(run, slices * count * sizeof(float), &push->partial));
    push->slices = (uint32_t)slices;
    push->step_h = 0;
    push->step_w = cg;
    *done = true;
    ORTVK_TRY(ortvk_krun_dispatch_spec(run, ORTVK_SHADER_CONV, fn + CONV_SLICED, spec, push, sizeof(*push),
                                       blocks * slices));
    return ortvk_krun_dispatch_spec(run, ORTVK_SHADER_CONV, CONV_SLICE_SUM, spec, push, sizeof(*push), count);
}

/* Packed weights (conv_pack): 8 or 4 channels a vec4 at a time. A pointwise convolution runs as the GEMM where it
 * can, else as one row of H * W columns, read as vec4 where the rows start 16-byte aligned. */
static OrtStatus *packed_record(ortvk_krun *run, push_conv *push, const conv_geometry *g, const ortvk_kspec *spec)
{
    push->TM = (push->M / push->G) % 8 == 0 ? 8 : 4;
    uint32_t fn = push->TM == 8 ? 2 : 1;
    if (pointwise(push, g)) {
        push->W = push->OW = push->H * push->W;
        push->H = push->OH = 1;
        bool done = false;
        ORTVK_TRY(conv_as_gemm(run, push, true, spec, &done));
        if (done) return NULL;
        if (push->W % 4 == 0 && run->in[0].address % 16 == 0) fn |= 4;
    } else if (push->KH == 3 && push->KW == 3 && push->SW == push->SH && push->SW <= 2 && push->DW == 1 &&
               push->DH == 1 && push->PW == 1 && push->W % 4 == 0 && run->in[0].address % 16 == 0) {
        /* Rows as vec4, two output rows an invocation (each weight fetched serves both); stride 2: bit 2. */
        fn |= 8 | 16 | (push->SW == 2 ? 4 : 0);
        /* Results stored 4 columns at a time (the shader's variant 1) where output rows and y (and a
         * residual) allow it and one dispatch sums all the channels (no partial sums between ranges). */
        if (push->OW % 4 == 0 && push->y % 16 == 0 && push->partial % 16 == 0 && push->C / push->G <= conv_chunk(push))
            fn += ORTVK_KVARIANT;
    } else if (push->KH == 1 && push->KW == 3 && push->SW == 1 && push->SH == 1 && push->DW == 1 && push->PW == 1 &&
               push->W % 4 == 0 && run->in[0].address % 16 == 0) {
        fn |= 8; /* 1x3: rows as vec4, one output row an invocation */
    }
    uint32_t rows = (fn % ORTVK_KVARIANT) & 16 ? 2 : 1, columns = CONV_COLUMNS;
    /* The general loop over outputs of a few columns: 4 an invocation (the shader's variant 2), whose input
     * fetches a tap are half of 8 columns'. */
    if ((fn & (4 | 8)) == 0 && push->OW <= CONV_NARROW_COLUMNS) {
        fn += CONV_NARROW;
        columns = CONV_NARROW_COLUMNS;
    }
    /* Workgroups of 64 column blocks that share their output channels (shaders/kernel_conv.comp). */
    uint64_t pixel_blocks = (uint64_t)((push->OH + rows - 1) / rows) * ((push->OW + columns - 1) / columns);
    if (rows == 1 && fn < ORTVK_KVARIANT) {
        bool done = false;
        ORTVK_TRY(packed_sliced(run, push, fn % ORTVK_KVARIANT, spec, pixel_blocks, &done));
        if (done) return NULL;
    }
    /* Fewer pixel blocks than a workgroup's 64 invocations (deep layers, 1-D convolutions of a few frames): an
     * invocation per block, the channel blocks side by side (one slice), so that they fill the workgroups. */
    if (pixel_blocks < 64) {
        push->slices = 1;
        return conv_dispatch(run, fn, spec, push, (uint64_t)push->N * (push->M / push->TM) * pixel_blocks);
    }
    uint64_t groups = (uint64_t)push->N * (push->M / push->TM) * ((pixel_blocks + 63) / 64);
    return conv_dispatch(run, fn, spec, push, groups * 64);
}

/* The 2x2 upsampling as register tiles (the shader's main_tiles): 1 << tm_log output channels by 4 << q_log input
 * pixels of a row an invocation, 8 channel-quads at most (128 accumulators: on lavapipe 4 channels by 8 pixels took
 * about 25% less time than 4 by 4; 8 by 4 and 2 by 8 were not told apart from 4 by 4 at the machine's load). */
static OrtStatus *transpose_tiles(ortvk_krun *run, const push_conv *push, const ortvk_kspec *spec)
{
    uint32_t mg = push->M / push->G, tm_log = mg % 4 == 0 ? 2 : mg % 2 == 0 ? 1 : 0;
    uint32_t q_log = 0;
    while (q_log < 2 && (tm_log + q_log) < 3 && push->W % (8u << q_log) == 0) q_log++;
    uint64_t quads = push->W / (4u << q_log);
    uint64_t invocations = (uint64_t)push->N * (push->M >> tm_log) * push->H * quads;
    return ortvk_krun_dispatch_spec(run, ORTVK_SHADER_CONV_TRANSPOSE, (3 + tm_log) + ORTVK_KVARIANT * q_log, spec,
                                    push, sizeof(*push), invocations);
}

/* Kernels the size of the stride, without dilation: each output reads one tap, found without a search; 2x2 without
 * pads (the usual upsampling by 2): register tiles over rows a multiple of 4 long (16-byte aligned tensors), else
 * an invocation per input pixel (the shader's DIRECT). */
static OrtStatus *transpose_record(ortvk_krun *run, push_conv *push, const ortvk_kspec *spec)
{
    uint64_t blocks = (uint64_t)push->N * (push->M / push->TM) * push->OH;
    uint32_t direct = push->KH == push->SH && push->KW == push->SW && push->DH == 1 && push->DW == 1 &&
                      push->C / push->G < ORTVK_KMAX_LOOP;
    if (direct && push->KH == 2 && push->KW == 2 && push->PH == 0 && push->PW == 0 && push->OH == 2 * push->H &&
        push->OW == 2 * push->W && push->w % 16 == 0) {
        if (push->W % 4 == 0 && push->x % 16 == 0 && push->y % 16 == 0) return transpose_tiles(run, push, spec);
        return ortvk_krun_dispatch_spec(run, ORTVK_SHADER_CONV_TRANSPOSE, 2, spec, push, sizeof(*push),
                                        (uint64_t)push->N * (push->M / push->TM) * push->H * push->W);
    }
    push->step_h = push->SH / gcd(push->SH, push->DH);
    push->step_w = push->SW / gcd(push->SW, push->DW);
    push->di_h = (int32_t)(push->step_h * push->DH / push->SH);
    push->di_w = (int32_t)(push->step_w * push->DW / push->SW);
    return ortvk_krun_dispatch_spec(run, ORTVK_SHADER_CONV_TRANSPOSE, direct, spec, push, sizeof(*push),
                                    blocks * push->OW);
}

static OrtStatus *conv_record_common(const ortvk_kparams *params, ortvk_krun *run, bool transpose)
{
    const ortvk_kparams_conv *p = &params->conv;
    conv_geometry g = {0};
    ORTVK_TRY(geometry(p, transpose, run, &g));
    push_conv push = conv_push(p, &g, run, transpose);
    ortvk_kspec spec; /* a fused element-wise chain after the convolution, or none */
    ortvk_kchain_spec(&p->epilogue, &spec);
    if (transpose) {
        push.partial = run->chain;
        return transpose_record(run, &push, &spec);
    }
    if (p->epilogue.residual > 0) ORTVK_TRY(ortvk_kchain_residual(&p->epilogue, run, &push.partial)); /* float32 */
    if (push.C > 0 && push.G == push.C && push.M == push.C) return depthwise_record(run, &push, &spec);
    bool done = false;
    if (push.C == 1) ORTVK_TRY(signal_as_gemm(run, &push, &spec, &done));
    if (done) return NULL;
    if (push.C > 0) ORTVK_TRY(tiles_record(run, &push, &g, &spec, &done));
    if (done) return NULL;
    if (run->in[1].packed && push.C > 0) return packed_record(run, &push, &g, &spec);
    if (push.C > 0 && pointwise(&push, &g)) {
        push_conv flat = push;
        flat.W = flat.OW = push.H * push.W;
        flat.H = flat.OH = 1;
        ORTVK_TRY(conv_as_gemm(run, &flat, false, &spec, &done));
        if (done) return NULL;
    }
    bool narrow = push.OW <= CONV_NARROW_COLUMNS;
    uint32_t columns = narrow ? CONV_NARROW_COLUMNS : CONV_COLUMNS;
    uint64_t blocks = (uint64_t)push.N * (push.M / push.TM) * push.OH * ((push.OW + columns - 1) / columns);
    return conv_dispatch(run, narrow ? CONV_NARROW : 0, &spec, &push, blocks);
}

/* Conv's constant weights [M][C/G][KH][KW] rearranged as [G][C/G][KH][KW][M/G], so that one vec4 holds 4 output
 * channels' weights of one tap; only where a group's output channels come in fours (not depthwise). */
size_t ortvk_kconv_pack(const ortvk_kparams *params, size_t input, const ortvk_ktensor *t, const void *data,
                        void *packed)
{
    if (input != 1 || (t->rank != 3 && t->rank != 4) || t->count == 0) return 0;
    int64_t G = params->conv.group, M = t->dims[0], cg = t->dims[1];
    int64_t taps = t->rank == 4 ? t->dims[2] * t->dims[3] : t->dims[2];
    if (G < 1 || M % G != 0 || (M / G) % 4 != 0 || signal_conv(&params->conv, G, cg, taps)) return 0;
    int64_t mg = M / G;
    size_t es = ortvk_element_size(t->type);
    if (packed == NULL) return t->count * es;
    const uint8_t *from = data;
    uint8_t *to = packed;
    for (int64_t m = 0; m < M; m++) {
        int64_t g = m / mg, ml = m % mg;
        for (int64_t c = 0; c < cg; c++) {
            for (int64_t k = 0; k < taps; k++) {
                size_t src = (size_t)((m * cg + c) * taps + k);
                size_t dst = (size_t)(((g * cg + c) * taps + k) * mg + ml);
                memcpy(to + dst * es, from + src * es, es);
            }
        }
    }
    return t->count * es;
}

static OrtStatus *conv_record(const ortvk_kparams *params, ortvk_krun *run)
{
    return conv_record_common(params, run, false);
}

static OrtStatus *conv_transpose_record(const ortvk_kparams *params, ortvk_krun *run)
{
    return conv_record_common(params, run, true);
}

/* ---- BatchNormalization --------------------------------------------------------------------------------- */

static bool batchnorm_prepare(const ortvk_knode *node, ortvk_kparams *params, char *why, size_t why_len)
{
    if (node->n_in != 5) return ortvk_krefuse(why, why_len, "%zu inputs", node->n_in);
    for (size_t i = 0; i < 5; i++) {
        if (!float_input(node, i)) return ortvk_krefuse(why, why_len, "input %zu is not float", i);
    }
    /* Only Y: the running statistics outputs exist in training mode. */
    if (node->n_out != 1 || !ortvk_kfloat(node->out[0].type))
        return ortvk_krefuse(why, why_len, "training outputs");
    int64_t training = 0, spatial = 1;
    if (!ortvk_knode_int(node, "training_mode", 0, &training) || training != 0)
        return ortvk_krefuse(why, why_len, "training_mode");
    if (!ortvk_knode_int(node, "spatial", 1, &spatial) || spatial != 1) return ortvk_krefuse(why, why_len, "spatial");
    if (!ortvk_knode_float(node, "epsilon", 1e-5f, &params->batchnorm.epsilon))
        return ortvk_krefuse(why, why_len, "epsilon");
    return true;
}

static OrtStatus *batchnorm_shape(const ortvk_kparams *params, ortvk_krun *run)
{
    (void)params;
    const ortvk_ktensor *x = &run->in[0];
    if (x->rank < 2) return ortvk_status(ORT_INVALID_ARGUMENT, "BatchNormalization: X of rank %zu", x->rank);
    for (size_t i = 1; i < 5; i++) {
        if (run->in[i].rank != 1 || run->in[i].dims[0] != x->dims[1])
            return ortvk_status(ORT_INVALID_ARGUMENT, "BatchNormalization: input %zu is not of shape [C]", i);
    }
    run->out[0].type = x->type;
    run->out[0].rank = x->rank;
    memcpy(run->out[0].dims, x->dims, sizeof(x->dims));
    return NULL;
}

typedef struct push_batchnorm {
    uint64_t x, scale, bias, mean, var, y;
    uint32_t n, C, inner;
    float epsilon;
} push_batchnorm;

static OrtStatus *batchnorm_record(const ortvk_kparams *params, ortvk_krun *run)
{
    const ortvk_ktensor *x = &run->in[0];
    push_batchnorm push = {
        .x = x->address,
        .scale = run->in[1].address,
        .bias = run->in[2].address,
        .mean = run->in[3].address,
        .var = run->in[4].address,
        .y = run->out[0].address,
        .n = (uint32_t)x->count,
        .C = (uint32_t)x->dims[1],
        .inner = (uint32_t)ortvk_kcount(x->dims + 2, x->rank - 2),
        .epsilon = params->batchnorm.epsilon,
    };
    /* 16 elements of one channel an invocation, as vec4 (the shader's VEC), where channels come in 16s. */
    if (push.inner % 16 == 0 && push.x % 16 == 0 && push.y % 16 == 0)
        return ortvk_krun_dispatch_fn(run, ORTVK_SHADER_BATCHNORM, 1, &push, sizeof(push), x->count / 16);
    return ortvk_krun_dispatch(run, ORTVK_SHADER_BATCHNORM, &push, sizeof(push), x->count);
}

const ortvk_kop ortvk_kops_conv[] = {
    {"Conv", 1, 22, "auto_pad dilations group kernel_shape pads strides", 0, conv_prepare, conv_shape, conv_record},
    {"ConvTranspose", 1, 22, "auto_pad dilations group kernel_shape output_padding output_shape pads strides", 0,
     conv_prepare, conv_transpose_shape, conv_transpose_record},
    {"BatchNormalization", 7, 15, "epsilon momentum spatial training_mode", 0, batchnorm_prepare, batchnorm_shape,
     batchnorm_record},
    {NULL, 0, 0, NULL, 0, NULL, NULL, NULL},
};
