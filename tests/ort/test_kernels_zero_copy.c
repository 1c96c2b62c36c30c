/* The zero-copy proof: with the input and the output bound to imported memory and every node on the device, a run
 * moves nothing through ortvk's data transfer. The counters come from the stream's native handle
 * (ortvk_stream_info::transfer_stats); the session is created with session.disable_cpu_ep_fallback = 1, so every
 * node is known to run on ortvk. Checked for an opaque FD from another device and for a host allocation. */
#include <string.h>
#include <unistd.h>

#include "kernel_check.h"

#define COUNT 4096
#define OUTPUT_OFFSET (64 * 1024)
#define FRAMES 4

static const int64_t shape[1] = {COUNT};

/* y = Relu(x * 2 + 1): three nodes whose intermediates never leave the device. */
static OrtSession *three_node_session(ortapp *app, const OrtEpDevice *device)
{
    onnx_model *m = onnx_model_new(17);
    onnx_model_add_input(m, "x", ONNX_FLOAT, 1, shape);
    onnx_model_add_output(m, "y", ONNX_FLOAT, 1, shape);
    float two = 2.0f, one = 1.0f;
    onnx_model_add_initializer(m, "two", ONNX_FLOAT, 0, NULL, &two, sizeof(two));
    onnx_model_add_initializer(m, "one", ONNX_FLOAT, 0, NULL, &one, sizeof(one));
    onnx_model_add_node(m, "Mul", (const char *[]){"x", "two"}, 2, (const char *[]){"t"}, 1);
    onnx_model_add_node(m, "Add", (const char *[]){"t", "one"}, 2, (const char *[]){"u"}, 1);
    onnx_model_add_node(m, "Relu", (const char *[]){"u"}, 1, (const char *[]){"y"}, 1);
    uint8_t *bytes = NULL;
    size_t len = 0;
    if (!test_model_serialize(m, "Mul-Add-Relu", &bytes, &len)) return NULL;
    OrtStatus *error = NULL;
    OrtSession *session = kc_session(app, device, bytes, len, true, false, &error);
    ORT_OK(app, error);
    free(bytes);
    return session;
}

static OrtValue *view(ortapp *app, OrtExternalResourceImporter *importer, OrtExternalMemoryHandle *memory,
                      size_t offset)
{
    OrtExternalTensorDescriptor desc = {.version = app->api_version,
                                        .element_type = ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT,
                                        .shape = shape,
                                        .rank = 1,
                                        .offset_bytes = offset};
    OrtValue *value = NULL;
    ORT_OK(app, app->interop->CreateTensorFromMemory(importer, memory, &desc, &value));
    return value;
}

/* Runs FRAMES frames on `memory` (input at 0, output at OUTPUT_OFFSET), writing inputs with `write` and reading
 * outputs with `read`; asserts exact results and that the data transfer moved nothing. */
static void frames(ortapp *app, const char *what, OrtSession *session, OrtExternalResourceImporter *importer,
                   OrtExternalMemoryHandle *memory, OrtSyncStream *stream, OrtRunOptions *run_options,
                   void (*write)(void *ctx, const float *in), void (*read)(void *ctx, float *out), void *ctx)
{
    const ortvk_stream_info *info = app->api->SyncStream_GetHandle(stream);
    OrtValue *input = view(app, importer, memory, 0), *output = view(app, importer, memory, OUTPUT_OFFSET);
    static float in[COUNT], out[COUNT];
    uint64_t copies = __atomic_load_n(&info->transfer_stats->copies, __ATOMIC_ACQUIRE);
    uint64_t bytes = __atomic_load_n(&info->transfer_stats->bytes, __ATOMIC_ACQUIRE);
    const char *in_names[] = {"x"}, *out_names[] = {"y"};
    for (int k = 0; k < FRAMES && input && output; k++) {
        for (int i = 0; i < COUNT; i++) in[i] = (float)((i * 31 + k * 7) % 257) - 128.0f;
        write(ctx, in);
        if (!ORT_OK(app, app->api->Run(session, run_options, in_names, (const OrtValue *const *)&input, 1, out_names,
                                       1, &output)))
            break;
        read(ctx, out);
        int wrong = 0;
        for (int i = 0; i < COUNT; i++) {
            float y = in[i] * 2.0f + 1.0f;
            wrong += out[i] != (y > 0.0f ? y : 0.0f);
        }
        CHECK(wrong == 0, "%s frame %d: %d of %d outputs wrong", what, k, wrong, COUNT);
    }
    copies = __atomic_load_n(&info->transfer_stats->copies, __ATOMIC_ACQUIRE) - copies;
    bytes = __atomic_load_n(&info->transfer_stats->bytes, __ATOMIC_ACQUIRE) - bytes;
    printf("%s: %d frames, ortvk's data transfer moved %llu bytes in %llu copies\n", what, FRAMES,
           (unsigned long long)bytes, (unsigned long long)copies);
    CHECK(copies == 0 && bytes == 0, "%s: a run on imported memory copies nothing (%llu copies, %llu bytes)", what,
          (unsigned long long)copies, (unsigned long long)bytes);
    app->api->ReleaseValue(input);
    app->api->ReleaseValue(output);
}

/* Runs whose input is one of three views of the same import, at offsets 0, OUTPUT_OFFSET and 2 * OUTPUT_OFFSET,
 * each holding other values, in turn and twice over (output at 3 * OUTPUT_OFFSET): a texel view made or reused for
 * the wrong range reads another view's values. */
static void input_offsets(ortapp *app, OrtSession *session, OrtExternalResourceImporter *importer,
                          OrtRunOptions *run_options)
{
    enum { VIEWS = 3 };
    size_t size = 0;
    char *pages = test_page_alloc((VIEWS + 1) * OUTPUT_OFFSET, &size);
    OrtExternalMemoryDescriptor host = {.version = app->api_version,
                                        .handle_type = ORT_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION,
                                        .native_handle = pages, .size_bytes = size};
    OrtExternalMemoryHandle *memory = NULL;
    bool can = false;
    ORT_OK(app, app->interop->CanImportMemory(importer, ORT_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION, &can));
    if (!can || !ORT_OK(app, app->interop->ImportMemory(importer, &host, &memory))) {
        free(pages);
        return;
    }
    OrtValue *inputs[VIEWS], *output = view(app, importer, memory, VIEWS * OUTPUT_OFFSET);
    for (int v = 0; v < VIEWS; v++) {
        inputs[v] = view(app, importer, memory, (size_t)v * OUTPUT_OFFSET);
        float *x = (float *)(pages + (size_t)v * OUTPUT_OFFSET);
        for (int i = 0; i < COUNT; i++) x[i] = (float)((i * 13 + v * 101) % 211) - 100.0f;
    }
    const char *in_names[] = {"x"}, *out_names[] = {"y"};
    const float *y = (const float *)(pages + VIEWS * OUTPUT_OFFSET);
    int wrong_runs = 0;
    for (int k = 0; k < 2 * VIEWS && output; k++) {
        int v = k % VIEWS;
        if (inputs[v] == NULL ||
            !ORT_OK(app, app->api->Run(session, run_options, in_names, (const OrtValue *const *)&inputs[v], 1,
                                       out_names, 1, &output)))
            break;
        const float *x = (const float *)(pages + (size_t)v * OUTPUT_OFFSET);
        int wrong = 0;
        for (int i = 0; i < COUNT; i++) {
            float want = x[i] * 2.0f + 1.0f;
            wrong += y[i] != (want > 0.0f ? want : 0.0f);
        }
        wrong_runs += wrong != 0;
        CHECK(wrong == 0, "run %d, input at byte %d of the import: %d of %d outputs wrong", k, v * OUTPUT_OFFSET,
              wrong, COUNT);
    }
    printf("input views at %d offsets of one import, %d runs: %s\n", VIEWS, 2 * VIEWS,
           wrong_runs ? "wrong" : "exact");
    for (int v = 0; v < VIEWS; v++) app->api->ReleaseValue(inputs[v]);
    app->api->ReleaseValue(output);
    app->interop->ReleaseExternalMemoryHandle(memory);
    free(pages);
}

static void host_write(void *ctx, const float *in)
{
    memcpy(ctx, in, COUNT * sizeof(float));
}

static void host_read(void *ctx, float *out)
{
    memcpy(out, (char *)ctx + OUTPUT_OFFSET, COUNT * sizeof(float));
}

static void producer_write(void *ctx, const float *in)
{
    vk_producer_buffer_write(ctx, 0, in, COUNT * sizeof(float));
}

static void producer_read(void *ctx, float *out)
{
    vk_producer_buffer_read(ctx, OUTPUT_OFFSET, out, COUNT * sizeof(float));
}

int main(void)
{
    ortapp app;
    const OrtEpDevice *device;
    test_open(&app, &device);
    OrtExternalResourceImporter *importer = NULL;
    OrtSyncStream *stream = NULL;
    OrtRunOptions *run_options = NULL;
    ORT_OK(&app, app.interop->CreateExternalResourceImporterForDevice(device, &importer));
    ORT_OK(&app, app.api->CreateSyncStreamForEpDevice(device, NULL, &stream));
    ORT_OK(&app, app.api->CreateRunOptions(&run_options));
    /* The stream goes to Run and Run waits for the device at its end (ORT's default), so the output is in place
     * when Run returns. */
    app.api->RunOptionsSetSyncStream(run_options, stream);
    OrtSession *session = three_node_session(&app, device);
    if (session == NULL || importer == NULL || stream == NULL) return test_finish(&app, "test_kernels_zero_copy");

    size_t size = 0;
    char *pages = test_page_alloc(OUTPUT_OFFSET + COUNT * sizeof(float), &size);
    OrtExternalMemoryDescriptor host = {.version = app.api_version,
                                        .handle_type = ORT_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION,
                                        .native_handle = pages, .size_bytes = size};
    OrtExternalMemoryHandle *memory = NULL;
    bool can = false;
    ORT_OK(&app, app.interop->CanImportMemory(importer, ORT_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION, &can));
    if (can && ORT_OK(&app, app.interop->ImportMemory(importer, &host, &memory))) {
        frames(&app, "host allocation", session, importer, memory, stream, run_options, host_write, host_read, pages);
        app.interop->ReleaseExternalMemoryHandle(memory);
    }

    input_offsets(&app, session, importer, run_options);

    ORT_OK(&app, app.interop->CanImportMemory(importer, ORT_EXTERNAL_MEMORY_HANDLE_TYPE_MEMORY_OPAQUE_FD, &can));
    vk_producer *producer = NULL;
    vk_producer_buffer *buffer = NULL;
    if (can && CHECK(test_producer_create(&producer) == 0, "producer") &&
        CHECK(test_producer_buffer(producer, OUTPUT_OFFSET + COUNT * sizeof(float), &buffer) == 0, "buffer")) {
        int fd = vk_producer_buffer_export_fd(buffer);
        OrtExternalMemoryDescriptor opaque = {.version = app.api_version,
                                              .handle_type = ORT_EXTERNAL_MEMORY_HANDLE_TYPE_MEMORY_OPAQUE_FD,
                                              .native_handle = (void *)(intptr_t)fd,
                                              .size_bytes = vk_producer_buffer_alloc_size(buffer)};
        memory = NULL;
        if (ORT_OK(&app, app.interop->ImportMemory(importer, &opaque, &memory))) {
            frames(&app, "opaque FD", session, importer, memory, stream, run_options, producer_write, producer_read,
                   buffer);
            app.interop->ReleaseExternalMemoryHandle(memory);
        }
        close(fd);
    }
    app.api->ReleaseSession(session);
    app.api->ReleaseRunOptions(run_options);
    app.api->ReleaseSyncStream(stream);
    app.interop->ReleaseExternalResourceImporter(importer);
    vk_producer_buffer_destroy(buffer);
    vk_producer_destroy(producer);
    free(pages);
    return test_finish(&app, "test_kernels_zero_copy");
}
