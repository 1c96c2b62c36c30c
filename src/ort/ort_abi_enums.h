/* Private to ortvk; included by ort/ort_abi.h (include that one). Our declarations of the enums of ONNX Runtime's C
 * ABI that ortvk uses: values are facts of the ABI, checked against both released runtimes where they matter. */
#ifndef ORTVK_ORT_ABI_ENUMS_H
#define ORTVK_ORT_ABI_ENUMS_H

typedef enum OrtErrorCode {
    ORT_OK = 0,
    ORT_FAIL = 1,
    ORT_INVALID_ARGUMENT = 2,
    ORT_NO_SUCHFILE = 3,
    ORT_NO_MODEL = 4,
    ORT_ENGINE_ERROR = 5,
    ORT_RUNTIME_EXCEPTION = 6,
    ORT_INVALID_PROTOBUF = 7,
    ORT_MODEL_LOADED = 8,
    ORT_NOT_IMPLEMENTED = 9,
    ORT_INVALID_GRAPH = 10,
    ORT_EP_FAIL = 11,
    ORT_MODEL_LOAD_CANCELED = 12,
    ORT_MODEL_REQUIRES_COMPILATION = 13,
    ORT_NOT_FOUND = 14,
} OrtErrorCode;

typedef enum OrtLoggingLevel {
    ORT_LOGGING_LEVEL_VERBOSE = 0,
    ORT_LOGGING_LEVEL_INFO = 1,
    ORT_LOGGING_LEVEL_WARNING = 2,
    ORT_LOGGING_LEVEL_ERROR = 3,
    ORT_LOGGING_LEVEL_FATAL = 4,
} OrtLoggingLevel;

typedef enum ONNXTensorElementDataType {
    ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED = 0,
    ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT = 1,
    ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8 = 2,
    ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8 = 3,
    ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT16 = 4,
    ONNX_TENSOR_ELEMENT_DATA_TYPE_INT16 = 5,
    ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32 = 6,
    ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64 = 7,
    ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING = 8,
    ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL = 9,
    ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16 = 10,
    ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE = 11,
    ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT32 = 12,
    ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT64 = 13,
    ONNX_TENSOR_ELEMENT_DATA_TYPE_COMPLEX64 = 14,
    ONNX_TENSOR_ELEMENT_DATA_TYPE_COMPLEX128 = 15,
    ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16 = 16,
} ONNXTensorElementDataType;

typedef enum ONNXType {
    ONNX_TYPE_UNKNOWN = 0,
    ONNX_TYPE_TENSOR = 1,
    ONNX_TYPE_SEQUENCE = 2,
    ONNX_TYPE_MAP = 3,
    ONNX_TYPE_OPAQUE = 4,
    ONNX_TYPE_SPARSETENSOR = 5,
    ONNX_TYPE_OPTIONAL = 6,
} ONNXType;

typedef enum OrtOpAttrType {
    ORT_OP_ATTR_UNDEFINED = 0,
    ORT_OP_ATTR_INT = 1,
    ORT_OP_ATTR_INTS = 2,
    ORT_OP_ATTR_FLOAT = 3,
    ORT_OP_ATTR_FLOATS = 4,
    ORT_OP_ATTR_STRING = 5,
    ORT_OP_ATTR_STRINGS = 6,
    ORT_OP_ATTR_GRAPH = 7,
    ORT_OP_ATTR_TENSOR = 8,
} OrtOpAttrType;

typedef enum OrtAllocatorType {
    OrtInvalidAllocator = -1,
    OrtDeviceAllocator = 0,
    OrtArenaAllocator = 1,
    OrtReadOnlyAllocator = 2,
} OrtAllocatorType;

typedef enum OrtMemType {
    OrtMemTypeCPUInput = -2,
    OrtMemTypeCPUOutput = -1,
    OrtMemTypeDefault = 0,
} OrtMemType;

typedef enum OrtMemoryInfoDeviceType {
    OrtMemoryInfoDeviceType_CPU = 0,
    OrtMemoryInfoDeviceType_GPU = 1,
    OrtMemoryInfoDeviceType_FPGA = 2,
    OrtMemoryInfoDeviceType_NPU = 3,
} OrtMemoryInfoDeviceType;

typedef enum OrtDeviceMemoryType {
    OrtDeviceMemoryType_DEFAULT = 0,
    OrtDeviceMemoryType_HOST_ACCESSIBLE = 5,
} OrtDeviceMemoryType;

typedef enum OrtHardwareDeviceType {
    OrtHardwareDeviceType_CPU = 0,
    OrtHardwareDeviceType_GPU = 1,
    OrtHardwareDeviceType_NPU = 2,
} OrtHardwareDeviceType;

typedef enum ExecutionMode {
    ORT_SEQUENTIAL = 0,
    ORT_PARALLEL = 1,
} ExecutionMode;

typedef enum GraphOptimizationLevel {
    ORT_DISABLE_ALL = 0,
    ORT_ENABLE_BASIC = 1,
    ORT_ENABLE_EXTENDED = 2,
    ORT_ENABLE_LAYOUT = 3,
    ORT_ENABLE_ALL = 99,
} GraphOptimizationLevel;

typedef enum OrtCompiledModelCompatibility {
    OrtCompiledModelCompatibility_EP_NOT_APPLICABLE = 0,
} OrtCompiledModelCompatibility;

typedef enum OrtEpDataLayout {
    OrtEpDataLayout_NCHW = 0,
    OrtEpDataLayout_NHWC = 1,
} OrtEpDataLayout;

/* External resources (OrtInteropApi). ORT passes values it does not know to the EP unchanged. */
typedef enum OrtExternalMemoryHandleType {
    ORT_EXTERNAL_MEMORY_HANDLE_TYPE_D3D12_RESOURCE = 0,
    ORT_EXTERNAL_MEMORY_HANDLE_TYPE_D3D12_HEAP = 1,
    ORT_EXTERNAL_MEMORY_HANDLE_TYPE_MEMORY_WIN32 = 2,
    ORT_EXTERNAL_MEMORY_HANDLE_TYPE_MEMORY_OPAQUE_FD = 3,
    ORT_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION = 4, /* ORT 1.30 */
} OrtExternalMemoryHandleType;

typedef enum OrtExternalSemaphoreType {
    ORT_EXTERNAL_SEMAPHORE_D3D12_FENCE = 0,
    ORT_EXTERNAL_SEMAPHORE_VK_TIMELINE_SEMAPHORE_WIN32 = 1,
    ORT_EXTERNAL_SEMAPHORE_VK_TIMELINE_SEMAPHORE_OPAQUE_FD = 2,
} OrtExternalSemaphoreType;

typedef enum OrtGraphicsApi {
    ORT_GRAPHICS_API_NONE = 0,
    ORT_GRAPHICS_API_D3D12 = 1,
    ORT_GRAPHICS_API_VULKAN = 2,
} OrtGraphicsApi;

#endif
