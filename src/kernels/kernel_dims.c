/* Dims arithmetic the ops share: element counts (checked), broadcasting and coalescing of strided views, axes, and
 * Slice's plan (the CPU EP's clamping of starts, ends and steps). */
#include <string.h>

#include "kernels/kernel_internal.h"

size_t ortvk_kcount(const int64_t *dims, size_t rank)
{
    size_t n = 1;
    for (size_t i = 0; i < rank; i++) n *= (size_t)dims[i];
    return n;
}

VkDeviceSize ortvk_ktensor_bytes(const ortvk_ktensor *t)
{
    if (t->packed && t->buffer != NULL) return t->buffer->size - t->offset; /* a constant owns its whole buffer */
    return (VkDeviceSize)t->count * ortvk_element_size(t->type);
}

bool ortvk_kcount_checked(const int64_t *dims, size_t rank, size_t esize, int64_t *out)
{
    int64_t n = 1, bytes = 0;
    for (size_t i = 0; i < rank; i++) {
        if (dims[i] < 0 || !ortvk_kmul(n, dims[i], &n)) return false;
    }
    if (!ortvk_kmul(n, (int64_t)esize, &bytes)) return false;
    *out = n;
    return true;
}

bool ortvk_kbroadcast(const int64_t *a, size_t ra, const int64_t *b, size_t rb, int64_t *out, size_t *rout)
{
    size_t r = ra > rb ? ra : rb;
    for (size_t i = 0; i < r; i++) {
        int64_t da = i < r - ra ? 1 : a[i - (r - ra)];
        int64_t db = i < r - rb ? 1 : b[i - (r - rb)];
        if (da == db || db == 1) out[i] = da;
        else if (da == 1) out[i] = db;
        else return false;
    }
    *rout = r;
    return true;
}

void ortvk_kbroadcast_strides(const int64_t *dims, size_t rank, size_t out_rank, const int64_t *out_dims,
                              int64_t *strides)
{
    int64_t s = 1;
    for (size_t i = out_rank; i-- > 0;) {
        size_t k = i + rank - out_rank; /* the operand's dim aligned with output dim i */
        if (i < out_rank - rank) {
            strides[i] = 0;
        } else {
            strides[i] = dims[k] == 1 && out_dims[i] != 1 ? 0 : s;
            s *= dims[k];
        }
    }
}

void ortvk_kcoalesce(ortvk_kstrides *s, int operands)
{
    /* Drop size-1 dims (their coordinate is always 0). */
    int r = 0;
    for (int i = 0; i < s->rank; i++) {
        if (s->dims[i] == 1) continue;
        s->dims[r] = s->dims[i];
        for (int o = 0; o < operands; o++) s->stride[o][r] = s->stride[o][i];
        r++;
    }
    s->rank = r;
    /* Merge dim i into dim i + 1 when every operand steps over dim i + 1 exactly once per step of dim i. */
    int w = 0;
    for (int i = 1; i < s->rank; i++) {
        bool merge = true;
        for (int o = 0; o < operands && merge; o++) merge = s->stride[o][w] == s->stride[o][i] * s->dims[i];
        if (merge) {
            s->dims[w] *= s->dims[i];
            for (int o = 0; o < operands; o++) s->stride[o][w] = s->stride[o][i];
        } else {
            w++;
            s->dims[w] = s->dims[i];
            for (int o = 0; o < operands; o++) s->stride[o][w] = s->stride[o][i];
        }
    }
    s->rank = s->rank > 0 ? w + 1 : 0;
    if (s->rank == 0) { /* a scalar: one element */
        s->rank = 1;
        s->dims[0] = 1;
        for (int o = 0; o < operands; o++) s->stride[o][0] = 1;
    }
}

/* Axis `a` of a rank-`r` tensor, negative counting from the end; false when out of [-r, r). */
bool ortvk_kaxis(int64_t a, size_t r, int64_t *out)
{
    if (a < 0) a += (int64_t)r;
    if (a < 0 || a >= (int64_t)r) return false;
    *out = a;
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
        if (!ortvk_kaxis(p->axes[i], x->rank, &a) || seen[a])
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
