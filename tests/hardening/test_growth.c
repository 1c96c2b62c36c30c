/* Leaks and growth: many import -> view -> release cycles through ORT's OrtInteropApi must leave the process with
 * the same open file descriptors and (within a stated tolerance) the same resident memory.
 *
 * Phases, each CYCLES long (100,000 unless $ORTVK_GROWTH_CYCLES says otherwise):
 *   host      ImportMemory(page-aligned host allocation) -> CreateTensorFromMemory -> ReleaseValue -> release handle
 *   opaque_fd the same with memory a vk_producer exported once as an opaque FD (imported from a fresh dup each time
 *             would measure the kernel; ortvk dups the fd itself, which is what is under test)
 *   semaphore ImportSemaphore(host timeline) -> release, and every SYNC_EVERY cycles WaitSemaphore + SignalSemaphore
 *             on a stream, the application signaling the wait and waiting for the signal, checked exactly
 * Each phase first runs WARMUP cycles (allocator pools, validation-layer tables and ORT's caches reach their steady
 * size), then measures open descriptors (/proc/self/fd) and VmRSS (/proc/self/status); after the phase both are
 * measured again. Descriptors must match exactly; RSS may grow by less than RSS_TOLERANCE_KIB (2 MiB): one leaked
 * 64-byte object per cycle would be 6 MiB over 100,000 cycles, one leaked OrtValue or Vulkan object far more.
 * $ORTVK_GROWTH_RSS_CHECK=0 turns the RSS check off (AddressSanitizer's quarantine makes RSS meaningless); the
 * descriptor check always applies. */
#include <dirent.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "test_util.h"
#include "vk_producer.h"

#define DEFAULT_CYCLES 100000
#define WARMUP 1000
#define SYNC_EVERY 100
#define RSS_TOLERANCE_KIB 2048
#define REGION_BYTES (64 * 1024)
#define WAIT_LIMIT_NS 10000000000ull

static const int64_t shape[1] = {1024};

static long cycles_from_env(void)
{
    const char *text = getenv("ORTVK_GROWTH_CYCLES");
    long n = text ? strtol(text, NULL, 10) : DEFAULT_CYCLES;
    return n > WARMUP ? n : WARMUP + 1;
}

static long rss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (f && fgets(line, sizeof(line), f)) {
        if (strncmp(line, "VmRSS:", 6) == 0) kib = strtol(line + 6, NULL, 10);
    }
    if (f) fclose(f);
    return kib;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

typedef struct ctx {
    ortapp *app;
    const OrtEpDevice *device;
    OrtExternalResourceImporter *importer;
    OrtSyncStream *stream;
    bool rss_check;
    long cycles;
} ctx;

/* The open descriptor count once it holds still: a stream's helper thread drops its reference on a released
 * semaphore import (and closes the import's descriptor) just after it signals, so a count taken the moment the
 * application sees the signal may still include it. */
static int settled_fds(void)
{
    int count = test_open_fds();
    for (int tries = 0; tries < 100; tries++) {
        struct timespec ts = {.tv_sec = 0, .tv_nsec = 2000000};
        nanosleep(&ts, NULL);
        int again = test_open_fds();
        if (again == count) break;
        count = again;
    }
    return count;
}

/* One cycle of a phase; returns 0 on success. */
typedef int (*cycle_fn)(ctx *c, void *state, long i);

static void phase(ctx *c, const char *name, cycle_fn cycle, void *state)
{
    double t0 = now_s();
    long i = 0;
    for (; i < WARMUP; i++) {
        if (cycle(c, state, i) != 0) break;
    }
    int fds_before = settled_fds();
    long rss_before = rss_kib();
    for (; i < c->cycles && test_failures == 0; i++) {
        if (cycle(c, state, i) != 0) break;
    }
    int fds_after = settled_fds();
    long rss_after = rss_kib();
    double seconds = now_s() - t0;
    printf("%s: %ld cycles in %.1f s (%.1f us each); open fds %d -> %d; VmRSS %ld -> %ld KiB (%+ld KiB) after the "
           "first %d cycles\n",
           name, i, seconds, seconds * 1e6 / (double)(i ? i : 1), fds_before, fds_after, rss_before, rss_after,
           rss_after - rss_before, WARMUP);
    CHECK(i == c->cycles, "%s: all %ld cycles ran (stopped at %ld)", name, c->cycles, i);
    CHECK(fds_after == fds_before, "%s: %d file descriptors open after warm-up, %d at the end", name, fds_before,
          fds_after);
    if (c->rss_check)
        CHECK(rss_after - rss_before < RSS_TOLERANCE_KIB, "%s: VmRSS grew by %ld KiB (tolerance %d KiB)", name,
              rss_after - rss_before, RSS_TOLERANCE_KIB);
}

/* ---- memory ------------------------------------------------------------------------------------------- */

typedef struct memory_state {
    OrtExternalMemoryDescriptor desc;
} memory_state;

static int memory_cycle(ctx *c, void *arg, long i)
{
    memory_state *s = arg;
    OrtExternalMemoryHandle *memory = NULL;
    OrtValue *view = NULL;
    OrtExternalTensorDescriptor td = {
        .version = c->app->api_version,
        .element_type = ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT,
        .shape = shape,
        .rank = 1,
        .offset_bytes = (size_t)(i % 8) * 4096, /* a different view each time */
    };
    if (!ORT_OK(c->app, c->app->interop->ImportMemory(c->importer, &s->desc, &memory))) return -1;
    int ok = ORT_OK(c->app, c->app->interop->CreateTensorFromMemory(c->importer, memory, &td, &view));
    /* Alternate the release order: handle first (the view keeps the import alive) or view first. */
    if (i & 1) {
        c->app->interop->ReleaseExternalMemoryHandle(memory);
        c->app->api->ReleaseValue(view);
    } else {
        c->app->api->ReleaseValue(view);
        c->app->interop->ReleaseExternalMemoryHandle(memory);
    }
    return ok ? 0 : -1;
}

/* ---- semaphores --------------------------------------------------------------------------------------- */

typedef struct semaphore_state {
    ortvk_host_timeline *timeline;
    uint64_t next; /* next value the application signals */
} semaphore_state;

static int semaphore_cycle(ctx *c, void *arg, long i)
{
    semaphore_state *s = arg;
    OrtExternalSemaphoreDescriptor desc = {
        .version = c->app->api_version,
        .type = (OrtExternalSemaphoreType)ORTVK_EXTERNAL_SEMAPHORE_HOST_TIMELINE,
        .native_handle = (void *)(intptr_t)ortvk_host_timeline_fd(s->timeline),
    };
    OrtExternalSemaphoreHandle *semaphore = NULL;
    if (!ORT_OK(c->app, c->app->interop->ImportSemaphore(c->importer, &desc, &semaphore))) return -1;
    int rc = 0;
    if (i % SYNC_EVERY == 0) {
        /* The stream waits for `ready`, then signals `done`; the handle is released while both are queued. */
        uint64_t ready = s->next, done = s->next + 1;
        s->next += 2;
        if (!ORT_OK(c->app, c->app->interop->WaitSemaphore(c->importer, semaphore, c->stream, ready)) ||
            !ORT_OK(c->app, c->app->interop->SignalSemaphore(c->importer, semaphore, c->stream, done)))
            rc = -1;
        c->app->interop->ReleaseExternalSemaphoreHandle(semaphore);
        if (rc == 0) {
            CHECK(ortvk_host_timeline_value(s->timeline) < ready, "nothing signals %llu before the application",
                  (unsigned long long)ready);
            ortvk_host_timeline_signal(s->timeline, ready);
            if (!CHECK(ortvk_host_timeline_wait(s->timeline, done, WAIT_LIMIT_NS) == 0,
                       "the stream signaled %llu within 10 s (cycle %ld)", (unsigned long long)done, i))
                rc = -1;
            CHECK(ortvk_host_timeline_value(s->timeline) == done, "the timeline is at %llu, expected exactly %llu",
                  (unsigned long long)ortvk_host_timeline_value(s->timeline), (unsigned long long)done);
        }
    } else {
        c->app->interop->ReleaseExternalSemaphoreHandle(semaphore);
    }
    return rc;
}

int main(void)
{
    /* ORT 1.30's telemetry opens files and sockets from its own threads at moments of its choosing. */
    setenv("ORT_DISABLE_TELEMETRY", "1", 0);
    setvbuf(stdout, NULL, _IONBF, 0);
    ortapp app;
    ctx c = {.app = &app, .cycles = cycles_from_env()};
    const char *rss = getenv("ORTVK_GROWTH_RSS_CHECK");
    c.rss_check = rss == NULL || strcmp(rss, "0") != 0;
    test_open(&app, &c.device);
    printf("%ld cycles per phase, warm-up %d, RSS check %s (tolerance %d KiB), ORTVK_VALIDATION=%s\n", c.cycles, WARMUP,
           c.rss_check ? "on" : "off", RSS_TOLERANCE_KIB, getenv("ORTVK_VALIDATION") ? getenv("ORTVK_VALIDATION") : "");
    ORT_OK(&app, app.interop->CreateExternalResourceImporterForDevice(c.device, &c.importer));
    ORT_OK(&app, app.api->CreateSyncStreamForEpDevice(c.device, NULL, &c.stream));
    if (!CHECK(c.importer != NULL && c.stream != NULL, "an importer and a stream"))
        return test_finish(&app, "test_growth");

    int fds_start = test_open_fds();
    long rss_start = rss_kib();

    bool can = false;
    ORT_OK(&app, app.interop->CanImportMemory(c.importer, ORT_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION, &can));
    if (can) {
        size_t size = 0;
        void *host = test_page_alloc(REGION_BYTES, &size);
        memory_state s = {.desc = {.version = app.api_version,
                                   .handle_type = ORT_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION,
                                   .native_handle = host,
                                   .size_bytes = size}};
        phase(&c, "host allocation", memory_cycle, &s);
        free(host);
    } else {
        printf("SKIP: host allocation phase: the device cannot import host allocations\n");
    }

    can = false;
    ORT_OK(&app, app.interop->CanImportMemory(c.importer, ORT_EXTERNAL_MEMORY_HANDLE_TYPE_MEMORY_OPAQUE_FD, &can));
    vk_producer *producer = NULL;
    vk_producer_buffer *buffer = NULL;
    int fd = -1;
    if (can && CHECK(vk_producer_create(-1, &producer) == 0, "producer device") &&
        CHECK(vk_producer_buffer_create(producer, REGION_BYTES, &buffer) == 0, "producer buffer") &&
        CHECK((fd = vk_producer_buffer_export_fd(buffer)) >= 0, "export an opaque FD")) {
        memory_state s = {.desc = {.version = app.api_version,
                                   .handle_type = ORT_EXTERNAL_MEMORY_HANDLE_TYPE_MEMORY_OPAQUE_FD,
                                   .native_handle = (void *)(intptr_t)fd,
                                   .size_bytes = vk_producer_buffer_alloc_size(buffer)}};
        phase(&c, "opaque FD", memory_cycle, &s);
    } else if (!can) {
        printf("SKIP: opaque FD phase: the device cannot import opaque FD memory\n");
    }
    if (fd >= 0) close(fd);
    vk_producer_buffer_destroy(buffer);
    vk_producer_destroy(producer);

    semaphore_state s = {.next = 1};
    if (CHECK(ortvk_host_timeline_create(0, &s.timeline) == 0, "create a host timeline")) {
        phase(&c, "host timeline semaphore", semaphore_cycle, &s);
        ortvk_host_timeline_close(s.timeline);
    }

    app.api->ReleaseSyncStream(c.stream);
    app.interop->ReleaseExternalResourceImporter(c.importer);
    printf("whole test: open fds %d -> %d, VmRSS %ld -> %ld KiB (after releasing the stream and importer)\n", fds_start,
           test_open_fds(), rss_start, rss_kib());
    return test_finish(&app, "test_growth");
}
