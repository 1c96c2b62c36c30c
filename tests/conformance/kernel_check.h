/* Helpers of the kernel tests (the ONNX conformance runner, the differential and real-model tests): sessions with
 * ortvk in strict placement mode, the CPU EP / ortvk session pair, which EP each node went to, host copies of
 * outputs, and ONNX backend-test comparisons. */
#ifndef ORTVK_TESTS_KERNEL_CHECK_H
#define ORTVK_TESTS_KERNEL_CHECK_H

#include <stdbool.h>

#include "test_util.h"

/* A session for `model`: with ortvk appended on `device`, or ORT's CPU EP alone when `device` is NULL. `strict`
 * sets session.disable_cpu_ep_fallback = 1 (creation fails when any node would fall back to the CPU EP); `record`
 * sets session.record_ep_graph_assignment_info = 1. On failure returns NULL with *error set (release it). */
OrtSession *kc_session(ortapp *app, const OrtEpDevice *device, const uint8_t *model, size_t len, bool strict,
                       bool record, OrtStatus **error);

/* The session pair of the differential tests: ORT's CPU EP alone (`cpu`) and ortvk on the device (`vk`), for the
 * same model, to run on the same inputs and compare. */
typedef struct kc_pair {
    OrtSession *cpu;
    OrtSession *vk;
} kc_pair;

/* Opens both sessions for `model`; ortvk's for `vk_model` instead when it is not NULL (e.g. the model converted to
 * float16). `strict` sets session.disable_cpu_ep_fallback = 1 on ortvk's session (creation fails when any node
 * would fall back to the CPU EP); without it, the session records which EP runs each node (kc_assignment). false
 * after a failed CHECK naming `what`, the session and ORT's message, with nothing left open. */
bool kc_pair_open(ortapp *app, const OrtEpDevice *device, const uint8_t *model, size_t len, const uint8_t *vk_model,
                  size_t vk_len, bool strict, const char *what, kc_pair *pair);
void kc_pair_close(ortapp *app, kc_pair *pair);

/* Runs both sessions: the CPU EP's on `cpu_inputs`, ortvk's on `vk_inputs` (the same ones when NULL). true when
 * both succeed (a failure is a FAIL line); the outputs are in want[] and got[] either way (release them with
 * kc_pair_release). */
bool kc_pair_run(ortapp *app, const kc_pair *pair, const char *const *in_names, OrtValue *const *cpu_inputs,
                 OrtValue *const *vk_inputs, size_t n_in, const char *const *out_names, size_t n_out, OrtValue **want,
                 OrtValue **got);
void kc_pair_release(ortapp *app, OrtValue **want, OrtValue **got, size_t n_out);

/* A tensor's rank, and its dims in `dims` when the rank is at most `max` (0 and nothing on failure). */
size_t kc_tensor_shape(ortapp *app, OrtValue *value, int64_t *dims, size_t max);

/* Which EP runs each node of a session created with `record`: counts of the model's nodes on ortvk and on other
 * EPs (ORT's Memcpy nodes left out), and their op types as " Op1 Op2 ..." (each listed once) in `on_ortvk` and
 * `elsewhere` (may be NULL). 0 on success. */
int kc_assignment(ortapp *app, OrtSession *session, size_t *n_ortvk, size_t *n_other, char *on_ortvk,
                  size_t on_ortvk_len, char *elsewhere, size_t elsewhere_len);

/* In the text of an ortvk profile (ep.ortvk.profile: one event a line), the events of the nodes of op `op` (their
 * "cat"): their count is returned, *dispatched (may be NULL) gets how many name pipelines ("pipelines": "shader.fn
 * ..."; a node computed on the host names none), and `first` the first one's list of pipelines ("" if none). */
int kc_profile_events(const char *text, const char *op, int *dispatched, char *first, size_t first_len);

/* A host copy (malloc'd) of a tensor's data, wherever ORT put it. NULL on failure (the reason printed). */
void *kc_host_data(ortapp *app, OrtValue *value, size_t *bytes);

/* ONNX backend-test comparison of `got` (of `expected`'s type and size) with `expected`: floating types within
 * |got - expected| <= atol + rtol * |expected| (NaN matches NaN), the others exactly. 0 when they match; else
 * `why` says where. */
int kc_compare(const onnx_tensor *expected, const void *got, double rtol, double atol, char *why, size_t why_len);

/* A copy of the serialized ModelProto `model` in which the graph inputs named `names[i]` become initializers
 * holding the serialized TensorProtos `tensors[i]` (as libonnx-testdata stores them, e.g. input_1.pb): their
 * values become constants of the graph, which is how real models carry shapes, scales and pads. *out is malloc'd.
 * 0 on success. */
int kc_freeze_inputs(const uint8_t *model, size_t len, const char *const *names, const uint8_t *const *tensors,
                     const size_t *tensor_lens, int count, uint8_t **out, size_t *out_len);

/* A copy of the serialized ModelProto `model` that runs in float16: FLOAT initializers, Constant (and other tensor)
 * attributes, graph inputs, outputs and value_info become FLOAT16 (values rounded to nearest even), and Cast's
 * to = FLOAT becomes FLOAT16. Resize's roi and scales stay float, with the initializers, Constant nodes and graph
 * inputs that provide them (ONNX types scales as tensor(float) only). BatchNormalization's constant variance is
 * folded into its scale (a trained variance may exceed float16's range). Fails (nonzero) on malformed input and
 * on what it would leave half converted: subgraphs, sparse or external tensors, Constant's value_float(s). *out is
 * malloc'd. 0 on success. */
int kc_model_to_float16(const uint8_t *model, size_t len, uint8_t **out, size_t *out_len);

/* A real model fetched by scripts/fetch-models.sh: `file` in $ORTVK_MODELS_DIR, else in `default_dir`. 0 with
 * *model malloc'd; 77 (ctest's skip) after printing "SKIP: ..." when it is not there. */
int kc_load_model(const char *default_dir, const char *file, uint8_t **model, size_t *len);

/* Whether `device` is a CPU (ORTVK_META_DEVICE_TYPE "cpu": lavapipe): its kernels take the CPU forms unless
 * ORTVK_KERNEL_FORMS says otherwise (docs/kernels.md, "Forms per device"). */
bool kc_device_is_cpu(ortapp *app, const OrtEpDevice *device);
/* Whether ortvk's kernels on `device` may flush float32 subnormals to zero: ORTVK_META_FLOAT_CONTROLS ends with
 * "float32_subnormals:exact" (a GPU that does not promise to keep them, NVIDIA's; or ORTVK_SUBNORMALS=exact, as on
 * lavapipe made to flush by tests/support/flush_subnormals.c). ortvk then takes subnormal operands exactly where a
 * flushed one would change an answer, and tests compare results below FLT_MIN as zero (docs/kernels.md,
 * "Subnormals"). */
bool kc_device_flushes_subnormals(ortapp *app, const OrtEpDevice *device);
/* `v`, or a zero of its sign where it is subnormal. */
float kc_flush_subnormal(float v);

/* The element count of a shape of `rank` dims. */
size_t kc_count(const int64_t *dims, int rank);

/* The tests' deterministic values: a 32-bit linear congruential generator advanced once a call. kc_rand_bits
 * returns its top 24 bits, kc_rand_float those as a float in [-1, 1). */
uint32_t kc_rand_bits(uint32_t *state);
float kc_rand_float(uint32_t *state);

/* Float16 and bfloat16 bit patterns as floats, and a float rounded to the nearest float16 (ties to even). */
float kc_half_to_float(uint16_t h);
uint16_t kc_float_to_half(float f);
float kc_bfloat_to_float(uint16_t h);

#endif
