/* ortvk-bench internals: options, the shared context (ORT, the ortvk EP device, the producer device, the bare
 * Vulkan device, the session), timing and statistics, the result records each benchmark fills and the report
 * that prints them (aligned tables or JSON). See tools/ortvk_bench.c and docs/benchmarks.md. */
#ifndef ORTVK_BENCH_H
#define ORTVK_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ortapp.h"
#include "ortvk.h"
#include "vk_producer.h"

#include "bare_vk.h"

#define BENCH_MAX_SIZES 8
#define BENCH_WAIT_NS (10ull * 1000 * 1000 * 1000) /* no wait in the bench hangs longer than 10 s */

/* ---- options ------------------------------------------------------------------------------------------- */

typedef struct bench_size {
    int width, height; /* the input is [1,3,height,width] float */
} bench_size;

typedef struct bench_options {
    int iterations;      /* import and semaphore calls measured per case */
    int frames;          /* frames measured per size and path */
    int warmup_frames;   /* frames run first and not measured */
    bench_size sizes[BENCH_MAX_SIZES];
    int size_count;
    const char *model_path; /* NULL: the built-in elementwise model */
    int device_index;       /* among ortvk's EP devices */
    int threads;            /* ORT intra-op threads */
    int delay_ms;           /* the non-blocking proof's producer delay */
    bool host_timeline;     /* frame path: use the host timeline even where Vulkan timeline FDs import */
    bool json;
    const char *compare_model; /* --compare-model: only the model comparison runs */
    bench_size compare_sizes[BENCH_MAX_SIZES];
    int compare_size_count;
    int compare_frames;
    bool profile;              /* --compare-model --profile: ortvk's per-op device profile of each size */
    bool float16;              /* --compare-model --float16: the model converted to float16, its input too */
    const char *ops; /* --ops: single ops on ortvk and the CPU EP (tools/bench/bench_ops.c) */
} bench_options;

/* --compare-model: the model on ortvk and on ORT's CPU EP, side by side (tools/bench/bench_model.c). 0 when it ran,
 * 77 when ONNX Runtime cannot be loaded, else 1. */
int bench_model_compare(const bench_options *opt, const char *ort_path, const char *ep_path);
/* --profile: the per-op table of the profile ortvk wrote to `path` for one size, per measured run, beside the CPU
 * EP's per-op times from ORT's profile at `cpu_path` ("" when there is none) and the Run medians
 * (tools/bench/bench_report.c). Text, or a JSON member with --json. */
void bench_report_profile(const bench_options *opt, const char *path, const char *cpu_path, const char *size,
                          double cpu_ms, double ortvk_ms);
/* The first file whose path starts with `prefix` (ORT's profiler appends a date), into `out`; "" when none. */
void bench_find_file(const char *prefix, char *out, size_t len);
/* --ops LIST: single-op chains on ortvk and on ORT's CPU EP (tools/bench/bench_ops.c); same exit codes. */
int bench_ops(const bench_options *opt, const char *ort_path, const char *ep_path);

/* ---- timing and statistics ----------------------------------------------------------------------------- */

double bench_now_us(void);        /* CLOCK_MONOTONIC */
double bench_thread_cpu_us(void); /* CLOCK_THREAD_CPUTIME_ID of the calling thread */
void bench_sleep_ms(int ms);

typedef struct bench_stat {
    size_t n;
    double median, p99, mean, min, max;
} bench_stat;

/* Sorts `samples` in place. p99 is the nearest-rank 99th percentile (the maximum below 100 samples). */
bench_stat bench_stat_of(double *samples, size_t n);

/* ---- results ------------------------------------------------------------------------------------------- */

/* 1. Import cost of one frame-sized allocation: ortvk against the bare Vulkan import. */
typedef struct import_result {
    char size[24];  /* "640x640" */
    char kind[24];  /* "opaque FD", "host allocation" */
    char floor[48]; /* what the bare import does */
    size_t bytes;   /* the imported allocation */
    bench_stat ortvk, bare;
} import_result;

/* 2. The frame path at one size: zero-copy against today's copy path. */
typedef struct frame_result {
    char size[24];
    char semaphore[24]; /* the zero-copy path's semaphore: "host timeline" or "Vulkan timeline FD" */
    size_t input_bytes, output_bytes;
    bench_stat latency[2], app_cpu[2], app_wall[2]; /* [0] zero-copy, [1] today */
    double app_bytes[2], ortvk_bytes[2], ortvk_copies[2]; /* per frame */
    bool verified[2];
} frame_result;

/* 3. WaitSemaphore/SignalSemaphore enqueue cost, and the proof that WaitSemaphore does not block. */
typedef struct semaphore_result {
    char semaphore[24];
    bool available;
    char why_not[384];
    bench_stat wait, signal;
    int trials;
    double max_wait_call_us;     /* slowest WaitSemaphore call of the proof */
    uint64_t awaited;            /* value of the last trial's WaitSemaphore */
    uint64_t max_value_at_return; /* highest semaphore value seen right after WaitSemaphore returned */
    bool below_at_return;         /* every trial: value < awaited when WaitSemaphore returned */
    double min_signal_after_ms;   /* the producer's signal, ms after WaitSemaphore was called */
    double min_done_after_ms;     /* ortvk's SignalSemaphore(awaited + 1) observed, ms after the call */
    bool pass;
} semaphore_result;

/* ---- the context --------------------------------------------------------------------------------------- */

typedef struct bench_model {
    uint8_t *bytes;
    size_t len;
    char input_name[128], output_name[128];
    bool builtin;
} bench_model;

typedef struct bench {
    bench_options opt;
    ortapp app;
    const OrtEpDevice *device;
    OrtExternalResourceImporter *importer;
    OrtSession *session;
    bool ortvk_consumes_input; /* SessionGetEpDeviceForInputs: ortvk runs the node that reads the input */
    bench_model model;
    vk_producer *producer;
    uint64_t producer_value; /* highest value the producer's timeline has been or will be signaled to */
    bare_vk *bare;
    uint8_t device_uuid[16];

    /* header */
    char device_name[256], device_type[32], driver[256], api_version[32], memory_import[128],
        semaphore_import[128];
    uint32_t opaque_fd_memory_type;
    size_t host_alignment;
    char cpu_model[256];
    long cores;
    bool validation;

    /* results */
    import_result imports[BENCH_MAX_SIZES * 3];
    int import_count;
    char import_notes[4][384];
    int import_note_count;
    frame_result frames[BENCH_MAX_SIZES];
    int frame_count;
    semaphore_result semaphores[2];
    int semaphore_count;
    bool failed[3]; /* import, frames, semaphores: could not complete (the error went to stderr) */
    int failures; /* verification or proof failures: the exit code is 1 when there is any */
} bench;

/* Prints "<call> failed: <ORT message> (code N)" and returns true when `status` is an error (releases it). */
bool bench_app_failed(ortapp *app, OrtStatus *status, const char *call);
bool bench_ort_failed(bench *b, OrtStatus *status, const char *call);
/* Opens ONNX Runtime, registers ortvk and picks --device for the model benchmarks: 0, or 77 when ONNX Runtime
 * cannot be loaded (`app` is not open), or 1 when ortvk offers no such device (`app` is open: close it). */
int bench_app_open(ortapp *app, const bench_options *opt, const char *ort_path, const char *ep_path,
                   const OrtEpDevice **device);
#define BENCH_ORT(b, call) bench_ort_failed((b), (call), #call)
/* Progress lines go to stderr, so stdout stays clean for --json. */
void bench_progress(const bench *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The benchmarks (tools/bench/bench_*.c). Each returns 0, or -1 after printing why it could not run at all. */
int bench_import(bench *b);
int bench_frames(bench *b);
int bench_semaphores(bench *b);

void bench_report_text(const bench *b);
void bench_report_json(const bench *b);

#endif
