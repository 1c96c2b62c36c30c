/* Unit test for include/ortvk_host_timeline.h: signal/wait semantics, timeouts,
 * cross-thread and cross-process (fork, SCM_RIGHTS) wake-ups, and open() validation.
 * Prints PASS/FAIL per case; exits non-zero if any case fails. */

/* POSIX, deliberately not _GNU_SOURCE: the header must work without it. */
#define _POSIX_C_SOURCE 200809L

#include "ortvk_host_timeline.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>

#ifndef F_ADD_SEALS
#define F_ADD_SEALS 1033
#define F_GET_SEALS 1034
#define F_SEAL_SHRINK 0x0002
#endif

#define MS 1000000ull
#define WAIT_LONG (5000 * MS) /* generous: only hit when a wake-up is lost */

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "    %s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            return 1;                                                                \
        }                                                                            \
    } while (0)

#define CHECK_EQ(a, b)                                                                \
    do {                                                                              \
        long long a_ = (long long)(a), b_ = (long long)(b);                           \
        if (a_ != b_) {                                                               \
            fprintf(stderr, "    %s:%d: %s == %lld, expected %s == %lld\n", __FILE__, \
                    __LINE__, #a, a_, #b, b_);                                        \
            return 1;                                                                 \
        }                                                                             \
    } while (0)

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sleep_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* wait() re-checks the counter when its timeout expires, so a lost wake-up can
 * still return 0, just WAIT_LONG late. Count that as the failure it is. */
static int wait_woken(const ortvk_host_timeline *t, uint64_t value) {
    uint64_t t0 = now_ns();
    int r = ortvk_host_timeline_wait(t, value, WAIT_LONG);
    if (r == 0 && now_ns() - t0 >= WAIT_LONG)
        r = -ETIMEDOUT;
    return r;
}

static int make_memfd(void) {
    return (int)syscall(SYS_memfd_create, "htl-test", 0x0001u /* CLOEXEC */ | 0x0002u /* ALLOW_SEALING */);
}

static int test_basic(void) {
    ortvk_host_timeline *t = NULL;
    CHECK_EQ(ortvk_host_timeline_create(5, &t), 0);
    CHECK(t != NULL);
    CHECK(ortvk_host_timeline_fd(t) >= 0);
    CHECK_EQ(ortvk_host_timeline_value(t), 5);
    CHECK_EQ(ortvk_host_timeline_wait(t, 0, 0), 0);
    CHECK_EQ(ortvk_host_timeline_wait(t, 5, 0), 0);
    CHECK_EQ(ortvk_host_timeline_wait(t, 6, 0), -ETIMEDOUT);
    CHECK_EQ(ortvk_host_timeline_signal(t, 6), 0);
    CHECK_EQ(ortvk_host_timeline_value(t), 6);
    CHECK_EQ(ortvk_host_timeline_wait(t, 6, 0), 0);
    CHECK_EQ(ortvk_host_timeline_signal(t, 100), 0); /* jumps are fine */
    CHECK_EQ(ortvk_host_timeline_wait(t, 50, ORTVK_HOST_TIMELINE_WAIT_FOREVER), 0);
    CHECK_EQ(ortvk_host_timeline_signal(t, UINT64_MAX - 1), 0);
    CHECK(ortvk_host_timeline_value(t) == UINT64_MAX - 1);
    ortvk_host_timeline_close(t);
    ortvk_host_timeline_close(NULL); /* no-op */

    /* The fd is a sealed, close-on-exec memfd of one page. */
    CHECK_EQ(ortvk_host_timeline_create(0, &t), 0);
    {
        struct stat st;
        int seals = fcntl(ortvk_host_timeline_fd(t), F_GET_SEALS);
        CHECK_EQ(fstat(ortvk_host_timeline_fd(t), &st), 0);
        CHECK_EQ(st.st_size, ORTVK_HOST_TIMELINE_SHARED_SIZE);
        CHECK(seals & F_SEAL_SHRINK);
        CHECK(fcntl(ortvk_host_timeline_fd(t), F_GETFD) & FD_CLOEXEC);
        CHECK(ftruncate(ortvk_host_timeline_fd(t), 1) != 0); /* shrink is sealed off */
    }
    CHECK_EQ(ortvk_host_timeline_value(t), 0);
    ortvk_host_timeline_close(t);
    return 0;
}

static int test_null_args(void) {
    ortvk_host_timeline *t = NULL;
    CHECK_EQ(ortvk_host_timeline_create(0, NULL), -EINVAL);
    CHECK_EQ(ortvk_host_timeline_open(0, NULL), -EINVAL);
    CHECK_EQ(ortvk_host_timeline_fd(NULL), -EINVAL);
    CHECK_EQ(ortvk_host_timeline_signal(NULL, 1), -EINVAL);
    CHECK_EQ(ortvk_host_timeline_wait(NULL, 1, 0), -EINVAL);
    CHECK_EQ(ortvk_host_timeline_value(NULL), 0);
    CHECK_EQ(ortvk_host_timeline_open(-1, &t), -EBADF);
    CHECK(t == NULL);
    return 0;
}

static int test_signal_not_increasing(void) {
    ortvk_host_timeline *t = NULL;
    CHECK_EQ(ortvk_host_timeline_create(10, &t), 0);
    CHECK_EQ(ortvk_host_timeline_signal(t, 10), -EINVAL);
    CHECK_EQ(ortvk_host_timeline_signal(t, 9), -EINVAL);
    CHECK_EQ(ortvk_host_timeline_signal(t, 0), -EINVAL);
    CHECK_EQ(ortvk_host_timeline_value(t), 10);
    CHECK_EQ(ortvk_host_timeline_signal(t, 11), 0);
    CHECK_EQ(ortvk_host_timeline_signal(t, 11), -EINVAL);
    CHECK_EQ(ortvk_host_timeline_value(t), 11);
    ortvk_host_timeline_close(t);
    return 0;
}

static int test_wait_timeout(void) {
    ortvk_host_timeline *t = NULL;
    uint64_t t0, dt;
    CHECK_EQ(ortvk_host_timeline_create(0, &t), 0);

    t0 = now_ns();
    CHECK_EQ(ortvk_host_timeline_wait(t, 1, 0), -ETIMEDOUT);
    dt = now_ns() - t0;
    CHECK(dt < 100 * MS);

    t0 = now_ns();
    CHECK_EQ(ortvk_host_timeline_wait(t, 1, 50 * MS), -ETIMEDOUT);
    dt = now_ns() - t0;
    printf("    50 ms timeout took %.1f ms\n", (double)dt / 1e6);
    CHECK(dt >= 40 * MS && dt <= 2000 * MS);

    /* Sub-second remainder plus whole seconds exercises the nsec carry. */
    t0 = now_ns();
    CHECK_EQ(ortvk_host_timeline_wait(t, 1, 999999999ull / 50), -ETIMEDOUT);
    dt = now_ns() - t0;
    CHECK(dt >= 15 * MS && dt <= 2000 * MS);
    ortvk_host_timeline_close(t);
    return 0;
}

struct waiter {
    ortvk_host_timeline *t;
    uint64_t target;
    uint64_t timeout;
    atomic_int done;
    int result;
};

static void *waiter_main(void *arg) {
    struct waiter *w = (struct waiter *)arg;
    w->result = ortvk_host_timeline_wait(w->t, w->target, w->timeout);
    atomic_store(&w->done, 1);
    return NULL;
}

/* Joins `th` once `done` is set; gives up (and detaches) after WAIT_LONG so a
 * waiter that is never woken fails the case instead of hanging the run. */
static int wait_done(atomic_int *done, pthread_t th) {
    uint64_t give_up = now_ns() + WAIT_LONG;
    while (!atomic_load(done)) {
        if (now_ns() > give_up) {
            pthread_detach(th);
            return 0;
        }
        sleep_ms(1);
    }
    return pthread_join(th, NULL) == 0;
}

static int test_thread_wake(void) {
    enum { N = 4 };
    /* static: a thread left hanging by a broken wake-up must not outlive its frame */
    static struct waiter w[N];
    static struct waiter late;
    ortvk_host_timeline *t = NULL;
    pthread_t th[N], late_th;
    int i;

    CHECK_EQ(ortvk_host_timeline_create(0, &t), 0);
    for (i = 0; i < N; i++) {
        w[i].t = t;
        w[i].target = 10;
        /* One waiter has no timeout: the signal alone must release it. */
        w[i].timeout = i == 0 ? ORTVK_HOST_TIMELINE_WAIT_FOREVER : WAIT_LONG;
        atomic_init(&w[i].done, 0);
        w[i].result = 1;
        CHECK_EQ(pthread_create(&th[i], NULL, waiter_main, &w[i]), 0);
    }
    late.t = t;
    late.target = 20;
    late.timeout = WAIT_LONG;
    atomic_init(&late.done, 0);
    late.result = 1;
    CHECK_EQ(pthread_create(&late_th, NULL, waiter_main, &late), 0);

    sleep_ms(30); /* let them reach FUTEX_WAIT */
    for (i = 0; i < N; i++)
        CHECK_EQ(atomic_load(&w[i].done), 0);
    CHECK_EQ(ortvk_host_timeline_signal(t, 15), 0); /* all N, but not `late` */
    for (i = 0; i < N; i++) {
        CHECK(wait_done(&w[i].done, th[i]));
        CHECK_EQ(w[i].result, 0);
    }
    sleep_ms(30);
    CHECK_EQ(atomic_load(&late.done), 0); /* woken by 15, re-checked, slept again */
    CHECK_EQ(ortvk_host_timeline_signal(t, 20), 0);
    CHECK(wait_done(&late.done, late_th));
    CHECK_EQ(late.result, 0);
    ortvk_host_timeline_close(t);
    return 0;
}

struct pingpong {
    ortvk_host_timeline *t;
    int rounds;
    int result;
};

/* Odd values belong to the main thread, even ones to this one. */
static void *pong_main(void *arg) {
    struct pingpong *p = (struct pingpong *)arg;
    int i;
    for (i = 0; i < p->rounds; i++) {
        uint64_t v = 2 * (uint64_t)i + 1;
        int r = wait_woken(p->t, v);
        if (r == 0)
            r = ortvk_host_timeline_signal(p->t, v + 1);
        if (r != 0) {
            p->result = r;
            return NULL;
        }
    }
    p->result = 0;
    return NULL;
}

static int test_thread_pingpong(void) {
    struct pingpong p;
    pthread_t th;
    uint64_t t0 = now_ns();
    int i;

    p.rounds = 20000;
    p.result = 1;
    CHECK_EQ(ortvk_host_timeline_create(0, &p.t), 0);
    CHECK_EQ(pthread_create(&th, NULL, pong_main, &p), 0);
    for (i = 0; i < p.rounds; i++) {
        uint64_t v = 2 * (uint64_t)i + 1;
        CHECK_EQ(ortvk_host_timeline_signal(p.t, v), 0);
        CHECK_EQ(wait_woken(p.t, v + 1), 0);
    }
    CHECK_EQ(pthread_join(th, NULL), 0);
    CHECK_EQ(p.result, 0);
    printf("    %d round trips in %.1f ms\n", p.rounds, (double)(now_ns() - t0) / 1e6);
    ortvk_host_timeline_close(p.t);
    return 0;
}

struct racer {
    ortvk_host_timeline *t;
    uint64_t start, stride, last;
    int ok, einval, other;
};

static void *racer_main(void *arg) {
    struct racer *r = (struct racer *)arg;
    uint64_t v;
    for (v = r->start; v <= r->last; v += r->stride) {
        int e = ortvk_host_timeline_signal(r->t, v);
        if (e == 0)
            r->ok++;
        else if (e == -EINVAL)
            r->einval++;
        else
            r->other++;
    }
    return NULL;
}

static int test_concurrent_signalers(void) {
    enum { K = 4 };
    const uint64_t last = 200000;
    ortvk_host_timeline *t = NULL;
    struct racer r[K];
    pthread_t th[K];
    uint64_t prev = 0, seen;
    int i, ok = 0, running = K;

    CHECK_EQ(ortvk_host_timeline_create(0, &t), 0);
    for (i = 0; i < K; i++) {
        memset(&r[i], 0, sizeof r[i]);
        r[i].t = t;
        r[i].start = (uint64_t)i + 1;
        r[i].stride = K;
        r[i].last = last;
        CHECK_EQ(pthread_create(&th[i], NULL, racer_main, &r[i]), 0);
    }
    /* Observe while they race: the counter must never go backwards. */
    while (running) {
        seen = ortvk_host_timeline_value(t);
        CHECK(seen >= prev);
        prev = seen;
        if (seen == last)
            running = 0;
    }
    for (i = 0; i < K; i++) {
        CHECK_EQ(pthread_join(th[i], NULL), 0);
        CHECK_EQ(r[i].other, 0);
        ok += r[i].ok;
    }
    CHECK_EQ(ortvk_host_timeline_value(t), last);
    CHECK(ok >= 1 && (uint64_t)ok <= last);
    ortvk_host_timeline_close(t);
    return 0;
}

/* Child side of the cross-process cases: opens `fd` itself, then alternates
 * wait(odd)/signal(even) with the parent. Exit code names the failing step. */
static int child_pingpong(int fd, int close_fd_after_open, int rounds) {
    ortvk_host_timeline *c = NULL;
    int i;
    if (ortvk_host_timeline_open(fd, &c) != 0)
        return 10;
    if (close_fd_after_open)
        close(fd);
    for (i = 0; i < rounds; i++) {
        uint64_t v = 2 * (uint64_t)i + 1;
        if (wait_woken(c, v) != 0)
            return 11;
        if (ortvk_host_timeline_signal(c, v + 1) != 0)
            return 12;
    }
    ortvk_host_timeline_close(c);
    return 0;
}

static int parent_pingpong(ortvk_host_timeline *t, pid_t pid, int rounds) {
    int i, status = 0;
    sleep_ms(20); /* let the child block in FUTEX_WAIT on the first round */
    for (i = 0; i < rounds; i++) {
        uint64_t v = 2 * (uint64_t)i + 1;
        CHECK_EQ(ortvk_host_timeline_signal(t, v), 0);
        CHECK_EQ(wait_woken(t, v + 1), 0);
    }
    CHECK_EQ(waitpid(pid, &status, 0), pid);
    CHECK(WIFEXITED(status));
    CHECK_EQ(WEXITSTATUS(status), 0);
    return 0;
}

static int test_fork_inherited_fd(void) {
    enum { ROUNDS = 1000 };
    ortvk_host_timeline *t = NULL;
    pid_t pid;
    int r;

    CHECK_EQ(ortvk_host_timeline_create(0, &t), 0);
    fflush(stdout);
    pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) /* MFD_CLOEXEC only matters for exec: the fd is inherited */
        _exit(child_pingpong(ortvk_host_timeline_fd(t), 0, ROUNDS));
    r = parent_pingpong(t, pid, ROUNDS);
    CHECK_EQ(ortvk_host_timeline_value(t), 2 * ROUNDS);
    ortvk_host_timeline_close(t);
    return r;
}

static int send_fd(int sock, int fd) {
    char byte = 'T';
    struct iovec iov = {&byte, 1};
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(sizeof(int))];
    } u;
    struct msghdr msg;
    struct cmsghdr *cm;

    memset(&msg, 0, sizeof msg);
    memset(&u, 0, sizeof u);
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = u.buf;
    msg.msg_controllen = sizeof u.buf;
    cm = CMSG_FIRSTHDR(&msg);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(cm), &fd, sizeof fd);
    return sendmsg(sock, &msg, 0) == 1 ? 0 : -1;
}

static int recv_fd(int sock) {
    char byte;
    struct iovec iov = {&byte, 1};
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(sizeof(int))];
    } u;
    struct msghdr msg;
    struct cmsghdr *cm;
    int fd = -1;

    memset(&msg, 0, sizeof msg);
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = u.buf;
    msg.msg_controllen = sizeof u.buf;
    if (recvmsg(sock, &msg, 0) != 1)
        return -1;
    cm = CMSG_FIRSTHDR(&msg);
    if (!cm || cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
        return -1;
    memcpy(&fd, CMSG_DATA(cm), sizeof fd);
    return fd;
}

static int test_scm_rights(void) {
    enum { ROUNDS = 1000 };
    ortvk_host_timeline *t = NULL;
    int sv[2], r;
    pid_t pid;

    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    fflush(stdout);
    /* Fork before the timeline exists, so the child can only get it by message. */
    pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        int fd;
        close(sv[0]);
        fd = recv_fd(sv[1]);
        _exit(fd < 0 ? 9 : child_pingpong(fd, 1, ROUNDS));
    }
    close(sv[1]);
    CHECK_EQ(ortvk_host_timeline_create(0, &t), 0);
    CHECK_EQ(send_fd(sv[0], ortvk_host_timeline_fd(t)), 0);
    close(sv[0]);
    r = parent_pingpong(t, pid, ROUNDS);
    CHECK_EQ(ortvk_host_timeline_value(t), 2 * ROUNDS);
    ortvk_host_timeline_close(t);
    return r;
}

static int test_open_rejects(void) {
    ortvk_host_timeline *t = NULL, *good = NULL;
    unsigned char page[ORTVK_HOST_TIMELINE_SHARED_SIZE];
    int p[2], sv[2], fd;
    char path[] = "/tmp/ortvk_htl_test_XXXXXX";

    /* A closed fd number. */
    CHECK_EQ(pipe(p), 0);
    close(p[0]);
    close(p[1]);
    t = (ortvk_host_timeline *)1;
    CHECK_EQ(ortvk_host_timeline_open(p[0], &t), -EBADF);
    CHECK(t == NULL);

    /* A pipe and a socket. */
    CHECK_EQ(pipe(p), 0);
    CHECK_EQ(ortvk_host_timeline_open(p[0], &t), -EINVAL);
    CHECK_EQ(ortvk_host_timeline_open(p[1], &t), -EINVAL);
    close(p[0]);
    close(p[1]);
    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    CHECK_EQ(ortvk_host_timeline_open(sv[0], &t), -EINVAL);
    close(sv[0]);
    close(sv[1]);

    /* A regular file holding a page of zeros: no seals, no magic. */
    memset(page, 0, sizeof page);
    fd = mkstemp(path);
    CHECK(fd >= 0);
    unlink(path);
    CHECK_EQ(write(fd, page, sizeof page), sizeof page);
    CHECK_EQ(ortvk_host_timeline_open(fd, &t), -EINVAL);
    close(fd);

    /* A memfd that is sealed but too small. */
    fd = make_memfd();
    CHECK(fd >= 0);
    CHECK_EQ(ftruncate(fd, 64), 0);
    CHECK_EQ(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK), 0);
    CHECK_EQ(ortvk_host_timeline_open(fd, &t), -EINVAL);
    close(fd);

    /* A sealed memfd of the right size, but zeros: wrong magic. */
    fd = make_memfd();
    CHECK(fd >= 0);
    CHECK_EQ(ftruncate(fd, ORTVK_HOST_TIMELINE_SHARED_SIZE), 0);
    CHECK_EQ(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK), 0);
    CHECK_EQ(ortvk_host_timeline_open(fd, &t), -EINVAL);
    close(fd);

    /* A valid block copied into an unsealed memfd: rejected for the missing
     * F_SEAL_SHRINK alone, accepted once sealed, rejected again with a wrong
     * magic or a wrong layout version. */
    CHECK_EQ(ortvk_host_timeline_create(42, &good), 0);
    CHECK_EQ(pread(ortvk_host_timeline_fd(good), page, sizeof page, 0), sizeof page);
    ortvk_host_timeline_close(good);
    fd = make_memfd();
    CHECK(fd >= 0);
    CHECK_EQ(pwrite(fd, page, sizeof page, 0), sizeof page);
    CHECK_EQ(ortvk_host_timeline_open(fd, &t), -EINVAL);
    CHECK_EQ(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK), 0);
    CHECK_EQ(ortvk_host_timeline_open(fd, &t), 0);
    CHECK_EQ(ortvk_host_timeline_value(t), 42);
    ortvk_host_timeline_close(t);
    {
        uint64_t bad_magic = ORTVK_HOST_TIMELINE_MAGIC ^ 1u;
        uint32_t bad_version = ORTVK_HOST_TIMELINE_LAYOUT_VERSION + 1;
        CHECK_EQ(pwrite(fd, &bad_magic, sizeof bad_magic, 0), sizeof bad_magic);
        CHECK_EQ(ortvk_host_timeline_open(fd, &t), -EINVAL);
        CHECK_EQ(pwrite(fd, page, sizeof bad_magic, 0), sizeof bad_magic); /* restore */
        CHECK_EQ(pwrite(fd, &bad_version, sizeof bad_version, 8), sizeof bad_version);
    }
    t = (ortvk_host_timeline *)1;
    CHECK_EQ(ortvk_host_timeline_open(fd, &t), -EINVAL);
    CHECK(t == NULL);
    close(fd);
    return 0;
}

static int test_open_dups(void) {
    ortvk_host_timeline *owner = NULL, *a = NULL, *b = NULL;
    int fd;

    CHECK_EQ(ortvk_host_timeline_create(1, &owner), 0);
    fd = dup(ortvk_host_timeline_fd(owner));
    CHECK(fd >= 0);
    CHECK_EQ(ortvk_host_timeline_open(fd, &a), 0);
    CHECK(ortvk_host_timeline_fd(a) != fd);
    CHECK(fcntl(ortvk_host_timeline_fd(a), F_GETFD) & FD_CLOEXEC);
    close(fd); /* the caller's fd is its own business */
    CHECK_EQ(ortvk_host_timeline_open(ortvk_host_timeline_fd(owner), &b), 0);

    CHECK_EQ(ortvk_host_timeline_signal(a, 2), 0);
    CHECK_EQ(ortvk_host_timeline_value(owner), 2);
    CHECK_EQ(ortvk_host_timeline_value(b), 2);
    /* Closing the creator leaves the other handles on the same memfd working. */
    ortvk_host_timeline_close(owner);
    CHECK_EQ(ortvk_host_timeline_signal(b, 3), 0);
    CHECK_EQ(ortvk_host_timeline_wait(a, 3, 0), 0);
    CHECK_EQ(ortvk_host_timeline_signal(b, 3), -EINVAL);
    ortvk_host_timeline_close(a);
    CHECK_EQ(ortvk_host_timeline_value(b), 3);
    ortvk_host_timeline_close(b);
    return 0;
}

int main(void) {
    static const struct {
        const char *name;
        int (*fn)(void);
    } cases[] = {
        {"basic", test_basic},
        {"null_args", test_null_args},
        {"signal_not_increasing", test_signal_not_increasing},
        {"wait_timeout", test_wait_timeout},
        {"thread_wake", test_thread_wake},
        {"thread_pingpong", test_thread_pingpong},
        {"concurrent_signalers", test_concurrent_signalers},
        {"fork_inherited_fd", test_fork_inherited_fd},
        {"scm_rights", test_scm_rights},
        {"open_rejects", test_open_rejects},
        {"open_dups", test_open_dups},
    };
    size_t i;
    int failed = 0;

    alarm(120); /* a lost wake-up must fail the run, not hang it */
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int r = cases[i].fn();
        printf("%s host_timeline.%s\n", r ? "FAIL" : "PASS", cases[i].name);
        fflush(stdout);
        failed += r != 0;
    }
    printf("%s: %d of %d cases failed\n", failed ? "FAIL" : "PASS", failed,
           (int)(sizeof cases / sizeof cases[0]));
    return failed ? 1 : 0;
}
