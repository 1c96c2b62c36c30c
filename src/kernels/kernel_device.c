/* The per-device side of the kernels: the SPIR-V embedded at build time, the compute pipelines (per shader, float
 * type, texel reads, function and fused-chain constants) created on first use and shared by every session on the
 * device, the descriptor layout and the texel views a dispatch binds. */
#include <stdlib.h>
#include <string.h>

#include "kernels/kernel_internal.h"
#include "vk/vk_buffer.h"

static const uint32_t spv_unary[] =
#include "kernel_unary.spv.h"
    ;
static const uint32_t spv_unary_f16[] =
#include "kernel_unary_f16.spv.h"
    ;
static const uint32_t spv_binary[] =
#include "kernel_binary.spv.h"
    ;
static const uint32_t spv_binary_f16[] =
#include "kernel_binary_f16.spv.h"
    ;
static const uint32_t spv_copy[] =
#include "kernel_copy.spv.h"
    ;
static const uint32_t spv_copy_f16[] =
#include "kernel_copy_f16.spv.h"
    ;
static const uint32_t spv_conv[] =
#include "kernel_conv.spv.h"
    ;
static const uint32_t spv_conv_f16[] =
#include "kernel_conv_f16.spv.h"
    ;
static const uint32_t spv_conv_transpose[] =
#include "kernel_conv_transpose.spv.h"
    ;
static const uint32_t spv_conv_transpose_f16[] =
#include "kernel_conv_transpose_f16.spv.h"
    ;
static const uint32_t spv_pool[] =
#include "kernel_pool.spv.h"
    ;
static const uint32_t spv_pool_f16[] =
#include "kernel_pool_f16.spv.h"
    ;
static const uint32_t spv_batchnorm[] =
#include "kernel_batchnorm.spv.h"
    ;
static const uint32_t spv_batchnorm_f16[] =
#include "kernel_batchnorm_f16.spv.h"
    ;
static const uint32_t spv_resize[] =
#include "kernel_resize.spv.h"
    ;
static const uint32_t spv_resize_f16[] =
#include "kernel_resize_f16.spv.h"
    ;
static const uint32_t spv_reduce[] =
#include "kernel_reduce.spv.h"
    ;
static const uint32_t spv_reduce_f16[] =
#include "kernel_reduce_f16.spv.h"
    ;
static const uint32_t spv_gemm[] =
#include "kernel_gemm.spv.h"
    ;
static const uint32_t spv_gemm_f16[] =
#include "kernel_gemm_f16.spv.h"
    ;
static const uint32_t spv_softmax[] =
#include "kernel_softmax.spv.h"
    ;
static const uint32_t spv_softmax_f16[] =
#include "kernel_softmax_f16.spv.h"
    ;
static const uint32_t spv_pad[] =
#include "kernel_pad.spv.h"
    ;
static const uint32_t spv_pad_f16[] =
#include "kernel_pad_f16.spv.h"
    ;
static const uint32_t spv_cast[] =
#include "kernel_cast.spv.h"
    ;
static const uint32_t spv_cast_f16[] =
#include "kernel_cast_f16.spv.h"
    ;
static const uint32_t spv_norm[] =
#include "kernel_norm.spv.h"
    ;
static const uint32_t spv_norm_f16[] =
#include "kernel_norm_f16.spv.h"
    ;
static const uint32_t spv_compare[] =
#include "kernel_compare.spv.h"
    ;
static const uint32_t spv_compare_f16[] =
#include "kernel_compare_f16.spv.h"
    ;
static const uint32_t spv_where[] =
#include "kernel_where.spv.h"
    ;
static const uint32_t spv_where_f16[] =
#include "kernel_where_f16.spv.h"
    ;
static const uint32_t spv_chain[] =
#include "kernel_chain.spv.h"
    ;
static const uint32_t spv_chain_f16[] =
#include "kernel_chain_f16.spv.h"
    ;
static const uint32_t spv_arg[] =
#include "kernel_arg.spv.h"
    ;
static const uint32_t spv_arg_f16[] =
#include "kernel_arg_f16.spv.h"
    ;

/* Each shader twice: [0] for float32 tensors, [1] compiled with ORTVK_F16 for float16 ones (shaders/common.glsl). */
/* `operands`: which 8-byte words of a shader's push constants are the tensors it reads and writes (its uvec2 members,
 * common.glsl), bit k for word k; the leading words, and after their scalars unary's Clip bounds, conv's fused
 * chain constants and float32 partial sums, gemm's and chain's fused chain constants. `texels`: those its float32 form
 * reads with ORTVK_TEXEL4/ORTVK_TEXEL (common.glsl). */
static const struct {
    const char *name;
    const uint32_t *code[2];
    size_t size[2];
    uint32_t operands, texels;
} shaders[ORTVK_SHADER_COUNT] = {
#define SHADER(id, name, spv, operands, texels) \
    [id] = {name, {spv, spv##_f16}, {sizeof(spv), sizeof(spv##_f16)}, operands, texels}
    SHADER(ORTVK_SHADER_UNARY, "unary", spv_unary, 0x33, 0x1),
    SHADER(ORTVK_SHADER_BINARY, "binary", spv_binary, 0x7, 0x3),
    SHADER(ORTVK_SHADER_COPY, "copy", spv_copy, 0x3, 0),
    SHADER(ORTVK_SHADER_CONV, "conv", spv_conv, 0xc00f, 0x3),
    SHADER(ORTVK_SHADER_CONV_TRANSPOSE, "conv_transpose", spv_conv_transpose, 0xf, 0x3),
    SHADER(ORTVK_SHADER_POOL, "pool", spv_pool, 0x7, 0),
    SHADER(ORTVK_SHADER_BATCHNORM, "batchnorm", spv_batchnorm, 0x3f, 0x1),
    SHADER(ORTVK_SHADER_RESIZE, "resize", spv_resize, 0x7, 0x1),
    SHADER(ORTVK_SHADER_REDUCE, "reduce", spv_reduce, 0x3, 0),
    SHADER(ORTVK_SHADER_GEMM, "gemm", spv_gemm, 0x800f, 0x3),
    SHADER(ORTVK_SHADER_SOFTMAX, "softmax", spv_softmax, 0x3, 0),
    SHADER(ORTVK_SHADER_PAD, "pad", spv_pad, 0x3, 0),
    SHADER(ORTVK_SHADER_CAST, "cast", spv_cast, 0x3, 0),
    SHADER(ORTVK_SHADER_NORM, "norm", spv_norm, 0x3f, 0),
    SHADER(ORTVK_SHADER_COMPARE, "compare", spv_compare, 0x7, 0),
    SHADER(ORTVK_SHADER_WHERE, "where", spv_where, 0xf, 0),
    SHADER(ORTVK_SHADER_CHAIN, "chain", spv_chain, 0xb, 0x1),
    SHADER(ORTVK_SHADER_ARG, "arg", spv_arg, 0x3, 0),
#undef SHADER
};

/* Every shader takes at most this many bytes of push constants: the minimum every Vulkan device offers. */
#define PUSH_CONSTANT_BYTES 128

/* A pipeline with specialization constants beyond its function (ortvk_kernel_device_pipeline). */
typedef struct keyed_pipeline {
    struct keyed_pipeline *next;
    ortvk_shader shader;
    bool float16, texels;
    uint32_t fn;
    ortvk_kspec spec;
    VkPipeline pipeline;
} keyed_pipeline;

struct ortvk_kernel_device {
    int refs;                  /* under the device's slot lock (ORTVK_DEVICE_SLOT_KERNELS) */
    ortvk_device *device;      /* holds a reference */
    /* Pushed per dispatch, ORTVK_KBINDINGS each: storage buffers at binding 0, uniform texel buffers of RGBA32F at
     * binding 1 and of R32F at binding 2. */
    VkDescriptorSetLayout set_layout;
    VkPipelineLayout layout;
    PFN_vkCmdPushDescriptorSetKHR push_descriptor_set;
    ortvk_buffer *unbound;     /* bound where a shader's operand is absent: every binding must be valid */
    ortvk_ktexels unbound_texels;
    pthread_mutex_t lock;      /* guards pipeline creation and `keyed` */
    VkPipeline pipelines[ORTVK_SHADER_COUNT][2][2][ORTVK_KMAX_FN]; /* [shader][float16][texels][fn] */
    keyed_pipeline *keyed;     /* those with further constants (a fused chain's steps) */
};

/* The kernels' state of a device lives in the device's slot while an EP on it lives, so that sessions on a device
 * share its pipelines; it goes with the last EP of its device. */
OrtStatus *ortvk_kernel_device_get(ortvk_device *device, ortvk_kernel_device **out)
{
    *out = ortvk_device_slot_lock(device, ORTVK_DEVICE_SLOT_KERNELS);
    if (*out != NULL) {
        (*out)->refs++;
        ortvk_device_slot_unlock(device, ORTVK_DEVICE_SLOT_KERNELS, *out);
        return NULL;
    }
    OrtStatus *status = NULL;
    ortvk_kernel_device *k = calloc(1, sizeof(*k));
    if (k == NULL) {
        status = ortvk_status(ORT_FAIL, "out of host memory creating the kernel state of device %u", device->index);
        goto out;
    }
    k->push_descriptor_set =
        (PFN_vkCmdPushDescriptorSetKHR)vkGetDeviceProcAddr(device->vk, "vkCmdPushDescriptorSetKHR");
    if (k->push_descriptor_set == NULL) {
        free(k);
        status = ortvk_status(ORT_EP_FAIL, "device %u lacks vkCmdPushDescriptorSetKHR (VK_KHR_push_descriptor)",
                              device->index);
        goto out;
    }
    VkDescriptorSetLayoutBinding bindings[3];
    for (uint32_t i = 0; i < 3; i++) {
        bindings[i] = (VkDescriptorSetLayoutBinding){
            .binding = i,
            .descriptorType = i == 0 ? VK_DESCRIPTOR_TYPE_STORAGE_BUFFER : VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER,
            .descriptorCount = ORTVK_KBINDINGS,
            .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
        };
    }
    VkDescriptorSetLayoutCreateInfo set_info = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
        .flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR,
        .bindingCount = 3,
        .pBindings = bindings,
    };
    VkResult r = vkCreateDescriptorSetLayout(device->vk, &set_info, NULL, &k->set_layout);
    if (r != VK_SUCCESS) {
        free(k);
        status = ortvk_status_vk(r, "vkCreateDescriptorSetLayout", "creating the kernels' descriptor set layout");
        goto out;
    }
    VkPushConstantRange range = {.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT, .offset = 0, .size = PUSH_CONSTANT_BYTES};
    VkPipelineLayoutCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
        .setLayoutCount = 1,
        .pSetLayouts = &k->set_layout,
        .pushConstantRangeCount = 1,
        .pPushConstantRanges = &range,
    };
    r = vkCreatePipelineLayout(device->vk, &info, NULL, &k->layout);
    if (r == VK_SUCCESS) {
        status = ortvk_buffer_allocate(device, 16, &k->unbound);
        if (status == NULL) {
            status = ortvk_kernel_device_texels_create(device->vk, k->unbound->vk, 0, 16, &k->unbound_texels);
            if (status != NULL) ortvk_buffer_destroy(k->unbound);
        }
        if (status != NULL) vkDestroyPipelineLayout(device->vk, k->layout, NULL);
    } else {
        status = ortvk_status_vk(r, "vkCreatePipelineLayout", "creating the kernels' pipeline layout");
    }
    if (status != NULL) {
        vkDestroyDescriptorSetLayout(device->vk, k->set_layout, NULL);
        free(k);
        goto out;
    }
    pthread_mutex_init(&k->lock, NULL);
    ortvk_device_ref(device);
    k->device = device;
    k->refs = 1;
    *out = k;
out:
    ortvk_device_slot_unlock(device, ORTVK_DEVICE_SLOT_KERNELS, *out);
    return status;
}

void ortvk_kernel_device_ref(ortvk_kernel_device *kdev)
{
    ortvk_device_slot_lock(kdev->device, ORTVK_DEVICE_SLOT_KERNELS);
    kdev->refs++;
    ortvk_device_slot_unlock(kdev->device, ORTVK_DEVICE_SLOT_KERNELS, kdev);
}

void ortvk_kernel_device_put(ortvk_kernel_device *kdev)
{
    if (kdev == NULL) return;
    ortvk_device *device = kdev->device;
    ortvk_device_slot_lock(device, ORTVK_DEVICE_SLOT_KERNELS);
    bool last = --kdev->refs == 0;
    ortvk_device_slot_unlock(device, ORTVK_DEVICE_SLOT_KERNELS, last ? NULL : kdev);
    if (!last) return;
    /* Work using the pipelines may still run (streams drain on release, but ORT may release the EP first): drain the
     * queue first, without holding the queue lock while waiting (ortvk_device_drain; holding it hung the device
     * when queued work waited on a host timeline's bridge, docs/reliability.md). */
    ortvk_device_drain(device, "before releasing the kernels' pipelines");
    VkPipeline *pipelines = &kdev->pipelines[0][0][0][0];
    for (size_t i = 0; i < sizeof(kdev->pipelines) / sizeof(VkPipeline); i++) {
        if (pipelines[i] != VK_NULL_HANDLE) vkDestroyPipeline(device->vk, pipelines[i], NULL);
    }
    for (keyed_pipeline *k = kdev->keyed, *next; k != NULL; k = next) {
        next = k->next;
        vkDestroyPipeline(device->vk, k->pipeline, NULL);
        free(k);
    }
    /* Seen with lavapipe (Mesa 22.3): the state of a pipeline it has run leaks (272 bytes, LeakSanitizer) when no
     * submission follows its vkDestroyPipeline before the device goes. The drain's empty submission is one. */
    ortvk_device_drain(device, "after releasing the kernels' pipelines");
    vkDestroyPipelineLayout(device->vk, kdev->layout, NULL);
    vkDestroyDescriptorSetLayout(device->vk, kdev->set_layout, NULL);
    ortvk_kernel_device_texels_destroy(device->vk, &kdev->unbound_texels);
    ortvk_buffer_destroy(kdev->unbound);
    pthread_mutex_destroy(&kdev->lock);
    free(kdev);
    ortvk_device_unref(device);
}

static VkResult create_pipeline(ortvk_kernel_device *kdev, ortvk_shader shader, bool float16, bool texels, uint32_t fn,
                                const ortvk_kspec *spec, VkPipeline *out)
{
    VkDevice vk = kdev->device->vk;
    int v = float16 ? 1 : 0;
    VkShaderModuleCreateInfo module_info = {
        .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
        .codeSize = shaders[shader].size[v],
        .pCode = shaders[shader].code[v],
    };
    VkShaderModule module = VK_NULL_HANDLE;
    VkResult r = vkCreateShaderModule(vk, &module_info, NULL, &module);
    if (r != VK_SUCCESS) return r;
    /* Constant 0 is the function of shaders that have it, constant 1 their variant; the others ignore the entries.
     * Constant 2 (common.glsl's ORTVK_TEXELS): the texel operands are read as texels. Constants 3 on: `spec`. */
    uint32_t values[3 + ORTVK_KSPEC_WORDS] = {fn % ORTVK_KVARIANT, fn / ORTVK_KVARIANT, texels ? 1 : 0};
    if (spec != NULL) memcpy(values + 3, spec->words, sizeof(spec->words));
    VkSpecializationMapEntry entries[3 + ORTVK_KSPEC_WORDS];
    for (uint32_t i = 0; i < 3 + ORTVK_KSPEC_WORDS; i++)
        entries[i] = (VkSpecializationMapEntry){.constantID = i, .offset = 4 * i, .size = sizeof(uint32_t)};
    VkSpecializationInfo specialization = {.mapEntryCount = 3 + ORTVK_KSPEC_WORDS,
                                           .pMapEntries = entries,
                                           .dataSize = sizeof(values),
                                           .pData = values};
    VkComputePipelineCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                  .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                  .module = module,
                  .pName = "main",
                  .pSpecializationInfo = &specialization},
        .layout = kdev->layout,
    };
    r = vkCreateComputePipelines(vk, VK_NULL_HANDLE, 1, &info, NULL, out);
    vkDestroyShaderModule(vk, module, NULL);
    if (r != VK_SUCCESS) *out = VK_NULL_HANDLE;
    return r;
}

/* The slot of a pipeline with `spec`, added empty when new (under kdev->lock); NULL when out of memory. */
static VkPipeline *keyed_slot(ortvk_kernel_device *kdev, ortvk_shader shader, bool float16, bool texels, uint32_t fn,
                              const ortvk_kspec *spec)
{
    for (keyed_pipeline *k = kdev->keyed; k != NULL; k = k->next) {
        if (k->shader == shader && k->float16 == float16 && k->texels == texels && k->fn == fn &&
            memcmp(&k->spec, spec, sizeof(*spec)) == 0)
            return &k->pipeline;
    }
    keyed_pipeline *k = calloc(1, sizeof(*k));
    if (k == NULL) return NULL;
    *k = (keyed_pipeline){kdev->keyed, shader, float16, texels, fn, *spec, VK_NULL_HANDLE};
    kdev->keyed = k;
    return &k->pipeline;
}

OrtStatus *ortvk_kernel_device_pipeline(ortvk_kernel_device *kdev, ortvk_shader shader, bool float16, bool texels,
                                        uint32_t fn, const ortvk_kspec *spec, VkPipeline *pipeline,
                                        VkPipelineLayout *layout)
{
    OrtStatus *status = NULL;
    *layout = kdev->layout;
    *pipeline = VK_NULL_HANDLE;
    if (fn >= ORTVK_KMAX_FN)
        return ortvk_status(ORT_EP_FAIL, "the %s kernel has no function %u", shaders[shader].name, fn);
    static const ortvk_kspec none = {{0}};
    if (spec != NULL && memcmp(spec, &none, sizeof(none)) == 0) spec = NULL;
    pthread_mutex_lock(&kdev->lock);
    VkPipeline *slot = spec == NULL ? &kdev->pipelines[shader][float16 ? 1 : 0][texels ? 1 : 0][fn]
                                    : keyed_slot(kdev, shader, float16, texels, fn, spec);
    if (slot == NULL) {
        status = ortvk_status(ORT_FAIL, "out of host memory creating the %s kernel's pipeline", shaders[shader].name);
    } else if (*slot == VK_NULL_HANDLE) {
        VkResult r = create_pipeline(kdev, shader, float16, texels, fn, spec, slot);
        if (r != VK_SUCCESS)
            status = ortvk_status_vk(r, "vkCreateComputePipelines", "creating the %s kernel's %s pipeline",
                                     shaders[shader].name, float16 ? "float16" : "float32");
    }
    if (slot != NULL) *pipeline = *slot;
    pthread_mutex_unlock(&kdev->lock);
    return status;
}

uint32_t ortvk_kernel_device_operands(ortvk_shader shader)
{
    return shaders[shader].operands;
}

uint32_t ortvk_kernel_device_texels(ortvk_shader shader)
{
    return shaders[shader].texels;
}

OrtStatus *ortvk_kernel_device_texels_create(VkDevice vk, VkBuffer buffer, VkDeviceSize offset, VkDeviceSize range,
                                             ortvk_ktexels *out)
{
    *out = (ortvk_ktexels){VK_NULL_HANDLE, VK_NULL_HANDLE};
    VkBufferViewCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO,
        .buffer = buffer,
        .format = VK_FORMAT_R32G32B32A32_SFLOAT,
        .offset = offset,
        .range = range,
    };
    VkResult r = vkCreateBufferView(vk, &info, NULL, &out->vec4s);
    if (r == VK_SUCCESS) {
        info.format = VK_FORMAT_R32_SFLOAT;
        r = vkCreateBufferView(vk, &info, NULL, &out->floats);
    }
    if (r == VK_SUCCESS) return NULL;
    ortvk_kernel_device_texels_destroy(vk, out);
    return ortvk_status_vk(r, "vkCreateBufferView", "creating texel views of %llu bytes at offset %llu",
                           (unsigned long long)range, (unsigned long long)offset);
}

void ortvk_kernel_device_texels_destroy(VkDevice vk, ortvk_ktexels *views)
{
    if (views->vec4s != VK_NULL_HANDLE) vkDestroyBufferView(vk, views->vec4s, NULL);
    if (views->floats != VK_NULL_HANDLE) vkDestroyBufferView(vk, views->floats, NULL);
    *views = (ortvk_ktexels){VK_NULL_HANDLE, VK_NULL_HANDLE};
}

void ortvk_kernel_device_bind(ortvk_kernel_device *kdev, VkCommandBuffer cmd, ortvk_kbindings *bindings)
{
    VkBufferView vec4s[ORTVK_KBINDINGS], floats[ORTVK_KBINDINGS];
    for (int i = 0; i < ORTVK_KBINDINGS; i++) {
        if (bindings->buffers[i].buffer == VK_NULL_HANDLE)
            bindings->buffers[i] = (VkDescriptorBufferInfo){.buffer = kdev->unbound->vk, .range = VK_WHOLE_SIZE};
        const ortvk_ktexels *t = bindings->texels[i].vec4s != VK_NULL_HANDLE ? &bindings->texels[i]
                                                                              : &kdev->unbound_texels;
        vec4s[i] = t->vec4s;
        floats[i] = t->floats;
    }
    VkWriteDescriptorSet writes[3];
    for (uint32_t i = 0; i < 3; i++) {
        writes[i] = (VkWriteDescriptorSet){
            .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
            .dstBinding = i,
            .descriptorCount = ORTVK_KBINDINGS,
            .descriptorType = i == 0 ? VK_DESCRIPTOR_TYPE_STORAGE_BUFFER : VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER,
            .pBufferInfo = i == 0 ? bindings->buffers : NULL,
            .pTexelBufferView = i == 1 ? vec4s : i == 2 ? floats : NULL,
        };
    }
    kdev->push_descriptor_set(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, kdev->layout, 0, 3, writes);
}
