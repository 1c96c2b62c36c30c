/* Ops whose every output element copies one input element found by index arithmetic: Expand, Tile, Gather,
 * DepthToSpace, SpaceToDepth (strided copies) and Pad (a gather with the pad value). The copy itself and the shape
 * helpers are kernel_layout.c's. */
#include <string.h>

#include "kernels/kernel_layout.h"

/* ---- Expand --------------------------------------------------------------------------------------------- */

static bool expand_prepare(const ortvk_knode *node, ortvk_kparams *params, char *why, size_t why_len)
{
    ortvk_kparams_reshape *p = &params->reshape;
    if (!ortvk_klayout_floats(node, 1, why, why_len) || node->n_in != 2 || node->n_out != 1) return false;
    if (!ortvk_klist_prepare(node, p->shape, &p->count) || p->count > ORTVK_KMAX_SHADER_RANK)
        return ortvk_krefuse(why, why_len, "shape is neither constant nor known on the host");
    const ortvk_kvalue *shape = &node->in[1]; /* computed in the run: its length must be known and fit the shader */
    if (p->count == ORTVK_KRUNTIME &&
        (shape->rank != 1 || shape->dims[0] < 0 || shape->dims[0] > ORTVK_KMAX_SHADER_RANK))
        return ortvk_krefuse(why, why_len, "a shape computed in the run of unknown length or past rank %d",
                             ORTVK_KMAX_SHADER_RANK);
    if (node->in[0].rank > ORTVK_KMAX_SHADER_RANK) /* unknown: the copy checks it in the run */
        return ortvk_krefuse(why, why_len, "rank %d", node->in[0].rank);
    return true;
}

static OrtStatus *expand_shape(const ortvk_kparams *params, ortvk_krun *run)
{
    ortvk_kparams_reshape q;
    const ortvk_kparams_reshape *p = &q;
    ORTVK_TRY(ortvk_klist_at_run(params, run, "Expand", &q));
    const ortvk_ktensor *x = &run->in[0];
    ortvk_ktensor *y = &run->out[0];
    y->type = x->type;
    if (!ortvk_kbroadcast(x->dims, x->rank, p->shape, (size_t)p->count, y->dims, &y->rank))
        return ortvk_status(ORT_INVALID_ARGUMENT, "Expand: shapes do not broadcast");
    return NULL;
}

static OrtStatus *expand_record(const ortvk_kparams *params, ortvk_krun *run)
{
    (void)params;
    const ortvk_ktensor *x = &run->in[0], *y = &run->out[0];
    ortvk_kstrides s = {.rank = (int)y->rank};
    memcpy(s.dims, y->dims, sizeof(y->dims));
    ortvk_kbroadcast_strides(x->dims, x->rank, y->rank, y->dims, s.stride[0]);
    ortvk_krow_major(y->dims, y->rank, s.stride[1]);
    return ortvk_kstrided_copy(run, x->address, 0, y->address, 0, &s, ortvk_element_size(x->type));
}

/* ---- Gather --------------------------------------------------------------------------------------------- */

static bool gather_prepare(const ortvk_knode *node, ortvk_kparams *params, char *why, size_t why_len)
{
    ortvk_kparams_gather *p = &params->gather;
    if (!ortvk_klayout_floats(node, 1, why, why_len) || node->n_in != 2 || node->n_out != 1) return false;
    if (!ortvk_knode_int(node, "axis", 0, &p->axis)) return ortvk_krefuse(why, why_len, "axis");
    const ortvk_kvalue *q = &node->in[1];
    p->at_run = !ortvk_knode_const_ints(node, 1, p->indices, ORTVK_KMAX_GATHER, &p->count);
    if (q->rank < 0 || (p->at_run && !ortvk_knode_host_indices(node, 1)))
        return ortvk_krefuse(why, why_len, "indices are neither constant nor known on the host in the run (a graph "
                             "input, or made from shapes)");
    int rank = node->in[0].rank;
    if (rank < 1 || rank + q->rank - 1 > ORTVK_KMAX_RANK) return ortvk_krefuse(why, why_len, "rank %d", rank);
    if (p->axis < -rank || p->axis >= rank) return ortvk_krefuse(why, why_len, "axis %lld", (long long)p->axis);
    if (p->axis < 0) p->axis += rank;
    p->rank = q->rank;
    memcpy(p->dims, q->dims, sizeof(p->dims));
    return true;
}

/* Index j: of the constant list, or of input 1's host values (int32 or int64) in the run. */
static int64_t gather_index(const ortvk_kparams_gather *p, const ortvk_ktensor *q, size_t j)
{
    if (!p->at_run) return p->indices[j];
    if (q->type == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32) return ((const int32_t *)q->host)[j];
    return ((const int64_t *)q->host)[j];
}

static OrtStatus *gather_shape(const ortvk_kparams *params, ortvk_krun *run)
{
    const ortvk_kparams_gather *p = &params->gather;
    const ortvk_ktensor *x = &run->in[0];
    ortvk_ktensor *y = &run->out[0];
    size_t axis = (size_t)p->axis;
    if (axis >= x->rank) return ortvk_status(ORT_INVALID_ARGUMENT, "Gather: axis %zu of rank %zu", axis, x->rank);
    const ortvk_ktensor *q = &run->in[1];
    size_t count = p->at_run ? q->count : p->count;
    if (p->at_run && q->count > 0 && q->host == NULL)
        return ortvk_status(ORT_EP_FAIL, "Gather: the indices (%zu values) are not on the host in this run", q->count);
    for (size_t j = 0; j < count; j++) {
        int64_t index = gather_index(p, q, j);
        if (index < -x->dims[axis] || index >= x->dims[axis])
            return ortvk_status(ORT_INVALID_ARGUMENT, "Gather: indices[%zu] = %lld is out of range for a dim of %lld",
                                j, (long long)index, (long long)x->dims[axis]);
    }
    size_t index_rank = p->at_run ? q->rank : (size_t)p->rank;
    if (x->rank - 1 + index_rank > ORTVK_KMAX_RANK)
        return ortvk_status(ORT_EP_FAIL, "Gather: an output of rank %zu", x->rank - 1 + index_rank);
    y->type = x->type;
    y->rank = 0;
    for (size_t d = 0; d < axis; d++) y->dims[y->rank++] = x->dims[d];
    for (size_t d = 0; d < index_rank; d++) y->dims[y->rank++] = p->at_run ? q->dims[d] : p->dims[d];
    for (size_t d = axis + 1; d < x->rank; d++) y->dims[y->rank++] = x->dims[d];
    return NULL;
}

typedef struct push_gather {
    uint64_t src, dst, index;
    uint32_t n, count, len, inner, words;
} push_gather;

/* Indices known only in the run: made non-negative (gather_shape checked them) as int32 in a buffer the gather
 * shader reads, one dispatch for the whole output. */
static OrtStatus *gather_record_at_run(const ortvk_kparams_gather *p, ortvk_krun *run, int64_t len, int64_t inner)
{
    const ortvk_ktensor *x = &run->in[0], *q = &run->in[1], *y = &run->out[0];
    int32_t *table = NULL;
    ORTVK_TRY(ortvk_krun_host(run, q->count * sizeof(int32_t), (void **)&table));
    for (size_t j = 0; j < q->count; j++) {
        int64_t index = gather_index(p, q, j);
        table[j] = (int32_t)(index < 0 ? index + len : index);
    }
    push_gather push = {
        .src = x->address,
        .dst = y->address,
        .n = (uint32_t)y->count,
        .count = (uint32_t)q->count,
        .len = (uint32_t)len,
        .inner = (uint32_t)inner,
        .words = (uint32_t)(ortvk_element_size(x->type) / 4), /* 0: float16 (the variant the run picks) */
    };
    ORTVK_TRY(ortvk_krun_upload(run, table, q->count * sizeof(int32_t), &push.index));
    return ortvk_krun_dispatch(run, ORTVK_SHADER_GATHER, &push, sizeof(push), y->count);
}

/* y[o, j, i] = x[o, indices[j], i] on (outer, axis, inner) views: a strided copy of each index's slab. */
static OrtStatus *gather_record(const ortvk_kparams *params, ortvk_krun *run)
{
    const ortvk_kparams_gather *p = &params->gather;
    const ortvk_ktensor *x = &run->in[0], *y = &run->out[0];
    size_t axis = (size_t)p->axis;
    int64_t outer = (int64_t)ortvk_kcount(x->dims, axis), len = x->dims[axis];
    int64_t inner = (int64_t)ortvk_kcount(x->dims + axis + 1, x->rank - axis - 1);
    if (p->at_run) return gather_record_at_run(p, run, len, inner);
    for (size_t j = 0; j < p->count; j++) {
        int64_t index = p->indices[j] < 0 ? p->indices[j] + len : p->indices[j];
        ortvk_kstrides s = {.rank = 2, .dims = {outer, inner}};
        s.stride[0][0] = len * inner, s.stride[0][1] = 1;
        s.stride[1][0] = (int64_t)p->count * inner, s.stride[1][1] = 1;
        ORTVK_TRY(ortvk_kstrided_copy(run, x->address, index * inner, y->address, (int64_t)j * inner, &s,
                               ortvk_element_size(x->type)));
    }
    return NULL;
}

/* ---- Tile ----------------------------------------------------------------------------------------------- */

static bool tile_prepare(const ortvk_knode *node, ortvk_kparams *params, char *why, size_t why_len)
{
    ortvk_kparams_reshape *p = &params->reshape;
    if (!ortvk_klayout_floats(node, 1, why, why_len) || node->n_in != 2 || node->n_out != 1) return false;
    if (!ortvk_klist_prepare(node, p->shape, &p->count))
        return ortvk_krefuse(why, why_len, "repeats are neither constant nor known on the host");
    int rank = node->in[0].rank;
    /* Repeats known only in the run: every dim may be repeated, so rank + rank must fit the shader. */
    if (p->count == ORTVK_KRUNTIME)
        return (rank >= 1 && 2 * rank <= ORTVK_KMAX_SHADER_RANK) ||
               ortvk_krefuse(why, why_len, "rank %d with repeats computed in the run", rank);
    size_t n = (size_t)p->count;
    if (rank < 1 || (size_t)rank != n) return ortvk_krefuse(why, why_len, "rank %d, %zu repeats", rank, n);
    /* The copy iterates (repeat, element) pairs per dim: dims of size 1 drop out, the rest must fit the shader. */
    int dims = rank;
    for (size_t i = 0; i < n; i++) {
        if (p->shape[i] < 0) return ortvk_krefuse(why, why_len, "repeats[%zu] = %lld", i, (long long)p->shape[i]);
        dims += p->shape[i] > 1;
    }
    if (dims > ORTVK_KMAX_SHADER_RANK) return ortvk_krefuse(why, why_len, "rank %d with %d repeated dims", rank, dims);
    return true;
}

static OrtStatus *tile_shape(const ortvk_kparams *params, ortvk_krun *run)
{
    ortvk_kparams_reshape q;
    const ortvk_kparams_reshape *p = &q;
    ORTVK_TRY(ortvk_klist_at_run(params, run, "Tile", &q));
    const ortvk_ktensor *x = &run->in[0];
    ortvk_ktensor *y = &run->out[0];
    if (x->rank != (size_t)p->count)
        return ortvk_status(ORT_INVALID_ARGUMENT, "Tile: input of rank %zu, %d repeats", x->rank, p->count);
    y->type = x->type;
    y->rank = x->rank;
    /* ORT's CPU EP caps the output at 4 GiB, checked dim by dim as here (so also some empty outputs fail). */
    int64_t most = (INT64_C(1) << 32) / (int64_t)ortvk_element_size(x->type), total = 1;
    for (size_t i = 0; i < x->rank; i++) {
        int64_t r = p->shape[i], in = x->dims[i];
        if (r < 0) return ortvk_status(ORT_INVALID_ARGUMENT, "Tile: repeats[%zu] = %lld", i, (long long)r);
        y->dims[i] = in == 0 || r == 0 ? 0 : in * (in > most / r ? 0 : r);
        if ((in != 0 && r != 0 && in > most / r) || (y->dims[i] > 0 && total > most / y->dims[i]))
            return ortvk_status(ORT_INVALID_ARGUMENT, "Tile: dim %zu of %lld repeated %lld times overflows the "
                                "CPU EP's limit of 4294967296 output bytes", i, (long long)in, (long long)r);
        total *= y->dims[i];
    }
    return NULL;
}

static OrtStatus *tile_record(const ortvk_kparams *params, ortvk_krun *run)
{
    ortvk_kparams_reshape q;
    const ortvk_kparams_reshape *p = &q;
    ORTVK_TRY(ortvk_klist_at_run(params, run, "Tile", &q));
    const ortvk_ktensor *x = &run->in[0], *y = &run->out[0];
    int64_t in_strides[ORTVK_KMAX_RANK], out_strides[ORTVK_KMAX_RANK];
    ortvk_krow_major(x->dims, x->rank, in_strides);
    ortvk_krow_major(y->dims, y->rank, out_strides);
    /* Output index along dim k is r * d_k + i for repeat r and element i: two dims of the iteration each. */
    ortvk_kstrides s = {.rank = 0};
    for (size_t k = 0; k < x->rank; k++) {
        s.dims[s.rank] = p->shape[k];
        s.stride[0][s.rank] = 0;
        s.stride[1][s.rank++] = x->dims[k] * out_strides[k];
        s.dims[s.rank] = x->dims[k];
        s.stride[0][s.rank] = in_strides[k];
        s.stride[1][s.rank++] = out_strides[k];
    }
    return ortvk_kstrided_copy(run, x->address, 0, y->address, 0, &s, ortvk_element_size(x->type));
}

/* ---- DepthToSpace, SpaceToDepth ------------------------------------------------------------------------- */

static bool depth_space_prepare(const ortvk_knode *node, ortvk_kparams *params, char *why, size_t why_len)
{
    ortvk_kparams_depth_space *p = &params->depth_space;
    if (!ortvk_klayout_floats(node, 1, why, why_len) || node->n_in != 1 || node->n_out != 1) return false;
    if (node->in[0].rank != 4) return ortvk_krefuse(why, why_len, "rank %d", node->in[0].rank);
    char mode[8];
    if (!ortvk_knode_int(node, "blocksize", 0, &p->blocksize) || p->blocksize < 1 ||
        !ortvk_knode_string(node, "mode", mode, sizeof(mode)))
        return ortvk_krefuse(why, why_len, "blocksize or mode");
    p->to_depth = strcmp(node->op_type, "SpaceToDepth") == 0;
    if (strcmp(mode, "CRD") == 0) p->crd = true;
    else if (mode[0] != '\0' && strcmp(mode, "DCR") != 0) return ortvk_krefuse(why, why_len, "mode %s", mode);
    return true;
}

static OrtStatus *depth_space_shape(const ortvk_kparams *params, ortvk_krun *run)
{
    const ortvk_kparams_depth_space *p = &params->depth_space;
    const ortvk_ktensor *x = &run->in[0];
    ortvk_ktensor *y = &run->out[0];
    int64_t b = p->blocksize, n = x->dims[0], c = x->dims[1], h = x->dims[2], w = x->dims[3];
    const char *op = p->to_depth ? "SpaceToDepth" : "DepthToSpace";
    if (x->rank != 4) return ortvk_status(ORT_INVALID_ARGUMENT, "%s: input of rank %zu", op, x->rank);
    /* A blocksize whose square overflows is kept (not left to the CPU EP, whose 1.24 build divides by the wrapped
     * square and dies of SIGFPE) and fails here: no dim is a multiple of it. */
    int64_t bb = 0;
    if (!ortvk_kmul(b, b, &bb))
        return ortvk_status(ORT_INVALID_ARGUMENT, "%s: blocksize %lld squared overflows 64 bits", op, (long long)b);
    if (p->to_depth ? h % b != 0 || w % b != 0 : c % bb != 0)
        return ortvk_status(ORT_INVALID_ARGUMENT, "%s: shape [%lld,%lld,%lld,%lld] with blocksize %lld", op,
                            (long long)n, (long long)c, (long long)h, (long long)w, (long long)b);
    y->type = x->type;
    y->rank = 4;
    int64_t dims[4] = {n, 0, h / b, w / b};
    bool ok = p->to_depth ? ortvk_kmul(c, bb, &dims[1])
                          : (dims[1] = c / bb, ortvk_kmul(h, b, &dims[2]) && ortvk_kmul(w, b, &dims[3]));
    if (!ok)
        return ortvk_status(ORT_INVALID_ARGUMENT, "%s: shape [%lld,%lld,%lld,%lld] with blocksize %lld overflows", op,
                            (long long)n, (long long)c, (long long)h, (long long)w, (long long)b);
    memcpy(y->dims, dims, sizeof(dims));
    return NULL;
}

/* Both are a 6-D transpose. DepthToSpace iterates its output as (n, c', h, i, w, j) — y[n, c', h b + i, w b + j] —
 * reading channel (i b + j) C' + c' (DCR) or c' b b + i b + j (CRD) of x at (h, w). SpaceToDepth iterates its
 * output as (n, i, j, c, h, w) — y[n, (i b + j) C + c, h, w] — reading x[n, c, h b + i, w b + j]. */
static OrtStatus *depth_space_record(const ortvk_kparams *params, ortvk_krun *run)
{
    const ortvk_kparams_depth_space *p = &params->depth_space;
    const ortvk_ktensor *x = &run->in[0], *y = &run->out[0];
    int64_t b = p->blocksize, c = x->dims[1], h = x->dims[2], w = x->dims[3], hw = h * w;
    ortvk_kstrides s = {.rank = 6};
    if (p->to_depth) {
        int64_t dims[6] = {x->dims[0], b, b, c, h / b, w / b}, src[6] = {c * hw, w, 1, hw, b * w, b};
        memcpy(s.dims, dims, sizeof(dims));
        memcpy(s.stride[0], src, sizeof(src));
    } else {
        int64_t c2 = c / (b * b);
        int64_t dims[6] = {x->dims[0], c2, h, b, w, b};
        int64_t dcr[6] = {c * hw, hw, w, b * c2 * hw, 1, c2 * hw}, crd[6] = {c * hw, b * b * hw, w, b * hw, 1, hw};
        memcpy(s.dims, dims, sizeof(dims));
        memcpy(s.stride[0], p->crd ? crd : dcr, sizeof(dcr));
    }
    ortvk_krow_major(s.dims, 6, s.stride[1]);
    return ortvk_kstrided_copy(run, x->address, 0, y->address, 0, &s, ortvk_element_size(x->type));
}

/* ---- Pad ------------------------------------------------------------------------------------------------ */

static bool pad_prepare(const ortvk_knode *node, ortvk_kparams *params, char *why, size_t why_len)
{
    ortvk_kparams_pad *p = &params->pad;
    if (!ortvk_klayout_floats(node, 1, why, why_len) || node->n_out != 1) return false;
    int rank = node->in[0].rank;
    if (rank < 0 || rank > ORTVK_KMAX_SHADER_RANK) return ortvk_krefuse(why, why_len, "rank %d", rank);
    char mode[16];
    if (!ortvk_knode_string(node, "mode", mode, sizeof(mode))) return ortvk_krefuse(why, why_len, "mode");
    if (mode[0] == '\0' || strcmp(mode, "constant") == 0) p->mode = ORTVK_PAD_CONSTANT;
    else if (strcmp(mode, "reflect") == 0) p->mode = ORTVK_PAD_REFLECT;
    else if (strcmp(mode, "edge") == 0) p->mode = ORTVK_PAD_EDGE;
    else return ortvk_krefuse(why, why_len, "mode %s", mode);
    int64_t pads[2 * ORTVK_KMAX_RANK];
    size_t n = 0;
    if (node->opset < 11) {
        int count = 0;
        if (!ortvk_knode_ints(node, "pads", pads, 2 * ORTVK_KMAX_RANK, &count) || count != 2 * rank ||
            !ortvk_knode_float(node, "value", 0.0f, &p->value))
            return ortvk_krefuse(why, why_len, "pads or value");
        n = (size_t)count;
    } else {
        if (node->n_in < 2 || !ortvk_knode_const_ints(node, 1, pads, 2 * ORTVK_KMAX_RANK, &n))
            return ortvk_krefuse(why, why_len, "pads are not constant");
        p->value = 0.0f;
        if (node->n_in > 2 && node->in[2].present) {
            size_t one = 0;
            if (!ortvk_knode_const_floats(node, 2, &p->value, 1, &one) || one != 1)
                return ortvk_krefuse(why, why_len, "constant_value is not a constant float scalar");
        }
    }
    /* pads come as (begins..., ends...) over `axes` (opset 18) or all dims. */
    int64_t axes[ORTVK_KMAX_RANK];
    size_t na = n / 2;
    if (node->n_in > 3 && node->in[3].present) {
        if (!ortvk_knode_const_ints(node, 3, axes, ORTVK_KMAX_RANK, &na) || 2 * na != n)
            return ortvk_krefuse(why, why_len, "axes are not constant");
    } else {
        if (n != 2 * (size_t)rank) return ortvk_krefuse(why, why_len, "%zu pads for rank %d", n, rank);
        for (size_t i = 0; i < na; i++) axes[i] = (int64_t)i;
    }
    memset(p->pads, 0, sizeof(p->pads));
    for (size_t i = 0; i < na; i++) {
        int64_t a;
        if (!ortvk_kaxis(axes[i], (size_t)rank, &a))
            return ortvk_krefuse(why, why_len, "axis %lld", (long long)axes[i]);
        /* The shader takes the begin pads as int32; larger ones only make sense for outputs it cannot index. */
        if (pads[i] < INT32_MIN || pads[i] > INT32_MAX || pads[na + i] < INT32_MIN || pads[na + i] > INT32_MAX)
            return ortvk_krefuse(why, why_len, "pads[%zu] = %lld or pads[%zu] = %lld past 32 bits", i,
                                 (long long)pads[i], na + i, (long long)pads[na + i]);
        p->pads[a] = pads[i];
        p->pads[rank + a] = pads[na + i];
    }
    p->count = rank;
    return true;
}

static OrtStatus *pad_shape(const ortvk_kparams *params, ortvk_krun *run)
{
    const ortvk_kparams_pad *p = &params->pad;
    const ortvk_ktensor *x = &run->in[0];
    ortvk_ktensor *y = &run->out[0];
    if ((int)x->rank != p->count) return ortvk_status(ORT_INVALID_ARGUMENT, "Pad: rank %zu", x->rank);
    y->type = x->type;
    y->rank = x->rank;
    bool nothing = false; /* some dim has no effective extent */
    for (size_t d = 0; d < x->rank; d++) {
        int64_t b = p->pads[d], e = p->pads[x->rank + d];
        nothing = nothing || x->dims[d] + (b < 0 ? b : 0) + (e < 0 ? e : 0) <= 0;
        if (!ortvk_kadd(x->dims[d], b, &y->dims[d]) || !ortvk_kadd(y->dims[d], e, &y->dims[d]) || y->dims[d] < 0)
            return ortvk_status(ORT_INVALID_ARGUMENT, "Pad: dim %zu of %lld with pads %lld and %lld", d,
                                (long long)x->dims[d], (long long)b, (long long)e);
        /* Edge and reflect need input to copy from; reflect cannot fold more than once. As ORT's CPU EP, the
         * input they copy from is what negative pads leave of the dim (its effective extent). */
        int64_t extent = x->dims[d] + (b < 0 ? b : 0) + (e < 0 ? e : 0);
        if (p->mode != ORTVK_PAD_CONSTANT && y->dims[d] > 0 &&
            (extent <= 0 || (p->mode == ORTVK_PAD_REFLECT && (b >= extent || e >= extent))))
            return ortvk_status(ORT_INVALID_ARGUMENT, "Pad: pads %lld and %lld of dim %zu too large for mode %s "
                                "over an effective extent of %lld", (long long)b, (long long)e, d,
                                p->mode == ORTVK_PAD_REFLECT ? "reflect" : "edge", (long long)extent);
    }
    /* ORT's CPU EP: no edge or reflect mode at all where the effective input has no elements (also without a
     * positive pad, also for an empty output) */
    if (p->mode != ORTVK_PAD_CONSTANT && nothing)
        return ortvk_status(ORT_INVALID_ARGUMENT, "Pad: mode %s over an input that negative pads or a dim of 0 "
                            "leave empty", p->mode == ORTVK_PAD_REFLECT ? "reflect" : "edge");
    return NULL;
}

typedef struct push_pad {
    uint64_t x, y;
    uint32_t n, rank, mode;
    float value;
    uint32_t out_dims[6], in_dims[6];
    int32_t begin[6];
} push_pad;

static OrtStatus *pad_record(const ortvk_kparams *params, ortvk_krun *run)
{
    const ortvk_kparams_pad *p = &params->pad;
    const ortvk_ktensor *x = &run->in[0], *y = &run->out[0];
    push_pad push = {
        .x = x->count > 0 ? x->address : y->address,
        .y = y->address,
        .n = (uint32_t)y->count,
        .rank = (uint32_t)x->rank,
        .mode = (uint32_t)p->mode,
        .value = p->value,
    };
    for (size_t d = 0; d < x->rank; d++) {
        push.out_dims[d] = (uint32_t)y->dims[d];
        push.in_dims[d] = (uint32_t)x->dims[d];
        push.begin[d] = (int32_t)p->pads[d];
    }
    return ortvk_krun_dispatch(run, ORTVK_SHADER_PAD, &push, sizeof(push), y->count);
}

const ortvk_kop ortvk_kops_gather[] = {
    {"Expand", 8, 13, "", 0x2, expand_prepare, expand_shape, expand_record},
    {"Tile", 6, 13, "", 0x2, tile_prepare, tile_shape, tile_record},
    {"Gather", 1, 13, "axis", 0x2, gather_prepare, gather_shape, gather_record},
    {"DepthToSpace", 1, 13, "blocksize mode", 0, depth_space_prepare, depth_space_shape, depth_space_record},
    {"SpaceToDepth", 1, 13, "blocksize", 0, depth_space_prepare, depth_space_shape, depth_space_record},
    {"Pad", 2, 21, "mode pads value", 0xE, pad_prepare, pad_shape, pad_record},
    {NULL, 0, 0, NULL, 0, NULL, NULL, NULL},
};
