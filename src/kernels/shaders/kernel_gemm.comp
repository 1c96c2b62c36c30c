// MatMul (batched, broadcast batch dims) and Gemm: y[b, m, n] = alpha * sum_k A[b, m, k] B[b, k, n]
// (+ beta * C[m, n]), with A and B addressed through strides so that transposes cost nothing.
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

void main()
{
    uint i = ortvk_index();
    uint mn = p.M * p.N;
    uint batches = 1u;
    for (uint d = 0u; d < p.batch_rank; d++) batches *= p.batch_dims[d];
    if (i >= batches * mn) return;
    uint n = i % p.N;
    uint m = (i / p.N) % p.M;
    uint r = i / mn;
    int ao = 0, bo = 0;
    for (int d = int(p.batch_rank) - 1; d >= 0; d--) {
        uint q = r / p.batch_dims[d];
        uint c = r - q * p.batch_dims[d];
        r = q;
        ao += int(c * p.a_batch[d]);
        bo += int(c * p.b_batch[d]);
    }
    Elems A = Elems(p.a);
    Elems B = Elems(p.b);
    int ai = ao + int(m) * p.a_sm, bi = bo + int(n) * p.b_sn;
    float sum = 0.0;
    for (uint k = 0u; k < p.K; k++) {
        sum += ORTVK_GET(A, ai) * ORTVK_GET(B, bi);
        ai += p.a_sk;
        bi += p.b_sk;
    }
    if (p.alpha != 1.0) sum = p.alpha * sum;
    if (p.c != uvec2(0u)) sum += p.beta * ORTVK_GET(Elems(p.c), int(m) * p.c_sm + int(n) * p.c_sn);
    ORTVK_SET(Elems(p.y), i, sum);
}
