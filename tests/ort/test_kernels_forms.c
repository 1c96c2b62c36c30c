/* The forms ortvk's kernels take per device (ORTVK_KERNEL_FORMS; docs/kernels.md, "Forms per device"), each tested
 * on whatever device runs the suite: the reductions, Softmax, the normalizations and GlobalAveragePool as one
 * invocation an output (CPU devices) and as one workgroup a row (GPUs); the matrix products (MatMul, Gemm, Conv) in
 * register tiles or in tiles through shared memory; the strided copy in runs or one element an invocation. Each form
 * is checked to be the one that ran, through rows whose sums depend on the order (2^24 then 255 ones: in order each
 * 1 is lost), against a host emulation of that form's order bit for bit where it can, or by the pipeline ortvk's
 * profile names; and every case against ORT's CPU EP within ONNX's tolerance, NaN and infinities included. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel_check.h"
#include "ortvk.h"

#define FORMS_ENV "ORTVK_KERNEL_FORMS"

/* y = op(x) over the last axis (a Reduce* op, keepdims 1, or Softmax, LogSoftmax), or GlobalAveragePool. */
static onnx_model *reduce_model(const char *op, int rank, const int64_t *dims)
{
    onnx_model *m = onnx_model_new(18);
    onnx_model_add_input(m, "x", ONNX_FLOAT, rank, dims);
    onnx_model_add_output(m, "y", ONNX_FLOAT, -1, NULL);
    const char *in[2] = {"x", "axes"}, *out[1] = {"y"};
    bool global = strcmp(op, "GlobalAveragePool") == 0, softmax = strstr(op, "Softmax") != NULL;
    if (!global && !softmax) {
        int64_t axes[1] = {rank - 1}, one = 1;
        onnx_model_add_initializer(m, "axes", ONNX_INT64, 1, &one, axes, sizeof(axes));
    }
    onnx_model_add_node(m, op, in, global || softmax ? 1 : 2, out, 1); /* Softmax-13: the last axis */
    return m;
}

/* Runs `m` (freed) on x: on ortvk with the given forms (every node there; "" the device's own), or on the CPU EP
 * when `forms` is NULL; ortvk's profile written to `profile` where that is not NULL. With `half`, the model, x and
 * y are converted to float16 (kc_model_to_float16) on the way. The output's values as floats (malloc'd, *count of
 * them), or NULL after a FAIL line. */
static float *run_typed(ortapp *app, const OrtEpDevice *device, const char *forms, onnx_model *m, const float *x,
                        int rank, const int64_t *dims, size_t *count, const char *profile, bool half)
{
    const OrtApi *api = app->api;
    uint8_t *model = NULL, *model16 = NULL;
    size_t len = 0, len16 = 0;
    *count = 0;
    if (!test_model_serialize(m, "reduce model", &model, &len)) return NULL;
    if (half) {
        bool converted = kc_model_to_float16(model, len, &model16, &len16) == 0;
        free(model);
        if (!CHECK(converted, "a model converted to float16")) return NULL;
        model = model16, len = len16;
    }
    /* The kernels' state, and with it the forms, is made with a device's first session and read from the
     * environment then: each session here is the only one open. */
    if (forms && forms[0]) setenv(FORMS_ENV, forms, 1);
    if (profile) setenv("ORTVK_PROFILE", profile, 1);
    OrtStatus *error = NULL;
    OrtSession *s = kc_session(app, forms ? device : NULL, model, len, forms != NULL, false, &error);
    unsetenv(FORMS_ENV);
    unsetenv("ORTVK_PROFILE");
    free(model);
    const char *msg = error ? api->GetErrorMessage(error) : "";
    if (!CHECK(s != NULL, "session (forms %s): %s", forms ? forms : "CPU EP", msg)) {
        if (error) api->ReleaseStatus(error);
        return NULL;
    }
    size_t n = kc_count(dims, rank);
    uint16_t *x16 = half ? malloc((n ? n : 1) * sizeof(uint16_t)) : NULL;
    for (size_t i = 0; x16 != NULL && i < n; i++) x16[i] = kc_float_to_half(x[i]);
    OrtValue *in = half ? test_host_tensor_of(app, x16, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16, n, rank, dims)
                        : test_host_tensor(app, (float *)x, n, rank, dims);
    OrtValue *y = NULL;
    const char *in_names[] = {"x"}, *out_names[] = {"y"};
    ORT_OK(app, api->Run(s, NULL, in_names, (const OrtValue *const *)&in, 1, out_names, 1, &y));
    size_t bytes = 0;
    void *data = y ? kc_host_data(app, y, &bytes) : NULL;
    *count = bytes / (half ? sizeof(uint16_t) : sizeof(float));
    float *result = half && data ? malloc((*count ? *count : 1) * sizeof(float)) : data;
    for (size_t i = 0; half && result != NULL && i < *count; i++) result[i] = kc_half_to_float(((uint16_t *)data)[i]);
    if (half) free(data);
    if (y) api->ReleaseValue(y);
    api->ReleaseValue(in);
    api->ReleaseSession(s);
    free(x16);
    return result;
}

static float *run_profiled(ortapp *app, const OrtEpDevice *device, const char *forms, onnx_model *m, const float *x,
                           int rank, const int64_t *dims, size_t *count, const char *profile)
{
    return run_typed(app, device, forms, m, x, rank, dims, count, profile, false);
}

static float *run(ortapp *app, const OrtEpDevice *device, const char *forms, onnx_model *m, const float *x, int rank,
                  const int64_t *dims, size_t *count)
{
    return run_profiled(app, device, forms, m, x, rank, dims, count, NULL);
}

static bool close_to(float want, float got)
{
    if (isnan(want) || isnan(got)) return isnan(want) && isnan(got);
    if (isinf(want) || isinf(got)) return want == got;
    return fabs((double)want - (double)got) <= 1e-5 + 1e-4 * fabs((double)want);
}

/* The sum of a row as one invocation adds it: in order (x[0] + x[1] + ...). */
static float sum_in_order(const float *x, size_t n)
{
    float acc = 0.0f;
    for (size_t i = 0; i < n; i++) acc += x[i];
    return acc;
}

/* The sum of a row as a workgroup of 64 adds it (kernel_reduce.comp's rows form): invocation t adds vec4 t,
 * t + 64, ... in order (a row of whole vec4s at a 16-byte offset), its lanes in order, then the 64 results meet in
 * a tree, partial[t] += partial[t + s] for s = 32, 16, ..., 1. */
static float sum_as_rows(const float *x, size_t n)
{
    float partial[64];
    size_t vec4s = n / 4;
    for (size_t t = 0; t < 64; t++) {
        float acc = 0.0f;
        for (size_t q = t; q < vec4s; q += 64) acc = (((acc + x[4 * q]) + x[4 * q + 1]) + x[4 * q + 2]) + x[4 * q + 3];
        partial[t] = acc;
    }
    for (size_t s = 32; s > 0; s >>= 1) {
        for (size_t t = 0; t < s; t++) partial[t] += partial[t + s];
    }
    return partial[0];
}

/* Which form ran, told by the order of a sum: rows of 256, the first 2^24 then ones, the second ordinary values.
 * ReduceSum must equal the host's emulation of the form's order to the bit; both rows within tolerance of the CPU
 * EP. */
static void order_case(ortapp *app, const OrtEpDevice *device, const char *forms, bool rows)
{
    const int64_t dims[2] = {2, 256};
    float x[512];
    for (int i = 0; i < 512; i++) x[i] = i < 256 ? (i == 0 ? 16777216.0f : 1.0f) : (float)((i * 37) % 101) * 0.25f;
    size_t wn = 0, gn = 0;
    float *want = run(app, device, NULL, reduce_model("ReduceSum", 2, dims), x, 2, dims, &wn);
    float *got = run(app, device, forms, reduce_model("ReduceSum", 2, dims), x, 2, dims, &gn);
    if (CHECK(want && got && wn == 2 && gn == 2, "ReduceSum (forms %s): outputs of %zu and %zu values", forms, wn,
              gn)) {
        float order = rows ? sum_as_rows(x, 256) : sum_in_order(x, 256);
        CHECK(memcmp(&order, &got[0], sizeof(float)) == 0,
              "ReduceSum (forms %s): 2^24 + 255 ones gives %.9g, the %s form's order %.9g", forms, got[0],
              rows ? "workgroup" : "invocation", order);
        CHECK(close_to(want[0], got[0]) && close_to(want[1], got[1]),
              "ReduceSum (forms %s): %.9g, %.9g where the CPU EP gives %.9g, %.9g", forms, got[0], got[1], want[0],
              want[1]);
        printf("ReduceSum of 2^24 and 255 ones, forms %-4s %.9g (in order %.9g, exact 16777471, CPU EP %.9g)\n",
               forms, got[0], sum_in_order(x, 256), want[0]);
    }
    free(want);
    free(got);
}

/* GlobalAveragePool over 16x16 planes, the first 2^24 then ones: the invocation form follows MLAS's global kernel
 * to the bit; the workgroup form adds in its own order (the host's emulation, then / 256). */
static void pool_case(ortapp *app, const OrtEpDevice *device, const char *forms, bool rows)
{
    const int64_t dims[4] = {1, 3, 16, 16};
    float x[768];
    for (int i = 0; i < 768; i++) x[i] = i == 0 ? 16777216.0f : i < 256 ? 1.0f : (float)((i * 53) % 97) * -0.5f;
    size_t wn = 0, gn = 0;
    float *want = run(app, device, NULL, reduce_model("GlobalAveragePool", 4, dims), x, 4, dims, &wn);
    float *got = run(app, device, forms, reduce_model("GlobalAveragePool", 4, dims), x, 4, dims, &gn);
    if (CHECK(want && got && wn == 3 && gn == 3, "GlobalAveragePool (forms %s): outputs of %zu and %zu values",
              forms, wn, gn)) {
        float expect = rows ? sum_as_rows(x, 256) / 256.0f : want[0];
        CHECK(memcmp(&expect, &got[0], sizeof(float)) == 0,
              "GlobalAveragePool (forms %s): plane 0 gives %.9g where the %s form gives %.9g", forms, got[0],
              rows ? "workgroup" : "invocation (MLAS's order)", expect);
        for (int c = 0; c < 3; c++)
            CHECK(close_to(want[c], got[c]), "GlobalAveragePool (forms %s): plane %d %.9g, CPU EP %.9g", forms, c,
                  got[c], want[c]);
    }
    free(want);
    free(got);
}

/* A sum of few long rows on a GPU (kernel_math.c, reduce_chunks): each row in `parts` equal parts summed as
 * sum_as_rows does, then the parts' results in order, as one invocation adds them (fewer than 64 parts). With
 * `mean`, each part's mean, then the mean of those means. */
static float sum_in_parts(const float *x, size_t n, size_t parts, bool mean)
{
    float acc = 0.0f, len = (float)(n / parts);
    for (size_t c = 0; c < parts; c++) {
        float part = sum_as_rows(x + c * (n / parts), n / parts);
        acc += mean ? part / len : part;
    }
    return mean ? acc / (float)parts : acc;
}

/* Few long rows, the first 2^24 then sixteenths (in order each is lost; all of them are 6e-5 of the row's sum,
 * within tolerance): GlobalAveragePool over 3 planes of 128x128 and ReduceSum over 4 rows of 8,192. A GPU takes
 * them in parts of 1,024 (16 and 8), the CPU forms as before (MLAS's order, in order); each to the bit, and each
 * row within tolerance of the CPU EP. */
static void parts_case(ortapp *app, const OrtEpDevice *device, const char *forms, bool gpu)
{
    static const struct {
        const char *op;
        int rank;
        int64_t dims[4];
        size_t parts;
    } cases[] = {{"GlobalAveragePool", 4, {1, 3, 128, 128}, 16}, {"ReduceSum", 2, {4, 8192}, 8}};
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        bool mean = k == 0; /* GlobalAveragePool: a mean a plane; ReduceSum: a sum a row */
        size_t n = kc_count(cases[k].dims, cases[k].rank), wn = 0, gn = 0;
        size_t outs = (size_t)cases[k].dims[0] * (mean ? (size_t)cases[k].dims[1] : 1), R = n / outs;
        float *x = malloc(n * sizeof(float));
        if (!CHECK(x != NULL, "out of memory")) return;
        for (size_t i = 0; i < n; i++) x[i] = i == 0 ? 16777216.0f : i < R ? 0.0625f : (float)((i * 53) % 97) * -0.5f;
        float *want = run(app, device, NULL, reduce_model(cases[k].op, cases[k].rank, cases[k].dims), x,
                          cases[k].rank, cases[k].dims, &wn);
        float *got = run(app, device, forms, reduce_model(cases[k].op, cases[k].rank, cases[k].dims), x,
                         cases[k].rank, cases[k].dims, &gn);
        if (CHECK(want && got && wn == outs && gn == outs, "%s (forms %s): outputs of %zu and %zu values",
                  cases[k].op, forms, wn, gn)) {
            float in_order = mean ? want[0] : sum_in_order(x, R);
            float expect = gpu ? sum_in_parts(x, R, cases[k].parts, mean) : in_order;
            CHECK(memcmp(&expect, &got[0], sizeof(float)) == 0,
                  "%s (forms %s): row 0 gives %.9g where the %s gives %.9g", cases[k].op, forms, got[0],
                  gpu ? "workgroups a part" : "invocation form", expect);
            for (size_t o = 0; o < outs; o++)
                CHECK(close_to(want[o], got[o]), "%s (forms %s): row %zu %.9g, CPU EP %.9g", cases[k].op, forms, o,
                      got[o], want[o]);
            printf("%s of %zu rows of %zu, forms %-4s row 0 %.9g (CPU EP %.9g)\n", cases[k].op, outs, R, forms,
                   got[0], want[0]);
        }
        free(want), free(got), free(x);
    }
}

/* Softmax over a row of 0 then len - 1 values of -17: each exp(-17) is below half an ULP of 1, so the sum in order
 * is exactly 1 and the 0's output exactly 1; the workgroup form adds the small terms first and gives less than 1.
 * Rows of 1024 or more take the workgroup form on every device (kernel_math.c). */
static void softmax_order_case(ortapp *app, const OrtEpDevice *device, const char *forms, int len, bool rows)
{
    const int64_t dims[2] = {1, len};
    float *x = malloc((size_t)len * sizeof(float));
    if (!CHECK(x != NULL, "out of memory")) return;
    for (int i = 0; i < len; i++) x[i] = i == 0 ? 0.0f : -17.0f;
    size_t wn = 0, gn = 0;
    float *want = run(app, device, NULL, reduce_model("Softmax", 2, dims), x, 2, dims, &wn);
    float *got = run(app, device, forms, reduce_model("Softmax", 2, dims), x, 2, dims, &gn);
    if (CHECK(want && got && wn == (size_t)len && gn == wn, "Softmax (forms %s): %zu and %zu values", forms, wn, gn)) {
        CHECK(rows ? got[0] < 1.0f : got[0] == 1.0f, "Softmax over %d (forms %s): y[0] = %.9g, the %s form's order "
              "gives %s", len, forms, got[0], rows ? "workgroup" : "invocation", rows ? "less than 1" : "1");
        for (int i = 0; i < len; i++)
            if (!CHECK(close_to(want[i], got[i]), "Softmax (forms %s) [%d]: %.9g, CPU EP %.9g", forms, i, got[i],
                       want[i]))
                break;
        printf("Softmax of 0 and %d values of -17, forms %-4s y[0] = %.9g (CPU EP %.9g)\n", len - 1, forms, got[0],
               want[0]);
    }
    free(x);
    free(want);
    free(got);
}

/* Every reduction the workgroup form takes, rows of whole vec4s (300) and not (301, and 1501: Softmax's workgroup
 * form on every device), NaN, infinities and huge values among them, against the CPU EP. A reduction over a middle
 * axis stays one invocation an output. */
static void ops_case(ortapp *app, const OrtEpDevice *device, const char *forms)
{
    static const char *const ops[] = {"ReduceSum",    "ReduceMean",      "ReduceMax",       "ReduceMin",
                                      "ReduceL1",     "ReduceL2",        "ReduceSumSquare", "ReduceLogSum",
                                      "ReduceLogSumExp", "ReduceProd",   "Softmax",         "LogSoftmax"};
    const size_t n_ops = sizeof(ops) / sizeof(ops[0]);
    static const int lens[] = {300, 301, 1501};
    for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
        int len = lens[l];
        const int64_t dims[2] = {6, len};
        float *x = malloc(6 * (size_t)len * sizeof(float));
        for (int r = 0; r < 6; r++) {
            for (int i = 0; i < len; i++) {
                float v = 0.5f + (float)((r * 131 + i * 29) % 61) / 64.0f; /* (0.5, 1.45): products stay finite */
                if (r == 1 && i == 200) v = NAN;                          /* a NaN late in the row */
                if (r == 2 && i == 7) v = INFINITY;
                if (r == 3 && i == 150) v = -INFINITY;
                if (r == 4) v = i % 2 ? 80.0f : -3.0f;                    /* exp(80) overflows unless shifted */
                x[r * len + i] = v;
            }
        }
        for (size_t k = 0; k < n_ops; k++) {
            size_t wn = 0, gn = 0, per_row = strstr(ops[k], "Softmax") ? (size_t)len : 1;
            float *want = run(app, device, NULL, reduce_model(ops[k], 2, dims), x, 2, dims, &wn);
            float *got = run(app, device, forms, reduce_model(ops[k], 2, dims), x, 2, dims, &gn);
            if (CHECK(want && got && wn == 6 * per_row && gn == wn, "%s over %d (forms %s): %zu and %zu values",
                      ops[k], len, forms, wn, gn)) {
                size_t bad = 0, first = 0;
                for (size_t i = 0; i < wn; i++) {
                    /* Max and Min over a NaN: NaN by ortvk's choice (docs/kernels.md), where the CPU EP keeps or
                     * drops it by its place in the row. */
                    bool nan_by_choice = i / per_row == 1 && (strstr(ops[k], "Max") || strstr(ops[k], "Min"));
                    if (!(nan_by_choice ? isnan(got[i]) : close_to(want[i], got[i])) && bad++ == 0) first = i;
                }
                CHECK(bad == 0, "%s over %d (forms %s): %zu values differ, first [%zu]: %.9g where the CPU EP gives "
                      "%.9g", ops[k], len, forms, bad, first, got[first], want[first]);
            }
            free(want);
            free(got);
        }
        free(x);
    }
    /* Axis 1 of [2, 100, 3]: strided rows. */
    const int64_t dims[3] = {2, 100, 3};
    float x[600];
    for (int i = 0; i < 600; i++) x[i] = (float)((i * 17) % 23) - 11.0f;
    onnx_model *models[2];
    for (int k = 0; k < 2; k++) {
        models[k] = onnx_model_new(18);
        onnx_model_add_input(models[k], "x", ONNX_FLOAT, 3, dims);
        onnx_model_add_output(models[k], "y", ONNX_FLOAT, -1, NULL);
        int64_t axes[1] = {1}, one = 1;
        onnx_model_add_initializer(models[k], "axes", ONNX_INT64, 1, &one, axes, sizeof(axes));
        const char *in[2] = {"x", "axes"}, *out[1] = {"y"};
        onnx_model_add_node(models[k], "ReduceMean", in, 2, out, 1);
    }
    size_t wn = 0, gn = 0;
    float *want = run(app, device, NULL, models[0], x, 3, dims, &wn);
    float *got = run(app, device, forms, models[1], x, 3, dims, &gn);
    if (CHECK(want && got && wn == 6 && gn == 6, "ReduceMean over a middle axis (forms %s)", forms)) {
        for (int i = 0; i < 6; i++)
            CHECK(close_to(want[i], got[i]), "ReduceMean over a middle axis (forms %s) [%d]: %.9g, CPU EP %.9g",
                  forms, i, got[i], want[i]);
    }
    free(want);
    free(got);
    printf("forms %-4s: 10 reductions, Softmax and LogSoftmax over rows of 300 and 301, and a reduction over a "
           "middle axis agree with the CPU EP\n", forms);
}

/* A matrix product: MatMul(x, B), Gemm(x, B, C) or Conv(x, W, bias), B and C constants; `shader` the one whose
 * tiles the GPU form runs ("gemm", or "conv" for a Conv that is not pointwise). */
typedef struct gemm_case {
    const char *what, *op, *shader;
    int x_rank, b_rank, c_rank; /* c_rank 0: no C */
    int64_t x[4], b[4], c[2];
    int trans_a, trans_b;
    float alpha, beta;
    int64_t strides[2], pads[4], dilations[2], group; /* Conv's, where not 0 */
    int cpu_form; /* CPU devices: the form expected (gemm_cpu_form), or 0 for any */
    int gpu_slices; /* GPUs: TILES_SLICED where the tiles must sum K in slices, TILES_WHOLE where they must not */
} gemm_case;

/* What a case expects of a GPU's Conv tiles (gpu_slices): few tiles over a long K in slices of it, the sum after
 * them (the conv shader's variant 6, "conv.192"); many tiles, or a short K, in one pass. */
enum { TILES_ANY, TILES_SLICED, TILES_WHOLE };

/* Forms a case expects on CPU devices, told by the function the profile names. */
enum gemm_cpu_form {
    B_ODD = 1, /* gemm: the fast form reading B element by element (fn % 32 / 8 == 2) */
    Y_ODD,     /* gemm: the fast form reading B padded to whole vec4s, storing y element by element (/ 8 == 1) */
    SLICED,    /* conv: packed weights in slices (variant 5: fn / 32) */
    ROWS,      /* conv: packed weights, input rows read as vec4 (fn % 32 with bit 3), not in slices */
    GEMM_ANY,  /* gemm: any of its forms (a Conv of one pixel, whatever its channels) */
    NARROW,    /* conv: the general loops over 4 output columns an invocation (variant 2), weights packed or not */
    COLUMNS,   /* gemm: the fast form reading B's columns along k (its LAYOUT 2: fn / 32 % 3), y as vec4 */
    COLUMNS_ODD, /* gemm: the same, y stored element by element (Y_ODD: fn % 32 / 8 == 1) */
    FEW,       /* gemm: the fast form's 8 x 4 blocks (FAST 6), for outputs of at most 4 columns */
};

/* The gemm shader's FAST (its function % 8): 1-4 and 6 are a CPU's register-tiled forms. */
static bool gemm_fast_form(long fn)
{
    return (fn % 8 >= 1 && fn % 8 <= 4) || fn % 8 == 6;
}

static bool cpu_form_is(int form, long fn)
{
    switch (form) {
    case B_ODD: return fn % 32 / 8 == 2 && gemm_fast_form(fn);
    case Y_ODD: return fn % 32 / 8 == 1 && gemm_fast_form(fn);
    case SLICED: return fn / 32 == 5;
    case ROWS: return fn / 32 != 5 && (fn % 32 & 8) != 0;
    case GEMM_ANY: return fn >= 0;
    case NARROW: return fn / 32 == 2;
    case COLUMNS: return fn / 32 % 3 == 2 && fn % 32 / 8 == 0 && gemm_fast_form(fn);
    case COLUMNS_ODD: return fn / 32 % 3 == 2 && fn % 32 / 8 == 1 && gemm_fast_form(fn);
    case FEW: return fn % 8 == 6;
    default: return true;
    }
}

/* Deterministic values in [-1, 1). */
static float *gemm_values(size_t n, uint32_t seed)
{
    float *v = malloc((n ? n : 1) * sizeof(float));
    for (size_t i = 0; v && i < n; i++) v[i] = kc_rand_float(&seed);
    return v;
}

static onnx_model *gemm_model(const gemm_case *c, const float *b, const float *bias)
{
    onnx_model *m = onnx_model_new(13);
    onnx_model_add_input(m, "x", ONNX_FLOAT, c->x_rank, c->x);
    onnx_model_add_output(m, "y", ONNX_FLOAT, -1, NULL);
    onnx_model_add_initializer(m, "b", ONNX_FLOAT, c->b_rank, c->b, b, kc_count(c->b, c->b_rank) * sizeof(float));
    if (c->c_rank > 0)
        onnx_model_add_initializer(m, "c", ONNX_FLOAT, c->c_rank, c->c, bias,
                                   kc_count(c->c, c->c_rank) * sizeof(float));
    const char *in[3] = {"x", "b", "c"}, *out[1] = {"y"};
    onnx_node *n = onnx_model_add_node(m, c->op, in, c->c_rank > 0 ? 3 : 2, out, 1);
    if (strcmp(c->op, "Gemm") == 0) {
        onnx_node_attr_int(n, "transA", c->trans_a);
        onnx_node_attr_int(n, "transB", c->trans_b);
        onnx_node_attr_float(n, "alpha", c->alpha);
        onnx_node_attr_float(n, "beta", c->beta);
    }
    int spatial = c->x_rank - 2;
    if (c->strides[0]) onnx_node_attr_ints(n, "strides", c->strides, spatial);
    if (c->dilations[0]) onnx_node_attr_ints(n, "dilations", c->dilations, spatial);
    if (c->pads[0] || c->pads[1]) onnx_node_attr_ints(n, "pads", c->pads, 2 * spatial);
    if (c->group) onnx_node_attr_int(n, "group", c->group);
    return m;
}

/* The pipelines of the profile's event of the node (op `op`), "<shader>.<fn> ..." ("" if none), into list. */
static void node_pipelines(const char *path, const char *op, char *list, size_t size)
{
    char *text = test_read_text(path);
    list[0] = '\0';
    if (text != NULL) kc_profile_events(text, op, NULL, list, size);
    free(text);
}

/* The function of `shader` in the profile's event of the node (op `op`): its first pipeline, "<shader>.<fn>"; -1
 * if none. */
static long shader_function(const char *path, const char *op, const char *shader)
{
    char list[128], prefix[48];
    node_pipelines(path, op, list, sizeof(list));
    snprintf(prefix, sizeof(prefix), "%s.", shader);
    return strncmp(list, prefix, strlen(prefix)) == 0 ? strtol(list + strlen(prefix), NULL, 10) : -1;
}

/* Whether function `fn` of the gemm or conv shader is its tiles: gemm's 5 plus a multiple of 32 (ORTVK_KVARIANT,
 * C's forms), conv's variant 4 (its constant 1, fn / 32). */
static bool tiles_function(const char *shader, long fn)
{
    if (fn < 0) return false;
    return strcmp(shader, "gemm") == 0 ? fn % 32 == 5 : fn / 32 == 4;
}

/* The element type of input `index` of the profile's first node event ("float16", "float"; "" if none): its
 * "inputs" list is "<dims> <type>, <dims> <type>, ...". */
static void node_input_type(const char *path, int index, char *type, size_t size)
{
    static const char key[] = "\"inputs\": \"";
    char *text = test_read_text(path);
    const char *list = text ? strstr(text, key) : NULL, *at = list ? list + strlen(key) : NULL;
    const char *end = at ? at + strcspn(at, "\"") : NULL;
    for (int i = 0; at != NULL && i < index; i++) {
        at = memchr(at, ',', (size_t)(end - at));
        at = at != NULL && end - at > 2 ? at + 2 : NULL;
    }
    const char *space = at ? memchr(at, ' ', (size_t)(end - at)) : NULL;
    type[0] = '\0';
    if (space != NULL) snprintf(type, size, "%.*s", (int)strcspn(space + 1, ",\""), space + 1);
    free(text);
}

/* Values of the float16 pass: multiples of `step` from -half_range * step to +half_range * step, exact in float16;
 * x's of 1/4 (up to 1.5) and B's of 1/8 (up to 0.5) make products of 1/32 and sums exact in float32 in any order
 * (below 2^19), so that every form and the CPU EP round the same sum to float16. */
static float *exact_values(size_t n, uint32_t seed, int half_range, float step)
{
    float *v = malloc((n ? n : 1) * sizeof(float));
    for (size_t i = 0; v && i < n; i++)
        v[i] = (float)((int)((i * 7 + seed) % (uint32_t)(2 * half_range + 1)) - half_range) * step;
    return v;
}

/* The matrix products' forms: register tiles or a generic form (CPU devices; a pointwise Conv whose pixels are not a
 * multiple of 4 then takes the conv shader) or tiles through shared memory (GPUs), told apart by the pipeline the
 * profile names; each against the CPU EP. Shapes of no multiple of 4 or of the tile, broadcast batches, both
 * transposes, each form of C, Convs pointwise and not (pads, strides, dilations, 1-D, groups, weights packed or not,
 * two images), a NaN, and K past lavapipe's loop cap. With `half`, each again in float16 with exact values (the
 * float16 variant's reads of every form), bit for bit as the CPU EP's; the CPU forms then read the weights (B, W) as
 * float32, widened at Compile, the GPU forms as float16: the profile shows which. Without `texels`
 * (ORTVK_TEXEL_READS=off), every operand is read from its storage buffer, as where a texel view cannot cover it. */
static void gemm_forms_case(ortapp *app, const OrtEpDevice *device, const char *forms, bool half, bool texels)
{
    static const gemm_case cases[] = {
#define MATMUL(what, xr, br, ...) \
    {what, "MatMul", "gemm", xr, br, 0, __VA_ARGS__, {0}, 0, 0, 1.0f, 1.0f, {0}, {0}, {0}, 0, 0, TILES_ANY}
#define GEMM(what, ...) {what, "Gemm", "gemm", 2, 2, __VA_ARGS__, {0}, {0}, {0}, 0, 0, TILES_ANY}
#define CONV(what, shader, xr, ...) {what, "Conv", shader, xr, xr, 1, __VA_ARGS__, 0, TILES_ANY}
        MATMUL("MatMul, batch 2x3 broadcast, 37x70 by 70x45", 4, 2, {2, 3, 37, 70}, {70, 45}),
        MATMUL("MatMul, 1x5 by 5x1", 2, 2, {1, 5}, {5, 1}),
        MATMUL("MatMul, K = 70,000", 2, 2, {2, 70000}, {70000, 3}),
#define MATMUL_ODD(what, xr, br, ...) \
    {what, "MatMul", "gemm", xr, br, 0, __VA_ARGS__, {0}, 0, 0, 1.0f, 1.0f, {0}, {0}, {0}, 0, B_ODD, TILES_ANY}
        MATMUL_ODD("MatMul, batch 2, 4x12 by 2x12x1027 (B of rank 3: not padded)", 3, 3, {2, 4, 12},
                   {2, 12, 1027}),
        MATMUL_ODD("MatMul, 20x16 by 16x390 (8-row blocks)", 2, 2, {20, 16}, {16, 390}),
        MATMUL_ODD("MatMul, 300x16 by 16x13 (64 row blocks a workgroup)", 2, 2, {300, 16}, {16, 13}),
        MATMUL_ODD("MatMul, 9x8 by 8x3 (N < 4)", 2, 2, {9, 8}, {8, 3}),
        MATMUL_ODD("MatMul, batch 2x3, 8x12 by 12x7 (B's batches of 84)", 4, 4, {2, 3, 8, 12}, {2, 3, 12, 7}),
#undef MATMUL_ODD
#define MATMUL_PADDED(what, xr, br, ...) \
    {what, "MatMul", "gemm", xr, br, 0, __VA_ARGS__, {0}, 0, 0, 1.0f, 1.0f, {0}, {0}, {0}, 0, Y_ODD, TILES_ANY}
        MATMUL_PADDED("MatMul, 40x120 by 120x6625 (a recognizer's head: B's rows padded; 16-row blocks)", 3, 2,
                      {1, 40, 120}, {120, 6625}),
        MATMUL_PADDED("MatMul, batch 2x3, 5x64 by 64x1030 (B's rows padded; 8 x 16 blocks)", 4, 2, {2, 3, 5, 64},
                      {64, 1030}),
        MATMUL_PADDED("MatMul, 300x8 by 8x1025 (B's rows padded; 64 row blocks a workgroup)", 2, 2, {300, 8},
                      {8, 1025}),
#undef MATMUL_PADDED
#undef MATMUL
        GEMM("Gemm transA transB, C of M x N", 2, {17, 33}, {65, 17}, {33, 65}, 1, 1, 0.5f, 2.0f),
        GEMM("Gemm, C of N", 1, {33, 20}, {20, 65}, {65}, 0, 0, 1.0f, -1.5f),
        GEMM("Gemm, C of M x 1", 2, {40, 9}, {9, 7}, {40, 1}, 0, 0, 1.0f, 1.0f),
#define GEMM_ODD(what, ...) {what, "Gemm", "gemm", 2, 2, __VA_ARGS__, {0}, {0}, {0}, 0, B_ODD, TILES_ANY}
        GEMM_ODD("Gemm transA, K of 18, N of 45, C of N", 1, {18, 20}, {18, 45}, {45}, 1, 0, 1.0f, 0.5f),
        GEMM_ODD("Gemm transA, K of 12 (a constant), N of 401, C of M x N", 2, {12, 16}, {12, 401}, {16, 401}, 1, 0,
                 2.0f, 1.0f),
#undef GEMM_ODD
        {"Gemm, 33x20 by 20x1027, C of N (B's rows padded)", "Gemm", "gemm", 2, 2, 1, {33, 20}, {20, 1027}, {1027},
         0, 0, 1.0f, 0.5f, {0}, {0}, {0}, 0, Y_ODD, TILES_ANY},
        /* B's columns along k where N is not a multiple of 4: y stored element by element. */
        {"Gemm transB, 33x20 by 1027x20 (not padded: B's columns)", "Gemm", "gemm", 2, 2, 1, {33, 20}, {1027, 20},
         {1027}, 0, 1, 1.0f, 1.0f, {0}, {0}, {0}, 0, COLUMNS_ODD, TILES_ANY},
        {"Gemm transB, 7x64 by 10x64, C of M x N (B's columns)", "Gemm", "gemm", 2, 2, 2, {7, 64}, {10, 64},
         {7, 10}, 0, 1, 1.0f, 0.5f, {0}, {0}, {0}, 0, COLUMNS_ODD, TILES_ANY},
        CONV("pointwise Conv 18 -> 20, 13x11", "gemm", 4, {1, 18, 13, 11}, {20, 18, 1, 1}, {20}, 0, 0, 1.0f, 1.0f,
             {0}, {0}, {0}, 0),
        CONV("Conv 3x3 pad 1, 16 -> 20 (packed), 17x13", "conv", 4, {1, 16, 17, 13}, {20, 16, 3, 3}, {20}, 0, 0,
             1.0f, 1.0f, {1, 1}, {1, 1, 1, 1}, {1, 1}, 0),
        CONV("Conv 3x3 stride 2 dilation 2 pads 2 and 1, 5 -> 6, 2 images", "conv", 4, {2, 5, 19, 23}, {6, 5, 3, 3},
             {6}, 0, 0, 1.0f, 1.0f, {2, 2}, {2, 1, 2, 1}, {2, 2}, 0),
        CONV("Conv 1-D kernel 5 pad 2, 7 -> 9", "conv", 3, {1, 7, 40}, {9, 7, 5}, {9}, 0, 0, 1.0f, 1.0f, {1},
             {2, 2}, {1}, 0),
        CONV("Conv 3x3 group 2, 8 -> 12 (6 a group), 2 images", "conv", 4, {2, 8, 15, 14}, {12, 4, 3, 3}, {12}, 0, 0,
             1.0f, 1.0f, {1, 1}, {1, 1, 1, 1}, {1, 1}, 2),
        CONV("Conv 3x3 group 4, 16 -> 16 (4 a group: packed), stride 2", "conv", 4, {1, 16, 21, 18}, {16, 4, 3, 3},
             {16}, 0, 0, 1.0f, 1.0f, {2, 2}, {1, 1, 1, 1}, {1, 1}, 4),
        CONV("pointwise Conv group 3, 6 -> 9", "conv", 4, {1, 6, 9, 10}, {9, 2, 1, 1}, {9}, 0, 0, 1.0f, 1.0f, {0},
             {0}, {0}, 3),
        CONV("Conv 3x3 of 3 channels to 6, group 3 (a multiplier of 2)", "conv", 4, {1, 3, 12, 13}, {6, 1, 3, 3}, {6},
             0, 0, 1.0f, 1.0f, {1, 1}, {1, 1, 1, 1}, {1, 1}, 3),
        /* A GPU's tiles in slices of K where they are few and K long, else in one pass. */
#define CONV_TILES(what, slices, ...) {what, "Conv", "conv", 4, 4, 1, __VA_ARGS__, 0, slices}
        CONV_TILES("Conv 3x3 pad 1, 96 -> 24 over 20x20 (the detector's neck: 13 tiles over 864 taps)", TILES_SLICED,
                   {1, 96, 20, 20}, {24, 96, 3, 3}, {24}, 0, 0, 1.0f, 1.0f, {1, 1}, {1, 1, 1, 1}, {1, 1}, 0),
        CONV_TILES("Conv 3x3 pad 1 group 2, 64 -> 16, 2 images of 6x6 (slices of each image's and group's tiles)",
                   TILES_SLICED, {2, 64, 6, 6}, {16, 32, 3, 3}, {16}, 0, 0, 1.0f, 1.0f, {1, 1}, {1, 1, 1, 1}, {1, 1},
                   2),
        CONV_TILES("Conv 3x3 pad 1, 8000 -> 4 over 2x2 (K of 72,000: 900 slices)", TILES_SLICED, {1, 8000, 2, 2},
                   {4, 8000, 3, 3}, {4}, 0, 0, 1.0f, 1.0f, {1, 1}, {1, 1, 1, 1}, {1, 1}, 0),
        CONV_TILES("Conv 3x3 pad 1, 32 -> 16 over 128x128 (512 tiles: one pass)", TILES_WHOLE, {1, 32, 128, 128},
                   {16, 32, 3, 3}, {16}, 0, 0, 1.0f, 1.0f, {1, 1}, {1, 1, 1, 1}, {1, 1}, 0),
        CONV_TILES("Conv 3x3 pad 1, 24 -> 16 over 8x8 (K of 216: one pass)", TILES_WHOLE, {1, 24, 8, 8},
                   {16, 24, 3, 3}, {16}, 0, 0, 1.0f, 1.0f, {1, 1}, {1, 1, 1, 1}, {1, 1}, 0),
#undef CONV_TILES
#define CONV_FORM(what, form, ...) {what, "Conv", "conv", 4, 4, 1, __VA_ARGS__, form, TILES_ANY}
#define CONV_FORM_RANK(what, form, rank, ...) {what, "Conv", "conv", rank, rank, 1, __VA_ARGS__, form, TILES_ANY}
        CONV_FORM("Conv 1x3 pad 1 in W, 256 -> 60 over 1x40 (a recognizer's, fewer channels: in slices, rows as "
                  "vec4)", SLICED, {1, 256, 1, 40}, {60, 256, 1, 3}, {60}, 0, 0, 1.0f, 1.0f, {1, 1}, {0, 1, 0, 1}, {1, 1}, 0),
        CONV_FORM("Conv 1x3 without pads, 256 -> 60 over 1x40 (in slices, rows read value by value)", SLICED,
                  {1, 256, 1, 40}, {60, 256, 1, 3}, {60}, 0, 0, 1.0f, 1.0f, {1, 1}, {0}, {1, 1}, 0),
        CONV_FORM("Conv 3x3 pad 1, 512 -> 8 over 3x5 (in slices, rows read value by value)", SLICED, {1, 512, 3, 5},
                  {8, 512, 3, 3}, {8}, 0, 0, 1.0f, 1.0f, {1, 1}, {1, 1, 1, 1}, {1, 1}, 0),
        CONV_FORM("Conv 3x3 pad 1 group 2, 256 -> 8, 2 images of 2x6 (in slices)", SLICED, {2, 256, 2, 6},
                  {8, 128, 3, 3}, {8}, 0, 0, 1.0f, 1.0f, {1, 1}, {1, 1, 1, 1}, {1, 1}, 2),
        CONV_FORM("Conv 1x3 pad 1 in W, 8 -> 8 over 2x64 (rows as vec4, not in slices)", ROWS, {1, 8, 2, 64},
                  {8, 8, 1, 3}, {8}, 0, 0, 1.0f, 1.0f, {1, 1}, {0, 1, 0, 1}, {1, 1}, 0),
        /* Outputs of at most 4 columns (Silero VAD's 1-D Convs over a few frames): the general loops over 4
         * columns an invocation, with packed weights (TM 8 or 4) or as ONNX lays them out (258 channels). */
        CONV_FORM_RANK("Conv 1-D k3 pad 1, 129 -> 128 over 3 frames (packed, 4 columns an invocation)", NARROW, 3,
                  {1, 129, 3}, {128, 129, 3}, {128}, 0, 0, 1.0f, 1.0f, {1}, {1, 1}, {1}, 0),
        CONV_FORM_RANK("Conv 1-D k3 stride 2 pad 1, 128 -> 64 over 3 frames, 2 images (packed)", NARROW, 3,
                  {2, 128, 3}, {64, 128, 3}, {64}, 0, 0, 1.0f, 1.0f, {2}, {1, 1}, {1}, 0),
        CONV_FORM_RANK("Conv 1-D k3 pad 1, 2 -> 258 over 3 frames (weights as they are)", NARROW, 3, {1, 2, 3},
                  {258, 2, 3}, {258}, 0, 0, 1.0f, 1.0f, {1}, {1, 1}, {1}, 0),
        /* One input channel without pads (an STFT): the GEMM of the overlapping windows, weights as they are. */
#define CONV_SIGNAL(what, form, ...) {what, "Conv", "gemm", 3, 3, 1, __VA_ARGS__, form, TILES_ANY}
        CONV_SIGNAL("Conv 1-D k256 stride 128, 1 -> 258 over 576 (Silero VAD's STFT: 3 frames, 8 x 4 blocks)", FEW,
                    {1, 1, 576}, {258, 1, 256}, {258}, 0, 0, 1.0f, 1.0f, {128}, {0, 0}, {1}, 0),
        CONV_SIGNAL("Conv 1-D k256 stride 64, 1 -> 258 over 704, 2 images (8 frames: y as vec4)", COLUMNS,
                    {2, 1, 704}, {258, 1, 256}, {258}, 0, 0, 1.0f, 1.0f, {64}, {0, 0}, {1}, 0),
        CONV_SIGNAL("Conv 1-D k16 stride 8, 1 -> 12 over 100 (weights left unpacked; 11 frames, the last samples in "
                    "none)", COLUMNS_ODD, {1, 1, 100}, {12, 1, 16}, {12}, 0, 0, 1.0f, 1.0f, {8}, {0, 0}, {1}, 0),
#undef CONV_SIGNAL
        CONV("Conv 1-D k8 stride 4 pad 2, 1 -> 8 over 40 (pads: the conv shader)", "conv", 3, {1, 1, 40}, {8, 1, 8},
             {8}, 0, 0, 1.0f, 1.0f, {4}, {2, 2}, {1}, 0),
        CONV_FORM_RANK("Conv 3x3 pad 1 group 2, 16 -> 24 over 5x3 (packed, 4 a group's vec4)", NARROW, 4, {1, 16, 5, 3},
                  {24, 8, 3, 3}, {24}, 0, 0, 1.0f, 1.0f, {1, 1}, {1, 1, 1, 1}, {1, 1}, 2),
        /* The squeeze-excitation's Convs of one pixel, of channel counts no vec4 form takes (ppocr's classifier):
         * the GEMM's generic form, not the conv shader's blocks of 8 columns (run AG). */
#define CONV_GEMM(what, ...) {what, "Conv", "gemm", 4, 4, 1, __VA_ARGS__, GEMM_ANY, TILES_ANY}
        CONV_GEMM("pointwise Conv of one pixel, 50 -> 200 (weights packed), 2 images", {2, 50, 1, 1},
                  {200, 50, 1, 1}, {200}, 0, 0, 1.0f, 1.0f, {0}, {0}, {0}, 0),
        CONV_GEMM("pointwise Conv of one pixel, 200 -> 50 (weights as they are)", {1, 200, 1, 1}, {50, 200, 1, 1},
                  {50}, 0, 0, 1.0f, 1.0f, {0}, {0}, {0}, 0),
        CONV_GEMM("pointwise Conv of one pixel, 22 -> 9, no vec4 anywhere", {1, 22, 1, 1}, {9, 22, 1, 1}, {9}, 0,
                  0, 1.0f, 1.0f, {0}, {0}, {0}, 0),
#undef CONV_GEMM
#undef CONV_FORM
#undef CONV_FORM_RANK
#undef GEMM
#undef CONV
    };
    char path[64];
    snprintf(path, sizeof(path), "/tmp/ortvk-forms-%d.json", (int)getpid());
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const gemm_case *c = &cases[i];
        size_t nx = kc_count(c->x, c->x_rank), nb = kc_count(c->b, c->b_rank), wn = 0, gn = 0;
        size_t nc = c->c_rank ? kc_count(c->c, c->c_rank) : 0;
        float *x = half ? exact_values(nx, 7 + (uint32_t)i, 6, 0.25f) : gemm_values(nx, 7 + (uint32_t)i);
        float *b = half ? exact_values(nb, 99 + (uint32_t)i, 4, 0.125f) : gemm_values(nb, 99 + (uint32_t)i);
        float *bias = half ? exact_values(nc, 5, 8, 0.03125f) : gemm_values(nc, 5);
        if (!CHECK(x && b && bias, "out of memory")) {
            free(x), free(b), free(bias);
            return;
        }
        x[nx > 5 ? 5 : 0] = NAN; /* a row (or a pixel's outputs) of NaN */
        const char *type = half ? texels ? "float16" : "float16, no texel reads" : "float";
        float *want = run_typed(app, device, NULL, gemm_model(c, b, bias), x, c->x_rank, c->x, &wn, NULL, half);
        if (!texels) setenv("ORTVK_TEXEL_READS", "off", 1);
        float *got = run_typed(app, device, forms, gemm_model(c, b, bias), x, c->x_rank, c->x, &gn, path, half);
        unsetenv("ORTVK_TEXEL_READS");
        long fn = shader_function(path, c->op, c->shader);
        bool tiles = tiles_function(c->shader, fn), gpu = strcmp(forms, "gpu") == 0;
        char weights[16];
        node_input_type(path, 1, weights, sizeof(weights));
        const char *expected = !half || !gpu ? "float" : "float16"; /* ortvk_kernel_upload_const: widened */
        CHECK(strcmp(weights, expected) == 0, "%s form, %s (%s): the weights are %s on the device, expected %s",
              forms, c->what, type, weights, expected);
        CHECK(tiles == gpu, "%s form, %s: the %s shader's function is %ld (%s)", forms, c->what, c->shader, fn,
              gpu ? "expected its tiles" : "expected another form, or another shader: -1");
        CHECK(gpu || cpu_form_is(c->cpu_form, fn), "%s form, %s: the %s shader's function is %ld (expected form %d "
              "of enum gemm_cpu_form)", forms, c->what, c->shader, fn, c->cpu_form);
        char list[128];
        node_pipelines(path, c->op, list, sizeof(list));
        bool sliced = strstr(list, "conv.192") != NULL;
        CHECK(!gpu || c->gpu_slices == TILES_ANY || sliced == (c->gpu_slices == TILES_SLICED),
              "%s form, %s: pipelines \"%s\" (expected the tiles %s)", forms, c->what, list,
              c->gpu_slices == TILES_SLICED ? "in slices of K, then their sum, conv.192" : "in one pass");
        size_t bad = 0, first = 0, nan_rows = 0;
        for (size_t k = 0; want && got && k < wn && k < gn; k++) {
            bool same = half ? want[k] == got[k] || (isnan(want[k]) && isnan(got[k])) : close_to(want[k], got[k]);
            if (!same && bad++ == 0) first = k;
            nan_rows += isnan(got[k]);
        }
        if (CHECK(want && got && wn == gn && bad == 0 && nan_rows > 0,
                  "%s form, %s (%s): %zu of %zu values differ from the CPU EP's (first at %zu: %.9g vs %.9g), %zu NaN",
                  forms, c->what, type, bad, gn, first, bad ? want[first] : 0.0f, bad ? got[first] : 0.0f, nan_rows))
            printf("%s form, %s (%s): %zu values as the CPU EP's (%s shader, function %ld; pipelines %s)\n", forms,
                   c->what, type, gn, c->shader, fn, list);
        free(want), free(got), free(x), free(b), free(bias);
    }
    remove(path);
}

/* The strided copy's forms (kernel_layout.c): on a CPU device runs of 8 an invocation (the copy shader's function
 * 0), on a GPU one an invocation (function 1); each in 4 x 4 tiles, by elements and by vec4 rows. Copies are exact:
 * every bit as the CPU EP's, a NaN's payload, -0 and a subnormal included. */
static void copy_forms_case(ortapp *app, const OrtEpDevice *device, const char *forms)
{
    static const struct {
        const char *what, *op;
        int rank;
        int64_t x[3], perm[3]; /* Transpose's perm; Slice: [4, 8) of axis 1 */
    } cases[] = {
        {"Transpose [3,8,12] perm [0,2,1] (tiles)", "Transpose", 3, {3, 8, 12}, {0, 2, 1}},
        {"Transpose [5,19] perm [1,0] (elements)", "Transpose", 2, {5, 19}, {1, 0}},
        {"Slice [6,8,16] axis 1 [4,8) (vec4 rows)", "Slice", 3, {6, 8, 16}, {0}},
    };
    char path[64];
    snprintf(path, sizeof(path), "/tmp/ortvk-copy-forms-%d.json", (int)getpid());
    bool gpu = strcmp(forms, "gpu") == 0;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t n = kc_count(cases[i].x, cases[i].rank), wn = 0, gn = 0;
        float *x = gemm_values(n, 31 + (uint32_t)i);
        if (!CHECK(x != NULL, "out of memory")) return;
        uint32_t nan = 0x7fc01234u, subnormal = 0x00000123u; /* the last elements: in every case's output */
        memcpy(&x[n - 1], &nan, 4);
        memcpy(&x[n - 2], &subnormal, 4);
        x[n - 3] = -0.0f;
        onnx_model *m[2];
        for (int k = 0; k < 2; k++) {
            m[k] = onnx_model_new(13);
            onnx_model_add_input(m[k], "x", ONNX_FLOAT, cases[i].rank, cases[i].x);
            onnx_model_add_output(m[k], "y", ONNX_FLOAT, -1, NULL);
            const char *in[3] = {"x", "starts", "ends"}, *out[1] = {"y"};
            if (strcmp(cases[i].op, "Transpose") == 0) {
                onnx_node *t = onnx_model_add_node(m[k], "Transpose", in, 1, out, 1);
                onnx_node_attr_ints(t, "perm", cases[i].perm, cases[i].rank);
            } else {
                int64_t starts[3] = {0, 4, 0}, ends[3] = {6, 8, 16}, three = 3;
                onnx_model_add_initializer(m[k], "starts", ONNX_INT64, 1, &three, starts, sizeof(starts));
                onnx_model_add_initializer(m[k], "ends", ONNX_INT64, 1, &three, ends, sizeof(ends));
                onnx_model_add_node(m[k], "Slice", in, 3, out, 1);
            }
        }
        float *want = run(app, device, NULL, m[0], x, cases[i].rank, cases[i].x, &wn);
        float *got = run_profiled(app, device, forms, m[1], x, cases[i].rank, cases[i].x, &gn, path);
        long fn = shader_function(path, cases[i].op, "copy");
        CHECK(fn == (gpu ? 1 : 0), "%s form, %s: the copy shader's function is %ld, expected %d", forms,
              cases[i].what, fn, gpu ? 1 : 0);
        if (CHECK(want && got && wn == gn && gn > 0 && memcmp(want, got, gn * sizeof(float)) == 0,
                  "%s form, %s: %zu and %zu values, not bit for bit the CPU EP's", forms, cases[i].what, wn, gn))
            printf("%s form, %s: %zu values bit for bit as the CPU EP's (copy shader, function %ld)\n", forms,
                   cases[i].what, gn, fn);
        free(want), free(got), free(x);
    }
    remove(path);
}

/* LayerNormalization over the last axis, or InstanceNormalization, of x with scale (and bias) values of their own. */
static onnx_model *norm_model(bool layer, int rank, const int64_t *dims)
{
    onnx_model *m = onnx_model_new(17);
    onnx_model_add_input(m, "x", ONNX_FLOAT, rank, dims);
    onnx_model_add_output(m, "y", ONNX_FLOAT, -1, NULL);
    int64_t n = layer ? dims[rank - 1] : dims[1];
    float *scale = malloc((size_t)n * 2 * sizeof(float)), *bias = scale + n;
    for (int64_t i = 0; i < n; i++) {
        scale[i] = 0.5f + (float)(i % 7) * 0.25f;
        bias[i] = (float)(i % 5) - 2.0f;
    }
    onnx_model_add_initializer(m, "scale", ONNX_FLOAT, 1, &n, scale, (size_t)n * sizeof(float));
    onnx_model_add_initializer(m, "bias", ONNX_FLOAT, 1, &n, bias, (size_t)n * sizeof(float));
    free(scale);
    const char *in[3] = {"x", "scale", "bias"}, *out[1] = {"y"};
    onnx_node *node = onnx_model_add_node(m, layer ? "LayerNormalization" : "InstanceNormalization", in, 3, out, 1);
    if (layer) onnx_node_attr_int(node, "axis", -1);
    return m;
}

/* Both normalizations over rows of 256 (the first 2^24 then ones: its mean depends on the order), 300 and 301 values
 * (a constant row among them): each form within tolerance of the CPU EP, and the two forms apart on the first rows
 * (which form ran). */
static void norm_case(ortapp *app, const OrtEpDevice *device)
{
    for (int layer = 0; layer < 2; layer++) {
        for (int len = 256; len <= 301; len += len == 256 ? 44 : 1) {
            int64_t dims[4] = {1, 2, 1, len}; /* InstanceNormalization: 2 channels of 1 x len */
            int rank = layer ? 2 : 4;
            if (layer) dims[0] = 2, dims[1] = len;
            size_t n = 2 * (size_t)len;
            float *x = malloc(n * sizeof(float));
            for (size_t i = 0; i < n; i++)
                x[i] = len == 256 && i < 256 ? (i == 0 ? 16777216.0f : 1.0f) : (float)((i * 37) % 101) * 0.25f - 9.0f;
            const char *name = layer ? "LayerNormalization" : "InstanceNormalization";
            size_t wn = 0, cn = 0, gn = 0;
            float *want = run(app, device, NULL, norm_model(layer, rank, dims), x, rank, dims, &wn);
            float *cpu = run(app, device, "cpu", norm_model(layer, rank, dims), x, rank, dims, &cn);
            float *gpu = run(app, device, "gpu", norm_model(layer, rank, dims), x, rank, dims, &gn);
            if (CHECK(want && cpu && gpu && wn == n && cn == n && gn == n, "%s over %d: %zu, %zu and %zu values", name,
                      len, wn, cn, gn)) {
                size_t bad = 0, first = 0, apart = 0;
                for (size_t i = 0; i < n; i++) {
                    if (!(close_to(want[i], cpu[i]) && close_to(want[i], gpu[i])) && bad++ == 0) first = i;
                    apart += memcmp(&cpu[i], &gpu[i], sizeof(float)) != 0;
                }
                CHECK(bad == 0, "%s over %d: [%zu] the CPU form %.9g, the GPU form %.9g, the CPU EP %.9g", name, len,
                      first, cpu[first], gpu[first], want[first]);
                if (len == 256) {
                    CHECK(apart > 0, "%s over 2^24 and ones: the two forms agree to the bit (the same form ran?)",
                          name);
                    printf("%s over 2^24 and 255 ones: the forms differ in %zu of %zu values, both within "
                           "tolerance of the CPU EP\n", name, apart, n);
                }
            }
            free(want);
            free(cpu);
            free(gpu);
            free(x);
        }
    }
    /* LayerNormalization of a constant row of 70,000: variance 0 in order, so y is the bias; a mean summed in
     * another order is a little off, and (x - mean) / sqrt(var + epsilon) made 0.4 of that (fuzz seed 158 case
     * 32549). ORT 1.30.0's CPU EP gives the bias too, 1.24.3's NaN: the bias is what is checked. */
    const int64_t dims[2] = {1, 70000};
    float *x = malloc(70000 * sizeof(float));
    for (int i = 0; i < 70000; i++) x[i] = 88.8f;
    for (int k = 0; k < 2; k++) {
        const char *forms = k ? "gpu" : "cpu";
        size_t gn = 0;
        float *got = run(app, device, forms, norm_model(true, 2, dims), x, 2, dims, &gn);
        if (CHECK(got && gn == 70000, "LayerNormalization of a constant row (forms %s): %zu values", forms, gn)) {
            size_t bad = 0, first = 0;
            for (size_t i = 0; i < gn; i++)
                if (!close_to((float)(i % 5) - 2.0f, got[i]) && bad++ == 0) first = i;
            CHECK(bad == 0, "LayerNormalization of a constant row (forms %s): %zu values not the bias, [%zu] = %.9g",
                  forms, bad, first, got[first]);
        }
        free(got);
    }
    free(x);
}

int main(void)
{
    ortapp app;
    const OrtEpDevice *device;
    test_open(&app, &device);
    unsetenv("ORTVK_PROFILE");
    const char *kind = app.api->GetKeyValue(app.api->EpDevice_EpMetadata(device), ORTVK_META_DEVICE_TYPE);
    bool cpu_device = kind != NULL && strcmp(kind, "cpu") == 0;
    char *saved = getenv(FORMS_ENV) ? strdup(getenv(FORMS_ENV)) : NULL; /* setenv and unsetenv below */
    if (saved) printf("note: %s=%s in the environment; this test sets it per session\n", FORMS_ENV, saved);
    order_case(&app, device, "cpu", false);
    order_case(&app, device, "gpu", true);
    pool_case(&app, device, "cpu", false);
    pool_case(&app, device, "gpu", true);
    parts_case(&app, device, "cpu", false);
    parts_case(&app, device, "gpu", true);
    softmax_order_case(&app, device, "cpu", 256, false);
    softmax_order_case(&app, device, "gpu", 256, true);
    softmax_order_case(&app, device, "cpu", 2048, true);
    ops_case(&app, device, "cpu");
    ops_case(&app, device, "gpu");
    norm_case(&app, device);
    gemm_forms_case(&app, device, "cpu", false, true);
    gemm_forms_case(&app, device, "gpu", false, true);
    gemm_forms_case(&app, device, "cpu", true, true);
    gemm_forms_case(&app, device, "gpu", true, true);
    gemm_forms_case(&app, device, "cpu", true, false);
    copy_forms_case(&app, device, "cpu");
    copy_forms_case(&app, device, "gpu");

    /* With no setting, a CPU device (lavapipe) takes the CPU forms, any other its GPU forms. */
    const int64_t dims[2] = {1, 256};
    float x[256];
    for (int i = 0; i < 256; i++) x[i] = i == 0 ? 16777216.0f : 1.0f;
    size_t gn = 0;
    float *got = run(&app, device, "", reduce_model("ReduceSum", 2, dims), x, 2, dims, &gn);
    float expect = cpu_device ? sum_in_order(x, 256) : sum_as_rows(x, 256);
    CHECK(got && gn == 1 && memcmp(got, &expect, 4) == 0, "a %s device's own forms: %.9g, expected %.9g",
          kind ? kind : "?", got ? got[0] : NAN, expect);
    printf("a %s device takes its %s forms by itself\n", kind ? kind : "?", cpu_device ? "CPU" : "GPU");
    free(got);

    /* A setting that is neither fails the session, naming the variable and the value: the forms', the
     * subnormals' (ORTVK_SUBNORMALS, docs/kernels.md, "Subnormals") and the texel reads'. */
    static const char *const settings[][2] = {
        {FORMS_ENV, "fast"}, {"ORTVK_SUBNORMALS", "flush"}, {"ORTVK_TEXEL_READS", "no"}};
    for (int k = 0; k < 3; k++) {
        uint8_t *model = NULL;
        size_t len = 0;
        if (!test_model_serialize(reduce_model("ReduceSum", 2, dims), "reduce model", &model, &len)) continue;
        const char *name = settings[k][0], *value = settings[k][1];
        char *kept = getenv(name) ? strdup(getenv(name)) : NULL;
        setenv(name, value, 1);
        OrtStatus *error = NULL;
        OrtSession *s = kc_session(&app, device, model, len, true, false, &error);
        if (kept) setenv(name, kept, 1);
        else unsetenv(name);
        free(kept);
        const char *msg = error ? app.api->GetErrorMessage(error) : "";
        CHECK(s == NULL && strstr(msg, name) && strstr(msg, value), "%s=%s: session %p, error \"%s\"", name, value,
              (void *)s, msg);
        if (s) app.api->ReleaseSession(s);
        if (error) app.api->ReleaseStatus(error);
        free(model);
    }
    if (saved) setenv(FORMS_ENV, saved, 1);
    free(saved);
    return test_finish(&app, "test_kernels_forms");
}
