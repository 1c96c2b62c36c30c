/* A Vulkan timeline semaphore exported as an opaque FD by the producer's device and imported through ORT: the
 * producer's compute pass signals 2k+1 on its GPU, ortvk's stream waits for it on the GPU, the session runs on the
 * imported memory, ortvk signals 2k+2, and the producer waits for that before reading the output. Drivers that
 * export no timeline semaphore FDs (lavapipe) skip: this test is proof of the feature only on a GPU
 * (scripts/gpu-check.sh).
 *
 * Every value of the shared semaphore is signaled by a queue, none by the host. The test used to hold the
 * producer's fill back with a gate value it signaled with vkSignalSemaphore (3k+1, below the fill's 3k+2: valid),
 * and on the GPU the validation layer 1.3.239 reported each gate as VUID-VkSemaphoreSignalInfo-value-03259 against a
 * "pending signal" of 0, 3, 6, ...: the value the test had just read back (vkGetSemaphoreCounterValue) or waited
 * for (vkWaitSemaphores). For an exported semaphore that layer's state tracker enters such a read as a host signal
 * of the value read, never retired when the value was already complete; no signal of those values was pending (ortvk's
 * 3k had completed, the host waited for it; nothing ever signals 0). Submitting the fill only after WaitSemaphore
 * has returned proves the same (the wait cannot have waited for a signal not yet submitted) without a host signal. */
#include <string.h>
#include <unistd.h>

#include "test_util.h"
#include "vk_producer.h"

#define COUNT 4096
#define OUTPUT_OFFSET (64 * 1024)
#define FRAMES 6

int main(void)
{
    ortapp app;
    const OrtEpDevice *device;
    OrtExternalResourceImporter *importer = test_open_importer(&app, &device);
    bool can_semaphore = false, can_memory = false;
    ORT_OK(&app, app.interop->CanImportSemaphore(importer, ORT_EXTERNAL_SEMAPHORE_VK_TIMELINE_SEMAPHORE_OPAQUE_FD,
                                                 &can_semaphore));
    ORT_OK(&app, app.interop->CanImportMemory(importer, ORT_EXTERNAL_MEMORY_HANDLE_TYPE_MEMORY_OPAQUE_FD, &can_memory));
    vk_producer *producer = NULL;
    int semaphore_fd = -1;
    if (CHECK(test_producer_create(&producer) == 0, "producer device"))
        semaphore_fd = vk_producer_timeline_export_fd(producer);
    if (!can_semaphore || !can_memory || semaphore_fd < 0) {
        printf("SKIP: Vulkan timeline semaphore FDs: ortvk %s import them on this device and the producer's driver "
               "%s export them (lavapipe does neither)\n",
               can_semaphore ? "can" : "cannot", semaphore_fd >= 0 ? "can" : "cannot");
        vk_producer_destroy(producer);
        app.interop->ReleaseExternalResourceImporter(importer);
        ortapp_close(&app);
        return test_failures ? 1 : 77;
    }

    vk_producer_buffer *buffer = NULL;
    CHECK(test_producer_buffer(producer, OUTPUT_OFFSET + COUNT * 4, &buffer) == 0, "producer buffer");
    int memory_fd = vk_producer_buffer_export_fd(buffer);
    OrtExternalMemoryDescriptor md = {.version = app.api_version,
                                      .handle_type = ORT_EXTERNAL_MEMORY_HANDLE_TYPE_MEMORY_OPAQUE_FD,
                                      .native_handle = (void *)(intptr_t)memory_fd,
                                      .size_bytes = vk_producer_buffer_alloc_size(buffer)};
    OrtExternalSemaphoreDescriptor sd = {.version = app.api_version,
                                         .type = ORT_EXTERNAL_SEMAPHORE_VK_TIMELINE_SEMAPHORE_OPAQUE_FD,
                                         .native_handle = (void *)(intptr_t)semaphore_fd};
    OrtExternalMemoryHandle *memory = NULL;
    OrtExternalSemaphoreHandle *semaphore = NULL;
    ORT_OK(&app, app.interop->ImportMemory(importer, &md, &memory));
    ORT_OK(&app, app.interop->ImportSemaphore(importer, &sd, &semaphore));
    close(memory_fd);
    close(semaphore_fd);

    const int64_t shape[1] = {COUNT};
    OrtExternalTensorDescriptor td = {.version = app.api_version, .element_type = ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT,
                                      .shape = shape, .rank = 1};
    OrtValue *input = NULL, *output = NULL;
    ORT_OK(&app, app.interop->CreateTensorFromMemory(importer, memory, &td, &input));
    td.offset_bytes = OUTPUT_OFFSET;
    ORT_OK(&app, app.interop->CreateTensorFromMemory(importer, memory, &td, &output));
    uint8_t *model;
    size_t len;
    CHECK(test_model_one_op("Relu", 1, 1, shape, &model, &len) == 0, "Relu model");
    OrtSession *session = test_session(&app, device, model, len, NULL, NULL, 0);
    free(model);
    OrtSyncStream *stream = NULL;
    ORT_OK(&app, app.api->CreateSyncStreamForEpDevice(device, NULL, &stream));

    const char *in_names[] = {"x"}, *out_names[] = {"z"};
    static float result[COUNT];
    for (uint64_t k = 0; k < FRAMES && session && input && output && stream; k++) {
        float base = -1000.0f + 37.0f * (float)k, scale = 0.5f;
        /* ortvk's wait is queued before the producer's fill that signals `ready` is submitted at all:
         * WaitSemaphore must return while the semaphore is still below the awaited value. */
        uint64_t ready = 2 * k + 1, done = 2 * k + 2;
        ORT_OK(&app, app.interop->WaitSemaphore(importer, semaphore, stream, ready));
        uint64_t now = 0;
        vk_producer_timeline_value(producer, &now);
        CHECK(now < ready, "WaitSemaphore returned before the producer signaled (value %llu)", (unsigned long long)now);
        CHECK(vk_producer_fill(producer, buffer, 0, COUNT, base, scale, ready) == 0, "producer fill");
        if (!ORT_OK(&app, app.api->Run(session, NULL, in_names, (const OrtValue *const *)&input, 1, out_names, 1,
                                       &output)))
            break;
        ORT_OK(&app, app.interop->SignalSemaphore(importer, semaphore, stream, done));
        CHECK(vk_producer_timeline_wait(producer, done, 10ull * 1000 * 1000 * 1000) == 0, "ortvk signaled %llu",
              (unsigned long long)done);
        vk_producer_buffer_read(buffer, OUTPUT_OFFSET, result, sizeof(result));
        int wrong = 0;
        for (int i = 0; i < COUNT; i++) {
            float x = base + scale * (float)i;
            wrong += result[i] != (x > 0.0f ? x : 0.0f);
        }
        CHECK(wrong == 0, "frame %llu: %d of %d wrong", (unsigned long long)k, wrong, COUNT);
    }
    ORT_FAILS(&app, app.interop->SignalSemaphore(importer, semaphore, stream, 1), ORT_INVALID_ARGUMENT,
              "does not increase");

    app.api->ReleaseValue(input);
    app.api->ReleaseValue(output);
    app.interop->ReleaseExternalMemoryHandle(memory);
    app.interop->ReleaseExternalSemaphoreHandle(semaphore);
    app.api->ReleaseSyncStream(stream);
    app.api->ReleaseSession(session);
    app.interop->ReleaseExternalResourceImporter(importer);
    vk_producer_buffer_destroy(buffer);
    vk_producer_destroy(producer);
    return test_finish(&app, "test_interop_vk_timeline");
}
