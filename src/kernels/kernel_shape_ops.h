/* Private to src/kernels: what kernel_shape_ops.c (the host-evaluated shape ops, their capability and the
 * structural ones) and kernel_shape_math.c (their arithmetic, comparisons, Where, Range and Cast) share: the op
 * list and element access to host values in any of their types. */
#ifndef ORTVK_KERNEL_SHAPE_OPS_H
#define ORTVK_KERNEL_SHAPE_OPS_H

#include "kernels/kernel_internal.h"

enum {
    OP_SHAPE, OP_SIZE, OP_GATHER, OP_CONCAT, OP_SQUEEZE, OP_UNSQUEEZE, OP_SLICE, OP_CAST, OP_CONSTANT_OF_SHAPE,
    OP_RANGE, OP_EQUAL, OP_GREATER, OP_LESS, OP_WHERE, OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_AND, OP_OR, OP_XOR, OP_NOT,
    OP_COUNT
};

static const char *const op_names[OP_COUNT] = {
    "Shape", "Size", "Gather", "Concat", "Squeeze", "Unsqueeze", "Slice", "Cast", "ConstantOfShape",
    "Range", "Equal", "Greater", "Less", "Where", "Add", "Sub", "Mul", "Div", "And", "Or", "Xor", "Not",
};

/* The element types values computed on the host may have. */
static inline bool host_type(ONNXTensorElementDataType t)
{
    return t == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64 || t == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32 ||
           t == ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL || t == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;
}

static inline bool int_type(ONNXTensorElementDataType t)
{
    return t == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64 || t == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32;
}

/* Elements of host values, read and written in the tensor's type (bool as 0/1; float to int truncates: callers
 * check the range). */
static inline int64_t get_int(const ortvk_ktensor *t, size_t i)
{
    switch (t->type) {
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64: return ((const int64_t *)t->host)[i];
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32: return ((const int32_t *)t->host)[i];
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL: return ((const uint8_t *)t->host)[i] != 0;
    default: return (int64_t)((const float *)t->host)[i];
    }
}

static inline float get_float(const ortvk_ktensor *t, size_t i)
{
    return t->type == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT ? ((const float *)t->host)[i] : (float)get_int(t, i);
}

static inline void set_int(ortvk_ktensor *t, void *data, size_t i, int64_t v)
{
    switch (t->type) {
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64: ((int64_t *)data)[i] = v; break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32: ((int32_t *)data)[i] = (int32_t)v; break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL: ((uint8_t *)data)[i] = v != 0; break;
    default: ((float *)data)[i] = (float)v; break;
    }
}

static inline void set_float(ortvk_ktensor *t, void *data, size_t i, float v)
{
    if (t->type == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT) ((float *)data)[i] = v;
    else if (t->type == ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL) ((uint8_t *)data)[i] = v != 0.0f;
    else set_int(t, data, i, (int64_t)v); /* callers check the range */
}

/* The output's host values: `count` elements of its type (a zeroed block of the run's); fails past
 * ORTVK_KHOST_MAX elements. */
OrtStatus *ortvk_kshape_output(ortvk_krun *run, ortvk_ktensor *y, void **data);
/* The computing ops of kernel_shape_math.c (elementwise: the comparisons, Where, arithmetic and logic). */
OrtStatus *ortvk_kshape_cast(const ortvk_kparams_shape *p, ortvk_krun *run);
OrtStatus *ortvk_kshape_range(ortvk_krun *run);
OrtStatus *ortvk_kshape_elementwise(const ortvk_kparams_shape *p, ortvk_krun *run);

#endif
