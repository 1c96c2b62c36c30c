/* Two processes, as a renderer and an inference process would be: a forked child is the producer, with its own
 * Vulkan device (vk_producer) and its own host timeline semaphore; it sends the exported memory FD and the timeline
 * FD to the parent over a UNIX socketpair (SCM_RIGHTS, with the allocation's size and memory type in the same
 * message). The parent imports both through ORT's OrtInteropApi (MEMORY_OPAQUE_FD, ORTVK_EXTERNAL_SEMAPHORE_
 * HOST_TIMELINE), closes its received FDs at once (ortvk keeps duplicates) and runs the frames: the child fills the
 * input view with a compute pass and signals 2k+1; the parent queues WaitSemaphore(2k+1), runs Relu into the
 * output view and queues SignalSemaphore(2k+2); the child waits for 2k+2, reads the output region back through its
 * own device, checks every element and reports to the parent, which also checks the child's exit status.
 * Every wait is bounded, so a bug fails the test instead of hanging it. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test_util.h"
#include "vk_producer.h"

#define COUNT 1024                /* floats per tensor */
#define OUTPUT_OFFSET (64 * 1024) /* byte offset of the output view */
#define REGION_BYTES (OUTPUT_OFFSET + COUNT * 4)
#define FRAMES 12
#define WAIT_NS 30000000000ull   /* the child's waits on the host timeline and its own GPU: 30 s (valgrind on a loaded
                                    machine: the first run builds its pipelines) */
#define SOCKET_TIMEOUT_S 90      /* the longest either side waits for a message (valgrind starts slowly) */
#define STREAM_TIMEOUT_MS "5000" /* ortvk gives up on a wait for a dead child after 5 s */

static const int64_t shape[2] = {32, 32};

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Frame k is base + scale * i: exact in float, negative at the start, positive at the end, different per frame. */
static float frame_base(int k) { return -100.0f - 3.0f * (float)k; }
static float frame_scale(int k) { return 0.25f + 0.125f * (float)(k % 4); }

/* ---- messages ------------------------------------------------------------------------------------------- */

#define MSG_MAGIC 0x6F766B78u /* "ovkx" */

typedef enum msg_type {
    MSG_START = 1, /* parent -> child: which device, how many frames */
    MSG_HELLO,     /* child -> parent: the buffer (+ memory FD and timeline FD), or why there is none */
    MSG_REPORT,    /* child -> parent: one frame checked */
    MSG_QUIT,      /* parent -> child: stop (sent on every exit path of the parent) */
} msg_type;

typedef struct msg {
    uint32_t magic, type;
    int32_t status;   /* 0, or a negative errno saying what failed */
    int32_t frame;    /* REPORT */
    int32_t wrong;    /* REPORT: output elements that were not exactly relu(input) */
    uint32_t frames;  /* START */
    uint32_t memory_type; /* START: the type ortvk imports into; HELLO: the type the buffer lives in */
    uint32_t dedicated;   /* HELLO */
    uint64_t size;        /* HELLO: vk_producer_buffer_alloc_size */
    uint8_t device_uuid[16], driver_uuid[16]; /* START: ortvk's device; HELLO: the producer's */
    char text[200];       /* what went wrong, or a description */
} msg;

static int send_msg(int sock, const msg *m, const int *fds, int fd_count)
{
    struct iovec iov = {.iov_base = (void *)m, .iov_len = sizeof(*m)};
    union {
        struct cmsghdr align;
        char bytes[CMSG_SPACE(2 * sizeof(int))];
    } control;
    struct msghdr header = {.msg_iov = &iov, .msg_iovlen = 1};
    if (fd_count > 0) {
        memset(&control, 0, sizeof(control));
        header.msg_control = control.bytes;
        header.msg_controllen = CMSG_SPACE((size_t)fd_count * sizeof(int));
        struct cmsghdr *c = CMSG_FIRSTHDR(&header);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN((size_t)fd_count * sizeof(int));
        memcpy(CMSG_DATA(c), fds, (size_t)fd_count * sizeof(int));
    }
    ssize_t n;
    do n = sendmsg(sock, &header, MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    return n == (ssize_t)sizeof(*m) ? 0 : -(n < 0 ? errno : EIO);
}

/* Receives one message and up to `max_fds` FDs (close-on-exec) within SOCKET_TIMEOUT_S. Returns 0, -ETIMEDOUT,
 * -EPIPE when the peer is gone, or -EPROTO for a malformed message. */
static int recv_msg(int sock, msg *m, int *fds, int max_fds, int *fd_count)
{
    if (fd_count) *fd_count = 0;
    struct pollfd p = {.fd = sock, .events = POLLIN};
    int ready;
    do ready = poll(&p, 1, SOCKET_TIMEOUT_S * 1000);
    while (ready < 0 && errno == EINTR);
    if (ready == 0) return -ETIMEDOUT;
    if (ready < 0) return -errno;
    struct iovec iov = {.iov_base = m, .iov_len = sizeof(*m)};
    union {
        struct cmsghdr align;
        char bytes[CMSG_SPACE(2 * sizeof(int))];
    } control;
    struct msghdr header = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.bytes,
                            .msg_controllen = sizeof(control.bytes)};
    ssize_t n;
    do n = recvmsg(sock, &header, MSG_CMSG_CLOEXEC);
    while (n < 0 && errno == EINTR);
    if (n == 0) return -EPIPE;
    if (n < 0) return -errno;
    int got = 0;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&header); c != NULL; c = CMSG_NXTHDR(&header, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
        int count = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
        for (int i = 0; i < count; i++) {
            int fd;
            memcpy(&fd, CMSG_DATA(c) + (size_t)i * sizeof(int), sizeof(int));
            if (got < max_fds) fds[got++] = fd;
            else close(fd);
        }
    }
    if (fd_count) *fd_count = got;
    if (n != (ssize_t)sizeof(*m) || (header.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) || m->magic != MSG_MAGIC) {
        for (int i = 0; i < got; i++) close(fds[i]);
        if (fd_count) *fd_count = 0;
        return -EPROTO;
    }
    return 0;
}

static msg new_msg(msg_type type)
{
    msg m;
    memset(&m, 0, sizeof(m));
    m.magic = MSG_MAGIC;
    m.type = type;
    return m;
}

/* ---- the child: the producer process ---------------------------------------------------------------------- */

static void child_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void child_say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "child: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static bool same_device(vk_producer *p, const msg *start)
{
    uint8_t device_uuid[16], driver_uuid[16];
    vk_producer_uuids(p, device_uuid, driver_uuid);
    return memcmp(device_uuid, start->device_uuid, 16) == 0 && memcmp(driver_uuid, start->driver_uuid, 16) == 0;
}

/* The producer device whose deviceUUID and driverUUID are ortvk's, or NULL: the first usable device, else each
 * physical device in turn (a machine with several GPUs). */
static vk_producer *child_producer(const msg *start)
{
    vk_producer *p = NULL;
    if (vk_producer_create(-1, &p) == 0 && same_device(p, start)) return p;
    vk_producer_destroy(p);
    for (int index = 0; index < 16; index++) {
        p = NULL;
        if (vk_producer_create(index, &p) == 0 && same_device(p, start)) return p;
        vk_producer_destroy(p);
    }
    return NULL;
}

/* One frame on the producer side; returns the REPORT to send. */
static msg child_frame(vk_producer *p, vk_producer_buffer *b, ortvk_host_timeline *timeline, int k)
{
    msg report = new_msg(MSG_REPORT);
    report.frame = k;
    static float poison[COUNT], out[COUNT];
    memset(poison, 0xff, sizeof(poison)); /* NaN: an output that is never written cannot pass */
    int rc = vk_producer_buffer_write(b, OUTPUT_OFFSET, poison, sizeof(poison));
    /* The compute pass writes frame k into the input view and signals the producer's own timeline to k + 1. */
    if (rc == 0) rc = vk_producer_fill(p, b, 0, COUNT, frame_base(k), frame_scale(k), (uint64_t)k + 1);
    if (rc == 0) rc = vk_producer_timeline_wait(p, (uint64_t)k + 1, WAIT_NS);
    if (rc != 0) {
        report.status = rc;
        snprintf(report.text, sizeof(report.text), "frame %d: filling the input failed (%d)", k, rc);
        return report;
    }
    uint64_t ready = 2 * (uint64_t)k + 1, done = ready + 1;
    rc = ortvk_host_timeline_signal(timeline, ready);
    if (rc == 0) rc = ortvk_host_timeline_wait(timeline, done, WAIT_NS);
    if (rc != 0) {
        report.status = rc;
        snprintf(report.text, sizeof(report.text), "frame %d: %s (timeline at %llu)", k,
                 rc == -ETIMEDOUT ? "the output-ready value never came" : "signaling the input failed",
                 (unsigned long long)ortvk_host_timeline_value(timeline));
        return report;
    }
    rc = vk_producer_buffer_read(b, OUTPUT_OFFSET, out, sizeof(out));
    if (rc != 0) {
        report.status = rc;
        snprintf(report.text, sizeof(report.text), "frame %d: reading the output failed (%d)", k, rc);
        return report;
    }
    int first_wrong = -1;
    for (int i = 0; i < COUNT; i++) {
        volatile float product = frame_scale(k) * (float)i; /* the shader's float multiply, then add: no fma */
        float x = frame_base(k) + product;
        if (out[i] != (x > 0.0f ? x : 0.0f)) {
            if (first_wrong < 0) first_wrong = i;
            report.wrong++;
        }
    }
    if (report.wrong) {
        volatile float product = frame_scale(k) * (float)first_wrong;
        float x = frame_base(k) + product;
        snprintf(report.text, sizeof(report.text), "frame %d: %d of %d outputs wrong; first [%d] = %g, expected %g", k,
                 report.wrong, COUNT, first_wrong, (double)out[first_wrong], (double)(x > 0.0f ? x : 0.0f));
    }
    return report;
}

static int child_main(int sock)
{
    msg start;
    int rc = recv_msg(sock, &start, NULL, 0, NULL);
    if (rc != 0 || start.type != MSG_START) {
        if (rc == 0 && start.type == MSG_QUIT) return 0;
        child_say("no start message (%d)", rc);
        return 1;
    }
    msg hello = new_msg(MSG_HELLO);
    vk_producer *p = child_producer(&start);
    vk_producer_buffer *b = NULL;
    ortvk_host_timeline *timeline = NULL;
    int mem_fd = -1, failures = 0;
    if (p == NULL) {
        hello.status = -ENODEV;
        snprintf(hello.text, sizeof(hello.text), "no Vulkan device with ortvk's device and driver UUIDs");
    } else if ((rc = vk_producer_buffer_create_in_type(p, REGION_BYTES, start.memory_type, &b)) != 0) {
        hello.status = rc;
        snprintf(hello.text, sizeof(hello.text), "vk_producer_buffer_create_in_type(%u) failed (%d)",
                 start.memory_type, rc);
    } else if ((mem_fd = vk_producer_buffer_export_fd(b)) < 0) {
        hello.status = mem_fd;
        snprintf(hello.text, sizeof(hello.text), "vk_producer_buffer_export_fd failed (%d)", mem_fd);
    } else if ((rc = ortvk_host_timeline_create(0, &timeline)) != 0) {
        hello.status = rc;
        snprintf(hello.text, sizeof(hello.text), "ortvk_host_timeline_create failed (%d)", rc);
    } else {
        hello.size = vk_producer_buffer_alloc_size(b);
        hello.memory_type = vk_producer_buffer_memory_type(b);
        hello.dedicated = (uint32_t)vk_producer_buffer_dedicated(b);
        vk_producer_uuids(p, hello.device_uuid, hello.driver_uuid);
        snprintf(hello.text, sizeof(hello.text), "pid %d", (int)getpid());
    }
    int fds[2] = {mem_fd, ortvk_host_timeline_fd(timeline)};
    rc = send_msg(sock, &hello, fds, hello.status == 0 ? 2 : 0);
    if (mem_fd >= 0) close(mem_fd); /* the exported FD is ours to close; the parent got its own */
    if (rc != 0) child_say("sending the FDs failed (%d)", rc);
    if (rc == 0 && hello.status == 0) {
        msg go;
        rc = recv_msg(sock, &go, NULL, 0, NULL); /* the parent imported both, or gave up */
        for (int k = 0; rc == 0 && go.type == MSG_START && k < (int)start.frames; k++) {
            msg report = child_frame(p, b, timeline, k);
            if (report.status != 0 || report.wrong != 0) {
                child_say("%s", report.text);
                failures++;
            }
            if (send_msg(sock, &report, NULL, 0) != 0) {
                child_say("the parent is gone at frame %d", k);
                failures++;
                break;
            }
            if (report.status != 0) break; /* the timeline is out of step now */
        }
        if (rc != 0) {
            child_say("no go message (%d)", rc);
            failures++;
        }
    }
    ortvk_host_timeline_close(timeline);
    vk_producer_buffer_destroy(b);
    vk_producer_destroy(p);
    unsigned messages = vk_producer_validation_messages();
    if (messages) child_say("%u validation messages", messages);
    return hello.status == 0 && failures == 0 && messages == 0 ? 0 : hello.status == -ENOTSUP ? 77 : 1;
}

/* ---- the parent: the inference process -------------------------------------------------------------------- */

/* See tests/ort/test_interop_host_timeline.c: ONNX Runtime 1.24.3 and 1.30.0 crash inside Run when the run options
 * carry a sync stream and the session has no device stream (no node on ortvk, as long as ortvk claims none). */
static bool run_stream_usable(ortapp *app, OrtSession *session, const OrtEpDevice *device)
{
    const char *force = getenv("ORTVK_TEST_RUN_STREAM");
    if (force != NULL && force[0] != '\0') return strcmp(force, "0") != 0;
    const OrtEpDevice *consumer = NULL;
    if (!ORT_OK(app, app->api->SessionGetEpDeviceForInputs(session, &consumer, 1))) return false;
    return consumer == device;
}

static int hex_uuid(const char *text, uint8_t out[16])
{
    if (text == NULL || strlen(text) != 32) return -1;
    for (int i = 0; i < 16; i++) {
        unsigned v;
        if (sscanf(text + 2 * i, "%2x", &v) != 1) return -1;
        out[i] = (uint8_t)v;
    }
    return 0;
}

typedef struct parent {
    ortapp *app;
    const OrtEpDevice *device;
    int sock;
    OrtExternalResourceImporter *importer;
    OrtExternalMemoryHandle *memory;
    OrtExternalSemaphoreHandle *semaphore;
    OrtSession *session;
    OrtSyncStream *stream;
    OrtRunOptions *run_options;
    OrtValue *input, *output;
    bool skip;
    char skip_reason[256];
} parent;

static OrtValue *make_view(parent *t, size_t offset)
{
    OrtExternalTensorDescriptor desc = {
        .version = t->app->api_version,
        .element_type = ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT,
        .shape = shape,
        .rank = 2,
        .offset_bytes = offset,
    };
    OrtValue *value = NULL;
    ORT_OK(t->app, t->app->interop->CreateTensorFromMemory(t->importer, t->memory, &desc, &value));
    return value;
}

/* START, then HELLO with the two FDs; imports them and closes the FDs. Returns true when frames can run. */
static bool parent_import(parent *t)
{
    const OrtKeyValuePairs *meta = t->app->api->EpDevice_EpMetadata(t->device);
    msg start = new_msg(MSG_START);
    start.frames = FRAMES;
    const char *type_text = t->app->api->GetKeyValue(meta, ORTVK_META_OPAQUE_FD_MEMORY_TYPE);
    start.memory_type = type_text ? (uint32_t)strtoul(type_text, NULL, 10) : UINT32_MAX;
    if (!CHECK(hex_uuid(t->app->api->GetKeyValue(meta, ORTVK_META_DEVICE_UUID), start.device_uuid) == 0 &&
                   hex_uuid(t->app->api->GetKeyValue(meta, ORTVK_META_DRIVER_UUID), start.driver_uuid) == 0,
               "ortvk publishes its device and driver UUIDs"))
        return false;
    if (!CHECK(send_msg(t->sock, &start, NULL, 0) == 0, "send START to the child")) return false;

    msg hello;
    int fds[2] = {-1, -1}, fd_count = 0;
    int rc = recv_msg(t->sock, &hello, fds, 2, &fd_count);
    if (!CHECK(rc == 0 && hello.type == MSG_HELLO, "the child's HELLO arrives (%d)", rc)) return false;
    if (hello.status == -ENOTSUP) {
        t->skip = true;
        snprintf(t->skip_reason, sizeof(t->skip_reason), "the producer cannot export memory: %s", hello.text);
        return false;
    }
    if (!CHECK(hello.status == 0, "the child's producer is ready: %s", hello.text)) return false;
    if (!CHECK(fd_count == 2, "HELLO carries two FDs (got %d)", fd_count)) {
        for (int i = 0; i < fd_count; i++) close(fds[i]);
        return false;
    }
    printf("child %s: %llu-byte allocation in memory type %u%s; ortvk imports opaque FDs into type %u\n", hello.text,
           (unsigned long long)hello.size, hello.memory_type, hello.dedicated ? " (dedicated)" : "",
           start.memory_type);
    CHECK(memcmp(hello.device_uuid, start.device_uuid, 16) == 0, "the child runs on ortvk's physical device");
    CHECK(hello.memory_type == start.memory_type,
          "the producer put the memory in type %u, but ortvk imports opaque FDs into type %u only: "
          "the producer must allocate from \"" ORTVK_META_OPAQUE_FD_MEMORY_TYPE "\"",
          hello.memory_type, start.memory_type);

    OrtExternalMemoryDescriptor mem_desc = {
        .version = t->app->api_version,
        .handle_type = ORT_EXTERNAL_MEMORY_HANDLE_TYPE_MEMORY_OPAQUE_FD,
        .native_handle = (void *)(intptr_t)fds[0],
        .size_bytes = (size_t)hello.size,
    };
    OrtExternalSemaphoreDescriptor sem_desc = {
        .version = t->app->api_version,
        .type = (OrtExternalSemaphoreType)ORTVK_EXTERNAL_SEMAPHORE_HOST_TIMELINE,
        .native_handle = (void *)(intptr_t)fds[1],
    };
    ORT_OK(t->app, t->app->interop->ImportMemory(t->importer, &mem_desc, &t->memory));
    ORT_OK(t->app, t->app->interop->ImportSemaphore(t->importer, &sem_desc, &t->semaphore));
    /* FD ownership: ortvk imported duplicates, so ours go now, before any frame. */
    close(fds[0]);
    close(fds[1]);
    return t->memory != NULL && t->semaphore != NULL;
}

static void parent_frames(parent *t)
{
    t->input = make_view(t, 0);
    t->output = make_view(t, OUTPUT_OFFSET);
    OrtKeyValuePairs *options = NULL;
    t->app->api->CreateKeyValuePairs(&options);
    t->app->api->AddKeyValuePair(options, ORTVK_STREAM_OPTION_HOST_WAIT_TIMEOUT_MS, STREAM_TIMEOUT_MS);
    ORT_OK(t->app, t->app->api->CreateSyncStreamForEpDevice(t->device, options, &t->stream));
    t->app->api->ReleaseKeyValuePairs(options);
    if (t->input == NULL || t->output == NULL || t->stream == NULL) return;
    if (!ORT_OK(t->app, t->app->api->CreateRunOptions(&t->run_options))) return;
    bool run_stream = run_stream_usable(t->app, t->session, t->device);
    if (run_stream) t->app->api->RunOptionsSetSyncStream(t->run_options, t->stream);
    ORT_OK(t->app, t->app->api->AddRunConfigEntry(t->run_options, "disable_synchronize_execution_providers", "1"));
    printf("Run gets the stream in its run options: %s\n", run_stream ? "yes" : "no (ortvk claims no node)");

    msg go = new_msg(MSG_START);
    if (!CHECK(send_msg(t->sock, &go, NULL, 0) == 0, "send the go message")) return;
    const char *in_names[] = {"x"}, *out_names[] = {"z"};
    const OrtValue *inputs[] = {t->input};
    OrtValue *outputs[] = {t->output};
    int good = 0;
    double t0 = now_ms(), max_frame = 0;
    for (int k = 0; k < FRAMES; k++) {
        double f0 = now_ms();
        uint64_t ready = 2 * (uint64_t)k + 1, done = ready + 1;
        if (!ORT_OK(t->app, t->app->interop->WaitSemaphore(t->importer, t->semaphore, t->stream, ready)) ||
            !ORT_OK(t->app, t->app->api->Run(t->session, t->run_options, in_names, inputs, 1, out_names, 1, outputs)) ||
            !ORT_OK(t->app, t->app->interop->SignalSemaphore(t->importer, t->semaphore, t->stream, done)))
            break;
        msg report;
        int rc = recv_msg(t->sock, &report, NULL, 0, NULL);
        if (!CHECK(rc == 0 && report.type == MSG_REPORT && report.frame == k, "the child's report on frame %d (%d)",
                   k, rc))
            break;
        if (!CHECK(report.status == 0 && report.wrong == 0, "the child checked frame %d: %s", k, report.text)) {
            if (report.status != 0) break;
            continue;
        }
        good++;
        if (now_ms() - f0 > max_frame) max_frame = now_ms() - f0;
    }
    CHECK(good == FRAMES, "%d of %d frames came back exact", good, FRAMES);
    printf("%d of %d frames exact across processes in %.0f ms (slowest frame %.1f ms)\n", good, FRAMES,
           now_ms() - t0, max_frame);
}

/* Waits up to `limit_ms` for the child, then kills it. Returns its wait status, or -1. */
static int reap(pid_t child, double limit_ms)
{
    double end = now_ms() + limit_ms;
    for (;;) {
        int status = 0;
        pid_t r = waitpid(child, &status, WNOHANG);
        if (r == child) return status;
        if (r < 0 && errno != EINTR) return -1;
        if (now_ms() > end) {
            kill(child, SIGKILL);
            waitpid(child, &status, 0);
            fprintf(stderr, "the child did not exit within %.0f ms: killed\n", limit_ms);
            return -1;
        }
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    /* Fork before ONNX Runtime or Vulkan start any thread in this process. */
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0) {
        perror("socketpair");
        return 1;
    }
    pid_t child = fork();
    if (child < 0) {
        perror("fork");
        return 1;
    }
    if (child == 0) {
        close(pair[0]);
        int rc = child_main(pair[1]);
        close(pair[1]);
        fflush(stderr);
        _exit(rc);
    }
    close(pair[1]);

    ortapp app;
    parent t = {.app = &app, .sock = pair[0]};
    test_open(&app, &t.device);
    if (!CHECK(app.interop != NULL, "ORT has the interop API")) goto out;
    ORT_OK(&app, app.interop->CreateExternalResourceImporterForDevice(t.device, &t.importer));
    if (!CHECK(t.importer != NULL, "ortvk gives an importer")) goto out;
    bool can_memory = false, can_semaphore = false;
    ORT_OK(&app, app.interop->CanImportMemory(t.importer, ORT_EXTERNAL_MEMORY_HANDLE_TYPE_MEMORY_OPAQUE_FD,
                                              &can_memory));
    ORT_OK(&app, app.interop->CanImportSemaphore(
                     t.importer, (OrtExternalSemaphoreType)ORTVK_EXTERNAL_SEMAPHORE_HOST_TIMELINE, &can_semaphore));
    CHECK(can_semaphore, "ortvk imports its host timeline semaphores on every device");
    if (!can_memory) {
        t.skip = true;
        snprintf(t.skip_reason, sizeof(t.skip_reason), "the device cannot import opaque FD memory");
        goto out;
    }
    uint8_t *model = NULL;
    size_t len = 0;
    if (CHECK(test_model_one_op("Relu", 1, 2, shape, &model, &len) == 0, "build the Relu model"))
        t.session = test_session(&app, t.device, model, len, NULL, NULL, 0);
    free(model);
    if (t.session != NULL && parent_import(&t)) parent_frames(&t);

out:;
    msg quit = new_msg(MSG_QUIT);
    send_msg(t.sock, &quit, NULL, 0); /* harmless when the child is past listening */
    int status = reap(child, 10000);
    close(t.sock);
    if (t.skip) {
        CHECK(status != -1 && WIFEXITED(status), "the child exited after the skip");
    } else {
        CHECK(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child exits with status 0 (%s %d)",
              status == -1 ? "killed or lost" : WIFEXITED(status) ? "exit" : "signal",
              status == -1 ? -1 : WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
    }
    if (t.run_options) app.api->ReleaseRunOptions(t.run_options);
    app.api->ReleaseValue(t.input);
    app.api->ReleaseValue(t.output);
    if (t.stream) app.api->ReleaseSyncStream(t.stream);
    if (t.semaphore) app.interop->ReleaseExternalSemaphoreHandle(t.semaphore);
    if (t.memory) app.interop->ReleaseExternalMemoryHandle(t.memory);
    if (t.session) app.api->ReleaseSession(t.session);
    if (t.importer) app.interop->ReleaseExternalResourceImporter(t.importer);
    if (t.skip && test_failures == 0) {
        ortapp_close(&app);
        printf("SKIP: %s\n", t.skip_reason);
        return 77;
    }
    return test_finish(&app, "test_interop_cross_process");
}
