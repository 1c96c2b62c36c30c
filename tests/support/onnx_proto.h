/* Test support: the ONNX protobuf wire format, hand-written from onnx.proto's field numbers. Owns a small
 * ModelProto builder/serializer (so tests make real models in code), a TensorProto reader for ONNX conformance
 * data (libonnx-testdata), and a summary reader of a ModelProto's graph inputs, outputs, op types and opset. */
#ifndef ORTVK_TESTS_ONNX_PROTO_H
#define ORTVK_TESTS_ONNX_PROTO_H

#include <stddef.h>
#include <stdint.h>

/* TensorProto.DataType numbers. */
enum {
    ONNX_UNDEFINED = 0,
    ONNX_FLOAT = 1,
    ONNX_UINT8 = 2,
    ONNX_INT8 = 3,
    ONNX_UINT16 = 4,
    ONNX_INT16 = 5,
    ONNX_INT32 = 6,
    ONNX_INT64 = 7,
    ONNX_STRING = 8,
    ONNX_BOOL = 9,
    ONNX_FLOAT16 = 10,
    ONNX_DOUBLE = 11,
    ONNX_UINT32 = 12,
    ONNX_UINT64 = 13,
    ONNX_COMPLEX64 = 14,
    ONNX_COMPLEX128 = 15,
    ONNX_BFLOAT16 = 16
};

/* Results. Every function that returns int returns ONNX_OK or one of these (negative). */
#define ONNX_OK 0
#define ONNX_ERR_MALFORMED (-1)   /* not a valid encoding of the expected message (truncated, bad tag, ...) */
#define ONNX_ERR_UNSUPPORTED (-2) /* valid, but uses what this library does not handle: STRING/COMPLEX elements,
                                     external data, segments, a big-endian host for raw data */
#define ONNX_ERR_LIMIT (-3)       /* exceeds a fixed capacity below (rank, name length, inputs, nodes) */
#define ONNX_ERR_IO (-4)          /* a file could not be opened or read */
#define ONNX_ERR_NOMEM (-5)       /* an allocation failed */
#define ONNX_ERR_INVALID (-6)     /* builder misuse: NULL name, dims/raw size mismatch, unsupported type, ... */

/* Fixed capacities of the reader structs (a larger input fails with ONNX_ERR_LIMIT, never truncates). */
#define ONNX_MAX_RANK 16
#define ONNX_MAX_NAME 128   /* bytes, including the terminating NUL */
#define ONNX_MAX_IO 16      /* graph inputs (initializers excluded) and graph outputs */
#define ONNX_MAX_NODES 64
#define ONNX_MAX_OP_TYPE 64 /* bytes, including the terminating NUL */

/* "malformed", "unsupported", ... for a result above; "ok" for ONNX_OK. */
const char *onnx_strerror(int err);

/* Bytes per element of `elem_type` in its natural (host, little-endian) layout; BOOL is 1 byte.
 * 0 for types this library does not handle (UNDEFINED, STRING, COMPLEX64/128, unknown numbers). */
size_t onnx_elem_size(int32_t elem_type);

/* ---- Model builder ------------------------------------------------------------------------------------
 * Builds ModelProto{ir_version 8, producer_name "ortvk-tests", opset_import {"", opset}, graph "g"}.
 * Nothing is checked per call by the caller: the first failure (allocation or bad argument) is recorded in the
 * model and onnx_model_serialize returns it. Names are copied; the caller's arrays may be reused at once. */
typedef struct onnx_model onnx_model;
typedef struct onnx_node onnx_node;

/* NULL only when the model struct itself cannot be allocated. */
onnx_model *onnx_model_new(int64_t opset_version);
void onnx_model_free(onnx_model *m);

/* Graph input/output of tensor type `elem_type`. rank < 0: no shape (unknown rank). dims[i] < 0: symbolic
 * dimension named "d<i>" (the same name in two values means the same size to ORT's shape inference). */
void onnx_model_add_input(onnx_model *m, const char *name, int32_t elem_type, int rank, const int64_t *dims);
/* An input whose every dim is symbolic, named after the size `sizes` gives it at run time ("n3"), so that two dims
 * share a name exactly when they will be equal (ORT plans buffers by those names). */
void onnx_model_add_input_by_size(onnx_model *m, const char *name, int32_t elem_type, int rank, const int64_t *sizes);
void onnx_model_add_output(onnx_model *m, const char *name, int32_t elem_type, int rank, const int64_t *dims);

/* Graph initializer with raw_data `raw` (host = little-endian layout, BOOL one byte each); raw_bytes must be
 * onnx_elem_size(elem_type) * product(dims). It is not listed as a graph input. */
void onnx_model_add_initializer(onnx_model *m, const char *name, int32_t elem_type, int rank, const int64_t *dims,
                                const void *raw, size_t raw_bytes);

/* Node of the default domain, named "n<k>" (k = 0, 1, ... in order of addition). An input "" is an omitted
 * optional input. The node lives until onnx_model_free; NULL on failure (the attr functions accept NULL). */
onnx_node *onnx_model_add_node(onnx_model *m, const char *op_type, const char *const *inputs, int n_in,
                               const char *const *outputs, int n_out);
void onnx_node_attr_int(onnx_node *n, const char *name, int64_t v);
void onnx_node_attr_ints(onnx_node *n, const char *name, const int64_t *v, int count);
void onnx_node_attr_float(onnx_node *n, const char *name, float v);
void onnx_node_attr_floats(onnx_node *n, const char *name, const float *v, int count);
void onnx_node_attr_string(onnx_node *n, const char *name, const char *v);
void onnx_node_attr_strings(onnx_node *n, const char *name, const char *const *v, int count);
/* TENSOR attribute (Constant's "value", ConstantOfShape's "value"); same rules as onnx_model_add_initializer. */
void onnx_node_attr_tensor(onnx_node *n, const char *name, int32_t elem_type, int rank, const int64_t *dims,
                           const void *raw, size_t raw_bytes);

/* GRAPH attribute (If's "then_branch"/"else_branch"): the nodes, initializers, inputs and outputs added to `body`
 * (a model used as a graph builder; its opset is ignored), as a GraphProto named `graph_name`. `body` is copied:
 * free it whenever you like. Its node names ("n<k>") may repeat the outer graph's; ONNX allows that. */
void onnx_node_attr_graph(onnx_node *n, const char *name, const onnx_model *body, const char *graph_name);

/* Encodes the model into *out (malloc'd, release with free()) and *out_len. ONNX_OK, or the first recorded
 * error (then *out is NULL and *out_len 0). May be called more than once. */
int onnx_model_serialize(const onnx_model *m, uint8_t **out, size_t *out_len);

/* ---- TensorProto reader ------------------------------------------------------------------------------- */
typedef struct {
    int32_t elem_type;
    int rank;
    int64_t dims[ONNX_MAX_RANK];
    char name[ONNX_MAX_NAME];
    uint8_t *data;     /* malloc'd, natural layout of elem_type (host order; BOOL 0/1 bytes); NULL when empty */
    size_t data_bytes; /* onnx_elem_size(elem_type) * product(dims) */
} onnx_tensor;

/* Decodes a serialized TensorProto. Data may come from raw_data or from the typed repeated fields (float_data,
 * int32_data, int64_data, double_data, uint64_data; packed or not). int32_data values of INT8/UINT8/INT16/
 * UINT16/BOOL/FLOAT16/BFLOAT16 tensors (FLOAT16/BFLOAT16 as their bit patterns) are narrowed to the element
 * width; uint64_data of UINT32 likewise. On failure *out is zeroed (nothing to free). */
int onnx_tensor_parse(const uint8_t *bytes, size_t len, onnx_tensor *out);
int onnx_tensor_read_file(const char *path, onnx_tensor *out);
void onnx_tensor_free(onnx_tensor *t);

/* Reads a whole file into *out (malloc'd; release with free()). */
int onnx_read_file(const char *path, uint8_t **out, size_t *out_len);

/* ---- ModelProto summary reader ------------------------------------------------------------------------ */
typedef struct {
    char name[ONNX_MAX_NAME];
    int32_t elem_type; /* ONNX_UNDEFINED for a value that is not a tensor (sequence, map, optional, sparse) */
    int rank;          /* -1: no shape given (or not a tensor) */
    int64_t dims[ONNX_MAX_RANK]; /* -1: symbolic or unknown dimension */
} onnx_value_info;

typedef struct {
    int64_t ir_version;
    int64_t opset; /* version imported for the default domain ("" or "ai.onnx"); 0 when none is imported */
    int n_inputs, n_outputs, n_nodes; /* n_nodes counts them all, op_types keeps ONNX_MAX_NODES */
    onnx_value_info inputs[ONNX_MAX_IO]; /* graph inputs in order, minus those that are also initializers */
    onnx_value_info outputs[ONNX_MAX_IO];
    char op_types[ONNX_MAX_NODES][ONNX_MAX_OP_TYPE]; /* of the top-level graph's first nodes, in order */
} onnx_model_info;

/* Summarises a serialized ModelProto. Every byte is bounds-checked; malformed input fails, never overreads. */
int onnx_model_info_read(const uint8_t *bytes, size_t len, onnx_model_info *out);

#endif
