/* libFuzzer target for ortvk's external resource importer, driven only through ONNX Runtime's public OrtInteropApi.
 *
 * Once per process (at the first input): open ONNX Runtime ($ORTVK_ORT_LIBRARY), register ortvk
 * ($ORTVK_EP_LIBRARY), create an importer and a stream (host_wait_timeout_ms=1 so that waits nobody satisfies cost
 * one 20 ms slice), a vk_producer buffer filled with a known byte pattern whose opaque FD is exported once, and a
 * "drain" host timeline. Then each input (layout: fuzz_input.h) is decoded into a memory descriptor with a native
 * handle of some kind (closed fd, pipe, socket, file, memfd, /dev/null, the producer's FD, a host timeline, a host
 * allocation, raw integers), a tensor descriptor, a semaphore descriptor and a list of wait/signal operations, and
 * runs ImportMemory -> CreateTensorFromMemory -> (copies) -> release and ImportSemaphore -> Wait/Signal on the
 * stream -> release. Invariants, each an abort() that libFuzzer reports as a crash:
 *   - a failed Import/CreateTensor leaves its out handle NULL (or, where ORT does not pass the application's
 *     pointer to the EP, untouched); a successful one returns a handle whose Release
 *     lives in libortvk and whose descriptor is a copy of ours (tensors: the type, shape, byte size and memory
 *     info asked for);
 *   - what the contract says must fail does fail (bad versions, unknown types, size 0, offset >= size, unaligned
 *     host allocations, views that leave the imported region or have negative dimensions, non-increasing signals);
 *   - a view of a host allocation or of the producer's memory copies out (and, for host allocations, in) exactly
 *     the bytes that are there;
 *   - the stream drains within 10 s after every input (no hang), and the number of open file descriptors
 *     (/proc/self/fd) is the same after the input as before it (no FD leak, no double close of ours).
 * Memory errors, leaks and undefined behaviour are ASan's, LSan's and UBSan's. The harness is single-threaded and
 * keeps all state in this process, so it works the same with or without libFuzzer's fork mode.
 * ORTVK_FUZZ_VERBOSE=1 prints one line per step. */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sanitizer/lsan_interface.h>

#include "fuzz_input.h"
#include "ortapp.h"
#include "ortvk.h"
#include "vk_producer.h"

#define PRODUCER_BYTES (256 * 1024)
#define MAX_COPY_BYTES (1u << 20)
#define FILE_SIZE_MOD (1u << 20)
#define HOST_SIZE_MOD (4u << 20)
#define DRAIN_LIMIT_NS 10000000000ull
#define PAGE 4096u

static void *const SENTINEL = (void *)(uintptr_t)0x5E5E5E5E5E5E5E00ull;

static struct {
    bool ready, verbose;
    ortapp app;
    const OrtEpDevice *device;
    OrtExternalResourceImporter *importer;
    OrtSyncStream *stream;
    const OrtMemoryInfo *device_memory;
    OrtMemoryInfo *cpu_memory;
    bool can_vk_semaphore;
    vk_producer *producer;
    vk_producer_buffer *buffer;
    int producer_fd;
    size_t producer_size;      /* the allocation's size (VkMemoryRequirements) */
    size_t producer_file_size; /* the size of the file behind its FD */
    unsigned long oversized_imports;
    ortvk_host_timeline *drain;
    OrtExternalSemaphoreHandle *drain_sem;
    uint64_t drain_value;
    unsigned long inputs;
} g;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "fuzz_import: INVARIANT VIOLATED (input %lu): ", g.inputs);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...)
{
    if (!g.verbose) return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "fuzz_import: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* Releases a status; returns its code (ORT_OK for NULL). */
static OrtErrorCode consume(OrtStatus *status, const char *what)
{
    if (status == NULL) {
        note("%s: ok", what);
        return ORT_OK;
    }
    OrtErrorCode code = g.app.api->GetErrorCode(status);
    const char *message = g.app.api->GetErrorMessage(status);
    if (message == NULL || message[0] == '\0') fail("%s failed with code %d and no message", what, (int)code);
    note("%s: code %d: %s", what, (int)code, message);
    g.app.api->ReleaseStatus(status);
    return code;
}

/* After a failed call the out parameter must not hold anything usable. ortvk sets it to NULL first thing, but ONNX
 * Runtime passes the EP a pointer of its own for some calls (CreateTensorFromMemory in 1.30.0) and then leaves the
 * application's untouched: NULL or the value it had before are both correct, anything else is a bug. */
static void check_out_after_failure(const char *call, OrtErrorCode code, const void *out)
{
    if (out != NULL && out != SENTINEL) fail("%s failed (code %d) but left out = %p", call, (int)code, out);
    note("%s failed; out is %s", call, out == NULL ? "NULL" : "untouched");
}

#define MAX_LISTED_FDS 256

/* The open descriptors and what they are ("12 -> /memfd:ortvk-host-timeline (deleted)"); returns how many. */
static int list_fds(char (*names)[160], int max)
{
    DIR *dir = opendir("/proc/self/fd");
    if (dir == NULL) fail("cannot open /proc/self/fd: errno %d", errno);
    int n = 0, self = dirfd(dir);
    for (struct dirent *e = readdir(dir); e != NULL; e = readdir(dir)) {
        if (e->d_name[0] == '.' || atoi(e->d_name) == self) continue;
        char link[128] = "?";
        ssize_t len = readlinkat(self, e->d_name, link, sizeof(link) - 1);
        link[len > 0 ? len : 1] = '\0';
        if (names != NULL && n < max) snprintf(names[n], sizeof(names[n]), "%s -> %s", e->d_name, link);
        n++;
    }
    closedir(dir);
    return n;
}

static void print_fds(const char *when, char (*names)[160], int n)
{
    fprintf(stderr, "fuzz_import: descriptors %s:\n", when);
    for (int i = 0; i < n && i < MAX_LISTED_FDS; i++) fprintf(stderr, "    %s\n", names[i]);
}

/* Whether a function pointer points into libortvk (the handle came from ortvk, not from ORT or elsewhere). */
static bool in_ortvk(const void *fn_storage, size_t size)
{
    void *fn = NULL;
    memcpy(&fn, fn_storage, size < sizeof(fn) ? size : sizeof(fn));
    Dl_info info;
    return fn != NULL && dladdr(fn, &info) != 0 && info.dli_fname != NULL && strstr(info.dli_fname, "libortvk") != NULL;
}

static uint32_t pick_version(uint8_t sel, uint32_t raw)
{
    switch (sel % FUZZ_VERSION_COUNT) {
    case FUZZ_VERSION_API: return g.app.api_version;
    case FUZZ_VERSION_24: return 24;
    case FUZZ_VERSION_RAW: return raw;
    case FUZZ_VERSION_ZERO: return 0;
    default: return g.app.api_version + 1;
    }
}

static bool version_ok(uint32_t version)
{
    return version >= 24; /* later versions only add fields at the end: ortvk reads the ones it knows */
}

/* Element sizes as ortvk documents them (0: not a type an ortvk tensor can have). */
static size_t element_size(int64_t type)
{
    static const size_t sizes[17] = {0, 4, 1, 1, 2, 2, 4, 8, 0, 1, 2, 8, 4, 8, 0, 0, 2};
    return type >= 0 && type < 17 ? sizes[type] : 0;
}

static uint8_t pattern(size_t i)
{
    return (uint8_t)(i * 131u + 7u);
}

/* ---- per-input resources ------------------------------------------------------------------------------- */

typedef struct resources {
    int fds[8];
    int fd_count;
    void *map;
    size_t map_size;
    ortvk_host_timeline *timelines[4];
    int timeline_count;
} resources;

static void keep_fd(resources *r, int fd)
{
    if (fd < 0) fail("harness could not create a descriptor: errno %d", errno);
    if (r->fd_count == (int)(sizeof(r->fds) / sizeof(r->fds[0]))) fail("harness keeps too many fds");
    r->fds[r->fd_count++] = fd;
}

static void keep_timeline(resources *r, ortvk_host_timeline *t)
{
    if (r->timeline_count == (int)(sizeof(r->timelines) / sizeof(r->timelines[0]))) fail("too many timelines kept");
    r->timelines[r->timeline_count++] = t;
}

static void free_resources(resources *r)
{
    for (int i = 0; i < r->fd_count; i++) close(r->fds[i]);
    for (int i = 0; i < r->timeline_count; i++) ortvk_host_timeline_close(r->timelines[i]);
    if (r->map) munmap(r->map, r->map_size);
    memset(r, 0, sizeof(*r));
}

typedef struct handle_made {
    void *native;
    uint64_t natural;              /* the resource's real size (what a correct application would pass) */
    int kind;
    void *host;                    /* FUZZ_H_HOST_ALLOC: the mapping's usable start (before misalignment) */
    ortvk_host_timeline *timeline; /* an application-side handle on the same timeline, when it is one */
} handle_made;

static void write_payload(int fd, const fuzz_input *in, uint64_t size)
{
    size_t n = in->payload_len < size ? in->payload_len : (size_t)size;
    if (n > 0 && pwrite(fd, in->payload, n, 0) != (ssize_t)n) fail("pwrite: errno %d", errno);
}

/* Whether descriptor fd is open on the drain timeline's file. */
static bool is_drain_file(int fd)
{
    struct stat a, b;
    return fstat(fd, &a) == 0 && fstat(ortvk_host_timeline_fd(g.drain), &b) == 0 && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino;
}

static handle_made make_handle(int kind, uint64_t raw, uint64_t size, unsigned seals, unsigned misalign,
                               const fuzz_input *in, resources *r)
{
    handle_made h = {.kind = kind % FUZZ_H_COUNT, .natural = size};
    int fd = -1;
    switch (h.kind) {
    case FUZZ_H_CLOSED:
        fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (fd < 0) fail("open /dev/null: errno %d", errno);
        close(fd);
        break;
    case FUZZ_H_RAW: {
        /* The raw value may name an open descriptor, even a valid host timeline (one this input made for an earlier
         * handle): importing that one is right, so the checks get a handle on it as for a forged memfd. It never
         * names the harness's drain timeline (its descriptor, or ortvk's duplicate of it), which an input could
         * otherwise signal to UINT64_MAX (or write through as memory) and so stop every later drain: that would be
         * the harness breaking its own stream. */
        if (raw <= INT_MAX && is_drain_file((int)raw)) raw = UINT64_MAX;
        h.native = (void *)(uintptr_t)raw;
        ortvk_host_timeline *t = NULL;
        if (raw <= INT_MAX && ortvk_host_timeline_open((int)raw, &t) == 0) {
            keep_timeline(r, t);
            h.timeline = t;
        }
        return h;
    }
    case FUZZ_H_PIPE: {
        int p[2];
        if (pipe2(p, O_CLOEXEC) != 0) fail("pipe: errno %d", errno);
        keep_fd(r, p[0]);
        keep_fd(r, p[1]);
        fd = p[0];
        break;
    }
    case FUZZ_H_SOCKET: {
        int s[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, s) != 0) fail("socketpair: errno %d", errno);
        keep_fd(r, s[0]);
        keep_fd(r, s[1]);
        fd = s[0];
        break;
    }
    case FUZZ_H_FILE: {
        char path[] = "/tmp/ortvk-fuzz-XXXXXX";
        fd = mkostemp(path, O_CLOEXEC);
        keep_fd(r, fd);
        unlink(path);
        h.natural = size % FILE_SIZE_MOD;
        if (ftruncate(fd, (off_t)h.natural) != 0) fail("ftruncate: errno %d", errno);
        write_payload(fd, in, h.natural);
        break;
    }
    case FUZZ_H_MEMFD: {
        fd = memfd_create("ortvk-fuzz", MFD_CLOEXEC | MFD_ALLOW_SEALING);
        keep_fd(r, fd);
        h.natural = size % FILE_SIZE_MOD;
        if (ftruncate(fd, (off_t)h.natural) != 0) fail("ftruncate: errno %d", errno);
        write_payload(fd, in, h.natural);
        if ((seals & 0xf) != 0 && fcntl(fd, F_ADD_SEALS, (int)(seals & 0xf)) != 0) fail("F_ADD_SEALS: errno %d", errno);
        /* If the fuzzer forged a valid host timeline, keep an application-side handle for the signal checks. */
        ortvk_host_timeline *t = NULL;
        if (ortvk_host_timeline_open(fd, &t) == 0) {
            keep_timeline(r, t);
            h.timeline = t;
        }
        break;
    }
    case FUZZ_H_DEVNULL:
        fd = open("/dev/null", O_RDWR | O_CLOEXEC);
        keep_fd(r, fd);
        break;
    case FUZZ_H_PRODUCER:
        fd = fcntl(g.producer_fd, F_DUPFD_CLOEXEC, 0);
        keep_fd(r, fd);
        h.natural = g.producer_size;
        break;
    case FUZZ_H_HOST_TIMELINE: {
        ortvk_host_timeline *t = NULL;
        if (ortvk_host_timeline_create(0, &t) != 0) fail("ortvk_host_timeline_create: errno %d", errno);
        keep_timeline(r, t);
        h.timeline = t;
        fd = ortvk_host_timeline_fd(t);
        h.natural = ORTVK_HOST_TIMELINE_SHARED_SIZE;
        break;
    }
    case FUZZ_H_HOST_ALLOC: {
        h.natural = (size % HOST_SIZE_MOD + PAGE - 1) / PAGE * PAGE;
        if (r->map == NULL) {
            r->map_size = h.natural + PAGE; /* room for the misalignment */
            r->map =
                mmap(NULL, r->map_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
            if (r->map == MAP_FAILED) fail("mmap %zu: errno %d", r->map_size, errno);
        } else {
            h.natural = r->map_size - PAGE; /* a second host allocation handle (semaphore part) reuses the first */
        }
        h.host = r->map;
        h.native = (char *)r->map + misalign;
        return h;
    }
    case FUZZ_H_NULL:
        return h;
    default: /* FUZZ_H_DIRECTORY */
        fd = open("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        keep_fd(r, fd);
        break;
    }
    h.native = (void *)(intptr_t)fd;
    return h;
}

/* ---- memory ------------------------------------------------------------------------------------------- */

static void check_memory_handle(OrtStatus *status, OrtExternalMemoryHandle *handle,
                                const OrtExternalMemoryDescriptor *desc, bool must_fail, const char *why)
{
    OrtErrorCode code = consume(status, "ImportMemory");
    if (code != ORT_OK) {
        check_out_after_failure("ImportMemory", code, handle);
        return;
    }
    if (must_fail) fail("ImportMemory accepted a descriptor it must refuse: %s", why);
    if (handle == NULL || handle == SENTINEL) fail("ImportMemory succeeded without a handle");
    if (!in_ortvk(&handle->Release, sizeof(handle->Release))) fail("the memory handle's Release is not ortvk's");
    if (handle->ep_device != g.device) fail("the memory handle names another EP device");
    const OrtExternalMemoryDescriptor *d = &handle->descriptor;
    if (d->version != desc->version || d->handle_type != desc->handle_type || d->native_handle != desc->native_handle ||
        d->size_bytes != desc->size_bytes || d->offset_bytes != desc->offset_bytes)
        fail("the memory handle's descriptor is not a copy of the one imported");
}

typedef struct view {
    OrtValue *value;
    int64_t shape[FUZZ_MAX_RANK];
    size_t rank, bytes, start; /* start: byte offset of the view in the whole allocation */
    int64_t type;
} view;

/* Creates a view as the input says; on success fills v. Checks every invariant of CreateTensorFromMemory. */
static bool create_view(const fuzz_input *in, OrtExternalMemoryHandle *memory, const OrtExternalMemoryDescriptor *mem,
                        size_t extra_offset, view *v)
{
    memset(v, 0, sizeof(*v));
    v->rank = in->tensor_rank % (FUZZ_MAX_RANK + 1);
    v->type = in->tensor_elem_sel <= 16 ? in->tensor_elem_sel : (int64_t)(int32_t)in->tensor_elem_raw;
    size_t element = element_size(v->type);
    size_t region = mem->size_bytes - mem->offset_bytes; /* the memory descriptor was accepted: offset < size */

    size_t offset;
    switch (in->tensor_offset_mode % 4) {
    case 0: offset = 0; break;
    case 1: offset = (size_t)in->tensor_offset; break;
    case 2: offset = region == SIZE_MAX ? (size_t)in->tensor_offset : (size_t)(in->tensor_offset % (region + 1)); break;
    default: offset = (size_t)(in->tensor_offset % 64) * (element ? element : 1); break;
    }
    offset += extra_offset;
    for (size_t i = 0; i < v->rank; i++) {
        switch (in->tensor_dim_mode % 4) {
        case 0: v->shape[i] = (int16_t)in->dims[i]; break;
        case 1: v->shape[i] = in->dims[i]; break;
        case 2: v->shape[i] = (uint8_t)in->dims[i]; break;
        default: v->shape[i] = 1; break;
        }
    }
    if (in->tensor_dim_mode % 4 == 3 && v->rank > 0 && element > 0 && offset <= region)
        v->shape[0] = (int64_t)((region - offset) / element);

    OrtExternalTensorDescriptor desc = {
        .version = pick_version(in->tensor_version_sel, in->tensor_version_raw),
        .element_type = (ONNXTensorElementDataType)v->type,
        .shape = (in->flags & FUZZ_F_NULL_SHAPE) ? NULL : v->shape,
        .rank = v->rank,
        .offset_bytes = offset,
    };

    /* What the contract makes invalid. */
    const char *why = NULL;
    unsigned __int128 bytes = element;
    for (size_t i = 0; i < v->rank && desc.shape != NULL; i++) {
        if (v->shape[i] < 0) why = "a negative dimension";
        else bytes *= (unsigned __int128)v->shape[i];
        if (bytes > ((unsigned __int128)1 << 64)) bytes = ((unsigned __int128)1 << 64); /* saturate */
    }
    if (!version_ok(desc.version)) why = "tensor_desc->version out of range";
    else if (element == 0) why = "an element type ortvk cannot hold";
    else if (v->rank > 8) why = "rank above 8";
    else if (v->rank > 0 && desc.shape == NULL) why = "a NULL shape";
    else if (why == NULL && ((unsigned __int128)offset + bytes > region)) why = "a view that leaves the region";
    else if (why == NULL && (mem->offset_bytes + offset) % element != 0) why = "a misaligned view";

    v->value = SENTINEL;
    OrtStatus *status = g.app.interop->CreateTensorFromMemory(g.importer, memory, &desc, &v->value);
    OrtErrorCode code = consume(status, "CreateTensorFromMemory");
    if (code != ORT_OK) {
        check_out_after_failure("CreateTensorFromMemory", code, v->value);
        return false;
    }
    if (why != NULL) fail("CreateTensorFromMemory accepted %s (offset %zu, region %zu)", why, offset, region);
    if (v->value == NULL || v->value == SENTINEL) fail("CreateTensorFromMemory succeeded without a tensor");
    v->bytes = (size_t)bytes;
    v->start = mem->offset_bytes + offset;

    /* The tensor is what was asked for. */
    const OrtApi *api = g.app.api;
    int is_tensor = 0;
    OrtTensorTypeAndShapeInfo *info = NULL;
    ONNXTensorElementDataType type = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
    size_t dims_count = 99, size = 0;
    int64_t dims[FUZZ_MAX_RANK];
    if (consume(api->IsTensor(v->value, &is_tensor), "IsTensor") != ORT_OK || !is_tensor) fail("not a tensor");
    if (consume(api->GetTensorTypeAndShape(v->value, &info), "GetTensorTypeAndShape") != ORT_OK) fail("no shape");
    if (consume(api->GetTensorElementType(info, &type), "GetTensorElementType") != ORT_OK || type != v->type)
        fail("element type %d, asked for %lld", (int)type, (long long)v->type);
    if (consume(api->GetDimensionsCount(info, &dims_count), "GetDimensionsCount") != ORT_OK || dims_count != v->rank)
        fail("rank %zu, asked for %zu", dims_count, v->rank);
    if (consume(api->GetDimensions(info, dims, v->rank), "GetDimensions") != ORT_OK ||
        memcmp(dims, v->shape, v->rank * sizeof(int64_t)) != 0)
        fail("the tensor's shape is not the one asked for");
    api->ReleaseTensorTypeAndShapeInfo(info);
    if (consume(api->GetTensorSizeInBytes(v->value, &size), "GetTensorSizeInBytes") != ORT_OK || size != v->bytes)
        fail("tensor of %zu bytes, expected %zu", size, v->bytes);
    const OrtMemoryInfo *where = NULL;
    int cmp = 1;
    if (consume(api->GetTensorMemoryInfo(v->value, &where), "GetTensorMemoryInfo") != ORT_OK ||
        consume(api->CompareMemoryInfo(where, g.device_memory, &cmp), "CompareMemoryInfo") != ORT_OK || cmp != 0)
        fail("the tensor does not live in ortvk device memory");
    return true;
}

typedef struct copy_check {
    OrtValue *host_value;
    uint8_t *host;     /* the host tensor's data */
    uint8_t *expected; /* what must be in `host` (copy out) or in the view (copy in) once the copy is done */
    uint8_t *target;   /* copy in: where the view's bytes are visible to us (the host allocation) */
    size_t bytes;
} copy_check;

static OrtValue *host_tensor(const view *v, void *data)
{
    OrtValue *value = NULL;
    if (consume(g.app.api->CreateTensorWithDataAsOrtValue(g.cpu_memory, data, v->bytes, v->shape, v->rank,
                                                           (ONNXTensorElementDataType)v->type, &value),
                "CreateTensorWithDataAsOrtValue") != ORT_OK)
        fail("cannot make a host tensor like the view");
    return value;
}

static void copy(OrtValue *src, OrtValue *dst, bool on_stream, const char *what)
{
    const OrtValue *s[1] = {src};
    OrtValue *d[1] = {dst};
    OrtStatus *status = g.app.api->CopyTensors(g.app.env, s, d, on_stream ? g.stream : NULL, 1);
    if (status != NULL) {
        OrtErrorCode code = g.app.api->GetErrorCode(status);
        /* A stream call may first report what its helper thread saw earlier (a host wait that timed out). */
        if (on_stream && code == ORT_EP_FAIL && strstr(g.app.api->GetErrorMessage(status), "host timeline")) {
            g.app.api->ReleaseStatus(status);
            status = g.app.api->CopyTensors(g.app.env, s, d, g.stream, 1);
            if (status == NULL) return;
        }
        fprintf(stderr, "fuzz_import: %s: %s\n", what, g.app.api->GetErrorMessage(status));
        fail("CopyTensors refused a valid view (%s)", what);
    }
}

/* ---- semaphores --------------------------------------------------------------------------------------- */

static void drain(void)
{
    const OrtInteropApi *io = g.app.interop;
    /* A signal queued behind a wait that failed is withheld until a call on the stream has reported the failure
     * (docs/interop.md): when the drain signal does not land soon, signal again; that call reports the failure
     * (and is refused), the one after it is delivered. */
    for (int attempt = 0;; attempt++) {
        for (int tries = 0;; tries++) {
            OrtStatus *status = io->SignalSemaphore(g.importer, g.drain_sem, g.stream, g.drain_value + 1);
            if (status == NULL) break;
            OrtErrorCode code = consume(status, "drain SignalSemaphore");
            if (tries == 3) fail("the stream refuses to queue a signal (code %d)", (int)code);
        }
        g.drain_value++;
        uint64_t limit = attempt < 3 ? DRAIN_LIMIT_NS / 20 : DRAIN_LIMIT_NS;
        if (ortvk_host_timeline_wait(g.drain, g.drain_value, limit) == 0) break;
        if (attempt == 3)
            fail("the stream did not drain within 10 s (drain value %llu)", (unsigned long long)g.drain_value);
    }
    /* Take any failure the drained jobs left on the stream, so the next input starts clean. */
    OrtStatus *status = io->SignalSemaphore(g.importer, g.drain_sem, g.stream, g.drain_value + 1);
    if (status != NULL) {
        consume(status, "drain SignalSemaphore (error pickup)");
        return;
    }
    g.drain_value++;
    if (ortvk_host_timeline_wait(g.drain, g.drain_value, DRAIN_LIMIT_NS) != 0)
        fail("the stream did not drain within 10 s (drain value %llu)", (unsigned long long)g.drain_value);
}

/* Imports a semaphore and queues the input's operations on the stream. Returns the handle for the caller to release
 * after draining the stream (NULL when there is none left to release). */
static OrtExternalSemaphoreHandle *semaphore_part(const fuzz_input *in, resources *r)
{
    const OrtInteropApi *io = g.app.interop;
    uint64_t raw = in->sem_handle_raw;
    handle_made h = make_handle(in->sem_handle_kind, raw, raw & 0x3fff, (unsigned)(raw >> 16) & 0xf, 0, in, r);
    int64_t type;
    switch (in->sem_type_sel % 5) {
    case 0: type = ORTVK_EXTERNAL_SEMAPHORE_HOST_TIMELINE; break;
    case 1: type = ORT_EXTERNAL_SEMAPHORE_VK_TIMELINE_SEMAPHORE_OPAQUE_FD; break;
    case 2: type = (int32_t)in->sem_type_raw; break;
    case 3: type = ORT_EXTERNAL_SEMAPHORE_D3D12_FENCE; break;
    default: type = ORT_EXTERNAL_SEMAPHORE_VK_TIMELINE_SEMAPHORE_WIN32; break;
    }
    OrtExternalSemaphoreDescriptor desc = {
        .version = pick_version(in->sem_version_sel, in->sem_version_raw),
        .type = (OrtExternalSemaphoreType)type,
        .native_handle = h.native,
    };
    OrtExternalSemaphoreHandle *semaphore = SENTINEL;
    OrtErrorCode code = consume(io->ImportSemaphore(g.importer, &desc, &semaphore), "ImportSemaphore");
    if (code != ORT_OK) {
        check_out_after_failure("ImportSemaphore", code, semaphore);
        return NULL;
    }
    if (semaphore == NULL || semaphore == SENTINEL) fail("ImportSemaphore succeeded without a handle");
    if (!version_ok(desc.version)) fail("ImportSemaphore accepted version %u", desc.version);
    bool host = type == ORTVK_EXTERNAL_SEMAPHORE_HOST_TIMELINE;
    if (!host && !(type == ORT_EXTERNAL_SEMAPHORE_VK_TIMELINE_SEMAPHORE_OPAQUE_FD && g.can_vk_semaphore))
        fail("ImportSemaphore accepted type %lld", (long long)type);
    if (host && h.timeline == NULL)
        fail("ImportSemaphore accepted a handle (kind %d) that is not a host timeline", h.kind);
    if (!in_ortvk(&semaphore->Release, sizeof(semaphore->Release)))
        fail("the semaphore handle's Release is not ortvk's");
    if (semaphore->ep_device != g.device || semaphore->descriptor.version != desc.version ||
        semaphore->descriptor.type != desc.type || semaphore->descriptor.native_handle != desc.native_handle)
        fail("the semaphore handle's descriptor is not a copy of the one imported");

    uint64_t queued = 0; /* the highest value a SignalSemaphore accepted */
    int count = in->sem_op_count % (FUZZ_MAX_OPS + 1);
    for (int i = 0; i < count; i++) {
        uint64_t value = in->ops[i].value;
        switch (in->ops[i].op % FUZZ_OP_COUNT) {
        case FUZZ_OP_WAIT:
        case FUZZ_OP_WAIT_THEN_APP_SIGNAL:
            consume(io->WaitSemaphore(g.importer, semaphore, g.stream, value), "WaitSemaphore");
            if (in->ops[i].op % FUZZ_OP_COUNT == FUZZ_OP_WAIT || h.timeline == NULL) break;
            __attribute__((fallthrough)); /* the application satisfies the wait it just queued */
        case FUZZ_OP_APP_SIGNAL:
            if (h.timeline) ortvk_host_timeline_signal(h.timeline, value);
            break;
        default: { /* FUZZ_OP_SIGNAL */
            uint64_t before = h.timeline ? ortvk_host_timeline_value(h.timeline) : 0;
            code = consume(io->SignalSemaphore(g.importer, semaphore, g.stream, value), "SignalSemaphore");
            if (code == ORT_OK && host && (value <= before || value <= queued))
                fail("SignalSemaphore accepted %llu, not above the timeline's %llu or the queued %llu",
                     (unsigned long long)value, (unsigned long long)before, (unsigned long long)queued);
            if (code == ORT_OK && value > queued) queued = value;
            break;
        }
        }
    }
    if (in->flags & FUZZ_F_RELEASE_SEM_EARLY) {
        io->ReleaseExternalSemaphoreHandle(semaphore); /* queued jobs keep what they need */
        semaphore = NULL;
    }
    if ((in->flags & FUZZ_F_SATISFY) && h.timeline) ortvk_host_timeline_signal(h.timeline, UINT64_MAX);
    return semaphore;
}

/* ---- one input ---------------------------------------------------------------------------------------- */

static void memory_and_semaphores(const fuzz_input *in, resources *r)
{
    const OrtApi *api = g.app.api;
    const OrtInteropApi *io = g.app.interop;
    OrtExternalMemoryHandle *memory = NULL;
    view views[2];
    int view_count = 0;
    copy_check checks[4] = {{0}};
    int check_count = 0;
    handle_made h = {0};
    OrtExternalMemoryDescriptor desc = {0};
    bool on_stream = (in->flags2 & FUZZ_F2_ON_STREAM) != 0;

    if (in->flags & FUZZ_F_MEMORY) {
        h = make_handle(in->mem_handle_kind, in->mem_handle_raw, in->mem_size, in->mem_seals, in->mem_misalign, in, r);
        int64_t type;
        switch (in->mem_type_sel % 6) {
        case 0: type = ORT_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION; break;
        case 1: type = ORT_EXTERNAL_MEMORY_HANDLE_TYPE_MEMORY_OPAQUE_FD; break;
        case 2: type = (int32_t)in->mem_type_raw; break;
        default: type = in->mem_type_sel % 6 - 3; break;
        }
        desc.version = pick_version(in->mem_version_sel, in->mem_version_raw);
        desc.handle_type = (OrtExternalMemoryHandleType)type;
        desc.native_handle = h.native;
        switch (in->mem_size_mode & 3) {
        case 0: desc.size_bytes = (size_t)h.natural; break;
        case 1: desc.size_bytes = (size_t)in->mem_size; break;
        case 2: desc.size_bytes = (size_t)(h.natural + (uint64_t)(int64_t)(int16_t)in->mem_size); break;
        default: desc.size_bytes = 0; break;
        }
        switch ((in->mem_size_mode >> 4) & 3) {
        case 0: desc.offset_bytes = 0; break;
        case 1: desc.offset_bytes = (size_t)in->mem_offset; break;
        case 2:
            desc.offset_bytes = desc.size_bytes == SIZE_MAX ? 0 : (size_t)(in->mem_offset % (desc.size_bytes + 1));
            break;
        default: desc.offset_bytes = (size_t)(in->mem_offset % 1024) * 4; break;
        }

        const char *why = NULL;
        bool host = type == ORT_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION;
        bool opaque = type == ORT_EXTERNAL_MEMORY_HANDLE_TYPE_MEMORY_OPAQUE_FD;
        if (!version_ok(desc.version)) why = "version out of range";
        else if (!host && !opaque) why = "a memory handle type ortvk does not import";
        else if (desc.size_bytes == 0) why = "size 0";
        else if (desc.offset_bytes >= desc.size_bytes) why = "offset_bytes >= size_bytes";
        else if (host && ((uintptr_t)desc.native_handle % PAGE != 0 || desc.size_bytes % PAGE != 0 ||
                          desc.native_handle == NULL))
            why = "an unaligned or NULL host allocation";
        else if (opaque && h.kind != FUZZ_H_PRODUCER) why = "an opaque FD that is not exported Vulkan memory";
        /* Beyond the FD's file there is no memory: ortvk must refuse. Between the allocation's size and the file's
         * (lavapipe's memfd adds a header and alignment slack) an import is invalid usage that only the driver
         * could notice, and lavapipe does not: such imports are counted, not failed. */
        else if (opaque && desc.size_bytes > g.producer_file_size) why = "an opaque FD import beyond the FD's file";
        if (opaque && h.kind == FUZZ_H_PRODUCER && desc.size_bytes > h.natural && why == NULL) g.oversized_imports++;

        OrtExternalMemoryHandle *first = NULL;
        if (in->flags & FUZZ_F_TWO_IMPORTS) {
            first = SENTINEL;
            OrtStatus *status = io->ImportMemory(g.importer, &desc, &first);
            bool ok = status == NULL;
            check_memory_handle(status, first, &desc, why != NULL, why ? why : "");
            if (!ok) first = NULL;
        }
        memory = SENTINEL;
        OrtStatus *status = io->ImportMemory(g.importer, &desc, &memory);
        bool ok = status == NULL;
        check_memory_handle(status, memory, &desc, why != NULL, why ? why : "");
        if (!ok) memory = NULL;
        /* Two imports of one allocation: the first goes at once; the second's views must not notice. */
        if (first) io->ReleaseExternalMemoryHandle(first);
        if (memory) {
            if (create_view(in, memory, &desc, 0, &views[view_count])) view_count++;
            if ((in->flags & FUZZ_F_SECOND_VIEW) && create_view(in, memory, &desc, 64, &views[view_count]))
                view_count++;
            if (in->flags & FUZZ_F_RELEASE_MEMORY_FIRST) {
                io->ReleaseExternalMemoryHandle(memory); /* the views keep the import alive */
                memory = NULL;
            }
        }
        /* Copies, where the bytes behind the view are known and really there: every view out (in stream order),
         * then a pattern into the first view (host allocations only: the producer's bytes stay as they are). */
        bool known = (host && h.kind == FUZZ_H_HOST_ALLOC) || (opaque && h.kind == FUZZ_H_PRODUCER);
        known = known && desc.size_bytes <= h.natural;
        for (int i = 0; i < view_count && known && host; i++) { /* recognisable contents in the host allocation */
            for (size_t k = 0; k < views[i].bytes && views[i].bytes <= MAX_COPY_BYTES; k++)
                ((uint8_t *)h.host)[views[i].start + k] = pattern(views[i].start + k);
        }
        for (int i = 0; i < view_count && known && (in->flags2 & FUZZ_F2_COPY_OUT); i++) {
            view *v = &views[i];
            if (v->bytes == 0 || v->bytes > MAX_COPY_BYTES) continue;
            copy_check *c = &checks[check_count++];
            c->bytes = v->bytes;
            c->host = malloc(v->bytes);
            c->expected = malloc(v->bytes);
            if (!c->host || !c->expected) fail("out of memory");
            memset(c->host, 0xA5, v->bytes);
            for (size_t k = 0; k < v->bytes; k++) c->expected[k] = pattern(v->start + k);
            c->host_value = host_tensor(v, c->host);
            copy(v->value, c->host_value, on_stream, "copy out of the view");
        }
        if (view_count > 0 && known && host && (in->flags2 & FUZZ_F2_COPY_IN)) {
            view *v = &views[0];
            if (v->bytes > 0 && v->bytes <= MAX_COPY_BYTES) {
                copy_check *c = &checks[check_count++];
                c->bytes = v->bytes;
                c->host = malloc(v->bytes);
                c->expected = c->host;
                if (!c->host) fail("out of memory");
                for (size_t k = 0; k < v->bytes; k++) c->host[k] = (uint8_t)~pattern(k + 11);
                c->target = (uint8_t *)h.host + v->start;
                c->host_value = host_tensor(v, c->host);
                copy(c->host_value, v->value, on_stream, "copy into the view");
            }
        }
    }

    OrtExternalSemaphoreHandle *semaphore = (in->flags & FUZZ_F_SEMAPHORE) ? semaphore_part(in, r) : NULL;
    /* Everything queued on the stream finishes (or the stream hangs and the harness says so) before anything is
     * compared or released. */
    if ((in->flags & FUZZ_F_SEMAPHORE) || on_stream) drain();
    if (semaphore) io->ReleaseExternalSemaphoreHandle(semaphore);

    for (int i = 0; i < check_count; i++) {
        copy_check *c = &checks[i];
        const uint8_t *got = c->target ? c->target : c->host;
        if (memcmp(got, c->expected, c->bytes) != 0) {
            size_t k = 0;
            while (got[k] == c->expected[k]) k++;
            fail("copy %s: byte %zu of %zu is 0x%02x, expected 0x%02x", c->target ? "into the view" : "out of the view",
                 k, c->bytes, got[k], c->expected[k]);
        }
        api->ReleaseValue(c->host_value);
        if (c->expected != c->host) free(c->expected);
        free(c->host);
    }
    for (int i = 0; i < view_count; i++) api->ReleaseValue(views[i].value);
    if (memory) io->ReleaseExternalMemoryHandle(memory);
}

/* ---- process-wide setup ------------------------------------------------------------------------------- */

static void report(void);

static void setup(void)
{
    char error[512];
    g.verbose = getenv("ORTVK_FUZZ_VERBOSE") && getenv("ORTVK_FUZZ_VERBOSE")[0] == '1';
    /* ONNX Runtime 1.30.0's telemetry opens files, eventfds and sockets (DNS lookups, HTTPS uploads) from threads
     * of its own at moments unrelated to the input, which the descriptor check would blame on whatever input runs
     * then; DisableTelemetryEvents does not stop it, this variable does. */
    setenv("ORT_DISABLE_TELEMETRY", "1", 0);
    if (ortapp_open(&g.app, NULL, ORT_LOGGING_LEVEL_FATAL, error, sizeof(error)) != 0) {
        fprintf(stderr, "fuzz_import: %s\n", error);
        exit(1);
    }
    const OrtApi *api = g.app.api;
    if (g.app.interop == NULL) fail("ONNX Runtime %s has no interop API", g.app.version);
    if (consume(ortapp_register(&g.app, NULL), "RegisterExecutionProviderLibrary") != ORT_OK ||
        ortapp_devices(&g.app, &g.device, 1) != 1)
        fail("ortvk offers no EP device");
    if (consume(g.app.interop->CreateExternalResourceImporterForDevice(g.device, &g.importer), "importer") != ORT_OK)
        fail("no importer");
    OrtKeyValuePairs *options = NULL;
    api->CreateKeyValuePairs(&options);
    api->AddKeyValuePair(options, ORTVK_STREAM_OPTION_HOST_WAIT_TIMEOUT_MS, "1");
    if (consume(api->CreateSyncStreamForEpDevice(g.device, options, &g.stream), "stream") != ORT_OK) fail("no stream");
    api->ReleaseKeyValuePairs(options);
    g.device_memory = api->EpDevice_MemoryInfo(g.device, OrtDeviceMemoryType_DEFAULT);
    if (g.device_memory == NULL) fail("no device memory info");
    if (consume(api->CreateCpuMemoryInfo(OrtDeviceAllocator, OrtMemTypeDefault, &g.cpu_memory), "cpu info") != ORT_OK)
        fail("no CPU memory info");
    bool can = false;
    consume(g.app.interop->CanImportSemaphore(g.importer, ORT_EXTERNAL_SEMAPHORE_VK_TIMELINE_SEMAPHORE_OPAQUE_FD, &can),
            "CanImportSemaphore");
    g.can_vk_semaphore = can;

    /* The producer's memory, exported once; every input gets a dup of this FD. */
    uint8_t *bytes = malloc(PRODUCER_BYTES);
    if (bytes == NULL) fail("out of memory");
    for (size_t i = 0; i < PRODUCER_BYTES; i++) bytes[i] = pattern(i);
    if (vk_producer_create(-1, &g.producer) != 0 ||
        vk_producer_buffer_create(g.producer, PRODUCER_BYTES, &g.buffer) != 0 ||
        vk_producer_buffer_write(g.buffer, 0, bytes, PRODUCER_BYTES) != 0)
        fail("cannot set up the vk_producer");
    free(bytes);
    g.producer_size = vk_producer_buffer_alloc_size(g.buffer);
    g.producer_fd = vk_producer_buffer_export_fd(g.buffer);
    if (g.producer_fd < 0) fail("the producer cannot export an opaque FD (%d)", g.producer_fd);
    struct stat st;
    if (fstat(g.producer_fd, &st) != 0) fail("fstat on the producer's FD: errno %d", errno);
    g.producer_file_size = S_ISREG(st.st_mode) ? (size_t)st.st_size : g.producer_size;

    if (ortvk_host_timeline_create(0, &g.drain) != 0) fail("no drain timeline");
    OrtExternalSemaphoreDescriptor desc = {
        .version = g.app.api_version,
        .type = (OrtExternalSemaphoreType)ORTVK_EXTERNAL_SEMAPHORE_HOST_TIMELINE,
        .native_handle = (void *)(intptr_t)ortvk_host_timeline_fd(g.drain),
    };
    if (consume(g.app.interop->ImportSemaphore(g.importer, &desc, &g.drain_sem), "drain import") != ORT_OK)
        fail("cannot import the drain timeline");
    g.ready = true;
    fprintf(stderr, "fuzz_import: ONNX Runtime %s, ortvk device ready; producer allocation of %zu bytes (file %zu)\n",
            g.app.version, g.producer_size, g.producer_file_size);
    atexit(report);
}

/* At exit: the figures, then everything setup made goes, in order, so that LeakSanitizer's exit check sees a
 * process that released all it holds (with the validation layer on, objects still alive at exit would otherwise
 * show up as leaks once the layer's own tables are destroyed). */
static void report(void)
{
    fprintf(stderr, "fuzz_import: %lu inputs; %lu opaque FD imports larger than the allocation were accepted (lavapipe "
            "tolerates them up to the FD's file size)\n", g.inputs, g.oversized_imports);
    if (!g.ready) return;
    drain();
    g.app.interop->ReleaseExternalSemaphoreHandle(g.drain_sem);
    ortvk_host_timeline_close(g.drain);
    g.app.api->ReleaseSyncStream(g.stream);
    g.app.interop->ReleaseExternalResourceImporter(g.importer);
    g.app.api->ReleaseMemoryInfo(g.cpu_memory);
    close(g.producer_fd);
    vk_producer_buffer_destroy(g.buffer);
    vk_producer_destroy(g.producer);
    ortapp_close(&g.app);
    g.ready = false;
}

/* Runs a few inputs through every path once, so that whatever ONNX Runtime, Mesa or ortvk open lazily on first
 * use (files, threads, caches) is open before FDs are counted. */
static void warm_up(void)
{
    static const uint8_t kinds[] = {FUZZ_H_PRODUCER, FUZZ_H_HOST_ALLOC};
    for (int round = 0; round < 2; round++) {
        for (size_t k = 0; k < sizeof(kinds); k++) {
            fuzz_input in = {0};
            in.flags = FUZZ_F_MEMORY | FUZZ_F_SEMAPHORE | FUZZ_F_SATISFY;
            in.flags2 = (uint8_t)(FUZZ_F2_COPY_OUT | FUZZ_F2_COPY_IN | (round ? FUZZ_F2_ON_STREAM : 0));
            in.mem_type_sel = kinds[k] == FUZZ_H_PRODUCER ? 1 : 0;
            in.mem_handle_kind = kinds[k];
            in.mem_size = 65536;
            in.tensor_elem_sel = 1;
            in.tensor_rank = 1;
            in.dims[0] = 256;
            in.sem_handle_kind = FUZZ_H_HOST_TIMELINE;
            in.sem_op_count = 3;
            in.ops[0] = (fuzz_op){FUZZ_OP_WAIT, 1};
            in.ops[1] = (fuzz_op){FUZZ_OP_SIGNAL, 2};
            in.ops[2] = (fuzz_op){FUZZ_OP_WAIT, 5};
            resources r = {0};
            memory_and_semaphores(&in, &r);
            free_resources(&r);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!g.ready) {
        /* What setup allocates lives for the process, and lavapipe loses 48 bytes in vkCreateComputePipelines (the
         * producer's pipeline): not what is under test, so LeakSanitizer ignores this thread's setup allocations.
         * The warm-up runs ortvk's paths and is checked like any input. */
        __lsan_disable();
        setup();
        __lsan_enable();
        warm_up();
    }
    g.inputs++;
    fuzz_input in;
    fuzz_decode(data, size, &in);
    static char before_names[MAX_LISTED_FDS][160], after_names[MAX_LISTED_FDS][160];
    int before = list_fds(before_names, MAX_LISTED_FDS);
    resources r = {0};
    memory_and_semaphores(&in, &r);
    free_resources(&r);
    int after = list_fds(after_names, MAX_LISTED_FDS);
    if (after != before) {
        print_fds("before the input", before_names, before);
        print_fds("after the input", after_names, after);
        fail("%d file descriptors open before the input, %d after", before, after);
    }
    return 0;
}
