/* ortvk's kernels against ORT's CPU EP on generated one-op (and a few mixed) models: the configurations the ONNX
 * node tests leave out and real models use — depthwise and grouped convolutions, dilations, SAME pads,
 * ConvTranspose with groups and output_padding, Resize as PP-OCR uses it, broadcasts of every shape class, batched
 * MatMul, layout ops, reductions — each run with every node on ortvk (session.disable_cpu_ep_fallback = 1) and
 * compared at ONNX's tolerances. A mixed model checks inputs that ORT hands over in host memory. */
#include <math.h>
#include <string.h>

#include "kernel_check.h"

#define MAX_INPUTS 4

typedef struct op_case {
    const char *name;
    onnx_model *model;
    int n_inputs;
    const char *inputs[MAX_INPUTS];
    int rank[MAX_INPUTS];
    int64_t dims[MAX_INPUTS][6];
    bool strict; /* every node on ortvk */
} op_case;

static uint32_t seed = 12345;

static float frand(void)
{
    seed = seed * 1664525u + 1013904223u;
    return (float)((seed >> 8) & 0xffffff) / 16777216.0f * 2.0f - 1.0f;
}

static size_t count_of(const int64_t *dims, int rank)
{
    size_t n = 1;
    for (int i = 0; i < rank; i++) n *= (size_t)dims[i];
    return n;
}

/* A float initializer of random values. */
static void constant(onnx_model *m, const char *name, int rank, const int64_t *dims)
{
    size_t n = count_of(dims, rank);
    float *v = malloc(n * sizeof(float) + 1);
    for (size_t i = 0; i < n; i++) v[i] = frand();
    onnx_model_add_initializer(m, name, ONNX_FLOAT, rank, dims, v, n * sizeof(float));
    free(v);
}

static void const_ints(onnx_model *m, const char *name, int count, const int64_t *values)
{
    int64_t dims[1] = {count};
    onnx_model_add_initializer(m, name, ONNX_INT64, 1, dims, values, (size_t)count * sizeof(int64_t));
}

static void const_floats(onnx_model *m, const char *name, int count, const float *values)
{
    int64_t dims[1] = {count};
    onnx_model_add_initializer(m, name, ONNX_FLOAT, count == 1 ? 0 : 1, dims, values, (size_t)count * sizeof(float));
}

/* A case with one float graph input "x" of `dims` and output "y" (shape left to ORT). */
static op_case *start(op_case *c, const char *name, int opset, int rank, const int64_t *dims)
{
    memset(c, 0, sizeof(*c));
    c->name = name;
    c->model = onnx_model_new(opset);
    c->strict = true;
    c->n_inputs = 1;
    c->inputs[0] = "x";
    c->rank[0] = rank;
    memcpy(c->dims[0], dims, (size_t)rank * sizeof(int64_t));
    onnx_model_add_input(c->model, "x", ONNX_FLOAT, rank, dims);
    onnx_model_add_output(c->model, "y", ONNX_FLOAT, -1, NULL);
    return c;
}

static void second_input(op_case *c, const char *name, int rank, const int64_t *dims)
{
    c->inputs[c->n_inputs] = name;
    c->rank[c->n_inputs] = rank;
    memcpy(c->dims[c->n_inputs], dims, (size_t)rank * sizeof(int64_t));
    c->n_inputs++;
    onnx_model_add_input(c->model, name, ONNX_FLOAT, rank, dims);
}

static onnx_node *node(op_case *c, const char *op, int n_in, const char *const *in)
{
    const char *out[] = {"y"};
    return onnx_model_add_node(c->model, op, in, n_in, out, 1);
}

static void run_case(ortapp *app, const OrtEpDevice *device, op_case *c)
{
    uint8_t *model = NULL;
    size_t len = 0;
    int rc = onnx_model_serialize(c->model, &model, &len);
    onnx_model_free(c->model);
    if (!CHECK(rc == ONNX_OK, "%s: model (%s)", c->name, onnx_strerror(rc))) return;
    OrtStatus *error = NULL;
    OrtSession *cpu = kc_session(app, NULL, model, len, false, false, &error);
    if (!ORT_OK(app, error)) {
        free(model);
        return;
    }
    OrtSession *vk = kc_session(app, device, model, len, c->strict, !c->strict, &error);
    if (!CHECK(vk != NULL, "%s: session with ortvk%s: %s", c->name, c->strict ? " (strict)" : "",
               error ? app->api->GetErrorMessage(error) : "")) {
        if (error) app->api->ReleaseStatus(error);
        app->api->ReleaseSession(cpu);
        free(model);
        return;
    }
    if (!c->strict) {
        size_t ours = 0, other = 0;
        kc_assignment(app, vk, &ours, &other, NULL, 0, NULL, 0);
        CHECK(ours > 0 && other > 0, "%s: a mixed model (%zu nodes on ortvk, %zu elsewhere)", c->name, ours, other);
    }
    OrtValue *inputs[MAX_INPUTS] = {0};
    float *data[MAX_INPUTS] = {0};
    for (int i = 0; i < c->n_inputs; i++) {
        size_t n = count_of(c->dims[i], c->rank[i]);
        data[i] = malloc(n * sizeof(float) + 4);
        for (size_t k = 0; k < n; k++) data[i][k] = 2.0f * frand();
        inputs[i] = test_host_tensor(app, data[i], n, c->rank[i], c->dims[i]);
    }
    const char *out_names[] = {"y"};
    OrtValue *want = NULL, *got = NULL;
    if (ORT_OK(app, app->api->Run(cpu, NULL, c->inputs, (const OrtValue *const *)inputs, (size_t)c->n_inputs,
                                  out_names, 1, &want)) &&
        ORT_OK(app, app->api->Run(vk, NULL, c->inputs, (const OrtValue *const *)inputs, (size_t)c->n_inputs,
                                  out_names, 1, &got))) {
        size_t want_bytes = 0, got_bytes = 0;
        void *w = kc_host_data(app, want, &want_bytes), *g = kc_host_data(app, got, &got_bytes);
        if (CHECK(w && g && want_bytes == got_bytes, "%s: outputs of %zu and %zu bytes", c->name, want_bytes,
                  got_bytes)) {
            onnx_tensor expected = {.elem_type = ONNX_FLOAT, .data = w, .data_bytes = want_bytes};
            char why[256];
            /* ONNX's rtol; the atol covers cancellation in long sums, whose rounding depends on the order of
             * summation, which differs between the EPs: ~1e-7 times the sum of the |terms| (576 terms of about 1
             * give ~1e-5). A wrong index or pad is off by the size of the terms themselves. */
            int bad = kc_compare(&expected, g, 1e-3, 1e-5, why, sizeof(why));
            CHECK(bad == 0, "%s: %s", c->name, why);
            if (!bad) printf("%-44s ok (%zu values)\n", c->name, want_bytes / sizeof(float));
        }
        free(w);
        free(g);
    }
    if (want) app->api->ReleaseValue(want);
    if (got) app->api->ReleaseValue(got);
    for (int i = 0; i < c->n_inputs; i++) {
        if (inputs[i]) app->api->ReleaseValue(inputs[i]);
        free(data[i]);
    }
    app->api->ReleaseSession(vk);
    app->api->ReleaseSession(cpu);
    free(model);
}

/* ---- the cases ------------------------------------------------------------------------------------------ */

static void conv(ortapp *app, const OrtEpDevice *device, const char *name, const int64_t *x, const int64_t *w,
                 int64_t group, const int64_t *strides, const int64_t *dilations, const int64_t *pads,
                 const char *auto_pad, bool bias)
{
    op_case c;
    int rank = 4;
    start(&c, name, 13, rank, x);
    constant(c.model, "w", rank, w);
    int64_t b[1] = {w[0]};
    if (bias) constant(c.model, "b", 1, b);
    const char *in[] = {"x", "w", "b"};
    onnx_node *n = node(&c, "Conv", bias ? 3 : 2, in);
    onnx_node_attr_int(n, "group", group);
    if (strides) onnx_node_attr_ints(n, "strides", strides, 2);
    if (dilations) onnx_node_attr_ints(n, "dilations", dilations, 2);
    if (pads) onnx_node_attr_ints(n, "pads", pads, 4);
    if (auto_pad) onnx_node_attr_string(n, "auto_pad", auto_pad);
    run_case(app, device, &c);
}

static void conv_transpose(ortapp *app, const OrtEpDevice *device, const char *name, const int64_t *x,
                           const int64_t *w, int64_t group, const int64_t *strides, const int64_t *pads,
                           const int64_t *output_padding)
{
    op_case c;
    start(&c, name, 13, 4, x);
    constant(c.model, "w", 4, w);
    int64_t b[1] = {w[1] * group};
    constant(c.model, "b", 1, b);
    const char *in[] = {"x", "w", "b"};
    onnx_node *n = node(&c, "ConvTranspose", 3, in);
    onnx_node_attr_int(n, "group", group);
    onnx_node_attr_ints(n, "strides", strides, 2);
    if (pads) onnx_node_attr_ints(n, "pads", pads, 4);
    if (output_padding) onnx_node_attr_ints(n, "output_padding", output_padding, 2);
    run_case(app, device, &c);
}

static void resize(ortapp *app, const OrtEpDevice *device, const char *name, const int64_t *x, const float *scales,
                   const int64_t *sizes, const char *mode, const char *coord, const char *nearest)
{
    op_case c;
    start(&c, name, 13, 4, x);
    const char *in[] = {"x", "", scales ? "scales" : "", sizes ? "sizes" : ""};
    if (scales) const_floats(c.model, "scales", 4, scales);
    if (sizes) const_ints(c.model, "sizes", 4, sizes);
    onnx_node *n = node(&c, "Resize", sizes ? 4 : 3, in);
    onnx_node_attr_string(n, "mode", mode);
    onnx_node_attr_string(n, "coordinate_transformation_mode", coord);
    if (nearest) onnx_node_attr_string(n, "nearest_mode", nearest);
    run_case(app, device, &c);
}

static void binary(ortapp *app, const OrtEpDevice *device, const char *name, const char *op, int ra, const int64_t *a,
                   int rb, const int64_t *b, bool b_constant)
{
    op_case c;
    start(&c, name, 13, ra, a);
    if (b_constant) constant(c.model, "b", rb, b);
    else second_input(&c, "b", rb, b);
    const char *in[] = {"x", "b"};
    node(&c, op, 2, in);
    run_case(app, device, &c);
}

static void unary(ortapp *app, const OrtEpDevice *device, const char *op, float alpha, float beta)
{
    op_case c;
    static const int64_t x[3] = {3, 17, 29};
    start(&c, op, 14, 3, x);
    const char *in[] = {"x"};
    onnx_node *n = node(&c, op, 1, in);
    if (alpha != 0) onnx_node_attr_float(n, "alpha", alpha);
    if (beta != 0) onnx_node_attr_float(n, "beta", beta);
    run_case(app, device, &c);
}

int main(void)
{
    ortapp app;
    const OrtEpDevice *device;
    test_open(&app, &device);

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
        constant(c.model, "scale", 1, ch);
        constant(c.model, "bias", 1, ch);
        constant(c.model, "mean", 1, ch);
        float var[5] = {0.5f, 1.0f, 2.0f, 0.1f, 3.0f};
        const_floats(c.model, "var", 5, var);
        const char *in[] = {"x", "scale", "bias", "mean", "var"};
        onnx_node_attr_float(node(&c, "BatchNormalization", 5, in), "epsilon", 1e-3f);
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
        const_floats(c.model, "lo", 1, &lo);
        const_floats(c.model, "hi", 1, &hi);
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
    }
    {
        op_case c;
        int64_t a[2] = {6, 4}, b[2] = {5, 6}, cc[1] = {5};
        start(&c, "Gemm transA transB alpha beta C[5]", 13, 2, a);
        constant(c.model, "b", 2, b);
        constant(c.model, "c", 1, cc);
        const char *in[] = {"x", "b", "c"};
        onnx_node *n = node(&c, "Gemm", 3, in);
        onnx_node_attr_int(n, "transA", 1);
        onnx_node_attr_int(n, "transB", 1);
        onnx_node_attr_float(n, "alpha", 0.5f);
        onnx_node_attr_float(n, "beta", 2.0f);
        run_case(&app, device, &c);
    }

    /* Layout ops and reductions. */
    {
        op_case c;
        int64_t x[4] = {2, 3, 4, 5}, perm[4] = {0, 2, 3, 1};
        start(&c, "Transpose [0,2,3,1]", 13, 4, x);
        const char *in[] = {"x"};
        onnx_node_attr_ints(node(&c, "Transpose", 1, in), "perm", perm, 4);
        run_case(&app, device, &c);
    }
    {
        op_case c;
        int64_t x[3] = {4, 10, 6}, st[2] = {8, 1}, en[2] = {-100, 5}, ax[2] = {1, 2}, sp[2] = {-3, 2};
        start(&c, "Slice negative step", 13, 3, x);
        const_ints(c.model, "starts", 2, st);
        const_ints(c.model, "ends", 2, en);
        const_ints(c.model, "axes", 2, ax);
        const_ints(c.model, "steps", 2, sp);
        const char *in[] = {"x", "starts", "ends", "axes", "steps"};
        node(&c, "Slice", 5, in);
        run_case(&app, device, &c);
    }
    {
        op_case c;
        int64_t x[4] = {1, 2, 5, 6}, pads[8] = {0, 0, 2, 1, 0, 0, 1, 3};
        start(&c, "Pad reflect", 13, 4, x);
        const_ints(c.model, "pads", 8, pads);
        const char *in[] = {"x", "pads"};
        onnx_node_attr_string(node(&c, "Pad", 2, in), "mode", "reflect");
        run_case(&app, device, &c);
    }
    {
        op_case c;
        int64_t x[4] = {1, 3, 6, 5}, axes[2] = {2, 3};
        start(&c, "ReduceMean axes [2,3] keepdims", 13, 4, x);
        const char *in[] = {"x"};
        onnx_node_attr_ints(node(&c, "ReduceMean", 1, in), "axes", axes, 2);
        run_case(&app, device, &c);
    }
    {
        op_case c;
        int64_t x[3] = {3, 7, 11};
        start(&c, "Softmax axis 1", 13, 3, x);
        const char *in[] = {"x"};
        onnx_node_attr_int(node(&c, "Softmax", 1, in), "axis", 1);
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
        onnx_node_attr_int(node(&c, "Concat", 4, in), "axis", 1);
        run_case(&app, device, &c);
    }

    /* Mixed: Relu on ortvk, Sin on the CPU EP (ortvk does not claim it), Neg on ortvk. ORT hands the Neg its input
     * in host memory (a 1 MiB tensor: the staged-upload path). */
    {
        op_case c;
        int64_t x[4] = {1, 64, 64, 64};
        start(&c, "Relu -> Sin (CPU) -> Neg, 1 MiB host input", 13, 4, x);
        c.strict = false;
        const char *a[] = {"x"}, *ao[] = {"r"}, *b[] = {"r"}, *bo[] = {"s"}, *d[] = {"s"}, *dout[] = {"y"};
        onnx_model_add_node(c.model, "Relu", a, 1, ao, 1);
        onnx_model_add_node(c.model, "Sin", b, 1, bo, 1);
        onnx_model_add_node(c.model, "Neg", d, 1, dout, 1);
        run_case(&app, device, &c);
    }
    return test_finish(&app, "test_kernels_ops");
}
