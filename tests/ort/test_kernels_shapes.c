/* Shape plumbing inside partitions: models whose shapes, bounds and repeats are computed from the input's symbolic
 * dims (Shape, Gather, Unsqueeze, Concat, Slice, Range, ConstantOfShape, Equal, Where, Cast, arithmetic, logic)
 * feeding Reshape, Expand, Tile, Slice and element-wise ops. Each model runs with every node on ortvk (strict
 * placement) at two batch sizes, twice each, and its outputs must equal ORT's CPU EP's; where a case names ops that
 * must be computed on the host, ortvk's profile must show no pipeline for them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel_check.h"

#define MAX_VALUES 4096

typedef struct shape_case {
    const char *name;
    onnx_model *m;
    int rank;
    int64_t dims[4]; /* dims[0] is the batch, symbolic in the model */
    bool mixed;      /* a node stays with the CPU EP (not strict) */
    const char *host_ops[4]; /* ops whose nodes must run on the host (no pipeline in the profile), or none */
} shape_case;

static void ints(onnx_model *m, const char *name, int count, const int64_t *values)
{
    int64_t dims[1] = {count};
    onnx_model_add_initializer(m, name, ONNX_INT64, count < 0 ? 0 : 1, dims, values,
                               (size_t)(count < 0 ? 1 : count) * sizeof(int64_t));
}

static void scalar(onnx_model *m, const char *name, int64_t v)
{
    onnx_model_add_initializer(m, name, ONNX_INT64, 0, NULL, &v, sizeof(v));
}

static onnx_node *add(onnx_model *m, const char *op, int n_in, const char *const *in, const char *out)
{
    const char *o[] = {out};
    return onnx_model_add_node(m, op, in, n_in, o, 1);
}

static onnx_model *start(shape_case *c, const char *name, int rank, const int64_t *dims)
{
    memset(c, 0, sizeof(*c));
    c->name = name;
    c->rank = rank;
    memcpy(c->dims, dims, (size_t)rank * sizeof(int64_t));
    int64_t symbolic[4] = {0};
    memcpy(symbolic, dims, (size_t)rank * sizeof(int64_t));
    symbolic[0] = -1;
    c->m = onnx_model_new(13);
    onnx_model_add_input(c->m, "x", ONNX_FLOAT, rank, symbolic);
    onnx_model_add_output(c->m, "y", ONNX_FLOAT, -1, NULL);
    return c->m;
}

static void run_batch(ortapp *app, const kc_pair *pair, shape_case *c, int64_t batch)
{
    int64_t dims[4];
    memcpy(dims, c->dims, sizeof(dims));
    dims[0] = batch;
    size_t n = 1;
    for (int d = 0; d < c->rank; d++) n *= (size_t)dims[d];
    static float data[MAX_VALUES];
    for (size_t i = 0; i < n; i++) data[i] = (float)((i * 7919) % 23) * 0.25f - 2.5f;
    OrtValue *x = test_host_tensor(app, data, n, c->rank, dims);
    const char *in[] = {"x"}, *out[] = {"y"};
    for (int round = 0; round < 2; round++) {
        OrtValue *want = NULL, *got = NULL;
        if (kc_pair_run(app, pair, in, &x, NULL, 1, out, 1, &want, &got)) {
            size_t want_bytes = 0, got_bytes = 0;
            void *w = kc_host_data(app, want, &want_bytes), *g = kc_host_data(app, got, &got_bytes);
            int64_t wd[8] = {0}, gd[8] = {0};
            size_t wr = kc_tensor_shape(app, want, wd, 8), gr = kc_tensor_shape(app, got, gd, 8);
            if (CHECK(w && g && want_bytes == got_bytes && wr == gr && memcmp(wd, gd, sizeof(wd)) == 0,
                      "%s, batch %lld: output of %zu bytes, rank %zu (CPU EP: %zu bytes, rank %zu)", c->name,
                      (long long)batch, got_bytes, gr, want_bytes, wr)) {
                onnx_tensor expected = {.elem_type = ONNX_FLOAT, .data = w, .data_bytes = want_bytes};
                char why[256];
                int bad = kc_compare(&expected, g, 1e-6, 1e-6, why, sizeof(why));
                CHECK(bad == 0, "%s, batch %lld: %s", c->name, (long long)batch, why);
                if (!bad && round == 1)
                    printf("%-52s ok (batch %lld, %zu values)\n", c->name, (long long)batch, want_bytes / 4);
            }
            free(w);
            free(g);
        }
        kc_pair_release(app, &want, &got, 1);
    }
    app->api->ReleaseValue(x);
}

/* Every node of the ops in c->host_ops ran on the host: the profile has an event for each, none with pipelines. */
static void check_host_ops(const shape_case *c, const char *profile)
{
    char *text = test_read_text(profile);
    for (int k = 0; k < 4 && c->host_ops[k] != NULL; k++) {
        int dispatched = 0, events = text ? kc_profile_events(text, c->host_ops[k], &dispatched, NULL, 0) : 0;
        if (CHECK(events > 0 && dispatched == 0, "%s: %d of %d %s events name pipelines", c->name, dispatched,
                  events, c->host_ops[k]))
            printf("%-52s %s on the host (%d events)\n", c->name, c->host_ops[k], events);
    }
    free(text);
    remove(profile);
}

static void run_case(ortapp *app, const OrtEpDevice *device, shape_case *c)
{
    uint8_t *model = NULL;
    size_t len = 0;
    if (!test_model_serialize(c->m, c->name, &model, &len)) return;
    kc_pair pair;
    char profile[64];
    snprintf(profile, sizeof(profile), "/tmp/ortvk-shapes-profile-%d.json", (int)getpid());
    if (c->host_ops[0] != NULL) setenv("ORTVK_PROFILE", profile, 1);
    bool opened = kc_pair_open(app, device, model, len, NULL, 0, !c->mixed, c->name, &pair);
    unsetenv("ORTVK_PROFILE");
    if (opened) {
        size_t ours = 0, other = 0;
        if (c->mixed) {
            kc_assignment(app, pair.vk, &ours, &other, NULL, 0, NULL, 0);
            CHECK(ours > 0 && other > 0, "%s: %zu nodes on ortvk, %zu elsewhere", c->name, ours, other);
        }
        run_batch(app, &pair, c, 2);
        run_batch(app, &pair, c, 5);
        kc_pair_close(app, &pair);
        if (c->host_ops[0] != NULL) check_host_ops(c, profile);
    }
    free(model);
}

/* y = Relu(Reshape(x, Concat(Unsqueeze(Gather(Shape(x), 0)), [-1]))): [N, 3, 4] -> [N, 12]. */
static void reshape_chain(ortapp *app, const OrtEpDevice *device)
{
    shape_case c;
    int64_t dims[3] = {2, 3, 4}, minus1[1] = {-1}, zero[1] = {0};
    onnx_model *m = start(&c, "Shape-Gather-Unsqueeze-Concat-Reshape", 3, dims);
    scalar(m, "i0", 0);
    ints(m, "minus1", 1, minus1);
    ints(m, "axes0", 1, zero);
    const char *x[] = {"x"}, *g[] = {"s", "i0"}, *u[] = {"n", "axes0"}, *cc[] = {"n1", "minus1"},
               *r[] = {"x", "shape"}, *y[] = {"r"};
    add(m, "Shape", 1, x, "s");
    add(m, "Gather", 2, g, "n");
    add(m, "Unsqueeze", 2, u, "n1");
    onnx_node_attr_int(add(m, "Concat", 2, cc, "shape"), "axis", 0);
    add(m, "Reshape", 2, r, "r");
    add(m, "Relu", 1, y, "y");
    run_case(app, device, &c);
}

/* Tile repeats and a Slice end computed from the shape: repeats = Shape(x) * 0 + [1, 2, 1]; the Slice keeps
 * rows [0, dim1 - 1) of dim 1 (ends = Slice(Shape(x), 1, 2) - 1). */
static void tile_slice(ortapp *app, const OrtEpDevice *device)
{
    shape_case c;
    int64_t dims[3] = {2, 3, 4}, rep[3] = {1, 2, 1}, zero[1] = {0}, one[1] = {1}, two[1] = {2};
    onnx_model *m = start(&c, "Tile and Slice with run-time repeats and ends", 3, dims);
    scalar(m, "z", 0);
    ints(m, "rep", 3, rep);
    ints(m, "zero", 1, zero);
    ints(m, "one", 1, one);
    ints(m, "two", 1, two);
    const char *x[] = {"x"}, *mul[] = {"s", "z"}, *addi[] = {"s0", "rep"}, *tile[] = {"x", "repeats"},
               *sl[] = {"s", "one", "two"}, *sub[] = {"d1", "one"}, *sl2[] = {"t", "zero", "end", "one"};
    add(m, "Shape", 1, x, "s");
    add(m, "Mul", 2, mul, "s0");
    add(m, "Add", 2, addi, "repeats");
    add(m, "Tile", 2, tile, "t");
    add(m, "Slice", 3, sl, "d1");
    add(m, "Sub", 2, sub, "end");
    add(m, "Slice", 4, sl2, "y");
    run_case(app, device, &c);
}

/* Range, Cast, ConstantOfShape, Equal, Where and Expand: y = (x + Cast(Range(0, dim2, 1))) * Expand(c, shape) where
 * shape = Where(Equal(Shape(x), 3), [1, 1, 1], Shape(x)) (dims of 3 broadcast from 1) and c = ConstantOfShape([1])
 * of value 0.5, plus ConstantOfShape(Shape(x)) of value 1. */
static void range_where_expand(ortapp *app, const OrtEpDevice *device)
{
    shape_case c;
    int64_t dims[3] = {2, 3, 4}, ones[3] = {1, 1, 1}, one1[1] = {1};
    onnx_model *m = start(&c, "Range-Cast-ConstantOfShape-Equal-Where-Expand", 3, dims);
    scalar(m, "i2", 2);
    scalar(m, "r0", 0);
    scalar(m, "r1", 1);
    scalar(m, "three", 3);
    ints(m, "ones", 3, ones);
    ints(m, "one1", 1, one1);
    const char *x[] = {"x"}, *g[] = {"s", "i2"}, *rg[] = {"r0", "n", "r1"}, *cast[] = {"rng"},
               *a1[] = {"x", "rngf"}, *eq[] = {"s", "three"}, *wh[] = {"e", "ones", "s"}, *cos[] = {"one1"},
               *ex[] = {"half", "shape"}, *mu[] = {"a", "ex"}, *cos2[] = {"s"}, *a2[] = {"p", "full"};
    add(m, "Shape", 1, x, "s");
    add(m, "Gather", 2, g, "n");
    add(m, "Range", 3, rg, "rng");
    onnx_node_attr_int(add(m, "Cast", 1, cast, "rngf"), "to", ONNX_FLOAT);
    add(m, "Add", 2, a1, "a");
    add(m, "Equal", 2, eq, "e");
    add(m, "Where", 3, wh, "shape");
    float half = 0.5f, onef = 1.0f;
    int64_t d1[1] = {1};
    onnx_node_attr_tensor(add(m, "ConstantOfShape", 1, cos, "half"), "value", ONNX_FLOAT, 1, d1, &half, 4);
    add(m, "Expand", 2, ex, "ex");
    add(m, "Mul", 2, mu, "p");
    onnx_node_attr_tensor(add(m, "ConstantOfShape", 1, cos2, "full"), "value", ONNX_FLOAT, 1, d1, &onef, 4);
    add(m, "Add", 2, a2, "y");
    run_case(app, device, &c);
}

/* Logic on shapes, as models' If conditions and shape choices make it: with s = Shape(x),
 * y = x + Expand(0.5, Where(Xor(Or(And(Not(Equal(s, 3)), Greater(s, 2)), Equal(s, 3)), Less(s, 4)), s, [1, 1, 1])),
 * [2, 1, 4] at batch 2 and [5, 1, 4] at 5. And, Or, Xor and Not run on the host. */
static void logic_where_expand(ortapp *app, const OrtEpDevice *device)
{
    shape_case c;
    int64_t dims[3] = {2, 3, 4}, ones[3] = {1, 1, 1}, one3[3] = {1, 1, 1};
    onnx_model *m = start(&c, "Not-And-Or-Xor on a shape into Where-Expand", 3, dims);
    c.host_ops[0] = "Not", c.host_ops[1] = "And", c.host_ops[2] = "Or", c.host_ops[3] = "Xor";
    scalar(m, "two", 2);
    scalar(m, "three", 3);
    scalar(m, "four", 4);
    ints(m, "ones", 3, ones);
    float half = 0.5f;
    onnx_model_add_initializer(m, "half", ONNX_FLOAT, 3, one3, &half, sizeof(half));
    const char *x[] = {"x"}, *eq[] = {"s", "three"}, *no[] = {"e3"}, *gt[] = {"s", "two"}, *an[] = {"ne3", "g2"},
               *orr[] = {"a", "e3"}, *lt[] = {"s", "four"}, *xo[] = {"o", "l4"}, *wh[] = {"c", "s", "ones"},
               *ex[] = {"half", "shape"}, *ad[] = {"x", "k"};
    add(m, "Shape", 1, x, "s");
    add(m, "Equal", 2, eq, "e3");
    add(m, "Not", 1, no, "ne3");
    add(m, "Greater", 2, gt, "g2");
    add(m, "And", 2, an, "a");
    add(m, "Or", 2, orr, "o");
    add(m, "Less", 2, lt, "l4");
    add(m, "Xor", 2, xo, "c");
    add(m, "Where", 3, wh, "shape");
    add(m, "Expand", 2, ex, "k");
    add(m, "Add", 2, ad, "y");
    run_case(app, device, &c);
}

/* Flattening the trailing dims by arithmetic: Reshape(x, [N, d1 * d2 * d3 / 2, 2]) with the dims from Shape and a
 * Squeeze/Unsqueeze round trip; ORT's shape inference leaves the result's rank unknown, and the element-wise ops,
 * the ReduceMean over the last axis and the Transpose after it take theirs in the run (the recognizer's pattern). */
static void arithmetic_reshape(ortapp *app, const OrtEpDevice *device)
{
    shape_case c;
    int64_t dims[4] = {2, 3, 2, 4}, zero[1] = {0}, two[1] = {2}, starts[1] = {1}, ends[1] = {4};
    onnx_model *m = start(&c, "Slice-Mul-Div-Concat-Reshape, then unknown ranks", 4, dims);
    ints(m, "zero", 1, zero);
    ints(m, "two", 1, two);
    ints(m, "starts", 1, starts);
    ints(m, "ends", 1, ends);
    ints(m, "one", 1, starts);
    scalar(m, "i1", 1);
    scalar(m, "i2", 2);
    scalar(m, "i0", 0);
    const char *x[] = {"x"}, *sl[] = {"s", "starts", "ends"}, *g0[] = {"tail", "i0"}, *g1[] = {"tail", "i1"},
               *g2[] = {"tail", "i2"}, *m1[] = {"t0", "t1"}, *m2[] = {"t01", "t2"}, *uq[] = {"prod", "zero"},
               *dv[] = {"prod1", "two"}, *bt[] = {"s", "zero", "one"}, *sq[] = {"b1", "zero"},
               *uq2[] = {"b", "zero"}, *cc[] = {"b2", "half", "two"}, *rs[] = {"x", "shape"}, *tr[] = {"d"},
               *sqr[] = {"r0", "r0"}, *mean[] = {"r"}, *sub[] = {"r", "m"};
    add(m, "Shape", 1, x, "s");
    add(m, "Slice", 3, sl, "tail");
    add(m, "Gather", 2, g0, "t0");
    add(m, "Gather", 2, g1, "t1");
    add(m, "Gather", 2, g2, "t2");
    add(m, "Mul", 2, m1, "t01");
    add(m, "Mul", 2, m2, "prod");
    add(m, "Unsqueeze", 2, uq, "prod1");
    add(m, "Div", 2, dv, "half");
    add(m, "Slice", 3, bt, "b1");
    add(m, "Squeeze", 2, sq, "b");
    add(m, "Unsqueeze", 2, uq2, "b2");
    onnx_node_attr_int(add(m, "Concat", 3, cc, "shape"), "axis", 0);
    add(m, "Reshape", 2, rs, "r0");
    add(m, "Mul", 2, sqr, "r");
    int64_t last[1] = {-1};
    onnx_node_attr_ints(add(m, "ReduceMean", 1, mean, "m"), "axes", last, 1);
    add(m, "Sub", 2, sub, "d");
    int64_t perm[3] = {0, 2, 1};
    onnx_node_attr_ints(add(m, "Transpose", 1, tr, "y"), "perm", perm, 3);
    run_case(app, device, &c);
}

/* A shape that crosses the CPU EP (Abs on int64 has no ortvk kernel) before it reaches Reshape: ortvk reads it on
 * the host where it arrives, as an input of the fused node. */
static void shape_through_cpu(ortapp *app, const OrtEpDevice *device)
{
    shape_case c;
    int64_t dims[3] = {2, 3, 4}, twelve[1] = {12}, zero[1] = {0}, one[1] = {1};
    onnx_model *m = start(&c, "Shape through the CPU EP into Reshape", 3, dims);
    c.mixed = true;
    ints(m, "twelve", 1, twelve);
    ints(m, "zero", 1, zero);
    ints(m, "one", 1, one);
    const char *x[] = {"x"}, *sl[] = {"s", "zero", "one"}, *cc[] = {"n", "twelve"}, *ab[] = {"c"},
               *rs[] = {"x", "shape"}, *re[] = {"r"};
    add(m, "Shape", 1, x, "s");
    add(m, "Slice", 3, sl, "n");
    onnx_node_attr_int(add(m, "Concat", 2, cc, "c"), "axis", 0);
    add(m, "Abs", 1, ab, "shape");
    add(m, "Reshape", 2, rs, "r");
    add(m, "Relu", 1, re, "y");
    run_case(app, device, &c);
}

/* A CPU node (Hardmax) between a Shape and its readers in the model's order. ORT 1.24.3 and 1.30.0 order the
 * nodes so that the shape plumbing still shares a partition (the read back of a shape that arrives in device memory,
 * kernel_run.c's host_values, is not reached here); the outputs must match whichever way ORT partitions. */
static void shape_across_partitions(ortapp *app, const OrtEpDevice *device)
{
    shape_case c;
    int64_t dims[3] = {2, 3, 4}, minus1[1] = {-1}, zero[1] = {0};
    onnx_model *m = start(&c, "Shape, a CPU node, then its readers", 3, dims);
    c.mixed = true;
    scalar(m, "i0", 0);
    ints(m, "minus1", 1, minus1);
    ints(m, "axes0", 1, zero);
    const char *x[] = {"x"}, *re[] = {"x"}, *g[] = {"s", "i0"}, *u[] = {"n", "axes0"}, *cc[] = {"n1", "minus1"},
               *r[] = {"h", "shape"}, *y[] = {"r"};
    add(m, "Shape", 1, x, "s");
    add(m, "Hardmax", 1, re, "h");
    add(m, "Gather", 2, g, "n");
    add(m, "Unsqueeze", 2, u, "n1");
    onnx_node_attr_int(add(m, "Concat", 2, cc, "shape"), "axis", 0);
    add(m, "Reshape", 2, r, "r");
    add(m, "Relu", 1, y, "y");
    run_case(app, device, &c);
}

/* Reshape to a shape the application hands over in ortvk's device memory (a graph input): ortvk reads it back on
 * the host before the partition records (kernel_run.c's host_values), as for a shape made in another partition. */
static void shape_in_device_memory(ortapp *app, const OrtEpDevice *device)
{
    const char *name = "Reshape to a shape in device memory";
    onnx_model *m = onnx_model_new(13);
    int64_t xdims[3] = {2, 3, 4}, sdims[1] = {2};
    onnx_model_add_input(m, "x", ONNX_FLOAT, 3, xdims);
    onnx_model_add_input(m, "shape", ONNX_INT64, 1, sdims);
    onnx_model_add_output(m, "y", ONNX_FLOAT, -1, NULL);
    const char *r[] = {"x", "shape"}, *y[] = {"r"};
    add(m, "Reshape", 2, r, "r");
    add(m, "Relu", 1, y, "y");
    uint8_t *model = NULL;
    size_t len = 0;
    if (!test_model_serialize(m, name, &model, &len)) return;
    kc_pair pair;
    bool ok = kc_pair_open(app, device, model, len, NULL, 0, true, name, &pair);
    static float data[24];
    int64_t shape[2] = {4, -1};
    for (int i = 0; i < 24; i++) data[i] = (float)(i % 7) - 3.0f;
    OrtValue *x = test_host_tensor(app, data, 24, 3, xdims), *hs = NULL, *ds = NULL, *want = NULL, *got = NULL;
    const OrtMemoryInfo *info = app->api->EpDevice_MemoryInfo(device, OrtDeviceMemoryType_DEFAULT);
    OrtMemoryInfo *cpu_info = NULL;
    OrtAllocator *allocator = NULL;
    ok = ok && ORT_OK(app, app->api->CreateCpuMemoryInfo(OrtDeviceAllocator, OrtMemTypeDefault, &cpu_info)) &&
               ORT_OK(app, app->api->CreateTensorWithDataAsOrtValue(cpu_info, shape, sizeof(shape), sdims, 1,
                                                                    ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64, &hs)) &&
               ORT_OK(app, app->api->GetSharedAllocator(app->env, info, &allocator)) &&
               ORT_OK(app, app->api->CreateTensorAsOrtValue(allocator, sdims, 1, ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64,
                                                            &ds)) &&
               ORT_OK(app, test_copy(app, hs, ds, NULL));
    const char *in[] = {"x", "shape"}, *out[] = {"y"};
    OrtValue *cpu_in[] = {x, hs}, *vk_in[] = {x, ds};
    if (ok && kc_pair_run(app, &pair, in, cpu_in, vk_in, 2, out, 1, &want, &got)) {
        size_t wb = 0, gb = 0;
        void *w = kc_host_data(app, want, &wb), *g = kc_host_data(app, got, &gb);
        if (CHECK(w && g && wb == gb && wb == sizeof(data), "%s: %zu and %zu bytes", name, wb, gb) &&
            CHECK(memcmp(w, g, wb) == 0, "%s: values differ", name))
            printf("%-52s ok (%zu values)\n", name, wb / 4);
        free(w);
        free(g);
    }
    kc_pair_release(app, &want, &got, 1);
    if (ds) app->api->ReleaseValue(ds);
    if (hs) app->api->ReleaseValue(hs);
    if (x) app->api->ReleaseValue(x);
    if (cpu_info) app->api->ReleaseMemoryInfo(cpu_info);
    kc_pair_close(app, &pair);
    free(model);
}

/* Resize to sizes computed from the shape: [N, C, 2H, 3W] = Concat(Slice(Shape(x), 0, 2), Slice(Shape(x), 2, 4) *
 * [2, 3]); and again by scales computed as Cast(float) of the same factors. */
static void resize_runtime(ortapp *app, const OrtEpDevice *device, bool scales)
{
    shape_case c;
    int64_t dims[4] = {2, 2, 3, 4}, zero[1] = {0}, two[1] = {2}, four[1] = {4}, factors[2] = {2, 3}, ones[2] = {1, 1};
    const char *name = scales ? "Resize by scales computed in the run" : "Resize to sizes computed from the shape";
    onnx_model *m = start(&c, name, 4, dims);
    ints(m, "zero", 1, zero);
    ints(m, "two", 1, two);
    ints(m, "four", 1, four);
    ints(m, "factors", 2, factors);
    ints(m, "ones", 2, ones);
    const char *x[] = {"x"}, *lead[] = {"s", "zero", "two"}, *tail[] = {"s", "two", "four"},
               *mul[] = {"hw", "factors"}, *cc[] = {"nc", "hw2"}, *cs[] = {"ones", "factors"}, *cast[] = {"f"},
               *rs[] = {"x", "", "", "sizes"}, *rsc[] = {"x", "", "scales"};
    add(m, "Shape", 1, x, "s");
    add(m, "Slice", 3, lead, "nc");
    add(m, "Slice", 3, tail, "hw");
    add(m, "Mul", 2, mul, "hw2");
    onnx_node_attr_int(add(m, "Concat", 2, cc, "sizes"), "axis", 0);
    onnx_node *r;
    if (scales) {
        onnx_node_attr_int(add(m, "Concat", 2, cs, "f"), "axis", 0);
        onnx_node_attr_int(add(m, "Cast", 1, cast, "scales"), "to", ONNX_FLOAT);
        r = add(m, "Resize", 3, rsc, "y");
    } else {
        r = add(m, "Resize", 4, rs, "y");
    }
    onnx_node_attr_string(r, "mode", "linear");
    run_case(app, device, &c);
}

int main(void)
{
    ortapp app;
    const OrtEpDevice *device;
    test_open(&app, &device);
    reshape_chain(&app, device);
    tile_slice(&app, device);
    range_where_expand(&app, device);
    logic_where_expand(&app, device);
    arithmetic_reshape(&app, device);
    shape_through_cpu(&app, device);
    shape_across_partitions(&app, device);
    shape_in_device_memory(&app, device);
    resize_runtime(&app, device, false);
    resize_runtime(&app, device, true);
    return test_finish(&app, "test_kernels_shapes");
}
