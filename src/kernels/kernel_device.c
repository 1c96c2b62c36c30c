/* The per-device side of the kernels: the SPIR-V embedded at build time, and the compute pipelines (per shader,
 * float type and function) created on first use and shared by every session on the device. */
#include <stdlib.h>
#include <string.h>

#include "kernels/kernel_internal.h"
#include "vk/vk_memory.h"

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
static const struct {
    const char *name;
    const uint32_t *code[2];
    size_t size[2];
} shaders[ORTVK_SHADER_COUNT] = {
#define SHADER(id, name, spv) [id] = {name, {spv, spv##_f16}, {sizeof(spv), sizeof(spv##_f16)}}
    SHADER(ORTVK_SHADER_UNARY, "unary", spv_unary),
    SHADER(ORTVK_SHADER_BINARY, "binary", spv_binary),
    SHADER(ORTVK_SHADER_COPY, "copy", spv_copy),
    SHADER(ORTVK_SHADER_CONV, "conv", spv_conv),
    SHADER(ORTVK_SHADER_CONV_TRANSPOSE, "conv_transpose", spv_conv_transpose),
    SHADER(ORTVK_SHADER_POOL, "pool", spv_pool),
    SHADER(ORTVK_SHADER_BATCHNORM, "batchnorm", spv_batchnorm),
    SHADER(ORTVK_SHADER_RESIZE, "resize", spv_resize),
    SHADER(ORTVK_SHADER_REDUCE, "reduce", spv_reduce),
    SHADER(ORTVK_SHADER_GEMM, "gemm", spv_gemm),
    SHADER(ORTVK_SHADER_SOFTMAX, "softmax", spv_softmax),
    SHADER(ORTVK_SHADER_PAD, "pad", spv_pad),
    SHADER(ORTVK_SHADER_CAST, "cast", spv_cast),
    SHADER(ORTVK_SHADER_NORM, "norm", spv_norm),
    SHADER(ORTVK_SHADER_COMPARE, "compare", spv_compare),
    SHADER(ORTVK_SHADER_WHERE, "where", spv_where),
#undef SHADER
};

/* Every shader takes at most this many bytes of push constants: the minimum every Vulkan device offers. */
#define PUSH_CONSTANT_BYTES 128

struct ortvk_kernel_device {
    ortvk_kernel_device *next; /* registry list, under registry_lock */
    int refs;                  /* under registry_lock */
    ortvk_device *device;      /* holds a reference */
    VkPipelineLayout layout;
    pthread_mutex_t lock;      /* guards pipeline creation */
    VkPipeline pipelines[ORTVK_SHADER_COUNT][2][ORTVK_KMAX_FN]; /* [shader][float16][fn] */
};

/* One entry per device with a live EP, so that sessions on a device share its pipelines. A process-wide list
 * because ortvk_device has no slot for the kernels' state; entries go with the last EP of their device. */
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static ortvk_kernel_device *registry;

OrtStatus *ortvk_kernel_device_get(ortvk_device *device, ortvk_kernel_device **out)
{
    *out = NULL;
    pthread_mutex_lock(&registry_lock);
    for (ortvk_kernel_device *k = registry; k != NULL; k = k->next) {
        if (k->device == device) {
            k->refs++;
            *out = k;
            pthread_mutex_unlock(&registry_lock);
            return NULL;
        }
    }
    OrtStatus *status = NULL;
    ortvk_kernel_device *k = calloc(1, sizeof(*k));
    if (k == NULL) {
        status = ortvk_status(ORT_FAIL, "out of host memory creating the kernel state of device %u", device->index);
        goto out;
    }
    VkPushConstantRange range = {.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT, .offset = 0, .size = PUSH_CONSTANT_BYTES};
    VkPipelineLayoutCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
        .pushConstantRangeCount = 1,
        .pPushConstantRanges = &range,
    };
    VkResult r = vkCreatePipelineLayout(device->vk, &info, NULL, &k->layout);
    if (r != VK_SUCCESS) {
        free(k);
        status = ortvk_status_vk(r, "vkCreatePipelineLayout", "creating the kernels' pipeline layout");
        goto out;
    }
    pthread_mutex_init(&k->lock, NULL);
    ortvk_device_ref(device);
    k->device = device;
    k->refs = 1;
    k->next = registry;
    registry = k;
    *out = k;
out:
    pthread_mutex_unlock(&registry_lock);
    return status;
}

void ortvk_kernel_device_ref(ortvk_kernel_device *kdev)
{
    pthread_mutex_lock(&registry_lock);
    kdev->refs++;
    pthread_mutex_unlock(&registry_lock);
}

void ortvk_kernel_device_put(ortvk_kernel_device *kdev)
{
    if (kdev == NULL) return;
    pthread_mutex_lock(&registry_lock);
    bool last = --kdev->refs == 0;
    if (last) {
        for (ortvk_kernel_device **p = &registry; *p != NULL; p = &(*p)->next) {
            if (*p == kdev) {
                *p = kdev->next;
                break;
            }
        }
    }
    pthread_mutex_unlock(&registry_lock);
    if (!last) return;
    ortvk_device *device = kdev->device;
    /* Work using the pipelines may still run (streams drain on release, but ORT may release the EP first). The
     * queue lock is held throughout: the destruction is then ordered with every submission and wait on the queue
     * (the validation layer's own tracking raced otherwise, ThreadSanitizer saw). */
    pthread_mutex_lock(&device->queue_lock);
    vkQueueWaitIdle(device->queue);
    for (int i = 0; i < ORTVK_SHADER_COUNT; i++) {
        for (int v = 0; v < 2; v++) {
            for (int f = 0; f < ORTVK_KMAX_FN; f++) {
                if (kdev->pipelines[i][v][f] != VK_NULL_HANDLE)
                    vkDestroyPipeline(device->vk, kdev->pipelines[i][v][f], NULL);
            }
        }
    }
    /* Seen with lavapipe (Mesa 22.3): the state of a pipeline it has run leaks (272 bytes, LeakSanitizer) when no
     * submission follows its vkDestroyPipeline before the device goes. One empty submission avoids it, and costs
     * nothing elsewhere. */
    VkSubmitInfo empty = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO};
    if (vkQueueSubmit(device->queue, 1, &empty, VK_NULL_HANDLE) == VK_SUCCESS) vkQueueWaitIdle(device->queue);
    pthread_mutex_unlock(&device->queue_lock);
    vkDestroyPipelineLayout(device->vk, kdev->layout, NULL);
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
            /* Constant 0 is the function of shaders that have it; the others ignore the entry. */
            VkSpecializationMapEntry entry = {.constantID = 0, .offset = 0, .size = sizeof(fn)};
            VkSpecializationInfo specialization = {
                .mapEntryCount = 1, .pMapEntries = &entry, .dataSize = sizeof(fn), .pData = &fn};
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
