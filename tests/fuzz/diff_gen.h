/* The differential fuzzer's case generator: for every op ortvk claims, a one-node model with mutated shapes,
 * attributes, constant inputs and input values, made deterministically from (seed, case index). Also what the
 * known-open findings' predicates read: the recorded attributes and constants of a case. */
#ifndef ORTVK_TESTS_DIFF_GEN_H
#define ORTVK_TESTS_DIFF_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "onnx_proto.h"

#define DC_MAX_IN 8
#define DC_MAX_OUT 4
#define DC_MAX_RANK 6
#define DC_MAX_ATTR 24

/* A graph input (with its values) or an initializer. */
typedef struct dc_tensor {
    char name[16];
    int32_t type;
    int rank;
    int64_t dims[DC_MAX_RANK];
    void *data; /* malloc'd, natural layout of `type` */
    size_t bytes;
} dc_tensor;

/* An attribute, or an int64/float constant input, as the case set it (for descriptions and predicates). */
typedef struct dc_attr {
    char name[40];
    char kind; /* 'i' ints, 'f' floats, 's' string */
    char src;  /* 'a' an attribute, 'c' a constant input */
    int n;     /* values (ints/floats); -1 for a scalar */
    int64_t v[8];
    float f[8];
    char s[24];
} dc_attr;

typedef struct dc_rng {
    uint64_t s;
} dc_rng;

/* Input value kinds. */
enum { DC_VALUES_NORMAL, DC_VALUES_SPECIAL, DC_VALUES_INTS, DC_VALUES_POSITIVE, DC_VALUES_ONE_SPECIAL };
extern const char *const dc_values_names[];

typedef struct dc_op dc_op;

typedef struct dcase {
    uint64_t seed;
    long index;
    const dc_op *op;
    const char *op_name;
    int opset;
    bool half;   /* float tensors are float16 on ortvk (the CPU EP runs the float model on the same values) */
    bool vk;     /* this build is ortvk's model (differs from the CPU's only when half) */
    int32_t ft;  /* the float type of this build: FLOAT, or FLOAT16 on ortvk's side of a half case */
    int shapes;  /* 0: graph inputs declare their shapes, 1: symbolic dims, 2: no shape */
    int values;  /* DC_VALUES_* */
    bool big;    /* a deliberate case past 65,535 iterations */
    double atol; /* the comparison's absolute tolerance (long sums get more) */
    bool ill_conditioned; /* Fusion: a scalar divided by a chained value that is not exact on both sides */
    bool const_huge;      /* a float initializer holds a finite value of magnitude 1e19 or more */
    bool gpu_forms;       /* ortvk's kernels take their GPU forms on the device (set by the harness, not drawn) */
    bool const_subnormal; /* a float32 initializer holds a subnormal value */
    bool flushes_subnormals; /* the device may flush float32 subnormals (set by the harness, not drawn) */
    onnx_model *model;
    onnx_node *node;
    int n_in; /* graph inputs fed at Run */
    dc_tensor in[DC_MAX_IN];
    int n_out;
    char out[DC_MAX_OUT][8];
    int32_t out_type[DC_MAX_OUT];
    int n_attr;
    dc_attr attr[DC_MAX_ATTR];
    char desc[2048];
    dc_rng r;
    bool failed; /* the generator ran out of room (the case is skipped) */
} dcase;

/* The claimed ops the generator covers, in a fixed order: case i exercises op i % dc_op_count(). */
size_t dc_op_count(void);
const char *dc_op_name(size_t i);
int dc_op_index(const char *name);

/* Builds case `index` of `seed`: its CPU side (vk false) or ortvk's (vk true; the same model unless c->half).
 * Both sides draw the same values. Release with dc_free. */
void dc_build(dcase *c, uint64_t seed, long index, bool vk);
void dc_free(dcase *c);

/* The recorded attribute or constant input `name`, or NULL. */
const dc_attr *dc_get(const dcase *c, const char *name);
/* The largest |value| of a recorded int attribute/constant (0 when absent). */
int64_t dc_max_abs(const dcase *c, const char *name);
/* The number of elements of graph input i (0 if absent). */
uint64_t dc_count(const dcase *c, int i);

#endif
