/* A session with ortvk appended runs real models whose inputs (and pre-bound outputs) live in ortvk device memory:
 * a generated Add model and the ONNX conformance test for Relu. Outputs are checked exactly. An output ORT's CPU EP
 * computes reaches pre-bound ortvk memory and imported host memory by the time the application reads it. Bad
 * ep.ortvk options are refused with ORT_INVALID_ARGUMENT. Device memory freed through ORT's allocator is reused for
 * the same size. */
#include <math.h>
#include <string.h>

#include "test_util.h"

#define N 60
static const int64_t shape[3] = {3, 4, 5};

/* x and y live in device memory; z is computed by ORT (placed where ORT likes) or pre-bound in device memory. */
static void run_add(ortapp *app, const OrtEpDevice *device, bool prebound_output)
{
    uint8_t *model;
    size_t len;
    if (!CHECK(test_model_one_op("Add", 2, 3, shape, &model, &len) == 0, "build Add model")) return;
    OrtSession *session = test_session(app, device, model, len, NULL, NULL, 0);
    free(model);
    if (session == NULL) return;

    float x[N], y[N], z[N];
    for (int i = 0; i < N; i++) x[i] = (float)i * 0.5f - 7.0f, y[i] = 100.0f - (float)i * 3.0f;
    OrtValue *hx = test_host_tensor(app, x, N, 3, shape), *hy = test_host_tensor(app, y, N, 3, shape);
    OrtValue *dx = test_device_tensor(app, device, 3, shape), *dy = test_device_tensor(app, device, 3, shape);
    ORT_OK(app, test_copy(app, hx, dx, NULL));
    ORT_OK(app, test_copy(app, hy, dy, NULL));

    const char *in_names[] = {"x", "y"}, *out_names[] = {"z"};
    const OrtValue *inputs[] = {dx, dy};
    OrtValue *output = prebound_output ? test_device_tensor(app, device, 3, shape) : NULL;
    if (ORT_OK(app, app->api->Run(session, NULL, in_names, inputs, 2, out_names, 1, &output))) {
        memset(z, 0, sizeof(z));
        OrtValue *hz = test_host_tensor(app, z, N, 3, shape);
        const OrtMemoryInfo *where = NULL;
        ORT_OK(app, app->api->GetTensorMemoryInfo(output, &where));
        OrtMemoryInfoDeviceType type = OrtMemoryInfoDeviceType_CPU;
        app->api->MemoryInfoGetDeviceType(where, &type);
        if (prebound_output) CHECK(type == OrtMemoryInfoDeviceType_GPU, "pre-bound output stays in ortvk memory");
        if (type == OrtMemoryInfoDeviceType_GPU) {
            ORT_OK(app, test_copy(app, output, hz, NULL));
        } else {
            float *data = NULL;
            ORT_OK(app, app->api->GetTensorMutableData(output, (void **)&data));
            memcpy(z, data, sizeof(z));
        }
        int wrong = 0;
        for (int i = 0; i < N; i++) wrong += z[i] != x[i] + y[i];
        CHECK(wrong == 0, "Add with %s output: %d of %d elements wrong", prebound_output ? "device" : "ORT's", wrong,
              N);
        app->api->ReleaseValue(hz);
    }
    app->api->ReleaseValue(output);
    app->api->ReleaseValue(hx);
    app->api->ReleaseValue(hy);
    app->api->ReleaseValue(dx);
    app->api->ReleaseValue(dy);
    app->api->ReleaseSession(session);
}

/* y = Hardmax(Relu(x)): Relu on ortvk, Hardmax on ORT's CPU EP (ortvk claims no Hardmax), y pre-bound in ortvk
 * memory, so that the run ends with ORT's copy of y from the host into it (through staging and the queue where
 * ORTVK_HOST_COPIES=staged, as on a discrete GPU). The application must find y there, whether it reads y through
 * ortvk after a run that did not wait for the device ("disable_synchronize_execution_providers"), or reads its own
 * host memory, imported and pre-bound, right after a run that did. */
static void cpu_output_in_ortvk_memory(ortapp *app, const OrtEpDevice *device, bool imported)
{
    static const int64_t rows[2] = {6, 10};
    onnx_model *m = onnx_model_new(17);
    onnx_model_add_input(m, "x", ONNX_FLOAT, 2, rows);
    onnx_model_add_output(m, "y", ONNX_FLOAT, 2, rows);
    onnx_model_add_node(m, "Relu", (const char *[]){"x"}, 1, (const char *[]){"r"}, 1);
    onnx_model_add_node(m, "Hardmax", (const char *[]){"r"}, 1, (const char *[]){"y"}, 1);
    uint8_t *model = NULL;
    size_t len = 0;
    if (!test_model_serialize(m, "Relu-Hardmax", &model, &len)) return;
    OrtSession *session = test_session(app, device, model, len, NULL, NULL, 0);
    free(model);
    OrtExternalResourceImporter *importer = NULL;
    OrtExternalMemoryHandle *memory = NULL;
    size_t size = 0;
    float *pages = imported ? test_page_alloc(sizeof(float) * 60, &size) : NULL;
    OrtValue *y = NULL;
    if (imported && session != NULL &&
        ORT_OK(app, app->interop->CreateExternalResourceImporterForDevice(device, &importer))) {
        OrtExternalMemoryDescriptor host = {.version = app->api_version,
                                            .handle_type = ORT_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION,
                                            .native_handle = pages, .size_bytes = size};
        OrtExternalTensorDescriptor view = {.version = app->api_version,
                                            .element_type = ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, .shape = rows,
                                            .rank = 2};
        if (ORT_OK(app, app->interop->ImportMemory(importer, &host, &memory)))
            ORT_OK(app, app->interop->CreateTensorFromMemory(importer, memory, &view, &y));
    } else if (!imported) {
        y = test_device_tensor(app, device, 2, rows);
    }
    OrtRunOptions *run_options = NULL;
    ORT_OK(app, app->api->CreateRunOptions(&run_options));
    if (!imported)
        ORT_OK(app, app->api->AddRunConfigEntry(run_options, "disable_synchronize_execution_providers", "1"));
    const char *what = imported ? "imported host memory" : "ortvk memory, the run not synchronized";
    float x[60], got[60];
    for (int run = 0; run < 3 && session != NULL && y != NULL; run++) {
        for (int i = 0; i < 60; i++) x[i] = (float)((i * 7 + run * 13) % 23) - 11.0f;
        OrtValue *hx = test_host_tensor(app, x, 60, 2, rows);
        const char *in_names[] = {"x"}, *out_names[] = {"y"};
        bool ran = ORT_OK(app, app->api->Run(session, run_options, in_names, (const OrtValue *const *)&hx, 1,
                                             out_names, 1, &y));
        if (ran && imported) {
            memcpy(got, pages, sizeof(got));
        } else if (ran) {
            memset(got, 0xff, sizeof(got));
            OrtValue *hy = test_host_tensor(app, got, 60, 2, rows);
            ORT_OK(app, test_copy(app, y, hy, NULL));
            app->api->ReleaseValue(hy);
        }
        int wrong = 0;
        for (int r = 0; ran && r < 6; r++) {
            int best = 0; /* Hardmax: 1 at the first maximum of each row of Relu(x) */
            for (int c = 1; c < 10; c++)
                if (fmaxf(x[r * 10 + c], 0.0f) > fmaxf(x[r * 10 + best], 0.0f)) best = c;
            for (int c = 0; c < 10; c++) wrong += got[r * 10 + c] != (c == best ? 1.0f : 0.0f);
        }
        CHECK(ran && wrong == 0, "Relu on ortvk, Hardmax on the CPU EP, y in %s, run %d: %d of 60 wrong", what, run,
              wrong);
        app->api->ReleaseValue(hx);
    }
    app->api->ReleaseRunOptions(run_options);
    app->api->ReleaseValue(y);
    if (memory) app->interop->ReleaseExternalMemoryHandle(memory);
    if (importer) app->interop->ReleaseExternalResourceImporter(importer);
    free(pages);
    if (session) app->api->ReleaseSession(session);
}

/* ONNX's own conformance case for Relu (model file and tensors from libonnx-testdata). */
static void run_conformance_relu(ortapp *app, const OrtEpDevice *device)
{
    const char *dir = "/usr/share/libonnx-testdata/data/node/test_relu";
    char path[256];
    uint8_t *model = NULL;
    size_t len = 0;
    snprintf(path, sizeof(path), "%s/model.onnx", dir);
    if (onnx_read_file(path, &model, &len) != 0) {
        printf("SKIP: %s not installed (Debian package libonnx-testdata); the Add checks above still ran\n", path);
        return;
    }
    onnx_tensor in, expected;
    snprintf(path, sizeof(path), "%s/test_data_set_0/input_0.pb", dir);
    int rc = onnx_tensor_read_file(path, &in);
    snprintf(path, sizeof(path), "%s/test_data_set_0/output_0.pb", dir);
    rc |= onnx_tensor_read_file(path, &expected);
    if (!CHECK(rc == 0 && in.elem_type == ONNX_FLOAT, "read relu test data")) return;
    size_t count = in.data_bytes / sizeof(float);

    OrtSession *session = test_session(app, device, model, len, NULL, NULL, 0);
    free(model);
    if (session != NULL) {
        OrtValue *host = test_host_tensor(app, (float *)in.data, count, in.rank, in.dims);
        OrtValue *dev = test_device_tensor(app, device, in.rank, in.dims);
        ORT_OK(app, test_copy(app, host, dev, NULL));
        OrtValue *out_dev = test_device_tensor(app, device, in.rank, in.dims);
        const char *in_names[] = {"x"}, *out_names[] = {"y"};
        const OrtValue *inputs[] = {dev};
        if (ORT_OK(app, app->api->Run(session, NULL, in_names, inputs, 1, out_names, 1, &out_dev))) {
            float *got = calloc(count, sizeof(float));
            OrtValue *out_host = test_host_tensor(app, got, count, in.rank, in.dims);
            ORT_OK(app, test_copy(app, out_dev, out_host, NULL));
            CHECK(memcmp(got, expected.data, expected.data_bytes) == 0, "test_relu output matches ONNX's expected");
            app->api->ReleaseValue(out_host);
            free(got);
        }
        app->api->ReleaseValue(out_dev);
        app->api->ReleaseValue(dev);
        app->api->ReleaseValue(host);
        app->api->ReleaseSession(session);
    }
    onnx_tensor_free(&in);
    onnx_tensor_free(&expected);
}

static void bad_options(ortapp *app, const OrtEpDevice *device)
{
    uint8_t *model;
    size_t len;
    if (test_model_one_op("Relu", 1, 3, shape, &model, &len) != 0) return;
    struct {
        const char *key, *value, *needle;
    } cases[] = {
        {"device_index", "7", "INVALID_ARGUMENT : ortvk: ep.ortvk.device_index = \"7\""},
        {"device_index", "-1", "INVALID_ARGUMENT : ortvk: ep.ortvk.device_index = \"-1\""},
        {"device_uuid", "00000000000000000000000000000000", "INVALID_ARGUMENT : ortvk: ep.ortvk.device_uuid"},
        {"host_wait_timeout_ms", "soon", "INVALID_ARGUMENT : ortvk: ep.ortvk.host_wait_timeout_ms = \"soon\""},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        OrtSessionOptions *options = NULL;
        OrtSession *session = NULL;
        ORT_OK(app, app->api->CreateSessionOptions(&options));
        ORT_OK(app, app->api->SessionOptionsAppendExecutionProvider_V2(options, app->env, &device, 1, &cases[i].key,
                                                                       &cases[i].value, 1));
        /* ORT reports an EP's failure to create as ORT_FAIL, quoting the EP's code and message. */
        ORT_FAILS(app, app->api->CreateSessionFromArray(app->env, model, len, options, &session), ORT_FAIL,
                  cases[i].needle);
        app->api->ReleaseSessionOptions(options);
    }
    /* A valid choice works. */
    const char *key = "device_index", *value = "0";
    OrtSession *session = test_session(app, device, model, len, &key, &value, 1);
    CHECK(session != NULL, "ep.ortvk.device_index=0 accepted");
    if (session) app->api->ReleaseSession(session);
    free(model);
}

/* ortvk keeps freed device buffers for an allocation of the very same size (a model asks for the same sizes frame
 * after frame): a freed address comes back for that size, and only for it. */
static void allocator_reuse(ortapp *app, const OrtEpDevice *device)
{
    const OrtMemoryInfo *info = app->api->EpDevice_MemoryInfo(device, OrtDeviceMemoryType_DEFAULT);
    OrtAllocator *allocator = NULL;
    if (!CHECK(info != NULL, "EP device has DEFAULT memory info") ||
        !ORT_OK(app, app->api->GetSharedAllocator(app->env, info, &allocator)))
        return;
    void *a = NULL, *b = NULL, *c = NULL, *d = NULL;
    enum { SIZE = 3 << 20 };
    if (!ORT_OK(app, app->api->AllocatorAlloc(allocator, SIZE, &a))) return;
    ORT_OK(app, app->api->AllocatorFree(allocator, a));
    if (ORT_OK(app, app->api->AllocatorAlloc(allocator, SIZE + 4096, &b)) &&
        ORT_OK(app, app->api->AllocatorAlloc(allocator, SIZE, &c)) &&
        ORT_OK(app, app->api->AllocatorAlloc(allocator, SIZE, &d))) {
        CHECK(b != a, "another size does not take the freed buffer (%p, %p)", b, a);
        CHECK(c == a, "the same size takes the freed buffer back (%p, %p)", c, a);
        CHECK(d != a && d != b, "a live buffer is not handed out twice (%p)", d);
    }
    void *live[3] = {b, c, d};
    for (int i = 0; i < 3; i++) {
        if (live[i] != NULL) ORT_OK(app, app->api->AllocatorFree(allocator, live[i]));
    }
    printf("allocator: a freed %d-byte buffer came back for the same size\n", SIZE);

    /* A run's worth of buffers: a partition of the text detector at 640x640 frees some 150 a run (its internal
     * values, scratch and ORT's outputs), and one the cache dropped is a fresh allocation the next run pays page
     * faults for (up to 8x a node's time on lavapipe: docs/benchmarks.md, run AE). 300 sizes, freed together, all
     * come back. */
    enum { RUN = 300 };
    void *first[RUN] = {0}, *again[RUN] = {0};
    size_t back = 0, asked = 0;
    for (int i = 0; i < RUN; i++) asked += ORT_OK(app, app->api->AllocatorAlloc(allocator, 65536 + 256 * i, &first[i]));
    for (int i = 0; i < RUN; i++) {
        if (first[i] != NULL) ORT_OK(app, app->api->AllocatorFree(allocator, first[i]));
    }
    for (int i = 0; i < RUN; i++) {
        if (ORT_OK(app, app->api->AllocatorAlloc(allocator, 65536 + 256 * i, &again[i]))) back += again[i] == first[i];
    }
    CHECK(asked == RUN && back == RUN, "%zu of %d freed buffers came back for their sizes", back, RUN);
    for (int i = 0; i < RUN; i++) {
        if (again[i] != NULL) ORT_OK(app, app->api->AllocatorFree(allocator, again[i]));
    }
    printf("allocator: %zu of %d buffers freed together came back for their sizes\n", back, RUN);
}

int main(void)
{
    ortapp app;
    const OrtEpDevice *device;
    test_open(&app, &device);
    run_add(&app, device, false);
    run_add(&app, device, true);
    cpu_output_in_ortvk_memory(&app, device, false);
    cpu_output_in_ortvk_memory(&app, device, true);
    run_conformance_relu(&app, device);
    bad_options(&app, device);
    allocator_reuse(&app, device);
    return test_finish(&app, "test_session");
}
