/* ortvk-bench: clocks, statistics, ORT error reporting and progress lines. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench.h"

double bench_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

double bench_thread_cpu_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

void bench_sleep_ms(int ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

bench_stat bench_stat_of(double *samples, size_t n)
{
    bench_stat s = {.n = n};
    if (n == 0) return s;
    qsort(samples, n, sizeof(*samples), compare_double);
    s.min = samples[0];
    s.max = samples[n - 1];
    s.median = n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2.0;
    size_t rank = (99 * n + 99) / 100; /* nearest rank: ceil(0.99 n), 1-based */
    s.p99 = samples[rank - 1];
    double sum = 0;
    for (size_t i = 0; i < n; i++) sum += samples[i];
    s.mean = sum / (double)n;
    return s;
}

bool bench_app_failed(ortapp *app, OrtStatus *status, const char *call)
{
    if (status == NULL) return false;
    fprintf(stderr, "ortvk-bench: %s failed: %s (ORT code %d)\n", call, app->api->GetErrorMessage(status),
            (int)app->api->GetErrorCode(status));
    app->api->ReleaseStatus(status);
    return true;
}

bool bench_ort_failed(bench *b, OrtStatus *status, const char *call)
{
    return bench_app_failed(&b->app, status, call);
}

int bench_app_open(ortapp *app, const bench_options *opt, const char *ort_path, const char *ep_path,
                   const OrtEpDevice **device)
{
    char error[512];
    *device = NULL;
    if (ortapp_open(app, ort_path, ORT_LOGGING_LEVEL_WARNING, error, sizeof(error)) != 0) {
        fprintf(stderr, "ortvk-bench: %s\n", error);
        return 77;
    }
    const OrtEpDevice *devices[16];
    size_t count = 0;
    if (!bench_app_failed(app, ortapp_register(app, ep_path), "RegisterExecutionProviderLibrary"))
        count = ortapp_devices(app, devices, 16);
    if ((size_t)opt->device_index >= count) {
        fprintf(stderr, "ortvk-bench: --device %d: ortvk offers %zu EP device(s) (see ortvk-info)\n", opt->device_index,
                count);
        return 1;
    }
    *device = devices[opt->device_index];
    return 0;
}

void bench_progress(const bench *b, const char *fmt, ...)
{
    (void)b;
    va_list ap;
    va_start(ap, fmt);
    fputs("ortvk-bench: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}
