/* ortvk's quantized ops against ORT's CPU EP, every node on ortvk (uint8 x int8 products where this CPU's CPU EP
 * does not saturate them), outputs compared byte for byte:
 * Quantize/DequantizeLinear (ties, NaN, infinities, saturation, per-axis), DynamicQuantizeLinear, MatMulInteger (zero
 * points, per-column, batches, int32 wrap-around), QLinearMatMul and ConvInteger (pads, strides, dilations, groups,
 * 1-D, SAME), QLinearConv; the block forms with B and w as constants and as graph inputs; QDQ groups run as one
 * integer node on ortvk, or left to the CPU EP. */
#include <math.h>
#include <string.h>

#include "kernel_check.h"

#define MAX_IO 8

static uint32_t seed = 2024;

static uint32_t next(void)
{
    return kc_rand_bits(&seed);
}

/* A graph input's values. */
typedef struct qin {
    const char *name;
    int type; /* ONNX_* */
    int rank;
    int64_t dims[4];
    void *data;
    bool constant; /* an initializer of the model rather than a graph input */
} qin;

/* Where the cases put B and w: as each case does (the products' and ConvInteger's are graph inputs, QLinearConv's
 * constants), or, for the block forms' passes, all constants (repacked at Compile: kernel_qmm.c) or all graph inputs
 * (repacked in each run). */
enum { WEIGHTS_AS_CASE, WEIGHTS_CONSTANT, WEIGHTS_INPUT };
static int weights_given = WEIGHTS_AS_CASE;

static size_t count_of(const qin *in)
{
    size_t n = 1;
    for (int d = 0; d < in->rank; d++) n *= (size_t)in->dims[d];
    return n;
}

static void *alloc_values(qin *in)
{
    in->data = calloc(count_of(in) + 1, onnx_elem_size(in->type));
    return in->data;
}

/* Random bytes, with the edge values first. */
static void random_bytes(qin *in)
{
    uint8_t *b = alloc_values(in);
    static const uint8_t edges[] = {0, 255, 128, 127, 1, 254};
    for (size_t i = 0; i < count_of(in); i++) b[i] = i < sizeof(edges) ? edges[i] : (uint8_t)next();
}

/* Where a case's node must run: on ortvk; on ortvk or, on a CPU whose MLAS saturates uint8 x int8 products, on the
 * CPU EP (ortvk leaves those to it: kernel_qmm.c); on the CPU EP (ortvk refuses it); for a QDQ model, the input's
 * QuantizeLinear on ortvk and the QDQ group after it (several nodes) on the CPU EP. */
enum { ON_ORTVK, ON_ORTVK_UNLESS_SATURATING, ON_CPU_EP, QDQ_ON_CPU_EP };

/* Runs `m` (its node built by the caller over `ins`: graph inputs, or initializers where `constant`) on both EPs and
 * compares outputs `outs` byte for byte, the node where `where` says. Frees the model and the inputs' data. */
static void check_on(ortapp *app, const OrtEpDevice *device, const char *name, onnx_model *m, qin *ins, int n_in,
                     const char *const *outs, int n_out, int where)
{
    bool may_refuse = where != ON_ORTVK;
    uint8_t *model = NULL;
    size_t len = 0, fed = 0;
    for (int i = 0; i < n_in; i++) {
        if (ins[i].constant)
            onnx_model_add_initializer(m, ins[i].name, ins[i].type, ins[i].rank, ins[i].dims, ins[i].data,
                                       count_of(&ins[i]) * onnx_elem_size(ins[i].type));
        else onnx_model_add_input(m, ins[i].name, ins[i].type, ins[i].rank, ins[i].dims);
    }
    int rc = onnx_model_serialize(m, &model, &len);
    onnx_model_free(m);
    OrtValue *values[MAX_IO] = {0}, *want[MAX_IO] = {0}, *got[MAX_IO] = {0};
    const char *names[MAX_IO];
    OrtMemoryInfo *info = NULL;
    ORT_OK(app, app->api->CreateCpuMemoryInfo(OrtDeviceAllocator, OrtMemTypeDefault, &info));
    for (int i = 0; i < n_in; i++) {
        if (ins[i].constant) continue;
        names[fed] = ins[i].name;
        ORT_OK(app, app->api->CreateTensorWithDataAsOrtValue(info, ins[i].data,
                                                             count_of(&ins[i]) * onnx_elem_size(ins[i].type),
                                                             ins[i].dims, (size_t)ins[i].rank,
                                                             (ONNXTensorElementDataType)ins[i].type, &values[fed++]));
    }
    app->api->ReleaseMemoryInfo(info);
    kc_pair pair;
    if (CHECK(rc == ONNX_OK, "%s: model", name) &&
        kc_pair_open(app, device, model, len, NULL, 0, !may_refuse, name, &pair)) {
        size_t on_ortvk = 1, elsewhere = 0;
        if (may_refuse) kc_assignment(app, pair.vk, &on_ortvk, &elsewhere, NULL, 0, NULL, 0);
        const char *note = on_ortvk == 1 && elsewhere == 0 ? "" : " (left to the CPU EP on this CPU)";
        if (where == ON_CPU_EP) {
            CHECK(on_ortvk == 0 && elsewhere == 1, "%s: ortvk took the node (%zu on ortvk, %zu elsewhere)", name,
                  on_ortvk, elsewhere);
            note = " (refused by ortvk, as it must be)";
        }
        if (where == QDQ_ON_CPU_EP) {
            CHECK(on_ortvk == 1 && elsewhere > 1, "%s: %zu nodes on ortvk, %zu elsewhere (want the input's "
                  "QuantizeLinear on ortvk, the group on the CPU EP)", name, on_ortvk, elsewhere);
            note = " (the QDQ group left to the CPU EP, as it must be)";
        }
        if (kc_pair_run(app, &pair, names, values, NULL, fed, outs, (size_t)n_out, want, got)) {
            for (int o = 0; o < n_out; o++) {
                size_t wb = 0, gb = 0, bad = 0, first = 0;
                uint8_t *w = kc_host_data(app, want[o], &wb), *g = kc_host_data(app, got[o], &gb);
                if (CHECK(w && g && wb == gb, "%s: %s of %zu and %zu bytes", name, outs[o], wb, gb)) {
                    for (size_t k = 0; k < wb; k++) {
                        if (w[k] != g[k] && bad++ == 0) first = k;
                    }
                    CHECK(bad == 0, "%s: %s: %zu of %zu bytes differ (first at byte %zu: CPU EP 0x%02x, ortvk 0x%02x)",
                          name, outs[o], bad, wb, first, bad ? w[first] : 0, bad ? g[first] : 0);
                    if (bad == 0) printf("%-48s %s ok (%zu bytes)%s\n", name, outs[o], wb, note);
                }
                free(w);
                free(g);
            }
            kc_pair_release(app, want, got, (size_t)n_out);
        }
        kc_pair_close(app, &pair);
    }
    for (int i = 0; i < n_in; i++) {
        if (values[i]) app->api->ReleaseValue(values[i]);
        free(ins[i].data);
    }
    free(model);
}

static void check(ortapp *app, const OrtEpDevice *device, const char *name, onnx_model *m, qin *ins, int n_in,
                  const char *const *outs, int n_out)
{
    check_on(app, device, name, m, ins, n_in, outs, n_out, ON_ORTVK);
}

/* ---- QuantizeLinear / DequantizeLinear ------------------------------------------------------------------- */

/* x: ties at .5 of the scale, NaN, infinities, -0, values past the range, then random values of +-300 scales. */
static void quant_x(qin *x, float scale)
{
    float *v = alloc_values(x);
    const float edges[] = {NAN, INFINITY, -INFINITY, -0.0f, 0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 127.5f, 128.5f,
                           -128.5f, -127.5f, 255.5f, 254.5f, 1e30f, -1e30f, 300.0f, -300.0f};
    size_t n = count_of(x), k = 0;
    for (; k < n && k < sizeof(edges) / sizeof(edges[0]); k++) v[k] = isfinite(edges[k]) ? edges[k] * scale : edges[k];
    for (; k < n; k++) v[k] = (k % 3 == 0) ? ((float)((int)(next() % 601) - 300) + 0.5f) * scale
                                           : ((float)(next() % 600001) / 1000.0f - 300.0f) * scale;
}

/* QuantizeLinear of x [dims] with scales (count 1: a scalar; else 1-D along `axis`) and zero points of `zt`
 * (0: none). */
static void quantize(ortapp *app, const OrtEpDevice *device, const char *name, int opset, int rank, const int64_t *dims,
                     int64_t axis, int count, const float *scales, int zt, const void *zps, bool constants)
{
    onnx_model *m = onnx_model_new(opset);
    qin ins[3] = {{.name = "x", .type = ONNX_FLOAT, .rank = rank}};
    memcpy(ins[0].dims, dims, (size_t)rank * sizeof(int64_t));
    quant_x(&ins[0], scales[0]);
    int n_in = 1;
    int64_t sd[1] = {count};
    int srank = count == 1 ? 0 : 1;
    if (constants) {
        onnx_model_add_initializer(m, "s", ONNX_FLOAT, srank, sd, scales, (size_t)count * sizeof(float));
        if (zt) onnx_model_add_initializer(m, "z", zt, srank, sd, zps, (size_t)count);
    } else {
        ins[n_in] = (qin){.name = "s", .type = ONNX_FLOAT, .rank = srank, .dims = {count}};
        memcpy(alloc_values(&ins[n_in++]), scales, (size_t)count * sizeof(float));
        if (zt) {
            ins[n_in] = (qin){.name = "z", .type = zt, .rank = srank, .dims = {count}};
            memcpy(alloc_values(&ins[n_in++]), zps, (size_t)count);
        }
    }
    const char *in[3] = {"x", "s", "z"}, *out[1] = {"y"};
    onnx_node *node = onnx_model_add_node(m, "QuantizeLinear", in, zt ? 3 : 2, out, 1);
    if (count > 1) onnx_node_attr_int(node, "axis", axis);
    onnx_model_add_output(m, "y", zt ? zt : ONNX_UINT8, -1, NULL);
    check(app, device, name, m, ins, n_in, out, 1);
}

/* DequantizeLinear of random x of type `xt`; zero points random of the same type when `zp`. */
static void dequantize(ortapp *app, const OrtEpDevice *device, const char *name, int xt, int rank,
                       const int64_t *dims, int64_t axis, int count, bool zp)
{
    onnx_model *m = onnx_model_new(13);
    qin ins[3] = {{.name = "x", .type = xt, .rank = rank}, {.name = "s", .type = ONNX_FLOAT, .rank = count > 1}};
    memcpy(ins[0].dims, dims, (size_t)rank * sizeof(int64_t));
    ins[1].dims[0] = count;
    if (xt == ONNX_INT32) {
        int32_t *v = alloc_values(&ins[0]);
        for (size_t k = 0; k < count_of(&ins[0]); k++)
            v[k] = k == 0 ? INT32_MAX : k == 1 ? INT32_MIN : (int32_t)(next() << 8 | (next() & 0xff));
    } else {
        random_bytes(&ins[0]);
    }
    float *s = alloc_values(&ins[1]);
    for (int k = 0; k < count; k++) s[k] = (float)(next() % 100000 + 1) * 1.37e-5f;
    int n_in = 2;
    if (zp) {
        ins[2] = (qin){.name = "z", .type = xt, .rank = count > 1, .dims = {count}};
        random_bytes(&ins[2]);
        n_in = 3;
    }
    const char *in[3] = {"x", "s", "z"}, *out[1] = {"y"};
    onnx_node *node = onnx_model_add_node(m, "DequantizeLinear", in, n_in, out, 1);
    if (count > 1) onnx_node_attr_int(node, "axis", axis);
    onnx_model_add_output(m, "y", ONNX_FLOAT, -1, NULL);
    check(app, device, name, m, ins, n_in, out, 1);
}

/* x uniform in [lo, hi], or (lo == hi != 0) of random sign and exponent below |hi| (quotients of every kind). */
static void dynamic(ortapp *app, const OrtEpDevice *device, const char *name, int64_t n, float lo, float hi,
                    int n_out)
{
    onnx_model *m = onnx_model_new(11);
    qin ins[1] = {{.name = "x", .type = ONNX_FLOAT, .rank = 2, .dims = {n / 7, 7}}};
    float *v = alloc_values(&ins[0]);
    for (size_t k = 0; k < count_of(&ins[0]); k++) {
        v[k] = lo + (hi - lo) * (float)(next() % 1000001) / 1e6f;
        if (lo == hi && hi != 0.0f) v[k] = ldexpf((float)(next() % 8388608) / 8388608.0f, -(int)(next() % 20)) *
                                           (next() & 1 ? hi : -hi);
    }
    const char *in[1] = {"x"}, *out[3] = {"y", "y_scale", "y_zero_point"};
    onnx_model_add_node(m, "DynamicQuantizeLinear", in, 1, out, 3);
    onnx_model_add_output(m, "y", ONNX_UINT8, -1, NULL);
    if (n_out > 1) onnx_model_add_output(m, "y_scale", ONNX_FLOAT, -1, NULL);
    if (n_out > 2) onnx_model_add_output(m, "y_zero_point", ONNX_UINT8, -1, NULL);
    check(app, device, name, m, ins, 1, out, n_out);
}

/* ---- MatMulInteger / ConvInteger ------------------------------------------------------------------------- */

/* Where a product of types at and bt runs. */
static int products_of(int at, int bt)
{
    return at == ONNX_UINT8 && bt == ONNX_INT8 ? ON_ORTVK_UNLESS_SATURATING : ON_ORTVK;
}

/* MatMulInteger of A [a] and B [b] of types at/bt; zero points: za (scalar), zb (0 none, 1 scalar, n per column).
 * `fill` sets every A and B byte to it (sums that wrap) instead of random values. */
static void matmul(ortapp *app, const OrtEpDevice *device, const char *name, int ar, const int64_t *a, int br,
                   const int64_t *b, int at, int bt, bool za, int zb, int fill)
{
    onnx_model *m = onnx_model_new(10);
    qin ins[4] = {{.name = "A", .type = at, .rank = ar}, {.name = "B", .type = bt, .rank = br}};
    memcpy(ins[0].dims, a, (size_t)ar * sizeof(int64_t));
    memcpy(ins[1].dims, b, (size_t)br * sizeof(int64_t));
    for (int i = 0; i < 2; i++) {
        random_bytes(&ins[i]);
        if (fill >= 0) memset(ins[i].data, fill, count_of(&ins[i]));
    }
    ins[1].constant = weights_given == WEIGHTS_CONSTANT;
    const char *in[4] = {"A", "B", za ? "za" : "", "zb"}, *out[1] = {"y"};
    int n_in = 2;
    if (za) {
        ins[n_in] = (qin){.name = "za", .type = at, .rank = 0};
        random_bytes(&ins[n_in++]);
    }
    if (zb) {
        ins[n_in] = (qin){.name = "zb", .type = bt, .rank = zb > 1, .dims = {zb}};
        random_bytes(&ins[n_in++]);
    }
    onnx_model_add_node(m, "MatMulInteger", in, zb ? 4 : za ? 3 : 2, out, 1);
    onnx_model_add_output(m, "y", ONNX_INT32, -1, NULL);
    check_on(app, device, name, m, ins, n_in, out, 1, products_of(at, bt));
}

/* QLinearMatMul of A [a] (type at) and B [b] (type bt), y of A's type; scales a_s, b_s, y_s (graph inputs). */
static void qlinear(ortapp *app, const OrtEpDevice *device, const char *name, int ar, const int64_t *a, int br,
                    const int64_t *b, int at, int bt, float a_s, float b_s, float y_s)
{
    onnx_model *m = onnx_model_new(10);
    qin ins[8] = {{.name = "a", .type = at, .rank = ar},        {.name = "as", .type = ONNX_FLOAT},
                  {.name = "az", .type = at, .rank = 1, .dims = {1}}, {.name = "b", .type = bt, .rank = br},
                  {.name = "bs", .type = ONNX_FLOAT, .rank = 1, .dims = {1}}, {.name = "bz", .type = bt},
                  {.name = "ys", .type = ONNX_FLOAT},               {.name = "yz", .type = at}};
    memcpy(ins[0].dims, a, (size_t)ar * sizeof(int64_t));
    memcpy(ins[3].dims, b, (size_t)br * sizeof(int64_t));
    const float scales[3] = {a_s, b_s, y_s};
    const char *names[8];
    for (int i = 0; i < 8; i++) {
        names[i] = ins[i].name;
        if (ins[i].type == ONNX_FLOAT) *(float *)alloc_values(&ins[i]) = scales[i / 3];
        else random_bytes(&ins[i]);
    }
    ins[3].constant = weights_given == WEIGHTS_CONSTANT;
    const char *out[1] = {"y"};
    onnx_model_add_node(m, "QLinearMatMul", names, 8, out, 1);
    onnx_model_add_output(m, "y", at, -1, NULL);
    check_on(app, device, name, m, ins, 8, out, 1, products_of(at, bt));
}

typedef struct conv_attrs {
    int64_t strides[2], dilations[2], pads[4];
    int64_t group;
    const char *auto_pad;
} conv_attrs;

static void conv_attrs_set(onnx_node *node, int rank, const conv_attrs *c)
{
    int n = rank - 2;
    if (c->strides[0]) onnx_node_attr_ints(node, "strides", c->strides, n);
    if (c->dilations[0]) onnx_node_attr_ints(node, "dilations", c->dilations, n);
    if (c->auto_pad) onnx_node_attr_string(node, "auto_pad", c->auto_pad);
    else onnx_node_attr_ints(node, "pads", c->pads, 2 * n);
    if (c->group) onnx_node_attr_int(node, "group", c->group);
}

static void conv(ortapp *app, const OrtEpDevice *device, const char *name, int rank, const int64_t *x,
                 const int64_t *w, const conv_attrs *c, bool zps)
{
    onnx_model *m = onnx_model_new(10);
    qin ins[4] = {{.name = "x", .type = ONNX_UINT8, .rank = rank}, {.name = "w", .type = ONNX_UINT8, .rank = rank}};
    memcpy(ins[0].dims, x, (size_t)rank * sizeof(int64_t));
    memcpy(ins[1].dims, w, (size_t)rank * sizeof(int64_t));
    random_bytes(&ins[0]);
    random_bytes(&ins[1]);
    ins[1].constant = weights_given == WEIGHTS_CONSTANT;
    int n_in = 2;
    if (zps) {
        ins[2] = (qin){.name = "zx", .type = ONNX_UINT8, .rank = 0};
        ins[3] = (qin){.name = "zw", .type = ONNX_UINT8, .rank = 1, .dims = {1}};
        random_bytes(&ins[2]);
        random_bytes(&ins[3]);
        n_in = 4;
    }
    const char *in[4] = {"x", "w", "zx", "zw"}, *out[1] = {"y"};
    conv_attrs_set(onnx_model_add_node(m, "ConvInteger", in, n_in, out, 1), rank, c);
    onnx_model_add_output(m, "y", ONNX_INT32, -1, NULL);
    check(app, device, name, m, ins, n_in, out, 1);
}

/* ---- QLinearConv ---------------------------------------------------------------------------------------- */

/* A QLinearConv's types and constants: scales x_s and y_s, w's w_s (with `per_channel`, channel c's is
 * w_s * (1 + c / 8), and w's zero points are one an output channel, all zw), a random int32 bias when `bias`;
 * `fill` (unless -1) every byte of x and w; where the node must run. */
typedef struct qconv_case {
    int xt, wt;
    float x_s, w_s, y_s;
    bool per_channel, bias;
    int zw, fill, where;
} qconv_case;

/* QLinearConv of x [x] (a graph input, random bytes) and w [w] (a constant, unless weights_given says a graph input),
 * y of x's type. */
static void qconv(ortapp *app, const OrtEpDevice *device, const char *name, int rank, const int64_t *x,
                  const int64_t *w, const conv_attrs *c, const qconv_case *q)
{
    onnx_model *m = onnx_model_new(10);
    qin ins[2] = {{.name = "x", .type = q->xt, .rank = rank},
                  {.name = "w", .type = q->wt, .rank = rank, .constant = weights_given != WEIGHTS_INPUT}};
    memcpy(ins[0].dims, x, (size_t)rank * sizeof(int64_t));
    memcpy(ins[1].dims, w, (size_t)rank * sizeof(int64_t));
    for (int i = 0; i < 2; i++) {
        random_bytes(&ins[i]);
        if (q->fill != -1) memset(ins[i].data, q->fill, count_of(&ins[i]));
    }
    int64_t M = w[0], one[1] = {1}, per[1] = {q->per_channel ? M : 1};
    float *ws = calloc((size_t)M, sizeof(float));
    uint8_t *wz = calloc((size_t)M, 1), xz = (uint8_t)next(), yz = (uint8_t)next();
    int32_t *b = calloc((size_t)M, sizeof(int32_t));
    for (int64_t k = 0; k < M; k++) {
        ws[k] = q->w_s * (1.0f + (float)k / 8.0f);
        wz[k] = (uint8_t)q->zw;
        b[k] = k == 0 ? -(1 << 20) : k == 1 ? (1 << 20) : (int32_t)(next() % 2000001) - 1000000;
    }
    onnx_model_add_initializer(m, "xs", ONNX_FLOAT, 0, NULL, &q->x_s, sizeof(float));
    onnx_model_add_initializer(m, "xz", q->xt, 1, one, &xz, 1);
    onnx_model_add_initializer(m, "ws", ONNX_FLOAT, 1, per, ws, (size_t)per[0] * sizeof(float));
    onnx_model_add_initializer(m, "wz", q->wt, 1, per, wz, (size_t)per[0]);
    onnx_model_add_initializer(m, "ys", ONNX_FLOAT, 0, NULL, &q->y_s, sizeof(float));
    onnx_model_add_initializer(m, "yz", q->xt, 0, NULL, &yz, 1);
    int64_t bd[1] = {M};
    if (q->bias) onnx_model_add_initializer(m, "B", ONNX_INT32, 1, bd, b, (size_t)M * sizeof(int32_t));
    free(ws);
    free(wz);
    free(b);
    const char *in[9] = {"x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "B"}, *out[1] = {"y"};
    conv_attrs_set(onnx_model_add_node(m, "QLinearConv", in, q->bias ? 9 : 8, out, 1), rank, c);
    onnx_model_add_output(m, "y", q->xt, -1, NULL);
    check_on(app, device, name, m, ins, 2, out, 1, q->where);
}

/* A QDQ group (the format of ORT's quantizer): x -> QuantizeLinear -> DequantizeLinear -> Conv (over
 * DequantizeLinear of a constant w and of an int32 bias of scale xs * ws) or MatMul (of a constant B) -> [Relu ->]
 * QuantizeLinear -> y. ORT's CPU EP fuses the group after the first QuantizeLinear into QLinearConv or
 * QLinearMatMul, which round once: ortvk's float ops differed from it in one byte of 2,304 (scales not powers of 2).
 * ortvk runs such a group as one integer kernel too (kernel_qdq.c), or leaves it to the CPU EP. */
typedef struct qdq_case {
    const char *name;
    int where;           /* GROUP_* below */
    bool matmul;         /* a MatMul [24 x 40] x [40 x 16] instead of the Conv 16 -> 16 over 12 x 12 */
    bool int8;           /* int8 activations and weights, else uint8 activations */
    bool int8_weights;   /* ... with int8 weights */
    float xs, ws, ys;    /* 0: 0.02, 0.005 (w's; per channel k % 5 + 1 times it) and 0.1 */
    bool per_channel;    /* w's scales one an output channel (axis 0), zero points all equal */
    bool relu;           /* a Relu before the QuantizeLinear */
    bool y_least;        /* y's zero point its type's least value (else 120, int8: 3) */
    bool op_output;      /* the op's float output is a graph output too (the CPU EP then runs the group in float) */
    bool split;          /* w made by a node ortvk refuses (Abs of uint8), which ORT orders among the group's */
} qdq_case;

/* Where a QDQ case runs: fused on ortvk (every node on ortvk, one QLinearConv or QLinearMatMul and no
 * DequantizeLinear in its profile), the same unless the CPU EP here saturates uint8 x int8; int8 activations: fused
 * where the CPU EP fuses them as they are (ARM), else left; left: the input's QuantizeLinear on ortvk and the group
 * on the CPU EP. */
enum { GROUP_FUSED, GROUP_FUSED_UNLESS_SATURATING, GROUP_INT8, GROUP_LEFT };

/* The model of `c` (its initializers added here); its graph inputs, x (and a split case's w), in `in`: returns how
 * many. */
static int qdq_model(const qdq_case *c, qin *in, onnx_model **model)
{
    qin *x = &in[0];
    onnx_model *m = onnx_model_new(13);
    int t = c->int8 ? ONNX_INT8 : ONNX_UINT8, wt = c->int8 || c->int8_weights ? ONNX_INT8 : ONNX_UINT8;
    float xs = c->xs ? c->xs : 0.02f, w_scale = c->ws ? c->ws : 0.005f, ys = c->ys ? c->ys : 0.1f;
    int64_t M = 16, K = c->matmul ? 40 : 16;
    *x = (qin){.name = "x", .type = ONNX_FLOAT, .rank = c->matmul ? 2 : 4,
               .dims = {c->matmul ? 24 : 1, c->matmul ? K : 16, 12, 12}};
    float *v = alloc_values(x);
    for (size_t k = 0; k < count_of(x); k++) v[k] = (float)((int)(next() % 1001) - 500) * xs / 4.0f;
    qin wq = {.type = wt, .rank = c->matmul ? 2 : 4, .dims = {c->matmul ? K : M, c->matmul ? M : K, 3, 3}};
    random_bytes(&wq);
    int64_t md[1] = {M};
    float ws[16], bs[16];
    uint8_t wz[16];
    int32_t b[16], bz[16] = {0};
    for (int64_t k = 0; k < M; k++) {
        ws[k] = c->per_channel ? w_scale * (float)(1 + k % 5) : w_scale;
        bs[k] = xs * ws[k];
        wz[k] = wt == ONNX_UINT8 ? 128 : 0;
        b[k] = (int32_t)(next() % 20001) - 10000;
    }
    uint8_t xz = c->int8 ? 0 : 128, yz = c->y_least ? (c->int8 ? 0x80 : 0) : c->int8 ? 3 : 120;
    int wr = c->per_channel ? 1 : 0;
    onnx_model_add_initializer(m, "xs", ONNX_FLOAT, 0, NULL, &xs, sizeof(float));
    onnx_model_add_initializer(m, "xz", t, 0, NULL, &xz, 1);
    if (c->split) in[1] = wq, in[1].name = "wi";
    else onnx_model_add_initializer(m, "wq", wt, wq.rank, wq.dims, wq.data, count_of(&wq));
    onnx_model_add_initializer(m, "ws", ONNX_FLOAT, wr, md, ws, (c->per_channel ? 16 : 1) * sizeof(float));
    onnx_model_add_initializer(m, "wz", wt, wr, md, wz, c->per_channel ? 16 : 1);
    onnx_model_add_initializer(m, "bq", ONNX_INT32, 1, md, b, sizeof(b));
    onnx_model_add_initializer(m, "bs", ONNX_FLOAT, wr, md, bs, (c->per_channel ? 16 : 1) * sizeof(float));
    onnx_model_add_initializer(m, "bz", ONNX_INT32, wr, md, bz, (c->per_channel ? 16 : 1) * sizeof(int32_t));
    onnx_model_add_initializer(m, "ys", ONNX_FLOAT, 0, NULL, &ys, sizeof(float));
    onnx_model_add_initializer(m, "yz", t, 0, NULL, &yz, 1);
    if (!c->split) free(wq.data);
    const char *q1[3] = {"x", "xs", "xz"}, *o1[1] = {"xq"}, *d1[3] = {"xq", "xs", "xz"}, *o2[1] = {"xd"};
    const char *d2[3] = {"wq", "ws", "wz"}, *o3[1] = {"wd"}, *d3[3] = {"bq", "bs", "bz"}, *o4[1] = {"bd"};
    const char *cv[3] = {"xd", "wd", "bd"}, *o5[1] = {"yf"}, *r[1] = {"yf"}, *o6[1] = {"yr"};
    const char *q2[3] = {c->relu ? "yr" : "yf", "ys", "yz"}, *out[1] = {"y"};
    onnx_model_add_node(m, "QuantizeLinear", q1, 3, o1, 1);
    onnx_model_add_node(m, "DequantizeLinear", d1, 3, o2, 1);
    onnx_node *dw = onnx_model_add_node(m, "DequantizeLinear", d2, 3, o3, 1);
    if (c->per_channel) onnx_node_attr_int(dw, "axis", 0);
    if (c->split) onnx_model_add_node(m, "Abs", (const char *[]){"wi"}, 1, (const char *[]){"wq"}, 1);
    if (c->matmul) {
        onnx_model_add_node(m, "MatMul", cv, 2, o5, 1);
    } else {
        onnx_node *db = onnx_model_add_node(m, "DequantizeLinear", d3, 3, o4, 1);
        if (c->per_channel) onnx_node_attr_int(db, "axis", 0);
        int64_t pads[4] = {1, 1, 1, 1};
        onnx_node_attr_ints(onnx_model_add_node(m, "Conv", cv, 3, o5, 1), "pads", pads, 4);
    }
    if (c->relu) onnx_model_add_node(m, "Relu", r, 1, o6, 1);
    onnx_model_add_node(m, "QuantizeLinear", q2, 3, out, 1);
    onnx_model_add_output(m, "y", t, -1, NULL);
    if (c->op_output) onnx_model_add_output(m, "yf", ONNX_FLOAT, -1, NULL);
    *model = m;
    return c->split ? 2 : 1;
}

/* The events of op `op` in the profile at `path`. */
static int profile_events(const char *path, const char *op)
{
    char *text = test_read_text(path);
    int n = text != NULL ? kc_profile_events(text, op, NULL, NULL, 0) : -1;
    free(text);
    return n;
}

static void qdq_group(ortapp *app, const OrtEpDevice *device, const qdq_case *c)
{
    int where = c->where;
#if defined(__aarch64__) || defined(__arm__)
    if (where == GROUP_INT8) where = GROUP_FUSED;
#endif
    qin in[2];
    onnx_model *m = NULL;
    int n_in = qdq_model(c, in, &m);
    const char *out[2] = {"y", "yf"};
    char path[64];
    snprintf(path, sizeof(path), "/tmp/ortvk-qdq-%d.json", (int)getpid());
    bool fused = where == GROUP_FUSED || where == GROUP_FUSED_UNLESS_SATURATING;
    if (fused) setenv("ORTVK_PROFILE", path, 1);
    check_on(app, device, c->name, m, in, n_in, out, c->op_output ? 2 : 1,
             where == GROUP_FUSED ? ON_ORTVK : fused ? ON_ORTVK_UNLESS_SATURATING : QDQ_ON_CPU_EP);
    unsetenv("ORTVK_PROFILE");
    /* Unless saturating: one integer node, or (this CPU's CPU EP saturating) the group left to it; never float ops. */
    if (fused && profile_events(path, "QuantizeLinear") > 0) {
        int q = profile_events(path, c->matmul ? "QLinearMatMul" : "QLinearConv");
        int dq = profile_events(path, "DequantizeLinear"), op = profile_events(path, c->matmul ? "MatMul" : "Conv");
        CHECK((q == 1 || (q == 0 && where == GROUP_FUSED_UNLESS_SATURATING)) && dq == 0 && op == 0,
              "%s: ortvk's profile has %d %s, %d DequantizeLinear and %d %s events (want the group as one integer "
              "node)", c->name, q, c->matmul ? "QLinearMatMul" : "QLinearConv", dq, op, c->matmul ? "MatMul" : "Conv");
    }
    remove(path);
}

/* A QDQ group around an op that only selects or moves values: x -> QuantizeLinear (scale xs) -> DequantizeLinear
 * -> op -> QuantizeLinear (scale ys, zero point yz) -> y over 1 x 8 x 10 x 10. With positive normal scales ortvk runs
 * its nodes as the float ops they are (the answer is the same however it runs: kernels.h, ortvk_qdq_group_exact);
 * the CPU EP drops the DequantizeLinear and QuantizeLinear where the scales and zero points agree. */
static void qdq_selection(ortapp *app, const OrtEpDevice *device, const char *name, const char *op, int t, float xs,
                          float ys, uint8_t yz, int where)
{
    onnx_model *m = onnx_model_new(13);
    qin x = {.name = "x", .type = ONNX_FLOAT, .rank = 4, .dims = {1, 8, 10, 10}};
    float *v = alloc_values(&x);
    for (size_t k = 0; k < count_of(&x); k++) v[k] = (float)((int)(next() % 1001) - 500) * fabsf(xs) / 4.0f;
    uint8_t xz = t == ONNX_UINT8 ? 128 : 0;
    onnx_model_add_initializer(m, "xs", ONNX_FLOAT, 0, NULL, &xs, sizeof(float));
    onnx_model_add_initializer(m, "xz", t, 0, NULL, &xz, 1);
    onnx_model_add_initializer(m, "ys", ONNX_FLOAT, 0, NULL, &ys, sizeof(float));
    onnx_model_add_initializer(m, "yz", t, 0, NULL, &yz, 1);
    onnx_model_add_node(m, "QuantizeLinear", (const char *[]){"x", "xs", "xz"}, 3, (const char *[]){"xq"}, 1);
    onnx_model_add_node(m, "DequantizeLinear", (const char *[]){"xq", "xs", "xz"}, 3, (const char *[]){"xd"}, 1);
    onnx_node *n = onnx_model_add_node(m, op, (const char *[]){"xd"}, 1, (const char *[]){"yf"}, 1);
    int64_t kernel[2] = {3, 3}, pads[4] = {1, 1, 1, 1}, perm[4] = {0, 2, 3, 1};
    if (strcmp(op, "MaxPool") == 0) {
        onnx_node_attr_ints(n, "kernel_shape", kernel, 2);
        onnx_node_attr_ints(n, "pads", pads, 4);
    } else if (strcmp(op, "Transpose") == 0) {
        onnx_node_attr_ints(n, "perm", perm, 4);
    }
    onnx_model_add_node(m, "QuantizeLinear", (const char *[]){"yf", "ys", "yz"}, 3, (const char *[]){"y"}, 1);
    onnx_model_add_output(m, "y", t, -1, NULL);
    const char *out[1] = {"y"};
    check_on(app, device, name, m, &x, 1, out, 1, where);
}

/* With ORT's session.disable_quant_qdq = 1 the CPU EP runs a QDQ group as the float ops it is, and so does ortvk:
 * every node on ortvk, the Conv a float Conv (its answer may differ from the CPU EP's by a step, so not compared). */
static void qdq_unfused(ortapp *app, const OrtEpDevice *device)
{
    const OrtApi *api = app->api;
    qdq_case c = {.name = "QDQ Conv uint8, session.disable_quant_qdq"};
    qin x;
    uint8_t *model = NULL;
    size_t len = 0;
    onnx_model *m = NULL;
    qdq_model(&c, &x, &m);
    onnx_model_add_input(m, "x", x.type, x.rank, x.dims);
    if (!test_model_serialize(m, c.name, &model, &len)) {
        free(x.data);
        return;
    }
    char path[64];
    snprintf(path, sizeof(path), "/tmp/ortvk-qdq-off-%d.json", (int)getpid());
    OrtSessionOptions *options = NULL;
    OrtSession *session = NULL;
    ORT_OK(app, api->CreateSessionOptions(&options));
    ORT_OK(app, api->AddSessionConfigEntry(options, "session.disable_quant_qdq", "1"));
    ORT_OK(app, api->AddSessionConfigEntry(options, "session.disable_cpu_ep_fallback", "1"));
    ORT_OK(app, api->SessionOptionsAppendExecutionProvider_V2(options, app->env, &device, 1, NULL, NULL, 0));
    setenv("ORTVK_PROFILE", path, 1);
    ORT_OK(app, api->CreateSessionFromArray(app->env, model, len, options, &session));
    unsetenv("ORTVK_PROFILE");
    OrtValue *in = test_host_tensor(app, x.data, count_of(&x), x.rank, x.dims), *y = NULL;
    const char *in_names[1] = {"x"}, *out_names[1] = {"y"};
    if (session != NULL)
        ORT_OK(app, api->Run(session, NULL, in_names, (const OrtValue *const *)&in, 1, out_names, 1, &y));
    if (y) api->ReleaseValue(y);
    if (in) api->ReleaseValue(in);
    if (session) api->ReleaseSession(session);
    api->ReleaseSessionOptions(options);
    /* ORT folds the constants' DequantizeLinear nodes then: x's is left. */
    int conv = profile_events(path, "Conv"), dq = profile_events(path, "DequantizeLinear");
    int fused = profile_events(path, "QLinearConv");
    if (CHECK(conv == 1 && dq >= 1 && fused == 0, "%s: ortvk's profile has %d Conv, %d DequantizeLinear and %d "
              "QLinearConv events (want the float ops)", c.name, conv, dq, fused))
        printf("%-48s y ok (the float ops, all on ortvk)\n", c.name);
    remove(path);
    free(model);
    free(x.data);
}

/* The block forms' cases (kernel_qmm.comp: blocks of outputs an invocation over operands repacked in 16-byte
 * words, read as texels where the dispatch binds them, else from storage buffers). */
static void block_forms(ortapp *app, const OrtEpDevice *device)
{
    /* K a multiple of 16: 8 x 8 outputs an invocation over B repacked (M = 7 and 9, N = 20 and 13: partial blocks) */
    int64_t a32[2] = {7, 32}, a932[3] = {3, 9, 32}, a948[3] = {3, 9, 48}, b32[2] = {32, 20}, b348[3] = {3, 48, 13};
    matmul(app, device, "MatMulInteger K 32 per-column zero points", 2, a32, 2, b32, ONNX_UINT8, ONNX_UINT8, true, 20,
           -1);
    matmul(app, device, "MatMulInteger K 48 int8 batched A and B", 3, a948, 3, b348, ONNX_INT8, ONNX_INT8, true, 1,
           -1);
    matmul(app, device, "MatMulInteger K 32 uint8 x uint8 batched A", 3, a932, 2, b32, ONNX_UINT8, ONNX_UINT8, false,
           0, -1);
    qlinear(app, device, "QLinearMatMul K 32 uint8 x uint8", 2, a32, 2, b32, ONNX_UINT8, ONNX_UINT8, 0.02f, 0.013f,
            0.7f);
    qlinear(app, device, "QLinearMatMul K 48 int8 batched B, saturating", 3, a948, 3, b348, ONNX_INT8, ONNX_INT8,
            1.0f, 1.0f, 2.0f);
    /* Blocks of 8 output channels by 8 columns over 16 input channels a step: 20 input and 12 output channels a
     * group (a partial step and a partial block), rows of 10 columns */
    int64_t x40[4] = {2, 40, 9, 19}, w12[4] = {24, 20, 3, 3}, w12d[4] = {24, 20, 2, 3};
    conv_attrs blocks = {.strides = {1, 2}, .pads = {1, 1, 1, 1}, .group = 2};
    qconv(app, device, "QLinearConv uint8 x uint8 groups of 20 -> 12 channels", 4, x40, w12, &blocks,
          &(qconv_case){ONNX_UINT8, ONNX_UINT8, 0.05f, 0.002f, 0.3f, true, true, 131, -1, ON_ORTVK});
    qconv(app, device, "QLinearConv int8 x int8 groups of 20 -> 12 channels, dilations", 4, x40, w12d,
          &(conv_attrs){.dilations = {3, 2}, .pads = {2, 0, 1, 3}, .group = 2},
          &(qconv_case){ONNX_INT8, ONNX_INT8, 0.05f, 0.001f, 0.25f, true, true, 5, -1, ON_ORTVK});
    qconv(app, device, "QLinearConv int8 x int8 groups of 20 -> 12 channels, -128", 4, x40, w12, &blocks,
          &(qconv_case){ONNX_INT8, ONNX_INT8, 0.05f, 0.001f, 0.25f, false, true, 0, 0x80, ON_ORTVK});
    conv(app, device, "ConvInteger groups of 20 -> 12 channels", 4, x40, w12, &blocks, true);
    /* Depthwise: 16 channels by 4 columns an invocation; 20 channels (a partial block), strides and dilations */
    int64_t x20[4] = {2, 20, 11, 13}, w20[4] = {20, 1, 3, 3};
    conv_attrs dw20 = {.strides = {2, 1}, .dilations = {1, 2}, .pads = {1, 2, 1, 2}, .group = 20};
    qconv(app, device, "QLinearConv uint8 x uint8 depthwise 20 channels", 4, x20, w20, &dw20,
          &(qconv_case){ONNX_UINT8, ONNX_UINT8, 0.05f, 0.002f, 0.3f, true, true, 131, -1, ON_ORTVK});
    qconv(app, device, "QLinearConv int8 x int8 depthwise 20 channels, -128", 4, x20, w20,
          &(conv_attrs){.pads = {0, 1, 2, 3}, .group = 20},
          &(qconv_case){ONNX_INT8, ONNX_INT8, 0.05f, 0.001f, 0.25f, false, true, 0, 0x80, ON_ORTVK});
    conv(app, device, "ConvInteger depthwise 20 channels", 4, x20, w20, &dw20, true);
}

int main(void)
{
    ortapp app;
    const OrtEpDevice *device;
    test_open(&app, &device);

    int64_t d1[1] = {1003}, d3[3] = {2, 5, 37};
    float s1[1] = {0.5f}, s_odd[1] = {0.0173f}, s5[5] = {0.5f, 0.25f, 0.0173f, 3.0f, 1e-3f};
    uint8_t zu[5] = {128, 0, 255, 3, 77};
    int8_t zs[5] = {0, -128, 127, -3, 50};
    quantize(&app, device, "QuantizeLinear uint8 zp 128 ties NaN inf", 13, 1, d1, 0, 1, s1, ONNX_UINT8, zu, false);
    quantize(&app, device, "QuantizeLinear int8 zp -3 scale 0.0173", 13, 1, d1, 0, 1, s_odd, ONNX_INT8, zs + 3, false);
    quantize(&app, device, "QuantizeLinear uint8 without zero point", 13, 3, d3, 0, 1, s_odd, 0, NULL, false);
    quantize(&app, device, "QuantizeLinear-10 int8 constants", 10, 1, d1, 0, 1, s1, ONNX_INT8, zs + 4, true);
    quantize(&app, device, "QuantizeLinear-19 per-axis uint8 axis 1", 19, 3, d3, 1, 5, s5, ONNX_UINT8, zu, false);
    quantize(&app, device, "QuantizeLinear per-axis int8 axis -2 consts", 13, 3, d3, -2, 5, s5, ONNX_INT8, zs, true);

    int64_t q3[3] = {3, 5, 41};
    dequantize(&app, device, "DequantizeLinear uint8 zp", ONNX_UINT8, 3, q3, 0, 1, true);
    dequantize(&app, device, "DequantizeLinear int8 zp", ONNX_INT8, 3, q3, 0, 1, true);
    dequantize(&app, device, "DequantizeLinear uint8 no zp", ONNX_UINT8, 3, q3, 0, 1, false);
    dequantize(&app, device, "DequantizeLinear int32", ONNX_INT32, 3, q3, 0, 1, false);
    dequantize(&app, device, "DequantizeLinear per-axis uint8 axis 1", ONNX_UINT8, 3, q3, 1, 5, true);
    dequantize(&app, device, "DequantizeLinear per-axis int8 axis -1", ONNX_INT8, 3, q3, -1, 41, true);

    dynamic(&app, device, "DynamicQuantizeLinear [-3, 5] 3 chunks", 7 * 1500, -3.0f, 5.0f, 3);
    dynamic(&app, device, "DynamicQuantizeLinear positive", 7 * 13, 0.25f, 9.0f, 3);
    dynamic(&app, device, "DynamicQuantizeLinear negative", 7 * 13, -9.0f, -0.5f, 3);
    dynamic(&app, device, "DynamicQuantizeLinear zeros", 7 * 3, 0.0f, 0.0f, 3);
    dynamic(&app, device, "DynamicQuantizeLinear, scale and zero point unread", 7 * 99, -1.0f, 3.0f, 1);
    dynamic(&app, device, "DynamicQuantizeLinear empty", 0, -1.0f, 3.0f, 3);
    for (int r = 0; r < 3; r++)
        dynamic(&app, device, "DynamicQuantizeLinear 700000 of every exponent", 700000, 3.0f, 3.0f, 3);

    int64_t a2[2] = {7, 33}, b2[2] = {33, 19}, a3[3] = {3, 7, 33}, b3[3] = {3, 33, 19};
    matmul(&app, device, "MatMulInteger uint8 x uint8", 2, a2, 2, b2, ONNX_UINT8, ONNX_UINT8, false, 0, -1);
    matmul(&app, device, "MatMulInteger uint8 x uint8 zero points", 2, a2, 2, b2, ONNX_UINT8, ONNX_UINT8, true, 1, -1);
    matmul(&app, device, "MatMulInteger uint8 x int8 zero points", 2, a2, 2, b2, ONNX_UINT8, ONNX_INT8, true, 1, -1);
    matmul(&app, device, "MatMulInteger int8 x int8 zero points", 2, a2, 2, b2, ONNX_INT8, ONNX_INT8, true, 1, -1);
    matmul(&app, device, "MatMulInteger per-column zero point of B", 2, a2, 2, b2, ONNX_UINT8, ONNX_UINT8, true, 19,
           -1);
    matmul(&app, device, "MatMulInteger batched A, 2-D B", 3, a3, 2, b2, ONNX_UINT8, ONNX_INT8, true, 1, -1);
    matmul(&app, device, "MatMulInteger batched A and B", 3, a3, 3, b3, ONNX_UINT8, ONNX_UINT8, false, 1, -1);
    /* N a multiple of 4: 4 x 4 outputs an invocation (M = 7: a partial block of rows) */
    int64_t b20[2] = {33, 20}, b320[3] = {3, 33, 20};
    matmul(&app, device, "MatMulInteger N 20 zero points", 2, a2, 2, b20, ONNX_UINT8, ONNX_UINT8, true, 1, -1);
    matmul(&app, device, "MatMulInteger N 20 per-column zero points", 2, a2, 2, b20, ONNX_UINT8, ONNX_UINT8, true,
           20, -1);
    matmul(&app, device, "MatMulInteger N 20 int8 batched A and B", 3, a3, 3, b320, ONNX_INT8, ONNX_INT8, true, 1,
           -1);
    matmul(&app, device, "MatMulInteger N 20 uint8 x int8 batched A", 3, a3, 2, b20, ONNX_UINT8, ONNX_INT8, true, 20,
           -1);
    int64_t aw[2] = {2, 40000}, bw[2] = {40000, 3}, bw4[2] = {40000, 4};
    matmul(&app, device, "MatMulInteger K 40000 N 4 of 255*255 (wraps)", 2, aw, 2, bw4, ONNX_UINT8, ONNX_UINT8,
           false, 0, 255);
    matmul(&app, device, "MatMulInteger K 40000 of 255*255 (wraps)", 2, aw, 2, bw, ONNX_UINT8, ONNX_UINT8, false, 0,
           255);

    qlinear(&app, device, "QLinearMatMul uint8 x uint8", 2, a2, 2, b2, ONNX_UINT8, ONNX_UINT8, 0.02f, 0.013f, 0.7f);
    qlinear(&app, device, "QLinearMatMul uint8 x int8 batched", 3, a3, 2, b2, ONNX_UINT8, ONNX_INT8, 0.1f, 0.03f, 0.9f);
    qlinear(&app, device, "QLinearMatMul int8 x int8 batched B", 3, a3, 3, b3, ONNX_INT8, ONNX_INT8, 0.05f, 0.01f,
            0.3f);
    qlinear(&app, device, "QLinearMatMul saturating, ties", 2, a2, 2, b2, ONNX_UINT8, ONNX_UINT8, 1.0f, 1.0f, 2.0f);
    qlinear(&app, device, "QLinearMatMul y_scale 0", 2, a2, 2, b2, ONNX_UINT8, ONNX_UINT8, 1.0f, 1.0f, 0.0f);
    qlinear(&app, device, "QLinearMatMul N 20 uint8 x uint8", 2, a2, 2, b20, ONNX_UINT8, ONNX_UINT8, 0.02f, 0.013f,
            0.7f);
    qlinear(&app, device, "QLinearMatMul N 20 int8 batched B, saturating", 3, a3, 3, b320, ONNX_INT8, ONNX_INT8, 1.0f,
            1.0f, 2.0f);
    int64_t x4[4] = {2, 4, 11, 13}, w4[4] = {6, 2, 3, 3}, w44[4] = {5, 4, 3, 2}, x3[3] = {2, 3, 30}, w3[3] = {4, 3, 5};
    conv(&app, device, "ConvInteger 3x3 group 2 pads strides", 4, x4, w4,
         &(conv_attrs){.strides = {2, 1}, .pads = {1, 0, 2, 1}, .group = 2}, true);
    conv(&app, device, "ConvInteger 3x2 dilations no zero points", 4, x4, w44,
         &(conv_attrs){.dilations = {2, 3}, .pads = {1, 1, 1, 1}}, false);
    conv(&app, device, "ConvInteger 1-D stride 3", 3, x3, w3, &(conv_attrs){.strides = {3}, .pads = {2, 1}}, true);
    conv(&app, device, "ConvInteger SAME_UPPER", 4, x4, w44, &(conv_attrs){.auto_pad = "SAME_UPPER"}, true);
    /* 70,000 taps an output, 21,847 outputs of which one touches the input: padding must cost nothing */
    int64_t xl[3] = {1, 70000, 1}, wl[3] = {1, 70000, 1};
    conv(&app, device, "ConvInteger 70000 channels, pads of 65537", 3, xl, wl,
         &(conv_attrs){.strides = {3}, .pads = {65537, 3}}, true);

    /* QLinearConv: the CPU EP's generic kernels (uint8 weights, or int8 ones whose zero points are not all 0), its
     * symmetric ones (int8 weights, zero points 0), depthwise, per-channel scales and bias; values whose sums of pairs
     * pass 16 bits (-128 everywhere); output scales that saturate; and one refused: int8 weights of zero points 0 with
     * sums that may pass 2^31, which the CPU EP's symmetric kernels may saturate. */
    int64_t wq[4] = {6, 2, 3, 3}, wd[4] = {4, 1, 3, 3}, xd[4] = {2, 4, 9, 10}, x1[3] = {2, 6, 25}, w1[3] = {5, 6, 4};
    conv_attrs padded = {.strides = {2, 1}, .pads = {1, 0, 2, 1}, .group = 2};
    qconv(&app, device, "QLinearConv uint8 x uint8 group 2 bias", 4, x4, wq, &padded,
          &(qconv_case){ONNX_UINT8, ONNX_UINT8, 0.02f, 0.013f, 0.7f, false, true, 7, -1, ON_ORTVK});
    qconv(&app, device, "QLinearConv uint8 x uint8 per-channel dilations", 4, x4, w44,
          &(conv_attrs){.dilations = {2, 3}, .pads = {1, 1, 1, 1}},
          &(qconv_case){ONNX_UINT8, ONNX_UINT8, 0.05f, 0.002f, 0.3f, true, true, 131, -1, ON_ORTVK});
    qconv(&app, device, "QLinearConv uint8 x uint8 depthwise SAME_UPPER", 4, xd, wd,
          &(conv_attrs){.auto_pad = "SAME_UPPER", .group = 4},
          &(qconv_case){ONNX_UINT8, ONNX_UINT8, 0.1f, 0.01f, 0.2f, true, false, 0, -1, ON_ORTVK});
    qconv(&app, device, "QLinearConv uint8 x uint8 saturating, ties", 4, x4, wq, &padded,
          &(qconv_case){ONNX_UINT8, ONNX_UINT8, 1.0f, 1.0f, 2.0f, false, true, 0, -1, ON_ORTVK});
    qconv(&app, device, "QLinearConv uint8 x uint8 y_scale 0", 4, x4, wq, &padded,
          &(qconv_case){ONNX_UINT8, ONNX_UINT8, 1.0f, 1.0f, 0.0f, false, false, 0, -1, ON_ORTVK});
    qconv(&app, device, "QLinearConv int8 x int8 symmetric per-channel", 4, x4, wq, &padded,
          &(qconv_case){ONNX_INT8, ONNX_INT8, 0.05f, 0.001f, 0.25f, true, true, 0, -1, ON_ORTVK});
    qconv(&app, device, "QLinearConv int8 x int8 -128 everywhere", 4, x4, wq, &padded,
          &(qconv_case){ONNX_INT8, ONNX_INT8, 0.05f, 0.001f, 0.25f, true, true, 0, 0x80, ON_ORTVK});
    qconv(&app, device, "QLinearConv int8 x int8 zero points 5, 1-D", 3, x1, w1, &(conv_attrs){.strides = {3}},
          &(qconv_case){ONNX_INT8, ONNX_INT8, 0.05f, 0.01f, 0.5f, true, true, 5, -1, ON_ORTVK});
    qconv(&app, device, "QLinearConv int8 x int8 depthwise", 4, xd, wd, &(conv_attrs){.pads = {1, 1, 1, 1}, .group = 4},
          &(qconv_case){ONNX_INT8, ONNX_INT8, 0.1f, 0.01f, 0.2f, false, true, 0, -1, ON_ORTVK});
    /* 4 output channels a group: 4 channels by 4 columns an invocation, rows of 6 and 9 columns (partial blocks),
     * columns over padding */
    int64_t w8[4] = {8, 4, 3, 3}, w8g[4] = {8, 2, 3, 3}, w4c[3] = {4, 6, 4};
    conv_attrs columns = {.strides = {1, 2}, .dilations = {2, 1}, .pads = {1, 2, 0, 1}};
    qconv(&app, device, "QLinearConv uint8 x uint8 8 channels by columns", 4, x4, w8, &columns,
          &(qconv_case){ONNX_UINT8, ONNX_UINT8, 0.05f, 0.002f, 0.3f, true, true, 131, -1, ON_ORTVK});
    qconv(&app, device, "QLinearConv int8 x int8 2 groups of 4 symmetric", 4, x4, w8g,
          &(conv_attrs){.pads = {2, 3, 2, 3}, .group = 2},
          &(qconv_case){ONNX_INT8, ONNX_INT8, 0.05f, 0.001f, 0.25f, true, true, 0, -1, ON_ORTVK});
    qconv(&app, device, "QLinearConv int8 x int8 2 groups of 4, -128", 4, x4, w8g, &(conv_attrs){.group = 2},
          &(qconv_case){ONNX_INT8, ONNX_INT8, 0.05f, 0.001f, 0.25f, false, true, 0, 0x80, ON_ORTVK});
    qconv(&app, device, "QLinearConv uint8 x uint8 1-D 4 channels", 3, x1, w4c,
          &(conv_attrs){.strides = {3}, .pads = {2, 1}},
          &(qconv_case){ONNX_UINT8, ONNX_UINT8, 0.1f, 0.003f, 0.5f, false, false, 9, -1, ON_ORTVK});
    conv(&app, device, "ConvInteger 8 channels by columns", 4, x4, w8, &columns, true);
    conv(&app, device, "ConvInteger 2 groups of 4, pads", 4, x4, w8g, &(conv_attrs){.pads = {2, 3, 2, 3}, .group = 2},
         false);
    qconv(&app, device, "QLinearConv uint8 x int8 symmetric", 4, x4, wq, &padded,
          &(qconv_case){ONNX_UINT8, ONNX_INT8, 0.02f, 0.004f, 0.1f, true, true, 0, -1, ON_ORTVK_UNLESS_SATURATING});
    qconv(&app, device, "QLinearConv int8 x int8 output scale 10^6", 4, x4, wq, &padded,
          &(qconv_case){ONNX_INT8, ONNX_INT8, 1.0f, 1.0f, 1e-6f, false, false, 0, -1, ON_ORTVK});
    qconv(&app, device, "QLinearConv int8 70000 taps refused (2^31)", 3, xl, wl, &(conv_attrs){0},
          &(qconv_case){ONNX_INT8, ONNX_INT8, 0.01f, 0.01f, 1.0f, false, true, 0, -1, ON_CPU_EP});
    static const qdq_case qdq_cases[] = {
        {.name = "QDQ Conv uint8"},
        {.name = "QDQ Conv int8", .int8 = true, .where = GROUP_INT8},
        {.name = "QDQ Conv uint8, scales of 2^-k", .xs = 0.125f, .ws = 0.0625f, .ys = 0.5f},
        {.name = "QDQ Conv uint8 per-channel", .ws = 0.002f, .per_channel = true},
        {.name = "QDQ Conv uint8 x int8 per-channel", .int8_weights = true, .ws = 0.002f, .per_channel = true,
         .where = GROUP_FUSED_UNLESS_SATURATING},
        {.name = "QDQ Conv uint8, Relu, y zero point 0", .ys = 0.05f, .relu = true, .y_least = true},
        {.name = "QDQ Conv uint8, Relu, y zero point 120", .relu = true, .where = GROUP_LEFT},
        {.name = "QDQ Conv uint8, its float output read too", .op_output = true, .where = GROUP_LEFT},
        {.name = "QDQ Conv uint8, a node ortvk refuses between", .split = true, .where = GROUP_LEFT},
        {.name = "QDQ MatMul uint8", .matmul = true},
        {.name = "QDQ MatMul uint8 x int8, Relu", .matmul = true, .int8_weights = true, .ys = 0.05f, .relu = true,
         .y_least = true, .where = GROUP_FUSED_UNLESS_SATURATING},
    };
    for (size_t i = 0; i < sizeof(qdq_cases) / sizeof(qdq_cases[0]); i++) qdq_group(&app, device, &qdq_cases[i]);
    qdq_selection(&app, device, "QDQ MaxPool uint8, scales equal", "MaxPool", ONNX_UINT8, 0.02f, 0.02f, 128, ON_ORTVK);
    qdq_selection(&app, device, "QDQ MaxPool int8, scales differ", "MaxPool", ONNX_INT8, 0.02f, 0.03f, 5, ON_ORTVK);
    qdq_selection(&app, device, "QDQ Transpose uint8, scales differ", "Transpose", ONNX_UINT8, 0.02f, 0.013f, 120,
                  ON_ORTVK);
    qdq_selection(&app, device, "QDQ Relu uint8 (zero point 128)", "Relu", ONNX_UINT8, 0.02f, 0.02f, 128, ON_ORTVK);
    qdq_selection(&app, device, "QDQ MaxPool uint8, a negative scale", "MaxPool", ONNX_UINT8, -0.02f, -0.02f, 128,
                  QDQ_ON_CPU_EP);
    qdq_unfused(&app, device);
    printf("-- the block forms, B and w constants (repacked at Compile)\n");
    weights_given = WEIGHTS_CONSTANT;
    block_forms(&app, device);
    printf("-- the block forms, B and w graph inputs (repacked in each run)\n");
    weights_given = WEIGHTS_INPUT;
    block_forms(&app, device);
    printf("-- the block forms again, B and w constants, every operand read from its storage buffer "
           "(ORTVK_TEXEL_READS=off)\n");
    fflush(stdout);
    setenv("ORTVK_TEXEL_READS", "off", 1);
    weights_given = WEIGHTS_CONSTANT;
    block_forms(&app, device);
    unsetenv("ORTVK_TEXEL_READS");
    return test_finish(&app, "test_kernels_quant");
}
