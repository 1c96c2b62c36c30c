/* The per-device side of the kernels: the SPIR-V embedded at build time, and the compute pipelines (per shader,
 * float type and function) created on first use and shared by every session on the device. */
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

/* Each shader twice: [0] for float32 tensors, [1] compiled with ORTVK_F16 for float16 ones (shaders/common.glsl). */
/* `operands`: which 8-byte words of a shader's push constants are the tensors it reads and writes (its uvec2 members,
 * common.glsl), bit k for word k; the leading words, and after their scalars unary's Clip bounds and conv's
 * float32 partial sums. */
static const struct {
    const char *name;
    const uint32_t *code[2];
    size_t size[2];
    uint32_t operands;
} shaders[ORTVK_SHADER_COUNT] = {
#define SHADER(id, name, spv, operands) \
    [id] = {name, {spv, spv##_f16}, {sizeof(spv), sizeof(spv##_f16)}, operands}
    SHADER(ORTVK_SHADER_UNARY, "unary", spv_unary, 0x33),
    SHADER(ORTVK_SHADER_BINARY, "binary", spv_binary, 0x7),
    SHADER(ORTVK_SHADER_COPY, "copy", spv_copy, 0x3),
    SHADER(ORTVK_SHADER_CONV, "conv", spv_conv, 0x800f),
    SHADER(ORTVK_SHADER_CONV_TRANSPOSE, "conv_transpose", spv_conv_transpose, 0xf),
    SHADER(ORTVK_SHADER_POOL, "pool", spv_pool, 0x7),
    SHADER(ORTVK_SHADER_BATCHNORM, "batchnorm", spv_batchnorm, 0x3f),
    SHADER(ORTVK_SHADER_RESIZE, "resize", spv_resize, 0x7),
    SHADER(ORTVK_SHADER_REDUCE, "reduce", spv_reduce, 0x3),
    SHADER(ORTVK_SHADER_GEMM, "gemm", spv_gemm, 0xf),
    SHADER(ORTVK_SHADER_SOFTMAX, "softmax", spv_softmax, 0x3),
    SHADER(ORTVK_SHADER_PAD, "pad", spv_pad, 0x3),
    SHADER(ORTVK_SHADER_CAST, "cast", spv_cast, 0x3),
    SHADER(ORTVK_SHADER_NORM, "norm", spv_norm, 0x3f),
    SHADER(ORTVK_SHADER_COMPARE, "compare", spv_compare, 0x7),
    SHADER(ORTVK_SHADER_WHERE, "where", spv_where, 0xf),
#undef SHADER
};

/* Every shader takes at most this many bytes of push constants: the minimum every Vulkan device offers. */
#define PUSH_CONSTANT_BYTES 128

struct ortvk_kernel_device {
    int refs;                  /* under the device's slot lock (ORTVK_DEVICE_SLOT_KERNELS) */
    ortvk_device *device;      /* holds a reference */
    VkDescriptorSetLayout set_layout; /* ORTVK_KBINDINGS storage buffers at binding 0, pushed per dispatch */
    VkPipelineLayout layout;
    PFN_vkCmdPushDescriptorSetKHR push_descriptor_set;
    ortvk_buffer *unbound;     /* bound where a shader's operand is absent: every binding must be valid */
    pthread_mutex_t lock;      /* guards pipeline creation */
    VkPipeline pipelines[ORTVK_SHADER_COUNT][2][ORTVK_KMAX_FN]; /* [shader][float16][fn] */
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
    VkDescriptorSetLayoutBinding binding = {
        .binding = 0,
        .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
        .descriptorCount = ORTVK_KBINDINGS,
        .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
    };
    VkDescriptorSetLayoutCreateInfo set_info = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
        .flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR,
        .bindingCount = 1,
        .pBindings = &binding,
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
    for (int i = 0; i < ORTVK_SHADER_COUNT; i++) {
        for (int v = 0; v < 2; v++) {
            for (int f = 0; f < ORTVK_KMAX_FN; f++) {
                if (kdev->pipelines[i][v][f] != VK_NULL_HANDLE)
                    vkDestroyPipeline(device->vk, kdev->pipelines[i][v][f], NULL);
            }
        }
    }
    /* Seen with lavapipe (Mesa 22.3): the state of a pipeline it has run leaks (272 bytes, LeakSanitizer) when no
     * submission follows its vkDestroyPipeline before the device goes. The drain's empty submission is one. */
    ortvk_device_drain(device, "after releasing the kernels' pipelines");
    vkDestroyPipelineLayout(device->vk, kdev->layout, NULL);
    vkDestroyDescriptorSetLayout(device->vk, kdev->set_layout, NULL);
    ortvk_buffer_destroy(kdev->unbound);
    pthread_mutex_destroy(&kdev->lock);
    free(kdev);
    ortvk_device_unref(device);
}

OrtStatus *ortvk_kernel_device_pipeline(ortvk_kernel_device *kdev, ortvk_shader shader, bool float16, uint32_t fn,
                                        VkPipeline *pipeline, VkPipelineLayout *layout)
{
    OrtStatus *status = NULL;
    *layout = kdev->layout;
    *pipeline = VK_NULL_HANDLE;
    if (fn >= ORTVK_KMAX_FN)
        return ortvk_status(ORT_EP_FAIL, "the %s kernel has no function %u", shaders[shader].name, fn);
    int v = float16 ? 1 : 0;
    VkPipeline *slot = &kdev->pipelines[shader][v][fn];
    pthread_mutex_lock(&kdev->lock);
    if (*slot == VK_NULL_HANDLE) {
        VkDevice vk = kdev->device->vk;
        VkShaderModuleCreateInfo module_info = {
            .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
            .codeSize = shaders[shader].size[v],
            .pCode = shaders[shader].code[v],
        };
        VkShaderModule module = VK_NULL_HANDLE;
        VkResult r = vkCreateShaderModule(vk, &module_info, NULL, &module);
        if (r == VK_SUCCESS) {
            /* Constant 0 is the function of shaders that have it, constant 1 their variant; the others ignore the
             * entries. */
            uint32_t values[2] = {fn % ORTVK_KVARIANT, fn / ORTVK_KVARIANT};
            VkSpecializationMapEntry entries[2] = {{.constantID = 0, .offset = 0, .size = sizeof(uint32_t)},
                                                   {.constantID = 1, .offset = 4, .size = sizeof(uint32_t)}};
            VkSpecializationInfo specialization = {
                .mapEntryCount = 2, .pMapEntries = entries, .dataSize = sizeof(values), .pData = values};
            VkComputePipelineCreateInfo info = {
                .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
                .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                          .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                          .module = module,
                          .pName = "main",
                          .pSpecializationInfo = &specialization},
                .layout = kdev->layout,
            };
            r = vkCreateComputePipelines(vk, VK_NULL_HANDLE, 1, &info, NULL, slot);
            vkDestroyShaderModule(vk, module, NULL);
        }
        if (r != VK_SUCCESS) {
            *slot = VK_NULL_HANDLE;
            status = ortvk_status_vk(r, "vkCreateComputePipelines", "creating the %s kernel's %s pipeline",
                                     shaders[shader].name, float16 ? "float16" : "float32");
        }
    }
    *pipeline = *slot;
    pthread_mutex_unlock(&kdev->lock);
    return status;
}

uint32_t ortvk_kernel_device_operands(ortvk_shader shader)
{
    return shaders[shader].operands;
}

void ortvk_kernel_device_bind(ortvk_kernel_device *kdev, VkCommandBuffer cmd, VkDescriptorBufferInfo *infos)
{
    for (int i = 0; i < ORTVK_KBINDINGS; i++) {
        if (infos[i].buffer != VK_NULL_HANDLE) continue;
        infos[i] = (VkDescriptorBufferInfo){.buffer = kdev->unbound->vk, .offset = 0, .range = VK_WHOLE_SIZE};
    }
    VkWriteDescriptorSet write = {
        .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
        .dstBinding = 0,
        .dstArrayElement = 0,
        .descriptorCount = ORTVK_KBINDINGS,
        .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
        .pBufferInfo = infos,
    };
    kdev->push_descriptor_set(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, kdev->layout, 0, 1, &write);
}
