/* The arithmetic of the host-evaluated shape ops (kernel_shape_ops.c): Cast, Range, and Equal, Greater, Less, Where,
 * Add, Sub, Mul, Div, And, Or, Xor, Not with multidirectional broadcasting, on int32, int64, bool and float values, as
 * ORT's CPU EP computes them. */
#include <math.h>
#include <string.h>

#include "kernels/kernel_shape_ops.h"

OrtStatus *ortvk_kshape_cast(const ortvk_kparams_shape *p, ortvk_krun *run)
{
    const ortvk_ktensor *x = &run->in[0];
    ortvk_ktensor *y = &run->out[0];
    y->type = p->to;
    y->rank = x->rank;
    memcpy(y->dims, x->dims, sizeof(y->dims));
    void *data;
    ORTVK_TRY(ortvk_kshape_output(run, y, &data));
    for (size_t i = 0; i < x->count; i++) {
        if (x->type != ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT) {
            set_int(y, data, i, get_int(x, i));
            continue;
        }
        float v = get_float(x, i);
        /* float to integer: C leaves NaN and values out of range undefined (and implementations differ) */
        double lo = y->type == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64 ? -0x1p63 : -0x1p31;
        if (int_type(y->type) && !((double)v >= lo && (double)v < -lo))
            return ortvk_status(ORT_EP_FAIL, "Cast: %g does not fit %s", (double)v, ortvk_element_name(y->type));
        set_float(y, data, i, v);
    }
    return NULL;
}

OrtStatus *ortvk_kshape_range(ortvk_krun *run)
{
    ortvk_ktensor *y = &run->out[0];
    const ortvk_ktensor *s = &run->in[0], *l = &run->in[1], *d = &run->in[2];
    if (s->count != 1 || l->count != 1 || d->count != 1 || s->type != l->type || s->type != d->type)
        return ortvk_status(ORT_INVALID_ARGUMENT, "Range: start, limit and delta must be scalars of one type");
    y->type = s->type;
    y->rank = 1;
    bool f = s->type == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;
    double start = f ? get_float(s, 0) : (double)get_int(s, 0), delta = f ? get_float(d, 0) : (double)get_int(d, 0);
    if (delta == 0) return ortvk_status(ORT_INVALID_ARGUMENT, "Range: delta is 0");
    /* ORT's CPU EP: ceil(1.0 * (limit - start) / delta), the difference taken in the tensors' own type */
    double span = f ? (double)(get_float(l, 0) - get_float(s, 0))
                    : (double)(int64_t)((uint64_t)get_int(l, 0) - (uint64_t)get_int(s, 0));
    double n = ceil(span / delta);
    if (!(n <= ORTVK_KHOST_MAX)) return ortvk_status(ORT_EP_FAIL, "Range: %g elements", n);
    y->dims[0] = n > 0 ? (int64_t)n : 0;
    void *data;
    ORTVK_TRY(ortvk_kshape_output(run, y, &data));
    float fv = (float)start; /* values accumulate delta, as the CPU EP does */
    int64_t iv = f ? 0 : get_int(s, 0);
    for (size_t i = 0; i < y->count; i++) {
        if (f) ((float *)data)[i] = fv, fv += get_float(d, 0);
        else set_int(y, data, i, iv), iv = (int64_t)((uint64_t)iv + (uint64_t)get_int(d, 0));
    }
    return NULL;
}

/* Element-wise ops with multidirectional broadcasting (Where: three inputs, Not: one). */
OrtStatus *ortvk_kshape_elementwise(const ortvk_kparams_shape *p, ortvk_krun *run)
{
    ortvk_ktensor *y = &run->out[0];
    size_t n_in = p->op == OP_WHERE ? 3 : p->op == OP_NOT ? 1 : 2;
    const ortvk_ktensor *a = &run->in[p->op == OP_WHERE ? 1 : 0], *b = &run->in[p->op == OP_WHERE ? 2 : n_in - 1];
    if (run->n_in != n_in || a->type != b->type)
        return ortvk_status(ORT_INVALID_ARGUMENT, "%s: inputs of two types", op_names[p->op]);
    bool logic = p->op == OP_AND || p->op == OP_OR || p->op == OP_XOR || p->op == OP_NOT;
    if (logic && a->type != ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL)
        return ortvk_status(ORT_INVALID_ARGUMENT, "%s: input of type %s (bool only)", op_names[p->op],
                            ortvk_element_name(a->type));
    int64_t dims[ORTVK_KMAX_RANK];
    size_t rank = 0;
    memcpy(dims, run->in[0].dims, sizeof(dims));
    rank = run->in[0].rank;
    for (size_t i = 1; i < n_in; i++) {
        int64_t next[ORTVK_KMAX_RANK];
        size_t r;
        if (run->in[i].rank > ORTVK_KMAX_RANK || rank > ORTVK_KMAX_RANK ||
            !ortvk_kbroadcast(dims, rank, run->in[i].dims, run->in[i].rank, next, &r) || r > ORTVK_KMAX_RANK)
            return ortvk_status(ORT_INVALID_ARGUMENT, "%s: shapes do not broadcast", op_names[p->op]);
        memcpy(dims, next, sizeof(next));
        rank = r;
    }
    bool compare = p->op == OP_EQUAL || p->op == OP_GREATER || p->op == OP_LESS;
    y->type = compare || logic ? ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL : a->type;
    y->rank = rank;
    memcpy(y->dims, dims, sizeof(dims));
    void *data;
    ORTVK_TRY(ortvk_kshape_output(run, y, &data));
    int64_t strides[3][ORTVK_KMAX_RANK];
    for (size_t i = 0; i < n_in; i++)
        ortvk_kbroadcast_strides(run->in[i].dims, run->in[i].rank, rank, dims, strides[i]);
    bool f = a->type == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;
    for (size_t o = 0; o < y->count; o++) {
        size_t at[3] = {0, 0, 0}, rest = o;
        for (size_t d = rank; d-- > 0;) {
            size_t c = rest % (size_t)dims[d];
            rest /= (size_t)dims[d];
            for (size_t i = 0; i < n_in; i++) at[i] += c * (size_t)strides[i][d];
        }
        size_t ia = at[n_in > 1 ? n_in - 2 : 0], ib = at[n_in - 1];
        if (p->op == OP_WHERE) {
            const ortvk_ktensor *pick = get_int(&run->in[0], at[0]) ? a : b;
            size_t esize = ortvk_element_size(a->type);
            memcpy((uint8_t *)data + o * esize, (const uint8_t *)pick->host + (pick == a ? ia : ib) * esize, esize);
        } else if (f) {
            float u = get_float(a, ia), v = get_float(b, ib), r = 0;
            switch (p->op) {
            case OP_EQUAL: r = u == v; break;
            case OP_GREATER: r = u > v; break;
            case OP_LESS: r = u < v; break;
            case OP_ADD: r = u + v; break;
            case OP_SUB: r = u - v; break;
            case OP_MUL: r = u * v; break;
            default: r = u / v; break;
            }
            set_float(y, data, o, r);
        } else {
            int64_t u = get_int(a, ia), v = get_int(b, ib), r = 0;
            switch (p->op) { /* wrapping, as int64 arithmetic does on every machine ORT runs on */
            case OP_EQUAL: r = u == v; break;
            case OP_GREATER: r = u > v; break;
            case OP_LESS: r = u < v; break;
            case OP_ADD: r = (int64_t)((uint64_t)u + (uint64_t)v); break;
            case OP_SUB: r = (int64_t)((uint64_t)u - (uint64_t)v); break;
            case OP_MUL: r = (int64_t)((uint64_t)u * (uint64_t)v); break;
            case OP_AND: r = u && v; break; /* bool values read as 0 and 1 */
            case OP_OR: r = u || v; break;
            case OP_XOR: r = u != v; break;
            case OP_NOT: r = !u; break;
            default:
                if (v == 0 || (v == -1 && u == INT64_MIN) || (a->type == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32 &&
                                                               v == -1 && u == INT32_MIN))
                    return ortvk_status(ORT_INVALID_ARGUMENT, "Div: %lld / %lld", (long long)u, (long long)v);
                r = u / v;
                break;
            }
            set_int(y, data, o, r);
        }
    }
    return NULL;
}

OrtStatus *ortvk_kshape_output(ortvk_krun *run, ortvk_ktensor *y, void **data)
{
    y->count = ortvk_kcount(y->dims, y->rank);
    *data = NULL;
    if (y->count > ORTVK_KHOST_MAX)
        return ortvk_status(ORT_EP_FAIL, "a value of %zu elements computed on the host (at most %d)", y->count,
                            ORTVK_KHOST_MAX);
    ORTVK_TRY(ortvk_krun_host(run, y->count * ortvk_element_size(y->type) + 8, data));
    y->host = *data;
    return NULL;
}
