/* Small multilayer perceptrons as one dispatch: the partition compiler's pass that finds chains of float32 Gemm and
 * MatMul layers with constant weights (each with its fused chain, and a stand-alone chain after the last), and the
 * fused op that runs them in one workgroup (shaders/kernel_mlp.comp). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernel_partition.h"
#include "vk/vk_transfer.h"

/* What one workgroup computes in bounded time and memory: a layer's result is kept in shared memory
 * (ORTVK_MLP_VALUES elements), and an invocation's loops (64 invocations share a layer's outputs, K sums each, the
 * chain's steps) stay well below lavapipe's cap of about 65,535 iterations (common.glsl, ORTVK_FOR). */
#define MLP_MAX_K 1024
#define MLP_MAX_ITERATIONS 32768

typedef struct mlp_plan {
    size_t members[ORTVK_MLP_LAYERS]; /* the kernels fused, in order */
    uint32_t count;                   /* members (layers, the last chain among them) */
    bool swapped;                     /* the last member is a stand-alone chain whose x is the first layer's input
                                         and whose residual is the layers' result (x + f(x) as ONNX Add(x, f)) */
    int x;                            /* the first layer's input value */
    int64_t M, dims[ORTVK_MLP_LAYERS + 1];
    int64_t iterations;               /* an invocation's loop iterations */
} mlp_plan;

/* Whether kernel `k` can be a layer: a float32 Gemm or MatMul of a 2-D input (not transposed) by constant 2-D
 * weights as they are (not padded: ortvk_kgemm_pack leaves those of a layer this small alone), with a constant bias
 * of one value a column or none, its epilogue reading no residual. *K and *N its dims. */
static bool mlp_layer(const ortvk_kernel *k, int64_t *K, int64_t *N)
{
    if (k == NULL || k->float16 || k->n_out != 1 || k->out_slot[0] < 0 || k->in_slot[0] < 0 || k->n_in < 2)
        return false;
    if (strcmp(k->op->op_type, "Gemm") != 0 && strcmp(k->op->op_type, "MatMul") != 0) return false;
    const ortvk_kparams_gemm *g = &k->params.gemm;
    const kconst *w = k->consts[1], *c = k->n_in > 2 ? k->consts[2] : NULL;
    if (g->trans_a || g->epilogue.residual != 0 || w == NULL || w->buffer == NULL || w->view.rank != 2 ||
        w->view.packed || w->view.type != ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT || (k->n_in > 2 && k->in_slot[2] >= 0))
        return false;
    *K = w->view.dims[g->trans_b ? 1 : 0];
    *N = w->view.dims[g->trans_b ? 0 : 1];
    if (c != NULL && (c->buffer == NULL || c->view.type != ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT || c->view.rank < 1 ||
                      c->view.rank > 2 || (int64_t)c->view.count != *N || c->view.dims[c->view.rank - 1] != *N))
        return false;
    return *K > 0 && *N > 0 && *K <= MLP_MAX_K && *N <= MLP_MAX_K;
}

/* Adds a member of `N` outputs a row reading `K` values each (0 for the last chain) to `plan`; false where the
 * workgroup's bounds would not hold. */
static bool mlp_add(mlp_plan *plan, size_t kernel, int64_t K, int64_t N)
{
    int64_t rows = (plan->M * N + 63) / 64; /* an invocation's outputs */
    if (plan->count == ORTVK_MLP_LAYERS || plan->M * N > (int64_t)ORTVK_MLP_VALUES ||
        plan->iterations + rows * (K + 1 + ORTVK_KMAX_CHAIN) > MLP_MAX_ITERATIONS)
        return false;
    plan->iterations += rows * (K + 1 + ORTVK_KMAX_CHAIN);
    plan->members[plan->count++] = kernel;
    plan->dims[plan->count] = N;
    return true;
}

/* The kernel that reads value `v` alone after kernel `from` (*input: as which input); -1 where another reads it too
 * or it is an output of the partition. */
static int only_reader(const ortvk_partition *p, const int *readers, size_t from, int v, size_t *input)
{
    int next = ortvk_partition_reader(p, from, v, input);
    return next >= 0 && readers[v] == 1 && p->values[v].fused_out < 0 ? next : -1;
}

/* The longest fused MLP that starts at kernel `j` (plan->count < 2: none). */
static void mlp_find(const ortvk_partition *p, const int *readers, size_t j, mlp_plan *plan)
{
    const ortvk_kernel *first = p->kernels[j];
    int64_t K = 0, N = 0;
    *plan = (mlp_plan){.x = first->in_slot[0], .M = first->params.gemm.a_dims[0]};
    if (!mlp_layer(first, &K, &N) || plan->M < 1 || first->params.gemm.a_dims[1] != K) return;
    plan->dims[0] = K;
    if (!mlp_add(plan, j, K, N)) return;
    for (;;) {
        const ortvk_kernel *last = p->kernels[plan->members[plan->count - 1]];
        size_t input = 0;
        int next = only_reader(p, readers, plan->members[plan->count - 1], last->out_slot[0], &input);
        if (next < 0) return;
        const ortvk_kernel *k = p->kernels[next];
        if (input == 0 && mlp_layer(k, &K, &N) && K == plan->dims[plan->count]) {
            if (!mlp_add(plan, (size_t)next, K, N)) return;
            continue;
        }
        /* A stand-alone chain of the result ends it. Its residual, if any, is the first layer's input, of the
         * result's shape (f(x) + x); or the chain starts at that input and its residual is the result (x + f(x)). */
        const ortvk_kparams_chain *c = &k->params.chain;
        N = plan->dims[plan->count];
        if (k->op != &ortvk_kop_chain || c->second != 0) return;
        bool plain = input == 0 && c->residual == 0;
        bool x_residual = c->residual > 0 && N == plan->dims[0] &&
                          ((input == 0 && k->in_slot[c->residual] == plan->x) ||
                           (input == (size_t)c->residual && k->in_slot[0] == plan->x));
        if ((plain || x_residual) && mlp_add(plan, (size_t)next, 0, N)) plan->swapped = input != 0;
        return;
    }
}

/* The chain of member `k` (a layer's epilogue, or the stand-alone chain). */
static const ortvk_kparams_chain *member_chain(const ortvk_kernel *k)
{
    return k->op == &ortvk_kop_chain ? &k->params.chain : &k->params.gemm.epilogue;
}

/* The fused kernel's weights: each member in turn, ORTVK_MLP_HEADER floats (its chain's step operands, alpha, beta),
 * then a layer's weights as they are and its bias, copied on the device. */
static OrtStatus *mlp_upload(ortvk_partition *p, ortvk_stream *stream, const mlp_plan *plan, kconst *w)
{
    size_t floats = 0;
    for (uint32_t l = 0; l < plan->count; l++) {
        const ortvk_kernel *k = p->kernels[plan->members[l]];
        floats += ORTVK_MLP_HEADER;
        if (k->op == &ortvk_kop_chain) continue;
        floats += (size_t)(plan->dims[l] * plan->dims[l + 1]);
        if (k->n_in > 2 && k->consts[2] != NULL) floats += (size_t)plan->dims[l + 1];
    }
    w->view = (ortvk_ktensor){.present = true, .type = ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, .rank = 1,
                              .dims = {(int64_t)floats}, .count = floats};
    ORTVK_TRY(ortvk_buffer_allocate(stream->device, floats * sizeof(float), &w->buffer));
    w->view.buffer = w->buffer;
    w->view.address = w->buffer->address;
    ortvk_copy_end dst = {.buffer = w->buffer};
    for (uint32_t l = 0; l < plan->count; l++) {
        const ortvk_kernel *k = p->kernels[plan->members[l]];
        float header[ORTVK_MLP_HEADER] = {0};
        ortvk_kchain_constants(member_chain(k), header);
        bool layer = k->op != &ortvk_kop_chain;
        header[2 * ORTVK_KMAX_CHAIN] = layer ? k->params.gemm.alpha : 1.0f;
        header[2 * ORTVK_KMAX_CHAIN + 1] = layer ? k->params.gemm.beta : 1.0f;
        ortvk_copy_end src = {.host = header};
        ORTVK_TRY(ortvk_transfer_copy(stream, ortvk_copy_end_held(w->buffer, dst.offset), src, sizeof(header), false));
        dst.offset += sizeof(header);
        for (size_t i = 1; layer && i < 3 && i < k->n_in; i++) {
            const kconst *c = k->consts[i];
            if (c == NULL) continue;
            size_t bytes = c->view.count * sizeof(float);
            ORTVK_TRY(ortvk_transfer_copy(stream, dst, (ortvk_copy_end){.buffer = c->buffer}, bytes, true));
            dst.offset += bytes;
        }
    }
    return NULL;
}

/* The fused kernel of `plan`'s members, replacing them (it runs where the last did). */
static OrtStatus *mlp_fuse(ortvk_partition *p, ortvk_stream *stream, const mlp_plan *plan)
{
    const ortvk_kernel *first = p->kernels[plan->members[0]], *last = p->kernels[plan->members[plan->count - 1]];
    ortvk_kernel *fused = calloc(1, sizeof(*fused));
    kconst *w = calloc(1, sizeof(*w));
    size_t names = strlen(first->name) + strlen(last->name) + 3;
    char *name = malloc(names);
    if (fused == NULL || w == NULL || name == NULL) {
        free(fused);
        free(w);
        free(name);
        return ortvk_status(ORT_FAIL, "out of host memory compiling %s", first->name);
    }
    snprintf(name, names, "%s..%s", first->name, last->name);
    fused->name = name;
    fused->consts[1] = w;
    fused->op = &ortvk_kop_mlp;
    fused->n_in = 2;
    fused->n_out = 1;
    fused->in_slot[0] = plan->x;
    fused->in_slot[1] = -1;
    fused->out_slot[0] = last->out_slot[0];
    fused->chain_input = -1;
    snprintf(fused->op_type, sizeof(fused->op_type), "MLP");
    ortvk_kparams_mlp *m = &fused->params.mlp;
    m->M = plan->M;
    m->layers = plan->count;
    m->dims[0] = (uint32_t)plan->dims[0];
    m->vec4 = true;
    for (uint32_t l = 0; l < plan->count; l++) {
        const ortvk_kernel *k = p->kernels[plan->members[l]];
        ortvk_kspec spec;
        ortvk_kchain_spec(member_chain(k), &spec);
        m->dims[l + 1] = (uint32_t)plan->dims[l + 1];
        bool along_k = k->op != &ortvk_kop_chain && k->params.gemm.trans_b;
        m->vec4 = m->vec4 && plan->dims[l + 1] % 4 == 0 && (!along_k || plan->dims[l] % 4 == 0);
        m->steps[3 * l] = spec.words[0];
        m->steps[3 * l + 1] = spec.words[1];
        m->steps[3 * l + 2] = spec.words[2];
        if (k->op == &ortvk_kop_chain) {
            m->steps[3 * l + 2] |= plan->swapped ? ORTVK_MLP_SWAPPED : 0;
            continue;
        }
        m->steps[3 * l + 2] |= ORTVK_MLP_GEMM | (k->params.gemm.trans_b ? ORTVK_MLP_TRANS_B : 0) |
                               (k->n_in > 2 && k->consts[2] != NULL ? ORTVK_MLP_BIAS : 0);
        m->flops += 2.0 * (double)plan->M * (double)plan->dims[l] * (double)plan->dims[l + 1];
    }
    OrtStatus *status = mlp_upload(p, stream, plan, w);
    if (status != NULL) {
        ortvk_kernel_destroy(fused);
        return status;
    }
    for (uint32_t l = 0; l < plan->count; l++) {
        ortvk_kernel_destroy(p->kernels[plan->members[l]]);
        p->kernels[plan->members[l]] = NULL;
    }
    p->kernels[plan->members[plan->count - 1]] = fused;
    return NULL;
}

OrtStatus *ortvk_partition_fuse_mlp(ortvk_partition *p, ortvk_stream *stream)
{
    int *readers = ortvk_partition_readers(p);
    if (readers == NULL) return ortvk_status(ORT_FAIL, "out of host memory compiling a partition");
    OrtStatus *status = NULL;
    bool fused = false;
    for (size_t j = 0; j < p->n_kernels && status == NULL; j++) {
        if (p->kernels[j] == NULL) continue;
        mlp_plan plan;
        mlp_find(p, readers, j, &plan);
        if (plan.count < 2) continue;
        status = mlp_fuse(p, stream, &plan);
        fused = status == NULL;
    }
    free(readers);
    if (status != NULL) return status; /* the caller destroys the partition, gaps and all */
    if (fused) ortvk_partition_compact(p);
    return NULL;
}

/* ---- the fused op --------------------------------------------------------------------------------------- */

typedef struct push_mlp {
    uint64_t x, w, y;
    uint32_t M, layers;
    uint32_t dims[ORTVK_MLP_LAYERS + 1];
    uint32_t steps[3 * ORTVK_MLP_LAYERS];
} push_mlp;
_Static_assert(offsetof(push_mlp, steps) == 56 && sizeof(push_mlp) <= 128,
               "push_mlp: kernel_mlp.comp's push constants");

static OrtStatus *mlp_shape(const ortvk_kparams *params, ortvk_krun *run)
{
    const ortvk_kparams_mlp *m = &params->mlp;
    const ortvk_ktensor *x = &run->in[0];
    if (x->type != ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT || x->rank != 2 || x->dims[0] != m->M ||
        x->dims[1] != (int64_t)m->dims[0])
        return ortvk_status(ORT_INVALID_ARGUMENT, "MLP: input of rank %zu, dims [%lld, %lld] (%s): the model says "
                            "[%lld, %u] float", x->rank, (long long)x->dims[0],
                            (long long)(x->rank > 1 ? x->dims[1] : 0), ortvk_element_name(x->type), (long long)m->M,
                            m->dims[0]);
    ortvk_ktensor *y = &run->out[0];
    y->type = ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;
    y->rank = 2;
    y->dims[0] = m->M;
    y->dims[1] = m->dims[m->layers];
    return NULL;
}

static OrtStatus *mlp_record(const ortvk_kparams *params, ortvk_krun *run)
{
    const ortvk_kparams_mlp *m = &params->mlp;
    push_mlp push = {.x = run->in[0].address, .w = run->in[1].address, .y = run->out[0].address,
                     .M = (uint32_t)m->M, .layers = m->layers};
    memcpy(push.dims, m->dims, sizeof(push.dims));
    memcpy(push.steps, m->steps, sizeof(push.steps));
    /* The vec4 form reads x (and a residual of x) and stores y as vec4s: both 16-byte aligned. */
    bool vec4 = m->vec4 && push.x % 16 == 0 && push.y % 16 == 0;
    return ortvk_krun_dispatch_fn(run, ORTVK_SHADER_MLP, vec4 ? ORTVK_MLP_VEC4 : 0, &push, sizeof(push),
                                  64); /* one workgroup */
}

const ortvk_kop ortvk_kop_mlp = {"MLP", 0, 0, "", 0, NULL, mlp_shape, mlp_record};
