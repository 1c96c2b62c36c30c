/* MatMul (batched, numpy broadcasting of batch dims) and Gemm; Softmax and LogSoftmax; the Reduce* ops over
 * constant axes that are contiguous once size-1 dims are set aside. */
#include <stddef.h>
#include <string.h>

#include "kernels/kernel_internal.h"

/* ---- MatMul and Gemm ------------------------------------------------------------------------------------ */

static bool gemm_prepare(const ortvk_knode *node, ortvk_kparams *params, char *why, size_t why_len)
{
    ortvk_kparams_gemm *p = &params->gemm;
    p->matmul = strcmp(node->op_type, "MatMul") == 0;
    bool known = node->n_in > 0 && node->in[0].rank == 2 && node->in[0].dims[0] >= 0 && node->in[0].dims[1] >= 0;
    p->a_dims[0] = known ? node->in[0].dims[0] : -1;
    p->a_dims[1] = known ? node->in[0].dims[1] : -1;
    if (node->n_out != 1 || !ortvk_kvalue_float(&node->out[0]))
        return ortvk_krefuse(why, why_len, "output is not float");
    if (p->matmul) {
        if (node->n_in != 2 || !ortvk_kvalue_float(&node->in[0]) || !ortvk_kvalue_float(&node->in[1]))
            return ortvk_krefuse(why, why_len, "inputs are not float");
        /* The shader takes 3 batch dims (after coalescing, which only lowers the count). */
        for (int i = 0; i < 2; i++) {
            if (node->in[i].rank == 0 || node->in[i].rank > 5) /* unknown: checked in the run (matmul_plan) */
                return ortvk_krefuse(why, why_len, "input %d of rank %d", i, node->in[i].rank);
        }
        p->alpha = 1.0f;
        if (node->in[0].rank > 0 && node->in[0].dims[node->in[0].rank - 1] == 0)
            return ortvk_krefuse(why, why_len, "K = 0 (see gemm_k0)");
        return true;
    }
    if (node->n_in < 2 || node->n_in > 3 || !ortvk_kvalue_float(&node->in[0]) || !ortvk_kvalue_float(&node->in[1]) ||
        (node->n_in == 3 && node->in[2].present && !ortvk_kvalue_float(&node->in[2])))
        return ortvk_krefuse(why, why_len, "inputs are not float");
    int64_t broadcast = 1;
    if (!ortvk_knode_bool(node, "transA", false, &p->trans_a) ||
        !ortvk_knode_bool(node, "transB", false, &p->trans_b) ||
        !ortvk_knode_float(node, "alpha", 1.0f, &p->alpha) || !ortvk_knode_float(node, "beta", 1.0f, &p->beta) ||
        !ortvk_knode_int(node, "broadcast", 1, &broadcast) || broadcast != 1)
        return ortvk_krefuse(why, why_len, "attributes (transA and transB 0 or 1)");
    if (node->in[0].rank == 2 && node->in[0].dims[p->trans_a ? 0 : 1] == 0)
        return ortvk_krefuse(why, why_len, "K = 0 (see gemm_k0)");
    return true;
}

/* K = 0 with a non-empty output: ORT's CPU EP leaves MatMul's output uninitialised and gives Gemm's C unscaled
 * (beta ignored). No answer of ortvk's would be the CPU EP's, so such a run fails (GetCapability refuses the node
 * where K is known there). */
static OrtStatus *gemm_k0(const ortvk_kparams_gemm *p, const ortvk_kgemm_plan *g)
{
    int64_t outputs = g->M * g->N;
    for (int i = 0; i < g->batch_rank; i++) outputs *= g->batch[i];
    if (g->K != 0 || outputs == 0) return NULL;
    return ortvk_status(ORT_NOT_IMPLEMENTED, "%s: K = 0 (an empty inner dim) with an output of %lld elements: "
                        "not computed (ORT's CPU EP gives no defined answer for it)", p->matmul ? "MatMul" : "Gemm",
                        (long long)outputs);
}

typedef ortvk_kgemm_plan gemm_plan;

/* Whether ORT's CPU EP (MatMulComputeHelper, 1.24 and 1.30) takes B as the 2-D [K, N], its batch dims dropped: A's
 * rank at least B's and B's dims but the last multiplying to its K, so its batch dims all 1 or K = 0 (then the
 * output is A's dims but the last, and N, whatever B's batch dims are). */
static bool matmul_b_flat(const ortvk_ktensor *a, const ortvk_ktensor *b)
{
    size_t ar = a->rank, br = b->rank;
    return ar >= 2 && br >= 2 && ar >= br && (b->dims[br - 2] == 0 || ortvk_kcount(b->dims, br - 2) == 1);
}

/* The batch dims as ORT's CPU EP checks them: unless B is flat (matmul_b_flat), the operands are padded to one rank
 * (a 1-D B as (..., K, 1) behind A's batch dims and M, which then count among them) and each pair of dims must
 * broadcast as max(a, b): so a 0 against a 1 fails there (an empty batch, or M = 0 times a 1-D B), where plain
 * broadcasting would give an empty output. */
static OrtStatus *matmul_cpu_batches(const ortvk_ktensor *a, const ortvk_ktensor *b)
{
    size_t ar = a->rank, br = b->rank;
    if (matmul_b_flat(a, b)) return NULL;
    size_t rank = (ar > br ? ar : br) + (br == 1), nb = rank - 2; /* padded rank, broadcast dims */
    int64_t pa[ORTVK_KMAX_RANK + 2], pb[ORTVK_KMAX_RANK + 2];
    for (size_t i = 0; i < rank; i++) pa[i] = pb[i] = 1;
    if (br == 1 && ar >= 2) {
        memcpy(pa, a->dims, (ar - 2) * sizeof(int64_t));
        pa[rank - 3] = a->dims[ar - 2];
    } else {
        memcpy(pa + rank - ar, a->dims, ar * sizeof(int64_t));
        if (br > 1) memcpy(pb + rank - br, b->dims, br * sizeof(int64_t));
    }
    for (size_t i = 0; i < nb; i++) {
        int64_t out = pa[i] > pb[i] ? pa[i] : pb[i];
        if ((pa[i] != out && pa[i] != 1) || (pb[i] != out && pb[i] != 1))
            return ortvk_status(ORT_INVALID_ARGUMENT, "MatMul: %s operand cannot broadcast on dim %zu (%lld against "
                                "%lld, as ORT's CPU EP checks it)", pa[i] != out && pa[i] != 1 ? "left" : "right", i,
                                (long long)pa[i], (long long)pb[i]);
    }
    return NULL;
}

static OrtStatus *matmul_plan(const ortvk_ktensor *a, const ortvk_ktensor *b, gemm_plan *g)
{
    if (a->rank < 1 || b->rank < 1) return ortvk_status(ORT_INVALID_ARGUMENT, "MatMul of a scalar");
    ORTVK_TRY(matmul_cpu_batches(a, b));
    /* 1-D operands: A as (1, K) and B as (K, 1), the added dim dropped from the output. */
    int64_t ad[ORTVK_KMAX_RANK + 1], bd[ORTVK_KMAX_RANK + 1];
    size_t ar = a->rank, br = b->rank;
    memcpy(ad, a->dims, ar * sizeof(int64_t));
    memcpy(bd, b->dims, br * sizeof(int64_t));
    if (ar == 1) ad[1] = ad[0], ad[0] = 1, ar = 2;
    if (br == 1) bd[1] = 1, br = 2;
    if (matmul_b_flat(a, b)) { /* B's batch dims dropped: all 1, or K = 0 (an empty output, or gemm_k0's error) */
        bd[0] = bd[br - 2], bd[1] = bd[br - 1];
        br = 2;
    }
    g->M = ad[ar - 2];
    g->K = ad[ar - 1];
    g->N = bd[br - 1];
    if (bd[br - 2] != g->K) return ortvk_status(ORT_INVALID_ARGUMENT, "MatMul: inner dims %lld and %lld",
                                                (long long)g->K, (long long)bd[br - 2]);
    int64_t batch[ORTVK_KMAX_RANK];
    size_t bat;
    if (!ortvk_kbroadcast(ad, ar - 2, bd, br - 2, batch, &bat))
        return ortvk_status(ORT_INVALID_ARGUMENT, "MatMul: batch dims do not broadcast");
    ortvk_kstrides s = {.rank = (int)bat};
    memcpy(s.dims, batch, bat * sizeof(int64_t));
    int64_t sa[ORTVK_KMAX_RANK], sb[ORTVK_KMAX_RANK];
    ortvk_kbroadcast_strides(ad, ar - 2, bat, batch, sa);
    ortvk_kbroadcast_strides(bd, br - 2, bat, batch, sb);
    for (size_t i = 0; i < bat; i++) {
        s.stride[0][i] = sa[i] * g->M * g->K;
        s.stride[1][i] = sb[i] * g->K * g->N;
        s.stride[2][i] = 0;
    }
    /* The output's batch index is linear: coalesce with a row-major output stride as the third operand. */
    int64_t o = 1;
    for (size_t i = bat; i-- > 0;) s.stride[2][i] = o, o *= batch[i];
    ortvk_kcoalesce(&s, 3);
    if (s.rank > 3) return ortvk_status(ORT_EP_FAIL, "MatMul: %d batch dims after coalescing", s.rank);
    g->batch_rank = s.rank;
    for (int i = 0; i < s.rank; i++) {
        g->batch[i] = s.dims[i];
        g->a_batch[i] = s.stride[0][i];
        g->b_batch[i] = s.stride[1][i];
    }
    g->a_sm = g->K, g->a_sk = 1, g->b_sk = g->N, g->b_sn = 1;
    g->out_rank = 0;
    for (size_t i = 0; i < bat; i++) g->out[g->out_rank++] = batch[i];
    if (a->rank > 1) g->out[g->out_rank++] = g->M;
    if (b->rank > 1) g->out[g->out_rank++] = g->N;
    return NULL;
}

static OrtStatus *gemm_plan_for(const ortvk_kparams_gemm *p, ortvk_krun *run, gemm_plan *g)
{
    memset(g, 0, sizeof(*g));
    g->b_odd = true;
    const ortvk_ktensor *a = &run->in[0], *b = &run->in[1];
    if (p->matmul) {
        ORTVK_TRY(matmul_plan(a, b, g));
        if (b->packed) g->b_padded = true, g->b_sk = (g->N + 3) / 4 * 4; /* ortvk_kgemm_pack: [K, N] only */
        if (run->n_in > 2 && run->in[2].present) { /* a bias [N] the partition compiler took from an Add */
            const ortvk_ktensor *c = &run->in[2];
            if (c->rank != 1 || c->dims[0] != g->N)
                return ortvk_status(ORT_EP_FAIL, "MatMul: a fused bias of %lld values for N = %lld",
                                    (long long)c->count, (long long)g->N);
            g->has_c = true;
            g->c_sm = 0;
            g->c_sn = 1;
        }
        return gemm_k0(p, g);
    }
    if (a->rank != 2 || b->rank != 2) return ortvk_status(ORT_INVALID_ARGUMENT, "Gemm: inputs of rank 2 expected");
    g->M = p->trans_a ? a->dims[1] : a->dims[0];
    g->K = p->trans_a ? a->dims[0] : a->dims[1];
    int64_t kb = p->trans_b ? b->dims[1] : b->dims[0];
    g->N = p->trans_b ? b->dims[0] : b->dims[1];
    if (kb != g->K) return ortvk_status(ORT_INVALID_ARGUMENT, "Gemm: inner dims %lld and %lld", (long long)g->K,
                                        (long long)kb);
    g->a_sm = p->trans_a ? 1 : a->dims[1];
    g->a_sk = p->trans_a ? a->dims[1] : 1;
    g->b_sk = p->trans_b ? 1 : b->dims[1];
    g->b_sn = p->trans_b ? b->dims[1] : 1;
    if (b->packed) g->b_padded = true, g->b_sk = (g->N + 3) / 4 * 4; /* ortvk_kgemm_pack: not transposed only */
    g->out_rank = 2;
    g->out[0] = g->M;
    g->out[1] = g->N;
    const ortvk_ktensor *c = run->n_in > 2 && run->in[2].present ? &run->in[2] : NULL;
    if (c != NULL) {
        /* C broadcasts unidirectionally to (M, N), also when empty; with beta = 0 the CPU EP never reads it. */
        int64_t full[2] = {g->M, g->N}, bc[2], strides[2];
        size_t r;
        if (c->rank > 2 || !ortvk_kbroadcast(full, 2, c->dims, c->rank, bc, &r) || bc[0] != g->M || bc[1] != g->N)
            return ortvk_status(ORT_INVALID_ARGUMENT, "Gemm: C does not broadcast to (M, N)");
        ortvk_kbroadcast_strides(c->dims, c->rank, 2, full, strides);
        g->has_c = c->count > 0 && p->beta != 0.0f;
        g->c_sm = strides[0];
        g->c_sn = strides[1];
    }
    return gemm_k0(p, g);
}

static OrtStatus *gemm_shape(const ortvk_kparams *params, ortvk_krun *run)
{
    gemm_plan g;
    ORTVK_TRY(gemm_plan_for(&params->gemm, run, &g));
    run->out[0].type = run->in[0].type;
    run->out[0].rank = g.out_rank;
    memcpy(run->out[0].dims, g.out, sizeof(g.out));
    return NULL;
}

#define GEMM_BLOCK 4
#define GEMM_FAST_M 8
#define GEMM_FAST_N 16
#define GEMM_ROWS_MIN 256
#define GEMM_WIDE_M 16 /* FAST 3's block */
#define GEMM_WIDE_N 8
#define GEMM_FEW_N 4   /* FAST 6's block: 8 x 4 */
/* K at most this in the wide forms with A along m: K a constant (the shader's SMALL_K), one pipeline per K. */
#define GEMM_SMALL_K 64
/* The few-k form's workgroups: at least this many, so that a CPU device's threads all have work (llvmpipe runs at
 * most 32; gemm_small_k_rows). */
#define GEMM_SMALL_K_GROUPS 32

/* Rows an invocation of the few-k form takes, from the form's block of `block` rows: B's K rows, fetched once an
 * invocation, serve all of them, so the block doubles while `groups` workgroups a row block (`batches` times the
 * column groups) still make GEMM_SMALL_K_GROUPS, up to all of M. A multiple of 4. */
static uint32_t gemm_small_k_rows(int64_t M, int64_t block, int64_t groups)
{
    int64_t all = (M + 3) / 4 * 4, rows = block;
    while (rows < all && (M + 2 * rows - 1) / (2 * rows) * groups >= GEMM_SMALL_K_GROUPS) rows *= 2;
    return (uint32_t)(rows < all ? rows : all);
}

typedef struct push_gemm {
    uint64_t a, b, c, y;
    uint32_t M, N;
    union {
        uint32_t K;
        uint32_t small_k_rows; /* the few-k form's (K a specialization constant): its rows an invocation */
    };
    uint32_t batch_dims[3], a_batch[3], b_batch[3]; /* dims past the batch's rank: 1 */
    int32_t a_sm, a_sk, b_sk, b_sn;
    int32_t c_sm, c_sn;
    float alpha, beta;
    uint64_t r;            /* a fused chain's residual, or 0 */
    uint64_t chain;        /* a fused chain's step operands (ortvk_krun's chain), or 0 */
} push_gemm;
_Static_assert(offsetof(push_gemm, r) == 112 && sizeof(push_gemm) == 128,
               "push_gemm: `r` and `chain` are the last two 8-byte words of the 128 bytes of push constants");

/* The fast form's reads (its LAYOUT % 3): A's rows (along k), A's columns (along m) or, with A's rows, B's columns. */
enum { GEMM_A_ROWS, GEMM_A_COLUMNS, GEMM_B_COLUMNS };
/* Added to the fast form's function where B's rows are read element by element (the shader's B_ODD), or where they
 * are whole vec4s only by ortvk_kgemm_pack's padding (Y_ODD); y is then stored element by element. */
#define GEMM_B_ODD 16u
#define GEMM_Y_ODD 8u
static uint32_t gemm_fast_reads(uint32_t fn)
{
    return fn / ORTVK_KVARIANT % 3;
}

/* The fast form (the shader's FAST): 8 x 16 blocks read as vec4, which needs A's rows (along k) or columns (along m,
 * with M a multiple of 4), B's rows (along n) or, with A's rows, its columns (along k: Gemm's transB), 4-element
 * multiples for every stride, K a multiple of 4 unless A is read along m (the shader then takes the last K % 4 one
 * k at a time: a pointwise Conv's packed weights of 18 or 42 input channels) and 16-byte aligned tensors; its
 * K / 4 + 3 loop iterations stay under lavapipe's loop cap. Where the plan allows it (`b_odd`), B's rows need not
 * be whole vec4s (N, B's row and batch strides of any size, B and y of any alignment): the shader's B_ODD reads B
 * and stores y element by element; where ortvk_kgemm_pack padded them (`b_padded`), its Y_ODD reads them as vec4
 * and stores y element by element. B's columns need only start on 16 bytes: with N not a multiple of 4 or y not
 * 16-byte aligned, Y_ODD stores y element by element (`b_columns_odd`: Gemm's transB of 10 or 1,027 outputs, a
 * Conv's overlapping windows, signal_as_gemm). 0 where it does not apply, else the shader's function: 1 (+
 * GEMM_B_ODD or GEMM_Y_ODD) + ORTVK_KVARIANT * its LAYOUT. */
static uint32_t gemm_fast(const gemm_plan *g, VkDeviceAddress a, VkDeviceAddress b, VkDeviceAddress y)
{
    bool a_rows = g->a_sk == 1 && g->a_sm % 4 == 0;
    bool a_columns = !a_rows && g->a_sm == 1 && g->a_sk % 4 == 0 && g->M % 4 == 0;
    bool b_batches = b % 16 == 0; /* B and each of its batches start on 16 bytes */
    for (int i = 0; i < g->batch_rank; i++) b_batches = b_batches && (g->batch[i] == 1 || g->b_batch[i] % 4 == 0);
    bool b_whole = b_batches && g->N % 4 == 0 && y % 16 == 0 && g->residual % 16 == 0; /* y's stores, r's reads */
    bool b_rows = b_whole && g->b_sn == 1 && g->b_sk % 4 == 0;
    bool b_columns = b_whole && !b_rows && a_rows && g->b_sk == 1 && g->b_sn % 4 == 0;
    bool b_columns_odd = b_batches && !b_rows && !b_columns && a_rows && g->b_sk == 1 && g->b_sn % 4 == 0;
    bool b_padded = !b_rows && !b_columns && g->b_padded && g->b_sn == 1 && g->b_sk % 4 == 0 && b % 16 == 0;
    bool b_odd = !b_rows && !b_columns && !b_padded && g->b_odd && g->b_sn == 1;
    bool fast = g->K > 0 && (g->K % 4 == 0 || a_columns) && (a_rows || a_columns) &&
                (b_rows || b_columns || b_columns_odd || b_padded || b_odd) && g->K / 4 < ORTVK_KMAX_LOOP &&
                a % 16 == 0;
    for (int i = 0; i < g->batch_rank; i++) fast = fast && (g->batch[i] == 1 || g->a_batch[i] % 4 == 0);
    uint32_t layout = a_columns ? GEMM_A_COLUMNS : b_columns || b_columns_odd ? GEMM_B_COLUMNS : GEMM_A_ROWS;
    uint32_t odd = b_odd ? GEMM_B_ODD : b_padded || b_columns_odd ? GEMM_Y_ODD : 0;
    return !fast ? 0 : 1 + odd + ORTVK_KVARIANT * layout;
}

/* A GPU's form (the shader's FAST 5, docs/kernels.md "Forms per device"): tiles through shared memory, for any
 * strides and alignment. */
#define GEMM_TILES 5u

bool ortvk_kgemm_takes(const ortvk_krun *run, const ortvk_kgemm_plan *g, VkDeviceAddress a, VkDeviceAddress b,
                       VkDeviceAddress y)
{
    return ortvk_krun_tiles_form(run, (uint64_t)g->K) || gemm_fast(g, a, b, y) != 0;
}

OrtStatus *ortvk_kgemm_record(ortvk_krun *run, const ortvk_kgemm_plan *g, VkDeviceAddress a, VkDeviceAddress b,
                              VkDeviceAddress c, VkDeviceAddress y, float alpha, float beta, const ortvk_kspec *spec)
{
    push_gemm push = {
        .a = a,
        .b = b,
        .c = g->has_c ? c : 0,
        .y = y,
        .M = (uint32_t)g->M,
        .N = (uint32_t)g->N,
        .K = (uint32_t)g->K,
        .batch_dims = {1, 1, 1},
        .a_sm = (int32_t)g->a_sm,
        .a_sk = (int32_t)g->a_sk,
        .b_sk = (int32_t)g->b_sk,
        .b_sn = (int32_t)g->b_sn,
        .c_sm = (int32_t)g->c_sm,
        .c_sn = (int32_t)g->c_sn,
        .alpha = alpha,
        .beta = beta,
        .r = g->residual,
        .chain = spec != NULL ? run->chain : 0,
    };
    for (int i = 0; i < g->batch_rank; i++) {
        push.batch_dims[i] = (uint32_t)g->batch[i];
        push.a_batch[i] = (uint32_t)g->a_batch[i];
        push.b_batch[i] = (uint32_t)g->b_batch[i];
    }
    if (g->K == 0) push.a = push.b = push.y; /* sums of nothing: never read */
    /* C's form (the shader's LAYOUT / 3): none, one value a row (a bias), or any other. */
    uint32_t c_form = ORTVK_KVARIANT * 3 * (!g->has_c ? 0 : g->c_sn == 0 ? 1 : 2);
    uint64_t batches = 1;
    for (int i = 0; i < g->batch_rank; i++) batches *= (uint64_t)g->batch[i];
    if (ortvk_krun_tiles_form(run, (uint64_t)g->K))
        return ortvk_krun_dispatch_spec(run, ORTVK_SHADER_GEMM, GEMM_TILES + c_form, spec, &push, sizeof(push),
                                        ortvk_krun_tiles_invocations((uint64_t)g->M, (uint64_t)g->N, batches));
    uint32_t fn = gemm_fast(g, push.a, push.b, push.y);
    if (fn != 0) fn += c_form;
    /* Wide outputs (FAST 3): each workgroup's 64 invocations take 64 column blocks of one row block, where at most
     * a quarter of a row block's last workgroup idles; in 8-row blocks (FAST 4) where 16-row ones would compute
     * more rows (M of 8, 17-24: an 18-channel pointwise Conv computes 24 rows rather than 32). Else tall ones
     * (FAST 2): 64 row blocks of one column block. */
    int64_t wide_blocks = (g->N + GEMM_WIDE_N - 1) / GEMM_WIDE_N, wide_groups = (wide_blocks + 63) / 64;
    bool wide = fn != 0 && g->M >= GEMM_FAST_M && 4 * wide_blocks >= 3 * 64 * wide_groups;
    bool narrow = wide && (g->M + GEMM_FAST_M - 1) / GEMM_FAST_M * GEMM_FAST_M <
                              (g->M + GEMM_WIDE_M - 1) / GEMM_WIDE_M * GEMM_WIDE_M && g->M < 2 * GEMM_WIDE_M;
    /* Outputs of at most 4 columns (FAST 6): 8 x 4 blocks, not 8 x 16 of 12 or more clamped columns (an STFT's 3
     * frames: docs/benchmarks.md, run AJ). */
    bool few = fn != 0 && !wide && g->N <= GEMM_FEW_N;
    bool rows = fn != 0 && !wide && !few && g->M >= GEMM_ROWS_MIN;
    fn += few ? 5 : narrow ? 3 : wide ? 2 : rows ? 1 : 0;
    /* Few k (a pointwise Conv of few input channels, packed weights): K a specialization constant. */
    ortvk_kspec small = {{0}};
    if (spec != NULL) small = *spec;
    int64_t bm = rows ? 64 * GEMM_FAST_M : narrow ? GEMM_FAST_M : wide ? GEMM_WIDE_M : fn != 0 ? GEMM_FAST_M
                                                                                              : GEMM_BLOCK;
    if (wide && gemm_fast_reads(fn) == GEMM_A_COLUMNS && g->K <= GEMM_SMALL_K) {
        small.words[3] = (uint32_t)g->K;
        push.small_k_rows = gemm_small_k_rows(g->M, bm, (int64_t)batches * wide_groups); /* in K's place */
        bm = push.small_k_rows;
    }
    int64_t bn = wide ? 64 * GEMM_WIDE_N : few ? GEMM_FEW_N : fn != 0 ? GEMM_FAST_N : GEMM_BLOCK;
    /* One invocation per bm x bn block of each batch's output (the shader's TM and TN, or FM and 4 FG). */
    uint64_t blocks = (uint64_t)((g->M + bm - 1) / bm) * (uint64_t)((g->N + bn - 1) / bn) * batches;
    if (rows || wide) blocks *= 64;
    return ortvk_krun_dispatch_spec(run, ORTVK_SHADER_GEMM, fn, &small, &push, sizeof(push), blocks);
}

/* MatMul's and Gemm's constant B [K, N] (not transposed) with N not a multiple of 4, its rows padded with zeros to
 * whole vec4s (K x N rounded up to 4), so that the fast form reads them as vec4 (the shader's Y_ODD; a text
 * recognizer's CTC head, [40, 120] x [120, 6625]: 5.3 -> 2.6-2.8 ms on lavapipe, docs/benchmarks.md run AF). Only
 * where N is more than an MLP layer's outputs can be (ORTVK_MLP_VALUES), since kernel_mlp.c copies its layers'
 * weights as they are: small layers stay one dispatch. */
size_t ortvk_kgemm_pack(const ortvk_kparams *params, size_t input, const ortvk_ktensor *t, const void *data,
                        void *packed)
{
    const ortvk_kparams_gemm *p = &params->gemm;
    if (input != 1 || t->rank != 2 || t->count == 0 || (!p->matmul && p->trans_b) || t->dims[1] % 4 == 0 ||
        t->dims[1] <= (int64_t)ORTVK_MLP_VALUES)
        return 0;
    size_t es = ortvk_element_size(t->type), K = (size_t)t->dims[0], N = (size_t)t->dims[1], n4 = (N + 3) / 4 * 4;
    uint8_t *to = packed;
    const uint8_t *from = data;
    if (to != NULL) {
        memset(to, 0, K * n4 * es);
        for (size_t k = 0; k < K; k++) memcpy(to + k * n4 * es, from + k * N * es, N * es);
    }
    return K * n4 * es;
}

static OrtStatus *gemm_record(const ortvk_kparams *params, ortvk_krun *run)
{
    const ortvk_kparams_gemm *p = &params->gemm;
    gemm_plan g;
    ORTVK_TRY(gemm_plan_for(p, run, &g));
    ortvk_kspec spec; /* a fused element-wise chain after it, or none */
    ortvk_kchain_spec(&p->epilogue, &spec);
    return ortvk_kgemm_record(run, &g, run->in[0].address, run->in[1].address, g.has_c ? run->in[2].address : 0,
                              run->out[0].address, p->alpha, p->beta, &spec);
}

/* ---- Softmax, LogSoftmax -------------------------------------------------------------------------------- */

static bool softmax_prepare(const ortvk_knode *node, ortvk_kparams *params, char *why, size_t why_len)
{
    ortvk_kparams_softmax *p = &params->softmax;
    if (node->n_in != 1 || node->n_out != 1 || !ortvk_kvalue_float(&node->in[0]) || !ortvk_kvalue_float(&node->out[0]))
        return ortvk_krefuse(why, why_len, "not float");
    p->log = strcmp(node->op_type, "LogSoftmax") == 0;
    /* Before opset 13 the input is coerced to 2-D at `axis` (default 1); from 13 on it is one axis (default -1). */
    p->coerce_2d = node->opset < 13;
    if (!ortvk_knode_int(node, "axis", p->coerce_2d ? 1 : -1, &p->axis)) return ortvk_krefuse(why, why_len, "axis");
    return true;
}

/* Rows at least this long take the workgroup form on every device. */
#define SOFTMAX_ROWS_MIN_LEN 1024

typedef struct push_softmax {
    uint64_t x, y;
    uint32_t rows, len, inner, log;
} push_softmax;

static OrtStatus *softmax_record(const ortvk_kparams *params, ortvk_krun *run)
{
    const ortvk_kparams_softmax *p = &params->softmax;
    const ortvk_ktensor *x = &run->in[0];
    int64_t axis = p->axis < 0 ? p->axis + (int64_t)x->rank : p->axis;
    if (axis < 0 || axis >= (int64_t)(x->rank > 0 ? x->rank : 1))
        return ortvk_status(ORT_INVALID_ARGUMENT, "Softmax: axis %lld", (long long)p->axis);
    size_t outer = ortvk_kcount(x->dims, (size_t)axis), len, inner;
    if (p->coerce_2d) {
        len = ortvk_kcount(x->dims + axis, x->rank - (size_t)axis);
        inner = 1;
    } else {
        len = x->rank > 0 ? (size_t)x->dims[axis] : 1;
        inner = ortvk_kcount(x->dims + axis + 1, x->rank > 0 ? x->rank - (size_t)axis - 1 : 0);
    }
    push_softmax push = {
        .x = x->address,
        .y = run->out[0].address,
        .rows = (uint32_t)(outer * inner),
        .len = (uint32_t)len,
        .inner = (uint32_t)inner,
        .log = p->log ? 1u : 0u,
    };
    /* A workgroup a row: a GPU's form, and lavapipe's for long rows (a 6625-class head: 40 rows of 6625) */
    bool rows = inner == 1 && (ortvk_krun_rows_form(run, len) || len >= SOFTMAX_ROWS_MIN_LEN);
    return ortvk_krun_dispatch_fn(run, ORTVK_SHADER_SOFTMAX, rows ? 1 : 0, &push, sizeof(push),
                                  rows ? (uint64_t)outer * 64 : outer * inner);
}

/* ---- reductions ----------------------------------------------------------------------------------------- */

static bool reduce_prepare(const ortvk_knode *node, ortvk_kparams *params, char *why, size_t why_len)
{
    ortvk_kparams_reduce *p = &params->reduce;
    const char *op = node->op_type;
    static const struct {
        const char *op;
        int fn;
    } fns[] = {
        {"ReduceSum", ORTVK_REDUCE_SUM},
        {"ReduceMean", ORTVK_REDUCE_MEAN},
        {"ReduceMax", ORTVK_REDUCE_MAX},
        {"ReduceMin", ORTVK_REDUCE_MIN},
        {"ReduceL1", ORTVK_REDUCE_L1},
        {"ReduceL2", ORTVK_REDUCE_L2},
        {"ReduceSumSquare", ORTVK_REDUCE_SUM_SQUARE},
        {"ReduceLogSum", ORTVK_REDUCE_LOG_SUM},
        {"ReduceLogSumExp", ORTVK_REDUCE_LOG_SUM_EXP},
        {"ReduceProd", ORTVK_REDUCE_PROD},
    };
    size_t k = 0;
    while (strcmp(fns[k].op, op) != 0) k++; /* the op table lists only these */
    p->fn = fns[k].fn;
    if (node->n_in < 1 || node->n_in > 2 || node->n_out != 1 || !ortvk_kvalue_float(&node->in[0]) ||
        !ortvk_kvalue_float(&node->out[0]))
        return ortvk_krefuse(why, why_len, "not float");
    if (!ortvk_knode_bool(node, "keepdims", true, &p->keepdims) ||
        !ortvk_knode_bool(node, "noop_with_empty_axes", false, &p->noop_empty))
        return ortvk_krefuse(why, why_len, "keepdims or noop_with_empty_axes other than 0 or 1");
    /* axes: an attribute until ReduceSum-13 / the others' opset 18 made it an optional constant input. */
    bool input_axes = p->fn == ORTVK_REDUCE_SUM ? node->opset >= 13 : node->opset >= 18;
    if (!input_axes) {
        if (!ortvk_knode_ints(node, "axes", p->axes, ORTVK_KMAX_RANK, &p->count))
            return ortvk_krefuse(why, why_len, "axes");
        if (node->n_in != 1) return ortvk_krefuse(why, why_len, "axes input before its opset");
        if (p->count == 0) p->count = -1; /* axes=[]: ORT's CPU EP reduces all, as without the attribute */
    } else if (node->n_in == 2 && node->in[1].present) {
        size_t n = 0;
        if (!ortvk_knode_const_ints(node, 1, p->axes, ORTVK_KMAX_RANK, &n))
            return ortvk_krefuse(why, why_len, "axes are not constant");
        p->count = n == 0 ? -1 : (int)n;
    } else {
        p->count = -1;
    }
    /* No axes with noop_with_empty_axes: the identity, except over an input without elements, where ORT 1.24's
     * CPU EP reduces all and 1.30's copies the input; left to the CPU EP. */
    if (p->count < 0 && p->noop_empty) return ortvk_krefuse(why, why_len, "noop_with_empty_axes without axes");
    return true;
}

/* The reduction as (outer, R, inner): reduced dims must be contiguous once size-1 dims are left out. */
static OrtStatus *reduce_plan(const ortvk_kparams_reduce *p, const ortvk_ktensor *x, bool *reduced, size_t *outer,
                              size_t *R, size_t *inner)
{
    memset(reduced, 0, ORTVK_KMAX_RANK * sizeof(bool));
    if (p->count < 0) {
        for (size_t d = 0; d < x->rank; d++) reduced[d] = true;
    }
    for (int i = 0; i < p->count; i++) {
        int64_t a = p->axes[i] < 0 ? p->axes[i] + (int64_t)x->rank : p->axes[i];
        if (a < 0 || a >= (int64_t)x->rank)
            return ortvk_status(ORT_INVALID_ARGUMENT, "Reduce: axis %lld", (long long)p->axes[i]);
        reduced[a] = true;
    }
    int first = -1, last = -1;
    for (size_t d = 0; d < x->rank; d++) {
        if (!reduced[d] || x->dims[d] == 1) continue;
        if (first < 0) first = (int)d;
        last = (int)d;
    }
    if (first < 0) {
        *outer = x->count, *R = 1, *inner = 1;
        return NULL;
    }
    for (int d = first; d <= last; d++) {
        if (!reduced[d] && x->dims[d] != 1)
            return ortvk_status(ORT_EP_FAIL, "Reduce: axes that are not contiguous");
    }
    *outer = ortvk_kcount(x->dims, (size_t)first);
    *R = ortvk_kcount(x->dims + first, (size_t)(last - first + 1));
    *inner = ortvk_kcount(x->dims + last + 1, x->rank - (size_t)last - 1);
    return NULL;
}

/* ORT's CPU EP reduces an input without elements its own way: no axes (noop_with_empty_axes or not) reduce all,
 * and a negative axis reduces nothing (the axes are compared with the dim indices as given), e.g. [0,4,3] over
 * axes [-3,-2] stays [0,4,3]. The output, when it has elements, holds the empty reduction's value. */
static OrtStatus *reduce_empty_shape(const ortvk_kparams_reduce *p, const ortvk_ktensor *x, ortvk_ktensor *y)
{
    for (int i = 0; i < p->count; i++) {
        int64_t a = p->axes[i] < 0 ? p->axes[i] + (int64_t)x->rank : p->axes[i];
        if (a < 0 || a >= (int64_t)x->rank)
            return ortvk_status(ORT_INVALID_ARGUMENT, "Reduce: axis %lld", (long long)p->axes[i]);
    }
    y->type = x->type;
    y->rank = 0;
    for (size_t d = 0; d < x->rank; d++) {
        bool reduced = p->count < 0;
        for (int i = 0; i < p->count && !reduced; i++) reduced = p->axes[i] == (int64_t)d;
        if (!reduced) y->dims[y->rank++] = x->dims[d];
        else if (p->keepdims) y->dims[y->rank++] = 1;
    }
    return NULL;
}

static OrtStatus *reduce_shape(const ortvk_kparams *params, ortvk_krun *run)
{
    const ortvk_kparams_reduce *p = &params->reduce;
    const ortvk_ktensor *x = &run->in[0];
    ortvk_ktensor *y = &run->out[0];
    if (x->count == 0) return reduce_empty_shape(p, x, y);
    bool reduced[ORTVK_KMAX_RANK];
    size_t outer, R, inner;
    ORTVK_TRY(reduce_plan(p, x, reduced, &outer, &R, &inner));
    y->type = x->type;
    y->rank = 0;
    for (size_t d = 0; d < x->rank; d++) {
        if (!reduced[d]) y->dims[y->rank++] = x->dims[d];
        else if (p->keepdims) y->dims[y->rank++] = 1;
    }
    return NULL;
}

/* What ORT's CPU EP returns for a reduction over nothing (an empty reduced dim with a non-empty output). */
static float reduce_empty_value(int fn)
{
    switch (fn) {
    case ORTVK_REDUCE_PROD: return 1.0f;
    case ORTVK_REDUCE_MAX: return -1.0f / 0.0f;
    case ORTVK_REDUCE_MIN: return 1.0f / 0.0f;
    case ORTVK_REDUCE_LOG_SUM:
    case ORTVK_REDUCE_LOG_SUM_EXP: return -1.0f / 0.0f;
    default: return 0.0f; /* Sum, SumSquare, L1, L2, and Mean */
    }
}

static OrtStatus *reduce_record(const ortvk_kparams *params, ortvk_krun *run)
{
    const ortvk_kparams_reduce *p = &params->reduce;
    const ortvk_ktensor *x = &run->in[0];
    bool reduced[ORTVK_KMAX_RANK];
    size_t outer = 0, R = 0, inner = 0;
    if (x->count > 0) ORTVK_TRY(reduce_plan(p, x, reduced, &outer, &R, &inner));
    if (x->count == 0) { /* filled on the host's word: the shader never sees a reduction over nothing */
        const ortvk_ktensor *y = &run->out[0];
        float v = reduce_empty_value(p->fn);
        uint32_t word;
        memcpy(&word, &v, sizeof(word));
        if (run->float16) {
            uint32_t h = (word >> 16) & 0x8000u; /* the values above are exact in float16 */
            h |= (word & 0x7fffffffu) == 0x7f800000u ? 0x7c00u : (word & 0x7fffffffu) == 0x3f800000u ? 0x3c00u : 0u;
            word = h | h << 16;
        }
        size_t bytes = y->count * ortvk_element_size(y->type), even = bytes & ~(size_t)3;
        ORTVK_TRY(ortvk_krun_fill(run, y->address, even, word));
        if (even == bytes) return NULL;
        VkDeviceAddress tail = 0; /* an odd count of float16 values: the last one */
        ORTVK_TRY(ortvk_krun_upload(run, &word, 2, &tail));
        return ortvk_krun_copy(run, y->address + even, tail, 2);
    }
    ortvk_kpush_reduce push = {
        .x = x->address,
        .y = run->out[0].address,
        .outer = (uint32_t)outer,
        .R = (uint32_t)R,
        .inner = (uint32_t)inner,
        .fn = (uint32_t)p->fn,
    };
    return ortvk_kreduce_dispatch(run, &push);
}

/* A GPU's sums and means over few long rows (the detector's squeeze-excitation pools, 24-96 planes of up to
 * 160x160: one workgroup a plane read 76-164 GB/s on the first GPU run, each invocation a chain of hundreds of
 * loads): each row in `chunks` equal parts, a workgroup a part, then a second pass over the parts' results (sums of
 * sums, means of means). As many parts as make about REDUCE_CHUNKED_WORKGROUPS workgroups, each of
 * REDUCE_CHUNK_MIN elements or more, their count dividing R; float32 only (float16 partial results would round
 * once more). */
#define REDUCE_CHUNKED_WORKGROUPS 1024u
#define REDUCE_CHUNK_MIN 1024u

static uint32_t reduce_chunks(const ortvk_krun *run, const ortvk_kpush_reduce *push)
{
    if ((push->fn != ORTVK_REDUCE_SUM && push->fn != ORTVK_REDUCE_MEAN) || run->float16 || push->outer == 0 ||
        push->outer >= REDUCE_CHUNKED_WORKGROUPS / 2 || push->inner != 1 || !ortvk_krun_rows_form(run, push->R))
        return 1;
    uint32_t chunks = (REDUCE_CHUNKED_WORKGROUPS + push->outer - 1) / push->outer, most = push->R / REDUCE_CHUNK_MIN;
    for (chunks = chunks < most ? chunks : most; chunks >= 2; chunks--)
        if (push->R % chunks == 0) return chunks;
    return 1;
}

static OrtStatus *reduce_dispatch_pass(ortvk_krun *run, const ortvk_kpush_reduce *push)
{
    bool rows = push->inner == 1 && ortvk_krun_rows_form(run, push->R);
    uint64_t invocations = rows ? (uint64_t)push->outer * 64 : (uint64_t)push->outer * push->inner;
    return ortvk_krun_dispatch_fn(run, ORTVK_SHADER_REDUCE, rows ? 1 : 0, push, sizeof(*push), invocations);
}

OrtStatus *ortvk_kreduce_dispatch(ortvk_krun *run, const ortvk_kpush_reduce *push)
{
    uint32_t chunks = reduce_chunks(run, push);
    if (chunks < 2) return reduce_dispatch_pass(run, push);
    ortvk_kpush_reduce parts = *push, whole = *push;
    ORTVK_TRY(ortvk_krun_scratch(run, (size_t)push->outer * chunks * sizeof(float), &parts.y));
    parts.outer = push->outer * chunks;
    parts.R = push->R / chunks;
    whole.x = parts.y;
    whole.R = chunks;
    ORTVK_TRY(reduce_dispatch_pass(run, &parts));
    return reduce_dispatch_pass(run, &whole);
}

/* Whether the node's constant axes are contiguous for its static rank (so reduce_plan cannot fail on them). */
static bool reduce_prepare_checked(const ortvk_knode *node, ortvk_kparams *params, char *why, size_t why_len)
{
    if (!reduce_prepare(node, params, why, why_len)) return false;
    const ortvk_kparams_reduce *p = &params->reduce;
    int rank = node->in[0].rank;
    /* An unknown rank: one axis is contiguous whatever the rank (checked in the run); more are refused. */
    if (rank < 0) return p->count == 1 || ortvk_krefuse(why, why_len, "unknown rank with %d axes", p->count);
    if (p->count <= 0) return true;
    bool reduced[ORTVK_KMAX_RANK] = {0};
    for (int i = 0; i < p->count; i++) {
        int64_t a = p->axes[i] < 0 ? p->axes[i] + rank : p->axes[i];
        if (a < 0 || a >= rank) return ortvk_krefuse(why, why_len, "axis %lld", (long long)p->axes[i]);
        reduced[a] = true;
    }
    /* Between the first and last reduced axis every kept dim must be statically 1. */
    int first = -1, last = -1;
    for (int d = 0; d < rank; d++) {
        if (!reduced[d]) continue;
        if (first < 0) first = d;
        last = d;
    }
    for (int d = first; d <= last; d++) {
        if (!reduced[d] && node->in[0].dims[d] != 1) return ortvk_krefuse(why, why_len, "axes are not contiguous");
    }
    return true;
}

#define REDUCE(name, max_opset)                                                                              \
    {name, 1, max_opset, "axes keepdims noop_with_empty_axes", 0x2, reduce_prepare_checked, reduce_shape, reduce_record}

const ortvk_kop ortvk_kops_math[] = {
    {"MatMul", 1, 13, "", 0, gemm_prepare, gemm_shape, gemm_record},
    {"Gemm", 7, 13, "alpha beta broadcast transA transB", 0, gemm_prepare, gemm_shape, gemm_record},
    {"Softmax", 1, 13, "axis", 0, softmax_prepare, ortvk_kshape_same, softmax_record},
    {"LogSoftmax", 1, 13, "axis", 0, softmax_prepare, ortvk_kshape_same, softmax_record},
    REDUCE("ReduceSum", 13),
    REDUCE("ReduceMean", 18),
    REDUCE("ReduceMax", 18),
    REDUCE("ReduceMin", 18),
    REDUCE("ReduceL1", 18),
    REDUCE("ReduceL2", 18),
    REDUCE("ReduceSumSquare", 18),
    REDUCE("ReduceLogSum", 18),
    REDUCE("ReduceLogSumExp", 18),
    REDUCE("ReduceProd", 18),
    {NULL, 0, 0, NULL, 0, NULL, NULL, NULL},
};
