/* LSTM, GRU and RNN on the device, as ORT's CPU EP computes them (float32, layout 0, the default activations and the
 * RNN's Relu and Sigmoid, no clip): X W^T for every step at once through the GEMM shader, then one dispatch per time
 * step (two for GRU) of shaders/kernel_rnn.comp over every direction and batch entry. */
#include <stddef.h>
#include <string.h>

#include "kernels/kernel_internal.h"

/* hidden_size and input_size past this are left to the CPU EP: a unit's dot products are loops of H (and the GEMM's
 * of input_size) iterations, far below lavapipe's loop cap in ORTVK_FOR's blocks. */
#define RNN_MAX_SIZE 65536
/* The batch's lengths are read on the host (ortvk_krun_host_ints). */
#define RNN_MAX_BATCH ORTVK_KHOST_MAX

enum { IN_X, IN_W, IN_R, IN_B, IN_LENS, IN_H0, IN_C0, IN_P };

static const char *cell_name(uint32_t cell)
{
    return cell == ORTVK_RNN_LSTM ? "LSTM" : cell == ORTVK_RNN_GRU ? "GRU" : "RNN";
}

static uint32_t cell_gates(uint32_t cell)
{
    return cell == ORTVK_RNN_LSTM ? 4 : cell == ORTVK_RNN_GRU ? 3 : 1;
}

/* The `activations` attribute's names (each ended by a NUL in `buf`): *count = 0 when absent. */
static bool activation_names(const ortvk_knode *node, char *buf, size_t max, const char **names, int *count)
{
    const ortvk_kattr *a = NULL;
    for (size_t i = 0; i < node->n_attrs; i++)
        if (strcmp(node->attrs[i].name, "activations") == 0) a = &node->attrs[i];
    *count = 0;
    if (a == NULL) return true;
    size_t size = 0;
    if (a->type != ORT_OP_ATTR_STRINGS) return false;
    OrtStatus *status = ortvk_ort->ReadOpAttr(a->attr, ORT_OP_ATTR_STRINGS, buf, max - 1, &size);
    if (status != NULL) {
        ortvk_ort->ReleaseStatus(status);
        return false;
    }
    buf[size < max - 1 ? size : max - 1] = '\0';
    for (size_t at = 0; at < size; (*count)++) {
        if (*count == 6) return false; /* more than 3 names for each of 2 directions */
        names[*count] = buf + at;
        at += strnlen(buf + at, size - at) + 1;
    }
    return true;
}

/* Whether the activations are the ones implemented: LSTM's and GRU's defaults (absent, or spelled as the schema
 * does, per direction); for the RNN one of Tanh, Relu and Sigmoid (*fn), the same for both directions. ORT's CPU
 * EP fills the RNN's schema default {"Tanh", "Tanh"} in and, with one direction, takes the first of two names. */
static bool activations(const ortvk_knode *node, uint32_t cell, int directions, uint32_t *fn)
{
    static const char *const lstm[] = {"Sigmoid", "Tanh", "Tanh"}, *const rnn[] = {"Tanh", "Relu", "Sigmoid"};
    char buf[256];
    const char *names[6];
    int count = 0;
    *fn = ORTVK_RNN_TANH;
    if (!activation_names(node, buf, sizeof(buf), names, &count)) return false;
    if (count == 0) return true;
    if (cell != ORTVK_RNN_RNN) {
        int per = cell == ORTVK_RNN_LSTM ? 3 : 2;
        if (count != per * directions) return false;
        for (int i = 0; i < count; i++)
            if (strcmp(names[i], lstm[i % per]) != 0) return false;
        return true;
    }
    if (count != directions && !(directions == 1 && count == 2)) return false;
    for (uint32_t k = 0; k < 3; k++) {
        if (strcmp(names[0], rnn[k]) == 0 && (directions == 1 || strcmp(names[1], rnn[k]) == 0)) {
            *fn = k;
            return true;
        }
    }
    return false;
}

/* The inputs' and outputs' types: float32 (ORT's CPU EP runs float only; float16 models run it between Casts),
 * sequence_lens int32 and known on the host. */
static bool rnn_types(const ortvk_knode *node, char *why, size_t why_len)
{
    for (size_t i = 0; i < node->n_in; i++) {
        const ortvk_kvalue *v = &node->in[i];
        if (i == IN_LENS) {
            if (v->present && v->type != ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32)
                return ortvk_krefuse(why, why_len, "sequence_lens is not int32");
            if (v->present && v->constant == NULL && !ortvk_knode_host_ints(node, i))
                return ortvk_krefuse(why, why_len, "sequence_lens is neither constant nor known on the host");
        } else if ((i < IN_B || v->present) && v->type != ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT) {
            return ortvk_krefuse(why, why_len, "input %zu is not float32", i);
        }
    }
    for (size_t i = 0; i < node->n_out; i++) {
        if (node->out[i].present && node->out[i].type != ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT)
            return ortvk_krefuse(why, why_len, "output %zu is not float32", i);
    }
    return true;
}

static bool rnn_prepare(const ortvk_knode *node, ortvk_kparams *params, char *why, size_t why_len)
{
    ortvk_kparams_rnn *p = &params->rnn;
    p->cell = strcmp(node->op_type, "LSTM") == 0 ? ORTVK_RNN_LSTM
              : strcmp(node->op_type, "GRU") == 0 ? ORTVK_RNN_GRU : ORTVK_RNN_RNN;
    size_t max_in = p->cell == ORTVK_RNN_LSTM ? 8 : 6, max_out = p->cell == ORTVK_RNN_LSTM ? 3 : 2;
    if (node->n_in < 3 || node->n_in > max_in || node->n_out > max_out)
        return ortvk_krefuse(why, why_len, "%zu inputs and %zu outputs", node->n_in, node->n_out);
    if (!rnn_types(node, why, why_len)) return false;
    char direction[32];
    int64_t layout = 0, input_forget = 0;
    if (!ortvk_knode_int(node, "hidden_size", 0, &p->hidden) || p->hidden <= 0 || p->hidden > RNN_MAX_SIZE)
        return ortvk_krefuse(why, why_len, "hidden_size %lld (1 to %d)", (long long)p->hidden, RNN_MAX_SIZE);
    if (!ortvk_knode_string(node, "direction", direction, sizeof(direction)))
        return ortvk_krefuse(why, why_len, "direction is not a string");
    if (direction[0] != '\0' && strcmp(direction, "forward") != 0 && strcmp(direction, "reverse") != 0 &&
        strcmp(direction, "bidirectional") != 0)
        return ortvk_krefuse(why, why_len, "direction %s", direction);
    p->directions = strcmp(direction, "bidirectional") == 0 ? 2 : 1;
    p->reverse = strcmp(direction, "reverse") == 0;
    /* layout 1 fails ORT's CPU EP kernels; clip and input_forget are not implemented here. */
    if (!ortvk_knode_int(node, "layout", 0, &layout) || layout != 0)
        return ortvk_krefuse(why, why_len, "layout %lld", (long long)layout);
    if (ortvk_knode_has(node, "clip")) return ortvk_krefuse(why, why_len, "clip");
    if (!ortvk_knode_int(node, "input_forget", 0, &input_forget) || input_forget != 0)
        return ortvk_krefuse(why, why_len, "input_forget %lld", (long long)input_forget);
    if (!ortvk_knode_bool(node, "linear_before_reset", false, &p->linear_before_reset))
        return ortvk_krefuse(why, why_len, "linear_before_reset is not 0 or 1");
    if (!activations(node, p->cell, p->directions, &p->activation))
        return ortvk_krefuse(why, why_len, "activations other than the defaults (RNN: Tanh, Relu or Sigmoid)");
    /* input_size 0: ORT's CPU EP leaves X W^T uninitialized (its GEMM of K = 0 writes nothing). */
    const ortvk_kvalue *w = &node->in[IN_W];
    if (w->rank == 3 && (w->dims[2] > RNN_MAX_SIZE || w->dims[2] == 0))
        return ortvk_krefuse(why, why_len, "input_size %lld (1 to %d)", (long long)w->dims[2], RNN_MAX_SIZE);
    return true;
}

/* Whether input `i` is present with `rank` dims equal to `dims` (-1: any). */
static bool dims_are(const ortvk_krun *run, size_t i, size_t rank, const int64_t *dims)
{
    const ortvk_ktensor *t = &run->in[i];
    if (t->rank != rank) return false;
    for (size_t d = 0; d < rank; d++)
        if (dims[d] >= 0 && t->dims[d] != dims[d]) return false;
    return true;
}

static bool optional(const ortvk_krun *run, size_t i)
{
    return i < run->n_in && run->in[i].present;
}

/* The inputs' shapes, checked as ORT's CPU EP checks them (ValidateCommonRnnInputs and LSTM's P and initial_c). */
static OrtStatus *rnn_check(const ortvk_kparams_rnn *p, const ortvk_krun *run)
{
    const char *op = cell_name(p->cell);
    const ortvk_ktensor *x = &run->in[IN_X];
    if (x->rank != 3) return ortvk_status(ORT_INVALID_ARGUMENT, "%s: X of rank %zu (3 expected)", op, x->rank);
    int64_t D = p->directions, H = p->hidden, G = cell_gates(p->cell) * H, S = x->dims[0], B = x->dims[1];
    int64_t w[3] = {D, G, x->dims[2]}, r[3] = {D, G, H}, b[2] = {D, 2 * G}, lens[1] = {B}, h0[3] = {D, B, H};
    int64_t peep[2] = {D, 3 * H};
    if (!dims_are(run, IN_W, 3, w))
        return ortvk_status(ORT_INVALID_ARGUMENT, "%s: W must have shape {%lld, %lld, %lld}", op, (long long)D,
                            (long long)G, (long long)x->dims[2]);
    if (!dims_are(run, IN_R, 3, r))
        return ortvk_status(ORT_INVALID_ARGUMENT, "%s: R must have shape {%lld, %lld, %lld}", op, (long long)D,
                            (long long)G, (long long)H);
    if (optional(run, IN_B) && !dims_are(run, IN_B, 2, b))
        return ortvk_status(ORT_INVALID_ARGUMENT, "%s: B must have shape {%lld, %lld}", op, (long long)D,
                            (long long)(2 * G));
    if (optional(run, IN_LENS) && !dims_are(run, IN_LENS, 1, lens))
        return ortvk_status(ORT_INVALID_ARGUMENT, "%s: sequence_lens must have shape {%lld}", op, (long long)B);
    if (optional(run, IN_H0) && !dims_are(run, IN_H0, 3, h0))
        return ortvk_status(ORT_FAIL, "%s: initial_h must have shape {%lld, %lld, %lld}", op, (long long)D,
                            (long long)B, (long long)H);
    if (optional(run, IN_C0) && !dims_are(run, IN_C0, 3, h0))
        return ortvk_status(ORT_FAIL, "%s: initial_c must have shape {%lld, %lld, %lld}", op, (long long)D,
                            (long long)B, (long long)H);
    if (optional(run, IN_P) && !dims_are(run, IN_P, 2, peep))
        return ortvk_status(ORT_INVALID_ARGUMENT, "%s: P must have shape {%lld, %lld}", op, (long long)D,
                            (long long)(3 * H));
    if (x->dims[2] == 0 || x->dims[2] > RNN_MAX_SIZE || B > RNN_MAX_BATCH)
        return ortvk_status(ORT_EP_FAIL, "%s: input_size %lld (1 to %d; ORT's CPU EP gives no defined answer for 0) "
                            "or batch %lld (at most %d)", op, (long long)x->dims[2], RNN_MAX_SIZE, (long long)B,
                            RNN_MAX_BATCH);
    if (S == 0) return ortvk_status(ORT_EP_FAIL, "%s: X has no time steps", op);
    return NULL;
}

static OrtStatus *rnn_shape(const ortvk_kparams *params, ortvk_krun *run)
{
    const ortvk_kparams_rnn *p = &params->rnn;
    ORTVK_TRY(rnn_check(p, run));
    const ortvk_ktensor *x = &run->in[IN_X];
    for (size_t i = 0; i < run->n_out; i++) {
        ortvk_ktensor *y = &run->out[i];
        y->type = ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;
        y->rank = i == 0 ? 4 : 3;
        int64_t *d = y->dims;
        if (i == 0) *d++ = x->dims[0];
        d[0] = p->directions, d[1] = x->dims[1], d[2] = p->hidden;
    }
    return NULL;
}

typedef struct push_rnn {
    uint64_t work, r, y, x, w;
    uint32_t S, B, H, D;
    uint32_t step, flags;
    uint32_t proj, h_in, h_out, c, zr, bias, peep, lens;
    uint32_t I;
} push_rnn;
_Static_assert(offsetof(push_rnn, S) == 40 && offsetof(push_rnn, I) == 96 && sizeof(push_rnn) <= 128,
               "push_rnn matches kernel_rnn.comp's push constants");

/* The batch's lengths as words in a device buffer (all S without sequence_lens), checked as the CPU EP does. */
static OrtStatus *rnn_lengths(const ortvk_kparams_rnn *p, ortvk_krun *run, uint32_t S, uint32_t B,
                              VkDeviceAddress *out)
{
    uint32_t *words = NULL;
    int64_t *lens = NULL;
    size_t n = 0;
    ORTVK_TRY(ortvk_krun_host(run, (size_t)B * sizeof(uint32_t), (void **)&words));
    bool given = optional(run, IN_LENS);
    if (given) {
        ORTVK_TRY(ortvk_krun_host(run, (size_t)B * sizeof(int64_t), (void **)&lens));
        if (!ortvk_krun_host_ints(run, IN_LENS, lens, B, &n) || n != B)
            return ortvk_status(ORT_EP_FAIL, "%s: sequence_lens is not known on the host", cell_name(p->cell));
    }
    for (uint32_t b = 0; b < B; b++) {
        int64_t len = given ? lens[b] : S;
        if (len < 0 || len > S)
            return ortvk_status(ORT_INVALID_ARGUMENT, "%s: sequence_lens[%u] = %lld (0 to seq_length %u)",
                                cell_name(p->cell), b, (long long)len, S);
        /* A length of 0: ORT 1.30's CPU RNN gives zeros for Y_h; 1.24's gives initial_h for a reverse direction and
         * reads before its output for a forward one. Left to fail where the host is older than the one measured. */
        if (len == 0 && p->cell == ORTVK_RNN_RNN && ortvk_ort_version < 30)
            return ortvk_status(ORT_EP_FAIL, "RNN: sequence_lens[%u] = 0, which ORT's CPU EP before 1.30 answers "
                                "otherwise (or not at all)", b);
        words[b] = (uint32_t)len;
    }
    return ortvk_krun_upload(run, words, (size_t)B * sizeof(uint32_t), out);
}

/* X W^T of every direction into work (offset 0): [D][S * B][G]. */
static OrtStatus *rnn_project(ortvk_krun *run, uint32_t D, int64_t rows, int64_t G, int64_t I, VkDeviceAddress work)
{
    ortvk_kgemm_plan g = {.M = rows, .N = G, .K = I, .a_sm = I, .a_sk = 1, .b_sk = 1, .b_sn = I, .out_rank = 0};
    if (D > 1) {
        g.batch_rank = 1;
        g.batch[0] = D;
        g.a_batch[0] = 0;
        g.b_batch[0] = G * I;
    }
    return ortvk_kgemm_record(run, &g, run->in[IN_X].address, run->in[IN_W].address, 0, work, 1.0f, 0.0f, NULL);
}

/* Input `i` copied into work at float offset `at`, or zeros (`floats` of them) when absent. */
static OrtStatus *rnn_stage(ortvk_krun *run, size_t i, VkDeviceAddress work, uint32_t at, size_t floats)
{
    VkDeviceAddress dst = work + (VkDeviceAddress)at * 4;
    if (floats == 0) return NULL;
    if (optional(run, i)) return ortvk_krun_copy(run, dst, run->in[i].address, floats * 4);
    return ortvk_krun_fill(run, dst, floats * 4, 0);
}

static OrtStatus *rnn_record(const ortvk_kparams *params, ortvk_krun *run)
{
    const ortvk_kparams_rnn *p = &params->rnn;
    const ortvk_ktensor *x = &run->in[IN_X];
    uint32_t S = (uint32_t)x->dims[0], B = (uint32_t)x->dims[1], H = (uint32_t)p->hidden, D = (uint32_t)p->directions;
    uint32_t G = cell_gates(p->cell) * H, state = D * B * H;
    /* work: projections, h (two halves), c, z and r, biases, peepholes, lengths; each part 16-byte aligned. */
    int64_t proj = 0;
    if (!ortvk_kmul((int64_t)D * S, (int64_t)B * G, &proj) || proj > INT32_MAX / 2 ||
        proj + 5 * (int64_t)D * B * H + 2 * (int64_t)D * G + 3 * (int64_t)D * H + B + 32 > INT32_MAX)
        return ortvk_status(ORT_EP_FAIL, "%s: %u steps of %u x %u gates exceed the shaders' 32-bit offsets",
                            cell_name(p->cell), S, B, G);
#define ALIGN4(n) (((n) + 3u) / 4u * 4u)
    push_rnn push = {.S = S, .B = B, .H = H, .D = D, .proj = 0};
    push.h_in = ALIGN4((uint32_t)proj);
    push.h_out = push.h_in + ALIGN4(state);
    push.c = push.h_out + ALIGN4(state);
    push.zr = push.c + ALIGN4(state);
    push.bias = push.zr + ALIGN4(2 * state);
    push.peep = push.bias + ALIGN4(2 * D * G);
    push.lens = push.peep + ALIGN4(3 * D * H);
    uint32_t total = push.lens + ALIGN4(B);
#undef ALIGN4
    VkDeviceAddress work = 0, lens = 0;
    ORTVK_TRY(ortvk_krun_scratch(run, (size_t)total * 4, &work));
    ORTVK_TRY(rnn_lengths(p, run, S, B, &lens));
    ORTVK_TRY(ortvk_krun_copy(run, work + (VkDeviceAddress)push.lens * 4, lens, (VkDeviceSize)B * 4));
    uint32_t I = (uint32_t)x->dims[2];
    bool vec4 = H % 4 == 0 && run->in[IN_R].address % 16 == 0;
    bool project = vec4 && S == 1 && I % 4 == 0 && run->in[IN_W].address % 16 == 0 && x->address % 16 == 0;
    if (!project) ORTVK_TRY(rnn_project(run, D, (int64_t)S * B, G, I, work));
    ORTVK_TRY(rnn_stage(run, IN_H0, work, push.h_in, state));
    if (p->cell == ORTVK_RNN_LSTM) ORTVK_TRY(rnn_stage(run, IN_C0, work, push.c, state));
    if (optional(run, IN_B)) ORTVK_TRY(rnn_stage(run, IN_B, work, push.bias, (size_t)2 * D * G));
    if (optional(run, IN_P)) ORTVK_TRY(rnn_stage(run, IN_P, work, push.peep, (size_t)3 * D * H));
    push.work = work;
    push.r = run->in[IN_R].address;
    push.x = project ? x->address : 0;
    push.w = project ? run->in[IN_W].address : 0;
    push.I = I;
    push.y = run->n_out > 0 && run->out[0].present ? run->out[0].address : 0;
    push.flags = (optional(run, IN_B) ? 1u : 0u) | (optional(run, IN_P) ? 2u : 0u) | (p->reverse ? 4u : 0u) |
                 (p->linear_before_reset ? 8u : 0u) | 16u | (project ? ORTVK_RNN_PROJECT : 0u) |
                 (p->activation << 8);
    for (uint32_t s = 0; s < S; s++) {
        push.step = s;
        /* ORT's CPU RNN skips H R^T at its first step when there is no initial_h (0 * an infinite R is NaN). */
        push.flags = (push.flags & ~64u) | (s == 0 && !optional(run, IN_H0) ? 64u : 0u);
        for (uint32_t phase = 0; phase < (p->cell == ORTVK_RNN_GRU ? 2u : 1u); phase++) {
            push.flags = (push.flags & ~32u) | (phase ? 32u : 0u);
            uint32_t fn = p->cell + (vec4 ? ORTVK_RNN_VEC4 * ORTVK_KVARIANT : 0);
            ORTVK_TRY(ortvk_krun_dispatch_fn(run, ORTVK_SHADER_RNN, fn, &push, sizeof(push), state));
        }
        uint32_t t = push.h_in;
        push.h_in = push.h_out;
        push.h_out = t;
    }
    /* The last step wrote h_out, now h_in. */
    for (size_t i = 1; i < run->n_out; i++) {
        if (!run->out[i].present) continue;
        uint32_t from = i == 1 ? push.h_in : push.c;
        ORTVK_TRY(ortvk_krun_copy(run, run->out[i].address, work + (VkDeviceAddress)from * 4, (VkDeviceSize)state * 4));
    }
    return NULL;
}

const ortvk_kop ortvk_kops_rnn[] = {
    {"LSTM", 7, 22,
     "activation_alpha activation_beta activations clip direction hidden_size input_forget layout", 1u << IN_LENS,
     rnn_prepare, rnn_shape, rnn_record},
    {"GRU", 7, 22,
     "activation_alpha activation_beta activations clip direction hidden_size layout linear_before_reset",
     1u << IN_LENS, rnn_prepare, rnn_shape, rnn_record},
    {"RNN", 7, 22, "activation_alpha activation_beta activations clip direction hidden_size layout", 1u << IN_LENS,
     rnn_prepare, rnn_shape, rnn_record},
    {NULL, 0, 0, NULL, 0, NULL, NULL, NULL},
};
