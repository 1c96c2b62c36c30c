/* zero_copy: the application side of ortvk, complete. A CPU producer thread writes frames into a page-aligned
 * buffer and signals an ortvk host timeline; ONNX Runtime, through ortvk, runs ONNX's Relu test model on those
 * pages in place (no copy by the application) ordered by WaitSemaphore/SignalSemaphore on an ortvk stream, and
 * writes its output into the same imported allocation. The main thread never waits for the producer.
 *
 *   usage: zero_copy [libonnxruntime.so.1] [libortvk.so] [model.onnx]
 *
 * It includes ONNX Runtime's onnxruntime_c_api.h (CMake's ORTVK_ORT_INCLUDE_DIR, else ortvk's stand-in in
 * examples/ort_stand_in) and loads the runtime named on the command line with dlopen, so one build runs on each. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <onnxruntime_c_api.h>
#include "ortvk.h"

#define FRAMES 8
#define COUNT 60 /* the model's x and y are float[3,4,5] */
#define OUTPUT_OFFSET 4096

static const OrtApi *ort;
static const OrtInteropApi *interop;

#define CHECK_ORT(expr)                                                                                        \
    do {                                                                                                       \
        OrtStatus *s_ = (expr);                                                                                \
        if (s_ != NULL) {                                                                                      \
            fprintf(stderr, "%s failed: %s\n", #expr, ort->GetErrorMessage(s_));                               \
            exit(1);                                                                                           \
        }                                                                                                      \
    } while (0)

typedef struct producer {
    float *input, *output;
    ortvk_host_timeline *timeline;
    int failures;
} producer;

/* Frame k: write the input, signal 2k+1; then wait for ONNX Runtime's 2k+2 and check the output. */
static void *produce(void *arg)
{
    producer *p = arg;
    for (int k = 0; k < FRAMES; k++) {
        usleep(20 * 1000); /* a camera or decoder takes its time */
        for (int i = 0; i < COUNT; i++) p->input[i] = (float)(i - 30) * (float)(k + 1);
        ortvk_host_timeline_signal(p->timeline, 2 * (uint64_t)k + 1);
        if (ortvk_host_timeline_wait(p->timeline, 2 * (uint64_t)k + 2, 10ull * 1000 * 1000 * 1000) != 0) {
            p->failures++;
            break;
        }
        int wrong = 0;
        for (int i = 0; i < COUNT; i++) wrong += p->output[i] != (p->input[i] > 0 ? p->input[i] : 0.0f);
        printf("frame %d: %s\n", k, wrong ? "WRONG" : "relu ok");
        p->failures += wrong != 0;
    }
    return NULL;
}

static uint8_t *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *bytes = malloc(*len);
    if (bytes && fread(bytes, 1, *len, f) != *len) free(bytes), bytes = NULL;
    fclose(f);
    return bytes;
}

int main(int argc, char **argv)
{
    const char *ort_path = argc > 1 ? argv[1] : "libonnxruntime.so.1";
    const char *ep_path = argc > 2 ? argv[2] : "libortvk.so";
    const char *model_path = argc > 3 ? argv[3] : "/usr/share/libonnx-testdata/data/node/test_relu/model.onnx";

    /* 1. ONNX Runtime, and ortvk registered as a plugin EP. */
    void *lib = dlopen(ort_path, RTLD_NOW);
    if (lib == NULL) return fprintf(stderr, "%s\n", dlerror()), 1;
    const OrtApiBase *(*get_api_base)(void) = (const OrtApiBase *(*)(void))dlsym(lib, "OrtGetApiBase");
    if (get_api_base == NULL) return fprintf(stderr, "%s has no OrtGetApiBase\n", ort_path), 1;
    const OrtApiBase *base = get_api_base();
    /* The runtime's own API version ("1.24.3" -> 24), capped at the header's. */
    uint32_t version = (uint32_t)atoi(base->GetVersionString() + 2);
    if (version > ORT_API_VERSION) version = ORT_API_VERSION;
    ort = version >= 24 ? base->GetApi(version) : NULL;
    if (ort == NULL) return fprintf(stderr, "ONNX Runtime %s is older than 1.24\n", base->GetVersionString()), 1;
    interop = ort->GetInteropApi();
    OrtEnv *env;
    CHECK_ORT(ort->CreateEnv(ORT_LOGGING_LEVEL_WARNING, "zero_copy", &env));
    CHECK_ORT(ort->RegisterExecutionProviderLibrary(env, "ortvk", ep_path));

    /* 2. ortvk's EP device (the first one is the most capable). */
    const OrtEpDevice *const *devices;
    const OrtEpDevice *device = NULL;
    size_t n;
    CHECK_ORT(ort->GetEpDevices(env, &devices, &n));
    for (size_t i = 0; i < n && device == NULL; i++)
        if (strcmp(ort->EpDevice_EpName(devices[i]), "ortvk") == 0) device = devices[i];
    if (device == NULL) return fprintf(stderr, "no ortvk device\n"), 1;
    printf("ONNX Runtime %s, device %s\n", base->GetVersionString(),
           ort->GetKeyValue(ort->EpDevice_EpMetadata(device), ORTVK_META_DEVICE_NAME));

    /* 3. A session with ortvk appended. */
    size_t model_len;
    uint8_t *model = read_file(model_path, &model_len);
    if (model == NULL) return fprintf(stderr, "cannot read %s\n", model_path), 1;
    OrtSessionOptions *options;
    OrtSession *session;
    CHECK_ORT(ort->CreateSessionOptions(&options));
    CHECK_ORT(ort->SessionOptionsAppendExecutionProvider_V2(options, env, &device, 1, NULL, NULL, 0));
    CHECK_ORT(ort->CreateSessionFromArray(env, model, model_len, options, &session));

    /* 4. Import the producer's memory and semaphore once. ortvk dups the semaphore's fd. */
    OrtExternalResourceImporter *importer;
    CHECK_ORT(interop->CreateExternalResourceImporterForDevice(device, &importer));
    if (importer == NULL) return fprintf(stderr, "this EP device imports nothing\n"), 1;
    size_t page = (size_t)sysconf(_SC_PAGESIZE), size = 2 * page;
    char *pages = aligned_alloc(page, size);
    memset(pages, 0, size);
    OrtExternalMemoryDescriptor memory_desc = {
        .version = version,
        .handle_type = ORT_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION,
        .native_handle = pages,
        .size_bytes = size,
    };
    OrtExternalMemoryHandle *memory;
    CHECK_ORT(interop->ImportMemory(importer, &memory_desc, &memory));

    producer p = {.input = (float *)pages, .output = (float *)(pages + OUTPUT_OFFSET)};
    ortvk_host_timeline_create(0, &p.timeline);
    OrtExternalSemaphoreDescriptor semaphore_desc = {
        .version = version,
        .type = (OrtExternalSemaphoreType)ORTVK_EXTERNAL_SEMAPHORE_HOST_TIMELINE,
        .native_handle = (void *)(intptr_t)ortvk_host_timeline_fd(p.timeline),
    };
    OrtExternalSemaphoreHandle *semaphore;
    CHECK_ORT(interop->ImportSemaphore(importer, &semaphore_desc, &semaphore));

    /* 5. Two tensors viewing the one import: the input at 0, the output at OUTPUT_OFFSET. */
    const int64_t shape[3] = {3, 4, 5};
    OrtExternalTensorDescriptor in_desc = {.version = version, .element_type = ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT,
                                           .shape = shape, .rank = 3, .offset_bytes = 0};
    OrtExternalTensorDescriptor out_desc = in_desc;
    out_desc.offset_bytes = OUTPUT_OFFSET;
    OrtValue *input, *output;
    CHECK_ORT(interop->CreateTensorFromMemory(importer, memory, &in_desc, &input));
    CHECK_ORT(interop->CreateTensorFromMemory(importer, memory, &out_desc, &output));

    /* 6. A stream: waits and signals are queued on it and the host does not block. Run gets the stream, so the
     * model's nodes run on the device in that order; Run returns without waiting for them. (ORT 1.24.3 and
     * 1.30.0 crash when given a stream of a device the session runs no node on: keep it out for such models.) */
    OrtSyncStream *stream;
    OrtRunOptions *run_options;
    CHECK_ORT(ort->CreateSyncStreamForEpDevice(device, NULL, &stream));
    CHECK_ORT(ort->CreateRunOptions(&run_options));
    ort->RunOptionsSetSyncStream(run_options, stream);
    CHECK_ORT(ort->AddRunConfigEntry(run_options, "disable_synchronize_execution_providers", "1"));

    pthread_t thread;
    pthread_create(&thread, NULL, produce, &p);
    const char *in_names[] = {"x"}, *out_names[] = {"y"};
    for (uint64_t k = 0; k < FRAMES; k++) {
        CHECK_ORT(interop->WaitSemaphore(importer, semaphore, stream, 2 * k + 1));
        CHECK_ORT(ort->Run(session, run_options, in_names, (const OrtValue *const *)&input, 1, out_names, 1, &output));
        CHECK_ORT(interop->SignalSemaphore(importer, semaphore, stream, 2 * k + 2));
    }
    pthread_join(thread, NULL);

    /* 7. Release in dependency order: tensors, handles, stream, importer, session. */
    ort->ReleaseValue(input);
    ort->ReleaseValue(output);
    interop->ReleaseExternalMemoryHandle(memory);
    interop->ReleaseExternalSemaphoreHandle(semaphore);
    ort->ReleaseRunOptions(run_options);
    ort->ReleaseSyncStream(stream);
    interop->ReleaseExternalResourceImporter(importer);
    ort->ReleaseSession(session);
    ort->ReleaseSessionOptions(options);
    CHECK_ORT(ort->UnregisterExecutionProviderLibrary(env, "ortvk"));
    ort->ReleaseEnv(env);
    ortvk_host_timeline_close(p.timeline);
    free(pages);
    free(model);
    printf("%s: %d frames, %d failures\n", p.failures ? "FAIL" : "PASS", FRAMES, p.failures);
    return p.failures != 0;
}
