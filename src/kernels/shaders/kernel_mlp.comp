// A small multilayer perceptron in one workgroup (kernel_mlp.c): layers of y = chain(alpha x W + beta bias), each
// Gemm's or MatMul's own sums in k order and its fused chain, each layer's result kept in shared memory for the next,
// then a last chain (the model's residual x + f(x) and activation) where there is one. One dispatch where each layer
// was one: on small models a dispatch costs far more than its arithmetic (docs/benchmarks.md, run V).
#version 460
#include "common.glsl"

layout(push_constant) uniform Push {
    uvec2 x;  // the first layer's input [M, K0]; also the last chain's residual r, or its input (SWAPPED)
    uvec2 w;  // each layer in turn: ORTVK_MLP_HEADER floats, its weights, its bias (kernel_mlp.c)
    uvec2 y;  // the last layer's result [M, N]
    uint M, layers;
    uint dims[ORTVK_MLP_LAYERS + 1u];   // K0, then each layer's N
    uint steps[3u * ORTVK_MLP_LAYERS];  // each layer's chain: kinds (two words, ortvk_kchain_spec), count | flags
} p;

shared float values[2][ORTVK_MLP_VALUES];

layout(constant_id = 0) const uint FN = 0u; // ORTVK_MLP_VEC4: the vec4 form (kernel_mlp.c says where it holds)

float layer_input(uint l, uint i)
{
    return l == 0u ? ORTVK_GET(0, p.x, i) : values[(l + 1u) & 1u][i];
}

// Elements i..i+3 of layer l's input (i a multiple of 4; the first layer's x 16-byte aligned).
vec4 layer_input4(uint l, uint i)
{
    if (l == 0u) return ORTVK_GET4(0, p.x, i);
    uint b = (l + 1u) & 1u;
    return vec4(values[b][i], values[b][i + 1u], values[b][i + 2u], values[b][i + 3u]);
}

// Outputs o..o+3 of layer l (of the same row: N a multiple of 4) before alpha and the bias, each summed over k in
// order as the scalar form sums it: weights [K, N] read as vec4s along n, or [N, K] (TRANS_B, K a multiple of 4) as
// vec4s along k, one row of W an output. The weights are texels of operand 1.
vec4 layer_sums4(uint l, uint weights, uint K, uint N, uint o, bool trans_b)
{
    uint m = o / N, n = o - m * N;
    vec4 sum = vec4(0.0);
    if (!trans_b) {
        [[dont_unroll]] for (uint k = 0u; k < K; k++)
            sum += layer_input(l, m * K + k) * ORTVK_TEXEL4(1, p.w, weights + k * N + n);
        return sum;
    }
    [[dont_unroll]] for (uint k = 0u; k < K; k += 4u) {
        vec4 a = layer_input4(l, m * K + k);
        [[unroll]] for (uint c = 0u; c < 4u; c++) {
            vec4 w = ORTVK_TEXEL4(1, p.w, weights + (n + c) * K + k);
            sum[c] += a.x * w.x;
            sum[c] += a.y * w.y;
            sum[c] += a.z * w.z;
            sum[c] += a.w * w.w;
        }
    }
    return sum;
}

void main_vec4()
{
    uint lane = gl_LocalInvocationID.x, at = 0u;
    [[dont_unroll]] for (uint l = 0u; l < p.layers; l++) {
        uint K = p.dims[l], N = p.dims[l + 1u], info = p.steps[3u * l + 2u], count = info & 0xffu;
        uint kinds0 = p.steps[3u * l], kinds1 = p.steps[3u * l + 1u];
        bool gemm = (info & ORTVK_MLP_GEMM) != 0u, bias = (info & ORTVK_MLP_BIAS) != 0u, last = l + 1u == p.layers;
        float alpha = ORTVK_FLOAT(1, p.w, at + 24u), beta = ORTVK_FLOAT(1, p.w, at + 25u);
        uint weights = at + ORTVK_MLP_HEADER;
        [[dont_unroll]] for (uint o = 4u * lane; o < p.M * N; o += 256u) {
            vec4 t;
            if (gemm) {
                t = layer_sums4(l, weights, K, N, o, (info & ORTVK_MLP_TRANS_B) != 0u);
                if (alpha != 1.0) t = alpha * t;
                if (bias) t += beta * ORTVK_TEXEL4(1, p.w, weights + K * N + o % N);
            } else {
                t = layer_input4(l, o);
            }
            bool residual = (kinds1 & ORTVK_CHAIN_RESIDUAL) != 0u, swapped = (info & ORTVK_MLP_SWAPPED) != 0u;
            vec4 r = residual ? (swapped ? t : ORTVK_GET4(0, p.x, o)) : vec4(0.0);
            if (swapped) t = ORTVK_GET4(0, p.x, o);
            vec4 v = t, kept = t;
            [[dont_unroll]] for (uint k = 0u; k < count; k++) {
                v = ortvk_chain_step4(ortvk_chain_kind_of(kinds0, kinds1, k), v, kept, r, vec4(0.0),
                                      ORTVK_FLOAT(1, p.w, at + k), ORTVK_FLOAT(1, p.w, at + 12u + k));
            }
            if (last) {
                ORTVK_SET4(2, p.y, o, v);
            } else {
                uint b = l & 1u;
                values[b][o] = v.x, values[b][o + 1u] = v.y, values[b][o + 2u] = v.z, values[b][o + 3u] = v.w;
            }
        }
        at = weights + (gemm ? K * N + (bias ? N : 0u) : 0u);
        memoryBarrierShared();
        barrier();
    }
}

void main()
{
    if (FN == ORTVK_MLP_VEC4) {
        main_vec4();
        return;
    }
    uint lane = gl_LocalInvocationID.x, at = 0u;
    [[dont_unroll]] for (uint l = 0u; l < p.layers; l++) {
        uint K = p.dims[l], N = p.dims[l + 1u], info = p.steps[3u * l + 2u], count = info & 0xffu;
        uint kinds0 = p.steps[3u * l], kinds1 = p.steps[3u * l + 1u];
        bool gemm = (info & ORTVK_MLP_GEMM) != 0u, trans_b = (info & ORTVK_MLP_TRANS_B) != 0u;
        bool bias = (info & ORTVK_MLP_BIAS) != 0u, last = l + 1u == p.layers;
        float alpha = ORTVK_FLOAT(1, p.w, at + 24u), beta = ORTVK_FLOAT(1, p.w, at + 25u);
        uint weights = at + ORTVK_MLP_HEADER;
        [[dont_unroll]] for (uint o = lane; o < p.M * N; o += 64u) {
            uint m = o / N, n = o % N;
            float t;
            if (gemm) {
                float sum = 0.0;
                [[dont_unroll]] for (uint k = 0u; k < K; k++)
                    sum += layer_input(l, m * K + k) * ORTVK_FLOAT(1, p.w, weights + (trans_b ? n * K + k : k * N + n));
                // As the GEMM shader (kernel_gemm.comp) finishes a sum.
                if (alpha != 1.0) sum = alpha * sum;
                if (bias) sum += beta * ORTVK_FLOAT(1, p.w, weights + K * N + n);
                t = sum;
            } else {
                t = layer_input(l, o);
            }
            // Only the last chain reads a residual, and then x has the result's shape (kernel_mlp.c): x, or the
            // result before it when the chain starts at x (ORTVK_MLP_SWAPPED).
            bool residual = (kinds1 & ORTVK_CHAIN_RESIDUAL) != 0u, swapped = (info & ORTVK_MLP_SWAPPED) != 0u;
            float r = residual ? (swapped ? t : ORTVK_GET(0, p.x, o)) : 0.0;
            if (swapped) t = ORTVK_GET(0, p.x, o);
            vec4 v = vec4(t), kept = v;
            [[dont_unroll]] for (uint k = 0u; k < count; k++) {
                v = ortvk_chain_step4(ortvk_chain_kind_of(kinds0, kinds1, k), v, kept, vec4(r), vec4(0.0), ORTVK_FLOAT(1, p.w, at + k),
                                      ORTVK_FLOAT(1, p.w, at + 12u + k));
            }
            if (last) ORTVK_SET(2, p.y, o, v.x);
            else values[l & 1u][o] = v.x;
        }
        at = weights + (gemm ? K * N + (bias ? N : 0u) : 0u);
        memoryBarrierShared();
        barrier();
    }
}
