/* Bad inputs to ortvk's external resource importer, through ORT's public OrtInteropApi: a table of calls, each
 * with the OrtErrorCode it must fail with and a piece of the message (the field and/or the value it names).
 * Every failing call must leave its out pointer NULL. CanImportMemory/CanImportSemaphore must answer false (not
 * fail) for types ortvk does not import. Afterwards the process must hold exactly the file descriptors it held
 * before the table: ortvk dup()s what it imports, and no failure path may keep a dup. */
#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_util.h"
#include "vk_producer.h"

#define ANY_ERROR (-1) /* ORT itself may refuse first: any failure will do */

typedef enum call_kind {
    IMPORT_MEMORY,
    CREATE_TENSOR,
    IMPORT_SEMAPHORE,
    WAIT_SEMAPHORE,
    SIGNAL_SEMAPHORE,
} call_kind;

typedef struct bad_input {
    const char *what;
    call_kind call;
    OrtExternalMemoryDescriptor memory;         /* IMPORT_MEMORY */
    const OrtExternalMemoryHandle *mem_handle;  /* CREATE_TENSOR */
    OrtExternalTensorDescriptor tensor;         /* CREATE_TENSOR */
    OrtExternalSemaphoreDescriptor semaphore;   /* IMPORT_SEMAPHORE */
    OrtExternalSemaphoreHandle *sem_handle;     /* WAIT_SEMAPHORE, SIGNAL_SEMAPHORE */
    OrtSyncStream *stream;
    uint64_t value;
    int code;           /* the expected OrtErrorCode; ORT_OK for a step that must succeed; ANY_ERROR */
    const char *needle; /* must appear in the message (NULL: anything) */
    const char *skip;   /* non-NULL: not applicable here, and why */
} bad_input;

#define FD(fd) ((void *)(intptr_t)(fd))
#define MEM(version, type, handle, size, offset)                                                                 \
    .call = IMPORT_MEMORY, .memory = {(version), (OrtExternalMemoryHandleType)(type), (void *)(handle), (size),   \
                                      (offset)}
#define TENSOR(handle, version, type, shape_, rank_, offset)                                                     \
    .call = CREATE_TENSOR, .mem_handle = (handle),                                                                \
    .tensor = {(version), (ONNXTensorElementDataType)(type), (shape_), (rank_), (offset)}
#define SEM(version, type, handle)                                                                               \
    .call = IMPORT_SEMAPHORE, .semaphore = {(version), (OrtExternalSemaphoreType)(type), (void *)(handle)}
#define WAIT(handle, stream_, v) .call = WAIT_SEMAPHORE, .sem_handle = (handle), .stream = (stream_), .value = (v)
#define SIGNAL(handle, stream_, v) .call = SIGNAL_SEMAPHORE, .sem_handle = (handle), .stream = (stream_), .value = (v)
#define EXPECT(code_, needle_) .code = (code_), .needle = (needle_)

/* printf into a pool of buffers that lives as long as the test: needles that name runtime values. */
static const char *fmt(const char *format, ...) __attribute__((format(printf, 1, 2)));
static const char *fmt(const char *format, ...)
{
    static char pool[96][256];
    static size_t used;
    if (used == sizeof(pool) / sizeof(pool[0])) abort();
    char *s = pool[used++];
    va_list ap;
    va_start(ap, format);
    vsnprintf(s, sizeof(pool[0]), format, ap);
    va_end(ap);
    return s;
}

static void print_fds(const char *when)
{
    DIR *dir = opendir("/proc/self/fd");
    if (dir == NULL) return;
    fprintf(stderr, "open file descriptors %s:\n", when);
    for (struct dirent *e; (e = readdir(dir)) != NULL;) {
        if (e->d_name[0] == '.') continue;
        char path[300], target[256];
        snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
        ssize_t n = readlink(path, target, sizeof(target) - 1);
        target[n > 0 ? n : 0] = '\0';
        fprintf(stderr, "  %s -> %s\n", e->d_name, target);
    }
    closedir(dir);
}

static const char *code_name(int code)
{
    static const char *names[] = {"OK", "FAIL", "INVALID_ARGUMENT", "NO_SUCHFILE", "NO_MODEL", "ENGINE_ERROR",
                                  "RUNTIME_EXCEPTION", "INVALID_PROTOBUF", "MODEL_LOADED", "NOT_IMPLEMENTED",
                                  "INVALID_GRAPH", "EP_FAIL"};
    if (code == ANY_ERROR) return "any error";
    return code >= 0 && code < (int)(sizeof(names) / sizeof(names[0])) ? names[code] : "?";
}

/* A handle whose Release is not ortvk's: what an application might pass by mistake (another EP's handle). */
static void ORT_API_CALL foreign_memory_release(OrtExternalMemoryHandle *handle)
{
    (void)handle;
}

static void ORT_API_CALL foreign_semaphore_release(OrtExternalSemaphoreHandle *handle)
{
    (void)handle;
}

static void run_case(ortapp *app, OrtExternalResourceImporter *importer, const bad_input *c)
{
    if (c->skip != NULL) {
        printf("skip   %s (%s)\n", c->what, c->skip);
        return;
    }
    const OrtInteropApi *interop = app->interop;
    OrtStatus *status = NULL;
    OrtExternalMemoryHandle *memory = NULL;
    OrtValue *tensor = NULL;
    OrtExternalSemaphoreHandle *semaphore = NULL;
    bool has_out = true;
    switch (c->call) {
    case IMPORT_MEMORY: status = interop->ImportMemory(importer, &c->memory, &memory); break;
    case CREATE_TENSOR: status = interop->CreateTensorFromMemory(importer, c->mem_handle, &c->tensor, &tensor); break;
    case IMPORT_SEMAPHORE: status = interop->ImportSemaphore(importer, &c->semaphore, &semaphore); break;
    case WAIT_SEMAPHORE:
        status = interop->WaitSemaphore(importer, c->sem_handle, c->stream, c->value);
        has_out = false;
        break;
    case SIGNAL_SEMAPHORE:
        status = interop->SignalSemaphore(importer, c->sem_handle, c->stream, c->value);
        has_out = false;
        break;
    }
    bool produced = memory != NULL || tensor != NULL || semaphore != NULL;
    int got = status ? (int)app->api->GetErrorCode(status) : ORT_OK;
    const char *message = status ? app->api->GetErrorMessage(status) : "";
    bool ok;
    if (c->code == ORT_OK) {
        ok = CHECK(status == NULL, "%s: expected success, got %s (%d): %s", c->what, code_name(got), got, message) &&
             CHECK(!has_out || produced, "%s: succeeded without an output", c->what);
    } else {
        ok = CHECK(status != NULL, "%s: succeeded; expected %s", c->what, code_name(c->code)) &&
             CHECK(c->code == ANY_ERROR || got == c->code, "%s: got %s (%d) \"%s\"; expected %s (%d)", c->what,
                   code_name(got), got, message, code_name(c->code), c->code) &&
             CHECK(c->needle == NULL || strstr(message, c->needle) != NULL,
                   "%s: message \"%s\" does not contain \"%s\"", c->what, message, c->needle);
        ok &= CHECK(!produced, "%s: failed but produced an output handle", c->what);
    }
    printf("%s %d %s\n", ok ? "ok " : "FAIL", got, c->what);
    if (getenv("ORTVK_TEST_VERBOSE") && status) printf("       %s\n", message);
    if (status) app->api->ReleaseStatus(status);
    /* Whatever came out is released, so a wrongly accepted input cannot leak into the FD count. */
    interop->ReleaseExternalMemoryHandle(memory);
    app->api->ReleaseValue(tensor);
    interop->ReleaseExternalSemaphoreHandle(semaphore);
}

static bool meta_lists(ortapp *app, const OrtEpDevice *device, const char *key, const char *item)
{
    const char *list = app->api->GetKeyValue(app->api->EpDevice_EpMetadata(device), key);
    if (list == NULL) return false;
    size_t n = strlen(item);
    for (const char *p = list; (p = strstr(p, item)) != NULL; p += n) {
        if ((p == list || p[-1] == ',') && (p[n] == '\0' || p[n] == ',')) return true;
    }
    return false;
}

static void can_import(ortapp *app, const OrtEpDevice *device, OrtExternalResourceImporter *importer)
{
    bool opaque_fd = meta_lists(app, device, ORTVK_META_MEMORY_IMPORT, "opaque_fd");
    bool host = meta_lists(app, device, ORTVK_META_MEMORY_IMPORT, "host_allocation");
    bool vk_timeline = meta_lists(app, device, ORTVK_META_SEMAPHORE_IMPORT, "vk_timeline_opaque_fd");
    CHECK(meta_lists(app, device, ORTVK_META_SEMAPHORE_IMPORT, "host_timeline"), "metadata lists host_timeline");
    struct {
        const char *what;
        int type;
        bool expected;
    } memory[] = {
        {"D3D12_RESOURCE", ORT_EXTERNAL_MEMORY_HANDLE_TYPE_D3D12_RESOURCE, false},
        {"D3D12_HEAP", ORT_EXTERNAL_MEMORY_HANDLE_TYPE_D3D12_HEAP, false},
        {"MEMORY_WIN32", ORT_EXTERNAL_MEMORY_HANDLE_TYPE_MEMORY_WIN32, false},
        {"unknown 77", 77, false},
        {"unknown -1", -1, false},
        {"ORTVK_EXTERNAL_SEMAPHORE_HOST_TIMELINE (a semaphore type)", ORTVK_EXTERNAL_SEMAPHORE_HOST_TIMELINE, false},
        {"MEMORY_OPAQUE_FD (as the metadata says)", ORT_EXTERNAL_MEMORY_HANDLE_TYPE_MEMORY_OPAQUE_FD, opaque_fd},
        {"HOST_ALLOCATION (as the metadata says)", ORT_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION, host},
    }, semaphore[] = {
        {"D3D12_FENCE", ORT_EXTERNAL_SEMAPHORE_D3D12_FENCE, false},
        {"VK_TIMELINE_SEMAPHORE_WIN32", ORT_EXTERNAL_SEMAPHORE_VK_TIMELINE_SEMAPHORE_WIN32, false},
        {"unknown 55", 55, false},
        {"unknown -1", -1, false},
        {"ORTVK_EXTERNAL_SEMAPHORE_HOST_TIMELINE", ORTVK_EXTERNAL_SEMAPHORE_HOST_TIMELINE, true},
        {"VK_TIMELINE_SEMAPHORE_OPAQUE_FD (as the metadata says)",
         ORT_EXTERNAL_SEMAPHORE_VK_TIMELINE_SEMAPHORE_OPAQUE_FD, vk_timeline},
    };
    for (size_t i = 0; i < sizeof(memory) / sizeof(memory[0]); i++) {
        bool out = !memory[i].expected;
        bool ok = ORT_OK(app, app->interop->CanImportMemory(importer, (OrtExternalMemoryHandleType)memory[i].type,
                                                            &out)) &&
                  CHECK(out == memory[i].expected, "CanImportMemory(%s) = %d", memory[i].what, out);
        printf("%s CanImportMemory(%s) = %s\n", ok ? "ok " : "FAIL", memory[i].what, out ? "true" : "false");
    }
    for (size_t i = 0; i < sizeof(semaphore) / sizeof(semaphore[0]); i++) {
        bool out = !semaphore[i].expected;
        bool ok = ORT_OK(app, app->interop->CanImportSemaphore(importer, (OrtExternalSemaphoreType)semaphore[i].type,
                                                               &out)) &&
                  CHECK(out == semaphore[i].expected, "CanImportSemaphore(%s) = %d", semaphore[i].what, out);
        printf("%s CanImportSemaphore(%s) = %s\n", ok ? "ok " : "FAIL", semaphore[i].what, out ? "true" : "false");
    }
}

/* A sealed memfd like a host timeline's, but `size` bytes and with `magic` in its first word. */
static int fake_timeline(size_t size, uint64_t magic, bool seal)
{
    int fd = memfd_create("not-a-host-timeline", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0) return -1;
    if (ftruncate(fd, (off_t)size) != 0) return close(fd), -1;
    if (size >= sizeof(magic) && pwrite(fd, &magic, sizeof(magic), 0) != (ssize_t)sizeof(magic)) return close(fd), -1;
    if (seal) {
        uint32_t version = ORTVK_HOST_TIMELINE_LAYOUT_VERSION;
        if (size >= 12 && pwrite(fd, &version, sizeof(version), 8) != (ssize_t)sizeof(version)) return close(fd), -1;
        if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) return close(fd), -1;
    }
    return fd;
}

/* Another EP's stream, when ORT gives us one (its CPU EP device): WaitSemaphore must refuse it. */
static OrtSyncStream *foreign_stream(ortapp *app)
{
    const OrtEpDevice *const *devices = NULL;
    size_t count = 0;
    if (app->api->GetEpDevices(app->env, &devices, &count) != NULL) return NULL;
    for (size_t i = 0; i < count; i++) {
        if (strcmp(app->api->EpDevice_EpName(devices[i]), ORTVK_EP_NAME) == 0) continue;
        OrtSyncStream *stream = NULL;
        OrtStatus *status = app->api->CreateSyncStreamForEpDevice(devices[i], NULL, &stream);
        if (status != NULL) app->api->ReleaseStatus(status);
        else if (stream != NULL) return stream;
    }
    return NULL;
}

int main(void)
{
    ortapp app;
    const OrtEpDevice *device;
    test_open(&app, &device);
    const OrtInteropApi *interop = app.interop;
    const uint32_t v = app.api_version; /* the descriptor version an application built for this runtime uses */
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    const char *align_text = app.api->GetKeyValue(app.api->EpDevice_EpMetadata(device),
                                                  ORTVK_META_HOST_POINTER_ALIGNMENT);
    const size_t align = align_text ? (size_t)strtoull(align_text, NULL, 10) : page;

    OrtExternalResourceImporter *importer = NULL;
    if (!ORT_OK(&app, interop->CreateExternalResourceImporterForDevice(device, &importer)) ||
        !CHECK(importer != NULL, "ortvk offers an importer"))
        return test_finish(&app, "test_interop_errors");
    can_import(&app, device, importer);
    bool can_host = false, can_vk_timeline = false;
    ORT_OK(&app, interop->CanImportMemory(importer, ORT_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION, &can_host));
    ORT_OK(&app, interop->CanImportSemaphore(importer, ORT_EXTERNAL_SEMAPHORE_VK_TIMELINE_SEMAPHORE_OPAQUE_FD,
                                             &can_vk_timeline));

    /* Warm-up outside the count: the first import, stream and host timeline bridge may set up lazily. */
    {
        size_t size;
        void *p = test_page_alloc(align > page ? align : page, &size);
        OrtExternalMemoryDescriptor d = {v, ORT_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION, p, size, 0};
        OrtExternalMemoryHandle *h = NULL;
        if (can_host && ORT_OK(&app, interop->ImportMemory(importer, &d, &h))) interop->ReleaseExternalMemoryHandle(h);
        free(p);
        OrtSyncStream *s = NULL;
        if (ORT_OK(&app, app.api->CreateSyncStreamForEpDevice(device, NULL, &s))) app.api->ReleaseSyncStream(s);
    }

    /* The application's renderer: real exported memory, for a failure that happens after ortvk's dup(). */
    vk_producer *producer = NULL;
    vk_producer_buffer *buffer = NULL;
    if (test_producer_create(&producer) != 0 || test_producer_buffer(producer, 1 << 16, &buffer) != 0) {
        printf("note: no vk_producer buffer; its case is skipped\n");
    }

    const int fds_before = test_open_fds();

    /* ---- fixtures ---------------------------------------------------------------------------------------- */
    int pipe_fds[2] = {-1, -1}, sockets[2] = {-1, -1};
    CHECK(pipe(pipe_fds) == 0, "pipe");
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sockets) == 0, "socketpair");
    char file_path[] = "/tmp/ortvk-interop-errors-XXXXXX";
    int small_file = mkstemp(file_path);
    CHECK(small_file >= 0 && write(small_file, "not vulkan memory", 17) == 17, "a 17-byte regular file");
    unlink(file_path);
    int directory = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int wrong_size = fake_timeline(100, ORTVK_HOST_TIMELINE_MAGIC, true);
    int wrong_magic = fake_timeline(ORTVK_HOST_TIMELINE_SHARED_SIZE, 0x1234, true);
    int unsealed = fake_timeline(ORTVK_HOST_TIMELINE_SHARED_SIZE, ORTVK_HOST_TIMELINE_MAGIC, false);
    CHECK(wrong_size >= 0 && wrong_magic >= 0 && unsealed >= 0, "fake host timeline memfds");
    /* A descriptor number nothing holds, far above what the process opens, so no later dup() reuses it. */
    int closed_fd = fcntl(pipe_fds[0], F_DUPFD_CLOEXEC, 900);
    int exported = buffer ? vk_producer_buffer_export_fd(buffer) : -1;
    struct stat exported_stat = {0};
    if (exported >= 0) fstat(exported, &exported_stat);
    if (exported >= 0)
        printf("producer export: %zu-byte allocation, fd is %s of %lld bytes\n", vk_producer_buffer_alloc_size(buffer),
               S_ISREG(exported_stat.st_mode) ? "a file" : "not a file", (long long)exported_stat.st_size);
    close(closed_fd);

    /* Host memory: 4 alignment units, imported from the second unit on, so tensor offsets are region-relative. */
    const size_t host_size = 4 * align, region_offset = align, region = host_size - region_offset;
    void *host = aligned_alloc(align, host_size);
    memset(host, 0, host_size);
    OrtExternalMemoryHandle *memory = NULL;
    OrtExternalMemoryDescriptor memory_desc = {v, ORT_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION, host, host_size,
                                               region_offset};
    if (can_host) ORT_OK(&app, interop->ImportMemory(importer, &memory_desc, &memory));
    const char *no_memory = memory ? NULL : "no imported memory to make tensors from";

    OrtExternalMemoryHandle foreign_memory = {.version = v, .ep_device = device, .Release = foreign_memory_release};
    foreign_memory.descriptor = memory_desc;
    OrtExternalSemaphoreHandle foreign_semaphore = {.version = v, .ep_device = device,
                                                    .Release = foreign_semaphore_release};

    ortvk_host_timeline *timeline = NULL;
    CHECK(ortvk_host_timeline_create(0, &timeline) == 0, "host timeline");
    OrtExternalSemaphoreHandle *semaphore = NULL;
    OrtExternalSemaphoreDescriptor semaphore_desc = {
        v, (OrtExternalSemaphoreType)ORTVK_EXTERNAL_SEMAPHORE_HOST_TIMELINE, FD(ortvk_host_timeline_fd(timeline))};
    ORT_OK(&app, interop->ImportSemaphore(importer, &semaphore_desc, &semaphore));
    OrtSyncStream *stream = NULL;
    ORT_OK(&app, app.api->CreateSyncStreamForEpDevice(device, NULL, &stream));
    const char *no_semaphore = semaphore && stream ? NULL : "no semaphore or stream";
    OrtSyncStream *other_stream = foreign_stream(&app);

    static const int64_t zero[1] = {0}, one[1] = {1}, four[1] = {4}, two_by_three[2] = {2, 3},
                         nine[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    static const int64_t negative[2] = {2, -3}, huge[2] = {INT64_C(1) << 40, INT64_C(1) << 40};
    const int FD_MEM = ORT_EXTERNAL_MEMORY_HANDLE_TYPE_MEMORY_OPAQUE_FD;
    const int HOST_MEM = ORT_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION;
    const int HOST_TL = ORTVK_EXTERNAL_SEMAPHORE_HOST_TIMELINE;
    const int FLOAT = ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;
    char *misaligned = (char *)host + 64;

    const bad_input cases[] = {
        /* ImportMemory: the descriptor */
        {"memory desc version 0", MEM(0, FD_MEM, FD(pipe_fds[0]), 4096, 0),
         EXPECT(ORT_INVALID_ARGUMENT, "desc->version 0 is not supported")},
        {"memory desc version 23 (before the importer existed)", MEM(23, FD_MEM, FD(pipe_fds[0]), 4096, 0),
         EXPECT(ORT_INVALID_ARGUMENT, "desc->version 23 is not supported")},
        /* Newer versions (an application built with a later ORT's headers) pass: the next check speaks. */
        {"memory desc version 31 (newer than ortvk)", MEM(31, FD_MEM, FD(pipe_fds[0]), 4096, 0),
         EXPECT(ORT_INVALID_ARGUMENT, fmt("native_handle: fd %d is a pipe", pipe_fds[0]))},
        {"memory desc version UINT32_MAX", MEM(UINT32_MAX, FD_MEM, FD(pipe_fds[0]), 4096, 0),
         EXPECT(ORT_INVALID_ARGUMENT, fmt("native_handle: fd %d is a pipe", pipe_fds[0]))},
        {"memory handle_type 77", MEM(v, 77, FD(pipe_fds[0]), 4096, 0),
         EXPECT(ORT_INVALID_ARGUMENT, "desc->handle_type 77 is not an external memory handle type")},
        {"memory handle_type -1", MEM(v, -1, FD(pipe_fds[0]), 4096, 0),
         EXPECT(ORT_INVALID_ARGUMENT, "desc->handle_type -1 is not an external memory handle type")},
        {"memory handle_type HOST_TIMELINE (a semaphore type)", MEM(v, HOST_TL, FD(pipe_fds[0]), 4096, 0),
         EXPECT(ORT_INVALID_ARGUMENT, fmt("desc->handle_type %d is not", HOST_TL))},
        {"memory D3D12_RESOURCE", MEM(v, ORT_EXTERNAL_MEMORY_HANDLE_TYPE_D3D12_RESOURCE, host, host_size, 0),
         EXPECT(ORT_NOT_IMPLEMENTED, "desc->handle_type D3D12_RESOURCE (0) cannot be imported")},
        {"memory D3D12_HEAP", MEM(v, ORT_EXTERNAL_MEMORY_HANDLE_TYPE_D3D12_HEAP, host, host_size, 0),
         EXPECT(ORT_NOT_IMPLEMENTED, "desc->handle_type D3D12_HEAP (1) cannot be imported")},
        {"memory MEMORY_WIN32", MEM(v, ORT_EXTERNAL_MEMORY_HANDLE_TYPE_MEMORY_WIN32, host, host_size, 0),
         EXPECT(ORT_NOT_IMPLEMENTED, "desc->handle_type MEMORY_WIN32 (2) cannot be imported")},
        {"memory size_bytes 0", MEM(v, FD_MEM, FD(pipe_fds[0]), 0, 0),
         EXPECT(ORT_INVALID_ARGUMENT, "desc->size_bytes is 0")},
        {"memory offset_bytes == size_bytes", MEM(v, HOST_MEM, host, host_size, host_size),
         EXPECT(ORT_INVALID_ARGUMENT,
                fmt("desc->offset_bytes %zu is not below desc->size_bytes %zu", host_size, host_size))},
        {"memory offset_bytes > size_bytes", MEM(v, HOST_MEM, host, host_size, host_size + 4),
         EXPECT(ORT_INVALID_ARGUMENT,
                fmt("desc->offset_bytes %zu is not below desc->size_bytes %zu", host_size + 4, host_size))},
        /* ImportMemory: opaque FDs */
        {"opaque fd: a closed fd", MEM(v, FD_MEM, FD(closed_fd), 4096, 0),
         EXPECT(ORT_INVALID_ARGUMENT, fmt("native_handle: fd %d is not an open file descriptor", closed_fd))},
        {"opaque fd: negative native_handle", MEM(v, FD_MEM, FD(-1), 4096, 0),
         EXPECT(ORT_INVALID_ARGUMENT, fmt("desc->native_handle %p is not a file descriptor", FD(-1)))},
        {"opaque fd: native_handle above INT_MAX", MEM(v, FD_MEM, FD((intptr_t)1 << 40), 4096, 0),
         EXPECT(ORT_INVALID_ARGUMENT, fmt("desc->native_handle %p is not a file descriptor", FD((intptr_t)1 << 40)))},
        {"opaque fd: a pipe", MEM(v, FD_MEM, FD(pipe_fds[0]), 4096, 0),
         EXPECT(ORT_INVALID_ARGUMENT, fmt("native_handle: fd %d is a pipe", pipe_fds[0]))},
        {"opaque fd: a socket", MEM(v, FD_MEM, FD(sockets[0]), 4096, 0),
         EXPECT(ORT_INVALID_ARGUMENT, fmt("native_handle: fd %d is a socket", sockets[0]))},
        {"opaque fd: a directory", MEM(v, FD_MEM, FD(directory), 4096, 0),
         EXPECT(ORT_INVALID_ARGUMENT, fmt("native_handle: fd %d is a directory", directory))},
        {"opaque fd: a 17-byte regular file for 4096 bytes", MEM(v, FD_MEM, FD(small_file), 4096, 0),
         EXPECT(ORT_INVALID_ARGUMENT, fmt("size_bytes 4096 exceeds the 17 bytes behind fd %d", small_file))},
        {"opaque fd: a real export, size_bytes one page larger than the file behind it",
         MEM(v, FD_MEM, FD(exported), (size_t)exported_stat.st_size + page, 0),
         EXPECT(ORT_INVALID_ARGUMENT,
                fmt("size_bytes %zu exceeds the %lld bytes behind fd %d", (size_t)exported_stat.st_size + page,
                    (long long)exported_stat.st_size, exported)),
         .skip = exported < 0                      ? "no exported memory"
                 : !S_ISREG(exported_stat.st_mode) ? "this driver's opaque FDs are not files"
                                                   : NULL},
        /* ImportMemory: host allocations */
        {"host allocation: NULL", MEM(v, HOST_MEM, NULL, host_size, 0),
         EXPECT(ORT_INVALID_ARGUMENT, "desc->native_handle is NULL"), .skip = can_host ? NULL : "no host import"},
        {"host allocation: address page+64", MEM(v, HOST_MEM, misaligned, 2 * align, 0),
         EXPECT(ORT_INVALID_ARGUMENT,
                fmt("native_handle %p is not aligned to the device's %zu-byte", (void *)misaligned, align)),
         .skip = can_host ? NULL : "no host import"},
        {"host allocation: size not a multiple of the alignment", MEM(v, HOST_MEM, host, align + 100, 0),
         EXPECT(ORT_INVALID_ARGUMENT,
                fmt("size_bytes %zu is not a multiple of the device's %zu-byte", align + 100, align)),
         .skip = can_host ? NULL : "no host import"},
        /* CreateTensorFromMemory */
        {"tensor: valid (control)", TENSOR(memory, v, FLOAT, two_by_three, 2, 0), EXPECT(ORT_OK, NULL),
         .skip = no_memory},
        {"tensor: the last 16 bytes of the region exactly (control)", TENSOR(memory, v, FLOAT, four, 1, region - 16),
         EXPECT(ORT_OK, NULL), .skip = no_memory},
        {"tensor: a scalar (rank 0, shape NULL) (control)", TENSOR(memory, v, FLOAT, NULL, 0, 8), EXPECT(ORT_OK, NULL),
         .skip = no_memory},
        {"tensor: empty, at the very end of the region (control)", TENSOR(memory, v, FLOAT, zero, 1, region),
         EXPECT(ORT_OK, NULL), .skip = no_memory},
        {"tensor desc version 0", TENSOR(memory, 0, FLOAT, one, 1, 0),
         EXPECT(ORT_INVALID_ARGUMENT, "tensor_desc->version 0 is not supported"), .skip = no_memory},
        {"tensor desc version 31 (newer than ortvk)", TENSOR(memory, 31, FLOAT, one, 1, 0), EXPECT(ORT_OK, NULL),
         .skip = no_memory},
        {"tensor element_type STRING", TENSOR(memory, v, ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING, one, 1, 0),
         EXPECT(ORT_INVALID_ARGUMENT, "tensor_desc->element_type string (8) cannot live on an ortvk device"),
         .skip = no_memory},
        {"tensor element_type UNDEFINED", TENSOR(memory, v, ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED, one, 1, 0),
         EXPECT(ORT_INVALID_ARGUMENT, "tensor_desc->element_type unknown (0)"), .skip = no_memory},
        {"tensor element_type 99", TENSOR(memory, v, 99, one, 1, 0),
         EXPECT(ORT_INVALID_ARGUMENT, "tensor_desc->element_type unknown (99)"), .skip = no_memory},
        {"tensor element_type -5", TENSOR(memory, v, -5, one, 1, 0),
         EXPECT(ORT_INVALID_ARGUMENT, "tensor_desc->element_type unknown (-5)"), .skip = no_memory},
        {"tensor rank 9", TENSOR(memory, v, FLOAT, nine, 9, 0),
         EXPECT(ORT_INVALID_ARGUMENT, "tensor_desc->rank 9 exceeds ortvk's maximum of 8"), .skip = no_memory},
        {"tensor shape NULL with rank 2", TENSOR(memory, v, FLOAT, NULL, 2, 0),
         EXPECT(ORT_INVALID_ARGUMENT, "tensor_desc->shape is NULL for rank 2"), .skip = no_memory},
        {"tensor negative dimension", TENSOR(memory, v, FLOAT, negative, 2, 0),
         EXPECT(ORT_INVALID_ARGUMENT, "tensor_desc->shape[1] is -3"), .skip = no_memory},
        {"tensor dimensions overflow size_t", TENSOR(memory, v, FLOAT, huge, 2, 0),
         EXPECT(ORT_INVALID_ARGUMENT, "tensor_desc->shape[1] = 1099511627776 overflows"), .skip = no_memory},
        {"tensor offset past the region", TENSOR(memory, v, FLOAT, one, 1, region + 4),
         EXPECT(ORT_INVALID_ARGUMENT, fmt("tensor_desc->offset_bytes %zu + 4 tensor bytes exceed the %zu-byte "
                                          "imported region (size_bytes %zu - offset_bytes %zu)",
                                          region + 4, region, host_size, region_offset)),
         .skip = no_memory},
        {"tensor offset + bytes past the region (memory offset_bytes != 0)",
         TENSOR(memory, v, FLOAT, four, 1, region - 12),
         EXPECT(ORT_INVALID_ARGUMENT, fmt("tensor_desc->offset_bytes %zu + 16 tensor bytes exceed the %zu-byte "
                                          "imported region", region - 12, region)),
         .skip = no_memory},
        {"tensor float at offset 2", TENSOR(memory, v, FLOAT, one, 1, 2),
         EXPECT(ORT_INVALID_ARGUMENT, fmt("tensor_desc->offset_bytes 2 puts the tensor at byte %zu, not aligned to "
                                          "its 4-byte float elements", region_offset + 2)),
         .skip = no_memory},
        {"tensor from a handle ortvk did not make", TENSOR(&foreign_memory, v, FLOAT, one, 1, 0),
         EXPECT(ORT_INVALID_ARGUMENT, fmt("mem_handle %p was not imported by ortvk", (void *)&foreign_memory))},
        /* ImportSemaphore */
        {"semaphore desc version 0", SEM(0, HOST_TL, FD(pipe_fds[0])),
         EXPECT(ORT_INVALID_ARGUMENT, "desc->version 0 is not supported")},
        {"semaphore desc version 31 (newer than ortvk)", SEM(31, HOST_TL, FD(pipe_fds[0])),
         EXPECT(ORT_INVALID_ARGUMENT,
                fmt("desc->native_handle: fd %d is not an ortvk host timeline (wrong kind", pipe_fds[0]))},
        {"semaphore type 55", SEM(v, 55, FD(pipe_fds[0])),
         EXPECT(ORT_INVALID_ARGUMENT, "desc->type 55 is not an external semaphore type")},
        {"semaphore D3D12_FENCE", SEM(v, ORT_EXTERNAL_SEMAPHORE_D3D12_FENCE, FD(pipe_fds[0])),
         EXPECT(ORT_NOT_IMPLEMENTED, "desc->type D3D12_FENCE (0) cannot be imported")},
        {"semaphore VK_TIMELINE_SEMAPHORE_WIN32",
         SEM(v, ORT_EXTERNAL_SEMAPHORE_VK_TIMELINE_SEMAPHORE_WIN32, FD(pipe_fds[0])),
         EXPECT(ORT_NOT_IMPLEMENTED, "desc->type VK_TIMELINE_SEMAPHORE_WIN32 (1) cannot be imported")},
        can_vk_timeline
            ? (bad_input){"semaphore VK_TIMELINE_SEMAPHORE_OPAQUE_FD: a closed fd",
                          SEM(v, ORT_EXTERNAL_SEMAPHORE_VK_TIMELINE_SEMAPHORE_OPAQUE_FD, FD(closed_fd)),
                          EXPECT(ORT_INVALID_ARGUMENT,
                                 fmt("desc->native_handle: fd %d is not an open file descriptor", closed_fd))}
            : (bad_input){"semaphore VK_TIMELINE_SEMAPHORE_OPAQUE_FD on a device without it",
                          SEM(v, ORT_EXTERNAL_SEMAPHORE_VK_TIMELINE_SEMAPHORE_OPAQUE_FD, FD(pipe_fds[0])),
                          EXPECT(ORT_NOT_IMPLEMENTED,
                                 "desc->type VK_TIMELINE_SEMAPHORE_OPAQUE_FD (2) cannot be imported")},
        {"host timeline: a closed fd", SEM(v, HOST_TL, FD(closed_fd)),
         EXPECT(ORT_INVALID_ARGUMENT, fmt("desc->native_handle: fd %d is not an ortvk host timeline (not an open "
                                          "file descriptor)", closed_fd))},
        {"host timeline: negative native_handle", SEM(v, HOST_TL, FD(-7)),
         EXPECT(ORT_INVALID_ARGUMENT, fmt("desc->native_handle %p is not a file descriptor", FD(-7)))},
        {"host timeline: a pipe", SEM(v, HOST_TL, FD(pipe_fds[1])),
         EXPECT(ORT_INVALID_ARGUMENT,
                fmt("desc->native_handle: fd %d is not an ortvk host timeline (wrong kind", pipe_fds[1]))},
        {"host timeline: a socket", SEM(v, HOST_TL, FD(sockets[1])),
         EXPECT(ORT_INVALID_ARGUMENT, fmt("fd %d is not an ortvk host timeline (wrong kind", sockets[1]))},
        {"host timeline: a regular file", SEM(v, HOST_TL, FD(small_file)),
         EXPECT(ORT_INVALID_ARGUMENT, fmt("fd %d is not an ortvk host timeline (wrong kind", small_file))},
        {"host timeline: a sealed memfd of 100 bytes", SEM(v, HOST_TL, FD(wrong_size)),
         EXPECT(ORT_INVALID_ARGUMENT, fmt("fd %d is not an ortvk host timeline (wrong kind", wrong_size))},
        {"host timeline: a sealed memfd with the wrong magic", SEM(v, HOST_TL, FD(wrong_magic)),
         EXPECT(ORT_INVALID_ARGUMENT, fmt("fd %d is not an ortvk host timeline (wrong kind", wrong_magic))},
        {"host timeline: an unsealed memfd with the right magic", SEM(v, HOST_TL, FD(unsealed)),
         EXPECT(ORT_INVALID_ARGUMENT, fmt("fd %d is not an ortvk host timeline (wrong kind", unsealed))},
        /* WaitSemaphore / SignalSemaphore */
        {"wait with a NULL stream", WAIT(semaphore, NULL, 1), EXPECT(ANY_ERROR, NULL), .skip = no_semaphore},
        {"signal with a NULL stream", SIGNAL(semaphore, NULL, 1), EXPECT(ANY_ERROR, NULL), .skip = no_semaphore},
        {"wait on a handle ortvk did not make", WAIT(&foreign_semaphore, stream, 1),
         EXPECT(ORT_INVALID_ARGUMENT, fmt("semaphore_handle %p was not imported by ortvk", (void *)&foreign_semaphore)),
         .skip = stream ? NULL : "no stream"},
        {"signal on a handle ortvk did not make", SIGNAL(&foreign_semaphore, stream, 1),
         EXPECT(ORT_INVALID_ARGUMENT, fmt("semaphore_handle %p was not imported by ortvk", (void *)&foreign_semaphore)),
         .skip = stream ? NULL : "no stream"},
        {"wait on another EP's stream", WAIT(semaphore, other_stream, 1),
         EXPECT(ORT_INVALID_ARGUMENT, fmt("stream %p is not an ortvk stream", (void *)other_stream)),
         .skip = no_semaphore   ? no_semaphore
                 : other_stream ? NULL
                                : "ORT made no stream for another EP"},
        {"signal 5 (accepted)", SIGNAL(semaphore, stream, 5), EXPECT(ORT_OK, NULL), .skip = no_semaphore},
        {"signal 5 again", SIGNAL(semaphore, stream, 5),
         EXPECT(ORT_INVALID_ARGUMENT, "value 5 does not increase the ORTVK_HOST_TIMELINE"), .skip = no_semaphore},
        {"signal 3 after 5", SIGNAL(semaphore, stream, 3),
         EXPECT(ORT_INVALID_ARGUMENT, "value 3 does not increase the ORTVK_HOST_TIMELINE"), .skip = no_semaphore},
        {"signal 6 (accepted)", SIGNAL(semaphore, stream, 6), EXPECT(ORT_OK, NULL), .skip = no_semaphore},
    };
    size_t count = sizeof(cases) / sizeof(cases[0]);
    size_t failing = 0;
    for (size_t i = 0; i < count; i++) failing += cases[i].code != ORT_OK;
    printf("%zu cases (%zu bad inputs)\n", count, failing);
    for (size_t i = 0; i < count; i++) run_case(&app, importer, &cases[i]);

    /* The accepted signals reach the host timeline once the stream's helper thread runs them. */
    if (stream != NULL && semaphore != NULL) {
        CHECK(ortvk_host_timeline_wait(timeline, 6, 5ull * 1000 * 1000 * 1000) == 0, "host timeline reaches 6");
        CHECK(ortvk_host_timeline_value(timeline) == 6, "host timeline is 6, not %llu",
              (unsigned long long)ortvk_host_timeline_value(timeline));
    }

    /* ---- teardown, then the count ------------------------------------------------------------------------ */
    if (other_stream) app.api->ReleaseSyncStream(other_stream);
    app.api->ReleaseSyncStream(stream);
    interop->ReleaseExternalSemaphoreHandle(semaphore);
    ortvk_host_timeline_close(timeline);
    interop->ReleaseExternalMemoryHandle(memory);
    free(host);
    close(pipe_fds[0]), close(pipe_fds[1]), close(sockets[0]), close(sockets[1]);
    close(small_file), close(directory), close(wrong_size), close(wrong_magic), close(unsealed);
    if (exported >= 0) close(exported);

    const int fds_after = test_open_fds();
    printf("open file descriptors: %d before the table, %d after\n", fds_before, fds_after);
    if (!CHECK(fds_before == fds_after, "no file descriptor leaked (%d before, %d after)", fds_before, fds_after))
        print_fds("after the table");

    interop->ReleaseExternalResourceImporter(importer);
    vk_producer_buffer_destroy(buffer);
    vk_producer_destroy(producer);
    return test_finish(&app, "test_interop_errors");
}
