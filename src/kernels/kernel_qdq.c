/* QDQ groups (DequantizeLinear nodes -> Conv or MatMul -> QuantizeLinear, the form of ORT's quantizer) read as the
 * one integer node ORT's CPU EP runs in their place, QLinearConv or QLinearMatMul, which rounds once where the float
 * ops would round at each step; and the groups that answer alike however they run (docs/kernels.md, "QDQ groups").
 * kernels.c finds the groups. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "kernels/kernel_partition.h"

#define T_UINT8 ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8
#define T_INT8 ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8
#define T_INT32 ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32

/* A group's nodes: its centre, the DequantizeLinear making each of the centre's inputs, the Relu between the centre
 * and the QuantizeLinear (or none), and that QuantizeLinear. */
typedef struct qdq_nodes {
    ortvk_knode centre, dq[3], relu, q;
    bool has_dq[3], has_relu, has_q;
} qdq_nodes;

static bool is_op(const ortvk_knode *k, const char *op)
{
    return strcmp(k->op_type, op) == 0 && (k->domain[0] == '\0' || strcmp(k->domain, "ai.onnx") == 0);
}

/* Whether ORT's CPU EP fuses groups of int8 activations as they are. Its QDQ fusion takes them only where MLAS has
 * int8 x int8 kernels it prefers (ARM: QDQIsInt8Allowed); on x86 it first rewrites a QuantizeLinear ->
 * DequantizeLinear pair to uint8 under conditions of its own (one reader, constant zero points), and fuses the group
 * only where every pair around it was rewritten. ortvk does not predict that: on x86 such groups stay with it. */
static bool cpu_ep_fuses_int8(void)
{
#if defined(__aarch64__) || defined(__arm__)
    return true;
#else
    return false;
#endif
}

/* Whether value `v` is read by exactly one node and is no graph output: a value inside a group, which the fused
 * node does not write. */
static bool inner_value(const ortvk_kvalue *v)
{
    size_t consumers = 0;
    bool output = true;
    if (v->info == NULL) return false;
    OrtStatus *status = ortvk_ort->ValueInfo_GetValueNumConsumers(v->info, &consumers);
    if (status == NULL) status = ortvk_ort->ValueInfo_IsGraphOutput(v->info, &output);
    if (status != NULL) {
        ortvk_ort->ReleaseStatus(status);
        return false;
    }
    return consumers == 1 && !output;
}

/* Reads the members of the group of `centre` and places each: refuses a group of another shape than one
 * DequantizeLinear an input of the centre, at most one Relu, and one QuantizeLinear. */
static bool read_members(const OrtNode *const *nodes, size_t count, const ptrdiff_t *group, size_t centre,
                         qdq_nodes *g, char *why, size_t why_len)
{
    if (!ortvk_knode_read(nodes[centre], &g->centre, why, why_len)) return false;
    const ortvk_knode *c = &g->centre;
    bool conv = is_op(c, "Conv");
    if (c->n_in < 2 || !c->in[0].present || !c->in[1].present)
        return ortvk_krefuse(why, why_len, "a QDQ group whose op lacks an input");
    if (!(conv && (c->n_in == 2 || c->n_in == 3)) && !(is_op(c, "MatMul") && c->n_in == 2))
        return ortvk_krefuse(why, why_len, "a QDQ group of a %s; ortvk fuses those of a Conv or a MatMul", c->op_type);
    if (c->n_out != 1) return ortvk_krefuse(why, why_len, "a QDQ group whose op has %zu outputs", c->n_out);
    ortvk_knode *k = malloc(sizeof(*k));
    bool ok = k != NULL || ortvk_krefuse(why, why_len, "out of host memory");
    for (size_t j = 0; j < count && ok; j++) {
        if (j == centre || group[j] != (ptrdiff_t)centre) continue;
        ok = ortvk_knode_read(nodes[j], k, why, why_len);
        if (ok && is_op(k, "DequantizeLinear") && k->n_out == 1) {
            bool placed = false;
            for (size_t i = 0; i < c->n_in && !placed; i++) {
                placed = !g->has_dq[i] && c->in[i].present && strcmp(c->in[i].name, k->out[0].name) == 0;
                if (placed) g->dq[i] = *k, g->has_dq[i] = true;
            }
            ok = placed || ortvk_krefuse(why, why_len, "a DequantizeLinear of a QDQ group read twice");
        } else if (ok && is_op(k, "Relu") && !g->has_relu) {
            g->relu = *k, g->has_relu = true;
        } else if (ok && is_op(k, "QuantizeLinear") && !g->has_q) {
            g->q = *k, g->has_q = true;
        } else if (ok) {
            ok = ortvk_krefuse(why, why_len, "a QDQ group with a %s in it, or a second QuantizeLinear or Relu",
                               k->op_type);
        }
    }
    free(k);
    for (size_t i = 0; i < c->n_in && ok; i++) {
        if (c->in[i].present && !g->has_dq[i])
            ok = ortvk_krefuse(why, why_len, "a QDQ group whose op reads input %zu (%s) from no DequantizeLinear", i,
                               c->in[i].name);
    }
    /* The centre's output goes to the QuantizeLinear, through the Relu if any. */
    const ortvk_kvalue *into_q = g->has_relu ? &g->relu.out[0] : &c->out[0];
    if (ok && (!g->has_q || g->q.n_in < 3 || !g->q.in[2].present || strcmp(g->q.in[0].name, into_q->name) != 0 ||
               (g->has_relu && strcmp(g->relu.in[0].name, c->out[0].name) != 0)))
        ok = ortvk_krefuse(why, why_len, "a QDQ group without one QuantizeLinear with a zero point after its op");
    return ok;
}

/* The values of constant scale input 1 of Quantize/DequantizeLinear node `k` (malloc'd, *count of them), or NULL
 * where it is not a constant float (or float16) tensor. */
static float *const_scales(const ortvk_knode *k, size_t *count)
{
    size_t n = k->n_in > 1 && k->in[1].rank == 1 && k->in[1].dims[0] > 0 ? (size_t)k->in[1].dims[0] : 1;
    float *s = malloc(n * sizeof(float));
    if (s != NULL && ortvk_knode_const_floats(k, 1, s, n, count) && *count >= 1) return s;
    free(s);
    return NULL;
}

/* Whether the bias's DequantizeLinear is one the CPU EP fuses as QLinearConv's int32 bias, which takes x's scale
 * times w's as its scale: int32, of constant scales (its own, x's, w's) each one that product exactly and finite,
 * zero points 0. Measured: a bias scale 100 times that product, or infinite, is not fused so (its answer is the
 * float ops'); ortvk asks for the exact product, which the CPU EP fuses, and leaves other groups to it. */
static bool bias_fits(const qdq_nodes *g)
{
    const ortvk_knode *b = &g->dq[2];
    int64_t block = 0;
    if (b->in[0].type != T_INT32 || !ortvk_knode_int(b, "block_size", 0, &block) || block != 0) return false;
    size_t nx = 0, nw = 0, nb = 0;
    float *xs = const_scales(&g->dq[0], &nx), *ws = const_scales(&g->dq[1], &nw), *bs = const_scales(b, &nb);
    bool ok = xs != NULL && ws != NULL && bs != NULL && nx == 1 && (nw == nb || nw == 1);
    for (size_t i = 0; ok && i < nb; i++) {
        float want = xs[0] * ws[nw == 1 ? 0 : i];
        ok = isfinite(want) && bs[i] == want;
    }
    size_t nz = 0; /* zero points, one a scale */
    if (ok && b->n_in > 2 && b->in[2].present) {
        int64_t *z = malloc(nb * sizeof(int64_t));
        ok = z != NULL && ortvk_knode_const_ints(b, 2, z, nb, &nz);
        for (size_t i = 0; ok && i < nz; i++) ok = z[i] == 0;
        free(z);
    }
    free(xs);
    free(ws);
    free(bs);
    return ok;
}

/* The group's checks beyond its shape: each member a node ortvk runs, the values between them read by no other node,
 * and the types, scales and zero points of a group ORT's CPU EP fuses into the integer node ortvk runs. */
static bool group_fits(const qdq_nodes *g, const ortvk_device_caps *caps, char *why, size_t why_len)
{
    const ortvk_knode *c = &g->centre;
    if (!ortvk_knode_supported(c, caps, why, why_len) || !ortvk_knode_supported(&g->q, caps, why, why_len) ||
        (g->has_relu && !ortvk_knode_supported(&g->relu, caps, why, why_len)))
        return false;
    /* The bias's DequantizeLinear is not run: the CPU EP passes on its int32 values alone. */
    for (size_t i = 0; i < c->n_in; i++) {
        if (!g->has_dq[i]) continue;
        if (i < 2 && !ortvk_knode_supported(&g->dq[i], caps, why, why_len)) return false;
        if (!inner_value(&g->dq[i].out[0]))
            return ortvk_krefuse(why, why_len, "a QDQ group whose DequantizeLinear output %s is read elsewhere too",
                                 g->dq[i].out[0].name);
    }
    if (!inner_value(&c->out[0]) || (g->has_relu && !inner_value(&g->relu.out[0])))
        return ortvk_krefuse(why, why_len, "a QDQ group whose op's output is read elsewhere too");
    ONNXTensorElementDataType x = g->dq[0].in[0].type, w = g->dq[1].in[0].type;
    if (g->q.out[0].type != x)
        return ortvk_krefuse(why, why_len, "a QDQ group whose input and output types differ (the CPU EP runs it in "
                             "float)");
    if (x == T_INT8 && (!cpu_ep_fuses_int8() || w != T_INT8))
        return ortvk_krefuse(why, why_len, "a QDQ group of int8 activations, which the CPU EP on this CPU fuses "
                             "only under conditions ortvk does not reproduce");
    for (size_t i = 0; i < 2; i++) {
        if (g->dq[i].n_in < 3 || !g->dq[i].in[2].present)
            return ortvk_krefuse(why, why_len, "a QDQ group whose DequantizeLinear of input %zu has no zero point", i);
    }
    if (c->n_in == 3 && !bias_fits(g))
        return ortvk_krefuse(why, why_len, "a QDQ group whose bias is not int32 of scale x's times w's (constants, "
                             "finite), zero point 0");
    /* w's scales one an output channel: along w's axis 0 (DequantizeLinear's default axis is 1). */
    const ortvk_kvalue *ws = &g->dq[1].in[1];
    int64_t axis = 1;
    if (ws->rank == 1 && ws->dims[0] != 1 &&
        !(is_op(c, "Conv") && ortvk_knode_int(&g->dq[1], "axis", 1, &axis) &&
          (axis == 0 || axis == -(int64_t)g->dq[1].in[0].rank)))
        return ortvk_krefuse(why, why_len, "a QDQ group whose weights' scales are along axis %lld", (long long)axis);
    /* A Relu before the QuantizeLinear changes nothing where the QuantizeLinear's zero point is its type's least
     * value (ORT's CPU EP then drops it); elsewhere it would, and the CPU EP runs the group in float. */
    const uint8_t *zp = NULL;
    size_t n = 0;
    if (g->has_relu && !(ortvk_knode_const_bytes(&g->q, 2, &zp, &n) && n == 1 && zp[0] == (x == T_INT8 ? 0x80 : 0)))
        return ortvk_krefuse(why, why_len, "a QDQ group with a Relu before a QuantizeLinear whose zero point is not "
                             "its type's least value");
    return true;
}

bool ortvk_qdq_read(const OrtNode *const *nodes, size_t count, const ptrdiff_t *group, size_t centre,
                    const ortvk_device_caps *caps, ortvk_knode *out, char *why, size_t why_len)
{
    qdq_nodes *g = calloc(1, sizeof(*g));
    if (g == NULL) return ortvk_krefuse(why, why_len, "out of host memory");
    bool ok = read_members(nodes, count, group, centre, g, why, why_len) && group_fits(g, caps, why, why_len);
    if (ok) {
        /* QLinearConv's and QLinearMatMul's inputs: x, its scale and zero point, w's three, y's scale and zero
         * point, and QLinearConv's int32 bias (whose own scale the CPU EP drops: x's scale times w's, it assumes). */
        const ortvk_knode *c = &g->centre;
        memset(out, 0, sizeof(*out));
        out->node = c->node;
        out->op_type = is_op(c, "Conv") ? "QLinearConv" : "QLinearMatMul";
        out->domain = "";
        out->name = c->name;
        out->opset = 10;
        out->n_attrs = c->n_attrs;
        memcpy(out->attrs, c->attrs, sizeof(out->attrs));
        for (size_t i = 0; i < 2; i++) memcpy(&out->in[3 * i], g->dq[i].in, 3 * sizeof(out->in[0]));
        out->in[6] = g->q.in[1];
        out->in[7] = g->q.in[2];
        if (c->n_in == 3) out->in[8] = g->dq[2].in[0];
        out->n_in = c->n_in == 3 ? 9 : 8;
        out->out[0] = g->q.out[0];
        out->n_out = 1;
        ok = ortvk_knode_supported(out, caps, why, why_len);
    }
    free(g);
    return ok;
}

bool ortvk_qdq_group_supported(const OrtNode *const *nodes, size_t count, const ptrdiff_t *group, size_t centre,
                               const ortvk_device_caps *caps, char *why, size_t why_len)
{
    if (!caps->push_descriptor) return ortvk_krefuse(why, why_len, "the device lacks VK_KHR_push_descriptor");
    ortvk_knode *fused = malloc(sizeof(*fused));
    bool ok = fused != NULL ? ortvk_qdq_read(nodes, count, group, centre, caps, fused, why, why_len)
                            : ortvk_krefuse(why, why_len, "out of host memory");
    free(fused);
    return ok;
}

/* Ops that only select or move their input's values (Relu: them or 0). */
static bool selects_values(const ortvk_knode *k)
{
    static const char *const ops[] = {"Identity", "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Transpose",
                                      "Slice", "Split", "Gather", "Expand", "Tile", "DepthToSpace", "SpaceToDepth",
                                      "MaxPool", "Relu"};
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
        if (is_op(k, ops[i])) return true;
    }
    return false;
}

/* Whether a DequantizeLinear's or QuantizeLinear's scale (input 1) is a constant whose values are all positive normal
 * floats below FLT_MAX / 256 (so that (x - zero point) times one stays finite): then a value dequantized and
 * quantized back by equal scales and zero points is itself, and dequantized values keep their integers' order. */
static bool normal_scales(const ortvk_knode *k)
{
    size_t n = 0;
    float *s = const_scales(k, &n);
    bool ok = s != NULL;
    for (size_t i = 0; ok && i < n; i++) ok = isnormal(s[i]) && s[i] > 0.0f && s[i] < FLT_MAX / 256.0f;
    free(s);
    return ok;
}

bool ortvk_qdq_group_exact(const OrtNode *const *nodes, size_t count, const ptrdiff_t *group, size_t centre)
{
    ortvk_knode *k = malloc(sizeof(*k));
    char why[8];
    bool ok = k != NULL && ortvk_knode_read(nodes[centre], k, why, sizeof(why)) && selects_values(k);
    for (size_t j = 0; j < count && ok; j++) {
        if (j == centre || group[j] != (ptrdiff_t)centre) continue;
        ok = ortvk_knode_read(nodes[j], k, why, sizeof(why)) &&
             (is_op(k, "Relu") ||
              ((is_op(k, "DequantizeLinear") || is_op(k, "QuantizeLinear")) && normal_scales(k)));
    }
    free(k);
    return ok;
}
