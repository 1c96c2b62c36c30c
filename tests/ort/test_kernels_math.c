/* The accuracy of ortvk's element-wise math (its own exp, log, tanh, erf, sigmoid, pow; see
 * src/kernels/shaders/common.glsl) over each function's whole float range, not just the ONNX test data's few
 * values: dense sweeps, extremes and the neighbourhood of 0 and 1, against C's double-precision functions. Every
 * value must meet ONNX's tolerance (rtol 1e-3, atol 1e-7); the largest relative error is printed. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "kernel_check.h"

#define MAX_VALUES 8192

typedef double (*reference_fn)(double x, double y);

static double ref_exp(double x, double y) { (void)y; return exp(x); }
static double ref_log(double x, double y) { (void)y; return log(x); }
static double ref_tanh(double x, double y) { (void)y; return tanh(x); }
static double ref_erf(double x, double y) { (void)y; return erf(x); }
static double ref_sqrt(double x, double y) { (void)y; return sqrt(x); }
static double ref_sigmoid(double x, double y) { (void)y; return 1.0 / (1.0 + exp(-x)); }
static double ref_softplus(double x, double y) { (void)y; return x > 30 ? x : log1p(exp(x)); }
static double ref_elu(double x, double y) { (void)y; return x < 0 ? expm1(x) : x; }
static double ref_reciprocal(double x, double y) { (void)y; return 1.0 / x; }
static double ref_pow(double x, double y) { return pow(x, y); }
static double ref_sin(double x, double y) { (void)y; return sin(x); }
static double ref_cos(double x, double y) { (void)y; return cos(x); }
static double ref_tan(double x, double y) { (void)y; return tan(x); }
static double ref_asin(double x, double y) { (void)y; return asin(x); }
static double ref_acos(double x, double y) { (void)y; return acos(x); }
static double ref_atan(double x, double y) { (void)y; return atan(x); }
static double ref_sinh(double x, double y) { (void)y; return sinh(x); }
static double ref_cosh(double x, double y) { (void)y; return cosh(x); }
static double ref_asinh(double x, double y) { (void)y; return asinh(x); }
static double ref_acosh(double x, double y) { (void)y; return acosh(x); }
static double ref_atanh(double x, double y) { (void)y; return atanh(x); }

/* Fills `x` with a sweep of [lo, hi] (linear or, with `logarithmic`, by magnitude) plus extra points. */
static size_t sweep(float *x, size_t at, size_t n, double lo, double hi, bool logarithmic)
{
    for (size_t i = 0; i < n && at < MAX_VALUES; i++, at++) {
        double t = n > 1 ? (double)i / (double)(n - 1) : 0.0;
        x[at] = (float)(logarithmic ? exp(log(lo) + t * (log(hi) - log(lo))) : lo + t * (hi - lo));
    }
    return at;
}

/* The same values negated, appended. */
static size_t mirror(float *x, size_t start, size_t at)
{
    for (size_t i = start, end = at; i < end && at < MAX_VALUES; i++) x[at++] = -x[i];
    return at;
}

/* The floats nearest to k * pi / 2 for k up to 2^20 (where sin or cos is tiny: the reduction's hard cases), the
 * whole range by magnitude up to FLT_MAX, and the largest floats. */
static size_t trig_arguments(float *x, size_t at)
{
    size_t start = at;
    at = sweep(x, at, 1500, -10, 10, false);
    for (int k = 1; k < (1 << 20) && at < start + 2700; k = k * 5 / 4 + 1) x[at++] = (float)(k * M_PI / 2);
    at = sweep(x, at, 1500, 1.0, 3.4e38, true);
    x[at++] = FLT_MAX;
    x[at++] = 16777215.0f;
    x[at++] = 1e22f;
    x[at++] = 8.7e37f;
    return mirror(x, start + 1500, at);
}

/* Values near 0 of both signs, from 1e-30 to 1. */
static size_t near_zero(float *x, size_t at)
{
    at = sweep(x, at, 400, 1e-30, 1.0, true);
    size_t start = at;
    at = sweep(x, at, 400, 1e-30, 1.0, true);
    for (size_t i = start; i < at; i++) x[i] = -x[i];
    return at;
}

static void check(ortapp *app, const OrtEpDevice *device, const char *op, float alpha, const float *x, const float *y,
                  size_t n, reference_fn ref)
{
    onnx_model *m = onnx_model_new(14);
    int64_t dims[1] = {(int64_t)n};
    onnx_model_add_input(m, "x", ONNX_FLOAT, 1, dims);
    if (y) onnx_model_add_input(m, "y", ONNX_FLOAT, 1, dims);
    onnx_model_add_output(m, "z", ONNX_FLOAT, 1, dims);
    const char *in[] = {"x", "y"}, *out[] = {"z"};
    onnx_node *node = onnx_model_add_node(m, op, in, y ? 2 : 1, out, 1);
    if (alpha != 0) onnx_node_attr_float(node, "alpha", alpha);
    uint8_t *model = NULL;
    size_t len = 0;
    if (!test_model_serialize(m, op, &model, &len)) return;
    OrtStatus *error = NULL;
    OrtSession *session = kc_session(app, device, model, len, true, false, &error);
    free(model);
    if (!ORT_OK(app, error)) return;
    OrtValue *inputs[2] = {test_host_tensor(app, (float *)x, n, 1, dims),
                           y ? test_host_tensor(app, (float *)y, n, 1, dims) : NULL};
    OrtValue *output = NULL;
    if (ORT_OK(app, app->api->Run(session, NULL, in, (const OrtValue *const *)inputs, y ? 2 : 1, out, 1, &output))) {
        size_t bytes = 0;
        float *z = kc_host_data(app, output, &bytes);
        double worst_rel = 0;
        size_t bad = 0, first = 0;
        for (size_t i = 0; z != NULL && i < n; i++) {
            double want = ref(x[i], y ? y[i] : 0), got = z[i];
            /* The reference in float: what a correctly rounded float implementation returns. */
            double want_f = (double)(float)want;
            bool ok;
            if (isnan(want_f) || isnan(got)) ok = isnan(want_f) && isnan(got);
            else if (isinf(want_f) || isinf(got)) ok = want_f == got;
            else ok = fabs(got - want_f) <= 1e-7 + 1e-3 * fabs(want_f);
            if (ok && isfinite(want_f) && want_f != 0 && fabs(want_f) > FLT_MIN) {
                double rel = fabs(got - want_f) / fabs(want_f);
                if (rel > worst_rel) worst_rel = rel;
            }
            if (!ok && bad++ == 0) first = i;
        }
        if (CHECK(z != NULL && bad == 0,
                  "%s: %zu of %zu values out of tolerance (first: f(%.9g%s%.9g) = %.9g, want %.9g)", op, bad, n,
                  x[first], y ? ", " : "", y ? y[first] : 0.0, z ? z[first] : 0.0, ref(x[first], y ? y[first] : 0)))
            printf("%-12s %5zu values: largest relative error %.2e (%.1f float ULP)\n", op, n, worst_rel,
                   worst_rel / FLT_EPSILON);
        free(z);
        app->api->ReleaseValue(output);
    }
    for (int i = 0; i < 2; i++) {
        if (inputs[i]) app->api->ReleaseValue(inputs[i]);
    }
    app->api->ReleaseSession(session);
}

int main(void)
{
    ortapp app;
    const OrtEpDevice *device;
    test_open(&app, &device);
    static float x[MAX_VALUES], y[MAX_VALUES];
    size_t n;

    n = sweep(x, 0, 4000, -87.3, 88.7, false);
    n = near_zero(x, n);
    check(&app, device, "Exp", 0, x, NULL, n, ref_exp);

    n = sweep(x, 0, 3000, 1e-37, 3e38, true);
    n = sweep(x, n, 2000, 0.999, 1.001, false);
    n = sweep(x, n, 400, 0.5, 2.0, false);
    check(&app, device, "Log", 0, x, NULL, n, ref_log);

    n = sweep(x, 0, 3000, -20, 20, false);
    n = near_zero(x, n);
    check(&app, device, "Tanh", 0, x, NULL, n, ref_tanh);
    check(&app, device, "Erf", 0, x, NULL, n, ref_erf);
    check(&app, device, "Elu", 1.0f, x, NULL, n, ref_elu);

    n = sweep(x, 0, 4000, -90, 90, false);
    n = near_zero(x, n);
    check(&app, device, "Sigmoid", 0, x, NULL, n, ref_sigmoid);
    check(&app, device, "Softplus", 0, x, NULL, n, ref_softplus);

    n = sweep(x, 0, 3000, 1e-37, 3e38, true);
    check(&app, device, "Sqrt", 0, x, NULL, n, ref_sqrt);
    n = near_zero(x, 0);
    check(&app, device, "Reciprocal", 0, x, NULL, n, ref_reciprocal);

    /* Pow: positive bases over many exponents, negative bases with integral exponents (and non-integral: NaN). */
    n = 0;
    for (int b = 0; b < 60; b++) {
        for (int e = 0; e < 60 && n < MAX_VALUES; e++, n++) {
            x[n] = (float)(b < 40 ? 0.05 + 0.25 * b : -(0.5 + 0.4 * (b - 40)));
            y[n] = (float)(-7.0 + 0.25 * e);
        }
    }
    check(&app, device, "Pow", 0, x, y, n, ref_pow);

    /* Trigonometric and hyperbolic functions (src/kernels/shaders/trig.glsl). */
    n = trig_arguments(x, 0);
    n = near_zero(x, n);
    check(&app, device, "Sin", 0, x, NULL, n, ref_sin);
    check(&app, device, "Cos", 0, x, NULL, n, ref_cos);
    check(&app, device, "Tan", 0, x, NULL, n, ref_tan);
    n = sweep(x, 0, 3000, -1.0, 1.0, false);
    n = sweep(x, n, 500, 0.999, 1.0, false);
    n = mirror(x, 3000, n);
    n = near_zero(x, n);
    check(&app, device, "Asin", 0, x, NULL, n, ref_asin);
    check(&app, device, "Acos", 0, x, NULL, n, ref_acos);
    check(&app, device, "Atanh", 0, x, NULL, n, ref_atanh);
    n = sweep(x, 0, 2000, 1e-30, 3.4e38, true);
    n = mirror(x, 0, n);
    n = sweep(x, n, 2000, -20, 20, false);
    check(&app, device, "Atan", 0, x, NULL, n, ref_atan);
    check(&app, device, "Asinh", 0, x, NULL, n, ref_asinh);
    n = sweep(x, 0, 3000, -89.4, 89.4, false);
    n = near_zero(x, n);
    check(&app, device, "Sinh", 0, x, NULL, n, ref_sinh);
    check(&app, device, "Cosh", 0, x, NULL, n, ref_cosh);
    n = sweep(x, 0, 2000, 1.0, 3.4e38, true);
    n = sweep(x, n, 2000, 1.0, 1.01, false);
    check(&app, device, "Acosh", 0, x, NULL, n, ref_acosh);
    return test_finish(&app, "test_kernels_math");
}
