// MatMul (batched, broadcast batch dims) and Gemm: y[b, m, n] = alpha * sum_k A[b, m, k] B[b, k, n]
// (+ beta * C[m, n]), with A and B addressed through strides so that transposes cost nothing. Each invocation
// computes a TM x TN block of one batch's output; every sum runs over k in ascending order.
#version 460
#include "common.glsl"

layout(push_constant) uniform Push {
    uvec2 a, b, c, y; // c is 0 without bias
    uint M, N, K, batch_rank;
    uint batch_dims[3];
    uint a_batch[3];
    uint b_batch[3];
    int a_sm, a_sk, b_sk, b_sn;
    int c_sm, c_sn;
    float alpha, beta;
} p;

#define TM 4u // rows of the output block an invocation computes
#define TN 4u // and its columns: each loaded value of A serves TN outputs, each of B TM

void main()
{
    uint i = ortvk_index();
    uint m_blocks = (p.M + TM - 1u) / TM, n_blocks = (p.N + TN - 1u) / TN;
    uint batches = 1u;
    for (uint d = 0u; d < p.batch_rank; d++) batches *= p.batch_dims[d];
    if (i >= batches * m_blocks * n_blocks) return;
    uint n0 = (i % n_blocks) * TN;
    uint m0 = ((i / n_blocks) % m_blocks) * TM;
    uint r = i / (m_blocks * n_blocks);
    int ao = 0, bo = 0;
    for (int d = int(p.batch_rank) - 1; d >= 0; d--) {
        uint q = r / p.batch_dims[d];
        uint c = r - q * p.batch_dims[d];
        r = q;
        ao += int(c * p.a_batch[d]);
        bo += int(c * p.b_batch[d]);
    }
    uint batch = i / (m_blocks * n_blocks);
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
            if (row_in[j]) av[j] = ORTVK_GET(0, p.a, ai[j]);
            ai[j] += p.a_sk;
        }
        [[unroll]] for (uint c = 0u; c < TN; c++) {
            bv[c] = 0.0;
            if (col_in[c]) bv[c] = ORTVK_GET(1, p.b, bi[c]);
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
            ORTVK_SET(3, p.y, (batch * p.M + m) * p.N + n, sum);
        }
    }
}
