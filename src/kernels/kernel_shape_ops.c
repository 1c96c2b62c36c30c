/* Shape plumbing evaluated on the host inside a partition: Shape, Size and, on small integer (or bool, or float)
 * tensors made from shapes and constants, Gather, Concat, Squeeze, Unsqueeze, Slice, Cast, ConstantOfShape, Range,
 * Equal, Greater, Less, Where, Add, Sub, Mul, Div, And, Or, Xor, Not. Each is computed at Compute time from the actual
 * input shapes, its values kept on the host for the nodes that take them as parameters, and uploaded for device
 * readers. */
#include <string.h>

#include "kernels/kernel_shape_ops.h"

static int op_of(const char *op_type)
{
    for (int i = 0; i < OP_COUNT; i++) {
        if (strcmp(op_names[i], op_type) == 0) return i;
    }
    return -1;
}

/* Small: rank 0 or 1 (shape vectors, whose length may be symbolic; checked at run time), or known dims of at most
 * ORTVK_KHOST_MAX elements. */
static bool small(const ortvk_kvalue *v)
{
    if (v->rank < 0) return false;
    if (v->rank <= 1) return true;
    int64_t n = 1;
    for (int d = 0; d < v->rank; d++) {
        if (v->dims[d] < 0 || !ortvk_kmul(n, v->dims[d], &n)) return false;
    }
    return n <= ORTVK_KHOST_MAX;
}

/* Whether the value `info` is known on the host when the run gets to it: a constant, or made from shapes and
 * constants by ops of this file. `budget` bounds the walk over a graph's producers. At Compile the producers are
 * out of reach (ORT's fused graph does not own them): GetCapability's answer stands, and a value that turns out
 * not to be on the host is read back (a fused node's input) or fails the run naming it. */
static bool derived(const OrtValueInfo *info, int *budget)
{
    ortvk_kvalue v;
    char why[8];
    if (info == NULL || --*budget < 0 || !ortvk_kvalue_read(info, &v, why, sizeof(why))) return false;
    if (!v.present) return true;
    if (!host_type(v.type) || !small(&v)) return false;
    if (v.constant != NULL) return true;
    const OrtNode *producer = NULL;
    const char *op = NULL, *domain = NULL;
    size_t n_in = 0;
    OrtStatus *status = ortvk_ort->ValueInfo_GetValueProducer(info, &producer, NULL);
    if (status == NULL && producer != NULL) status = ortvk_ort->Node_GetOperatorType(producer, &op);
    if (status == NULL && producer != NULL) status = ortvk_ort->Node_GetDomain(producer, &domain);
    if (status == NULL && producer != NULL) status = ortvk_ort->Node_GetNumInputs(producer, &n_in);
    if (status != NULL) {
        ortvk_ort->ReleaseStatus(status);
        return false;
    }
    if (producer == NULL || op == NULL || (domain != NULL && domain[0] != '\0' && strcmp(domain, "ai.onnx") != 0))
        return false;
    int kind = op_of(op);
    if (kind == OP_SHAPE || kind == OP_SIZE) return true;
    if (kind < 0 || n_in > ORTVK_KMAX_INPUTS) return false;
    const OrtValueInfo *ins[ORTVK_KMAX_INPUTS] = {0};
    if (n_in > 0 && (status = ortvk_ort->Node_GetInputs(producer, ins, n_in)) != NULL) {
        ortvk_ort->ReleaseStatus(status);
        return false;
    }
    for (size_t i = 0; i < n_in; i++) {
        if (ins[i] != NULL && !derived(ins[i], budget)) return false;
    }
    return true;
}

/* derived() for input i of `node`; at Compile, from what the partition knows (kernels.c fills host_known). */
static bool input_derived(const ortvk_knode *node, size_t i, int *budget)
{
    const ortvk_kvalue *v = &node->in[i];
    if (!node->compiling) return derived(v->info, budget);
    return !v->present || (host_type(v->type) && small(v) && (v->constant != NULL || (node->host_known >> i) & 1));
}

bool ortvk_kop_on_host(const ortvk_kop *op)
{
    const ortvk_kop *end = ortvk_kops_shape;
    while (end->op_type != NULL) end++;
    return op >= ortvk_kops_shape && op < end;
}

bool ortvk_knode_host_numbers(const ortvk_knode *node, size_t input)
{
    const ortvk_kvalue *v = &node->in[input];
    int budget = 64;
    return input < node->n_in && v->present && v->constant == NULL && host_type(v->type) &&
           v->type != ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL && v->rank >= 0 && v->rank <= 1 &&
           (int_type(v->type) || input_derived(node, input, &budget));
}

bool ortvk_knode_host_ints(const ortvk_knode *node, size_t input)
{
    const ortvk_kvalue *v = &node->in[input];
    int budget = 64;
    return input < node->n_in && v->present && v->constant == NULL && int_type(v->type) &&
           ((v->rank >= 0 && v->rank <= 1) || input_derived(node, input, &budget));
}

bool ortvk_knode_host_indices(const ortvk_knode *node, size_t input)
{
    const ortvk_kvalue *v = &node->in[input];
    if (input >= node->n_in || !v->present || !int_type(v->type) || v->rank < 0 || v->rank > ORTVK_KMAX_RANK)
        return false;
    int64_t n = 1;
    for (int d = 0; d < v->rank; d++)
        if (v->dims[d] >= 0 && (!ortvk_kmul(n, v->dims[d], &n) || n > ORTVK_KHOST_MAX)) return false;
    if (v->constant != NULL) return true;
    if (node->compiling) return (node->host_known >> input) & 1;
    int budget = 64;
    const OrtNode *producer = NULL;
    OrtStatus *status = ortvk_ort->ValueInfo_GetValueProducer(v->info, &producer, NULL);
    if (status != NULL) {
        ortvk_ort->ReleaseStatus(status);
        return false;
    }
    return producer == NULL || derived(v->info, &budget);
}

/* ---- host values of the run's inputs ----------------------------------------------------------------------------- */

bool ortvk_krun_host_ints(const ortvk_krun *run, size_t input, int64_t *out, size_t max, size_t *count)
{
    const ortvk_ktensor *t = &run->in[input];
    if (input >= run->n_in || !t->present || !int_type(t->type) || t->count > max) return false;
    if (t->count > 0 && t->host == NULL) return false;
    for (size_t i = 0; i < t->count; i++) out[i] = get_int(t, i);
    *count = t->count;
    return true;
}

bool ortvk_krun_host_floats(const ortvk_krun *run, size_t input, float *out, size_t max, size_t *count)
{
    const ortvk_ktensor *t = &run->in[input];
    if (input >= run->n_in || !t->present || !host_type(t->type) || t->count > max) return false;
    if (t->count > 0 && t->host == NULL) return false;
    for (size_t i = 0; i < t->count; i++) out[i] = get_float(t, i);
    *count = t->count;
    return true;
}

/* Every input but Shape's and Size's (which read only dims) must have host values. */
static OrtStatus *inputs_on_host(const ortvk_kparams_shape *p, const ortvk_krun *run)
{
    for (size_t i = 0; i < run->n_in; i++) {
        const ortvk_ktensor *t = &run->in[i];
        if ((p->op == OP_SHAPE || p->op == OP_SIZE) && i == 0) continue;
        if (t->present && t->count > 0 && t->host == NULL)
            return ortvk_status(ORT_EP_FAIL, "%s: input %zu (%zu elements) has no values on the host", op_names[p->op],
                                i, t->count);
    }
    return NULL;
}

/* ---- GetCapability and Compile ----------------------------------------------------------------------------- */

static bool read_value_attr(const ortvk_knode *node, ortvk_kparams_shape *p, char *why, size_t why_len)
{
    p->to = ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT; /* the default: a float 0 */
    memset(p->value, 0, sizeof(p->value));
    const OrtOpAttr *attr = NULL;
    for (size_t a = 0; a < node->n_attrs; a++) {
        if (strcmp(node->attrs[a].name, "value") == 0) attr = node->attrs[a].attr;
    }
    if (attr == NULL) return true;
    OrtValue *value = NULL;
    const int64_t *dims = NULL;
    size_t rank = 0;
    const void *data = NULL;
    bool ok = false;
    OrtStatus *status = ortvk_ort->OpAttr_GetTensorAttributeAsOrtValue(attr, &value);
    if (status == NULL && value != NULL)
        status = ortvk_ort->GetTensorElementTypeAndShapeDataReference(value, &p->to, &dims, &rank);
    if (status == NULL && value != NULL && ortvk_kcount(dims, rank) == 1 && host_type(p->to)) {
        status = ortvk_ort->GetTensorData(value, &data);
        if (status == NULL && data != NULL) {
            memcpy(p->value, data, ortvk_element_size(p->to));
            ok = true;
        }
    }
    if (status != NULL) ortvk_ort->ReleaseStatus(status);
    if (value != NULL) ortvk_ort->ReleaseValue(value);
    return ok || ortvk_krefuse(why, why_len, "value is not a one-element int32, int64, bool or float tensor");
}

static bool prepare(const ortvk_knode *node, ortvk_kparams *params, char *why, size_t why_len)
{
    ortvk_kparams_shape *p = &params->shape;
    p->op = op_of(node->op_type);
    p->count = -1;
    if (p->op < 0 || node->n_out != 1 || !node->out[0].present) return ortvk_krefuse(why, why_len, "outputs");
    if (!host_type(node->out[0].type)) return ortvk_krefuse(why, why_len, "output type %d", node->out[0].type);
    int budget = 256;
    bool shape_only = p->op == OP_SHAPE || p->op == OP_SIZE;
    for (size_t i = shape_only ? 1 : 0; i < node->n_in; i++) {
        if (p->op == OP_CONSTANT_OF_SHAPE ? !ortvk_knode_host_ints(node, i) && node->in[i].constant == NULL
                                          : !input_derived(node, i, &budget))
            return ortvk_krefuse(why, why_len, "input %zu is not a small value made from shapes and constants", i);
    }
    if (p->op != OP_CONSTANT_OF_SHAPE && !small(&node->out[0]))
        return ortvk_krefuse(why, why_len, "output is not a small value");
    switch (p->op) {
    case OP_SHAPE:
        if (!ortvk_knode_int(node, "start", 0, &p->axis)) return ortvk_krefuse(why, why_len, "start");
        p->has_end = ortvk_knode_has(node, "end");
        if (!ortvk_knode_int(node, "end", 0, &p->end)) return ortvk_krefuse(why, why_len, "end");
        return true;
    case OP_GATHER:
    case OP_CONCAT:
        return ortvk_knode_int(node, "axis", 0, &p->axis) || ortvk_krefuse(why, why_len, "axis");
    case OP_SQUEEZE:
    case OP_UNSQUEEZE:
        if (node->opset < 13 && !ortvk_knode_ints(node, "axes", p->axes, ORTVK_KMAX_RANK, &p->count))
            return ortvk_krefuse(why, why_len, "axes");
        return true;
    case OP_SLICE: {
        if (node->opset >= 10) return true;
        /* Slice-1: starts, ends and axes are attributes, there are no steps. */
        ortvk_kparams_slice *q = &p->slice;
        int cs = -1, ce = -1, ca = -1;
        if (node->n_in != 1 || !ortvk_knode_ints(node, "starts", q->starts, ORTVK_KMAX_RANK, &cs) ||
            !ortvk_knode_ints(node, "ends", q->ends, ORTVK_KMAX_RANK, &ce) || cs < 0 || cs != ce ||
            !ortvk_knode_ints(node, "axes", q->axes, ORTVK_KMAX_RANK, &ca) || (ca >= 0 && ca != cs))
            return ortvk_krefuse(why, why_len, "starts/ends/axes attributes");
        q->count = cs;
        for (int i = 0; i < cs; i++) {
            if (ca < 0) q->axes[i] = i;
            q->steps[i] = 1;
        }
        return true;
    }
    case OP_CAST: {
        int64_t to = 0, saturate = 1;
        if (!ortvk_knode_int(node, "to", 0, &to) || !host_type((ONNXTensorElementDataType)to))
            return ortvk_krefuse(why, why_len, "to");
        /* saturate other than 1: left to ORT's CPU EP (as the device's Cast, kernel_elementwise.c) */
        if (!ortvk_knode_int(node, "saturate", 1, &saturate) || saturate != 1)
            return ortvk_krefuse(why, why_len, "saturate");
        p->to = (ONNXTensorElementDataType)to;
        return true;
    }
    case OP_CONSTANT_OF_SHAPE: return read_value_attr(node, p, why, why_len);
    default: return true;
    }
}

/* ---- Compute ------------------------------------------------------------------------------------------------ */

static bool norm_axis(int64_t a, size_t r, int64_t *out)
{
    if (a < 0) a += (int64_t)r;
    if (a < 0 || a >= (int64_t)r) return false;
    *out = a;
    return true;
}

static OrtStatus *shape_of(const ortvk_kparams_shape *p, ortvk_krun *run)
{
    const ortvk_ktensor *x = &run->in[0];
    ortvk_ktensor *y = &run->out[0];
    int64_t r = (int64_t)x->rank, start = p->axis, end = p->has_end ? p->end : r;
    if (p->op == OP_SIZE) {
        y->rank = 0;
    } else {
        start = start < 0 ? (start + r < 0 ? 0 : start + r) : (start > r ? r : start);
        end = end < 0 ? (end + r < 0 ? 0 : end + r) : (end > r ? r : end);
        y->rank = 1;
        y->dims[0] = end > start ? end - start : 0;
    }
    void *data;
    ORTVK_TRY(ortvk_kshape_output(run, y, &data));
    if (p->op == OP_SIZE) ((int64_t *)data)[0] = (int64_t)x->count;
    for (int64_t d = 0; p->op == OP_SHAPE && d < y->dims[0]; d++) ((int64_t *)data)[d] = x->dims[start + d];
    return NULL;
}

static OrtStatus *gather(const ortvk_kparams_shape *p, ortvk_krun *run)
{
    const ortvk_ktensor *x = &run->in[0], *idx = &run->in[1];
    ortvk_ktensor *y = &run->out[0];
    int64_t axis;
    if (!norm_axis(p->axis, x->rank, &axis) || !int_type(idx->type) || x->rank + idx->rank - 1 > ORTVK_KMAX_RANK)
        return ortvk_status(ORT_INVALID_ARGUMENT, "Gather: axis %lld of rank %zu", (long long)p->axis, x->rank);
    y->rank = 0;
    for (int64_t d = 0; d < axis; d++) y->dims[y->rank++] = x->dims[d];
    for (size_t d = 0; d < idx->rank; d++) y->dims[y->rank++] = idx->dims[d];
    for (size_t d = (size_t)axis + 1; d < x->rank; d++) y->dims[y->rank++] = x->dims[d];
    void *data;
    ORTVK_TRY(ortvk_kshape_output(run, y, &data));
    size_t outer = ortvk_kcount(x->dims, (size_t)axis), inner = ortvk_kcount(x->dims + axis + 1, x->rank - axis - 1);
    size_t esize = ortvk_element_size(x->type), n = (size_t)x->dims[axis];
    for (size_t k = 0; k < idx->count; k++) {
        int64_t i = get_int(idx, k);
        if (i < -(int64_t)n || i >= (int64_t)n)
            return ortvk_status(ORT_INVALID_ARGUMENT, "Gather: indices[%zu] = %lld is out of [-%zu, %zu)", k,
                                (long long)i, n, n);
        if (i < 0) i += (int64_t)n;
        for (size_t o = 0; o < outer; o++)
            memcpy((uint8_t *)data + ((o * idx->count + k) * inner) * esize,
                   (const uint8_t *)x->host + ((o * n + (size_t)i) * inner) * esize, inner * esize);
    }
    return NULL;
}

static OrtStatus *concat(const ortvk_kparams_shape *p, ortvk_krun *run)
{
    const ortvk_ktensor *x = &run->in[0];
    ortvk_ktensor *y = &run->out[0];
    int64_t axis;
    if (!norm_axis(p->axis, x->rank, &axis)) return ortvk_status(ORT_INVALID_ARGUMENT, "Concat: axis");
    y->rank = x->rank;
    memcpy(y->dims, x->dims, sizeof(y->dims));
    y->dims[axis] = 0;
    for (size_t i = 0; i < run->n_in; i++) {
        const ortvk_ktensor *t = &run->in[i];
        bool fits = t->rank == x->rank && t->type == x->type;
        for (size_t d = 0; fits && d < x->rank; d++) fits = (int64_t)d == axis || t->dims[d] == x->dims[d];
        if (!fits) return ortvk_status(ORT_INVALID_ARGUMENT, "Concat: input %zu does not fit input 0", i);
        y->dims[axis] += t->dims[axis];
    }
    void *data;
    ORTVK_TRY(ortvk_kshape_output(run, y, &data));
    size_t outer = ortvk_kcount(x->dims, (size_t)axis), inner = ortvk_kcount(x->dims + axis + 1, x->rank - axis - 1);
    size_t esize = ortvk_element_size(x->type), at = 0;
    for (size_t o = 0; o < outer; o++) {
        for (size_t i = 0; i < run->n_in; i++) {
            size_t row = (size_t)run->in[i].dims[axis] * inner * esize;
            if (row > 0) memcpy((uint8_t *)data + at, (const uint8_t *)run->in[i].host + o * row, row);
            at += row;
        }
    }
    return NULL;
}

/* Squeeze and Unsqueeze: the input's values under new dims. */
static OrtStatus *squeeze(const ortvk_kparams_shape *p, ortvk_krun *run)
{
    const ortvk_ktensor *x = &run->in[0];
    ortvk_ktensor *y = &run->out[0];
    int64_t axes[ORTVK_KMAX_RANK];
    size_t n = 0;
    if (p->count >= 0) memcpy(axes, p->axes, sizeof(axes)), n = (size_t)p->count;
    else if (run->n_in > 1 && run->in[1].present && !ortvk_krun_host_ints(run, 1, axes, ORTVK_KMAX_RANK, &n))
        return ortvk_status(ORT_INVALID_ARGUMENT, "%s: axes", op_names[p->op]);
    bool all = p->op == OP_SQUEEZE && n == 0;
    size_t r = p->op == OP_SQUEEZE ? x->rank : x->rank + n;
    if (r > ORTVK_KMAX_RANK) return ortvk_status(ORT_INVALID_ARGUMENT, "Unsqueeze: rank %zu", r);
    bool marked[ORTVK_KMAX_RANK] = {0};
    for (size_t i = 0; i < n; i++) {
        int64_t a;
        if (!norm_axis(axes[i], r, &a) || marked[a] || (p->op == OP_SQUEEZE && x->dims[a] != 1))
            return ortvk_status(ORT_INVALID_ARGUMENT, "%s: axis %lld", op_names[p->op], (long long)axes[i]);
        marked[a] = true;
    }
    y->rank = 0;
    for (size_t d = 0, k = 0; d < r; d++) {
        if (p->op == OP_UNSQUEEZE) y->dims[y->rank++] = marked[d] ? 1 : x->dims[k++];
        else if (!(all ? x->dims[d] == 1 : marked[d])) y->dims[y->rank++] = x->dims[d];
    }
    y->count = x->count;
    y->host = x->host;
    return NULL;
}

OrtStatus *ortvk_krun_slice_params(const ortvk_krun *run, ortvk_kparams_slice *q)
{
    size_t ns = 0, ne = 0, na = 0, nt = 0;
    memset(q, 0, sizeof(*q));
    if (!ortvk_krun_host_ints(run, 1, q->starts, ORTVK_KMAX_RANK, &ns) ||
        !ortvk_krun_host_ints(run, 2, q->ends, ORTVK_KMAX_RANK, &ne) || ns != ne ||
        (run->n_in > 3 && run->in[3].present &&
         (!ortvk_krun_host_ints(run, 3, q->axes, ORTVK_KMAX_RANK, &na) || na != ns)) ||
        (run->n_in > 4 && run->in[4].present &&
         (!ortvk_krun_host_ints(run, 4, q->steps, ORTVK_KMAX_RANK, &nt) || nt != ns)))
        return ortvk_status(ORT_INVALID_ARGUMENT, "Slice: starts, ends, axes or steps (%zu, %zu, %zu, %zu values; "
                            "at most %d, one count)", ns, ne, na, nt, ORTVK_KMAX_RANK);
    q->count = (int)ns;
    for (size_t i = 0; i < ns; i++) {
        if (na == 0) q->axes[i] = (int64_t)i;
        if (nt == 0) q->steps[i] = 1;
        if (q->steps[i] == 0) return ortvk_status(ORT_INVALID_ARGUMENT, "Slice: steps[%zu] = 0", i);
    }
    return NULL;
}

static OrtStatus *slice(const ortvk_kparams_shape *p, ortvk_krun *run)
{
    const ortvk_ktensor *x = &run->in[0];
    ortvk_ktensor *y = &run->out[0];
    ortvk_kparams_slice q = p->slice;
    if (run->n_in > 1) ORTVK_TRY(ortvk_krun_slice_params(run, &q));
    int64_t start[ORTVK_KMAX_RANK], step[ORTVK_KMAX_RANK];
    ORTVK_TRY(ortvk_kslice_plan(&q, x, start, step, y->dims));
    y->rank = x->rank;
    void *data;
    ORTVK_TRY(ortvk_kshape_output(run, y, &data));
    size_t esize = ortvk_element_size(x->type);
    for (size_t o = 0; o < y->count; o++) { /* each output element's source, dim by dim */
        size_t rest = o, src = 0, stride = 1;
        for (size_t d = x->rank; d-- > 0;) {
            size_t c = rest % (size_t)y->dims[d];
            rest /= (size_t)y->dims[d];
            src += (size_t)(start[d] + (int64_t)c * step[d]) * stride;
            stride *= (size_t)x->dims[d];
        }
        memcpy((uint8_t *)data + o * esize, (const uint8_t *)x->host + src * esize, esize);
    }
    return NULL;
}

static OrtStatus *constant_of_shape(const ortvk_kparams_shape *p, ortvk_krun *run)
{
    int64_t dims[ORTVK_KMAX_RANK];
    size_t n = 0;
    ortvk_ktensor *y = &run->out[0];
    if (!ortvk_krun_host_ints(run, 0, dims, ORTVK_KMAX_RANK, &n))
        return ortvk_status(ORT_INVALID_ARGUMENT, "ConstantOfShape: the shape (rank at most %d)", ORTVK_KMAX_RANK);
    y->type = p->to;
    y->rank = n;
    memcpy(y->dims, dims, n * sizeof(int64_t));
    int64_t count = 0;
    if (!ortvk_kcount_checked(dims, n, ortvk_element_size(p->to), &count))
        return ortvk_status(ORT_INVALID_ARGUMENT, "ConstantOfShape: a negative or overflowing shape");
    y->count = (size_t)count;
    if (y->count > ORTVK_KHOST_MAX) return NULL; /* filled on the device */
    void *data;
    ORTVK_TRY(ortvk_kshape_output(run, y, &data));
    size_t esize = ortvk_element_size(p->to);
    for (size_t i = 0; i < y->count; i++) memcpy((uint8_t *)data + i * esize, p->value, esize);
    return NULL;
}

static OrtStatus *shape(const ortvk_kparams *params, ortvk_krun *run)
{
    const ortvk_kparams_shape *p = &params->shape;
    ortvk_ktensor *y = &run->out[0];
    ORTVK_TRY(inputs_on_host(p, run));
    y->type = run->in[0].type;
    y->host = NULL;
    switch (p->op) {
    case OP_SHAPE:
    case OP_SIZE: y->type = ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64; return shape_of(p, run);
    case OP_GATHER: return gather(p, run);
    case OP_CONCAT: return concat(p, run);
    case OP_SQUEEZE:
    case OP_UNSQUEEZE: return squeeze(p, run);
    case OP_SLICE: return slice(p, run);
    case OP_CAST: return ortvk_kshape_cast(p, run);
    case OP_CONSTANT_OF_SHAPE: return constant_of_shape(p, run);
    case OP_RANGE: return ortvk_kshape_range(run);
    default: return ortvk_kshape_elementwise(p, run);
    }
}

OrtStatus *ortvk_kshape_upload(const ortvk_kparams *params, ortvk_krun *run)
{
    for (size_t i = 0; i < run->n_out; i++) {
        ortvk_ktensor *y = &run->out[i];
        size_t esize = ortvk_element_size(y->type), bytes = y->count * esize;
        if (!y->present || y->count == 0) continue;
        if (y->host != NULL) {
            VkDeviceAddress staged = 0;
            run->scratch_count = 0; /* one scratch buffer per output */
            ORTVK_TRY(ortvk_krun_upload(run, y->host, bytes, &staged));
            ORTVK_TRY(ortvk_krun_copy(run, y->address, staged, bytes));
            continue;
        }
        /* ConstantOfShape past ORTVK_KHOST_MAX elements: a fill with the value's bytes repeated over 32 bits. */
        const ortvk_kparams_shape *p = &params->shape;
        uint8_t word[4];
        for (size_t b = 0; b < 4; b++) word[b] = p->value[b % esize];
        bool repeats = esize <= 4 || memcmp(p->value, p->value + 4, 4) == 0;
        if (p->op != OP_CONSTANT_OF_SHAPE || bytes % 4 != 0 || !repeats)
            return ortvk_status(ORT_EP_FAIL, "%s: an output of %zu elements without values on the host",
                                op_names[p->op], y->count);
        uint32_t pattern;
        memcpy(&pattern, word, 4);
        ORTVK_TRY(ortvk_krun_fill(run, y->address, bytes, pattern));
    }
    return NULL;
}

#define ALL 0xFFFFFFFFu
const ortvk_kop ortvk_kops_shape[] = {
    {"Shape", 1, 21, "start end", 0, prepare, shape, ortvk_kshape_upload},
    {"Size", 1, 21, "", 0, prepare, shape, ortvk_kshape_upload},
    {"Gather", 1, 13, "axis", ALL, prepare, shape, ortvk_kshape_upload},
    {"Concat", 4, 13, "axis", ALL, prepare, shape, ortvk_kshape_upload},
    {"Squeeze", 1, 21, "axes", ALL, prepare, shape, ortvk_kshape_upload},
    {"Unsqueeze", 1, 21, "axes", ALL, prepare, shape, ortvk_kshape_upload},
    {"Slice", 1, 9, "axes ends starts", ALL, prepare, shape, ortvk_kshape_upload},
    {"Slice", 10, 13, "", ALL, prepare, shape, ortvk_kshape_upload},
    {"Cast", 6, 21, "saturate to", ALL, prepare, shape, ortvk_kshape_upload},
    {"ConstantOfShape", 9, 21, "value", ALL, prepare, shape, ortvk_kshape_upload},
    {"Range", 11, 21, "", ALL, prepare, shape, ortvk_kshape_upload},
    {"Equal", 11, 19, "", ALL, prepare, shape, ortvk_kshape_upload},
    {"Greater", 9, 13, "", ALL, prepare, shape, ortvk_kshape_upload},
    {"Less", 9, 13, "", ALL, prepare, shape, ortvk_kshape_upload},
    {"Where", 9, 16, "", ALL, prepare, shape, ortvk_kshape_upload},
    {"Add", 7, 14, "", ALL, prepare, shape, ortvk_kshape_upload},
    {"Sub", 7, 14, "", ALL, prepare, shape, ortvk_kshape_upload},
    {"Mul", 7, 14, "", ALL, prepare, shape, ortvk_kshape_upload},
    {"Div", 7, 14, "", ALL, prepare, shape, ortvk_kshape_upload},
    {"And", 7, 7, "", ALL, prepare, shape, ortvk_kshape_upload},
    {"Or", 7, 7, "", ALL, prepare, shape, ortvk_kshape_upload},
    {"Xor", 7, 7, "", ALL, prepare, shape, ortvk_kshape_upload},
    {"Not", 1, 1, "", ALL, prepare, shape, ortvk_kshape_upload},
    {NULL, 0, 0, NULL, 0, NULL, NULL, NULL},
};
