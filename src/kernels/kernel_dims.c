/* Dims arithmetic the ops share: element counts (checked), broadcasting and coalescing of strided views. */
#include <string.h>

#include "kernels/kernel_internal.h"

size_t ortvk_kcount(const int64_t *dims, size_t rank)
{
    size_t n = 1;
    for (size_t i = 0; i < rank; i++) n *= (size_t)dims[i];
    return n;
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
