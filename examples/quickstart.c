/* quickstart.c: ONNX Runtime runs a model through ortvk on memory the application owns, ordered by a semaphore.
 * Build: cc -std=c11 quickstart.c $(pkg-config --cflags ortvk) -I$ORT/include -L$ORT/lib -lonnxruntime
 * Run:   ./a.out "$(pkg-config --variable=plugin ortvk)" test_relu/model.onnx   (x, y: float[3,4,5]) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <onnxruntime_c_api.h> /* ONNX Runtime's own header, from its release archive */
#include <ortvk.h>

static const OrtApi *ort;
#define CHECK(call)                                                                                            \
    do {                                                                                                       \
        OrtStatus *s_ = (call);                                                                                \
        if (s_) fprintf(stderr, "%s: %s\n", #call, ort->GetErrorMessage(s_)), exit(1);                        \
    } while (0)

int main(int argc, char **argv)
{
    if (argc < 3) return fprintf(stderr, "usage: %s /abs/path/libortvk.so.0 model.onnx [deviceUUID]\n", argv[0]), 2;

    /* 1. The API tables: the runtime's own version ("1.24.3" -> 24; 1.24 is the first with OrtInteropApi), capped
     *    at this header's, so a header newer than the runtime works too. */
    const OrtApiBase *base = OrtGetApiBase();
    uint32_t api = (uint32_t)atoi(base->GetVersionString() + 2);
    if (api > ORT_API_VERSION) api = ORT_API_VERSION;
    ort = api >= 24 ? base->GetApi(api) : NULL;
    if (ort == NULL) return fprintf(stderr, "ONNX Runtime %s is older than 1.24\n", base->GetVersionString()), 1;
    const OrtInteropApi *interop = ort->GetInteropApi();

    /* 2. Register the plugin by its absolute path: ONNX Runtime looks for a relative one next to itself. */
    OrtEnv *env;
    CHECK(ort->CreateEnv(ORT_LOGGING_LEVEL_WARNING, "quickstart", &env));
    CHECK(ort->RegisterExecutionProviderLibrary(env, ORTVK_EP_NAME, argv[1]));

    /* 3. ortvk's EP device: the first (most capable) one, or the one whose deviceUUID is your renderer's. */
    const OrtEpDevice *const *all, *device = NULL;
    size_t n;
    CHECK(ort->GetEpDevices(env, &all, &n));
    for (size_t i = 0; i < n && device == NULL; i++) {
        const char *uuid = ort->GetKeyValue(ort->EpDevice_EpMetadata(all[i]), ORTVK_META_DEVICE_UUID);
        if (strcmp(ort->EpDevice_EpName(all[i]), ORTVK_EP_NAME) == 0 && (argc < 4 || (uuid && !strcmp(uuid, argv[3]))))
            device = all[i];
    }
    if (device == NULL) return fprintf(stderr, "no ortvk EP device%s%s\n", argc > 3 ? " with UUID " : "",
                                       argc > 3 ? argv[3] : ""), 1;

    /* 4. A session with ortvk appended (nodes it cannot run go to ORT's CPU EP). */
    OrtSessionOptions *options;
    OrtSession *session;
    CHECK(ort->CreateSessionOptions(&options));
    CHECK(ort->SessionOptionsAppendExecutionProvider_V2(options, env, &device, 1, NULL, NULL, 0));
    CHECK(ort->CreateSession(env, argv[2], options, &session));

    /* 5. Import the memory once, then view it as tensors: the input at byte 0, the output at byte 4096. Here it is
     *    a page-aligned host allocation; a Vulkan renderer passes MEMORY_OPAQUE_FD and its vkGetMemoryFdKHR fd. */
    OrtExternalResourceImporter *importer;
    CHECK(interop->CreateExternalResourceImporterForDevice(device, &importer));
    size_t page = (size_t)sysconf(_SC_PAGESIZE), size = 2 * page; /* page >= 4096 */
    float *pages = aligned_alloc(page, size);
    OrtExternalMemoryDescriptor md = {.version = api, .handle_type = ORT_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION,
                                      .native_handle = pages, .size_bytes = size};
    OrtExternalMemoryHandle *memory;
    CHECK(interop->ImportMemory(importer, &md, &memory));
    const int64_t shape[3] = {3, 4, 5};
    OrtExternalTensorDescriptor in_td = {.version = api, .element_type = ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT,
                                         .shape = shape, .rank = 3, .offset_bytes = 0};
    OrtExternalTensorDescriptor out_td = in_td;
    out_td.offset_bytes = 4096;
    OrtValue *input, *output;
    CHECK(interop->CreateTensorFromMemory(importer, memory, &in_td, &input));
    CHECK(interop->CreateTensorFromMemory(importer, memory, &out_td, &output)); /* imported output: see README */

    /* 6. The semaphore: an ortvk host timeline the producer signals (a renderer imports its Vulkan timeline). */
    ortvk_host_timeline *timeline;
    if (ortvk_host_timeline_create(0, &timeline) != 0) return fprintf(stderr, "host timeline\n"), 1;
    OrtExternalSemaphoreDescriptor sd = {.version = api,
                                         .type = (OrtExternalSemaphoreType)ORTVK_EXTERNAL_SEMAPHORE_HOST_TIMELINE,
                                         .native_handle = (void *)(intptr_t)ortvk_host_timeline_fd(timeline)};
    OrtExternalSemaphoreHandle *ready;
    CHECK(interop->ImportSemaphore(importer, &sd, &ready));

    /* 7. A stream of the device, given to Run, which then returns once the work is queued. */
    OrtSyncStream *stream;
    OrtRunOptions *run_options;
    CHECK(ort->CreateSyncStreamForEpDevice(device, NULL, &stream));
    CHECK(ort->CreateRunOptions(&run_options));
    ort->RunOptionsSetSyncStream(run_options, stream);
    CHECK(ort->AddRunConfigEntry(run_options, "disable_synchronize_execution_providers", "1"));

    /* 8. Queue frame 1: wait for 1, run, signal 2. Nothing blocks: the input is not even written yet. */
    const char *in_names[] = {"x"}, *out_names[] = {"y"};
    CHECK(interop->WaitSemaphore(importer, ready, stream, 1));
    CHECK(ort->Run(session, run_options, in_names, (const OrtValue *const *)&input, 1, out_names, 1, &output));
    CHECK(interop->SignalSemaphore(importer, ready, stream, 2));

    /* 9. The producer writes the frame and signals 1; the consumer waits for 2 and reads the output in place. */
    for (int i = 0; i < 60; i++) pages[i] = (float)(i - 30);
    ortvk_host_timeline_signal(timeline, 1);
    int failed = ortvk_host_timeline_wait(timeline, 2, 10ull * 1000 * 1000 * 1000) != 0;
    for (int i = 0; i < 60 && !failed; i++) failed = pages[1024 + i] != (i > 30 ? (float)(i - 30) : 0.0f);
    printf("ONNX Runtime %s, %s: relu %s\n", base->GetVersionString(),
           ort->GetKeyValue(ort->EpDevice_EpMetadata(device), ORTVK_META_DEVICE_NAME), failed ? "WRONG" : "ok");

    /* 10. Release: tensors, handles, stream, importer, session, then the memory the tensors viewed. */
    ort->ReleaseValue(input);
    ort->ReleaseValue(output);
    interop->ReleaseExternalMemoryHandle(memory);
    interop->ReleaseExternalSemaphoreHandle(ready);
    ort->ReleaseRunOptions(run_options);
    ort->ReleaseSyncStream(stream);
    interop->ReleaseExternalResourceImporter(importer);
    ort->ReleaseSession(session);
    ort->ReleaseSessionOptions(options);
    CHECK(ort->UnregisterExecutionProviderLibrary(env, ORTVK_EP_NAME));
    ort->ReleaseEnv(env);
    ortvk_host_timeline_close(timeline);
    free(pages);
    return failed;
}
