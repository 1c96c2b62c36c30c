/* Ops that move elements without arithmetic: Reshape, Flatten, Squeeze, Unsqueeze (a copy), Transpose, Concat, Slice,
 * Split (strided copies), and the helpers all layout ops share (kernel_layout.h; the others are in kernel_gather.c).
 * Shapes, axes, starts and ends are constants read at Compile, or values known on the host at run time. */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "kernels/kernel_layout.h"

bool ortvk_klayout_floats(const ortvk_knode *node, size_t n_data_in, char *why, size_t why_len)
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

/* ---- the strided copy ----------------------------------------------------------------------------------- */

typedef struct push_copy {
    uint64_t src, dst;
    uint32_t n, rank, words;
    int32_t src_offset, dst_offset;
    uint32_t dims[6];
    int32_t sstride[6], dstride[6];
    int32_t tile_s, tile_d;
} push_copy;
_Static_assert(offsetof(push_copy, dims) == 36 && offsetof(push_copy, tile_s) == 108 && sizeof(push_copy) <= 128,
               "push_copy: the shader's push constants (shaders/kernel_copy.comp)");

/* Whether every operand's offset (elements) and address, and its stride along each dim but `skip[o]`, are whole
 * multiples of 16 bytes (elements of `esize`). */
static bool vec4_aligned(const ortvk_kstrides *s, const VkDeviceAddress *address, const int64_t *off, size_t esize,
                         const int *skip)
{
    for (int o = 0; o < 2; o++) {
        if (address[o] % 16 != 0 || off[o] * (int64_t)esize % 16 != 0) return false;
        for (int k = 0; k < s->rank; k++)
            if (k != skip[o] && s->stride[o][k] * (int64_t)esize % 16 != 0) return false;
    }
    return true;
}

/* A copy whose last dim is contiguous in both operands, in whole vec4s: as a copy of 16-byte elements. */
static bool as_vec4s(ortvk_kstrides *s, const VkDeviceAddress *address, int64_t *off, size_t esize)
{
    int last = s->rank - 1, none[2] = {last, last};
    if (s->stride[0][last] != 1 || s->stride[1][last] != 1 || s->dims[last] * (int64_t)esize % 16 != 0 ||
        !vec4_aligned(s, address, off, esize, none))
        return false;
    int64_t per = 16 / (int64_t)esize;
    s->dims[last] /= per;
    for (int o = 0; o < 2; o++) {
        off[o] /= per;
        for (int k = 0; k < last; k++) s->stride[o][k] /= per;
    }
    return true;
}

/* A transpose of 32-bit elements in 4 x 4 tiles (shaders/kernel_copy.comp): the destination contiguous along the
 * last dim, the source along another, b, both of whole vec4s. The iteration space is reordered to put b next to
 * last, and those two dims counted in tiles; tile_s and tile_d keep the in-tile strides (the source's along last,
 * the destination's along b). False (and `s` unchanged) where the copy is not such a transpose. */
static bool as_tiles(ortvk_kstrides *s, const VkDeviceAddress *address, const int64_t *off, size_t esize,
                     int32_t *tile_s, int32_t *tile_d)
{
    int last = s->rank - 1, b = -1;
    for (int k = 0; k < last; k++)
        if (s->stride[0][k] == 1) b = k;
    if (esize != 4 || b < 0 || s->stride[1][last] != 1 || s->dims[last] % 4 != 0 || s->dims[b] % 4 != 0)
        return false;
    int unit[2] = {b, last};
    if (!vec4_aligned(s, address, off, esize, unit)) return false;
    int64_t dim = s->dims[b], stride[2] = {s->stride[0][b], s->stride[1][b]};
    for (int k = b; k < last - 1; k++) { /* b moves to last - 1, the dims between it and last one step up */
        s->dims[k] = s->dims[k + 1];
        for (int o = 0; o < 2; o++) s->stride[o][k] = s->stride[o][k + 1];
    }
    s->dims[last - 1] = dim;
    for (int o = 0; o < 2; o++) s->stride[o][last - 1] = stride[o];
    *tile_s = (int32_t)s->stride[0][last];
    *tile_d = (int32_t)s->stride[1][last - 1];
    for (int k = last - 1; k <= last; k++) {
        s->dims[k] /= 4;
        for (int o = 0; o < 2; o++) s->stride[o][k] *= 4;
    }
    return true;
}

/* Copies the elements of the iteration space `s` (stride[0]: source, stride[1]: destination, in elements) from
 * src + src_off to dst + dst_off. A contiguous copy becomes a buffer copy. */
OrtStatus *ortvk_kstrided_copy(ortvk_krun *run, VkDeviceAddress src, int64_t src_off, VkDeviceAddress dst,
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
    VkDeviceAddress address[2] = {src, dst};
    int64_t off[2] = {src_off, dst_off};
    int32_t tile_s = 0, tile_d = 0;
    /* 0: a 16-bit element (the float16 variant, chosen by the run); 4: a vec4 of any type */
    uint32_t words = (uint32_t)(esize / 4);
    if (as_tiles(s, address, off, esize, &tile_s, &tile_d))
        words = ORTVK_COPY_TILES;
    else if (as_vec4s(s, address, off, esize))
        words = 4;
    push_copy push = {
        .src = src,
        .dst = dst,
        .rank = (uint32_t)s->rank,
        .words = words,
        .src_offset = (int32_t)off[0],
        .dst_offset = (int32_t)off[1],
        .tile_s = tile_s,
        .tile_d = tile_d,
    };
    for (int k = 0; k < s->rank; k++) {
        push.dims[k] = (uint32_t)s->dims[k];
        push.sstride[k] = (int32_t)s->stride[0][k];
        push.dstride[k] = (int32_t)s->stride[1][k];
    }
    /* An invocation a run of up to ORTVK_COPY_RUN elements (or tiles) along the last dim; on a GPU one. */
    bool single = ortvk_kernel_device_gpu_forms(run->kdev);
    uint64_t count = ortvk_kcount(s->dims, (size_t)s->rank), inner = (uint64_t)s->dims[s->rank - 1];
    uint64_t per = single ? 1 : ORTVK_COPY_RUN;
    push.n = (uint32_t)count;
    return ortvk_krun_dispatch_fn(run, ORTVK_SHADER_COPY, single ? ORTVK_COPY_SINGLE : 0, &push, sizeof(push),
                                  count / inner * ((inner + per - 1) / per));
}

void ortvk_krow_major(const int64_t *dims, size_t rank, int64_t *strides)
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
bool ortvk_klist_prepare(const ortvk_knode *node, int64_t *list, int *count)
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
OrtStatus *ortvk_klist_at_run(const ortvk_kparams *params, const ortvk_krun *run, const char *op,
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
    if (!ortvk_klayout_floats(node, 1, why, why_len) || node->n_out != 1) return false;
    const char *op = node->op_type;
    if (strcmp(op, "Reshape") == 0) {
        p->kind = ORTVK_RESHAPE_RESHAPE;
        if (!ortvk_knode_bool(node, "allowzero", false, &p->allowzero)) return ortvk_krefuse(why, why_len, "allowzero");
        if (node->n_in != 2 || !ortvk_klist_prepare(node, p->shape, &p->count))
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
            if (!ortvk_klist_prepare(node, p->shape, &p->count))
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
    ORTVK_TRY(ortvk_klist_at_run(params, run, names[params->reshape.kind & 3], &q));
    /* Squeeze's axes known at run time with no values: every 1 squeezed, as for a constant [] (reshape_prepare). */
    if (q.kind == ORTVK_RESHAPE_SQUEEZE && q.count == 0) q.count = -1;
    const ortvk_ktensor *x = &run->in[0];
    ortvk_ktensor *y = &run->out[0];
    y->type = x->type;
    switch (p->kind) {
    case ORTVK_RESHAPE_RESHAPE: {
        int infer = -1;
        int64_t known = 1, nonzero = 1; /* the product of the dims given, and of those not 0 */
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
            /* ORT's CPU EP (1.30) fails a shape whose dims other than 0 multiply past int64 even when a 0 makes it
             * empty: so does ortvk, whatever the runtime */
            if (!ortvk_kmul(nonzero, v == 0 ? 1 : v, &nonzero))
                return ortvk_status(ORT_INVALID_ARGUMENT,
                                    "Reshape: the requested shape has too many elements (shape[%d] = %lld)", i,
                                    (long long)v);
            known *= v;
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
            if (!ortvk_kaxis(p->shape[i], x->rank, &a) || x->dims[a] != 1)
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
            if (!ortvk_kaxis(p->shape[i], r, &a) || one[a])
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
    if (!ortvk_klayout_floats(node, 1, why, why_len) || node->n_in != 1 || node->n_out != 1) return false;
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
        if (!ortvk_kaxis(a, rank, &a) || seen[a]) return ortvk_status(ORT_INVALID_ARGUMENT, "Transpose: perm");
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
    ortvk_krow_major(x->dims, x->rank, in_strides);
    ortvk_kstrides s = {.rank = (int)y->rank};
    memcpy(s.dims, y->dims, sizeof(y->dims));
    ortvk_krow_major(y->dims, y->rank, s.stride[1]);
    for (size_t i = 0; i < y->rank; i++) s.stride[0][i] = in_strides[perm[i]];
    return ortvk_kstrided_copy(run, x->address, 0, y->address, 0, &s, ortvk_element_size(x->type));
}

/* ---- Concat --------------------------------------------------------------------------------------------- */

static bool concat_prepare(const ortvk_knode *node, ortvk_kparams *params, char *why, size_t why_len)
{
    if (!ortvk_klayout_floats(node, node->n_in, why, why_len) || node->n_in < 1 || node->n_out != 1) return false;
    if (!ortvk_knode_has(node, "axis") || !ortvk_knode_int(node, "axis", 0, &params->concat.axis))
        return ortvk_krefuse(why, why_len, "axis");
    return true;
}

static OrtStatus *concat_shape(const ortvk_kparams *params, ortvk_krun *run)
{
    const ortvk_ktensor *x = &run->in[0];
    ortvk_ktensor *y = &run->out[0];
    int64_t axis;
    if (!ortvk_kaxis(params->concat.axis, x->rank, &axis)) return ortvk_status(ORT_INVALID_ARGUMENT, "Concat: axis");
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
    if (!ortvk_kaxis(params->concat.axis, y->rank, &axis)) return ortvk_status(ORT_INVALID_ARGUMENT, "Concat: axis");
    int64_t outer = (int64_t)ortvk_kcount(y->dims, (size_t)axis);
    int64_t inner = (int64_t)ortvk_kcount(y->dims + axis + 1, y->rank - (size_t)axis - 1);
    int64_t at = 0;
    for (size_t k = 0; k < run->n_in; k++) {
        const ortvk_ktensor *t = &run->in[k];
        int64_t len = t->dims[axis] * inner;
        ortvk_kstrides s = {.rank = 2, .dims = {outer, len}, .stride = {{len, 1}, {y->dims[axis] * inner, 1}}};
        if (t->count > 0)
            ORTVK_TRY(ortvk_kstrided_copy(run, t->address, 0, y->address, at, &s, ortvk_element_size(t->type)));
        at += len;
    }
    return NULL;
}

/* ---- Slice ---------------------------------------------------------------------------------------------- */

static bool slice_prepare(const ortvk_knode *node, ortvk_kparams *params, char *why, size_t why_len)
{
    ortvk_kparams_slice *p = &params->slice;
    if (!ortvk_klayout_floats(node, 1, why, why_len) || node->n_out != 1) return false;
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
    ortvk_krow_major(x->dims, x->rank, in_strides);
    ortvk_kstrides s = {.rank = (int)x->rank};
    int64_t offset = 0;
    for (size_t d = 0; d < x->rank; d++) {
        s.dims[d] = len[d];
        s.stride[0][d] = in_strides[d] * step[d];
        offset += start[d] * in_strides[d];
    }
    ortvk_krow_major(y->dims, y->rank, s.stride[1]);
    return ortvk_kstrided_copy(run, x->address, offset, y->address, 0, &s, ortvk_element_size(x->type));
}

/* ---- Split ---------------------------------------------------------------------------------------------- */

static bool split_prepare(const ortvk_knode *node, ortvk_kparams *params, char *why, size_t why_len)
{
    ortvk_kparams_split *p = &params->split;
    if (!ortvk_klayout_floats(node, 1, why, why_len)) return false;
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
    p->num_outputs = num_outputs != 0;
    if (p->count >= 0 && (size_t)p->count != node->n_out) return ortvk_krefuse(why, why_len, "split sizes");
    return true;
}

static OrtStatus *split_sizes(const ortvk_kparams_split *p, const ortvk_ktensor *x, size_t n_out, int64_t *axis,
                              int64_t *sizes)
{
    if (!ortvk_kaxis(p->axis, x->rank, axis)) return ortvk_status(ORT_INVALID_ARGUMENT, "Split: axis");
    int64_t dim = x->dims[*axis], total = 0, n = (int64_t)n_out, part = n > 0 ? dim / n : 0;
    /* Equal parts as ORT's CPU EP makes them (and fails them): without num_outputs the dim must divide evenly; with
     * it, parts of ceil(dim / n) computed in float, the last one the remainder, and no more parts than the dim. */
    if (p->count < 0 && p->num_outputs) {
        if (n > dim)
            return ortvk_status(ORT_INVALID_ARGUMENT, "Split: num_outputs %lld exceeds the dim of %lld", (long long)n,
                                (long long)dim);
        part = (int64_t)ceilf((float)dim / (float)n);
    } else if (p->count < 0 && n > 0 && dim % n != 0) {
        return ortvk_status(ORT_INVALID_ARGUMENT, "Split: a dim of %lld does not split evenly into %lld",
                            (long long)dim, (long long)n);
    }
    for (size_t i = 0; i < n_out; i++) {
        sizes[i] = p->count >= 0 ? p->split[i] : part;
        if (p->count < 0 && p->num_outputs && i == n_out - 1 && part > 0 && dim % part != 0) sizes[i] = dim % part;
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
            ORTVK_TRY(ortvk_kstrided_copy(run, x->address, at, y->address, 0, &s, ortvk_element_size(x->type)));
        at += len;
    }
    return NULL;
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
    {NULL, 0, 0, NULL, 0, NULL, NULL, NULL},
};
