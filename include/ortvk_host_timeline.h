/* ortvk_host_timeline.h - header-only host timeline semaphore: a 64-bit monotonic
 * counter in a sealed memfd with shared-futex wake-ups, signalled and waited on by CPU
 * code in any thread or process that holds the fd. Owns the shared layout and protocol.
 *
 * ============================================================================
 * MANUAL
 * ============================================================================
 *
 * WHAT IT IS
 *   A CPU-side equivalent of a Vulkan timeline semaphore. CPU producers (a camera
 *   thread, a decoder, another process) call ortvk_host_timeline_signal(t, n) when
 *   work item n is ready; consumers call ortvk_host_timeline_wait(t, n, timeout).
 *   The counter only grows. Hand the fd to ONNX Runtime as (void*)(intptr_t)fd; the
 *   ortvk provider opens it with this same header (everything is static inline,
 *   because the provider library exports nothing but its two ORT entry points).
 *
 * SHARED LAYOUT (struct ortvk_host_timeline_shared, 4096 bytes, native endian)
 *   offset  0  uint64  magic           ORTVK_HOST_TIMELINE_MAGIC ("orvkHTL1")
 *   offset  8  uint32  layout_version  ORTVK_HOST_TIMELINE_LAYOUT_VERSION
 *   offset 16  uint64  value           the counter (atomic)
 *   offset 24  uint32  wake_seq        futex word, bumped by every signal (atomic)
 *   rest       zero, reserved
 *   The memfd is exactly 4096 bytes and sealed F_SEAL_SHRINK | F_SEAL_GROW |
 *   F_SEAL_SEAL, so no holder can shrink it under another's mapping (SIGBUS).
 *
 * PROTOCOL
 *   Futexes are 32-bit, so waiters sleep on wake_seq rather than on value:
 *     signal: CAS value upward (release), wake_seq += 1, FUTEX_WAKE(wake_seq, all)
 *     wait:   s = wake_seq; if value >= target return; FUTEX_WAIT(wake_seq, s); repeat
 *   A signal that lands between a waiter's reads and its FUTEX_WAIT changes wake_seq,
 *   so the kernel refuses to sleep (EAGAIN) and the waiter re-checks: no lost wakes.
 *   The futex is a shared one (no FUTEX_PRIVATE_FLAG), keyed by the memfd page, so
 *   signals from other processes wake it.
 *
 * FD OWNERSHIP
 *   create() owns the memfd it makes; ortvk_host_timeline_fd() lends it (do not close
 *   it; dup() it or send it over SCM_RIGHTS). open() dup()s the fd it is given
 *   (close-on-exec), so the caller keeps, and must eventually close, its own fd.
 *   close() unmaps and closes only the handle's own fd.
 *
 * THREAD AND PROCESS SAFETY
 *   signal/wait/value may be called concurrently from any number of threads and
 *   processes, on one handle or on several handles of the same memfd. Concurrent
 *   signals are serialised by the CAS: the largest wins, a smaller or equal value
 *   gets -EINVAL. close() must not race with other calls on the same handle.
 *   Trust: every holder of the fd can write the block, so this is a primitive for
 *   cooperating processes. A misbehaving holder can stall or release waiters early,
 *   but cannot make this code touch memory outside the sealed page.
 *
 * ERRORS
 *   Functions return 0 on success or a negative errno value: -EINVAL (bad argument,
 *   non-increasing signal, fd of the wrong kind), -EBADF (fd not open), -ETIMEDOUT,
 *   -ENOMEM, or whatever the failing syscall reported.
 *
 * BUILD
 *   Linux >= 3.17 (memfd_create), 64-bit (x86-64, aarch64), C11 or C++11. No need for
 *   _GNU_SOURCE: memfd_create, ftruncate and futex are reached through syscall(), and
 *   the seal constants have fallbacks. Names ortvk_htl_priv_* / ORTVK_HTL_PRIV_* are
 *   internal.
 *
 * EXAMPLE
 *   ortvk_host_timeline *tl;                       // producer process
 *   if (ortvk_host_timeline_create(0, &tl) != 0) abort();
 *   send_fd(sock, ortvk_host_timeline_fd(tl));     // SCM_RIGHTS; fd stays ours
 *   for (uint64_t n = 1;; n++) { fill_frame(n); ortvk_host_timeline_signal(tl, n); }
 *
 *   ortvk_host_timeline *tl;                       // consumer process
 *   int fd = recv_fd(sock);
 *   if (ortvk_host_timeline_open(fd, &tl) != 0) abort();
 *   close(fd);                                     // open() made its own dup
 *   if (ortvk_host_timeline_wait(tl, 7, 100000000u) == 0) use_frame(7);  // 100 ms
 *   ortvk_host_timeline_close(tl);
 */
#ifndef ORTVK_HOST_TIMELINE_H
#define ORTVK_HOST_TIMELINE_H

#if !defined(__linux__)
#error "ortvk_host_timeline.h needs Linux (memfd_create, futex)"
#endif

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef __cplusplus
#include <stdatomic.h>
#endif

#if !defined(SYS_futex) || !defined(SYS_ftruncate)
#error "ortvk_host_timeline.h needs SYS_futex and SYS_ftruncate (64-bit Linux)"
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define ORTVK_HOST_TIMELINE_MAGIC UINT64_C(0x6F72766B48544C31) /* "orvkHTL1" */
#define ORTVK_HOST_TIMELINE_LAYOUT_VERSION 1u
#define ORTVK_HOST_TIMELINE_SHARED_SIZE 4096u
#define ORTVK_HOST_TIMELINE_WAIT_FOREVER UINT64_MAX

/* Linux UAPI values; used when the libc headers hide them (strict C11, no
 * _GNU_SOURCE) or predate them. They are kernel ABI and cannot change. */
#ifdef F_ADD_SEALS
#define ORTVK_HTL_PRIV_F_ADD_SEALS F_ADD_SEALS
#define ORTVK_HTL_PRIV_F_GET_SEALS F_GET_SEALS
#define ORTVK_HTL_PRIV_F_SEAL_SEAL F_SEAL_SEAL
#define ORTVK_HTL_PRIV_F_SEAL_SHRINK F_SEAL_SHRINK
#define ORTVK_HTL_PRIV_F_SEAL_GROW F_SEAL_GROW
#else
#define ORTVK_HTL_PRIV_F_ADD_SEALS 1033
#define ORTVK_HTL_PRIV_F_GET_SEALS 1034
#define ORTVK_HTL_PRIV_F_SEAL_SEAL 0x0001
#define ORTVK_HTL_PRIV_F_SEAL_SHRINK 0x0002
#define ORTVK_HTL_PRIV_F_SEAL_GROW 0x0004
#endif
#ifdef F_DUPFD_CLOEXEC
#define ORTVK_HTL_PRIV_F_DUPFD_CLOEXEC F_DUPFD_CLOEXEC
#else
#define ORTVK_HTL_PRIV_F_DUPFD_CLOEXEC 1030
#endif
#define ORTVK_HTL_PRIV_MFD_CLOEXEC 0x0001u
#define ORTVK_HTL_PRIV_MFD_ALLOW_SEALING 0x0002u
#define ORTVK_HTL_PRIV_FUTEX_WAKE 1
#define ORTVK_HTL_PRIV_FUTEX_WAIT_BITSET 9
#define ORTVK_HTL_PRIV_FUTEX_BITSET_MATCH_ANY 0xffffffffu
#define ORTVK_HTL_PRIV_CLOCK_MONOTONIC 1

/* C gets <stdatomic.h>; C++ (before C++23 has no _Atomic) gets the GCC/Clang
 * builtins, which act on the same lock-free, address-free representation. */
#ifdef __cplusplus
#define ORTVK_HTL_PRIV_ATOMIC(T) T
#define ORTVK_HTL_PRIV_STATIC_ASSERT(c, m) static_assert(c, m)
#define ORTVK_HTL_PRIV_LOAD_ACQ(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define ORTVK_HTL_PRIV_STORE_RLX(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define ORTVK_HTL_PRIV_CAS(p, expp, v) \
    __atomic_compare_exchange_n((p), (expp), (v), true, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)
#define ORTVK_HTL_PRIV_INC_REL(p) ((void)__atomic_fetch_add((p), 1u, __ATOMIC_RELEASE))
ORTVK_HTL_PRIV_STATIC_ASSERT(__atomic_always_lock_free(8, 0) && __atomic_always_lock_free(4, 0),
                             "host timeline needs lock-free 32/64-bit atomics");
#else
#define ORTVK_HTL_PRIV_ATOMIC(T) _Atomic T
#define ORTVK_HTL_PRIV_STATIC_ASSERT(c, m) _Static_assert(c, m)
#define ORTVK_HTL_PRIV_LOAD_ACQ(p) atomic_load_explicit((p), memory_order_acquire)
#define ORTVK_HTL_PRIV_STORE_RLX(p, v) atomic_store_explicit((p), (v), memory_order_relaxed)
#define ORTVK_HTL_PRIV_CAS(p, expp, v)                                                   \
    atomic_compare_exchange_weak_explicit((p), (expp), (v), memory_order_acq_rel,        \
                                          memory_order_acquire)
#define ORTVK_HTL_PRIV_INC_REL(p) ((void)atomic_fetch_add_explicit((p), 1u, memory_order_release))
/* Lock-free atomics are address-free, which is what makes them work across
 * processes that map the block at different addresses. */
ORTVK_HTL_PRIV_STATIC_ASSERT(ATOMIC_LLONG_LOCK_FREE == 2 && ATOMIC_INT_LOCK_FREE == 2,
                             "host timeline needs lock-free 32/64-bit atomics");
/* <unistd.h> declares syscall() only with _DEFAULT_SOURCE/_GNU_SOURCE; repeating a
 * compatible declaration is harmless when it already did. C++ compilers on Linux
 * always define _GNU_SOURCE, so they need (and must not get) this. */
extern long syscall(long number, ...);
#endif

/* The futex timeout is a struct timespec handed straight to the kernel. */
ORTVK_HTL_PRIV_STATIC_ASSERT(sizeof(long) == 8 && sizeof(time_t) == 8,
                             "ortvk_host_timeline.h supports 64-bit Linux only");

/* Lives in the memfd; see SHARED LAYOUT above. Not for direct use. */
struct ortvk_host_timeline_shared {
    uint64_t magic;
    uint32_t layout_version;
    uint32_t reserved0;
    ORTVK_HTL_PRIV_ATOMIC(uint64_t) value;
    ORTVK_HTL_PRIV_ATOMIC(uint32_t) wake_seq;
    uint32_t reserved1;
    unsigned char reserved[ORTVK_HOST_TIMELINE_SHARED_SIZE - 32];
};

ORTVK_HTL_PRIV_STATIC_ASSERT(sizeof(struct ortvk_host_timeline_shared) ==
                                 ORTVK_HOST_TIMELINE_SHARED_SIZE,
                             "shared block must be exactly one 4 KiB page");
ORTVK_HTL_PRIV_STATIC_ASSERT(offsetof(struct ortvk_host_timeline_shared, value) == 16 &&
                                 offsetof(struct ortvk_host_timeline_shared, wake_seq) == 24,
                             "shared layout is ABI between processes");

/* Process-local handle. Opaque: use the functions, not the fields. */
typedef struct ortvk_host_timeline {
    int fd;
    struct ortvk_host_timeline_shared *shared;
} ortvk_host_timeline;

static inline int ortvk_htl_priv_futex_wait(struct ortvk_host_timeline_shared *s,
                                            uint32_t seen, const struct timespec *deadline) {
    /* WAIT_BITSET takes an absolute CLOCK_MONOTONIC deadline, so retries after
     * EINTR or a spurious wake need no re-computation of the remaining time. */
    long r = syscall(SYS_futex, (void *)&s->wake_seq, ORTVK_HTL_PRIV_FUTEX_WAIT_BITSET,
                     (unsigned)seen, deadline, (void *)0,
                     (unsigned)ORTVK_HTL_PRIV_FUTEX_BITSET_MATCH_ANY);
    return r == 0 ? 0 : -errno;
}

static inline int ortvk_htl_priv_futex_wake_all(struct ortvk_host_timeline_shared *s) {
    long r = syscall(SYS_futex, (void *)&s->wake_seq, ORTVK_HTL_PRIV_FUTEX_WAKE, INT_MAX,
                     (void *)0, (void *)0, 0u);
    return r >= 0 ? 0 : -errno;
}

static inline int ortvk_htl_priv_monotonic_now(struct timespec *ts) {
#ifdef CLOCK_MONOTONIC /* <time.h> exposes POSIX clocks: use the vDSO path */
    if (clock_gettime(CLOCK_MONOTONIC, ts) != 0)
        return -errno;
#else
    if (syscall(SYS_clock_gettime, ORTVK_HTL_PRIV_CLOCK_MONOTONIC, ts) != 0)
        return -errno;
#endif
    return 0;
}

static inline int ortvk_host_timeline_create(uint64_t initial_value, ortvk_host_timeline **out) {
    ortvk_host_timeline *t;
    void *map;
    int err;

    if (!out)
        return -EINVAL;
    *out = NULL;
#ifndef SYS_memfd_create
    (void)initial_value;
    return -ENOSYS;
#else
    t = (ortvk_host_timeline *)malloc(sizeof *t);
    if (!t)
        return -ENOMEM;
    t->fd = (int)syscall(SYS_memfd_create, "ortvk-host-timeline",
                         ORTVK_HTL_PRIV_MFD_CLOEXEC | ORTVK_HTL_PRIV_MFD_ALLOW_SEALING);
    if (t->fd < 0) {
        err = -errno;
        free(t);
        return err;
    }
    if (syscall(SYS_ftruncate, t->fd, (long)ORTVK_HOST_TIMELINE_SHARED_SIZE) != 0 ||
        /* F_SEAL_SEAL also stops anyone adding F_SEAL_WRITE, which would make
         * later open()s fail to map the page writable. */
        fcntl(t->fd, ORTVK_HTL_PRIV_F_ADD_SEALS,
              ORTVK_HTL_PRIV_F_SEAL_SHRINK | ORTVK_HTL_PRIV_F_SEAL_GROW |
                  ORTVK_HTL_PRIV_F_SEAL_SEAL) != 0) {
        err = -errno;
        goto fail_fd;
    }
    map = mmap(NULL, ORTVK_HOST_TIMELINE_SHARED_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
               t->fd, 0);
    if (map == MAP_FAILED) {
        err = -errno;
        goto fail_fd;
    }
    t->shared = (struct ortvk_host_timeline_shared *)map;
    /* The fresh memfd reads as zeros. Plain/relaxed stores suffice: the fd only
     * reaches another thread or process through a synchronising hand-off. */
    t->shared->magic = ORTVK_HOST_TIMELINE_MAGIC;
    t->shared->layout_version = ORTVK_HOST_TIMELINE_LAYOUT_VERSION;
    ORTVK_HTL_PRIV_STORE_RLX(&t->shared->value, initial_value);
    ORTVK_HTL_PRIV_STORE_RLX(&t->shared->wake_seq, 0u);
    *out = t;
    return 0;

fail_fd:
    close(t->fd);
    free(t);
    return err;
#endif
}

static inline int ortvk_host_timeline_open(int fd, ortvk_host_timeline **out) {
    struct stat st;
    ortvk_host_timeline *t;
    void *map;
    int seals, err;

    if (!out)
        return -EINVAL;
    *out = NULL;
    if (fd < 0)
        return -EBADF;
    /* Seals first, then size: seals can only be added, so once F_SEAL_SHRINK is
     * seen, the size read afterwards can never drop below it. Pipes, sockets and
     * files outside shmem cannot carry seals and fail here with EINVAL. */
    seals = fcntl(fd, ORTVK_HTL_PRIV_F_GET_SEALS);
    if (seals < 0)
        return errno == EBADF ? -EBADF : -EINVAL;
    if (!(seals & ORTVK_HTL_PRIV_F_SEAL_SHRINK))
        return -EINVAL;
    if (fstat(fd, &st) != 0)
        return -errno;
    if (!S_ISREG(st.st_mode) || (long long)st.st_size < (long long)ORTVK_HOST_TIMELINE_SHARED_SIZE)
        return -EINVAL;

    t = (ortvk_host_timeline *)malloc(sizeof *t);
    if (!t)
        return -ENOMEM;
    t->fd = fcntl(fd, ORTVK_HTL_PRIV_F_DUPFD_CLOEXEC, 0);
    if (t->fd < 0) {
        err = -errno;
        free(t);
        return err;
    }
    map = mmap(NULL, ORTVK_HOST_TIMELINE_SHARED_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
               t->fd, 0);
    if (map == MAP_FAILED) {
        err = -errno;
        close(t->fd);
        free(t);
        return err;
    }
    t->shared = (struct ortvk_host_timeline_shared *)map;
    if (t->shared->magic != ORTVK_HOST_TIMELINE_MAGIC ||
        t->shared->layout_version != ORTVK_HOST_TIMELINE_LAYOUT_VERSION) {
        munmap(map, ORTVK_HOST_TIMELINE_SHARED_SIZE);
        close(t->fd);
        free(t);
        return -EINVAL;
    }
    *out = t;
    return 0;
}

static inline int ortvk_host_timeline_fd(const ortvk_host_timeline *t) {
    return t ? t->fd : -EINVAL;
}

static inline uint64_t ortvk_host_timeline_value(const ortvk_host_timeline *t) {
    return t ? ORTVK_HTL_PRIV_LOAD_ACQ(&t->shared->value) : 0;
}

static inline int ortvk_host_timeline_signal(ortvk_host_timeline *t, uint64_t value) {
    uint64_t cur;

    if (!t)
        return -EINVAL;
    cur = ORTVK_HTL_PRIV_LOAD_ACQ(&t->shared->value);
    do {
        if (value <= cur)
            return -EINVAL;
    } while (!ORTVK_HTL_PRIV_CAS(&t->shared->value, &cur, value));
    /* Release on the bump: a waiter that sees the new wake_seq also sees value. */
    ORTVK_HTL_PRIV_INC_REL(&t->shared->wake_seq);
    return ortvk_htl_priv_futex_wake_all(t->shared);
}

static inline int ortvk_host_timeline_wait(const ortvk_host_timeline *t, uint64_t value,
                                           uint64_t timeout_ns) {
    struct ortvk_host_timeline_shared *s;
    struct timespec deadline;
    const struct timespec *dl = NULL;
    int r;

    if (!t)
        return -EINVAL;
    s = t->shared;
    if (ORTVK_HTL_PRIV_LOAD_ACQ(&s->value) >= value)
        return 0;
    if (timeout_ns == 0)
        return -ETIMEDOUT;
    if (timeout_ns != ORTVK_HOST_TIMELINE_WAIT_FOREVER) {
        r = ortvk_htl_priv_monotonic_now(&deadline);
        if (r != 0)
            return r;
        /* At most ~1.8e10 s is added, far inside a 64-bit time_t; the kernel
         * clamps deadlines beyond its ~292-year range to "never". */
        deadline.tv_sec += (time_t)(timeout_ns / 1000000000u);
        deadline.tv_nsec += (long)(timeout_ns % 1000000000u);
        if (deadline.tv_nsec >= 1000000000L) {
            deadline.tv_nsec -= 1000000000L;
            deadline.tv_sec += 1;
        }
        dl = &deadline;
    }
    for (;;) {
        /* wake_seq before value: a signal after these loads changes wake_seq, so
         * FUTEX_WAIT below returns EAGAIN instead of sleeping through it. */
        uint32_t seen = ORTVK_HTL_PRIV_LOAD_ACQ(&s->wake_seq);
        if (ORTVK_HTL_PRIV_LOAD_ACQ(&s->value) >= value)
            return 0;
        r = ortvk_htl_priv_futex_wait(s, seen, dl);
        if (r == -ETIMEDOUT)
            return ORTVK_HTL_PRIV_LOAD_ACQ(&s->value) >= value ? 0 : -ETIMEDOUT;
        if (r != 0 && r != -EAGAIN && r != -EINTR)
            return r;
    }
}

static inline void ortvk_host_timeline_close(ortvk_host_timeline *t) {
    if (!t)
        return;
    munmap((void *)t->shared, ORTVK_HOST_TIMELINE_SHARED_SIZE);
    close(t->fd);
    free(t);
}

#ifdef __cplusplus
}
#endif

#endif /* ORTVK_HOST_TIMELINE_H */
