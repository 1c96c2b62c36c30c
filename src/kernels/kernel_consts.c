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

/* The ops that rearrange a constant input on its way to the device (ortvk_kpack_fn): the ops with weights. */
static const struct {
    const char *op_type;
    ortvk_kpack_fn pack;
} packers[] = {{"Conv", ortvk_kconv_pack},
               {"MatMul", ortvk_kgemm_pack},
               {"Gemm", ortvk_kgemm_pack},
               {"ConvInteger", ortvk_kqmm_conv_pack},
               {"QLinearConv", ortvk_kqmm_conv_pack},
               {"MatMulInteger", ortvk_kqmm_matmul_pack},
               {"QLinearMatMul", ortvk_kqmm_matmul_pack}};

/* Whether constant input `index` of a float16 kernel goes to the device as float32: the weights (input 1) of an op
 * with a packer (Conv, MatMul, Gemm), on a device taking the CPU forms. A CPU converts each float16 element it
 * fetches in software, and the inner loops of those ops fetch a weight for every product (docs/benchmarks.md, run
 * AR); a GPU's texture units convert for nothing, and its memory is better spent on 16 bits. Exact: every float16
 * value is a float32 one. */
static bool widened(const ortvk_kernel *kernel, const ortvk_kernel_device *kdev, const ortvk_knode *k, size_t index,
                    ortvk_kpack_fn pack)
{
    return pack != NULL && index == 1 && kernel->float16 &&
           k->in[index].type == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16 && !ortvk_kernel_device_gpu_forms(kdev);
}

/* Copies constant input `index` into a device buffer through `stream` (not waited for: ortvk_partition_create waits
 * once for all of a partition's copies), rearranged by its op's packer where it has one and widened to float32
 * where `widened` says. ORT keeps initializers of a fused node in host memory, so the device needs its own copy. */
OrtStatus *ortvk_kernel_upload_const(ortvk_kernel *kernel, const ortvk_kernel_device *kdev, ortvk_stream *stream,
                                     const ortvk_knode *k, size_t index)
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
    if (widened(kernel, kdev, k, index, pack)) {
        size_t n = bytes / sizeof(uint16_t); /* a packer's padding too */
        float *wide = malloc(n * sizeof(float));
        if (wide == NULL) {
            free(packed);
            return ortvk_status(ORT_FAIL, "out of host memory compiling %s", k->name);
        }
        for (size_t i = 0; i < n; i++) wide[i] = ortvk_khalf_to_float(((const uint16_t *)data)[i]);
        free(packed);
        data = packed = wide;
        bytes = n * sizeof(float);
        t->type = ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;
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

/* Copies the float16 constant `from` into `to` as float32 values, through the host (read back, widened, written). */
static OrtStatus *widen_channel(ortvk_stream *stream, ortvk_copy_end to, const kconst *from)
{
    size_t count = from->view.count;
    uint16_t *halves = malloc(count * sizeof(uint16_t));
    float *floats = malloc(count * sizeof(float));
    OrtStatus *status = halves == NULL || floats == NULL ? ortvk_status(ORT_FAIL, "out of host memory compiling a "
                                                                        "chain's per-channel operands") : NULL;
    if (status == NULL)
        status = ortvk_transfer_copy(stream, (ortvk_copy_end){.host = halves}, (ortvk_copy_end){.buffer = from->buffer},
                                     count * sizeof(uint16_t), true);
    for (size_t i = 0; status == NULL && i < count; i++) floats[i] = ortvk_khalf_to_float(halves[i]);
    if (status == NULL)
        status = ortvk_transfer_copy(stream, to, (ortvk_copy_end){.host = floats}, count * sizeof(float), true);
    free(halves);
    free(floats);
    return status;
}

/* Fills the chain's buffer `c`: the step operands, then each per-channel constant, copied on the device (float16
 * ones widened to float32: the shaders read the buffer as float32 values). */
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
        if (channel[i]->view.type == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16)
            ORTVK_TRY(widen_channel(stream, dst, channel[i]));
        else
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
