/* ONNX element types ortvk can hold, and tensor byte sizes. */
#include "ort/ort_tensor.h"

#include "ort/ort_status.h"

static const struct {
    const char *name;
    size_t size;
} element_types[] = {
    [ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT] = {"float", 4},
    [ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8] = {"uint8", 1},
    [ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8] = {"int8", 1},
    [ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT16] = {"uint16", 2},
    [ONNX_TENSOR_ELEMENT_DATA_TYPE_INT16] = {"int16", 2},
    [ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32] = {"int32", 4},
    [ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64] = {"int64", 8},
    [ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING] = {"string", 0},
    [ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL] = {"bool", 1},
    [ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16] = {"float16", 2},
    [ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE] = {"double", 8},
    [ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT32] = {"uint32", 4},
    [ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT64] = {"uint64", 8},
    [ONNX_TENSOR_ELEMENT_DATA_TYPE_COMPLEX64] = {"complex64", 0},
    [ONNX_TENSOR_ELEMENT_DATA_TYPE_COMPLEX128] = {"complex128", 0},
    [ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16] = {"bfloat16", 2},
};

size_t ortvk_element_size(int element_type)
{
    if (element_type < 0 || (size_t)element_type >= sizeof(element_types) / sizeof(element_types[0])) return 0;
    return element_types[element_type].size;
}

const char *ortvk_element_name(int element_type)
{
    if (element_type < 0 || (size_t)element_type >= sizeof(element_types) / sizeof(element_types[0]) ||
        element_types[element_type].name == NULL)
        return "unknown";
    return element_types[element_type].name;
}

OrtStatus *ortvk_tensor_bytes(const OrtValue *value, size_t *bytes)
{
    OrtTensorTypeAndShapeInfo *info = NULL;
    ORTVK_TRY(ortvk_ort->GetTensorTypeAndShape(value, &info));
    ONNXTensorElementDataType type = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
    size_t count = 0;
    OrtStatus *status = ortvk_ort->GetTensorElementType(info, &type);
    if (status == NULL) status = ortvk_ort->GetTensorShapeElementCount(info, &count);
    ortvk_ort->ReleaseTensorTypeAndShapeInfo(info);
    if (status != NULL) return status;
    size_t size = ortvk_element_size((int)type);
    if (size == 0) {
        return ortvk_status(ORT_NOT_IMPLEMENTED, "tensors of element type %s (%d) cannot live on an ortvk device",
                            ortvk_element_name((int)type), (int)type);
    }
    if (count > SIZE_MAX / size) {
        return ortvk_status(ORT_INVALID_ARGUMENT, "a tensor of %zu %s elements overflows size_t", count,
                            ortvk_element_name((int)type));
    }
    *bytes = count * size;
    return NULL;
}
