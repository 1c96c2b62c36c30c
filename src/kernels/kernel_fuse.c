/* Element-wise fusion, the partition compiler's step before the MLPs (kernel_mlp.c): runs of element-wise kernels
 * become one chain kernel, or the epilogue of the Conv or MatMul before them (a MatMul's bias Add its C first)
 * (docs/kernels.md, "Fusion"; the steps themselves are kernel_chain.c); and what both passes read of a partition's
 * values. */
#include <stdlib.h>
#include <string.h>

#include "kernels/kernel_partition.h"

int *ortvk_partition_readers(const ortvk_partition *p)
{
    int *readers = calloc(p->n_values + 1, sizeof(*readers));
    for (size_t j = 0; readers != NULL && j < p->n_kernels; j++) {
        for (size_t i = 0; i < p->kernels[j]->n_in; i++) {
            if (p->kernels[j]->in_slot[i] >= 0) readers[p->kernels[j]->in_slot[i]]++;
        }
    }
    return readers;
}

int ortvk_partition_reader(const ortvk_partition *p, size_t from, int slot, size_t *input)
{
    for (size_t j = from + 1; j < p->n_kernels; j++) {
        const ortvk_kernel *k = p->kernels[j];
        for (size_t i = 0; k != NULL && i < k->n_in; i++) {
            if (k->in_slot[i] == slot) {
                *input = i;
                return (int)j;
            }
        }
    }
    return -1;
}

/* Whether kernel `k`, reading the chain's value as input `input`, continues a chain whose input is value `x`. */
static bool continues_chain(const ortvk_kernel *k, size_t input, int x)
{
    if (!k->chainable || k->n_out != 1) return false;
    if (k->chain_input >= 0) return (size_t)k->chain_input == input;
    /* t + x or t * x: the other input must be the chain's own input. */
    return k->n_in == 2 && k->in_slot[1 - input] == x;
}

/* A chain being found: its kernels (the first is its head: the Conv it follows, or its first step), and where the
 * value entering a kernel becomes the chain's x (a MARK step: that value is read again by later t + x or t * x).
 * Operands: tensors other than x read by t + r and t * r steps (resid; `operand` says which): at most one after a
 * Conv head, of the output's shape known at Compile, read at the chained value's index (`strict`); at most two in
 * the stand-alone chain kernel, which reads them (and x) broadcast into the output. One made after the head moves
 * the fused kernel to the place of the chain's last kernel (`late`): no kernel in between reads the chain's values,
 * and the head's inputs are made before it. */
typedef struct chain_plan {
    size_t members[ORTVK_KMAX_CHAIN + 1];
    bool mark[ORTVK_KMAX_CHAIN + 1], resid[ORTVK_KMAX_CHAIN + 1];
    int operand[ORTVK_KMAX_CHAIN + 1];
    int count, steps;
    bool transcendental; /* a Sigmoid or Tanh is in it */
    bool strict, late;
    int max_operands, n_operands;
    int operands[2]; /* their values */
    int64_t channels; /* a ConvTranspose head's output channels: per-channel steps may follow it (0: none may) */
} chain_plan;

/* The most per-channel operands a chain reads: four a BatchNormalization. */
#define MAX_CHANNEL_OPERANDS (4 * ORTVK_KMAX_CHAIN)

/* Whether kernel `k`, a per-channel step, fits a head of `channels` output channels: each of its constants (the
 * Add's or Mul's one, BatchNormalization's four) one value a channel, on the device, of the step's own float type
 * (float or float16: kernel_consts.c's chain_fill widens float16 ones). */
static bool channel_fits(const ortvk_kernel *k, int64_t channels)
{
    ONNXTensorElementDataType type = k->float16 ? ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16
                                                : ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;
    size_t n = 0;
    for (size_t i = 0; i < k->n_in; i++) {
        const kconst *c = k->consts[i];
        if (c == NULL) continue;
        if (c->buffer == NULL || c->view.type != type || (int64_t)c->view.count != channels) return false;
        n++;
    }
    return channels > 0 && n == (k->step.kind == ORTVK_CHAIN_BN_C ? 4 : 1);
}

/* Sigmoid and Tanh are an exponential, a division and branches: inlined at each value a head's invocation stores,
 * two of them in one chain made pipelines that took lavapipe 15 s of CPU to build. One a chain. */
static bool is_transcendental(const ortvk_kernel *k)
{
    return ortvk_kchain_kind_is_exp(k->step.kind);
}

/* Whether value `v` is ready before kernel `head` runs: an input of the partition, or made by an earlier kernel. */
static bool ready_before(const ortvk_partition *p, int v, size_t head)
{
    if (!p->values[v].produced) return p->values[v].fused_in >= 0;
    for (size_t j = 0; j < head; j++) {
        const ortvk_kernel *k = p->kernels[j];
        for (size_t o = 0; k != NULL && o < k->n_out; o++) {
            if (k->out_slot[o] == v) return true;
        }
    }
    return false;
}

/* Whether kernel `next`, reading the chain's value as input `input`, continues chain `c` as a t + r or t * r step,
 * and with which of its operands (one it has, or the next): r made before it, by no kernel of the chain (whose
 * values are never stored). -1 where it does not. */
static int operand_step(const ortvk_partition *p, size_t next, size_t input, const chain_plan *c)
{
    const ortvk_kernel *k = p->kernels[next];
    if (!(c->strict ? k->residual_ok : k->operand_ok) || !k->chainable || k->n_out != 1 || k->n_in != 2) return -1;
    int r = k->in_slot[1 - input];
    if (r < 0 || r == k->in_slot[input]) return -1;
    for (int o = 0; o < c->n_operands; o++) {
        if (c->operands[o] == r) return o;
    }
    if (c->n_operands == c->max_operands) return -1;
    for (int m = 0; m < c->count; m++) {
        if (p->kernels[c->members[m]]->out_slot[0] == r) return -1;
    }
    return ready_before(p, r, next) ? c->n_operands : -1;
}

/* Extends `c` with the kernels that continue it, its x being value `x` (for a Conv head: its result). */
static void extend_chain(const ortvk_partition *p, const int *readers, int x, chain_plan *c)
{
    while (c->steps < ORTVK_KMAX_CHAIN) {
        size_t last = c->members[c->count - 1], input = 0;
        int t = p->kernels[last]->out_slot[0];
        if (t < 0 || p->values[t].fused_out >= 0) break;
        int next = ortvk_partition_reader(p, last, t, &input);
        if (next < 0) break;
        /* A value read more than once must be read by the chain only: it becomes x (checked by check_marks). */
        bool mark = readers[t] != 1 && t != x;
        if (mark && (c->steps + 2 > ORTVK_KMAX_CHAIN || p->kernels[next]->chain_input < 0)) break;
        if (p->kernels[next]->chainable && ortvk_kchain_kind_is_channel(p->kernels[next]->step.kind) &&
            !channel_fits(p->kernels[next], c->channels))
            break;
        bool resid = !continues_chain(p->kernels[next], input, mark ? t : x);
        int operand = resid ? operand_step(p, (size_t)next, input, c) : -1;
        if (resid && operand < 0) break;
        if (is_transcendental(p->kernels[next]) && c->transcendental) break;
        c->transcendental |= is_transcendental(p->kernels[next]);
        if (operand == c->n_operands) c->operands[c->n_operands++] = p->kernels[next]->in_slot[1 - input];
        if (mark) x = t;
        c->mark[c->count] = mark;
        c->resid[c->count] = resid;
        c->operand[c->count] = operand;
        c->members[c->count++] = (size_t)next;
        c->steps += mark ? 2 : 1;
    }
}

/* Each value the chain keeps as x (marked, or a Conv head's result when `head_x`) must be read by nobody but the
 * chain: once by the step after it and once by each t + x or t * x until the next mark. Cuts the chain before the
 * first that is not. */
static void check_marks(const ortvk_partition *p, const int *readers, bool head_x, chain_plan *c)
{
    for (int m = 1; m < c->count; m++) {
        if (!c->mark[m] && !(m == 1 && head_x)) continue;
        int value = p->kernels[c->members[m - 1]]->out_slot[0], reads = 1;
        for (int k = m + 1; k < c->count && !c->mark[k]; k++)
            reads += p->kernels[c->members[k]]->chain_input < 0 && !c->resid[k];
        reads += p->kernels[c->members[m]]->chain_input < 0 && p->kernels[c->members[m]]->in_slot[0] == value &&
                 p->kernels[c->members[m]]->in_slot[1] == value; /* t * t */
        if (readers[value] != reads) {
            c->count = m;
            break;
        }
    }
    /* The operands steps still read (taken in order: the first ones), and whether one is made after the head. */
    int used = 0;
    for (int m = 0; m < c->count; m++) {
        if (c->resid[m] && c->operand[m] + 1 > used) used = c->operand[m] + 1;
    }
    c->n_operands = used;
    c->late = false;
    for (int o = 0; o < used; o++) c->late = c->late || !ready_before(p, c->operands[o], c->members[0]);
}

/* Collects the steps of the chain's kernels from index `keep` on into `chain` (keep = 1: the head is the Conv the
 * chain follows), the per-channel steps' constants into `channel` (*n_channel of them, in step order, now the
 * caller's) and their op types joined by '+' into `type`; destroys every member but the head. Returns the value the
 * last member wrote. */
static int take_steps(ortvk_partition *p, const chain_plan *c, int keep, ortvk_kparams_chain *chain,
                      kconst **channel, size_t *n_channel, char *type, size_t type_len)
{
    *n_channel = 0;
    for (int m = 0; m < c->count; m++) {
        ortvk_kernel *k = p->kernels[c->members[m]];
        for (size_t i = 0; m >= keep && ortvk_kchain_kind_is_channel(k->step.kind) && i < k->n_in; i++) {
            if (k->consts[i] == NULL) continue;
            channel[(*n_channel)++] = k->consts[i];
            k->consts[i] = NULL;
        }
        if (m >= keep && c->mark[m]) chain->steps[chain->count++] = (ortvk_chain_step){.kind = ORTVK_CHAIN_MARK};
        if (m >= keep) chain->steps[chain->count] = k->step;
        if (m >= keep && c->resid[m]) {
            bool add = k->step.kind == ORTVK_CHAIN_ADD_X;
            chain->steps[chain->count].kind = c->operand[m] == 0 ? (add ? ORTVK_CHAIN_ADD_R : ORTVK_CHAIN_MUL_R)
                                                                 : (add ? ORTVK_CHAIN_ADD_Q : ORTVK_CHAIN_MUL_Q);
        }
        if (m >= keep) chain->count++;
        size_t used = strlen(type); /* the names as far as they fit */
        if (snprintf(type + used, type_len - used, "%s%s", m ? "+" : "", k->op_type) < 0) type[used] = '\0';
    }
    int out = p->kernels[c->members[c->count - 1]]->out_slot[0];
    for (int m = 1; m < c->count; m++) {
        ortvk_kernel_destroy(p->kernels[c->members[m]]);
        p->kernels[c->members[m]] = NULL;
    }
    if (c->late) { /* the fused kernel runs where the last did */
        p->kernels[c->members[c->count - 1]] = p->kernels[c->members[0]];
        p->kernels[c->members[0]] = NULL;
    }
    return out;
}

/* Where a chain after `head` runs in its stores: a Conv's, ConvTranspose's or MatMul/Gemm's epilogue; NULL for
 * others. */
static ortvk_kparams_chain *epilogue_of(ortvk_kernel *head)
{
    if (head->n_out != 1) return NULL;
    if (strcmp(head->op->op_type, "Conv") == 0 || strcmp(head->op->op_type, "ConvTranspose") == 0)
        return &head->params.conv.epilogue;
    if (strcmp(head->op->op_type, "MatMul") == 0 || strcmp(head->op->op_type, "Gemm") == 0)
        return &head->params.gemm.epilogue;
    return NULL;
}

/* Whether a Conv head's stores read a residual: in every form (the conv and depthwise shaders', and the GEMM's a
 * pointwise convolution runs as: MobileNet's linear bottlenecks, Conv 1x1 then + x). A ConvTranspose's read none;
 * nor a float16 Conv that sums its channels in ranges (its float32 partial sums take the residual's operand). */
static bool conv_takes_residual(const ortvk_kernel *head)
{
    if (strcmp(head->op->op_type, "Conv") != 0) return false;
    return !head->float16 || (head->consts[1] != NULL && ortvk_kconv_sums_at_once(&head->consts[1]->view));
}

/* A ConvTranspose head's output channels (its constant weights' dim 1 times its groups), 0 for other heads. */
static int64_t transpose_channels(const ortvk_kernel *head)
{
    const ortvk_ktensor *w = head->consts[1] != NULL ? &head->consts[1]->view : NULL;
    if (strcmp(head->op->op_type, "ConvTranspose") != 0 || w == NULL || w->rank < 3) return 0;
    return w->dims[1] * head->params.conv.group;
}

/* Makes value `r` input `index` of `head` (the inputs before it that it lacks omitted): the residual its chain
 * reads. */
static void add_residual(ortvk_kernel *head, int r, size_t index)
{
    for (size_t i = head->n_in; i < index; i++) head->in_slot[i] = -1;
    head->in_slot[index] = r;
    head->n_in = index + 1;
}

/* A MatMul of constant weights [..., K, N] read by nothing but an Add of a constant bias [N] (a linear layer as
 * exporters write it): the bias becomes the MatMul's C, added in its stores as Gemm's is (kernel_math.c: the sum,
 * then + bias, as ORT's CPU EP rounds them), and the Add goes. */
static void take_bias(ortvk_partition *p, const int *readers, size_t j)
{
    ortvk_kernel *head = p->kernels[j];
    const kconst *w = head->consts[1];
    int t = head->out_slot[0];
    if (strcmp(head->op->op_type, "MatMul") != 0 || head->float16 || head->n_in != 2 || head->n_out != 1 || w == NULL ||
        w->view.rank < 2 || t < 0 || readers[t] != 1 || p->values[t].fused_out >= 0)
        return;
    size_t input = 0;
    int next = ortvk_partition_reader(p, j, t, &input);
    ortvk_kernel *add = next >= 0 ? p->kernels[next] : NULL;
    if (add == NULL || strcmp(add->op->op_type, "Add") != 0 || add->float16 || add->n_in != 2 || add->n_out != 1 ||
        add->in_slot[1 - input] >= 0)
        return;
    kconst *bias = add->consts[1 - input];
    if (bias == NULL || bias->buffer == NULL || bias->view.type != ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT ||
        bias->view.rank != 1 || bias->view.dims[0] != w->view.dims[w->view.rank - 1] || bias->view.dims[0] == 0)
        return;
    add->consts[1 - input] = NULL;
    head->consts[2] = bias;
    head->in_slot[2] = -1;
    head->n_in = 3;
    head->params.gemm.beta = 1.0f;
    head->out_slot[0] = add->out_slot[0];
    snprintf(head->op_type, sizeof(head->op_type), "MatMul+Add");
    ortvk_kernel_destroy(add);
    p->kernels[next] = NULL;
}

/* Runs of element-wise nodes, each the only reader of the one before (whose output stays inside the partition),
 * become one kernel: one dispatch and one pass over memory instead of one each (the "hard swish" of MobileNet-like
 * models is Add, Clip, Div and Mul). A value read again by a later t + x or t * x of the same chain is kept in a
 * register (MARK). The fused kernel takes the place of the chain's first node. A chain right after a Conv, MatMul
 * or Gemm runs in that node's own stores (its epilogue), its x being the node's result. */
OrtStatus *ortvk_partition_fuse(ortvk_partition *p, ortvk_stream *stream)
{
    int *readers = ortvk_partition_readers(p);
    if (readers == NULL) return ortvk_status(ORT_FAIL, "out of host memory compiling a partition");
    OrtStatus *status = NULL;
    kconst *channel[MAX_CHANNEL_OPERANDS];
    size_t n_channel = 0;
    for (size_t j = 0; j < p->n_kernels && status == NULL; j++) {
        ortvk_kernel *head = p->kernels[j];
        if (head == NULL) continue;
        chain_plan c = {.members = {j}, .count = 1, .transcendental = head->chainable && is_transcendental(head)};
        char type[sizeof(head->op_type)] = "";
        ortvk_kparams_chain *epilogue = epilogue_of(head);
        if (epilogue != NULL && epilogue->count == 0) take_bias(p, readers, j); /* MatMul heads only */
        if (epilogue != NULL) {
            if (epilogue->count > 0) continue; /* a head fused already, moved here (late) */
            c.strict = true; /* the Conv's stores read a residual at the element's own index */
            c.max_operands = epilogue == &head->params.conv.epilogue && conv_takes_residual(head) ? 1 : 0;
            c.channels = transpose_channels(head);
            extend_chain(p, readers, head->out_slot[0], &c);
            check_marks(p, readers, true, &c);
            if (c.count == 1) continue;
            head->out_slot[0] = take_steps(p, &c, 1, epilogue, channel, &n_channel, type, sizeof(type));
            if (c.n_operands > 0) add_residual(head, c.operands[0], 3); /* after x, w and the bias */
            epilogue->residual = c.n_operands > 0 ? 3 : 0;
            snprintf(head->op_type, sizeof(head->op_type), "%s", type);
            status = ortvk_kernel_upload_chain(head, stream, epilogue, channel, n_channel);
            continue;
        }
        /* A chain starts at a step on its input, or at t + r or t * r on two tensors (its x the one not known to be
         * broadcast up into the other: a per-channel scale's Mul takes the scale as r). */
        bool resid = head->chainable && head->chain_input < 0 && head->operand_ok && head->in_slot[0] >= 0 &&
                     head->in_slot[1] >= 0 && head->in_slot[0] != head->in_slot[1];
        if (!head->chainable || ortvk_kchain_kind_is_channel(head->step.kind) || (head->chain_input < 0 && !resid))
            continue;
        int xi = resid ? head->operand_x : head->chain_input;
        int x = head->in_slot[xi];
        c.max_operands = 2;
        c.resid[0] = resid;
        if (resid) c.operands[c.n_operands++] = head->in_slot[1 - xi];
        c.steps = 1;
        extend_chain(p, readers, x, &c);
        check_marks(p, readers, false, &c);
        if (c.count == 1) continue;
        ortvk_kparams_chain chain = {0};
        int out = take_steps(p, &c, 0, &chain, channel, &n_channel, type, sizeof(type));
        ortvk_kernel_free_consts(head);
        head->op = &ortvk_kop_chain;
        head->params.chain = chain;
        head->n_in = head->n_out = 1;
        head->in_slot[0] = x;
        for (int o = 0; o < c.n_operands; o++) add_residual(head, c.operands[o], 1 + (size_t)o);
        head->params.chain.residual = c.n_operands > 0 ? 1 : 0;
        head->params.chain.second = c.n_operands > 1 ? 2 : 0;
        head->out_slot[0] = out;
        head->chainable = false;
        snprintf(head->op_type, sizeof(head->op_type), "%s", type);
        status = ortvk_kernel_upload_chain(head, stream, &chain, channel, n_channel);
    }
    free(readers);
    if (status != NULL) return status; /* the caller destroys the partition, gaps and all */
    ortvk_partition_compact(p);
    return NULL;
}

void ortvk_partition_compact(ortvk_partition *p)
{
    size_t n = 0;
    for (size_t j = 0; j < p->n_kernels; j++) {
        if (p->kernels[j] != NULL) p->kernels[n++] = p->kernels[j];
    }
    p->n_kernels = n;
    for (size_t v = 0; v < p->n_values; v++) p->values[v].last_use = -1;
    for (size_t j = 0; j < n; j++) {
        for (size_t i = 0; i < p->kernels[j]->n_in; i++) {
            if (p->kernels[j]->in_slot[i] >= 0) p->values[p->kernels[j]->in_slot[i]].last_use = (int)j;
        }
    }
}
