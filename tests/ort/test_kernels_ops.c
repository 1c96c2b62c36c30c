/* ortvk's kernels against ORT's CPU EP on generated one-op (and a few mixed) models: the configurations the ONNX
 * node tests leave out and real models use — depthwise and grouped convolutions, dilations, SAME pads,
 * ConvTranspose with groups and output_padding, Resize as PP-OCR uses it, broadcasts of every shape class, batched
 * MatMul, layout ops, reductions — each run with every node on ortvk (session.disable_cpu_ep_fallback = 1) and
 * compared at ONNX's tolerances. A mixed model checks inputs that ORT hands over in host memory.
 *
 * With --float16 every case runs again with float16 tensors on ortvk (its shaders' float16 variant), against the
 * CPU EP running the float32 model on the same values (each rounded to float16 first), within the rounding of one
 * float16 result: ORT's CPU EP has no float16 kernels for most of these ops. */
#include <math.h>
#include <string.h>

#include "kernel_check.h"

#define MAX_INPUTS 4

/* Run with float16 tensors on ortvk (--float16). */
static bool half_mode;

/* Each case is built twice: model[0] with float tensors, run on the CPU EP (and on ortvk unless half_mode), and
 * model[1] with float16 tensors (half_mode only), run on ortvk. */
typedef struct op_case {
    const char *name;
    onnx_model *model[2];
    int n_inputs;
    const char *inputs[MAX_INPUTS];
    int rank[MAX_INPUTS];
    int64_t dims[MAX_INPUTS][6];
    bool strict; /* every node on ortvk */
    const char *second_output; /* another graph output to compare, besides "y" (NULL: none) */
    double atol; /* the absolute tolerance where the default's does not cover the reference (0: default) */
    bool int64_out; /* "y" is int64 (ArgMax, ArgMin): compared exactly */
} op_case;

/* A node of both models. */
typedef struct node2 {
    onnx_node *n[2];
} node2;

static uint32_t seed = 12345;

static float frand(void)
{
    return kc_rand_float(&seed);
}

/* A value of the element type the case runs with: rounded to float16 in half_mode, so that both models and the
 * inputs of both sessions hold the same numbers. */
static float value_of(float v)
{
    return half_mode ? kc_half_to_float(kc_float_to_half(v)) : v;
}

/* A float initializer of `values` in both models (float16 in the second). */
static void add_floats(op_case *c, const char *name, int rank, const int64_t *dims, const float *values, size_t n)
{
    onnx_model_add_initializer(c->model[0], name, ONNX_FLOAT, rank, dims, values, n * sizeof(float));
    if (!c->model[1]) return;
    uint16_t *h = malloc(n * sizeof(uint16_t) + 2);
    for (size_t i = 0; i < n; i++) h[i] = kc_float_to_half(values[i]);
    onnx_model_add_initializer(c->model[1], name, ONNX_FLOAT16, rank, dims, h, n * sizeof(uint16_t));
    free(h);
}

/* A float initializer of random values. */
static void constant(op_case *c, const char *name, int rank, const int64_t *dims)
{
    size_t n = kc_count(dims, rank);
    float *v = malloc(n * sizeof(float) + 1);
    for (size_t i = 0; i < n; i++) v[i] = value_of(frand());
    add_floats(c, name, rank, dims, v, n);
    free(v);
}

static void const_ints(op_case *c, const char *name, int count, const int64_t *values)
{
    int64_t dims[1] = {count};
    for (int m = 0; m < 2; m++) {
        if (c->model[m])
            onnx_model_add_initializer(c->model[m], name, ONNX_INT64, 1, dims, values,
                                       (size_t)count * sizeof(int64_t));
    }
}

/* Constant values of the tensors' element type (a scalar when count is 1). */
static void const_floats(op_case *c, const char *name, int count, const float *values)
{
    int64_t dims[1] = {count};
    add_floats(c, name, count == 1 ? 0 : 1, dims, values, (size_t)count);
}

/* Float constants whatever the tensors' type (Resize's scales). */
static void const_scales(op_case *c, const char *name, int count, const float *values)
{
    int64_t dims[1] = {count};
    for (int m = 0; m < 2; m++) {
        if (c->model[m])
            onnx_model_add_initializer(c->model[m], name, ONNX_FLOAT, 1, dims, values, (size_t)count * sizeof(float));
    }
}

/* A case with one float graph input "x" of `dims` and output "y" (shape left to ORT) of the float type, or int64. */
static op_case *start_typed(op_case *c, const char *name, int opset, int rank, const int64_t *dims, bool int64_out)
{
    memset(c, 0, sizeof(*c));
    c->name = name;
    c->model[0] = onnx_model_new(opset);
    c->model[1] = half_mode ? onnx_model_new(opset) : NULL;
    c->strict = true;
    c->n_inputs = 1;
    c->inputs[0] = "x";
    c->rank[0] = rank;
    memcpy(c->dims[0], dims, (size_t)rank * sizeof(int64_t));
    for (int m = 0; m < 2; m++) {
        if (!c->model[m]) continue;
        int type = m == 0 ? ONNX_FLOAT : ONNX_FLOAT16;
        onnx_model_add_input(c->model[m], "x", type, rank, dims);
        onnx_model_add_output(c->model[m], "y", int64_out ? ONNX_INT64 : type, -1, NULL);
    }
    c->int64_out = int64_out;
    return c;
}

static op_case *start(op_case *c, const char *name, int opset, int rank, const int64_t *dims)
{
    return start_typed(c, name, opset, rank, dims, false);
}

static void second_input(op_case *c, const char *name, int rank, const int64_t *dims)
{
    c->inputs[c->n_inputs] = name;
    c->rank[c->n_inputs] = rank;
    memcpy(c->dims[c->n_inputs], dims, (size_t)rank * sizeof(int64_t));
    c->n_inputs++;
    for (int m = 0; m < 2; m++) {
        if (c->model[m]) onnx_model_add_input(c->model[m], name, m == 0 ? ONNX_FLOAT : ONNX_FLOAT16, rank, dims);
    }
}

static node2 node(op_case *c, const char *op, int n_in, const char *const *in)
{
    const char *out[] = {"y"};
    node2 n = {{NULL, NULL}};
    for (int m = 0; m < 2; m++) {
        if (c->model[m]) n.n[m] = onnx_model_add_node(c->model[m], op, in, n_in, out, 1);
    }
    return n;
}

static void attr_int(node2 n, const char *name, int64_t v)
{
    for (int m = 0; m < 2; m++) onnx_node_attr_int(n.n[m], name, v);
}

static void attr_ints(node2 n, const char *name, const int64_t *v, int count)
{
    for (int m = 0; m < 2; m++) onnx_node_attr_ints(n.n[m], name, v, count);
}

static void attr_float(node2 n, const char *name, float v)
{
    for (int m = 0; m < 2; m++) onnx_node_attr_float(n.n[m], name, v);
}

static void attr_string(node2 n, const char *name, const char *v)
{
    for (int m = 0; m < 2; m++) onnx_node_attr_string(n.n[m], name, v);
}

static void run_case(ortapp *app, const OrtEpDevice *device, op_case *c)
{
    uint8_t *model = NULL, *model16 = NULL;
    size_t len = 0, len16 = 0;
    int rc = onnx_model_serialize(c->model[0], &model, &len);
    if (rc == ONNX_OK && c->model[1]) rc = onnx_model_serialize(c->model[1], &model16, &len16);
    for (int m = 0; m < 2; m++) onnx_model_free(c->model[m]);
    if (!CHECK(rc == ONNX_OK, "%s: model (%s)", c->name, onnx_strerror(rc))) {
        free(model);
        free(model16);
        return;
    }
    bool half = model16 != NULL;
    kc_pair pair;
    if (!kc_pair_open(app, device, model, len, model16, len16, c->strict, c->name, &pair)) {
        free(model);
        free(model16);
        return;
    }
    if (!c->strict) {
        /* With float16, ORT 1.24 runs the CPU node in float between Casts it inserts, under other node names:
         * only ortvk's share is checked then. */
        size_t ours = 0, other = 0;
        kc_assignment(app, pair.vk, &ours, &other, NULL, 0, NULL, 0);
        CHECK(ours > 0 && (other > 0 || half), "%s: a mixed model (%zu nodes on ortvk, %zu elsewhere)", c->name,
              ours, other);
    }
    OrtValue *inputs[MAX_INPUTS] = {0}, *inputs16[MAX_INPUTS] = {0};
    float *data[MAX_INPUTS] = {0};
    uint16_t *data16[MAX_INPUTS] = {0};
    for (int i = 0; i < c->n_inputs; i++) {
        size_t n = kc_count(c->dims[i], c->rank[i]);
        data[i] = malloc(n * sizeof(float) + 4);
        data16[i] = malloc(n * sizeof(uint16_t) + 4);
        for (size_t k = 0; k < n; k++) {
            data[i][k] = value_of(2.0f * frand());
            data16[i][k] = kc_float_to_half(data[i][k]);
        }
        inputs[i] = test_host_tensor(app, data[i], n, c->rank[i], c->dims[i]);
        if (half)
            inputs16[i] =
                test_host_tensor_of(app, data16[i], ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16, n, c->rank[i], c->dims[i]);
    }
    const char *out_names[] = {"y", c->second_output};
    size_t n_out = c->second_output ? 2 : 1;
    OrtValue *want[2] = {NULL, NULL}, *got[2] = {NULL, NULL};
    if (kc_pair_run(app, &pair, c->inputs, inputs, half ? inputs16 : NULL, (size_t)c->n_inputs, out_names, n_out,
                    want, got)) {
        for (size_t o = 0; o < n_out; o++) {
            size_t want_bytes = 0, got_bytes = 0;
            void *w = kc_host_data(app, want[o], &want_bytes), *g = kc_host_data(app, got[o], &got_bytes);
            if (c->int64_out) {
                size_t n = want_bytes / sizeof(int64_t), bad = 0, first = 0;
                if (CHECK(w && g && want_bytes == got_bytes, "%s: int64 outputs of %zu and %zu bytes", c->name,
                          want_bytes, got_bytes)) {
                    for (size_t i = 0; i < n; i++) {
                        if (((const int64_t *)w)[i] != ((const int64_t *)g)[i] && bad++ == 0) first = i;
                    }
                    CHECK(bad == 0, "%s%s: %zu of %zu indices differ (first [%zu]: CPU EP %lld, ortvk %lld)", c->name,
                          half ? " (float16)" : "", bad, n, first, bad ? (long long)((const int64_t *)w)[first] : 0,
                          bad ? (long long)((const int64_t *)g)[first] : 0);
                    if (bad == 0) printf("%-44s ok (%zu indices%s)\n", c->name, n, half ? ", float16" : "");
                }
                free(w);
                free(g);
                continue;
            }
            size_t n = want_bytes / sizeof(float);
            if (half && g && CHECK(got_bytes == n * sizeof(uint16_t), "%s: float16 output of %zu bytes", c->name,
                                   got_bytes)) {
                float *f = malloc(n * sizeof(float) + 4);
                for (size_t i = 0; i < n; i++) f[i] = kc_half_to_float(((const uint16_t *)g)[i]);
                free(g);
                g = f;
                got_bytes = n * sizeof(float);
            }
            if (CHECK(w && g && want_bytes == got_bytes, "%s: %s of %zu and %zu bytes", c->name, out_names[o],
                      want_bytes, got_bytes)) {
                onnx_tensor expected = {.elem_type = ONNX_FLOAT, .data = w, .data_bytes = want_bytes};
                char why[256];
                /* ONNX's rtol; the atol covers cancellation in long sums, whose rounding depends on the order of
                 * summation, which differs between the EPs: ~1e-7 times the sum of the |terms| (576 terms of about
                 * 1 give ~1e-5). A wrong index or pad is off by the size of the terms themselves. A float16 result
                 * is the float result rounded once: half an ULP more, 2^-11 relative (or 2^-25 in the
                 * subnormals). */
                double rtol = half ? 1e-3 + 0x1p-11 : 1e-3,
                       atol = (c->atol > 0 ? c->atol : 1e-5) + (half ? 0x1p-25 : 0);
                int bad = kc_compare(&expected, g, rtol, atol, why, sizeof(why));
                CHECK(bad == 0, "%s%s, %s: %s", c->name, half ? " (float16)" : "", out_names[o], why);
                if (!bad && o == 0) printf("%-44s ok (%zu values%s)\n", c->name, n, half ? ", float16" : "");
            }
            free(w);
            free(g);
        }
    }
    kc_pair_release(app, want, got, n_out);
    for (int i = 0; i < c->n_inputs; i++) {
        if (inputs[i]) app->api->ReleaseValue(inputs[i]);
        if (inputs16[i]) app->api->ReleaseValue(inputs16[i]);
        free(data[i]);
        free(data16[i]);
    }
    kc_pair_close(app, &pair);
    free(model);
    free(model16);
}

/* ---- the cases ------------------------------------------------------------------------------------------ */

static void conv(ortapp *app, const OrtEpDevice *device, const char *name, const int64_t *x, const int64_t *w,
                 int64_t group, const int64_t *strides, const int64_t *dilations, const int64_t *pads,
                 const char *auto_pad, bool bias)
{
    op_case c;
    int rank = 4;
    start(&c, name, 13, rank, x);
    constant(&c, "w", rank, w);
    int64_t b[1] = {w[0]};
    if (bias) constant(&c, "b", 1, b);
    const char *in[] = {"x", "w", "b"};
    node2 n = node(&c, "Conv", bias ? 3 : 2, in);
    attr_int(n, "group", group);
    if (strides) attr_ints(n, "strides", strides, 2);
    if (dilations) attr_ints(n, "dilations", dilations, 2);
    if (pads) attr_ints(n, "pads", pads, 4);
    if (auto_pad) attr_string(n, "auto_pad", auto_pad);
    run_case(app, device, &c);
}

static void conv_transpose(ortapp *app, const OrtEpDevice *device, const char *name, const int64_t *x,
                           const int64_t *w, int64_t group, const int64_t *strides, const int64_t *pads,
                           const int64_t *output_padding)
{
    op_case c;
    start(&c, name, 13, 4, x);
    constant(&c, "w", 4, w);
    int64_t b[1] = {w[1] * group};
    constant(&c, "b", 1, b);
    const char *in[] = {"x", "w", "b"};
    node2 n = node(&c, "ConvTranspose", 3, in);
    attr_int(n, "group", group);
    attr_ints(n, "strides", strides, 2);
    if (pads) attr_ints(n, "pads", pads, 4);
    if (output_padding) attr_ints(n, "output_padding", output_padding, 2);
    run_case(app, device, &c);
}

static void resize(ortapp *app, const OrtEpDevice *device, const char *name, const int64_t *x, const float *scales,
                   const int64_t *sizes, const char *mode, const char *coord, const char *nearest)
{
    op_case c;
    start(&c, name, 13, 4, x);
    const char *in[] = {"x", "", scales ? "scales" : "", sizes ? "sizes" : ""};
    if (scales) const_scales(&c, "scales", 4, scales);
    if (sizes) const_ints(&c, "sizes", 4, sizes);
    node2 n = node(&c, "Resize", sizes ? 4 : 3, in);
    attr_string(n, "mode", mode);
    attr_string(n, "coordinate_transformation_mode", coord);
    if (nearest) attr_string(n, "nearest_mode", nearest);
    run_case(app, device, &c);
}

static void binary(ortapp *app, const OrtEpDevice *device, const char *name, const char *op, int ra, const int64_t *a,
                   int rb, const int64_t *b, bool b_constant)
{
    op_case c;
    start(&c, name, 13, ra, a);
    if (b_constant) constant(&c, "b", rb, b);
    else second_input(&c, "b", rb, b);
    const char *in[] = {"x", "b"};
    node(&c, op, 2, in);
    run_case(app, device, &c);
}

/* Gemm of x (`a`) by constant B (`b`) plus constant C of [n], with transA/transB set where asked and, with
 * `scaled`, alpha 0.5 and beta 2. */
static void gemm(ortapp *app, const OrtEpDevice *device, const char *name, const int64_t *a, const int64_t *b,
                 int64_t n, bool trans_a, bool trans_b, bool scaled)
{
    op_case c;
    start(&c, name, 13, 2, a);
    constant(&c, "b", 2, b);
    constant(&c, "c", 1, &n);
    const char *in[] = {"x", "b", "c"};
    node2 g = node(&c, "Gemm", 3, in);
    if (trans_a) attr_int(g, "transA", 1);
    if (trans_b) attr_int(g, "transB", 1);
    if (scaled) {
        attr_float(g, "alpha", 0.5f);
        attr_float(g, "beta", 2.0f);
    }
    run_case(app, device, &c);
}

/* Gemm of x (`a`) by constant B (`b`) plus constant C of rank `c_rank` (one value a row: [M, 1]; or [M, N]), alpha
 * 0.5 and beta 2: each of the vec4 form's C forms. */
static void gemm_c(ortapp *app, const OrtEpDevice *device, const char *name, const int64_t *a, const int64_t *b,
                   const int64_t *c_dims)
{
    op_case c;
    start(&c, name, 13, 2, a);
    constant(&c, "b", 2, b);
    constant(&c, "c", 2, c_dims);
    const char *in[] = {"x", "b", "c"};
    node2 g = node(&c, "Gemm", 3, in);
    attr_float(g, "alpha", 0.5f);
    attr_float(g, "beta", 2.0f);
    run_case(app, device, &c);
}

/* op (alpha, beta: 0 for none) on x of `rank` and `dims`, named `name`. */
static void unary_of(ortapp *app, const OrtEpDevice *device, const char *name, const char *op, float alpha,
                     float beta, int rank, const int64_t *dims)
{
    op_case c;
    start(&c, name, 14, rank, dims);
    const char *in[] = {"x"};
    node2 n = node(&c, op, 1, in);
    if (alpha != 0) attr_float(n, "alpha", alpha);
    if (beta != 0) attr_float(n, "beta", beta);
    run_case(app, device, &c);
}

static void unary(ortapp *app, const OrtEpDevice *device, const char *op, float alpha, float beta)
{
    static const int64_t x[3] = {3, 17, 29};
    unary_of(app, device, op, op, alpha, beta, 3, x);
}

/* ---- float16 conversions, bit for bit ------------------------------------------------------------------- */

/* Cast(to = `to`) of `n` values `x` (of type `from`) on the CPU EP and on ortvk; the outputs must agree bit for bit
 * (any NaN matching any NaN). */
static void cast_exact(ortapp *app, const OrtEpDevice *device, const char *name, int from, int to, const void *x,
                       size_t n)
{
    int64_t dims[1] = {(int64_t)n};
    onnx_model *m = onnx_model_new(13);
    onnx_model_add_input(m, "x", from, 1, dims);
    onnx_model_add_output(m, "y", to, 1, dims);
    const char *in[] = {"x"}, *out[] = {"y"};
    onnx_node_attr_int(onnx_model_add_node(m, "Cast", in, 1, out, 1), "to", to);
    uint8_t *model = NULL;
    size_t len = 0;
    if (!test_model_serialize(m, name, &model, &len)) return;
    kc_pair pair;
    if (!kc_pair_open(app, device, model, len, NULL, 0, true, name, &pair)) {
        free(model);
        return;
    }
    OrtValue *input = test_host_tensor_of(app, (void *)x, (ONNXTensorElementDataType)from, n, 1, dims);
    const char *in_names[] = {"x"}, *out_names[] = {"y"};
    OrtValue *want = NULL, *got = NULL;
    if (kc_pair_run(app, &pair, in_names, &input, NULL, 1, out_names, 1, &want, &got)) {
        size_t want_bytes = 0, got_bytes = 0;
        uint8_t *w = kc_host_data(app, want, &want_bytes), *g = kc_host_data(app, got, &got_bytes);
        size_t bad = 0, first = 0;
        if (CHECK(w && g && want_bytes == got_bytes, "%s: outputs of %zu and %zu bytes", name, want_bytes,
                  got_bytes)) {
            size_t esize = onnx_elem_size(to);
            for (size_t i = 0; i < n; i++) {
                uint32_t a = 0, b = 0;
                memcpy(&a, w + i * esize, esize);
                memcpy(&b, g + i * esize, esize);
                bool nan_a = to == ONNX_FLOAT16 ? (a & 0x7fffu) > 0x7c00u : (a & 0x7fffffffu) > 0x7f800000u;
                bool nan_b = to == ONNX_FLOAT16 ? (b & 0x7fffu) > 0x7c00u : (b & 0x7fffffffu) > 0x7f800000u;
                if (a != b && !(nan_a && nan_b) && bad++ == 0) first = i;
            }
            uint32_t a = 0, b = 0;
            if (bad) {
                memcpy(&a, w + first * esize, esize);
                memcpy(&b, g + first * esize, esize);
            }
            CHECK(bad == 0, "%s: %zu of %zu values differ (first at %zu: CPU EP 0x%x, ortvk 0x%x)", name, bad, n,
                  first, a, b);
            if (!bad) printf("%-44s ok (%zu values, bit for bit)\n", name, n);
        }
        free(w);
        free(g);
    }
    kc_pair_release(app, &want, &got, 1);
    if (input) app->api->ReleaseValue(input);
    kc_pair_close(app, &pair);
    free(model);
}

/* Every float16 to float, and to float16 every float16 value, every midpoint between neighbours (ties to even) and
 * the floats on either side of it, the overflow threshold, float subnormals and NaNs. */
static void float16_conversions(ortapp *app, const OrtEpDevice *device)
{
    uint16_t *all = malloc(65536 * sizeof(uint16_t));
    for (uint32_t h = 0; h < 65536; h++) all[h] = (uint16_t)h;
    cast_exact(app, device, "Cast float16 -> float, all 65536", ONNX_FLOAT16, ONNX_FLOAT, all, 65536);
    free(all);

    size_t cap = 8 * 0x7c00 + 16, n = 0;
    float *x = malloc(cap * sizeof(float));
    for (uint32_t h = 0; h < 0x7c00; h++) {
        float v = kc_half_to_float((uint16_t)h), next = kc_half_to_float((uint16_t)(h + 1));
        float mid = h + 1 < 0x7c00 ? (v + next) * 0.5f : 65520.0f; /* exact: one more bit than float16 has */
        float around[4] = {v, mid, nextafterf(mid, 0.0f), nextafterf(mid, INFINITY)};
        for (int k = 0; k < 4; k++) {
            x[n++] = around[k];
            x[n++] = -around[k];
        }
    }
    float special[] = {INFINITY, -INFINITY, NAN, -NAN, 1e-40f, -1e-40f, 1e30f, 65536.0f, 1e-8f, 2.98e-8f};
    for (size_t k = 0; k < sizeof(special) / sizeof(special[0]); k++) x[n++] = special[k];
    cast_exact(app, device, "Cast float -> float16, ties and edges", ONNX_FLOAT, ONNX_FLOAT16, x, n);
    free(x);
}

int main(int argc, char **argv)
{
    half_mode = argc > 1 && strcmp(argv[1], "--float16") == 0;
    ortapp app;
    const OrtEpDevice *device;
    test_open(&app, &device);
    if (half_mode) {
        const char *types = app.api->GetKeyValue(app.api->EpDevice_EpMetadata(device), ORTVK_META_KERNEL_TYPES);
        if (types == NULL || strstr(types, "float16") == NULL) {
            printf("SKIP: ortvk runs no float16 kernels on this device (%s = %s: no 16-bit storage)\n",
                   ORTVK_META_KERNEL_TYPES, types ? types : "absent");
            return 77;
        }
        float16_conversions(&app, device);
    }

    /* Convolutions as MobileNet/PP-LCNet-style backbones use them. */
    {
        int64_t x[4] = {1, 8, 17, 13}, w[4] = {8, 1, 3, 3}, s[2] = {2, 2}, p[4] = {1, 1, 1, 1};
        conv(&app, device, "Conv depthwise 3x3 s2 p1 +bias", x, w, 8, s, NULL, p, NULL, true);
    }
    {
        int64_t x[4] = {2, 6, 15, 16}, w[4] = {4, 3, 3, 3}, d[2] = {2, 1}, p[4] = {2, 0, 1, 3};
        conv(&app, device, "Conv group 2 dilation 2x1 asymmetric pads", x, w, 2, NULL, d, p, NULL, false);
    }
    {
        int64_t x[4] = {1, 16, 9, 11}, w[4] = {24, 16, 1, 1};
        conv(&app, device, "Conv pointwise 1x1 +bias", x, w, 1, NULL, NULL, NULL, NULL, true);
    }
    {
        int64_t x[4] = {1, 3, 20, 19}, w[4] = {5, 3, 5, 5}, s[2] = {2, 3};
        conv(&app, device, "Conv 5x5 SAME_LOWER strides 2x3", x, w, 1, s, NULL, NULL, "SAME_LOWER", true);
    }
    {
        int64_t x[4] = {1, 64, 9, 9}, w[4] = {128, 64, 3, 3}, p[4] = {1, 1, 1, 1};
        conv(&app, device, "Conv 64->128 3x3 (weights staged, 288 KiB)", x, w, 1, NULL, NULL, p, NULL, true);
    }
    {
        int64_t x[4] = {1, 8, 7, 9}, w[4] = {8, 4, 2, 2}, s[2] = {2, 2};
        conv_transpose(&app, device, "ConvTranspose 2x2 s2 (PP-OCR's head)", x, w, 1, s, NULL, NULL);
    }
    {
        int64_t x[4] = {1, 6, 5, 4}, w[4] = {6, 2, 3, 3}, s[2] = {2, 3}, p[4] = {1, 0, 0, 1}, op[2] = {1, 2};
        conv_transpose(&app, device, "ConvTranspose group 3 pads output_padding", x, w, 3, s, p, op);
    }
    {
        op_case c;
        int64_t x[4] = {2, 5, 6, 7}, ch[1] = {5};
        start(&c, "BatchNormalization", 15, 4, x);
        constant(&c, "scale", 1, ch);
        constant(&c, "bias", 1, ch);
        constant(&c, "mean", 1, ch);
        float var[5] = {0.5f, 1.0f, 2.0f, 0.1f, 3.0f};
        const_floats(&c, "var", 5, var);
        const char *in[] = {"x", "scale", "bias", "mean", "var"};
        attr_float(node(&c, "BatchNormalization", 5, in), "epsilon", 1e-3f);
        run_case(&app, device, &c);
    }

    /* Resize as PP-OCR's FPN neck uses it, and the other modes. */
    {
        int64_t x[4] = {1, 4, 5, 7};
        float up2[4] = {1, 1, 2, 2}, down[4] = {1, 1, 0.6f, 0.5f};
        int64_t sizes[4] = {1, 4, 9, 12};
        resize(&app, device, "Resize nearest asymmetric floor x2", x, up2, NULL, "nearest", "asymmetric", "floor");
        resize(&app, device, "Resize nearest half_pixel round_prefer_floor", x, down, NULL, "nearest", "half_pixel",
               "round_prefer_floor");
        resize(&app, device, "Resize linear half_pixel sizes", x, NULL, sizes, "linear", "half_pixel", NULL);
        resize(&app, device, "Resize linear align_corners x2", x, up2, NULL, "linear", "align_corners", NULL);
        resize(&app, device, "Resize linear pytorch_half_pixel down", x, down, NULL, "linear", "pytorch_half_pixel",
               NULL);
        /* Scales that keep every dim (5 x 1.1 and 7 x 1.1 floor to 5 and 7): the CPU EP copies the input. */
        float keep[4] = {1, 1, 1.1f, 1.1f};
        resize(&app, device, "Resize linear, scales 1.1 keeping the dims", x, keep, NULL, "linear", "half_pixel", NULL);
        resize(&app, device, "Resize nearest, scales 1.1 keeping the dims", x, keep, NULL, "nearest", "asymmetric",
               NULL);
        resize(&app, device, "Resize cubic half_pixel x2", x, up2, NULL, "cubic", "half_pixel", NULL);
        resize(&app, device, "Resize cubic align_corners down", x, down, NULL, "cubic", "align_corners", NULL);
        resize(&app, device, "Resize cubic asymmetric sizes", x, NULL, sizes, "cubic", "asymmetric", NULL);
    }
    /* Nearest upsampling by whole factors (the shader's whole-factor form): input rows not a multiple of 4 long,
     * factors of 2, 3, 4, 8 (one that shares a vec4 of outputs, ones that do not), a batch of 2, output rows shorter
     * than and not a multiple of the form's 16 columns. */
    {
        int64_t x2[4] = {2, 3, 5, 10}, x8[4] = {1, 3, 10, 10}, x3[4] = {1, 2, 3, 6}, x5[4] = {2, 1, 7, 5};
        int64_t x4[4] = {1, 2, 3, 4}, sizes8[4] = {1, 3, 80, 80};
        float up2[4] = {1, 1, 2, 2}, up32[4] = {1, 1, 3, 2}, up14[4] = {1, 1, 1, 4}, up23[4] = {1, 1, 2, 3};
        float up44[4] = {1, 1, 4, 4};
        resize(&app, device, "Resize nearest x2 of rows of 10, batch 2", x2, up2, NULL, "nearest", "asymmetric",
               "floor");
        resize(&app, device, "Resize nearest to 80x80 (x8) half_pixel", x8, NULL, sizes8, "nearest", "half_pixel",
               "round_prefer_floor");
        resize(&app, device, "Resize nearest x3 x2 half_pixel round_prefer_ceil", x3, up32, NULL, "nearest",
               "half_pixel", "round_prefer_ceil");
        resize(&app, device, "Resize nearest x1 x4 of rows of 5, batch 2", x5, up14, NULL, "nearest", "asymmetric",
               "floor");
        resize(&app, device, "Resize nearest x2 x3 of rows of 4", x4, up23, NULL, "nearest", "asymmetric", "floor");
        resize(&app, device, "Resize nearest x4 of rows of 5, batch 2", x5, up44, NULL, "nearest", "half_pixel",
               NULL);
    }
    for (int rank = 1; rank <= 2; rank++) { /* the padded dims, which have no table */
        op_case c;
        int64_t x[2] = {3, 6};
        float scales[2] = {2, 4};
        start(&c, rank == 1 ? "Resize nearest x4 of rank 1" : "Resize nearest x2 x4 of rank 2", 13, rank,
              rank == 1 ? &x[1] : x);
        const_scales(&c, "scales", rank, rank == 1 ? &scales[1] : scales);
        const char *in[] = {"x", "", "scales"};
        attr_string(node(&c, "Resize", 3, in), "mode", "nearest");
        run_case(&app, device, &c);
    }

    /* Broadcasts. */
    {
        int64_t a[4] = {2, 3, 4, 5}, b3[3] = {3, 1, 5}, b1[1] = {5}, s[1] = {1}, c4[4] = {2, 1, 4, 1};
        binary(&app, device, "Add [2,3,4,5] + [3,1,5]", "Add", 4, a, 3, b3, false);
        binary(&app, device, "Mul [2,3,4,5] * constant [5]", "Mul", 4, a, 1, b1, true);
        binary(&app, device, "Div [2,3,4,5] / constant [1]", "Div", 4, a, 1, s, true);
        binary(&app, device, "Sub [2,1,4,1] - [2,3,4,5]", "Sub", 4, c4, 4, a, false);
        binary(&app, device, "Pow |x| ^ [5]", "Pow", 4, a, 1, b1, true);
    }
    /* A value a channel (the flat form: 64 elements of the output an invocation, across the ends of planes):
     * planes of 64, 80, 100 and 108, batch 2, the broadcast operand first or second, a scalar; planes of 63 (fewer
     * than 64) take the general form; planes of 510 and 99 (last of all) the flat order element by element. */
    {
        int64_t x108[4] = {2, 6, 9, 12}, c6[4] = {1, 6, 1, 1}, x100[4] = {1, 5, 10, 10}, c5[3] = {5, 1, 1};
        int64_t c4[4] = {1, 4, 1, 1}, x80[4] = {2, 4, 8, 10}, x64[4] = {2, 3, 8, 8}, c3[3] = {3, 1, 1};
        int64_t x63[4] = {1, 3, 7, 9}, c31[4] = {1, 3, 1, 1}, x280[2] = {7, 40}, s[1] = {1};
        binary(&app, device, "Mul [2,6,9,12] * [1,6,1,1], batch 2", "Mul", 4, x108, 4, c6, false);
        binary(&app, device, "Add [1,5,10,10] + constant [5,1,1]", "Add", 4, x100, 3, c5, true);
        binary(&app, device, "Sub [1,4,1,1] - [2,4,8,10]", "Sub", 4, c4, 4, x80, false);
        binary(&app, device, "Div [2,3,8,8] / [3,1,1]", "Div", 4, x64, 3, c3, false);
        binary(&app, device, "PRelu [2,3,8,8] slope [3,1,1]", "PRelu", 4, x64, 3, c3, true);
        binary(&app, device, "Mul [1,3,7,9] * [1,3,1,1]", "Mul", 4, x63, 4, c31, false);
        binary(&app, device, "Mul [7,40] * a scalar [1]", "Mul", 2, x280, 1, s, false);
    }
    {
        /* float16 Mean, and Sum of more than 2, would store rounded partial sums: ortvk leaves them to the CPU EP. */
        op_case c;
        int64_t x[3] = {3, 1, 5}, b[2] = {4, 1}, d[4] = {2, 1, 1, 1};
        start(&c, half_mode ? "Sum of [3,1,5], [4,1]" : "Mean of [3,1,5], [4,1], [2,1,1,1]", 13, 3, x);
        second_input(&c, "b", 2, b);
        if (!half_mode) second_input(&c, "d", 4, d);
        const char *in[] = {"x", "b", "d"};
        node(&c, half_mode ? "Sum" : "Mean", half_mode ? 2 : 3, in);
        run_case(&app, device, &c);
    }
    unary(&app, device, "HardSigmoid", 0.1666667f, 0.5f);
    unary(&app, device, "HardSwish", 0, 0);
    unary(&app, device, "Sigmoid", 0, 0);
    unary(&app, device, "Tanh", 0, 0);
    unary(&app, device, "Erf", 0, 0);
    {
        op_case c;
        int64_t x[2] = {7, 9};
        start(&c, "Clip [0, 6] (constant bounds)", 13, 2, x);
        float lo = 0.0f, hi = 6.0f;
        const_floats(&c, "lo", 1, &lo);
        const_floats(&c, "hi", 1, &hi);
        const char *in[] = {"x", "lo", "hi"};
        node(&c, "Clip", 3, in);
        run_case(&app, device, &c);
    }

    /* MatMul and Gemm. */
    {
        int64_t a[4] = {2, 1, 4, 5}, b[3] = {3, 5, 6};
        binary(&app, device, "MatMul [2,1,4,5] x [3,5,6]", "MatMul", 4, a, 3, b, false);
        int64_t v[1] = {5}, m[2] = {5, 3};
        binary(&app, device, "MatMul [5] x [5,3]", "MatMul", 1, v, 2, m, false);
        /* Output blocks of 4 x 4 with partial ones at both edges, K long enough to matter. */
        int64_t big_a[3] = {3, 37, 70}, big_b[2] = {70, 29};
        binary(&app, device, "MatMul [3,37,70] x constant [70,29]", "MatMul", 3, big_a, 2, big_b, true);
        /* The vec4 forms (K and N multiples of 4): 8 x 16 blocks with partial ones at both edges, batched, and tall
         * enough (M >= 256) for the form whose workgroups share B's columns. */
        int64_t fa[3] = {3, 37, 68}, fb[2] = {68, 36};
        binary(&app, device, "MatMul [3,37,68] x constant [68,36]", "MatMul", 3, fa, 2, fb, true);
        int64_t ba[4] = {2, 3, 9, 12}, bb[4] = {2, 3, 12, 8};
        binary(&app, device, "MatMul [2,3,9,12] x [2,3,12,8]", "MatMul", 4, ba, 4, bb, false);
        int64_t ta[2] = {300, 64}, tb[2] = {64, 40};
        binary(&app, device, "MatMul [300,64] x [64,40]", "MatMul", 2, ta, 2, tb, false);
    }
    gemm(&app, device, "Gemm [260,12] x [12,20] alpha beta C[20] (vec4 form)", (const int64_t[]){260, 12},
         (const int64_t[]){12, 20}, 20, false, false, true);
    /* transB = 1 (how exporters write fully connected layers): the vec4 form reads B along k, tall and short. */
    gemm(&app, device, "Gemm [3,64] x [20,64]^T C[20] (vec4 form, B along k)", (const int64_t[]){3, 64},
         (const int64_t[]){20, 64}, 20, false, true, false);
    gemm(&app, device, "Gemm [260,64] x [20,64]^T C[20] (vec4 form, B along k, tall)", (const int64_t[]){260, 64},
         (const int64_t[]){20, 64}, 20, false, true, false);
    gemm(&app, device, "Gemm transA transB alpha beta C[5]", (const int64_t[]){6, 4}, (const int64_t[]){5, 6}, 5,
         true, true, true);

    /* Layout ops and reductions. */
    {
        op_case c;
        int64_t x[4] = {2, 3, 4, 5}, perm[4] = {0, 2, 3, 1};
        start(&c, "Transpose [0,2,3,1]", 13, 4, x);
        const char *in[] = {"x"};
        attr_ints(node(&c, "Transpose", 1, in), "perm", perm, 4);
        run_case(&app, device, &c);
    }
    {
        op_case c;
        int64_t x[3] = {4, 10, 6}, st[2] = {8, 1}, en[2] = {-100, 5}, ax[2] = {1, 2}, sp[2] = {-3, 2};
        start(&c, "Slice negative step", 13, 3, x);
        const_ints(&c, "starts", 2, st);
        const_ints(&c, "ends", 2, en);
        const_ints(&c, "axes", 2, ax);
        const_ints(&c, "steps", 2, sp);
        const char *in[] = {"x", "starts", "ends", "axes", "steps"};
        node(&c, "Slice", 5, in);
        run_case(&app, device, &c);
    }
    {
        op_case c;
        int64_t x[4] = {1, 2, 5, 6}, pads[8] = {0, 0, 2, 1, 0, 0, 1, 3};
        start(&c, "Pad reflect", 13, 4, x);
        const_ints(&c, "pads", 8, pads);
        const char *in[] = {"x", "pads"};
        attr_string(node(&c, "Pad", 2, in), "mode", "reflect");
        run_case(&app, device, &c);
    }
    {
        op_case c;
        int64_t x[4] = {1, 3, 6, 5}, axes[2] = {2, 3};
        start(&c, "ReduceMean axes [2,3] keepdims", 13, 4, x);
        const char *in[] = {"x"};
        attr_ints(node(&c, "ReduceMean", 1, in), "axes", axes, 2);
        run_case(&app, device, &c);
    }
    {
        /* The ONNX tests of ReduceLogSumExp are double: this is its float check. */
        op_case c;
        int64_t x[3] = {2, 9, 4}, axes[1] = {1};
        start(&c, "ReduceLogSumExp axes [1]", 13, 3, x);
        const char *in[] = {"x"};
        attr_ints(node(&c, "ReduceLogSumExp", 1, in), "axes", axes, 1);
        run_case(&app, device, &c);
    }
    /* Pools: borders with pads, ceil_mode, dilations, count_include_pad, a global pool past one pass. */
    {
        op_case c;
        int64_t x[4] = {2, 3, 11, 9}, k[2] = {3, 3}, s2[2] = {2, 2}, p[4] = {1, 0, 1, 2}, d[2] = {2, 1};
        start(&c, "MaxPool 3x3 s2 pads ceil_mode dilations", 13, 4, x);
        node2 n = node(&c, "MaxPool", 1, (const char *[]){"x"});
        attr_ints(n, "kernel_shape", k, 2);
        attr_ints(n, "strides", s2, 2);
        attr_ints(n, "pads", p, 4);
        attr_ints(n, "dilations", d, 2);
        attr_int(n, "ceil_mode", 1);
        run_case(&app, device, &c);
        start(&c, "AveragePool 3x3 s2 pads count_include_pad", 13, 4, x);
        n = node(&c, "AveragePool", 1, (const char *[]){"x"});
        attr_ints(n, "kernel_shape", k, 2);
        attr_ints(n, "strides", s2, 2);
        attr_ints(n, "pads", p, 4);
        attr_int(n, "count_include_pad", 1);
        run_case(&app, device, &c);
        /* 2^24 outputs or more: the shader's index takes integer divisions rather than float quotients. */
        int64_t big[4] = {1, 1, 4097, 4097}, k21[2] = {2, 1};
        start(&c, "MaxPool 2x1 over 4097x4097 (2^24 + 4,096 outputs)", 13, 4, big);
        n = node(&c, "MaxPool", 1, (const char *[]){"x"});
        attr_ints(n, "kernel_shape", k21, 2);
        run_case(&app, device, &c);
    }
    {
        /* The global kernel (kernel_pool.comp's pool_global): planes of a multiple of 4 (vec4 texels, blocks of 16
         * groups and the groups past them) and not (4 texels a group, then the last n % 4), planes of 1, planes
         * past its passes of 2^20 taps (lanes kept between dispatches), 8 outputs a workgroup (40: 5). */
        static const struct {
            const char *name, *op;
            int rank;
            int64_t x[4];
        } cases[] = {
            {"GlobalAveragePool 2x20 planes of 12x12 (vec4)", "GlobalAveragePool", 4, {2, 20, 12, 12}},
            {"GlobalMaxPool 2x20 planes of 12x12 (vec4)", "GlobalMaxPool", 4, {2, 20, 12, 12}},
            {"GlobalAveragePool 11 planes of 5x7", "GlobalAveragePool", 4, {1, 11, 5, 7}},
            {"GlobalMaxPool 11 planes of 5x7", "GlobalMaxPool", 4, {1, 11, 5, 7}},
            {"GlobalAveragePool 2x9 planes of 1x1", "GlobalAveragePool", 4, {2, 9, 1, 1}},
            {"GlobalAveragePool 1-D 3 planes of 150", "GlobalAveragePool", 3, {1, 3, 150}},
            {"GlobalAveragePool over 150x130 (one pass)", "GlobalAveragePool", 4, {1, 2, 150, 130}},
            {"GlobalAveragePool 3 planes of 1024x1028 (2 passes)", "GlobalAveragePool", 4, {1, 3, 1024, 1028}},
            {"GlobalAveragePool 2 planes of 1025x1027 (2 passes)", "GlobalAveragePool", 4, {1, 2, 1025, 1027}},
        };
        for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
            op_case c;
            start(&c, cases[k].name, 13, cases[k].rank, cases[k].x);
            node(&c, cases[k].op, 1, (const char *[]){"x"});
            run_case(&app, device, &c);
        }
    }
    {
        /* A reduction over an empty axis: filled without a dispatch (3 values: an odd count in float16). */
        op_case c;
        int64_t x[2] = {3, 0}, axes[1] = {1};
        start(&c, "ReduceMax over an empty axis", 13, 2, x);
        attr_ints(node(&c, "ReduceMax", 1, (const char *[]){"x"}), "axes", axes, 1);
        run_case(&app, device, &c);
        start(&c, "ReduceProd over an empty axis", 13, 2, x);
        attr_ints(node(&c, "ReduceProd", 1, (const char *[]){"x"}), "axes", axes, 1);
        run_case(&app, device, &c);
    }
    {
        op_case c;
        int64_t x[3] = {3, 7, 11};
        start(&c, "Softmax axis 1", 13, 3, x);
        const char *in[] = {"x"};
        attr_int(node(&c, "Softmax", 1, in), "axis", 1);
        run_case(&app, device, &c);
    }
    {
        op_case c;
        int64_t x[4] = {1, 3, 4, 5}, y[4] = {1, 5, 4, 5}, z[4] = {1, 1, 4, 5};
        start(&c, "Concat of 4 on axis 1", 13, 4, x);
        second_input(&c, "b", 4, y);
        second_input(&c, "c", 4, z);
        second_input(&c, "d", 4, x);
        const char *in[] = {"x", "b", "c", "d"};
        attr_int(node(&c, "Concat", 4, in), "axis", 1);
        run_case(&app, device, &c);
    }

    /* Normalisation layers: rows of 323 and of 30 values. */
    {
        op_case c;
        int64_t x[4] = {2, 3, 17, 19}, ch[1] = {3};
        start(&c, "InstanceNormalization [2,3,17,19]", 13, 4, x);
        constant(&c, "scale", 1, ch);
        constant(&c, "bias", 1, ch);
        const char *in[] = {"x", "scale", "bias"};
        attr_float(node(&c, "InstanceNormalization", 3, in), "epsilon", 1e-3f);
        run_case(&app, device, &c);
    }
    {
        op_case c;
        int64_t x[3] = {4, 5, 6}, norm[2] = {5, 6};
        start(&c, "LayerNormalization axis -2", 17, 3, x);
        constant(&c, "scale", 2, norm);
        constant(&c, "bias", 2, norm);
        const char *in[] = {"x", "scale", "bias"};
        attr_int(node(&c, "LayerNormalization", 3, in), "axis", -2);
        run_case(&app, device, &c);
    }

    /* DepthToSpace, SpaceToDepth and Tile: transposes and repeats as one strided copy. */
    {
        op_case c;
        int64_t x[4] = {2, 8, 3, 5};
        start(&c, "DepthToSpace CRD blocksize 2", 13, 4, x);
        const char *in[] = {"x"};
        node2 n = node(&c, "DepthToSpace", 1, in);
        attr_int(n, "blocksize", 2);
        attr_string(n, "mode", "CRD");
        run_case(&app, device, &c);
    }
    {
        op_case c;
        int64_t x[4] = {1, 18, 2, 3};
        start(&c, "DepthToSpace DCR blocksize 3", 13, 4, x);
        const char *in[] = {"x"};
        attr_int(node(&c, "DepthToSpace", 1, in), "blocksize", 3);
        run_case(&app, device, &c);
    }
    {
        op_case c;
        int64_t x[4] = {2, 3, 4, 6};
        start(&c, "SpaceToDepth blocksize 2", 13, 4, x);
        const char *in[] = {"x"};
        attr_int(node(&c, "SpaceToDepth", 1, in), "blocksize", 2);
        run_case(&app, device, &c);
    }
    {
        op_case c;
        int64_t x[3] = {3, 4, 5}, repeats[3] = {2, 1, 3};
        start(&c, "Tile [3,4,5] x [2,1,3]", 13, 3, x);
        const_ints(&c, "repeats", 3, repeats);
        const char *in[] = {"x", "repeats"};
        node(&c, "Tile", 2, in);
        run_case(&app, device, &c);
    }
    {
        /* x[:, -1] as PyTorch exports it: a scalar index, the axis dropped. */
        op_case c;
        int64_t x[3] = {2, 5, 3}, index = -1;
        start(&c, "Gather axis 1, scalar index -1", 13, 3, x);
        int64_t none[1] = {0};
        for (int m = 0; m < 2; m++) {
            if (c.model[m]) onnx_model_add_initializer(c.model[m], "i", ONNX_INT64, 0, none, &index, sizeof(index));
        }
        const char *in[] = {"x", "i"};
        attr_int(node(&c, "Gather", 2, in), "axis", 1);
        run_case(&app, device, &c);
    }
    {
        op_case c;
        int64_t x[2] = {4, 6}, indices[4] = {0, 3, 1, 1}, dims[2] = {2, 2};
        start(&c, "Gather axis 0, indices [[0,3],[1,1]]", 13, 2, x);
        for (int m = 0; m < 2; m++) {
            if (c.model[m]) onnx_model_add_initializer(c.model[m], "i", ONNX_INT64, 2, dims, indices, sizeof(indices));
        }
        const char *in[] = {"x", "i"};
        node(&c, "Gather", 2, in);
        run_case(&app, device, &c);
    }
    unary(&app, device, "Softsign", 0, 0);
    if (!half_mode) unary(&app, device, "Celu", 0.7f, 0); /* ONNX defines Celu for float only */

    /* Masks: comparisons with broadcasting, bool logic, and Where picking between two float tensors. */
    {
        op_case c;
        int64_t x[3] = {2, 3, 4}, b[1] = {4}, cc[2] = {3, 1};
        start(&c, "Where(Greater, And, Not, Or, Xor, LessOrEqual)", 16, 3, x);
        second_input(&c, "b", 1, b);
        second_input(&c, "c", 2, cc);
        for (int m = 0; m < 2; m++) {
            if (!c.model[m]) continue;
            const char *g_in[] = {"x", "b"}, *g_out[] = {"g"}, *l_in[] = {"x", "c"}, *l_out[] = {"l"};
            const char *n_in[] = {"l"}, *n_out[] = {"nl"}, *a_in[] = {"g", "nl"}, *a_out[] = {"a"};
            const char *x_in[] = {"g", "l"}, *x_out[] = {"xo"}, *o_in[] = {"a", "xo"}, *o_out[] = {"mask"};
            const char *ng_in[] = {"x"}, *ng_out[] = {"nx"}, *w_in[] = {"mask", "x", "nx"}, *w_out[] = {"y"};
            onnx_model_add_node(c.model[m], "Greater", g_in, 2, g_out, 1);
            onnx_model_add_node(c.model[m], "LessOrEqual", l_in, 2, l_out, 1);
            onnx_model_add_node(c.model[m], "Not", n_in, 1, n_out, 1);
            onnx_model_add_node(c.model[m], "And", a_in, 2, a_out, 1);
            onnx_model_add_node(c.model[m], "Xor", x_in, 2, x_out, 1);
            onnx_model_add_node(c.model[m], "Or", o_in, 2, o_out, 1);
            onnx_model_add_node(c.model[m], "Neg", ng_in, 1, ng_out, 1);
            onnx_model_add_node(c.model[m], "Where", w_in, 3, w_out, 1);
        }
        run_case(&app, device, &c);
    }

    /* One partition of six nodes: a value read by three of them (its buffer is reused only after the last), a
     * node reading one value twice, and an inner value that is also a graph output. Float only: in float16 each
     * inner value is rounded, which the single-rounding tolerance does not cover (the float16 PP-OCRv4 run in
     * test_kernels_ppocr covers chains). */
    if (!half_mode) {
        op_case c;
        int64_t x[3] = {2, 7, 9};
        start(&c, "partition: shared, doubly read and exposed values", 13, 3, x);
        c.second_output = "d";
        onnx_model_add_output(c.model[0], "d", ONNX_FLOAT, -1, NULL);
        const char *n1[] = {"x"}, *o1[] = {"a"}, *n2[] = {"a"}, *o2[] = {"b"}, *o3[] = {"c"}, *n4[] = {"b", "c"},
                   *o4[] = {"d"}, *n5[] = {"d", "a"}, *o5[] = {"e"}, *n6[] = {"e", "e"}, *o6[] = {"y"};
        onnx_model_add_node(c.model[0], "Relu", n1, 1, o1, 1);
        onnx_model_add_node(c.model[0], "Sigmoid", n2, 1, o2, 1);
        onnx_model_add_node(c.model[0], "Neg", n2, 1, o3, 1);
        onnx_model_add_node(c.model[0], "Add", n4, 2, o4, 1);
        onnx_model_add_node(c.model[0], "Mul", n5, 2, o5, 1);
        onnx_model_add_node(c.model[0], "Mul", n6, 2, o6, 1);
        run_case(&app, device, &c);
    }

    /* Mixed: Relu on ortvk, Hardmax on the CPU EP (ortvk does not claim it), Neg on ortvk. ORT hands the Neg its input
     * in host memory (a 1 MiB tensor: the staged-upload path). */
    {
        op_case c;
        int64_t x[4] = {1, 64, 64, 64};
        start(&c, "Relu -> Hardmax (CPU) -> Neg, 1 MiB host input", 13, 4, x);
        c.strict = false;
        const char *a[] = {"x"}, *ao[] = {"r"}, *b[] = {"r"}, *bo[] = {"s"}, *d[] = {"s"}, *dout[] = {"y"};
        for (int m = 0; m < 2; m++) {
            if (!c.model[m]) continue;
            onnx_model_add_node(c.model[m], "Relu", a, 1, ao, 1);
            onnx_model_add_node(c.model[m], "Hardmax", b, 1, bo, 1);
            onnx_model_add_node(c.model[m], "Neg", d, 1, dout, 1);
        }
        run_case(&app, device, &c);
    }
    /* Last, so that the cases above keep their random values. The depthwise forms (rows of a multiple of 4 read as
     * vec4: 3 or 5 taps, stride 1 or 2) and packed weights (8 or 4 output channels of a group a vec4; 3-tap rows, 1x1
     * flattened, the general path). */
    {
        int64_t x[4] = {2, 5, 6, 20}, w[4] = {5, 1, 3, 3}, p[4] = {1, 1, 1, 1};
        conv(&app, device, "Conv depthwise 3x3 s1 p1, rows of 20", x, w, 5, NULL, NULL, p, NULL, true);
    }
    {
        int64_t x[4] = {1, 3, 9, 24}, w[4] = {3, 1, 3, 3}, s[2] = {2, 2}, p[4] = {1, 1, 0, 0};
        conv(&app, device, "Conv depthwise 3x3 s2 p1/0, rows of 24", x, w, 3, s, NULL, p, NULL, false);
    }
    {
        int64_t x[4] = {1, 4, 11, 16}, w[4] = {4, 1, 5, 5}, p[4] = {2, 2, 2, 1};
        conv(&app, device, "Conv depthwise 5x5 s1 p2, rows of 16", x, w, 4, NULL, NULL, p, NULL, true);
    }
    {
        int64_t x[4] = {1, 2, 10, 28}, w[4] = {2, 1, 5, 5}, s[2] = {2, 2}, p[4] = {2, 2, 2, 2};
        conv(&app, device, "Conv depthwise 5x5 s2 p2, rows of 28", x, w, 2, s, NULL, p, NULL, true);
    }
    {
        int64_t x[4] = {2, 16, 6, 12}, w[4] = {16, 8, 3, 3}, p[4] = {1, 1, 1, 1};
        conv(&app, device, "Conv 3x3 s1 p1 group 2 (8 channels a group)", x, w, 2, NULL, NULL, p, NULL, true);
    }
    {
        int64_t x[4] = {1, 5, 7, 8}, w[4] = {12, 5, 3, 3}, p[4] = {1, 1, 1, 1};
        conv(&app, device, "Conv 3x3 s1 p1 12 channels (4 a vec4)", x, w, 1, NULL, NULL, p, NULL, false);
    }
    {
        int64_t x[4] = {2, 7, 6, 10}, w[4] = {16, 7, 1, 1};
        conv(&app, device, "Conv 1x1 batch 2, 60 pixels as one row", x, w, 1, NULL, NULL, NULL, NULL, true);
    }
    {
        int64_t x[4] = {1, 6, 13, 15}, w[4] = {8, 6, 3, 3}, s[2] = {2, 2}, p[4] = {1, 1, 1, 1};
        conv(&app, device, "Conv 3x3 s2 packed weights", x, w, 1, s, NULL, p, NULL, true);
    }
    /* ArgMax and ArgMin: a middle axis, a negative one, without keepdims, the last index. With --float16 the values
     * rounded to float16 tie now and then (the CPU EP runs the float model on the same values). */
    {
        static const struct {
            const char *name, *op;
            int rank;
            int64_t dims[3], axis, keepdims, last;
        } args[] = {
            {"ArgMax of [3,5,4] axis 1", "ArgMax", 3, {3, 5, 4}, 1, 1, 0},
            {"ArgMin of [3,5,4] axis -1 keepdims 0", "ArgMin", 3, {3, 5, 4}, -1, 0, 0},
            {"ArgMax of [6,7] axis -2 last index", "ArgMax", 2, {6, 7}, -2, 1, 1},
            {"ArgMin of [300] last index keepdims 0", "ArgMin", 1, {300}, 0, 0, 1},
            {"ArgMax of [2,3,1] axis 2", "ArgMax", 3, {2, 3, 1}, 2, 1, 0},
        };
        for (size_t k = 0; k < sizeof(args) / sizeof(args[0]); k++) {
            op_case c;
            start_typed(&c, args[k].name, 13, args[k].rank, args[k].dims, true);
            node2 n = node(&c, args[k].op, 1, (const char *[]){"x"});
            attr_int(n, "axis", args[k].axis);
            attr_int(n, "keepdims", args[k].keepdims);
            attr_int(n, "select_last_index", args[k].last);
            run_case(&app, device, &c);
        }
    }
    /* Loops past lavapipe's cap of about 65535 iterations, which ended them silently (a ReduceSum of 70000 values
     * summed 65534 of them): every such loop now runs in chunks. Last, like the cases above. */
    {
        op_case c;
        int64_t x[2] = {1, 70000};
        start(&c, "ReduceSum of 70000 values", 13, 2, x);
        const char *in[] = {"x"};
        node(&c, "ReduceSum", 1, in);
        run_case(&app, device, &c);
    }
    {
        /* 70000 values a row (one dispatch), and 600000 (two: the second resumes from the first's index). */
        static const struct {
            const char *name, *op;
            int rank;
            int64_t dims[2], last;
        } args[] = {
            {"ArgMax over rows of 70000", "ArgMax", 2, {2, 70000}, 0},
            {"ArgMin of [70001] last index", "ArgMin", 1, {70001}, 1},
            {"ArgMax of [600000]", "ArgMax", 1, {600000}, 0},
            {"ArgMin over rows of 600000 last index", "ArgMin", 2, {2, 600000}, 1},
        };
        for (size_t k = 0; k < sizeof(args) / sizeof(args[0]); k++) {
            op_case c;
            start_typed(&c, args[k].name, 13, args[k].rank, args[k].dims, true);
            node2 n = node(&c, args[k].op, 1, (const char *[]){"x"});
            attr_int(n, "axis", -1);
            attr_int(n, "select_last_index", args[k].last);
            run_case(&app, device, &c);
        }
    }
    {
        int64_t a[2] = {2, 70000}, b[2] = {70000, 3};
        binary(&app, device, "MatMul K = 70000", "MatMul", 2, a, 2, b, true);
    }
    {
        int64_t x[4] = {1, 70000, 1, 2}, w[4] = {2, 70000, 1, 1}, w4[4] = {4, 70000, 1, 1};
        conv(&app, device, "Conv of 70000 input channels", x, w, 1, NULL, NULL, NULL, NULL, true);
        conv(&app, device, "Conv of 70000 input channels, packed", x, w4, 1, NULL, NULL, NULL, NULL, false);
    }
    {
        op_case c;
        int64_t x[2] = {2, 70000}, norm[1] = {70000};
        start(&c, "LayerNormalization over 70000", 17, 2, x);
        /* ORT 1.24.3's CPU EP sums the 70000 squares in float32 (about 1e-5 relative error in the variance, so up
         * to ~4e-5 in outputs of a few units); a loop cut at the cap is off by ~0.1. */
        c.atol = 1e-4;
        constant(&c, "scale", 1, norm);
        constant(&c, "bias", 1, norm);
        const char *in[] = {"x", "scale", "bias"};
        attr_int(node(&c, "LayerNormalization", 3, in), "axis", -1);
        run_case(&app, device, &c);
    }
    {
        op_case c;
        int64_t x[2] = {2, 100003};
        start(&c, "Softmax over rows of 100003", 13, 2, x);
        const char *in[] = {"x"};
        attr_int(node(&c, "Softmax", 1, in), "axis", 1);
        run_case(&app, device, &c);
    }
    /* The depthwise shader on images of 32 tiles or more (workgroups of one channel): 16x4 tiles read and stored as
     * vec4, read and stored one value at a time, the general form (dilations), and a kernel row of 70000 taps. */
    static const struct {
        const char *name;
        int64_t x[4], w[4], stride, dilation, pads[4];
        bool bias;
    } depthwise[] = {
        {"Conv depthwise 3x3 s1 p1, 40x72", {1, 3, 40, 72}, {3, 1, 3, 3}, 1, 1, {1, 1, 1, 1}, true},
        {"Conv depthwise 5x5 s2 p2, 130x90", {1, 2, 130, 90}, {2, 1, 5, 5}, 2, 1, {2, 2, 1, 2}, false},
        {"Conv depthwise 3x3 dilation 2, 40x41", {2, 3, 40, 41}, {3, 1, 3, 3}, 1, 2, {2, 2, 2, 2}, true},
        {"Conv depthwise of 70000 taps", {1, 2, 1, 70002}, {2, 1, 1, 70000}, 1, 1, {0, 0, 0, 0}, true},
    };
    for (size_t k = 0; k < sizeof(depthwise) / sizeof(depthwise[0]); k++) {
        int64_t s[2] = {depthwise[k].stride, depthwise[k].stride};
        int64_t d[2] = {depthwise[k].dilation, depthwise[k].dilation};
        conv(&app, device, depthwise[k].name, depthwise[k].x, depthwise[k].w, depthwise[k].x[1], s, d,
             depthwise[k].pads, NULL, depthwise[k].bias);
    }
    /* The GEMM's wide form (workgroups sharing A's rows, 16 x 8 blocks), where N >= 384: partial blocks at both edges
     * (M = 20, N = 126 * 8 + 4), batched; B along k (transB); A along m (transA); a pointwise Conv of 512 pixels. */
    {
        int64_t wa[3] = {2, 20, 36}, wb[2] = {36, 1012};
        binary(&app, device, "MatMul [2,20,36] x [36,1012] (wide)", "MatMul", 3, wa, 2, wb, false);
    }
    gemm(&app, device, "Gemm [20,36] x [1012,36]^T C[1012] (wide, B along k)", (const int64_t[]){20, 36},
         (const int64_t[]){1012, 36}, 1012, false, true, false);
    gemm(&app, device, "Gemm [36,20]^T x [36,1012] alpha beta C[1012] (wide, A along m)", (const int64_t[]){36, 20},
         (const int64_t[]){36, 1012}, 1012, true, false, true);
    {
        int64_t x[4] = {2, 16, 16, 32}, w[4] = {24, 16, 1, 1};
        conv(&app, device, "Conv pointwise 1x1 +bias, 512 pixels (wide GEMM)", x, w, 1, NULL, NULL, NULL, NULL, true);
    }
    /* The 3x3 form of rows read as vec4 and two output rows an invocation (stride 1 or 2): odd output heights, pads
     * of 0 in H, 4 and 8 channels a vector, and 2 ranges of input channels (1300 of them). Last, so that the cases
     * above keep their random values. */
    {
        int64_t x[4] = {1, 6, 13, 16}, w[4] = {8, 6, 3, 3}, s2[2] = {2, 2}, p[4] = {1, 1, 1, 1};
        conv(&app, device, "Conv 3x3 s2 p1 rows of 16, packed", x, w, 1, s2, NULL, p, NULL, true);
        int64_t w4[4] = {4, 6, 3, 3}, p0[4] = {1, 1, 0, 0};
        conv(&app, device, "Conv 3x3 s2 p1/0 rows of 16, 4 channels", x, w4, 1, s2, NULL, p0, NULL, false);
        int64_t x7[4] = {2, 5, 7, 12}, w7[4] = {4, 5, 3, 3}, ph[4] = {0, 1, 0, 1};
        conv(&app, device, "Conv 3x3 s1 pads 0 in H, 1 in W", x7, w7, 1, NULL, NULL, ph, NULL, true);
        int64_t xc[4] = {1, 1300, 3, 4}, wc[4] = {8, 1300, 3, 3};
        conv(&app, device, "Conv 3x3 s1 p1 of 1300 input channels, packed", xc, wc, 1, NULL, NULL, p, NULL, true);
    }
    /* The vec4 form's C forms, chosen by a constant (none, one value a row, any other): C of [M, 1] and [M, N],
     * tall and wide, N not a multiple of the block; a pointwise Conv without bias, wide, of 652 input channels. */
    gemm_c(&app, device, "Gemm [20,36] x [36,1012] C[20,1] (wide, C a row's)", (const int64_t[]){20, 36},
           (const int64_t[]){36, 1012}, (const int64_t[]){20, 1});
    gemm_c(&app, device, "Gemm [20,36] x [36,1012] C[20,1012] (wide)", (const int64_t[]){20, 36},
           (const int64_t[]){36, 1012}, (const int64_t[]){20, 1012});
    gemm_c(&app, device, "Gemm [260,12] x [12,20] C[260,1] (vec4 form)", (const int64_t[]){260, 12},
           (const int64_t[]){12, 20}, (const int64_t[]){260, 1});
    {
        int64_t x[4] = {1, 652, 4, 100}, w[4] = {20, 652, 1, 1};
        conv(&app, device, "Conv pointwise 1x1, 652 channels, 400 pixels (wide GEMM, no bias)", x, w, 1, NULL,
             NULL, NULL, NULL, false);
    }
    {
        /* Last, so that the cases above keep their random values. The 2x2 upsampling's register tiles (rows a
         * multiple of 4): 4 channels by 4 pixels, 4 by 8, 1 channel by 16, 2 by 16, 2 by 8 in groups, 1 by 4 (3
         * channels a group), and 2x2 forms the tiles must leave to the others: pads, output_padding, rows of 10. */
        int64_t s[2] = {2, 2}, p[4] = {0, 1, 1, 0}, op[2] = {1, 0};
        conv_transpose(&app, device, "ConvTranspose 2x2 s2 tiles 4 ch x 4 px, N 2", (const int64_t[]){2, 8, 5, 12},
                       (const int64_t[]){8, 8, 2, 2}, 1, s, NULL, NULL);
        conv_transpose(&app, device, "ConvTranspose 2x2 s2 tiles 4 ch x 8 px", (const int64_t[]){1, 8, 3, 16},
                       (const int64_t[]){8, 4, 2, 2}, 1, s, NULL, NULL);
        conv_transpose(&app, device, "ConvTranspose 2x2 s2 tiles 1 ch x 16 px", (const int64_t[]){1, 7, 3, 32},
                       (const int64_t[]){7, 1, 2, 2}, 1, s, NULL, NULL);
        conv_transpose(&app, device, "ConvTranspose 2x2 s2 tiles 2 ch x 16 px", (const int64_t[]){1, 3, 2, 16},
                       (const int64_t[]){3, 2, 2, 2}, 1, s, NULL, NULL);
        conv_transpose(&app, device, "ConvTranspose 2x2 s2 tiles group 2, 2 ch x 8 px", (const int64_t[]){1, 6, 3, 8},
                       (const int64_t[]){6, 2, 2, 2}, 2, s, NULL, NULL);
        conv_transpose(&app, device, "ConvTranspose 2x2 s2 tiles group 2, 1 ch x 4 px", (const int64_t[]){1, 4, 1, 4},
                       (const int64_t[]){4, 3, 2, 2}, 2, s, NULL, NULL);
        conv_transpose(&app, device, "ConvTranspose 2x2 s2 pads (not tiles)", (const int64_t[]){1, 4, 3, 8},
                       (const int64_t[]){4, 4, 2, 2}, 1, s, p, NULL);
        conv_transpose(&app, device, "ConvTranspose 2x2 s2 output_padding (not tiles)", (const int64_t[]){1, 4, 3, 8},
                       (const int64_t[]){4, 4, 2, 2}, 1, s, NULL, op);
        conv_transpose(&app, device, "ConvTranspose 2x2 s2 rows of 10 (not tiles)", (const int64_t[]){1, 4, 3, 10},
                       (const int64_t[]){4, 4, 2, 2}, 1, s, NULL, NULL);
    }
    {
        /* Last, so that the cases above keep their random values. The 3x3 row form with few input channels (a
         * network's first Conv) and its vec4 stores (output rows of a multiple of 4 columns): 1, 2, 3 and 5 input
         * channels, strides 1 and 2, half column blocks (12 and 20 columns), odd heights, pads 0 in H or at the
         * row's end, batches, groups, 32 outputs, and 10 columns (scalar stores). */
        int64_t s2[2] = {2, 2}, p[4] = {1, 1, 1, 1}, p_h0[4] = {0, 1, 1, 0};
        conv(&app, device, "Conv 3x3 s2 p1 3->16, 13x24 (the stem form, vec4 stores)",
             (const int64_t[]){1, 3, 13, 24}, (const int64_t[]){16, 3, 3, 3}, 1, s2, NULL, p, NULL, true);
        conv(&app, device, "Conv 3x3 s2 p1 1->16, N 2, 9x24", (const int64_t[]){2, 1, 9, 24},
             (const int64_t[]){16, 1, 3, 3}, 1, s2, NULL, p, NULL, true);
        conv(&app, device, "Conv 3x3 s2 pads 0,1,1,0 2->32, 11x24, no bias", (const int64_t[]){1, 2, 11, 24},
             (const int64_t[]){32, 2, 3, 3}, 1, s2, NULL, p_h0, NULL, false);
        conv(&app, device, "Conv 3x3 s1 p1 3->16, 7x20 (stride 1)", (const int64_t[]){1, 3, 7, 20},
             (const int64_t[]){16, 3, 3, 3}, 1, NULL, NULL, p, NULL, true);
        conv(&app, device, "Conv 3x3 s2 p1 3->16, 5x20 (10 columns: scalar stores)", (const int64_t[]){1, 3, 5, 20},
             (const int64_t[]){16, 3, 3, 3}, 1, s2, NULL, p, NULL, true);
        conv(&app, device, "Conv 3x3 s2 p1 group 2 of 3->16, 9x24", (const int64_t[]){1, 6, 9, 24},
             (const int64_t[]){32, 3, 3, 3}, 2, s2, NULL, p, NULL, true);
        conv(&app, device, "Conv 3x3 s2 p1 5->16, 9x24", (const int64_t[]){1, 5, 9, 24},
             (const int64_t[]){16, 5, 3, 3}, 1, s2, NULL, p, NULL, true);
        conv(&app, device, "Conv 3x3 s1 p1 3->8, 6x12 (vec4 stores, 8 channels)", (const int64_t[]){1, 3, 6, 12},
             (const int64_t[]){8, 3, 3, 3}, 1, NULL, NULL, p, NULL, true);
    }
    {
        /* Last again (the cases above keep their values). The GEMM's forms for channel counts that are not
         * multiples of 4: packed weights (A along m) of K = 18, 42 and 7 input channels, whose last K % 4 run one
         * k at a time (wide, batched, a partial 16-row block, the 8 x 16 form of M = 4), Gemm with transA and
         * K = 7 or 5; 8-row wide blocks (FAST 4) for M = 18, 20 and 8, where 16-row ones would compute mostly
         * clamped rows. ("Conv 1x1 batch 2, 60 pixels as one row" above, K = 7, now runs as the GEMM too.) */
        int64_t x18[4] = {2, 18, 16, 32}, w18[4] = {96, 18, 1, 1};
        conv(&app, device, "Conv pointwise 18->96, 512 pixels, N 2 (wide GEMM, K % 4 = 2)", x18, w18, 1, NULL, NULL,
             NULL, NULL, true);
        int64_t x42[4] = {1, 42, 20, 20}, w42[4] = {36, 42, 1, 1};
        conv(&app, device, "Conv pointwise 42->36, 400 pixels (wide GEMM, K % 4 = 2)", x42, w42, 1, NULL, NULL, NULL,
             NULL, false);
        int64_t x7[4] = {1, 7, 4, 12}, w7[4] = {4, 7, 1, 1};
        conv(&app, device, "Conv pointwise 7->4, 48 pixels (8 x 16 GEMM, K % 4 = 3)", x7, w7, 1, NULL, NULL, NULL,
             NULL, true);
        gemm(&app, device, "Gemm [7,20]^T x [7,1012] C[1012] (wide, A along m, K = 7)", (const int64_t[]){7, 20},
             (const int64_t[]){7, 1012}, 1012, true, false, true);
        gemm(&app, device, "Gemm [5,8]^T x [5,12] C[12] (A along m, K = 5)", (const int64_t[]){5, 8},
             (const int64_t[]){5, 12}, 12, true, false, false);
        int64_t x96[4] = {2, 96, 16, 32}, w96[4] = {18, 96, 1, 1};
        conv(&app, device, "Conv pointwise 96->18, 512 pixels, N 2 (8-row wide GEMM)", x96, w96, 1, NULL, NULL,
             NULL, NULL, true);
        int64_t x8[4] = {1, 12, 20, 20}, w8[4] = {8, 12, 1, 1};
        conv(&app, device, "Conv pointwise 12->8, 400 pixels (8-row wide GEMM)", x8, w8, 1, NULL, NULL, NULL, NULL,
             false);
        /* K of 64 or fewer in the wide forms with A along m: K a specialization constant, each output row's sums
         * run to the end before the next row's (M of 96, 32 and 12: a partial 16-row block; 508 pixels: a last
         * column block of 4 of its 8). 12->8 above takes it in 8-row blocks, the Gemm of K = 7 too. */
        int64_t xs[4] = {1, 12, 4, 127}, ws[4] = {96, 12, 1, 1};
        conv(&app, device, "Conv pointwise 12->96, 508 pixels (wide GEMM, K a constant)", xs, ws, 1, NULL, NULL,
             NULL, NULL, true);
        int64_t xs16[4] = {2, 16, 4, 127}, ws16[4] = {32, 16, 1, 1};
        conv(&app, device, "Conv pointwise 16->32, 508 pixels, N 2 (wide GEMM, K a constant)", xs16, ws16, 1, NULL,
             NULL, NULL, NULL, true);
        int64_t xs18[4] = {1, 18, 4, 127}, ws18[4] = {12, 18, 1, 1};
        conv(&app, device, "Conv pointwise 18->12, 508 pixels (wide GEMM, K a constant, M % 16 = 12)", xs18, ws18, 1,
             NULL, NULL, NULL, NULL, false);
        /* K past the GEMM's loop cap (K / 4 >= 60000): the packed Conv shader's vec4 one-row 1x1 form, which the
         * pointwise Convs of K % 4 != 0 took before (and which runs the channels in ranges). The sums' rounding
         * (240004 terms of |x w| about 0.25, summed in other orders) is ~1e-7 of their 6e4: atol 1e-2 (a broken
         * form is off by the sums themselves, ~100). */
        int64_t xk[4] = {1, 240004, 1, 4}, wk[4] = {4, 240004, 1, 1}, bk[1] = {4};
        op_case c;
        start(&c, "Conv 1x1 of 240004 channels, 4 pixels (packed, one vec4 row)", 13, 4, xk);
        constant(&c, "w", 4, wk);
        constant(&c, "b", 1, bk);
        const char *in[] = {"x", "w", "b"};
        attr_int(node(&c, "Conv", 3, in), "group", 1);
        c.atol = 1e-2;
        run_case(&app, device, &c);
    }
    /* Last, so that the cases above keep their random values. Whole blocks of a workgroup (4,096 elements), which
     * the binary and unary shaders spread over the invocations 8 at a time (common.glsl's ortvk_lanes_start), each
     * row's or tensor's last block partial: same shapes, a row operand, a value a channel on either side along
     * planes of 9,000, and Sigmoid over 55,320 values. */
    {
        int64_t big[3] = {2, 3, 9220}, row[1] = {9220}, planes[4] = {1, 6, 90, 100}, c6[4] = {1, 6, 1, 1};
        binary(&app, device, "Add [2,3,9220] + [2,3,9220] (blocks of 4096)", "Add", 3, big, 3, big, false);
        binary(&app, device, "Sub [2,3,9220] - [9220] (blocks of 4096)", "Sub", 3, big, 1, row, false);
        binary(&app, device, "Mul [1,6,90,100] * [1,6,1,1] (blocks of 4096)", "Mul", 4, planes, 4, c6, false);
        binary(&app, device, "Sub [1,6,1,1] - [1,6,90,100] (blocks of 4096)", "Sub", 4, c6, 4, planes, false);
        unary_of(&app, device, "Sigmoid [2,3,9220] (blocks of 4096)", "Sigmoid", 0, 0, 3, big);
    }
    /* The few-k GEMM's rows an invocation past its 16-row block, where the image leaves enough workgroups: all 40
     * rows (17,408 pixels), and 64-row blocks of 72 rows, the second partial (10,240 pixels). */
    {
        int64_t x40[4] = {1, 48, 128, 136}, w40[4] = {40, 48, 1, 1}, x72[4] = {1, 24, 80, 128}, w72[4] = {72, 24, 1, 1};
        conv(&app, device, "Conv pointwise 48->40, 17408 pixels (few-k GEMM, all rows)", x40, w40, 1, NULL, NULL,
             NULL, NULL, true);
        conv(&app, device, "Conv pointwise 24->72, 10240 pixels (few-k GEMM, 64-row blocks)", x72, w72, 1, NULL,
             NULL, NULL, NULL, false);
    }
    /* The depthwise tile forms with a row stride other than the column stride, as PP-OCR's recognizer has them:
     * 5x5 and 3x3 of strides (2, 1) and (1, 2), rows read as vec4 and one value at a time (a width of 30), on small
     * images (consecutive invocations on consecutive channels) and on images of 32 tiles or more (a workgroup a
     * channel), with and without bias. */
    {
        static const struct {
            const char *name;
            int64_t x[4], w[4], strides[2], pads[4];
            bool bias;
        } asym[] = {
            {"Conv depthwise 5x5 s(2,1) p2, 12x80", {1, 6, 12, 80}, {6, 1, 5, 5}, {2, 1}, {2, 2, 2, 2}, true},
            {"Conv depthwise 5x5 s(2,1) p2, 6x30", {2, 3, 6, 30}, {3, 1, 5, 5}, {2, 1}, {2, 2, 1, 2}, false},
            {"Conv depthwise 3x3 s(1,2) p1, 12x160", {1, 4, 12, 160}, {4, 1, 3, 3}, {1, 2}, {1, 1, 1, 1}, true},
            {"Conv depthwise 3x3 s(2,1) p1/0, 24x160", {1, 3, 24, 160}, {3, 1, 3, 3}, {2, 1}, {1, 1, 0, 1}, true},
            {"Conv depthwise 3x3 s(2,1) p1, 7x30", {1, 5, 7, 30}, {5, 1, 3, 3}, {2, 1}, {1, 1, 1, 1}, false},
        };
        for (size_t k = 0; k < sizeof(asym) / sizeof(asym[0]); k++)
            conv(&app, device, asym[k].name, asym[k].x, asym[k].w, asym[k].x[1], asym[k].strides, NULL, asym[k].pads,
                 NULL, asym[k].bias);
    }
    /* Last, so that the cases above keep their random values. The strided copy's forms (kernel_layout.c): 4 x 4
     * tiles where the source and the destination are contiguous along two dims of whole vec4s (the float32 cases;
     * next to each other or not, batched or not, as DepthToSpace), runs of elements where they are not (odd dims,
     * one dim short of a vec4, float16), runs of vec4s where the last dim is contiguous in both in whole vec4s
     * (float32 and float16 alike), and runs cut short at a row's end. */
    {
        static const struct {
            const char *name;
            int rank;
            int64_t x[4], perm[4];
        } cases[] = {
            {"Transpose [3,8,12] perm [0,2,1] (tiles)", 3, {3, 8, 12}, {0, 2, 1}},
            {"Transpose [8,5,12] perm [2,1,0] (tiles apart)", 3, {8, 5, 12}, {2, 1, 0}},
            {"Transpose [4,36] perm [1,0] (tiles, runs cut)", 2, {4, 36}, {1, 0}},
            {"Transpose [4,6,8] perm [2,0,1] (tiles: [24,8] coalesced)", 3, {4, 6, 8}, {2, 0, 1}},
            {"Transpose [3,6,10] perm [2,0,1] (elements)", 3, {3, 6, 10}, {2, 0, 1}},
            {"Transpose [5,19] perm [1,0] (elements, runs cut)", 2, {5, 19}, {1, 0}},
            {"Transpose [2,3,8,16] perm [2,0,1,3] (vec4 rows)", 4, {2, 3, 8, 16}, {2, 0, 1, 3}},
            {"Transpose [2,3,8,6] perm [2,0,1,3] (element rows)", 4, {2, 3, 8, 6}, {2, 0, 1, 3}},
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
            op_case c;
            start(&c, cases[i].name, 13, cases[i].rank, cases[i].x);
            const char *in[] = {"x"};
            attr_ints(node(&c, "Transpose", 1, in), "perm", cases[i].perm, cases[i].rank);
            run_case(&app, device, &c);
        }
        /* Slices of rows of 16: from an aligned start (vec4 rows), backwards (negative strides), from 1 (elements). */
        static const struct {
            const char *name;
            int64_t starts[2], ends[2], axes[2], steps[2];
        } slices[] = {
            {"Slice [6,8,16] axis 1 [4, 8) (vec4 rows)", {4, 0}, {8, 16}, {1, 2}, {1, 1}},
            {"Slice [6,8,16] axis 0 backwards (vec4 rows)", {5, 0}, {-100, 16}, {0, 2}, {-2, 1}},
            {"Slice [6,8,16] axis 2 [1, 13) (elements)", {0, 1}, {8, 13}, {1, 2}, {1, 1}},
        };
        int64_t x[3] = {6, 8, 16};
        for (size_t i = 0; i < sizeof(slices) / sizeof(slices[0]); i++) {
            op_case c;
            start(&c, slices[i].name, 13, 3, x);
            const_ints(&c, "starts", 2, slices[i].starts);
            const_ints(&c, "ends", 2, slices[i].ends);
            const_ints(&c, "axes", 2, slices[i].axes);
            const_ints(&c, "steps", 2, slices[i].steps);
            const char *in[] = {"x", "starts", "ends", "axes", "steps"};
            node(&c, "Slice", 5, in);
            run_case(&app, device, &c);
        }
        op_case c;
        int64_t a[3] = {2, 4, 8}, b[3] = {2, 3, 8};
        start(&c, "Concat [2,4,8] [2,3,8] axis 1 (vec4 rows)", 13, 3, a);
        second_input(&c, "b", 3, b);
        attr_int(node(&c, "Concat", 2, (const char *[]){"x", "b"}), "axis", 1);
        run_case(&app, device, &c);
        int64_t row[2] = {1, 16}, shape[2] = {6, 16};
        start(&c, "Expand [1,16] to [6,16] (vec4 rows)", 13, 2, row);
        const_ints(&c, "shape", 2, shape);
        node(&c, "Expand", 2, (const char *[]){"x", "shape"});
        run_case(&app, device, &c);
        /* A tile whose source stride along the last dim is 0 (fuzz_diff seed 222 case 110631: read as no tile). */
        int64_t column[2] = {8, 1}, wide[2] = {8, 12};
        start(&c, "Expand [8,1] to [8,12] (tiles of one column)", 13, 2, column);
        const_ints(&c, "shape", 2, wide);
        node(&c, "Expand", 2, (const char *[]){"x", "shape"});
        run_case(&app, device, &c);
        int64_t d2s[4] = {1, 16, 4, 8};
        start(&c, "DepthToSpace [1,16,4,8] blocksize 4 (tiles)", 13, 4, d2s);
        node2 n = node(&c, "DepthToSpace", 1, (const char *[]){"x"});
        attr_int(n, "blocksize", 4);
        attr_string(n, "mode", "CRD");
        run_case(&app, device, &c);
    }
    /* Last, so that the cases above keep their random values. A value a channel along planes that are not whole
     * vec4s, 64 elements or more: the flat order element by element (the detector's 17 x 30 maps at 960x544). */
    {
        int64_t x510[4] = {2, 5, 17, 30}, c51[4] = {1, 5, 1, 1}, x99[4] = {1, 5, 9, 11};
        binary(&app, device, "Mul [2,5,17,30] * [1,5,1,1] (planes of 510)", "Mul", 4, x510, 4, c51, false);
        binary(&app, device, "Sub [1,5,1,1] - [1,5,9,11] (planes of 99)", "Sub", 4, c51, 4, x99, false);
    }
    return test_finish(&app, half_mode ? "test_kernels_ops --float16" : "test_kernels_ops");
}
