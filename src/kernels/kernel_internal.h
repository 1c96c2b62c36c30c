/* Private to src/kernels. What every op implementation shares: the graph-time view of a node (types, shapes,
 * attributes, constant inputs), the run-time view of one Compute (tensors with device addresses, the command
 * buffer), and the helpers that record dispatches, copies and barriers; each op's parameters are kernel_params.h's. */
#ifndef ORTVK_KERNEL_INTERNAL_H
#define ORTVK_KERNEL_INTERNAL_H

#include <stdio.h>
#include <stdlib.h>

#include "kernels/kernel_params.h"
#include "kernels/kernels.h"
#include "ort/ort_status.h"
#include "ort/ort_tensor.h"

/* ---- graph time ---------------------------------------------------------------------------------------- */

typedef struct ortvk_kvalue {
    bool present;                   /* false for an omitted optional input ("") */
    const char *name;
    ONNXTensorElementDataType type; /* UNDEFINED when not a tensor */
    int rank;                       /* -1 when unknown */
    int64_t dims[ORTVK_KMAX_RANK];  /* -1 for a symbolic dimension */
    const OrtValue *constant;       /* a constant initializer's value (host memory), or NULL */
    const OrtValueInfo *info;       /* ORT's, valid while its graph is; NULL for an omitted input */
} ortvk_kvalue;

typedef struct ortvk_kattr {
    const char *name;
    const OrtOpAttr *attr;
    OrtOpAttrType type;
} ortvk_kattr;

typedef struct ortvk_knode {
    const OrtNode *node;
    const char *op_type, *domain, *name;
    int opset; /* since-version of the node's schema */
    bool compiling;      /* Compile's reading, of the fused node's graph, whose values' producers ORT does not give */
    uint32_t host_known; /* at Compile, bit i: input i is known on the host in the partition (a constant, a value
                            an earlier host-evaluated node makes, or an integer input of the fused node) */
    size_t n_in, n_out, n_attrs;
    ortvk_kvalue in[ORTVK_KMAX_INPUTS];
    ortvk_kvalue out[ORTVK_KMAX_OUTPUTS];
    ortvk_kattr attrs[ORTVK_KMAX_ATTRS];
} ortvk_knode;

/* Reads what ORT says about `node`. Fails (with `why`) when the node exceeds the limits above. */
bool ortvk_knode_read(const OrtNode *node, ortvk_knode *out, char *why, size_t why_len);
/* Reads one value's name, type, shape and constant (a NULL `info`: an omitted input). */
bool ortvk_kvalue_read(const OrtValueInfo *info, ortvk_kvalue *v, char *why, size_t why_len);

/* Attributes: false when present with another type (the caller refuses the node); absent gives the default. */
bool ortvk_knode_int(const ortvk_knode *node, const char *name, int64_t fallback, int64_t *out);
bool ortvk_knode_float(const ortvk_knode *node, const char *name, float fallback, float *out);
/* `out` gets at most `max` values; *count = -1 when absent; false when there are more than `max`. */
bool ortvk_knode_ints(const ortvk_knode *node, const char *name, int64_t *out, size_t max, int *count);
bool ortvk_knode_floats(const ortvk_knode *node, const char *name, float *out, size_t max, int *count);
/* *out = "" when absent. */
bool ortvk_knode_string(const ortvk_knode *node, const char *name, char *out, size_t max);
/* auto_pad as ORTVK_AUTO_PAD_* (absent or empty: NOTSET); false for another string. */
bool ortvk_knode_auto_pad(const ortvk_knode *node, int *out);
bool ortvk_knode_has(const ortvk_knode *node, const char *name);
/* A boolean-like integer attribute (keepdims, ceil_mode, transA, ...): false when present with another type or with a
 * value other than 0 and 1. ORT's CPU EP reads some of these as "== 1" and others as "!= 0", so such values are
 * refused, which leaves the node to the CPU EP and the model with the CPU EP's answer. */
static inline bool ortvk_knode_bool(const ortvk_knode *node, const char *name, bool fallback, bool *out)
{
    int64_t v = fallback ? 1 : 0;
    if (!ortvk_knode_int(node, name, v, &v) || (v != 0 && v != 1)) return false;
    *out = v == 1;
    return true;
}

/* A constant input's values: int64/int32 tensors as int64, float and float16 tensors as float. False when it is not a
 * constant initializer of a fitting type or has more than `max` elements. */
bool ortvk_knode_const_ints(const ortvk_knode *node, size_t input, int64_t *out, size_t max, size_t *count);
bool ortvk_knode_const_floats(const ortvk_knode *node, size_t input, float *out, size_t max, size_t *count);
/* A constant uint8 or int8 input's bytes, as ORT holds them while it asks about the node (not kept after). */
bool ortvk_knode_const_bytes(const ortvk_knode *node, size_t input, const uint8_t **out, size_t *count);
/* The float16 bit pattern `h` as a float (exact: every float16 value is a float). */
float ortvk_khalf_to_float(uint16_t h);
/* Whether constant input `input` (float or float16) holds a NaN or an infinity; false when it is not a constant. */
bool ortvk_knode_const_nonfinite(const ortvk_knode *node, size_t input);

/* The float element types the kernels compute: float32, and float16 (stored as 16 bits, computed in float32 and
 * rounded once per stored result) on devices with 16-bit storage. Every float tensor a node's device reads or
 * writes has the same one of the two, except Cast's (kernels.c checks this for every op). */
static inline bool ortvk_kfloat(ONNXTensorElementDataType type)
{
    return type == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT || type == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16;
}
/* A present input or output of a float type. */
static inline bool ortvk_kvalue_float(const ortvk_kvalue *v)
{
    return v->present && ortvk_kfloat(v->type);
}

/* "why" formatting: returns false so a check can `return refuse(...)`. */
bool ortvk_krefuse(char *why, size_t why_len, const char *fmt, ...) ORTVK_PRINTF(3, 4);

/* ---- run time ------------------------------------------------------------------------------------------- */

typedef struct ortvk_ktensor {
    bool present;
    ONNXTensorElementDataType type;
    size_t rank;
    int64_t dims[ORTVK_KMAX_RANK];
    size_t count;             /* elements */
    VkDeviceAddress address;  /* 0 when empty */
    ortvk_buffer *buffer;     /* what `address` resolves to */
    VkDeviceSize offset;
    bool packed;              /* a constant its op's packer rearranged at Compile (ortvk_kpack_fn; dims stay the
                                 original's, the buffer may hold more bytes) */
    const void *host;         /* the elements in host memory, in `type`, or NULL: shape values computed on the host
                                 (kernel_shape_ops.c), constants read on the host, inputs ORT gives in host memory */
} ortvk_ktensor;

/* Every shader (kernel_shaders.def, the one list of them). */
typedef enum ortvk_shader {
#define ORTVK_SHADER(id, name, operands, texels, texel_type) ORTVK_SHADER_##id,
#include "kernels/kernel_shaders.def"
#undef ORTVK_SHADER
    ORTVK_SHADER_COUNT
} ortvk_shader;

#define ORTVK_KMAX_SCRATCH 8
typedef struct ortvk_kheld ortvk_kheld;

typedef struct ortvk_krun {
    ortvk_kernel_device *kdev;
    ortvk_device *device;
    VkCommandBuffer cmd;
    size_t n_in, n_out;
    ortvk_ktensor in[ORTVK_KMAX_INPUTS];
    ortvk_ktensor out[ORTVK_KMAX_OUTPUTS];
    bool float16;             /* the node's float tensors are float16: dispatches use the shaders' float16 variant */
    ortvk_kheld *held;        /* references dropped once the GPU is done with the submission: the scratch buffers
                                 and the buffers of the tensors (ortvk_device_acquire) */
    size_t scratch_count;     /* scratch buffers of the node being recorded */
    bool recorded;            /* a command is recorded: the next one needs a barrier */
    void **host_blocks;       /* host memory of values computed on the host, freed when the run is recorded */
    size_t n_host_blocks, host_capacity;
    VkDeviceAddress chain;    /* the node's fused chain's step operands (ortvk_kchain_constants), or 0 */
    char pipelines[64];       /* the node's dispatches, "<shader>.<function>" each ("gemm.5"), for the profile */
    struct ortvk_kplan *plan; /* a planning pass (kernel_run.c): no command buffer, nothing recorded; dispatches
                                 add the pipelines they would bind to the plan */
} ortvk_krun;

/* lavapipe ends a shader's loops, silently, after about 65,535 iterations in one invocation (shaders/common.glsl):
 * a form whose loop count comes from the tensors is taken only below this many iterations. */
#define ORTVK_KMAX_LOOP 60000

/* Records a 1-D dispatch of `invocations` invocations (workgroups of 64, spread over x and y). The shader reads
 * its index with ortvk_index() (shaders/common.glsl). A barrier orders it after earlier commands of the run. */
OrtStatus *ortvk_krun_dispatch(ortvk_krun *run, ortvk_shader shader, const void *push, uint32_t push_size,
                               uint64_t invocations);
/* The same with specialization constant 0 of the shader set to `fn` (< ORTVK_KMAX_FN): a shader that picks its
 * function by it (unary, binary) gets a pipeline per function, without the others' code. Drivers that run every
 * side of a branch under a mask (lavapipe) would otherwise pay for all of them: Relu cost as much as Erf. */
#define ORTVK_KMAX_FN 288
/* fn / ORTVK_KVARIANT goes to specialization constant 1 instead (fn % ORTVK_KVARIANT to constant 0): a variant of
 * the shader, e.g. the element-wise ones' vectorised form. */
#define ORTVK_KVARIANT 32
OrtStatus *ortvk_krun_dispatch_fn(ortvk_krun *run, ortvk_shader shader, uint32_t fn, const void *push,
                                  uint32_t push_size, uint64_t invocations);
/* Further specialization constants, for what has too many forms for `fn` (the kinds of a fused chain's steps):
 * word i goes to constant 3 + i. A pipeline per distinct set is kept for the device's lifetime. */
#define ORTVK_KSPEC_WORDS 4 /* the chain's 3 (ortvk_kchain_spec), a shader's own constant 6 (the GEMM's K) */
typedef struct ortvk_kspec {
    uint32_t words[ORTVK_KSPEC_WORDS];
} ortvk_kspec;
/* The same as ortvk_krun_dispatch_fn with `spec` (NULL or all zeros: none). */
OrtStatus *ortvk_krun_dispatch_spec(ortvk_krun *run, ortvk_shader shader, uint32_t fn, const ortvk_kspec *spec,
                                    const void *push, uint32_t push_size, uint64_t invocations);

/* Whether an op over rows of `len` contiguous elements (a reduction, Softmax, a normalization) takes its GPU form,
 * one workgroup a row (its specialization constant 0 set to 1): where the device takes GPU forms and the rows are
 * long enough to give each of the 64 invocations some (docs/kernels.md, "Forms per device"). */
bool ortvk_krun_rows_form(const ortvk_krun *run, uint64_t len);
/* Whether a matrix product over K takes its GPU form, tiles through shared memory (shaders/tiles.glsl), and the
 * invocations of such a dispatch over `batches` M x N outputs (a workgroup a tile). */
bool ortvk_krun_tiles_form(const ortvk_krun *run, uint64_t K);
uint64_t ortvk_krun_tiles_invocations(uint64_t M, uint64_t N, uint64_t batches);
/* The slices of K such tiles sum in, each in workgroups of its own, where the tiles alone would leave most of a GPU
 * idle (few tiles over a long K: a deep layer's small maps), and *k_step, the k of each (a multiple of the tiles'
 * step); 1 (and K) where they make enough workgroups or K is short. */
uint32_t ortvk_krun_tiles_slices(uint64_t M, uint64_t N, uint64_t batches, uint64_t K, uint32_t *k_step);

/* Records a buffer copy of `bytes` from src to dst (device addresses of ortvk memory). */
OrtStatus *ortvk_krun_copy(ortvk_krun *run, VkDeviceAddress dst, VkDeviceAddress src, VkDeviceSize bytes);

/* ONNX auto_pad for one spatial dim of Conv, ConvTranspose's input side and pooling: *pb and *pe hold the explicit
 * pads and become 0 for VALID, or split the padding SAME_UPPER/SAME_LOWER need to make ceil(in / stride) outputs. */
static inline void ortvk_kauto_pad(int auto_pad, int64_t in, int64_t stride, int64_t dilated_kernel, int64_t *pb,
                                   int64_t *pe)
{
    if (auto_pad == ORTVK_AUTO_PAD_VALID) {
        *pb = *pe = 0;
    } else if (auto_pad == ORTVK_AUTO_PAD_SAME_UPPER || auto_pad == ORTVK_AUTO_PAD_SAME_LOWER) {
        int64_t target = (in + stride - 1) / stride;
        int64_t total = (target - 1) * stride + dilated_kernel - in;
        if (total < 0) total = 0;
        *pb = auto_pad == ORTVK_AUTO_PAD_SAME_UPPER ? total / 2 : total - total / 2;
        *pe = total - *pb;
    }
}

/* Push constants of ORTVK_SHADER_REDUCE (shaders/kernel_reduce.comp), used by the Reduce* ops and the global pools:
 * y[o, i] = fn over r of x[o, r, i] on an (outer, R, inner) view; fn: an ORTVK_REDUCE_* value. */
typedef struct ortvk_kpush_reduce {
    uint64_t x, y;
    uint32_t outer, R, inner, fn;
} ortvk_kpush_reduce;
/* Records the reduction in the device's form: one workgroup a row where ortvk_krun_rows_form says so for its
 * contiguous rows (inner = 1), a sum or mean of few long rows in parts, a workgroup a part, then their results;
 * else one invocation an output (kernel_math.c). */
OrtStatus *ortvk_kreduce_dispatch(ortvk_krun *run, const ortvk_kpush_reduce *push);

/* An op's shape function when the output has the input's type and shape (unary ops, Softmax). */
OrtStatus *ortvk_kshape_same(const ortvk_kparams *params, ortvk_krun *run);

/* Records a fill of `bytes` (a multiple of 4) at `dst` with the 32-bit pattern `word`. */
OrtStatus *ortvk_krun_fill(ortvk_krun *run, VkDeviceAddress dst, VkDeviceSize bytes, uint32_t word);

/* A device buffer holding a copy of host `data` (`bytes`, a multiple of 4), recorded into the run's command
 * buffer (no host wait): for tables computed per run. Released with the run's submission. */
OrtStatus *ortvk_krun_upload(ortvk_krun *run, const void *data, size_t bytes, VkDeviceAddress *address);

/* A scratch device buffer of `bytes` for intermediate results, released with the run's submission. */
OrtStatus *ortvk_krun_scratch(ortvk_krun *run, size_t bytes, VkDeviceAddress *address);

/* Host memory of `bytes` for a value computed on the host, valid until the run is recorded (zeroed). */
OrtStatus *ortvk_krun_host(ortvk_krun *run, size_t bytes, void **out);

/* ---- values computed on the host (kernel_shape_ops.c) ---------------------------------------------------- */

/* The most elements a value computed on the host may hold (shapes, indices, the few values derived from them). */
#define ORTVK_KHOST_MAX 65536
/* Whether input `input` of `node` is a small integer tensor whose values the run will know on the host: a constant,
 * or made from shapes and constants by nodes ortvk evaluates on the host (Shape, Gather, Concat, ...), or failing
 * both, any integer tensor of rank <= 1 that is not a constant (read on the host at run time, with a wait when it
 * is in device memory). For the device ops that take shapes, bounds, repeats or sizes at run time. */
bool ortvk_knode_host_ints(const ortvk_knode *node, size_t input);
/* Whether input `input` of `node` is an int32/int64 tensor of known rank and at most ORTVK_KHOST_MAX elements (when
 * its dims are known) whose values the run has on the host: a constant, a value made from shapes and constants on
 * the host, or a graph input (an application's indices: token ids). Not a value a device op makes. Gather's
 * indices. */
bool ortvk_knode_host_indices(const ortvk_knode *node, size_t input);
/* The same for a float, int32 or int64 input (Resize's scales), rank <= 1. */
bool ortvk_knode_host_numbers(const ortvk_knode *node, size_t input);
/* Input `input`'s values as int64 (from int32 or int64 host data); false when it has no host data, is not an
 * integer tensor or has more than `max` elements. */
bool ortvk_krun_host_ints(const ortvk_krun *run, size_t input, int64_t *out, size_t max, size_t *count);
/* The same as float (from float, float16, int32 or int64 host data). */
bool ortvk_krun_host_floats(const ortvk_krun *run, size_t input, float *out, size_t max, size_t *count);
/* Slice's first element, step and count per dim of x, as ORT's CPU EP computes them (kernel_dims.c). */
OrtStatus *ortvk_kslice_plan(const ortvk_kparams_slice *p, const ortvk_ktensor *x, int64_t *start, int64_t *step,
                             int64_t *len);
/* Slice's starts, ends, axes and steps from the host values of the run's inputs 1 to 4. */
OrtStatus *ortvk_krun_slice_params(const ortvk_krun *run, ortvk_kparams_slice *q);
/* The record function of every host-evaluated op: uploads the output's host values into its device buffer. */
OrtStatus *ortvk_kshape_upload(const ortvk_kparams *params, ortvk_krun *run);

/* Helpers for shapes. */
size_t ortvk_kcount(const int64_t *dims, size_t rank);
/* The bytes a tensor takes in its buffer: its elements', or a packed constant's (padding may make them more). */
VkDeviceSize ortvk_ktensor_bytes(const ortvk_ktensor *t);
/* Checked 64-bit arithmetic: every shape, size, stride and loop bound computed from a model's attributes or an
 * input's dims goes through these (or is bounded by values that did). False when the exact result does not fit an
 * int64_t; the caller refuses the node (GetCapability) or fails the run naming the op, the field and the value. */
static inline bool ortvk_kmul(int64_t a, int64_t b, int64_t *out)
{
    return !__builtin_mul_overflow(a, b, out);
}
static inline bool ortvk_kadd(int64_t a, int64_t b, int64_t *out)
{
    return !__builtin_add_overflow(a, b, out);
}
static inline bool ortvk_ksub(int64_t a, int64_t b, int64_t *out)
{
    return !__builtin_sub_overflow(a, b, out);
}
/* The element count of `dims`, false when a dim is negative or the count (or its bytes at `esize` bytes each)
 * overflows. */
bool ortvk_kcount_checked(const int64_t *dims, size_t rank, size_t esize, int64_t *out);
/* Multidirectional broadcast of a and b into out; false when incompatible. */
bool ortvk_kbroadcast(const int64_t *a, size_t ra, const int64_t *b, size_t rb, int64_t *out, size_t *rout);

/* A strided view for the shaders: dims of the iteration space and each operand's element stride per dim.
 * ortvk_kcoalesce merges dims that are contiguous for every operand and drops size-1 dims. */
typedef struct ortvk_kstrides {
    int rank;
    int64_t dims[ORTVK_KMAX_RANK];
    int64_t stride[4][ORTVK_KMAX_RANK]; /* up to 4 operands */
} ortvk_kstrides;

void ortvk_kcoalesce(ortvk_kstrides *s, int operands);
/* Axis `a` of a rank-`r` tensor, negative counting from the end; false when out of [-r, r). */
bool ortvk_kaxis(int64_t a, size_t r, int64_t *out);
/* Row-major strides of `dims`, with 0 where a dim is broadcast into `out_dims` (dims aligned to the right). */
void ortvk_kbroadcast_strides(const int64_t *dims, size_t rank, size_t out_rank, const int64_t *out_dims,
                              int64_t *strides);

/* ---- ops ------------------------------------------------------------------------------------------------ */

typedef struct ortvk_kop {
    const char *op_type;
    int min_opset, max_opset; /* schema versions this implementation follows */
    const char *attributes;   /* space-separated names it understands; any other attribute refuses the node */
    uint32_t host_inputs;     /* bit i: input i is read on the host at Compile (a constant shape, scale, bound),
                                 never by the device: it is not copied into device memory */
    /* GetCapability and Compile: checks everything the node's exact execution needs and fills `params`. */
    bool (*prepare)(const ortvk_knode *node, ortvk_kparams *params, char *why, size_t why_len);
    /* Compute: output types and shapes from the inputs' (run->in), into run->out. */
    OrtStatus *(*shape)(const ortvk_kparams *params, ortvk_krun *run);
    /* Compute: records the dispatches (outputs are allocated, none is empty). */
    OrtStatus *(*record)(const ortvk_kparams *params, ortvk_krun *run);
} ortvk_kop;

/* Compile: whether a node compiled as `op` with `params` can be a step of an element-wise chain (kernel_chain.c), and
 * which: *input gets the input that carries the chained value, or -1 for a step on two tensors (ADD_X, MUL_X: the
 * fusion checks that one of them is the chain's input x). */
bool ortvk_kchain_step(const ortvk_knode *node, const ortvk_kop *op, const ortvk_kparams *params,
                       ortvk_chain_step *step, int *input);
/* Compile: whether a two-tensor Add or Mul's inputs have the same shape, known (every dim) at Compile: the other
 * input can then be a chain's residual (ORTVK_CHAIN_ADD_R, MUL_R), read at the chained value's own index. */
bool ortvk_kchain_residual_shapes(const ortvk_knode *node);
/* Compile: whether the Add or Mul `node` of two tensors can be a step of a stand-alone chain reading the other tensor
 * as an operand broadcast into the output (ORTVK_CHAIN_ADD_R, MUL_R, ADD_Q, MUL_Q): both ranks known. *x gets the
 * input a chain starting at it takes as x: the one not known to be broadcast up into the other. */
bool ortvk_kchain_operand_shapes(const ortvk_knode *node, int *x);
/* Run: the address of `chain`'s residual (run->in[chain->residual]), 0 without one; fails where its shape is not the
 * output's (run->out[0]). */
OrtStatus *ortvk_kchain_residual(const ortvk_kparams_chain *chain, const ortvk_krun *run, VkDeviceAddress *out);
/* The op of a fused chain: one input (x) and its residual where it has one, one output; never matched to a node. */
extern const ortvk_kop ortvk_kop_chain;
/* The op of a fused multilayer perceptron (kernel_mlp.c): input 0 x, input 1 its weights; never matched to a node. */
extern const ortvk_kop ortvk_kop_mlp;
/* A chain's specialization constants (shaders/common.glsl's ortvk_chain4r): the kinds (5 bits each, six in each of
 * two words; the second's top bit says a residual is read) and the count. Its steps' operands are not: a pipeline
 * per set of values would be one per chain of a model (each layer's own scale, say). They are a buffer the shader
 * reads, made at Compile: each step's a, then each one's b. */
void ortvk_kchain_spec(const ortvk_kparams_chain *chain, ortvk_kspec *out);
/* Whether a chain step's kind is Sigmoid or Tanh (functions of exp: costly to inline at many stores of one shader). */
bool ortvk_kchain_kind_is_exp(ortvk_chain_kind kind);
/* Whether a step's kind is per channel (ADD_C, MUL_C, BN_C: a ConvTranspose's epilogue only). */
bool ortvk_kchain_kind_is_channel(ortvk_chain_kind kind);
#define ORTVK_KCHAIN_FLOATS (2 * ORTVK_KMAX_CHAIN)
void ortvk_kchain_constants(const ortvk_kparams_chain *chain, float out[ORTVK_KCHAIN_FLOATS]);

/* Compile: an op's constant input `input` (`t` its type and dims, `data` its host values) rearranged for faster
 * reads. With `packed` NULL it returns the bytes the rearranged form takes, 0 to keep the constant as it is; else it
 * writes them to `packed`. The run sees t->packed. kernel_consts.c lists each op's packer. */
typedef size_t (*ortvk_kpack_fn)(const ortvk_kparams *params, size_t input, const ortvk_ktensor *t, const void *data,
                                 void *packed);
size_t ortvk_kconv_pack(const ortvk_kparams *params, size_t input, const ortvk_ktensor *t, const void *data,
                        void *packed); /* Conv's weights, 4 output channels a vec4 (kernel_conv.c) */
/* Whether a Conv of weights `w` ([M, C/G, KH, KW] or [M, C/G, K]) sums a group's input channels in one dispatch,
 * never in ranges (kernel_conv.c). */
bool ortvk_kconv_sums_at_once(const ortvk_ktensor *w);
size_t ortvk_kgemm_pack(const ortvk_kparams *params, size_t input, const ortvk_ktensor *t, const void *data,
                        void *packed); /* MatMul's and Gemm's B, rows padded to whole vec4s (kernel_math.c) */
size_t ortvk_kqmm_conv_pack(const ortvk_kparams *params, size_t input, const ortvk_ktensor *t, const void *data,
                            void *packed); /* ConvInteger's and QLinearConv's w, in the block forms' uvec4s */
size_t ortvk_kqmm_matmul_pack(const ortvk_kparams *params, size_t input, const ortvk_ktensor *t, const void *data,
                              void *packed); /* MatMulInteger's and QLinearMatMul's B, likewise (kernel_qmm.c) */

/* A (batched) matrix product y = alpha * A B (+ beta * C) as the GEMM shader computes it: MatMul, Gemm and the
 * pointwise convolutions (kernel_math.c). Strides in elements; batch dims broadcast by a stride of 0. */
typedef struct ortvk_kgemm_plan {
    int64_t M, N, K;
    int batch_rank;
    int64_t batch[3], a_batch[3], b_batch[3];
    int64_t a_sm, a_sk, b_sk, b_sn;
    int64_t c_sm, c_sn;
    bool has_c;
    bool b_odd;    /* B's rows may be read element by element (MatMul, Gemm, a pointwise Conv's pixels) */
    bool b_padded; /* B is a packed constant whose rows ortvk_kgemm_pack padded to whole vec4s (b_sk) */
    VkDeviceAddress residual; /* a fused chain's residual (its ADD_R, MUL_R steps), a tensor of y's shape, or 0 */
    size_t out_rank;
    int64_t out[ORTVK_KMAX_RANK];
} ortvk_kgemm_plan;
/* Whether one of the shader's fast forms takes these operands: a GPU's tiles, or the register-tiled form (else a
 * slow generic form runs). */
bool ortvk_kgemm_takes(const ortvk_krun *run, const ortvk_kgemm_plan *g, VkDeviceAddress a, VkDeviceAddress b,
                       VkDeviceAddress y);
OrtStatus *ortvk_kgemm_record(ortvk_krun *run, const ortvk_kgemm_plan *g, VkDeviceAddress a, VkDeviceAddress b,
                              VkDeviceAddress c, VkDeviceAddress y, float alpha, float beta, const ortvk_kspec *spec);

/* A depthwise convolution (group = input channels = output channels) of Conv's geometry, 2-D (1-D as H = 1), with
 * the node's fused chain (run->chain, `spec`): kernel_depthwise.c. b is 0 without bias. */
typedef struct ortvk_kdepthwise {
    VkDeviceAddress x, w, b, y;
    uint32_t N, C, H, W, OH, OW, KH, KW, SH, SW, DH, DW;
    int32_t PH, PW;
    VkDeviceAddress r; /* the fused chain's residual (ORTVK_CHAIN_ADD_R, MUL_R), or 0 */
} ortvk_kdepthwise;
OrtStatus *ortvk_kdepthwise_record(ortvk_krun *run, const ortvk_kdepthwise *d, const ortvk_kspec *spec);

/* Op tables of each family, terminated by an entry with op_type NULL. */
extern const ortvk_kop ortvk_kops_elementwise[];
extern const ortvk_kop ortvk_kops_conv[];
extern const ortvk_kop ortvk_kops_pool[];
extern const ortvk_kop ortvk_kops_resize[];
extern const ortvk_kop ortvk_kops_layout[];
extern const ortvk_kop ortvk_kops_gather[];
extern const ortvk_kop ortvk_kops_math[];
extern const ortvk_kop ortvk_kops_norm[];
extern const ortvk_kop ortvk_kops_arg[];
extern const ortvk_kop ortvk_kops_rnn[];
extern const ortvk_kop ortvk_kops_quant[];
extern const ortvk_kop ortvk_kops_qmm[];
extern const ortvk_kop ortvk_kops_shape[]; /* evaluated on the host; looked up first */
bool ortvk_kop_on_host(const ortvk_kop *op);

/* The tensors of a shader are storage buffers pushed per dispatch (VK_KHR_push_descriptor): up to ORTVK_KBINDINGS,
 * the uvec2 members of its push constants (the 8-byte words ortvk_kernel_device_operands marks, bit k for word k).
 * Ops fill those with device addresses; ortvk_krun_dispatch binds each address's buffer and rewrites the member to
 * (byte offset from the binding's start, 1), or (0, 0) for address 0 (shaders/common.glsl). */
#define ORTVK_KBINDINGS 6
uint32_t ortvk_kernel_device_operands(ortvk_shader shader);
/* The operands (a subset, same bits) a shader reads through uniform texel buffers where it can: lavapipe fetches
 * texels 2-3x faster than it loads from storage buffers. */
uint32_t ortvk_kernel_device_texels(ortvk_shader shader);
/* Whether its texel views are of 32-bit words rather than of floats (kernel_shaders.def's texel_type). */
bool ortvk_kernel_device_texel_words(ortvk_shader shader);
/* Its name (kernel_shaders.def): "gemm" for shaders/kernel_gemm.comp. */
const char *ortvk_kernel_device_shader_name(ortvk_shader shader);

/* What an operand's texel views hold: float32 elements, float16 ones (the device converts each to float32,
 * exactly), or 32-bit unsigned words (a shader whose texel_type is WORDS, kernel_shaders.def). */
typedef enum ortvk_ktexel_type {
    ORTVK_KTEXELS_FLOAT32,
    ORTVK_KTEXELS_FLOAT16,
    ORTVK_KTEXELS_WORDS,
} ortvk_ktexel_type;

/* An operand's uniform texel buffer views of one range: 4-component ones (RGBA32F, RGBA16F or RGBA32UI: vec4 or uvec4
 * reads) and 1-component ones (R32F, R16F or R32UI). */
typedef struct ortvk_ktexels {
    VkBufferView vec4s, floats;
} ortvk_ktexels;
OrtStatus *ortvk_kernel_device_texels_create(VkDevice vk, VkBuffer buffer, VkDeviceSize offset, VkDeviceSize range,
                                             ortvk_ktexel_type type, ortvk_ktexels *out);
void ortvk_kernel_device_texels_destroy(VkDevice vk, ortvk_ktexels *views);

/* One dispatch's descriptors, slot k for the k-th operand; empty entries get small placeholders. */
typedef struct ortvk_kbindings {
    VkDescriptorBufferInfo buffers[ORTVK_KBINDINGS]; /* binding 0: storage buffers */
    ortvk_ktexels texels[ORTVK_KBINDINGS];           /* bindings 1 (vec4s) and 2 (floats) */
    bool words;                                      /* the texels are words: placeholders of words too */
} ortvk_kbindings;
void ortvk_kernel_device_bind(ortvk_kernel_device *kdev, VkCommandBuffer cmd, ortvk_kbindings *bindings);

/* Whether ops choose their GPU forms on this device (e.g. a reduction's workgroup a row): not on a CPU device
 * (lavapipe), where one invocation an output is faster; the environment variable overrides it. */
#define ORTVK_KERNEL_FORMS_ENV "ORTVK_KERNEL_FORMS"
bool ortvk_kernel_device_gpu_forms(const ortvk_kernel_device *kdev);
/* Whether dispatches may bind texel operands as texels (docs/kernels.md, "Texel reads"): unless the environment
 * variable says "off". */
#define ORTVK_TEXEL_READS_ENV "ORTVK_TEXEL_READS"
bool ortvk_kernel_device_texel_reads(const ortvk_kernel_device *kdev);

/* A pipeline: the shader's float32 variant, or its float16 one, specialized for `fn`, for reading its texel
 * operands as texels (`texels`) or from the storage buffers, with `spec` (all zeros: none), and in the float16
 * variant with the operands whose bits `wide` sets holding float32 elements (common.glsl's ORTVK_WIDE). */
typedef struct ortvk_kpipeline_key {
    ortvk_shader shader;
    bool float16, texels;
    uint32_t fn;
    ortvk_kspec spec;
    uint32_t wide;
} ortvk_kpipeline_key;
/* Pipeline lookup, created on first use. */
OrtStatus *ortvk_kernel_device_pipeline(ortvk_kernel_device *kdev, const ortvk_kpipeline_key *key,
                                        VkPipeline *pipeline, VkPipelineLayout *layout);
/* The pipelines a run will need, gathered by a planning pass (ortvk_krun.plan). */
typedef struct ortvk_kplan {
    size_t count, capacity;
    ortvk_kpipeline_key *keys;
} ortvk_kplan;
/* Creates those of the plan's pipelines that do not exist yet, several at a time on threads of its own (drivers
 * compile at creation: lavapipe its NIR, about 70 ms a pipeline of ortvk's). Best effort: a pipeline that fails
 * here is created again, and its error reported, where the run looks it up. */
void ortvk_kernel_device_prepare(ortvk_kernel_device *kdev, const ortvk_kplan *plan);

/* Room for one more of `count` items of `size` bytes: `items` itself while `count` < `*capacity`, else the array
 * grown by doubling (`first` items the first time) with `*capacity` updated; NULL when out of memory, `items` and
 * `*capacity` then unchanged (the caller still owns `items`). */
static inline void *ortvk_kgrow(void *items, size_t *capacity, size_t count, size_t size, size_t first)
{
    if (count < *capacity) return items;
    size_t grown_capacity = *capacity ? 2 * *capacity : first;
    if (grown_capacity > SIZE_MAX / size) return NULL;
    void *grown = realloc(items, grown_capacity * size);
    if (grown != NULL) *capacity = grown_capacity;
    return grown;
}

#endif
