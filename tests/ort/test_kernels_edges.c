/* ortvk against ORT's CPU EP at the edges of what a model can ask: shape arithmetic that overflows, loops bounded
 * only by an attribute, boolean-like attributes with other values, NaN/infinity/subnormal inputs, empty tensors,
 * and the places where ORT's CPU EP reads the ONNX spec its own way. Each case is a one-node model whose inputs have
 * symbolic dims (so ORT's shape inference does not catch anything first). Where the CPU EP returns a result ortvk
 * must return the same one (or have left the node to the CPU EP); where the CPU EP fails, ortvk must fail too. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_check.h"

#define MAX_INPUTS 3

typedef struct edge_case {
    const char *name;
    onnx_model *m;
    int n_inputs;
    const char *inputs[MAX_INPUTS];
    int rank[MAX_INPUTS];
    int64_t dims[MAX_INPUTS][8];
    const float *data[MAX_INPUTS]; /* NULL: small integers */
    bool on_ortvk;                 /* the node must run on ortvk (a fix, not a refusal) */
    bool exact;                    /* bit for bit (NaN matching any NaN) rather than ONNX's tolerance */
    bool fails;                    /* ortvk must fail the run; the CPU EP is not asked (some builds crash) */
    const char *message;           /* with `fails`: what ortvk's error must say */
    const char *cpu_wrong;         /* an ORT version prefix whose CPU EP gets this case wrong: not compared there */
    bool refused;                  /* the node must be left to the CPU EP; nothing is run */
    bool cpu_rejects;              /* the CPU EP rejects the model at session creation: ortvk's session must too, or
                                      its run fail naming `message` */
    int typed_out;                 /* "y"'s type where typed_output() set one (bool, int64, uint8: compared byte for
                                      byte); 0: float */
    bool flushed_inputs;           /* on a device that may flush subnormals, the inputs' are given as zeros: ortvk
                                      does not take them exactly in this op (docs/kernels.md, "Subnormals") */
} edge_case;

/* argv[1], when given: only the cases whose name contains it run. */
static const char *only;

/* A case with float input "x" of `dims` (declared with every dim symbolic) and float output "y" of unknown shape. */
static edge_case *start(edge_case *c, const char *name, int opset, int rank, const int64_t *dims)
{
    memset(c, 0, sizeof(*c));
    c->name = name;
    c->m = onnx_model_new(opset);
    c->n_inputs = 1;
    c->inputs[0] = "x";
    c->rank[0] = rank;
    memcpy(c->dims[0], dims, (size_t)rank * sizeof(int64_t));
    int64_t symbolic[8] = {-1, -1, -1, -1, -1, -1, -1, -1};
    onnx_model_add_input(c->m, "x", ONNX_FLOAT, rank, symbolic);
    onnx_model_add_output(c->m, "y", ONNX_FLOAT, -1, NULL);
    return c;
}

/* Rebuilds the model with "y" of `type`, compared byte for byte: bool (comparisons, logic), int64 (ArgMax, ArgMin)
 * or uint8 (QuantizeLinear, QLinearMatMul). */
static void typed_output(edge_case *c, int opset, int type)
{
    onnx_model_free(c->m);
    c->m = onnx_model_new(opset);
    int64_t symbolic[8] = {-1, -1, -1, -1, -1, -1, -1, -1};
    onnx_model_add_input(c->m, "x", ONNX_FLOAT, c->rank[0], symbolic);
    onnx_model_add_output(c->m, "y", type, -1, NULL);
    c->typed_out = type;
}

static void bool_output(edge_case *c, int opset)
{
    typed_output(c, opset, ONNX_BOOL);
}

static void second_input(edge_case *c, const char *name, int rank, const int64_t *dims)
{
    int64_t symbolic[8] = {-1, -1, -1, -1, -1, -1, -1, -1};
    c->inputs[c->n_inputs] = name;
    c->rank[c->n_inputs] = rank;
    memcpy(c->dims[c->n_inputs], dims, (size_t)rank * sizeof(int64_t));
    c->n_inputs++;
    onnx_model_add_input(c->m, name, ONNX_FLOAT, rank, symbolic);
}

static void const_ints(edge_case *c, const char *name, int count, const int64_t *values)
{
    int64_t dims[1] = {count};
    onnx_model_add_initializer(c->m, name, ONNX_INT64, 1, dims, values, (size_t)count * sizeof(int64_t));
}

static onnx_node *node(edge_case *c, const char *op, int n_in, const char *const *in)
{
    const char *out[] = {"y"};
    return onnx_model_add_node(c->m, op, in, n_in, out, 1);
}

/* Runs a session on `inputs`; the status (NULL: success) and the output. */
static OrtStatus *run_session(ortapp *app, OrtSession *s, edge_case *c, OrtValue **inputs, OrtValue **out)
{
    const char *out_names[] = {"y"};
    return app->api->Run(s, NULL, c->inputs, (const OrtValue *const *)inputs, (size_t)c->n_inputs, out_names, 1,
                         out);
}

/* Whether the device may flush float32 subnormals (kc_device_flushes_subnormals): set once in main. Results below
 * FLT_MIN then compare as zero, and the inputs of cases marked flushed_inputs hold zeros for them. */
static bool flushes_subnormals;

static bool same_value(float want, float got, bool exact)
{
    if (isnan(want) || isnan(got)) return isnan(want) && isnan(got);
    if (flushes_subnormals) {
        want = kc_flush_subnormal(want);
        got = kc_flush_subnormal(got);
    }
    if (exact) return memcmp(&want, &got, sizeof(float)) == 0;
    if (want == got) return true;
    if (isinf(want) || isinf(got)) return false;
    return fabs((double)want - (double)got) <= 1e-7 + 1e-3 * fabs((double)want);
}

/* The case's inputs as host tensors: its data, or small integers. */
static void make_inputs(ortapp *app, const edge_case *c, OrtValue **inputs, float **data)
{
    for (int i = 0; i < c->n_inputs; i++) {
        size_t n = kc_count(c->dims[i], c->rank[i]);
        data[i] = malloc(n * sizeof(float) + 4);
        for (size_t k = 0; k < n; k++) data[i][k] = c->data[i] ? c->data[i][k] : (float)((int)(k * 7 % 11) - 5);
        for (size_t k = 0; flushes_subnormals && c->flushed_inputs && k < n; k++)
            data[i][k] = kc_flush_subnormal(data[i][k]);
        inputs[i] = test_host_tensor(app, data[i], n, c->rank[i], c->dims[i]);
    }
}

static void free_inputs(ortapp *app, const edge_case *c, OrtValue **inputs, float **data)
{
    for (int i = 0; i < c->n_inputs; i++) {
        if (inputs[i]) app->api->ReleaseValue(inputs[i]);
        free(data[i]);
    }
}

/* A model the CPU EP rejects when it creates the session: ortvk's session must fail the same way (the node left to
 * the CPU EP), or its run fail with an error naming c->message — never an answer. */
static void rejected_case(ortapp *app, const OrtEpDevice *device, edge_case *c, const uint8_t *model, size_t len)
{
    const OrtApi *api = app->api;
    OrtStatus *error = NULL;
    OrtSession *cpu = kc_session(app, NULL, model, len, false, false, &error);
    CHECK(cpu == NULL, "%s: the CPU EP accepts the model", c->name);
    if (cpu) api->ReleaseSession(cpu);
    if (error) api->ReleaseStatus(error);
    error = NULL;
    OrtSession *vk = kc_session(app, device, model, len, false, true, &error);
    if (vk == NULL) {
        printf("%-52s ok (both reject the session: %s)\n", c->name, error ? api->GetErrorMessage(error) : "");
        if (error) api->ReleaseStatus(error);
        return;
    }
    OrtValue *inputs[MAX_INPUTS] = {0}, *got = NULL;
    float *data[MAX_INPUTS] = {0};
    make_inputs(app, c, inputs, data);
    OrtStatus *status = run_session(app, vk, c, inputs, &got);
    if (CHECK(status != NULL, "%s: the CPU EP rejects the model but ortvk returns a result", c->name)) {
        const char *message = api->GetErrorMessage(status);
        if (CHECK(c->message == NULL || strstr(message, c->message) != NULL, "%s: the error says \"%s\": %s", c->name,
                  c->message, message))
            printf("%-52s ok (the run fails on ortvk: %s)\n", c->name, message);
        api->ReleaseStatus(status);
    }
    if (got) api->ReleaseValue(got);
    free_inputs(app, c, inputs, data);
    api->ReleaseSession(vk);
}

static void run_case(ortapp *app, const OrtEpDevice *device, edge_case *c)
{
    const OrtApi *api = app->api;
    if (c->cpu_wrong != NULL && strncmp(app->version, c->cpu_wrong, strlen(c->cpu_wrong)) == 0) {
        printf("%-52s not compared: ORT %s's CPU EP gets it wrong\n", c->name, app->version);
        onnx_model_free(c->m);
        return;
    }
    if (only != NULL && strstr(c->name, only) == NULL) {
        onnx_model_free(c->m);
        return;
    }
    uint8_t *model = NULL;
    size_t len = 0;
    if (!test_model_serialize(c->m, c->name, &model, &len)) return;
    if (c->cpu_rejects) {
        rejected_case(app, device, c, model, len);
        free(model);
        return;
    }
    kc_pair pair;
    bool opened = kc_pair_open(app, device, model, len, NULL, 0, false, c->name, &pair);
    free(model);
    if (!opened) return;
    OrtSession *cpu = pair.cpu, *vk = pair.vk;
    size_t ours = 0, other = 0;
    kc_assignment(app, vk, &ours, &other, NULL, 0, NULL, 0);
    if (c->on_ortvk)
        CHECK(ours >= 1 && other == 0, "%s: the nodes run on ortvk (%zu on ortvk, %zu elsewhere)", c->name, ours, other);
    if (c->refused) {
        if (CHECK(ours == 0 && other == 1, "%s: left to the CPU EP (%zu on ortvk, %zu elsewhere)", c->name, ours,
                  other))
            printf("%-52s ok (left to the CPU EP)\n", c->name);
        kc_pair_close(app, &pair);
        return;
    }
    OrtValue *inputs[MAX_INPUTS] = {0};
    float *data[MAX_INPUTS] = {0};
    make_inputs(app, c, inputs, data);
    OrtValue *want = NULL, *got = NULL;
    OrtStatus *want_status = c->fails ? api->CreateStatus(ORT_INVALID_ARGUMENT, "not asked")
                                      : run_session(app, cpu, c, inputs, &want);
    OrtStatus *got_status = run_session(app, vk, c, inputs, &got);
    const char *place = ours ? "on ortvk" : "left to the CPU EP";
    if (want_status == NULL && got_status != NULL) {
        int64_t wd[8] = {0};
        size_t wr = kc_tensor_shape(app, want, wd, 8);
        printf("%s: the CPU EP's output has rank %zu, dims [%lld,%lld,%lld,...]\n", c->name, wr, (long long)wd[0],
               (long long)wd[1], (long long)wd[2]);
    }
    if (want_status != NULL) {
        CHECK(got_status != NULL, "%s: the CPU EP fails (%s) but ortvk (%s) returns a result", c->name,
              api->GetErrorMessage(want_status), place);
        if (got_status != NULL && c->message != NULL)
            CHECK(strstr(api->GetErrorMessage(got_status), c->message) != NULL, "%s: the error says \"%s\": %s",
                  c->name, c->message, api->GetErrorMessage(got_status));
        if (got_status != NULL)
            printf("%-52s ok (both fail; ortvk %s: %s)\n", c->name, place, api->GetErrorMessage(got_status));
    } else if (CHECK(got_status == NULL, "%s: the CPU EP returns a result but ortvk (%s) fails: %s", c->name, place,
                     api->GetErrorMessage(got_status))) {
        int64_t wd[8] = {0}, gd[8] = {0};
        size_t wr = kc_tensor_shape(app, want, wd, 8), gr = kc_tensor_shape(app, got, gd, 8);
        bool same_shape = wr == gr && memcmp(wd, gd, sizeof(wd)) == 0;
        CHECK(same_shape, "%s: shapes differ: rank %zu [%lld,%lld,%lld,...] (CPU EP), rank %zu [%lld,%lld,%lld,...] "
              "(ortvk)", c->name, wr, (long long)wd[0], (long long)wd[1], (long long)wd[2], gr, (long long)gd[0],
              (long long)gd[1], (long long)gd[2]);
        size_t wb = 0, gb = 0;
        float *w = kc_host_data(app, want, &wb), *g = kc_host_data(app, got, &gb);
        if (same_shape && c->typed_out != 0 &&
            CHECK(w && g && wb == gb, "%s: outputs of %zu and %zu bytes", c->name, wb, gb)) {
            size_t bad = 0, first = 0;
            for (size_t i = 0; i < wb; i++) {
                if (((const uint8_t *)w)[i] != ((const uint8_t *)g)[i] && bad++ == 0) first = i;
            }
            CHECK(bad == 0, "%s: %zu of %zu values differ (first at %zu)", c->name, bad, wb, first);
            if (bad == 0) printf("%-52s ok (%zu values, %s)\n", c->name, wb, place);
        } else if (same_shape && CHECK(w && g && wb == gb, "%s: outputs of %zu and %zu bytes", c->name, wb, gb)) {
            size_t n = wb / sizeof(float), bad = 0, first = 0;
            for (size_t i = 0; i < n; i++) {
                if (!same_value(w[i], g[i], c->exact) && bad++ == 0) first = i;
            }
            CHECK(bad == 0, "%s: %zu of %zu values differ (first [%zu]: CPU EP %.9g, ortvk %.9g)", c->name, bad, n,
                  first, bad ? w[first] : 0.0, bad ? g[first] : 0.0);
            if (bad == 0) printf("%-52s ok (%zu values, %s)\n", c->name, n, place);
        }
        free(w);
        free(g);
    }
    if (want_status) api->ReleaseStatus(want_status);
    if (got_status) api->ReleaseStatus(got_status);
    if (want) api->ReleaseValue(want);
    if (got) api->ReleaseValue(got);
    free_inputs(app, c, inputs, data);
    kc_pair_close(app, &pair);
}

/* ---- the cases ------------------------------------------------------------------------------------------ */

static void slice(ortapp *app, const OrtEpDevice *device, const char *name, int rank, const int64_t *x, int count,
                  const int64_t *starts, const int64_t *ends, const int64_t *axes, const int64_t *steps,
                  bool on_ortvk)
{
    edge_case c;
    start(&c, name, 13, rank, x);
    c.on_ortvk = on_ortvk;
    c.exact = true;
    const_ints(&c, "starts", count, starts);
    const_ints(&c, "ends", count, ends);
    const_ints(&c, "axes", count, axes);
    if (steps) const_ints(&c, "steps", count, steps);
    const char *in[] = {"x", "starts", "ends", "axes", "steps"};
    node(&c, "Slice", steps ? 5 : 4, in);
    run_case(app, device, &c);
}

static void shape_overflows(ortapp *app, const OrtEpDevice *device)
{
    {
        edge_case c;
        int64_t x[4] = {1, 4, 2, 2};
        /* ORT 1.24.3's CPU EP dies of SIGFPE on this one (1.30.0 reports an error). */
        start(&c, "DepthToSpace blocksize 2^32 (squared wraps to 0)", 13, 4, x);
        c.on_ortvk = c.fails = true;
        c.message = "node n0 (DepthToSpace): DepthToSpace: blocksize 4294967296 squared overflows";
        onnx_node_attr_int(node(&c, "DepthToSpace", 1, (const char *[]){"x"}), "blocksize", 4294967296LL);
        run_case(app, device, &c);
    }
    {
        edge_case c;
        /* 4 (2^62 + 1) wraps to 4: a [4, 3] output. ORT 1.30.0's CPU EP refuses; 1.24.3's wraps too. */
        int64_t x[2] = {4, 3}, repeats[2] = {4611686018427387905LL, 1};
        start(&c, "Tile repeats [2^62 + 1, 1] (wraps to 4)", 13, 2, x);
        c.on_ortvk = c.fails = true;
        c.message = "node n0 (Tile): Tile: dim 0 of 4 repeated 4611686018427387905 times overflows";
        const_ints(&c, "repeats", 2, repeats);
        node(&c, "Tile", 2, (const char *[]){"x", "repeats"});
        run_case(app, device, &c);
    }
    {
        /* Known at GetCapability: 2^32 + 2^16 elements, more than the shaders index. */
        edge_case c;
        int64_t x[2] = {65536, 65537};
        memset(&c, 0, sizeof(c));
        c.name = "Relu of [65536, 65537] (static)";
        c.m = onnx_model_new(13);
        onnx_model_add_input(c.m, "x", ONNX_FLOAT, 2, x);
        onnx_model_add_output(c.m, "y", ONNX_FLOAT, 2, x);
        c.refused = true;
        node(&c, "Relu", 1, (const char *[]){"x"});
        run_case(app, device, &c);
    }
    {
        edge_case c;
        int64_t x[2] = {2, 3}, pads[4] = {0, INT64_MAX, 0, 2};
        start(&c, "Pad end pads INT64_MAX (overflows)", 13, 2, x);
        const_ints(&c, "pads", 4, pads);
        node(&c, "Pad", 2, (const char *[]){"x", "pads"});
        run_case(app, device, &c);
    }
    {
        /* Cropping 2^40 at the start and padding 2^40 + 2 at the end: a [2, 5] output, begin pads past 32 bits. */
        edge_case c;
        int64_t x[2] = {2, 3}, pads[4] = {0, -1099511627776LL, 0, 1099511627778LL};
        start(&c, "Pad by -2^40 and 2^40 + 2", 13, 2, x);
        c.exact = true;
        const_ints(&c, "pads", 4, pads);
        node(&c, "Pad", 2, (const char *[]){"x", "pads"});
        run_case(app, device, &c);
    }
    {
        /* Pads and strides of 2^40: a valid [1, 1, 3, 3] output; the conv shader takes them as 32-bit values. */
        edge_case c;
        float w[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
        int64_t x[4] = {1, 1, 5, 5}, pads[4] = {1099511627776LL, 0, 1099511627776LL, 0};
        int64_t strides[2] = {1099511627776LL, 1};
        start(&c, "Conv pads 2^40 strides 2^40", 13, 4, x);
        onnx_model_add_initializer(c.m, "w", ONNX_FLOAT, 4, (const int64_t[]){1, 1, 3, 3}, w, sizeof(w));
        onnx_node *n = node(&c, "Conv", 2, (const char *[]){"x", "w"});
        onnx_node_attr_ints(n, "pads", pads, 4);
        onnx_node_attr_ints(n, "strides", strides, 2);
        run_case(app, device, &c);
    }
    {
        edge_case c;
        int64_t x[4] = {1, 1, 2, 2};
        float scales[4] = {1, 1, 1e30f, 1};
        int64_t four[1] = {4};
        start(&c, "Resize scale 1e30 (float to int64 overflows)", 13, 4, x);
        onnx_model_add_initializer(c.m, "scales", ONNX_FLOAT, 1, four, scales, sizeof(scales));
        node(&c, "Resize", 3, (const char *[]){"x", "", "scales"});
        run_case(app, device, &c);
    }
    {
        int64_t x[2] = {3, 10}, st[1] = {2}, en[1] = {10}, ax[1] = {1}, huge[1] = {INT64_MAX - 1};
        slice(app, device, "Slice step INT64_MAX - 1", 2, x, 1, st, en, ax, huge, true);
        int64_t st2[1] = {-1}, en2[1] = {INT64_MIN}, neg[1] = {INT64_MIN};
        slice(app, device, "Slice step INT64_MIN from the end", 2, x, 1, st2, en2, ax, neg, true);
        int64_t st3[1] = {INT64_MIN}, en3[1] = {INT64_MAX};
        slice(app, device, "Slice starts INT64_MIN ends INT64_MAX", 2, x, 1, st3, en3, ax, NULL, true);
    }
}

/* Slices that ORT's CPU EP reads its own way (ends = INT64_MAX or INT32_MAX with a negative step), Slice-1, and
 * slices of empty inputs. */
static void slices(ortapp *app, const OrtEpDevice *device)
{
    int64_t x[2] = {3, 10}, ax[1] = {1}, back[1] = {-1}, neg2[1] = {-2};
    int64_t st[1] = {8}, en[1] = {INT64_MAX}, en32[1] = {INT32_MAX}, en_min[1] = {INT64_MIN};
    slice(app, device, "Slice ends INT64_MAX step -1", 2, x, 1, st, en, ax, back, true);
    slice(app, device, "Slice ends INT32_MAX step -2", 2, x, 1, st, en32, ax, neg2, true);
    slice(app, device, "Slice ends INT64_MIN step -1", 2, x, 1, st, en_min, ax, back, true);
    int64_t empty[2] = {0, 3}, ax0[1] = {0}, s0[1] = {0}, s_neg[1] = {-1}, e5[1] = {5};
    slice(app, device, "Slice of [0,3] from -1 down, step -1", 2, empty, 1, s_neg, en_min, ax0, back, false);
    slice(app, device, "Slice of [0,3] from 0 down, step -1", 2, empty, 1, s0, en_min, ax0, back, false);
    slice(app, device, "Slice of [0,3] ends INT64_MAX step -1", 2, empty, 1, s0, en, ax0, back, false);
    slice(app, device, "Slice of [0,3] [0:5] on axis 0", 2, empty, 1, s0, e5, ax0, NULL, false);
    int64_t empty2[2] = {3, 0};
    slice(app, device, "Slice of [3,0] [0:5] on axis 0", 2, empty2, 1, s0, e5, ax0, NULL, false);
    {
        edge_case c;
        int64_t x3[3] = {4, 5, 6}, starts[2] = {1, -4}, ends[2] = {INT64_MAX, -1}, axes[2] = {0, 2};
        start(&c, "Slice-1 (attributes) axes [0,2]", 9, 3, x3);
        c.on_ortvk = c.exact = true;
        onnx_node *n = node(&c, "Slice", 1, (const char *[]){"x"});
        onnx_node_attr_ints(n, "starts", starts, 2);
        onnx_node_attr_ints(n, "ends", ends, 2);
        onnx_node_attr_ints(n, "axes", axes, 2);
        run_case(app, device, &c);
    }
    {
        edge_case c;
        int64_t x3[3] = {4, 5, 6}, starts[2] = {1, -100}, ends[2] = {3, 4};
        start(&c, "Slice-1 (attributes) no axes", 1, 3, x3);
        c.on_ortvk = c.exact = true;
        onnx_node *n = node(&c, "Slice", 1, (const char *[]){"x"});
        onnx_node_attr_ints(n, "starts", starts, 2);
        onnx_node_attr_ints(n, "ends", ends, 2);
        run_case(app, device, &c);
    }
}

/* Boolean-like integer attributes set to 2, -1 and 2^31: the CPU EP's reading of each (or a refusal). */
static void booleans(ortapp *app, const OrtEpDevice *device)
{
    static const int64_t values[] = {2, -1, 2147483648LL};
    static const char *const names[] = {"2", "-1", "2^31"};
    char name[96];
    for (int k = 0; k < 3; k++) {
        {
            edge_case c;
            int64_t x[3] = {2, 3, 4}, axes[1] = {1};
            snprintf(name, sizeof(name), "ReduceSum keepdims %s", names[k]);
            start(&c, name, 13, 3, x);
            const_ints(&c, "axes", 1, axes);
            onnx_node_attr_int(node(&c, "ReduceSum", 2, (const char *[]){"x", "axes"}), "keepdims", values[k]);
            run_case(app, device, &c);
        }
        {
            edge_case c;
            int64_t x[3] = {2, 3, 4};
            snprintf(name, sizeof(name), "ReduceMax noop_with_empty_axes %s", names[k]);
            start(&c, name, 18, 3, x);
            onnx_node_attr_int(node(&c, "ReduceMax", 1, (const char *[]){"x"}), "noop_with_empty_axes", values[k]);
            run_case(app, device, &c);
        }
        {
            edge_case c;
            int64_t x[4] = {1, 2, 6, 6}, kernel[2] = {3, 3}, strides[2] = {2, 2};
            snprintf(name, sizeof(name), "MaxPool ceil_mode %s", names[k]);
            start(&c, name, 13, 4, x);
            onnx_node *n = node(&c, "MaxPool", 1, (const char *[]){"x"});
            onnx_node_attr_ints(n, "kernel_shape", kernel, 2);
            onnx_node_attr_ints(n, "strides", strides, 2);
            onnx_node_attr_int(n, "ceil_mode", values[k]);
            run_case(app, device, &c);
        }
        {
            edge_case c;
            int64_t x[4] = {1, 2, 5, 5}, kernel[2] = {3, 3}, pads[4] = {1, 1, 1, 1};
            snprintf(name, sizeof(name), "AveragePool count_include_pad %s", names[k]);
            start(&c, name, 13, 4, x);
            onnx_node *n = node(&c, "AveragePool", 1, (const char *[]){"x"});
            onnx_node_attr_ints(n, "kernel_shape", kernel, 2);
            onnx_node_attr_ints(n, "pads", pads, 4);
            onnx_node_attr_int(n, "count_include_pad", values[k]);
            run_case(app, device, &c);
        }
        {
            edge_case c;
            int64_t a[2] = {3, 4}, b[2] = {3, 5};
            snprintf(name, sizeof(name), "Gemm transA %s", names[k]);
            start(&c, name, 13, 2, a);
            second_input(&c, "b", 2, b);
            onnx_node_attr_int(node(&c, "Gemm", 2, (const char *[]){"x", "b"}), "transA", values[k]);
            run_case(app, device, &c);
        }
        {
            /* saturate (meant for float8 targets) other than 0 or 1: ORT's CPU EP answered otherwise than a plain
             * cast (float to float16, ints to ints): refused, the CPU EP runs it */
            edge_case c;
            int64_t x[1] = {6};
            snprintf(name, sizeof(name), "Cast float to float saturate %s", names[k]);
            start(&c, name, 21, 1, x);
            c.refused = true;
            onnx_node *n = node(&c, "Cast", 1, (const char *[]){"x"});
            onnx_node_attr_int(n, "to", 1);
            onnx_node_attr_int(n, "saturate", values[k]);
            run_case(app, device, &c);
        }
        {
            edge_case c;
            int64_t x[2] = {0, 4}, shape[2] = {4, 0};
            snprintf(name, sizeof(name), "Reshape [0,4] to [4,0] allowzero %s", names[k]);
            start(&c, name, 14, 2, x);
            const_ints(&c, "shape", 2, shape);
            onnx_node_attr_int(node(&c, "Reshape", 2, (const char *[]){"x", "shape"}), "allowzero", values[k]);
            run_case(app, device, &c);
        }
    }
}

/* A pool of `op` over `x` (rank 3 to 5, filled with `data`) with `kernel`, optional pads or auto_pad. */
static void pool(ortapp *app, const OrtEpDevice *device, const char *name, const char *op, int rank, const int64_t *x,
                 const float *data, const int64_t *kernel, const int64_t *pads, const char *auto_pad, int64_t include)
{
    edge_case c;
    start(&c, name, 13, rank, x);
    c.on_ortvk = true;
    c.data[0] = data;
    onnx_node *n = node(&c, op, 1, (const char *[]){"x"});
    if (kernel) onnx_node_attr_ints(n, "kernel_shape", kernel, rank - 2);
    if (pads) onnx_node_attr_ints(n, "pads", pads, 2 * (rank - 2));
    if (auto_pad) onnx_node_attr_string(n, "auto_pad", auto_pad);
    if (include) onnx_node_attr_int(n, "count_include_pad", include);
    run_case(app, device, &c);
}

/* Windows far larger than lavapipe's 65,535 loop iterations, and kernels far larger than the input. */
static void pools(ortapp *app, const OrtEpDevice *device)
{
    float *ramp = malloc(90000 * sizeof(float)), *ones = malloc(90000 * sizeof(float));
    for (int i = 0; i < 90000; i++) ramp[i] = (float)i, ones[i] = 1.0f;
    int64_t x1[3] = {1, 1, 70000}, k1[1] = {70000}, k1b[1] = {69000}, pads1[2] = {3, 2};
    pool(app, device, "MaxPool kernel 70,000 over 70,000", "MaxPool", 3, x1, ramp, k1, NULL, NULL, 0);
    pool(app, device, "AveragePool kernel 70,000 over 70,000 ones", "AveragePool", 3, x1, ones, k1, NULL, NULL, 0);
    pool(app, device, "AveragePool kernel 69,000 pads [3,2] include pad", "AveragePool", 3, x1, ramp, k1b, pads1, NULL,
         1);
    int64_t x2[4] = {1, 1, 300, 300}, k2[2] = {300, 300};
    pool(app, device, "MaxPool kernel 300x300 over 300x300", "MaxPool", 4, x2, ramp, k2, NULL, NULL, 0);
    int64_t x3[5] = {1, 1, 40, 40, 50}, k3[3] = {40, 40, 50};
    pool(app, device, "AveragePool kernel 40x40x50 over 40x40x50", "AveragePool", 5, x3, ramp, k3, NULL, NULL, 0);
    int64_t small[4] = {1, 2, 3, 3}, huge[2] = {2147483648LL, 2147483648LL};
    pool(app, device, "MaxPool kernel 2^31 x 2^31 SAME_UPPER over 3x3", "MaxPool", 4, small, NULL, huge, NULL,
         "SAME_UPPER", 0);
    int64_t huger[2] = {8589934592LL, 3}; /* begin pads of 2^32 */
    pool(app, device, "MaxPool kernel 2^33 x 3 SAME_LOWER over 3x3", "MaxPool", 4, small, NULL, huger, NULL,
         "SAME_LOWER", 0);
    pool(app, device, "AveragePool kernel 2^33 x 3 SAME_UPPER over 3x3", "AveragePool", 4, small, NULL, huger, NULL,
         "SAME_UPPER", 0);
    pool(app, device, "GlobalMaxPool over 300x300", "GlobalMaxPool", 4, x2, ramp, NULL, NULL, NULL, 0);
    pool(app, device, "GlobalAveragePool over 70,000 ones", "GlobalAveragePool", 3, x1, ones, NULL, NULL, NULL, 0);
    free(ramp);
    free(ones);
}

/* NaN, infinities, zeros, subnormals, the edges of each function's range, and ordinary values. */
static const float specials[] = {
    NAN, -NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 1e-45f, -1e-45f, 1e-40f, -1e-40f, 1.1754942e-38f, -1.1754942e-38f,
    FLT_MIN, -FLT_MIN, FLT_MAX, -FLT_MAX, 1.0f, -1.0f, 0.5f, -0.5f, 2.5f, -2.5f, 3.0f, -3.0f, 0.1f, -0.1f,
    20.0f, -20.0f, 88.7f, -88.7f, 89.0f, -104.0f, 1e10f, -1e10f, 16777217.0f, 3e38f, 1e-30f, 6.0f, -6.0f,
};
#define N_SPECIALS (sizeof(specials) / sizeof(specials[0]))

static void unary_specials(ortapp *app, const OrtEpDevice *device)
{
    static const char *const ops[] = {
        "Relu", "LeakyRelu", "Sigmoid", "HardSigmoid", "HardSwish", "Tanh", "Exp", "Log", "Abs", "Neg", "Sqrt", "Erf",
        "Reciprocal", "Floor", "Ceil", "Elu", "Selu", "Softplus", "Sign", "Round", "Softsign", "ThresholdedRelu",
        "Celu", "Shrink", "Clip", "Identity", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh",
        "Asinh", "Acosh", "Atanh",
    };
    char name[96];
    for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++) {
        edge_case c;
        int64_t x[1] = {N_SPECIALS};
        snprintf(name, sizeof(name), "%s of NaN, infinities, zeros, subnormals", ops[k]);
        start(&c, name, 14, 1, x);
        c.on_ortvk = true;
        c.data[0] = specials;
        if (strcmp(ops[k], "Erf") == 0) c.cpu_wrong = "1.24."; /* Erf(NaN) = 1 there; 1.30.0 returns NaN */
        node(&c, ops[k], 1, (const char *[]){"x"});
        run_case(app, device, &c);
    }
    /* The same values four times over (156 values, a multiple of 4; 39 is 3 modulo 4, so each value comes in each
     * lane of a vec4): the vectorised form, which has its own code for Sigmoid. */
    static float repeated[4 * N_SPECIALS];
    for (size_t i = 0; i < 4 * N_SPECIALS; i++) repeated[i] = specials[i % N_SPECIALS];
    static const char *const vectorised[] = {"Sigmoid", "Exp"};
    for (size_t k = 0; k < sizeof(vectorised) / sizeof(vectorised[0]); k++) {
        edge_case c;
        int64_t x[1] = {4 * N_SPECIALS};
        snprintf(name, sizeof(name), "%s of the same, vectorised form", vectorised[k]);
        start(&c, name, 14, 1, x);
        c.on_ortvk = true;
        c.data[0] = repeated;
        node(&c, vectorised[k], 1, (const char *[]){"x"});
        run_case(app, device, &c);
    }
}

/* QuantizeLinear of the special values by a subnormal scale, a zero one and a plain one, and a QLinearMatMul whose
 * a_scale is subnormal (a_scale * b_scale = 1e-30 = y_scale): x / 1e-40 is 1e40 or inf and 0 / 1e-40 is 0, never
 * NaN from a flushed scale, and the output scale is 1, not 0 (docs/kernels.md, "Subnormals"). */
static void quantize_specials(ortapp *app, const OrtEpDevice *device)
{
    static const float scales[] = {1e-40f, 0.0f, 0.02f};
    static const char *const names[] = {"QuantizeLinear of the specials, scale 1e-40", "QuantizeLinear of the "
                                        "specials, scale 0", "QuantizeLinear of the specials, scale 0.02"};
    uint8_t zp = 7;
    for (size_t k = 0; k < sizeof(scales) / sizeof(scales[0]); k++) {
        edge_case c;
        int64_t x[1] = {N_SPECIALS};
        start(&c, names[k], 13, 1, x);
        typed_output(&c, 13, ONNX_UINT8);
        c.on_ortvk = true;
        c.data[0] = specials;
        onnx_model_add_initializer(c.m, "s", ONNX_FLOAT, 0, NULL, &scales[k], sizeof(float));
        onnx_model_add_initializer(c.m, "z", ONNX_UINT8, 0, NULL, &zp, 1);
        node(&c, "QuantizeLinear", 3, (const char *[]){"x", "s", "z"});
        run_case(app, device, &c);
    }
    edge_case c;
    int64_t x[2] = {3, 4}, bd[2] = {4, 2};
    static const float xv[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    float one = 1.0f, tiny = 1e-40f, big = 1e10f, small = 1e-30f;
    uint8_t b[8] = {1, 2, 3, 4, 5, 6, 7, 8}, zero = 0;
    start(&c, "QLinearMatMul of subnormal scales", 13, 2, x);
    typed_output(&c, 13, ONNX_UINT8);
    c.on_ortvk = true;
    c.data[0] = xv;
    onnx_model_add_initializer(c.m, "one", ONNX_FLOAT, 0, NULL, &one, sizeof(float));
    onnx_model_add_initializer(c.m, "tiny", ONNX_FLOAT, 0, NULL, &tiny, sizeof(float));
    onnx_model_add_initializer(c.m, "big", ONNX_FLOAT, 0, NULL, &big, sizeof(float));
    onnx_model_add_initializer(c.m, "small", ONNX_FLOAT, 0, NULL, &small, sizeof(float));
    onnx_model_add_initializer(c.m, "zero", ONNX_UINT8, 0, NULL, &zero, 1);
    onnx_model_add_initializer(c.m, "b", ONNX_UINT8, 2, bd, b, sizeof(b));
    const char *quantize[3] = {"x", "one", "zero"}, *a[1] = {"a"};
    onnx_model_add_node(c.m, "QuantizeLinear", quantize, 3, a, 1);
    node(&c, "QLinearMatMul", 8, (const char *[]){"a", "tiny", "zero", "b", "big", "zero", "small", "zero"});
    run_case(app, device, &c);
}

/* Unary ops with NaN, infinite, subnormal or absurd (1e19+) float attributes: left to the CPU EP, whose products
 * overflow and propagate NaN in its own order. HardSigmoid with alpha 0 over infinities stays on ortvk: 0 * inf is
 * NaN on both. */
static void unary_attributes(ortapp *app, const OrtEpDevice *device)
{
    static const struct {
        const char *name, *op, *attr;
        float value;
        bool refused;
    } cases[] = {
        {"HardSigmoid alpha NaN", "HardSigmoid", "alpha", NAN, true},
        {"HardSigmoid beta NaN", "HardSigmoid", "beta", NAN, true},
        {"HardSigmoid alpha -inf", "HardSigmoid", "alpha", -INFINITY, true},
        {"HardSigmoid alpha 0 over infinities", "HardSigmoid", "alpha", 0.0f, false},
        {"HardSigmoid alpha -0 over infinities", "HardSigmoid", "alpha", -0.0f, false},
        {"Elu alpha inf", "Elu", "alpha", INFINITY, true},
        {"Selu gamma FLT_MAX", "Selu", "gamma", FLT_MAX, true},
        {"Selu alpha FLT_MAX", "Selu", "alpha", FLT_MAX, true},
        {"Celu alpha -FLT_MAX", "Celu", "alpha", -FLT_MAX, true},
        {"Celu alpha NaN", "Celu", "alpha", NAN, true},
        {"LeakyRelu alpha NaN", "LeakyRelu", "alpha", NAN, true},
        {"ThresholdedRelu alpha -inf", "ThresholdedRelu", "alpha", -INFINITY, true},
        {"Shrink bias inf", "Shrink", "bias", INFINITY, true},
    };
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        edge_case c;
        int64_t x[1] = {N_SPECIALS};
        start(&c, cases[k].name, 14, 1, x);
        c.data[0] = specials;
        c.refused = cases[k].refused;
        c.on_ortvk = !cases[k].refused;
        c.exact = !cases[k].refused;
        onnx_node_attr_float(node(&c, cases[k].op, 1, (const char *[]){"x"}), cases[k].attr, cases[k].value);
        run_case(app, device, &c);
    }
}

static void binary_specials(ortapp *app, const OrtEpDevice *device)
{
    static const char *const ops[] = {"Add", "Sub", "Mul", "Div", "Pow", "PRelu", "Max", "Min"};
    size_t n = N_SPECIALS * N_SPECIALS;
    float *a = malloc(n * sizeof(float)), *b = malloc(n * sizeof(float));
    for (size_t i = 0; i < N_SPECIALS; i++) {
        for (size_t j = 0; j < N_SPECIALS; j++) {
            a[i * N_SPECIALS + j] = specials[i];
            b[i * N_SPECIALS + j] = specials[j];
        }
    }
    char name[96];
    for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++) {
        edge_case c;
        int64_t x[1] = {(int64_t)n};
        snprintf(name, sizeof(name), "%s of every pair of specials", ops[k]);
        start(&c, name, 14, 1, x);
        second_input(&c, "b", 1, x);
        c.on_ortvk = true;
        c.data[0] = a;
        c.data[1] = b;
        /* PRelu(inf, NaN) and the like are NaN there; 1.30.0 returns x for x >= 0, as the spec says. */
        if (strcmp(ops[k], "PRelu") == 0) c.cpu_wrong = "1.24.";
        node(&c, ops[k], 2, (const char *[]){"x", "b"});
        run_case(app, device, &c);
    }
    static const char *const comparisons[] = {"Equal", "Greater", "Less", "GreaterOrEqual", "LessOrEqual"};
    for (size_t k = 0; k < sizeof(comparisons) / sizeof(comparisons[0]); k++) {
        edge_case c;
        int64_t x[1] = {(int64_t)n};
        snprintf(name, sizeof(name), "%s of every pair of specials", comparisons[k]);
        start(&c, name, 16, 1, x);
        bool_output(&c, 16);
        second_input(&c, "b", 1, x);
        c.on_ortvk = true;
        c.data[0] = a;
        c.data[1] = b;
        node(&c, comparisons[k], 2, (const char *[]){"x", "b"});
        run_case(app, device, &c);
    }
    free(a);
    free(b);
}

/* A one-node case of `op` over float inputs of the given shapes (the first named "x", then "b", "c"), with a
 * constant int64 input `ints` (named "k", appended last) when `n_ints` >= 0. */
static edge_case *simple(edge_case *c, const char *name, const char *op, int opset, int n_in, const int *ranks,
                         const int64_t (*dims)[5], const int64_t *ints, int n_ints)
{
    static const char *const names[] = {"x", "b", "c"};
    start(c, name, opset, ranks[0], dims[0]);
    for (int i = 1; i < n_in; i++) second_input(c, names[i], ranks[i], dims[i]);
    const char *in[4] = {"x", "b", "c", "k"};
    int n = n_in;
    if (n_ints >= 0) {
        const_ints(c, "k", n_ints, ints);
        in[n++] = "k";
    }
    onnx_model_add_node(c->m, op, in, n, (const char *[]){"y"}, 1);
    return c;
}

/* Every op with a zero-sized input (and some with a non-empty output from an empty input). */
static void empties(ortapp *app, const OrtEpDevice *device)
{
    edge_case c;
    const int r1[3] = {1, 1, 1}, r2[3] = {2, 2, 2}, r3[3] = {3, 3, 3}, r4[3] = {4, 4, 4};
    const int64_t d03[3][5] = {{0, 3}, {3}, {0}}, d20[3][5] = {{2, 0}, {1, 1}, {0}};
    run_case(app, device, simple(&c, "Relu of [0,3]", "Relu", 13, 1, r2, d03, NULL, -1));
    run_case(app, device, simple(&c, "Add [0,3] + [3]", "Add", 13, 2, (const int[]){2, 1}, d03, NULL, -1));
    run_case(app, device, simple(&c, "Mul [2,0] * [1,1]", "Mul", 13, 2, r2, d20, NULL, -1));
    run_case(app, device, simple(&c, "Max of [2,0], [1,1]", "Max", 13, 2, r2, d20, NULL, -1));
    run_case(app, device, simple(&c, "Mean of [2,0], [1,1]", "Mean", 13, 2, r2, d20, NULL, -1));
    run_case(app, device, simple(&c, "Softmax of [2,0]", "Softmax", 13, 1, r2, d20, NULL, -1));
    run_case(app, device, simple(&c, "Softmax of [0,3]", "Softmax", 13, 1, r2, d03, NULL, -1));
    const int64_t mm[3][5] = {{2, 0}, {0, 3}};
    /* K = 0 with a non-empty output: the CPU EP has no defined answer (gemm_edges), so the run fails */
    simple(&c, "MatMul [2,0] x [0,3] (sums of nothing)", "MatMul", 13, 2, r2, mm, NULL, -1);
    c.fails = true, c.message = "K = 0";
    run_case(app, device, &c);
    simple(&c, "Gemm [2,0] x [0,3] + C[3]", "Gemm", 13, 3, (const int[]){2, 2, 1},
           (const int64_t[3][5]){{2, 0}, {0, 3}, {3}}, NULL, -1);
    c.fails = true, c.message = "K = 0";
    run_case(app, device, &c);
    const int64_t mm0[3][5] = {{0, 4}, {4, 3}};
    run_case(app, device, simple(&c, "MatMul [0,4] x [4,3]", "MatMul", 13, 2, r2, mm0, NULL, -1));
    static const char *const reduces[] = {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd",
                                          "ReduceL1", "ReduceL2", "ReduceSumSquare", "ReduceLogSum",
                                          "ReduceLogSumExp"};
    char name[96];
    for (size_t k = 0; k < sizeof(reduces) / sizeof(reduces[0]); k++) {
        int64_t axes[1] = {1};
        snprintf(name, sizeof(name), "%s over the empty axis of [3,0]", reduces[k]);
        simple(&c, name, reduces[k], 18, 1, r2, (const int64_t[3][5]){{3, 0}}, axes, 1);
        run_case(app, device, &c);
        snprintf(name, sizeof(name), "%s of [0,3] over axis 1", reduces[k]);
        simple(&c, name, reduces[k], 18, 1, r2, (const int64_t[3][5]){{0, 3}}, axes, 1);
        run_case(app, device, &c);
    }
    run_case(app, device, simple(&c, "Transpose of [0,3]", "Transpose", 13, 1, r2, d03, NULL, -1));
    {
        edge_case e;
        start(&e, "Concat [2,0] and [2,0] on axis 1", 13, 2, (const int64_t[]){2, 0});
        second_input(&e, "b", 2, (const int64_t[]){2, 0});
        onnx_node_attr_int(node(&e, "Concat", 2, (const char *[]){"x", "b"}), "axis", 1);
        run_case(app, device, &e);
    }
    {
        edge_case e;
        start(&e, "Concat [0,2] and [3,2] on axis 0", 13, 2, (const int64_t[]){0, 2});
        second_input(&e, "b", 2, (const int64_t[]){3, 2});
        onnx_node_attr_int(node(&e, "Concat", 2, (const char *[]){"x", "b"}), "axis", 0);
        run_case(app, device, &e);
    }
    {
        edge_case e;
        start(&e, "Split [3,4] into [3,0] and [3,4]", 13, 2, (const int64_t[]){3, 4});
        const_ints(&e, "split", 2, (const int64_t[]){0, 4});
        onnx_model_add_output(e.m, "z", ONNX_FLOAT, -1, NULL);
        onnx_node_attr_int(onnx_model_add_node(e.m, "Split", (const char *[]){"x", "split"}, 2,
                                               (const char *[]){"y", "z"}, 2), "axis", 1);
        run_case(app, device, &e);
    }
    run_case(app, device, simple(&c, "Expand [0,1] to [2,0,3]", "Expand", 13, 1, r2,
                                 (const int64_t[3][5]){{0, 1}}, (const int64_t[]){2, 0, 3}, 3));
    run_case(app, device, simple(&c, "Tile [2,3] by [0,2]", "Tile", 13, 1, r2, (const int64_t[3][5]){{2, 3}},
                                 (const int64_t[]){0, 2}, 2));
    run_case(app, device, simple(&c, "Tile [0,3] by [2,2]", "Tile", 13, 1, r2, d03, (const int64_t[]){2, 2}, 2));
    run_case(app, device, simple(&c, "Reshape [0,3] to [3,0]", "Reshape", 14, 1, r2, d03, (const int64_t[]){3, 0}, 2));
    run_case(app, device, simple(&c, "Pad [0,3] by [1,0,1,0] (a non-empty output)", "Pad", 13, 1, r2, d03,
                                 (const int64_t[]){1, 0, 1, 0}, 4));
    run_case(app, device, simple(&c, "Pad [2,0] by [0,1,0,1] (a non-empty output)", "Pad", 13, 1, r2, d20,
                                 (const int64_t[]){0, 1, 0, 1}, 4));
    {
        edge_case e;
        start(&e, "Gather [0,3] at [1] on axis 1", 13, 2, (const int64_t[]){0, 3});
        const_ints(&e, "i", 1, (const int64_t[]){1});
        onnx_node_attr_int(node(&e, "Gather", 2, (const char *[]){"x", "i"}), "axis", 1);
        run_case(app, device, &e);
    }
    {
        edge_case e;
        start(&e, "DepthToSpace of [0,4,2,2]", 13, 4, (const int64_t[]){0, 4, 2, 2});
        onnx_node_attr_int(node(&e, "DepthToSpace", 1, (const char *[]){"x"}), "blocksize", 2);
        run_case(app, device, &e);
    }
    {
        edge_case e;
        start(&e, "MaxPool of [0,2,4,4]", 13, 4, (const int64_t[]){0, 2, 4, 4});
        onnx_node_attr_ints(node(&e, "MaxPool", 1, (const char *[]){"x"}), "kernel_shape", (const int64_t[]){2, 2}, 2);
        run_case(app, device, &e);
    }
    run_case(app, device, simple(&c, "GlobalAveragePool of [1,2,0,0]", "GlobalAveragePool", 13, 1, r4,
                                 (const int64_t[3][5]){{1, 2, 0, 0}}, NULL, -1));
    run_case(app, device, simple(&c, "GlobalMaxPool of [0,2,3,3]", "GlobalMaxPool", 13, 1, r4,
                                 (const int64_t[3][5]){{0, 2, 3, 3}}, NULL, -1));
    {
        edge_case e;
        start(&e, "Resize of [0,1,2,2] x2", 13, 4, (const int64_t[]){0, 1, 2, 2});
        float scales[4] = {1, 1, 2, 2};
        onnx_model_add_initializer(e.m, "s", ONNX_FLOAT, 1, (const int64_t[]){4}, scales, sizeof(scales));
        node(&e, "Resize", 3, (const char *[]){"x", "", "s"});
        run_case(app, device, &e);
    }
    {
        edge_case e;
        start(&e, "LayerNormalization of [0,4]", 17, 2, (const int64_t[]){0, 4});
        float ones4[4] = {1, 1, 1, 1};
        onnx_model_add_initializer(e.m, "s", ONNX_FLOAT, 1, (const int64_t[]){4}, ones4, sizeof(ones4));
        node(&e, "LayerNormalization", 2, (const char *[]){"x", "s"});
        run_case(app, device, &e);
    }
    {
        edge_case e;
        start(&e, "InstanceNormalization of [1,2,0]", 13, 3, (const int64_t[]){1, 2, 0});
        float ones2[2] = {1, 1};
        onnx_model_add_initializer(e.m, "s", ONNX_FLOAT, 1, (const int64_t[]){2}, ones2, sizeof(ones2));
        onnx_model_add_initializer(e.m, "b", ONNX_FLOAT, 1, (const int64_t[]){2}, ones2, sizeof(ones2));
        node(&e, "InstanceNormalization", 3, (const char *[]){"x", "s", "b"});
        run_case(app, device, &e);
    }
    (void)r1;
    (void)r3;
}

/* Axes given with no values, and reductions of inputs without elements, as ORT's CPU EP reads them: axes=[]
 * reduces (or squeezes) all; over an empty input a negative axis reduces nothing. */
static void empty_axes(ortapp *app, const OrtEpDevice *device)
{
    static const char *const reduces[] = {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceL2", "ReduceLogSumExp"};
    char name[96];
    for (size_t k = 0; k < sizeof(reduces) / sizeof(reduces[0]); k++) {
        edge_case c;
        snprintf(name, sizeof(name), "%s-11 axes=[] of [2,3]", reduces[k]);
        start(&c, name, 11, 2, (const int64_t[]){2, 3});
        c.on_ortvk = true;
        onnx_node_attr_ints(node(&c, reduces[k], 1, (const char *[]){"x"}), "axes", NULL, 0);
        run_case(app, device, &c);
    }
    {
        edge_case c;
        start(&c, "Squeeze-11 axes=[] of [3,1,2,1]", 11, 4, (const int64_t[]){3, 1, 2, 1});
        c.on_ortvk = true;
        onnx_node_attr_ints(node(&c, "Squeeze", 1, (const char *[]){"x"}), "axes", NULL, 0);
        run_case(app, device, &c);
    }
    {
        edge_case c;
        start(&c, "Squeeze-13 axes input [] of [1,4,1]", 13, 3, (const int64_t[]){1, 4, 1});
        c.on_ortvk = true;
        const_ints(&c, "axes", 0, NULL);
        node(&c, "Squeeze", 2, (const char *[]){"x", "axes"});
        run_case(app, device, &c);
    }
    {
        /* The same axes known only at run time (Shape's empty slice of x's symbolic dims): fuzz_diff seed 110
         * case 619 (axes a graph input holding []) kept every dim. */
        edge_case c;
        start(&c, "Squeeze-15 axes [] at run time of [5,1,1,3]", 15, 4, (const int64_t[]){5, 1, 1, 3});
        c.on_ortvk = true;
        const char *axes_out[] = {"axes"};
        onnx_node *shape = onnx_model_add_node(c.m, "Shape", (const char *[]){"x"}, 1, axes_out, 1);
        onnx_node_attr_int(shape, "start", 0);
        onnx_node_attr_int(shape, "end", 0);
        node(&c, "Squeeze", 2, (const char *[]){"x", "axes"});
        run_case(app, device, &c);
    }
    {
        edge_case c;
        start(&c, "ReduceL1-11 of [0,4,3] axes [-3,-2] keepdims", 11, 3, (const int64_t[]){0, 4, 3});
        c.on_ortvk = true;
        onnx_node_attr_ints(node(&c, "ReduceL1", 1, (const char *[]){"x"}), "axes", (const int64_t[]){-3, -2}, 2);
        run_case(app, device, &c);
    }
    {
        edge_case c;
        start(&c, "ReduceSum-18 of [2,2,1,5,0] axes [-3,-2,4]", 18, 5, (const int64_t[]){2, 2, 1, 5, 0});
        c.on_ortvk = true;
        const_ints(&c, "axes", 3, (const int64_t[]){-3, -2, 4});
        node(&c, "ReduceSum", 2, (const char *[]){"x", "axes"});
        run_case(app, device, &c);
    }
    {
        edge_case c;
        start(&c, "ReduceMax-18 of [5,5,0] axes [-3,1] no keepdims", 18, 3, (const int64_t[]){5, 5, 0});
        c.on_ortvk = true;
        const_ints(&c, "axes", 2, (const int64_t[]){-3, 1});
        onnx_node_attr_int(node(&c, "ReduceMax", 2, (const char *[]){"x", "axes"}), "keepdims", 0);
        run_case(app, device, &c);
    }
    {
        edge_case c;
        /* ORT 1.24's CPU EP reduces all ([1,1]), 1.30's copies the input ([3,0]): left to the CPU EP. */
        start(&c, "ReduceProd-18 of [3,0] noop_with_empty_axes", 18, 2, (const int64_t[]){3, 0});
        c.refused = true;
        onnx_node_attr_int(node(&c, "ReduceProd", 1, (const char *[]){"x"}), "noop_with_empty_axes", 1);
        run_case(app, device, &c);
    }
}

/* A Conv or ConvTranspose case: x of `xd`, weights "b" of `wd` (small integers), no bias. */
static onnx_node *conv_case(edge_case *c, const char *name, const char *op, int rank, const int64_t *xd,
                            const int64_t *wd)
{
    start(c, name, 13, rank, xd);
    second_input(c, "b", rank, wd);
    return node(c, op, 2, (const char *[]){"x", "b"});
}

/* auto_pad SAME_* where ORT's CPU EP gives other outputs than ONNX: ConvTranspose with a stride (less than
 * input * stride when the kernel is smaller than the stride), MaxPool with a dilation, pools with a kernel below
 * the stride. Left to the CPU EP. */
static void same_pads(ortapp *app, const OrtEpDevice *device)
{
    {
        edge_case c;
        float w[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
        start(&c, "ConvTranspose SAME_UPPER strides 1x2 kernel 1x1", 13, 4, (const int64_t[]){2, 3, 5, 6});
        c.refused = true;
        onnx_model_add_initializer(c.m, "w", ONNX_FLOAT, 4, (const int64_t[]){3, 3, 1, 1}, w, sizeof(w));
        onnx_node *n = node(&c, "ConvTranspose", 2, (const char *[]){"x", "w"});
        onnx_node_attr_ints(n, "strides", (const int64_t[]){1, 2}, 2);
        onnx_node_attr_string(n, "auto_pad", "SAME_UPPER");
        run_case(app, device, &c);
    }
    {
        edge_case c;
        start(&c, "MaxPool SAME_LOWER dilations 2 kernel 3x2", 13, 4, (const int64_t[]){1, 2, 7, 6});
        c.refused = true;
        onnx_node *n = node(&c, "MaxPool", 1, (const char *[]){"x"});
        onnx_node_attr_ints(n, "kernel_shape", (const int64_t[]){3, 2}, 2);
        onnx_node_attr_ints(n, "dilations", (const int64_t[]){2, 2}, 2);
        onnx_node_attr_string(n, "auto_pad", "SAME_LOWER");
        run_case(app, device, &c);
    }
    {
        /* A kernel below the stride: the CPU EP's SAME_UPPER pad is negative, its window starts at row 1. */
        edge_case c;
        start(&c, "AveragePool SAME_UPPER kernel 1x1 strides 3x1", 13, 4, (const int64_t[]){1, 3, 3, 9});
        c.refused = true;
        onnx_node *n = node(&c, "AveragePool", 1, (const char *[]){"x"});
        onnx_node_attr_ints(n, "kernel_shape", (const int64_t[]){1, 1}, 2);
        onnx_node_attr_ints(n, "strides", (const int64_t[]){3, 1}, 2);
        onnx_node_attr_string(n, "auto_pad", "SAME_UPPER");
        run_case(app, device, &c);
    }
    /* Conv with a kernel more than 1 below the stride: the CPU EP's SAME pads are negative (8 rows, kernel 1,
     * stride 4: total -3; 9 columns, kernel 2, stride 5: total -2), and its windows start where neither rounding
     * of them puts them (SAME_UPPER: row 1, column 0; SAME_LOWER: row 0). Left to it. A kernel one below the stride
     * (total -1 at most, a head pad of 0) stays on ortvk. */
    static const char *const same[2] = {"SAME_UPPER", "SAME_LOWER"};
    for (int i = 0; i < 4; i++) {
        edge_case c;
        char name[64];
        bool below = i < 2;
        snprintf(name, sizeof(name), "Conv %s kernel %s strides %s over 8x9", same[i % 2], below ? "1x2" : "1x3",
                 below ? "4x5" : "2x4");
        onnx_node *n = conv_case(&c, name, "Conv", 4, (const int64_t[]){1, 2, 8, 9},
                                 (const int64_t[]){3, 2, 1, below ? 2 : 3});
        c.refused = below;
        c.on_ortvk = !below;
        onnx_node_attr_ints(n, "kernel_shape", (const int64_t[]){1, below ? 2 : 3}, 2);
        onnx_node_attr_ints(n, "strides", below ? (const int64_t[]){4, 5} : (const int64_t[]){2, 4}, 2);
        onnx_node_attr_string(n, "auto_pad", same[i % 2]);
        run_case(app, device, &c);
    }
}

/* Conv and ConvTranspose of constant weights holding NaN or infinity: where a window overlaps the padding, the CPU
 * EP's answer depends on its algorithm (MLAS's NCHWc kernels skip padded taps, its im2col multiplies them by 0), so
 * such nodes are left to it. Finite weights over infinite and NaN inputs stay on ortvk and agree with it. */
static void conv_nonfinite_weights(ortapp *app, const OrtEpDevice *device)
{
    static const float specials[3] = {INFINITY, -INFINITY, NAN};
    static const char *const names[3] = {"inf", "-inf", "NaN"};
    float w[36];
    for (int k = 0; k < 36; k++) w[k] = (float)(k % 5) - 2.0f;
    for (int i = 0; i < 4; i++) {
        bool transpose = i == 3;
        edge_case c;
        char name[80];
        snprintf(name, sizeof(name), "%s 3x3 pads 1, a weight of %s", transpose ? "ConvTranspose" : "Conv",
                 names[i % 3]);
        start(&c, name, 13, 4, (const int64_t[]){1, 2, 4, 4});
        c.refused = true;
        float special[36];
        memcpy(special, w, sizeof(w));
        special[0] = specials[i % 3];
        onnx_model_add_initializer(c.m, "w", ONNX_FLOAT, 4, (const int64_t[]){2, 2, 3, 3}, special, sizeof(special));
        onnx_node *n = node(&c, transpose ? "ConvTranspose" : "Conv", 2, (const char *[]){"x", "w"});
        onnx_node_attr_ints(n, "pads", (const int64_t[]){1, 1, 1, 1}, 4);
        run_case(app, device, &c);
    }
    static const float x[32] = {INFINITY, 1, 2, 3, 4, -INFINITY, 6, 7, 8, 9, NAN, 1, 2, 3, 4, 5,
                                1,        2, 3, 4, 5, 6,         7, 8, 9, 1, 2,   3, 4, 5, 6, INFINITY};
    edge_case c;
    start(&c, "Conv 3x3 pads 1 of inputs with NaN and infinities", 13, 4, (const int64_t[]){1, 2, 4, 4});
    c.on_ortvk = true;
    c.exact = true;
    c.data[0] = x;
    onnx_model_add_initializer(c.m, "w", ONNX_FLOAT, 4, (const int64_t[]){2, 2, 3, 3}, w, sizeof(w));
    onnx_node_attr_ints(node(&c, "Conv", 2, (const char *[]){"x", "w"}), "pads", (const int64_t[]){1, 1, 1, 1}, 4);
    run_case(app, device, &c);
}

/* RNN without initial_h: ORT's CPU EP computes no H R^T at its first step (t = 0, or S - 1 reversed: its previous
 * state is null, not zeros), so an infinite R does not make that step NaN (0 * inf). A reversed entry shorter than
 * S starts later, from zeros that it multiplies (NaN, which Relu makes 0). LSTM and GRU start from a zero state that
 * they multiply like any other. */
static void rnn_first_step(ortapp *app, const OrtEpDevice *device)
{
    static const float x[8] = {0.5f, -0.25f, 1.0f, 0.75f, -0.5f, 0.25f, 2.0f, -1.0f};
    static const float w[12] = {0.5f, -1, 0.25f, 1, -0.5f, 2, 1, 0.5f, -0.25f, 0.75f, 2, -1};
    static const float r[18] = {INFINITY, 0.5f, -0.5f, 0.25f, 1,    -1,    0.5f, 0.5f, -INFINITY,
                                0.5f,     1,    -1,    2,     -INFINITY, 0.5f, 1,    0.25f, 0.5f};
    static const int32_t lens[2] = {2, 1};
    for (int bidirectional = 0; bidirectional < 2; bidirectional++) {
        int64_t D = bidirectional ? 2 : 1;
        edge_case c;
        start(&c, bidirectional ? "RNN Relu both ways, lengths 2 1, no initial_h, infinite R"
                                : "RNN without initial_h over an infinite R",
              14, 3, (const int64_t[]){2, 2, 2});
        c.on_ortvk = true;
        c.data[0] = x;
        onnx_model_add_initializer(c.m, "w", ONNX_FLOAT, 3, (const int64_t[]){D, 3, 2}, w, (size_t)D * 6 * 4);
        onnx_model_add_initializer(c.m, "r", ONNX_FLOAT, 3, (const int64_t[]){D, 3, 3}, r, (size_t)D * 9 * 4);
        onnx_model_add_initializer(c.m, "lens", ONNX_INT32, 1, (const int64_t[]){2}, lens, sizeof(lens));
        onnx_node *n = node(&c, "RNN", bidirectional ? 5 : 3, (const char *[]){"x", "w", "r", "", "lens"});
        onnx_node_attr_int(n, "hidden_size", 3);
        if (bidirectional) {
            onnx_node_attr_string(n, "direction", "bidirectional");
            onnx_node_attr_strings(n, "activations", (const char *[]){"Relu", "Relu"}, 2);
        }
        run_case(app, device, &c);
    }
}

/* Ops that combine many values (pools, reductions, Softmax, normalizations) over rows holding NaN and
 * infinities. */
static void combined_specials(ortapp *app, const OrtEpDevice *device)
{
    /* Rows of 4: plain, one NaN, +inf, -inf, both infinities, all -inf, NaN first, a subnormal. */
    static const float rows[8][4] = {
        {1, 2, 3, 4}, {1, NAN, 3, 4}, {1, INFINITY, 3, 4}, {1, -INFINITY, 3, 4}, {INFINITY, -INFINITY, 0, 1},
        {-INFINITY, -INFINITY, -INFINITY, -INFINITY}, {NAN, 1, 2, 3}, {1e-45f, 0, -1e-45f, 1e-40f},
    };
    /* ReduceMax and ReduceMin over a NaN: ORT's CPU EP returns what Eigen's SIMD order makes of it (ReduceMax of
     * {1, NaN, 3, 4} is 3 there); ortvk propagates NaN. Those get rows without NaN. The max pools follow the CPU
     * EP's kernels, NaN included (maxpool_nan). */
    float no_nan[8][4];
    for (int r = 0; r < 8; r++) {
        for (int i = 0; i < 4; i++) no_nan[r][i] = isnan(rows[r][i]) ? 5.0f : rows[r][i];
    }
    no_nan[5][1] = 0.0f;
    no_nan[5][3] = 1.0f;
    int64_t x[4] = {1, 8, 2, 2}, x2[2] = {8, 4};
    static const char *const global[] = {"GlobalMaxPool", "GlobalAveragePool"};
    char name[96];
    for (int k = 0; k < 2; k++) {
        edge_case c;
        snprintf(name, sizeof(name), "%s of rows with NaN and infinities", global[k]);
        start(&c, name, 13, 4, x);
        c.on_ortvk = true;
        c.data[0] = &rows[0][0];
        node(&c, global[k], 1, (const char *[]){"x"});
        run_case(app, device, &c);
    }
    static const char *const pools[] = {"MaxPool", "AveragePool"};
    for (int k = 0; k < 2; k++) {
        edge_case c;
        snprintf(name, sizeof(name), "%s 2x2 of rows with NaN and infinities", pools[k]);
        start(&c, name, 13, 4, x);
        c.on_ortvk = true;
        c.data[0] = &rows[0][0];
        onnx_node_attr_ints(node(&c, pools[k], 1, (const char *[]){"x"}), "kernel_shape", (const int64_t[]){2, 2}, 2);
        run_case(app, device, &c);
    }
    {
        edge_case c;
        int64_t x1[3] = {1, 8, 4};
        start(&c, "MaxPool 1-D 2 of rows with NaN and infinities", 13, 3, x1);
        c.on_ortvk = true;
        c.data[0] = &rows[0][0];
        onnx_node_attr_ints(node(&c, "MaxPool", 1, (const char *[]){"x"}), "kernel_shape", (const int64_t[]){2}, 1);
        run_case(app, device, &c);
    }
    static const char *const reduces[] = {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd",
                                          "ReduceL1", "ReduceL2", "ReduceSumSquare", "ReduceLogSum",
                                          "ReduceLogSumExp"};
    for (size_t k = 0; k < sizeof(reduces) / sizeof(reduces[0]); k++) {
        edge_case c;
        bool extremum = strcmp(reduces[k], "ReduceMax") == 0 || strcmp(reduces[k], "ReduceMin") == 0;
        snprintf(name, sizeof(name), "%s of rows with %sinfinities", reduces[k], extremum ? "" : "NaN and ");
        start(&c, name, 18, 2, x2);
        c.on_ortvk = true;
        c.data[0] = extremum ? &no_nan[0][0] : &rows[0][0];
        const_ints(&c, "axes", 1, (const int64_t[]){1});
        node(&c, reduces[k], 2, (const char *[]){"x", "axes"});
        run_case(app, device, &c);
    }
    static const char *const softmaxes[] = {"Softmax", "LogSoftmax"};
    for (int k = 0; k < 2; k++) {
        edge_case c;
        snprintf(name, sizeof(name), "%s of rows with NaN and infinities", softmaxes[k]);
        start(&c, name, 13, 2, x2);
        c.on_ortvk = true;
        c.data[0] = &rows[0][0];
        node(&c, softmaxes[k], 1, (const char *[]){"x"});
        run_case(app, device, &c);
    }
    {
        edge_case c;
        start(&c, "LayerNormalization of rows with NaN and infinities", 17, 2, x2);
        c.on_ortvk = true;
        c.data[0] = &rows[0][0];
        float ones4[4] = {1, 1, 1, 1};
        onnx_model_add_initializer(c.m, "s", ONNX_FLOAT, 1, (const int64_t[]){4}, ones4, sizeof(ones4));
        node(&c, "LayerNormalization", 2, (const char *[]){"x", "s"});
        run_case(app, device, &c);
    }
    {
        edge_case c;
        start(&c, "MatMul of rows with NaN and infinities", 13, 2, x2);
        second_input(&c, "b", 2, (const int64_t[]){4, 8});
        c.on_ortvk = true;
        c.flushed_inputs = true; /* the matrix products do not take subnormals exactly: inf * 1e-40 is NaN there */
        c.data[0] = &rows[0][0];
        c.data[1] = &rows[0][0];
        node(&c, "MatMul", 2, (const char *[]){"x", "b"});
        run_case(app, device, &c);
    }
}

/* BatchNormalization in the CPU EP's order (x * s + (B - mean * s), s = scale / sqrt(var + epsilon)): values near
 * FLT_MAX whose difference overflows in the spec's order, and var + epsilon = 0 (inf - inf: NaN there). */
static void batchnorm_specials(ortapp *app, const OrtEpDevice *device)
{
    static const struct {
        const char *name;
        float x[8], scale[2], bias[2], mean[2], var[2], epsilon;
    } cases[] = {
        {"BatchNormalization near FLT_MAX", {3e38f, -3e38f, 1, 2, 3e38f, 1e38f, 0, -1}, {0.5f, 0.25f}, {0, 1},
         {-3e38f, 2e38f}, {1, 1}, 1e-5f},
        {"BatchNormalization var + epsilon = 0", {1, 2, 3, 4, 5, 5, 6, -1}, {1, 2}, {0, 1}, {1, 5}, {0, 0}, 0.0f},
    };
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        edge_case c;
        int64_t x[4] = {1, 2, 2, 2}, cdim[1] = {2};
        start(&c, cases[k].name, 15, 4, x);
        c.on_ortvk = true;
        c.data[0] = cases[k].x;
        onnx_model_add_initializer(c.m, "s", ONNX_FLOAT, 1, cdim, cases[k].scale, sizeof(cases[k].scale));
        onnx_model_add_initializer(c.m, "b", ONNX_FLOAT, 1, cdim, cases[k].bias, sizeof(cases[k].bias));
        onnx_model_add_initializer(c.m, "m", ONNX_FLOAT, 1, cdim, cases[k].mean, sizeof(cases[k].mean));
        onnx_model_add_initializer(c.m, "v", ONNX_FLOAT, 1, cdim, cases[k].var, sizeof(cases[k].var));
        onnx_node_attr_float(node(&c, "BatchNormalization", 5, (const char *[]){"x", "s", "b", "m", "v"}), "epsilon",
                             cases[k].epsilon);
        run_case(app, device, &c);
    }
}

/* InstanceNormalization over rows of one value with a tiny epsilon: 1 / sqrt(epsilon) scales x far past the bias,
 * and the CPU EP's folded form x * s + (bias - mean * s) rounds the bias away (0 or 0.5 for a bias of 0.1), where
 * the spec's order gives the bias itself. ortvk computes the CPU EP's form. */
static void instancenorm_specials(ortapp *app, const OrtEpDevice *device)
{
    edge_case c;
    int64_t x[3] = {2, 2, 1}, cdim[1] = {2};
    static const float data[4] = {3, -2, 7, 0.5f}, scale[2] = {1, 2}, bias[2] = {0.1f, -0.3f};
    start(&c, "InstanceNormalization of one value, epsilon 1e-30", 13, 3, x);
    c.on_ortvk = true;
    c.data[0] = data;
    onnx_model_add_initializer(c.m, "s", ONNX_FLOAT, 1, cdim, scale, sizeof(scale));
    onnx_model_add_initializer(c.m, "b", ONNX_FLOAT, 1, cdim, bias, sizeof(bias));
    onnx_node_attr_float(node(&c, "InstanceNormalization", 3, (const char *[]){"x", "s", "b"}), "epsilon", 1e-30f);
    run_case(app, device, &c);
}

/* Max pools over windows of only -inf: the CPU EP's GlobalMaxPool gives -FLT_MAX; its MaxPool's own loops (for
 * dilations and storage_order) -inf on ORT 1.30.0 (they start from the first tap; 1.24.3: -FLT_MAX). */
static void maxpool_minus_inf(ortapp *app, const OrtEpDevice *device)
{
    static const float data[8] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, 1, -FLT_MAX, -INFINITY};
    int64_t x[3] = {1, 2, 4}, x2[4] = {1, 2, 2, 2};
    edge_case c;
    start(&c, "MaxPool 1-D 2 dilation 2 over windows of only -inf", 13, 3, x);
    c.on_ortvk = true;
    c.exact = true;
    c.data[0] = data;
    onnx_node *n = node(&c, "MaxPool", 1, (const char *[]){"x"});
    onnx_node_attr_ints(n, "kernel_shape", (const int64_t[]){2}, 1);
    onnx_node_attr_ints(n, "dilations", (const int64_t[]){2}, 1);
    c.cpu_wrong = "1.24."; /* -FLT_MAX there: ortvk follows 1.30.0 */
    run_case(app, device, &c);
    start(&c, "MaxPool 1-D 2 storage_order 1 over windows of only -inf", 13, 3, x);
    c.on_ortvk = true;
    c.exact = true;
    c.data[0] = data;
    n = node(&c, "MaxPool", 1, (const char *[]){"x"});
    onnx_node_attr_ints(n, "kernel_shape", (const int64_t[]){2}, 1);
    onnx_node_attr_int(n, "storage_order", 1);
    c.cpu_wrong = "1.24.";
    run_case(app, device, &c);
    start(&c, "GlobalMaxPool over only -inf", 13, 4, x2);
    c.on_ortvk = true;
    c.exact = true;
    c.data[0] = data;
    node(&c, "GlobalMaxPool", 1, (const char *[]){"x"});
    run_case(app, device, &c);
}

/* Linear Resize next to NaN and infinities: ORT's CPU EP blends both dims of a 2-D input and H, W of a 4-D one
 * (N, H, W with NHWC scales), a dim of scale 1 too (at its own coordinate, whatever the coordinate transform), and
 * multiplies every neighbour by its weight, 0 included: a NaN or infinity spreads to the pixel before it (0 * NaN,
 * 0 * inf). With every scale 1 it copies. */
static void resize_specials(ortapp *app, const OrtEpDevice *device)
{
    static const float data[12] = {1, NAN, 3, 4, 5, INFINITY, -2, 0.5f, -INFINITY, 7, 8, 9};
    static const struct {
        const char *name;
        int rank;
        int64_t x[4];
        float scales[4];
        const char *coord;
    } cases[] = {
        {"Resize linear [1,1,2,1] over NaN and infinities", 4, {1, 2, 2, 3}, {1, 1, 2, 1}, NULL},
        {"Resize linear [1,1,1,2] align_corners over NaN", 4, {1, 2, 3, 2}, {1, 1, 1, 2}, "align_corners"},
        {"Resize linear NHWC [1,2,1,1] over NaN", 4, {1, 3, 2, 2}, {1, 2, 1, 1}, "asymmetric"},
        {"Resize linear 2-D [2,1] over NaN and infinities", 2, {4, 3}, {2, 1, 0, 0}, NULL},
        {"Resize linear 3-D [1,1,2] over NaN and infinities", 3, {2, 2, 3}, {1, 1, 2, 0}, "pytorch_half_pixel"},
        {"Resize linear [1,1,2,1] tf_half_pixel_for_nn over NaN", 4, {1, 2, 2, 3}, {1, 1, 2, 1},
         "tf_half_pixel_for_nn"},
        {"Resize linear scales 1 over NaN (a copy)", 4, {1, 2, 2, 3}, {1, 1, 1, 1}, NULL},
    };
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        edge_case c;
        int64_t n[1] = {cases[k].rank};
        start(&c, cases[k].name, 13, cases[k].rank, cases[k].x);
        c.on_ortvk = true;
        c.exact = true;
        c.data[0] = data;
        onnx_model_add_initializer(c.m, "scales", ONNX_FLOAT, 1, n, cases[k].scales,
                                   (size_t)cases[k].rank * sizeof(float));
        onnx_node *r = node(&c, "Resize", 3, (const char *[]){"x", "", "scales"});
        onnx_node_attr_string(r, "mode", "linear");
        if (cases[k].coord) onnx_node_attr_string(r, "coordinate_transformation_mode", cases[k].coord);
        run_case(app, device, &c);
    }
    edge_case c;
    int64_t x[4] = {1, 2, 2, 3}, four[1] = {4};
    static const float scales[4] = {1, 1, 1, 2};
    start(&c, "Upsample linear [1,1,1,2] over NaN and infinities", 9, 4, x);
    c.on_ortvk = true;
    c.exact = true;
    c.data[0] = data;
    onnx_model_add_initializer(c.m, "scales", ONNX_FLOAT, 1, four, scales, sizeof(scales));
    onnx_node_attr_string(node(&c, "Upsample", 2, (const char *[]){"x", "scales"}), "mode", "linear");
    run_case(app, device, &c);
    /* Scales ORT's CPU EP rejects (ScalesValidation): the run fails on ortvk too, naming them. */
    static const struct {
        const char *name, *op, *mode, *message;
        float scales[4];
    } rejected[] = {
        {"Upsample nearest by 0.5 (below 1)", "Upsample", "nearest", "below 1", {1, 1, 0.5f, 2}},
        {"Resize linear of rank 4, outer scales 2 and 1", "Resize", "linear", "linear mode", {2, 1, 1, 2}},
    };
    for (size_t k = 0; k < sizeof(rejected) / sizeof(rejected[0]); k++) {
        edge_case e;
        start(&e, rejected[k].name, rejected[k].op[0] == 'U' ? 9 : 13, 4, x);
        e.cpu_rejects = true;
        e.message = rejected[k].message;
        onnx_model_add_initializer(e.m, "scales", ONNX_FLOAT, 1, four, rejected[k].scales, sizeof(scales));
        onnx_node *r = rejected[k].op[0] == 'U' ? node(&e, "Upsample", 2, (const char *[]){"x", "scales"})
                                               : node(&e, "Resize", 3, (const char *[]){"x", "", "scales"});
        onnx_node_attr_string(r, "mode", rejected[k].mode);
        run_case(app, device, &e);
    }
    /* Sizes with a 0: the CPU EP makes them a scale of 0 and fails the run on it; ortvk answered an empty tensor
     * (fuzz seed 155 case 5895). */
    edge_case z;
    start(&z, "Resize nearest to sizes [1, 2, 0, 4] (a scale of 0)", 19, 4, x);
    z.fails = true;
    z.message = "sizes[2] = 0";
    const int64_t sizes[4] = {1, 2, 0, 4};
    onnx_model_add_initializer(z.m, "sizes", ONNX_INT64, 1, four, sizes, sizeof(sizes));
    node(&z, "Resize", 4, (const char *[]){"x", "", "", "sizes"});
    run_case(app, device, &z);
}

/* Pools whose pads are as large as the kernel: ORT's CPU EP rejects them ("Pad should be smaller than kernel");
 * left to it, so ortvk's session fails the same way. */
static void pool_pads(ortapp *app, const OrtEpDevice *device)
{
    static const char *const ops[] = {"MaxPool", "AveragePool"};
    for (int k = 0; k < 2; k++) {
        edge_case c;
        char name[96];
        int64_t x[4] = {1, 2, 6, 6}, kernel[2] = {2, 2}, pads[4] = {0, 2, 0, 1};
        snprintf(name, sizeof(name), "%s pads as large as the kernel", ops[k]);
        start(&c, name, 13, 4, x);
        c.cpu_rejects = true;
        c.message = "Pad should be smaller than kernel";
        onnx_node *n = node(&c, ops[k], 1, (const char *[]){"x"});
        onnx_node_attr_ints(n, "kernel_shape", kernel, 2);
        onnx_node_attr_ints(n, "pads", pads, 4);
        run_case(app, device, &c);
    }
}

/* Attributes and constants ORT's CPU EP rejects: Clip-6 with min above max (at session creation), Dropout with a
 * ratio outside [0, 1) (in the run). ortvk leaves both to it, so they fail the same way. */
static void cpu_rejections(ortapp *app, const OrtEpDevice *device)
{
    int64_t x[2] = {2, 3};
    {
        edge_case c;
        start(&c, "Clip-6 min 2 above max 1", 6, 2, x);
        c.cpu_rejects = true;
        c.message = "min";
        onnx_node *n = node(&c, "Clip", 1, (const char *[]){"x"});
        onnx_node_attr_float(n, "min", 2.0f);
        onnx_node_attr_float(n, "max", 1.0f);
        run_case(app, device, &c);
    }
    {
        /* saturate 0 outside float8 targets: the CPU EP rejects the attribute; ortvk leaves Cast to it */
        edge_case c;
        start(&c, "Cast float to float saturate 0", 21, 2, x);
        c.cpu_rejects = true;
        c.message = "saturate";
        onnx_node *n = node(&c, "Cast", 1, (const char *[]){"x"});
        onnx_node_attr_int(n, "to", 1);
        onnx_node_attr_int(n, "saturate", 0);
        run_case(app, device, &c);
    }
    static const float ratios[] = {1.5f, -0.25f, NAN};
    for (int k = 0; k < 3; k++) {
        edge_case c;
        char name[96];
        snprintf(name, sizeof(name), "Dropout ratio %g", (double)ratios[k]);
        start(&c, name, 13, 2, x);
        c.refused = true;
        onnx_model_add_initializer(c.m, "ratio", ONNX_FLOAT, 0, NULL, &ratios[k], sizeof(float));
        node(&c, "Dropout", 2, (const char *[]){"x", "ratio"});
        run_case(app, device, &c);
    }
}

/* Max pools over NaN and windows of only -inf, one case per kernel the CPU EP picks (see pool_max_kind): MLAS's
 * vector kernel (2-D with padded columns, with IW % 4 columns that take std::max; 3-D), its generic one (1-D,
 * kernels past 32, strides past 2), its global one (a window that is the whole input; GlobalMaxPool), and ORT's own
 * loops (dilations). Each treats NaN its own way; ortvk must agree bit for bit. */
static void maxpool_nan(ortapp *app, const OrtEpDevice *device)
{
    static float data[256];
    for (int k = 0; k < 256; k++) {
        data[k] = (float)(k * 7 % 13) - 6.0f;
        if (k % 5 == 1 || (k >= 12 && k < 24)) data[k] = -INFINITY;
        if (k % 11 == 3 || k % 17 == 9) data[k] = NAN;
    }
    static const struct {
        const char *name;
        int rank;
        int64_t x[5], kernel[3], pads[6], strides[3], dilations[3];
    } cases[] = {
        {"MaxPool 2x2 pads [0,1,0,1] over NaN and -inf (vector)", 4, {1, 2, 5, 6}, {2, 2}, {0, 1, 0, 1}, {1, 1},
         {1, 1}},
        {"MaxPool 3x2 stride 2 over NaN and -inf (vector)", 4, {1, 1, 7, 9}, {3, 2}, {1, 0, 1, 1}, {1, 2}, {1, 1}},
        {"MaxPool 2x2x2 over NaN and -inf (3-D vector)", 5, {1, 1, 3, 4, 6}, {2, 2, 2}, {0, 1, 0, 0, 0, 1},
         {1, 1, 1}, {1, 1, 1}},
        {"MaxPool 1-D 3 over NaN and -inf (generic)", 3, {2, 2, 16}, {3}, {1, 1}, {1}, {1}},
        {"MaxPool 33x1 over NaN and -inf (generic)", 4, {1, 1, 34, 3}, {33, 1}, {0, 0, 0, 0}, {1, 1}, {1, 1}},
        {"MaxPool 2x2 stride 3 over NaN and -inf (generic)", 4, {1, 2, 6, 7}, {2, 2}, {0, 0, 0, 0}, {1, 3}, {1, 1}},
        {"MaxPool 2x2 dilations 2 over NaN and -inf (own loops)", 4, {1, 2, 5, 6}, {2, 2}, {1, 1, 0, 0}, {1, 1},
         {2, 2}},
        {"MaxPool kernel = input 3x5 over NaN and -inf (global)", 4, {2, 3, 3, 5}, {3, 5}, {0, 0, 0, 0}, {1, 1},
         {1, 1}},
        {"GlobalMaxPool 3x7 over NaN and -inf (global)", 4, {2, 3, 3, 7}, {0}, {0}, {0}, {0}},
        {"GlobalMaxPool 1-D 9 over NaN and -inf (global)", 3, {4, 3, 9}, {0}, {0}, {0}, {0}},
    };
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        edge_case c;
        int n = cases[k].rank - 2;
        bool global = cases[k].kernel[0] == 0;
        start(&c, cases[k].name, 13, cases[k].rank, cases[k].x);
        c.on_ortvk = true;
        c.exact = true;
        c.data[0] = data;
        onnx_node *p = node(&c, global ? "GlobalMaxPool" : "MaxPool", 1, (const char *[]){"x"});
        if (!global) {
            onnx_node_attr_ints(p, "kernel_shape", cases[k].kernel, n);
            onnx_node_attr_ints(p, "pads", cases[k].pads, 2 * n);
            onnx_node_attr_ints(p, "strides", cases[k].strides, n);
            onnx_node_attr_ints(p, "dilations", cases[k].dilations, n);
        }
        if (cases[k].dilations[0] > 1) c.cpu_wrong = "1.24."; /* -FLT_MAX for windows of only -inf there */
        run_case(app, device, &c);
    }
}

/* GlobalAveragePool over terms whose sum overflows in one order and not in another: the CPU EP (MLAS's global
 * kernel) sums 4 lanes of every fourth value, folds them (2 into 0, 3 into 1, then 1 into 0) and adds the last
 * n % 4 in order; so does ortvk ({FLT_MAX, FLT_MAX, -FLT_MAX, -FLT_MAX, ...}: finite there, inf in order). The
 * long planes (groups of 4 alternating {M, M, -M, -M} and {-M, -M, M, M}: each lane's running sum M, 0, M, ...)
 * take the kernel's blocks of 16 groups, as vec4 texels (120: a multiple of 4) and as single ones (150). These pin
 * the CPU form (ORTVK_KERNEL_FORMS=cpu, on any device): a GPU's form sums a plane in its own order, a known
 * difference for terms of 1e19 and more (tests/fuzz/diff_known.c). */
static void global_average_huge(ortapp *app, const OrtEpDevice *device)
{
    bool gpu = !kc_device_is_cpu(app, device);
    static const float data[18] = {FLT_MAX, FLT_MAX, -FLT_MAX, -FLT_MAX, 1e20f, -1e20f, 2, 3, 4,
                                   3e38f, 1, 3e38f, 1, -3e38f, 2, -3e38f, 2, 1e30f};
    static float alternating[2][300];
    for (int i = 0; i < 300; i++) {
        int j = i % 150; /* in a plane of 150 */
        alternating[0][i] = i < 112 ? ((i / 2 + i / 4) % 2 ? -FLT_MAX : FLT_MAX) : (float)i; /* planes of 120 */
        alternating[1][i] = j < 144 ? ((j / 2 + j / 4) % 2 ? -FLT_MAX : FLT_MAX) : (float)j;
    }
    static const struct {
        const char *name;
        int rank;
        int64_t x[5];
        const float *data;
    } cases[] = {
        {"GlobalAveragePool 3x3 over FLT_MAX terms", 4, {2, 1, 3, 3, 0}, data},
        {"GlobalAveragePool 1-D 9 over FLT_MAX terms", 3, {1, 2, 9, 0, 0}, data},
        {"GlobalAveragePool 3-D 1x2x9 over FLT_MAX terms", 5, {1, 1, 1, 2, 9}, data},
        {"GlobalAveragePool 3x40 over FLT_MAX terms (vec4)", 4, {1, 1, 3, 40, 0}, alternating[0]},
        {"GlobalAveragePool 2x150 over FLT_MAX terms", 3, {1, 2, 150, 0, 0}, alternating[1]},
    };
    char *forms = getenv("ORTVK_KERNEL_FORMS") ? strdup(getenv("ORTVK_KERNEL_FORMS")) : NULL; /* restored below */
    setenv("ORTVK_KERNEL_FORMS", "cpu", 1);
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        edge_case c;
        start(&c, cases[k].name, 13, cases[k].rank, cases[k].x);
        c.on_ortvk = true;
        /* Exact on lavapipe; a GPU's sum / n is within Vulkan's 2.5 ULP, so the means compare within tolerance
         * (an order that overflows gives inf or NaN, which the tolerance does not take). */
        c.exact = !gpu;
        c.data[0] = cases[k].data;
        node(&c, "GlobalAveragePool", 1, (const char *[]){"x"});
        run_case(app, device, &c);
    }
    if (forms != NULL) setenv("ORTVK_KERNEL_FORMS", forms, 1);
    else unsetenv("ORTVK_KERNEL_FORMS");
    free(forms);
}

/* AveragePool over terms whose sum overflows in one order and not in another: up to opset 18 the CPU EP runs
 * MLAS's kernels (the vector one sums each column down the rows, then across: (M - M) + (M - M) = 0), from opset 19
 * its own loops (in the taps' order: M + M = inf); ortvk sums in the order of the kernel that runs the node. */
static void average_pool_huge(ortapp *app, const OrtEpDevice *device)
{
    static const float data[16] = {FLT_MAX, FLT_MAX, 1, 2, -FLT_MAX, -FLT_MAX, 3, 4,
                                   3e38f, 1e20f, -3e38f, 1, -3e38f, -1e20f, 3e38f, 2};
    static const struct {
        const char *name;
        int opset, rank;
        int64_t x[5], kernel[3];
    } cases[] = {
        {"AveragePool 2x2 opset 13 over FLT_MAX terms (vector)", 13, 4, {1, 2, 2, 4}, {2, 2}},
        {"AveragePool 2x2 opset 19 over FLT_MAX terms (own loops)", 19, 4, {1, 2, 2, 4}, {2, 2}},
        {"AveragePool 2x2x2 opset 13 over FLT_MAX terms (3-D vector)", 13, 5, {1, 1, 2, 2, 4}, {2, 2, 2}},
        {"AveragePool 1-D 2 opset 13 over FLT_MAX terms (generic)", 13, 3, {2, 1, 8}, {2}},
    };
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        edge_case c;
        start(&c, cases[k].name, cases[k].opset, cases[k].rank, cases[k].x);
        c.on_ortvk = true;
        c.exact = true;
        c.data[0] = data;
        onnx_node_attr_ints(node(&c, "AveragePool", 1, (const char *[]){"x"}), "kernel_shape", cases[k].kernel,
                            cases[k].rank - 2);
        run_case(app, device, &c);
    }
}

/* LayerNormalization over rows of huge values: ORT 1.30.0's CPU EP gives a constant row of 1e20 or FLT_MAX the bias
 * (variance 0), and a row whose squares overflow but whose mean does not 0 · scale + bias. ortvk's running mean and
 * variance (Welford's update, in order, in float) do the same; the spec's two passes overflowed the sum (NaN).
 * ORT 1.24.3 computes E[x²] − E[x]² in float, which gives NaN for the rows of 1e20 there. */
static void layernorm_specials(ortapp *app, const OrtEpDevice *device)
{
    static const struct {
        const char *name;
        float x[6];
        const char *cpu_wrong;
    } cases[] = {
        {"LayerNormalization of rows of 1e20 and -3e19", {1e20f, 1e20f, 1e20f, -3e19f, -3e19f, -3e19f}, "1.24."},
        {"LayerNormalization of rows of FLT_MAX and 2e19", {FLT_MAX, FLT_MAX, FLT_MAX, 2e19f, 2e19f, -2e19f},
         "1.24."},
        {"LayerNormalization of constant rows 0.1 and -7", {0.1f, 0.1f, 0.1f, -7, -7, -7}, NULL},
        {"LayerNormalization of rows of 1e20 and 1", {1e20f, 1, -1e20f, 1, 1e19f, 2}, NULL},
        {"LayerNormalization of rows of 1e30 and 3e38", {1e30f, -1e30f, 3e-38f, 3e38f, 3e38f, 1}, "1.24."},
    };
    static const float scale[3] = {1, 2, -0.5f}, bias[3] = {0.25f, -1.5f, 3};
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        edge_case c;
        int64_t x[2] = {2, 3}, three[1] = {3};
        start(&c, cases[k].name, 17, 2, x);
        c.on_ortvk = true;
        c.data[0] = cases[k].x;
        c.cpu_wrong = cases[k].cpu_wrong;
        onnx_model_add_initializer(c.m, "s", ONNX_FLOAT, 1, three, scale, sizeof(scale));
        onnx_model_add_initializer(c.m, "b", ONNX_FLOAT, 1, three, bias, sizeof(bias));
        onnx_node_attr_float(node(&c, "LayerNormalization", 3, (const char *[]){"x", "s", "b"}), "epsilon", 1e-5f);
        run_case(app, device, &c);
    }
}

/* Conv with weights that are graph inputs (not packed at Compile): the CPU EP's im2col multiplies padded taps (0)
 * by the weight, so an infinite weight over the padding gives NaN there. */
static void conv_padded_infinite_weight(ortapp *app, const OrtEpDevice *device)
{
    static const float xd[6] = {1, 2, 3, 4, 5, 6}, wd[6] = {INFINITY, 1, 1, 1, 1, -INFINITY};
    edge_case c;
    int64_t x[4] = {1, 1, 2, 3};
    start(&c, "Conv 2x3 pads 1 of an infinite weight input", 13, 4, x);
    c.on_ortvk = true;
    c.exact = true;
    c.data[0] = xd;
    second_input(&c, "w", 4, (const int64_t[]){1, 1, 2, 3});
    c.data[1] = wd;
    onnx_node_attr_ints(node(&c, "Conv", 2, (const char *[]){"x", "w"}), "pads", (const int64_t[]){1, 1, 1, 1}, 4);
    run_case(app, device, &c);
}

/* ArgMax and ArgMin where ORT's CPU EP gives answers of its own: ties (the first index, or the last with
 * select_last_index), NaN (never taken, kept when first; in a rank-1 input without select_last_index Eigen's first
 * NaN wins), -0 and +0 (equal), infinities; keepdims and select_last_index of other values than 0 and 1 (keepdims
 * counts only as 1, select_last_index as anything but 0); empty inputs and empty axes. */
static void arg_case(edge_case *c, const char *name, int opset, int rank, const int64_t *dims, const float *data)
{
    start(c, name, opset, rank, dims);
    typed_output(c, opset, ONNX_INT64);
    c->data[0] = data;
}

static void arg_extremes(ortapp *app, const OrtEpDevice *device)
{
    /* Rows of 4: ties, a NaN after the first, NaN first, -0 and +0, infinities, all -inf, NaN last, subnormals. */
    static const float rows[8][4] = {
        {3, 1, 3, 3},           {1, NAN, 4, 4},       {NAN, 1, 2, 3},    {-0.0f, 0.0f, -0.0f, 0.0f},
        {-INFINITY, INFINITY, 1, INFINITY}, {-INFINITY, -INFINITY, -INFINITY, -INFINITY}, {1, 2, 3, NAN},
        {1e-45f, 0, -1e-45f, 1e-45f},
    };
    static const char *const ops[] = {"ArgMax", "ArgMin"};
    static const int64_t values[] = {2, -1, 2147483648LL};
    char name[96];
    for (int k = 0; k < 2; k++) {
        for (int last = 0; last < 2; last++) {
            /* [8,4] over each axis (the CPU EP's loop), and each row as a rank-1 input (Eigen's). */
            for (int axis = -2; axis < 2; axis++) {
                edge_case c;
                snprintf(name, sizeof(name), "%s of [8,4] axis %d%s", ops[k], axis, last ? " last index" : "");
                arg_case(&c, name, 13, 2, (const int64_t[]){8, 4}, &rows[0][0]);
                c.on_ortvk = true;
                onnx_node *n = node(&c, ops[k], 1, (const char *[]){"x"});
                onnx_node_attr_int(n, "axis", axis);
                onnx_node_attr_int(n, "select_last_index", last);
                run_case(app, device, &c);
            }
            for (int r = 0; r < 8; r++) {
                edge_case c;
                snprintf(name, sizeof(name), "%s of row %d as [4]%s", ops[k], r, last ? " last index" : "");
                arg_case(&c, name, 13, 1, (const int64_t[]){4}, rows[r]);
                c.on_ortvk = true;
                onnx_node_attr_int(node(&c, ops[k], 1, (const char *[]){"x"}), "select_last_index", last);
                run_case(app, device, &c);
            }
        }
        for (int v = 0; v < 3; v++) {
            edge_case c;
            snprintf(name, sizeof(name), "%s keepdims %lld", ops[k], (long long)values[v]);
            arg_case(&c, name, 13, 2, (const int64_t[]){8, 4}, &rows[0][0]);
            c.on_ortvk = true;
            onnx_node *n = node(&c, ops[k], 1, (const char *[]){"x"});
            onnx_node_attr_int(n, "axis", 1);
            onnx_node_attr_int(n, "keepdims", values[v]);
            run_case(app, device, &c);
            snprintf(name, sizeof(name), "%s select_last_index %lld", ops[k], (long long)values[v]);
            arg_case(&c, name, 12, 2, (const int64_t[]){8, 4}, &rows[0][0]);
            c.on_ortvk = true;
            n = node(&c, ops[k], 1, (const char *[]){"x"});
            onnx_node_attr_int(n, "axis", 1);
            onnx_node_attr_int(n, "select_last_index", values[v]);
            run_case(app, device, &c);
        }
    }
    /* Empty inputs: an empty axis with a non-empty output fails on the CPU EP; an empty output is fine; with an
     * empty input the CPU EP compares the axis with the dim indices as given (a negative one keeps every dim). */
    static const struct {
        const char *name, *op;
        int64_t dims[2], axis, keepdims;
    } empty[] = {
        {"ArgMax of [3,0] axis 1", "ArgMax", {3, 0}, 1, 1},
        {"ArgMin of [0,3] axis 0 keepdims 0", "ArgMin", {0, 3}, 0, 0},
        {"ArgMax of [3,0] axis 0", "ArgMax", {3, 0}, 0, 1},
        {"ArgMin of [0,3] axis -1 keepdims 0", "ArgMin", {0, 3}, -1, 0},
        {"ArgMax of [0,0] axis -2", "ArgMax", {0, 0}, -2, 1},
    };
    for (size_t i = 0; i < sizeof(empty) / sizeof(empty[0]); i++) {
        edge_case c;
        arg_case(&c, empty[i].name, 13, 2, empty[i].dims, NULL);
        c.on_ortvk = true;
        onnx_node *n = node(&c, empty[i].op, 1, (const char *[]){"x"});
        onnx_node_attr_int(n, "axis", empty[i].axis);
        onnx_node_attr_int(n, "keepdims", empty[i].keepdims);
        run_case(app, device, &c);
    }
    /* Axes past lavapipe's loop cap (about 65535 blocks of 16 in one invocation): the default values repeat every
     * 11, so the last index of the extreme lies at the end, where a loop cut short would not reach. */
    static const struct {
        const char *name, *op;
        int rank;
        int64_t dims[2];
    } longs[] = {
        {"ArgMax of [70000] last index", "ArgMax", 1, {70000}},
        {"ArgMin over rows of 1200000 last index", "ArgMin", 2, {2, 1200000}},
        {"ArgMax over rows of 1200000 last index", "ArgMax", 2, {2, 1200000}},
    };
    for (size_t i = 0; i < sizeof(longs) / sizeof(longs[0]); i++) {
        edge_case c;
        arg_case(&c, longs[i].name, 13, longs[i].rank, longs[i].dims, NULL);
        c.on_ortvk = true;
        onnx_node *n = node(&c, longs[i].op, 1, (const char *[]){"x"});
        onnx_node_attr_int(n, "axis", -1);
        onnx_node_attr_int(n, "select_last_index", 1);
        run_case(app, device, &c);
    }
    {
        /* Opset 7's schema does not check the axis: the CPU EP runs an empty input with axis 5; ortvk refuses an
         * axis out of range for the known rank. */
        edge_case c;
        arg_case(&c, "ArgMax-7 of [0,2] axis 5", 7, 2, (const int64_t[]){0, 2}, NULL);
        c.refused = true;
        onnx_node_attr_int(node(&c, "ArgMax", 1, (const char *[]){"x"}), "axis", 5);
        run_case(app, device, &c);
    }
}

/* A two-input MatMul or three-input Gemm whose inputs declare fixed dims (so GetCapability sees them). */
static onnx_node *fixed_gemm(edge_case *c, const char *name, const char *op, int n_in, const int64_t (*dims)[2])
{
    static const char *const names[] = {"x", "b", "c"};
    memset(c, 0, sizeof(*c));
    c->name = name;
    c->m = onnx_model_new(13);
    c->n_inputs = n_in;
    for (int i = 0; i < n_in; i++) {
        c->inputs[i] = names[i];
        c->rank[i] = 2;
        memcpy(c->dims[i], dims[i], sizeof(dims[i]));
        onnx_model_add_input(c->m, names[i], ONNX_FLOAT, 2, dims[i]);
    }
    onnx_model_add_output(c->m, "y", ONNX_FLOAT, -1, NULL);
    return node(c, op, n_in, names);
}

/* MatMul and Gemm where the CPU EP reads its inputs its own way. K = 0 with a non-empty output: the CPU EP leaves
 * MatMul's output uninitialised and gives Gemm's C unscaled (beta ignored); ortvk refuses the node where K is known
 * in GetCapability and fails the run otherwise (empties() has the run-time cases). Gemm with beta = 0 never reads
 * C (no 0 * inf = NaN), and an empty C must still broadcast to (M, N). */
static void gemm_edges(ortapp *app, const OrtEpDevice *device)
{
    edge_case c;
    fixed_gemm(&c, "MatMul [2,0] x [0,3] (fixed dims)", "MatMul", 2, (const int64_t[][2]){{2, 0}, {0, 3}});
    c.refused = true;
    run_case(app, device, &c);
    onnx_node_attr_float(fixed_gemm(&c, "Gemm [2,0] x [0,3] + C[2,3] (fixed dims)", "Gemm", 3,
                                    (const int64_t[][2]){{2, 0}, {0, 3}, {2, 3}}), "beta", 2.0f);
    c.refused = true;
    run_case(app, device, &c);
    static const float cinf[2] = {INFINITY, NAN};
    onnx_node_attr_float(fixed_gemm(&c, "Gemm beta 0, C = [inf, NaN] (never read)", "Gemm", 3,
                                    (const int64_t[][2]){{2, 3}, {3, 2}, {1, 2}}), "beta", 0.0f);
    c.data[2] = cinf, c.on_ortvk = true;
    run_case(app, device, &c);
    fixed_gemm(&c, "Gemm [3,4] x [4,0] + empty C[5,0]", "Gemm", 3, (const int64_t[][2]){{3, 4}, {4, 0}, {5, 0}});
    run_case(app, device, &c);
}

/* For the checks ORT's CPU EP gained after 1.24 (ConvTranspose's output_shape, Pad's effective extent, Tile's 4 GiB):
 * ortvk fails such runs with every ORT version, so with 1.24 the CPU EP is not asked (it answers; for Tile, 6 GiB). */
static void newer_cpu_check(const ortapp *app, edge_case *c)
{
    c->fails = strncmp(app->version, "1.24", 4) == 0;
}

/* Models ORT's CPU EP fails at run time that ortvk answered (the fuzzer's "lenient" findings): ortvk must fail too,
 * or leave the node to the CPU EP. */
static void cpu_run_rejections(ortapp *app, const OrtEpDevice *device)
{
    edge_case c;
    const int64_t x4[4] = {1, 1, 5, 6}, w4[4] = {1, 1, 2, 2}, one = 1, two = 2;
    onnx_node *n = conv_case(&c, "Conv SAME_UPPER with dilations 2", "Conv", 4, x4, w4);
    onnx_node_attr_string(n, "auto_pad", "SAME_UPPER");
    onnx_node_attr_ints(n, "dilations", (const int64_t[]){2, 2}, 2);
    run_case(app, device, &c);
    const int64_t x3[3] = {1, 1, 5}, w3[3] = {1, 2, 2};
    n = conv_case(&c, "ConvTranspose output_padding 1, stride 1, dilation 2", "ConvTranspose", 3, x3, w3);
    onnx_node_attr_ints(n, "dilations", &two, 1);
    onnx_node_attr_ints(n, "output_padding", &one, 1);
    run_case(app, device, &c);
    n = conv_case(&c, "ConvTranspose output_shape 10 from 1, stride 2", "ConvTranspose", 3,
                  (const int64_t[]){1, 1, 1}, w3);
    onnx_node_attr_ints(n, "strides", &two, 1);
    onnx_node_attr_ints(n, "output_shape", (const int64_t[]){10}, 1);
    newer_cpu_check(app, &c);
    run_case(app, device, &c);
    n = conv_case(&c, "ConvTranspose SAME_UPPER over [1,1,0,3]", "ConvTranspose", 4, (const int64_t[]){1, 1, 0, 3},
                  (const int64_t[]){1, 2, 1, 3});
    onnx_node_attr_string(n, "auto_pad", "SAME_UPPER");
    run_case(app, device, &c);
    start(&c, "Pad reflect 3 over [4] less 1 (extent 3)", 13, 2, (const int64_t[]){4, 5});
    const_ints(&c, "pads", 4, (const int64_t[]){3, 0, -1, 2});
    onnx_node_attr_string(node(&c, "Pad", 2, (const char *[]){"x", "pads"}), "mode", "reflect");
    newer_cpu_check(app, &c);
    run_case(app, device, &c);
    start(&c, "Pad edge over [1] less 1 (extent 0)", 13, 2, (const int64_t[]){1, 1});
    const_ints(&c, "pads", 4, (const int64_t[]){1, 2, 2, -1});
    onnx_node_attr_string(node(&c, "Pad", 2, (const char *[]){"x", "pads"}), "mode", "edge");
    run_case(app, device, &c);
    start(&c, "Pad edge of [3,1] by [3,0,1,-1] (extent 0, empty)", 13, 2, (const int64_t[]){3, 1});
    const_ints(&c, "pads", 4, (const int64_t[]){3, 0, 1, -1});
    onnx_node_attr_string(node(&c, "Pad", 2, (const char *[]){"x", "pads"}), "mode", "edge");
    newer_cpu_check(app, &c);
    run_case(app, device, &c);
    start(&c, "Pad edge of [1] by [-1,0] (extent 0, no positive pad)", 13, 1, (const int64_t[]){1});
    const_ints(&c, "pads", 2, (const int64_t[]){-1, 0});
    onnx_node_attr_string(node(&c, "Pad", 2, (const char *[]){"x", "pads"}), "mode", "edge");
    newer_cpu_check(app, &c);
    run_case(app, device, &c);
    start(&c, "Tile [1,3] by [0,2^32+1] (past 4 GiB, empty)", 13, 2, (const int64_t[]){1, 3});
    const_ints(&c, "repeats", 2, (const int64_t[]){0, (INT64_C(1) << 32) + 1});
    node(&c, "Tile", 2, (const char *[]){"x", "repeats"});
    newer_cpu_check(app, &c);
    run_case(app, device, &c);
    /* x declared with its fixed dims: ORT's shape inference then takes the 0 from x (no overflow) and the run decides */
    const int64_t x_empty[4] = {1, 0, 5, 1};
    start(&c, "Reshape [1,0,5,1] to [1,0,5,2^62] (empty, 5 * 2^62 past int64)", 14, 4, x_empty);
    onnx_model_free(c.m);
    c.m = onnx_model_new(14);
    onnx_model_add_input(c.m, "x", ONNX_FLOAT, 4, x_empty);
    onnx_model_add_output(c.m, "y", ONNX_FLOAT, -1, NULL);
    const_ints(&c, "shape", 4, (const int64_t[]){1, 0, 5, INT64_C(1) << 62});
    node(&c, "Reshape", 2, (const char *[]){"x", "shape"});
    newer_cpu_check(app, &c);
    c.message = "too many elements";
    run_case(app, device, &c);
    /* MatMul with a 0 against a 1 among the batch dims (a 1-D B is padded behind M, so M counts among them): both
     * runtimes' CPU EP fail those; an empty batch against an empty batch, or any batch against B's batch dims of 1,
     * gives an empty output; with K = 0 (and A's rank at least B's) the CPU EP drops B's batch dims, whatever they
     * are (fuzz_diff seed 195) */
    static const struct {
        const char *name;
        int ra, rb;
        int64_t a[4], b[4];
    } matmuls[] = {
        {"MatMul [0,3] by [3]", 2, 1, {0, 3}, {3}},
        {"MatMul [2,0,3] by [3]", 3, 1, {2, 0, 3}, {3}},
        {"MatMul [0,2,3] by [3]", 3, 1, {0, 2, 3}, {3}},
        {"MatMul [2,0,3,4] by [2,1,4,5]", 4, 4, {2, 0, 3, 4}, {2, 1, 4, 5}},
        {"MatMul [0,3,4] by [1,4,5]", 3, 3, {0, 3, 4}, {1, 4, 5}},
        {"MatMul [3] by [0,3,4]", 1, 3, {3}, {0, 3, 4}},
        {"MatMul [1,3,4] by [0,4,5]", 3, 3, {1, 3, 4}, {0, 4, 5}},
        {"MatMul [0,3,4] by [0,4,5]", 3, 3, {0, 3, 4}, {0, 4, 5}},
        {"MatMul [2,3] by [0,3,4]", 2, 3, {2, 3}, {0, 3, 4}},
        {"MatMul [1,0,0] by [2,0,4] (K = 0)", 3, 3, {1, 0, 0}, {2, 0, 4}},
        {"MatMul [3,0,0] by [2,0,4] (K = 0)", 3, 3, {3, 0, 0}, {2, 0, 4}},
        {"MatMul [1,1,5,0] by [2,1,0,0] (K = 0)", 4, 4, {1, 1, 5, 0}, {2, 1, 0, 0}},
        {"MatMul [1,3,1,0] by [2,3,0,0] (K = 0)", 4, 4, {1, 3, 1, 0}, {2, 3, 0, 0}},
    };
    for (size_t k = 0; k < sizeof(matmuls) / sizeof(matmuls[0]); k++) {
        start(&c, matmuls[k].name, 13, matmuls[k].ra, matmuls[k].a);
        second_input(&c, "b", matmuls[k].rb, matmuls[k].b);
        node(&c, "MatMul", 2, (const char *[]){"x", "b"});
        run_case(app, device, &c);
    }
    start(&c, "Tile [2,3] by [2^29,1] (4 GiB + 2 GiB)", 13, 2, (const int64_t[]){2, 3});
    const_ints(&c, "repeats", 2, (const int64_t[]){INT64_C(1) << 29, 1});
    node(&c, "Tile", 2, (const char *[]){"x", "repeats"});
    newer_cpu_check(app, &c);
    run_case(app, device, &c);
}

/* Under ctest's *_flushing tests (tests/support/flush_subnormals.c; they set ORTVK_TEST_FLUSHING=1): the proof that
 * the device really flushes float32 subnormals, without which their cases would prove nothing of the exact forms.
 * ortvk leaves x + x to the device's arithmetic: for x = 1e-40 it must give 0 there (2e-40 on the CPU EP). */
static void flushing_proof(ortapp *app, const OrtEpDevice *device)
{
    const OrtApi *api = app->api;
    edge_case c;
    start(&c, "flushing proof: 1e-40 + 1e-40", 13, 1, (const int64_t[]){4});
    node(&c, "Add", 2, (const char *[]){"x", "x"});
    uint8_t *model = NULL;
    size_t len = 0;
    if (!test_model_serialize(c.m, c.name, &model, &len)) return;
    OrtStatus *error = NULL;
    OrtSession *s = kc_session(app, device, model, len, true, false, &error);
    free(model);
    if (!CHECK(s != NULL, "%s: session: %s", c.name, error ? api->GetErrorMessage(error) : "")) {
        if (error) api->ReleaseStatus(error);
        return;
    }
    float x[4] = {1e-40f, 1e-40f, 1e-40f, 1e-40f};
    OrtValue *in = test_host_tensor(app, x, 4, 1, (const int64_t[]){4}), *out = NULL;
    ORT_OK(app, run_session(app, s, &c, &in, &out));
    size_t bytes = 0;
    float *y = out ? kc_host_data(app, out, &bytes) : NULL;
    if (CHECK(y != NULL && bytes == sizeof(x) && y[0] == 0.0f, "%s: the device gives %g, not 0: it keeps subnormals",
              c.name, y ? y[0] : -1.0))
        printf("%-52s ok (0: the device flushes)\n", c.name);
    free(y);
    if (out) api->ReleaseValue(out);
    api->ReleaseValue(in);
    api->ReleaseSession(s);
}

int main(int argc, char **argv)
{
    only = argc > 1 ? argv[1] : NULL;
    ortapp app;
    const OrtEpDevice *device;
    test_open(&app, &device);
    flushes_subnormals = kc_device_flushes_subnormals(&app, device);
    if (flushes_subnormals)
        printf("note: the device may flush float32 subnormals (%s): results below FLT_MIN compare as zero, and "
               "the inputs of ops that do not take them exactly hold zeros\n", app.api->GetKeyValue(app.api->EpDevice_EpMetadata(device),
                                                          ORTVK_META_FLOAT_CONTROLS));
    if (getenv("ORTVK_TEST_FLUSHING") != NULL) flushing_proof(&app, device);
    shape_overflows(&app, device);
    slices(&app, device);
    booleans(&app, device);
    pools(&app, device);
    unary_specials(&app, device);
    quantize_specials(&app, device);
    unary_attributes(&app, device);
    binary_specials(&app, device);
    empties(&app, device);
    empty_axes(&app, device);
    same_pads(&app, device);
    conv_nonfinite_weights(&app, device);
    rnn_first_step(&app, device);
    combined_specials(&app, device);
    batchnorm_specials(&app, device);
    instancenorm_specials(&app, device);
    maxpool_minus_inf(&app, device);
    conv_padded_infinite_weight(&app, device);
    resize_specials(&app, device);
    maxpool_nan(&app, device);
    pool_pads(&app, device);
    cpu_rejections(&app, device);
    layernorm_specials(&app, device);
    global_average_huge(&app, device);
    average_pool_huge(&app, device);
    arg_extremes(&app, device);
    gemm_edges(&app, device);
    cpu_run_rejections(&app, device);
    return test_finish(&app, "test_kernels_edges");
}
