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

/* Marks in `member` the nodes of `nodes` that belong to a QDQ group, the form of ORT's quantizer: a node (neither
 * DequantizeLinear nor QuantizeLinear) reading the output of a DequantizeLinear and whose outputs only
 * QuantizeLinear nodes read, with those DequantizeLinear and QuantizeLinear nodes. ORT's CPU EP fuses such groups
 * into its integer kernels (DequantizeLinear -> Conv -> QuantizeLinear runs as QLinearConv), which round once where
 * ortvk's float ops round each step: a group on ortvk would answer otherwise (one quantization step, in about one
 * output of 2,000: test_kernels_quant), so GetCapability leaves the groups to the CPU EP. A node whose outputs are
 * graph outputs too may be marked, which only leaves it to the CPU EP. Returns false (nothing marked) when ORT
 * cannot say. */
bool ortvk_nodes_qdq_groups(const OrtNode *const *nodes, size_t count, bool *member);

/* A claimed partition compiled: its nodes in topological order, their attributes and constant inputs (those the
 * device reads copied into device memory), and the values between them. */
typedef struct ortvk_partition ortvk_partition;

/* `graph` holds the partition's nodes; `fused` is the node ORT runs in their place (its inputs are the values the
 * partition reads from outside, constant initializers dropped; its outputs those read outside it). Constants are
 * copied through `stream`, waiting for the copy. */
OrtStatus *ortvk_partition_create(ortvk_kernel_device *kdev, ortvk_stream *stream, const OrtGraph *graph,
                                  const OrtNode *fused, ortvk_partition **out);
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
