/* The partition compiler's fused element-wise chains (src/kernels/kernel_chain.c) against ORT's CPU EP: each model
 * runs on ortvk (every node there) and on the CPU EP alone with NaN, infinities, signed zeros, subnormals and huge
 * values, and the outputs must agree bit for bit (any NaN matching any NaN). ortvk's profile of the same run says
 * which nodes were fused: a chain that must fuse does, one that must not (a value read twice, a value the partition
 * returns) does not. */
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

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (text != NULL) text[fread(text, 1, (size_t)n, f)] = '\0';
    fclose(f);
    return text;
}

static bool same_bits(float want, float got)
{
    if (isnan(want) || isnan(got)) return isnan(want) && isnan(got);
    return memcmp(&want, &got, sizeof(float)) == 0;
}

/* Runs `m` (input x of [N], output y) on both; `fused` must appear among the profile's op types, `unfused` not. */
static void check(ortapp *app, const OrtEpDevice *device, const char *name, onnx_model *m, const char *fused,
                  const char *unfused)
{
    const OrtApi *api = app->api;
    uint8_t *model = NULL;
    size_t len = 0;
    int rc = onnx_model_serialize(m, &model, &len);
    onnx_model_free(m);
    if (!CHECK(rc == ONNX_OK, "%s: model", name)) return;
    char path[256];
    snprintf(path, sizeof(path), "/tmp/ortvk-test-fusion-%d.json", (int)getpid());
    const char *keys[] = {ORTVK_OPTION_PROFILE}, *values[] = {path};
    OrtStatus *error = NULL;
    OrtSession *cpu = kc_session(app, NULL, model, len, false, false, &error);
    OrtSession *vk = cpu ? test_session(app, device, model, len, keys, values, 1) : NULL;
    free(model);
    if (!CHECK(cpu != NULL && vk != NULL, "%s: sessions", name)) {
        if (error) api->ReleaseStatus(error);
        if (cpu) api->ReleaseSession(cpu);
        return;
    }
    float data[N];
    memcpy(data, specials, sizeof(data));
    int64_t dims[1] = {N};
    OrtValue *x = test_host_tensor(app, data, N, 1, dims);
    const char *in[] = {"x"}, *out[] = {"y"};
    OrtValue *want = NULL, *got = NULL;
    ORT_OK(app, api->Run(cpu, NULL, in, (const OrtValue *const *)&x, 1, out, 1, &want));
    ORT_OK(app, api->Run(vk, NULL, in, (const OrtValue *const *)&x, 1, out, 1, &got));
    api->ReleaseSession(vk); /* writes the profile */
    api->ReleaseSession(cpu);
    size_t wb = 0, gb = 0;
    float *w = want ? kc_host_data(app, want, &wb) : NULL, *g = got ? kc_host_data(app, got, &gb) : NULL;
    if (CHECK(w != NULL && g != NULL && wb == gb && wb == sizeof(float) * N, "%s: outputs of %zu and %zu bytes", name,
              wb, gb)) {
        size_t bad = 0, first = 0;
        for (size_t i = 0; i < N; i++) {
            if (!same_bits(w[i], g[i]) && bad++ == 0) first = i;
        }
        CHECK(bad == 0, "%s: %zu of %zu values differ (first: x = %g, CPU EP %.9g, ortvk %.9g)", name, bad, N,
              specials[first], w[first], g[first]);
    }
    char *profile = read_text(path);
    if (CHECK(profile != NULL, "%s: ortvk's profile %s", name, path)) {
        if (fused) CHECK(strstr(profile, fused) != NULL, "%s: the profile shows the fused chain %s", name, fused);
        if (unfused) CHECK(strstr(profile, unfused) == NULL, "%s: nothing fused as %s", name, unfused);
        printf("%-60s ok (%zu values bit for bit%s%s)\n", name, N, fused ? ", fused as " : "", fused ? fused : "");
    }
    free(profile);
    unlink(path);
    free(w);
    free(g);
    if (want) api->ReleaseValue(want);
    if (got) api->ReleaseValue(got);
    api->ReleaseValue(x);
}

static onnx_model *model_of(int opset)
{
    onnx_model *m = onnx_model_new(opset);
    int64_t dims[1] = {N};
    onnx_model_add_input(m, "x", ONNX_FLOAT, 1, dims);
    onnx_model_add_output(m, "y", ONNX_FLOAT, 1, dims);
    return m;
}

int main(void)
{
    ortapp app;
    const OrtEpDevice *device;
    test_open(&app, &device);
    unsetenv("ORTVK_PROFILE");

    /* Hard swish as MobileNet-like models write it: x * Clip(x + 3, 0, 6) / 6. */
    onnx_model *m = model_of(13);
    scalar(m, "three", 3.0f), scalar(m, "zero", 0.0f), scalar(m, "six", 6.0f);
    add(m, "Add", "x", "three", "a");
    const char *clip_in[] = {"a", "zero", "six"}, *clip_out[] = {"c"};
    onnx_model_add_node(m, "Clip", clip_in, 3, clip_out, 1);
    add(m, "Div", "c", "six", "d");
    add(m, "Mul", "x", "d", "y");
    check(&app, device, "Add, Clip, Div, Mul (hard swish)", m, "Add+Clip+Div+Mul", NULL);

    /* A learnable affine then Relu, the scalar on the left; the reversed forms of Sub and Div. */
    m = model_of(13);
    scalar(m, "s", -1.5f), scalar(m, "b", 0.25f);
    add(m, "Mul", "s", "x", "a");
    add(m, "Add", "a", "b", "r");
    add(m, "Relu", "r", NULL, "y");
    check(&app, device, "Mul (scalar first), Add, Relu", m, "Mul+Add+Relu", NULL);

    m = model_of(13);
    scalar(m, "two", 2.0f), scalar(m, "one", 1.0f), scalar(m, "half", 0.5f);
    add(m, "Sub", "two", "x", "a");
    add(m, "Div", "one", "a", "b");
    add(m, "Sub", "b", "half", "c");
    add(m, "Add", "c", "x", "y");
    check(&app, device, "Sub (reversed), Div (reversed), Sub, Add x", m, "Sub+Div+Sub+Add", NULL);

    /* Clip's bounds as attributes (Clip-6, the version up to opset 10). */
    m = model_of(10);
    scalar(m, "k", 1e30f);
    add(m, "Mul", "x", "k", "a");
    const char *clip6_in[] = {"a"}, *clip6_out[] = {"y"};
    onnx_node *clip = onnx_model_add_node(m, "Clip", clip6_in, 1, clip6_out, 1);
    onnx_node_attr_float(clip, "min", -1e35f);
    onnx_node_attr_float(clip, "max", 2.0f);
    check(&app, device, "Mul by 1e30, Clip with attribute bounds", m, "Mul+Clip", NULL);

    /* t = x + 1 is read twice: the chain starts after it, Relu(t) * t with t as the chain's input. */
    m = model_of(13);
    scalar(m, "one", 1.0f);
    add(m, "Add", "x", "one", "t");
    add(m, "Relu", "t", NULL, "r");
    add(m, "Mul", "r", "t", "y");
    check(&app, device, "a value read twice stays unfused", m, "Relu+Mul", "Add+Relu");

    /* The middle value is also an output of the model: the chain stops before it is consumed. */
    m = model_of(13);
    int64_t dims[1] = {N};
    onnx_model_add_output(m, "mid", ONNX_FLOAT, 1, dims);
    scalar(m, "two", 2.0f);
    add(m, "Mul", "x", "two", "mid");
    add(m, "Sub", "mid", "two", "y");
    check(&app, device, "a chain value that is a model output is not fused", m, NULL, "Mul+Sub");

    /* A constant of higher rank than x broadcasts x up: not a chain step (the shape changes). */
    m = onnx_model_new(13);
    onnx_model_add_input(m, "x", ONNX_FLOAT, 1, dims);
    int64_t out_dims[2] = {1, N}, one_dims[2] = {1, 1};
    onnx_model_add_output(m, "y", ONNX_FLOAT, 2, out_dims);
    float k = 3.0f;
    onnx_model_add_initializer(m, "k", ONNX_FLOAT, 2, one_dims, &k, sizeof(k));
    add(m, "Add", "x", "k", "a");
    add(m, "Relu", "a", NULL, "y");
    check(&app, device, "a constant of higher rank broadcasts: not fused", m, NULL, "Add+Relu");
    return test_finish(&app, "test_kernels_fusion");
}
