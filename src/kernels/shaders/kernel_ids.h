/* Function and step ids that C (kernel_params.h) and the shaders (GLSL) share: the value specialization constant 0
 * (FN) takes for each element-wise function, and a fused chain step's kind. Only #defines, valid in both languages
 * (`0u` is unsigned in C and GLSL alike). */
#ifndef ORTVK_KERNEL_IDS_H
#define ORTVK_KERNEL_IDS_H

/* unary (shaders/kernel_unary.comp) */
#define ORTVK_UNARY_COPY 0u
#define ORTVK_UNARY_RELU 1u
#define ORTVK_UNARY_LEAKY_RELU 2u
#define ORTVK_UNARY_SIGMOID 3u
#define ORTVK_UNARY_HARD_SIGMOID 4u
#define ORTVK_UNARY_HARD_SWISH 5u
#define ORTVK_UNARY_TANH 6u
#define ORTVK_UNARY_EXP 7u
#define ORTVK_UNARY_LOG 8u
#define ORTVK_UNARY_ABS 9u
#define ORTVK_UNARY_NEG 10u
#define ORTVK_UNARY_SQRT 11u
#define ORTVK_UNARY_ERF 12u
#define ORTVK_UNARY_CLIP 13u
#define ORTVK_UNARY_RECIPROCAL 14u
#define ORTVK_UNARY_FLOOR 15u
#define ORTVK_UNARY_CEIL 16u
#define ORTVK_UNARY_ELU 17u
#define ORTVK_UNARY_SOFTPLUS 18u
#define ORTVK_UNARY_SELU 19u
#define ORTVK_UNARY_SIGN 20u
#define ORTVK_UNARY_ROUND 21u
#define ORTVK_UNARY_SOFTSIGN 22u
#define ORTVK_UNARY_THRESHOLDED_RELU 23u
#define ORTVK_UNARY_CELU 24u
#define ORTVK_UNARY_SHRINK 25u
#define ORTVK_UNARY_DIVIDE 26u           /* v / alpha: the end of Mean */
#define ORTVK_UNARY_SIN 27u
#define ORTVK_UNARY_COS 28u
#define ORTVK_UNARY_TAN 29u
#define ORTVK_UNARY_TRIG 30u             /* alpha picks one of ORTVK_TRIG_* (FN stays below ORTVK_KVARIANT) */

/* ORTVK_UNARY_TRIG's alpha: the rarer trigonometric functions share one FN */
#define ORTVK_TRIG_ASIN 0u
#define ORTVK_TRIG_ACOS 1u
#define ORTVK_TRIG_ATAN 2u
#define ORTVK_TRIG_SINH 3u
#define ORTVK_TRIG_COSH 4u
#define ORTVK_TRIG_ASINH 5u
#define ORTVK_TRIG_ACOSH 6u
#define ORTVK_TRIG_ATANH 7u

/* binary (shaders/kernel_binary.comp) */
#define ORTVK_BINARY_ADD 0u
#define ORTVK_BINARY_SUB 1u
#define ORTVK_BINARY_MUL 2u
#define ORTVK_BINARY_DIV 3u
#define ORTVK_BINARY_POW 4u
#define ORTVK_BINARY_PRELU 5u
#define ORTVK_BINARY_MAX 6u
#define ORTVK_BINARY_MIN 7u

/* comparisons to bool and logic on bool (shaders/kernel_compare.comp) */
#define ORTVK_COMPARE_EQUAL 0u
#define ORTVK_COMPARE_GREATER 1u
#define ORTVK_COMPARE_LESS 2u
#define ORTVK_COMPARE_GREATER_EQUAL 3u
#define ORTVK_COMPARE_LESS_EQUAL 4u
#define ORTVK_LOGIC_AND 5u
#define ORTVK_LOGIC_OR 6u
#define ORTVK_LOGIC_XOR 7u
#define ORTVK_LOGIC_NOT 8u
#define ORTVK_COMPARE_INT32 16u          /* added to a comparison: its operands are int32 */
#define ORTVK_COMPARE_INT64 24u          /* added instead: int64 operands (two 32-bit words); FN < ORTVK_KVARIANT */

/* a fused chain's step kinds (shaders/common.glsl's ortvk_chain4): t = x, then each step on t */
#define ORTVK_CHAIN_ADD 0u               /* t + a */
#define ORTVK_CHAIN_SUB 1u               /* t - a */
#define ORTVK_CHAIN_RSUB 2u              /* a - t */
#define ORTVK_CHAIN_MUL 3u               /* t * a */
#define ORTVK_CHAIN_DIV 4u               /* t / a */
#define ORTVK_CHAIN_RDIV 5u              /* a / t */
#define ORTVK_CHAIN_CLIP 6u              /* t clamped to [a, b], NaN kept */
#define ORTVK_CHAIN_RELU 7u
#define ORTVK_CHAIN_ADD_X 8u             /* t + x */
#define ORTVK_CHAIN_MUL_X 9u             /* t * x */
#define ORTVK_CHAIN_MARK 10u             /* x = t: later ADD_X and MUL_X steps use this value (read twice) */
#define ORTVK_CHAIN_SIGMOID 16u          /* activations, each as its unary op computes it */
#define ORTVK_CHAIN_HARD_SIGMOID 17u     /* max(0, min(1, a t + b)), NaN kept */
#define ORTVK_CHAIN_HARD_SWISH 18u
#define ORTVK_CHAIN_LEAKY_RELU 19u       /* t < 0 ? t a : t */
#define ORTVK_CHAIN_TANH 20u
#define ORTVK_CHAIN_KIND_BITS 5u         /* a step's kind in the specialization words: 6 steps a word */
#define ORTVK_CHAIN_ADD_R 11u            /* t + r: r the residual, of the output's shape, at t's index */
#define ORTVK_CHAIN_MUL_R 12u            /* t * r */
#define ORTVK_CHAIN_ADD_Q 13u            /* t + q: q the chain kernel's second operand, broadcast into the output */
#define ORTVK_CHAIN_MUL_Q 14u            /* t * q */
#define ORTVK_CHAIN_ADD_C 21u            /* t + a[c], c the channel: a ConvTranspose's epilogue only (per-channel */
#define ORTVK_CHAIN_MUL_C 22u            /* t * a[c]      operands after the step floats: common.glsl's */
#define ORTVK_CHAIN_BN_C 23u             /* BatchNormalization's t s[c] + b[c]     ORTVK_CHAIN_CHANNEL) */
#define ORTVK_CHAIN_SQUARE 24u           /* t * t: Pow with a constant exponent of 2 */
#define ORTVK_CHAIN_SQRT 25u             /* sqrt(t), NaN below 0: as the unary Sqrt */
#define ORTVK_CHAIN_RESIDUAL 0x80000000u /* in the kinds' second word: the chain has ADD_R or MUL_R steps */
#define ORTVK_CHAIN_SECOND 0x40000000u   /* ... and ADD_Q or MUL_Q steps (the stand-alone chain kernel only) */

/* a small multilayer perceptron in one workgroup (shaders/kernel_mlp.comp, kernel_mlp.c) */
#define ORTVK_MLP_LAYERS 5u              /* Gemm or MatMul layers, and a last chain of their result */
#define ORTVK_MLP_VALUES 1024u           /* elements of a layer's result kept for the next (shared memory) */
#define ORTVK_MLP_HEADER 28u             /* floats before a layer's weights: its chain's a, b (12 each), alpha, beta */
#define ORTVK_MLP_GEMM 0x100u            /* in a layer's count word: a product (else its input's chain only) */
#define ORTVK_MLP_TRANS_B 0x200u         /* ... its weights as [N, K] */
#define ORTVK_MLP_BIAS 0x400u            /* ... a bias of N values after its weights */
#define ORTVK_MLP_SWAPPED 0x800u         /* the last chain's: x is its input, the result before it its residual */
#define ORTVK_MLP_VEC4 1u                /* FN: 4 outputs an invocation, vec4 texels of the weights */

/* recurrent cells (shaders/kernel_rnn.comp): FN, and the RNN's activation */
#define ORTVK_RNN_LSTM 0u
#define ORTVK_RNN_GRU 1u
#define ORTVK_RNN_RNN 2u
#define ORTVK_RNN_TANH 0u
#define ORTVK_RNN_RELU 1u
#define ORTVK_RNN_SIGMOID 2u
#define ORTVK_RNN_VEC4 1u      /* the step's variant (constant 1): R read a vec4 at a time, H a multiple of 4 */
#define ORTVK_RNN_PROJECT 128u /* its flag: a single time step projects its own input, I a multiple of 4 */

/* the strided copy (shaders/kernel_copy.comp, kernel_layout.c) */
#define ORTVK_COPY_RUN 8u                /* elements (or tiles) along the last dim an invocation copies (FN 0) */
#define ORTVK_COPY_SINGLE 1u             /* FN: one an invocation, neighbours next to each other (GPUs) */
#define ORTVK_COPY_TILES 16u             /* `words` of a transpose in 4 x 4 tiles of 32-bit elements */

#endif
