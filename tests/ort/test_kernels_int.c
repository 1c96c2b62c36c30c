/* Integer data on the device: the comparisons of int32 and int64 tensors that are data, not shapes (graph inputs, as
 * Silero VAD's sample rate is), in a strict session (every node on ortvk) against ORT's CPU EP, output for output.
 * The int64 values differ in one 32-bit half only, cross zero and reach INT64_MIN/INT64_MAX, so a comparison of the
 * wrong half, of unsigned high words or of signed low words gives another answer. */
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
        printf("%s: %zu ops x %d pairs, same as the CPU EP\n", name, N_OPS, COUNT);
    }
    kc_pair_release(app, want, got, N_OPS);
    for (int i = 0; i < 2; i++)
        if (inputs[i]) app->api->ReleaseValue(inputs[i]);
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
    return test_finish(&app, "test_kernels_int");
}
