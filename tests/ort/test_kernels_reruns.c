/* Runs of one session that change what they are given: a batch dim that grows and shrinks, new input values each
 * run, inputs in host memory and in ortvk memory, earlier outputs still held. Each run's output must be the CPU
 * EP's for that run's input (a kernel, copy or buffer reused with the last run's shapes or data would not be). */
#include <math.h>
#include <stdlib.h>

#include "kernel_check.h"

#define F 16

static void weights(onnx_model *m, const char *name, int rank, const int64_t *dims, float scale, unsigned seed)
{
    size_t n = kc_count(dims, rank);
    float *v = malloc(n * sizeof(float));
    for (size_t i = 0; i < n; i++) v[i] = (float)((int)((i + seed) * 37 % 29) - 14) * scale;
    onnx_model_add_initializer(m, name, ONNX_FLOAT, rank, dims, v, n * sizeof(float));
    free(v);
}

/* x [B, 16] (B symbolic) -> Gemm -> Relu -> Gemm -> Add x -> Sigmoid -> y: fused and unfused nodes, a value read
 * twice, a graph input read inside the partition. */
static int build(uint8_t **model, size_t *len)
{
    int64_t xd[2] = {-1, F}, wd[2] = {F, F}, bd[1] = {F};
    onnx_model *m = onnx_model_new(13);
    onnx_model_add_input(m, "x", ONNX_FLOAT, 2, xd);
    onnx_model_add_output(m, "y", ONNX_FLOAT, 2, xd);
    weights(m, "w1", 2, wd, 0.03f, 1), weights(m, "b1", 1, bd, 0.05f, 2);
    weights(m, "w2", 2, wd, 0.04f, 3), weights(m, "b2", 1, bd, 0.02f, 4);
    const char *g1[] = {"x", "w1", "b1"}, *g2[] = {"r", "w2", "b2"}, *add[] = {"h", "x"};
    const char *t[] = {"t"}, *r[] = {"r"}, *h[] = {"h"}, *s[] = {"s"}, *y[] = {"y"};
    const char *relu_in[] = {"t"}, *sig_in[] = {"s"};
    onnx_model_add_node(m, "Gemm", g1, 3, t, 1);
    onnx_model_add_node(m, "Relu", relu_in, 1, r, 1);
    onnx_model_add_node(m, "Gemm", g2, 3, h, 1);
    onnx_model_add_node(m, "Add", add, 2, s, 1);
    onnx_model_add_node(m, "Sigmoid", sig_in, 1, y, 1);
    return test_model_serialize(m, "reruns", model, len);
}

/* Run `k` of a sequence: batch `b`, values from `k`; ortvk's input in host memory or copied into ortvk memory
 * first. Returns ortvk's output (to hold on to) after comparing it with the CPU EP's. */
static OrtValue *run_once(ortapp *app, const OrtEpDevice *device, const kc_pair *pair, int k, int64_t b,
                          bool on_device)
{
    int64_t dims[2] = {b, F};
    size_t n = (size_t)b * F;
    float *x = malloc(n * sizeof(float));
    for (size_t i = 0; i < n; i++) x[i] = sinf((float)(i * 7 + (size_t)k * 131)) * 3.0f;
    OrtValue *host = test_host_tensor(app, x, n, 2, dims), *dev = NULL;
    if (on_device) {
        dev = test_device_tensor(app, device, 2, dims);
        ORT_OK(app, test_copy(app, host, dev, NULL));
    }
    const char *in[] = {"x"}, *out[] = {"y"};
    OrtValue *want = NULL, *got = NULL;
    if (kc_pair_run(app, pair, in, &host, on_device ? &dev : NULL, 1, out, 1, &want, &got)) {
        size_t wb = 0, gb = 0;
        float *w = kc_host_data(app, want, &wb), *g = kc_host_data(app, got, &gb);
        size_t bad = 0;
        for (size_t i = 0; w && g && wb == gb && i < wb / sizeof(float); i++)
            bad += !(fabsf(w[i] - g[i]) <= 1e-6f + 1e-4f * fabsf(w[i]));
        CHECK(w && g && wb == n * sizeof(float) && gb == wb && bad == 0,
              "run %d (batch %lld, input in %s memory): %zu of %zu values differ from the CPU EP's", k, (long long)b,
              on_device ? "ortvk" : "host", bad, n);
        free(w), free(g);
    }
    app->api->ReleaseValue(want);
    if (dev) app->api->ReleaseValue(dev);
    app->api->ReleaseValue(host);
    free(x);
    return got;
}

int main(void)
{
    ortapp app;
    const OrtEpDevice *device;
    test_open(&app, &device);
    uint8_t *model = NULL;
    size_t len = 0;
    kc_pair pair;
    if (build(&model, &len) && kc_pair_open(&app, device, model, len, NULL, 0, true, "reruns", &pair)) {
        static const int64_t batches[] = {1, 3, 3, 1, 7, 7, 2, 64, 3, 1};
        enum { RUNS = sizeof(batches) / sizeof(batches[0]) };
        OrtValue *held[RUNS] = {0};
        for (int k = 0; k < RUNS; k++) held[k] = run_once(&app, device, &pair, k, batches[k], k % 3 == 2);
        /* The same shape many times over, new values each run (the steady state of a served model). */
        for (int k = RUNS; k < RUNS + 40; k++) {
            OrtValue *got = run_once(&app, device, &pair, k, 5, k % 2 == 0);
            if (got) app.api->ReleaseValue(got);
        }
        for (int k = 0; k < RUNS; k++) {
            if (held[k]) app.api->ReleaseValue(held[k]);
        }
        kc_pair_close(&app, &pair);
        printf("%d runs of one session, batch 1 to 64, inputs in host and ortvk memory: as the CPU EP\n", RUNS + 40);
    }
    free(model);
    return test_finish(&app, "test_kernels_reruns");
}
