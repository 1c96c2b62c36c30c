/* The differential fuzzer's generator: one table entry per op ortvk claims (src/kernels' ortvk_kops_* tables),
 * each a function that draws the op's opset, shapes, attributes (valid, edge and hostile values), constant inputs
 * and input values from a generator seeded by (seed, case index), so a case is reproduced from those two numbers. */
#include "diff_gen.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_check.h"

const char *const dc_values_names[] = {"normal", "special", "ints", "positive", "one-special"};

typedef void (*dc_gen)(dcase *c);
struct dc_op {
    const char *name;
    int min_opset, max_opset; /* ortvk's claimed range, capped at what both runtimes know */
    dc_gen gen;
    bool half; /* float16 variant worth running */
};

/* ---- random draws ------------------------------------------------------------------------------------------ */

static uint64_t rnext(dc_rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double runi(dcase *c) { return (double)(rnext(&c->r) >> 11) * 0x1p-53; }
static bool rp(dcase *c, double p) { return runi(c) < p; }
static int64_t rint_(dcase *c, int64_t lo, int64_t hi)
{
    return lo + (int64_t)(rnext(&c->r) % (uint64_t)(hi - lo + 1));
}
#define PICK(c, arr) ((arr)[rint_((c), 0, (int64_t)(sizeof(arr) / sizeof((arr)[0])) - 1)])

/* Hostile integers for attributes and constants. */
static const int64_t hostile_ints[] = {0, -1, -2, 2, 3, 65535, 65537, 70000, 1ll << 31, -(1ll << 31) - 1,
                                       (1ll << 32) + 1, 3037000500ll, 1ll << 62, INT64_MAX, INT64_MIN};
static int64_t hostile_int(dcase *c) { return PICK(c, hostile_ints); }

static const float special_floats[] = {NAN, -NAN, INFINITY, -INFINITY, 1e-40f, -1e-40f, -0.0f, 0.0f, FLT_MAX,
                                       -FLT_MAX, 1e-30f, 1e20f, -1e20f, 1.0f, -1.0f, 0.5f, -0.5f, 2.5f, 88.8f, -88.8f};
static float special_float(dcase *c) { return PICK(c, special_floats); }

/* A float attribute: usually a valid value in [lo, hi], sometimes an edge or hostile one. */
static float attr_float_value(dcase *c, float lo, float hi)
{
    if (rp(c, 0.2)) return special_float(c);
    return (float)(lo + (hi - lo) * runi(c));
}

/* ---- the case under construction --------------------------------------------------------------------------- */

static void desc(dcase *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void desc(dcase *c, const char *fmt, ...)
{
    size_t len = strlen(c->desc);
    if (len + 1 >= sizeof(c->desc)) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->desc + len, sizeof(c->desc) - len, fmt, ap);
    va_end(ap);
}

static const char *type_name(int32_t t)
{
    switch (t) {
    case ONNX_FLOAT: return "float";
    case ONNX_FLOAT16: return "float16";
    case ONNX_DOUBLE: return "double";
    case ONNX_INT64: return "int64";
    case ONNX_INT32: return "int32";
    case ONNX_INT8: return "int8";
    case ONNX_UINT8: return "uint8";
    case ONNX_BOOL: return "bool";
    default: return "?";
    }
}

static void desc_dims(dcase *c, int rank, const int64_t *dims)
{
    desc(c, "[");
    for (int i = 0; i < rank; i++) desc(c, "%s%lld", i ? "," : "", (long long)dims[i]);
    desc(c, "]");
}

static uint64_t count_of(int rank, const int64_t *dims)
{
    uint64_t n = 1;
    for (int i = 0; i < rank; i++) n *= (uint64_t)(dims[i] < 0 ? 0 : dims[i]);
    return n;
}

static dc_attr *record(dcase *c, const char *name, char kind)
{
    if (c->n_attr >= DC_MAX_ATTR) {
        c->failed = true;
        static dc_attr scratch;
        return &scratch;
    }
    dc_attr *a = &c->attr[c->n_attr++];
    memset(a, 0, sizeof(*a));
    snprintf(a->name, sizeof(a->name), "%s", name);
    a->kind = kind;
    a->src = 'a';
    return a;
}

static float value(dcase *c, int kind)
{
    float v;
    switch (kind) {
    case DC_VALUES_SPECIAL: v = rp(c, 0.3) ? special_float(c) : (float)(4 * runi(c) - 2); break;
    case DC_VALUES_INTS: v = (float)rint_(c, -4, 4) + (rp(c, 0.3) ? 0.5f : 0.0f); break;
    case DC_VALUES_POSITIVE: v = (float)(0.5 + runi(c)); break;
    default: v = (float)(4 * runi(c) - 2); break;
    }
    return c->half ? kc_half_to_float(kc_float_to_half(v)) : v;
}

/* Fills `t` (of t->type) with values of `kind`; `one` is the value of DC_VALUES_ONE_SPECIAL. */
static void fill(dcase *c, dc_tensor *t, int kind)
{
    uint64_t n = count_of(t->rank, t->dims);
    size_t esize = onnx_elem_size(t->type);
    t->bytes = (size_t)n * esize;
    t->data = calloc(1, t->bytes + 8);
    if (t->data == NULL) {
        c->failed = true;
        return;
    }
    float one = special_float(c);
    if (c->half) one = kc_half_to_float(kc_float_to_half(one));
    for (uint64_t i = 0; i < n; i++) {
        float v = kind == DC_VALUES_ONE_SPECIAL ? one : value(c, kind);
        switch (t->type) {
        case ONNX_FLOAT: ((float *)t->data)[i] = v; break;
        case ONNX_FLOAT16: ((uint16_t *)t->data)[i] = kc_float_to_half(v); break;
        case ONNX_DOUBLE: ((double *)t->data)[i] = v; break;
        case ONNX_BOOL: ((uint8_t *)t->data)[i] = (uint8_t)(rnext(&c->r) & 1); break;
        case ONNX_INT64: ((int64_t *)t->data)[i] = rint_(c, -5, 5); break;
        case ONNX_INT32: ((int32_t *)t->data)[i] = (int32_t)rint_(c, -5, 5); break;
        case ONNX_INT8: ((int8_t *)t->data)[i] = (int8_t)rint_(c, -100, 100); break;
        case ONNX_UINT8: ((uint8_t *)t->data)[i] = (uint8_t)rint_(c, 0, 200); break;
        default: break;
        }
    }
}

/* A graph input fed at Run, of `type` (0: the case's float type), with values of the case's kind. */
static void input_of(dcase *c, const char *name, int32_t type, int rank, const int64_t *dims, int kind)
{
    if (c->n_in >= DC_MAX_IN || rank > DC_MAX_RANK) {
        c->failed = true;
        return;
    }
    dc_tensor *t = &c->in[c->n_in++];
    snprintf(t->name, sizeof(t->name), "%s", name);
    t->type = type ? type : c->ft;
    t->rank = rank;
    memcpy(t->dims, dims, (size_t)rank * sizeof(int64_t));
    fill(c, t, kind);
    /* Symbolic dims are named after their sizes: ORT plans its buffers as if dims of one name were equal, and its
     * CPU EP fails a run where they are not ("Shape mismatch attempting to re-use buffer"). */
    if (c->shapes == 0) onnx_model_add_input(c->model, name, t->type, rank, dims);
    else if (c->shapes == 1) onnx_model_add_input_by_size(c->model, name, t->type, rank, dims);
    else onnx_model_add_input(c->model, name, t->type, -1, NULL);
    desc(c, " %s:%s", name, type_name(t->type == ONNX_FLOAT16 ? ONNX_FLOAT : t->type));
    desc_dims(c, rank, dims);
}

static void input(dcase *c, const char *name, int rank, const int64_t *dims)
{
    input_of(c, name, 0, rank, dims, c->values);
}

/* The largest magnitude among float tensor `t`'s finite values; *nonfinite whether it holds an infinity or NaN. */
static double max_magnitude(const dc_tensor *t, bool *nonfinite)
{
    double most = 0;
    *nonfinite = false;
    for (size_t i = 0; t->data && i < t->bytes / onnx_elem_size(t->type); i++) {
        float v = t->type == ONNX_FLOAT ? ((const float *)t->data)[i]
                                        : kc_half_to_float(((const uint16_t *)t->data)[i]);
        if (isfinite(v)) most = fmax(most, fabs((double)v));
        else *nonfinite = true;
    }
    return most;
}

/* A float initializer of random values of `kind` (weights, scales, means). */
static void const_float_tensor(dcase *c, const char *name, int rank, const int64_t *dims, int kind)
{
    dc_tensor t = {.type = c->ft, .rank = rank};
    memcpy(t.dims, dims, (size_t)rank * sizeof(int64_t));
    fill(c, &t, kind);
    for (size_t i = 0; t.data && i < t.bytes / onnx_elem_size(t.type); i++) {
        float v = t.type == ONNX_FLOAT ? ((const float *)t.data)[i] : kc_half_to_float(((const uint16_t *)t.data)[i]);
        if (isfinite(v) && fabsf(v) >= 1e19f) c->const_huge = true;
        if (t.type == ONNX_FLOAT && v != 0 && fabsf(v) < FLT_MIN) c->const_subnormal = true;
    }
    if (t.data) onnx_model_add_initializer(c->model, name, t.type, rank, dims, t.data, t.bytes);
    free(t.data);
    desc(c, " %s:const", name);
    desc_dims(c, rank, dims);
}

/* An int64 constant input (1-D of n values, or a scalar when n < 0), recorded under `name`. With a small
 * probability it becomes a graph input instead (ortvk must then refuse the node or read it right). */
static void const_ints(dcase *c, const char *name, int n, const int64_t *v)
{
    int count = n < 0 ? 1 : n;
    dc_attr *a = record(c, name, 'i');
    a->src = 'c';
    a->n = n;
    for (int i = 0; i < count && i < 8; i++) a->v[i] = v[i];
    int64_t dims[1] = {count};
    if (rp(c, 0.03) && c->n_in < DC_MAX_IN) {
        dc_tensor *t = &c->in[c->n_in++];
        snprintf(t->name, sizeof(t->name), "%s", name);
        t->type = ONNX_INT64;
        t->rank = n < 0 ? 0 : 1;
        t->dims[0] = count;
        t->bytes = (size_t)count * sizeof(int64_t);
        t->data = malloc(t->bytes + 8);
        if (t->data) memcpy(t->data, v, t->bytes);
        onnx_model_add_input(c->model, name, ONNX_INT64, t->rank, dims);
        desc(c, " %s:input=", name);
    } else {
        onnx_model_add_initializer(c->model, name, ONNX_INT64, n < 0 ? 0 : 1, dims, v,
                                   (size_t)count * sizeof(int64_t));
        desc(c, " %s=", name);
    }
    if (n < 0) desc(c, "%lld", (long long)v[0]);
    else desc_dims(c, n, v);
}

/* A float constant input (scalar when n < 0) of the case's float type, or always float when `as_float`. */
static void const_floats(dcase *c, const char *name, int n, const float *v, bool as_float)
{
    int count = n < 0 ? 1 : n;
    dc_attr *a = record(c, name, 'f');
    a->src = 'c';
    a->n = n;
    int64_t dims[1] = {count};
    int32_t type = as_float ? ONNX_FLOAT : c->ft;
    uint16_t h[64];
    float f[64];
    if (count > 64) {
        c->failed = true;
        return;
    }
    for (int i = 0; i < count; i++) {
        f[i] = c->half && !as_float ? kc_half_to_float(kc_float_to_half(v[i])) : v[i];
        h[i] = kc_float_to_half(v[i]);
        if (i < 8) a->f[i] = f[i];
    }
    onnx_model_add_initializer(c->model, name, type, n < 0 ? 0 : 1, dims, type == ONNX_FLOAT16 ? (void *)h : (void *)f,
                               (size_t)count * onnx_elem_size(type));
    desc(c, " %s=", name);
    if (n < 0) desc(c, "%g", f[0]);
    else {
        desc(c, "[");
        for (int i = 0; i < count; i++) desc(c, "%s%g", i ? "," : "", f[i]);
        desc(c, "]");
    }
}

static const char *out_names[DC_MAX_OUT] = {"y", "y1", "y2", "y3"};

/* The node with inputs `in` (n_in, "" = omitted) and `n_out` outputs y, y1, ... of `out_type` (0: float type). */
static void node(dcase *c, const char *const *in, int n_in, int n_out, int32_t out_type)
{
    c->n_out = n_out;
    for (int i = 0; i < n_out; i++) {
        snprintf(c->out[i], sizeof(c->out[i]), "%s", out_names[i]);
        c->out_type[i] = out_type ? out_type : c->ft;
        onnx_model_add_output(c->model, out_names[i], c->out_type[i], -1, NULL);
    }
    c->node = onnx_model_add_node(c->model, c->op->name, in, n_in, out_names, n_out);
}

static void a_int(dcase *c, const char *name, int64_t v)
{
    dc_attr *a = record(c, name, 'i');
    a->n = -1;
    a->v[0] = v;
    onnx_node_attr_int(c->node, name, v);
    desc(c, " %s=%lld", name, (long long)v);
}

static void a_ints(dcase *c, const char *name, const int64_t *v, int n)
{
    dc_attr *a = record(c, name, 'i');
    a->n = n;
    for (int i = 0; i < n && i < 8; i++) a->v[i] = v[i];
    onnx_node_attr_ints(c->node, name, v, n);
    desc(c, " %s=", name);
    desc_dims(c, n, v);
}

static void a_float(dcase *c, const char *name, float v)
{
    dc_attr *a = record(c, name, 'f');
    a->n = -1;
    a->f[0] = v;
    onnx_node_attr_float(c->node, name, v);
    desc(c, " %s=%g", name, v);
}

static void a_string(dcase *c, const char *name, const char *v)
{
    dc_attr *a = record(c, name, 's');
    snprintf(a->s, sizeof(a->s), "%s", v);
    onnx_node_attr_string(c->node, name, v);
    desc(c, " %s=%s", name, v);
}

/* ---- shapes ------------------------------------------------------------------------------------------------ */

static int64_t small_dim(dcase *c)
{
    double p = runi(c);
    if (p < 0.05) return 0;
    if (p < 0.25) return 1;
    if (p < 0.92) return rint_(c, 2, 5);
    return rint_(c, 6, 17);
}

static void random_dims(dcase *c, int rank, int64_t *dims)
{
    for (int i = 0; i < rank; i++) dims[i] = small_dim(c);
    /* keep a case small: at most ~20k elements */
    while (count_of(rank, dims) > 20000) {
        int i = (int)rint_(c, 0, rank - 1);
        if (dims[i] > 1) dims[i] = (dims[i] + 1) / 2;
    }
}

/* A shape of rank lo..hi. */
static int random_shape(dcase *c, int lo, int hi, int64_t *dims)
{
    int rank = (int)rint_(c, lo, hi);
    random_dims(c, rank, dims);
    return rank;
}

/* One of the big sizes past lavapipe's loop limit. */
static int64_t big_dim(dcase *c)
{
    static const int64_t sizes[] = {65535, 65536, 65537, 70000, 100003};
    return PICK(c, sizes);
}

/* A shape broadcastable with `dims` (rank), or now and then one that is not. */
static int broadcast_shape(dcase *c, int rank, const int64_t *dims, int64_t *out)
{
    int r = rank;
    if (rp(c, 0.3)) r = (int)rint_(c, 0, rank);
    for (int i = 0; i < r; i++) {
        int64_t d = dims[rank - r + i];
        out[i] = rp(c, 0.3) ? 1 : d;
    }
    if (rp(c, 0.15) && r == rank && rank < 5) { /* the other one broadcasts into a new leading dim */
        memmove(out + 1, out, (size_t)r * sizeof(int64_t));
        out[0] = rint_(c, 2, 3);
        r++;
    }
    if (rp(c, 0.04) && r > 0) out[rint_(c, 0, r - 1)] += rint_(c, 1, 3); /* incompatible */
    return r;
}

/* An axis in [-rank, rank-1], or now and then out of range. */
static int64_t axis_of(dcase *c, int rank)
{
    if (rp(c, 0.06)) return rp(c, 0.5) ? hostile_int(c) : rank;
    if (rank == 0) return 0;
    return rint_(c, -rank, rank - 1);
}

/* ---- families ---------------------------------------------------------------------------------------------- */

static void gen_unary(dcase *c)
{
    int64_t dims[DC_MAX_RANK];
    int rank = random_shape(c, 0, 5, dims);
    if (c->big) {
        rank = 1;
        dims[0] = big_dim(c);
    }
    input(c, "x", rank, dims);
    const char *name = c->op->name;
    if (strcmp(name, "Clip") == 0 && c->opset >= 11) {
        float lo = attr_float_value(c, -1.5f, 0.0f), hi = attr_float_value(c, 0.0f, 1.5f);
        int which = (int)rint_(c, 0, 3);
        const char *in[3] = {"x", which & 1 ? "min" : "", which & 2 ? "max" : ""};
        if (which & 1) const_floats(c, "min", -1, &lo, false);
        if (which & 2) const_floats(c, "max", -1, &hi, false);
        node(c, in, which & 2 ? 3 : which & 1 ? 2 : 1, 1, 0);
        return;
    }
    if (strcmp(name, "Dropout") == 0 && c->opset >= 12) {
        float ratio = attr_float_value(c, 0.0f, 0.9f);
        bool with_ratio = rp(c, 0.5);
        const char *in[2] = {"x", "ratio"};
        if (with_ratio) const_floats(c, "ratio", -1, &ratio, true);
        node(c, in, with_ratio ? 2 : 1, 1, 0);
        return;
    }
    const char *in[1] = {"x"};
    node(c, in, 1, 1, 0);
    static const struct {
        const char *op, *attrs;
    } table[] = {
        {"LeakyRelu", "alpha"}, {"HardSigmoid", "alpha beta"}, {"Elu", "alpha"},  {"Selu", "alpha gamma"},
        {"ThresholdedRelu", "alpha"}, {"Celu", "alpha"},       {"Shrink", "bias lambd"}, {"Clip", "min max"},
        {"Dropout", "ratio"},
    };
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
        if (strcmp(table[i].op, name) != 0) continue;
        char attrs[32];
        snprintf(attrs, sizeof(attrs), "%s", table[i].attrs);
        for (char *a = strtok(attrs, " "); a; a = strtok(NULL, " ")) {
            if (rp(c, 0.25)) continue; /* the default */
            float lo = strcmp(a, "max") == 0 ? 0.0f : -1.5f, hi = strcmp(a, "min") == 0 ? 0.0f : 2.0f;
            if (strcmp(a, "ratio") == 0) lo = 0.0f, hi = 0.9f;
            a_float(c, a, attr_float_value(c, lo, hi));
        }
    }
}

static void gen_binary(dcase *c)
{
    const char *name = c->op->name;
    bool variadic = !strcmp(name, "Max") || !strcmp(name, "Min") || !strcmp(name, "Sum") || !strcmp(name, "Mean");
    int n = variadic ? (int)rint_(c, 1, 4) : 2;
    int64_t dims[DC_MAX_RANK], other[DC_MAX_RANK];
    int rank = random_shape(c, 0, 5, dims);
    if (c->big) {
        rank = 1;
        dims[0] = big_dim(c);
    }
    static const char *names[] = {"a", "b", "c", "d"};
    input(c, "a", rank, dims);
    for (int i = 1; i < n; i++) {
        int r;
        if (!strcmp(name, "PRelu")) { /* the slope broadcasts into x, one way */
            r = rank == 0 ? 0 : (int)rint_(c, 0, rank);
            for (int k = 0; k < r; k++) other[k] = rp(c, 0.5) ? 1 : dims[rank - r + k];
            if (rp(c, 0.04) && r > 0) other[0] += 2;
        } else {
            r = broadcast_shape(c, rank, dims, other);
        }
        if (!strcmp(name, "Pow") && rp(c, 0.5)) { /* exponents: specials and small integers, sometimes constant */
            static const float e[] = {0, 1, 2, 3, -1, -2, 0.5f, -0.5f, 1.5f, NAN, INFINITY, -INFINITY, 1e-40f, -0.0f};
            if (rp(c, 0.5)) {
                float v = PICK(c, e);
                const_floats(c, "b", -1, &v, false);
                continue;
            }
            input_of(c, names[i], 0, r, other, DC_VALUES_INTS);
            continue;
        }
        input(c, names[i], r, other);
    }
    node(c, names, n, 1, 0);
    /* float16: ortvk rounds each partial result of a variadic op to float16, an error of up to 2^-11 of the
     * largest partial sum each time */
    if (c->half && n > 2) {
        double largest = 0;
        for (int i = 0; i < c->n_in; i++) {
            const dc_tensor *t = &c->in[i];
            for (size_t k = 0; t->type == ONNX_FLOAT16 && k < t->bytes / 2; k++) {
                float v = kc_half_to_float(((const uint16_t *)t->data)[k]);
                if (isfinite(v) && fabs(v) > largest) largest = fabs(v);
            }
            for (size_t k = 0; t->type == ONNX_FLOAT && k < t->bytes / 4; k++) {
                float v = ((const float *)t->data)[k];
                if (isfinite(v) && fabs(v) > largest) largest = fabs(v);
            }
        }
        c->atol += (n - 1) * n * largest * 0x1p-11;
    }
}

static void gen_compare(dcase *c)
{
    const char *name = c->op->name;
    bool logic = !strcmp(name, "And") || !strcmp(name, "Or") || !strcmp(name, "Xor") || !strcmp(name, "Not");
    int64_t dims[DC_MAX_RANK], other[DC_MAX_RANK];
    int rank = random_shape(c, 0, 5, dims);
    static const char *in[] = {"a", "b"};
    /* integer comparisons too (data, not shapes: the device's), with values that differ only in one 32-bit half */
    int32_t type = logic ? ONNX_BOOL : rp(c, 0.2) ? ONNX_INT64 : rp(c, 0.15) ? ONNX_INT32 : 0;
    input_of(c, "a", type, rank, dims, c->values);
    if (strcmp(name, "Not") != 0) {
        int r = broadcast_shape(c, rank, dims, other);
        input_of(c, "b", type, r, other, c->values);
        dc_tensor *a = &c->in[0], *b = &c->in[1];
        for (int k = 0; k < 2 && type == ONNX_INT64; k++) {
            int64_t *v = c->in[k].data;
            for (size_t i = 0; v != NULL && i < c->in[k].bytes / sizeof(int64_t); i++)
                if (rp(c, 0.5)) v[i] = hostile_int(c);
        }
        /* equal values now and then, so Equal/GreaterOrEqual see ties */
        if (!logic && a->bytes == b->bytes && rp(c, 0.5) && a->data && b->data) memcpy(b->data, a->data, a->bytes);
    }
    node(c, in, strcmp(name, "Not") ? 2 : 1, 1, ONNX_BOOL);
}

static void gen_where(dcase *c)
{
    int64_t dims[DC_MAX_RANK], d1[DC_MAX_RANK], d2[DC_MAX_RANK];
    int rank = random_shape(c, 0, 5, dims);
    int r1 = broadcast_shape(c, rank, dims, d1), r2 = broadcast_shape(c, rank, dims, d2);
    input_of(c, "cond", ONNX_BOOL, r1, d1, c->values);
    input(c, "x", rank, dims);
    input(c, "z", r2, d2); /* not "y": that is the output's name (ORT refused the model as invalid) */
    static const char *in[] = {"cond", "x", "z"};
    node(c, in, 3, 1, 0);
}

/* Spatial attributes shared by pools and convolutions: kernel, strides, pads, dilations, auto_pad. */
static void spatial_attrs(dcase *c, int sp, const int64_t *kernel, bool dilations_ok, bool set_kernel)
{
    int64_t v[8];
    if (set_kernel) a_ints(c, "kernel_shape", kernel, sp);
    if (rp(c, 0.6)) {
        for (int i = 0; i < sp; i++) v[i] = rp(c, 0.05) ? hostile_int(c) : rint_(c, 1, 3);
        a_ints(c, "strides", v, sp);
    }
    if (dilations_ok && rp(c, 0.4)) {
        for (int i = 0; i < sp; i++) v[i] = rp(c, 0.05) ? hostile_int(c) : rint_(c, 1, 3);
        a_ints(c, "dilations", v, sp);
    }
    double ap = runi(c);
    if (ap < 0.15) {
        static const char *modes[] = {"SAME_UPPER", "SAME_LOWER", "VALID", "NOTSET", "BOGUS"};
        a_string(c, "auto_pad", PICK(c, modes));
    } else if (ap < 0.7) {
        /* pads below the kernel (larger ones are invalid), at most 3: a kernel past 65,535 with pads as large
         * would make ~10^9-10^10 operations, a hang on lavapipe that says nothing about ortvk */
        for (int i = 0; i < 2 * sp; i++) {
            int64_t k = kernel[i % sp] > 1 && kernel[i % sp] < 4 ? kernel[i % sp] - 1 : kernel[i % sp] >= 4 ? 3 : 1;
            v[i] = rp(c, 0.04) ? hostile_int(c) : rint_(c, 0, k);
        }
        a_ints(c, "pads", v, 2 * sp);
    }
}

static void gen_pool(dcase *c)
{
    const char *name = c->op->name;
    bool global = strncmp(name, "Global", 6) == 0;
    int sp = (int)rint_(c, 1, 3);
    if (rp(c, 0.6)) sp = 2;
    int64_t dims[DC_MAX_RANK], kernel[3];
    dims[0] = rint_(c, 1, 2);
    dims[1] = rint_(c, 1, 4);
    for (int i = 0; i < sp; i++) dims[2 + i] = rint_(c, 1, 9) - (rp(c, 0.03) ? 1 : 0);
    for (int i = 0; i < sp; i++) kernel[i] = rp(c, 0.05) ? hostile_int(c) : rint_(c, 1, 4);
    if (c->big) {
        sp = 1;
        dims[0] = dims[1] = 1;
        dims[2] = big_dim(c);
        kernel[0] = global ? 1 : dims[2] - rint_(c, 0, 2);
    }
    input(c, "x", 2 + sp, dims);
    static const char *in[] = {"x"};
    node(c, in, 1, 1, 0);
    if (global) return;
    bool dil = !strcmp(name, "MaxPool") ? c->opset >= 10 : c->opset >= 19;
    spatial_attrs(c, sp, kernel, dil, true);
    if (c->opset >= 10 && rp(c, 0.4)) a_int(c, "ceil_mode", rp(c, 0.3) ? hostile_int(c) : rint_(c, 0, 1));
    if (!strcmp(name, "AveragePool") && rp(c, 0.4))
        a_int(c, "count_include_pad", rp(c, 0.2) ? hostile_int(c) : rint_(c, 0, 1));
    if (!strcmp(name, "MaxPool") && rp(c, 0.15)) a_int(c, "storage_order", rp(c, 0.3) ? hostile_int(c) : 1);
}

/* A residual shortcut after the detector-like Conv of output dims `y`: y = t + r, r + t or t * r for a graph input r
 * of t's shape (a broadcasting [N, C, 1, 1] now and then, which must not fuse), t the Conv's output. */
static void conv_residual(dcase *c, const int64_t *y)
{
    int64_t r[4] = {y[0], y[1], y[2], y[3]};
    if (rp(c, 0.15)) r[2] = r[3] = 1;
    input(c, "r", 4, r);
    int kind = (int)rint_(c, 0, 2);
    const char *in[2] = {kind == 1 ? "r" : "t", kind == 1 ? "t" : "r"}, *out[1] = {"y"};
    onnx_model_add_node(c->model, kind == 2 ? "Mul" : "Add", in, 2, out, 1);
    desc(c, " then %s(%s, %s)", kind == 2 ? "Mul" : "Add", in[0], in[1]);
}

static void gen_conv(dcase *c)
{
    bool transpose = !strcmp(c->op->name, "ConvTranspose");
    int sp = rp(c, 0.7) ? 2 : (int)rint_(c, 1, 3);
    int64_t group = rp(c, 0.7) ? 1 : rint_(c, 1, 3);
    int64_t cin = group * rint_(c, 1, 3), cout = group * rint_(c, 1, 3);
    /* The detector's depthwise convolutions: square 3x3 or 5x5, stride 1 or 2, pads half the kernel (the end's
     * sometimes less), images up to 80 wide (ortvk's dedicated forms and tiles); stride 0 leaves spatial_attrs. */
    int64_t dw_stride = 0;
    if (rp(c, 0.15)) { /* depthwise */
        group = cin = rint_(c, 1, 6);
        cout = cin * rint_(c, 1, 2);
        if (!transpose && sp == 2 && !c->big && rp(c, 0.6)) {
            dw_stride = rint_(c, 1, 2);
            cout = cin;
        }
    }
    /* The detector's dense convolutions: output channels in fours (packed weights), 3x3 of stride 1 or 2 with pads
     * of 1 (0 in H now and then) over rows a multiple of 4 long (two output rows an invocation), or 1x1 over up to
     * 960 pixels (the GEMM's wide form from 384); now and then its first Conv's shape, 16 or 32 output channels of
     * at most 4 input channels. */
    int64_t dense_stride = 0;
    bool pointwise = false;
    if (dw_stride == 0 && group == 1 && sp == 2 && !c->big && rp(c, 0.2)) {
        bool stem = rp(c, 0.3);
        cout = stem ? 16 * rint_(c, 1, 2) : 4 * rint_(c, 1, 4);
        cin = rint_(c, 1, stem ? 4 : 8);
        pointwise = rp(c, 0.3);
        dense_stride = pointwise ? 1 : rint_(c, 1, 2);
    }
    /* The recognizer's last Convs: output channels in fours over few pixels and many input channels (ortvk sums
     * them in slices), 1x3 with pads of 1 in W (rows read as vec4 where they are a multiple of 4 long) or 3x3. */
    bool sliced = dw_stride == 0 && dense_stride == 0 && group == 1 && sp == 2 && !c->big && rp(c, 0.15);
    if (sliced) {
        cout = 4 * rint_(c, 1, 3);
        cin = rint_(c, 100, 600);
        dense_stride = 1;
    }
    /* An STFT written as a Conv (Silero VAD's): one input channel, 1-D, a kernel and stride of multiples of 4,
     * without pads most of the time (ortvk's GEMM of the overlapping windows), up to 12 output channels. */
    int64_t signal_stride = 0;
    bool signal = !transpose && !c->big && dw_stride == 0 && dense_stride == 0 && rp(c, 0.1);
    if (signal) {
        sp = 1;
        group = cin = 1;
        cout = rint_(c, 1, 12);
        signal_stride = rp(c, 0.8) ? 4 * rint_(c, 1, 4) : rint_(c, 1, 6);
    }
    int64_t x[DC_MAX_RANK], w[DC_MAX_RANK], kernel[3];
    x[0] = rint_(c, 1, 2);
    x[1] = cin;
    for (int i = 0; i < sp; i++) {
        kernel[i] = rint_(c, 1, 3);
        x[2 + i] = rint_(c, 1, 8) + (rp(c, 0.03) ? -1 : 0);
    }
    if (dense_stride != 0) {
        kernel[0] = kernel[1] = pointwise ? 1 : 3;
        x[2] = rint_(c, 3, 24);
        x[3] = 4 * rint_(c, 1, 10);
    }
    if (sliced) {
        kernel[0] = rp(c, 0.6) ? 1 : 3;
        x[2] = kernel[0] == 1 ? 1 : rint_(c, 1, 4);
        x[3] = rp(c, 0.7) ? 4 * rint_(c, 1, 12) : rint_(c, 1, 20);
    }
    if (signal) {
        kernel[0] = rp(c, 0.8) ? 4 * rint_(c, 1, 16) : rint_(c, 1, 9);
        x[2] = kernel[0] + signal_stride * rint_(c, 0, 6) + rint_(c, 0, 3);
    }
    if (dw_stride != 0) {
        kernel[0] = kernel[1] = rp(c, 0.5) ? 3 : 5;
        for (int i = 0; i < 2; i++) x[2 + i] = rp(c, 0.3) ? rint_(c, 24, 80) : rint_(c, 3, 24);
    }
    /* ConvTranspose's upsampling by 2 (the detector's head): 2x2 of stride 2 without pads, rows a multiple of 4 long
     * most of the time (ortvk's register tiles), up to 8 output channels a group. */
    bool upsample = transpose && sp == 2 && !c->big && rp(c, 0.3);
    if (upsample) {
        kernel[0] = kernel[1] = 2;
        cout = group * rint_(c, 1, 8);
        x[2] = rint_(c, 1, 12);
        x[3] = rp(c, 0.7) ? 4 * rint_(c, 1, 8) : rint_(c, 1, 12);
    }
    if (c->big) {
        sp = 1;
        group = 1;
        x[0] = 1;
        x[1] = cin = big_dim(c);
        x[2] = 1;
        kernel[0] = 1;
        cout = 1;
    }
    if (rp(c, 0.03)) x[1] += 1; /* channels that do not match the weights */
    w[0] = transpose ? cin : cout;
    w[1] = transpose ? cout / group : cin / group;
    for (int i = 0; i < sp; i++) w[2 + i] = kernel[i];
    input(c, "x", 2 + sp, x);
    if (rp(c, 0.8)) const_float_tensor(c, "w", 2 + sp, w, DC_VALUES_NORMAL);
    else input_of(c, "w", 0, 2 + sp, w, DC_VALUES_NORMAL);
    bool bias = rp(c, 0.6);
    int64_t b[1] = {cout + (rp(c, 0.03) ? 1 : 0)};
    if (bias) const_float_tensor(c, "b", 1, b, DC_VALUES_NORMAL);
    static const char *in[] = {"x", "w", "b"};
    /* The detector's forms with known pads are followed by a residual Add or Mul now and then (fused into the Conv's
     * stores where ortvk can): the Conv's output is then t, the Add's y. */
    bool residual = !transpose && !c->big && !c->half && (dense_stride != 0 || dw_stride != 0) && rp(c, 0.4);
    if (residual) { /* node()'s output y, made by the Add */
        static const char *t_out[] = {"t"};
        c->n_out = 1;
        snprintf(c->out[0], sizeof(c->out[0]), "y");
        c->out_type[0] = c->ft;
        onnx_model_add_output(c->model, "y", c->ft, -1, NULL);
        c->node = onnx_model_add_node(c->model, c->op->name, in, bias ? 3 : 2, t_out, 1);
    } else {
        node(c, in, bias ? 3 : 2, 1, 0);
    }
    if (group != 1 || rp(c, 0.3)) a_int(c, "group", rp(c, 0.05) ? hostile_int(c) : group);
    if (dense_stride != 0) {
        int64_t strides[2] = {dense_stride, dense_stride};
        int64_t pad_h = pointwise || kernel[0] == 1 || rp(c, 0.2) ? 0 : 1;
        int64_t pads[4] = {pad_h, pointwise ? 0 : 1, pad_h, pointwise ? 0 : 1};
        a_ints(c, "kernel_shape", kernel, 2);
        a_ints(c, "strides", strides, 2);
        a_ints(c, "pads", pads, 4);
        int64_t y[4] = {x[0], cout, (x[2] + 2 * pad_h - kernel[0]) / dense_stride + 1,
                        (x[3] + 2 * pads[1] - kernel[1]) / dense_stride + 1};
        if (residual) conv_residual(c, y);
    } else if (dw_stride != 0) {
        int64_t strides[2] = {dw_stride, dw_stride}, half = kernel[0] / 2;
        int64_t pads[4] = {half, half, rp(c, 0.7) ? half : rint_(c, 0, half), rp(c, 0.7) ? half : rint_(c, 0, half)};
        a_ints(c, "kernel_shape", kernel, 2);
        a_ints(c, "strides", strides, 2);
        a_ints(c, "pads", pads, 4);
        int64_t y[4] = {x[0], cout, (x[2] + pads[0] + pads[2] - kernel[0]) / dw_stride + 1,
                        (x[3] + pads[1] + pads[3] - kernel[1]) / dw_stride + 1};
        if (residual) conv_residual(c, y);
    } else if (signal) {
        int64_t pads[2] = {0, 0}, dilations[1] = {rp(c, 0.9) ? 1 : 2};
        if (rp(c, 0.2)) pads[0] = rint_(c, 0, 2), pads[1] = rint_(c, 0, 2);
        a_ints(c, "kernel_shape", kernel, 1);
        a_ints(c, "strides", &signal_stride, 1);
        a_ints(c, "pads", pads, 2);
        if (dilations[0] != 1 || rp(c, 0.3)) a_ints(c, "dilations", dilations, 1);
    } else if (upsample) {
        int64_t strides[2] = {2, 2};
        a_ints(c, "kernel_shape", kernel, 2);
        a_ints(c, "strides", strides, 2);
    } else {
        spatial_attrs(c, sp, kernel, true, rp(c, 0.4));
    }
    if (transpose) {
        int64_t v[3];
        if (rp(c, 0.2)) {
            for (int i = 0; i < sp; i++) v[i] = rp(c, 0.1) ? hostile_int(c) : rint_(c, 0, 1);
            a_ints(c, "output_padding", v, sp);
        }
        if (rp(c, 0.1)) {
            for (int i = 0; i < sp; i++) v[i] = rp(c, 0.1) ? hostile_int(c) : rint_(c, 1, 12);
            a_ints(c, "output_shape", v, sp);
        }
    }
    c->atol = 1e-5 * (c->big ? 300 : sliced ? 40 : 4);
}

static void gen_batchnorm(dcase *c)
{
    int64_t dims[DC_MAX_RANK];
    int rank = random_shape(c, 2, 5, dims);
    int64_t cdim[1] = {dims[1] + (rp(c, 0.03) ? 1 : 0)};
    input(c, "x", rank, dims);
    static const char *in[] = {"x", "scale", "bias", "mean", "var"};
    const_float_tensor(c, "scale", 1, cdim, DC_VALUES_NORMAL);
    const_float_tensor(c, "bias", 1, cdim, DC_VALUES_NORMAL);
    const_float_tensor(c, "mean", 1, cdim, DC_VALUES_NORMAL);
    int var_kind = rp(c, 0.9) ? DC_VALUES_POSITIVE : DC_VALUES_SPECIAL;
    const_float_tensor(c, "var", 1, cdim, var_kind);
    if (var_kind == DC_VALUES_SPECIAL) record(c, "var:special", 'i')->src = 'c'; /* negative, 0, NaN, inf, ... */
    node(c, in, 5, 1, 0);
    if (rp(c, 0.5)) a_float(c, "epsilon", rp(c, 0.2) ? special_float(c) : (float)(1e-5 + runi(c) * 1e-2));
    if (rp(c, 0.2)) a_float(c, "momentum", attr_float_value(c, 0.0f, 1.0f));
    if (c->opset < 9 && rp(c, 0.3)) a_int(c, "spatial", rp(c, 0.3) ? hostile_int(c) : rint_(c, 0, 1));
    if (c->opset >= 14 && rp(c, 0.1)) a_int(c, "training_mode", rp(c, 0.5) ? hostile_int(c) : 0);
}

static void gen_resize(dcase *c)
{
    bool upsample = !strcmp(c->op->name, "Upsample");
    int64_t dims[DC_MAX_RANK];
    int rank = rp(c, 0.8) ? 4 : (int)rint_(c, 1, 5);
    random_dims(c, rank, dims);
    input(c, "x", rank, dims);
    float scales[DC_MAX_RANK];
    /* 1.1 and 1.2 keep most dims as they are: the CPU EP then copies the input */
    static const float good[] = {1, 2, 3, 0.5f, 1.5f, 0.75f, 2.5f, 0.25f, 1.1f, 1.2f};
    static const float bad[] = {0, -1, NAN, INFINITY, 1e9f, 1e-9f};
    for (int i = 0; i < rank; i++) {
        scales[i] = i < rank - 2 && rp(c, 0.8) ? 1.0f : PICK(c, good);
        if (rp(c, 0.03)) scales[i] = PICK(c, bad);
    }
    const char *mode = rp(c, 0.05) ? "bogus" : rp(c, 0.5) ? "nearest" : rp(c, 0.7) ? "linear" : "cubic";
    if (upsample || c->opset == 10) {
        static const char *in[] = {"x", "scales"};
        const_floats(c, "scales", rank, scales, true);
        node(c, in, 2, 1, 0);
        a_string(c, "mode", mode);
        return;
    }
    bool sizes = rp(c, 0.3);
    static const char *in_scales[] = {"x", "", "scales"}, *in_sizes[] = {"x", "", "", "sizes"};
    if (sizes) {
        int64_t v[DC_MAX_RANK];
        for (int i = 0; i < rank; i++) v[i] = rp(c, 0.04) ? hostile_int(c) : rint_(c, 1, 12);
        /* a size past 65,535 with the others as drawn makes ~10^8 outputs (a minute on lavapipe under ASan):
         * the others become 1 */
        uint64_t total = 1;
        for (int i = 0; i < rank; i++) total = total > (1u << 30) ? total : total * (uint64_t)(v[i] > 0 ? v[i] : 1);
        for (int i = 0; i < rank && total > (1u << 22); i++)
            if (v[i] > 0 && v[i] < 65535) v[i] = 1;
        const_ints(c, "sizes", rank, v);
        node(c, in_sizes, 4, 1, 0);
    } else {
        const_floats(c, "scales", rank, scales, true);
        node(c, in_scales, 3, 1, 0);
    }
    a_string(c, "mode", mode);
    static const char *coord[] = {"half_pixel", "asymmetric", "align_corners", "pytorch_half_pixel",
                                  "tf_half_pixel_for_nn", "half_pixel_symmetric"};
    if (rp(c, 0.8)) a_string(c, "coordinate_transformation_mode", PICK(c, coord));
    static const char *nearest[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
    if (rp(c, 0.5)) a_string(c, "nearest_mode", PICK(c, nearest));
    if (rp(c, 0.2)) a_float(c, "cubic_coeff_a", attr_float_value(c, -1.0f, 0.0f));
    if (rp(c, 0.1)) a_int(c, "exclude_outside", rp(c, 0.3) ? hostile_int(c) : 1);
    if (rp(c, 0.1)) a_float(c, "extrapolation_value", attr_float_value(c, -1.0f, 1.0f));
    if (c->opset >= 18 && rp(c, 0.1)) a_int(c, "antialias", rp(c, 0.3) ? hostile_int(c) : 1);
    if (c->opset >= 18 && sizes && rp(c, 0.2)) {
        static const char *policy[] = {"stretch", "not_larger", "not_smaller"};
        a_string(c, "keep_aspect_ratio_policy", PICK(c, policy));
    }
}

/* ---- layout ------------------------------------------------------------------------------------------------ */

static void gen_reshape(dcase *c)
{
    int64_t dims[DC_MAX_RANK], shape[DC_MAX_RANK];
    int rank = random_shape(c, 0, 5, dims);
    input(c, "x", rank, dims);
    if (!strcmp(c->op->name, "Flatten")) {
        static const char *in[] = {"x"};
        node(c, in, 1, 1, 0);
        if (rp(c, 0.8)) a_int(c, "axis", c->opset >= 11 ? axis_of(c, rank + 1) : rint_(c, 0, rank));
        return;
    }
    /* A target shape: the dims regrouped, one of them -1 or 0 now and then, or a hostile one. */
    int r = 0;
    uint64_t acc = 1;
    for (int i = 0; i < rank; i++) {
        acc *= (uint64_t)dims[i];
        if (rp(c, 0.5) || i == rank - 1) {
            shape[r++] = (int64_t)acc;
            acc = 1;
        }
    }
    if (r > 0 && rp(c, 0.3)) shape[rint_(c, 0, r - 1)] = -1;
    if (r > 0 && r == rank && rp(c, 0.2)) shape[rint_(c, 0, r - 1)] = 0;
    if (rp(c, 0.08) && r < DC_MAX_RANK) shape[r++] = hostile_int(c);
    if (rp(c, 0.05) && r > 0) shape[0] = -1, shape[r - 1] = -1;
    const_ints(c, "shape", r, shape);
    static const char *in[] = {"x", "shape"};
    node(c, in, 2, 1, 0);
    if (c->opset >= 14 && rp(c, 0.3)) a_int(c, "allowzero", rp(c, 0.3) ? hostile_int(c) : rint_(c, 0, 1));
}

static void gen_squeeze(dcase *c)
{
    bool squeeze = !strcmp(c->op->name, "Squeeze");
    int64_t dims[DC_MAX_RANK], axes[DC_MAX_RANK];
    int rank = random_shape(c, squeeze ? 1 : 0, squeeze ? 5 : 4, dims);
    if (squeeze)
        for (int i = 0; i < rank; i++)
            if (rp(c, 0.5)) dims[i] = 1;
    input(c, "x", rank, dims);
    int n = 0;
    int out_rank = squeeze ? rank : rank + (int)rint_(c, 1, 2);
    for (int i = 0; i < (squeeze ? rank : out_rank) && n < DC_MAX_RANK; i++) {
        if (squeeze ? (dims[i] == 1 && rp(c, 0.7)) : (n < out_rank - rank))
            axes[n++] = rp(c, 0.5) && c->opset >= 11 ? i - (squeeze ? rank : out_rank) : i;
    }
    if (!squeeze) n = out_rank - rank;
    if (rp(c, 0.08) && n > 0) axes[rint_(c, 0, n - 1)] = rp(c, 0.5) ? axes[0] : hostile_int(c);
    static const char *in[] = {"x", "axes"};
    bool omit = squeeze && rp(c, 0.2);
    if (c->opset >= 13) {
        if (!omit) const_ints(c, "axes", n, axes);
        node(c, in, omit ? 1 : 2, 1, 0);
    } else {
        node(c, in, 1, 1, 0);
        if (!omit) a_ints(c, "axes", axes, n);
    }
}

static void gen_transpose(dcase *c)
{
    int64_t dims[DC_MAX_RANK], perm[DC_MAX_RANK];
    int rank = random_shape(c, 0, 5, dims);
    input(c, "x", rank, dims);
    for (int i = 0; i < rank; i++) perm[i] = i;
    for (int i = rank - 1; i > 0; i--) {
        int j = (int)rint_(c, 0, i);
        int64_t t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    int n = rank;
    if (rp(c, 0.05) && n > 0) perm[0] = rp(c, 0.5) ? perm[n - 1] : hostile_int(c);
    if (rp(c, 0.03)) n = rank > 0 ? rank - 1 : 1;
    static const char *in[] = {"x"};
    node(c, in, 1, 1, 0);
    if (rp(c, 0.85)) a_ints(c, "perm", perm, n);
}

static void gen_concat(dcase *c)
{
    int64_t dims[DC_MAX_RANK], d[DC_MAX_RANK];
    int rank = random_shape(c, 1, 5, dims);
    int n = (int)rint_(c, 1, 4);
    int64_t axis = axis_of(c, rank);
    int a = (int)(axis < 0 ? axis + rank : axis);
    static const char *names[] = {"a", "b", "c", "d"};
    for (int i = 0; i < n; i++) {
        memcpy(d, dims, sizeof(d));
        if (a >= 0 && a < rank) d[a] = small_dim(c);
        if (rp(c, 0.03)) d[rint_(c, 0, rank - 1)] += 1;
        input(c, names[i], rank, d);
    }
    node(c, names, n, 1, 0);
    a_int(c, "axis", axis);
}

static int64_t slice_bound(dcase *c, int64_t dim)
{
    static const int64_t edge[] = {INT64_MAX, INT64_MIN, -(1ll << 31), 1ll << 31, -1, 0};
    if (rp(c, 0.2)) return PICK(c, edge);
    return rint_(c, -dim - 2, dim + 2);
}

static void gen_slice(dcase *c)
{
    int64_t dims[DC_MAX_RANK], starts[DC_MAX_RANK], ends[DC_MAX_RANK], axes[DC_MAX_RANK], steps[DC_MAX_RANK];
    int rank = random_shape(c, 1, 5, dims);
    input(c, "x", rank, dims);
    int n = (int)rint_(c, 1, rank);
    for (int i = 0; i < n; i++) {
        axes[i] = i;
        starts[i] = slice_bound(c, dims[i]);
        ends[i] = slice_bound(c, dims[i]);
        static const int64_t big_steps[] = {0, INT64_MAX, INT64_MIN, -INT64_MAX, 1ll << 40, -(1ll << 40)};
        steps[i] = rp(c, 0.06) ? PICK(c, big_steps) : rp(c, 0.5) ? 1 : rint_(c, -3, 3);
        if (steps[i] == 0 && rp(c, 0.7)) steps[i] = -1;
    }
    for (int i = n - 1; i > 0; i--) { /* axes in any order, negative now and then */
        int j = (int)rint_(c, 0, i);
        int64_t t = axes[i];
        axes[i] = axes[j];
        axes[j] = t;
    }
    for (int i = 0; i < n; i++) {
        int64_t d = dims[axes[i]];
        starts[i] = slice_bound(c, d);
        ends[i] = slice_bound(c, d);
        if (rp(c, 0.3)) axes[i] -= rank;
    }
    if (rp(c, 0.04)) axes[0] = rp(c, 0.5) ? hostile_int(c) : axes[n - 1];
    const_ints(c, "starts", n, starts);
    const_ints(c, "ends", n, ends);
    int k = (int)rint_(c, 3, 5);
    if (k >= 4) const_ints(c, "axes", n, axes);
    if (k >= 5) const_ints(c, "steps", n, steps);
    static const char *in[] = {"x", "starts", "ends", "axes", "steps"};
    node(c, in, k, 1, 0);
}

static void gen_split(dcase *c)
{
    int64_t dims[DC_MAX_RANK];
    int rank = random_shape(c, 1, 5, dims);
    input(c, "x", rank, dims);
    int64_t axis = rp(c, 0.7) ? axis_of(c, rank) : 0;
    int a = (int)(axis < 0 ? axis + rank : axis);
    int64_t dim = a >= 0 && a < rank ? dims[a] : 1;
    int n = (int)rint_(c, 1, 4);
    int64_t split[DC_MAX_OUT];
    int64_t left = dim;
    for (int i = 0; i < n; i++) {
        split[i] = i == n - 1 ? left : rint_(c, 0, left);
        left -= split[i];
    }
    if (rp(c, 0.06)) split[rint_(c, 0, n - 1)] = rp(c, 0.5) ? -1 : hostile_int(c);
    static const char *in[] = {"x", "split"};
    int mode = (int)rint_(c, 0, 2); /* 0: equal parts, 1: split given, 2: num_outputs (18) */
    if (mode == 1 && c->opset >= 13) {
        const_ints(c, "split", n, split);
        node(c, in, 2, n, 0);
    } else {
        node(c, in, 1, n, 0);
        if (mode == 1) a_ints(c, "split", split, n);
        if (mode == 2 && c->opset >= 18) a_int(c, "num_outputs", rp(c, 0.1) ? hostile_int(c) : n);
    }
    if (axis != 0 || rp(c, 0.3)) a_int(c, "axis", axis);
}

static void gen_expand_tile(dcase *c)
{
    bool tile = !strcmp(c->op->name, "Tile");
    int64_t dims[DC_MAX_RANK], v[DC_MAX_RANK];
    int rank = random_shape(c, tile ? 1 : 0, 4, dims);
    input(c, "x", rank, dims);
    int n = tile ? rank : (int)rint_(c, 0, 5);
    for (int i = 0; i < n; i++) {
        if (tile) v[i] = rint_(c, 0, 3);
        else {
            int k = i - (n - rank);
            v[i] = k >= 0 && dims[k] != 1 ? (rp(c, 0.8) ? dims[k] : 1) : rint_(c, 1, 4);
        }
    }
    uint64_t out = 1;
    for (int i = 0; i < n; i++) out *= (uint64_t)(v[i] ? v[i] : 1);
    if (out * count_of(rank, dims) > 200000)
        for (int i = 0; i < n; i++) v[i] = v[i] > 1 ? 1 : v[i];
    if (rp(c, 0.08) && n > 0) {
        int h = (int)rint_(c, 0, n - 1);
        v[h] = hostile_int(c);
        /* A repeat past lavapipe's loop cap (65,537) times the rest can make a real output of tens of millions of
         * elements, which takes seconds on a software device without testing anything more: keep the outputs that
         * can be allocated below 4M elements; the ones past 2^33, which ortvk and the CPU EP must refuse, stay. */
        uint64_t total = count_of(rank, dims);
        for (int i = 0; i < n && total != UINT64_MAX; i++)
            if (v[i] > 0 && __builtin_mul_overflow(total, (uint64_t)v[i], &total)) total = UINT64_MAX;
        if (total > (4u << 20) && total < (1ull << 33)) v[h] = 1;
    }
    if (rp(c, 0.03) && n > 1) { /* two large values whose product overflows */
        v[0] = 1ll << 32;
        v[1] = 1ll << 32;
    }
    if (tile && rp(c, 0.03)) n = rank + 1;
    const_ints(c, tile ? "repeats" : "shape", n, v);
    static const char *in_t[] = {"x", "repeats"}, *in_e[] = {"x", "shape"};
    node(c, tile ? in_t : in_e, 2, 1, 0);
}

static void gen_gather(dcase *c)
{
    int64_t dims[DC_MAX_RANK], idims[DC_MAX_RANK];
    int rank = random_shape(c, 1, 4, dims);
    input(c, "x", rank, dims);
    int64_t axis = rp(c, 0.7) ? axis_of(c, rank) : 0;
    int a = (int)(axis < 0 ? axis + rank : axis);
    int64_t dim = a >= 0 && a < rank ? dims[a] : 1;
    int irank = (int)rint_(c, 0, 2);
    for (int i = 0; i < irank; i++) idims[i] = rint_(c, 0, 3);
    /* now and then more indices than ortvk keeps in its parameters (64): read from the host in the run */
    if (rp(c, 0.1)) irank = 1, idims[0] = rint_(c, 65, 100);
    uint64_t n = count_of(irank, idims);
    int64_t idx[100];
    if (n > 100) n = 8, irank = 1, idims[0] = 8;
    for (uint64_t i = 0; i < n; i++) {
        idx[i] = dim > 0 ? rint_(c, -dim, dim - 1) : 0;
        if (rp(c, 0.04)) idx[i] = rp(c, 0.5) ? dim : hostile_int(c);
    }
    dc_attr *rec = record(c, "indices", 'i');
    rec->src = 'c';
    rec->n = n > 8 ? 8 : (int)n;
    memcpy(rec->v, idx, (size_t)rec->n * sizeof(int64_t));
    bool int32 = rp(c, 0.2);
    int32_t idx32[100];
    for (uint64_t i = 0; i < n; i++) idx32[i] = (int32_t)idx[i];
    /* a constant, or a graph input (token ids into an embedding table) */
    if (rp(c, 0.6)) {
        onnx_model_add_initializer(c->model, "indices", int32 ? ONNX_INT32 : ONNX_INT64, irank, idims,
                                   int32 ? (void *)idx32 : (void *)idx, n * (int32 ? 4 : 8));
    } else {
        input_of(c, "indices", int32 ? ONNX_INT32 : ONNX_INT64, irank, idims, c->values);
        dc_tensor *t = &c->in[c->n_in - 1];
        if (t->data != NULL && t->bytes == n * (int32 ? 4 : 8))
            memcpy(t->data, int32 ? (void *)idx32 : (void *)idx, t->bytes);
    }
    desc(c, " indices:%s", int32 ? "int32" : "int64");
    desc_dims(c, irank, idims);
    desc(c, "=");
    desc_dims(c, (int)n < 8 ? (int)n : 8, idx);
    static const char *in[] = {"x", "indices"};
    node(c, in, 2, 1, 0);
    if (axis != 0 || rp(c, 0.3)) a_int(c, "axis", axis);
}

static void gen_depth_space(dcase *c)
{
    bool d2s = !strcmp(c->op->name, "DepthToSpace");
    int64_t b = rint_(c, 1, 3), dims[4];
    dims[0] = rint_(c, 1, 2);
    dims[1] = rint_(c, 1, 3) * (d2s ? b * b : 1);
    dims[2] = rint_(c, 1, 4) * (d2s ? 1 : b);
    dims[3] = rint_(c, 1, 4) * (d2s ? 1 : b);
    if (rp(c, 0.05)) dims[rint_(c, 1, 3)] += 1;
    int rank = rp(c, 0.03) ? 3 : 4;
    input(c, "x", rank, dims);
    static const char *in[] = {"x"};
    node(c, in, 1, 1, 0);
    static const int64_t bad[] = {0, -1, -2, 1ll << 31, (1ll << 32) + 1, 3037000500ll, 4294967296ll, INT64_MAX};
    a_int(c, "blocksize", rp(c, 0.08) ? PICK(c, bad) : b);
    if (d2s && c->opset >= 11 && rp(c, 0.6)) a_string(c, "mode", rp(c, 0.05) ? "XYZ" : rp(c, 0.5) ? "CRD" : "DCR");
}

static void gen_pad(dcase *c)
{
    int64_t dims[DC_MAX_RANK], pads[2 * DC_MAX_RANK];
    int rank = random_shape(c, 1, 4, dims);
    input(c, "x", rank, dims);
    static const char *modes[] = {"constant", "reflect", "edge", "wrap"};
    const char *mode = rp(c, 0.03) ? "bogus" : PICK(c, modes);
    for (int i = 0; i < 2 * rank; i++) {
        pads[i] = rint_(c, -1, 3);
        if (rp(c, 0.04)) pads[i] = hostile_int(c);
    }
    /* A pad of 2^31 or more on one side is taken back on the other (a pad past 32 bits that leaves a small output):
     * an output of 2^31 elements costs the CPU EP tens of seconds of page faults, a hang that says nothing about
     * ortvk, which refuses such pads. No random draw, so that other cases stay as they were. */
    for (int i = 0; i < rank; i++) {
        int64_t *b = &pads[i], *e = &pads[rank + i];
        if (*b >= (INT64_C(1) << 31)) *e = -*b;
        else if (*e >= (INT64_C(1) << 31)) *b = -*e;
    }
    float value = attr_float_value(c, -2.0f, 2.0f);
    if (c->opset < 11) {
        static const char *in[] = {"x"};
        node(c, in, 1, 1, 0);
        a_ints(c, "pads", pads, 2 * rank);
        if (rp(c, 0.3)) a_float(c, "value", value);
    } else {
        const_ints(c, "pads", 2 * rank, pads);
        bool v = rp(c, 0.4);
        if (v) const_floats(c, "value", -1, &value, false);
        static const char *in[] = {"x", "pads", "value"};
        node(c, in, v ? 3 : 2, 1, 0);
    }
    if (rp(c, 0.8)) a_string(c, "mode", mode);
}

static void gen_cast(dcase *c)
{
    static const int32_t types[] = {ONNX_FLOAT, ONNX_FLOAT16, ONNX_INT32, ONNX_INT64, ONNX_BOOL, ONNX_DOUBLE,
                                    ONNX_INT8, ONNX_UINT8};
    int32_t from = rp(c, 0.5) ? ONNX_FLOAT : PICK(c, types), to = PICK(c, types);
    int64_t dims[DC_MAX_RANK];
    int rank = random_shape(c, 0, 4, dims);
    /* Float to integer of NaN, infinity or a value out of range is undefined in ONNX: values stay in range. */
    bool to_int = to != ONNX_FLOAT && to != ONNX_FLOAT16 && to != ONNX_DOUBLE && to != ONNX_BOOL;
    int kind = to_int ? (rp(c, 0.5) ? DC_VALUES_INTS : DC_VALUES_NORMAL) : c->values;
    if (to == ONNX_UINT8 && kind != DC_VALUES_NORMAL) kind = DC_VALUES_POSITIVE;
    if (to == ONNX_UINT8) kind = DC_VALUES_POSITIVE;
    input_of(c, "x", from, rank, dims, kind);
    static const char *in[] = {"x"};
    node(c, in, 1, 1, to);
    a_int(c, "to", to);
    if (c->opset >= 19 && rp(c, 0.2)) a_int(c, "saturate", rp(c, 0.3) ? hostile_int(c) : rint_(c, 0, 1));
}

/* ---- math -------------------------------------------------------------------------------------------------- */

static void gen_matmul(dcase *c)
{
    int64_t a[DC_MAX_RANK], b[DC_MAX_RANK];
    int ra = (int)rint_(c, 1, 4), rb = (int)rint_(c, 1, 4);
    int64_t m = small_dim(c), k = small_dim(c), n = small_dim(c);
    if (c->big) {
        ra = rb = 2;
        m = rint_(c, 1, 2), n = rint_(c, 1, 2);
        k = big_dim(c);
    }
    int64_t batch[2] = {rint_(c, 1, 3), rint_(c, 1, 3)}; /* right-aligned batch dims */
    for (int i = 0; i < ra - 2; i++) a[i] = rp(c, 0.2) ? 1 : batch[2 - (ra - 2) + i];
    for (int i = 0; i < rb - 2; i++) b[i] = rp(c, 0.2) ? 1 : batch[2 - (rb - 2) + i];
    if (ra == 1) a[0] = k;
    else a[ra - 2] = m, a[ra - 1] = k;
    /* Constant weights of rank 2, sometimes wider than 1024 columns (ortvk pads rows of more than 1024 to whole
     * vec4s at Compile: kernel_math.c's ortvk_kgemm_pack). */
    bool constant_b = rb == 2 && !c->big && rp(c, 0.3);
    if (constant_b && rp(c, 0.5)) n = rint_(c, 1025, 1100);
    if (rb == 1) b[0] = k + (rp(c, 0.03) ? 1 : 0);
    else b[rb - 2] = k + (rp(c, 0.03) ? 1 : 0), b[rb - 1] = n;
    input_of(c, "a", 0, ra, a, c->big ? DC_VALUES_POSITIVE : c->values);
    if (constant_b) const_float_tensor(c, "b", rb, b, c->values);
    else input_of(c, "b", 0, rb, b, c->big ? DC_VALUES_POSITIVE : c->values);
    static const char *in[] = {"a", "b"};
    node(c, in, 2, 1, 0);
    c->atol = 1e-5 * (1 + (double)k / 16);
}

static void gen_gemm(dcase *c)
{
    int64_t m = small_dim(c), k = small_dim(c), n = small_dim(c);
    if (c->big) m = 1, n = 2, k = big_dim(c);
    int64_t ta = rint_(c, 0, 1), tb = rint_(c, 0, 1);
    int64_t a[2] = {ta ? k : m, ta ? m : k}, b[2] = {tb ? n : k, tb ? k : n};
    if (rp(c, 0.03)) b[tb ? 1 : 0] += 1;
    input_of(c, "a", 0, 2, a, c->big ? DC_VALUES_POSITIVE : c->values);
    input_of(c, "b", 0, 2, b, c->big ? DC_VALUES_POSITIVE : c->values);
    bool with_c = c->opset < 11 || rp(c, 0.6);
    if (with_c) {
        int64_t cd[2] = {m, n}, out[DC_MAX_RANK];
        int r = broadcast_shape(c, 2, cd, out);
        input(c, "c", r, out);
    }
    static const char *in[] = {"a", "b", "c"};
    node(c, in, with_c ? 3 : 2, 1, 0);
    if (rp(c, 0.4)) a_float(c, "alpha", attr_float_value(c, -2.0f, 2.0f));
    if (rp(c, 0.4)) a_float(c, "beta", attr_float_value(c, -2.0f, 2.0f));
    if (ta || rp(c, 0.2)) a_int(c, "transA", rp(c, 0.05) ? hostile_int(c) : ta);
    if (tb || rp(c, 0.2)) a_int(c, "transB", rp(c, 0.05) ? hostile_int(c) : tb);
    c->atol = 1e-5 * (1 + (double)k / 16);
}

static void gen_softmax(dcase *c)
{
    int64_t dims[DC_MAX_RANK];
    int rank = random_shape(c, 1, 5, dims);
    if (c->big) {
        rank = 2;
        dims[0] = rint_(c, 1, 2);
        dims[1] = big_dim(c);
    }
    input(c, "x", rank, dims);
    static const char *in[] = {"x"};
    node(c, in, 1, 1, 0);
    if (c->big) a_int(c, "axis", -1);
    else if (rp(c, 0.7)) a_int(c, "axis", axis_of(c, rank));
}

static void gen_reduce(dcase *c)
{
    const char *name = c->op->name;
    int64_t dims[DC_MAX_RANK], axes[DC_MAX_RANK];
    int rank = random_shape(c, 0, 5, dims);
    int n = 0;
    if (c->big) {
        rank = 2;
        dims[0] = rint_(c, 1, 2);
        dims[1] = big_dim(c);
        axes[n++] = 1;
    } else {
        for (int i = 0; i < rank; i++)
            if (rp(c, 0.4)) axes[n++] = rp(c, 0.3) ? i - rank : i;
        if (rp(c, 0.05)) {
            int64_t extra = rp(c, 0.5) && n > 0 ? axes[0] : hostile_int(c);
            axes[n++] = extra;
        }
    }
    int kind = c->values;
    if (c->big || (!strcmp(name, "ReduceLogSum") && rp(c, 0.7)) || (!strcmp(name, "ReduceProd") && rp(c, 0.3)))
        kind = DC_VALUES_POSITIVE;
    input_of(c, "x", 0, rank, dims, kind);
    bool axes_input = c->opset >= (strcmp(name, "ReduceSum") ? 18 : 13);
    bool omit = !c->big && rp(c, 0.2);
    static const char *in[] = {"x", "axes"};
    if (axes_input) {
        if (!omit) const_ints(c, "axes", n, axes);
        node(c, in, omit ? 1 : 2, 1, 0);
        if (rp(c, 0.3)) a_int(c, "noop_with_empty_axes", rp(c, 0.4) ? hostile_int(c) : rint_(c, 0, 1));
    } else {
        node(c, in, 1, 1, 0);
        if (!omit) a_ints(c, "axes", axes, n);
    }
    if (rp(c, 0.6)) a_int(c, "keepdims", rp(c, 0.3) ? hostile_int(c) : rint_(c, 0, 1));
    c->atol = 1e-5 * (c->big ? 1000 : 4);
}

static void gen_norm(dcase *c)
{
    bool layer = !strcmp(c->op->name, "LayerNormalization");
    int64_t dims[DC_MAX_RANK];
    int rank = random_shape(c, layer ? 1 : 3, 5, dims);
    if (c->big) {
        rank = 3;
        dims[0] = 1, dims[1] = 1, dims[2] = big_dim(c);
    }
    input(c, "x", rank, dims);
    int64_t axis = layer ? (c->big ? -1 : axis_of(c, rank)) : 1;
    int a = (int)(axis < 0 ? axis + rank : axis);
    int64_t pd[DC_MAX_RANK];
    int pr = 1;
    if (layer) {
        pr = a >= 0 && a <= rank ? rank - a : 1;
        for (int i = 0; i < pr; i++) pd[i] = a >= 0 && a + i < rank ? dims[a + i] : 1;
    } else {
        pd[0] = rank > 1 ? dims[1] : 1;
    }
    if (rp(c, 0.03)) pd[0] += 1;
    const_float_tensor(c, "scale", pr, pd, DC_VALUES_NORMAL);
    bool bias = !layer || rp(c, 0.7);
    if (bias) const_float_tensor(c, "bias", pr, pd, DC_VALUES_NORMAL);
    static const char *in[] = {"x", "scale", "bias"};
    node(c, in, bias ? 3 : 2, 1, 0);
    if (rp(c, 0.4)) a_float(c, "epsilon", rp(c, 0.2) ? special_float(c) : (float)(1e-5 + runi(c) * 1e-2));
    if (layer && (axis != -1 || rp(c, 0.3))) a_int(c, "axis", axis);
    if (layer && rp(c, 0.1)) a_int(c, "stash_type", rp(c, 0.5) ? hostile_int(c) : 1);
    c->atol = 1e-5 * (c->big ? 100 : 4);
}

/* ArgMax and ArgMin: ties (small integer values), NaN and infinities (special values), every axis (negative and out
 * of range), keepdims and select_last_index with values other than 0 and 1, empty dims, and now and then an axis
 * past lavapipe's loop cap. */
static void gen_arg(dcase *c)
{
    int64_t dims[DC_MAX_RANK];
    int rank = random_shape(c, 1, 5, dims);
    if (c->big) {
        rank = rint_(c, 1, 2);
        dims[0] = rank == 1 ? big_dim(c) : rint_(c, 1, 3);
        if (rank == 2) dims[1] = big_dim(c);
    }
    int64_t axis = c->big ? rank - 1 : axis_of(c, rank);
    if (c->big && rp(c, 0.5)) axis = -1;
    int kind = rp(c, 0.35) ? DC_VALUES_INTS : c->values;
    input_of(c, "x", 0, rank, dims, kind);
    static const char *in[] = {"x"};
    node(c, in, 1, 1, ONNX_INT64);
    if (axis != 0 || rp(c, 0.3)) a_int(c, "axis", axis);
    if (rp(c, 0.6)) a_int(c, "keepdims", rp(c, 0.15) ? hostile_int(c) : rint_(c, 0, 1));
    if (c->opset >= 12 && rp(c, 0.6)) a_int(c, "select_last_index", rp(c, 0.15) ? hostile_int(c) : rint_(c, 0, 1));
}

/* LSTM, GRU and RNN: every direction (and a misspelt one), biases, peepholes, initial states, sequence lengths
 * (constant or at run time, 0 included, now and then out of range), subsets of the outputs, weights as constants or
 * graph inputs, now and then a hidden_size that does not match W, and the attributes ortvk leaves to the CPU EP
 * (clip, input_forget, layout 1, other activations). */
static void gen_rnn(dcase *c)
{
    bool lstm = !strcmp(c->op->name, "LSTM"), gru = !strcmp(c->op->name, "GRU");
    int64_t gates = lstm ? 4 : gru ? 3 : 1;
    int64_t S = rp(c, 0.03) ? 0 : rint_(c, 1, 6), B = rp(c, 0.03) ? 0 : rint_(c, 1, 4);
    int64_t I = rp(c, 0.02) ? 0 : rint_(c, 1, 9), H = rp(c, 0.2) ? rint_(c, 10, 40) : rint_(c, 1, 9);
    static const char *const directions[] = {"forward", "reverse", "bidirectional"};
    const char *direction = rp(c, 0.2) ? NULL : rp(c, 0.03) ? "Forward" : PICK(c, directions);
    int64_t D = direction && !strcmp(direction, "bidirectional") ? 2 : 1, G = gates * H;
    int64_t x[3] = {S, B, I}, w[3] = {D, G, I}, r[3] = {D, G, H}, b[2] = {D, 2 * G}, h0[3] = {D, B, H};
    int64_t p[2] = {D, 3 * H}, lens[1] = {B};
    input(c, "x", 3, x);
    bool weights_in = rp(c, 0.15);
    if (weights_in) input(c, "w", 3, w), input(c, "r", 3, r);
    else const_float_tensor(c, "w", 3, w, c->values), const_float_tensor(c, "r", 3, r, c->values);
    bool bias = rp(c, 0.6), seq = rp(c, 0.4), h_in = rp(c, 0.4), c_in = lstm && rp(c, 0.3), peep = lstm && rp(c, 0.3);
    if (bias) {
        if (rp(c, 0.15)) input(c, "b", 2, b);
        else const_float_tensor(c, "b", 2, b, c->values);
    }
    if (seq) {
        int32_t v[4] = {0};
        for (int64_t i = 0; i < B && i < 4; i++) {
            int64_t lo = S == 0 || rp(c, 0.2) ? 0 : 1;
            v[i] = (int32_t)(rp(c, 0.04) ? (rp(c, 0.5) ? S + 1 : -1) : rint_(c, lo, S));
        }
        if (rp(c, 0.3) && c->n_in < DC_MAX_IN) {
            input_of(c, "lens", ONNX_INT32, 1, lens, DC_VALUES_INTS);
            memcpy(c->in[c->n_in - 1].data, v, (size_t)B * sizeof(int32_t));
        } else {
            onnx_model_add_initializer(c->model, "lens", ONNX_INT32, 1, lens, v, (size_t)B * sizeof(int32_t));
            desc(c, " lens=[%d,%d,%d,%d]", v[0], v[1], v[2], v[3]);
        }
    }
    if (h_in) input(c, "h0", 3, h0);
    if (c_in) input(c, "c0", 3, h0);
    if (peep) const_float_tensor(c, "p", 2, p, c->values);
    const char *in[8] = {"x", "w", "r", bias ? "b" : "", seq ? "lens" : "", h_in ? "h0" : "", c_in ? "c0" : "",
                         peep ? "p" : ""};
    int n_in = lstm ? 8 : 6;
    while (n_in > 3 && in[n_in - 1][0] == '\0') n_in--;
    /* Outputs: a non-empty subset of Y, Y_h (and Y_c). */
    int n_outs = lstm ? 3 : 2, mask = (int)rint_(c, 1, (1 << n_outs) - 1);
    static const char *const names[3] = {"y", "y1", "y2"};
    const char *outs[3];
    int n_node_out = 0;
    c->n_out = 0;
    for (int i = 0; i < n_outs; i++) {
        outs[i] = mask & (1 << i) ? names[i] : "";
        if (!(mask & (1 << i))) continue;
        n_node_out = i + 1;
        snprintf(c->out[c->n_out], sizeof(c->out[c->n_out]), "%s", names[i]);
        c->out_type[c->n_out++] = c->ft;
        onnx_model_add_output(c->model, names[i], c->ft, -1, NULL);
    }
    c->node = onnx_model_add_node(c->model, c->op->name, in, n_in, outs, n_node_out);
    desc(c, " outputs=%d", mask);
    a_int(c, "hidden_size", rp(c, 0.04) ? H + 1 : H);
    if (direction) a_string(c, "direction", direction);
    if (gru) a_int(c, "linear_before_reset", rp(c, 0.05) ? hostile_int(c) : rint_(c, 0, 1));
    if (rp(c, 0.04)) a_float(c, "clip", attr_float_value(c, 0.1f, 3.0f));
    if (lstm && rp(c, 0.04)) a_int(c, "input_forget", 1);
    if (c->opset >= 14 && rp(c, 0.03)) a_int(c, "layout", 1);
    if (rp(c, 0.15)) {
        static const char *const lstm_acts[] = {"Sigmoid", "Tanh", "Tanh", "Sigmoid", "Tanh", "Tanh"};
        static const char *const rnn_acts[] = {"Tanh", "Relu", "Sigmoid", "HardSigmoid"};
        const char *acts[6];
        int per = lstm ? 3 : gru ? 2 : 1, n = per * (int)D;
        for (int i = 0; i < n; i++) acts[i] = per == 1 ? PICK(c, rnn_acts) : lstm_acts[i % per];
        if (per > 1 && rp(c, 0.2)) acts[0] = "Relu";
        if (per == 1 && D == 1 && rp(c, 0.3)) acts[n++] = "Tanh"; /* the schema's default has two names */
        onnx_node_attr_strings(c->node, "activations", acts, n);
        dc_attr *a = record(c, "activations", 's');
        snprintf(a->s, sizeof(a->s), "%s,%s", acts[0], n > 1 ? acts[1] : "");
        desc(c, " activations=%s...(%d)", acts[0], n);
    }
    /* Each step's rounding (MLAS's fused multiply-adds against separate ones) enters the state the next steps
     * multiply by R: the tolerance grows with the steps (seed 131 case 218012, 6 steps of H = 38: 1.9e-4). */
    c->atol = 1e-5 * (1 + (double)(I + H) / 8) * (double)(S > 1 ? S : 1);
}

/* ---- quantized ops ----------------------------------------------------------------------------------------- */

/* Scales (and their zero points of type `zt`, 0: none) of Quantize/DequantizeLinear: n values (-1: a scalar), a
 * constant or a graph input; ties come from scales of 1 and 0.5 with the x values at .5. */
static void quant_params(dcase *c, int n, int32_t zt)
{
    int count = n < 0 ? 1 : n;
    float s[64];
    uint8_t z[64];
    static const float scales[] = {1.0f, 0.5f, 0.25f, 0.0173f, 3.0f, 1e-3f};
    for (int i = 0; i < count && i < 64; i++) {
        s[i] = rp(c, 0.05) ? special_float(c) : rp(c, 0.6) ? PICK(c, scales) : (float)(0.001 + 0.05 * runi(c));
        z[i] = zt == ONNX_INT8 ? (uint8_t)(int8_t)rint_(c, -128, 127) : (uint8_t)rint_(c, 0, 255);
    }
    int64_t dims[1] = {count};
    if (count > 64) {
        c->failed = true;
        return;
    }
    if (rp(c, 0.7)) {
        const_floats(c, "s", n, s, true);
        if (zt) onnx_model_add_initializer(c->model, "z", zt, n < 0 ? 0 : 1, dims, z, (size_t)count);
        if (zt) desc(c, " z:const %s", type_name(zt));
        return;
    }
    dc_tensor *t = &c->in[c->n_in];
    input_of(c, "s", ONNX_FLOAT, n < 0 ? 0 : 1, dims, DC_VALUES_POSITIVE);
    if (t->data) memcpy(t->data, s, (size_t)count * sizeof(float));
    if (!zt) return;
    t = &c->in[c->n_in];
    input_of(c, "z", zt, n < 0 ? 0 : 1, dims, DC_VALUES_NORMAL);
    if (t->data) memcpy(t->data, z, (size_t)count);
}

static void gen_quantize(dcase *c)
{
    bool dq = !strcmp(c->op->name, "DequantizeLinear");
    int64_t dims[DC_MAX_RANK];
    int rank = random_shape(c, 0, 4, dims);
    static const int32_t qtypes[] = {ONNX_UINT8, ONNX_INT8};
    int32_t qt = PICK(c, qtypes);
    if (dq && rp(c, 0.1)) qt = ONNX_INT32;
    if (dq) input_of(c, "x", qt, rank, dims, c->values);
    else input_of(c, "x", ONNX_FLOAT, rank, dims, c->values);
    bool axis_scales = c->opset >= 13 && rank > 0 && rp(c, 0.4);
    int64_t axis = axis_scales ? axis_of(c, rank) : 1;
    int64_t a = axis < 0 ? axis + rank : axis;
    int n = axis_scales && a >= 0 && a < rank ? (int)dims[a] : rp(c, 0.3) ? 1 : -1;
    if (n > 64) n = 64;
    int32_t zt = qt == ONNX_INT32 ? (rp(c, 0.05) ? ONNX_INT32 : 0) : rp(c, 0.75) ? qt : 0;
    quant_params(c, n, zt == ONNX_INT32 ? 0 : zt);
    static const char *in[] = {"x", "s", "z"};
    node(c, in, zt && zt != ONNX_INT32 ? 3 : 2, 1, dq ? ONNX_FLOAT : qt);
    if (axis_scales || (c->opset >= 13 && rp(c, 0.1))) a_int(c, "axis", axis);
    if (!dq && c->opset >= 19 && rp(c, 0.1)) a_int(c, "saturate", rint_(c, 0, 1));
    if (c->opset >= 21 && rp(c, 0.05)) a_int(c, "block_size", rint_(c, 0, 2));
    if (!dq && c->opset >= 21 && rp(c, 0.1)) a_int(c, "output_dtype", rp(c, 0.8) ? qt : ONNX_UINT16);
}

static void gen_dynamic_quantize(dcase *c)
{
    int64_t dims[DC_MAX_RANK];
    int rank = random_shape(c, 0, 4, dims);
    if (c->big) rank = 1, dims[0] = big_dim(c) * (rp(c, 0.5) ? 1 : 7);
    input_of(c, "x", ONNX_FLOAT, rank, dims, c->values);
    static const char *in[] = {"x"};
    static const int32_t types[3] = {ONNX_UINT8, ONNX_FLOAT, ONNX_UINT8};
    c->n_out = 3;
    for (int i = 0; i < 3; i++) {
        snprintf(c->out[i], sizeof(c->out[i]), "%s", out_names[i]);
        c->out_type[i] = types[i];
        onnx_model_add_output(c->model, out_names[i], types[i], -1, NULL);
    }
    c->node = onnx_model_add_node(c->model, c->op->name, in, 1, out_names, 3);
}

/* An 8-bit zero point "name" of type t: a scalar, [1], or (`n` > 1) one per column or channel. */
static void int_zero_point(dcase *c, const char *name, int32_t t, int n)
{
    int64_t dims[1] = {n};
    int rank = n > 1 || rp(c, 0.3) ? 1 : 0;
    if (rp(c, 0.5)) {
        uint8_t z[64];
        for (int i = 0; i < n && i < 64; i++) z[i] = (uint8_t)rint_(c, 0, 255);
        onnx_model_add_initializer(c->model, name, t, rank, dims, z, (size_t)n);
        desc(c, " %s:const %s", name, type_name(t));
        desc_dims(c, rank, dims);
    } else {
        input_of(c, name, t, rank, dims, c->values);
    }
}

/* A constant input of `type` and dims, filled as the case's inputs are. */
static void const_tensor(dcase *c, const char *name, int32_t type, int rank, const int64_t *dims)
{
    dc_tensor t = {.type = type, .rank = rank};
    memcpy(t.dims, dims, (size_t)rank * sizeof(int64_t));
    fill(c, &t, c->values);
    if (t.data) onnx_model_add_initializer(c->model, name, type, rank, dims, t.data, t.bytes);
    free(t.data);
    desc(c, " %s:const %s", name, type_name(type));
    desc_dims(c, rank, dims);
}

/* A quantized op's weights (B, w): a constant half the time (repacked at Compile for the block forms: kernel_qmm.c),
 * else a graph input (repacked in each run). */
static void weights_of(dcase *c, const char *name, int32_t type, int rank, const int64_t *dims)
{
    if (rp(c, 0.5)) const_tensor(c, name, type, rank, dims);
    else input_of(c, name, type, rank, dims, c->values);
}

/* A quantized product's K: mostly small, sometimes a multiple of 16 (8 x 8 outputs an invocation over 16 k's). */
static int64_t product_terms(dcase *c)
{
    return rp(c, 0.8) ? small_dim(c) : 16 * rint_(c, 1, 3);
}

static void gen_matmul_integer(dcase *c)
{
    int64_t a[DC_MAX_RANK], b[DC_MAX_RANK];
    int ra = (int)rint_(c, 1, 4), rb = rp(c, 0.6) ? 2 : (int)rint_(c, 1, 4);
    int64_t m = small_dim(c), k = product_terms(c), n = small_dim(c);
    if (c->big) ra = rb = 2, m = rint_(c, 1, 2), n = rint_(c, 1, 2), k = big_dim(c);
    int64_t batch[2] = {rint_(c, 1, 3), rint_(c, 1, 3)};
    for (int i = 0; i < ra - 2; i++) a[i] = rp(c, 0.1) ? 1 : batch[2 - (ra - 2) + i];
    for (int i = 0; i < rb - 2; i++) b[i] = rp(c, 0.1) ? 1 : batch[2 - (rb - 2) + i];
    if (ra == 1) a[0] = k;
    else a[ra - 2] = m, a[ra - 1] = k;
    if (rb == 1) b[0] = k;
    else b[rb - 2] = k + (rp(c, 0.03) ? 1 : 0), b[rb - 1] = n;
    static const int32_t types[] = {ONNX_UINT8, ONNX_INT8};
    int32_t at = PICK(c, types), bt = at == ONNX_INT8 ? ONNX_INT8 : PICK(c, types);
    input_of(c, "a", at, ra, a, c->values);
    weights_of(c, "b", bt, rb, b);
    int nz = rp(c, 0.4) ? 0 : rp(c, 0.5) ? 1 : 2;
    if (nz >= 1) int_zero_point(c, "za", at, 1);
    if (nz >= 2) int_zero_point(c, "zb", bt, rp(c, 0.3) && rb >= 2 ? (int)b[rb - 1] : 1);
    static const char *in[] = {"a", "b", "za", "zb"};
    node(c, in, 2 + nz, 1, ONNX_INT32);
}

/* A quantized convolution's output channels a group: 4 and more too (blocks of 8 channels by 8 columns an
 * invocation, the last block of a group partial). */
static int64_t group_outputs(dcase *c)
{
    static const int64_t counts[] = {1, 2, 3, 4, 8, 12};
    return PICK(c, counts);
}

/* A quantized convolution's input channels a group: mostly few, sometimes past one step of 16. */
static int64_t group_inputs(dcase *c)
{
    return rp(c, 0.85) ? rint_(c, 1, 3) : rint_(c, 15, 20);
}

/* A quantized convolution's shapes: `sp` spatial dims, groups, input and output channels (set by the caller), then
 * x's batch and spatial dims and the kernel drawn here; a big case has one 1-D input of more channels than lavapipe's
 * loop cap instead. */
typedef struct conv_shapes {
    int sp;
    int64_t group, cin, cout;
    int64_t x[DC_MAX_RANK], w[DC_MAX_RANK], kernel[3];
} conv_shapes;

static void conv_shapes_draw(dcase *c, conv_shapes *q)
{
    q->x[0] = rint_(c, 1, 2);
    q->x[1] = q->cin;
    for (int i = 0; i < q->sp; i++) q->kernel[i] = rint_(c, 1, 3), q->x[2 + i] = rint_(c, 1, 8);
    if (c->big) {
        q->sp = 1, q->group = 1, q->cout = 1, q->cin = big_dim(c);
        q->x[0] = 1, q->x[1] = q->cin, q->x[2] = 1, q->kernel[0] = 1;
    }
    q->w[0] = q->cout;
    q->w[1] = q->cin / q->group;
    for (int i = 0; i < q->sp; i++) q->w[2 + i] = q->kernel[i];
}

static void gen_conv_integer(dcase *c)
{
    conv_shapes q = {.sp = rp(c, 0.7) ? 2 : (int)rint_(c, 1, 3)};
    q.group = rp(c, 0.7) ? 1 : rint_(c, 1, 3);
    q.cin = q.group * group_inputs(c), q.cout = q.group * group_outputs(c);
    conv_shapes_draw(c, &q);
    int32_t xt = rp(c, 0.1) ? ONNX_INT8 : ONNX_UINT8;
    input_of(c, "x", xt, 2 + q.sp, q.x, c->values);
    weights_of(c, "w", ONNX_UINT8, 2 + q.sp, q.w);
    int nz = rp(c, 0.3) ? 0 : rp(c, 0.3) ? 1 : 2;
    if (nz >= 1) int_zero_point(c, "zx", xt, 1);
    if (nz >= 2) int_zero_point(c, "zw", ONNX_UINT8, rp(c, 0.1) ? (int)q.cout : 1);
    static const char *in[] = {"x", "w", "zx", "zw"};
    node(c, in, 2 + nz, 1, ONNX_INT32);
    if (q.group != 1 || rp(c, 0.3)) a_int(c, "group", rp(c, 0.05) ? hostile_int(c) : q.group);
    spatial_attrs(c, q.sp, q.kernel, true, rp(c, 0.4));
}

/* QLinearConv: x a graph input, of the CPU EP's type pairs; w, its scales and zero points (one, or one an output
 * channel: all equal, rarely not) and the int32 bias mostly constants (as models have them; ortvk takes per-channel
 * w zero points only as constants), sometimes graph inputs; depthwise, groups and the spatial attributes. */
static void gen_qlinear_conv(dcase *c)
{
    conv_shapes q = {.sp = rp(c, 0.7) ? 2 : 1};
    q.group = rp(c, 0.6) ? 1 : rint_(c, 1, 3);
    q.cin = q.group * group_inputs(c), q.cout = q.group * group_outputs(c);
    if (rp(c, 0.15)) q.group = q.cin = q.cout = rp(c, 0.7) ? rint_(c, 1, 5) : rint_(c, 15, 20); /* depthwise */
    conv_shapes_draw(c, &q);
    int64_t one[1] = {1}, cout = q.cout;
    static const int32_t types[] = {ONNX_UINT8, ONNX_INT8};
    int32_t xt = PICK(c, types), wt = xt == ONNX_INT8 ? ONNX_INT8 : PICK(c, types);
    static const float scales[] = {1.0f, 0.5f, 0.02f, 0.013f, 0.7f, 3.0f, 1e-3f, 2e-4f};
    float s[8];
    input_of(c, "x", xt, 2 + q.sp, q.x, c->values);
    s[0] = rp(c, 0.05) ? special_float(c) : PICK(c, scales);
    const_floats(c, "xs", rp(c, 0.5) ? -1 : 1, s, true);
    int_zero_point(c, "xz", xt, 1);
    if (rp(c, 0.9)) const_tensor(c, "w", wt, 2 + q.sp, q.w);
    else input_of(c, "w", wt, 2 + q.sp, q.w, c->values);
    int per = cout <= 8 && rp(c, 0.5) ? (int)cout : 1; /* one a channel where s[] and z[] hold them */
    for (int i = 0; i < per; i++) s[i] = rp(c, 0.05) ? special_float(c) : PICK(c, scales);
    const_floats(c, "ws", per > 1 || rp(c, 0.5) ? per : -1, s, true);
    uint8_t z[8];
    int64_t zd[1] = {per};
    z[0] = rp(c, 0.5) ? 0 : (uint8_t)rint_(c, 0, 255);
    for (int i = 1; i < per; i++) z[i] = rp(c, 0.1) ? (uint8_t)rint_(c, 0, 255) : z[0];
    if (rp(c, 0.9)) {
        onnx_model_add_initializer(c->model, "wz", wt, per > 1 || rp(c, 0.5) ? 1 : 0, zd, z, (size_t)per);
        desc(c, " wz:const %s[%d] first %d", type_name(wt), per, (int)z[0]);
    } else {
        input_of(c, "wz", wt, 1, one, c->values);
    }
    s[0] = rp(c, 0.05) ? special_float(c) : PICK(c, scales);
    const_floats(c, "ys", rp(c, 0.5) ? -1 : 1, s, true);
    int_zero_point(c, "yz", xt, 1);
    double b = runi(c);
    int64_t bd[1] = {cout};
    if (b < 0.6) const_tensor(c, "B", ONNX_INT32, 1, bd);
    else if (b < 0.75) input_of(c, "B", ONNX_INT32, 1, bd, c->values);
    static const char *in[] = {"x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "B"};
    node(c, in, b < 0.75 ? 9 : 8, 1, xt);
    if (q.group != 1 || rp(c, 0.3)) a_int(c, "group", rp(c, 0.05) ? hostile_int(c) : q.group);
    spatial_attrs(c, q.sp, q.kernel, true, rp(c, 0.4));
}

/* QLinearMatMul: A and y of one type, B of the CPU EP's pairs, scales and zero points of one value (rarely not). */
static void gen_qlinear_matmul(dcase *c)
{
    int64_t a[DC_MAX_RANK], b[DC_MAX_RANK];
    int ra = (int)rint_(c, 2, 4), rb = rp(c, 0.6) ? 2 : ra;
    int64_t m = small_dim(c), k = product_terms(c), n = small_dim(c), batch[2] = {rint_(c, 1, 3), rint_(c, 1, 3)};
    if (c->big) ra = rb = 2, m = 1, n = 2, k = big_dim(c);
    for (int i = 0; i < ra - 2; i++) a[i] = b[i] = batch[2 - (ra - 2) + i];
    a[ra - 2] = m, a[ra - 1] = k, b[rb - 2] = k, b[rb - 1] = n;
    static const int32_t types[] = {ONNX_UINT8, ONNX_INT8};
    int32_t at = PICK(c, types), bt = at == ONNX_INT8 ? ONNX_INT8 : PICK(c, types);
    static const float scales[] = {1.0f, 0.5f, 0.02f, 0.013f, 0.7f, 3.0f};
    int64_t one[1] = {1};
    int qrank = rp(c, 0.5) ? 0 : 1;
    input_of(c, "a", at, ra, a, c->values);
    float s = rp(c, 0.05) ? special_float(c) : PICK(c, scales);
    const_floats(c, "as", qrank ? 1 : -1, &s, true);
    input_of(c, "az", at, qrank, one, c->values);
    weights_of(c, "b", bt, rb, b);
    s = rp(c, 0.05) ? special_float(c) : PICK(c, scales);
    const_floats(c, "bs", qrank ? 1 : -1, &s, true);
    input_of(c, "bz", bt, qrank, one, c->values);
    s = rp(c, 0.05) ? special_float(c) : PICK(c, scales);
    const_floats(c, "ys", qrank ? 1 : -1, &s, true);
    input_of(c, "yz", at, qrank, one, c->values);
    static const char *in[] = {"a", "as", "az", "b", "bs", "bz", "ys", "yz"};
    node(c, in, 8, 1, at);
}

/* ---- QDQ groups (not an op) ----------------------------------------------------------------------------- */

/* A QDQ group around an op that only selects or moves values (MaxPool, Transpose, Reshape, Relu), which ortvk runs
 * as the float ops it is where its scales are positive normal floats (kernels.h, ortvk_qdq_group_exact): scales and
 * zero points mostly equal on both sides (the CPU EP then drops the DequantizeLinear and QuantizeLinear), sometimes
 * not, sometimes special (negative, zero, subnormal, infinite: left to the CPU EP). */
static void gen_qdq_selection(dcase *c)
{
    static const int32_t types[] = {ONNX_UINT8, ONNX_INT8};
    static const char *const ops[] = {"MaxPool", "Transpose", "Reshape", "Relu"};
    static const float scales[] = {0.5f, 0.02f, 0.013f, 0.0625f, 0.7f, 1e-3f, 0.1f, -0.1f};
    int32_t t = PICK(c, types);
    const char *op = PICK(c, ops);
    int64_t x[4];
    random_dims(c, 4, x);
    float xs = rp(c, 0.05) ? special_float(c) : PICK(c, scales), ys = rp(c, 0.6) ? xs : PICK(c, scales);
    uint8_t xz = (uint8_t)rint_(c, 0, 255), yz = rp(c, 0.6) ? xz : (uint8_t)rint_(c, 0, 255);
    bool relu = strcmp(op, "Relu") != 0 && rp(c, 0.2);
    input_of(c, "xq", t, 4, x, c->values);
    onnx_model_add_initializer(c->model, "xs", ONNX_FLOAT, 0, NULL, &xs, sizeof(float));
    onnx_model_add_initializer(c->model, "xz", t, 0, NULL, &xz, 1);
    onnx_model_add_initializer(c->model, "ys", ONNX_FLOAT, 0, NULL, &ys, sizeof(float));
    onnx_model_add_initializer(c->model, "yz", t, 0, NULL, &yz, 1);
    desc(c, " %s xs=%g xz=%d ys=%g yz=%d%s", op, xs, xz, ys, yz, relu ? " Relu" : "");
    onnx_model_add_node(c->model, "DequantizeLinear", (const char *[]){"xq", "xs", "xz"}, 3, (const char *[]){"xd"},
                        1);
    bool reshape = strcmp(op, "Reshape") == 0;
    if (reshape) {
        int64_t shape[2] = {x[0], -1};
        const_ints(c, "shape", 2, shape);
    }
    c->node = onnx_model_add_node(c->model, op, (const char *[]){"xd", "shape"}, reshape ? 2 : 1,
                                  (const char *[]){"yf"}, 1);
    if (strcmp(op, "MaxPool") == 0) {
        int64_t kernel[2] = {rint_(c, 1, 3), rint_(c, 1, 3)};
        spatial_attrs(c, 2, kernel, true, true);
    } else if (strcmp(op, "Transpose") == 0) {
        int64_t perm[4] = {0, 1, 2, 3};
        for (int i = 3; i > 0; i--) {
            int j = (int)rint_(c, 0, i);
            int64_t keep = perm[i];
            perm[i] = perm[j], perm[j] = keep;
        }
        a_ints(c, "perm", perm, 4);
    }
    if (relu) onnx_model_add_node(c->model, "Relu", (const char *[]){"yf"}, 1, (const char *[]){"yr"}, 1);
    onnx_model_add_node(c->model, "QuantizeLinear", (const char *[]){relu ? "yr" : "yf", "ys", "yz"}, 3,
                        (const char *[]){"y"}, 1);
    c->n_out = 1;
    snprintf(c->out[0], sizeof(c->out[0]), "y");
    c->out_type[0] = t;
    onnx_model_add_output(c->model, "y", t, -1, NULL);
}

/* A QDQ group, the form of ORT's quantizer: quantized x a graph input -> DequantizeLinear -> a Conv (over the
 * DequantizeLinear of constant w, per tensor or one scale an output channel, and mostly of an int32 bias) or a
 * MatMul (of a constant B) -> sometimes a Relu -> QuantizeLinear -> y (and a third of the time the group of an op
 * that selects values, above). ORT's CPU EP fuses such groups into
 * QLinearConv or QLinearMatMul, and ortvk runs them so (kernel_qdq.c) or leaves them to it. Sometimes what it must
 * leave: int8 activations, a Relu before a zero point above the type's least, the op's float output also a graph
 * output, B's scales one a column, w a graph input, zero points that differ, a bias scale other than x's times w's. */
static void gen_qdq(dcase *c)
{
    if (rp(c, 0.3)) {
        gen_qdq_selection(c);
        return;
    }
    bool matmul = rp(c, 0.35);
    int32_t xt = rp(c, 0.8) ? ONNX_UINT8 : ONNX_INT8, wt = xt == ONNX_INT8 || rp(c, 0.4) ? ONNX_INT8 : ONNX_UINT8;
    int64_t x[DC_MAX_RANK], w[DC_MAX_RANK], cout;
    int xr, wr;
    conv_shapes q = {.sp = rp(c, 0.7) ? 2 : 1};
    if (matmul) {
        int64_t k = product_terms(c);
        xr = rp(c, 0.7) ? 2 : 3, wr = 2;
        x[0] = rint_(c, 1, 3), x[xr - 2] = small_dim(c), x[xr - 1] = k;
        cout = rp(c, 0.5) ? small_dim(c) : 16;
        w[0] = k, w[1] = cout;
        desc(c, " MatMul");
    } else {
        q.group = rp(c, 0.8) ? 1 : rint_(c, 1, 3);
        q.cin = q.group * group_inputs(c), q.cout = q.group * group_outputs(c);
        conv_shapes_draw(c, &q);
        xr = wr = 2 + q.sp, cout = q.cout;
        memcpy(x, q.x, sizeof(x));
        memcpy(w, q.w, sizeof(w));
        desc(c, " Conv");
    }
    static const float scales[] = {0.5f, 0.02f, 0.013f, 0.0625f, 0.7f, 1e-3f, 0.1f, 0.0173f};
    float xs = PICK(c, scales), ws[16], bs[16], ys = PICK(c, scales);
    bool per = cout <= 16 && rp(c, 0.4);
    int n = per ? (int)cout : 1;
    uint8_t wz[16], xz = (uint8_t)rint_(c, 0, 255), yz = (uint8_t)rint_(c, 0, 255);
    wz[0] = wt == ONNX_INT8 && rp(c, 0.6) ? 0 : (uint8_t)rint_(c, 0, 255);
    for (int i = 0; i < n; i++) {
        ws[i] = rp(c, 0.03) ? special_float(c) : PICK(c, scales);
        bs[i] = xs * ws[i] * (rp(c, 0.03) ? 1.5f : 1.0f); /* rarely not the product: the CPU EP's float ops */
        wz[i] = rp(c, 0.03) ? (uint8_t)rint_(c, 0, 255) : wz[0];
    }
    bool relu = rp(c, 0.3), op_output = rp(c, 0.08);
    if (relu && rp(c, 0.75)) yz = xt == ONNX_INT8 ? 0x80 : 0;
    int64_t nd[1] = {n}, cd[1] = {cout};
    input_of(c, "xq", xt, xr, x, c->values);
    onnx_model_add_initializer(c->model, "xs", ONNX_FLOAT, 0, NULL, &xs, sizeof(float));
    onnx_model_add_initializer(c->model, "xz", xt, 0, NULL, &xz, 1);
    if (rp(c, 0.9)) const_tensor(c, "w", wt, wr, w);
    else input_of(c, "w", wt, wr, w, c->values);
    onnx_model_add_initializer(c->model, "ws", ONNX_FLOAT, per ? 1 : 0, nd, ws, (size_t)n * sizeof(float));
    onnx_model_add_initializer(c->model, "wz", wt, per ? 1 : 0, nd, wz, (size_t)n);
    onnx_model_add_initializer(c->model, "ys", ONNX_FLOAT, 0, NULL, &ys, sizeof(float));
    onnx_model_add_initializer(c->model, "yz", xt, 0, NULL, &yz, 1);
    desc(c, " xs=%g xz=%d ws=", xs, xz);
    for (int i = 0; i < n; i++) desc(c, "%s%g", i ? "," : per ? "[" : "", ws[i]);
    desc(c, "%s wz=", per ? "]" : "");
    for (int i = 0; i < n; i++) desc(c, "%s%d", i ? "," : per ? "[" : "", wz[i]);
    desc(c, "%s ys=%g yz=%d%s%s", per ? "]" : "", ys, yz, relu ? " Relu" : "", op_output ? " op output" : "");
    onnx_model_add_node(c->model, "DequantizeLinear", (const char *[]){"xq", "xs", "xz"}, 3,
                        (const char *[]){"xd"}, 1);
    onnx_node *dw = onnx_model_add_node(c->model, "DequantizeLinear", (const char *[]){"w", "ws", "wz"}, 3,
                                        (const char *[]){"wd"}, 1);
    if (per) onnx_node_attr_int(dw, "axis", matmul ? 1 : 0);
    bool bias = !matmul && rp(c, 0.7);
    if (bias) {
        const_tensor(c, "bq", ONNX_INT32, 1, cd);
        onnx_model_add_initializer(c->model, "bs", ONNX_FLOAT, per ? 1 : 0, nd, bs, (size_t)n * sizeof(float));
        int32_t bz[16] = {0};
        onnx_model_add_initializer(c->model, "bz", ONNX_INT32, per ? 1 : 0, nd, bz, (size_t)n * sizeof(int32_t));
        onnx_node *db = onnx_model_add_node(c->model, "DequantizeLinear", (const char *[]){"bq", "bs", "bz"},
                                            rp(c, 0.7) ? 3 : 2, (const char *[]){"bd"}, 1);
        if (per) onnx_node_attr_int(db, "axis", 0);
    }
    c->node = onnx_model_add_node(c->model, matmul ? "MatMul" : "Conv", (const char *[]){"xd", "wd", "bd"},
                                  bias ? 3 : 2, (const char *[]){"yf"}, 1);
    if (!matmul && (q.group != 1 || rp(c, 0.3))) a_int(c, "group", q.group);
    if (!matmul) spatial_attrs(c, q.sp, q.kernel, true, rp(c, 0.4));
    if (relu) onnx_model_add_node(c->model, "Relu", (const char *[]){"yf"}, 1, (const char *[]){"yr"}, 1);
    onnx_model_add_node(c->model, "QuantizeLinear", (const char *[]){relu ? "yr" : "yf", "ys", "yz"}, 3,
                        (const char *[]){"y"}, 1);
    c->n_out = op_output ? 2 : 1;
    snprintf(c->out[0], sizeof(c->out[0]), "y");
    c->out_type[0] = xt;
    onnx_model_add_output(c->model, "y", xt, -1, NULL);
    if (op_output) {
        snprintf(c->out[1], sizeof(c->out[1]), "yf");
        c->out_type[1] = ONNX_FLOAT;
        onnx_model_add_output(c->model, "yf", ONNX_FLOAT, -1, NULL);
    }
}

/* ---- the table --------------------------------------------------------------------------------------------- */

#define U(name, lo, hi) {name, lo, hi, gen_unary, true}
#define B(name, lo, hi) {name, lo, hi, gen_binary, true}
#define C(name, lo, hi) {name, lo, hi, gen_compare, true}
#define R(name, hi) {name, 7, hi, gen_reduce, true}
/* Opsets start at 7 (ORT's CPU EP has no kernels older than that for most ops) and end at 21 (known to both
 * runtimes); ranges otherwise follow src/kernels' tables. */
/* ---- fusion: a head and a chain after it ------------------------------------------------------------------ */

/* A float scalar constant `name` (rank 0 or [1]) for a chain step. */
static float chain_scalar(dcase *c, const char *name)
{
    static const float values[] = {0.0f, 3.0f, 6.0f, -1.5f, 0.5f, 2.0f, -0.25f, 1e30f, 1e-30f};
    float v = rp(c, 0.1) ? special_float(c) : PICK(c, values);
    int64_t one = 1;
    onnx_model_add_initializer(c->model, name, c->ft, rp(c, 0.5) ? 0 : 1, &one, &v, sizeof(v));
    desc(c, " %s=%g", name, (double)v);
    return v;
}

/* A ConvTranspose head of stride 2 (the detector's upsampling: 2x2 without pads, rows of 4 or more columns
 * often, its register tiles; or 3x3 with pads 1), with or without a bias, on x of `kind`. */
static int transpose_head(dcase *c, int kind, int64_t *out)
{
    int64_t n = rint_(c, 1, 2), cin = rint_(c, 1, 12), h = rint_(c, 1, 12);
    int64_t wd = rp(c, 0.5) ? 4 * rint_(c, 1, 6) : rint_(c, 1, 24);
    int64_t cout = rp(c, 0.7) ? 4 * rint_(c, 1, 6) : rint_(c, 1, 9);
    int64_t k = rp(c, 0.7) ? 2 : 3, pad = k - 2, x[4] = {n, cin, h, wd}, w[4] = {cin, cout, k, k};
    bool bias = rp(c, 0.5);
    input_of(c, "x", 0, 4, x, kind);
    const_float_tensor(c, "w", 4, w, DC_VALUES_NORMAL);
    if (bias) const_float_tensor(c, "b", 1, &cout, DC_VALUES_NORMAL);
    const char *in[3] = {"x", "w", "b"}, *outs[1] = {"t0"};
    onnx_node *t = onnx_model_add_node(c->model, "ConvTranspose", in, bias ? 3 : 2, outs, 1);
    int64_t pads[4] = {pad, pad, pad, pad}, strides[2] = {2, 2};
    onnx_node_attr_ints(t, "pads", pads, 4);
    onnx_node_attr_ints(t, "strides", strides, 2);
    desc(c, " k=%lld", (long long)k);
    out[0] = n, out[1] = cout, out[2] = (h - 1) * 2 + k - 2 * pad, out[3] = (wd - 1) * 2 + k - 2 * pad;
    c->atol = 1e-5 * (1 + (double)(cin * k * k) / 16);
    return 4;
}

/* Layers of Gemm and MatMul with constant weights, 2 to 4, an activation or none between them (ortvk runs small
 * ones as one dispatch, kernel_mlp.c, half of them in sizes of its vec4 form; large ones, and those of a symbolic
 * batch, apart), on x [m, k]: transB, a bias [n] or [1, n] or none, alpha and beta. The last layer's n is often k,
 * so that a chain step t + x reads the model's x (the residual of x + f(x)); *residual says whether it is. */
static int mlp_head(dcase *c, int kind, int64_t *out, bool *residual)
{
    static const char *const acts[] = {"Relu", "Tanh", "Sigmoid", "LeakyRelu", NULL};
    int layers = (int)rint_(c, 2, 4);
    /* Half the cases in multiples of 4: the fused kernel's vec4 form (every n, and k where transB). */
    int64_t four = rp(c, 0.5) ? 4 : 1;
    int64_t m = rp(c, 0.8) ? rint_(c, 1, 4) : rint_(c, 1, 80), k0 = four * rint_(c, 1, 40 / four), k = k0;
    int64_t x[2] = {m, k0};
    input_of(c, "x", 0, 2, x, kind);
    char prev[16] = "x";
    double terms = 1;
    for (int l = 0; l < layers; l++) {
        int64_t n = l == layers - 1 && rp(c, 0.5) ? k0
                    : rp(c, 0.9)                     ? four * rint_(c, 1, 40 / four)
                                                     : four * rint_(c, 100 / four, 1100 / four);
        bool matmul = rp(c, 0.3), trans_b = !matmul && rp(c, 0.3);
        int bias = matmul ? 0 : (int)rint_(c, 0, 2);
        char w[16], b[16], h[16], a[16];
        snprintf(w, sizeof(w), "w%d", l), snprintf(b, sizeof(b), "b%d", l);
        snprintf(h, sizeof(h), l == layers - 1 ? "t0" : "m%d", l), snprintf(a, sizeof(a), "a%d", l);
        int64_t wd[2] = {trans_b ? n : k, trans_b ? k : n}, bd[2] = {1, n};
        const_float_tensor(c, w, 2, wd, DC_VALUES_NORMAL);
        if (bias > 0) const_float_tensor(c, b, bias == 1 ? 1 : 2, bias == 1 ? bd + 1 : bd, DC_VALUES_NORMAL);
        const char *in[3] = {prev, w, b}, *outs[1] = {h};
        onnx_node *node = onnx_model_add_node(c->model, matmul ? "MatMul" : "Gemm", in, bias > 0 ? 3 : 2, outs, 1);
        if (trans_b) onnx_node_attr_int(node, "transB", 1);
        if (!matmul && rp(c, 0.2)) onnx_node_attr_float(node, "alpha", 0.5f);
        if (!matmul && rp(c, 0.2)) onnx_node_attr_float(node, "beta", 2.0f);
        desc(c, " %s%s", matmul ? "MatMul" : "Gemm", trans_b ? "(transB)" : "");
        terms *= 1 + (double)k / 16;
        snprintf(prev, sizeof(prev), "%s", h);
        const char *act = l < layers - 1 ? PICK(c, acts) : NULL;
        if (act != NULL) {
            const char *ain[1] = {h}, *aout[1] = {a};
            onnx_model_add_node(c->model, act, ain, 1, aout, 1);
            desc(c, " %s", act);
            snprintf(prev, sizeof(prev), "%s", a);
        }
        k = n;
    }
    out[0] = m, out[1] = k;
    *residual = k == k0;
    c->atol = 1e-5 * terms;
    return 2;
}

/* The head of a fused chain (ortvk runs the chain in its stores): none (the chain alone on x), a pointwise, 3x3 or
 * depthwise Conv, a Gemm or a MatMul with constant weights, a ConvTranspose, layers of Gemm and MatMul (mlp_head).
 * Returns the head's output rank and dims in `out`. */
static int fusion_head(dcase *c, int head, int64_t *out, bool *residual)
{
    static const char *const names[] = {"none", "Conv1x1", "Conv3x3", "depthwise", "Gemm", "MatMul",
                                        "ConvTranspose", "MLP"};
    desc(c, " head=%s", names[head]);
    int kind = head == 0 ? c->values : rp(c, 0.5) ? DC_VALUES_NORMAL : DC_VALUES_INTS; /* sums: no specials */
    if (head == 7) return mlp_head(c, kind, out, residual);
    if (head == 0) {
        int rank = random_shape(c, 1, 4, out);
        input_of(c, "x", 0, rank, out, kind);
        return rank;
    }
    if (head == 4 || head == 5) {
        int64_t m = small_dim(c), k = rint_(c, 1, 40), n = rp(c, 0.2) ? rint_(c, 1025, 1100) : rint_(c, 1, 24);
        int64_t x[2] = {m, k}, w[2] = {k, n};
        input_of(c, "x", 0, 2, x, kind);
        const_float_tensor(c, "w", 2, w, DC_VALUES_NORMAL);
        const char *in[3] = {"x", "w", "b"}, *outs[1] = {"t0"};
        if (head == 4) const_float_tensor(c, "b", 1, &n, DC_VALUES_NORMAL);
        onnx_model_add_node(c->model, head == 4 ? "Gemm" : "MatMul", in, head == 4 ? 3 : 2, outs, 1);
        out[0] = m, out[1] = n;
        c->atol = 1e-5 * (1 + (double)k / 16);
        return 2;
    }
    if (head == 6) return transpose_head(c, kind, out);
    int64_t n = rint_(c, 1, 2), cin = rint_(c, 1, 12), h = rint_(c, 1, 20), wd = rint_(c, 1, 40);
    int64_t cout = rp(c, 0.7) ? 4 * rint_(c, 1, 4) : rint_(c, 1, 9), k = head == 1 ? 1 : 3;
    int64_t stride = head == 2 && rp(c, 0.4) ? 2 : 1, group = 1;
    if (head == 3) group = cout = cin;
    int64_t x[4] = {n, cin, h, wd}, w[4] = {cout, cin / group, k, k};
    input_of(c, "x", 0, 4, x, kind);
    const_float_tensor(c, "w", 4, w, DC_VALUES_NORMAL);
    const_float_tensor(c, "b", 1, &cout, DC_VALUES_NORMAL);
    const char *in[3] = {"x", "w", "b"}, *outs[1] = {"t0"};
    onnx_node *conv = onnx_model_add_node(c->model, "Conv", in, 3, outs, 1);
    int64_t pads[4] = {k / 2, k / 2, k / 2, k / 2}, strides[2] = {stride, stride};
    onnx_node_attr_ints(conv, "pads", pads, 4);
    onnx_node_attr_ints(conv, "strides", strides, 2);
    onnx_node_attr_int(conv, "group", group);
    desc(c, " stride=%lld", (long long)stride);
    out[0] = n, out[1] = cout;
    out[2] = (h + 2 * (k / 2) - k) / stride + 1, out[3] = (wd + 2 * (k / 2) - k) / stride + 1;
    c->atol = 1e-5 * (1 + (double)(cin / group * k * k) / 16);
    return 4;
}

/* The shape of an operand a chain reads besides its x, for a chained value of `rank` and `dims`: the same, or
 * broadcast into it (per channel as the detector's squeeze-excitation scale, each dim 1 or the value's, fewer
 * dims), or broadcasting the value up (a dim of 1 there of 3 here). */
static int operand_shape(dcase *c, int rank, const int64_t *dims, int64_t *out)
{
    double form = runi(c);
    int r = form > 0.9 && rank > 1 ? (int)rint_(c, 1, rank - 1) : rank, skip = rank - r;
    for (int d = 0; d < r; d++) {
        int64_t full = dims[skip + d];
        if (form < 0.4) out[d] = full;
        else if (form < 0.6) out[d] = rank >= 2 && skip + d == 1 ? full : 1; /* per channel */
        else if (full == 1 && rp(c, 0.3)) out[d] = 3;
        else out[d] = rp(c, 0.4) ? 1 : full;
    }
    return r;
}

/* A per-channel step on `prev` giving `out` (a ConvTranspose fuses them): Add or Mul by a constant of one value a
 * channel ([C, 1, 1] or [1, C, 1, 1]), or BatchNormalization of constants (var in [0.25, 2.25): a scale of at most
 * twice |scale|). Returns how much it can multiply an absolute difference. */
static double channel_step(dcase *c, int i, const char *prev, const char *out, int rank, const int64_t *dims)
{
    char names[4][16];
    const char *outs[1] = {out};
    for (int k = 0; k < 4; k++) snprintf(names[k], sizeof(names[k]), "c%d_%d", i, k);
    int64_t cd[4] = {1, dims[1], 1, 1};
    if (rp(c, 0.5)) {
        int r = rank >= 3 && rp(c, 0.5) ? rank - 1 : rank; /* [C, 1, ...] or [1, C, 1, ...] */
        const_float_tensor(c, names[0], r, r == rank ? cd : cd + 1, DC_VALUES_NORMAL);
        const char *op = rp(c, 0.5) ? "Add" : "Mul", *in[2] = {prev, names[0]};
        onnx_model_add_node(c->model, op, in, 2, outs, 1);
        desc(c, " %s[c]", op);
        return strcmp(op, "Mul") == 0 ? 4.5 : 1;
    }
    for (int k = 0; k < 3; k++) const_float_tensor(c, names[k], 1, &dims[1], DC_VALUES_NORMAL);
    float var[64];
    for (int64_t k = 0; k < dims[1] && k < 64; k++) var[k] = (float)(0.25 + 2 * runi(c));
    onnx_model_add_initializer(c->model, names[3], ONNX_FLOAT, 1, &dims[1], var, (size_t)dims[1] * sizeof(float));
    const char *in[5] = {prev, names[0], names[1], names[2], names[3]};
    onnx_model_add_node(c->model, "BatchNormalization", in, 5, outs, 1);
    desc(c, " BatchNormalization");
    return 9;
}

/* A model of a head and up to 7 element-wise steps after it, the kinds ortvk fuses (scalar arithmetic either side,
 * Relu, Clip, the activations, t + x and t * x of the head's result (or of an MLP head's x), Adds and Muls of up to
 * three other inputs of the same shape or broadcast either way, per-channel steps after a ConvTranspose, Pow(t, 2)
 * and Sqrt(Pow(t, 2) + 1)) and
 * sometimes a value in the middle that is also an output (which must stop the fusion). */
static void gen_fusion(dcase *c)
{
    int64_t dims[DC_MAX_RANK];
    int head = (int)rint_(c, 0, 6);
    if ((head == 4 || head == 5) && rp(c, 0.5)) head = 7; /* layers of Gemm and MatMul */
    bool residual = false; /* t + x may read the model's x: an MLP head's x + f(x) */
    int rank = fusion_head(c, head, dims, &residual);
    const char *first = head == 0 ? "x" : "t0"; /* the chain's x */
    int steps = (int)rint_(c, 1, 7), middle = steps > 1 && rp(c, 0.15) ? (int)rint_(c, 0, steps - 2) : -1;
    int operands = 0;
    /* How much the steps can multiply an absolute difference the head leaves (its sums in another order, a
     * transcendental's last bits): Mul by a scalar k or an operand (|r| <= 4.5), Div by a small k. The tolerance
     * grows by it, so that a value cancelled to near 0 before a Mul by 1e20 is judged at the scale of its terms
     * (as ONNX's atol would be), while values that do not cancel keep the relative check. */
    double gain = 1;
    /* Whether the chained value may differ in its last bits between the two sides: a head's sums (another order),
     * a Sigmoid or Tanh (MLAS's have absolute accuracy: its Sigmoid is exactly 0 below about -17). A scalar divided
     * by such a value is ill-conditioned near 0 and at the overflow threshold (k / t: +-inf on one side only). */
    bool inexact = head != 0;
    char prev[8], other[8] = "";
    /* The operands' largest finite magnitude and whether one holds an infinity or NaN: a Mul by them scales what
     * the chained value's last bits differ by (MLAS's Sigmoid has absolute accuracy: 1.13e-5 against 1.1325e-5
     * times -1e20, seed 141 case 11219), and an infinity turns a 0 on one side into NaN (case 161919). */
    double operand_max = 0;
    bool operand_nonfinite = false;
    bool absolute = false; /* a Sigmoid or Tanh ran (MLAS's have absolute accuracy) */
    int times_x = 0;       /* Mul steps by the head's result since */
    snprintf(prev, sizeof(prev), "%s", first);
    for (int i = 0; i < steps; i++) {
        char out[8], k[16];
        snprintf(out, sizeof(out), i == steps - 1 ? "y" : "s%d", i % 10); /* steps <= 7 */
        snprintf(k, sizeof(k), "k%d", i);
        const char *outs[1] = {out};
        int kind = (int)rint_(c, 0, 9);
        if (kind == 0 && head == 6 && rp(c, 0.6)) kind = 11; /* a per-channel step */
        if (kind == 9 && operands > 0 && rp(c, 0.3)) kind = 10; /* the same operand again */
        if (kind == 9 && (operands >= 3 || c->n_in >= DC_MAX_IN)) kind = 0;
        /* Pow(t, 2), or Sqrt(Pow(t, 2) + 1), where a square can be judged (see below) */
        bool square_judged = !inexact || (c->values == DC_VALUES_NORMAL && gain <= 1e6 && !operand_nonfinite);
        if (square_judged && rp(c, 0.12)) kind = rp(c, 0.5) ? 12 : 13;
        if (kind == 11) {
            gain *= channel_step(c, i, prev, out, rank, dims);
        } else if (kind == 0) { /* arithmetic with a scalar, either side */
            static const char *const ops[] = {"Add", "Sub", "Mul", "Div"};
            const char *op = PICK(c, ops);
            float v = chain_scalar(c, k);
            bool left = rp(c, 0.3);
            /* k / t, t / 0 and t * inf: a last-bit difference near t = 0 becomes NaN (0 / 0, 0 * inf) on one side
             * and +-inf on the other (seed 145 case 43119: MatMul, Sigmoid, / 0); t * FLT_MAX: one near 1 becomes
             * FLT_MAX on one side and inf on the other (seed 219 case 15649: Tanh, then * FLT_MAX). */
            bool blows_up = !strcmp(op, "Div") ? left || v == 0 : !strcmp(op, "Mul") && fabsf(v) >= 1e38f;
            if (blows_up && inexact) c->ill_conditioned = true;
            double m = fabs((double)v);
            if (isfinite(m) && m > 0) {
                if (!strcmp(op, "Mul") || (!strcmp(op, "Div") && left)) gain *= fmax(1, m);
                if (!strcmp(op, "Div") && !left) gain *= fmax(1, 1 / m);
            }
            const char *in[2] = {left ? k : prev, left ? prev : k};
            onnx_model_add_node(c->model, op, in, 2, outs, 1);
            desc(c, " %s%s", op, left ? "(k,t)" : "");
        } else if (kind >= 12) {
            /* t * t as Pow(t, 2); then now and then + 1 and Sqrt: a square root of a value never near 0 nor below
             * it, where the head's last bits would become many (sqrt of a difference) or NaN on one side only. A
             * square's absolute difference is 2 |t| times t's, |t| at most about 1e3 times the gain for a head of
             * normal values: the gain squares. Past a gain of 1e6, or after a head of other values (whose magnitude
             * is not known here), a square is not drawn (seed 242 case 76144: * 1e20, then squared: 0.1 %). */
            gain = fmin(2e3 * gain * gain, 1e30);
            char two[16], one[16], sq[8], sp[8];
            float two_v = 2.0f, one_v = 1.0f;
            int64_t none = 0;
            snprintf(two, sizeof(two), "two%d", i), snprintf(one, sizeof(one), "one%d", i);
            snprintf(sq, sizeof(sq), "q%d", i % 10), snprintf(sp, sizeof(sp), "p%d", i % 10);
            onnx_model_add_initializer(c->model, two, c->ft, 0, &none, &two_v, sizeof(two_v));
            const char *pow_in[2] = {prev, two}, *pow_out[1] = {kind == 12 ? out : sq};
            onnx_model_add_node(c->model, "Pow", pow_in, 2, pow_out, 1);
            if (kind == 13) {
                onnx_model_add_initializer(c->model, one, c->ft, 0, &none, &one_v, sizeof(one_v));
                const char *add_in[2] = {sq, one}, *add_out[1] = {sp}, *sqrt_in[1] = {sp};
                onnx_model_add_node(c->model, "Add", add_in, 2, add_out, 1);
                onnx_model_add_node(c->model, "Sqrt", sqrt_in, 1, outs, 1);
            }
            desc(c, kind == 12 ? " Pow2" : " Sqrt(Pow2+1)");
        } else if (kind >= 8) { /* t + x / t * x, or of another input (a residual, a per-channel scale) */
            if (kind == 9) {
                int64_t od[DC_MAX_RANK];
                int orank = operand_shape(c, rank, dims, od);
                snprintf(other, sizeof(other), "r%d", operands++ % 10); /* operands <= 3 */
                input_of(c, other, 0, orank, od, c->values == DC_VALUES_SPECIAL ? DC_VALUES_NORMAL : c->values);
                bool nonfinite = false;
                operand_max = fmax(operand_max, max_magnitude(&c->in[c->n_in - 1], &nonfinite));
                operand_nonfinite = operand_nonfinite || nonfinite;
            }
            const char *with = kind == 8 ? (residual && rp(c, 0.7) ? "x" : first) : other;
            const char *op = rp(c, 0.5) ? "Add" : "Mul";
            bool left = rp(c, 0.5);
            /* t * an operand holding an infinity, or FLT_MAX, as t * inf and t * FLT_MAX above (seed 264 case
             * 200464: Tanh, then * r of FLT_MAX: MLAS's Tanh a last bit above 1 makes inf, ortvk's FLT_MAX). */
            if (kind != 8 && !strcmp(op, "Mul")) {
                gain *= fmax(4.5, operand_max);
                if ((operand_nonfinite || operand_max >= 1e38) && inexact) c->ill_conditioned = true;
            }
            /* A Sigmoid or Tanh (absolute accuracy on the CPU EP) times the head's result twice or more: its last
             * bits times |x|^2 (seed 220 case 121321: Conv, Sigmoid, then * x three times, 7.4e-6 against 3.7e-5). */
            if (kind == 8 && !strcmp(op, "Mul") && absolute && ++times_x >= 2) c->ill_conditioned = true;
            const char *in[2] = {left ? with : prev, left ? prev : with};
            onnx_model_add_node(c->model, op, in, 2, outs, 1);
            desc(c, " %s(%s)", op, with);
        } else if (kind == 1) {
            float lo = (float)(-2 * runi(c)), hi = (float)(6 * runi(c));
            int64_t none = 0;
            char kl[16], kh[16];
            snprintf(kl, sizeof(kl), "l%d", i), snprintf(kh, sizeof(kh), "h%d", i);
            onnx_model_add_initializer(c->model, kl, c->ft, 0, &none, &lo, sizeof(lo));
            onnx_model_add_initializer(c->model, kh, c->ft, 0, &none, &hi, sizeof(hi));
            const char *in[3] = {prev, kl, kh};
            onnx_model_add_node(c->model, "Clip", in, 3, outs, 1);
            desc(c, " Clip(%g,%g)", (double)lo, (double)hi);
        } else {
            static const char *const acts[] = {"Relu", "Sigmoid", "HardSigmoid", "HardSwish", "LeakyRelu", "Tanh"};
            const char *op = acts[kind - 2], *in[1] = {prev};
            if (!strcmp(op, "Sigmoid") || !strcmp(op, "Tanh")) inexact = absolute = true;
            onnx_node *n = onnx_model_add_node(c->model, op, in, 1, outs, 1);
            if (!strcmp(op, "HardSigmoid") && rp(c, 0.5)) {
                onnx_node_attr_float(n, "alpha", (float)runi(c));
                onnx_node_attr_float(n, "beta", (float)runi(c));
            }
            if (!strcmp(op, "LeakyRelu") && rp(c, 0.5)) onnx_node_attr_float(n, "alpha", (float)(2 * runi(c) - 1));
            desc(c, " %s", op);
        }
        if (i == middle && c->n_out < DC_MAX_OUT) { /* a value the model returns: no chain runs through it */
            snprintf(c->out[c->n_out], sizeof(c->out[0]), "%s", out);
            c->out_type[c->n_out++] = c->ft;
            onnx_model_add_output(c->model, out, c->ft, -1, NULL);
        }
        snprintf(prev, sizeof(prev), "%s", out);
    }
    snprintf(c->out[c->n_out], sizeof(c->out[0]), "y");
    c->out_type[c->n_out++] = c->ft;
    onnx_model_add_output(c->model, "y", c->ft, -1, NULL);
    c->atol *= fmin(gain, 1e30);
}

/* LayerNormalization written out as exporters write it before opset 17 (ReduceMean, Sub, Pow, ReduceMean, Add,
 * Sqrt, Div, Mul, Add), which ortvk runs as one LayerNormalization kernel (kernel_fuse_norm.c) where the CPU EP
 * fuses it too: over the last axis mostly (now and then another, or a last dim of a symbolic size), epsilon 0 now
 * and then, the scale either side of its Mul, of rank 1 or [1, L], a constant or an input. The Pow's exponent stays
 * 2: the CPU EP's LayerNormFusion also fuses other exponents, which changes the model's meaning there
 * (test_kernels_fusion checks ortvk against the CPU EP without graph optimizations). */
static void gen_layer_norm_written(dcase *c)
{
    int64_t dims[DC_MAX_RANK];
    int rank = random_shape(c, 2, 4, dims); /* rank 1: ORT 1.30's fusion makes an invalid graph (seed 214) */
    /* A last dim of at least 1: over 0 elements the CPU EP's fused LayerNormalization fails (ONNX's form is an
     * empty output, as ortvk's). */
    dims[rank - 1] = rp(c, 0.5) ? rint_(c, 1, 300) : dims[rank - 1] + (dims[rank - 1] == 0);
    while (count_of(rank, dims) > 40000 && dims[0] > 1) dims[0] = (dims[0] + 1) / 2;
    input(c, "x", rank, dims);
    int64_t len = dims[rank - 1], axis = rp(c, 0.85) ? -1 : rp(c, 0.5) ? rank - 1 : axis_of(c, rank);
    int64_t sd[2] = {1, len};
    int scale_rank = rp(c, 0.9) ? 1 : 2;
    if (rp(c, 0.9)) const_float_tensor(c, "scale", scale_rank, sd + 2 - scale_rank, DC_VALUES_NORMAL);
    else input_of(c, "scale", 0, scale_rank, sd + 2 - scale_rank, DC_VALUES_NORMAL);
    const_float_tensor(c, "bias", 1, &len, DC_VALUES_NORMAL);
    float two = 2.0f, eps = rp(c, 0.1) ? 0.0f : (float)(1e-6 + runi(c) * 1e-2);
    int64_t one = 1;
    onnx_model_add_initializer(c->model, "two", c->ft, rp(c, 0.5) ? 0 : 1, &one, &two, sizeof(two));
    onnx_model_add_initializer(c->model, "eps", c->ft, rp(c, 0.5) ? 0 : 1, &one, &eps, sizeof(eps));
    bool axes_input = c->opset >= 18;
    if (axes_input) onnx_model_add_initializer(c->model, "axes", ONNX_INT64, 1, &one, &axis, sizeof(axis));
    desc(c, " axis=%lld eps=%g", (long long)axis, (double)eps);
    const char *mean_in[2] = {"x", "axes"}, *var_in[2] = {"sq", "axes"}, *mean_out[1] = {"mean"}, *var_out[1] = {"var"};
    onnx_node *m1 = onnx_model_add_node(c->model, "ReduceMean", mean_in, axes_input ? 2 : 1, mean_out, 1);
    onnx_model_add_node(c->model, "Sub", (const char *[]){"x", "mean"}, 2, (const char *[]){"d"}, 1);
    onnx_model_add_node(c->model, "Pow", (const char *[]){"d", "two"}, 2, (const char *[]){"sq"}, 1);
    onnx_node *m2 = onnx_model_add_node(c->model, "ReduceMean", var_in, axes_input ? 2 : 1, var_out, 1);
    if (!axes_input) onnx_node_attr_ints(m1, "axes", &axis, 1), onnx_node_attr_ints(m2, "axes", &axis, 1);
    onnx_model_add_node(c->model, "Add", (const char *[]){"var", "eps"}, 2, (const char *[]){"ve"}, 1);
    onnx_model_add_node(c->model, "Sqrt", (const char *[]){"ve"}, 1, (const char *[]){"sd"}, 1);
    onnx_model_add_node(c->model, "Div", (const char *[]){"d", "sd"}, 2, (const char *[]){"n"}, 1);
    bool scale_first = rp(c, 0.3);
    onnx_model_add_node(c->model, "Mul", (const char *[]){scale_first ? "scale" : "n", scale_first ? "n" : "scale"}, 2,
                        (const char *[]){"t"}, 1);
    onnx_model_add_node(c->model, "Add", (const char *[]){"t", "bias"}, 2, (const char *[]){"y"}, 1);
    snprintf(c->out[0], sizeof(c->out[0]), "y");
    c->out_type[0] = c->ft;
    c->n_out = 1;
    onnx_model_add_output(c->model, "y", c->ft, -1, NULL);
    c->atol = 1e-5 * 4;
}

static const dc_op ops[] = {
    U("Relu", 7, 14), U("LeakyRelu", 7, 16), U("Sigmoid", 7, 13), U("HardSigmoid", 7, 21), U("HardSwish", 14, 21),
    U("Tanh", 7, 13), U("Exp", 7, 13), U("Log", 7, 13), U("Abs", 7, 13), U("Neg", 7, 13), U("Sqrt", 7, 13),
    U("Erf", 9, 13), U("Clip", 7, 13), U("Reciprocal", 7, 13), U("Floor", 7, 13), U("Ceil", 7, 13),
    U("Elu", 7, 21), U("Softplus", 7, 21), U("Selu", 7, 21), U("Sign", 9, 13), U("Round", 11, 21),
    U("Softsign", 7, 21), U("ThresholdedRelu", 10, 21), U("Celu", 12, 21), U("Shrink", 9, 21),
    U("Identity", 7, 21), U("Dropout", 7, 21), U("Sin", 7, 21), U("Cos", 7, 21), U("Tan", 7, 21),
    U("Asin", 7, 21), U("Acos", 7, 21), U("Atan", 7, 21), U("Sinh", 9, 21), U("Cosh", 9, 21), U("Asinh", 9, 21),
    U("Acosh", 9, 21), U("Atanh", 9, 21),
    B("Add", 7, 14), B("Sub", 7, 14), B("Mul", 7, 14), B("Div", 7, 14), B("Pow", 7, 15), B("PRelu", 7, 16),
    B("Max", 8, 13), B("Min", 8, 13), B("Sum", 8, 13), B("Mean", 8, 13),
    C("Equal", 11, 18), C("Greater", 9, 13), C("Less", 9, 13), C("GreaterOrEqual", 12, 16),
    C("LessOrEqual", 12, 16), C("And", 7, 7), C("Or", 7, 7), C("Xor", 7, 7), C("Not", 7, 7),
    {"Where", 9, 16, gen_where, true},
    {"MaxPool", 8, 21, gen_pool, true}, {"AveragePool", 7, 21, gen_pool, true},
    {"GlobalAveragePool", 7, 21, gen_pool, true}, {"GlobalMaxPool", 7, 21, gen_pool, true},
    {"Conv", 7, 21, gen_conv, true}, {"ConvTranspose", 7, 21, gen_conv, true},
    {"BatchNormalization", 7, 15, gen_batchnorm, true},
    {"Resize", 10, 19, gen_resize, true}, {"Upsample", 9, 9, gen_resize, true},
    {"Reshape", 7, 21, gen_reshape, true}, {"Flatten", 7, 21, gen_reshape, true},
    {"Squeeze", 7, 21, gen_squeeze, true}, {"Unsqueeze", 7, 21, gen_squeeze, true},
    {"Transpose", 7, 21, gen_transpose, true}, {"Concat", 7, 13, gen_concat, true},
    {"Slice", 10, 13, gen_slice, true}, {"Split", 7, 18, gen_split, true},
    {"Expand", 8, 13, gen_expand_tile, true}, {"Tile", 7, 13, gen_expand_tile, true},
    {"Gather", 7, 13, gen_gather, true}, {"DepthToSpace", 7, 13, gen_depth_space, true},
    {"SpaceToDepth", 7, 13, gen_depth_space, true}, {"Pad", 7, 21, gen_pad, true},
    {"Cast", 7, 21, gen_cast, false},
    {"MatMul", 7, 13, gen_matmul, true}, {"Gemm", 7, 13, gen_gemm, true},
    {"Softmax", 7, 13, gen_softmax, true}, {"LogSoftmax", 7, 13, gen_softmax, true},
    R("ReduceSum", 13), R("ReduceMean", 18), R("ReduceMax", 18), R("ReduceMin", 18), R("ReduceL1", 18),
    R("ReduceL2", 18), R("ReduceSumSquare", 18), R("ReduceLogSum", 18), R("ReduceLogSumExp", 18),
    R("ReduceProd", 18),
    {"ArgMax", 7, 13, gen_arg, true}, {"ArgMin", 7, 13, gen_arg, true},
    {"InstanceNormalization", 7, 21, gen_norm, true}, {"LayerNormalization", 17, 17, gen_norm, true},
    {"LSTM", 7, 21, gen_rnn, false}, {"GRU", 7, 21, gen_rnn, false}, {"RNN", 7, 21, gen_rnn, false},
    {"QuantizeLinear", 10, 21, gen_quantize, false}, {"DequantizeLinear", 10, 21, gen_quantize, false},
    {"DynamicQuantizeLinear", 11, 11, gen_dynamic_quantize, false},
    {"MatMulInteger", 10, 10, gen_matmul_integer, false}, {"ConvInteger", 10, 10, gen_conv_integer, false},
    {"QLinearMatMul", 10, 10, gen_qlinear_matmul, false}, {"QLinearConv", 10, 10, gen_qlinear_conv, false},
    {"Fusion", 14, 14, gen_fusion, false}, /* not an op: a head and a chain, fused by ortvk's partition compiler */
    {"LayerNormWritten", 11, 18, gen_layer_norm_written, false}, /* not an op: nine, fused (kernel_fuse_norm.c) */
    {"QDQ", 13, 21, gen_qdq, false}, /* not an op: DequantizeLinear -> Conv or MatMul -> QuantizeLinear */
};
#undef U
#undef B
#undef C
#undef R

/* Ops with a deliberate case past 65,535 iterations (a long loop in the shader). */
static bool has_big(const dc_op *op)
{
    static const char *const big[] = {"MatMul", "Gemm", "Softmax", "LogSoftmax", "Conv", "MaxPool", "AveragePool",
                                      "GlobalAveragePool", "GlobalMaxPool", "LayerNormalization",
                                      "InstanceNormalization", "Relu", "Add", "DynamicQuantizeLinear",
                                      "MatMulInteger", "ConvInteger", "QLinearMatMul", "QLinearConv"};
    if (op->gen == gen_reduce || op->gen == gen_arg) return true;
    for (size_t i = 0; i < sizeof(big) / sizeof(big[0]); i++)
        if (!strcmp(big[i], op->name)) return true;
    return false;
}

size_t dc_op_count(void) { return sizeof(ops) / sizeof(ops[0]); }
const char *dc_op_name(size_t i) { return i < dc_op_count() ? ops[i].name : NULL; }

int dc_op_index(const char *name)
{
    for (size_t i = 0; i < dc_op_count(); i++)
        if (!strcmp(ops[i].name, name)) return (int)i;
    return -1;
}

void dc_build(dcase *c, uint64_t seed, long index, bool vk)
{
    memset(c, 0, sizeof(*c));
    c->seed = seed;
    c->index = index;
    c->op = &ops[(size_t)index % dc_op_count()];
    c->op_name = c->op->name;
    c->r.s = seed * 0x9e3779b97f4a7c15ull ^ ((uint64_t)index + 1) * 0xd1b54a32d192ed03ull;
    rnext(&c->r);
    /* An opset: an end of the claimed range or a version where schemas changed. */
    static const int marks[] = {7, 9, 10, 11, 12, 13, 14, 17, 18, 19, 21};
    int opset = rp(c, 0.5) ? c->op->max_opset : c->op->min_opset;
    if (rp(c, 0.4)) {
        int m = PICK(c, marks);
        if (m >= c->op->min_opset && m <= c->op->max_opset) opset = m;
    }
    c->opset = opset;
    c->half = c->op->half && rp(c, 0.15);
    c->vk = vk;
    c->ft = c->half && vk ? ONNX_FLOAT16 : ONNX_FLOAT;
    double s = runi(c);
    c->shapes = s < 0.6 ? 0 : s < 0.85 ? 1 : 2;
    double v = runi(c);
    c->values = v < 0.5   ? DC_VALUES_NORMAL
                : v < 0.7 ? DC_VALUES_SPECIAL
                : v < 0.82 ? DC_VALUES_INTS
                : v < 0.94 ? DC_VALUES_POSITIVE
                           : DC_VALUES_ONE_SPECIAL;
    c->big = has_big(c->op) && rp(c, 0.04);
    c->atol = 1e-5;
    c->model = onnx_model_new(opset);
    if (c->model == NULL) {
        c->failed = true;
        return;
    }
    const char *shapes = c->shapes == 0 ? "fixed" : c->shapes == 1 ? "symbolic" : "none";
    desc(c, "%s opset %d%s%s values=%s shapes=%s:", c->op->name, opset, c->half ? " float16" : "", c->big ? " big" : "",
         dc_values_names[c->values], shapes);
    c->op->gen(c);
}

void dc_free(dcase *c)
{
    onnx_model_free(c->model);
    c->model = NULL;
    for (int i = 0; i < c->n_in; i++) free(c->in[i].data);
    c->n_in = 0;
}

const dc_attr *dc_get(const dcase *c, const char *name)
{
    for (int i = 0; i < c->n_attr; i++)
        if (!strcmp(c->attr[i].name, name)) return &c->attr[i];
    return NULL;
}

int64_t dc_max_abs(const dcase *c, const char *name)
{
    const dc_attr *a = dc_get(c, name);
    if (a == NULL || a->kind != 'i') return 0;
    int64_t m = 0;
    for (int i = 0; i < (a->n < 0 ? 1 : a->n) && i < 8; i++) {
        int64_t v = a->v[i] == INT64_MIN ? INT64_MAX : (a->v[i] < 0 ? -a->v[i] : a->v[i]);
        if (v > m) m = v;
    }
    return m;
}

uint64_t dc_count(const dcase *c, int i) { return i < c->n_in ? count_of(c->in[i].rank, c->in[i].dims) : 0; }
