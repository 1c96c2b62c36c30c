/* MaxPool and AveragePool over 1 to 3 spatial dims (kernel, strides, pads, auto_pad, ceil_mode, dilations for
 * max, count_include_pad for average), and GlobalAveragePool / GlobalMaxPool as reductions over the spatial dims. */
#include <string.h>

#include "kernels/kernel_internal.h"

/* Spatial sizes, strides, dilations, pads and output positions times strides the pool shader takes: with these
 * below 2^30 its 32-bit index arithmetic cannot wrap. */
#define POOL_MAX (INT64_C(1) << 30)
/* Taps per output and pass: well below lavapipe's cap of about 65,535 iterations per shader loop. */
#define POOL_PASS_TAPS 16384
/* The same for the global kernel, whose loop takes 16 groups of 4 taps an iteration: 2^14 iterations a pass. */
#define POOL_GLOBAL_PASS_TAPS (1 << 20)
/* Passes per node: 2^12 x 2^14 = 2^26 taps per output at most; a larger window over a larger input is refused at
 * run time rather than keeping the device busy for minutes. */
#define POOL_MAX_PASSES 4096

static bool pool_prepare(const ortvk_knode *node, ortvk_kparams *params, char *why, size_t why_len)
{
    ortvk_kparams_pool *p = &params->pool;
    bool max = strcmp(node->op_type, "MaxPool") == 0;
    p->kind = max ? ORTVK_POOL_MAX : ORTVK_POOL_AVERAGE;
    if (node->n_in != 1 || !ortvk_kfloat(node->in[0].type))
        return ortvk_krefuse(why, why_len, "input is not float");
    /* MaxPool's optional Indices output is not computed. */
    if (node->n_out < 1 || !ortvk_kfloat(node->out[0].type) ||
        (node->n_out > 1 && node->out[1].present))
        return ortvk_krefuse(why, why_len, "outputs other than Y");
    int rank = node->in[0].rank;
    if (rank < 3 || rank > 5) return ortvk_krefuse(why, why_len, "input rank %d", rank);
    int n = rank - 2;
    p->spatial = n;
    p->own_loops = false;
    bool storage = false;
    int count = 0;
    int64_t v[6];
    if (!ortvk_knode_bool(node, "ceil_mode", false, &p->ceil_mode) ||
        !ortvk_knode_bool(node, "count_include_pad", false, &p->count_include_pad) ||
        !ortvk_knode_bool(node, "storage_order", false, &storage))
        return ortvk_krefuse(why, why_len, "attribute types, or ceil_mode, count_include_pad or storage_order other "
                             "than 0 or 1");
    if (!ortvk_knode_auto_pad(node, &p->auto_pad)) return ortvk_krefuse(why, why_len, "auto_pad");
    /* With ceil_mode a window may reach past the padded input; implementations disagree on its divisor then. */
    if (!max && p->ceil_mode && p->count_include_pad)
        return ortvk_krefuse(why, why_len, "ceil_mode with count_include_pad");
    if (!ortvk_knode_ints(node, "kernel_shape", p->kernel, 3, &count) || count != n)
        return ortvk_krefuse(why, why_len, "kernel_shape");
    if (!ortvk_knode_ints(node, "strides", v, 3, &count) || (count >= 0 && count != n))
        return ortvk_krefuse(why, why_len, "strides");
    for (int i = 0; i < n; i++) p->strides[i] = count < 0 ? 1 : v[i];
    if (!ortvk_knode_ints(node, "dilations", v, 3, &count) || (count >= 0 && count != n))
        return ortvk_krefuse(why, why_len, "dilations");
    for (int i = 0; i < n; i++) p->dilations[i] = count < 0 ? 1 : v[i];
    if (!ortvk_knode_ints(node, "pads", v, 6, &count) || (count >= 0 && count != 2 * n))
        return ortvk_krefuse(why, why_len, "pads");
    for (int i = 0; i < 2 * n; i++) p->pads[i] = count < 0 ? 0 : v[i];
    for (int i = 0; i < n; i++) {
        int64_t extent;
        if (p->kernel[i] < 1 || p->strides[i] < 1 || p->dilations[i] < 1 || p->pads[i] < 0 || p->pads[n + i] < 0)
            return ortvk_krefuse(why, why_len, "kernel, strides, dilations or pads out of range");
        /* ORT's CPU EP rejects a pad as large as the kernel ("Pad should be smaller than kernel"): left to it. */
        if (p->pads[i] >= p->kernel[i] || p->pads[n + i] >= p->kernel[i])
            return ortvk_krefuse(why, why_len, "pads[%d] = %lld, %lld not below the kernel's %lld", i,
                                 (long long)p->pads[i], (long long)p->pads[n + i], (long long)p->kernel[i]);
        /* The shader's index arithmetic is 32-bit (see pool_record); the kernel itself may be any size. */
        if (p->strides[i] > POOL_MAX || p->dilations[i] > POOL_MAX || p->pads[i] > POOL_MAX ||
            p->pads[n + i] > POOL_MAX ||
            !ortvk_kmul(p->kernel[i] - 1, p->dilations[i], &extent) || extent == INT64_MAX)
            return ortvk_krefuse(why, why_len, "strides, dilations or pads past 2^30, or a kernel extent past 2^63");
        if (!max && p->dilations[i] != 1) return ortvk_krefuse(why, why_len, "AveragePool dilations");
        /* SAME with a dilation: ONNX's output is ceil(input / stride), ORT's CPU EP gives less. SAME with a kernel
         * smaller than the stride: the CPU EP's pad comes out negative (SAME_UPPER then starts a window further
         * in). Both left to it. */
        if ((p->dilations[i] > 1 || p->kernel[i] < p->strides[i]) &&
            (p->auto_pad == ORTVK_AUTO_PAD_SAME_UPPER || p->auto_pad == ORTVK_AUTO_PAD_SAME_LOWER))
            return ortvk_krefuse(why, why_len, "auto_pad SAME_* with a dilation > 1 or a kernel below the stride");
    }
    /* The CPU EP's MaxPool runs its own loops for dilations and storage_order, its AveragePool from opset 19 on (in
     * the taps' order, from 0); MLAS's otherwise (pool_kind). */
    p->own_loops = max ? storage : node->opset >= 19;
    for (int i = 0; i < n; i++) p->own_loops = p->own_loops || (max && p->dilations[i] > 1);
    return true;
}

/* Effective begin pad and output size of spatial dim d (ONNX MaxPool/AveragePool). */
static OrtStatus *pool_dim(const ortvk_kparams_pool *p, int d, int64_t in, int64_t *pad_begin, int64_t *out,
                           int64_t *pad_end)
{
    int n = p->spatial;
    /* prepare checked that the extent fits, strides and pads are below 2^30; `in` is a real tensor's dim. */
    int64_t s = p->strides[d], dk = (p->kernel[d] - 1) * p->dilations[d] + 1;
    int64_t pb = p->pads[d], pe = p->pads[n + d];
    if (p->auto_pad == ORTVK_AUTO_PAD_SAME_UPPER || p->auto_pad == ORTVK_AUTO_PAD_SAME_LOWER) {
        int64_t target = (in + s - 1) / s, total = 0;
        if (!ortvk_kmul(target > 0 ? target - 1 : 0, s, &total) || !ortvk_kadd(total, dk, &total))
            return ortvk_status(ORT_INVALID_ARGUMENT, "pool: a SAME padding of kernel extent %lld overflows",
                                (long long)dk);
    }
    ortvk_kauto_pad(p->auto_pad, in, s, dk, &pb, &pe);
    if (pad_end) *pad_end = pe;
    if (p->auto_pad == ORTVK_AUTO_PAD_SAME_UPPER || p->auto_pad == ORTVK_AUTO_PAD_SAME_LOWER) {
        *pad_begin = pb;
        *out = (in + s - 1) / s; /* SAME: ceil(in / stride), ceil_mode or not */
        return NULL;
    }
    int64_t span = in + pb + pe - dk; /* no overflow: in, pb, pe < 2^62 and 0 < dk */
    if (span < 0)
        return ortvk_status(ORT_INVALID_ARGUMENT, "pool: kernel extent %lld larger than the padded input (%lld)",
                            (long long)dk, (long long)(in + pb + pe));
    int64_t o = p->ceil_mode ? (span + s - 1) / s + 1 : span / s + 1;
    /* ceil_mode: a last window that would start inside the end padding is dropped. */
    if (p->ceil_mode && (o - 1) * s >= in + pb) o--;
    *pad_begin = pb;
    *out = o;
    return NULL;
}

static OrtStatus *pool_shape(const ortvk_kparams *params, ortvk_krun *run)
{
    const ortvk_kparams_pool *p = &params->pool;
    const ortvk_ktensor *x = &run->in[0];
    ortvk_ktensor *y = &run->out[0];
    if (x->rank != (size_t)p->spatial + 2) return ortvk_status(ORT_INVALID_ARGUMENT, "pool: X of rank %zu", x->rank);
    y->type = x->type;
    y->rank = x->rank;
    y->dims[0] = x->dims[0];
    y->dims[1] = x->dims[1];
    for (int d = 0; d < p->spatial; d++) {
        int64_t pb;
        ORTVK_TRY(pool_dim(p, d, x->dims[2 + d], &pb, &y->dims[2 + d], NULL));
    }
    return NULL;
}

/* Which of the CPU EP's kernels runs the pool (the shader's KIND_*), as ORT's pools and MLAS's MlasPool choose:
 * ORT's own loops for MaxPool's dilations or storage_order and for AveragePool-19+; else MLAS's global kernel when
 * the window is the whole input (strides 1, no pads), its vector kernel for 2-3 spatial dims with a last stride of
 * at most 2, kernels of at most 32 and a padded last dim that fits its buffer of 2,045 floats, its generic kernel
 * otherwise. Each treats NaN and windows of only -inf its own way, and sums (AveragePool, GlobalAveragePool) in its
 * own order. */
enum { POOL_GENERIC, POOL_FIRST, POOL_VECTOR, POOL_GLOBAL };
#define POOL_MLAS_BUFFER 2045

static OrtStatus *pool_kind(const ortvk_kparams_pool *p, const ortvk_ktensor *x, uint32_t *kind)
{
    if (p->own_loops) {
        *kind = p->kind == ORTVK_POOL_MAX ? POOL_FIRST : POOL_GENERIC;
        return NULL;
    }
    int n = p->spatial;
    bool whole = true, small = true;
    int64_t last_pads = 0;
    for (int d = 0; d < n; d++) {
        int64_t pb = 0, pe = 0, o = 0;
        ORTVK_TRY(pool_dim(p, d, x->dims[2 + d], &pb, &o, &pe));
        whole = whole && p->kernel[d] == x->dims[2 + d] && p->strides[d] == 1 && pb == 0 && pe == 0;
        small = small && p->kernel[d] <= 32;
        if (d == n - 1) last_pads = pb + pe; /* each below 2^30 */
    }
    if (whole) *kind = POOL_GLOBAL;
    else if (n >= 2 && p->strides[n - 1] <= 2 && small && x->dims[1 + n] + last_pads <= POOL_MLAS_BUFFER)
        *kind = POOL_VECTOR;
    else *kind = POOL_GENERIC;
    return NULL;
}

typedef struct push_pool {
    uint64_t x, y, partial;
    uint32_t NC, ID, IH, IW, OD, OH, OW;
    uint32_t KD, KH, KW, SD, SH, SW;
    int32_t PD, PH, PW;
    uint32_t DD, DH, DW;
    uint32_t mode;
    uint32_t t0, t1, flags;
    float divisor;
} push_pool;

static OrtStatus *pool_record(const ortvk_kparams *params, ortvk_krun *run)
{
    const ortvk_kparams_pool *p = &params->pool;
    const ortvk_ktensor *x = &run->in[0], *y = &run->out[0];
    const char *op = p->kind == ORTVK_POOL_MAX ? "MaxPool" : "AveragePool";
    if (x->count == 0) return ortvk_status(ORT_INVALID_ARGUMENT, "%s: empty input with a non-empty output", op);
    if (x->count > UINT32_MAX || y->count > UINT32_MAX)
        return ortvk_status(ORT_EP_FAIL, "%s: %zu inputs, %zu outputs (the shader indexes with 32 bits)", op,
                            x->count, y->count);
    /* Spatial dims right-aligned into (D, H, W); missing ones are 1 with a kernel of 1. */
    uint32_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1}, k[3] = {1, 1, 1}, s[3] = {1, 1, 1}, dl[3] = {1, 1, 1};
    int32_t pad[3] = {0, 0, 0};
    int off = 3 - p->spatial;
    double divisor = 1.0;
    int64_t taps = 1; /* the most taps of one output that touch the input */
    uint32_t kind;
    ORTVK_TRY(pool_kind(p, x, &kind));
    for (int d = 0; d < p->spatial; d++) {
        int64_t pb = 0, o = 0, i = x->dims[2 + d], kernel = p->kernel[d];
        ORTVK_TRY(pool_dim(p, d, i, &pb, &o, NULL));
        /* Taps that fall into the begin padding for every output (SAME pads of a huge kernel) are dropped: the same
         * taps touch the input, with a begin pad the shader's arithmetic takes. */
        int64_t before = o > 0 && pb > (o - 1) * p->strides[d] ? (pb - (o - 1) * p->strides[d]) / p->dilations[d] : 0;
        if (kind == POOL_VECTOR) before = 0; /* kernels of at most 32, whose padded columns count there */
        if (before > kernel - 1) before = kernel - 1;
        kernel -= before;
        pb -= before * p->dilations[d];
        if (i > POOL_MAX || pb > POOL_MAX || (o - 1) * p->strides[d] > POOL_MAX)
            return ortvk_status(ORT_EP_FAIL, "%s: spatial dim %d of %lld with a begin pad of %lld and %lld outputs "
                                "of stride %lld: past 2^30", op, d, (long long)i, (long long)pb, (long long)o,
                                (long long)p->strides[d]);
        /* Taps of one output that touch the input: distinct input positions D apart, so at most ceil(I / D). */
        int64_t reach = (i + p->dilations[d] - 1) / p->dilations[d];
        taps *= kernel < reach ? kernel : reach; /* <= the input's spatial size */
        divisor *= (double)p->kernel[d];
        in[off + d] = (uint32_t)i;
        out[off + d] = (uint32_t)o;
        /* Taps past (begin pad + input) / dilation never touch the input: 2^31 stands for any kernel beyond. */
        k[off + d] = (uint32_t)(kernel < 2 * POOL_MAX ? kernel : 2 * POOL_MAX);
        s[off + d] = (uint32_t)p->strides[d];
        dl[off + d] = (uint32_t)p->dilations[d];
        pad[off + d] = (int32_t)pb;
    }
    int64_t pass_taps = kind == POOL_GLOBAL ? POOL_GLOBAL_PASS_TAPS : POOL_PASS_TAPS;
    int64_t passes = (taps + pass_taps - 1) / pass_taps;
    if (kind == POOL_VECTOR) passes = 1; /* at most 32^3 taps, in loops of at most 32 */
    if (passes > POOL_MAX_PASSES)
        return ortvk_status(ORT_EP_FAIL, "%s: windows of %lld taps over the input (at most %d)", op, (long long)taps,
                            POOL_MAX_PASSES * POOL_PASS_TAPS);
    push_pool push = {
        .x = x->address,
        .y = y->address,
        .NC = (uint32_t)(x->dims[0] * x->dims[1]),
        .ID = in[0], .IH = in[1], .IW = in[2],
        .OD = out[0], .OH = out[1], .OW = out[2],
        .KD = k[0], .KH = k[1], .KW = k[2],
        .SD = s[0], .SH = s[1], .SW = s[2],
        .PD = pad[0], .PH = pad[1], .PW = pad[2],
        .DD = dl[0], .DH = dl[1], .DW = dl[2],
        .mode = p->kind == ORTVK_POOL_MAX ? 0u : (p->count_include_pad ? 2u : 1u),
        .divisor = (float)divisor,
    };
    /* The shader's function: the kind, then whether every dilation is 1 and whether the outputs are fewer than 2^24
     * (its taps' ranges and its index without integer divisions). */
    bool dilated = dl[0] != 1 || dl[1] != 1 || dl[2] != 1;
    uint32_t fn = kind | (dilated ? 0u : 4u) | (y->count < (1u << 24) ? 8u : 0u);
    /* Between passes each output's partial result stays a float (float16 outputs are rounded once, at the end). */
    size_t partial = kind == POOL_GLOBAL ? 4 * sizeof(float) : sizeof(float); /* the 4 lanes of MLAS's */
    if (passes > 1) ORTVK_TRY(ortvk_krun_scratch(run, y->count * partial, &push.partial));
    for (int64_t pass = 0; pass < (passes > 0 ? passes : 1); pass++) {
        push.t0 = (uint32_t)(pass * pass_taps);
        push.t1 = (uint32_t)((pass + 1) * pass_taps < taps ? (pass + 1) * pass_taps : taps);
        push.flags = (pass == 0 ? 1u : 0u) | (pass + 1 >= passes ? 2u : 0u) | (p->spatial == 3 ? 16u : 0u);
        /* The global kernel's planes of a multiple of 4 taps starting on a whole texel (16 bytes, 8 for float16):
         * read as vec4, the same order. */
        if (kind == POOL_GLOBAL && taps % 4 == 0 && push.x % (run->float16 ? 8 : 16) == 0) push.flags |= 32u;
        ORTVK_TRY(ortvk_krun_dispatch_fn(run, ORTVK_SHADER_POOL, fn, &push, sizeof(push), y->count));
    }
    return NULL;
}

/* ---- global pools --------------------------------------------------------------------------------------- */

static bool global_prepare(const ortvk_knode *node, ortvk_kparams *params, char *why, size_t why_len)
{
    params->pool.kind = strcmp(node->op_type, "GlobalMaxPool") == 0 ? ORTVK_POOL_MAX : ORTVK_POOL_AVERAGE;
    params->pool.global = true;
    if (node->n_in != 1 || !ortvk_kfloat(node->in[0].type) || node->n_out != 1 ||
        !ortvk_kfloat(node->out[0].type))
        return ortvk_krefuse(why, why_len, "not float");
    if (node->in[0].rank >= 0 && node->in[0].rank < 2) return ortvk_krefuse(why, why_len, "rank %d", node->in[0].rank);
    return true;
}

static OrtStatus *global_shape(const ortvk_kparams *params, ortvk_krun *run)
{
    (void)params;
    const ortvk_ktensor *x = &run->in[0];
    ortvk_ktensor *y = &run->out[0];
    if (x->rank < 2) return ortvk_status(ORT_INVALID_ARGUMENT, "global pool: X of rank %zu", x->rank);
    y->type = x->type;
    y->rank = x->rank;
    y->dims[0] = x->dims[0];
    y->dims[1] = x->dims[1];
    for (size_t d = 2; d < x->rank; d++) y->dims[d] = 1;
    return NULL;
}

static OrtStatus *global_record(const ortvk_kparams *params, ortvk_krun *run)
{
    const ortvk_ktensor *x = &run->in[0], *y = &run->out[0];
    uint32_t spatial = (uint32_t)ortvk_kcount(x->dims + 2, x->rank - 2);
    if (spatial == 0) return ortvk_status(ORT_INVALID_ARGUMENT, "global pool over an empty input");
    ortvk_kpush_reduce push = {
        .x = x->address,
        .y = y->address,
        .outer = (uint32_t)y->count,
        .R = spatial,
        .inner = 1,
        .fn = params->pool.kind == ORTVK_POOL_MAX ? 2u : 1u,
    };
    /* A GPU's average pool: a workgroup a plane (ortvk_kreduce_dispatch), the sums in its tree order rather than
     * MLAS's. The max pool keeps MLAS's kernel, whose NaN handling depends on where the NaN lies. */
    bool rows = params->pool.kind != ORTVK_POOL_MAX && ortvk_krun_rows_form(run, spatial);
    if (x->rank >= 3 && x->rank <= 5 && !rows) {
        /* Every global pool of 1-3 spatial dims runs as a pool whose kernel is the whole input, in passes (the
         * reduce shader walks a window in one loop, which lavapipe cuts short past ~65,535 iterations), in the order
         * of the CPU EP's MLAS global kernel: its max starts from -FLT_MAX, its NaN and its sums of huge values come
         * out as there. */
        ortvk_kparams window = {.pool = {.kind = params->pool.kind, .spatial = (int)x->rank - 2, .global = true}};
        for (size_t d = 2; d < x->rank; d++) {
            window.pool.kernel[d - 2] = x->dims[d];
            window.pool.strides[d - 2] = window.pool.dilations[d - 2] = 1;
        }
        return pool_record(&window, run);
    }
    return ortvk_kreduce_dispatch(run, &push);
}

const ortvk_kop ortvk_kops_pool[] = {
    {"MaxPool", 8, 22, "auto_pad ceil_mode dilations kernel_shape pads storage_order strides", 0, pool_prepare,
     pool_shape, pool_record},
    {"AveragePool", 7, 22, "auto_pad ceil_mode count_include_pad dilations kernel_shape pads strides", 0,
     pool_prepare, pool_shape, pool_record},
    {"GlobalAveragePool", 1, 22, "", 0, global_prepare, global_shape, global_record},
    {"GlobalMaxPool", 1, 22, "", 0, global_prepare, global_shape, global_record},
    {NULL, 0, 0, NULL, 0, NULL, NULL, NULL},
};
