/* Faults an application meets in the field, through ORT's public API: a producer process killed while the EP
 * waits on its host timeline (the wait ends with a clear error after the stream's timeout and the stream and
 * session stay usable), an absurdly large import (a clear error, nothing leaked). */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test_util.h"

#define TIMEOUT_MS "300"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The child: makes a host timeline, sends its FD, then hangs until it is killed (a producer that died mid-frame). */
static void child(int sock)
{
    ortvk_host_timeline *t = NULL;
    if (ortvk_host_timeline_create(0, &t) != 0) _exit(1);
    int fd = ortvk_host_timeline_fd(t);
    char byte = 'T';
    struct iovec iov = {&byte, 1};
    char control[CMSG_SPACE(sizeof(int))] = {0};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof(control)};
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &fd, sizeof(int));
    if (sendmsg(sock, &msg, 0) != 1) _exit(1);
    for (;;) pause();
}

static int receive_fd(int sock)
{
    char byte;
    struct iovec iov = {&byte, 1};
    char control[CMSG_SPACE(sizeof(int))] = {0};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof(control)};
    if (recvmsg(sock, &msg, 0) != 1) return -1;
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    int fd = -1;
    if (c && c->cmsg_type == SCM_RIGHTS) memcpy(&fd, CMSG_DATA(c), sizeof(int));
    return fd;
}

static OrtExternalSemaphoreHandle *import_timeline(ortapp *app, OrtExternalResourceImporter *importer, int fd)
{
    OrtExternalSemaphoreDescriptor desc = {.version = app->api_version,
                                           .type = (OrtExternalSemaphoreType)ORTVK_EXTERNAL_SEMAPHORE_HOST_TIMELINE,
                                           .native_handle = (void *)(intptr_t)fd};
    OrtExternalSemaphoreHandle *handle = NULL;
    ORT_OK(app, app->interop->ImportSemaphore(importer, &desc, &handle));
    return handle;
}

static void killed_producer(ortapp *app, const OrtEpDevice *device, OrtExternalResourceImporter *importer)
{
    int sv[2];
    if (!CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair")) return;
    pid_t pid = fork();
    if (pid == 0) {
        close(sv[0]);
        child(sv[1]);
    }
    close(sv[1]);
    int fd = receive_fd(sv[0]);
    close(sv[0]);
    if (!CHECK(fd >= 0, "the producer sent its host timeline")) return;
    OrtExternalSemaphoreHandle *dead = import_timeline(app, importer, fd);
    close(fd);

    OrtKeyValuePairs *options = NULL;
    app->api->CreateKeyValuePairs(&options);
    app->api->AddKeyValuePair(options, ORTVK_STREAM_OPTION_HOST_WAIT_TIMEOUT_MS, TIMEOUT_MS);
    OrtSyncStream *stream = NULL;
    ORT_OK(app, app->api->CreateSyncStreamForEpDevice(device, options, &stream));
    app->api->ReleaseKeyValuePairs(options);
    if (dead == NULL || stream == NULL) return;

    double start = now_ms();
    ORT_OK(app, app->interop->WaitSemaphore(importer, dead, stream, 1));
    CHECK(now_ms() - start < 100, "WaitSemaphore returned at once (%.1f ms)", now_ms() - start);
    kill(pid, SIGKILL); /* the producer dies before frame 1 */
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFSIGNALED(status), "the producer was killed");
    usleep(600 * 1000); /* past the stream's 300 ms timeout */
    printf("producer killed; the next call on the stream after %.0f ms:\n", now_ms() - start);
    ORT_FAILS(app, app->interop->SignalSemaphore(importer, dead, stream, 2), ORT_EP_FAIL, "timed out after 300 ms");

    /* The stream still works: a wait that a live producer satisfies, then a signal the CPU sees. */
    ortvk_host_timeline *live = NULL;
    CHECK(ortvk_host_timeline_create(0, &live) == 0, "a live host timeline");
    OrtExternalSemaphoreHandle *handle = import_timeline(app, importer, ortvk_host_timeline_fd(live));
    ORT_OK(app, app->interop->WaitSemaphore(importer, handle, stream, 1));
    ortvk_host_timeline_signal(live, 1);
    ORT_OK(app, app->interop->SignalSemaphore(importer, handle, stream, 2));
    CHECK(ortvk_host_timeline_wait(live, 2, 5ull * 1000 * 1000 * 1000) == 0, "the stream signals after the fault");

    app->interop->ReleaseExternalSemaphoreHandle(handle);
    app->interop->ReleaseExternalSemaphoreHandle(dead);
    app->api->ReleaseSyncStream(stream);
    ortvk_host_timeline_close(live);
}

/* A session still runs after the fault. */
static void session_still_runs(ortapp *app, const OrtEpDevice *device)
{
    const int64_t shape[1] = {64};
    uint8_t *model = NULL;
    size_t len = 0;
    CHECK(test_model_one_op("Relu", 1, 1, shape, &model, &len) == 0, "model");
    OrtSession *session = test_session(app, device, model, len, NULL, NULL, 0);
    free(model);
    if (session == NULL) return;
    float x[64], y[64] = {0};
    for (int i = 0; i < 64; i++) x[i] = (float)(i - 32);
    OrtValue *in = test_host_tensor(app, x, 64, 1, shape), *out = test_host_tensor(app, y, 64, 1, shape);
    const char *in_names[] = {"x"}, *out_names[] = {"z"};
    ORT_OK(app, app->api->Run(session, NULL, in_names, (const OrtValue *const *)&in, 1, out_names, 1, &out));
    int wrong = 0;
    for (int i = 0; i < 64; i++) wrong += y[i] != (x[i] > 0 ? x[i] : 0.0f);
    CHECK(wrong == 0, "the session runs after the fault (%d wrong)", wrong);
    app->api->ReleaseValue(in);
    app->api->ReleaseValue(out);
    app->api->ReleaseSession(session);
}

/* Imports far beyond any memory: refused with a clear error, nothing left behind. */
static void huge_imports(ortapp *app, OrtExternalResourceImporter *importer)
{
    int before = test_open_fds();
    size_t size = 0;
    void *pages = test_page_alloc(4096, &size);
    OrtExternalMemoryDescriptor desc = {.version = app->api_version,
                                        .handle_type = ORT_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION,
                                        .native_handle = pages, .size_bytes = (size_t)1 << 50};
    OrtExternalMemoryHandle *memory = NULL;
    ORT_FAILS(app, app->interop->ImportMemory(importer, &desc, &memory), ORT_INVALID_ARGUMENT, "bytes");
    CHECK(memory == NULL, "no handle from a failed import");
    vk_producer *producer = NULL;
    vk_producer_buffer *buffer = NULL;
    if (test_producer_create(&producer) == 0 && test_producer_buffer(producer, 65536, &buffer) == 0) {
        int fd = vk_producer_buffer_export_fd(buffer);
        OrtExternalMemoryDescriptor opaque = {.version = app->api_version,
                                              .handle_type = ORT_EXTERNAL_MEMORY_HANDLE_TYPE_MEMORY_OPAQUE_FD,
                                              .native_handle = (void *)(intptr_t)fd, .size_bytes = (size_t)1 << 50};
        OrtStatus *status = app->interop->ImportMemory(importer, &opaque, &memory);
        CHECK(status != NULL && memory == NULL, "a 1 PiB opaque FD import is refused");
        if (status) {
            printf("1 PiB opaque FD import: %s\n", app->api->GetErrorMessage(status));
            app->api->ReleaseStatus(status);
        }
        close(fd);
    }
    vk_producer_buffer_destroy(buffer);
    vk_producer_destroy(producer);
    free(pages);
    CHECK(test_open_fds() == before, "no descriptor left behind (%d before, %d after)", before, test_open_fds());
}

int main(void)
{
    ortapp app;
    const OrtEpDevice *device;
    OrtExternalResourceImporter *importer = test_open_importer(&app, &device);
    if (importer != NULL) {
        killed_producer(&app, device, importer);
        session_still_runs(&app, device);
        huge_imports(&app, importer);
        app.interop->ReleaseExternalResourceImporter(importer);
    }
    return test_finish(&app, "test_faults");
}
