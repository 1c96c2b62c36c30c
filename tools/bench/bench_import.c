/* ortvk-bench 1: import cost. Per size, a frame-sized allocation of the producer device exported as an opaque FD;
 * each iteration hands a fresh dup() of that FD to
 *   ortvk:  ImportMemory + CreateTensorFromMemory + ReleaseValue + ReleaseExternalMemoryHandle (through ORT)
 *   floor:  vkAllocateMemory(VkImportMemoryFdInfoKHR) + vkFreeMemory on the bench's own VkDevice
 *   floor+: the same plus what an importer needs before it can use the memory (VkBuffer, bind, device address)
 * and likewise for a page-aligned host allocation (VK_EXT_external_memory_host). dup() and close() are outside the
 * timed region; the three are interleaved per iteration so drift hits them alike. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

static size_t round_up(size_t x, size_t to)
{
    return (x + to - 1) / to * to;
}

/* One ortvk import of `md` with a view of `shape`, released again; returns microseconds or -1. */
static double ortvk_import_once(bench *b, const OrtExternalMemoryDescriptor *md, const int64_t shape[4])
{
    const OrtInteropApi *interop = b->app.interop;
    OrtExternalTensorDescriptor td = {.version = b->app.api_version,
                                      .element_type = ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT,
                                      .shape = shape,
                                      .rank = 4};
    OrtExternalMemoryHandle *memory = NULL;
    OrtValue *value = NULL;
    double t0 = bench_now_us();
    if (BENCH_ORT(b, interop->ImportMemory(b->importer, md, &memory))) return -1;
    if (BENCH_ORT(b, interop->CreateTensorFromMemory(b->importer, memory, &td, &value))) {
        interop->ReleaseExternalMemoryHandle(memory);
        return -1;
    }
    b->app.api->ReleaseValue(value);
    interop->ReleaseExternalMemoryHandle(memory);
    return bench_now_us() - t0;
}

static void add_result(bench *b, const char *size, const char *kind, const char *floor, size_t bytes,
                       double *ortvk, double *bare, size_t n)
{
    import_result *r = &b->imports[b->import_count++];
    snprintf(r->size, sizeof(r->size), "%s", size);
    snprintf(r->kind, sizeof(r->kind), "%s", kind);
    snprintf(r->floor, sizeof(r->floor), "%s", floor);
    r->bytes = bytes;
    double *copy = malloc(n * sizeof(*copy));
    if (copy) memcpy(copy, ortvk, n * sizeof(*copy));
    r->ortvk = bench_stat_of(copy ? copy : ortvk, n); /* ortvk's samples may be shared by two rows */
    r->bare = bench_stat_of(bare, n);
    free(copy);
}

static void note(bench *b, const char *fmt, const char *arg)
{
    if (b->import_note_count >= (int)(sizeof(b->import_notes) / sizeof(b->import_notes[0]))) return;
    snprintf(b->import_notes[b->import_note_count++], sizeof(b->import_notes[0]), fmt, arg);
}

static int import_opaque_fd(bench *b, const bench_size *size, const char *label, double *s_ortvk, double *s_bare,
                            double *s_buffer, int warmup, int n)
{
    size_t bytes = (size_t)3 * (size_t)size->width * (size_t)size->height * sizeof(float);
    vk_producer_buffer *buffer = NULL;
    int rc = vk_producer_buffer_create_in_type(b->producer, bytes, b->opaque_fd_memory_type, &buffer);
    if (rc != 0) {
        fprintf(stderr, "ortvk-bench: vk_producer_buffer_create_in_type(%zu bytes, memory type %u) failed: %s\n",
                bytes, b->opaque_fd_memory_type, strerror(-rc));
        return -1;
    }
    int fd = vk_producer_buffer_export_fd(buffer);
    if (fd < 0) {
        fprintf(stderr, "ortvk-bench: vk_producer_buffer_export_fd failed: %s\n", strerror(-fd));
        vk_producer_buffer_destroy(buffer);
        return -1;
    }
    size_t alloc = vk_producer_buffer_alloc_size(buffer);
    uint32_t type = vk_producer_buffer_memory_type(buffer);
    bool dedicated = vk_producer_buffer_dedicated(buffer) != 0;
    const int64_t shape[4] = {1, 3, size->height, size->width};
    OrtExternalMemoryDescriptor md = {.version = b->app.api_version,
                                      .handle_type = ORT_EXTERNAL_MEMORY_HANDLE_TYPE_MEMORY_OPAQUE_FD,
                                      .size_bytes = alloc};
    rc = 0;
    for (int i = 0; i < warmup + n; i++) {
        int copy = dup(fd);
        md.native_handle = (void *)(intptr_t)copy;
        double t = ortvk_import_once(b, &md, shape);
        close(copy); /* ortvk imported its own duplicate */
        if (t < 0) {
            rc = -1;
            break;
        }
        /* bare_vk_import_fd owns the duplicate: Vulkan takes it, or it is closed on failure. */
        int plain = dup(fd);
        double t0 = bench_now_us();
        if (bare_vk_import_fd(b->bare, plain, alloc, type, dedicated, false) != 0) {
            rc = -1;
            break;
        }
        double t_bare = bench_now_us() - t0;
        int next = dup(fd);
        t0 = bench_now_us();
        if (bare_vk_import_fd(b->bare, next, alloc, type, dedicated, true) != 0) {
            rc = -1;
            break;
        }
        double t_buffer = bench_now_us() - t0;
        if (i >= warmup) {
            s_ortvk[i - warmup] = t;
            s_bare[i - warmup] = t_bare;
            s_buffer[i - warmup] = t_buffer;
        }
    }
    close(fd);
    vk_producer_buffer_destroy(buffer);
    if (rc != 0) return -1;
    add_result(b, label, "opaque FD", "vkAllocateMemory+vkFreeMemory", alloc, s_ortvk, s_bare, (size_t)n);
    add_result(b, label, "opaque FD", "+VkBuffer, bind, address", alloc, s_ortvk, s_buffer, (size_t)n);
    return 0;
}

static int import_host(bench *b, const bench_size *size, const char *label, double *s_ortvk, double *s_bare,
                       int warmup, int n)
{
    size_t align = bare_vk_host_alignment(b->bare);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    if (align < page) align = page;
    if (align < b->host_alignment) align = b->host_alignment;
    size_t bytes = round_up((size_t)3 * (size_t)size->width * (size_t)size->height * sizeof(float), align);
    void *host = aligned_alloc(align, bytes);
    if (host == NULL) {
        fprintf(stderr, "ortvk-bench: aligned_alloc(%zu, %zu) failed\n", align, bytes);
        return -1;
    }
    memset(host, 0, bytes); /* a frame the application has already written: its pages exist */
    const int64_t shape[4] = {1, 3, size->height, size->width};
    OrtExternalMemoryDescriptor md = {.version = b->app.api_version,
                                      .handle_type = ORT_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION,
                                      .native_handle = host,
                                      .size_bytes = bytes};
    int rc = 0;
    for (int i = 0; i < warmup + n && rc == 0; i++) {
        double t = ortvk_import_once(b, &md, shape);
        if (t < 0) rc = -1;
        double t0 = bench_now_us();
        if (rc == 0 && bare_vk_import_host(b->bare, host, bytes) != 0) rc = -1;
        double t_bare = bench_now_us() - t0;
        if (i >= warmup) {
            s_ortvk[i - warmup] = t;
            s_bare[i - warmup] = t_bare;
        }
    }
    free(host);
    if (rc != 0) return -1;
    add_result(b, label, "host allocation", "vkGetMemoryHostPointerProps+Alloc+Free", bytes, s_ortvk, s_bare,
               (size_t)n);
    return 0;
}

int bench_import(bench *b)
{
    bool can_fd = false, can_host = false;
    if (BENCH_ORT(b, b->app.interop->CanImportMemory(b->importer, ORT_EXTERNAL_MEMORY_HANDLE_TYPE_MEMORY_OPAQUE_FD,
                                                     &can_fd)) ||
        BENCH_ORT(b, b->app.interop->CanImportMemory(b->importer, ORT_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION,
                                                     &can_host)))
        return -1;
    if (!can_fd) note(b, "opaque FD memory: not measured, %s cannot import it", b->device_name);
    else if (!bare_vk_has_opaque_fd(b->bare))
        note(b, "opaque FD memory: not measured, %s", "the bare device lacks VK_KHR_external_memory_fd");
    if (!can_host) note(b, "host allocations: not measured, %s cannot import them", b->device_name);
    else if (!bare_vk_has_host_import(b->bare))
        note(b, "host allocations: not measured, %s", "the bare device lacks VK_EXT_external_memory_host");

    int n = b->opt.iterations, warmup = n / 10 + 1;
    double *s_ortvk = calloc((size_t)(warmup + n), sizeof(double));
    double *s_bare = calloc((size_t)(warmup + n), sizeof(double));
    double *s_buffer = calloc((size_t)(warmup + n), sizeof(double));
    int rc = s_ortvk && s_bare && s_buffer ? 0 : -1;
    for (int s = 0; s < b->opt.size_count && rc == 0; s++) {
        const bench_size *size = &b->opt.sizes[s];
        char label[24];
        snprintf(label, sizeof(label), "%dx%d", size->width, size->height);
        if (can_fd && bare_vk_has_opaque_fd(b->bare)) {
            bench_progress(b, "import cost, opaque FD, %s: %d iterations", label, n);
            rc = import_opaque_fd(b, size, label, s_ortvk, s_bare, s_buffer, warmup, n);
        }
        if (rc == 0 && can_host && bare_vk_has_host_import(b->bare)) {
            bench_progress(b, "import cost, host allocation, %s: %d iterations", label, n);
            rc = import_host(b, size, label, s_ortvk, s_bare, warmup, n);
        }
    }
    free(s_ortvk);
    free(s_bare);
    free(s_buffer);
    return rc;
}
