/* The partition compiler's fused element-wise chains (src/kernels/kernel_chain.c) against ORT's CPU EP: each model
 * runs on ortvk (every node there) and on the CPU EP alone with NaN, infinities, signed zeros, subnormals and huge
 * values, and the outputs must agree to the bit where the device's division is IEEE's (lavapipe: the test prints
 * the largest distance, 0 ULP), to Vulkan's 3 ULP elsewhere (any NaN matching any NaN). ortvk's profile of the same
 * run says which nodes were fused: a chain that must fuse does (a value read twice inside it is kept in a register),
 * one that must not (a value also read outside the chain, a value the model returns) does not. A chain right after
 * a Conv runs in the Conv's stores: what ortvk computes with the two apart (the same bound), and within tolerance
 * of the CPU EP. */
#include <float.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "kernel_check.h"
#include "ortvk.h"

static const float specials[] = {
    NAN, -NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 1e-45f, -1e-45f, 1e-40f, -1e-40f, FLT_MIN, -FLT_MIN, FLT_MAX,
    -FLT_MAX, 1.0f, -1.0f, 0.5f, -0.5f, 2.5f, -2.5f, 3.0f, -3.0f, -3.5f, 0.1f, -0.1f, 6.0f, -6.0f, 1e10f, -1e10f,
    16777217.0f, 3e38f, -3e38f,
};
#define N (sizeof(specials) / sizeof(specials[0]))

static void scalar(onnx_model *m, const char *name, float value)
{
    onnx_model_add_initializer(m, name, ONNX_FLOAT, 0, NULL, &value, sizeof(value));
}

static void add(onnx_model *m, const char *op, const char *a, const char *b, const char *out)
{
    const char *in[] = {a, b}, *outs[] = {out};
    onnx_model_add_node(m, op, in, b ? 2 : 1, outs, 1);
}

static bool same_bits(float want, float got)
{
    if (isnan(want) || isnan(got)) return isnan(want) && isnan(got);
    return memcmp(&want, &got, sizeof(float)) == 0;
}

/* How many floats apart two values are (0: the same bits; NaN only matches NaN, UINT32_MAX otherwise). Vulkan
 * rounds +, -, * correctly and lets a division be 2.5 ULP off, so chains are compared to 3 ULP: on lavapipe, whose
 * division is IEEE's, every value here is 0 ULP apart (the test prints the largest distance). */
/* Whether the device may flush float32 subnormals (kc_device_flushes_subnormals): set once in main. Results below
 * FLT_MIN then compare as zero. */
static bool flushes_subnormals;

static uint32_t ulps(float want, float got)
{
    if (isnan(want) || isnan(got)) return isnan(want) && isnan(got) ? 0 : UINT32_MAX;
    if (flushes_subnormals) {
        want = kc_flush_subnormal(want);
        got = kc_flush_subnormal(got);
    }
    int32_t a, b;
    memcpy(&a, &want, sizeof(a));
    memcpy(&b, &got, sizeof(b));
    int64_t oa = a < 0 ? (int64_t)INT32_MIN - a : a, ob = b < 0 ? (int64_t)INT32_MIN - b : b; /* ordered */
    int64_t d = oa > ob ? oa - ob : ob - oa;
    return d > UINT32_MAX ? UINT32_MAX : (uint32_t)d;
}

/* Where compare() runs its reference: ORT's CPU EP, ortvk, or the CPU EP without ORT's graph optimizations (whose
 * fusions may change a model's meaning: its LayerNormFusion takes Pow(d, 4) for Pow(d, 2)). */
enum { REF_CPU, REF_ORTVK, REF_CPU_PLAIN };

/* The CPU EP's session of `model` without graph optimizations, or NULL. */
static OrtSession *plain_session(ortapp *app, const uint8_t *model, size_t len)
{
    const OrtApi *api = app->api;
    OrtSessionOptions *options = NULL;
    OrtSession *s = NULL;
    ORT_OK(app, api->CreateSessionOptions(&options));
    if (options != NULL && ORT_OK(app, api->SetSessionGraphOptimizationLevel(options, ORT_DISABLE_ALL)))
        ORT_OK(app, api->CreateSessionFromArray(app->env, model, len, options, &s));
    if (options != NULL) api->ReleaseSessionOptions(options);
    return s;
}

/* Runs session `s` (released here: an ortvk session writes its profile then) on x of `dims`, float or float16
 * (`half`): the special values where x has rank 1 (element-wise chains; float16 makes most huge ones infinities),
 * else finite ones (convolutions: sums of infinities are the order's). Returns y's values (malloc'd) and their
 * count, NULL on failure. */
static void *run_session(ortapp *app, OrtSession *s, int rank, const int64_t *dims, bool half, size_t *count)
{
    const OrtApi *api = app->api;
    size_t n = kc_count(dims, rank), esize = half ? sizeof(uint16_t) : sizeof(float);
    uint8_t *data = malloc(n * esize);
    for (size_t i = 0; i < n; i++) {
        float v = rank == 1 ? specials[i % N] : (float)((int)(i * 7 % 23) - 11) * 0.37f;
        if (half) ((uint16_t *)(void *)data)[i] = kc_float_to_half(v);
        else ((float *)(void *)data)[i] = v;
    }
    ONNXTensorElementDataType type = half ? ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16 : ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;
    OrtValue *x = test_host_tensor_of(app, data, type, n, rank, dims), *y = NULL;
    const char *in[] = {"x"}, *out[] = {"y"};
    ORT_OK(app, api->Run(s, NULL, in, (const OrtValue *const *)&x, 1, out, 1, &y));
    api->ReleaseSession(s);
    size_t bytes = 0;
    void *result = y ? kc_host_data(app, y, &bytes) : NULL;
    *count = bytes / esize;
    if (y) api->ReleaseValue(y);
    api->ReleaseValue(x);
    free(data);
    return result;
}

/* The output y of `m` for input x (`dims`) on ortvk (device) or the CPU EP (without graph optimizations:
 * `plain`); with ortvk and `profile`, the session's profile is written there. NULL on failure. */
static float *run_model(ortapp *app, const OrtEpDevice *device, onnx_model *m, int rank, const int64_t *dims,
                        const char *profile, bool plain, size_t *count)
{
    const OrtApi *api = app->api;
    uint8_t *model = NULL;
    size_t len = 0;
    int rc = onnx_model_serialize(m, &model, &len);
    onnx_model_free(m);
    if (rc != ONNX_OK) return NULL;
    const char *keys[] = {ORTVK_OPTION_PROFILE}, *values[] = {profile};
    OrtStatus *error = NULL;
    OrtSession *s = device ? test_session(app, device, model, len, keys, values, profile ? 1 : 0)
                    : plain ? plain_session(app, model, len)
                            : kc_session(app, NULL, model, len, false, false, &error);
    free(model);
    if (error) api->ReleaseStatus(error);
    return s != NULL ? run_session(app, s, rank, dims, false, count) : NULL;
}

/* Runs `m` on ortvk and `reference` where `on` says (REF_*: false is the CPU EP, true ortvk), and compares y to 3
 * ULP (`exact`) or within ONNX's tolerance; `fused` must appear among ortvk's profile's op types, `unfused` not. */
static void compare(ortapp *app, const OrtEpDevice *device, const char *name, onnx_model *m, onnx_model *reference,
                    int on, bool exact, int rank, const int64_t *dims, const char *fused, const char *unfused)
{
    char path[256];
    snprintf(path, sizeof(path), "/tmp/ortvk-test-fusion-%d.json", (int)getpid());
    size_t wn = 0, gn = 0;
    uint32_t worst = 0; /* the largest ULP distance */
    float *w = run_model(app, on == REF_ORTVK ? device : NULL, reference, rank, dims, NULL, on == REF_CPU_PLAIN, &wn);
    float *g = run_model(app, device, m, rank, dims, path, false, &gn);
    if (CHECK(w != NULL && g != NULL && wn == gn && wn > 0, "%s: outputs of %zu and %zu values", name, wn, gn)) {
        size_t bad = 0, first = 0;
        for (size_t i = 0; i < wn; i++) {
            uint32_t d = ulps(w[i], g[i]);
            if (d > worst) worst = d;
            bool same = exact ? d <= 3
                              : same_bits(w[i], g[i]) || fabs((double)w[i] - (double)g[i]) <= 1e-5 + 1e-3 * fabs(w[i]);
            if (!same && bad++ == 0) first = i;
        }
        CHECK(bad == 0, "%s: %zu of %zu values differ (first [%zu]: reference %.9g, ortvk %.9g)", name, bad, wn,
              first, w[first], g[first]);
    }
    char *profile = test_read_text(path);
    if (CHECK(profile != NULL, "%s: ortvk's profile %s", name, path)) {
        if (fused) CHECK(strstr(profile, fused) != NULL, "%s: the profile shows the fused kernel %s", name, fused);
        if (unfused) CHECK(strstr(profile, unfused) == NULL, "%s: nothing fused as %s", name, unfused);
        if (exact) printf("%-60s ok (%zu values, at most %u ULP apart%s%s)\n", name, wn, worst,
                          fused ? ", fused as " : "", fused ? fused : "");
        else printf("%-60s ok (%zu values within tolerance%s%s)\n", name, wn, fused ? ", fused as " : "",
                    fused ? fused : "");
    }
    free(profile);
    if (!getenv("KEEP_PROFILE")) unlink(path);
    free(w);
    free(g);
}

/* A case: builds its model; `variant` true gives the reference form (for a Conv epilogue: the Conv's result also an
 * output of the model, which keeps it unfused). */
typedef onnx_model *(*build_fn)(bool variant);

static onnx_model *model_of(int opset, int rank, const int64_t *dims)
{
    onnx_model *m = onnx_model_new(opset);
    onnx_model_add_input(m, "x", ONNX_FLOAT, rank, dims);
    onnx_model_add_output(m, "y", ONNX_FLOAT, -1, NULL);
    return m;
}

static const int64_t flat[1] = {N};

/* An element-wise chain on x of [N], on ortvk and on the CPU EP, to 3 ULP (0 on lavapipe). */
static void chain_case(ortapp *app, const OrtEpDevice *device, const char *name, build_fn build, const char *fused,
                       const char *unfused)
{
    compare(app, device, name, build(false), build(false), false, true, 1, flat, fused, unfused);
}

/* A Conv, MatMul or Gemm with a chain after it, x of `rank` and `dims`: to 3 ULP against ortvk running the node and
 * the chain apart, and within ONNX's tolerance against the CPU EP (whose sums run in another order); `fused` in
 * ortvk's profile, `unfused` (head_case_not) not. */
static void head_case_not(ortapp *app, const OrtEpDevice *device, const char *name, build_fn build, int rank,
                          const int64_t *dims, const char *fused, const char *unfused)
{
    compare(app, device, name, build(false), build(true), true, true, rank, dims, fused, unfused);
    char against_cpu[128];
    snprintf(against_cpu, sizeof(against_cpu), "%s (CPU EP)", name);
    compare(app, device, against_cpu, build(false), build(false), false, false, rank, dims, fused, unfused);
}

static void head_case(ortapp *app, const OrtEpDevice *device, const char *name, build_fn build, int rank,
                      const int64_t *dims, const char *fused)
{
    head_case_not(app, device, name, build, rank, dims, fused, NULL);
}

static void conv_case(ortapp *app, const OrtEpDevice *device, const char *name, build_fn build, const int64_t *dims,
                      const char *fused)
{
    head_case(app, device, name, build, 4, dims, fused);
}

/* ---- the cases ------------------------------------------------------------------------------------------ */

/* Hard swish as MobileNet-like models write it: t * Clip(t + 3, 0, 6) / 6, after `t` (the model's x, or a Conv). */
static void hard_swish(onnx_model *m, const char *t)
{
    scalar(m, "three", 3.0f), scalar(m, "zero", 0.0f), scalar(m, "six", 6.0f);
    add(m, "Add", t, "three", "a");
    const char *clip_in[] = {"a", "zero", "six"}, *clip_out[] = {"c"};
    onnx_model_add_node(m, "Clip", clip_in, 3, clip_out, 1);
    add(m, "Div", "c", "six", "d");
    add(m, "Mul", t, "d", "y");
}

static onnx_model *swish_chain(bool variant)
{
    (void)variant;
    onnx_model *m = model_of(13, 1, flat);
    hard_swish(m, "x");
    return m;
}
/* The same on an input of no known rank (ORT knows none of a recognizer's values' at Compile): its constants of rank
 * 0 keep the shape whatever it is. */
static onnx_model *swish_unknown_rank(bool variant)
{
    (void)variant;
    onnx_model *m = model_of(13, -1, NULL);
    hard_swish(m, "x");
    return m;
}

/* A learnable affine then Relu, the scalar on the left. */
static onnx_model *affine_relu(bool variant)
{
    (void)variant;
    onnx_model *m = model_of(13, 1, flat);
    scalar(m, "s", -1.5f), scalar(m, "b", 0.25f);
    add(m, "Mul", "s", "x", "a");
    add(m, "Add", "a", "b", "r");
    add(m, "Relu", "r", NULL, "y");
    return m;
}

/* The reversed forms of Sub and Div, and t + x. */
static onnx_model *reversed(bool variant)
{
    (void)variant;
    onnx_model *m = model_of(13, 1, flat);
    scalar(m, "two", 2.0f), scalar(m, "one", 1.0f), scalar(m, "half", 0.5f);
    add(m, "Sub", "two", "x", "a");
    add(m, "Div", "one", "a", "b");
    add(m, "Sub", "b", "half", "c");
    add(m, "Add", "c", "x", "y");
    return m;
}

/* Clip's bounds as attributes (Clip-6, the version up to opset 10). */
static onnx_model *clip_attributes(bool variant)
{
    (void)variant;
    onnx_model *m = model_of(10, 1, flat);
    scalar(m, "k", 1e30f);
    add(m, "Mul", "x", "k", "a");
    const char *in[] = {"a"}, *out[] = {"y"};
    onnx_node *clip = onnx_model_add_node(m, "Clip", in, 1, out, 1);
    onnx_node_attr_float(clip, "min", -1e35f);
    onnx_node_attr_float(clip, "max", 2.0f);
    return m;
}

/* t = x + 1 is read by Relu and by a Sigmoid outside any chain: t must be stored, Add and Relu stay apart. */
static onnx_model *read_twice(bool variant)
{
    (void)variant;
    onnx_model *m = model_of(13, 1, flat);
    onnx_model_add_output(m, "z", ONNX_FLOAT, 1, flat);
    scalar(m, "one", 1.0f);
    add(m, "Add", "x", "one", "t");
    add(m, "Relu", "t", NULL, "y");
    add(m, "Sigmoid", "t", NULL, "z");
    return m;
}

/* u = 2x is read twice, both times inside the chain: kept in a register (a MARK step), Relu(u) * u. */
static onnx_model *kept_value(bool variant)
{
    (void)variant;
    onnx_model *m = model_of(13, 1, flat);
    scalar(m, "two", 2.0f);
    add(m, "Mul", "x", "two", "u");
    add(m, "Relu", "u", NULL, "r");
    add(m, "Mul", "r", "u", "y");
    return m;
}

/* The middle value is also an output of the model: the chain stops before it is consumed. */
static onnx_model *middle_output(bool variant)
{
    (void)variant;
    onnx_model *m = model_of(13, 1, flat);
    onnx_model_add_output(m, "mid", ONNX_FLOAT, 1, flat);
    scalar(m, "two", 2.0f);
    add(m, "Mul", "x", "two", "mid");
    add(m, "Sub", "mid", "two", "y");
    return m;
}

/* A constant of higher rank than x broadcasts x up: not a chain step (the shape changes). */
static onnx_model *higher_rank(bool variant)
{
    (void)variant;
    onnx_model *m = model_of(13, 1, flat);
    int64_t one[2] = {1, 1};
    float k = 3.0f;
    onnx_model_add_initializer(m, "k", ONNX_FLOAT, 2, one, &k, sizeof(k));
    add(m, "Add", "x", "k", "a");
    add(m, "Relu", "a", NULL, "y");
    return m;
}

/* Scales computed from x's shape with float arithmetic (Cast(Shape(x)) * 0 + 2): shape values the partition keeps on
 * the host for Resize (kernel_shape_ops.c), never a device chain. */
static onnx_model *host_scales(bool variant)
{
    (void)variant;
    int64_t symbolic[4] = {-1, -1, -1, -1}; /* a shape ORT cannot fold into a constant */
    onnx_model *m = model_of(13, 4, symbolic);
    scalar(m, "zero", 0.0f), scalar(m, "two", 2.0f);
    const char *shape_in[] = {"x"}, *shape_out[] = {"s"}, *cast_in[] = {"s"}, *cast_out[] = {"f"};
    onnx_model_add_node(m, "Shape", shape_in, 1, shape_out, 1);
    onnx_node *cast = onnx_model_add_node(m, "Cast", cast_in, 1, cast_out, 1);
    onnx_node_attr_int(cast, "to", ONNX_FLOAT);
    add(m, "Mul", "f", "zero", "z");
    add(m, "Add", "z", "two", "scales");
    const char *resize_in[] = {"x", "", "scales"}, *resize_out[] = {"y"};
    onnx_model_add_node(m, "Resize", resize_in, 3, resize_out, 1);
    return m;
}

/* The activations as steps: a node of `op` on `a` giving `out`, with its float attributes (NULL: defaults). When
 * `keep`, `out` is also an output of the model, so that no chain runs through it (the unfused reference). */
static void activation(onnx_model *m, const char *op, const char *a, const char *out, const char *attr1, float v1,
                       const char *attr2, float v2, bool keep)
{
    const char *in[] = {a}, *outs[] = {out};
    onnx_node *node = onnx_model_add_node(m, op, in, 1, outs, 1);
    if (attr1) onnx_node_attr_float(node, attr1, v1);
    if (attr2) onnx_node_attr_float(node, attr2, v2);
    if (keep) onnx_model_add_output(m, out, ONNX_FLOAT, -1, NULL);
}

/* Swish as models write it: x * Sigmoid(x), x read twice inside the chain. */
static onnx_model *sigmoid_swish(bool variant)
{
    onnx_model *m = model_of(14, 1, flat);
    activation(m, "Sigmoid", "x", "s", NULL, 0, NULL, 0, variant);
    add(m, "Mul", "s", "x", "y");
    return m;
}

/* Every activation step in one chain, with attributes off their defaults. */
static onnx_model *activations(bool variant)
{
    onnx_model *m = model_of(14, 1, flat);
    scalar(m, "half", 0.5f), scalar(m, "two", 2.0f);
    add(m, "Mul", "x", "two", "a");
    activation(m, "LeakyRelu", "a", "l", "alpha", 0.2f, NULL, 0, variant);
    activation(m, "HardSwish", "l", "h", NULL, 0, NULL, 0, variant);
    activation(m, "Tanh", "h", "t", NULL, 0, NULL, 0, variant);
    add(m, "Add", "t", "half", "u");
    activation(m, "HardSigmoid", "u", "y", "alpha", 0.3f, "beta", 0.4f, false);
    return m;
}

/* Two transcendental steps: a chain holds one (each is an exponential, a division and branches at every value an
 * invocation stores; two made pipelines lavapipe took seconds to build). */
static onnx_model *sigmoid_tanh(bool variant)
{
    (void)variant;
    onnx_model *m = model_of(14, 1, flat);
    activation(m, "Sigmoid", "x", "s", NULL, 0, NULL, 0, false);
    activation(m, "Tanh", "s", "y", NULL, 0, NULL, 0, false);
    return m;
}

/* Conv of x [1, C, 12, 12] to `out` channels, kernel k, `group`, pads k / 2, then `chain` on its result "t";
 * `before` (or NULL) adds nodes ahead of the Conv. */
static onnx_model *conv_after(bool variant, int64_t c, int64_t out, int64_t k, int64_t group, int64_t h, int64_t w_,
                              void (*before)(onnx_model *), void (*chain)(onnx_model *, const char *))
{
    int64_t dims[4] = {1, c, h, w_}, wd[4] = {out, c / group, k, k}, bd[1] = {out};
    onnx_model *m = model_of(14, 4, dims);
    if (before) before(m);
    size_t n = (size_t)(out * (c / group) * k * k);
    float *w = malloc(n * sizeof(float)), b[64];
    for (size_t i = 0; i < n; i++) w[i] = (float)((int)(i * 37 % 17) - 8) * 0.05f;
    for (int64_t i = 0; i < out; i++) b[i] = (float)(i % 5) * 0.25f - 0.5f;
    onnx_model_add_initializer(m, "w", ONNX_FLOAT, 4, wd, w, n * sizeof(float));
    onnx_model_add_initializer(m, "b", ONNX_FLOAT, 1, bd, b, (size_t)out * sizeof(float));
    free(w);
    const char *in[] = {before ? "r" : "x", "w", "b"}, *outs[] = {"t"}; /* `before` makes r */
    onnx_node *conv = onnx_model_add_node(m, "Conv", in, 3, outs, 1);
    int64_t pads[4] = {k / 2, k / 2, k / 2, k / 2};
    onnx_node_attr_ints(conv, "pads", pads, 4);
    onnx_node_attr_int(conv, "group", group);
    if (variant) onnx_model_add_output(m, "t", ONNX_FLOAT, -1, NULL);
    chain(m, "t");
    return m;
}

static onnx_model *conv_then(bool variant, int64_t c, int64_t out, int64_t k, int64_t group, int64_t h, int64_t w_,
                             void (*chain)(onnx_model *, const char *))
{
    return conv_after(variant, c, out, k, group, h, w_, NULL, chain);
}

static void relu_of(onnx_model *m, const char *t)
{
    add(m, "Relu", t, NULL, "y");
}

/* Clip, then an affine (ORT itself folds a Mul by a constant right after a Conv into its weights). */
static void clip_affine(onnx_model *m, const char *t)
{
    scalar(m, "scale", 0.75f), scalar(m, "shift", -0.125f), scalar(m, "lo", -1.0f), scalar(m, "hi", 1.0f);
    const char *in[] = {t, "lo", "hi"}, *out[] = {"c"};
    onnx_model_add_node(m, "Clip", in, 3, out, 1);
    add(m, "Mul", "c", "scale", "a");
    add(m, "Add", "a", "shift", "y");
}

/* PP-LCNet's pattern: an affine, then hard swish of the affine's result (read twice). Add first: ORT folds a Mul by
 * a constant right after a Conv into the Conv's weights. */
static void affine_swish(onnx_model *m, const char *t)
{
    scalar(m, "scale", 1.25f), scalar(m, "shift", 0.5f);
    add(m, "Add", t, "shift", "s");
    add(m, "Mul", "s", "scale", "u");
    hard_swish(m, "u");
}

/* Gemm (x [12, 16] times W [16, 8] plus a bias row) or batched MatMul (x [3, 12, 16] times W [16, 6]: an N the
 * vec4 form does not take), then `chain` on its result "t". `symbolic`: x's first dim symbolic, where ORT's own
 * MatMulAddFusion (a batched MatMul and an Add as Reshape, Gemm, Reshape) does not apply. */
static onnx_model *gemm_then_of(bool variant, bool matmul, bool symbolic, void (*chain)(onnx_model *, const char *))
{
    int64_t xd[3] = {symbolic ? -1 : 3, 12, 16}, n = matmul ? 6 : 8, wd[2] = {16, n}, bd[1] = {n};
    onnx_model *m = model_of(14, matmul ? 3 : 2, matmul ? xd : xd + 1);
    float w[16 * 8], b[8];
    for (int i = 0; i < 16 * n; i++) w[i] = (float)((i * 37 % 17) - 8) * 0.05f;
    for (int i = 0; i < n; i++) b[i] = (float)(i % 5) * 0.25f - 0.5f;
    onnx_model_add_initializer(m, "w", ONNX_FLOAT, 2, wd, w, (size_t)(16 * n) * sizeof(float));
    onnx_model_add_initializer(m, "b", ONNX_FLOAT, 1, bd, b, (size_t)n * sizeof(float));
    const char *in[] = {"x", "w", "b"}, *outs[] = {"t"};
    onnx_model_add_node(m, matmul ? "MatMul" : "Gemm", in, matmul ? 2 : 3, outs, 1);
    if (variant) onnx_model_add_output(m, "t", ONNX_FLOAT, -1, NULL);
    chain(m, "t");
    return m;
}

static onnx_model *gemm_then(bool variant, bool matmul, void (*chain)(onnx_model *, const char *))
{
    return gemm_then_of(variant, matmul, false, chain);
}

static void hard_sigmoid_of(onnx_model *m, const char *t) { activation(m, "HardSigmoid", t, "y", NULL, 0, NULL, 0, 0); }
static void sigmoid_of(onnx_model *m, const char *t) { activation(m, "Sigmoid", t, "y", NULL, 0, NULL, 0, false); }
static void tanh_of(onnx_model *m, const char *t) { activation(m, "Tanh", t, "y", NULL, 0, NULL, 0, false); }
static void hard_swish_op(onnx_model *m, const char *t) { activation(m, "HardSwish", t, "y", NULL, 0, NULL, 0, 0); }
/* (t^2 + 1)^(1/2) written as Pow 2, Add 1, Sqrt: a chain of the new steps in a head's stores (never below 0). */
static void hypot1_of(onnx_model *m, const char *t)
{
    scalar(m, "two", 2.0f), scalar(m, "one", 1.0f);
    add(m, "Pow", t, "two", "sq");
    add(m, "Add", "sq", "one", "sp");
    add(m, "Sqrt", "sp", NULL, "y");
}
static void leaky_relu_of(onnx_model *m, const char *t)
{
    activation(m, "LeakyRelu", t, "y", "alpha", 0.125f, NULL, 0, false);
}

/* Residual shortcuts: the model's input x (of the Conv's output shape), or r = |x| made in the partition (the Conv's
 * input then), added to or multiplied by the Conv's result, either way round; a pooled x that broadcasts. */
static void plus_x(onnx_model *m, const char *t) { add(m, "Add", t, "x", "y"); }
static void x_plus(onnx_model *m, const char *t) { add(m, "Add", "x", t, "y"); }
static void times_x(onnx_model *m, const char *t) { add(m, "Mul", t, "x", "y"); }
static void plus_x_relu(onnx_model *m, const char *t)
{
    add(m, "Add", "x", t, "s");
    add(m, "Relu", "s", NULL, "y");
}
static void abs_x(onnx_model *m) { add(m, "Abs", "x", NULL, "r"); }
static void plus_r_clip(onnx_model *m, const char *t)
{
    add(m, "Add", t, "r", "s");
    clip_affine(m, "s");
}
static void pooled_x(onnx_model *m, const char *t)
{
    add(m, "GlobalAveragePool", "x", NULL, "p");
    add(m, "Add", t, "p", "y");
}
static onnx_model *conv3x3_res(bool variant) { return conv_then(variant, 8, 8, 3, 1, 12, 12, plus_x); }
static onnx_model *conv3x3_res_first(bool variant) { return conv_then(variant, 8, 8, 3, 1, 12, 12, x_plus); }
static onnx_model *conv3x3_res_relu(bool variant) { return conv_then(variant, 8, 8, 3, 1, 12, 12, plus_x_relu); }
static onnx_model *conv5x5_res_mul(bool variant) { return conv_then(variant, 8, 8, 5, 1, 12, 12, times_x); }
static onnx_model *conv_general_res(bool variant) { return conv_then(variant, 6, 6, 3, 1, 12, 12, plus_x_relu); }
static onnx_model *conv_computed_res(bool variant)
{
    return conv_after(variant, 8, 8, 3, 1, 12, 12, abs_x, plus_r_clip);
}
/* r = |x| added after the Conv (ORT orders the Conv first): the fused kernel runs where the Add did. */
static void abs_late(onnx_model *m, const char *t)
{
    add(m, "Abs", "x", NULL, "r");
    add(m, "Add", "r", t, "y");
}
static onnx_model *conv_late_res(bool variant) { return conv_then(variant, 8, 8, 3, 1, 12, 12, abs_late); }
static onnx_model *conv_broadcast_res(bool variant) { return conv_then(variant, 8, 8, 3, 1, 12, 12, pooled_x); }
static onnx_model *depthwise_res_relu(bool variant) { return conv_then(variant, 16, 16, 3, 16, 12, 12, plus_x_relu); }
static onnx_model *depthwise_odd_res(bool variant) { return conv_then(variant, 16, 16, 3, 16, 10, 10, x_plus); }
static onnx_model *conv1x1_res_relu(bool variant) { return conv_then(variant, 16, 16, 1, 1, 12, 12, plus_x_relu); }
/* The GEMM's forms with a residual: wide with K a constant (512 pixels), one pixel (A and B swapped), and 30
 * pixels (not whole vec4s: B's rows read and y stored element by element, the shader's B_ODD). */
static onnx_model *conv1x1_wide_res(bool variant) { return conv_then(variant, 16, 16, 1, 1, 16, 32, plus_x); }
static onnx_model *conv1x1_pixel_res(bool variant) { return conv_then(variant, 24, 24, 1, 1, 1, 1, plus_x); }
static onnx_model *conv1x1_odd_res(bool variant) { return conv_then(variant, 16, 16, 1, 1, 10, 3, plus_x_relu); }

/* A chain that starts at t + r on two tensors made in the partition: |x| + (-x), then Relu; x of [N], or of two
 * dims known at run time. */
static onnx_model *sum_relu_of(int rank, const int64_t *dims)
{
    onnx_model *m = model_of(13, rank, dims);
    add(m, "Abs", "x", NULL, "a");
    add(m, "Neg", "x", NULL, "b");
    add(m, "Add", "a", "b", "s");
    add(m, "Relu", "s", NULL, "y");
    return m;
}
static onnx_model *sum_relu(bool variant)
{
    (void)variant;
    return sum_relu_of(1, flat);
}

/* A spectrum's magnitude, as Silero VAD's STFT computes it: Sqrt(Pow(x, 2) + Pow(x * 0.75, 2)), each Pow of a
 * constant exponent 2 a step (t * t), the Sqrt one too: two chains, Mul+Pow and Pow+Add+Sqrt. */
static onnx_model *magnitude(bool variant)
{
    (void)variant;
    onnx_model *m = model_of(13, 1, flat);
    scalar(m, "two", 2.0f), scalar(m, "k", 0.75f);
    add(m, "Mul", "x", "k", "b");
    add(m, "Pow", "b", "two", "bb");
    add(m, "Pow", "x", "two", "aa");
    add(m, "Add", "aa", "bb", "s");
    add(m, "Sqrt", "s", NULL, "y");
    return m;
}

/* Pow with an exponent other than 2 (3) is no step: Pow stays its own kernel, the Relu after it alone. */
static onnx_model *cube_relu(bool variant)
{
    (void)variant;
    onnx_model *m = model_of(13, 1, flat);
    scalar(m, "three", 3.0f);
    add(m, "Pow", "x", "three", "c");
    add(m, "Relu", "c", NULL, "y");
    return m;
}

/* The detector's RSE-FPN neck: y = |x| (x of [1, 8, H, W], H and W symbolic as there) read by GlobalAveragePool, a
 * Mul and an Add; s = HardSigmoid(GAP(y)), [1, 8, 1, 1]; y * s (or s * y), y + that, then + r (Neg(x), of y's
 * shape; or an upper level made by Resize of a MaxPool of x): one stand-alone chain reading y as x, s broadcast per
 * channel and r. `variant`: the Mul's and the first Add's results are model outputs too (nothing fuses). */
static onnx_model *neck_of(bool variant, bool scale_first, bool resized)
{
    int64_t dims[4] = {1, 8, -1, -1};
    onnx_model *m = model_of(13, 4, dims);
    add(m, "Abs", "x", NULL, "t");
    add(m, "GlobalAveragePool", "t", NULL, "p");
    activation(m, "HardSigmoid", "p", "s", NULL, 0, NULL, 0, false);
    add(m, "Mul", scale_first ? "s" : "t", scale_first ? "t" : "s", "m");
    add(m, "Add", "t", "m", "a");
    if (resized) {
        const char *pool_in[] = {"x"}, *pool_out[] = {"h"};
        onnx_node *pool = onnx_model_add_node(m, "MaxPool", pool_in, 1, pool_out, 1);
        int64_t k[2] = {2, 2};
        onnx_node_attr_ints(pool, "kernel_shape", k, 2);
        onnx_node_attr_ints(pool, "strides", k, 2);
        float scales[4] = {1.0f, 1.0f, 2.0f, 2.0f};
        int64_t four[1] = {4};
        onnx_model_add_initializer(m, "scales", ONNX_FLOAT, 1, four, scales, sizeof(scales));
        const char *resize_in[] = {"h", "", "scales"}, *resize_out[] = {"r"};
        onnx_node *resize = onnx_model_add_node(m, "Resize", resize_in, 3, resize_out, 1);
        onnx_node_attr_string(resize, "mode", "nearest");
    } else {
        add(m, "Neg", "x", NULL, "r");
    }
    add(m, "Add", "a", "r", "y");
    if (variant) {
        onnx_model_add_output(m, "m", ONNX_FLOAT, -1, NULL);
        onnx_model_add_output(m, "a", ONNX_FLOAT, -1, NULL);
    }
    return m;
}
static onnx_model *neck(bool variant) { return neck_of(variant, false, false); }
static onnx_model *neck_scale_first(bool variant) { return neck_of(variant, true, false); }
static onnx_model *neck_resized(bool variant) { return neck_of(variant, false, true); }

/* y = max of x over `n` axes, as node ReduceMax (the axes an attribute, opset 13). */
static void reduce_max(onnx_model *m, const char *x, const char *y, const int64_t *axes, int n)
{
    onnx_node *max = onnx_model_add_node(m, "ReduceMax", (const char *[]){x}, 1, (const char *[]){y}, 1);
    onnx_node_attr_ints(max, "axes", axes, n);
}

/* Per-channel operands the chain reads through its broadcast table: x of [2, 4, H, W] plus GAP(x) ([2, 4, 1, 1])
 * times a per-batch max ([2, 1, 1, 1], a ReduceMax), then Relu: two operands that broadcast differently. With
 * `third`, a third operand does not fit: (x + p) * b + |x|, then Relu; the chain stops before the last Add. */
static onnx_model *broadcasts_of(bool variant, bool third)
{
    int64_t dims[4] = {2, 4, -1, -1};
    onnx_model *m = model_of(13, 4, dims);
    add(m, "GlobalAveragePool", "x", NULL, "p");
    reduce_max(m, "x", "b", (const int64_t[]){1, 2, 3}, 3);
    if (third) add(m, "Abs", "x", NULL, "r");
    add(m, "Add", "x", "p", "a");
    add(m, "Mul", "a", "b", "c");
    if (third) add(m, "Add", "c", "r", "d");
    add(m, "Relu", third ? "d" : "c", NULL, "y");
    if (variant) onnx_model_add_output(m, "a", ONNX_FLOAT, -1, NULL);
    return m;
}
static onnx_model *two_broadcasts(bool variant) { return broadcasts_of(variant, false); }
static onnx_model *three_operands(bool variant) { return broadcasts_of(variant, true); }

/* Operands that all step along the last dim: x of [1, 4, H, W], q its max over the channels ([1, 1, H, W], a
 * ReduceMax), r = |x|; (x + q) * r, then Relu. In the vectorised broadcast form every operand reads a vec4 of its
 * own (the form for each set of operands that step is a pipeline of its own, kernel_chain.comp's STEPS). */
static onnx_model *plane_max(bool variant)
{
    int64_t dims[4] = {1, 4, -1, -1};
    onnx_model *m = model_of(13, 4, dims);
    reduce_max(m, "x", "q", (const int64_t[]){1}, 1);
    add(m, "Abs", "x", NULL, "r");
    add(m, "Add", "x", "q", "a");
    add(m, "Mul", "a", "r", "c");
    add(m, "Relu", "c", NULL, "y");
    if (variant) onnx_model_add_output(m, "a", ONNX_FLOAT, -1, NULL);
    return m;
}

/* Operands that keep 5 dims apart after coalescing (the broadcast table in a buffer, not the push constants): x of
 * rank 5, r its max over dims 1 and 3, q over dims 0, 2 and 4; x + r, * q, then Relu. The ReduceMax nodes run on
 * the CPU EP, between the Add and the Mul in ORT's order: the Add is a partition of its own, the chain Mul + Relu
 * reads a (of x's shape) and q over 5 dims. */
static onnx_model *five_dims(bool variant)
{
    int64_t dims[5] = {-1, -1, -1, -1, -1};
    onnx_model *m = model_of(13, 5, dims);
    reduce_max(m, "x", "r", (const int64_t[]){1, 3}, 2);
    reduce_max(m, "x", "q", (const int64_t[]){0, 2, 4}, 3);
    add(m, "Add", "x", "r", "a");
    add(m, "Mul", "a", "q", "c");
    add(m, "Relu", "c", NULL, "y");
    if (variant) onnx_model_add_output(m, "a", ONNX_FLOAT, -1, NULL);
    return m;
}

/* The detector's head: ConvTranspose of x [1, 8, H, W] to `out` channels (kernel k, stride `stride`, pads `pad`, no
 * bias), + a constant [1, out, 1, 1], BatchNormalization of constants, Relu, in the ConvTranspose's stores. The
 * normalization's values are special: var + epsilon 0 (an infinite scale) and negative (NaN), a scale near FLT_MAX
 * and a mean that makes B - mean s overflow. `form` 1: the BN's output also a model output (the chain ends at it);
 * 2: its mean computed (ReduceMean of x: not a constant, the chain ends before it); 3: the constant added per
 * column, not per channel (not a per-channel step, nothing fused); HEAD_HALF: values of float16's range for a
 * model converted to float16 (a negative variance still gives NaN, B - mean s nears float16's largest). */
#define HEAD_HALF 8
static onnx_model *head_of(bool variant, int64_t out, int64_t k, int64_t stride, int64_t pad, int64_t h, int64_t w_,
                           int form)
{
    int64_t dims[4] = {1, 8, h, w_}, wd[4] = {8, out, k, k}, cd[1] = {out}, ad[4] = {1, out, 1, 1};
    int64_t ow = (w_ - 1) * stride + k - 2 * pad, column[4] = {1, 1, 1, ow};
    onnx_model *m = model_of(14, 4, dims);
    size_t n = (size_t)(8 * out * k * k);
    float *w = malloc(n * sizeof(float)), a[64];
    for (size_t i = 0; i < n; i++) w[i] = (float)((int)(i * 37 % 17) - 8) * 0.05f;
    for (int64_t i = 0; i < 64; i++) a[i] = (float)(i % 7) * 0.125f - 0.375f;
    static const float scale[8] = {1.5f, -0.75f, 3e38f, 0.0f, 2.0f, 1.0f, 0.5f, -2.0f},
                       bias[8] = {0.1f, -0.2f, 0.3f, 1e30f, 0.0f, -1.0f, 2.0f, 0.5f},
                       mean[8] = {0.05f, 3e38f, -0.1f, 0.0f, 0.2f, 1e-3f, -1.0f, 0.25f},
                       var[8] = {1.0f, 0.5f, 2.0f, -1e-5f, 0.0f, -1.0f, 1e-3f, 3e38f};
    static const float scale16[8] = {1.5f, -0.75f, 300.0f, 0.0f, 2.0f, 1.0f, 0.5f, -2.0f},
                       bias16[8] = {0.1f, -0.2f, 0.3f, 6e4f, 0.0f, -1.0f, 2.0f, 0.5f},
                       mean16[8] = {0.05f, 6e4f, -0.1f, 0.0f, 0.2f, 1e-3f, -1.0f, 0.25f},
                       var16[8] = {1.0f, 0.5f, 2.0f, 1e-3f, 0.0f, -1.0f, 1e-3f, 6e4f};
    bool half = form & HEAD_HALF;
    form &= ~HEAD_HALF;
    const float *bn[4] = {half ? scale16 : scale, half ? bias16 : bias, half ? mean16 : mean, half ? var16 : var};
    const char *names[4] = {"scale", "B", "mean", "var"};
    for (int i = 0; i < 4; i++) {
        float v[64];
        for (int64_t c = 0; c < out; c++) v[c] = bn[i][c % 8];
        if (i != 2 || form != 2) onnx_model_add_initializer(m, names[i], ONNX_FLOAT, 1, cd, v, (size_t)out * 4);
    }
    onnx_model_add_initializer(m, "w", ONNX_FLOAT, 4, wd, w, n * sizeof(float));
    onnx_model_add_initializer(m, "a", ONNX_FLOAT, 4, form == 3 ? column : ad, a,
                               (size_t)(form == 3 ? ow : out) * sizeof(float));
    free(w);
    onnx_node *convt = onnx_model_add_node(m, "ConvTranspose", (const char *[]){"x", "w"}, 2, (const char *[]){"t"}, 1);
    onnx_node_attr_ints(convt, "strides", (const int64_t[]){stride, stride}, 2);
    onnx_node_attr_ints(convt, "pads", (const int64_t[]){pad, pad, pad, pad}, 4);
    if (variant) onnx_model_add_output(m, "t", ONNX_FLOAT, -1, NULL);
    if (form == 2) {
        onnx_node *mean_of =
            onnx_model_add_node(m, "ReduceMean", (const char *[]){"x"}, 1, (const char *[]){"mean"}, 1);
        onnx_node_attr_ints(mean_of, "axes", (const int64_t[]){0, 2, 3}, 3);
        onnx_node_attr_int(mean_of, "keepdims", 0);
    }
    add(m, "Add", "t", "a", "s");
    const char *norm_in[] = {"s", "scale", "B", "mean", "var"}, *norm_out[] = {"n"};
    onnx_node_attr_float(onnx_model_add_node(m, "BatchNormalization", norm_in, 5, norm_out, 1), "epsilon", 1e-5f);
    if (form == 1) onnx_model_add_output(m, "n", ONNX_FLOAT, -1, NULL);
    add(m, "Relu", "n", NULL, "y");
    return m;
}
static onnx_model *head_tiles(bool variant) { return head_of(variant, 8, 2, 2, 0, 6, 8, 0); }
static onnx_model *head_tiles_3(bool variant) { return head_of(variant, 3, 2, 2, 0, 5, 16, 0); }
static onnx_model *head_blocks(bool variant) { return head_of(variant, 8, 2, 2, 0, 5, 6, 0); }
static onnx_model *head_direct(bool variant) { return head_of(variant, 8, 3, 3, 0, 4, 5, 0); }
static onnx_model *head_general(bool variant) { return head_of(variant, 16, 3, 2, 1, 5, 6, 0); }
static onnx_model *head_bn_output(bool variant) { return head_of(variant, 8, 2, 2, 0, 6, 8, 1); }
static onnx_model *head_bn_computed(bool variant) { return head_of(variant, 8, 2, 2, 0, 6, 8, 2); }
static onnx_model *head_columns(bool variant) { return head_of(variant, 8, 2, 2, 0, 6, 8, 3); }
static onnx_model *head_tiles_half(bool variant) { return head_of(variant, 8, 2, 2, 0, 6, 8, HEAD_HALF); }
static onnx_model *head_tiles_3_half(bool variant) { return head_of(variant, 3, 2, 2, 0, 5, 16, HEAD_HALF); }
static onnx_model *head_blocks_half(bool variant) { return head_of(variant, 8, 2, 2, 0, 5, 6, HEAD_HALF); }
static onnx_model *head_direct_half(bool variant) { return head_of(variant, 8, 3, 3, 0, 4, 5, HEAD_HALF); }
static onnx_model *head_general_half(bool variant) { return head_of(variant, 16, 3, 2, 1, 5, 6, HEAD_HALF); }

static onnx_model *gemm_relu(bool variant) { return gemm_then(variant, false, relu_of); }
static onnx_model *matmul_swish(bool variant) { return gemm_then(variant, true, hard_swish); }
static void plus_bias(onnx_model *m, const char *t) { add(m, "Add", t, "b", "y"); }
static void bias_plus_relu(onnx_model *m, const char *t)
{
    add(m, "Add", "b", t, "s");
    relu_of(m, "s");
}
static onnx_model *matmul_bias(bool variant) { return gemm_then_of(variant, true, true, plus_bias); }
static onnx_model *matmul_bias_relu(bool variant) { return gemm_then_of(variant, true, true, bias_plus_relu); }
/* QuickGelu as the recognizer writes it after a linear layer: s = t + b, then s * Sigmoid(1.702 s). */
static void bias_quick_gelu(onnx_model *m, const char *t)
{
    add(m, "Add", t, "b", "s");
    scalar(m, "k", 1.702f);
    add(m, "Mul", "s", "k", "ks");
    activation(m, "Sigmoid", "ks", "g", NULL, 0, NULL, 0, false);
    add(m, "Mul", "s", "g", "y");
}
static onnx_model *matmul_bias_gelu(bool variant) { return gemm_then_of(variant, true, true, bias_quick_gelu); }
static onnx_model *conv3x3_affine_swish(bool variant) { return conv_then(variant, 8, 16, 3, 1, 12, 12, affine_swish); }
static onnx_model *conv3x3_swish(bool variant) { return conv_then(variant, 8, 16, 3, 1, 12, 12, hard_swish); }
static onnx_model *conv1x1_relu(bool variant) { return conv_then(variant, 16, 8, 1, 1, 12, 12, relu_of); }
static onnx_model *conv1x1_wide_swish(bool variant) { return conv_then(variant, 16, 24, 1, 1, 16, 32, hard_swish); }
static onnx_model *depthwise_clip(bool variant) { return conv_then(variant, 16, 16, 3, 16, 12, 12, clip_affine); }
static onnx_model *conv1x1_hard_sigmoid(bool variant)
{
    return conv_then(variant, 16, 8, 1, 1, 12, 12, hard_sigmoid_of);
}
static onnx_model *conv1x1_wide_hard_swish(bool variant)
{
    return conv_then(variant, 16, 24, 1, 1, 16, 32, hard_swish_op);
}
/* Pointwise convolutions of 18 input channels (not a multiple of 4: the GEMM's last K % 4 one k at a time) over 512
 * pixels, to 24 channels (8-row wide blocks) and to 48 (16-row blocks). */
static onnx_model *conv1x1_k18_swish(bool variant) { return conv_then(variant, 18, 24, 1, 1, 16, 32, hard_swish); }
static onnx_model *conv1x1_k12_swish(bool variant) { return conv_then(variant, 12, 48, 1, 1, 4, 127, hard_swish); }
static onnx_model *conv1x1_k18_hard_swish(bool variant)
{
    return conv_then(variant, 18, 48, 1, 1, 16, 32, hard_swish_op);
}
static onnx_model *conv3x3_tanh(bool variant) { return conv_then(variant, 8, 16, 3, 1, 12, 12, tanh_of); }
static onnx_model *conv3x3_hypot1(bool variant) { return conv_then(variant, 8, 16, 3, 1, 12, 12, hypot1_of); }
/* The 3x3 row form of few input channels (16 outputs an invocation) and its vec4 stores: rows of 12 and 20 columns
 * (a half column block), an odd height. */
static onnx_model *conv3_16_swish(bool variant) { return conv_then(variant, 3, 16, 3, 1, 12, 12, hard_swish_op); }
static onnx_model *conv3_16_odd_swish(bool variant) { return conv_then(variant, 3, 16, 3, 1, 9, 20, hard_swish_op); }
static onnx_model *depthwise_leaky(bool variant) { return conv_then(variant, 16, 16, 3, 16, 12, 12, leaky_relu_of); }
static onnx_model *gemm_sigmoid(bool variant) { return gemm_then(variant, false, sigmoid_of); }

/* ---- small multilayer perceptrons: Gemm and MatMul layers in one dispatch (kernel_mlp.c) ------------------- */

/* A layer "out" = op(in, W [k, n] or [n, k] with transB) (+ a bias [n], or [1, n] with `row_bias`), its weights
 * seeded by `seed`. */
static onnx_node *layer(onnx_model *m, const char *op, const char *in, const char *out, int64_t k, int64_t n,
                        bool trans_b, bool bias, bool row_bias, int seed)
{
    char w[32], b[32];
    snprintf(w, sizeof(w), "%s_w", out);
    snprintf(b, sizeof(b), "%s_b", out);
    float *wv = malloc((size_t)(k * n) * sizeof(float)), *bv = malloc((size_t)n * sizeof(float));
    for (int64_t i = 0; i < k * n; i++) wv[i] = (float)((i * 37 + seed * 11) % 17 - 8) * (0.5f / (float)k);
    for (int64_t i = 0; i < n; i++) bv[i] = (float)((i + seed) % 5) * 0.25f - 0.5f;
    int64_t wd[2] = {trans_b ? n : k, trans_b ? k : n}, bd[2] = {1, n};
    onnx_model_add_initializer(m, w, ONNX_FLOAT, 2, wd, wv, (size_t)(k * n) * sizeof(float));
    if (bias) onnx_model_add_initializer(m, b, ONNX_FLOAT, row_bias ? 2 : 1, row_bias ? bd : bd + 1, bv,
                                         (size_t)n * sizeof(float));
    const char *ins[] = {in, w, b}, *outs[] = {out};
    onnx_node *node = onnx_model_add_node(m, op, ins, bias ? 3 : 2, outs, 1);
    if (trans_b) onnx_node_attr_int(node, "transB", 1);
    free(wv);
    free(bv);
    return node;
}

/* The benchmark's small model on x [rows, k]: Gemm -> Relu -> Gemm -> Relu -> Gemm -> + x -> Sigmoid (`variant`:
 * the first Relu's result also an output, which leaves the first layer apart); with `x_first`, x + g3 (PyTorch's
 * x + f(x): the chain starts at x, the layers' result its residual). With `symbolic`, x's rows are a symbolic dim
 * (not fused: a layer's shape must be known at Compile). */
static onnx_model *mlp_of(bool variant, int64_t rows, int64_t k, bool symbolic, bool x_first)
{
    int64_t xd[2] = {symbolic ? -1 : rows, k};
    onnx_model *m = model_of(13, 2, xd);
    layer(m, "Gemm", "x", "g1", k, k, false, true, false, 1);
    activation(m, "Relu", "g1", "r1", NULL, 0, NULL, 0, variant);
    layer(m, "Gemm", "r1", "g2", k, k, false, true, false, 2);
    activation(m, "Relu", "g2", "r2", NULL, 0, NULL, 0, false);
    layer(m, "Gemm", "r2", "g3", k, k, false, true, false, 3);
    add(m, "Add", x_first ? "x" : "g3", x_first ? "g3" : "x", "s");
    activation(m, "Sigmoid", "s", "y", NULL, 0, NULL, 0, false);
    return m;
}

static const int64_t mlp_rows[2] = {2, 16};
static onnx_model *mlp_small(bool variant) { return mlp_of(variant, 2, 16, false, false); }
static onnx_model *mlp_x_first(bool variant) { return mlp_of(variant, 2, 16, false, true); }

/* MatMul [3, 12] x [12, 20] -> Tanh -> Gemm with transB, alpha, beta and a [1, N] bias -> LeakyRelu -> Gemm without
 * a bias -> HardSigmoid. */
static onnx_model *mlp_mixed(bool variant)
{
    int64_t xd[2] = {3, 12};
    onnx_model *m = model_of(13, 2, xd);
    layer(m, "MatMul", "x", "h1", 12, 20, false, false, false, 4);
    activation(m, "Tanh", "h1", "t1", NULL, 0, NULL, 0, variant);
    onnx_node *g = layer(m, "Gemm", "t1", "h2", 20, 8, true, true, true, 5);
    onnx_node_attr_float(g, "alpha", 0.5f);
    onnx_node_attr_float(g, "beta", 2.0f);
    activation(m, "LeakyRelu", "h2", "t2", "alpha", 0.2f, NULL, 0, false);
    layer(m, "Gemm", "t2", "h3", 8, 5, false, false, false, 6);
    activation(m, "HardSigmoid", "h3", "y", "alpha", 0.3f, "beta", 0.4f, false);
    return m;
}

static const int64_t mlp_mixed_dims[2] = {3, 12};

/* The vec4 form (every N a multiple of 4; K too where W is [N, K]): Gemm with transB first (x read as vec4s along
 * k), Relu, MatMul, Gemm with transB, alpha, beta and a [1, N] bias, LeakyRelu, + x (a residual read as vec4s),
 * HardSigmoid; on x [3, 12]. */
static onnx_model *mlp_vec4(bool variant)
{
    int64_t xd[2] = {3, 12};
    onnx_model *m = model_of(13, 2, xd);
    layer(m, "Gemm", "x", "h1", 12, 8, true, true, false, 7);
    activation(m, "Relu", "h1", "t1", NULL, 0, NULL, 0, variant);
    layer(m, "MatMul", "t1", "h2", 8, 16, false, false, false, 8);
    onnx_node *g = layer(m, "Gemm", "h2", "h3", 16, 12, true, true, true, 9);
    onnx_node_attr_float(g, "alpha", 0.5f);
    onnx_node_attr_float(g, "beta", 2.0f);
    activation(m, "LeakyRelu", "h3", "t3", "alpha", 0.2f, NULL, 0, false);
    add(m, "Add", "t3", "x", "s");
    activation(m, "HardSigmoid", "s", "y", "alpha", 0.3f, "beta", 0.4f, false);
    return m;
}

/* Shapes one workgroup does not take, and a layer whose result is read twice: each layer runs on its own. */
static onnx_model *mlp_wide(bool variant) { return mlp_of(variant, 64, 64, false, false); }
static const int64_t mlp_wide_dims[2] = {64, 64};
static onnx_model *mlp_symbolic(bool variant) { return mlp_of(variant, 2, 16, true, false); }
static onnx_model *mlp_read_twice(bool variant)
{
    (void)variant;
    int64_t xd[2] = {2, 16};
    onnx_model *m = model_of(13, 2, xd);
    layer(m, "Gemm", "x", "g1", 16, 16, false, true, false, 1);
    layer(m, "Gemm", "g1", "g2", 16, 16, false, true, false, 2);
    add(m, "Add", "g1", "g2", "y");
    return m;
}

/* LayerNormalization written out over the last axis as exporters write it before opset 17: ReduceMean, Sub, Pow
 * (2), ReduceMean, Add (epsilon), Sqrt, Div, Mul by a scale [L], Add a bias [L] (x [..., 120] of `dims`). `variant`:
 * the square as Mul(d, d), a form not fused (ortvk's reference of its own). `opset` 18: ReduceMean's axes an input.
 * `exponent`, `axis` and `scale_rank` other than 2, -1 and 1: forms the fusion leaves apart. */
static onnx_model *layer_norm_written(bool variant, int opset, int rank, const int64_t *dims, float exponent,
                                      int64_t axis, int scale_rank)
{
    onnx_model *m = model_of(opset, rank, dims);
    int64_t len = 120, scale_dims[2] = {1, len}; /* x's last dim at run time */
    float *scale = malloc((size_t)len * sizeof(float)), *bias = malloc((size_t)len * sizeof(float));
    for (int64_t i = 0; i < len; i++) {
        scale[i] = 0.5f + 0.125f * (float)(i % 7);
        bias[i] = 0.25f * (float)(i % 5) - 0.5f;
    }
    onnx_model_add_initializer(m, "scale", ONNX_FLOAT, scale_rank, scale_dims + 2 - scale_rank, scale,
                               (size_t)len * sizeof(float));
    onnx_model_add_initializer(m, "bias", ONNX_FLOAT, 1, &len, bias, (size_t)len * sizeof(float));
    free(scale), free(bias);
    scalar(m, "two", exponent);
    scalar(m, "eps", 1e-5f);
    int64_t one = 1;
    if (opset >= 18) onnx_model_add_initializer(m, "axes", ONNX_INT64, 1, &one, &axis, sizeof(axis));
    const char *means[2][2] = {{"x", "axes"}, {"sq", "axes"}}, *mean_out[2] = {"mean", "var"};
    for (int i = 0; i < 2; i++) {
        if (i == 1) {
            add(m, "Sub", "x", "mean", "d");
            if (variant) add(m, "Mul", "d", "d", "sq");
            else add(m, "Pow", "d", "two", "sq");
        }
        onnx_node *r = onnx_model_add_node(m, "ReduceMean", means[i], opset >= 18 ? 2 : 1, &mean_out[i], 1);
        if (opset < 18) onnx_node_attr_ints(r, "axes", &axis, 1);
    }
    add(m, "Add", "var", "eps", "ve");
    add(m, "Sqrt", "ve", NULL, "sd");
    add(m, "Div", "d", "sd", "n");
    add(m, "Mul", "n", "scale", "t");
    add(m, "Add", "t", "bias", "y");
    return m;
}

static const int64_t ln_dims[3] = {2, 40, 120};
static onnx_model *layer_norm_13(bool variant) { return layer_norm_written(variant, 13, 3, ln_dims, 2.0f, -1, 1); }
static onnx_model *layer_norm_18(bool variant) { return layer_norm_written(variant, 18, 2, ln_dims + 1, 2.0f, 1, 1); }

/* Runs the written-out LayerNormalization `build` on ortvk within ONNX's tolerance of the CPU EP (which fuses it
 * too) and, `fused`, of its unfused form on ortvk (its variant), the fused kernel in ortvk's profile: ortvk's
 * ("LayerNorm=ReduceMean..Add") or, where ORT fused the nodes before ortvk saw them (opset 17 on, where ONNX has
 * the op), "LayerNormalization". Else neither. */
static void layer_norm_case(ortapp *app, const OrtEpDevice *device, const char *name, onnx_model *(*build)(bool),
                            int rank, const int64_t *dims, const char *fused)
{
    const char *kernel = fused != NULL ? fused : "LayerNorm";
    compare(app, device, name, build(false), build(false), REF_CPU, false, rank, dims, fused, fused ? NULL : kernel);
    if (!fused) return;
    char against[128];
    snprintf(against, sizeof(against), "%s (ortvk, unfused)", name);
    compare(app, device, against, build(false), build(true), REF_ORTVK, false, rank, dims, fused, NULL);
}

static onnx_model *layer_norm_fourth(bool variant) { return layer_norm_written(variant, 13, 3, ln_dims, 4.0f, -1, 1); }
static onnx_model *layer_norm_middle(bool variant) { return layer_norm_written(variant, 13, 3, ln_dims, 2.0f, 1, 1); }
static onnx_model *layer_norm_row_scale(bool variant)
{
    return layer_norm_written(variant, 13, 3, ln_dims, 2.0f, -1, 2);
}
static const int64_t ln_symbolic[3] = {2, 40, -1};
static onnx_model *layer_norm_symbolic(bool variant)
{
    return layer_norm_written(variant, 13, 3, ln_symbolic, 2.0f, -1, 1);
}

/* The fused kernel of a symbolic last dim, run with x [2, 40, 1] against a scale of 120: the written-out form would
 * broadcast the scale (y [2, 40, 120]); ortvk fails the run instead, naming the sizes. */
static void layer_norm_mismatch_case(ortapp *app, const OrtEpDevice *device)
{
    const OrtApi *api = app->api;
    uint8_t *model = NULL;
    size_t len = 0;
    onnx_model *m = layer_norm_symbolic(false);
    int rc = onnx_model_serialize(m, &model, &len);
    onnx_model_free(m);
    OrtSession *s = rc == ONNX_OK ? test_session(app, device, model, len, NULL, NULL, 0) : NULL;
    free(model);
    if (!CHECK(s != NULL, "written-out LayerNorm, a last dim of 1 at run time: a session")) return;
    const int64_t dims[3] = {2, 40, 1};
    float data[80];
    for (int i = 0; i < 80; i++) data[i] = (float)i;
    OrtValue *x = test_host_tensor(app, data, 80, 3, dims), *y = NULL;
    const char *in[] = {"x"}, *out[] = {"y"};
    OrtStatus *status = api->Run(s, NULL, in, (const OrtValue *const *)&x, 1, out, 1, &y);
    const char *message = status != NULL ? api->GetErrorMessage(status) : "";
    if (CHECK(status != NULL && strstr(message, "LayerNorm") != NULL && strstr(message, "120") != NULL,
              "written-out LayerNorm, a last dim of 1 at run time: a clear error (%s)", message))
        printf("%-60s ok (%s)\n", "written-out LayerNorm, a last dim of 1 at run time: fails", message);
    if (status != NULL) api->ReleaseStatus(status);
    if (y != NULL) api->ReleaseValue(y);
    api->ReleaseValue(x);
    api->ReleaseSession(s);
}

/* argv[1] "--chains": only the element-wise chains over special values (ctest's test_kernels_fusion_flushing). */
/* ---- float16 chains: fused and node by node, bit for bit ------------------------------------------------- */

/* y of `m` converted to float16 (kc_model_to_float16) on ortvk, x of `dims` rounded to float16 (run_session), as
 * float16 bits; ortvk's profile written to `profile` where it is not NULL. NULL on failure. */
static uint16_t *run_half(ortapp *app, const OrtEpDevice *device, onnx_model *m, int rank, const int64_t *dims,
                          const char *profile, size_t *count)
{
    uint8_t *model = NULL, *model16 = NULL;
    size_t len = 0, len16 = 0;
    int rc = onnx_model_serialize(m, &model, &len);
    onnx_model_free(m);
    bool converted = rc == ONNX_OK && kc_model_to_float16(model, len, &model16, &len16) == 0;
    free(model);
    if (!CHECK(converted, "a fusion model converted to float16")) return NULL;
    const char *keys[] = {ORTVK_OPTION_PROFILE}, *values[] = {profile};
    OrtSession *s = test_session(app, device, model16, len16, keys, values, profile ? 1 : 0);
    free(model16);
    return s != NULL ? run_session(app, s, rank, dims, true, count) : NULL;
}

/* The model `build` makes, in float16 on ortvk, fused as `fused` (in its profile; `unfused` not there), against the
 * same model with `apart` (its intermediate values, NULL-terminated) also outputs, which keeps every node a kernel
 * of its own: the same bits, any NaN matching any NaN. Each float16 node rounds its result once; a fused chain
 * rounds each step's. */
static void half_case_not(ortapp *app, const OrtEpDevice *device, const char *name, build_fn build,
                          const char *const *apart, int rank, const int64_t *dims, const char *fused,
                          const char *unfused)
{
    char path[256];
    snprintf(path, sizeof(path), "/tmp/ortvk-test-fusion16-%d.json", (int)getpid());
    onnx_model *reference = build(false);
    for (size_t i = 0; apart[i] != NULL; i++) onnx_model_add_output(reference, apart[i], ONNX_FLOAT, -1, NULL);
    size_t wn = 0, gn = 0;
    uint16_t *w = run_half(app, device, reference, rank, dims, NULL, &wn);
    uint16_t *g = run_half(app, device, build(false), rank, dims, path, &gn);
    bool same = CHECK(w != NULL && g != NULL && wn == gn && wn > 0, "%s: outputs of %zu and %zu values", name, wn, gn);
    if (same) {
        size_t bad = 0, first = 0, finite = 0;
        for (size_t i = 0; i < wn; i++) {
            bool nan_w = (w[i] & 0x7fffu) > 0x7c00u, nan_g = (g[i] & 0x7fffu) > 0x7c00u;
            finite += (w[i] & 0x7c00u) != 0x7c00u;
            if (w[i] != g[i] && !(nan_w && nan_g) && bad++ == 0) first = i;
        }
        same = CHECK(bad == 0, "%s: %zu of %zu values differ (first [%zu]: apart 0x%04x, fused 0x%04x)", name, bad,
                     wn, first, w[first], g[first]) &&
               CHECK(finite > wn / 2, "%s: %zu of %zu results finite", name, finite, wn);
    }
    char *profile = test_read_text(path);
    if (CHECK(profile != NULL, "%s: ortvk's profile %s", name, path) && same &&
        CHECK(strstr(profile, fused) != NULL, "%s: the profile shows the fused kernel %s", name, fused) &&
        (unfused == NULL || CHECK(strstr(profile, unfused) == NULL, "%s: nothing fused as %s", name, unfused)))
        printf("%-60s ok (%zu values, the same bits, fused as %s)\n", name, wn, fused);
    free(profile);
    if (!getenv("KEEP_PROFILE")) unlink(path);
    free(w);
    free(g);
}

static void half_case(ortapp *app, const OrtEpDevice *device, const char *name, build_fn build,
                      const char *const *apart, int rank, const int64_t *dims, const char *fused)
{
    half_case_not(app, device, name, build, apart, rank, dims, fused, NULL);
}

/* A 17x17 Conv of 56 input channels, which sums them in two ranges (kernel_conv.c's conv_dispatch, past lavapipe's
 * loop cap), + x: fused in float32; in float16 the Add stays apart (the ranges' float32 partial sums take the
 * operand the residual would). */
static onnx_model *conv_ranges_res(bool variant) { return conv_then(variant, 56, 56, 17, 1, 6, 6, plus_x); }

/* Results in float16's subnormal range (below 2^-14), where a step's result rounds to a multiple of 2^-24. */
static onnx_model *tiny_chain(bool variant)
{
    (void)variant;
    onnx_model *m = model_of(13, 1, flat);
    scalar(m, "tiny", 3.7e-5f), scalar(m, "three", 3.0f);
    add(m, "Mul", "x", "tiny", "a");
    add(m, "Relu", "a", NULL, "r");
    add(m, "Mul", "r", "three", "y");
    return m;
}

static void float16_cases(ortapp *app, const OrtEpDevice *device)
{
    static const char *const swish[] = {"a", "c", "d", NULL}, *acts[] = {"a", "l", "h", "t", "u", NULL};
    static const char *const conv_swish[] = {"t", "a", "c", "d", NULL}, *conv_t[] = {"t", NULL};
    static const char *const clip_aff[] = {"t", "c", "a", NULL}, *hypot[] = {"t", "sq", "sp", NULL};
    half_case(app, device, "float16: Add, Clip, Div, Mul (hard swish)", swish_chain, swish, 1, flat,
              "Add+Clip+Div+Mul");
    half_case(app, device, "float16: Mul, LeakyRelu, HardSwish, Tanh, Add, HardSigmoid", activations, acts, 1, flat,
              "Mul+LeakyRelu+HardSwish+Tanh+A");
    static const char *const tiny[] = {"a", "r", NULL};
    half_case(app, device, "float16: Mul 3.7e-5, Relu, Mul 3 (float16 subnormals)", tiny_chain, tiny, 1, flat,
              "Mul+Relu+Mul");
    const int64_t c8[4] = {1, 8, 12, 12}, c16[4] = {1, 16, 12, 12}, rows[2] = {12, 16};
    half_case(app, device, "float16: Conv 3x3, then hard swish in its stores", conv3x3_swish, conv_swish, 4, c8,
              "Conv+Add+Clip+Div+Mul");
    half_case(app, device, "float16: Conv 1x1 (the GEMM), then Relu in its stores", conv1x1_relu, conv_t, 4, c16,
              "Conv+Relu");
    half_case(app, device, "float16: depthwise Conv, then Clip, Mul, Add in its stores", depthwise_clip, clip_aff, 4,
              c16, "Conv+Clip+Mul+Add");
    half_case(app, device, "float16: Conv 3x3, then Pow 2, Add, Sqrt in its stores", conv3x3_hypot1, hypot, 4, c8,
              "Conv+Pow+Add+Sqrt");
    half_case(app, device, "float16: Gemm, then Sigmoid in its stores", gemm_sigmoid, conv_t, 2, rows,
              "Gemm+Sigmoid");
    /* Residuals and operands (t + r, t * r) of float16 values. */
    static const char *const res_relu[] = {"t", "s", NULL}, *sum[] = {"s", NULL}, *neck_apart[] = {"m", "a", NULL};
    static const char *const plane[] = {"a", "c", NULL};
    half_case(app, device, "float16: Conv 3x3 + x (a residual), in its stores", conv3x3_res, conv_t, 4, c8,
              "Conv+Add\"");
    half_case(app, device, "float16: Conv 3x3 + x, then Relu", conv3x3_res_relu, res_relu, 4, c8, "Conv+Add+Relu");
    half_case(app, device, "float16: depthwise Conv + x, then Relu", depthwise_res_relu, res_relu, 4, c16,
              "Conv+Add+Relu");
    half_case(app, device, "float16: Conv 1x1 (the GEMM) + x, then Relu", conv1x1_res_relu, res_relu, 4, c16,
              "Conv+Add+Relu");
    half_case(app, device, "float16: |x| + (-x), then Relu: a chain from two tensors", sum_relu, sum, 1, flat,
              "Add+Relu");
    half_case(app, device, "float16: the neck's Mul, Add, Add (two broadcast operands)", neck, neck_apart, 4, c8,
              "Mul+Add+Add");
    const int64_t c4[4] = {1, 4, 12, 12}, ranges[4] = {1, 56, 6, 6};
    half_case(app, device, "float16: (x + q[h, w]) * |x|, Relu: every operand steps", plane_max, plane, 4, c4,
              "Add+Mul+Relu");
    half_case_not(app, device, "float16: Conv 17x17 of 56 channels (two ranges) + x: apart", conv_ranges_res, conv_t,
                  4, ranges, "\"Conv\"", "Conv+Add");
    /* The detector's head: ConvTranspose, + a[c], BatchNormalization, Relu in each of the ConvTranspose's forms; the
     * per-channel constants widened to float32 for the chain's buffer (ortvk_kernel_upload_chain). */
    static const char *const head_apart[] = {"t", "s", "n", NULL};
    const char *head_fused = "ConvTranspose+Add+BatchNormaliz"; /* the first 31 characters */
    const int64_t h6w8[4] = {1, 8, 6, 8}, h5w16[4] = {1, 8, 5, 16}, h5w6[4] = {1, 8, 5, 6}, h4w5[4] = {1, 8, 4, 5};
    half_case(app, device, "float16: ConvTranspose 2x2 (tiles), + a[c], BN, Relu", head_tiles_half, head_apart, 4,
              h6w8, head_fused);
    half_case(app, device, "float16: ConvTranspose 2x2 to 3 channels, + a[c], BN, Relu", head_tiles_3_half,
              head_apart, 4, h5w16, head_fused);
    half_case(app, device, "float16: ConvTranspose 2x2 of 6 columns (blocks), + a[c], BN, Relu", head_blocks_half,
              head_apart, 4, h5w6, head_fused);
    half_case(app, device, "float16: ConvTranspose 3x3 stride 3 (direct), + a[c], BN, Relu", head_direct_half,
              head_apart, 4, h4w5, head_fused);
    half_case(app, device, "float16: ConvTranspose 3x3 stride 2 pads 1, + a[c], BN, Relu", head_general_half,
              head_apart, 4, h5w6, head_fused);
}

int main(int argc, char **argv)
{
    bool chains_only = argc > 1 && strcmp(argv[1], "--chains") == 0;
    ortapp app;
    const OrtEpDevice *device;
    test_open(&app, &device);
    unsetenv("ORTVK_PROFILE");
    flushes_subnormals = kc_device_flushes_subnormals(&app, device);
    if (flushes_subnormals)
        printf("note: the device may flush float32 subnormals: results below FLT_MIN compare as zero\n");
    chain_case(&app, device, "Add, Clip, Div, Mul (hard swish)", swish_chain, "Add+Clip+Div+Mul", NULL);
    chain_case(&app, device, "hard swish of an input of unknown rank", swish_unknown_rank, "Add+Clip+Div+Mul", NULL);
    chain_case(&app, device, "Mul (scalar first), Add, Relu", affine_relu, "Mul+Add+Relu", NULL);
    chain_case(&app, device, "Sub (reversed), Div (reversed), Sub, Add x", reversed, "Sub+Div+Sub+Add", NULL);
    chain_case(&app, device, "Mul by 1e30, Clip with attribute bounds", clip_attributes, "Mul+Clip", NULL);
    chain_case(&app, device, "a value read outside the chain too is not fused", read_twice, NULL, "Add+Relu");
    chain_case(&app, device, "a value read twice inside the chain is kept", kept_value, "Mul+Relu+Mul", NULL);
    chain_case(&app, device, "a chain value that is a model output is not fused", middle_output, NULL, "Mul+Sub");
    chain_case(&app, device, "a constant of higher rank broadcasts: not fused", higher_rank, NULL, "Add+Relu");
    if (chains_only) return test_finish(&app, "test_kernels_fusion");
    const char *types = app.api->GetKeyValue(app.api->EpDevice_EpMetadata(device), ORTVK_META_KERNEL_TYPES);
    if (types != NULL && strstr(types, "float16") != NULL) float16_cases(&app, device);
    else printf("SKIP: float16 chains: ortvk runs no float16 kernels on this device (no 16-bit storage)\n");
    /* ortvk's activations are its own functions: fused against unfused to the bit, then against the CPU EP. */
    head_case(&app, device, "Sigmoid, then Mul by x (swish)", sigmoid_swish, 1, flat, "Sigmoid+Mul");
    head_case(&app, device, "Mul, LeakyRelu, HardSwish, Tanh, Add, HardSigmoid", activations, 1, flat,
              "Mul+LeakyRelu+HardSwish+Tanh+A"); /* the kernel names its first 31 characters */
    compare(&app, device, "Sigmoid then Tanh: one transcendental step a chain", sigmoid_tanh(false),
            sigmoid_tanh(false), false, false, 1, flat, NULL, "Sigmoid+Tanh");
    const int64_t c8[4] = {1, 8, 12, 12}, c16[4] = {1, 16, 12, 12}, small[4] = {1, 3, 4, 4};
    compare(&app, device, "float shape math for Resize stays on the host", host_scales(false), host_scales(false),
            false, true, 4, small, NULL, "Mul+Add");
    conv_case(&app, device, "Conv 3x3, then hard swish in its stores", conv3x3_swish, c8, "Conv+Add+Clip+Div+Mul");
    conv_case(&app, device, "Conv 3x3, then an affine and hard swish of it", conv3x3_affine_swish, c8,
              "Conv+Add+Mul+Add+Clip+Div+Mul");
    conv_case(&app, device, "Conv 1x1 (the GEMM), then Relu in its stores", conv1x1_relu, c16, "Conv+Relu");
    const int64_t wide[4] = {1, 16, 16, 32}; /* 512 pixels: the GEMM's wide form */
    conv_case(&app, device, "Conv 1x1 over 512 pixels (the wide GEMM), then hard swish", conv1x1_wide_swish, wide,
              "Conv+Add+Clip+Div+Mul");
    conv_case(&app, device, "depthwise Conv, then Clip, Mul, Add in its stores", depthwise_clip, c16,
              "Conv+Clip+Mul+Add");
    conv_case(&app, device, "Conv 1x1, then HardSigmoid in its stores", conv1x1_hard_sigmoid, c16, "Conv+HardSigmoid");
    conv_case(&app, device, "Conv 1x1 over 512 pixels, then HardSwish", conv1x1_wide_hard_swish, wide,
              "Conv+HardSwish");
    conv_case(&app, device, "Conv 3x3, then Tanh in its stores", conv3x3_tanh, c8, "Conv+Tanh");
    conv_case(&app, device, "Conv 3x3, then Pow 2, Add, Sqrt in its stores", conv3x3_hypot1, c8, "Conv+Pow+Add+Sqrt");
    conv_case(&app, device, "Conv 3x3 of 3 channels to 16, then HardSwish (vec4 stores)", conv3_16_swish,
              (const int64_t[]){1, 3, 12, 12}, "Conv+HardSwish");
    conv_case(&app, device, "Conv 3x3 of 3 channels to 16, 9x20, then HardSwish", conv3_16_odd_swish,
              (const int64_t[]){1, 3, 9, 20}, "Conv+HardSwish");
    conv_case(&app, device, "depthwise Conv, then LeakyRelu in its stores", depthwise_leaky, c16, "Conv+LeakyRelu");
    conv_case(&app, device, "Conv 3x3 + x (a residual), in its stores", conv3x3_res, c8, "Conv+Add\"");
    conv_case(&app, device, "x + Conv 3x3 (the residual first)", conv3x3_res_first, c8, "Conv+Add\"");
    conv_case(&app, device, "Conv 3x3 + x, then Relu", conv3x3_res_relu, c8, "Conv+Add+Relu");
    conv_case(&app, device, "Conv 5x5 * x (packed, not 3x3)", conv5x5_res_mul, c8, "Conv+Mul\"");
    const int64_t c6[4] = {1, 6, 12, 12};
    conv_case(&app, device, "Conv of 6 channels (unpacked) + x, then Relu", conv_general_res, c6, "Conv+Add+Relu");
    conv_case(&app, device, "Conv + |x| (made in the partition), then Clip", conv_computed_res, c8,
              "Conv+Add+Clip+Mul+Add");
    conv_case(&app, device, "|x| made after the Conv + Conv: fused where the Add ran", conv_late_res, c8,
              "Conv+Add\"");
    compare(&app, device, "Conv + a residual that broadcasts: not fused", conv_broadcast_res(false),
            conv_broadcast_res(false), false, false, 4, c8, NULL, "Conv+Add");
    conv_case(&app, device, "depthwise Conv + x, then Relu (vec4 stores)", depthwise_res_relu, c16, "Conv+Add+Relu");
    const int64_t c16_10[4] = {1, 16, 10, 10};
    conv_case(&app, device, "depthwise Conv of 10 columns + x (scalar stores)", depthwise_odd_res, c16_10,
              "Conv+Add\"");
    conv_case(&app, device, "Conv 1x1 (the GEMM) + x, then Relu, in its stores", conv1x1_res_relu, c16,
              "Conv+Add+Relu");
    conv_case(&app, device, "Conv 1x1 over 512 pixels (the wide GEMM, K a constant) + x", conv1x1_wide_res, wide,
              "Conv+Add\"");
    conv_case(&app, device, "Conv 1x1 of one pixel (the GEMM, A and B swapped) + x", conv1x1_pixel_res,
              (const int64_t[]){1, 24, 1, 1}, "Conv+Add\"");
    conv_case(&app, device, "Conv 1x1 over 10x3 (the GEMM's B_ODD) + x, then Relu", conv1x1_odd_res,
              (const int64_t[]){1, 16, 10, 3}, "Conv+Add+Relu");
    chain_case(&app, device, "|x| + (-x), then Relu: a chain from two tensors", sum_relu, "Add+Relu", NULL);
    chain_case(&app, device, "Sqrt(x^2 + (0.75 x)^2): Pow 2 and Sqrt as steps", magnitude, "Pow+Add+Sqrt", NULL);
    chain_case(&app, device, "Mul, Pow 2: the second operand's chain", magnitude, "Mul+Pow\"", NULL);
    chain_case(&app, device, "Pow 3 is no step", cube_relu, NULL, "Pow+Relu");
    /* Whole blocks of 1,024 elements, which the chain shader spreads over a workgroup's invocations 8 at a time
     * (common.glsl's ortvk_lanes_start), then a partial one: 3,300 values, and planes of 2,560 below. */
    const int64_t values3300[2] = {3, 1100}, symbolic[2] = {-1, -1};
    compare(&app, device, "|x| + (-x), then Relu over 3300 values (blocks of 1024)", sum_relu_of(2, symbolic),
            sum_relu_of(2, symbolic), false, true, 2, values3300, "Add+Relu", NULL);
    /* Chains reading two operands broadcast into the output (the stand-alone chain kernel). */
    const int64_t level[4] = {1, 8, 16, 20}, odd[4] = {1, 8, 6, 5};
    head_case(&app, device, "neck: y * s[c], y + that, + r: one chain (vec4)", neck, 4, level, "Mul+Add+Add\"");
    head_case(&app, device, "neck of 5 columns (row segments of 16)", neck, 4, odd, "Mul+Add+Add\"");
    const int64_t odd510[4] = {1, 8, 17, 30}; /* the detector's deepest maps at 960x544: 31 segments and 14 */
    head_case(&app, device, "neck of 17x30 planes (row segments of 16)", neck, 4, odd510, "Mul+Add+Add\"");
    const int64_t wide_level[4] = {1, 8, 32, 40}; /* planes of 1,280: whole workgroups a plane, the last idle */
    head_case(&app, device, "neck of 1280-element planes (workgroups a plane)", neck, 4, wide_level,
              "Mul+Add+Add\"");
    const int64_t plane2560[4] = {1, 8, 40, 64}, plane2560_4[4] = {1, 4, 40, 64}; /* two whole blocks, then half */
    head_case(&app, device, "neck of 2560-element planes (blocks of 1024)", neck, 4, plane2560, "Mul+Add+Add\"");
    head_case(&app, device, "(x + q[h, w]) * |x|, Relu: planes of 2560 (blocks of 1024)", plane_max, 4,
              plane2560_4, "Add+Mul+Relu");
    head_case(&app, device, "neck with s * y (the scale first)", neck_scale_first, 4, level, "Mul+Add+Add\"");
    head_case(&app, device, "neck with r = Resize(MaxPool(x)) (nearest 2x)", neck_resized, 4, level,
              "Mul+Add+Add\"");
    const int64_t batch2[4] = {2, 4, 4, 8}, batch2_odd[4] = {2, 4, 3, 5};
    head_case(&app, device, "x + p[n, c], * b[n], Relu: two broadcasts (vec4)", two_broadcasts, 4, batch2,
              "Add+Mul+Relu");
    head_case(&app, device, "x + p[n, c], * b[n], Relu: row segments", two_broadcasts, 4, batch2_odd, "Add+Mul+Relu");
    head_case(&app, device, "a third operand ends the chain", three_operands, 4, batch2, "Add+Mul\"");
    const int64_t planes[4] = {1, 4, 4, 8}, planes12[4] = {1, 4, 3, 4};
    head_case(&app, device, "(x + q[h, w]) * |x|, Relu: every operand steps (vec4)", plane_max, 4, planes,
              "Add+Mul+Relu");
    head_case(&app, device, "(x + q[h, w]) * |x|, Relu: planes of 12 (per element)", plane_max, 4, planes12,
              "Add+Mul+Relu");
    const int64_t five[5] = {2, 3, 4, 5, 6}, five_vec[5] = {2, 3, 2, 3, 16};
    head_case(&app, device, "operands over 5 dims (the table in a buffer)", five_dims, 5, five, "Mul+Relu");
    head_case(&app, device, "operands over 5 dims, vec4", five_dims, 5, five_vec, "Mul+Relu");
    const int64_t rows[3] = {3, 12, 16};
    head_case(&app, device, "Gemm, then Relu in its stores", gemm_relu, 2, rows + 1, "Gemm+Relu");
    head_case(&app, device, "batched MatMul (N of 6), then hard swish in its stores", matmul_swish, 3, rows,
              "MatMul+Add+Clip+Div+Mul");
    head_case(&app, device, "Gemm, then Sigmoid in its stores", gemm_sigmoid, 2, rows + 1, "Gemm+Sigmoid");
    head_case(&app, device, "batched MatMul, + a bias [N] (a linear layer): the bias in its stores", matmul_bias, 3,
              rows, "\"MatMul+Add\"");
    head_case(&app, device, "batched MatMul, bias [N] + it, Relu: the bias and Relu in its stores",
              matmul_bias_relu, 3, rows, "\"MatMul+Add+Relu\"");
    head_case(&app, device, "batched MatMul + bias, then s * Sigmoid(1.702 s) (QuickGelu) in its stores",
              matmul_bias_gelu, 3, rows, "\"MatMul+Add+Mul+Sigmoid+Mul\"");
    /* The MLP's forms by the pipeline in the profile: "mlp.1" the vec4 form, "mlp.0" one output an invocation. */
    head_case_not(&app, device, "three Gemms, Relu between, + x, Sigmoid: one MLP dispatch (vec4)", mlp_small, 2,
                  mlp_rows, "\"mlp.1\"", "Add+Sigmoid");
    head_case_not(&app, device, "three Gemms, x + their result (x first), Sigmoid: one MLP dispatch (vec4)",
                  mlp_x_first, 2, mlp_rows, "\"mlp.1\"", "Add+Sigmoid");
    head_case(&app, device, "MatMul, Tanh, Gemm (transB, alpha, beta, row bias), LeakyRelu, Gemm of N 5: one MLP "
              "(by outputs)", mlp_mixed, 2, mlp_mixed_dims, "\"mlp.0\"");
    head_case(&app, device, "Gemm (transB), Relu, MatMul, Gemm (transB, alpha, beta, row bias), LeakyRelu, + x: one "
              "MLP (vec4)", mlp_vec4, 2, mlp_mixed_dims, "\"mlp.1\"");
    compare(&app, device, "Gemms of 64 x 64 outputs: apart (more than one workgroup's)", mlp_wide(false),
            mlp_wide(false), false, false, 2, mlp_wide_dims, NULL, "\"MLP\"");
    compare(&app, device, "Gemms of a symbolic batch: apart", mlp_symbolic(false), mlp_symbolic(false), false, false, 2,
            mlp_rows, NULL, "\"MLP\"");
    compare(&app, device, "a layer's result read twice: apart", mlp_read_twice(false), mlp_read_twice(false), false,
            false, 2, mlp_rows, NULL, "\"MLP\"");
    const char *ln_fused = "LayerNorm=ReduceMean..Add";
    layer_norm_case(&app, device, "LayerNorm written out (9 ops) over [2, 40, 120]: one kernel", layer_norm_13, 3,
                    ln_dims, ln_fused);
    layer_norm_case(&app, device, "LayerNorm written out at opset 18 ([40, 120]): ORT's LayerNormalization",
                    layer_norm_18, 2, ln_dims + 1, "LayerNormalization");
    /* ORT's CPU EP fuses this one too, as LayerNormalization (its LayerNormFusion does not check the exponent):
     * ortvk keeps ONNX's meaning, that of the CPU EP without graph optimizations. */
    compare(&app, device, "written-out LayerNorm with Pow(d, 4): apart, ONNX's meaning", layer_norm_fourth(false),
            layer_norm_fourth(false), REF_CPU_PLAIN, false, 3, ln_dims, NULL, "LayerNorm");
    layer_norm_case(&app, device, "written-out LayerNorm over axis 1: apart", layer_norm_middle, 3, ln_dims, NULL);
    layer_norm_case(&app, device, "written-out LayerNorm, a scale of [1, L]: apart", layer_norm_row_scale, 3, ln_dims,
                    NULL);
    layer_norm_case(&app, device, "written-out LayerNorm, a symbolic last dim: one kernel", layer_norm_symbolic, 3,
                    ln_dims, ln_fused);
    layer_norm_mismatch_case(&app, device);
    const int64_t k18[4] = {1, 18, 16, 32};
    conv_case(&app, device, "Conv 1x1 of 18 channels to 24 (the GEMM, K % 4 = 2), then hard swish", conv1x1_k18_swish,
              k18, "Conv+Add+Clip+Div+Mul");
    conv_case(&app, device, "Conv 1x1 of 18 channels to 48 (the GEMM, K % 4 = 2), then HardSwish",
              conv1x1_k18_hard_swish, k18, "Conv+HardSwish");
    /* ConvTranspose, + a per-channel constant, BatchNormalization, Relu: one dispatch in each of its forms. */
    const int64_t h6w8[4] = {1, 8, 6, 8}, h5w16[4] = {1, 8, 5, 16}, h5w6[4] = {1, 8, 5, 6}, h4w5[4] = {1, 8, 4, 5};
    const char *head_fused = "ConvTranspose+Add+BatchNormaliz"; /* the first 31 characters */
    conv_case(&app, device, "ConvTranspose 2x2 (tiles), + a[c], BN, Relu", head_tiles, h6w8, head_fused);
    conv_case(&app, device, "ConvTranspose 2x2 to 3 channels (tiles of 1), + a[c], BN, Relu", head_tiles_3, h5w16,
              head_fused);
    conv_case(&app, device, "ConvTranspose 2x2 of 6 columns (blocks), + a[c], BN, Relu", head_blocks, h5w6, head_fused);
    conv_case(&app, device, "ConvTranspose 3x3 stride 3 (direct), + a[c], BN, Relu", head_direct, h4w5, head_fused);
    conv_case(&app, device, "ConvTranspose 3x3 stride 2 pads 1, + a[c], BN, Relu", head_general, h5w6, head_fused);
    conv_case(&app, device, "ConvTranspose, + a[c], BN (a model output): Relu apart", head_bn_output, h6w8,
              "\"op\": \"Relu\""); /* the fused kernel's name is cut before its steps' end */
    conv_case(&app, device, "ConvTranspose, + a[c], BN of a computed mean: BN apart", head_bn_computed, h6w8,
              "ConvTranspose+Add\"");
    compare(&app, device, "ConvTranspose + a constant per column: not fused", head_columns(false),
            head_columns(false), false, false, 4, h6w8, NULL, "ConvTranspose+");
    const int64_t k12[4] = {1, 12, 4, 127};
    conv_case(&app, device, "Conv 1x1 of 12 channels to 48 over 508 pixels (the GEMM, K a constant), then hard swish",
              conv1x1_k12_swish, k12, "Conv+Add+Clip+Div+Mul");
    return test_finish(&app, "test_kernels_fusion");
}
