/* Test support: implementation of onnx_proto.h. A protobuf wire-format encoder behind the ModelProto builder and
 * bounds-checked decoders for TensorProto and ModelProto, written from onnx.proto's field numbers. */
#include "onnx_proto.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Protobuf wire types. */
enum { ONNX_WT_VARINT = 0, ONNX_WT_I64 = 1, ONNX_WT_LEN = 2, ONNX_WT_I32 = 5 };

/* onnx.proto field numbers, by message. */
enum {
    ONNX_FN_MODEL_IR_VERSION = 1,
    ONNX_FN_MODEL_PRODUCER_NAME = 2,
    ONNX_FN_MODEL_GRAPH = 7,
    ONNX_FN_MODEL_OPSET_IMPORT = 8,

    ONNX_FN_OPSET_DOMAIN = 1,
    ONNX_FN_OPSET_VERSION = 2,

    ONNX_FN_GRAPH_NODE = 1,
    ONNX_FN_GRAPH_NAME = 2,
    ONNX_FN_GRAPH_INITIALIZER = 5,
    ONNX_FN_GRAPH_INPUT = 11,
    ONNX_FN_GRAPH_OUTPUT = 12,
    ONNX_FN_GRAPH_SPARSE_INITIALIZER = 15,

    ONNX_FN_NODE_INPUT = 1,
    ONNX_FN_NODE_OUTPUT = 2,
    ONNX_FN_NODE_NAME = 3,
    ONNX_FN_NODE_OP_TYPE = 4,
    ONNX_FN_NODE_ATTRIBUTE = 5,

    ONNX_FN_ATTR_NAME = 1,
    ONNX_FN_ATTR_F = 2,
    ONNX_FN_ATTR_I = 3,
    ONNX_FN_ATTR_S = 4,
    ONNX_FN_ATTR_T = 5,
    ONNX_FN_ATTR_G = 6,
    ONNX_FN_ATTR_FLOATS = 7,
    ONNX_FN_ATTR_INTS = 8,
    ONNX_FN_ATTR_STRINGS = 9,
    ONNX_FN_ATTR_TYPE = 20,

    ONNX_FN_VI_NAME = 1,
    ONNX_FN_VI_TYPE = 2,

    ONNX_FN_TYPE_TENSOR = 1,
    ONNX_FN_TYPE_SEQUENCE = 4,
    ONNX_FN_TYPE_MAP = 5,
    ONNX_FN_TYPE_SPARSE_TENSOR = 8,
    ONNX_FN_TYPE_OPTIONAL = 9,

    ONNX_FN_TT_ELEM_TYPE = 1,
    ONNX_FN_TT_SHAPE = 2,
    ONNX_FN_SHAPE_DIM = 1,
    ONNX_FN_DIM_VALUE = 1,
    ONNX_FN_DIM_PARAM = 2,

    ONNX_FN_TENSOR_DIMS = 1,
    ONNX_FN_TENSOR_DATA_TYPE = 2,
    ONNX_FN_TENSOR_SEGMENT = 3,
    ONNX_FN_TENSOR_FLOAT_DATA = 4,
    ONNX_FN_TENSOR_INT32_DATA = 5,
    ONNX_FN_TENSOR_STRING_DATA = 6,
    ONNX_FN_TENSOR_INT64_DATA = 7,
    ONNX_FN_TENSOR_NAME = 8,
    ONNX_FN_TENSOR_RAW_DATA = 9,
    ONNX_FN_TENSOR_DOUBLE_DATA = 10,
    ONNX_FN_TENSOR_UINT64_DATA = 11,
    ONNX_FN_TENSOR_EXTERNAL_DATA = 13,
    ONNX_FN_TENSOR_DATA_LOCATION = 14,

    ONNX_FN_SPARSE_VALUES = 1
};

/* AttributeProto.AttributeType values used by the builder. */
enum {
    ONNX_AT_FLOAT = 1,
    ONNX_AT_INT = 2,
    ONNX_AT_STRING = 3,
    ONNX_AT_TENSOR = 4,
    ONNX_AT_GRAPH = 5,
    ONNX_AT_FLOATS = 6,
    ONNX_AT_INTS = 7,
    ONNX_AT_STRINGS = 8
};

#define ONNX_IR_VERSION 8
#define ONNX_READ_FILE_MAX ((size_t)1 << 30)

const char *onnx_strerror(int err) {
    switch (err) {
    case ONNX_OK: return "ok";
    case ONNX_ERR_MALFORMED: return "malformed";
    case ONNX_ERR_UNSUPPORTED: return "unsupported";
    case ONNX_ERR_LIMIT: return "over a fixed limit";
    case ONNX_ERR_IO: return "i/o error";
    case ONNX_ERR_NOMEM: return "out of memory";
    case ONNX_ERR_INVALID: return "invalid argument";
    default: return "unknown error";
    }
}

size_t onnx_elem_size(int32_t elem_type) {
    switch (elem_type) {
    case ONNX_UINT8:
    case ONNX_INT8:
    case ONNX_BOOL: return 1;
    case ONNX_UINT16:
    case ONNX_INT16:
    case ONNX_FLOAT16:
    case ONNX_BFLOAT16: return 2;
    case ONNX_FLOAT:
    case ONNX_INT32:
    case ONNX_UINT32: return 4;
    case ONNX_INT64:
    case ONNX_DOUBLE:
    case ONNX_UINT64: return 8;
    default: return 0;
    }
}

static int onnx_host_is_le(void) {
    const uint16_t one = 1;
    uint8_t first;
    memcpy(&first, &one, 1);
    return first == 1;
}

/* ==== Encoder ============================================================================================ */

typedef struct {
    uint8_t *p;
    size_t len, cap;
    int err; /* first failure; later writes are dropped */
} onnx_buf;

static void onnx_buf_free(onnx_buf *b) {
    free(b->p);
    memset(b, 0, sizeof *b);
}

static void onnx_buf_put(onnx_buf *b, const void *src, size_t n) {
    if (b->err || n == 0)
        return;
    if (n > b->cap - b->len) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap - b->len < n) {
            if (cap > SIZE_MAX / 2) {
                b->err = ONNX_ERR_NOMEM;
                return;
            }
            cap *= 2;
        }
        uint8_t *p = realloc(b->p, cap);
        if (!p) {
            b->err = ONNX_ERR_NOMEM;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, src, n);
    b->len += n;
}

static void onnx_buf_varint(onnx_buf *b, uint64_t v) {
    uint8_t tmp[10];
    size_t n = 0;
    do {
        tmp[n] = (uint8_t)(v & 0x7f);
        v >>= 7;
        if (v)
            tmp[n] |= 0x80;
        n++;
    } while (v);
    onnx_buf_put(b, tmp, n);
}

static void onnx_buf_fixed32(onnx_buf *b, uint32_t v) {
    uint8_t tmp[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    onnx_buf_put(b, tmp, 4);
}

static void onnx_buf_tag(onnx_buf *b, uint32_t field, int wt) {
    onnx_buf_varint(b, ((uint64_t)field << 3) | (uint64_t)wt);
}

static void onnx_buf_field_varint(onnx_buf *b, uint32_t field, uint64_t v) {
    onnx_buf_tag(b, field, ONNX_WT_VARINT);
    onnx_buf_varint(b, v);
}

static void onnx_buf_field_int64(onnx_buf *b, uint32_t field, int64_t v) {
    /* Negative int32/int64 values are sign-extended to 64 bits on the wire. */
    onnx_buf_field_varint(b, field, (uint64_t)v);
}

static void onnx_buf_field_bytes(onnx_buf *b, uint32_t field, const void *data, size_t n) {
    onnx_buf_tag(b, field, ONNX_WT_LEN);
    onnx_buf_varint(b, (uint64_t)n);
    onnx_buf_put(b, data, n);
}

static void onnx_buf_field_str(onnx_buf *b, uint32_t field, const char *s) {
    onnx_buf_field_bytes(b, field, s, strlen(s));
}

/* Embeds `sub` as a length-delimited field, carrying its failure over. */
static void onnx_buf_field_msg(onnx_buf *b, uint32_t field, const onnx_buf *sub) {
    if (sub->err) {
        if (!b->err)
            b->err = sub->err;
        return;
    }
    onnx_buf_field_bytes(b, field, sub->p, sub->len);
}

struct onnx_node {
    onnx_model *model;
    onnx_buf buf; /* NodeProto fields so far */
};

struct onnx_model {
    int64_t opset;
    int err; /* first argument error */
    onnx_node **nodes;
    size_t n_nodes, cap_nodes;
    onnx_buf inits, inputs, outputs; /* encoded GraphProto fields, tags included */
};

static void onnx_model_fail(onnx_model *m, int err) {
    if (m && !m->err)
        m->err = err;
}

onnx_model *onnx_model_new(int64_t opset_version) {
    onnx_model *m = calloc(1, sizeof *m);
    if (m)
        m->opset = opset_version;
    return m;
}

void onnx_model_free(onnx_model *m) {
    if (!m)
        return;
    for (size_t i = 0; i < m->n_nodes; i++) {
        onnx_buf_free(&m->nodes[i]->buf);
        free(m->nodes[i]);
    }
    free(m->nodes);
    onnx_buf_free(&m->inits);
    onnx_buf_free(&m->inputs);
    onnx_buf_free(&m->outputs);
    free(m);
}

/* ValueInfoProto{name, type{tensor_type{elem_type, shape?}}} appended to `dst` as field `field`. A negative dim is
 * symbolic: "d<i>" for dim i, or with `sizes`, "n<size>" after the size it will have at run time. */
static void onnx_add_value_info(onnx_model *m, onnx_buf *dst, uint32_t field, const char *name, int32_t elem_type,
                                int rank, const int64_t *dims, const int64_t *sizes) {
    if (!m)
        return;
    if (!name || elem_type <= 0 || (rank > 0 && !dims)) {
        onnx_model_fail(m, ONNX_ERR_INVALID);
        return;
    }
    onnx_buf shape = {0}, tensor_type = {0}, type = {0}, vi = {0};
    for (int i = 0; i < rank; i++) {
        onnx_buf dim = {0};
        if (dims[i] >= 0) {
            onnx_buf_field_int64(&dim, ONNX_FN_DIM_VALUE, dims[i]);
        } else {
            char sym[32];
            if (sizes)
                snprintf(sym, sizeof sym, "n%lld", (long long)sizes[i]);
            else
                snprintf(sym, sizeof sym, "d%d", i);
            onnx_buf_field_str(&dim, ONNX_FN_DIM_PARAM, sym);
        }
        onnx_buf_field_msg(&shape, ONNX_FN_SHAPE_DIM, &dim);
        onnx_buf_free(&dim);
    }
    onnx_buf_field_int64(&tensor_type, ONNX_FN_TT_ELEM_TYPE, elem_type);
    if (rank >= 0) /* rank 0: an empty shape, which says "scalar" */
        onnx_buf_field_msg(&tensor_type, ONNX_FN_TT_SHAPE, &shape);
    onnx_buf_field_msg(&type, ONNX_FN_TYPE_TENSOR, &tensor_type);
    onnx_buf_field_str(&vi, ONNX_FN_VI_NAME, name);
    onnx_buf_field_msg(&vi, ONNX_FN_VI_TYPE, &type);
    onnx_buf_field_msg(dst, field, &vi);
    onnx_buf_free(&shape);
    onnx_buf_free(&tensor_type);
    onnx_buf_free(&type);
    onnx_buf_free(&vi);
}

void onnx_model_add_input(onnx_model *m, const char *name, int32_t elem_type, int rank, const int64_t *dims) {
    if (m)
        onnx_add_value_info(m, &m->inputs, ONNX_FN_GRAPH_INPUT, name, elem_type, rank, dims, NULL);
}

void onnx_model_add_input_by_size(onnx_model *m, const char *name, int32_t elem_type, int rank,
                                  const int64_t *sizes) {
    int64_t dims[16];
    if (m && (rank > 16 || (rank > 0 && !sizes))) {
        onnx_model_fail(m, ONNX_ERR_INVALID);
        return;
    }
    for (int i = 0; i < rank; i++)
        dims[i] = -1;
    if (m)
        onnx_add_value_info(m, &m->inputs, ONNX_FN_GRAPH_INPUT, name, elem_type, rank, dims, sizes);
}

void onnx_model_add_output(onnx_model *m, const char *name, int32_t elem_type, int rank, const int64_t *dims) {
    if (m)
        onnx_add_value_info(m, &m->outputs, ONNX_FN_GRAPH_OUTPUT, name, elem_type, rank, dims, NULL);
}

/* TensorProto{dims, data_type, name?, raw_data} into `dst` (the message body, no tag). */
static int onnx_encode_tensor(onnx_buf *dst, const char *name, int32_t elem_type, int rank, const int64_t *dims,
                              const void *raw, size_t raw_bytes) {
    size_t es = onnx_elem_size(elem_type);
    if (!es || rank < 0 || (rank > 0 && !dims) || (raw_bytes && !raw))
        return ONNX_ERR_INVALID;
    uint64_t n = 1;
    for (int i = 0; i < rank; i++) {
        if (dims[i] < 0)
            return ONNX_ERR_INVALID;
        if (dims[i] != 0 && n > UINT64_MAX / (uint64_t)dims[i])
            return ONNX_ERR_INVALID;
        n *= (uint64_t)dims[i];
    }
    if (n > SIZE_MAX / es || (size_t)n * es != raw_bytes)
        return ONNX_ERR_INVALID;
    if (raw_bytes && !onnx_host_is_le())
        return ONNX_ERR_UNSUPPORTED;
    for (int i = 0; i < rank; i++)
        onnx_buf_field_int64(dst, ONNX_FN_TENSOR_DIMS, dims[i]);
    onnx_buf_field_int64(dst, ONNX_FN_TENSOR_DATA_TYPE, elem_type);
    if (name)
        onnx_buf_field_str(dst, ONNX_FN_TENSOR_NAME, name);
    onnx_buf_field_bytes(dst, ONNX_FN_TENSOR_RAW_DATA, raw, raw_bytes);
    return ONNX_OK;
}

void onnx_model_add_initializer(onnx_model *m, const char *name, int32_t elem_type, int rank, const int64_t *dims,
                                const void *raw, size_t raw_bytes) {
    if (!m)
        return;
    if (!name) {
        onnx_model_fail(m, ONNX_ERR_INVALID);
        return;
    }
    onnx_buf t = {0};
    int err = onnx_encode_tensor(&t, name, elem_type, rank, dims, raw, raw_bytes);
    if (err)
        onnx_model_fail(m, err);
    else
        onnx_buf_field_msg(&m->inits, ONNX_FN_GRAPH_INITIALIZER, &t);
    onnx_buf_free(&t);
}

onnx_node *onnx_model_add_node(onnx_model *m, const char *op_type, const char *const *inputs, int n_in,
                               const char *const *outputs, int n_out) {
    if (!m)
        return NULL;
    int bad = !op_type || n_in < 0 || n_out < 0 || (n_in > 0 && !inputs) || (n_out > 0 && !outputs);
    for (int i = 0; !bad && i < n_in; i++)
        bad = !inputs[i];
    for (int i = 0; !bad && i < n_out; i++)
        bad = !outputs[i];
    if (bad) {
        onnx_model_fail(m, ONNX_ERR_INVALID);
        return NULL;
    }
    if (m->n_nodes == m->cap_nodes) {
        size_t cap = m->cap_nodes ? m->cap_nodes * 2 : 8;
        onnx_node **nodes = realloc(m->nodes, cap * sizeof *nodes);
        if (!nodes) {
            onnx_model_fail(m, ONNX_ERR_NOMEM);
            return NULL;
        }
        m->nodes = nodes;
        m->cap_nodes = cap;
    }
    onnx_node *n = calloc(1, sizeof *n);
    if (!n) {
        onnx_model_fail(m, ONNX_ERR_NOMEM);
        return NULL;
    }
    n->model = m;
    char name[32];
    snprintf(name, sizeof name, "n%zu", m->n_nodes);
    for (int i = 0; i < n_in; i++)
        onnx_buf_field_str(&n->buf, ONNX_FN_NODE_INPUT, inputs[i]);
    for (int i = 0; i < n_out; i++)
        onnx_buf_field_str(&n->buf, ONNX_FN_NODE_OUTPUT, outputs[i]);
    onnx_buf_field_str(&n->buf, ONNX_FN_NODE_NAME, name);
    onnx_buf_field_str(&n->buf, ONNX_FN_NODE_OP_TYPE, op_type);
    m->nodes[m->n_nodes++] = n;
    return n;
}

/* Starts AttributeProto{name, type} in `a`; 0 when the call must be dropped. */
static int onnx_attr_begin(onnx_node *n, onnx_buf *a, const char *name, int type) {
    if (!n)
        return 0;
    if (!name) {
        onnx_model_fail(n->model, ONNX_ERR_INVALID);
        return 0;
    }
    onnx_buf_field_str(a, ONNX_FN_ATTR_NAME, name);
    onnx_buf_field_varint(a, ONNX_FN_ATTR_TYPE, (uint64_t)type);
    return 1;
}

static void onnx_attr_end(onnx_node *n, onnx_buf *a) {
    onnx_buf_field_msg(&n->buf, ONNX_FN_NODE_ATTRIBUTE, a);
    onnx_buf_free(a);
}

void onnx_node_attr_int(onnx_node *n, const char *name, int64_t v) {
    onnx_buf a = {0};
    if (!onnx_attr_begin(n, &a, name, ONNX_AT_INT))
        return;
    onnx_buf_field_int64(&a, ONNX_FN_ATTR_I, v);
    onnx_attr_end(n, &a);
}

void onnx_node_attr_ints(onnx_node *n, const char *name, const int64_t *v, int count) {
    if (n && (count < 0 || (count > 0 && !v))) {
        onnx_model_fail(n->model, ONNX_ERR_INVALID);
        return;
    }
    onnx_buf a = {0}, packed = {0};
    if (!onnx_attr_begin(n, &a, name, ONNX_AT_INTS))
        return;
    for (int i = 0; i < count; i++)
        onnx_buf_varint(&packed, (uint64_t)v[i]);
    onnx_buf_field_msg(&a, ONNX_FN_ATTR_INTS, &packed);
    onnx_buf_free(&packed);
    onnx_attr_end(n, &a);
}

void onnx_node_attr_float(onnx_node *n, const char *name, float v) {
    onnx_buf a = {0};
    if (!onnx_attr_begin(n, &a, name, ONNX_AT_FLOAT))
        return;
    uint32_t bits;
    memcpy(&bits, &v, 4);
    onnx_buf_tag(&a, ONNX_FN_ATTR_F, ONNX_WT_I32);
    onnx_buf_fixed32(&a, bits);
    onnx_attr_end(n, &a);
}

void onnx_node_attr_floats(onnx_node *n, const char *name, const float *v, int count) {
    if (n && (count < 0 || (count > 0 && !v))) {
        onnx_model_fail(n->model, ONNX_ERR_INVALID);
        return;
    }
    onnx_buf a = {0}, packed = {0};
    if (!onnx_attr_begin(n, &a, name, ONNX_AT_FLOATS))
        return;
    for (int i = 0; i < count; i++) {
        uint32_t bits;
        memcpy(&bits, &v[i], 4);
        onnx_buf_fixed32(&packed, bits);
    }
    onnx_buf_field_msg(&a, ONNX_FN_ATTR_FLOATS, &packed);
    onnx_buf_free(&packed);
    onnx_attr_end(n, &a);
}

void onnx_node_attr_string(onnx_node *n, const char *name, const char *v) {
    if (n && !v) {
        onnx_model_fail(n->model, ONNX_ERR_INVALID);
        return;
    }
    onnx_buf a = {0};
    if (!onnx_attr_begin(n, &a, name, ONNX_AT_STRING))
        return;
    onnx_buf_field_str(&a, ONNX_FN_ATTR_S, v);
    onnx_attr_end(n, &a);
}

void onnx_node_attr_strings(onnx_node *n, const char *name, const char *const *v, int count) {
    for (int i = 0; n && i < count; i++) {
        if (!v || !v[i]) {
            onnx_model_fail(n->model, ONNX_ERR_INVALID);
            return;
        }
    }
    onnx_buf a = {0};
    if (!onnx_attr_begin(n, &a, name, ONNX_AT_STRINGS))
        return;
    for (int i = 0; i < count; i++)
        onnx_buf_field_str(&a, ONNX_FN_ATTR_STRINGS, v[i]);
    onnx_attr_end(n, &a);
}

void onnx_node_attr_tensor(onnx_node *n, const char *name, int32_t elem_type, int rank, const int64_t *dims,
                           const void *raw, size_t raw_bytes) {
    onnx_buf a = {0}, t = {0};
    if (!onnx_attr_begin(n, &a, name, ONNX_AT_TENSOR))
        return;
    int err = onnx_encode_tensor(&t, NULL, elem_type, rank, dims, raw, raw_bytes);
    if (err) {
        onnx_model_fail(n->model, err);
        onnx_buf_free(&t);
        onnx_buf_free(&a);
        return;
    }
    onnx_buf_field_msg(&a, ONNX_FN_ATTR_T, &t);
    onnx_buf_free(&t);
    onnx_attr_end(n, &a);
}

/* GraphProto{nodes, name, initializers, inputs, outputs} of `m` into `graph` (the message body). */
static void onnx_encode_graph(const onnx_model *m, onnx_buf *graph, const char *name) {
    for (size_t i = 0; i < m->n_nodes; i++)
        onnx_buf_field_msg(graph, ONNX_FN_GRAPH_NODE, &m->nodes[i]->buf);
    onnx_buf_field_str(graph, ONNX_FN_GRAPH_NAME, name);
    const onnx_buf *parts[3] = {&m->inits, &m->inputs, &m->outputs};
    for (int i = 0; i < 3; i++) {
        if (parts[i]->err && !graph->err)
            graph->err = parts[i]->err;
        onnx_buf_put(graph, parts[i]->p, parts[i]->len);
    }
}

void onnx_node_attr_graph(onnx_node *n, const char *name, const onnx_model *body, const char *graph_name) {
    if (n && (!body || !graph_name || body->err)) {
        onnx_model_fail(n->model, body && body->err ? body->err : ONNX_ERR_INVALID);
        return;
    }
    onnx_buf a = {0}, g = {0};
    if (!onnx_attr_begin(n, &a, name, ONNX_AT_GRAPH))
        return;
    onnx_encode_graph(body, &g, graph_name);
    onnx_buf_field_msg(&a, ONNX_FN_ATTR_G, &g);
    onnx_buf_free(&g);
    onnx_attr_end(n, &a);
}

int onnx_model_serialize(const onnx_model *m, uint8_t **out, size_t *out_len) {
    if (out)
        *out = NULL;
    if (out_len)
        *out_len = 0;
    if (!m || !out || !out_len)
        return ONNX_ERR_INVALID;
    if (m->err)
        return m->err;
    onnx_buf graph = {0}, opset = {0}, model = {0};
    onnx_encode_graph(m, &graph, "g");
    onnx_buf_field_str(&opset, ONNX_FN_OPSET_DOMAIN, "");
    onnx_buf_field_int64(&opset, ONNX_FN_OPSET_VERSION, m->opset);

    onnx_buf_field_int64(&model, ONNX_FN_MODEL_IR_VERSION, ONNX_IR_VERSION);
    onnx_buf_field_str(&model, ONNX_FN_MODEL_PRODUCER_NAME, "ortvk-tests");
    onnx_buf_field_msg(&model, ONNX_FN_MODEL_GRAPH, &graph);
    onnx_buf_field_msg(&model, ONNX_FN_MODEL_OPSET_IMPORT, &opset);
    onnx_buf_free(&graph);
    onnx_buf_free(&opset);
    if (model.err) {
        int err = model.err;
        onnx_buf_free(&model);
        return err;
    }
    *out = model.p;
    *out_len = model.len;
    return ONNX_OK;
}

/* ==== Decoder ============================================================================================ */

typedef struct {
    const uint8_t *p, *end;
} onnx_rd;

typedef struct {
    uint32_t num;        /* field number */
    int wt;              /* wire type */
    uint64_t v;          /* VARINT, I64 and I32 values */
    const uint8_t *data; /* LEN payload, inside the buffer being read */
    size_t len;
} onnx_fld;

static const uint8_t onnx_empty[1];

static onnx_rd onnx_rd_init(const uint8_t *p, size_t n) {
    onnx_rd r;
    r.p = p ? p : onnx_empty; /* never offset a null pointer, not even by 0 */
    r.end = r.p + (p ? n : 0);
    return r;
}

static int onnx_rd_varint(const uint8_t **pp, const uint8_t *end, uint64_t *out) {
    const uint8_t *p = *pp;
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (p == end)
            return ONNX_ERR_MALFORMED;
        uint8_t byte = *p++;
        if (shift == 63 && byte > 1) /* the 10th byte holds only bit 63 and ends the varint */
            return ONNX_ERR_MALFORMED;
        v |= (uint64_t)(byte & 0x7f) << shift;
        if (!(byte & 0x80)) {
            *pp = p;
            *out = v;
            return ONNX_OK;
        }
    }
    return ONNX_ERR_MALFORMED;
}

static uint64_t onnx_le(const uint8_t *p, int n) {
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

/* 1: a field was read into *f; 0: end of the message; <0: malformed. */
static int onnx_rd_next(onnx_rd *r, onnx_fld *f) {
    if (r->p == r->end)
        return 0;
    uint64_t tag, n;
    if (onnx_rd_varint(&r->p, r->end, &tag))
        return ONNX_ERR_MALFORMED;
    if ((tag >> 3) == 0 || (tag >> 3) > 0x1fffffff)
        return ONNX_ERR_MALFORMED;
    f->num = (uint32_t)(tag >> 3);
    f->wt = (int)(tag & 7);
    f->v = 0;
    f->data = NULL;
    f->len = 0;
    size_t left = (size_t)(r->end - r->p);
    switch (f->wt) {
    case ONNX_WT_VARINT:
        return onnx_rd_varint(&r->p, r->end, &f->v) ? ONNX_ERR_MALFORMED : 1;
    case ONNX_WT_I64:
        if (left < 8)
            return ONNX_ERR_MALFORMED;
        f->v = onnx_le(r->p, 8);
        r->p += 8;
        return 1;
    case ONNX_WT_I32:
        if (left < 4)
            return ONNX_ERR_MALFORMED;
        f->v = onnx_le(r->p, 4);
        r->p += 4;
        return 1;
    case ONNX_WT_LEN:
        if (onnx_rd_varint(&r->p, r->end, &n))
            return ONNX_ERR_MALFORMED;
        if (n > (uint64_t)(r->end - r->p))
            return ONNX_ERR_MALFORMED;
        f->data = r->p;
        f->len = (size_t)n;
        r->p += n;
        return 1;
    default: /* groups (3, 4) are not used by onnx.proto; 6 and 7 do not exist */
        return ONNX_ERR_MALFORMED;
    }
}

static int64_t onnx_as_int64(uint64_t v) {
    return v <= (uint64_t)INT64_MAX ? (int64_t)v : -(int64_t)(~v) - 1;
}

static int onnx_fld_int64(const onnx_fld *f, int64_t *out) {
    if (f->wt != ONNX_WT_VARINT)
        return ONNX_ERR_MALFORMED;
    *out = onnx_as_int64(f->v);
    return ONNX_OK;
}

static int onnx_fld_int32(const onnx_fld *f, int32_t *out) {
    int64_t v;
    if (onnx_fld_int64(f, &v) || v < INT32_MIN || v > INT32_MAX)
        return ONNX_ERR_MALFORMED;
    *out = (int32_t)v;
    return ONNX_OK;
}

/* Copies a string field into dst[cap] with its NUL. */
static int onnx_fld_str(const onnx_fld *f, char *dst, size_t cap) {
    if (f->wt != ONNX_WT_LEN || (f->len && memchr(f->data, 0, f->len)))
        return ONNX_ERR_MALFORMED;
    if (f->len >= cap)
        return ONNX_ERR_LIMIT;
    if (f->len)
        memcpy(dst, f->data, f->len);
    dst[f->len] = '\0';
    return ONNX_OK;
}

static int onnx_fld_str_eq(const onnx_fld *f, const char *s) {
    size_t n = strlen(s);
    return f->wt == ONNX_WT_LEN && f->len == n && (n == 0 || memcmp(f->data, s, n) == 0);
}

/* Values of one occurrence of a repeated scalar field: a single value in its own wire type, or a packed run. */
typedef struct {
    const uint8_t *p, *end;
    int wt;     /* element wire type */
    int single; /* 1: v not yet returned; 2: returned */
    uint64_t v;
} onnx_rep;

static int onnx_rep_begin(onnx_rep *it, const onnx_fld *f, int elem_wt) {
    memset(it, 0, sizeof *it);
    it->wt = elem_wt;
    if (f->wt == ONNX_WT_LEN) {
        if ((elem_wt == ONNX_WT_I32 && f->len % 4) || (elem_wt == ONNX_WT_I64 && f->len % 8))
            return ONNX_ERR_MALFORMED;
        it->p = f->data;
        it->end = f->data + f->len;
        return ONNX_OK;
    }
    if (f->wt != elem_wt)
        return ONNX_ERR_MALFORMED;
    it->single = 1;
    it->v = f->v;
    return ONNX_OK;
}

/* 1: *v holds the next value; 0: done; <0: malformed. */
static int onnx_rep_next(onnx_rep *it, uint64_t *v) {
    if (it->single) {
        if (it->single == 2)
            return 0;
        it->single = 2;
        *v = it->v;
        return 1;
    }
    if (it->p == it->end)
        return 0;
    switch (it->wt) {
    case ONNX_WT_VARINT: return onnx_rd_varint(&it->p, it->end, v) ? ONNX_ERR_MALFORMED : 1;
    case ONNX_WT_I32: *v = onnx_le(it->p, 4); it->p += 4; return 1;
    default: *v = onnx_le(it->p, 8); it->p += 8; return 1;
    }
}

/* ---- TensorProto ---- */

/* The typed field that carries `elem_type` (0: none). */
static uint32_t onnx_typed_field(int32_t elem_type) {
    switch (elem_type) {
    case ONNX_FLOAT: return ONNX_FN_TENSOR_FLOAT_DATA;
    case ONNX_INT32:
    case ONNX_INT16:
    case ONNX_INT8:
    case ONNX_UINT16:
    case ONNX_UINT8:
    case ONNX_BOOL:
    case ONNX_FLOAT16:
    case ONNX_BFLOAT16: return ONNX_FN_TENSOR_INT32_DATA;
    case ONNX_INT64: return ONNX_FN_TENSOR_INT64_DATA;
    case ONNX_DOUBLE: return ONNX_FN_TENSOR_DOUBLE_DATA;
    case ONNX_UINT32:
    case ONNX_UINT64: return ONNX_FN_TENSOR_UINT64_DATA;
    default: return 0;
    }
}

static int onnx_typed_wt(uint32_t field) {
    switch (field) {
    case ONNX_FN_TENSOR_FLOAT_DATA: return ONNX_WT_I32;
    case ONNX_FN_TENSOR_DOUBLE_DATA: return ONNX_WT_I64;
    default: return ONNX_WT_VARINT;
    }
}

/* Stores one wire value (bit pattern for floats) as an element of `elem_type`, narrowing integers. */
static void onnx_store(uint8_t *dst, int32_t elem_type, uint64_t v) {
    switch (onnx_elem_size(elem_type)) {
    case 1: {
        uint8_t x = elem_type == ONNX_BOOL ? (uint8_t)(v != 0) : (uint8_t)v;
        memcpy(dst, &x, 1);
        break;
    }
    case 2: {
        uint16_t x = (uint16_t)v;
        memcpy(dst, &x, 2);
        break;
    }
    case 4: {
        uint32_t x = (uint32_t)v;
        memcpy(dst, &x, 4);
        break;
    }
    default: memcpy(dst, &v, 8); break;
    }
}

int onnx_tensor_parse(const uint8_t *bytes, size_t len, onnx_tensor *out) {
    if (!out)
        return ONNX_ERR_INVALID;
    memset(out, 0, sizeof *out);
    if (!bytes && len)
        return ONNX_ERR_INVALID;
    onnx_tensor t;
    memset(&t, 0, sizeof t);
    const uint8_t *raw = NULL;
    size_t raw_len = 0;
    size_t typed_count[16] = {0};
    unsigned sources = 0; /* bit per data field seen: typed fields and raw_data */
    int unsupported = 0, rc;
    onnx_fld f;
    onnx_rep it;
    uint64_t v;

    onnx_rd r = onnx_rd_init(bytes, len);
    while ((rc = onnx_rd_next(&r, &f)) > 0) {
        switch (f.num) {
        case ONNX_FN_TENSOR_DIMS:
            if ((rc = onnx_rep_begin(&it, &f, ONNX_WT_VARINT)))
                return rc;
            while ((rc = onnx_rep_next(&it, &v)) > 0) {
                int64_t d = onnx_as_int64(v);
                if (d < 0)
                    return ONNX_ERR_MALFORMED;
                if (t.rank == ONNX_MAX_RANK)
                    return ONNX_ERR_LIMIT;
                t.dims[t.rank++] = d;
            }
            if (rc < 0)
                return rc;
            break;
        case ONNX_FN_TENSOR_DATA_TYPE:
            if ((rc = onnx_fld_int32(&f, &t.elem_type)))
                return rc;
            break;
        case ONNX_FN_TENSOR_FLOAT_DATA:
        case ONNX_FN_TENSOR_INT32_DATA:
        case ONNX_FN_TENSOR_INT64_DATA:
        case ONNX_FN_TENSOR_DOUBLE_DATA:
        case ONNX_FN_TENSOR_UINT64_DATA:
            if ((rc = onnx_rep_begin(&it, &f, onnx_typed_wt(f.num))))
                return rc;
            while ((rc = onnx_rep_next(&it, &v)) > 0)
                typed_count[f.num]++;
            if (rc < 0)
                return rc;
            sources |= 1u << f.num;
            break;
        case ONNX_FN_TENSOR_STRING_DATA:
            if (f.wt != ONNX_WT_LEN)
                return ONNX_ERR_MALFORMED;
            sources |= 1u << f.num;
            break;
        case ONNX_FN_TENSOR_NAME:
            if ((rc = onnx_fld_str(&f, t.name, sizeof t.name)))
                return rc;
            break;
        case ONNX_FN_TENSOR_RAW_DATA:
            if (f.wt != ONNX_WT_LEN)
                return ONNX_ERR_MALFORMED;
            raw = f.data;
            raw_len = f.len;
            sources |= 1u << f.num;
            break;
        case ONNX_FN_TENSOR_SEGMENT:
        case ONNX_FN_TENSOR_EXTERNAL_DATA:
            if (f.wt != ONNX_WT_LEN)
                return ONNX_ERR_MALFORMED;
            unsupported = 1;
            break;
        case ONNX_FN_TENSOR_DATA_LOCATION: {
            int32_t loc;
            if ((rc = onnx_fld_int32(&f, &loc)))
                return rc;
            if (loc != 0)
                unsupported = 1;
            break;
        }
        default: break; /* doc_string and fields newer than this reader */
        }
    }
    if (rc < 0)
        return rc;
    if (unsupported)
        return ONNX_ERR_UNSUPPORTED;
    if (t.elem_type == ONNX_UNDEFINED)
        return ONNX_ERR_MALFORMED;
    size_t es = onnx_elem_size(t.elem_type);
    if (!es)
        return ONNX_ERR_UNSUPPORTED;

    uint64_t n = 1;
    for (int i = 0; i < t.rank; i++) {
        if (t.dims[i] != 0 && n > UINT64_MAX / (uint64_t)t.dims[i])
            return ONNX_ERR_MALFORMED;
        n *= (uint64_t)t.dims[i];
    }
    if (n > SIZE_MAX / es)
        return ONNX_ERR_MALFORMED;
    size_t nbytes = (size_t)n * es;

    if (sources == 0) {
        if (n != 0)
            return ONNX_ERR_MALFORMED; /* elements but no data */
        *out = t;
        return ONNX_OK;
    }
    if (sources & (sources - 1))
        return ONNX_ERR_MALFORMED; /* more than one of raw_data and the typed fields */

    if (sources == 1u << ONNX_FN_TENSOR_RAW_DATA) {
        if (raw_len != nbytes)
            return ONNX_ERR_MALFORMED;
        if (nbytes && !onnx_host_is_le())
            return ONNX_ERR_UNSUPPORTED;
        if (nbytes) {
            if (!(t.data = malloc(nbytes)))
                return ONNX_ERR_NOMEM;
            memcpy(t.data, raw, nbytes);
        }
        t.data_bytes = nbytes;
        *out = t;
        return ONNX_OK;
    }

    uint32_t field = onnx_typed_field(t.elem_type);
    if (sources != 1u << field || typed_count[field] != n)
        return ONNX_ERR_MALFORMED;
    if (nbytes && !(t.data = malloc(nbytes)))
        return ONNX_ERR_NOMEM;
    t.data_bytes = nbytes;
    size_t k = 0;
    r = onnx_rd_init(bytes, len);
    while (onnx_rd_next(&r, &f) > 0) { /* validated above */
        if (f.num != field || onnx_rep_begin(&it, &f, onnx_typed_wt(field)))
            continue;
        while (k < n && onnx_rep_next(&it, &v) > 0)
            onnx_store(t.data + k++ * es, t.elem_type, v);
    }
    *out = t;
    return ONNX_OK;
}

int onnx_read_file(const char *path, uint8_t **out, size_t *out_len) {
    if (!out || !out_len)
        return ONNX_ERR_INVALID;
    *out = NULL;
    *out_len = 0;
    if (!path)
        return ONNX_ERR_INVALID;
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return ONNX_ERR_IO;
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0;
    int err = ONNX_OK;
    for (;;) {
        if (len == cap) {
            size_t ncap = cap ? cap * 2 : 4096;
            if (ncap > ONNX_READ_FILE_MAX) {
                err = ONNX_ERR_LIMIT;
                break;
            }
            uint8_t *nbuf = realloc(buf, ncap);
            if (!nbuf) {
                err = ONNX_ERR_NOMEM;
                break;
            }
            buf = nbuf;
            cap = ncap;
        }
        size_t got = fread(buf + len, 1, cap - len, fp);
        len += got;
        if (got == 0) {
            if (ferror(fp))
                err = ONNX_ERR_IO;
            break;
        }
    }
    fclose(fp);
    if (err) {
        free(buf);
        return err;
    }
    *out = buf;
    *out_len = len;
    return ONNX_OK;
}

int onnx_tensor_read_file(const char *path, onnx_tensor *out) {
    if (!out)
        return ONNX_ERR_INVALID;
    memset(out, 0, sizeof *out);
    uint8_t *bytes;
    size_t len;
    int err = onnx_read_file(path, &bytes, &len);
    if (err)
        return err;
    err = onnx_tensor_parse(bytes, len, out);
    free(bytes);
    return err;
}

void onnx_tensor_free(onnx_tensor *t) {
    if (!t)
        return;
    free(t->data);
    memset(t, 0, sizeof *t);
}

/* ---- ModelProto summary ---- */

static int onnx_parse_dim(const onnx_fld *msg, int64_t *dim) {
    onnx_rd r = onnx_rd_init(msg->data, msg->len);
    onnx_fld f;
    int rc;
    *dim = -1;
    while ((rc = onnx_rd_next(&r, &f)) > 0) {
        if (f.num == ONNX_FN_DIM_VALUE) {
            int64_t v;
            if ((rc = onnx_fld_int64(&f, &v)))
                return rc;
            *dim = v >= 0 ? v : -1;
        } else if (f.num == ONNX_FN_DIM_PARAM) {
            if (f.wt != ONNX_WT_LEN)
                return ONNX_ERR_MALFORMED;
            *dim = -1;
        }
    }
    return rc;
}

static int onnx_parse_tensor_type(const onnx_fld *msg, onnx_value_info *vi) {
    onnx_rd r = onnx_rd_init(msg->data, msg->len);
    onnx_fld f, g;
    int rc;
    while ((rc = onnx_rd_next(&r, &f)) > 0) {
        if (f.num == ONNX_FN_TT_ELEM_TYPE) {
            if ((rc = onnx_fld_int32(&f, &vi->elem_type)))
                return rc;
        } else if (f.num == ONNX_FN_TT_SHAPE) {
            if (f.wt != ONNX_WT_LEN)
                return ONNX_ERR_MALFORMED;
            if (vi->rank < 0)
                vi->rank = 0;
            onnx_rd s = onnx_rd_init(f.data, f.len);
            while ((rc = onnx_rd_next(&s, &g)) > 0) {
                if (g.num != ONNX_FN_SHAPE_DIM)
                    continue;
                if (g.wt != ONNX_WT_LEN)
                    return ONNX_ERR_MALFORMED;
                if (vi->rank == ONNX_MAX_RANK)
                    return ONNX_ERR_LIMIT;
                if ((rc = onnx_parse_dim(&g, &vi->dims[vi->rank])))
                    return rc;
                vi->rank++;
            }
            if (rc < 0)
                return rc;
        }
    }
    return rc;
}

static int onnx_parse_value_info(const onnx_fld *msg, onnx_value_info *vi) {
    memset(vi, 0, sizeof *vi);
    vi->rank = -1;
    onnx_rd r = onnx_rd_init(msg->data, msg->len);
    onnx_fld f, g;
    int rc, has_name = 0;
    while ((rc = onnx_rd_next(&r, &f)) > 0) {
        if (f.num == ONNX_FN_VI_NAME) {
            if ((rc = onnx_fld_str(&f, vi->name, sizeof vi->name)))
                return rc;
            has_name = 1;
        } else if (f.num == ONNX_FN_VI_TYPE) {
            if (f.wt != ONNX_WT_LEN)
                return ONNX_ERR_MALFORMED;
            onnx_rd t = onnx_rd_init(f.data, f.len);
            while ((rc = onnx_rd_next(&t, &g)) > 0) {
                switch (g.num) {
                case ONNX_FN_TYPE_TENSOR:
                    if (g.wt != ONNX_WT_LEN)
                        return ONNX_ERR_MALFORMED;
                    if ((rc = onnx_parse_tensor_type(&g, vi)))
                        return rc;
                    break;
                case ONNX_FN_TYPE_SEQUENCE:
                case ONNX_FN_TYPE_MAP:
                case ONNX_FN_TYPE_SPARSE_TENSOR:
                case ONNX_FN_TYPE_OPTIONAL:
                    if (g.wt != ONNX_WT_LEN)
                        return ONNX_ERR_MALFORMED;
                    vi->elem_type = ONNX_UNDEFINED; /* not a plain tensor */
                    vi->rank = -1;
                    break;
                default: break;
                }
            }
            if (rc < 0)
                return rc;
        }
    }
    if (rc < 0)
        return rc;
    return has_name ? ONNX_OK : ONNX_ERR_MALFORMED;
}

/* *match = 1 when TensorProto `msg` is named `name`. */
static int onnx_tensor_named(const onnx_fld *msg, const char *name, int *match) {
    onnx_rd r = onnx_rd_init(msg->data, msg->len);
    onnx_fld f;
    int rc;
    *match = 0;
    while ((rc = onnx_rd_next(&r, &f)) > 0)
        if (f.num == ONNX_FN_TENSOR_NAME)
            *match = onnx_fld_str_eq(&f, name); /* the last occurrence wins */
    return rc;
}

/* *found = 1 when GraphProto `graph` has a dense or sparse initializer named `name`. */
static int onnx_graph_has_initializer(const onnx_fld *graph, const char *name, int *found) {
    onnx_rd r = onnx_rd_init(graph->data, graph->len);
    onnx_fld f, g;
    int rc, match;
    *found = 0;
    while ((rc = onnx_rd_next(&r, &f)) > 0) {
        if (f.num == ONNX_FN_GRAPH_INITIALIZER) {
            if (f.wt != ONNX_WT_LEN)
                return ONNX_ERR_MALFORMED;
            if ((rc = onnx_tensor_named(&f, name, &match)))
                return rc;
            *found |= match;
        } else if (f.num == ONNX_FN_GRAPH_SPARSE_INITIALIZER) {
            if (f.wt != ONNX_WT_LEN)
                return ONNX_ERR_MALFORMED;
            onnx_rd s = onnx_rd_init(f.data, f.len);
            while ((rc = onnx_rd_next(&s, &g)) > 0) {
                if (g.num != ONNX_FN_SPARSE_VALUES)
                    continue;
                if (g.wt != ONNX_WT_LEN)
                    return ONNX_ERR_MALFORMED;
                if ((rc = onnx_tensor_named(&g, name, &match)))
                    return rc;
                *found |= match;
            }
            if (rc < 0)
                return rc;
        }
    }
    return rc;
}

static int onnx_parse_node(const onnx_fld *msg, char *op_type, size_t cap) {
    onnx_rd r = onnx_rd_init(msg->data, msg->len);
    onnx_fld f;
    int rc, has_op = 0;
    while ((rc = onnx_rd_next(&r, &f)) > 0) {
        if (f.num == ONNX_FN_NODE_OP_TYPE) {
            if ((rc = onnx_fld_str(&f, op_type, cap)))
                return rc;
            has_op = 1;
        }
    }
    if (rc < 0)
        return rc;
    return has_op ? ONNX_OK : ONNX_ERR_MALFORMED;
}

static int onnx_parse_graph(const onnx_fld *graph, onnx_model_info *info) {
    onnx_rd r = onnx_rd_init(graph->data, graph->len);
    onnx_fld f;
    onnx_value_info vi;
    int rc, is_init;
    while ((rc = onnx_rd_next(&r, &f)) > 0) {
        switch (f.num) {
        case ONNX_FN_GRAPH_NODE:
            if (f.wt != ONNX_WT_LEN)
                return ONNX_ERR_MALFORMED;
            if (info->n_nodes < ONNX_MAX_NODES &&
                (rc = onnx_parse_node(&f, info->op_types[info->n_nodes], ONNX_MAX_OP_TYPE)))
                return rc;
            info->n_nodes++;
            break;
        case ONNX_FN_GRAPH_INPUT:
            if (f.wt != ONNX_WT_LEN)
                return ONNX_ERR_MALFORMED;
            if ((rc = onnx_parse_value_info(&f, &vi)))
                return rc;
            if ((rc = onnx_graph_has_initializer(graph, vi.name, &is_init)))
                return rc;
            if (is_init)
                break;
            if (info->n_inputs == ONNX_MAX_IO)
                return ONNX_ERR_LIMIT;
            info->inputs[info->n_inputs++] = vi;
            break;
        case ONNX_FN_GRAPH_OUTPUT:
            if (f.wt != ONNX_WT_LEN)
                return ONNX_ERR_MALFORMED;
            if ((rc = onnx_parse_value_info(&f, &vi)))
                return rc;
            if (info->n_outputs == ONNX_MAX_IO)
                return ONNX_ERR_LIMIT;
            info->outputs[info->n_outputs++] = vi;
            break;
        case ONNX_FN_GRAPH_INITIALIZER:
        case ONNX_FN_GRAPH_SPARSE_INITIALIZER:
            if (f.wt != ONNX_WT_LEN)
                return ONNX_ERR_MALFORMED;
            break;
        default: break;
        }
    }
    return rc;
}

/* OperatorSetIdProto: sets *version when it imports the default domain. */
static int onnx_parse_opset(const onnx_fld *msg, int64_t *version) {
    onnx_rd r = onnx_rd_init(msg->data, msg->len);
    onnx_fld f;
    int rc, is_default = 1; /* an absent domain is "" */
    int64_t v = 0;
    while ((rc = onnx_rd_next(&r, &f)) > 0) {
        if (f.num == ONNX_FN_OPSET_DOMAIN) {
            if (f.wt != ONNX_WT_LEN)
                return ONNX_ERR_MALFORMED;
            is_default = onnx_fld_str_eq(&f, "") || onnx_fld_str_eq(&f, "ai.onnx");
        } else if (f.num == ONNX_FN_OPSET_VERSION) {
            if ((rc = onnx_fld_int64(&f, &v)))
                return rc;
        }
    }
    if (rc < 0)
        return rc;
    if (is_default)
        *version = v;
    return ONNX_OK;
}

int onnx_model_info_read(const uint8_t *bytes, size_t len, onnx_model_info *out) {
    if (!out)
        return ONNX_ERR_INVALID;
    memset(out, 0, sizeof *out);
    if (!bytes && len)
        return ONNX_ERR_INVALID;
    onnx_rd r = onnx_rd_init(bytes, len);
    onnx_fld f, graph = {0};
    int rc, n_graphs = 0;
    while ((rc = onnx_rd_next(&r, &f)) > 0) {
        switch (f.num) {
        case ONNX_FN_MODEL_IR_VERSION:
            rc = onnx_fld_int64(&f, &out->ir_version);
            break;
        case ONNX_FN_MODEL_GRAPH:
            if (f.wt != ONNX_WT_LEN)
                rc = ONNX_ERR_MALFORMED;
            graph = f;
            n_graphs++;
            break;
        case ONNX_FN_MODEL_OPSET_IMPORT:
            rc = f.wt == ONNX_WT_LEN ? onnx_parse_opset(&f, &out->opset) : ONNX_ERR_MALFORMED;
            break;
        default: rc = ONNX_OK; break;
        }
        if (rc < 0)
            break;
    }
    if (rc >= 0) {
        if (n_graphs == 0)
            rc = ONNX_ERR_MALFORMED;
        else if (n_graphs > 1)
            rc = ONNX_ERR_UNSUPPORTED; /* protobuf would merge them; no writer does that */
        else
            rc = onnx_parse_graph(&graph, out);
    }
    if (rc < 0) {
        memset(out, 0, sizeof *out);
        return rc;
    }
    return ONNX_OK;
}
