/* Private to ortvk. Our declarations of the parts of ONNX Runtime's C ABI that ortvk and its tests use, written
 * from the public headers' facts: member order and types carry over, nothing else does. Tables only grow, so a
 * slot we do not use is a placeholder, and every slot we use is pinned below by a static assertion. */
#ifndef ORTVK_ORT_ABI_H
#define ORTVK_ORT_ABI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ORT_API_VERSION of the newest layout declared here, and the oldest host ortvk accepts (the first with the
 * external resource importer). */
#define ORTVK_ORT_API_VERSION 30
#define ORTVK_ORT_MIN_API_VERSION 24

#define ORT_API_CALL /* the default calling convention on Linux */

/* Opaque ORT objects. */
typedef struct OrtStatus OrtStatus;
typedef struct OrtEnv OrtEnv;
typedef struct OrtSession OrtSession;
typedef struct OrtSessionOptions OrtSessionOptions;
typedef struct OrtRunOptions OrtRunOptions;
typedef struct OrtValue OrtValue;
typedef struct OrtMemoryInfo OrtMemoryInfo;
typedef struct OrtTensorTypeAndShapeInfo OrtTensorTypeAndShapeInfo;
typedef struct OrtLogger OrtLogger;
typedef struct OrtKeyValuePairs OrtKeyValuePairs;
typedef struct OrtHardwareDevice OrtHardwareDevice;
typedef struct OrtEpDevice OrtEpDevice;
typedef struct OrtMemoryDevice OrtMemoryDevice;
typedef struct OrtSyncStream OrtSyncStream;
typedef struct OrtGraph OrtGraph;
typedef struct OrtNode OrtNode;
typedef struct OrtEpGraphSupportInfo OrtEpGraphSupportInfo;
typedef struct OrtNodeComputeInfo OrtNodeComputeInfo;
typedef struct OrtExternalResourceImporter OrtExternalResourceImporter;
typedef struct OrtEpAssignedSubgraph OrtEpAssignedSubgraph;
typedef struct OrtEpAssignedNode OrtEpAssignedNode;
typedef struct OrtCustomOpDomain OrtCustomOpDomain;
typedef struct OrtValueInfo OrtValueInfo;
typedef struct OrtTypeInfo OrtTypeInfo;
typedef struct OrtOpAttr OrtOpAttr;
typedef struct OrtKernelContext OrtKernelContext;
typedef struct OrtNodeComputeContext OrtNodeComputeContext;

/* A member ortvk never calls or fills: it only keeps the layout. Always NULL in structs ortvk fills. */
typedef void (*ortvk_ort_unused_fn)(void);

#include "ort_abi_enums.h" /* beside this file, like ort_abi_ep.h */

/* ---- plain structs -------------------------------------------------------------------------------------- */

typedef struct OrtApi OrtApi;
typedef struct OrtEpApi OrtEpApi;
typedef struct OrtInteropApi OrtInteropApi;

typedef struct OrtApiBase {
    const OrtApi *(ORT_API_CALL *GetApi)(uint32_t version);
    const char *(ORT_API_CALL *GetVersionString)(void);
} OrtApiBase;

typedef const OrtApiBase *(ORT_API_CALL *ortvk_get_api_base_fn)(void); /* the library's OrtGetApiBase */

/* The API version to request from a host: its ORT_API_VERSION equals its minor version ("1.24.3" -> 24), capped
 * at the newest layout declared here. 0 when the string is not "1.<minor>...". Asking GetApi for a version the
 * host lacks would also work (it returns NULL) but makes ORT print an error for every miss. */
static inline uint32_t ortvk_ort_api_version_for(const char *version_string)
{
    if (version_string == NULL || version_string[0] != '1' || version_string[1] != '.') return 0;
    uint32_t minor = 0;
    for (const char *p = version_string + 2; *p >= '0' && *p <= '9' && minor < 1000; p++)
        minor = minor * 10 + (uint32_t)(*p - '0');
    return minor > ORTVK_ORT_API_VERSION ? ORTVK_ORT_API_VERSION : minor;
}

/* An allocator ORT calls; ortvk implements it for device memory and for per-view deleters. */
typedef struct OrtAllocator OrtAllocator;
struct OrtAllocator {
    uint32_t version;
    void *(ORT_API_CALL *Alloc)(OrtAllocator *self, size_t size);
    void (ORT_API_CALL *Free)(OrtAllocator *self, void *p);
    const OrtMemoryInfo *(ORT_API_CALL *Info)(const OrtAllocator *self);
    void *(ORT_API_CALL *Reserve)(OrtAllocator *self, size_t size);                            /* version 18 */
    OrtStatus *(ORT_API_CALL *GetStats)(const OrtAllocator *self, OrtKeyValuePairs **out);    /* version 23 */
    void *(ORT_API_CALL *AllocOnStream)(OrtAllocator *self, size_t size, OrtSyncStream *stream); /* version 23 */
    OrtStatus *(ORT_API_CALL *Shrink)(OrtAllocator *self); /* version 25; non-NULL makes ORT treat it as an arena */
};
_Static_assert(sizeof(OrtAllocator) == 64, "OrtAllocator layout");

typedef struct OrtExternalMemoryDescriptor {
    uint32_t version;
    OrtExternalMemoryHandleType handle_type;
    void *native_handle;
    size_t size_bytes;   /* the whole external allocation */
    size_t offset_bytes; /* where the imported region starts */
} OrtExternalMemoryDescriptor;

typedef struct OrtExternalSemaphoreDescriptor {
    uint32_t version;
    OrtExternalSemaphoreType type;
    void *native_handle;
} OrtExternalSemaphoreDescriptor;

typedef struct OrtExternalTensorDescriptor {
    uint32_t version;
    ONNXTensorElementDataType element_type;
    const int64_t *shape;
    size_t rank;
    size_t offset_bytes; /* added to the memory descriptor's offset_bytes */
} OrtExternalTensorDescriptor;

typedef struct OrtGraphicsInteropConfig {
    uint32_t version;
    OrtGraphicsApi graphics_api;
    void *command_queue;
    const OrtKeyValuePairs *additional_options;
} OrtGraphicsInteropConfig;

/* Base structs of imported handles: an EP's handle embeds one as its first member. */
typedef struct OrtExternalMemoryHandle OrtExternalMemoryHandle;
struct OrtExternalMemoryHandle {
    uint32_t version;
    const OrtEpDevice *ep_device;
    OrtExternalMemoryDescriptor descriptor;
    void (ORT_API_CALL *Release)(OrtExternalMemoryHandle *handle);
};

typedef struct OrtExternalSemaphoreHandle OrtExternalSemaphoreHandle;
struct OrtExternalSemaphoreHandle {
    uint32_t version;
    const OrtEpDevice *ep_device;
    OrtExternalSemaphoreDescriptor descriptor;
    void (ORT_API_CALL *Release)(OrtExternalSemaphoreHandle *handle);
};

/* ---- OrtApi --------------------------------------------------------------------------------------------- */

struct OrtApi {
    OrtStatus*(ORT_API_CALL *CreateStatus)(OrtErrorCode code, const char* msg);
    OrtErrorCode (ORT_API_CALL *GetErrorCode)(const OrtStatus* status);
    const char*(ORT_API_CALL *GetErrorMessage)(const OrtStatus* status);
    OrtStatus*(ORT_API_CALL *CreateEnv)(OrtLoggingLevel log_severity_level, const char* logid, OrtEnv** out);
    void *unused_4_6[3];
    OrtStatus*(ORT_API_CALL *CreateSession)(const OrtEnv* env, const char* model_path, const OrtSessionOptions* options,
                                            OrtSession** out);
    OrtStatus*(ORT_API_CALL *CreateSessionFromArray)(const OrtEnv* env, const void* model_data,
                                                     size_t model_data_length, const OrtSessionOptions* options,
                                                     OrtSession** out);
    OrtStatus*(ORT_API_CALL *Run)(OrtSession* session, const OrtRunOptions* run_options, const char* const* input_names,
                                  const OrtValue* const* inputs, size_t input_len, const char* const* output_names,
                                  size_t output_names_len, OrtValue** outputs);
    OrtStatus*(ORT_API_CALL *CreateSessionOptions)(OrtSessionOptions** options);
    void *unused_11_12[2];
    OrtStatus*(ORT_API_CALL *SetSessionExecutionMode)(OrtSessionOptions* options, ExecutionMode execution_mode);
    OrtStatus*(ORT_API_CALL *EnableProfiling)(OrtSessionOptions* options, const char* profile_file_prefix);
    void *unused_15_22[8];
    OrtStatus*(ORT_API_CALL *SetSessionGraphOptimizationLevel)(OrtSessionOptions* options,
                                                               GraphOptimizationLevel graph_optimization_level);
    OrtStatus*(ORT_API_CALL *SetIntraOpNumThreads)(OrtSessionOptions* options, int intra_op_num_threads);
    void *unused_25_29[5];
    OrtStatus*(ORT_API_CALL *SessionGetInputCount)(const OrtSession* session, size_t* out);
    OrtStatus*(ORT_API_CALL *SessionGetOutputCount)(const OrtSession* session, size_t* out);
    void *unused_32_35[4];
    OrtStatus*(ORT_API_CALL *SessionGetInputName)(const OrtSession* session, size_t index, OrtAllocator* allocator,
                                                  char** value);
    OrtStatus*(ORT_API_CALL *SessionGetOutputName)(const OrtSession* session, size_t index, OrtAllocator* allocator,
                                                   char** value);
    void *unused_38;
    OrtStatus*(ORT_API_CALL *CreateRunOptions)(OrtRunOptions** out);
    void *unused_40_47[8];
    OrtStatus*(ORT_API_CALL *CreateTensorAsOrtValue)(OrtAllocator* allocator, const int64_t* shape, size_t shape_len,
                                                     ONNXTensorElementDataType type, OrtValue** out);
    OrtStatus*(ORT_API_CALL *CreateTensorWithDataAsOrtValue)(const OrtMemoryInfo* info, void* p_data, size_t p_data_len,
                                                             const int64_t* shape, size_t shape_len,
                                                             ONNXTensorElementDataType type, OrtValue** out);
    OrtStatus*(ORT_API_CALL *IsTensor)(const OrtValue* value, int* out);
    OrtStatus*(ORT_API_CALL *GetTensorMutableData)(OrtValue* value, void** out);
    void *unused_52_54[3];
    OrtStatus*(ORT_API_CALL *CastTypeInfoToTensorInfo)(const OrtTypeInfo* type_info,
                                                       const OrtTensorTypeAndShapeInfo** out);
    OrtStatus*(ORT_API_CALL *GetOnnxTypeFromTypeInfo)(const OrtTypeInfo* type_info, ONNXType* out);
    void *unused_57_59[3];
    OrtStatus*(ORT_API_CALL *GetTensorElementType)(const OrtTensorTypeAndShapeInfo* info,
                                                   ONNXTensorElementDataType* out);
    OrtStatus*(ORT_API_CALL *GetDimensionsCount)(const OrtTensorTypeAndShapeInfo* info, size_t* out);
    OrtStatus*(ORT_API_CALL *GetDimensions)(const OrtTensorTypeAndShapeInfo* info, int64_t* dim_values,
                                            size_t dim_values_length);
    void *unused_63;
    OrtStatus*(ORT_API_CALL *GetTensorShapeElementCount)(const OrtTensorTypeAndShapeInfo* info, size_t* out);
    OrtStatus*(ORT_API_CALL *GetTensorTypeAndShape)(const OrtValue* value, OrtTensorTypeAndShapeInfo** out);
    void *unused_66_68[3];
    OrtStatus*(ORT_API_CALL *CreateCpuMemoryInfo)(OrtAllocatorType type, OrtMemType mem_type, OrtMemoryInfo** out);
    OrtStatus*(ORT_API_CALL *CompareMemoryInfo)(const OrtMemoryInfo* info1, const OrtMemoryInfo* info2, int* out);
    OrtStatus*(ORT_API_CALL *MemoryInfoGetName)(const OrtMemoryInfo* ptr, const char** out);
    OrtStatus*(ORT_API_CALL *MemoryInfoGetId)(const OrtMemoryInfo* ptr, int* out);
    void *unused_73_74[2];
    OrtStatus*(ORT_API_CALL *AllocatorAlloc)(OrtAllocator* ort_allocator, size_t size, void** out);
    OrtStatus*(ORT_API_CALL *AllocatorFree)(OrtAllocator* ort_allocator, void* p);
    OrtStatus*(ORT_API_CALL *AllocatorGetInfo)(const OrtAllocator* ort_allocator, const OrtMemoryInfo** out);
    OrtStatus*(ORT_API_CALL *GetAllocatorWithDefaultOptions)(OrtAllocator** out);
    void *unused_79_87[9];
    OrtStatus*(ORT_API_CALL *KernelContext_GetInputCount)(const OrtKernelContext* context, size_t* out);
    OrtStatus*(ORT_API_CALL *KernelContext_GetOutputCount)(const OrtKernelContext* context, size_t* out);
    OrtStatus*(ORT_API_CALL *KernelContext_GetInput)(const OrtKernelContext* context, size_t index,
                                                     const OrtValue** out);
    OrtStatus*(ORT_API_CALL *KernelContext_GetOutput)(OrtKernelContext* context, size_t index,
                                                      const int64_t* dim_values, size_t dim_count, OrtValue** out);
    void (ORT_API_CALL *ReleaseEnv)(OrtEnv* input);
    void (ORT_API_CALL *ReleaseStatus)(OrtStatus* input);
    void (ORT_API_CALL *ReleaseMemoryInfo)(OrtMemoryInfo* input);
    void (ORT_API_CALL *ReleaseSession)(OrtSession* input);
    void (ORT_API_CALL *ReleaseValue)(OrtValue* input);
    void (ORT_API_CALL *ReleaseRunOptions)(OrtRunOptions* input);
    void *unused_98;
    void (ORT_API_CALL *ReleaseTensorTypeAndShapeInfo)(OrtTensorTypeAndShapeInfo* input);
    void (ORT_API_CALL *ReleaseSessionOptions)(OrtSessionOptions* input);
    void *unused_101_129[29];
    OrtStatus*(ORT_API_CALL *AddSessionConfigEntry)(OrtSessionOptions* options, const char* config_key,
                                                    const char* config_value);
    OrtStatus*(ORT_API_CALL *CreateAllocator)(const OrtSession* session, const OrtMemoryInfo* mem_info,
                                              OrtAllocator** out);
    void (ORT_API_CALL *ReleaseAllocator)(OrtAllocator* input);
    void *unused_133_164[32];
    OrtStatus*(ORT_API_CALL *AddRunConfigEntry)(OrtRunOptions* options, const char* config_key,
                                                const char* config_value);
    void *unused_166_192[27];
    OrtStatus*(ORT_API_CALL *KernelContext_GetGPUComputeStream)(const OrtKernelContext* context, void** out);
    OrtStatus*(ORT_API_CALL *GetTensorMemoryInfo)(const OrtValue* value, const OrtMemoryInfo** mem_info);
    void *unused_195_215[21];
    OrtStatus*(ORT_API_CALL *SessionOptionsAppendExecutionProvider)(OrtSessionOptions* options,
                                                                    const char* provider_name,
                                                                    const char* const* provider_options_keys,
                                                                    const char* const* provider_options_values,
                                                                    size_t num_keys);
    void *unused_217_224[8];
    void (ORT_API_CALL *MemoryInfoGetDeviceType)(const OrtMemoryInfo* ptr, OrtMemoryInfoDeviceType* out);
    void *unused_226_236[11];
    OrtStatus*(ORT_API_CALL *HasSessionConfigEntry)(const OrtSessionOptions* options, const char* config_key, int* out);
    OrtStatus*(ORT_API_CALL *GetSessionConfigEntry)(const OrtSessionOptions* options, const char* config_key,
                                                    char* config_value, size_t* size);
    void *unused_239_246[8];
    OrtStatus*(ORT_API_CALL *Logger_LogMessage)(const OrtLogger* logger, OrtLoggingLevel log_severity_level,
                                                const char* message, const char* file_path, int line_number,
                                                const char* func_name);
    OrtStatus*(ORT_API_CALL *Logger_GetLoggingSeverityLevel)(const OrtLogger* logger, OrtLoggingLevel* out);
    void *unused_249_271[23];
    OrtStatus*(ORT_API_CALL *ReadOpAttr)(const OrtOpAttr* op_attr, OrtOpAttrType type, void* data, size_t len,
                                         size_t* out);
    void *unused_273_288[16];
    OrtStatus*(ORT_API_CALL *GetValueInfoName)(const OrtValueInfo* value_info, const char** name);
    OrtStatus*(ORT_API_CALL *GetValueInfoTypeInfo)(const OrtValueInfo* value_info, const OrtTypeInfo** type_info);
    void *unused_291;
    OrtStatus*(ORT_API_CALL *CreateTensorWithDataAndDeleterAsOrtValue)(OrtAllocator* deleter, void* p_data,
                                                                       size_t p_data_len, const int64_t* shape,
                                                                       size_t shape_len, ONNXTensorElementDataType type,
                                                                       OrtValue** out);
    void *unused_293_294[2];
    void (ORT_API_CALL *CreateKeyValuePairs)(OrtKeyValuePairs** out);
    void (ORT_API_CALL *AddKeyValuePair)(OrtKeyValuePairs* kvps, const char* key, const char* value);
    const char*(ORT_API_CALL *GetKeyValue)(const OrtKeyValuePairs* kvps, const char* key);
    void(ORT_API_CALL *GetKeyValuePairs)(const OrtKeyValuePairs* kvps, const char* const** keys,
                                         const char* const** values, size_t* num_entries);
    void *unused_299;
    void (ORT_API_CALL *ReleaseKeyValuePairs)(OrtKeyValuePairs* input);
    OrtStatus*(ORT_API_CALL *RegisterExecutionProviderLibrary)(OrtEnv* env, const char* registration_name,
                                                               const char* path);
    OrtStatus*(ORT_API_CALL *UnregisterExecutionProviderLibrary)(OrtEnv* env, const char* registration_name);
    OrtStatus*(ORT_API_CALL *GetEpDevices)(const OrtEnv* env, const OrtEpDevice* const** ep_devices,
                                           size_t* num_ep_devices);
    OrtStatus*(ORT_API_CALL *SessionOptionsAppendExecutionProvider_V2)(
        OrtSessionOptions* session_options, OrtEnv* env, const OrtEpDevice* const* ep_devices, size_t num_ep_devices,
        const char* const* ep_option_keys, const char* const* ep_option_vals, size_t num_ep_options);
    void *unused_305_306[2];
    OrtHardwareDeviceType (ORT_API_CALL *HardwareDevice_Type)(const OrtHardwareDevice* device);
    uint32_t (ORT_API_CALL *HardwareDevice_VendorId)(const OrtHardwareDevice* device);
    const char*(ORT_API_CALL *HardwareDevice_Vendor)(const OrtHardwareDevice* device);
    uint32_t (ORT_API_CALL *HardwareDevice_DeviceId)(const OrtHardwareDevice* device);
    const OrtKeyValuePairs*(ORT_API_CALL *HardwareDevice_Metadata)(const OrtHardwareDevice* device);
    const char*(ORT_API_CALL *EpDevice_EpName)(const OrtEpDevice* ep_device);
    const char*(ORT_API_CALL *EpDevice_EpVendor)(const OrtEpDevice* ep_device);
    const OrtKeyValuePairs*(ORT_API_CALL *EpDevice_EpMetadata)(const OrtEpDevice* ep_device);
    const OrtKeyValuePairs*(ORT_API_CALL *EpDevice_EpOptions)(const OrtEpDevice* ep_device);
    const OrtHardwareDevice*(ORT_API_CALL *EpDevice_Device)(const OrtEpDevice* ep_device);
    const OrtEpApi*(ORT_API_CALL *GetEpApi)(void);
    OrtStatus*(ORT_API_CALL *GetTensorSizeInBytes)(const OrtValue* ort_value, size_t* size);
    void *unused_319;
    OrtStatus*(ORT_API_CALL *CreateMemoryInfo_V2)(const char* name, OrtMemoryInfoDeviceType device_type,
                                                  uint32_t vendor_id, int32_t device_id, OrtDeviceMemoryType mem_type,
                                                  size_t alignment, OrtAllocatorType allocator_type,
                                                  OrtMemoryInfo** out);
    void *unused_321;
    uint32_t (ORT_API_CALL *MemoryInfoGetVendorId)(const OrtMemoryInfo* ptr);
    OrtStatus*(ORT_API_CALL *ValueInfo_GetValueProducer)(const OrtValueInfo* value_info, const OrtNode** producer_node,
                                                         size_t* producer_output_index);
    OrtStatus*(ORT_API_CALL *ValueInfo_GetValueNumConsumers)(const OrtValueInfo* value_info, size_t* num_consumers);
    void *unused_325;
    OrtStatus*(ORT_API_CALL *ValueInfo_GetInitializerValue)(const OrtValueInfo* value_info,
                                                            const OrtValue** initializer_value);
    void *unused_327_329[3];
    OrtStatus*(ORT_API_CALL *ValueInfo_IsGraphOutput)(const OrtValueInfo* value_info, bool* is_graph_output);
    OrtStatus*(ORT_API_CALL *ValueInfo_IsConstantInitializer)(const OrtValueInfo* value_info,
                                                              bool* is_constant_initializer);
    void *unused_332_343[12];
    OrtStatus*(ORT_API_CALL *Graph_GetNumNodes)(const OrtGraph* graph, size_t* num_nodes);
    OrtStatus*(ORT_API_CALL *Graph_GetNodes)(const OrtGraph* graph, const OrtNode** nodes, size_t num_nodes);
    OrtStatus*(ORT_API_CALL *Graph_GetParentNode)(const OrtGraph* graph, const OrtNode** node);
    void *unused_347_348[2];
    OrtStatus*(ORT_API_CALL *Node_GetName)(const OrtNode* node, const char** node_name);
    OrtStatus*(ORT_API_CALL *Node_GetOperatorType)(const OrtNode* node, const char** operator_type);
    OrtStatus*(ORT_API_CALL *Node_GetDomain)(const OrtNode* node, const char** domain_name);
    OrtStatus*(ORT_API_CALL *Node_GetSinceVersion)(const OrtNode* node, int* since_version);
    OrtStatus*(ORT_API_CALL *Node_GetNumInputs)(const OrtNode* node, size_t* num_inputs);
    OrtStatus*(ORT_API_CALL *Node_GetInputs)(const OrtNode* node, const OrtValueInfo** inputs, size_t num_inputs);
    OrtStatus*(ORT_API_CALL *Node_GetNumOutputs)(const OrtNode* node, size_t* num_outputs);
    OrtStatus*(ORT_API_CALL *Node_GetOutputs)(const OrtNode* node, const OrtValueInfo** outputs, size_t num_outputs);
    void *unused_357_358[2];
    OrtStatus*(ORT_API_CALL *Node_GetNumAttributes)(const OrtNode* node, size_t* num_attributes);
    OrtStatus*(ORT_API_CALL *Node_GetAttributes)(const OrtNode* node, const OrtOpAttr** attributes,
                                                 size_t num_attributes);
    OrtStatus*(ORT_API_CALL *Node_GetAttributeByName)(const OrtNode* node, const char* attribute_name,
                                                      const OrtOpAttr** attribute);
    OrtStatus*(ORT_API_CALL *OpAttr_GetTensorAttributeAsOrtValue)(const OrtOpAttr* attribute, OrtValue** attr_tensor);
    OrtStatus*(ORT_API_CALL *OpAttr_GetType)(const OrtOpAttr* attribute, OrtOpAttrType* type);
    OrtStatus*(ORT_API_CALL *OpAttr_GetName)(const OrtOpAttr* attribute, const char** name);
    void *unused_365_373[9];
    const OrtMemoryInfo*(ORT_API_CALL *EpDevice_MemoryInfo)(const OrtEpDevice* ep_device,
                                                            OrtDeviceMemoryType memory_type);
    OrtStatus*(ORT_API_CALL *CreateSharedAllocator)(OrtEnv* env, const OrtEpDevice* ep_device,
                                                    OrtDeviceMemoryType mem_type, OrtAllocatorType allocator_type,
                                                    const OrtKeyValuePairs* allocator_options,
                                                    OrtAllocator** allocator);
    OrtStatus*(ORT_API_CALL *GetSharedAllocator)(OrtEnv* env, const OrtMemoryInfo* mem_info, OrtAllocator** allocator);
    OrtStatus*(ORT_API_CALL *ReleaseSharedAllocator)(OrtEnv* env, const OrtEpDevice* ep_device,
                                                     OrtDeviceMemoryType mem_type);
    OrtStatus*(ORT_API_CALL *GetTensorData)(const OrtValue* value, const void** out);
    OrtStatus*(ORT_API_CALL *GetSessionOptionsConfigEntries)(const OrtSessionOptions* options, OrtKeyValuePairs** out);
    OrtStatus*(ORT_API_CALL *SessionGetMemoryInfoForInputs)(const OrtSession* session,
                                                            const OrtMemoryInfo** inputs_memory_info,
                                                            size_t num_inputs);
    OrtStatus*(ORT_API_CALL *SessionGetMemoryInfoForOutputs)(const OrtSession* session,
                                                             const OrtMemoryInfo** outputs_memory_info,
                                                             size_t num_outputs);
    OrtStatus*(ORT_API_CALL *SessionGetEpDeviceForInputs)(const OrtSession* session,
                                                          const OrtEpDevice** inputs_ep_devices, size_t num_inputs);
    OrtStatus*(ORT_API_CALL *CreateSyncStreamForEpDevice)(const OrtEpDevice* ep_device,
                                                          const OrtKeyValuePairs* stream_options,
                                                          OrtSyncStream** stream);
    void*(ORT_API_CALL *SyncStream_GetHandle)(OrtSyncStream* stream);
    void (ORT_API_CALL *ReleaseSyncStream)(OrtSyncStream* input);
    OrtStatus*(ORT_API_CALL *CopyTensors)(const OrtEnv* env, const OrtValue* const* src_tensors,
                                          OrtValue* const* dst_tensors, OrtSyncStream* stream, size_t num_tensors);
    void *unused_387_389[3];
    bool (ORT_API_CALL *TensorTypeAndShape_HasShape)(const OrtTensorTypeAndShapeInfo* info);
    void *unused_391_394[4];
    const OrtInteropApi*(ORT_API_CALL *GetInteropApi)(void);
    OrtStatus*(ORT_API_CALL *SessionGetEpDeviceForOutputs)(const OrtSession* session,
                                                           const OrtEpDevice** outputs_ep_devices, size_t num_outputs);
    void *unused_397_406[10];
    OrtStatus*(ORT_API_CALL *Session_GetEpGraphAssignmentInfo)(const OrtSession* session,
                                                               const OrtEpAssignedSubgraph* const** ep_subgraphs,
                                                               size_t* num_ep_subgraphs);
    OrtStatus*(ORT_API_CALL *EpAssignedSubgraph_GetEpName)(const OrtEpAssignedSubgraph* ep_subgraph, const char** out);
    OrtStatus*(ORT_API_CALL *EpAssignedSubgraph_GetNodes)(const OrtEpAssignedSubgraph* ep_subgraph,
                                                          const OrtEpAssignedNode* const** ep_nodes,
                                                          size_t* num_ep_nodes);
    OrtStatus*(ORT_API_CALL *EpAssignedNode_GetName)(const OrtEpAssignedNode* ep_node, const char** out);
    OrtStatus*(ORT_API_CALL *EpAssignedNode_GetDomain)(const OrtEpAssignedNode* ep_node, const char** out);
    OrtStatus*(ORT_API_CALL *EpAssignedNode_GetOperatorType)(const OrtEpAssignedNode* ep_node, const char** out);
    void (ORT_API_CALL *RunOptionsSetSyncStream)(OrtRunOptions* options, OrtSyncStream* sync_stream);
    OrtStatus*(ORT_API_CALL *GetTensorElementTypeAndShapeDataReference)(const OrtValue* value,
                                                                        ONNXTensorElementDataType* elem_type,
                                                                        const int64_t** shape_data,
                                                                        size_t* shape_data_count);
    void *unused_415_422[8];
    OrtStatus*(ORT_API_CALL *KernelContext_GetSyncStream)(const OrtKernelContext* context, OrtSyncStream** out);
    /* slots 424 and later are never read */
};

#define ORTVK_PIN_SLOT(member, slot)                                                                           \
    _Static_assert(offsetof(OrtApi, member) == (slot) * sizeof(void *), "OrtApi::" #member " is slot " #slot)
ORTVK_PIN_SLOT(CreateStatus, 0);
ORTVK_PIN_SLOT(GetErrorCode, 1);
ORTVK_PIN_SLOT(GetErrorMessage, 2);
ORTVK_PIN_SLOT(CreateEnv, 3);
ORTVK_PIN_SLOT(CreateSession, 7);
ORTVK_PIN_SLOT(CreateSessionFromArray, 8);
ORTVK_PIN_SLOT(Run, 9);
ORTVK_PIN_SLOT(CreateSessionOptions, 10);
ORTVK_PIN_SLOT(SetSessionExecutionMode, 13);
ORTVK_PIN_SLOT(EnableProfiling, 14);
ORTVK_PIN_SLOT(SetSessionGraphOptimizationLevel, 23);
ORTVK_PIN_SLOT(SetIntraOpNumThreads, 24);
ORTVK_PIN_SLOT(SessionGetInputCount, 30);
ORTVK_PIN_SLOT(SessionGetOutputCount, 31);
ORTVK_PIN_SLOT(SessionGetInputName, 36);
ORTVK_PIN_SLOT(SessionGetOutputName, 37);
ORTVK_PIN_SLOT(CreateRunOptions, 39);
ORTVK_PIN_SLOT(CreateTensorAsOrtValue, 48);
ORTVK_PIN_SLOT(CreateTensorWithDataAsOrtValue, 49);
ORTVK_PIN_SLOT(IsTensor, 50);
ORTVK_PIN_SLOT(GetTensorMutableData, 51);
ORTVK_PIN_SLOT(CastTypeInfoToTensorInfo, 55);
ORTVK_PIN_SLOT(GetOnnxTypeFromTypeInfo, 56);
ORTVK_PIN_SLOT(GetTensorElementType, 60);
ORTVK_PIN_SLOT(GetDimensionsCount, 61);
ORTVK_PIN_SLOT(GetDimensions, 62);
ORTVK_PIN_SLOT(GetTensorShapeElementCount, 64);
ORTVK_PIN_SLOT(GetTensorTypeAndShape, 65);
ORTVK_PIN_SLOT(CreateCpuMemoryInfo, 69);
ORTVK_PIN_SLOT(CompareMemoryInfo, 70);
ORTVK_PIN_SLOT(MemoryInfoGetName, 71);
ORTVK_PIN_SLOT(MemoryInfoGetId, 72);
ORTVK_PIN_SLOT(AllocatorAlloc, 75);
ORTVK_PIN_SLOT(AllocatorFree, 76);
ORTVK_PIN_SLOT(AllocatorGetInfo, 77);
ORTVK_PIN_SLOT(GetAllocatorWithDefaultOptions, 78);
ORTVK_PIN_SLOT(KernelContext_GetInputCount, 88);
ORTVK_PIN_SLOT(KernelContext_GetOutputCount, 89);
ORTVK_PIN_SLOT(KernelContext_GetInput, 90);
ORTVK_PIN_SLOT(KernelContext_GetOutput, 91);
ORTVK_PIN_SLOT(ReleaseEnv, 92);
ORTVK_PIN_SLOT(ReleaseStatus, 93);
ORTVK_PIN_SLOT(ReleaseMemoryInfo, 94);
ORTVK_PIN_SLOT(ReleaseSession, 95);
ORTVK_PIN_SLOT(ReleaseValue, 96);
ORTVK_PIN_SLOT(ReleaseRunOptions, 97);
ORTVK_PIN_SLOT(ReleaseTensorTypeAndShapeInfo, 99);
ORTVK_PIN_SLOT(ReleaseSessionOptions, 100);
ORTVK_PIN_SLOT(AddSessionConfigEntry, 130);
ORTVK_PIN_SLOT(CreateAllocator, 131);
ORTVK_PIN_SLOT(ReleaseAllocator, 132);
ORTVK_PIN_SLOT(AddRunConfigEntry, 165);
ORTVK_PIN_SLOT(KernelContext_GetGPUComputeStream, 193);
ORTVK_PIN_SLOT(GetTensorMemoryInfo, 194);
ORTVK_PIN_SLOT(SessionOptionsAppendExecutionProvider, 216);
ORTVK_PIN_SLOT(MemoryInfoGetDeviceType, 225);
ORTVK_PIN_SLOT(HasSessionConfigEntry, 237);
ORTVK_PIN_SLOT(GetSessionConfigEntry, 238);
ORTVK_PIN_SLOT(Logger_LogMessage, 247);
ORTVK_PIN_SLOT(Logger_GetLoggingSeverityLevel, 248);
ORTVK_PIN_SLOT(ReadOpAttr, 272);
ORTVK_PIN_SLOT(GetValueInfoName, 289);
ORTVK_PIN_SLOT(GetValueInfoTypeInfo, 290);
ORTVK_PIN_SLOT(CreateTensorWithDataAndDeleterAsOrtValue, 292);
ORTVK_PIN_SLOT(CreateKeyValuePairs, 295);
ORTVK_PIN_SLOT(AddKeyValuePair, 296);
ORTVK_PIN_SLOT(GetKeyValue, 297);
ORTVK_PIN_SLOT(GetKeyValuePairs, 298);
ORTVK_PIN_SLOT(ReleaseKeyValuePairs, 300);
ORTVK_PIN_SLOT(RegisterExecutionProviderLibrary, 301);
ORTVK_PIN_SLOT(UnregisterExecutionProviderLibrary, 302);
ORTVK_PIN_SLOT(GetEpDevices, 303);
ORTVK_PIN_SLOT(SessionOptionsAppendExecutionProvider_V2, 304);
ORTVK_PIN_SLOT(HardwareDevice_Type, 307);
ORTVK_PIN_SLOT(HardwareDevice_VendorId, 308);
ORTVK_PIN_SLOT(HardwareDevice_Vendor, 309);
ORTVK_PIN_SLOT(HardwareDevice_DeviceId, 310);
ORTVK_PIN_SLOT(HardwareDevice_Metadata, 311);
ORTVK_PIN_SLOT(EpDevice_EpName, 312);
ORTVK_PIN_SLOT(EpDevice_EpVendor, 313);
ORTVK_PIN_SLOT(EpDevice_EpMetadata, 314);
ORTVK_PIN_SLOT(EpDevice_EpOptions, 315);
ORTVK_PIN_SLOT(EpDevice_Device, 316);
ORTVK_PIN_SLOT(GetEpApi, 317);
ORTVK_PIN_SLOT(GetTensorSizeInBytes, 318);
ORTVK_PIN_SLOT(CreateMemoryInfo_V2, 320);
ORTVK_PIN_SLOT(MemoryInfoGetVendorId, 322);
ORTVK_PIN_SLOT(ValueInfo_GetValueProducer, 323);
ORTVK_PIN_SLOT(ValueInfo_GetValueNumConsumers, 324);
ORTVK_PIN_SLOT(ValueInfo_GetInitializerValue, 326);
ORTVK_PIN_SLOT(ValueInfo_IsGraphOutput, 330);
ORTVK_PIN_SLOT(ValueInfo_IsConstantInitializer, 331);
ORTVK_PIN_SLOT(Graph_GetNumNodes, 344);
ORTVK_PIN_SLOT(Graph_GetNodes, 345);
/* 346: with NULL arguments both runtimes answer "'node' argument is NULL" (its out parameter); Node_GetName is 349. */
ORTVK_PIN_SLOT(Graph_GetParentNode, 346);
ORTVK_PIN_SLOT(Node_GetName, 349);
ORTVK_PIN_SLOT(Node_GetOperatorType, 350);
ORTVK_PIN_SLOT(Node_GetDomain, 351);
ORTVK_PIN_SLOT(Node_GetSinceVersion, 352);
ORTVK_PIN_SLOT(Node_GetNumInputs, 353);
ORTVK_PIN_SLOT(Node_GetInputs, 354);
ORTVK_PIN_SLOT(Node_GetNumOutputs, 355);
ORTVK_PIN_SLOT(Node_GetOutputs, 356);
ORTVK_PIN_SLOT(Node_GetNumAttributes, 359);
ORTVK_PIN_SLOT(Node_GetAttributes, 360);
ORTVK_PIN_SLOT(Node_GetAttributeByName, 361);
ORTVK_PIN_SLOT(OpAttr_GetTensorAttributeAsOrtValue, 362);
ORTVK_PIN_SLOT(OpAttr_GetType, 363);
ORTVK_PIN_SLOT(OpAttr_GetName, 364);
ORTVK_PIN_SLOT(EpDevice_MemoryInfo, 374);
ORTVK_PIN_SLOT(CreateSharedAllocator, 375);
ORTVK_PIN_SLOT(GetSharedAllocator, 376);
ORTVK_PIN_SLOT(ReleaseSharedAllocator, 377);
ORTVK_PIN_SLOT(GetTensorData, 378);
/* 379: with NULL arguments both runtimes answer "options is nullptr"; GetTensorData is 378. */
ORTVK_PIN_SLOT(GetSessionOptionsConfigEntries, 379);
ORTVK_PIN_SLOT(SessionGetMemoryInfoForInputs, 380);
ORTVK_PIN_SLOT(SessionGetMemoryInfoForOutputs, 381);
ORTVK_PIN_SLOT(SessionGetEpDeviceForInputs, 382);
ORTVK_PIN_SLOT(CreateSyncStreamForEpDevice, 383);
ORTVK_PIN_SLOT(SyncStream_GetHandle, 384);
ORTVK_PIN_SLOT(ReleaseSyncStream, 385);
ORTVK_PIN_SLOT(CopyTensors, 386);
ORTVK_PIN_SLOT(TensorTypeAndShape_HasShape, 390);
ORTVK_PIN_SLOT(GetInteropApi, 395);
ORTVK_PIN_SLOT(SessionGetEpDeviceForOutputs, 396);
ORTVK_PIN_SLOT(Session_GetEpGraphAssignmentInfo, 407);
ORTVK_PIN_SLOT(EpAssignedSubgraph_GetEpName, 408);
ORTVK_PIN_SLOT(EpAssignedSubgraph_GetNodes, 409);
ORTVK_PIN_SLOT(EpAssignedNode_GetName, 410);
ORTVK_PIN_SLOT(EpAssignedNode_GetDomain, 411);
ORTVK_PIN_SLOT(EpAssignedNode_GetOperatorType, 412);
ORTVK_PIN_SLOT(RunOptionsSetSyncStream, 413);
ORTVK_PIN_SLOT(GetTensorElementTypeAndShapeDataReference, 414);
ORTVK_PIN_SLOT(KernelContext_GetSyncStream, 423);

/* On every ortvk function that returns an OrtStatus *: a status dropped on the floor is a failure nobody hears of,
 * and a leak. */
#if defined(__GNUC__)
#define ORTVK_MUST_CHECK __attribute__((warn_unused_result))
#else
#define ORTVK_MUST_CHECK
#endif

/* ortvk's objects that ORT knows by an ORT base struct (OrtEp, OrtEpFactory, OrtSyncStreamImpl, ...) hold it as their
 * first member, `base`: ORT hands back a pointer to the base, and `name` turns it into the object. As Mesa's
 * VK_DEFINE_HANDLE_CASTS: the layout is asserted where the cast is defined, and nowhere else casts by hand. */
#define ORTVK_DEFINE_BASE_CAST(name, type, base_type)                                                          \
    _Static_assert(offsetof(type, base) == 0, #type ": ORT's base struct comes first");                       \
    static inline type *name(const base_type *base)                                                            \
    {                                                                                                          \
        return (type *)base;                                                                                   \
    }

/* The structs an EP implements, OrtEpApi and OrtInteropApi. */
#include "ort_abi_ep.h" /* beside this file: also built from examples/ort_stand_in */

#ifdef __cplusplus
}
#endif

#endif
