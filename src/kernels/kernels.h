/* Private to ortvk. Device kernels: which ONNX nodes ortvk runs on its Vulkan device (asked by GetCapability), the
 * compiled state of each claimed node, and recording and submitting it on a stream once per run. See
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

/* One claimed node, compiled: its op, attributes and the constant inputs it needs on the host. */
typedef struct ortvk_kernel ortvk_kernel;

/* Whether ortvk runs `node` exactly as ONNX specifies it (types, attributes, constant inputs and opset all
 * checked) on a device with (`device_float16`) or without 16-bit storage. When not, `why` (may be NULL) says
 * which check refused it. */
bool ortvk_kernel_supported(const OrtNode *node, bool device_float16, char *why, size_t why_len);

/* `fused` is the node ORT runs in place of `node` (its inputs and outputs are a subset of node's, reordered).
 * Constant inputs the device reads are copied into device memory through `stream`, waiting for the copy. */
OrtStatus *ortvk_kernel_create(ortvk_kernel_device *kdev, ortvk_stream *stream, const OrtNode *node,
                               const OrtNode *fused, ortvk_kernel **out);
void ortvk_kernel_destroy(ortvk_kernel *kernel);

/* One run of the node: shapes from `context`, outputs allocated through ORT, dispatches recorded and submitted on
 * `stream`. Never waits on the host. */
OrtStatus *ortvk_kernel_run(ortvk_kernel *kernel, ortvk_stream *stream, OrtKernelContext *context);

/* The op type ("Conv", ...) of a compiled kernel, for messages. */
const char *ortvk_kernel_op_type(const ortvk_kernel *kernel);

#endif
