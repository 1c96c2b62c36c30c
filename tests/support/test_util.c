/* Test helpers: failure accounting, ORT status checks, sessions with ortvk and device tensors. */
#include "test_util.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

int test_failures;

/* The app and EP device of this test process, set by test_open (one per test). */
static ortapp *opened_app;
static const OrtEpDevice *opened_device;

int test_check(int ok, const char *file, int line, const char *expr, const char *fmt, ...)
{
    if (ok) return 1;
    test_failures++;
    fprintf(stderr, "FAIL %s:%d: %s: ", file, line, expr);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return 0;
}

int test_ort_ok(ortapp *app, OrtStatus *status, const char *file, int line, const char *expr)
{
    if (status == NULL) return 1;
    test_failures++;
    fprintf(stderr, "FAIL %s:%d: %s: %s (code %d)\n", file, line, expr, app->api->GetErrorMessage(status),
            (int)app->api->GetErrorCode(status));
    app->api->ReleaseStatus(status);
    return 0;
}

int test_ort_fails(ortapp *app, OrtStatus *status, OrtErrorCode code, const char *needle, const char *file, int line,
                   const char *expr)
{
    if (status == NULL) {
        test_failures++;
        fprintf(stderr, "FAIL %s:%d: %s succeeded; expected code %d\n", file, line, expr, (int)code);
        return 0;
    }
    OrtErrorCode got = app->api->GetErrorCode(status);
    const char *message = app->api->GetErrorMessage(status);
    int ok = got == code && (needle == NULL || strstr(message, needle) != NULL);
    if (!ok) {
        test_failures++;
        fprintf(stderr, "FAIL %s:%d: %s: got code %d \"%s\"; expected code %d with \"%s\"\n", file, line, expr,
                (int)got, message, (int)code, needle ? needle : "");
    }
    app->api->ReleaseStatus(status);
    return ok;
}

void test_open(ortapp *app, const OrtEpDevice **device)
{
    char error[512];
    /* ORTVK_TEST_VERBOSE=1: ORT's verbose log, where ortvk says why each node it leaves stays with the CPU EP. */
    OrtLoggingLevel level = getenv("ORTVK_TEST_VERBOSE") ? ORT_LOGGING_LEVEL_VERBOSE : ORT_LOGGING_LEVEL_WARNING;
    if (ortapp_open(app, NULL, level, error, sizeof(error)) != 0) {
        printf("SKIP: %s\n", error);
        exit(77);
    }
    printf("ONNX Runtime %s (API %u)\n", app->version, app->api_version);
    if (!ORT_OK(app, ortapp_register(app, NULL))) exit(1);
    if (!CHECK(ortapp_devices(app, device, 1) == 1, "ortvk offers an EP device")) exit(1);
    opened_app = app;
    opened_device = *device;
}

OrtExternalResourceImporter *test_open_importer(ortapp *app, const OrtEpDevice **device)
{
    OrtExternalResourceImporter *importer = NULL;
    test_open(app, device);
    ORT_OK(app, app->interop->CreateExternalResourceImporterForDevice(*device, &importer));
    return importer;
}

static const char *device_metadata(const char *key)
{
    return opened_app->api->GetKeyValue(opened_app->api->EpDevice_EpMetadata(opened_device), key);
}

int test_producer_create(vk_producer **out)
{
    const char *hex = device_metadata(ORTVK_META_DEVICE_UUID);
    uint8_t uuid[16];
    for (int i = 0; hex && i < 16; i++) sscanf(hex + 2 * i, "%2hhx", &uuid[i]);
    return hex ? vk_producer_create_by_uuid(uuid, out) : vk_producer_create(-1, out);
}

int test_producer_buffer(vk_producer *producer, size_t size, vk_producer_buffer **out)
{
    const char *type = device_metadata(ORTVK_META_OPAQUE_FD_MEMORY_TYPE);
    if (type == NULL) return vk_producer_buffer_create(producer, size, out);
    return vk_producer_buffer_create_in_type(producer, size, (uint32_t)atoi(type), out);
}

int test_finish(ortapp *app, const char *name)
{
    ortapp_close(app);
    printf("%s: %s (%d failures)\n", test_failures ? "FAIL" : "PASS", name, test_failures);
    return test_failures ? 1 : 0;
}

OrtSession *test_session(ortapp *app, const OrtEpDevice *device, const uint8_t *model, size_t model_len,
                         const char *const *option_keys, const char *const *option_values, size_t option_count)
{
    OrtSessionOptions *options = NULL;
    OrtSession *session = NULL;
    if (!ORT_OK(app, app->api->CreateSessionOptions(&options))) return NULL;
    int ok = ORT_OK(app, app->api->SessionOptionsAppendExecutionProvider_V2(options, app->env, &device, 1, option_keys,
                                                                            option_values, option_count)) &&
             ORT_OK(app, app->api->CreateSessionFromArray(app->env, model, model_len, options, &session));
    app->api->ReleaseSessionOptions(options);
    return ok ? session : NULL;
}

int test_model_serialize(onnx_model *m, const char *what, uint8_t **model, size_t *len)
{
    *model = NULL;
    *len = 0;
    int rc = onnx_model_serialize(m, model, len);
    onnx_model_free(m);
    return CHECK(rc == ONNX_OK, "%s: model (%s)", what, onnx_strerror(rc));
}

int test_model_one_op(const char *op, int inputs, int rank, const int64_t *shape, uint8_t **model, size_t *len)
{
    onnx_model *m = onnx_model_new(17);
    const char *names[] = {"x", "y"};
    onnx_model_add_input(m, "x", ONNX_FLOAT, rank, shape);
    if (inputs == 2) onnx_model_add_input(m, "y", ONNX_FLOAT, rank, shape);
    onnx_model_add_output(m, "z", ONNX_FLOAT, rank, shape);
    const char *out[] = {"z"};
    onnx_model_add_node(m, op, names, inputs, out, 1);
    int rc = onnx_model_serialize(m, model, len);
    onnx_model_free(m);
    return rc;
}

OrtValue *test_device_tensor(ortapp *app, const OrtEpDevice *device, int rank, const int64_t *shape)
{
    const OrtMemoryInfo *info = app->api->EpDevice_MemoryInfo(device, OrtDeviceMemoryType_DEFAULT);
    OrtAllocator *allocator = NULL;
    OrtValue *value = NULL;
    if (!CHECK(info != NULL, "EP device has DEFAULT memory info")) return NULL;
    if (!ORT_OK(app, app->api->GetSharedAllocator(app->env, info, &allocator))) return NULL;
    if (!CHECK(allocator != NULL, "shared allocator for ortvk memory")) return NULL;
    if (!ORT_OK(app, app->api->CreateTensorAsOrtValue(allocator, shape, (size_t)rank,
                                                      ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &value)))
        return NULL;
    return value;
}

OrtValue *test_host_tensor_of(ortapp *app, void *data, ONNXTensorElementDataType type, size_t count, int rank,
                              const int64_t *shape)
{
    size_t size = onnx_elem_size((int32_t)type);
    OrtMemoryInfo *info = NULL;
    OrtValue *value = NULL;
    if (!ORT_OK(app, app->api->CreateCpuMemoryInfo(OrtDeviceAllocator, OrtMemTypeDefault, &info))) return NULL;
    ORT_OK(app, app->api->CreateTensorWithDataAsOrtValue(info, data, count * size, shape, (size_t)rank, type, &value));
    app->api->ReleaseMemoryInfo(info);
    return value;
}

OrtValue *test_host_tensor(ortapp *app, float *data, size_t count, int rank, const int64_t *shape)
{
    return test_host_tensor_of(app, data, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, count, rank, shape);
}

OrtStatus *test_copy(ortapp *app, OrtValue *src, OrtValue *dst, OrtSyncStream *stream)
{
    const OrtValue *s[1] = {src};
    OrtValue *d[1] = {dst};
    return app->api->CopyTensors(app->env, s, d, stream, 1);
}

void *test_page_alloc(size_t bytes, size_t *rounded)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t size = (bytes + page - 1) / page * page;
    void *p = aligned_alloc(page, size);
    if (p) memset(p, 0, size);
    if (rounded) *rounded = size;
    return p;
}

int test_open_fds(void)
{
    DIR *dir = opendir("/proc/self/fd");
    if (dir == NULL) return -1;
    int n = 0;
    for (struct dirent *e = readdir(dir); e != NULL; e = readdir(dir)) {
        if (e->d_name[0] == '.' || atoi(e->d_name) == dirfd(dir)) continue;
        /* Mesa's shader cache writes its files from a thread of its own, each file open for a moment: not ours. */
        char path[300], target[4096];
        snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
        ssize_t len = readlink(path, target, sizeof(target) - 1);
        if (len > 0) {
            target[len] = '\0';
            if (strstr(target, "mesa_shader_cache") != NULL) continue;
        }
        n++;
    }
    closedir(dir);
    return n;
}

OrtExternalSemaphoreHandle *test_import_host_timeline(ortapp *app, OrtExternalResourceImporter *importer,
                                                      ortvk_host_timeline *timeline)
{
    OrtExternalSemaphoreDescriptor desc = {
        .version = app->api_version,
        .type = (OrtExternalSemaphoreType)ORTVK_EXTERNAL_SEMAPHORE_HOST_TIMELINE,
        .native_handle = (void *)(intptr_t)ortvk_host_timeline_fd(timeline),
    };
    OrtExternalSemaphoreHandle *handle = NULL;
    ORT_OK(app, app->interop->ImportSemaphore(importer, &desc, &handle));
    return handle;
}

char *test_read_text(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (text != NULL) text[fread(text, 1, (size_t)n, f)] = '\0';
    fclose(f);
    return text;
}
