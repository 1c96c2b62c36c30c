/* A compiled kernel's constants and their lifetime: constant inputs copied to the device (Conv's and MatMul's
 * weights packed on the way) or kept on the host for ops that read them there, a fused chain's step operands, and
 * the kernel's end. */
#include <stdlib.h>
#include <string.h>

#include "kernels/kernel_partition.h"
#include "vk/vk_transfer.h"

/* The kernel's record of constant input `index` (kernel->consts[index], owned by the kernel from here on): its type
 * and dims; *data and *bytes its values in ORT's host memory. */
static OrtStatus *const_view(ortvk_kernel *kernel, const ortvk_knode *k, size_t index, kconst **out,
                             const void **data, size_t *bytes)
{
    const OrtValue *value = k->in[index].constant;
    kconst *c = calloc(1, sizeof(*c));
    if (c == NULL) return ortvk_status(ORT_FAIL, "out of host memory compiling %s", k->name);
    *out = kernel->consts[index] = c;
    ortvk_ktensor *t = &c->view;
    const int64_t *dims = NULL;
    ORTVK_TRY(ortvk_ort->GetTensorElementTypeAndShapeDataReference(value, &t->type, &dims, &t->rank));
    if (t->rank > ORTVK_KMAX_RANK) return ortvk_status(ORT_EP_FAIL, "%s: constant of rank %zu", k->name, t->rank);
    if (t->rank > 0) memcpy(t->dims, dims, t->rank * sizeof(int64_t));
    t->present = true;
    t->count = ortvk_kcount(t->dims, t->rank);
    *bytes = t->count * ortvk_element_size(t->type);
    *data = NULL;
    return *bytes == 0 ? NULL : ortvk_ort->GetTensorData(value, data);
}

/* The ops that rearrange a constant input on its way to the device (ortvk_kpack_fn). */
static const struct {
    const char *op_type;
    ortvk_kpack_fn pack;
} packers[] = {{"Conv", ortvk_kconv_pack}, {"MatMul", ortvk_kgemm_pack}, {"Gemm", ortvk_kgemm_pack}};

/* Copies constant input `index` into a device buffer through `stream` (not waited for: ortvk_partition_create waits
 * once for all of a partition's copies), rearranged by its op's packer where it has one. ORT keeps initializers of a
 * fused node in host memory, so the device needs its own copy. */
OrtStatus *ortvk_kernel_upload_const(ortvk_kernel *kernel, ortvk_stream *stream, const ortvk_knode *k, size_t index)
{
    kconst *c = NULL;
    const void *data = NULL;
    size_t bytes = 0;
    ORTVK_TRY(const_view(kernel, k, index, &c, &data, &bytes));
    if (bytes == 0) return NULL;
    ortvk_ktensor *t = &c->view;
    ortvk_kpack_fn pack = NULL;
    for (size_t i = 0; i < sizeof(packers) / sizeof(packers[0]); i++)
        if (strcmp(k->op_type, packers[i].op_type) == 0) pack = packers[i].pack;
    size_t packed_bytes = pack != NULL ? pack(&kernel->params, index, t, data, NULL) : 0;
    void *packed = NULL;
    if (packed_bytes > 0) {
        if ((packed = malloc(packed_bytes)) == NULL)
            return ortvk_status(ORT_FAIL, "out of host memory compiling %s", k->name);
        pack(&kernel->params, index, t, data, packed);
        t->packed = true;
        data = packed;
        bytes = packed_bytes;
    }
    OrtStatus *status = ortvk_buffer_allocate(stream->device, bytes, &c->buffer);
    if (status == NULL) {
        t->buffer = c->buffer;
        t->address = c->buffer->address;
        ortvk_copy_end src = {.host = (void *)data};
        status = ortvk_transfer_copy(stream, ortvk_copy_end_held(c->buffer, 0), src, bytes, false);
    }
    free(packed);
    return status;
}

static void kconst_free(kconst **c)
{
    if (*c == NULL) return;
    free((*c)->host);
    ortvk_buffer_destroy((*c)->buffer); /* runs still queued hold their own references */
    free(*c);
    *c = NULL;
}

/* Fills the chain's buffer `c`: the step operands, then each per-channel constant, copied on the device. */
static OrtStatus *chain_fill(ortvk_stream *stream, kconst *c, const ortvk_kparams_chain *chain, kconst **channel,
                             size_t n_channel)
{
    float values[ORTVK_KCHAIN_FLOATS];
    ortvk_kchain_constants(chain, values);
    ORTVK_TRY(ortvk_buffer_allocate(stream->device, c->view.count * sizeof(float), &c->buffer));
    c->view.buffer = c->buffer;
    c->view.address = c->buffer->address;
    ortvk_copy_end src = {.host = values};
    ORTVK_TRY(ortvk_transfer_copy(stream, ortvk_copy_end_held(c->buffer, 0), src, sizeof(values), false));
    /* Waited for: the channel constants are freed next. */
    ortvk_copy_end dst = {.buffer = c->buffer, .offset = sizeof(values)};
    for (size_t i = 0; i < n_channel; i++) {
        size_t bytes = channel[i]->view.count * sizeof(float);
        ORTVK_TRY(ortvk_transfer_copy(stream, dst, (ortvk_copy_end){.buffer = channel[i]->buffer}, bytes, true));
        dst.offset += bytes;
    }
    return NULL;
}

OrtStatus *ortvk_kernel_upload_chain(ortvk_kernel *kernel, ortvk_stream *stream, const ortvk_kparams_chain *chain,
                                     kconst **channel, size_t n_channel)
{
    size_t count = ORTVK_KCHAIN_FLOATS;
    for (size_t i = 0; i < n_channel; i++) count += channel[i]->view.count;
    kconst *c = calloc(1, sizeof(*c));
    OrtStatus *status = c == NULL ? ortvk_status(ORT_FAIL, "out of host memory compiling %s", kernel->name) : NULL;
    if (c != NULL) {
        kernel->chain_consts = c;
        c->view = (ortvk_ktensor){.present = true, .type = ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, .rank = 1,
                                  .dims = {(int64_t)count}, .count = count};
        status = chain_fill(stream, c, chain, channel, n_channel);
    }
    for (size_t i = 0; i < n_channel; i++) kconst_free(&channel[i]);
    return status;
}

/* Keeps a host copy of constant input `index`, which the op reads on the host at run time. */
OrtStatus *ortvk_kernel_keep_const(ortvk_kernel *kernel, const ortvk_knode *k, size_t index)
{
    kconst *c = NULL;
    const void *data = NULL;
    size_t bytes = 0;
    ORTVK_TRY(const_view(kernel, k, index, &c, &data, &bytes));
    if (bytes == 0) return NULL;
    if ((c->host = malloc(bytes)) == NULL) return ortvk_status(ORT_FAIL, "out of host memory compiling %s", k->name);
    memcpy(c->host, data, bytes);
    c->view.host = c->host;
    return NULL;
}

void ortvk_kernel_free_consts(ortvk_kernel *kernel)
{
    for (size_t i = 0; i < ORTVK_KMAX_INPUTS; i++) kconst_free(&kernel->consts[i]);
    kconst_free(&kernel->chain_consts);
}

void ortvk_kernel_destroy(ortvk_kernel *kernel)
{
    if (kernel == NULL) return;
    ortvk_kernel_free_consts(kernel);
    free(kernel->name);
    free(kernel);
}
