/* QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear on the device, bit for bit as ORT's CPU EP computes them
 * (shaders/kernel_quant.comp): uint8/int8 (and int32 into DequantizeLinear) with float32 scales, one scale or one
 * per step of an axis. MatMulInteger and ConvInteger are kernel_qmm.c's. */
#include <string.h>

#include "kernels/kernel_internal.h"

#define T_FLOAT ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT
#define T_UINT8 ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8
#define T_INT8 ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8
#define T_INT32 ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32

/* Elements of x one invocation of DynamicQuantizeLinear's min/max step reads (256 of ORTVK_FOR's blocks). */
#define QUANT_CHUNK 4096u

enum { FN_QUANTIZE, FN_DEQUANTIZE, FN_MINMAX, FN_PARAMS };

typedef struct push_quant {
    uint64_t x, s, z, y;
    uint32_t n, inner, channels, flags; /* flags: 1 int8, 2 int32 input */
} push_quant;

static bool is_8bit(ONNXTensorElementDataType t)
{
    return t == T_UINT8 || t == T_INT8;
}

/* The scale (input 1) and zero point (input 2) of Quantize/DequantizeLinear: a float scale of rank 0 or 1 (rank 0 or
 * one element before opset 13, which has no axis), a zero point of `zp_type` or none; block quantization (opset 21's
 * block_size) is refused. */
static bool qdq_params(const ortvk_knode *node, ortvk_kparams_quant *p, ONNXTensorElementDataType zp_type, char *why,
                       size_t why_len)
{
    const ortvk_kvalue *s = &node->in[1], *z = node->n_in > 2 ? &node->in[2] : NULL;
    if (!s->present || s->type != T_FLOAT || s->rank < 0 || s->rank > 1)
        return ortvk_krefuse(why, why_len, "scale is not a float scalar or 1-D tensor");
    if (node->opset < 13 && s->rank == 1 && s->dims[0] != 1)
        return ortvk_krefuse(why, why_len, "opset %d with a 1-D scale", node->opset);
    if (z != NULL && z->present && (z->type != zp_type || z->rank != s->rank))
        return ortvk_krefuse(why, why_len, "zero point of type %d or rank %d", (int)z->type, z->rank);
    int64_t block = 0;
    if (!ortvk_knode_int(node, "axis", 1, &p->axis) || !ortvk_knode_int(node, "block_size", 0, &block) || block != 0)
        return ortvk_krefuse(why, why_len, "axis or block_size (block quantization)");
    return true;
}

static bool quantize_prepare(const ortvk_knode *node, ortvk_kparams *params, char *why, size_t why_len)
{
    if (node->n_in < 2 || node->n_in > 3 || node->n_out != 1 || !node->in[0].present || node->in[0].type != T_FLOAT)
        return ortvk_krefuse(why, why_len, "input is not float32");
    ONNXTensorElementDataType y = node->out[0].type;
    if (!is_8bit(y)) return ortvk_krefuse(why, why_len, "output type %d (ortvk runs uint8 and int8)", (int)y);
    int64_t saturate = 1, dtype = 0;
    if (!ortvk_knode_int(node, "saturate", 1, &saturate) || saturate != 1 ||
        !ortvk_knode_int(node, "output_dtype", 0, &dtype) || (dtype != 0 && dtype != (int64_t)y))
        return ortvk_krefuse(why, why_len, "saturate or output_dtype");
    params->quant.out = y;
    return qdq_params(node, &params->quant, y, why, why_len);
}

static bool dequantize_prepare(const ortvk_knode *node, ortvk_kparams *params, char *why, size_t why_len)
{
    if (node->n_in < 2 || node->n_in > 3 || node->n_out != 1 || node->out[0].type != T_FLOAT)
        return ortvk_krefuse(why, why_len, "output is not float32");
    ONNXTensorElementDataType x = node->in[0].type;
    if (!node->in[0].present || (!is_8bit(x) && x != T_INT32))
        return ortvk_krefuse(why, why_len, "input type %d (ortvk runs uint8, int8 and int32)", (int)x);
    /* int32 has no zero point in ONNX (it must be 0); the CPU EP's int32 subtraction is left to it. */
    if (x == T_INT32 && node->n_in > 2 && node->in[2].present)
        return ortvk_krefuse(why, why_len, "int32 input with a zero point");
    params->quant.out = T_FLOAT;
    return qdq_params(node, &params->quant, x, why, why_len);
}

static OrtStatus *qdq_shape(const ortvk_kparams *params, ortvk_krun *run)
{
    const ortvk_ktensor *x = &run->in[0];
    ortvk_ktensor *y = &run->out[0];
    y->type = params->quant.out;
    y->rank = x->rank;
    memcpy(y->dims, x->dims, sizeof(x->dims));
    return NULL;
}

/* One scale for the whole tensor (*channels = 1), or one per step of the axis: the dispatch's inner and channels. */
static OrtStatus *qdq_layout(const ortvk_kparams_quant *p, const ortvk_krun *run, const char *op, uint32_t *inner,
                             uint32_t *channels)
{
    const ortvk_ktensor *x = &run->in[0], *s = &run->in[1], *z = run->n_in > 2 ? &run->in[2] : NULL;
    if (z != NULL && z->present && z->count != s->count)
        return ortvk_status(ORT_INVALID_ARGUMENT, "%s: zero point of %zu elements for a scale of %zu", op, z->count,
                            s->count);
    *inner = 1;
    *channels = 1;
    if (s->count == 1) return NULL;
    int64_t axis = 0;
    if (s->rank != 1 || !ortvk_kaxis(p->axis, x->rank, &axis) || x->dims[axis] != (int64_t)s->count)
        return ortvk_status(ORT_INVALID_ARGUMENT, "%s: a scale of %zu elements does not match axis %lld of the input",
                            op, s->count, (long long)p->axis);
    *inner = (uint32_t)ortvk_kcount(x->dims + axis + 1, x->rank - (size_t)axis - 1);
    *channels = (uint32_t)s->count;
    return NULL;
}

static OrtStatus *qdq_record(const ortvk_kparams *params, ortvk_krun *run)
{
    const ortvk_ktensor *x = &run->in[0], *y = &run->out[0];
    bool quantize = x->type == T_FLOAT;
    const char *op = quantize ? "QuantizeLinear" : "DequantizeLinear";
    if (run->in[1].count == 0) return ortvk_status(ORT_INVALID_ARGUMENT, "%s: an empty scale", op);
    push_quant push = {
        .x = x->address,
        .s = run->in[1].address,
        .z = run->n_in > 2 && run->in[2].present ? run->in[2].address : 0,
        .y = y->address,
        .n = (uint32_t)x->count,
        .flags = ((quantize ? y->type : x->type) == T_INT8 ? 1u : 0u) | (x->type == T_INT32 ? 2u : 0u),
    };
    ORTVK_TRY(qdq_layout(&params->quant, run, op, &push.inner, &push.channels));
    return ortvk_krun_dispatch_fn(run, ORTVK_SHADER_QUANT, quantize ? FN_QUANTIZE : FN_DEQUANTIZE, &push,
                                  sizeof(push), x->count);
}

/* ---- DynamicQuantizeLinear ------------------------------------------------------------------------------ */

static bool dynamic_prepare(const ortvk_knode *node, ortvk_kparams *params, char *why, size_t why_len)
{
    (void)params;
    if (node->n_in != 1 || node->n_out != 3 || node->in[0].type != T_FLOAT || node->out[0].type != T_UINT8 ||
        node->out[1].type != T_FLOAT || node->out[2].type != T_UINT8)
        return ortvk_krefuse(why, why_len, "types other than float32 in, uint8 out");
    for (int k = 0; k < 3; k++) {
        if (!node->out[k].present) return ortvk_krefuse(why, why_len, "output %d omitted", k);
    }
    return true;
}

static OrtStatus *dynamic_shape(const ortvk_kparams *params, ortvk_krun *run)
{
    (void)params;
    const ortvk_ktensor *x = &run->in[0];
    run->out[0].type = T_UINT8;
    run->out[0].rank = x->rank;
    memcpy(run->out[0].dims, x->dims, sizeof(x->dims));
    run->out[1].type = T_FLOAT;
    run->out[1].rank = 0;
    run->out[2].type = T_UINT8;
    run->out[2].rank = 0;
    return NULL;
}

/* Output k's address, or a scratch buffer for it when the graph does not read it (the other steps need it). */
static OrtStatus *dynamic_output(ortvk_krun *run, size_t k, VkDeviceAddress *address)
{
    if (run->out[k].present && run->out[k].address != 0) {
        *address = run->out[k].address;
        return NULL;
    }
    return ortvk_krun_scratch(run, 4, address);
}

/* Min and max per chunk of QUANT_CHUNK elements into a scratch buffer, then the scale and zero point from them (one
 * invocation), then the quantization with them. An empty x gives scale 1 and zero point 0, as MLAS's min and max of
 * no elements (0 and 0, or FLT_MAX and -FLT_MAX, then 0 included) do. */
static OrtStatus *dynamic_record(const ortvk_kparams *params, ortvk_krun *run)
{
    (void)params;
    const ortvk_ktensor *x = &run->in[0];
    uint32_t chunks = (uint32_t)((x->count + QUANT_CHUNK - 1) / QUANT_CHUNK);
    VkDeviceAddress partial = 0, scale = 0, zero_point = 0;
    ORTVK_TRY(dynamic_output(run, 1, &scale));
    ORTVK_TRY(dynamic_output(run, 2, &zero_point));
    if (chunks > 0) {
        ORTVK_TRY(ortvk_krun_scratch(run, (size_t)chunks * 2 * sizeof(float), &partial));
        push_quant push = {.x = x->address, .y = partial, .n = (uint32_t)x->count, .inner = QUANT_CHUNK,
                           .channels = chunks};
        ORTVK_TRY(ortvk_krun_dispatch_fn(run, ORTVK_SHADER_QUANT, FN_MINMAX, &push, sizeof(push), chunks));
    }
    push_quant fold = {.s = scale, .z = zero_point, .y = partial, .n = chunks};
    ORTVK_TRY(ortvk_krun_dispatch_fn(run, ORTVK_SHADER_QUANT, FN_PARAMS, &fold, sizeof(fold), 1));
    if (x->count == 0 || !run->out[0].present) return NULL;
    push_quant q = {
        .x = x->address,
        .s = scale,
        .z = zero_point,
        .y = run->out[0].address,
        .n = (uint32_t)x->count,
        .inner = 1,
        .channels = 1,
    };
    return ortvk_krun_dispatch_fn(run, ORTVK_SHADER_QUANT, FN_QUANTIZE, &q, sizeof(q), x->count);
}

const ortvk_kop ortvk_kops_quant[] = {
    {"QuantizeLinear", 10, 21, "axis saturate block_size output_dtype", 0, quantize_prepare, qdq_shape, qdq_record},
    {"DequantizeLinear", 10, 21, "axis block_size", 0, dequantize_prepare, qdq_shape, qdq_record},
    {"DynamicQuantizeLinear", 11, 11, "", 0, dynamic_prepare, dynamic_shape, dynamic_record},
    {NULL, 0, 0, NULL, 0, NULL, NULL, NULL},
};
