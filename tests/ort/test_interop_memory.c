/* Zero-copy import through ORT's OrtInteropApi, as an application would: memory exported as an opaque FD by
 * another Vulkan device (the "renderer"), and a page-aligned host allocation. One import, two tensor views (input
 * and output at different offsets); a session reads the input in place and writes its output into the imported
 * memory, where the producer reads exact values. Host imports: two imports of overlapping ranges with different
 * starts both stay usable; a range that runs past the end of the mapping is refused. */
#include <math.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "test_util.h"
#include "vk_producer.h"

#define COUNT 1024                      /* floats per tensor */
#define OUTPUT_OFFSET (64 * 1024)       /* where the output view starts inside the region */
#define REGION_OFFSET 4096              /* the memory descriptor's offset_bytes */

static const int64_t shape[2] = {32, 32};

static OrtValue *make_view(ortapp *app, OrtExternalResourceImporter *importer, OrtExternalMemoryHandle *memory,
                           size_t offset)
{
    OrtExternalTensorDescriptor desc = {
        .version = app->api_version,
        .element_type = ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT,
        .shape = shape,
        .rank = 2,
        .offset_bytes = offset,
    };
    OrtValue *value = NULL;
    ORT_OK(app, app->interop->CreateTensorFromMemory(importer, memory, &desc, &value));
    return value;
}

/* Relu on the input view into the output view; both live in the imported memory. */
static int run_relu(ortapp *app, OrtSession *session, OrtValue *input, OrtValue *output)
{
    const char *in_names[] = {"x"}, *out_names[] = {"z"};
    const OrtValue *inputs[] = {input};
    return ORT_OK(app, app->api->Run(session, NULL, in_names, inputs, 1, out_names, 1, &output));
}

static void fill_frame(float *frame, int k)
{
    for (int i = 0; i < COUNT; i++) frame[i] = (float)((i * 7 + k * 13) % 101) - 50.0f + 0.25f * (float)k;
}

static int check_relu(const float *in, const float *out, const char *what)
{
    int wrong = 0;
    for (int i = 0; i < COUNT; i++) wrong += out[i] != (in[i] > 0.0f ? in[i] : 0.0f);
    return CHECK(wrong == 0, "%s: %d of %d outputs wrong", what, wrong, COUNT);
}

static void opaque_fd(ortapp *app, OrtExternalResourceImporter *importer, OrtSession *session)
{
    bool can = false;
    ORT_OK(app, app->interop->CanImportMemory(importer, ORT_EXTERNAL_MEMORY_HANDLE_TYPE_MEMORY_OPAQUE_FD, &can));
    if (!can) {
        printf("SKIP: opaque FD memory: this device cannot import it\n");
        return;
    }
    vk_producer *producer = NULL;
    vk_producer_buffer *buffer = NULL;
    if (!CHECK(test_producer_create(&producer) == 0, "producer device")) return;
    if (!CHECK(test_producer_buffer(producer, REGION_OFFSET + OUTPUT_OFFSET + COUNT * 4, &buffer) == 0,
               "producer buffer"))
        goto out;
    float frame[COUNT], result[COUNT];
    fill_frame(frame, 1);
    vk_producer_buffer_write(buffer, REGION_OFFSET, frame, sizeof(frame));

    int fd = vk_producer_buffer_export_fd(buffer);
    OrtExternalMemoryDescriptor desc = {
        .version = app->api_version,
        .handle_type = ORT_EXTERNAL_MEMORY_HANDLE_TYPE_MEMORY_OPAQUE_FD,
        .native_handle = (void *)(intptr_t)fd,
        .size_bytes = vk_producer_buffer_alloc_size(buffer),
        .offset_bytes = REGION_OFFSET,
    };
    OrtExternalMemoryHandle *memory = NULL;
    ORT_OK(app, app->interop->ImportMemory(importer, &desc, &memory));
    close(fd); /* ortvk imported a duplicate: ours may go at once */
    if (!CHECK(memory != NULL, "imported opaque FD")) goto out;
    CHECK(memory->descriptor.size_bytes == desc.size_bytes && memory->descriptor.offset_bytes == REGION_OFFSET,
          "the handle carries a copy of the descriptor");

    OrtValue *input = make_view(app, importer, memory, 0), *output = make_view(app, importer, memory, OUTPUT_OFFSET);
    for (int k = 1; k <= 3 && input && output; k++) {
        fill_frame(frame, k);
        vk_producer_buffer_write(buffer, REGION_OFFSET, frame, sizeof(frame));
        if (!run_relu(app, session, input, output)) break;
        memset(result, 0xff, sizeof(result));
        vk_producer_buffer_read(buffer, REGION_OFFSET + OUTPUT_OFFSET, result, sizeof(result));
        char what[64];
        snprintf(what, sizeof(what), "opaque FD frame %d read back by the producer", k);
        check_relu(frame, result, what);
    }
    /* The producer's compute pass writes the input: the GPU-to-GPU path. */
    if (input && output) {
        vk_producer_fill(producer, buffer, REGION_OFFSET, COUNT, -100.0f, 0.5f, 1);
        /* Generous: under valgrind on a loaded machine lavapipe's first compile of the fill took over 5 s. */
        bool filled = CHECK(vk_producer_timeline_wait(producer, 1, 120000000000ull) == 0, "the producer's fill ends");
        for (int i = 0; i < COUNT; i++) frame[i] = -100.0f + 0.5f * (float)i;
        if (filled && run_relu(app, session, input, output)) {
            vk_producer_buffer_read(buffer, REGION_OFFSET + OUTPUT_OFFSET, result, sizeof(result));
            check_relu(frame, result, "opaque FD input written by the producer's compute pass");
        }
    }
    app->api->ReleaseValue(input);
    app->api->ReleaseValue(output);
    app->interop->ReleaseExternalMemoryHandle(memory);
out:
    vk_producer_buffer_destroy(buffer);
    vk_producer_destroy(producer);
}

static void host_allocation(ortapp *app, OrtExternalResourceImporter *importer, OrtSession *session)
{
    bool can = false;
    ORT_OK(app, app->interop->CanImportMemory(importer, ORT_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION, &can));
    if (!can) {
        printf("SKIP: host allocations: this device cannot import them\n");
        return;
    }
    size_t size = 0;
    char *host = test_page_alloc(REGION_OFFSET + OUTPUT_OFFSET + COUNT * 4, &size);
    OrtExternalMemoryDescriptor desc = {
        .version = app->api_version,
        .handle_type = ORT_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION,
        .native_handle = host,
        .size_bytes = size,
        .offset_bytes = REGION_OFFSET,
    };
    OrtExternalMemoryHandle *memory = NULL;
    if (!ORT_OK(app, app->interop->ImportMemory(importer, &desc, &memory))) {
        free(host);
        return;
    }
    float *in = (float *)(host + REGION_OFFSET), *out = (float *)(host + REGION_OFFSET + OUTPUT_OFFSET);
    OrtValue *input = make_view(app, importer, memory, 0), *output = make_view(app, importer, memory, OUTPUT_OFFSET);
    for (int k = 1; k <= 3 && input && output; k++) {
        fill_frame(in, k); /* the CPU producer writes straight into the imported pages */
        if (!run_relu(app, session, input, output)) break;
        char what[64];
        snprintf(what, sizeof(what), "host allocation frame %d", k);
        check_relu(in, out, what);
    }
    app->api->ReleaseValue(input);
    app->api->ReleaseValue(output);
    app->interop->ReleaseExternalMemoryHandle(memory);
    free(host);
}

static OrtExternalMemoryHandle *import_host(ortapp *app, OrtExternalResourceImporter *importer, void *at, size_t size,
                                            OrtStatus **status)
{
    OrtExternalMemoryDescriptor desc = {
        .version = app->api_version,
        .handle_type = ORT_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION,
        .native_handle = at,
        .size_bytes = size,
    };
    OrtExternalMemoryHandle *memory = NULL;
    *status = app->interop->ImportMemory(importer, &desc, &memory);
    return memory;
}

/* A = pages [0, 4), then B = page [1, 2) of the same allocation: views of A that B's range covers only in part
 * (from page 1.5, and from page 3) still resolve to A. */
static void host_overlap(ortapp *app, OrtExternalResourceImporter *importer, OrtSession *session)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), size = 0;
    if (page != COUNT * 4) {
        printf("SKIP: overlapping host imports: the test's views are one %d-byte page, this one is %zu\n", COUNT * 4,
               page);
        return;
    }
    char *host = test_page_alloc(4 * page, &size);
    OrtStatus *status = NULL;
    OrtExternalMemoryHandle *a = import_host(app, importer, host, 4 * page, &status);
    ORT_OK(app, status);
    OrtExternalMemoryHandle *b = import_host(app, importer, host + page, page, &status);
    ORT_OK(app, status);
    if (a != NULL && b != NULL) {
        float *in = (float *)(host + page + page / 2), *out = (float *)(host + 3 * page);
        OrtValue *input = make_view(app, importer, a, page + page / 2), *output = make_view(app, importer, a, 3 * page);
        fill_frame(in, 5);
        if (input && output && run_relu(app, session, input, output))
            check_relu(in, out, "views of the first of two overlapping host imports");
        app->api->ReleaseValue(input);
        app->api->ReleaseValue(output);
    }
    if (b) app->interop->ReleaseExternalMemoryHandle(b);
    if (a) app->interop->ReleaseExternalMemoryHandle(a);
    free(host);
}

/* A host range whose second page is not mapped is refused at import (a view there crashed inside the driver). */
static void host_past_mapping(ortapp *app, OrtExternalResourceImporter *importer)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    char *pages = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (!CHECK(pages != MAP_FAILED, "mmap two pages")) return;
    munmap(pages + page, page);
    OrtStatus *status = NULL;
    OrtExternalMemoryHandle *memory = import_host(app, importer, pages, 2 * page, &status);
    ORT_FAILS(app, status, ORT_INVALID_ARGUMENT, "not mapped");
    if (memory) app->interop->ReleaseExternalMemoryHandle(memory);
    /* The mapped part alone imports. */
    memory = import_host(app, importer, pages, page, &status);
    ORT_OK(app, status);
    if (memory) app->interop->ReleaseExternalMemoryHandle(memory);
    munmap(pages, page);
}

int main(void)
{
    ortapp app;
    const OrtEpDevice *device;
    OrtExternalResourceImporter *importer = test_open_importer(&app, &device);
    if (!CHECK(importer != NULL, "ortvk gives an importer")) return test_finish(&app, "test_interop_memory");

    uint8_t *model;
    size_t len;
    CHECK(test_model_one_op("Relu", 1, 2, shape, &model, &len) == 0, "Relu model");
    OrtSession *session = test_session(&app, device, model, len, NULL, NULL, 0);
    free(model);
    if (session) {
        opaque_fd(&app, importer, session);
        host_allocation(&app, importer, session);
        bool can = false;
        ORT_OK(&app, app.interop->CanImportMemory(importer, ORT_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION, &can));
        if (can) {
            host_overlap(&app, importer, session);
            host_past_mapping(&app, importer);
        }
        app.api->ReleaseSession(session);
    }
    app.interop->ReleaseExternalResourceImporter(importer);
    return test_finish(&app, "test_interop_memory");
}
