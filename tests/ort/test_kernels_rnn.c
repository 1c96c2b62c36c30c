/* LSTM, GRU and RNN on ortvk against ORT's CPU EP: random weights, several shapes, every direction, biases,
 * peepholes, initial states, sequence lengths (constant and given at run time, 0 included) and subsets of the
 * outputs, each run with the node on ortvk (session.disable_cpu_ep_fallback = 1) and compared at ONNX's tolerances;
 * and the configurations ortvk leaves to the CPU EP (clip, input_forget, other activations), which must still
 * answer as the CPU EP does. Single time steps of sizes in whole vec4s, streaming models' case, must take the step
 * shader's vec4 form that projects its own input (no GEMM dispatch): the profile names the pipelines. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel_check.h"

static uint32_t seed = 4242;

static float frand(void)
{
    return kc_rand_float(&seed);
}

typedef struct rnn_case {
    const char *name;
    const char *op;         /* LSTM, GRU, RNN */
    int64_t S, B, I, H;
    const char *direction;  /* NULL: absent (forward) */
    bool bias, peepholes, initial_h, initial_c;
    int lens_kind;          /* 0: none, 1: constant, 2: graph input */
    int32_t lens[4];
    bool y, y_h, y_c;       /* which outputs the graph has */
    int64_t linear_before_reset;
    const char *activations[6]; /* NULL-terminated, or none */
    float clip;             /* 0: absent */
    bool strict;            /* false: ortvk leaves the node to the CPU EP */
    int opset;              /* 0: 14 */
    int form;               /* 0: not checked; 1: the node runs only the step shader's vec4 form (rnn.<32 + cell>);
                             * 2: a GEMM, then that form; 3: a GEMM, then the scalar form (rnn.<cell>) */
} rnn_case;

static int gates_of(const char *op)
{
    return strcmp(op, "LSTM") == 0 ? 4 : strcmp(op, "GRU") == 0 ? 3 : 1;
}

static void random_initializer(onnx_model *m, const char *name, int rank, const int64_t *dims, float scale)
{
    size_t n = kc_count(dims, rank);
    float *v = malloc(n * sizeof(float) + 4);
    for (size_t i = 0; i < n; i++) v[i] = scale * frand();
    onnx_model_add_initializer(m, name, ONNX_FLOAT, rank, dims, v, n * sizeof(float));
    free(v);
}

static onnx_model *build(const rnn_case *c, int64_t D)
{
    onnx_model *m = onnx_model_new(c->opset ? c->opset : 14);
    int64_t G = gates_of(c->op) * c->H;
    int64_t x[3] = {c->S, c->B, c->I}, w[3] = {D, G, c->I}, r[3] = {D, G, c->H}, b[2] = {D, 2 * G};
    int64_t h0[3] = {D, c->B, c->H}, p[2] = {D, 3 * c->H}, lens[1] = {c->B};
    onnx_model_add_input(m, "X", ONNX_FLOAT, 3, x);
    random_initializer(m, "W", 3, w, 0.5f);
    random_initializer(m, "R", 3, r, 0.5f);
    if (c->bias) random_initializer(m, "B", 2, b, 0.5f);
    if (c->peepholes) random_initializer(m, "P", 2, p, 0.5f);
    if (c->lens_kind == 1) onnx_model_add_initializer(m, "lens", ONNX_INT32, 1, lens, c->lens, (size_t)c->B * 4);
    if (c->lens_kind == 2) onnx_model_add_input(m, "lens", ONNX_INT32, 1, lens);
    if (c->initial_h) onnx_model_add_input(m, "h0", ONNX_FLOAT, 3, h0);
    if (c->initial_c) onnx_model_add_input(m, "c0", ONNX_FLOAT, 3, h0);
    bool lstm = strcmp(c->op, "LSTM") == 0;
    const char *in[8] = {"X", "W", "R", c->bias ? "B" : "", c->lens_kind ? "lens" : "", c->initial_h ? "h0" : "",
                         c->initial_c ? "c0" : "", c->peepholes ? "P" : ""};
    int n_in = lstm ? (c->peepholes ? 8 : c->initial_c ? 7 : 6) : 6;
    while (n_in > 3 && in[n_in - 1][0] == '\0') n_in--;
    const char *out[3] = {c->y ? "Y" : "", c->y_h ? "Y_h" : "", c->y_c ? "Y_c" : ""};
    int n_out = c->y_c ? 3 : c->y_h ? 2 : 1;
    onnx_node *n = onnx_model_add_node(m, c->op, in, n_in, out, n_out);
    onnx_node_attr_int(n, "hidden_size", c->H);
    if (c->direction) onnx_node_attr_string(n, "direction", c->direction);
    if (strcmp(c->op, "GRU") == 0) onnx_node_attr_int(n, "linear_before_reset", c->linear_before_reset);
    if (c->clip > 0) onnx_node_attr_float(n, "clip", c->clip);
    if (c->activations[0]) {
        int count = 0;
        while (count < 6 && c->activations[count]) count++;
        onnx_node_attr_strings(n, "activations", c->activations, count);
    }
    for (int i = 0; i < 3; i++) {
        if (out[i][0] != '\0') onnx_model_add_output(m, out[i], ONNX_FLOAT, -1, NULL);
    }
    return m;
}

/* The pipelines the profile names for the node (the session is closed, its profile written): exactly the step
 * shader's vec4 form of the cell (form 1), or a GEMM then the vec4 (form 2) or scalar form (form 3). */
static void check_form(const rnn_case *c, const char *profile)
{
    char *text = test_read_text(profile), got[128] = "", want[64];
    if (text != NULL) kc_profile_events(text, c->op, NULL, got, sizeof(got));
    int cell = strcmp(c->op, "LSTM") == 0 ? 0 : strcmp(c->op, "GRU") == 0 ? 1 : 2;
    snprintf(want, sizeof(want), c->form == 1 ? "rnn.%d" : " rnn.%d", c->form == 3 ? cell : 32 + cell);
    size_t n = strlen(got), k = strlen(want);
    bool ok = c->form == 1 ? strcmp(got, want) == 0
                           : strncmp(got, "gemm.", 5) == 0 && n > k && strcmp(got + n - k, want) == 0;
    CHECK(ok, "%s: the profile names \"%s\" (want %s%s)", c->name, got, c->form == 1 ? "" : "gemm.* then",
          want);
    if (ok) printf("%-60s takes %s\n", c->name, got);
    free(text);
    remove(profile);
}

static void run_case(ortapp *app, const OrtEpDevice *device, const rnn_case *c)
{
    int64_t D = c->direction && strcmp(c->direction, "bidirectional") == 0 ? 2 : 1;
    uint8_t *model = NULL;
    size_t len = 0;
    if (!test_model_serialize(build(c, D), c->name, &model, &len)) return;
    kc_pair pair;
    char profile[64];
    snprintf(profile, sizeof(profile), "/tmp/ortvk-rnn-profile-%d.json", (int)getpid());
    if (c->form) setenv("ORTVK_PROFILE", profile, 1);
    bool opened = kc_pair_open(app, device, model, len, NULL, 0, c->strict, c->name, &pair);
    unsetenv("ORTVK_PROFILE");
    if (!opened) {
        free(model);
        return;
    }
    if (!c->strict) {
        size_t ours = 0, other = 0;
        kc_assignment(app, pair.vk, &ours, &other, NULL, 0, NULL, 0);
        CHECK(ours == 0 && other == 1, "%s: left to the CPU EP (%zu nodes on ortvk, %zu elsewhere)", c->name, ours,
              other);
    }
    int64_t x[3] = {c->S, c->B, c->I}, h0[3] = {D, c->B, c->H}, lens_dims[1] = {c->B};
    size_t nx = (size_t)(c->S * c->B * c->I), nh = (size_t)(D * c->B * c->H);
    float *xv = malloc(nx * sizeof(float) + 4), *hv = malloc(nh * sizeof(float) + 4), *cv = malloc(nh * 4 + 4);
    int32_t lens[4];
    memcpy(lens, c->lens, sizeof(lens));
    for (size_t i = 0; i < nx; i++) xv[i] = 2.0f * frand();
    for (size_t i = 0; i < nh; i++) hv[i] = frand(), cv[i] = 2.0f * frand();
    const char *names[4];
    OrtValue *inputs[4];
    size_t n_in = 0;
    names[n_in] = "X", inputs[n_in++] = test_host_tensor(app, xv, nx, 3, x);
    if (c->lens_kind == 2)
        names[n_in] = "lens", inputs[n_in++] = test_host_tensor_of(app, lens, ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32,
                                                                    (size_t)c->B, 1, lens_dims);
    if (c->initial_h) names[n_in] = "h0", inputs[n_in++] = test_host_tensor(app, hv, nh, 3, h0);
    if (c->initial_c) names[n_in] = "c0", inputs[n_in++] = test_host_tensor(app, cv, nh, 3, h0);
    const char *outs[3];
    size_t n_out = 0;
    if (c->y) outs[n_out++] = "Y";
    if (c->y_h) outs[n_out++] = "Y_h";
    if (c->y_c) outs[n_out++] = "Y_c";
    OrtValue *want[3] = {0}, *got[3] = {0};
    bool zero_length = false;
    for (int64_t b = 0; c->lens_kind && b < c->B; b++) zero_length = zero_length || c->lens[b] == 0;
    if (zero_length && strcmp(c->op, "RNN") == 0 && app->api_version < 30) {
        /* ORT before 1.30 answers an RNN with a length of 0 otherwise than 1.30: ortvk fails the run there. */
        OrtStatus *status = app->api->Run(pair.vk, NULL, names, (const OrtValue *const *)inputs, n_in, outs, n_out,
                                          got);
        CHECK(status != NULL, "%s: the run fails on ORT %s", c->name, app->version);
        if (status != NULL) printf("%-60s fails the run on ORT %s, as it should\n", c->name, app->version);
        if (status != NULL) app->api->ReleaseStatus(status);
    } else if (kc_pair_run(app, &pair, names, inputs, NULL, n_in, outs, n_out, want, got)) {
        for (size_t o = 0; o < n_out; o++) {
            size_t want_bytes = 0, got_bytes = 0;
            void *w = kc_host_data(app, want[o], &want_bytes), *g = kc_host_data(app, got[o], &got_bytes);
            if (CHECK(w && g && want_bytes == got_bytes, "%s: %s of %zu and %zu bytes", c->name, outs[o],
                      want_bytes, got_bytes)) {
                onnx_tensor expected = {.elem_type = ONNX_FLOAT, .data = w, .data_bytes = want_bytes};
                char why[256];
                /* ONNX's rtol; the atol covers the order of summation of the dot products (H or I terms of
                 * magnitude <= 1 each) and the CPU EP's approximate sigmoid and tanh (MLAS, ~1e-7 absolute). */
                int bad = kc_compare(&expected, g, 1e-3, 1e-5, why, sizeof(why));
                CHECK(bad == 0, "%s, %s: %s", c->name, outs[o], why);
                if (!bad) printf("%-60s %-3s ok (%zu values)\n", c->name, outs[o], want_bytes / sizeof(float));
            }
            free(w);
            free(g);
        }
    }
    kc_pair_release(app, want, got, n_out);
    for (size_t i = 0; i < n_in; i++) app->api->ReleaseValue(inputs[i]);
    free(xv);
    free(hv);
    free(cv);
    kc_pair_close(app, &pair);
    free(model);
    if (c->form) check_form(c, profile);
}

int main(void)
{
    ortapp app;
    const OrtEpDevice *device;
    test_open(&app, &device);
    /* name, op, S, B, I, H, direction, bias, peepholes, initial_h, initial_c, lens kind, lens, Y, Y_h, Y_c,
     * linear_before_reset, activations, clip, strict, opset, form */
    const rnn_case cases[] = {
        {"LSTM forward 5x2x3 H4 (opset 22)", "LSTM", 5, 2, 3, 4, NULL, false, false, false, false, 0, {0}, true, true,
         true, 0, {NULL}, 0, true, 22, 0},
        {"LSTM reverse, bias, peepholes, initial h and c", "LSTM", 6, 3, 8, 5, "reverse", true, true, true, true, 0,
         {0}, true, true, true, 0, {NULL}, 0, true, 14, 0},
        {"LSTM bidirectional, all inputs, lengths 4 0 6", "LSTM", 6, 3, 4, 8, "bidirectional", true, true, true,
         true, 1, {4, 0, 6}, true, true, true, 0, {NULL}, 0, true, 14, 0},
        {"LSTM bidirectional, lengths at run time 2 5 (22)", "LSTM", 5, 2, 7, 3, "bidirectional", true, false, true,
         false, 2, {2, 5}, true, true, true, 0, {NULL}, 0, true, 22, 0},
        {"LSTM only Y_c, reverse lengths 1 3 0 3", "LSTM", 3, 4, 5, 6, "reverse", true, true, false, true, 1,
         {1, 3, 0, 3}, false, false, true, 0, {NULL}, 0, true, 14, 0},
        {"LSTM only Y_h, 20 steps, H 64, I 32", "LSTM", 20, 3, 32, 64, "forward", true, true, true, true, 0, {0},
         false, true, false, 0, {NULL}, 0, true, 14, 0},
        {"LSTM bidirectional H 257, I 259 (odd sizes, generic GEMM)", "LSTM", 3, 2, 259, 257, "bidirectional", true,
         true, true, true, 0, {0}, true, true, true, 0, {NULL}, 0, true, 14, 0},
        {"LSTM activations given as the defaults", "LSTM", 4, 2, 3, 5, "bidirectional", true, false, false, false,
         0, {0}, true, true, false, 0, {"Sigmoid", "Tanh", "Tanh", "Sigmoid", "Tanh", "Tanh"}, 0, true, 14, 0},
        {"LSTM clip 0.5 (left to the CPU EP)", "LSTM", 4, 2, 3, 5, NULL, true, false, false, false, 0, {0}, true,
         true, false, 0, {NULL}, 0.5f, false, 14, 0},
        {"LSTM HardSigmoid (left to the CPU EP)", "LSTM", 4, 2, 3, 5, NULL, true, false, false, false, 0, {0}, true,
         true, false, 0, {"HardSigmoid", "Tanh", "Tanh"}, 0, false, 14, 0},
        {"GRU forward 5x2x3 H4", "GRU", 5, 2, 3, 4, NULL, false, false, false, false, 0, {0}, true, true, false, 0,
         {NULL}, 0, true, 14, 0},
        {"GRU linear_before_reset, bias, initial h", "GRU", 6, 3, 8, 5, NULL, true, false, true, false, 0, {0}, true,
         true, false, 1, {NULL}, 0, true, 14, 0},
        {"GRU bidirectional, lengths 3 0 5 (opset 22)", "GRU", 5, 3, 4, 7, "bidirectional", true, false, true, false, 1,
         {3, 0, 5}, true, true, false, 0, {NULL}, 0, true, 22, 0},
        {"GRU reverse linear_before_reset, lengths at run time", "GRU", 4, 2, 6, 9, "reverse", true, false, true,
         false, 2, {4, 1}, true, true, false, 1, {NULL}, 0, true, 14, 0},
        {"GRU only Y_h, 16 steps, H 48", "GRU", 16, 2, 12, 48, "bidirectional", true, false, false, false, 0, {0},
         false, true, false, 0, {"Sigmoid", "Tanh", "Sigmoid", "Tanh"}, 0, true, 14, 0},
        {"RNN forward Tanh", "RNN", 5, 2, 3, 4, NULL, false, false, false, false, 0, {0}, true, true, false, 0,
         {NULL}, 0, true, 14, 0},
        {"RNN Relu, bias, initial h, lengths 2 4 1 (22)", "RNN", 4, 3, 5, 6, NULL, true, false, true, false, 1,
         {2, 4, 1}, true, true, false, 0, {"Relu"}, 0, true, 22, 0},
        {"RNN bidirectional Sigmoid, lengths at run time", "RNN", 6, 2, 4, 8, "bidirectional", true, false, true,
         false, 2, {6, 3}, true, true, false, 0, {"Sigmoid", "Sigmoid"}, 0, true, 14, 0},
        {"RNN reverse, lengths 0 2", "RNN", 3, 2, 4, 5, "reverse", true, false, true, false, 1, {0, 2}, true, true,
         false, 0, {NULL}, 0, true, 14, 0},
        {"RNN forward, lengths 0 3, initial h", "RNN", 3, 2, 4, 5, NULL, true, false, true, false, 1, {0, 3}, true,
         true, false, 0, {NULL}, 0, true, 14, 0},
        {"RNN bidirectional, lengths 2 0", "RNN", 3, 2, 4, 5, "bidirectional", true, false, true, false, 1, {2, 0},
         true, true, false, 0, {NULL}, 0, true, 14, 0},
        {"RNN only Y_h, 24 steps, H 40", "RNN", 24, 2, 16, 40, NULL, true, false, false, false, 0, {0}, false, true,
         false, 0, {NULL}, 0, true, 14, 0},
        {"LSTM one step bidirectional, all inputs (input projected by the step)", "LSTM", 1, 2, 16, 8,
         "bidirectional", true, true, true, true, 0, {0}, true, true, true, 0, {NULL}, 0, true, 14, 1},
        {"LSTM one step, I 6 (a GEMM, then the vec4 step)", "LSTM", 1, 2, 6, 8, NULL, true, false, true, true, 0,
         {0}, true, true, true, 0, {NULL}, 0, true, 14, 2},
        {"GRU one step, H 6 (a GEMM, then the scalar step)", "GRU", 1, 2, 8, 6, NULL, true, false, true, false, 0,
         {0}, true, true, false, 1, {NULL}, 0, true, 14, 3},
        {"GRU one step linear_before_reset, lengths 1 0 (projected)", "GRU", 1, 2, 8, 12, "bidirectional", true,
         false, true, false, 1, {1, 0}, true, true, false, 1, {NULL}, 0, true, 14, 1},
        {"GRU one step reverse (projected)", "GRU", 1, 3, 4, 4, "reverse", true, false, true, false, 0, {0}, true,
         true, false, 0, {NULL}, 0, true, 22, 1},
        {"RNN one step without initial h, lengths at run time (projected)", "RNN", 1, 2, 12, 8, NULL, true, false,
         false, false, 2, {1, 1}, true, true, false, 0, {NULL}, 0, true, 14, 1},
        {"RNN LeakyRelu (left to the CPU EP)", "RNN", 4, 2, 3, 5, NULL, true, false, false, false, 0, {0}, true, true,
         false, 0, {"LeakyRelu"}, 0, false, 14, 0},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) run_case(&app, device, &cases[i]);
    return test_finish(&app, "test_kernels_rnn");
}
