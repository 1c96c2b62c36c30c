/* The partition compiler's own types, shared by its files: a compiled node (kernels.c), the element-wise fusion
 * (kernel_fuse.c) and a run's recording (kernel_run.c). Not for the ops: they see kernel_internal.h. */
#ifndef ORTVK_KERNEL_PARTITION_H
#define ORTVK_KERNEL_PARTITION_H

#include <stdatomic.h>

#include "kernels/kernel_internal.h"
#include "kernels/kernel_profile.h"

/* A constant initializer input, copied into device memory at Compile. */
typedef struct kconst {
    ortvk_ktensor view;   /* what a run sees as the input */
    ortvk_buffer *buffer; /* owned */
    void *host;           /* owned: the values of a constant the op reads on the host at run time */
} kconst;

/* One node of a partition, compiled. */
typedef struct ortvk_kernel {
    const ortvk_kop *op;
    ortvk_kparams params;
    size_t n_in, n_out;
    int in_slot[ORTVK_KMAX_INPUTS];   /* the partition value each input reads; -1: omitted or constant */
    int out_slot[ORTVK_KMAX_OUTPUTS]; /* the value each output writes; -1: omitted */
    kconst *consts[ORTVK_KMAX_INPUTS]; /* constant inputs the device reads; NULL for the others */
    kconst *chain_consts;              /* a fused chain's step operands (ortvk_kchain_constants), or NULL */
    bool float16;                      /* runs the shaders' float16 variant */
    bool chainable;                    /* can be a step of an element-wise chain (fuse_chains) */
    ortvk_chain_step step;
    int chain_input;                   /* the input carrying the chained value; -1: either (t + x, t * x) */
    bool residual_ok;                  /* chain_input -1, inputs of one shape known at Compile: t + r, t * r */
    bool operand_ok;                   /* chain_input -1, ranks known: t + r, t * r, t + q, t * q broadcast in the
                                          stand-alone chain kernel (ortvk_kchain_operand_shapes) */
    int operand_x;                     /* ... and the input a chain starting at it takes as x */
    int x_rank;                        /* input 0's rank at Compile (-1 unknown) and its last dim (-1 symbolic or */
    int64_t x_last;                    /* unknown): the written-out LayerNormalization (kernel_fuse_norm.c) */
    bool has_scalar;                   /* input 1 is a float constant of one element, of rank 0 or 1: */
    float scalar;                      /* its value (Pow's exponent there) */
    char op_type[32];
    char *name;                        /* the node's name (the profile, run-time errors) */
} ortvk_kernel;

/* A value a partition's nodes read or write: an input of the fused node ORT runs, one of its outputs, or internal
 * (made and used inside the partition: in a buffer of the run's own). */
typedef struct pvalue {
    char *name;
    int fused_in, fused_out; /* index among the fused node's inputs / outputs, or -1 */
    int last_use;            /* the last kernel that reads it, -1 when none does */
    bool produced;           /* a node of the partition writes it */
    bool on_host;            /* ... a node evaluated on the host, which keeps its values there */
    bool host_read;          /* a node reads its values on the host (kernel_shape_ops.c) */
} pvalue;

struct ortvk_partition {
    ortvk_kernel_device *kdev; /* holds a reference */
    size_t n_kernels;
    ortvk_kernel **kernels;    /* topological order */
    size_t n_values, values_capacity;
    pvalue *values;
    char *name;                /* the fused node's */
    ortvk_profile *profile;    /* NULL unless profiling; holds a reference */
    int profile_id;
    atomic_bool planned;       /* a run has planned its pipelines (kernel_run.c, plan_pipelines) */
};

/* A kernel's constants (kernel_consts.c): constant input `index` of node `k` copied into a device buffer through
 * `stream` (not waited for: ortvk_partition_create waits once for all; Conv's weights packed on the way, and widened
 * to float32 where `kdev` takes the CPU forms), or kept in host memory for an op that reads it on the host at run
 * time. Then freeing them; the kernel with its constants. */
OrtStatus *ortvk_kernel_upload_const(ortvk_kernel *kernel, const ortvk_kernel_device *kdev, ortvk_stream *stream,
                                     const ortvk_knode *k, size_t index);
OrtStatus *ortvk_kernel_keep_const(ortvk_kernel *kernel, const ortvk_knode *k, size_t index);
void ortvk_kernel_free_consts(ortvk_kernel *kernel);
void ortvk_kernel_destroy(ortvk_kernel *kernel);

/* Whether ortvk runs node `k` as read (find_op's checks, and its element types on a device with `caps`). */
bool ortvk_knode_supported(const ortvk_knode *k, const ortvk_device_caps *caps, char *why, size_t why_len);
/* The QDQ group of `centre` among `nodes` (group[j] == centre for its members: ortvk_nodes_qdq_groups) read as the
 * node ORT's CPU EP runs in its place (kernel_qdq.c): QLinearConv or QLinearMatMul, over the group's outer inputs
 * and output, with the centre's attributes and name. False (with `why`) for a group ortvk does not run so. */
bool ortvk_qdq_read(const OrtNode *const *nodes, size_t count, const ptrdiff_t *group, size_t centre,
                    const ortvk_device_caps *caps, ortvk_knode *out, char *why, size_t why_len);

/* Runs LayerNormalization written out as its ops (ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt, Div, Mul, Add) as
 * one LayerNormalization kernel (kernel_fuse_norm.c); before the other fusions. */
void ortvk_partition_fuse_norms(ortvk_partition *p);
/* Fuses runs of element-wise kernels of a compiled partition (kernel_fuse.c); `stream` uploads each chain's
 * constants (ortvk_kernel_upload_chain). */
OrtStatus *ortvk_partition_fuse(ortvk_partition *p, ortvk_stream *stream);
/* Then small Gemm/MatMul chains into one kernel each (kernel_mlp.c); `stream` uploads their weights. */
OrtStatus *ortvk_partition_fuse_mlp(ortvk_partition *p, ortvk_stream *stream);
/* How many kernel inputs read each value (an array of n_values, the caller frees it), or NULL out of memory. */
int *ortvk_partition_readers(const ortvk_partition *p);
/* The first kernel after `from` that reads value `slot` (and *input, the input it reads it as), or -1. */
int ortvk_partition_reader(const ortvk_partition *p, size_t from, int slot, size_t *input);
/* After a fusion: closes the gaps (NULL kernels) and says again which kernel reads each value last. */
void ortvk_partition_compact(ortvk_partition *p);
/* Copies `chain`'s step operands into a device buffer the kernel owns (kernel->chain_consts), through `stream`,
 * followed by the per-channel steps' operands: the `n_channel` constants `channel` (taken from the kernels fused,
 * freed here whatever the outcome). */
OrtStatus *ortvk_kernel_upload_chain(ortvk_kernel *kernel, ortvk_stream *stream, const ortvk_kparams_chain *chain,
                                     kconst **channel, size_t n_channel);

/* What a run keeps until its submission retires (kernel_held.c): a reference on a buffer (dropped on failure too),
 * the texel views of [offset, offset + range) of one (made once a run, of float16 or float32 elements), and the
 * run's profile (begun here: NULL when `profile` is, or out of memory: the run goes unprofiled).
 * ortvk_kheld_release, the retire callback, drops them all (`owner`: run->held; NULL is fine). */
OrtStatus *ortvk_krun_hold(ortvk_krun *run, ortvk_buffer *buffer);
OrtStatus *ortvk_krun_hold_views(ortvk_krun *run, const ortvk_buffer *buffer, VkDeviceSize offset,
                                 VkDeviceSize range, ortvk_ktexel_type type, ortvk_ktexels *out);
ortvk_profile_run *ortvk_krun_profile_begin(ortvk_krun *run, ortvk_profile *profile, int id, const char *name,
                                            size_t nodes);
void ortvk_kheld_release(void *owner);

#endif
