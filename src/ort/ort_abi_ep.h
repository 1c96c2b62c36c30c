/* Private to ortvk; included by ort/ort_abi.h, whose types it uses (include that one). Our declarations of what an
 * EP implements (the Impl structs, OrtEp, OrtEpFactory), of OrtEpApi (what ORT offers an EP) and of OrtInteropApi
 * (the application side of import), each slot ortvk uses pinned by a static assertion. */
#ifndef ORTVK_ORT_ABI_EP_H
#define ORTVK_ORT_ABI_EP_H

/* ---- what an EP implements ------------------------------------------------------------------------------ */

typedef struct OrtDataTransferImpl OrtDataTransferImpl;
struct OrtDataTransferImpl {
    uint32_t ort_version_supported;
    void (ORT_API_CALL *Release)(OrtDataTransferImpl *self);
    bool (ORT_API_CALL *CanCopy)(const OrtDataTransferImpl *self, const OrtMemoryDevice *src,
                                 const OrtMemoryDevice *dst);
    OrtStatus *(ORT_API_CALL *CopyTensors)(OrtDataTransferImpl *self, const OrtValue **src, OrtValue **dst,
                                           OrtSyncStream **streams, size_t count);
};

typedef struct OrtSyncNotificationImpl OrtSyncNotificationImpl;
struct OrtSyncNotificationImpl {
    uint32_t ort_version_supported;
    void (ORT_API_CALL *Release)(OrtSyncNotificationImpl *self);
    OrtStatus *(ORT_API_CALL *Activate)(OrtSyncNotificationImpl *self);
    OrtStatus *(ORT_API_CALL *WaitOnDevice)(OrtSyncNotificationImpl *self, OrtSyncStream *consumer);
    OrtStatus *(ORT_API_CALL *WaitOnHost)(OrtSyncNotificationImpl *self);
};

typedef struct OrtSyncStreamImpl OrtSyncStreamImpl;
struct OrtSyncStreamImpl {
    uint32_t ort_version_supported;
    void (ORT_API_CALL *Release)(OrtSyncStreamImpl *self);
    void *(ORT_API_CALL *GetHandle)(OrtSyncStreamImpl *self);
    OrtStatus *(ORT_API_CALL *CreateNotification)(OrtSyncStreamImpl *self, OrtSyncNotificationImpl **out);
    OrtStatus *(ORT_API_CALL *Flush)(OrtSyncStreamImpl *self);
    OrtStatus *(ORT_API_CALL *OnSessionRunEnd)(OrtSyncStreamImpl *self);
};

typedef struct OrtExternalResourceImporterImpl OrtExternalResourceImporterImpl;
struct OrtExternalResourceImporterImpl {
    uint32_t ort_version_supported;
    bool (ORT_API_CALL *CanImportMemory)(const OrtExternalResourceImporterImpl *self,
                                         OrtExternalMemoryHandleType type);
    OrtStatus *(ORT_API_CALL *ImportMemory)(OrtExternalResourceImporterImpl *self,
                                            const OrtExternalMemoryDescriptor *desc, OrtExternalMemoryHandle **out);
    void (ORT_API_CALL *ReleaseMemory)(OrtExternalResourceImporterImpl *self, OrtExternalMemoryHandle *handle);
    OrtStatus *(ORT_API_CALL *CreateTensorFromMemory)(OrtExternalResourceImporterImpl *self,
                                                      const OrtExternalMemoryHandle *memory,
                                                      const OrtExternalTensorDescriptor *desc, OrtValue **out);
    bool (ORT_API_CALL *CanImportSemaphore)(const OrtExternalResourceImporterImpl *self,
                                            OrtExternalSemaphoreType type);
    OrtStatus *(ORT_API_CALL *ImportSemaphore)(OrtExternalResourceImporterImpl *self,
                                               const OrtExternalSemaphoreDescriptor *desc,
                                               OrtExternalSemaphoreHandle **out);
    void (ORT_API_CALL *ReleaseSemaphore)(OrtExternalResourceImporterImpl *self, OrtExternalSemaphoreHandle *handle);
    OrtStatus *(ORT_API_CALL *WaitSemaphore)(OrtExternalResourceImporterImpl *self, OrtExternalSemaphoreHandle *handle,
                                             OrtSyncStream *stream, uint64_t value);
    OrtStatus *(ORT_API_CALL *SignalSemaphore)(OrtExternalResourceImporterImpl *self,
                                               OrtExternalSemaphoreHandle *handle, OrtSyncStream *stream,
                                               uint64_t value);
    void (ORT_API_CALL *Release)(OrtExternalResourceImporterImpl *self);
};

/* How ORT fuses the nodes an EP claims with EpGraphSupportInfo_AddNodesToFuse. */
typedef struct OrtNodeFusionOptions {
    uint32_t ort_version_supported;
    bool drop_constant_initializers; /* true: constant initializers are not inputs of the fused node */
} OrtNodeFusionOptions;

/* What Compile returns per fused node: ORT calls CreateState once per session, Compute once per run. */
struct OrtNodeComputeInfo {
    uint32_t ort_version_supported;
    OrtStatus *(ORT_API_CALL *CreateState)(OrtNodeComputeInfo *self, OrtNodeComputeContext *context, void **state);
    OrtStatus *(ORT_API_CALL *Compute)(OrtNodeComputeInfo *self, void *state, OrtKernelContext *context);
    void (ORT_API_CALL *ReleaseState)(OrtNodeComputeInfo *self, void *state);
};
_Static_assert(sizeof(OrtNodeComputeInfo) == 32, "OrtNodeComputeInfo layout");

/* ORT's profiler and an EP's events in it (ORT >= 1.30 calls OrtEp::CreateProfiler; slots checked on 1.30.0). */
typedef enum OrtProfilingEventCategory {
    OrtProfilingEventCategory_SESSION = 0,
    OrtProfilingEventCategory_NODE = 1,
    OrtProfilingEventCategory_KERNEL = 2,
    OrtProfilingEventCategory_API = 3,
} OrtProfilingEventCategory;
typedef struct OrtProfilingEvent OrtProfilingEvent;
typedef struct OrtProfilingEventsContainer OrtProfilingEventsContainer;

typedef struct OrtEpProfilerImpl OrtEpProfilerImpl;
struct OrtEpProfilerImpl {
    uint32_t ort_version_supported;
    void (ORT_API_CALL *Release)(OrtEpProfilerImpl *self);
    /* Offset of this call from the start of ORT's profile (ORT's events are in microseconds from that start). */
    OrtStatus *(ORT_API_CALL *StartProfiling)(OrtEpProfilerImpl *self, int64_t ep_profiling_start_offset_ns);
    OrtStatus *(ORT_API_CALL *StartEvent)(OrtEpProfilerImpl *self, uint64_t ort_event_correlation_id);
    OrtStatus *(ORT_API_CALL *StopEvent)(OrtEpProfilerImpl *self, uint64_t ort_event_correlation_id,
                                         const OrtProfilingEvent *ort_event);
    OrtStatus *(ORT_API_CALL *EndProfiling)(OrtEpProfilerImpl *self, OrtProfilingEventsContainer *events);
};

typedef struct OrtEp OrtEp;
struct OrtEp {
    uint32_t ort_version_supported;
    const char *(ORT_API_CALL *GetName)(const OrtEp *self);
    OrtStatus *(ORT_API_CALL *GetCapability)(OrtEp *self, const OrtGraph *graph, OrtEpGraphSupportInfo *info);
    OrtStatus *(ORT_API_CALL *Compile)(OrtEp *self, const OrtGraph **graphs, const OrtNode **fused_nodes,
                                       size_t count, OrtNodeComputeInfo **compute_infos, OrtNode **ep_context_nodes);
    void (ORT_API_CALL *ReleaseNodeComputeInfos)(OrtEp *self, OrtNodeComputeInfo **infos, size_t count);
    OrtStatus *(ORT_API_CALL *GetPreferredDataLayout)(OrtEp *self, OrtEpDataLayout *out);
    ortvk_ort_unused_fn ShouldConvertDataLayoutForOp;
    ortvk_ort_unused_fn SetDynamicOptions;
    OrtStatus *(ORT_API_CALL *OnRunStart)(OrtEp *self, const OrtRunOptions *run_options);
    OrtStatus *(ORT_API_CALL *OnRunEnd)(OrtEp *self, const OrtRunOptions *run_options, bool sync_stream);
    OrtStatus *(ORT_API_CALL *CreateAllocator)(OrtEp *self, const OrtMemoryInfo *info, OrtAllocator **out);
    OrtStatus *(ORT_API_CALL *CreateSyncStreamForDevice)(OrtEp *self, const OrtMemoryDevice *device,
                                                         OrtSyncStreamImpl **out);
    ortvk_ort_unused_fn GetCompiledModelCompatibilityInfo;
    ortvk_ort_unused_fn GetKernelRegistry;                 /* 1.24 */
    ortvk_ort_unused_fn IsConcurrentRunSupported;          /* later members: left NULL, all optional */
    ortvk_ort_unused_fn Sync;
    OrtStatus *(ORT_API_CALL *CreateProfiler)(OrtEp *self, OrtEpProfilerImpl **out); /* read by ORT 1.30 */
    ortvk_ort_unused_fn IsGraphCaptureEnabled;
    ortvk_ort_unused_fn IsGraphCaptured;
    ortvk_ort_unused_fn ReplayGraph;
    ortvk_ort_unused_fn GetGraphCaptureNodeAssignmentPolicy;
    ortvk_ort_unused_fn GetAvailableResource;
    ortvk_ort_unused_fn OnSessionInitializationEnd;
    ortvk_ort_unused_fn GetDefaultMemoryDevice;
    ortvk_ort_unused_fn ReleaseCapturedGraph;
    ortvk_ort_unused_fn GetWeightlessSupport;
};

typedef struct OrtEpFactory OrtEpFactory;
struct OrtEpFactory {
    uint32_t ort_version_supported;
    const char *(ORT_API_CALL *GetName)(const OrtEpFactory *self);
    const char *(ORT_API_CALL *GetVendor)(const OrtEpFactory *self);
    OrtStatus *(ORT_API_CALL *GetSupportedDevices)(OrtEpFactory *self, const OrtHardwareDevice *const *devices,
                                                   size_t device_count, OrtEpDevice **ep_devices,
                                                   size_t max_ep_devices, size_t *ep_device_count);
    OrtStatus *(ORT_API_CALL *CreateEp)(OrtEpFactory *self, const OrtHardwareDevice *const *devices,
                                        const OrtKeyValuePairs *const *ep_metadata, size_t device_count,
                                        const OrtSessionOptions *session_options, const OrtLogger *logger,
                                        OrtEp **out);
    void (ORT_API_CALL *ReleaseEp)(OrtEpFactory *self, OrtEp *ep);
    uint32_t (ORT_API_CALL *GetVendorId)(const OrtEpFactory *self);                          /* 1.23 */
    const char *(ORT_API_CALL *GetVersion)(const OrtEpFactory *self);
    ortvk_ort_unused_fn ValidateCompiledModelCompatibilityInfo;
    OrtStatus *(ORT_API_CALL *CreateAllocator)(OrtEpFactory *self, const OrtMemoryInfo *info,
                                               const OrtKeyValuePairs *options, OrtAllocator **out);
    void (ORT_API_CALL *ReleaseAllocator)(OrtEpFactory *self, OrtAllocator *allocator);
    OrtStatus *(ORT_API_CALL *CreateDataTransfer)(OrtEpFactory *self, OrtDataTransferImpl **out);
    bool (ORT_API_CALL *IsStreamAware)(const OrtEpFactory *self);
    OrtStatus *(ORT_API_CALL *CreateSyncStreamForDevice)(OrtEpFactory *self, const OrtMemoryDevice *device,
                                                         const OrtKeyValuePairs *options, OrtSyncStreamImpl **out);
    ortvk_ort_unused_fn GetHardwareDeviceIncompatibilityDetails;                              /* 1.24 */
    OrtStatus *(ORT_API_CALL *CreateExternalResourceImporterForDevice)(OrtEpFactory *self,
                                                                       const OrtEpDevice *ep_device,
                                                                       OrtExternalResourceImporterImpl **out);
    OrtStatus *(ORT_API_CALL *GetNumCustomOpDomains)(OrtEpFactory *self, size_t *count);
    OrtStatus *(ORT_API_CALL *GetCustomOpDomains)(OrtEpFactory *self, OrtCustomOpDomain **domains, size_t count);
    OrtStatus *(ORT_API_CALL *InitGraphicsInterop)(OrtEpFactory *self, const OrtEpDevice *ep_device,
                                                   const OrtGraphicsInteropConfig *config);  /* 1.25 */
    OrtStatus *(ORT_API_CALL *DeinitGraphicsInterop)(OrtEpFactory *self, const OrtEpDevice *ep_device);
    ortvk_ort_unused_fn SelectBestModelCandidate;                                            /* 1.30 */
};

#define ORTVK_PIN(type, member, slot)                                                                          \
    _Static_assert(offsetof(type, member) == 8 + ((slot) - 1) * sizeof(void *), #type "::" #member " is slot " #slot)
/* Slot 0 is the uint32_t version padded to 8 bytes; function pointers follow. */
ORTVK_PIN(OrtEpFactory, GetName, 1);
ORTVK_PIN(OrtEpFactory, CreateSyncStreamForDevice, 13);
ORTVK_PIN(OrtEpFactory, CreateExternalResourceImporterForDevice, 15);
ORTVK_PIN(OrtEpFactory, InitGraphicsInterop, 18);
ORTVK_PIN(OrtEpFactory, SelectBestModelCandidate, 20);
ORTVK_PIN(OrtEp, CreateSyncStreamForDevice, 11);
ORTVK_PIN(OrtEp, CreateProfiler, 16);
ORTVK_PIN(OrtEp, GetWeightlessSupport, 25);
ORTVK_PIN(OrtExternalResourceImporterImpl, Release, 10);
ORTVK_PIN(OrtSyncStreamImpl, OnSessionRunEnd, 5);
_Static_assert(offsetof(OrtExternalMemoryHandle, Release) == 48, "OrtExternalMemoryHandle layout");
_Static_assert(offsetof(OrtExternalSemaphoreHandle, Release) == 32, "OrtExternalSemaphoreHandle layout");
_Static_assert(sizeof(OrtExternalTensorDescriptor) == 32, "OrtExternalTensorDescriptor layout");

/* ---- OrtEpApi (what ORT offers an EP) -------------------------------------------------------------------- */

struct OrtEpApi {
    OrtStatus *(ORT_API_CALL *CreateEpDevice)(OrtEpFactory *factory, const OrtHardwareDevice *hardware,
                                              const OrtKeyValuePairs *ep_metadata,
                                              const OrtKeyValuePairs *ep_options, OrtEpDevice **out);
    void (ORT_API_CALL *ReleaseEpDevice)(OrtEpDevice *device);
    OrtStatus *(ORT_API_CALL *EpGraphSupportInfo_AddNodesToFuse)(OrtEpGraphSupportInfo *info,
                                                                 const OrtNode *const *nodes, size_t num_nodes,
                                                                 const OrtNodeFusionOptions *options);
    ortvk_ort_unused_fn EpGraphSupportInfo_AddSingleNode;
    const char *(ORT_API_CALL *NodeComputeContext_NodeName)(OrtNodeComputeContext *context);
    OrtStatus *(ORT_API_CALL *EpDevice_AddAllocatorInfo)(OrtEpDevice *device, const OrtMemoryInfo *info);
    const OrtMemoryDevice *(ORT_API_CALL *MemoryInfo_GetMemoryDevice)(const OrtMemoryInfo *info);
    const OrtMemoryDevice *(ORT_API_CALL *Value_GetMemoryDevice)(const OrtValue *value);
    bool (ORT_API_CALL *MemoryDevice_AreEqual)(const OrtMemoryDevice *a, const OrtMemoryDevice *b);
    OrtMemoryInfoDeviceType (ORT_API_CALL *MemoryDevice_GetDeviceType)(const OrtMemoryDevice *device);
    OrtDeviceMemoryType (ORT_API_CALL *MemoryDevice_GetMemoryType)(const OrtMemoryDevice *device);
    uint32_t (ORT_API_CALL *MemoryDevice_GetVendorId)(const OrtMemoryDevice *device);
    uint32_t (ORT_API_CALL *MemoryDevice_GetDeviceId)(const OrtMemoryDevice *device);
    const OrtSyncStreamImpl *(ORT_API_CALL *SyncStream_GetImpl)(const OrtSyncStream *stream);
    ortvk_ort_unused_fn SyncStream_GetSyncId;
    ortvk_ort_unused_fn GetSyncIdForLastWaitOnSyncStream;
    OrtStatus *(ORT_API_CALL *CreateHardwareDevice)(OrtHardwareDeviceType type, uint32_t vendor_id,
                                                    uint32_t device_id, const char *vendor_name,
                                                    const OrtKeyValuePairs *metadata, OrtHardwareDevice **out);
    void (ORT_API_CALL *ReleaseHardwareDevice)(OrtHardwareDevice *device);
    void *unused_18_64[47];
    OrtStatus *(ORT_API_CALL *CreateProfilingEvent)(OrtProfilingEventCategory category, int32_t process_id,
                                                    int32_t thread_id, const char *event_name, int64_t timestamp_us,
                                                    int64_t duration_us, const char *const *arg_keys,
                                                    const char *const *arg_values, size_t num_args,
                                                    OrtProfilingEvent **out);
    void (ORT_API_CALL *ReleaseProfilingEvent)(OrtProfilingEvent *event);
    void *unused_67_71[5];
    OrtStatus *(ORT_API_CALL *ProfilingEventsContainer_AddEvents)(OrtProfilingEventsContainer *container,
                                                                  const OrtProfilingEvent *const *events,
                                                                  size_t num_events);
};

#define ORTVK_PIN_EP(member, slot)                                                                             \
    _Static_assert(offsetof(OrtEpApi, member) == (slot) * sizeof(void *), "OrtEpApi::" #member " is slot " #slot)
ORTVK_PIN_EP(EpGraphSupportInfo_AddNodesToFuse, 2);
ORTVK_PIN_EP(NodeComputeContext_NodeName, 4);
ORTVK_PIN_EP(EpDevice_AddAllocatorInfo, 5);
ORTVK_PIN_EP(SyncStream_GetImpl, 13);
ORTVK_PIN_EP(CreateHardwareDevice, 16);
/* Checked on 1.30.0 by calling each slot with NULL arguments (the message names the function's parameter). */
ORTVK_PIN_EP(CreateProfilingEvent, 65);
ORTVK_PIN_EP(ReleaseProfilingEvent, 66);
ORTVK_PIN_EP(ProfilingEventsContainer_AddEvents, 72);

/* ---- OrtInteropApi (the application side of import) ------------------------------------------------------ */

struct OrtInteropApi {
    OrtStatus *(ORT_API_CALL *CreateExternalResourceImporterForDevice)(const OrtEpDevice *ep_device,
                                                                       OrtExternalResourceImporter **out);
    void (ORT_API_CALL *ReleaseExternalResourceImporter)(OrtExternalResourceImporter *importer);
    OrtStatus *(ORT_API_CALL *CanImportMemory)(const OrtExternalResourceImporter *importer,
                                               OrtExternalMemoryHandleType type, bool *out);
    OrtStatus *(ORT_API_CALL *ImportMemory)(OrtExternalResourceImporter *importer,
                                            const OrtExternalMemoryDescriptor *desc, OrtExternalMemoryHandle **out);
    void (ORT_API_CALL *ReleaseExternalMemoryHandle)(OrtExternalMemoryHandle *handle);
    OrtStatus *(ORT_API_CALL *CreateTensorFromMemory)(OrtExternalResourceImporter *importer,
                                                      const OrtExternalMemoryHandle *memory,
                                                      const OrtExternalTensorDescriptor *desc, OrtValue **out);
    OrtStatus *(ORT_API_CALL *CanImportSemaphore)(const OrtExternalResourceImporter *importer,
                                                  OrtExternalSemaphoreType type, bool *out);
    OrtStatus *(ORT_API_CALL *ImportSemaphore)(OrtExternalResourceImporter *importer,
                                               const OrtExternalSemaphoreDescriptor *desc,
                                               OrtExternalSemaphoreHandle **out);
    void (ORT_API_CALL *ReleaseExternalSemaphoreHandle)(OrtExternalSemaphoreHandle *handle);
    OrtStatus *(ORT_API_CALL *WaitSemaphore)(OrtExternalResourceImporter *importer, OrtExternalSemaphoreHandle *handle,
                                             OrtSyncStream *stream, uint64_t value);
    OrtStatus *(ORT_API_CALL *SignalSemaphore)(OrtExternalResourceImporter *importer,
                                               OrtExternalSemaphoreHandle *handle, OrtSyncStream *stream,
                                               uint64_t value);
    OrtStatus *(ORT_API_CALL *InitGraphicsInteropForEpDevice)(const OrtEpDevice *ep_device,
                                                              const OrtGraphicsInteropConfig *config); /* 1.25 */
    OrtStatus *(ORT_API_CALL *DeinitGraphicsInteropForEpDevice)(const OrtEpDevice *ep_device);       /* 1.25 */
};

_Static_assert(offsetof(OrtInteropApi, SignalSemaphore) == 10 * sizeof(void *), "OrtInteropApi layout");

#endif
