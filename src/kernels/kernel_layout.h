/* What the layout ops share (kernel_layout.c owns it; kernel_gather.c uses it): input checks, the strided copy
 * every one of them records, and shape, axes or repeats lists known at Compile or at run time. */
#ifndef ORTVK_KERNEL_LAYOUT_H
#define ORTVK_KERNEL_LAYOUT_H

#include "kernels/kernel_internal.h"

/* Whether the node's first `n_data_in` inputs and its outputs are float tensors (else the reason in `why`). */
bool ortvk_klayout_floats(const ortvk_knode *node, size_t n_data_in, char *why, size_t why_len);
/* Copies the elements of the iteration space `s` (stride[0]: source, stride[1]: destination, in elements) from
 * src + src_off to dst + dst_off, elements of `esize` bytes. A contiguous copy becomes a buffer copy. */
OrtStatus *ortvk_kstrided_copy(ortvk_krun *run, VkDeviceAddress src, int64_t src_off, VkDeviceAddress dst,
                               int64_t dst_off, ortvk_kstrides *s, size_t esize);
/* The element strides of a row-major tensor of `dims`. */
void ortvk_krow_major(const int64_t *dims, size_t rank, int64_t *strides);
/* A shape, axes or repeats list (input 1): constant, read at Compile into `list`, or known on the host at run time
 * (*count = ORTVK_KRUNTIME). False when neither. */
bool ortvk_klist_prepare(const ortvk_knode *node, int64_t *list, int *count);
/* `params`' list with a run-time list filled in from input 1's host values. */
OrtStatus *ortvk_klist_at_run(const ortvk_kparams *params, const ortvk_krun *run, const char *op,
                              ortvk_kparams_reshape *q);

#endif
