/* ortvk's quantized ops against ORT's CPU EP, every node on ortvk (uint8 x int8 products where this CPU's CPU EP
 * does not saturate them), outputs compared byte for byte:
 * Quantize/DequantizeLinear (ties, NaN, infinities, saturation, per-axis), DynamicQuantizeLinear, MatMulInteger (zero
 * points, per-column, batches, int32 wrap-around), QLinearMatMul and ConvInteger (pads, strides, dilations, groups,
 * 1-D, SAME), QLinearConv; the block forms with B and w as constants and as graph inputs; QDQ groups left to the
 * CPU EP. */
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

/* A QDQ convolution (the format of ORT's quantizer): x -> QuantizeLinear -> DequantizeLinear -> Conv over
 * DequantizeLinear of constant w and of an int32 bias of scale xs * ws -> QuantizeLinear -> y, of type t. The CPU
 * EP fuses the group after the first QuantizeLinear into QLinearConv; ortvk's float ops differed from it in one
 * byte of 2,304 (scales not powers of 2), so ortvk leaves the group to it (kernels.h, ortvk_nodes_qdq_groups). */
static void qdq_conv(ortapp *app, const OrtEpDevice *device, const char *name, int t, const int64_t *x,
                     const int64_t *w, float xs, float ws, float ys)
{
    onnx_model *m = onnx_model_new(13);
    qin ins[1] = {{.name = "x", .type = ONNX_FLOAT, .rank = 4}};
    memcpy(ins[0].dims, x, 4 * sizeof(int64_t));
    float *v = alloc_values(&ins[0]);
    for (size_t k = 0; k < count_of(&ins[0]); k++) v[k] = (float)((int)(next() % 1001) - 500) * xs / 4.0f;
    qin wq = {.type = t, .rank = 4};
    memcpy(wq.dims, w, 4 * sizeof(int64_t));
    random_bytes(&wq);
    int64_t M = w[0], bd[1] = {M};
    int32_t *b = calloc((size_t)M, sizeof(int32_t));
    for (int64_t k = 0; k < M; k++) b[k] = (int32_t)(next() % 20001) - 10000;
    uint8_t xz = t == ONNX_UINT8 ? 128 : 0, wz = t == ONNX_UINT8 ? 128 : 0, yz = t == ONNX_UINT8 ? 120 : 3;
    float bs = xs * ws;
    int32_t bz = 0;
    onnx_model_add_initializer(m, "xs", ONNX_FLOAT, 0, NULL, &xs, sizeof(float));
    onnx_model_add_initializer(m, "xz", t, 0, NULL, &xz, 1);
    onnx_model_add_initializer(m, "wq", t, 4, w, wq.data, count_of(&wq));
    onnx_model_add_initializer(m, "ws", ONNX_FLOAT, 0, NULL, &ws, sizeof(float));
    onnx_model_add_initializer(m, "wz", t, 0, NULL, &wz, 1);
    onnx_model_add_initializer(m, "bq", ONNX_INT32, 1, bd, b, (size_t)M * sizeof(int32_t));
    onnx_model_add_initializer(m, "bs", ONNX_FLOAT, 0, NULL, &bs, sizeof(float));
    onnx_model_add_initializer(m, "bz", ONNX_INT32, 0, NULL, &bz, sizeof(int32_t));
    onnx_model_add_initializer(m, "ys", ONNX_FLOAT, 0, NULL, &ys, sizeof(float));
    onnx_model_add_initializer(m, "yz", t, 0, NULL, &yz, 1);
    free(wq.data);
    free(b);
    const char *q1[3] = {"x", "xs", "xz"}, *o1[1] = {"xq"}, *d1[3] = {"xq", "xs", "xz"}, *o2[1] = {"xd"};
    const char *d2[3] = {"wq", "ws", "wz"}, *o3[1] = {"wd"}, *d3[3] = {"bq", "bs", "bz"}, *o4[1] = {"bd"};
    const char *cv[3] = {"xd", "wd", "bd"}, *o5[1] = {"yf"}, *q2[3] = {"yf", "ys", "yz"}, *out[1] = {"y"};
    onnx_model_add_node(m, "QuantizeLinear", q1, 3, o1, 1);
    onnx_model_add_node(m, "DequantizeLinear", d1, 3, o2, 1);
    onnx_model_add_node(m, "DequantizeLinear", d2, 3, o3, 1);
    onnx_model_add_node(m, "DequantizeLinear", d3, 3, o4, 1);
    int64_t pads[4] = {1, 1, 1, 1};
    onnx_node_attr_ints(onnx_model_add_node(m, "Conv", cv, 3, o5, 1), "pads", pads, 4);
    onnx_model_add_node(m, "QuantizeLinear", q2, 3, out, 1);
    onnx_model_add_output(m, "y", t, -1, NULL);
    check_on(app, device, name, m, ins, 1, out, 1, QDQ_ON_CPU_EP);
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
    int64_t qdq_x[4] = {1, 16, 12, 12}, qdq_w[4] = {16, 16, 3, 3};
    qdq_conv(&app, device, "QDQ Conv uint8", ONNX_UINT8, qdq_x, qdq_w, 0.02f, 0.005f, 0.1f);
    qdq_conv(&app, device, "QDQ Conv int8", ONNX_INT8, qdq_x, qdq_w, 0.02f, 0.005f, 0.1f);
    qdq_conv(&app, device, "QDQ Conv uint8, scales of 2^-k", ONNX_UINT8, qdq_x, qdq_w, 0.125f, 0.0625f, 0.5f);
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
