// MatMul (batched, broadcast batch dims) and Gemm: y[b, m, n] = alpha * sum_k A[b, m, k] B[b, k, n]
// (+ beta * C[m, n]), with A and B addressed through strides so that transposes cost nothing. Each invocation
// computes a TM x TN block of one batch's output; every sum runs over k in ascending order. A fused element-wise
// chain (common.glsl's ortvk_chain) applies to each stored result (a pointwise Conv's activation).
// Specialization constant 0 (FORM) % 8, FAST (the host's choice where A's rows and B's rows are contiguous, K and N
// multiples of 4, the tensors 16-byte aligned): blocks of 8 x 16 (16 x 8 for FAST 3, 8 x 8 for FAST 4, 8 x 4 for
// FAST 6) read as vec4 (A along k, B along n), 4 k a loop iteration, no bounds checks inside the loop (edge rows and
// columns read clamped indices and are not stored); A along m instead where its columns are contiguous, or B along
// k (LAYOUT); B read element by element where its rows are not whole vec4s (B_ODD, FORM 16 + FAST), as vec4 where a
// packed constant's padding makes them so, or along k from any column (Y_ODD, FORM 8 + FAST), y then stored element
// by element. With A along m, K need not be a multiple of 4: the last K % 4 steps run one k each. The generic form's
// per-element checks and scalar loads became per-lane branches and gathers on lavapipe: 0.8 GFLOP/s.
// Constant 6 (SMALL_K), with A along m in the wide forms: K itself, for a pointwise Conv of few input channels.
// FAST 5 is a GPU's form (docs/kernels.md, "Forms per device"): tiles through shared memory, any strides.
#version 460
#include "common.glsl"

layout(push_constant) uniform Push {
    uvec2 a, b, c, y; // c is 0 without bias
    // K; with SMALL_K (K a constant) the rows an invocation takes instead (a multiple of 4: gemm_small_k_rows)
    uint M, N, K;
    uint batch_dims[3]; // 1 past the batch's rank
    uint a_batch[3];
    uint b_batch[3];
    int a_sm, a_sk, b_sk, b_sn;
    int c_sm, c_sn;
    float alpha, beta;
    uvec2 r;           // a fused chain's residual (ORTVK_CHAIN_R: a tensor of y's shape), read at y's index
    uvec2 chain;       // a fused chain's step operands (common.glsl's ORTVK_CHAIN_LOAD)
} p;

// SMALL_K's rows an invocation.
uint gemm_small_k_rows()
{
    return p.K;
}

layout(constant_id = 0) const uint FORM = 0u;
const uint FAST = FORM % 8u;
// FORM 16 + FAST 1-4 or 6 where B's rows (along n) are not whole vec4s (N, B's row or batch stride not a multiple
// of 4, or B or y not 16-byte aligned): B read and y stored element by element, each column clamped to N - 1; A read
// as in the other forms. FORM 8 + FAST 1-4 or 6 where N is not a multiple of 4 but B's rows are padded to whole vec4s
// (the host's ortvk_kgemm_pack: a text recognizer's 6625-class head): B read as vec4 up to N rounded up to 4, y
// stored element by element; or, with B read along k (LAYOUT), where N is not a multiple of 4 or y not 16-byte
// aligned (Gemm's transB of 10 outputs, a Conv's overlapping windows): each column clamped to N - 1.
const bool B_ODD = FORM >= 16u;
const bool Y_ODD = FORM >= 8u;
// Constant 1, with FAST: the layout. 1: A's columns (along m) are contiguous rather than its rows (along k), M a
// multiple of 4; 2: B's columns (along k) rather than its rows (Gemm's transB = 1).
// Plus 3 times C's form: 0 none, 1 one value a row (a bias per output channel: one read a row), 2 any other. Constants
// rather than tests of p.c: lavapipe runs both sides of a branch under a mask, so the per-element reads of C (4 a
// stored vec4) cost a pointwise Conv with a bias about 15% of its shader time (K = 64) though none of them ran.
layout(constant_id = 1) const uint LAYOUT = 0u;
const bool A_COLUMNS = LAYOUT % 3u == 1u;
const bool B_COLUMNS = LAYOUT % 3u == 2u;
const uint C_FORM = LAYOUT / 3u;
// K as a constant (0: K from the push constants). The k loop is then unrolled and each output row's sums run to
// its end and it is stored before the next row's start, so FG vec4 accumulators live at once rather than FM x FG:
// the loop over a run-time K keeps all of them across its iterations, in memory on a 16-register CPU, a load and a
// store per multiply-add, which was most of a K = 16 Conv's time on lavapipe. B's K rows are fetched once and serve
// gemm_small_k_rows() output rows (a loop over groups of 4), not only FM: as many as the host's dispatch keeps enough
// workgroups for (1.2-1.4x for a 64 -> 64 pointwise Conv on lavapipe, docs/benchmarks.md run Z).
layout(constant_id = 6) const uint SMALL_K = 0u;
const uint KS = SMALL_K + (SMALL_K == 0u ? 1u : 0u); // an array size even where unused

#define TM 4u // rows of the output block an invocation computes
#define TN 4u // and its columns: each loaded value of A serves TN outputs, each of B TM

// The fast form's rows and column groups of 4. FAST 3, where a workgroup's invocations share their rows (A's loads
// uniform), takes 16 x 8 blocks: half the per-lane loads of B per sum (a pointwise Conv's K = 64: 1.17x). FAST 4
// is the same with 8 x 8 blocks, for M whose last 16-row block would be mostly clamped rows (M = 18: 24 rows
// computed rather than 32). FAST 6 is FAST 1 with 8 x 4 blocks, for outputs of at most 4 columns (an STFT's few
// frames), where 16 columns would compute 12 or more clamped ones.
const bool WIDE = FAST == 3u || FAST == 4u;
const uint FM = FAST == 3u ? 16u : 8u;
const uint FG = FAST == 6u ? 1u : WIDE ? 2u : 4u;

// The offsets of batch entry `batch` in A and B (broadcast batch dims have a stride of 0).
void gemm_batch_offsets(uint batch, out uint ao, out uint bo)
{
    uint r = batch;
    ao = 0u;
    bo = 0u;
    [[unroll]] for (int d = 2; d >= 0; d--) {
        uint q = r / p.batch_dims[d];
        uint c = r - q * p.batch_dims[d];
        r = q;
        ao += c * p.a_batch[d];
        bo += c * p.b_batch[d];
    }
}

// The batches (the product of the batch dims).
uint gemm_batches()
{
    return p.batch_dims[0] * p.batch_dims[1] * p.batch_dims[2];
}

// Element i of the fused chain's residual, 0 without one.
float gemm_residual(uint i)
{
    return ORTVK_CHAIN_R ? ORTVK_TEXEL(4, p.r, i) : 0.0;
}

// FAST 5, a GPU's form: tiles through shared memory (tiles.glsl), any strides, M, N and K.
const bool ORTVK_TILES = FAST == 5u;
float ortvk_tile_a(uint base, uint m, uint k)
{
    return ORTVK_TEXEL(0, p.a, base + m * uint(p.a_sm) + k * uint(p.a_sk));
}
float ortvk_tile_b(uint base, uint k, uint n)
{
    return ORTVK_TEXEL(1, p.b, base + k * uint(p.b_sk) + n * uint(p.b_sn));
}
#include "tiles.glsl"

// This workgroup's tile, with alpha, C and the fused chain (barriers: called in uniform control flow).
void gemm_tiles()
{
    uint batches = gemm_batches(), m0, n0, batch, ao, bo;
    if (!ortvk_tile_of_workgroup(p.M, p.N, batches, m0, n0, batch)) return;
    gemm_batch_offsets(batch, ao, bo);
    vec4 acc[4];
    ortvk_tiles(m0, n0, p.M, p.N, 0u, p.K, ao, bo, p.a_sk == 1, p.b_sn == 1, acc);
    [[unroll]] for (uint i = 0u; i < 4u; i++) {
        uint m = ortvk_tile_row(m0, i);
        if (m >= p.M) continue;
        float c_row = C_FORM == 1u ? p.beta * ORTVK_GET(2, p.c, int(m) * p.c_sm) : 0.0;
        [[unroll]] for (uint j = 0u; j < 4u; j++) {
            uint n = ortvk_tile_column(n0, j);
            if (n >= p.N) continue;
            float sum = acc[i][j];
            if (p.alpha != 1.0) sum = p.alpha * sum;
            if (C_FORM == 1u) {
                sum += c_row;
            } else if (C_FORM == 2u) {
                sum += p.beta * ORTVK_GET(2, p.c, int(m) * p.c_sm + int(n) * p.c_sn);
            }
            uint at = (batch * p.M + m) * p.N + n;
            ORTVK_SET(3, p.y, at, ortvk_chainr(sum, gemm_residual(at)));
        }
    }
}

// The block's columns of B (gemm_block sets them): the first of each group of 4 (clamped to N - 4, N rounded up to 4
// in Y_ODD), and each one (clamped to N - 1: B_ODD's, and B_COLUMNS').
uint gemm_bc[FG], gemm_bn[FG * 4u];

// B's elements at columns gemm_bc[g].. of the row starting at `row`: one vec4 fetch, or with B_ODD four fetches at
// the columns gemm_bn[4 g + e]. (glslc -O inlines it at each site: B_ODD's reads add 4% to the SPIR-V, which every
// pipeline of the shader parses at creation; B_ODD's stores apply the chain once as a vec4, as the others do, where
// four scalar chains added a third: docs/benchmarks.md, run AD.)
vec4 gemm_b4(uint g, uint row)
{
    if (!B_ODD) return ORTVK_TEXEL4(1, p.b, gemm_bc[g] + row);
    return vec4(ORTVK_TEXEL(1, p.b, gemm_bn[4u * g] + row), ORTVK_TEXEL(1, p.b, gemm_bn[4u * g + 1u] + row),
                ORTVK_TEXEL(1, p.b, gemm_bn[4u * g + 2u] + row), ORTVK_TEXEL(1, p.b, gemm_bn[4u * g + 3u] + row));
}

// One k of the A-along-m form: FM values of A's column k (FM / 4 vec4), FG vec4 of B's row k, FM x 4 FG sums.
#define GEMM_COLUMNS_STEP(kk) { \
    uint k_ = (kk); \
    vec4 av[FM / 4u]; \
    [[unroll]] for (uint q = 0u; q < FM / 4u; q++) av[q] = ORTVK_TEXEL4(0, p.a, acol[q] + k_ * a_sk); \
    uint row = k_ * b_sk; \
    vec4 bv[FG]; \
    [[unroll]] for (uint g = 0u; g < FG; g++) bv[g] = gemm_b4(g, row); \
    [[unroll]] for (uint j = 0u; j < FM; j++) { \
        float a = av[j / 4u][j % 4u]; \
        [[unroll]] for (uint g = 0u; g < FG; g++) acc[j][g] += a * bv[g]; \
    } \
}

// Output row m at columns n0.. of one batch from its sums: alpha, C, the fused chain, FG vec4 stores.
void gemm_store_row(uint m, uint n0, uint batch, vec4 row[FG])
{
    // C constant along a row (a bias per output channel): one read a row.
    float c_row = C_FORM == 1u ? p.beta * ORTVK_GET(2, p.c, int(m) * p.c_sm) : 0.0;
    [[unroll]] for (uint g = 0u; g < FG; g++) {
        uint n = n0 + 4u * g;
        if (n >= p.N) continue;
        vec4 sum = row[g];
        if (p.alpha != 1.0) sum = p.alpha * sum;
        if (C_FORM == 1u) {
            sum += c_row;
        } else if (C_FORM == 2u) {
            // In the odd forms the group's last columns may lie past N, and C's elements with them: C is read only
            // where y is stored.
            [[unroll]] for (uint e = 0u; e < 4u; e++) {
                if (!Y_ODD || n + e < p.N) sum[e] += p.beta * ORTVK_GET(2, p.c, int(m) * p.c_sm + int(n + e) * p.c_sn);
            }
        }
        uint at = (batch * p.M + m) * p.N + n;
        // The residual as y is stored: 4 at once where y's are (the host checks its alignment with y's).
        vec4 r = vec4(0.0);
        if (ORTVK_CHAIN_R && Y_ODD) {
            [[unroll]] for (uint e = 0u; e < 4u; e++) r[e] = n + e < p.N ? gemm_residual(at + e) : 0.0;
        } else if (ORTVK_CHAIN_R) {
            r = ORTVK_TEXEL4(4, p.r, at);
        }
        vec4 v = ORTVK_CHAIN_COUNT == 0u ? sum : ortvk_chain4r(sum, r); // one chain a store site: SPIR-V size, above
        if (Y_ODD) {
            [[unroll]] for (uint e = 0u; e < 4u; e++) {
                if (n + e < p.N) ORTVK_SET(3, p.y, at + e, v[e]);
            }
        } else {
            ORTVK_SET4(3, p.y, at, v);
        }
    }
}

// The output block at rows m0.., columns n0.. of one batch.
void gemm_block(uint m0, uint n0, uint batch)
{
    uint ao, bo;
    gemm_batch_offsets(batch, ao, bo);
    uint ar[FM];
    vec4 acc[FM][FG];
    [[unroll]] for (uint j = 0u; j < FM; j++) {
        ar[j] = ao + min(m0 + j, p.M - 1u) * uint(p.a_sm);
        [[unroll]] for (uint g = 0u; g < FG; g++) acc[j][g] = vec4(0.0);
    }
    uint n4 = (p.N + 3u) & ~3u; // N itself but in Y_ODD
    [[unroll]] for (uint g = 0u; g < FG; g++) gemm_bc[g] = bo + min(n0 + 4u * g, n4 - 4u);
    [[unroll]] for (uint e = 0u; e < FG * 4u; e++) gemm_bn[e] = bo + min(n0 + e, p.N - 1u) * uint(p.b_sn);
    uint b_sk = uint(p.b_sk);
    if (SMALL_K != 0u) {
        // A along m: rows m0 + 4q.. as a vec4 per k. The sums run over k in ascending order, as below.
        uint a_sk = uint(p.a_sk);
        vec4 bk[KS][FG];
        [[unroll]] for (uint k = 0u; k < KS; k++) {
            [[unroll]] for (uint g = 0u; g < FG; g++) bk[k][g] = gemm_b4(g, k * b_sk);
        }
        [[dont_unroll]] for (uint q = 0u; q < gemm_small_k_rows() / 4u; q++) {
            uint acol = ao + min(m0 + 4u * q, p.M - 4u);
            vec4 ak[KS];
            [[unroll]] for (uint k = 0u; k < KS; k++) ak[k] = ORTVK_TEXEL4(0, p.a, acol + k * a_sk);
            [[unroll]] for (uint t = 0u; t < 4u; t++) {
                vec4 row[FG];
                [[unroll]] for (uint g = 0u; g < FG; g++) row[g] = vec4(0.0);
                [[unroll]] for (uint k = 0u; k < KS; k++) {
                    [[unroll]] for (uint g = 0u; g < FG; g++) row[g] += ak[k][t] * bk[k][g];
                }
                if (m0 + 4u * q + t < p.M) gemm_store_row(m0 + 4u * q + t, n0, batch, row);
            }
        }
        return;
    }
    // K / 4 iterations: the host keeps them under lavapipe's loop cap.
    if (B_COLUMNS) {
        // B read along k, a vec4 of 4 k for each of the 16 columns, turned into the 4 x 4 blocks the sums take.
        for (uint k = 0u; k < p.K; k += 4u) {
            vec4 av[FM];
            [[unroll]] for (uint j = 0u; j < FM; j++) av[j] = ORTVK_TEXEL4(0, p.a, ar[j] + k);
            [[unroll]] for (uint g = 0u; g < FG; g++) {
                vec4 b0 = ORTVK_TEXEL4(1, p.b, gemm_bn[4u * g] + k);
                vec4 b1 = ORTVK_TEXEL4(1, p.b, gemm_bn[4u * g + 1u] + k);
                vec4 b2 = ORTVK_TEXEL4(1, p.b, gemm_bn[4u * g + 2u] + k);
                vec4 b3 = ORTVK_TEXEL4(1, p.b, gemm_bn[4u * g + 3u] + k);
                [[unroll]] for (uint t = 0u; t < 4u; t++) {
                    vec4 bt = vec4(b0[t], b1[t], b2[t], b3[t]);
                    [[unroll]] for (uint j = 0u; j < FM; j++) acc[j][g] += av[j][t] * bt;
                }
            }
        }
    } else if (A_COLUMNS) {
        // A read along m (a transposed A, or Conv's packed weights): rows m0..m0+FM-1 as FM / 4 vec4 per k.
        // K % 4 need not be 0 here: the loop takes the whole groups of 4 k, the last K % 4 steps follow one k at a
        // time (a pointwise Conv of 18 or 42 input channels), so that no row of A or B past K - 1 is read.
        uint a_sk = uint(p.a_sk), acol[FM / 4u], k4 = p.K & ~3u;
        [[unroll]] for (uint q = 0u; q < FM / 4u; q++) acol[q] = ao + min(m0 + 4u * q, p.M - 4u);
        for (uint k = 0u; k < k4; k += 4u) {
            [[unroll]] for (uint t = 0u; t < 4u; t++) GEMM_COLUMNS_STEP(k + t);
        }
        for (uint k = k4; k < p.K; k++) GEMM_COLUMNS_STEP(k);
    } else {
        for (uint k = 0u; k < p.K; k += 4u) {
            vec4 av[FM];
            [[unroll]] for (uint j = 0u; j < FM; j++) av[j] = ORTVK_TEXEL4(0, p.a, ar[j] + k);
            [[unroll]] for (uint t = 0u; t < 4u; t++) {
                uint row = (k + t) * b_sk;
                vec4 bv[FG];
                [[unroll]] for (uint g = 0u; g < FG; g++) bv[g] = gemm_b4(g, row);
                [[unroll]] for (uint j = 0u; j < FM; j++) {
                    float a = av[j][t];
                    [[unroll]] for (uint g = 0u; g < FG; g++) acc[j][g] += a * bv[g];
                }
            }
        }
    }
    [[unroll]] for (uint j = 0u; j < FM; j++) {
        if (m0 + j < p.M) gemm_store_row(m0 + j, n0, batch, acc[j]);
    }
}

void main()
{
    ORTVK_CHAIN_LOAD(5, p.chain);
    uint i = ortvk_index();
    if (ORTVK_TILES) {
        gemm_tiles();
        return;
    }
    if (FAST != 0u) {
        uint n_blocks = (p.N + FG * 4u - 1u) / (FG * 4u);
        uint batches = gemm_batches();
        if (FAST == 1u || FAST == 6u) {
            // Neighbouring invocations take neighbouring column blocks.
            uint m_blocks = (p.M + FM - 1u) / FM;
            if (i >= batches * m_blocks * n_blocks) return;
            gemm_block(((i / n_blocks) % m_blocks) * FM, (i % n_blocks) * (FG * 4u), i / (m_blocks * n_blocks));
        } else if (WIDE) {
            // A workgroup takes one row block and 64 column blocks: A's loads are the same for all its invocations.
            uint wg = ortvk_workgroup();
            uint rows = SMALL_K != 0u ? gemm_small_k_rows() : FM;
            uint m_blocks = (p.M + rows - 1u) / rows, n_groups = (n_blocks + 63u) / 64u;
            if (wg >= batches * m_blocks * n_groups) return;
            uint nb = (wg % n_groups) * 64u + gl_LocalInvocationID.x;
            if (nb >= n_blocks) return;
            gemm_block(((wg / n_groups) % m_blocks) * rows, nb * (FG * 4u), wg / (m_blocks * n_groups));
        } else {
            // A workgroup takes one column block and 64 row blocks: B's loads are the same for all its invocations,
            // which lavapipe then reads once (uniform) rather than lane by lane.
            uint wg = ortvk_workgroup();
            uint m_groups = (p.M + 64u * FM - 1u) / (64u * FM);
            if (wg >= batches * m_groups * n_blocks) return;
            gemm_block(((wg / n_blocks) % m_groups) * (64u * FM) + gl_LocalInvocationID.x * FM,
                       (wg % n_blocks) * (FG * 4u), wg / (m_groups * n_blocks));
        }
        return;
    }
    uint m_blocks = (p.M + TM - 1u) / TM, n_blocks = (p.N + TN - 1u) / TN;
    if (i >= gemm_batches() * m_blocks * n_blocks) return;
    uint n0 = (i % n_blocks) * TN;
    uint m0 = ((i / n_blocks) % m_blocks) * TM;
    uint batch = i / (m_blocks * n_blocks), batch_a, batch_b;
    gemm_batch_offsets(batch, batch_a, batch_b);
    int ao = int(batch_a), bo = int(batch_b);
    bool row_in[TM], col_in[TN];
    int ai[TM], bi[TN];
    float acc[TM][TN];
    [[unroll]] for (uint j = 0u; j < TM; j++) {
        row_in[j] = m0 + j < p.M;
        ai[j] = ao + int(m0 + j) * p.a_sm;
        [[unroll]] for (uint c = 0u; c < TN; c++) acc[j][c] = 0.0;
    }
    [[unroll]] for (uint c = 0u; c < TN; c++) {
        col_in[c] = n0 + c < p.N;
        bi[c] = bo + int(n0 + c) * p.b_sn;
    }
    ORTVK_FOR(k, 0u, p.K) {
        float av[TM], bv[TN];
        [[unroll]] for (uint j = 0u; j < TM; j++) {
            av[j] = 0.0;
            if (row_in[j]) av[j] = ORTVK_TEXEL(0, p.a, ai[j]);
            ai[j] += p.a_sk;
        }
        [[unroll]] for (uint c = 0u; c < TN; c++) {
            bv[c] = 0.0;
            if (col_in[c]) bv[c] = ORTVK_TEXEL(1, p.b, bi[c]);
            bi[c] += p.b_sk;
        }
        [[unroll]] for (uint j = 0u; j < TM; j++) {
            [[unroll]] for (uint c = 0u; c < TN; c++) acc[j][c] += av[j] * bv[c];
        }
    }
    [[unroll]] for (uint j = 0u; j < TM; j++) {
        [[unroll]] for (uint c = 0u; c < TN; c++) {
            if (!row_in[j] || !col_in[c]) continue;
            uint m = m0 + j, n = n0 + c;
            float sum = acc[j][c];
            if (p.alpha != 1.0) sum = p.alpha * sum;
            if (p.c != uvec2(0u)) sum += p.beta * ORTVK_GET(2, p.c, int(m) * p.c_sm + int(n) * p.c_sn);
            uint at = (batch * p.M + m) * p.N + n;
            ORTVK_SET(3, p.y, at, ortvk_chainr(sum, gemm_residual(at)));
        }
    }
}
