/* Ops that move elements without arithmetic: Reshape, Flatten, Squeeze, Unsqueeze (a copy), Transpose, Concat, Slice,
 * Split, Expand, Gather, Tile, DepthToSpace, SpaceToDepth (strided copies), Pad (a gather with a constant), and Cast.
 * Shapes, axes, indices, starts/ends and pads must be constant: they are read on the host at Compile. */
#include <string.h>

#include "kernels/kernel_internal.h"

static bool floats_only(const ortvk_knode *node, size_t n_data_in, char *why, size_t why_len)
{
    for (size_t i = 0; i < n_data_in && i < node->n_in; i++) {
        if (!node->in[i].present || !ortvk_kfloat(node->in[i].type))
            return ortvk_krefuse(why, why_len, "input %zu is not float", i);
    }
    for (size_t i = 0; i < node->n_out; i++) {
        if (node->out[i].present && !ortvk_kfloat(node->out[i].type))
            return ortvk_krefuse(why, why_len, "output %zu is not float", i);
    }
    return node->n_out > 0 || ortvk_krefuse(why, why_len, "no outputs");
}

/* Axis `a` of a rank-`r` tensor, negative counting from the end; false when out of [-r, r). */
static bool norm_axis(int64_t a, size_t r, int64_t *out)
{
    if (a < 0) a += (int64_t)r;
    if (a < 0 || a >= (int64_t)r) return false;
    *out = a;
    return true;
}

/* ---- the strided copy ----------------------------------------------------------------------------------- */

typedef struct push_copy {
    uint64_t src, dst;
    uint32_t n, rank, words;
    int32_t src_offset, dst_offset;
    uint32_t dims[6];
    int32_t sstride[6], dstride[6];
} push_copy;

/* Copies the elements of the iteration space `s` (stride[0]: source, stride[1]: destination, in elements) from
 * src + src_off to dst + dst_off. A contiguous copy becomes a buffer copy. */
static OrtStatus *strided_copy(ortvk_krun *run, VkDeviceAddress src, int64_t src_off, VkDeviceAddress dst,
                               int64_t dst_off, ortvk_kstrides *s, size_t esize)
{
    size_t n = ortvk_kcount(s->dims, (size_t)s->rank);
    if (n == 0) return NULL;
    ortvk_kcoalesce(s, 2);
    /* The shader indexes with 32 bits: larger tensors are left undone rather than wrapped. */
    bool fits = n <= UINT32_MAX && src_off >= INT32_MIN && src_off <= INT32_MAX && dst_off >= INT32_MIN &&
                dst_off <= INT32_MAX;
    for (int k = 0; k < s->rank; k++) {
        for (int o = 0; o < 2; o++) fits = fits && s->stride[o][k] >= INT32_MIN && s->stride[o][k] <= INT32_MAX;
    }
    if (!fits) return ortvk_status(ORT_EP_FAIL, "a copy of %zu elements with strides or offsets beyond 32 bits", n);
    if (s->rank == 1 && s->stride[0][0] == 1 && s->stride[1][0] == 1)
        return ortvk_krun_copy(run, dst + (VkDeviceAddress)dst_off * esize, src + (VkDeviceAddress)src_off * esize,
                               n * esize);
    if (s->rank > ORTVK_KMAX_SHADER_RANK) return ortvk_status(ORT_EP_FAIL, "a copy of rank %d", s->rank);
    push_copy push = {
        .src = src,
        .dst = dst,
        .n = (uint32_t)n,
        .rank = (uint32_t)s->rank,
        .words = (uint32_t)(esize / 4), /* 0: a 16-bit element (the float16 variant, chosen by the run) */
        .src_offset = (int32_t)src_off,
        .dst_offset = (int32_t)dst_off,
    };
    for (int k = 0; k < s->rank; k++) {
        push.dims[k] = (uint32_t)s->dims[k];
        push.sstride[k] = (int32_t)s->stride[0][k];
        push.dstride[k] = (int32_t)s->stride[1][k];
    }
    return ortvk_krun_dispatch(run, ORTVK_SHADER_COPY, &push, sizeof(push), n);
}

static void row_major(const int64_t *dims, size_t rank, int64_t *strides)
{
    int64_t s = 1;
    for (size_t i = rank; i-- > 0;) {
        strides[i] = s;
        s *= dims[i];
    }
}

/* ---- Reshape, Flatten, Squeeze, Unsqueeze ----------------------------------------------------------------- */

/* A shape, axes or repeats list: constant (read at Compile), or input 1's values, known on the host at run time
 * (ORTVK_KRUNTIME). */
static bool list_prepare(const ortvk_knode *node, int64_t *list, int *count)
{
    size_t n = 0;
    if (ortvk_knode_const_ints(node, 1, list, ORTVK_KMAX_RANK, &n)) {
        *count = (int)n;
        return true;
    }
    *count = ORTVK_KRUNTIME;
    return ortvk_knode_host_ints(node, 1);
}

/* The parameters with a run-time list filled in from input 1's host values. */
static OrtStatus *list_at_run(const ortvk_kparams *params, const ortvk_krun *run, const char *op,
                              ortvk_kparams_reshape *q)
{
    *q = params->reshape;
    if (q->count != ORTVK_KRUNTIME) return NULL;
    size_t n = 0;
    if (!ortvk_krun_host_ints(run, 1, q->shape, ORTVK_KMAX_RANK, &n))
        return ortvk_status(ORT_INVALID_ARGUMENT, "%s: input 1 (%zu values) is not known on the host or has more "
                            "than %d values", op, run->in[1].count, ORTVK_KMAX_RANK);
    q->count = (int)n;
    return NULL;
}

static bool reshape_prepare(const ortvk_knode *node, ortvk_kparams *params, char *why, size_t why_len)
{
    ortvk_kparams_reshape *p = &params->reshape;
    if (!floats_only(node, 1, why, why_len) || node->n_out != 1) return false;
    const char *op = node->op_type;
    if (strcmp(op, "Reshape") == 0) {
        p->kind = ORTVK_RESHAPE_RESHAPE;
        if (!ortvk_knode_bool(node, "allowzero", false, &p->allowzero)) return ortvk_krefuse(why, why_len, "allowzero");
        if (node->n_in != 2 || !list_prepare(node, p->shape, &p->count))
            return ortvk_krefuse(why, why_len, "shape is neither constant nor known on the host");
    } else if (strcmp(op, "Flatten") == 0) {
        p->kind = ORTVK_RESHAPE_FLATTEN;
        if (!ortvk_knode_int(node, "axis", 1, &p->axis)) return ortvk_krefuse(why, why_len, "axis");
    } else {
        p->kind = strcmp(op, "Squeeze") == 0 ? ORTVK_RESHAPE_SQUEEZE : ORTVK_RESHAPE_UNSQUEEZE;
        /* axes: an attribute before opset 13, an optional constant input from 13 on. */
        if (node->opset < 13) {
            if (!ortvk_knode_ints(node, "axes", p->shape, ORTVK_KMAX_RANK, &p->count))
                return ortvk_krefuse(why, why_len, "axes");
        } else if (node->n_in >= 2 && node->in[1].present) {
            if (!list_prepare(node, p->shape, &p->count))
                return ortvk_krefuse(why, why_len, "axes are neither constant nor known on the host");
        } else {
            p->count = -1;
        }
        if (p->kind == ORTVK_RESHAPE_UNSQUEEZE && p->count == -1) return ortvk_krefuse(why, why_len, "no axes");
        /* Squeeze's axes given with no values: ORT's CPU EP squeezes every 1, as without axes. */
        if (p->kind == ORTVK_RESHAPE_SQUEEZE && p->count == 0) p->count = -1;
    }
    return true;
}

static OrtStatus *reshape_shape(const ortvk_kparams *params, ortvk_krun *run)
{
    ortvk_kparams_reshape q;
    const ortvk_kparams_reshape *p = &q;
    static const char *const names[] = {"Reshape", "Flatten", "Squeeze", "Unsqueeze"};
    ORTVK_TRY(list_at_run(params, run, names[params->reshape.kind & 3], &q));
    const ortvk_ktensor *x = &run->in[0];
    ortvk_ktensor *y = &run->out[0];
    y->type = x->type;
    switch (p->kind) {
    case ORTVK_RESHAPE_RESHAPE: {
        int infer = -1;
        int64_t known = 1;
        y->rank = (size_t)p->count;
        for (int i = 0; i < p->count; i++) {
            int64_t v = p->shape[i];
            if (v == 0 && !p->allowzero) {
                if ((size_t)i >= x->rank) return ortvk_status(ORT_INVALID_ARGUMENT, "Reshape: 0 beyond the input rank");
                v = x->dims[i];
            }
            if (v == -1) {
                if (infer >= 0) return ortvk_status(ORT_INVALID_ARGUMENT, "Reshape: two -1 dims");
                infer = i;
                continue;
            }
            if (v < 0) return ortvk_status(ORT_INVALID_ARGUMENT, "Reshape: dim %lld", (long long)v);
            y->dims[i] = v;
            if (!ortvk_kmul(known, v, &known))
                return ortvk_status(ORT_INVALID_ARGUMENT, "Reshape: shape[%d] = %lld overflows the element count", i,
                                    (long long)v);
        }
        if (infer >= 0) {
            if (known == 0 || x->count % (size_t)known != 0)
                return ortvk_status(ORT_INVALID_ARGUMENT, "Reshape: cannot infer the -1 dim");
            y->dims[infer] = (int64_t)x->count / known;
        }
        break;
    }
    case ORTVK_RESHAPE_FLATTEN: {
        int64_t axis = p->axis < 0 ? p->axis + (int64_t)x->rank : p->axis;
        if (axis < 0 || axis > (int64_t)x->rank) return ortvk_status(ORT_INVALID_ARGUMENT, "Flatten: axis");
        y->rank = 2;
        y->dims[0] = (int64_t)ortvk_kcount(x->dims, (size_t)axis);
        y->dims[1] = (int64_t)ortvk_kcount(x->dims + axis, x->rank - (size_t)axis);
        break;
    }
    case ORTVK_RESHAPE_SQUEEZE: {
        bool drop[ORTVK_KMAX_RANK] = {0};
        for (int i = 0; i < p->count; i++) {
            int64_t a;
            if (!norm_axis(p->shape[i], x->rank, &a) || x->dims[a] != 1)
                return ortvk_status(ORT_INVALID_ARGUMENT, "Squeeze: axis %lld", (long long)p->shape[i]);
            drop[a] = true;
        }
        y->rank = 0;
        for (size_t d = 0; d < x->rank; d++) {
            if (p->count < 0 ? x->dims[d] == 1 : drop[d]) continue;
            y->dims[y->rank++] = x->dims[d];
        }
        break;
    }
    case ORTVK_RESHAPE_UNSQUEEZE: {
        size_t r = x->rank + (size_t)p->count;
        if (r > ORTVK_KMAX_RANK) return ortvk_status(ORT_INVALID_ARGUMENT, "Unsqueeze: rank %zu", r);
        bool one[ORTVK_KMAX_RANK] = {0};
        for (int i = 0; i < p->count; i++) {
            int64_t a;
            if (!norm_axis(p->shape[i], r, &a) || one[a])
                return ortvk_status(ORT_INVALID_ARGUMENT, "Unsqueeze: axis %lld", (long long)p->shape[i]);
            one[a] = true;
        }
        size_t k = 0;
        for (size_t d = 0; d < r; d++) y->dims[d] = one[d] ? 1 : x->dims[k++];
        y->rank = r;
        break;
    }
    default: break;
    }
    if (ortvk_kcount(y->dims, y->rank) != x->count)
        return ortvk_status(ORT_INVALID_ARGUMENT, "%s: %zu elements into %zu", "reshape", x->count,
                            ortvk_kcount(y->dims, y->rank));
    return NULL;
}

static OrtStatus *reshape_record(const ortvk_kparams *params, ortvk_krun *run)
{
    (void)params;
    return ortvk_krun_copy(run, run->out[0].address, run->in[0].address,
                          run->in[0].count * ortvk_element_size(run->in[0].type));
}

/* ---- Transpose ------------------------------------------------------------------------------------------ */

static bool transpose_prepare(const ortvk_knode *node, ortvk_kparams *params, char *why, size_t why_len)
{
    ortvk_kparams_transpose *p = &params->transpose;
    if (!floats_only(node, 1, why, why_len) || node->n_in != 1 || node->n_out != 1) return false;
    if (!ortvk_knode_ints(node, "perm", p->perm, ORTVK_KMAX_RANK, &p->count))
        return ortvk_krefuse(why, why_len, "perm");
    int rank = node->in[0].rank;
    if (rank < 0 && p->count >= 0) rank = p->count; /* ORT left the rank unknown: perm gives it (checked in the run) */
    if (rank < 0 || rank > ORTVK_KMAX_SHADER_RANK) return ortvk_krefuse(why, why_len, "rank %d", rank);
    if (p->count >= 0 && p->count != rank) return ortvk_krefuse(why, why_len, "perm of %d for rank %d", p->count, rank);
    return true;
}

static OrtStatus *transpose_perm(const ortvk_kparams_transpose *p, size_t rank, int64_t *perm)
{
    if (p->count >= 0 && (size_t)p->count != rank) return ortvk_status(ORT_INVALID_ARGUMENT, "Transpose: perm");
    bool seen[ORTVK_KMAX_RANK] = {0};
    for (size_t i = 0; i < rank; i++) {
        int64_t a = p->count < 0 ? (int64_t)(rank - 1 - i) : p->perm[i];
        if (!norm_axis(a, rank, &a) || seen[a]) return ortvk_status(ORT_INVALID_ARGUMENT, "Transpose: perm");
        seen[a] = true;
        perm[i] = a;
    }
    return NULL;
}

static OrtStatus *transpose_shape(const ortvk_kparams *params, ortvk_krun *run)
{
    const ortvk_ktensor *x = &run->in[0];
    ortvk_ktensor *y = &run->out[0];
    int64_t perm[ORTVK_KMAX_RANK];
    ORTVK_TRY(transpose_perm(&params->transpose, x->rank, perm));
    y->type = x->type;
    y->rank = x->rank;
    for (size_t i = 0; i < x->rank; i++) y->dims[i] = x->dims[perm[i]];
    return NULL;
}

static OrtStatus *transpose_record(const ortvk_kparams *params, ortvk_krun *run)
{
    const ortvk_ktensor *x = &run->in[0], *y = &run->out[0];
    int64_t perm[ORTVK_KMAX_RANK], in_strides[ORTVK_KMAX_RANK];
    ORTVK_TRY(transpose_perm(&params->transpose, x->rank, perm));
    row_major(x->dims, x->rank, in_strides);
    ortvk_kstrides s = {.rank = (int)y->rank};
    memcpy(s.dims, y->dims, sizeof(y->dims));
    row_major(y->dims, y->rank, s.stride[1]);
    for (size_t i = 0; i < y->rank; i++) s.stride[0][i] = in_strides[perm[i]];
    return strided_copy(run, x->address, 0, y->address, 0, &s, ortvk_element_size(x->type));
}

/* ---- Concat --------------------------------------------------------------------------------------------- */

static bool concat_prepare(const ortvk_knode *node, ortvk_kparams *params, char *why, size_t why_len)
{
    if (!floats_only(node, node->n_in, why, why_len) || node->n_in < 1 || node->n_out != 1) return false;
    if (!ortvk_knode_has(node, "axis") || !ortvk_knode_int(node, "axis", 0, &params->concat.axis))
        return ortvk_krefuse(why, why_len, "axis");
    return true;
}

static OrtStatus *concat_shape(const ortvk_kparams *params, ortvk_krun *run)
{
    const ortvk_ktensor *x = &run->in[0];
    ortvk_ktensor *y = &run->out[0];
    int64_t axis;
    if (!norm_axis(params->concat.axis, x->rank, &axis)) return ortvk_status(ORT_INVALID_ARGUMENT, "Concat: axis");
    y->type = x->type;
    y->rank = x->rank;
    memcpy(y->dims, x->dims, sizeof(x->dims));
    y->dims[axis] = 0;
    for (size_t k = 0; k < run->n_in; k++) {
        const ortvk_ktensor *t = &run->in[k];
        if (t->rank != x->rank) return ortvk_status(ORT_INVALID_ARGUMENT, "Concat: ranks differ");
        for (size_t d = 0; d < x->rank; d++) {
            if ((int64_t)d != axis && t->dims[d] != x->dims[d])
                return ortvk_status(ORT_INVALID_ARGUMENT, "Concat: input %zu has dim %zu of %lld", k, d,
                                    (long long)t->dims[d]);
        }
        y->dims[axis] += t->dims[axis];
    }
    return NULL;
}

static OrtStatus *concat_record(const ortvk_kparams *params, ortvk_krun *run)
{
    const ortvk_ktensor *y = &run->out[0];
    int64_t axis;
    if (!norm_axis(params->concat.axis, y->rank, &axis)) return ortvk_status(ORT_INVALID_ARGUMENT, "Concat: axis");
    int64_t outer = (int64_t)ortvk_kcount(y->dims, (size_t)axis);
    int64_t inner = (int64_t)ortvk_kcount(y->dims + axis + 1, y->rank - (size_t)axis - 1);
    int64_t at = 0;
    for (size_t k = 0; k < run->n_in; k++) {
        const ortvk_ktensor *t = &run->in[k];
        int64_t len = t->dims[axis] * inner;
        ortvk_kstrides s = {.rank = 2, .dims = {outer, len}, .stride = {{len, 1}, {y->dims[axis] * inner, 1}}};
        if (t->count > 0)
            ORTVK_TRY(strided_copy(run, t->address, 0, y->address, at, &s, ortvk_element_size(t->type)));
        at += len;
    }
    return NULL;
}

/* ---- Slice ---------------------------------------------------------------------------------------------- */

static bool slice_prepare(const ortvk_knode *node, ortvk_kparams *params, char *why, size_t why_len)
{
    ortvk_kparams_slice *p = &params->slice;
    if (!floats_only(node, 1, why, why_len) || node->n_out != 1) return false;
    if (node->in[0].rank > ORTVK_KMAX_SHADER_RANK) /* unknown: the copy checks it in the run */
        return ortvk_krefuse(why, why_len, "rank %d", node->in[0].rank);
    size_t ns = 0, ne = 0, na = 0, nt = 0;
    if (node->opset < 10) {
        /* Slice-1: starts, ends and axes are attributes, there are no steps. */
        int cs = -1, ce = -1, ca = -1;
        if (node->n_in != 1 || !ortvk_knode_ints(node, "starts", p->starts, ORTVK_KMAX_RANK, &cs) ||
            !ortvk_knode_ints(node, "ends", p->ends, ORTVK_KMAX_RANK, &ce) || cs < 0 || cs != ce ||
            !ortvk_knode_ints(node, "axes", p->axes, ORTVK_KMAX_RANK, &ca) || (ca >= 0 && ca != cs))
            return ortvk_krefuse(why, why_len, "starts/ends/axes attributes");
        p->count = cs;
        for (int i = 0; i < cs; i++) {
            if (ca < 0) p->axes[i] = i;
            p->steps[i] = 1;
        }
        return true;
    }
    if (node->n_in < 3 || node->n_in > 5) return ortvk_krefuse(why, why_len, "inputs");
    bool runtime = false; /* any of starts, ends, axes, steps computed in the run: all read then */
    for (size_t i = 1; i < node->n_in; i++) {
        if (!node->in[i].present || node->in[i].constant != NULL) continue;
        if (!ortvk_knode_host_ints(node, i))
            return ortvk_krefuse(why, why_len, "input %zu is neither constant nor known on the host", i);
        runtime = true;
    }
    if (runtime) {
        p->count = ORTVK_KRUNTIME;
        return true;
    }
    if (!ortvk_knode_const_ints(node, 1, p->starts, ORTVK_KMAX_RANK, &ns) ||
        !ortvk_knode_const_ints(node, 2, p->ends, ORTVK_KMAX_RANK, &ne) || ns != ne)
        return ortvk_krefuse(why, why_len, "starts/ends are not constant");
    p->count = (int)ns;
    if (node->n_in > 3 && node->in[3].present) {
        if (!ortvk_knode_const_ints(node, 3, p->axes, ORTVK_KMAX_RANK, &na) || na != ns)
            return ortvk_krefuse(why, why_len, "axes are not constant");
    } else {
        for (size_t i = 0; i < ns; i++) p->axes[i] = (int64_t)i;
    }
    if (node->n_in > 4 && node->in[4].present) {
        if (!ortvk_knode_const_ints(node, 4, p->steps, ORTVK_KMAX_RANK, &nt) || nt != ns)
            return ortvk_krefuse(why, why_len, "steps are not constant");
        for (size_t i = 0; i < ns; i++) {
            if (p->steps[i] == 0) return ortvk_krefuse(why, why_len, "step 0");
        }
    } else {
        for (size_t i = 0; i < ns; i++) p->steps[i] = 1;
    }
    return true;
}

/* Per input dim: first element, step and count, as ORT's CPU EP computes them (its SliceOp::PrepareForCompute),
 * which differs from the letter of the ONNX spec in one place: an end of INT32_MAX or INT64_MAX means "to the end in
 * the direction of the step", so with a negative step it slices down to element 0 (the spec would clamp it to
 * dim - 1 and return nothing). No intermediate value overflows, whatever the constants (huge steps included). */
OrtStatus *ortvk_kslice_plan(const ortvk_kparams_slice *p, const ortvk_ktensor *x, int64_t *start, int64_t *step,
                             int64_t *len)
{
    bool seen[ORTVK_KMAX_RANK] = {0};
    for (size_t d = 0; d < x->rank; d++) start[d] = 0, step[d] = 1, len[d] = x->dims[d];
    for (int i = 0; i < p->count; i++) {
        int64_t a;
        if (!norm_axis(p->axes[i], x->rank, &a) || seen[a])
            return ortvk_status(ORT_INVALID_ARGUMENT, "Slice: axes[%d] = %lld is out of range or repeated", i,
                                (long long)p->axes[i]);
        seen[a] = true;
        /* dim >= 0 and s, e adjusted by at most dim: no overflow below. */
        int64_t dim = x->dims[a], s = p->starts[i], e = p->ends[i], t = p->steps[i], n = 0;
        if (s < 0) s += dim;
        if (t > 0) {
            s = s < 0 ? 0 : (s > dim ? dim : s);
            if (e == INT32_MAX || e == INT64_MAX) e = dim;
            else if (e < 0) e += dim;
            e = e < 0 ? 0 : (e > dim ? dim : e);
            n = e > s ? (e - s - 1) / t + 1 : 0;
        } else {
            s = s < 0 ? 0 : (s > dim - 1 ? dim - 1 : s); /* dim 0: s = -1, nothing is read */
            if (e == INT32_MAX || e == INT64_MAX) e = -1;
            else if (e < 0) e += dim;
            e = e < -1 ? -1 : (e > dim ? dim : e);
            n = s > e ? (int64_t)((uint64_t)(s - e - 1) / (0 - (uint64_t)t)) + 1 : 0;
        }
        if (dim == 0) n = 0; /* ORT's CPU EP: an empty dim stays empty (its clamps alone would make one element) */
        start[a] = n > 0 ? s : 0;
        step[a] = n > 1 ? t : 1; /* |t| < dim here: the stride it makes fits (t itself may be anything) */
        len[a] = n;
    }
    return NULL;
}

static OrtStatus *slice_shape(const ortvk_kparams *params, ortvk_krun *run)
{
    const ortvk_ktensor *x = &run->in[0];
    ortvk_ktensor *y = &run->out[0];
    int64_t start[ORTVK_KMAX_RANK], step[ORTVK_KMAX_RANK];
    ortvk_kparams_slice q = params->slice;
    if (q.count == ORTVK_KRUNTIME) ORTVK_TRY(ortvk_krun_slice_params(run, &q));
    ORTVK_TRY(ortvk_kslice_plan(&q, x, start, step, y->dims));
    y->type = x->type;
    y->rank = x->rank;
    return NULL;
}

static OrtStatus *slice_record(const ortvk_kparams *params, ortvk_krun *run)
{
    const ortvk_ktensor *x = &run->in[0], *y = &run->out[0];
    int64_t start[ORTVK_KMAX_RANK], step[ORTVK_KMAX_RANK], len[ORTVK_KMAX_RANK], in_strides[ORTVK_KMAX_RANK];
    ortvk_kparams_slice q = params->slice;
    if (q.count == ORTVK_KRUNTIME) ORTVK_TRY(ortvk_krun_slice_params(run, &q));
    ORTVK_TRY(ortvk_kslice_plan(&q, x, start, step, len));
    row_major(x->dims, x->rank, in_strides);
    ortvk_kstrides s = {.rank = (int)x->rank};
    int64_t offset = 0;
    for (size_t d = 0; d < x->rank; d++) {
        s.dims[d] = len[d];
        s.stride[0][d] = in_strides[d] * step[d];
        offset += start[d] * in_strides[d];
    }
    row_major(y->dims, y->rank, s.stride[1]);
    return strided_copy(run, x->address, offset, y->address, 0, &s, ortvk_element_size(x->type));
}

/* ---- Split ---------------------------------------------------------------------------------------------- */

static bool split_prepare(const ortvk_knode *node, ortvk_kparams *params, char *why, size_t why_len)
{
    ortvk_kparams_split *p = &params->split;
    if (!floats_only(node, 1, why, why_len)) return false;
    if (!ortvk_knode_int(node, "axis", 0, &p->axis)) return ortvk_krefuse(why, why_len, "axis");
    p->count = -1;
    if (node->opset < 13) {
        if (!ortvk_knode_ints(node, "split", p->split, ORTVK_KMAX_OUTPUTS, &p->count))
            return ortvk_krefuse(why, why_len, "split");
    } else if (node->n_in >= 2 && node->in[1].present) {
        size_t n = 0;
        if (!ortvk_knode_const_ints(node, 1, p->split, ORTVK_KMAX_OUTPUTS, &n))
            return ortvk_krefuse(why, why_len, "split is not constant");
        p->count = (int)n;
    }
    int64_t num_outputs = 0;
    if (!ortvk_knode_int(node, "num_outputs", 0, &num_outputs) ||
        (num_outputs != 0 && num_outputs != (int64_t)node->n_out))
        return ortvk_krefuse(why, why_len, "num_outputs");
    if (p->count >= 0 && (size_t)p->count != node->n_out) return ortvk_krefuse(why, why_len, "split sizes");
    return true;
}

static OrtStatus *split_sizes(const ortvk_kparams_split *p, const ortvk_ktensor *x, size_t n_out, int64_t *axis,
                              int64_t *sizes)
{
    if (!norm_axis(p->axis, x->rank, axis)) return ortvk_status(ORT_INVALID_ARGUMENT, "Split: axis");
    int64_t dim = x->dims[*axis], total = 0;
    for (size_t i = 0; i < n_out; i++) {
        if (p->count >= 0) {
            sizes[i] = p->split[i];
        } else {
            /* Equal parts; opset 18's num_outputs makes the last one smaller when it does not divide. */
            int64_t part = (dim + (int64_t)n_out - 1) / (int64_t)n_out;
            sizes[i] = total + part > dim ? dim - total : part;
        }
        if (sizes[i] < 0 || !ortvk_kadd(total, sizes[i], &total))
            return ortvk_status(ORT_INVALID_ARGUMENT, "Split: split[%zu] = %lld", i, (long long)sizes[i]);
    }
    if (total != dim) return ortvk_status(ORT_INVALID_ARGUMENT, "Split: sizes add up to %lld of %lld", (long long)total,
                                          (long long)dim);
    return NULL;
}

static OrtStatus *split_shape(const ortvk_kparams *params, ortvk_krun *run)
{
    const ortvk_ktensor *x = &run->in[0];
    int64_t axis, sizes[ORTVK_KMAX_OUTPUTS];
    ORTVK_TRY(split_sizes(&params->split, x, run->n_out, &axis, sizes));
    for (size_t i = 0; i < run->n_out; i++) {
        ortvk_ktensor *y = &run->out[i];
        y->type = x->type;
        y->rank = x->rank;
        memcpy(y->dims, x->dims, sizeof(x->dims));
        y->dims[axis] = sizes[i];
    }
    return NULL;
}

static OrtStatus *split_record(const ortvk_kparams *params, ortvk_krun *run)
{
    const ortvk_ktensor *x = &run->in[0];
    int64_t axis, sizes[ORTVK_KMAX_OUTPUTS];
    ORTVK_TRY(split_sizes(&params->split, x, run->n_out, &axis, sizes));
    int64_t outer = (int64_t)ortvk_kcount(x->dims, (size_t)axis);
    int64_t inner = (int64_t)ortvk_kcount(x->dims + axis + 1, x->rank - (size_t)axis - 1);
    int64_t at = 0;
    for (size_t i = 0; i < run->n_out; i++) {
        const ortvk_ktensor *y = &run->out[i];
        int64_t len = sizes[i] * inner;
        ortvk_kstrides s = {.rank = 2, .dims = {outer, len}, .stride = {{x->dims[axis] * inner, 1}, {len, 1}}};
        if (y->present && y->count > 0)
            ORTVK_TRY(strided_copy(run, x->address, at, y->address, 0, &s, ortvk_element_size(x->type)));
        at += len;
    }
    return NULL;
}

/* ---- Expand --------------------------------------------------------------------------------------------- */

static bool expand_prepare(const ortvk_knode *node, ortvk_kparams *params, char *why, size_t why_len)
{
    ortvk_kparams_reshape *p = &params->reshape;
    if (!floats_only(node, 1, why, why_len) || node->n_in != 2 || node->n_out != 1) return false;
    if (!list_prepare(node, p->shape, &p->count) || p->count > ORTVK_KMAX_SHADER_RANK)
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
    ORTVK_TRY(list_at_run(params, run, "Expand", &q));
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
    row_major(y->dims, y->rank, s.stride[1]);
    return strided_copy(run, x->address, 0, y->address, 0, &s, ortvk_element_size(x->type));
}

/* ---- Gather --------------------------------------------------------------------------------------------- */

static bool gather_prepare(const ortvk_knode *node, ortvk_kparams *params, char *why, size_t why_len)
{
    ortvk_kparams_gather *p = &params->gather;
    if (!floats_only(node, 1, why, why_len) || node->n_in != 2 || node->n_out != 1) return false;
    if (!ortvk_knode_int(node, "axis", 0, &p->axis)) return ortvk_krefuse(why, why_len, "axis");
    const ortvk_kvalue *q = &node->in[1];
    if (!ortvk_knode_const_ints(node, 1, p->indices, ORTVK_KMAX_GATHER, &p->count) || q->rank < 0)
        return ortvk_krefuse(why, why_len, "indices are not constant (or more than %d)", ORTVK_KMAX_GATHER);
    int rank = node->in[0].rank;
    if (rank < 1 || rank + q->rank - 1 > ORTVK_KMAX_RANK) return ortvk_krefuse(why, why_len, "rank %d", rank);
    if (p->axis < -rank || p->axis >= rank) return ortvk_krefuse(why, why_len, "axis %lld", (long long)p->axis);
    if (p->axis < 0) p->axis += rank;
    p->rank = q->rank;
    memcpy(p->dims, q->dims, sizeof(p->dims));
    return true;
}

static OrtStatus *gather_shape(const ortvk_kparams *params, ortvk_krun *run)
{
    const ortvk_kparams_gather *p = &params->gather;
    const ortvk_ktensor *x = &run->in[0];
    ortvk_ktensor *y = &run->out[0];
    size_t axis = (size_t)p->axis;
    if (axis >= x->rank) return ortvk_status(ORT_INVALID_ARGUMENT, "Gather: axis %zu of rank %zu", axis, x->rank);
    for (size_t j = 0; j < p->count; j++) {
        if (p->indices[j] < -x->dims[axis] || p->indices[j] >= x->dims[axis])
            return ortvk_status(ORT_INVALID_ARGUMENT, "Gather: indices[%zu] = %lld is out of range for a dim of %lld",
                                j, (long long)p->indices[j], (long long)x->dims[axis]);
    }
    y->type = x->type;
    y->rank = 0;
    for (size_t d = 0; d < axis; d++) y->dims[y->rank++] = x->dims[d];
    for (int d = 0; d < p->rank; d++) y->dims[y->rank++] = p->dims[d];
    for (size_t d = axis + 1; d < x->rank; d++) y->dims[y->rank++] = x->dims[d];
    return NULL;
}

/* y[o, j, i] = x[o, indices[j], i] on (outer, axis, inner) views: a strided copy of each index's slab. */
static OrtStatus *gather_record(const ortvk_kparams *params, ortvk_krun *run)
{
    const ortvk_kparams_gather *p = &params->gather;
    const ortvk_ktensor *x = &run->in[0], *y = &run->out[0];
    size_t axis = (size_t)p->axis;
    int64_t outer = (int64_t)ortvk_kcount(x->dims, axis), len = x->dims[axis];
    int64_t inner = (int64_t)ortvk_kcount(x->dims + axis + 1, x->rank - axis - 1);
    for (size_t j = 0; j < p->count; j++) {
        int64_t index = p->indices[j] < 0 ? p->indices[j] + len : p->indices[j];
        ortvk_kstrides s = {.rank = 2, .dims = {outer, inner}};
        s.stride[0][0] = len * inner, s.stride[0][1] = 1;
        s.stride[1][0] = (int64_t)p->count * inner, s.stride[1][1] = 1;
        ORTVK_TRY(strided_copy(run, x->address, index * inner, y->address, (int64_t)j * inner, &s,
                               ortvk_element_size(x->type)));
    }
    return NULL;
}

/* ---- Tile ----------------------------------------------------------------------------------------------- */

static bool tile_prepare(const ortvk_knode *node, ortvk_kparams *params, char *why, size_t why_len)
{
    ortvk_kparams_reshape *p = &params->reshape;
    if (!floats_only(node, 1, why, why_len) || node->n_in != 2 || node->n_out != 1) return false;
    if (!list_prepare(node, p->shape, &p->count))
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
    ORTVK_TRY(list_at_run(params, run, "Tile", &q));
    const ortvk_ktensor *x = &run->in[0];
    ortvk_ktensor *y = &run->out[0];
    if (x->rank != (size_t)p->count)
        return ortvk_status(ORT_INVALID_ARGUMENT, "Tile: input of rank %zu, %d repeats", x->rank, p->count);
    y->type = x->type;
    y->rank = x->rank;
    for (size_t i = 0; i < x->rank; i++) {
        if (p->shape[i] < 0)
            return ortvk_status(ORT_INVALID_ARGUMENT, "Tile: repeats[%zu] = %lld", i, (long long)p->shape[i]);
        if (!ortvk_kmul(x->dims[i], p->shape[i], &y->dims[i]))
            return ortvk_status(ORT_INVALID_ARGUMENT, "Tile: dim %zu of %lld repeated %lld times overflows", i,
                                (long long)x->dims[i], (long long)p->shape[i]);
    }
    return NULL;
}

static OrtStatus *tile_record(const ortvk_kparams *params, ortvk_krun *run)
{
    ortvk_kparams_reshape q;
    const ortvk_kparams_reshape *p = &q;
    ORTVK_TRY(list_at_run(params, run, "Tile", &q));
    const ortvk_ktensor *x = &run->in[0], *y = &run->out[0];
    int64_t in_strides[ORTVK_KMAX_RANK], out_strides[ORTVK_KMAX_RANK];
    row_major(x->dims, x->rank, in_strides);
    row_major(y->dims, y->rank, out_strides);
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
    return strided_copy(run, x->address, 0, y->address, 0, &s, ortvk_element_size(x->type));
}

/* ---- DepthToSpace, SpaceToDepth ------------------------------------------------------------------------- */

static bool depth_space_prepare(const ortvk_knode *node, ortvk_kparams *params, char *why, size_t why_len)
{
    ortvk_kparams_depth_space *p = &params->depth_space;
    if (!floats_only(node, 1, why, why_len) || node->n_in != 1 || node->n_out != 1) return false;
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
    row_major(s.dims, 6, s.stride[1]);
    return strided_copy(run, x->address, 0, y->address, 0, &s, ortvk_element_size(x->type));
}

/* ---- Pad ------------------------------------------------------------------------------------------------ */

static bool pad_prepare(const ortvk_knode *node, ortvk_kparams *params, char *why, size_t why_len)
{
    ortvk_kparams_pad *p = &params->pad;
    if (!floats_only(node, 1, why, why_len) || node->n_out != 1) return false;
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
        if (!norm_axis(axes[i], (size_t)rank, &a)) return ortvk_krefuse(why, why_len, "axis %lld", (long long)axes[i]);
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
    for (size_t d = 0; d < x->rank; d++) {
        int64_t b = p->pads[d], e = p->pads[x->rank + d];
        if (!ortvk_kadd(x->dims[d], b, &y->dims[d]) || !ortvk_kadd(y->dims[d], e, &y->dims[d]) || y->dims[d] < 0)
            return ortvk_status(ORT_INVALID_ARGUMENT, "Pad: dim %zu of %lld with pads %lld and %lld", d,
                                (long long)x->dims[d], (long long)b, (long long)e);
        /* Edge and reflect need input to copy from; reflect cannot fold more than once. */
        if (p->mode != ORTVK_PAD_CONSTANT && y->dims[d] > 0 &&
            (x->dims[d] == 0 || (p->mode == ORTVK_PAD_REFLECT && (b >= x->dims[d] || e >= x->dims[d]))))
            return ortvk_status(ORT_INVALID_ARGUMENT, "Pad: pads too large for mode");
    }
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

/* ---- Cast ----------------------------------------------------------------------------------------------- */

static bool cast_prepare(const ortvk_knode *node, ortvk_kparams *params, char *why, size_t why_len)
{
    if (node->n_in != 1 || node->n_out != 1) return ortvk_krefuse(why, why_len, "inputs");
    int64_t to = 0, saturate = 1;
    if (!ortvk_knode_int(node, "to", 0, &to) || !ortvk_knode_int(node, "saturate", 1, &saturate))
        return ortvk_krefuse(why, why_len, "to");
    ONNXTensorElementDataType from = node->in[0].type;
    params->cast.to = (ONNXTensorElementDataType)to;
    /* int32/int64 -> float and int32 <-> int64, rounding as C casts do (what ORT's CPU EP does), and float <->
     * float16 (to nearest even, NaN stays NaN, overflow to infinity: ORT's conversion). Float to integer is only
     * exact within the integer's range; casting NaN or out-of-range values is undefined in C and differs between
     * implementations, so those models stay on the CPU EP: this EP claims Cast only where float is on the wider
     * side, both sides are integers, or both are floats. */
    bool f = from == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, i32 = from == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32,
         i64 = from == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64, h = from == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16;
    bool tf = to == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, ti32 = to == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32,
         ti64 = to == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64, th = to == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16;
    bool ok = ((f || h) && (tf || th)) || ((i32 || i64) && tf) || ((i32 || i64) && (ti32 || ti64));
    if (!ok) return ortvk_krefuse(why, why_len, "Cast %d to %lld", (int)from, (long long)to);
    if (node->out[0].type != (ONNXTensorElementDataType)to) return ortvk_krefuse(why, why_len, "output type");
    return true;
}

static OrtStatus *cast_shape(const ortvk_kparams *params, ortvk_krun *run)
{
    const ortvk_ktensor *x = &run->in[0];
    ortvk_ktensor *y = &run->out[0];
    y->type = params->cast.to;
    y->rank = x->rank;
    memcpy(y->dims, x->dims, sizeof(x->dims));
    return NULL;
}

typedef struct push_cast {
    uint64_t x, y;
    uint32_t n, mode;
} push_cast;

static OrtStatus *cast_record(const ortvk_kparams *params, ortvk_krun *run)
{
    const ortvk_ktensor *x = &run->in[0], *y = &run->out[0];
    ONNXTensorElementDataType from = x->type, to = params->cast.to;
    if (from == to) return ortvk_krun_copy(run, y->address, x->address, x->count * ortvk_element_size(from));
    uint32_t mode;
    if (from == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32 && to == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT) mode = 1;
    else if (from == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64 && to == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT) mode = 3;
    else if (from == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32) mode = 4;
    else if (from == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64) mode = 5;
    else if (from == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT) mode = 6; /* to float16: the run uses the float16 variant */
    else mode = 7;                                                 /* float16 to float */
    push_cast push = {.x = x->address, .y = y->address, .n = (uint32_t)x->count, .mode = mode};
    return ortvk_krun_dispatch(run, ORTVK_SHADER_CAST, &push, sizeof(push), x->count);
}

const ortvk_kop ortvk_kops_layout[] = {
    {"Reshape", 5, 21, "allowzero", 0x2, reshape_prepare, reshape_shape, reshape_record},
    {"Flatten", 1, 21, "axis", 0, reshape_prepare, reshape_shape, reshape_record},
    {"Squeeze", 1, 21, "axes", 0x2, reshape_prepare, reshape_shape, reshape_record},
    {"Unsqueeze", 1, 21, "axes", 0x2, reshape_prepare, reshape_shape, reshape_record},
    {"Transpose", 1, 21, "perm", 0, transpose_prepare, transpose_shape, transpose_record},
    {"Concat", 4, 13, "axis", 0, concat_prepare, concat_shape, concat_record},
    {"Slice", 1, 9, "axes ends starts", 0, slice_prepare, slice_shape, slice_record},
    {"Slice", 10, 13, "", 0x1E, slice_prepare, slice_shape, slice_record},
    {"Split", 2, 18, "axis num_outputs split", 0x2, split_prepare, split_shape, split_record},
    {"Expand", 8, 13, "", 0x2, expand_prepare, expand_shape, expand_record},
    {"Tile", 6, 13, "", 0x2, tile_prepare, tile_shape, tile_record},
    {"Gather", 1, 13, "axis", 0x2, gather_prepare, gather_shape, gather_record},
    {"DepthToSpace", 1, 13, "blocksize mode", 0, depth_space_prepare, depth_space_shape, depth_space_record},
    {"SpaceToDepth", 1, 13, "blocksize", 0, depth_space_prepare, depth_space_shape, depth_space_record},
    {"Pad", 2, 21, "mode pads value", 0xE, pad_prepare, pad_shape, pad_record},
    {"Cast", 6, 21, "saturate to", 0, cast_prepare, cast_shape, cast_record},
    {NULL, 0, 0, NULL, 0, NULL, NULL, NULL},
};
