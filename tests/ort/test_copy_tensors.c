/* ORT's CopyTensors through ortvk's data transfer: host -> device -> device -> host, with and without an ortvk
 * stream, into tensors that view one device allocation at byte offsets; and what an ortvk stream's native handle
 * (SyncStream_GetHandle) describes. With ORTVK_HOST_COPIES=staged the same copies go through staging buffers and the
 * queue, as on a discrete GPU (ctest: test_copy_tensors_staged). */
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

#define COUNT 256

/* A view of `count` floats at float offset `at` of device tensor `whole`. */
static OrtValue *view(ortapp *app, const OrtEpDevice *device, OrtValue *whole, size_t at, int64_t count)
{
    float *base = NULL;
    OrtValue *value = NULL;
    ORT_OK(app, app->api->GetTensorMutableData(whole, (void **)&base));
    const OrtMemoryInfo *info = app->api->EpDevice_MemoryInfo(device, OrtDeviceMemoryType_DEFAULT);
    /* The data pointer of ortvk memory is a device address: arithmetic on it addresses bytes of the buffer. */
    ORT_OK(app, app->api->CreateTensorWithDataAsOrtValue(info, base + at, (size_t)count * sizeof(float), &count, 1,
                                                         ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &value));
    return value;
}

static void round_trip(ortapp *app, const OrtEpDevice *device, OrtSyncStream *stream)
{
    const char *mode = stream ? "on a stream" : "without a stream";
    float src[COUNT], back[COUNT], part[64];
    for (int i = 0; i < COUNT; i++) src[i] = (float)i * 1.25f - 100.0f;
    for (int i = 0; i < 64; i++) part[i] = 5000.0f + (float)i;
    int64_t n = COUNT;
    OrtValue *host = test_host_tensor(app, src, COUNT, 1, &n);
    OrtValue *a = test_device_tensor(app, device, 1, &n), *b = test_device_tensor(app, device, 1, &n);
    ORT_OK(app, test_copy(app, host, a, stream));  /* host -> device */
    ORT_OK(app, test_copy(app, a, b, stream));     /* device -> device */

    /* Offset views: write 64 floats at float 100 of b, then read b[96..160) through a view at float 96. */
    int64_t n64 = 64;
    OrtValue *part_host = test_host_tensor(app, part, 64, 1, &n64);
    OrtValue *at100 = view(app, device, b, 100, 64), *at96 = view(app, device, b, 96, 64);
    ORT_OK(app, test_copy(app, part_host, at100, stream));
    float window[64] = {0};
    OrtValue *window_host = test_host_tensor(app, window, 64, 1, &n64);
    ORT_OK(app, test_copy(app, at96, window_host, stream));
    int wrong = 0;
    for (int i = 0; i < 64; i++) wrong += window[i] != (i < 4 ? src[96 + i] : part[i - 4]);
    CHECK(wrong == 0, "offset view read %s: %d wrong", mode, wrong);

    memset(back, 0, sizeof(back));
    OrtValue *back_host = test_host_tensor(app, back, COUNT, 1, &n);
    ORT_OK(app, test_copy(app, b, back_host, stream)); /* device -> host */
    wrong = 0;
    for (int i = 0; i < COUNT; i++) wrong += back[i] != (i >= 100 && i < 164 ? part[i - 100] : src[i]);
    CHECK(wrong == 0, "round trip %s: %d of %d wrong", mode, wrong, COUNT);

    /* Several tensors in one call (ORT requires one memory info on each side). */
    float x[COUNT] = {0}, y[COUNT] = {0};
    OrtValue *x_host = test_host_tensor(app, x, COUNT, 1, &n), *y_host = test_host_tensor(app, y, COUNT, 1, &n);
    const OrtValue *srcs[2] = {a, b};
    OrtValue *dsts[2] = {x_host, y_host};
    ORT_OK(app, app->api->CopyTensors(app->env, srcs, dsts, stream, 2));
    CHECK(memcmp(x, src, sizeof(x)) == 0 && memcmp(y, back, sizeof(y)) == 0, "batched copy %s", mode);

    OrtValue *values[] = {host, a, b, part_host, at100, at96, window_host, back_host, x_host, y_host};
    for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) app->api->ReleaseValue(values[i]);
}

static void stream_handle(ortapp *app, OrtSyncStream *stream)
{
    const ortvk_stream_info *info = app->api->SyncStream_GetHandle(stream);
    if (!CHECK(info != NULL, "stream handle")) return;
    CHECK(info->version == ORTVK_STREAM_INFO_VERSION, "stream info version %u", info->version);
    CHECK(info->device != VK_NULL_HANDLE && info->queue != VK_NULL_HANDLE && info->timeline != VK_NULL_HANDLE,
          "stream info names a device, queue and timeline semaphore");
}

int main(void)
{
    ortapp app;
    const OrtEpDevice *device;
    test_open(&app, &device);
    const char *staged = getenv("ORTVK_HOST_COPIES");
    if (staged != NULL && strcmp(staged, "staged") == 0) {
        const char *copies = app.api->GetKeyValue(app.api->EpDevice_EpMetadata(device), ORTVK_META_HOST_COPIES);
        CHECK(copies != NULL && strncmp(copies, "staged ", 7) == 0, "ORTVK_HOST_COPIES=staged: host copies %s",
              copies ? copies : "(none)");
    }

    round_trip(&app, device, NULL);
    OrtSyncStream *stream = NULL;
    if (ORT_OK(&app, app.api->CreateSyncStreamForEpDevice(device, NULL, &stream))) {
        stream_handle(&app, stream);
        round_trip(&app, device, stream);
        app.api->ReleaseSyncStream(stream);
    }
    /* Stream options are checked. */
    OrtKeyValuePairs *options = NULL;
    app.api->CreateKeyValuePairs(&options);
    app.api->AddKeyValuePair(options, ORTVK_STREAM_OPTION_HOST_WAIT_TIMEOUT_MS, "later");
    stream = NULL;
    ORT_FAILS(&app, app.api->CreateSyncStreamForEpDevice(device, options, &stream), ORT_INVALID_ARGUMENT,
              "host_wait_timeout_ms = \"later\"");
    app.api->ReleaseKeyValuePairs(options);
    return test_finish(&app, "test_copy_tensors");
}
