/* Private to ortvk. Device kernels: which ONNX nodes ortvk runs on its Vulkan device (asked by GetCapability), the
 * compiled state of each claimed partition, and recording and submitting it on a stream once per run. See
 * docs/kernels.md ("Kernels") for the design. */
#ifndef ORTVK_KERNELS_H
#define ORTVK_KERNELS_H

#include "vk/vk_stream.h"

/* The pipelines of one device, shared by every session on it and created on first use. Reference counted: every
 * EP on the device holds one reference. */
typedef struct ortvk_kernel_device ortvk_kernel_device;

OrtStatus *ortvk_kernel_device_get(ortvk_device *device, ortvk_kernel_device **out);
void ortvk_kernel_device_ref(ortvk_kernel_device *kdev);
void ortvk_kernel_device_put(ortvk_kernel_device *kdev);

/* Whether the kernels of `device` read float32 subnormal operands from their bits where a flushed one would change
 * the answer by more than a value below FLT_MIN (docs/kernels.md, "Subnormals"): by default on devices that may
 * flush them (no shaderDenormPreserveFloat32, and not a CPU: lavapipe keeps them); ORTVK_SUBNORMALS=exact or
 * =native overrides it (an error for any other value). */
#define ORTVK_SUBNORMALS_ENV "ORTVK_SUBNORMALS"
OrtStatus *ortvk_kernel_subnormals(const ortvk_device *device, bool *exact);

/* Whether ortvk runs `node` exactly as ONNX specifies it (types, attributes, constant inputs and opset all
 * checked) on a device with `caps` (16- and 8-bit storage decide float16 and bool). When not, `why` (may be NULL)
 * says which check refused it. */
bool ortvk_kernel_supported(const OrtNode *node, const ortvk_device_caps *caps, char *why, size_t why_len);

/* Whether every node of `nodes` comes after the nodes that make its inputs (false also when ORT cannot say). */
bool ortvk_nodes_topological(const OrtNode *const *nodes, size_t count);

/* QDQ groups, the form of ORT's quantizer: a node (neither DequantizeLinear nor QuantizeLinear, its centre) reading the
 * output of a DequantizeLinear and whose outputs only QuantizeLinear nodes read, directly or through one Relu that
 * only they read; with those DequantizeLinear, Relu and QuantizeLinear nodes. ORT's CPU EP fuses such groups into
 * its integer kernels (DequantizeLinear -> Conv -> QuantizeLinear runs as QLinearConv), which round once where float
 * ops round each step: run as float ops, a group would answer otherwise (one quantization step, in about one output
 * of 2,000: test_kernels_quant). group[j] is the index of the centre of node j's group, -1 for a node of none.
 * Returns false (no groups) when ORT cannot say. */
bool ortvk_nodes_qdq_groups(const OrtNode *const *nodes, size_t count, ptrdiff_t *group);

/* Whether ortvk runs the QDQ group of `centre` as ORT's CPU EP does, as one integer node (kernel_qdq.c: a Conv's or
 * a MatMul's group of uint8 activations, the values between its nodes read by no other node); when not (`why`),
 * GetCapability leaves the whole group to the CPU EP. */
bool ortvk_qdq_group_supported(const OrtNode *const *nodes, size_t count, const ptrdiff_t *group, size_t centre,
                               const ortvk_device_caps *caps, char *why, size_t why_len);

/* Whether the QDQ group of `centre` answers alike however it runs, so that its nodes may run one by one as the float
 * ops they are: its centre only selects or moves values (Reshape, Transpose, Slice, Gather, MaxPool, Relu, ...) and
 * every scale of its DequantizeLinear and QuantizeLinear nodes is a constant positive normal float below
 * FLT_MAX / 256. Each output is then a DequantizeLinear's value (or 0) quantized, as on ORT's CPU EP, whether it
 * drops the group's DequantizeLinear and QuantizeLinear nodes (equal scales and zero points: the integers
 * themselves) or not. ortvk takes such a group only where it runs all of its nodes. */
bool ortvk_qdq_group_exact(const OrtNode *const *nodes, size_t count, const ptrdiff_t *group, size_t centre);

/* A claimed partition compiled: its nodes in topological order, their attributes and constant inputs (those the
 * device reads copied into device memory), and the values between them. */
typedef struct ortvk_partition ortvk_partition;

/* `graph` holds the partition's nodes; `fused` is the node ORT runs in their place (its inputs are the values the
 * partition reads from outside, constant initializers dropped; its outputs those read outside it). Constants are
 * copied through `stream`, waiting for the copy. With `fuse_qdq`, each QDQ group ortvk_qdq_group_supported takes
 * becomes one integer kernel, as GetCapability claimed it. */
OrtStatus *ortvk_partition_create(ortvk_kernel_device *kdev, ortvk_stream *stream, const OrtGraph *graph,
                                  const OrtNode *fused, bool fuse_qdq, ortvk_partition **out);
void ortvk_partition_destroy(ortvk_partition *partition);
size_t ortvk_partition_size(const ortvk_partition *partition);

/* Profiles the partition's runs into `profile` (kernels/kernel_profile.h; takes a reference). */
typedef struct ortvk_profile ortvk_profile;
void ortvk_partition_set_profile(ortvk_partition *partition, ortvk_profile *profile);

/* One run of the partition: shapes from `context`, outputs allocated through ORT, values inside the partition in
 * buffers of the run's own, every node's dispatches recorded into one command buffer submitted on `stream`. Never
 * waits on the host. */
OrtStatus *ortvk_partition_run(ortvk_partition *partition, ortvk_stream *stream, OrtKernelContext *context);

#endif
