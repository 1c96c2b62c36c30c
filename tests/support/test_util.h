/* Test helpers for the ctest suite: failure accounting, ORT status checks, an environment with ortvk registered,
 * sessions with ortvk appended, and tensors in ortvk device memory — all through ONNX Runtime's public API. */
#ifndef ORTVK_TEST_UTIL_H
#define ORTVK_TEST_UTIL_H

#include <stdio.h>
#include <stdlib.h>

#include "onnx_proto.h"
#include "ortapp.h"
#include "ortvk.h"
#include "ortvk_host_timeline.h"
#include "vk_producer.h"

extern int test_failures;

/* Records a failure (with file:line and a message) when `cond` is false; evaluates to cond. */
#define CHECK(cond, ...) test_check((cond), __FILE__, __LINE__, #cond, __VA_ARGS__)
int test_check(int ok, const char *file, int line, const char *expr, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Expects success; prints the ORT message otherwise. */
#define ORT_OK(app, expr) test_ort_ok((app), (expr), __FILE__, __LINE__, #expr)
int test_ort_ok(ortapp *app, OrtStatus *status, const char *file, int line, const char *expr);

/* Expects failure with `code` and a message containing `needle` (may be NULL). */
#define ORT_FAILS(app, expr, code, needle) test_ort_fails((app), (expr), (code), (needle), __FILE__, __LINE__, #expr)
int test_ort_fails(ortapp *app, OrtStatus *status, OrtErrorCode code, const char *needle, const char *file, int line,
                   const char *expr);

/* Opens ONNX Runtime (from $ORTVK_ORT_LIBRARY), registers ortvk and finds its first EP device. Exits 77 with
 * "SKIP:" when there is no runtime; fails when ortvk offers no device. */
void test_open(ortapp *app, const OrtEpDevice **device);

/* test_open, then an importer for the device (CreateExternalResourceImporterForDevice; NULL when ORT gives none,
 * after a FAIL line when it fails). The caller releases it. */
OrtExternalResourceImporter *test_open_importer(ortapp *app, const OrtEpDevice **device);

/* The application's renderer: a producer device on the same GPU as the EP device test_open found (same
 * deviceUUID), and exportable buffers in the memory type ortvk imports opaque FDs into (EP metadata
 * "ortvk.opaque_fd_memory_type"), as docs/interop.md asks of producers. 0 or a negative errno. */
int test_producer_create(vk_producer **out);
int test_producer_buffer(vk_producer *producer, size_t size, vk_producer_buffer **out);

/* Prints "PASS"/"FAIL" with the failure count, closes the app and returns the exit code. */
int test_finish(ortapp *app, const char *name);

/* A session for `model` with ortvk appended on `device` (plus optional extra "ep.ortvk." options). */
OrtSession *test_session(ortapp *app, const OrtEpDevice *device, const uint8_t *model, size_t model_len,
                         const char *const *option_keys, const char *const *option_values, size_t option_count);

/* Serializes `m` into *model (malloc'd) and frees `m`; 0 after a FAIL line naming `what` when it cannot. */
int test_model_serialize(onnx_model *m, const char *what, uint8_t **model, size_t *len);

/* Builds a one-node float model: `op` with inputs named x (and y when inputs == 2) and output z, all of `shape`. */
int test_model_one_op(const char *op, int inputs, int rank, const int64_t *shape, uint8_t **model, size_t *len);

/* A float tensor in ortvk device memory (allocated through ORT's shared allocator for the EP device). */
OrtValue *test_device_tensor(ortapp *app, const OrtEpDevice *device, int rank, const int64_t *shape);
/* A float tensor over host memory `data` (not owned). */
OrtValue *test_host_tensor(ortapp *app, float *data, size_t count, int rank, const int64_t *shape);

/* Imports `timeline` (an ortvk host timeline) through `importer`, as an application does: NULL (after a FAIL line)
 * when ImportSemaphore fails. */
OrtExternalSemaphoreHandle *test_import_host_timeline(ortapp *app, OrtExternalResourceImporter *importer,
                                                      ortvk_host_timeline *timeline);
/* The same of any fixed-size `type` (FLOAT16's `data` holds the bit patterns). */
OrtValue *test_host_tensor_of(ortapp *app, void *data, ONNXTensorElementDataType type, size_t count, int rank,
                              const int64_t *shape);

/* Copies with ORT's CopyTensors (env-level; `stream` may be NULL). */
OrtStatus *test_copy(ortapp *app, OrtValue *src, OrtValue *dst, OrtSyncStream *stream);

/* How many file descriptors the process has open (from /proc/self/fd), or -1; not counting those of Mesa's shader
 * cache, whose writer thread opens and closes its files at its own pace. */
int test_open_fds(void);

/* The whole text of the file at `path` (malloc'd, NUL-terminated), or NULL when it cannot be read. */
char *test_read_text(const char *path);

/* A page-aligned host allocation of at least `bytes`, zeroed. */
void *test_page_alloc(size_t bytes, size_t *rounded);

#endif
