/* The partition compiler's pass that finds LayerNormalization written out as nine ops over the last axis, as
 * exporters write it before opset 17 (a text recognizer's SVTR blocks, PyTorch's LayerNorm), and runs it as one
 * LayerNormalization kernel (kernel_norm.c): one dispatch instead of nine, as ORT's CPU EP fuses the same pattern. */
#include <stdlib.h>
#include <string.h>

#include "kernels/kernel_partition.h"

/* The written-out form, in order: each kernel's op type, the input that reads the previous one's result (-1: either
 * input, the other a constant), and the readers its result has. */
enum { MEAN, SUB, POW, VARIANCE, ADD_EPS, SQRT, DIV, SCALE, SHIFT, STEPS };
static const struct {
    const char *op_type;
    int input;   /* the input reading the previous step's result (SUB: x is input 0, the mean input 1) */
    int readers; /* of this step's result */
} steps[STEPS] = {
    [MEAN] = {"ReduceMean", 0, 1},
    [SUB] = {"Sub", 1, 2},
    [POW] = {"Pow", 0, 1},
    [VARIANCE] = {"ReduceMean", 0, 1},
    [ADD_EPS] = {"Add", 0, 1},
    [SQRT] = {"Sqrt", 0, 1},
    [DIV] = {"Div", 1, 1},
    [SCALE] = {"Mul", -1, 1},
    [SHIFT] = {"Add", -1, 1},
};

/* Whether kernel `k` is a mean over the last axis of its input, keeping it as 1: axis -1, or the last of a known
 * rank; the last dim `len` where it is known at Compile (ORT often does not know a recognizer's shapes there: the
 * LayerNormalization kernel then checks it in each run, and fails one where it differs). */
static bool mean_of_last(const ortvk_kernel *k, int64_t len)
{
    const ortvk_kparams_reduce *r = &k->params.reduce;
    return r->fn == ORTVK_REDUCE_MEAN && r->count == 1 && r->keepdims && (k->x_last < 0 || k->x_last == len) &&
           (r->axes[0] == -1 || (k->x_rank > 0 && r->axes[0] == k->x_rank - 1));
}

/* The constant input of a binary kernel whose other input reads value `t`: a float tensor of rank 1 and `count`
 * elements (any count where -1: a LayerNormalization's scale, its bias of as many), or NULL. */
static kconst *channels_operand(ortvk_kernel *k, int t, int64_t count, size_t *index)
{
    for (size_t i = 0; i < 2; i++) {
        kconst *c = k->consts[i];
        if (k->n_in != 2 || k->in_slot[1 - i] != t || c == NULL || c->buffer == NULL || c->view.rank != 1 ||
            c->view.type != ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT || (count >= 0 && c->view.dims[0] != count))
            continue;
        *index = i;
        return c;
    }
    return NULL;
}

/* The nine kernels from `first` (a ReduceMean) into `found`, when they are the written-out form: each float32, each
 * result read by the next step alone (the Sub's by the Pow and the Div) and no output of the fused node but the
 * last, the mean and the variance over the last axis, the Pow's exponent 2, the epsilon a scalar constant, the scale
 * and the bias of one value an element of the last axis. *epsilon gets the epsilon. */
static bool find_steps(ortvk_partition *p, const int *readers, size_t first, ortvk_kernel *found[STEPS],
                       float *epsilon)
{
    found[MEAN] = p->kernels[first];
    const ortvk_kernel *mean = found[MEAN];
    if (mean == NULL || strcmp(mean->op->op_type, "ReduceMean") != 0 || mean->float16 || mean->n_out != 1 ||
        mean->in_slot[0] < 0)
        return false;
    int x = mean->in_slot[0];
    int t = mean->out_slot[0];
    size_t at = first;
    for (int s = SUB; s < STEPS; s++) {
        if (t < 0 || readers[t] != steps[s - 1].readers || p->values[t].fused_out >= 0) return false;
        size_t input = 0;
        int next = ortvk_partition_reader(p, at, t, &input); /* the Sub's first reader: the Pow (the Div needs it) */
        ortvk_kernel *k = next >= 0 ? p->kernels[next] : NULL;
        if (k == NULL || strcmp(k->op->op_type, steps[s].op_type) != 0 || k->float16 || k->n_out != 1 ||
            (steps[s].input >= 0 && input != (size_t)steps[s].input))
            return false;
        found[s] = k;
        at = (size_t)next;
        t = k->out_slot[0];
    }
    /* The inputs not checked yet: Sub(x, mean), Pow(d, 2), Add(v, epsilon), Div(d, sqrt), Mul and Add of constants
     * of one value a position of the last axis (its length: the scale's). */
    int d = found[SUB]->out_slot[0];
    size_t scale_at = 0, bias_at = 0;
    *epsilon = found[ADD_EPS]->scalar;
    const kconst *scale = channels_operand(found[SCALE], found[DIV]->out_slot[0], -1, &scale_at);
    int64_t len = scale != NULL ? scale->view.dims[0] : 0;
    return len > 0 && mean_of_last(mean, len) && mean_of_last(found[VARIANCE], len) && found[SUB]->n_in == 2 &&
           found[SUB]->in_slot[0] == x && found[POW]->has_scalar && found[POW]->scalar == 2.0f &&
           found[POW]->in_slot[0] == d && found[ADD_EPS]->has_scalar && found[DIV]->in_slot[0] == d &&
           found[SQRT]->n_in == 1 &&
           channels_operand(found[SHIFT], found[SCALE]->out_slot[0], len, &bias_at) != NULL;
}

/* The LayerNormalization op (kernel_norm.c's table). */
static const ortvk_kop *layer_norm_op(void)
{
    for (const ortvk_kop *op = ortvk_kops_norm; op->op_type != NULL; op++) {
        if (strcmp(op->op_type, "LayerNormalization") == 0) return op;
    }
    return NULL;
}

/* The first kernel becomes LayerNormalization(x, scale, bias) writing the last one's result; the others go. */
static void fuse_steps(ortvk_partition *p, ortvk_kernel *found[STEPS], float epsilon, const ortvk_kop *op)
{
    ortvk_kernel *norm = found[MEAN];
    size_t scale_at = 0, bias_at = 0;
    kconst *scale = channels_operand(found[SCALE], found[DIV]->out_slot[0], -1, &scale_at);
    kconst *bias = channels_operand(found[SHIFT], found[SCALE]->out_slot[0], scale->view.dims[0], &bias_at);
    found[SCALE]->consts[scale_at] = found[SHIFT]->consts[bias_at] = NULL;
    ortvk_kernel_free_consts(norm); /* a ReduceMean-18's axes */
    norm->op = op;
    memset(&norm->params, 0, sizeof(norm->params));
    norm->params.norm = (ortvk_kparams_norm){.layer = true, .axis = -1, .epsilon = epsilon};
    norm->n_in = 3;
    norm->in_slot[1] = norm->in_slot[2] = -1;
    norm->consts[1] = scale;
    norm->consts[2] = bias;
    norm->out_slot[0] = found[SHIFT]->out_slot[0];
    norm->chainable = norm->residual_ok = norm->operand_ok = false;
    snprintf(norm->op_type, sizeof(norm->op_type), "LayerNorm=ReduceMean..Add");
    for (size_t j = 0; j < p->n_kernels; j++) {
        for (int s = SUB; s < STEPS; s++) {
            if (p->kernels[j] != found[s]) continue;
            ortvk_kernel_destroy(p->kernels[j]);
            p->kernels[j] = NULL;
        }
    }
}

void ortvk_partition_fuse_norms(ortvk_partition *p)
{
    const ortvk_kop *op = layer_norm_op();
    int *readers = ortvk_partition_readers(p);
    bool fused = false;
    for (size_t j = 0; readers != NULL && op != NULL && j < p->n_kernels; j++) {
        ortvk_kernel *found[STEPS];
        float epsilon = 0.0f;
        if (!find_steps(p, readers, j, found, &epsilon)) continue;
        fuse_steps(p, found, epsilon, op);
        fused = true;
    }
    free(readers);
    if (fused) ortvk_partition_compact(p);
}
