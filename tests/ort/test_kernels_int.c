/* Integer data on the device, in strict sessions (every node on ortvk) against ORT's CPU EP: the comparisons of int32
 * and int64 tensors that are data, not shapes (graph inputs, as Silero VAD's sample rate is), output for output —
 * the int64 values differ in one 32-bit half only, cross zero and reach INT64_MIN/INT64_MAX, so a comparison of the
 * wrong half, of unsigned high words or of signed low words gives another answer — and Gather with indices given at
 * run time (token ids into an embedding table), where an index out of range fails the run naming it. */
#include <string.h>

#include "kernel_check.h"

#define COUNT 12

static const char *const ops[] = {"Equal", "Greater", "Less", "GreaterOrEqual", "LessOrEqual"};
#define N_OPS (sizeof(ops) / sizeof(ops[0]))

/* One model: a and b of `type` [COUNT], and one bool output per comparison ("y0".."y4"). */
static int build(int32_t type, uint8_t **model, size_t *len)
{
    onnx_model *m = onnx_model_new(16);
    int64_t dims[1] = {-1}; /* symbolic: nothing is known before the run */
    onnx_model_add_input(m, "a", type, 1, dims);
    onnx_model_add_input(m, "b", type, 1, dims);
    static const char *in[] = {"a", "b"};
    static const char *out[N_OPS] = {"y0", "y1", "y2", "y3", "y4"};
    for (size_t k = 0; k < N_OPS; k++) {
        onnx_model_add_node(m, ops[k], in, 2, &out[k], 1);
        onnx_model_add_output(m, out[k], ONNX_BOOL, 1, dims);
    }
    return test_model_serialize(m, "integer comparisons", model, len);
}

static void check(ortapp *app, const OrtEpDevice *device, int32_t type, void *a, void *b)
{
    uint8_t *model = NULL;
    size_t len = 0;
    kc_pair pair;
    const char *name = type == ONNX_INT64 ? "int64 comparisons" : "int32 comparisons";
    if (!build(type, &model, &len) || !kc_pair_open(app, device, model, len, NULL, 0, true, name, &pair)) {
        free(model);
        return;
    }
    int64_t dims[1] = {COUNT};
    OrtValue *inputs[2] = {test_host_tensor_of(app, a, (ONNXTensorElementDataType)type, COUNT, 1, dims),
                           test_host_tensor_of(app, b, (ONNXTensorElementDataType)type, COUNT, 1, dims)};
    const char *in_names[] = {"a", "b"}, *out_names[N_OPS] = {"y0", "y1", "y2", "y3", "y4"};
    OrtValue *want[N_OPS], *got[N_OPS];
    if (CHECK(inputs[0] && inputs[1], "%s: inputs", name) &&
        kc_pair_run(app, &pair, in_names, inputs, NULL, 2, out_names, N_OPS, want, got)) {
        for (size_t k = 0; k < N_OPS; k++) {
            size_t want_bytes = 0, got_bytes = 0;
            uint8_t *x = kc_host_data(app, want[k], &want_bytes), *y = kc_host_data(app, got[k], &got_bytes);
            bool same = x && y && want_bytes == COUNT && got_bytes == COUNT && memcmp(x, y, COUNT) == 0;
            size_t at = 0;
            while (x && y && at + 1 < COUNT && at < got_bytes && x[at] == y[at]) at++;
            CHECK(same, "%s: %s differs from the CPU EP (first at %zu: %d vs %d)", name, ops[k], at,
                  y && at < got_bytes ? y[at] : -1, x && at < want_bytes ? x[at] : -1);
            free(x);
            free(y);
        }
        printf("%s: %zu ops x %d pairs compared\n", name, N_OPS, COUNT);
    }
    kc_pair_release(app, want, got, N_OPS);
    for (int i = 0; i < 2; i++)
        if (inputs[i]) app->api->ReleaseValue(inputs[i]);
    kc_pair_close(app, &pair);
    free(model);
}

/* Embedding lookup: table [V, D] float, ids [B, T] int64 (a graph input), y = table[ids] of [B, T, D]. */
static void check_gather(ortapp *app, const OrtEpDevice *device)
{
    /* 140 ids: more than ortvk keeps as parameters; a table too large for the host-evaluated Gather (the device
     * gather shader runs) */
    enum { V = 6000, D = 12, B = 2, T = 70 };
    onnx_model *m = onnx_model_new(13);
    int64_t table_dims[2] = {V, D}, id_dims[2] = {-1, -1}, y_dims[3] = {-1, -1, D};
    static float table[V * D];
    for (int i = 0; i < V * D; i++) table[i] = (float)(i % 1000) * 0.25f - 7.0f;
    onnx_model_add_initializer(m, "table", ONNX_FLOAT, 2, table_dims, table, sizeof(table));
    onnx_model_add_input(m, "ids", ONNX_INT64, 2, id_dims);
    onnx_model_add_output(m, "y", ONNX_FLOAT, 3, y_dims);
    const char *in[] = {"table", "ids"}, *out[] = {"y"};
    onnx_model_add_node(m, "Gather", in, 2, out, 1);
    uint8_t *model = NULL;
    size_t len = 0;
    kc_pair pair;
    if (!test_model_serialize(m, "Gather", &model, &len) ||
        !kc_pair_open(app, device, model, len, NULL, 0, true, "Gather with run-time indices", &pair)) {
        free(model);
        return;
    }
    int64_t ids[B * T], dims[2] = {B, T};
    for (int i = 0; i < B * T; i++) ids[i] = (i * 3037 + 11) % V - (i % 3 == 0 ? V : 0); /* negative ones too */
    OrtValue *input = test_host_tensor_of(app, ids, ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64, B * T, 2, dims);
    const char *in_names[] = {"ids"}, *out_names[] = {"y"};
    OrtValue *want[1], *got[1];
    if (CHECK(input != NULL, "ids") && kc_pair_run(app, &pair, in_names, &input, NULL, 1, out_names, 1, want, got)) {
        size_t want_bytes = 0, got_bytes = 0;
        float *x = kc_host_data(app, want[0], &want_bytes), *y = kc_host_data(app, got[0], &got_bytes);
        if (CHECK(x && y && want_bytes == sizeof(float) * B * T * D && got_bytes == want_bytes &&
                      memcmp(x, y, want_bytes) == 0,
                  "Gather of %d ids: differs from the CPU EP", B * T))
            printf("Gather of %d run-time ids from [%d, %d]: same as the CPU EP\n", B * T, V, D);
        free(x);
        free(y);
    }
    kc_pair_release(app, want, got, 1);
    /* An id past the table: the CPU EP fails the run, and so must ortvk, naming the index. */
    ids[B * T - 1] = V;
    OrtValue *output = NULL;
    ORT_FAILS(app, app->api->Run(pair.vk, NULL, in_names, (const OrtValue *const *)&input, 1, out_names, 1, &output),
              ORT_INVALID_ARGUMENT, "out of range");
    if (output) app->api->ReleaseValue(output);
    if (input) app->api->ReleaseValue(input);
    kc_pair_close(app, &pair);
    free(model);
}

int main(void)
{
    ortapp app;
    const OrtEpDevice *device;
    test_open(&app, &device);
    const int64_t hi = INT64_C(1) << 32;
    int64_t a64[COUNT] = {0, -1, hi, hi + 1, -hi, 5, INT64_MIN, INT64_MAX, -1, 16000, 7 * hi + 3, INT64_MIN + 1};
    int64_t b64[COUNT] = {0, 0, hi + 1, hi, hi, 5 + hi, INT64_MAX, INT64_MIN, 0xffffffff, 16000, 3 * hi + 7, -1};
    int32_t a32[COUNT] = {0, -1, 1, INT32_MIN, INT32_MAX, 5, -7, 100, -100, 16000, 3, 65536};
    int32_t b32[COUNT] = {0, 0, -1, INT32_MAX, INT32_MIN, 5, -8, 100, 100, 8000, 4, -65536};
    check(&app, device, ONNX_INT64, a64, b64);
    check(&app, device, ONNX_INT32, a32, b32);
    check_gather(&app, device);
    return test_finish(&app, "test_kernels_int");
}
