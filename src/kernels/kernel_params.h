/* Private to src/kernels. The limits every op works within and each op family's parameters, compiled from a node
 * at Compile (its attributes and constant inputs) and read when the op records a run: the functions of the
 * element-wise shaders, a fused chain's steps, and one struct per family in the union ortvk_kparams. */
#ifndef ORTVK_KERNEL_PARAMS_H
#define ORTVK_KERNEL_PARAMS_H

#include <stdbool.h>
#include <stdint.h>

#include "kernels/shaders/kernel_ids.h"
#include "ort/ort_tensor.h"

#define ORTVK_KMAX_RANK 8     /* tensors of higher rank are left to the CPU EP */
#define ORTVK_KMAX_INPUTS 32  /* Concat's inputs included */
#define ORTVK_KMAX_OUTPUTS 8  /* Split's outputs included */
#define ORTVK_KMAX_ATTRS 24
#define ORTVK_KMAX_SHADER_RANK 6 /* dims a strided shader takes after coalescing (push constants are 128 bytes) */

/* Function ids and chain step kinds: the values ORTVK_UNARY_x, ORTVK_TRIG_x, ORTVK_BINARY_x, ORTVK_COMPARE_x,
 * ORTVK_LOGIC_x and ORTVK_CHAIN_x of shaders/kernel_ids.h, which the shaders include too. */
typedef uint32_t ortvk_unary_fn;
typedef uint32_t ortvk_binary_fn;
typedef uint32_t ortvk_compare_fn;
typedef uint32_t ortvk_chain_kind;

typedef struct ortvk_kparams_unary {
    ortvk_unary_fn fn;
    float alpha, beta, gamma;
} ortvk_kparams_unary;

typedef struct ortvk_kparams_binary {
    ortvk_binary_fn fn;
    bool variadic;        /* Max, Min, Sum, Mean: 1 or more inputs */
    bool mean;            /* Mean: the sum divided by the input count */
    ortvk_compare_fn compare; /* comparisons and logic (their own ops) */
} ortvk_kparams_binary;

#define ORTVK_KMAX_CHAIN 12

typedef struct ortvk_chain_step {
    ortvk_chain_kind kind;
    float a, b;
} ortvk_chain_step;

typedef struct ortvk_kparams_chain {
    int count;
    ortvk_chain_step steps[ORTVK_KMAX_CHAIN];
    int residual; /* the kernel's input its ADD_R and MUL_R steps read (a tensor of the output's shape), 0: none */
    int second;   /* the stand-alone chain kernel's: the input its ADD_Q and MUL_Q steps read, 0: none (its residual
                     and second operand, and x, broadcast into the output's shape: kernel_chain.c) */
} ortvk_kparams_chain;

/* Conv and ConvTranspose, 1-D and 2-D (1-D runs as H = 1). */
typedef struct ortvk_kparams_conv {
    int spatial;          /* 1 or 2 */
    int64_t group;
    int64_t kernel[2];    /* from kernel_shape, or 0: from the weights */
    int64_t strides[2], dilations[2];
    int64_t pads[4];      /* begin..., end... */
    int auto_pad;         /* ORTVK_AUTO_PAD_* */
    int64_t output_padding[2];
    int64_t output_shape[2]; /* ConvTranspose only; 0 when not given */
    bool has_output_shape;
    ortvk_kparams_chain epilogue; /* Conv: element-wise steps fused after it at Compile (kernel_fuse.c) */
} ortvk_kparams_conv;

enum { ORTVK_AUTO_PAD_NOTSET, ORTVK_AUTO_PAD_VALID, ORTVK_AUTO_PAD_SAME_UPPER, ORTVK_AUTO_PAD_SAME_LOWER };

typedef struct ortvk_kparams_pool {
    int kind;             /* ORTVK_POOL_* */
    int spatial;          /* 1..3 */
    int64_t kernel[3], strides[3], dilations[3];
    int64_t pads[6];
    int auto_pad;
    bool ceil_mode, count_include_pad;
    bool global;
    bool own_loops;       /* the CPU EP's own loops, not MLAS's: MaxPool's dilations/storage_order, AveragePool-19 */
} ortvk_kparams_pool;

enum { ORTVK_POOL_MAX, ORTVK_POOL_AVERAGE };

typedef struct ortvk_kparams_batchnorm {
    float epsilon;
} ortvk_kparams_batchnorm;

typedef struct ortvk_kparams_resize {
    int mode;             /* ORTVK_RESIZE_NEAREST / LINEAR / CUBIC */
    float cubic_a;        /* cubic: cubic_coeff_a */
    bool exclude_outside; /* cubic: taps outside the input weigh 0, the others renormalised */
    int coordinate;       /* ORTVK_COORD_* */
    int nearest;          /* ORTVK_NEAREST_* */
    bool has_scales;      /* else sizes */
    bool runtime;         /* scales or sizes known on the host in the run (inputs 2 and 3), not constant */
    bool upsample;        /* Upsample: scales below 1 are invalid */
    int rank;
    float scales[ORTVK_KMAX_RANK];
    int64_t sizes[ORTVK_KMAX_RANK];
} ortvk_kparams_resize;

enum { ORTVK_RESIZE_NEAREST, ORTVK_RESIZE_LINEAR, ORTVK_RESIZE_CUBIC };
enum {
    ORTVK_COORD_HALF_PIXEL,
    ORTVK_COORD_ASYMMETRIC,
    ORTVK_COORD_ALIGN_CORNERS,
    ORTVK_COORD_PYTORCH_HALF_PIXEL,
    ORTVK_COORD_TF_HALF_PIXEL_FOR_NN,
};
enum {
    ORTVK_NEAREST_ROUND_PREFER_FLOOR,
    ORTVK_NEAREST_ROUND_PREFER_CEIL,
    ORTVK_NEAREST_FLOOR,
    ORTVK_NEAREST_CEIL,
    ORTVK_NEAREST_SIMPLE, /* Resize-10 and Upsample: truncate, or ceil when downsampling (ORT's CPU EP) */
};

/* Reshape, Flatten, Squeeze, Unsqueeze: a copy under a new shape (Expand keeps its target shape here too). */
typedef struct ortvk_kparams_reshape {
    int kind;             /* ORTVK_RESHAPE_* */
    int64_t shape[ORTVK_KMAX_RANK]; /* Reshape: the constant shape; Squeeze/Unsqueeze: axes */
    int count;            /* entries of shape, -1 when absent */
    bool allowzero;
    int64_t axis;         /* Flatten */
} ortvk_kparams_reshape;

enum { ORTVK_RESHAPE_RESHAPE, ORTVK_RESHAPE_FLATTEN, ORTVK_RESHAPE_SQUEEZE, ORTVK_RESHAPE_UNSQUEEZE };

typedef struct ortvk_kparams_transpose {
    int64_t perm[ORTVK_KMAX_RANK];
    int count;            /* -1: reverse the dims */
} ortvk_kparams_transpose;

typedef struct ortvk_kparams_concat {
    int64_t axis;
} ortvk_kparams_concat;

typedef struct ortvk_kparams_slice {
    int count;            /* entries in starts/ends/axes/steps */
    int64_t starts[ORTVK_KMAX_RANK], ends[ORTVK_KMAX_RANK], axes[ORTVK_KMAX_RANK], steps[ORTVK_KMAX_RANK];
} ortvk_kparams_slice;

typedef struct ortvk_kparams_split {
    int64_t axis;
    int64_t split[ORTVK_KMAX_OUTPUTS];
    int count;            /* -1: equal parts */
    bool num_outputs;     /* opset 18's num_outputs attribute: the last part may be smaller */
} ortvk_kparams_split;

typedef struct ortvk_kparams_gemm {
    bool matmul;          /* MatMul rather than Gemm */
    bool trans_a, trans_b;
    float alpha, beta;
    int64_t a_dims[2];    /* A's dims where A is 2-D and both are known at Compile, else -1 (kernel_mlp.c) */
    ortvk_kparams_chain epilogue; /* element-wise steps fused after it at Compile (kernel_fuse.c) */
} ortvk_kparams_gemm;

/* Gemm and MatMul layers of a small multilayer perceptron fused into one dispatch, and the chain after the last
 * (kernel_mlp.c): the first layer's input is [M, dims[0]], layer l's result [M, dims[l + 1]]. */
typedef struct ortvk_kparams_mlp {
    int64_t M;
    uint32_t layers;
    uint32_t dims[ORTVK_MLP_LAYERS + 1];
    uint32_t steps[3 * ORTVK_MLP_LAYERS]; /* each layer's chain (ortvk_kchain_spec) and ORTVK_MLP_* flags */
    bool vec4;                            /* every N a multiple of 4, and K where W is [N, K]: the vec4 form */
    double flops;                         /* the profile's: 2 M K N summed over the layers */
} ortvk_kparams_mlp;

typedef struct ortvk_kparams_softmax {
    int64_t axis;
    bool coerce_2d;       /* opset < 13: flatten at axis */
    bool log;             /* LogSoftmax */
} ortvk_kparams_softmax;

typedef struct ortvk_kparams_reduce {
    int fn;               /* ORTVK_REDUCE_* */
    int64_t axes[ORTVK_KMAX_RANK];
    int count;            /* -1: all axes (or none, with noop_with_empty_axes) */
    bool keepdims, noop_empty;
} ortvk_kparams_reduce;

enum {
    ORTVK_REDUCE_SUM,
    ORTVK_REDUCE_MEAN,
    ORTVK_REDUCE_MAX,
    ORTVK_REDUCE_MIN,
    ORTVK_REDUCE_L1,
    ORTVK_REDUCE_L2,
    ORTVK_REDUCE_SUM_SQUARE,
    ORTVK_REDUCE_LOG_SUM,
    ORTVK_REDUCE_LOG_SUM_EXP,
    ORTVK_REDUCE_PROD,
};

/* ArgMax and ArgMin (kernel_arg.c). */
typedef struct ortvk_kparams_arg {
    int64_t axis;         /* may be negative */
    bool keepdims;        /* the attribute == 1, as ORT's CPU EP reads it */
    bool last;            /* select_last_index != 0, as ORT's CPU EP reads it */
    bool min;             /* ArgMin */
} ortvk_kparams_arg;

typedef struct ortvk_kparams_pad {
    int mode;             /* ORTVK_PAD_* */
    int64_t pads[2 * ORTVK_KMAX_RANK];
    int count;
    float value;
} ortvk_kparams_pad;

enum { ORTVK_PAD_CONSTANT, ORTVK_PAD_REFLECT, ORTVK_PAD_EDGE };

/* Gather with constant indices: one strided copy per index. */
#define ORTVK_KMAX_GATHER 64
typedef struct ortvk_kparams_gather {
    int64_t axis;
    int64_t indices[ORTVK_KMAX_GATHER];
    size_t count;
    bool at_run;          /* the indices are input 1's host values in the run (not constant, or more than 64) */
    int rank;             /* of the indices */
    int64_t dims[ORTVK_KMAX_RANK];
} ortvk_kparams_gather;

/* DepthToSpace and SpaceToDepth. */
typedef struct ortvk_kparams_depth_space {
    int64_t blocksize;
    bool to_depth;        /* SpaceToDepth */
    bool crd;             /* DepthToSpace mode CRD (else DCR) */
} ortvk_kparams_depth_space;

/* InstanceNormalization and LayerNormalization. */
typedef struct ortvk_kparams_norm {
    bool layer;           /* LayerNormalization (else InstanceNormalization) */
    int64_t axis;         /* LayerNormalization: the first normalized dim (may be negative) */
    float epsilon;
} ortvk_kparams_norm;

typedef struct ortvk_kparams_cast {
    ONNXTensorElementDataType to;
} ortvk_kparams_cast;

/* Ops evaluated on the host (kernel_shape_ops.c). */
typedef struct ortvk_kparams_shape {
    int op;                         /* the op, an index into kernel_shape_ops.c's list */
    int64_t axis;                   /* Gather, Concat; Shape's start */
    int64_t end;                    /* Shape's end */
    bool has_end;
    int64_t axes[ORTVK_KMAX_RANK];  /* Squeeze/Unsqueeze before opset 13 */
    int count;                      /* entries of axes, -1 when absent (then input 1 or none) */
    ONNXTensorElementDataType to;   /* Cast's target; ConstantOfShape's value type */
    uint8_t value[8];               /* ConstantOfShape's value */
    ortvk_kparams_slice slice;      /* Slice-1's attributes */
} ortvk_kparams_shape;

/* LSTM, GRU and RNN (kernel_rnn.c). */
typedef struct ortvk_kparams_rnn {
    uint32_t cell;            /* ORTVK_RNN_LSTM, _GRU or _RNN (shaders/kernel_ids.h) */
    int64_t hidden;           /* hidden_size */
    int directions;           /* 1, or 2 for bidirectional */
    bool reverse;             /* direction "reverse" (one direction, run backwards) */
    bool linear_before_reset; /* GRU */
    uint32_t activation;      /* RNN: ORTVK_RNN_TANH, _RELU or _SIGMOID */
} ortvk_kparams_rnn;
/* The quantized ops (kernel_quant.c, kernel_qmm.c): QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear,
 * MatMulInteger, QLinearMatMul, ConvInteger, QLinearConv. */
typedef struct ortvk_kparams_quant {
    int64_t axis;                 /* Quantize/DequantizeLinear: the axis of per-axis scales (may be negative) */
    ONNXTensorElementDataType out; /* the output's element type */
    ortvk_kparams_conv conv;      /* ConvInteger's and QLinearConv's geometry (its epilogue unused) */
    size_t weights;               /* the products' and convolutions' input of B or w (1 or 3), which Compile may
                                     repack where it is a constant (ortvk_kqmm_conv_pack, ortvk_kqmm_matmul_pack) */
} ortvk_kparams_quant;

/* `count` of a param list whose values come from an input at run time (host values, ortvk_krun_host_ints). */
#define ORTVK_KRUNTIME (-2)

typedef union ortvk_kparams {
    ortvk_kparams_shape shape;
    ortvk_kparams_unary unary;
    ortvk_kparams_chain chain;
    ortvk_kparams_binary binary;
    ortvk_kparams_conv conv;
    ortvk_kparams_pool pool;
    ortvk_kparams_batchnorm batchnorm;
    ortvk_kparams_resize resize;
    ortvk_kparams_reshape reshape;
    ortvk_kparams_transpose transpose;
    ortvk_kparams_concat concat;
    ortvk_kparams_slice slice;
    ortvk_kparams_split split;
    ortvk_kparams_gemm gemm;
    ortvk_kparams_mlp mlp;
    ortvk_kparams_softmax softmax;
    ortvk_kparams_reduce reduce;
    ortvk_kparams_arg arg;
    ortvk_kparams_pad pad;
    ortvk_kparams_cast cast;
    ortvk_kparams_depth_space depth_space;
    ortvk_kparams_gather gather;
    ortvk_kparams_norm norm;
    ortvk_kparams_rnn rnn;
    ortvk_kparams_quant quant;
} ortvk_kparams;

#endif
