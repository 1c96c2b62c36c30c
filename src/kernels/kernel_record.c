/* The recording helpers ops share: dispatches (operands bound as storage buffers and texel views, pipelines by
 * function and specialization), copies, fills, scratch buffers and uploads, each after a barrier. */
#include <stdlib.h>
#include <string.h>

#include "kernels/kernel_partition.h"
#include "vk/vk_heap.h"
#include "vk/vk_transfer.h"

/* Orders the next command after everything recorded so far in this run (reads and writes, shaders and copies). A
 * planning pass (run->plan) records nothing: the commands below return before their vkCmd* calls. */
static void barrier(ortvk_krun *run)
{
    if (!run->recorded) return;
    VkMemoryBarrier b = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
        .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
        .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                         VK_ACCESS_TRANSFER_WRITE_BIT,
    };
    VkPipelineStageFlags stages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
    vkCmdPipelineBarrier(run->cmd, stages, stages, 0, 1, &b, 0, NULL, 0, NULL);
}

#define WORKGROUP 64u
#define MAX_GROUPS 65535u

OrtStatus *ortvk_krun_dispatch(ortvk_krun *run, ortvk_shader shader, const void *push, uint32_t push_size,
                               uint64_t invocations)
{
    return ortvk_krun_dispatch_fn(run, shader, 0, push, push_size, invocations);
}

/* Where the tensor at `address` lies: its buffer, its byte offset there and the end of the tensor (or of the buffer,
 * for a scratch buffer). */
static OrtStatus *locate_operand(ortvk_krun *run, VkDeviceAddress address, ortvk_buffer **out, VkDeviceSize *offset,
                                 VkDeviceSize *end, const ortvk_ktensor **tensor)
{
    *tensor = NULL;
    for (size_t i = 0; i < run->n_in + run->n_out; i++) {
        const ortvk_ktensor *t = i < run->n_in ? &run->in[i] : &run->out[i - run->n_in];
        VkDeviceSize size = ortvk_ktensor_bytes(t);
        if (t->buffer == NULL || address < t->address || address - t->address >= size) continue;
        *out = t->buffer;
        *offset = t->offset + (address - t->address);
        *end = t->offset + size;
        *tensor = t;
        return NULL;
    }
    *out = ortvk_device_resolve(run->device, (const void *)(uintptr_t)address, 1, offset);
    if (*out == NULL)
        return ortvk_status(ORT_EP_FAIL, "address 0x%llx is not ortvk memory", (unsigned long long)address);
    *end = (*out)->size;
    return NULL;
}

/* The bytes of the texel views of `buffer` from `start` that cover [start, end), in whole 16 bytes; 0 where none
 * can (a buffer that ends inside them, or more elements of `element_size` than maxTexelBufferElements).
 * lavapipe (llvmpipe) keys the machine code of a shader on whether bits 8-15 of each bound view's byte size are all
 * zero (its buffer views share a union with images' mipmap levels) and whether the buffer's size is a power of two:
 * so a view of ortvk's memory always ends where those bits are not all zero, reaching into the buffer's tail
 * (ORTVK_BUFFER_TAIL), and the pipeline compiled for one tensor size serves every other. */
static VkDeviceSize texel_range(const ortvk_buffer *buffer, VkDeviceSize start, VkDeviceSize end,
                                VkDeviceSize element_size, uint32_t max_texels)
{
    VkDeviceSize range = (end - start + 15) / 16 * 16;
    if (((range >> 8) & 0xff) == 0 && start + range + 256 <= buffer->vk_size &&
        (range + 256) / element_size <= max_texels)
        range += 256;
    return start + range <= buffer->vk_size && range / element_size <= max_texels ? range : 0;
}

/* Binds the tensor at `address` as a storage buffer, and where `texels` also as texel buffers (texel_range): its
 * buffer from the offset aligned down to what the device requires, up to the end of the tensor; *into gets the
 * tensor's byte offset from the binding's start (the same for both kinds). *texels becomes false where the texel
 * views cannot cover the tensor. Views of words where bindings->words; else *wide is set where a float16 run's
 * operand is a float32 tensor (a constant widened at Compile: ortvk_kernel_upload_const), whose views are then of
 * float32 texels. */
static OrtStatus *bind_operand(ortvk_krun *run, VkDeviceAddress address, ortvk_kbindings *bindings, uint32_t slot,
                               bool *texels, uint32_t *into, bool *wide)
{
    ortvk_buffer *buffer = NULL;
    VkDeviceSize offset = 0, end = 0;
    const ortvk_ktensor *tensor = NULL;
    ORTVK_TRY(locate_operand(run, address, &buffer, &offset, &end, &tensor));
    bool floats = !bindings->words;
    *wide = floats && run->float16 && tensor != NULL && tensor->type == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;
    bool halves = floats && run->float16 && !*wide;
    ortvk_ktexel_type type = bindings->words ? ORTVK_KTEXELS_WORDS
                             : halves        ? ORTVK_KTEXELS_FLOAT16
                                             : ORTVK_KTEXELS_FLOAT32;
    const VkPhysicalDeviceLimits *limits = &run->device->caps.props.limits;
    VkDeviceSize align = 16; /* a texel of RGBA32F; the alignments are powers of two */
    if (limits->minStorageBufferOffsetAlignment > align) align = limits->minStorageBufferOffsetAlignment;
    if (limits->minTexelBufferOffsetAlignment > align) align = limits->minTexelBufferOffsetAlignment;
    VkDeviceSize start = offset - offset % align;
    if (end - start > limits->maxStorageBufferRange)
        return ortvk_status(ORT_EP_FAIL, "a tensor of %llu bytes exceeds the device's maxStorageBufferRange (%u)",
                            (unsigned long long)(end - offset), limits->maxStorageBufferRange);
    bindings->buffers[slot] = (VkDescriptorBufferInfo){.buffer = buffer->vk, .offset = start, .range = end - start};
    *into = (uint32_t)(offset - start);
    if (*texels) {
        VkDeviceSize range = texel_range(buffer, start, end, halves ? 2 : 4, limits->maxTexelBufferElements);
        *texels = range > 0;
        if (*texels && run->plan == NULL)
            ORTVK_TRY(ortvk_krun_hold_views(run, buffer, start, range, type, &bindings->texels[slot]));
    }
    return NULL;
}

/* Adds "<shader>.<function>" to the node's list for the profile, once each, while it fits. */
static void note_pipeline(ortvk_krun *run, ortvk_shader shader, uint32_t fn)
{
    char item[32];
    int n = snprintf(item, sizeof(item), "%s.%u", ortvk_kernel_device_shader_name(shader), fn);
    size_t used = strlen(run->pipelines);
    for (const char *at = run->pipelines; (at = strstr(at, item)) != NULL; at += n)
        if ((at == run->pipelines || at[-1] == ' ') && (at[n] == '\0' || at[n] == ' ')) return;
    if (n > 0 && used + (used > 0) + (size_t)n < sizeof(run->pipelines))
        snprintf(run->pipelines + used, sizeof(run->pipelines) - used, "%s%s", used > 0 ? " " : "", item);
}

/* The shortest rows the workgroup form takes: one element an invocation. */
#define ROWS_FORM_MIN_LEN 64

bool ortvk_krun_rows_form(const ortvk_krun *run, uint64_t len)
{
    return len >= ROWS_FORM_MIN_LEN && ortvk_kernel_device_gpu_forms(run->kdev);
}

/* The matrix products' tiles (shaders/tiles.glsl): TILE x TILE outputs a workgroup of 64, TILE_K k a loop
 * iteration, kept well under lavapipe's loop cap (shaders/common.glsl). */
#define TILE 32u
#define TILE_K 16u

bool ortvk_krun_tiles_form(const ortvk_krun *run, uint64_t K)
{
    return K > 0 && (K + TILE_K - 1) / TILE_K < ORTVK_KMAX_LOOP && ortvk_kernel_device_gpu_forms(run->kdev);
}

uint64_t ortvk_krun_tiles_invocations(uint64_t M, uint64_t N, uint64_t batches)
{
    return WORKGROUP * batches * ((M + TILE - 1) / TILE) * ((N + TILE - 1) / TILE);
}

/* The tiles' slices of K: where a product makes fewer than TILES_SLICED_WORKGROUPS / 2 tiles and its loop over K
 * takes TILES_SLICE_MIN_K / TILE_K steps or more, a chain of loads and barriers in each workgroup that a GPU cannot
 * hide (the first GPU run: a 3x3 Conv of 96 -> 24 channels took 135-140 us at 20x20, 40x40 and 80x80 alike), it is
 * summed in slices of at least TILES_SLICE_K k, as many as make about TILES_SLICED_WORKGROUPS workgroups. */
#define TILES_SLICED_WORKGROUPS 1024u
#define TILES_SLICE_MIN_K (16u * TILE_K)
#define TILES_SLICE_K (4u * TILE_K)

uint32_t ortvk_krun_tiles_slices(uint64_t M, uint64_t N, uint64_t batches, uint64_t K, uint32_t *k_step)
{
    uint64_t tiles = ortvk_krun_tiles_invocations(M, N, batches) / WORKGROUP;
    *k_step = (uint32_t)K;
    if (tiles == 0 || tiles >= TILES_SLICED_WORKGROUPS / 2 || K < TILES_SLICE_MIN_K) return 1;
    uint64_t slices = (TILES_SLICED_WORKGROUPS + tiles - 1) / tiles, most = K / TILES_SLICE_K;
    if (slices > most) slices = most;
    uint64_t step = ((K + slices - 1) / slices + TILE_K - 1) / TILE_K * TILE_K;
    slices = (K + step - 1) / step; /* none empty */
    if (slices < 2) return 1;
    *k_step = (uint32_t)step;
    return (uint32_t)slices;
}

OrtStatus *ortvk_krun_dispatch_fn(ortvk_krun *run, ortvk_shader shader, uint32_t fn, const void *push,
                                  uint32_t push_size, uint64_t invocations)
{
    return ortvk_krun_dispatch_spec(run, shader, fn, NULL, push, push_size, invocations);
}

/* Adds `key` to a planning pass's pipelines. */
static OrtStatus *plan_pipeline(ortvk_kplan *plan, const ortvk_kpipeline_key *key)
{
    ortvk_kpipeline_key *grown = ortvk_kgrow(plan->keys, &plan->capacity, plan->count, sizeof(*grown), 32);
    if (grown == NULL) return ortvk_status(ORT_FAIL, "out of host memory planning a run");
    plan->keys = grown;
    plan->keys[plan->count++] = *key;
    return NULL;
}

OrtStatus *ortvk_krun_dispatch_spec(ortvk_krun *run, ortvk_shader shader, uint32_t fn, const ortvk_kspec *spec,
                                    const void *push, uint32_t push_size, uint64_t invocations)
{
    if (invocations == 0) return NULL;
    uint64_t groups = (invocations + WORKGROUP - 1) / WORKGROUP;
    uint64_t gx = groups < MAX_GROUPS ? groups : MAX_GROUPS;
    uint64_t gy = (groups + gx - 1) / gx;
    if (invocations > UINT32_MAX || gy > MAX_GROUPS)
        return ortvk_status(ORT_EP_FAIL, "a dispatch of %llu invocations is too large",
                            (unsigned long long)invocations);
    uint32_t operands = ortvk_kernel_device_operands(shader);
    /* Shaders read some operands as texel buffers where every one of them can be (specialization); float16 ones
     * where the device has the 16-bit formats (words: any device, RGBA32UI and R32UI are required formats). */
    bool word_texels = ortvk_kernel_device_texel_words(shader);
    bool readable = (!run->float16 || word_texels || run->device->caps.texels_16bit) &&
                    ortvk_kernel_device_texel_reads(run->kdev);
    uint32_t texel_operands = readable ? ortvk_kernel_device_texels(shader) : 0;
    bool texels = texel_operands != 0;
    uint32_t words[32] = {0};
    if (push_size > sizeof(words)) return ortvk_status(ORT_EP_FAIL, "%u bytes of push constants", push_size);
    memcpy(words, push, push_size);
    ortvk_kbindings bindings = {.words = word_texels};
    uint32_t wide_operands = 0;
    for (uint32_t k = 0, slot = 0; k < 16 && slot < ORTVK_KBINDINGS; k++) {
        if (!(operands & (1u << k))) continue;
        uint64_t address;
        memcpy(&address, &words[2 * k], sizeof(address));
        words[2 * k] = words[2 * k + 1] = 0;
        if (address != 0) {
            bool wanted = texels && (texel_operands & (1u << k)), as_texels = wanted, wide = false;
            ORTVK_TRY(bind_operand(run, address, &bindings, slot, &as_texels, &words[2 * k], &wide));
            if (wanted && !as_texels) texels = false; /* one operand without views: none read as texels */
            if (wide) wide_operands |= 1u << slot;
            words[2 * k + 1] = 1;
        }
        slot++;
    }
    ortvk_kpipeline_key key = {shader, run->float16, texels, fn, {{0}}, wide_operands};
    if (spec != NULL) key.spec = *spec;
    if (run->plan != NULL) return plan_pipeline(run->plan, &key);
    VkPipeline pipeline;
    VkPipelineLayout layout;
    ORTVK_TRY(ortvk_kernel_device_pipeline(run->kdev, &key, &pipeline, &layout));
    note_pipeline(run, shader, fn);
    barrier(run);
    vkCmdBindPipeline(run->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
    ortvk_kernel_device_bind(run->kdev, run->cmd, &bindings);
    vkCmdPushConstants(run->cmd, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, (push_size + 3) & ~3u, words);
    vkCmdDispatch(run->cmd, (uint32_t)gx, (uint32_t)gy, 1);
    run->recorded = true;
    return NULL;
}

/* The buffer behind [address, address + bytes) of one of the run's tensors (held by the run), or of a constant
 * or scratch buffer (owned by the kernel or the run). */
static OrtStatus *resolve(ortvk_krun *run, VkDeviceAddress address, VkDeviceSize bytes, ortvk_buffer **buffer,
                          VkDeviceSize *offset)
{
    for (size_t i = 0; i < run->n_in + run->n_out; i++) {
        const ortvk_ktensor *t = i < run->n_in ? &run->in[i] : &run->out[i - run->n_in];
        if (t->buffer == NULL || address < t->address) continue;
        VkDeviceSize into = address - t->address, size = ortvk_ktensor_bytes(t);
        if (into <= size && bytes <= size - into) {
            *buffer = t->buffer;
            *offset = t->offset + into;
            return NULL;
        }
    }
    *buffer = ortvk_device_resolve(run->device, (const void *)(uintptr_t)address, bytes, offset);
    if (*buffer == NULL)
        return ortvk_status(ORT_EP_FAIL, "address 0x%llx (%llu bytes) is not ortvk memory",
                            (unsigned long long)address, (unsigned long long)bytes);
    return NULL;
}

OrtStatus *ortvk_krun_copy(ortvk_krun *run, VkDeviceAddress dst, VkDeviceAddress src, VkDeviceSize bytes)
{
    if (bytes == 0) return NULL;
    ortvk_buffer *from, *to;
    VkDeviceSize from_offset, to_offset;
    ORTVK_TRY(resolve(run, src, bytes, &from, &from_offset));
    ORTVK_TRY(resolve(run, dst, bytes, &to, &to_offset));
    if (run->plan != NULL) return NULL;
    barrier(run);
    VkBufferCopy region = {.srcOffset = from_offset, .dstOffset = to_offset, .size = bytes};
    vkCmdCopyBuffer(run->cmd, from->vk, to->vk, 1, &region);
    run->recorded = true;
    return NULL;
}

OrtStatus *ortvk_krun_fill(ortvk_krun *run, VkDeviceAddress dst, VkDeviceSize bytes, uint32_t word)
{
    if (bytes == 0) return NULL;
    ortvk_buffer *to;
    VkDeviceSize offset;
    ORTVK_TRY(resolve(run, dst, bytes, &to, &offset));
    if (run->plan != NULL) return NULL;
    barrier(run);
    vkCmdFillBuffer(run->cmd, to->vk, offset, bytes, word);
    run->recorded = true;
    return NULL;
}

/* A scratch or staging buffer for the run, released with its submission. */
static OrtStatus *scratch_buffer(ortvk_krun *run, size_t bytes, bool staging, ortvk_buffer **out)
{
    if (run->scratch_count == ORTVK_KMAX_SCRATCH)
        return ortvk_status(ORT_EP_FAIL, "too many scratch buffers in a node");
    ortvk_buffer *buffer = NULL;
    ORTVK_TRY(staging ? ortvk_buffer_allocate_staging(run->device, ORTVK_BUFFER_STAGING, bytes, &buffer)
                      : ortvk_buffer_allocate(run->device, bytes, &buffer));
    ORTVK_TRY(ortvk_krun_hold(run, buffer));
    run->scratch_count++;
    *out = buffer;
    return NULL;
}

OrtStatus *ortvk_krun_scratch(ortvk_krun *run, size_t bytes, VkDeviceAddress *address)
{
    ortvk_buffer *buffer = NULL;
    ORTVK_TRY(scratch_buffer(run, bytes, false, &buffer));
    *address = buffer->address;
    return NULL;
}

/* vkCmdUpdateBuffer takes at most 65536 bytes per call, and keeps a copy in the command buffer: fine for tables
 * and small tensors; larger data goes through a staging buffer. */
#define UPDATE_CHUNK 65536u
#define UPDATE_MAX (4u * UPDATE_CHUNK)

OrtStatus *ortvk_krun_upload(ortvk_krun *run, const void *data, size_t bytes, VkDeviceAddress *address)
{
    size_t padded = (bytes + 3) & ~(size_t)3;
    ortvk_buffer *buffer = NULL;
    ORTVK_TRY(scratch_buffer(run, padded, false, &buffer));
    *address = buffer->address;
    if (run->plan != NULL) return NULL;
    if (padded > UPDATE_MAX) {
        ortvk_buffer *staging = NULL;
        ORTVK_TRY(scratch_buffer(run, bytes, true, &staging));
        memcpy(staging->mapped, data, bytes);
        barrier(run);
        VkBufferCopy region = {.srcOffset = 0, .dstOffset = 0, .size = bytes};
        vkCmdCopyBuffer(run->cmd, staging->vk, buffer->vk, 1, &region);
        run->recorded = true;
        return NULL;
    }
    barrier(run);
    for (size_t at = 0; at < padded; at += UPDATE_CHUNK) {
        size_t n = padded - at < UPDATE_CHUNK ? padded - at : UPDATE_CHUNK;
        if (at + n <= bytes) {
            vkCmdUpdateBuffer(run->cmd, buffer->vk, at, n, (const uint8_t *)data + at);
        } else { /* the last chunk, padded to 4 bytes */
            uint8_t tail[UPDATE_CHUNK];
            memset(tail, 0, n);
            memcpy(tail, (const uint8_t *)data + at, bytes - at);
            vkCmdUpdateBuffer(run->cmd, buffer->vk, at, n, tail);
        }
    }
    run->recorded = true;
    return NULL;
}
