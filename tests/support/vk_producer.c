/* Test/demo Vulkan producer: owns an instance, device, compute queue, fill pipeline,
 * exportable buffers and a timeline semaphore (see vk_producer.h for the contract). */
#define _POSIX_C_SOURCE 200809L

#include "vk_producer.h"

#include "vk_app.h"

#include <vulkan/vulkan.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* SPIR-V of producer_fill.comp as a C initializer list, generated at build time by
 * `glslc -mfmt=c`, so the test binary needs no shader file at run time. */
static const uint32_t vk_producer_fill_spv[] =
#include "producer_fill.spv.h"
    ;
/* SPIR-V of producer_text.comp (vk_producer_draw_text), generated the same way. */
static const uint32_t vk_producer_text_spv[] =
#include "producer_text.spv.h"
    ;

/* Must match local_size_x in producer_fill.comp. */
#define VK_PRODUCER_LOCAL_SIZE 64u
/* Command buffers in flight before the oldest is recycled; fills are small, so a short
 * ring keeps memory flat while still letting several fills queue up. */
#define VK_PRODUCER_RING 4u

/* Access masks every producer command buffer brackets itself with. */
#define VK_PRODUCER_GPU_STAGES (VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT)
#define VK_PRODUCER_GPU_WRITES (VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT)
#define VK_PRODUCER_GPU_ACCESS                                                                           \
    (VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |              \
     VK_ACCESS_TRANSFER_WRITE_BIT)

struct vk_producer_slot {
    VkCommandBuffer cb;
    uint64_t done_value; /* work_sem value that marks this command buffer finished; 0 = idle */
};

struct vk_producer {
    vk_app_instance instance;
    VkPhysicalDevice phys;
    VkDevice device;
    uint32_t queue_family;
    VkQueue queue;
    VkCommandPool pool;
    struct vk_producer_slot ring[VK_PRODUCER_RING];
    unsigned ring_next;
    /* Private timeline counting submissions, so buffer_write/read/destroy can wait for
     * "everything so far" without touching the user-visible timeline's values. */
    VkSemaphore work_sem;
    uint64_t work_submitted;
    VkSemaphore timeline;
    uint64_t timeline_hi; /* highest value submitted or host-signalled */
    bool timeline_exportable;
    VkDescriptorSetLayout set_layout;
    VkPipelineLayout pipe_layout;
    VkPipeline pipeline;
    PFN_vkGetMemoryFdKHR get_memory_fd;
    PFN_vkGetSemaphoreFdKHR get_semaphore_fd;
    VkPhysicalDeviceMemoryProperties mem_props;
    VkDeviceSize max_storage_range;
    uint32_t max_groups_x;
    bool has_bda;
    bool force_staging;
    uint8_t device_uuid[VK_UUID_SIZE];
    uint8_t driver_uuid[VK_UUID_SIZE];
    char device_name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE];
    /* draw_text's pipeline, created on its first use; shares set_layout with the fill. */
    VkPipelineLayout text_layout;
    VkPipeline text_pipeline;
};

struct vk_producer_buffer {
    vk_producer *p;
    VkBuffer buffer;
    VkDeviceMemory memory;
    VkDeviceSize size;
    VkDeviceSize alloc_size;
    uint32_t memory_type;
    bool exportable;
    bool dedicated;
    bool coherent;
    void *map; /* persistent mapping; NULL when not host-visible or staging is forced */
    bool released; /* last GPU use handed ownership to VK_QUEUE_FAMILY_EXTERNAL */
    bool has_required_type; /* vk_producer_buffer_create_in_type: only required_type will do */
    uint32_t required_type;
    VkDescriptorPool desc_pool;
    VkDescriptorSet desc_set;
    VkDeviceSize desc_range;
};

struct vk_producer_push {
    uint32_t first;
    uint32_t count;
    float base;
    float scale;
};

const char *vk_producer_result_name(int vk_result)
{
    switch ((VkResult)vk_result) {
#define VK_PRODUCER_NAME(r)                                                                              \
    case r:                                                                                              \
        return #r;
        VK_PRODUCER_NAME(VK_SUCCESS)
        VK_PRODUCER_NAME(VK_NOT_READY)
        VK_PRODUCER_NAME(VK_TIMEOUT)
        VK_PRODUCER_NAME(VK_EVENT_SET)
        VK_PRODUCER_NAME(VK_EVENT_RESET)
        VK_PRODUCER_NAME(VK_INCOMPLETE)
        VK_PRODUCER_NAME(VK_ERROR_OUT_OF_HOST_MEMORY)
        VK_PRODUCER_NAME(VK_ERROR_OUT_OF_DEVICE_MEMORY)
        VK_PRODUCER_NAME(VK_ERROR_INITIALIZATION_FAILED)
        VK_PRODUCER_NAME(VK_ERROR_DEVICE_LOST)
        VK_PRODUCER_NAME(VK_ERROR_MEMORY_MAP_FAILED)
        VK_PRODUCER_NAME(VK_ERROR_LAYER_NOT_PRESENT)
        VK_PRODUCER_NAME(VK_ERROR_EXTENSION_NOT_PRESENT)
        VK_PRODUCER_NAME(VK_ERROR_FEATURE_NOT_PRESENT)
        VK_PRODUCER_NAME(VK_ERROR_INCOMPATIBLE_DRIVER)
        VK_PRODUCER_NAME(VK_ERROR_TOO_MANY_OBJECTS)
        VK_PRODUCER_NAME(VK_ERROR_FORMAT_NOT_SUPPORTED)
        VK_PRODUCER_NAME(VK_ERROR_FRAGMENTED_POOL)
        VK_PRODUCER_NAME(VK_ERROR_UNKNOWN)
        VK_PRODUCER_NAME(VK_ERROR_OUT_OF_POOL_MEMORY)
        VK_PRODUCER_NAME(VK_ERROR_INVALID_EXTERNAL_HANDLE)
        VK_PRODUCER_NAME(VK_ERROR_FRAGMENTATION)
        VK_PRODUCER_NAME(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
        VK_PRODUCER_NAME(VK_PIPELINE_COMPILE_REQUIRED)
        VK_PRODUCER_NAME(VK_ERROR_SURFACE_LOST_KHR)
        VK_PRODUCER_NAME(VK_ERROR_NATIVE_WINDOW_IN_USE_KHR)
        VK_PRODUCER_NAME(VK_SUBOPTIMAL_KHR)
        VK_PRODUCER_NAME(VK_ERROR_OUT_OF_DATE_KHR)
        VK_PRODUCER_NAME(VK_ERROR_VALIDATION_FAILED_EXT)
#undef VK_PRODUCER_NAME
    default:
        return "VK_RESULT_<unknown>";
    }
}

/* 0 for VK_SUCCESS, else prints the one-line diagnostic and returns a negative errno. */
static int vk_producer_check(VkResult r, const char *call)
{
    if (r == VK_SUCCESS)
        return 0;
    fprintf(stderr, "vk_producer: %s failed: %s (%d)\n", call, vk_producer_result_name(r), (int)r);
    return vk_app_errno(r);
}

static int vk_producer_fail(int err, const char *what)
{
    fprintf(stderr, "vk_producer: %s\n", what);
    return err;
}

/* First queue family with compute, or UINT32_MAX. */
static uint32_t vk_producer_compute_family(VkPhysicalDevice phys)
{
    uint32_t n = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(phys, &n, NULL);
    VkQueueFamilyProperties *props = calloc(n ? n : 1, sizeof(*props));
    if (!props)
        return UINT32_MAX;
    vkGetPhysicalDeviceQueueFamilyProperties(phys, &n, props);
    uint32_t family = UINT32_MAX;
    for (uint32_t i = 0; i < n && family == UINT32_MAX; i++)
        if ((props[i].queueFlags & VK_QUEUE_COMPUTE_BIT) && props[i].queueCount > 0)
            family = i;
    free(props);
    return family;
}

static bool vk_producer_phys_usable(VkPhysicalDevice phys)
{
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(phys, &props);
    if (props.apiVersion < VK_API_VERSION_1_2 || vk_producer_compute_family(phys) == UINT32_MAX)
        return false;
    VkPhysicalDeviceVulkan12Features f12 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &f12};
    vkGetPhysicalDeviceFeatures2(phys, &f2);
    return f12.timelineSemaphore == VK_TRUE;
}

/* By index, or (device_uuid != NULL) by deviceUUID. */
static int vk_producer_phys_pick(vk_producer *p, int device_index, const uint8_t *device_uuid)
{
    uint32_t n = 0;
    int err = vk_producer_check(vkEnumeratePhysicalDevices(p->instance.vk, &n, NULL), "vkEnumeratePhysicalDevices");
    if (err)
        return err;
    if (n == 0)
        return vk_producer_fail(-ENODEV, "no Vulkan physical devices");
    VkPhysicalDevice *devs = calloc(n, sizeof(*devs));
    if (!devs)
        return -ENOMEM;
    VkResult r = vkEnumeratePhysicalDevices(p->instance.vk, &n, devs);
    if (r != VK_SUCCESS && r != VK_INCOMPLETE) {
        free(devs);
        return vk_producer_check(r, "vkEnumeratePhysicalDevices");
    }
    err = -ENODEV;
    if (device_uuid) {
        VkPhysicalDevice found = vk_app_physical_by_uuid(p->instance.vk, device_uuid, NULL);
        if (found == VK_NULL_HANDLE) {
            vk_producer_fail(err, "no physical device has that deviceUUID");
        } else if (!vk_producer_phys_usable(found)) {
            vk_producer_fail(err,
                             "the device with that deviceUUID lacks Vulkan 1.2, timelineSemaphore or a compute queue");
        } else {
            p->phys = found;
            err = 0;
        }
    } else if (device_index < 0) {
        for (uint32_t i = 0; i < n && err; i++)
            if (vk_producer_phys_usable(devs[i])) {
                p->phys = devs[i];
                err = 0;
            }
        if (err)
            vk_producer_fail(err, "no physical device with Vulkan 1.2, timelineSemaphore and a compute queue");
    } else if ((uint32_t)device_index >= n) {
        vk_producer_fail(err, "device_index is out of range");
    } else if (!vk_producer_phys_usable(devs[device_index])) {
        vk_producer_fail(err, "selected device lacks Vulkan 1.2, timelineSemaphore or a compute queue");
    } else {
        p->phys = devs[device_index];
        err = 0;
    }
    free(devs);
    return err;
}

static int vk_producer_device_create(vk_producer *p)
{
    VkPhysicalDeviceIDProperties id = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
    VkPhysicalDeviceProperties2 props = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &id};
    vkGetPhysicalDeviceProperties2(p->phys, &props);
    memcpy(p->device_uuid, id.deviceUUID, VK_UUID_SIZE);
    memcpy(p->driver_uuid, id.driverUUID, VK_UUID_SIZE);
    memcpy(p->device_name, props.properties.deviceName, sizeof(p->device_name));
    p->max_storage_range = props.properties.limits.maxStorageBufferRange;
    p->max_groups_x = props.properties.limits.maxComputeWorkGroupCount[0];
    vkGetPhysicalDeviceMemoryProperties(p->phys, &p->mem_props);
    p->queue_family = vk_producer_compute_family(p->phys);

    VkPhysicalDeviceVulkan12Features have12 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceFeatures2 have = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &have12};
    vkGetPhysicalDeviceFeatures2(p->phys, &have);
    p->has_bda = have12.bufferDeviceAddress == VK_TRUE;

    const char *exts[2];
    uint32_t n_exts = 0;
    bool mem_fd = vk_app_has_extension(p->phys, NULL, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
    bool sem_fd = vk_app_has_extension(p->phys, NULL, VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME);
    if (mem_fd)
        exts[n_exts++] = VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME;
    if (sem_fd)
        exts[n_exts++] = VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME;

    VkPhysicalDeviceVulkan12Features want12 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
        .timelineSemaphore = VK_TRUE,
        .bufferDeviceAddress = p->has_bda ? VK_TRUE : VK_FALSE,
    };
    int err = vk_app_device_create("producer", p->phys, p->queue_family, &want12, exts, n_exts, &p->device);
    if (err)
        return err;
    vkGetDeviceQueue(p->device, p->queue_family, 0, &p->queue);
    if (mem_fd)
        p->get_memory_fd = (PFN_vkGetMemoryFdKHR)vkGetDeviceProcAddr(p->device, "vkGetMemoryFdKHR");
    if (sem_fd)
        p->get_semaphore_fd = (PFN_vkGetSemaphoreFdKHR)vkGetDeviceProcAddr(p->device, "vkGetSemaphoreFdKHR");

    /* Only create the timeline exportable when the driver says a TIMELINE semaphore
     * (not just a binary one) can be exported as OPAQUE_FD. */
    if (p->get_semaphore_fd) {
        VkSemaphoreTypeCreateInfo type = {
            .sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
            .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE,
        };
        VkPhysicalDeviceExternalSemaphoreInfo query = {
            .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_SEMAPHORE_INFO,
            .pNext = &type,
            .handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT,
        };
        VkExternalSemaphoreProperties ext_props = {.sType = VK_STRUCTURE_TYPE_EXTERNAL_SEMAPHORE_PROPERTIES};
        vkGetPhysicalDeviceExternalSemaphoreProperties(p->phys, &query, &ext_props);
        p->timeline_exportable =
            (ext_props.externalSemaphoreFeatures & VK_EXTERNAL_SEMAPHORE_FEATURE_EXPORTABLE_BIT) != 0;
    }
    return 0;
}

static int vk_producer_timeline_create(vk_producer *p, bool exportable, VkSemaphore *out)
{
    VkExportSemaphoreCreateInfo export_info = {
        .sType = VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO,
        .handleTypes = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT,
    };
    VkSemaphoreTypeCreateInfo type = {
        .sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
        .pNext = exportable ? &export_info : NULL,
        .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE,
        .initialValue = 0,
    };
    VkSemaphoreCreateInfo info = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &type};
    return vk_producer_check(vkCreateSemaphore(p->device, &info, NULL, out), "vkCreateSemaphore");
}

/* A compute pipeline (and its layout) over the producer's one storage-buffer set, with `push_size` bytes of push
 * constants, from embedded SPIR-V. */
static int vk_producer_compute_pipeline(vk_producer *p, const uint32_t *spirv, size_t spirv_size, uint32_t push_size,
                                        VkPipelineLayout *layout, VkPipeline *pipeline)
{
    VkPushConstantRange range = {.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT, .size = push_size};
    VkPipelineLayoutCreateInfo layout_info = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
        .setLayoutCount = 1,
        .pSetLayouts = &p->set_layout,
        .pushConstantRangeCount = 1,
        .pPushConstantRanges = &range,
    };
    int err = vk_producer_check(vkCreatePipelineLayout(p->device, &layout_info, NULL, layout),
                                "vkCreatePipelineLayout");
    if (err)
        return err;
    VkShaderModuleCreateInfo module_info = {
        .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
        .codeSize = spirv_size,
        .pCode = spirv,
    };
    VkShaderModule module;
    err = vk_producer_check(vkCreateShaderModule(p->device, &module_info, NULL, &module), "vkCreateShaderModule");
    if (err)
        return err;
    VkComputePipelineCreateInfo pipe_info = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage =
            {
                .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                .module = module,
                .pName = "main",
            },
        .layout = *layout,
    };
    err = vk_producer_check(vkCreateComputePipelines(p->device, VK_NULL_HANDLE, 1, &pipe_info, NULL, pipeline),
                            "vkCreateComputePipelines");
    vkDestroyShaderModule(p->device, module, NULL);
    return err;
}

static int vk_producer_pipeline_create(vk_producer *p)
{
    VkDescriptorSetLayoutBinding binding = {
        .binding = 0,
        .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
        .descriptorCount = 1,
        .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
    };
    VkDescriptorSetLayoutCreateInfo set_info = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
        .bindingCount = 1,
        .pBindings = &binding,
    };
    int err = vk_producer_check(vkCreateDescriptorSetLayout(p->device, &set_info, NULL, &p->set_layout),
                                "vkCreateDescriptorSetLayout");
    if (err)
        return err;
    return vk_producer_compute_pipeline(p, vk_producer_fill_spv, sizeof(vk_producer_fill_spv),
                                        sizeof(struct vk_producer_push), &p->pipe_layout, &p->pipeline);
}

static int vk_producer_commands_create(vk_producer *p)
{
    VkCommandPoolCreateInfo pool_info = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
        .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
        .queueFamilyIndex = p->queue_family,
    };
    int err = vk_producer_check(vkCreateCommandPool(p->device, &pool_info, NULL, &p->pool), "vkCreateCommandPool");
    if (err)
        return err;
    VkCommandBuffer cbs[VK_PRODUCER_RING];
    VkCommandBufferAllocateInfo alloc = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
        .commandPool = p->pool,
        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
        .commandBufferCount = VK_PRODUCER_RING,
    };
    err = vk_producer_check(vkAllocateCommandBuffers(p->device, &alloc, cbs), "vkAllocateCommandBuffers");
    if (err)
        return err;
    for (unsigned i = 0; i < VK_PRODUCER_RING; i++)
        p->ring[i].cb = cbs[i];
    return 0;
}

static int vk_producer_create_on(int device_index, const uint8_t *device_uuid, vk_producer **out)
{
    if (!out)
        return -EINVAL;
    *out = NULL;
    vk_producer *p = calloc(1, sizeof(*p));
    if (!p)
        return -ENOMEM;
    p->force_staging = vk_app_env_on("ORTVK_PRODUCER_STAGING");
    int err = vk_app_instance_open("ortvk-test-producer", "producer", &p->instance);
    if (!err)
        err = vk_producer_phys_pick(p, device_index, device_uuid);
    if (!err)
        err = vk_producer_device_create(p);
    if (!err)
        err = vk_producer_timeline_create(p, false, &p->work_sem);
    if (!err)
        err = vk_producer_timeline_create(p, p->timeline_exportable, &p->timeline);
    if (!err)
        err = vk_producer_pipeline_create(p);
    if (!err)
        err = vk_producer_commands_create(p);
    if (err) {
        vk_producer_destroy(p);
        return err;
    }
    *out = p;
    return 0;
}

int vk_producer_create(int device_index, vk_producer **out)
{
    return vk_producer_create_on(device_index, NULL, out);
}

void vk_producer_destroy(vk_producer *p)
{
    if (!p)
        return;
    if (p->device) {
        vkDeviceWaitIdle(p->device);
        if (p->pool)
            vkDestroyCommandPool(p->device, p->pool, NULL); /* frees the ring's buffers */
        vkDestroyPipeline(p->device, p->pipeline, NULL);
        vkDestroyPipeline(p->device, p->text_pipeline, NULL);
        vkDestroyPipelineLayout(p->device, p->text_layout, NULL);
        vkDestroyPipelineLayout(p->device, p->pipe_layout, NULL);
        vkDestroyDescriptorSetLayout(p->device, p->set_layout, NULL);
        vkDestroySemaphore(p->device, p->timeline, NULL);
        vkDestroySemaphore(p->device, p->work_sem, NULL);
        vkDestroyDevice(p->device, NULL);
    }
    vk_app_instance_close(&p->instance);
    free(p);
}

void vk_producer_uuids(const vk_producer *p, uint8_t device_uuid[16], uint8_t driver_uuid[16])
{
    memcpy(device_uuid, p->device_uuid, VK_UUID_SIZE);
    memcpy(driver_uuid, p->driver_uuid, VK_UUID_SIZE);
}

/* ---- submission plumbing ---------------------------------------------------------- */

static int vk_producer_work_wait(vk_producer *p, uint64_t value, uint64_t timeout_ns)
{
    if (value == 0)
        return 0;
    VkSemaphoreWaitInfo info = {
        .sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
        .semaphoreCount = 1,
        .pSemaphores = &p->work_sem,
        .pValues = &value,
    };
    VkResult r = vkWaitSemaphores(p->device, &info, timeout_ns);
    if (r == VK_TIMEOUT)
        return -ETIMEDOUT;
    return vk_producer_check(r, "vkWaitSemaphores");
}

/* Next ring command buffer, recycled once its previous submission finished, and begun. */
static int vk_producer_cmd_begin(vk_producer *p, struct vk_producer_slot **out)
{
    struct vk_producer_slot *slot = &p->ring[p->ring_next];
    int err = vk_producer_work_wait(p, slot->done_value, UINT64_MAX);
    if (err)
        return err;
    err = vk_producer_check(vkResetCommandBuffer(slot->cb, 0), "vkResetCommandBuffer");
    if (err)
        return err;
    VkCommandBufferBeginInfo begin = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
        .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
    };
    err = vk_producer_check(vkBeginCommandBuffer(slot->cb, &begin), "vkBeginCommandBuffer");
    if (err)
        return err;
    p->ring_next = (p->ring_next + 1) % VK_PRODUCER_RING;
    *out = slot;
    return 0;
}

/* Head of every command buffer: order against all earlier producer GPU work (same queue,
 * so a pipeline barrier reaches across submissions) and, if the buffer was handed to
 * VK_QUEUE_FAMILY_EXTERNAL, take ownership back. Host writes before the submit need no
 * barrier: vkQueueSubmit makes them visible to the device. */
static void vk_producer_cmd_acquire(vk_producer *p, VkCommandBuffer cb, vk_producer_buffer *b)
{
    VkMemoryBarrier mem = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
        .srcAccessMask = VK_PRODUCER_GPU_WRITES,
        .dstAccessMask = VK_PRODUCER_GPU_ACCESS,
    };
    VkBufferMemoryBarrier own = {
        .sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER,
        .srcAccessMask = 0, /* ignored for an acquire */
        .dstAccessMask = VK_PRODUCER_GPU_ACCESS,
        .srcQueueFamilyIndex = VK_QUEUE_FAMILY_EXTERNAL,
        .dstQueueFamilyIndex = p->queue_family,
        .buffer = b->buffer,
        .offset = 0,
        .size = VK_WHOLE_SIZE,
    };
    bool acquire = b->released;
    vkCmdPipelineBarrier(cb, VK_PRODUCER_GPU_STAGES, VK_PRODUCER_GPU_STAGES, 0, 1, &mem, acquire ? 1u : 0u,
                         acquire ? &own : NULL, 0, NULL);
    b->released = false;
}

/* Tail of every command buffer: make the writes available and visible to the host
 * (a host wait on a semaphore alone does not), and hand an exportable buffer to
 * VK_QUEUE_FAMILY_EXTERNAL so another device may acquire it. */
static void vk_producer_cmd_release(vk_producer *p, VkCommandBuffer cb, vk_producer_buffer *b)
{
    VkMemoryBarrier mem = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
        .srcAccessMask = VK_PRODUCER_GPU_WRITES,
        .dstAccessMask = VK_ACCESS_HOST_READ_BIT | VK_ACCESS_HOST_WRITE_BIT,
    };
    VkBufferMemoryBarrier own = {
        .sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER,
        .srcAccessMask = VK_PRODUCER_GPU_WRITES,
        .dstAccessMask = 0, /* ignored for a release */
        .srcQueueFamilyIndex = p->queue_family,
        .dstQueueFamilyIndex = VK_QUEUE_FAMILY_EXTERNAL,
        .buffer = b->buffer,
        .offset = 0,
        .size = VK_WHOLE_SIZE,
    };
    bool release = b->exportable;
    vkCmdPipelineBarrier(cb, VK_PRODUCER_GPU_STAGES, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mem, release ? 1u : 0u,
                         release ? &own : NULL, 0, NULL);
    b->released = release;
}

/* Ends and submits; signals the private work timeline, plus the user timeline when
 * signal_value != 0, optionally after a GPU wait on the user timeline. */
static int vk_producer_submit(vk_producer *p, struct vk_producer_slot *slot, uint64_t wait_value,
                              uint64_t signal_value)
{
    int err = vk_producer_check(vkEndCommandBuffer(slot->cb), "vkEndCommandBuffer");
    if (err)
        return err;
    uint64_t work_value = p->work_submitted + 1;
    VkSemaphore signal_sems[2] = {p->work_sem, p->timeline};
    uint64_t signal_values[2] = {work_value, signal_value};
    VkPipelineStageFlags wait_stage = VK_PRODUCER_GPU_STAGES;
    VkTimelineSemaphoreSubmitInfo values = {
        .sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
        .waitSemaphoreValueCount = wait_value ? 1u : 0u,
        .pWaitSemaphoreValues = &wait_value,
        .signalSemaphoreValueCount = signal_value ? 2u : 1u,
        .pSignalSemaphoreValues = signal_values,
    };
    VkSubmitInfo submit = {
        .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
        .pNext = &values,
        .waitSemaphoreCount = wait_value ? 1u : 0u,
        .pWaitSemaphores = &p->timeline,
        .pWaitDstStageMask = &wait_stage,
        .commandBufferCount = 1,
        .pCommandBuffers = &slot->cb,
        .signalSemaphoreCount = signal_value ? 2u : 1u,
        .pSignalSemaphores = signal_sems,
    };
    err = vk_producer_check(vkQueueSubmit(p->queue, 1, &submit, VK_NULL_HANDLE), "vkQueueSubmit");
    if (err)
        return err;
    p->work_submitted = work_value;
    slot->done_value = work_value;
    if (signal_value)
        p->timeline_hi = signal_value;
    return 0;
}

/* ---- buffers ----------------------------------------------------------------------- */

/* Memory type for the buffer, in order of preference; returns how many were found. Host
 * visibility first (write/read then need no staging), device-local breaking ties. */
static uint32_t vk_producer_memory_types(const vk_producer *p, uint32_t type_bits, uint32_t out[VK_MAX_MEMORY_TYPES])
{
    static const VkMemoryPropertyFlags wanted[] = {
        VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
            VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT,
        VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
        0,
    };
    uint32_t n = 0;
    bool taken[VK_MAX_MEMORY_TYPES] = {false};
    for (size_t w = 0; w < sizeof(wanted) / sizeof(wanted[0]); w++)
        for (uint32_t i = 0; i < p->mem_props.memoryTypeCount; i++) {
            VkMemoryPropertyFlags f = p->mem_props.memoryTypes[i].propertyFlags;
            /* Protected memory cannot be mapped nor used by an unprotected queue. */
            if (taken[i] || !(type_bits & (1u << i)) || (f & VK_MEMORY_PROPERTY_PROTECTED_BIT) ||
                (f & wanted[w]) != wanted[w])
                continue;
            taken[i] = true;
            out[n++] = i;
        }
    return n;
}

/* What the driver allows for an OPAQUE_FD buffer with this usage. */
static void vk_producer_export_caps(vk_producer *p, VkBufferUsageFlags usage, bool *exportable, bool *dedicated)
{
    *exportable = false;
    *dedicated = false;
    if (!p->get_memory_fd)
        return;
    VkPhysicalDeviceExternalBufferInfo query = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_BUFFER_INFO,
        .usage = usage,
        .handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT,
    };
    VkExternalBufferProperties props = {.sType = VK_STRUCTURE_TYPE_EXTERNAL_BUFFER_PROPERTIES};
    vkGetPhysicalDeviceExternalBufferProperties(p->phys, &query, &props);
    VkExternalMemoryFeatureFlags f = props.externalMemoryProperties.externalMemoryFeatures;
    *exportable = (f & VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT) != 0;
    *dedicated = *exportable && (f & VK_EXTERNAL_MEMORY_FEATURE_DEDICATED_ONLY_BIT) != 0;
}

static int vk_producer_buffer_memory_alloc(vk_producer_buffer *b, const VkMemoryRequirements *req)
{
    vk_producer *p = b->p;
    VkExportMemoryAllocateInfo export_info = {
        .sType = VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO,
        .handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT,
    };
    VkMemoryDedicatedAllocateInfo dedicated = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO,
        .buffer = b->buffer,
    };
    VkMemoryAllocateFlagsInfo flags = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO,
        .flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT,
    };
    /* Build the pNext chain from whatever applies. */
    const void *chain = NULL;
    if (p->has_bda) {
        flags.pNext = chain;
        chain = &flags;
    }
    if (b->dedicated) {
        dedicated.pNext = chain;
        chain = &dedicated;
    }
    if (b->exportable) {
        export_info.pNext = chain;
        chain = &export_info;
    }
    uint32_t types[VK_MAX_MEMORY_TYPES];
    uint32_t n = vk_producer_memory_types(p, req->memoryTypeBits, types);
    if (b->has_required_type) {
        bool allowed = false;
        for (uint32_t i = 0; i < n; i++)
            allowed = allowed || types[i] == b->required_type;
        if (!allowed)
            return vk_producer_fail(-ENOTSUP, "the buffer cannot be allocated from the required memory type");
        types[0] = b->required_type;
        n = 1;
    }
    if (n == 0)
        return vk_producer_fail(-ENOMEM, "no memory type fits the buffer");
    VkResult r = VK_ERROR_OUT_OF_DEVICE_MEMORY;
    /* A small host-visible device-local heap (PCIe BAR) may be full; then fall back to
     * the next type rather than fail. */
    for (uint32_t i = 0; i < n; i++) {
        VkMemoryAllocateInfo info = {
            .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
            .pNext = chain,
            .allocationSize = req->size,
            .memoryTypeIndex = types[i],
        };
        r = vkAllocateMemory(p->device, &info, NULL, &b->memory);
        if (r == VK_SUCCESS) {
            b->memory_type = types[i];
            b->alloc_size = req->size;
            return 0;
        }
        if (r != VK_ERROR_OUT_OF_DEVICE_MEMORY)
            break;
    }
    return vk_producer_check(r, "vkAllocateMemory");
}

static int vk_producer_buffer_descriptor_create(vk_producer_buffer *b)
{
    vk_producer *p = b->p;
    /* One tiny pool per buffer: the set is written once and never changes, so no
     * descriptor is ever updated while a command buffer using it is pending. */
    VkDescriptorPoolSize pool_size = {.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .descriptorCount = 1};
    VkDescriptorPoolCreateInfo pool_info = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
        .maxSets = 1,
        .poolSizeCount = 1,
        .pPoolSizes = &pool_size,
    };
    int err = vk_producer_check(vkCreateDescriptorPool(p->device, &pool_info, NULL, &b->desc_pool),
                                "vkCreateDescriptorPool");
    if (err)
        return err;
    VkDescriptorSetAllocateInfo alloc = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
        .descriptorPool = b->desc_pool,
        .descriptorSetCount = 1,
        .pSetLayouts = &p->set_layout,
    };
    err = vk_producer_check(vkAllocateDescriptorSets(p->device, &alloc, &b->desc_set), "vkAllocateDescriptorSets");
    if (err)
        return err;
    /* A descriptor may not span more than maxStorageBufferRange; fills past it are
     * refused in vk_producer_fill_after. */
    b->desc_range = b->size < p->max_storage_range ? b->size : p->max_storage_range & ~(VkDeviceSize)3;
    VkDescriptorBufferInfo buf_info = {.buffer = b->buffer, .offset = 0, .range = b->desc_range};
    VkWriteDescriptorSet write = {
        .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
        .dstSet = b->desc_set,
        .dstBinding = 0,
        .descriptorCount = 1,
        .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
        .pBufferInfo = &buf_info,
    };
    vkUpdateDescriptorSets(p->device, 1, &write, 0, NULL);
    return 0;
}

/* required_type: a memoryTypeIndex, or UINT32_MAX for the preference order above. */
static int vk_producer_buffer_create_typed(vk_producer *p, size_t size, uint32_t required_type,
                                           vk_producer_buffer **out)
{
    if (!p || !out || size == 0)
        return -EINVAL;
    *out = NULL;
    vk_producer_buffer *b = calloc(1, sizeof(*b));
    if (!b)
        return -ENOMEM;
    b->p = p;
    b->size = size;
    b->has_required_type = required_type != UINT32_MAX;
    b->required_type = required_type;
    VkBufferUsageFlags usage =
        VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    if (p->has_bda)
        usage |= VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
    vk_producer_export_caps(p, usage, &b->exportable, &b->dedicated);

    VkExternalMemoryBufferCreateInfo ext_info = {
        .sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO,
        .handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT,
    };
    VkBufferCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
        .pNext = b->exportable ? &ext_info : NULL,
        .size = size,
        .usage = usage,
        .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
    };
    int err = vk_producer_check(vkCreateBuffer(p->device, &info, NULL, &b->buffer), "vkCreateBuffer");
    if (!err) {
        VkMemoryDedicatedRequirements ded = {.sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_REQUIREMENTS};
        VkMemoryRequirements2 req = {.sType = VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2, .pNext = &ded};
        VkBufferMemoryRequirementsInfo2 req_info = {
            .sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_REQUIREMENTS_INFO_2,
            .buffer = b->buffer,
        };
        vkGetBufferMemoryRequirements2(p->device, &req_info, &req);
        b->dedicated = b->dedicated || ded.requiresDedicatedAllocation;
        err = vk_producer_buffer_memory_alloc(b, &req.memoryRequirements);
    }
    if (!err)
        err = vk_producer_check(vkBindBufferMemory(p->device, b->buffer, b->memory, 0), "vkBindBufferMemory");
    if (!err) {
        VkMemoryPropertyFlags f = p->mem_props.memoryTypes[b->memory_type].propertyFlags;
        b->coherent = (f & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) != 0;
        if ((f & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) && !p->force_staging)
            err = vk_producer_check(vkMapMemory(p->device, b->memory, 0, VK_WHOLE_SIZE, 0, &b->map), "vkMapMemory");
    }
    if (!err)
        err = vk_producer_buffer_descriptor_create(b);
    if (err) {
        vk_producer_buffer_destroy(b);
        return err;
    }
    *out = b;
    return 0;
}

int vk_producer_buffer_create(vk_producer *p, size_t size, vk_producer_buffer **out)
{
    return vk_producer_buffer_create_typed(p, size, UINT32_MAX, out);
}

void vk_producer_buffer_destroy(vk_producer_buffer *b)
{
    if (!b)
        return;
    vk_producer *p = b->p;
    /* Pending fills may still reference the buffer and its descriptor set. */
    vk_producer_work_wait(p, p->work_submitted, UINT64_MAX);
    if (b->desc_pool)
        vkDestroyDescriptorPool(p->device, b->desc_pool, NULL);
    vkDestroyBuffer(p->device, b->buffer, NULL);
    if (b->map)
        vkUnmapMemory(p->device, b->memory);
    vkFreeMemory(p->device, b->memory, NULL);
    free(b);
}

int vk_producer_buffer_export_fd(vk_producer_buffer *b)
{
    if (!b)
        return -EINVAL;
    if (!b->exportable)
        return -ENOTSUP;
    VkMemoryGetFdInfoKHR info = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR,
        .memory = b->memory,
        .handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT,
    };
    int fd = -1;
    int err = vk_producer_check(b->p->get_memory_fd(b->p->device, &info, &fd), "vkGetMemoryFdKHR");
    return err ? err : fd;
}

size_t vk_producer_buffer_alloc_size(const vk_producer_buffer *b)
{
    return (size_t)b->alloc_size;
}

uint32_t vk_producer_buffer_memory_type(const vk_producer_buffer *b)
{
    return b->memory_type;
}

int vk_producer_buffer_dedicated(const vk_producer_buffer *b)
{
    return b->dedicated ? 1 : 0;
}

static bool vk_producer_range_ok(const vk_producer_buffer *b, size_t offset, size_t n)
{
    return offset <= b->size && n <= b->size - offset;
}

/* Host-visible, non-staging path: map is persistent; non-coherent memory needs an
 * explicit flush/invalidate, done over the whole mapping to dodge atom alignment. */
static int vk_producer_buffer_map_sync(vk_producer_buffer *b, bool flush)
{
    if (b->coherent)
        return 0;
    VkMappedMemoryRange range = {
        .sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE,
        .memory = b->memory,
        .offset = 0,
        .size = VK_WHOLE_SIZE,
    };
    return flush ? vk_producer_check(vkFlushMappedMemoryRanges(b->p->device, 1, &range), "vkFlushMappedMemoryRanges")
                 : vk_producer_check(vkInvalidateMappedMemoryRanges(b->p->device, 1, &range),
                                     "vkInvalidateMappedMemoryRanges");
}

/* Staging path: a temporary host-visible buffer, one vkCmdCopyBuffer each way, and a
 * wait for that submission. */
static int vk_producer_buffer_staged_copy(vk_producer_buffer *b, size_t offset, void *host, size_t n, bool to_gpu)
{
    vk_producer *p = b->p;
    VkBuffer staging = VK_NULL_HANDLE;
    VkDeviceMemory mem = VK_NULL_HANDLE;
    void *map = NULL;
    VkBufferCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
        .size = n,
        .usage = to_gpu ? VK_BUFFER_USAGE_TRANSFER_SRC_BIT : VK_BUFFER_USAGE_TRANSFER_DST_BIT,
        .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
    };
    int err = vk_producer_check(vkCreateBuffer(p->device, &info, NULL, &staging), "vkCreateBuffer");
    VkMemoryRequirements req;
    uint32_t type = UINT32_MAX;
    if (!err) {
        vkGetBufferMemoryRequirements(p->device, staging, &req);
        for (uint32_t i = 0; i < p->mem_props.memoryTypeCount && type == UINT32_MAX; i++)
            if ((req.memoryTypeBits & (1u << i)) &&
                (p->mem_props.memoryTypes[i].propertyFlags &
                 (VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT)) ==
                    (VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT))
                type = i;
        if (type == UINT32_MAX)
            err = vk_producer_fail(-ENOMEM, "no host-coherent memory type for staging");
    }
    if (!err) {
        VkMemoryAllocateInfo alloc = {
            .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
            .allocationSize = req.size,
            .memoryTypeIndex = type,
        };
        err = vk_producer_check(vkAllocateMemory(p->device, &alloc, NULL, &mem), "vkAllocateMemory");
    }
    if (!err)
        err = vk_producer_check(vkBindBufferMemory(p->device, staging, mem, 0), "vkBindBufferMemory");
    if (!err)
        err = vk_producer_check(vkMapMemory(p->device, mem, 0, VK_WHOLE_SIZE, 0, &map), "vkMapMemory");
    if (!err && to_gpu)
        memcpy(map, host, n);
    struct vk_producer_slot *slot = NULL;
    if (!err)
        err = vk_producer_cmd_begin(p, &slot);
    if (!err) {
        vk_producer_cmd_acquire(p, slot->cb, b);
        VkBufferCopy region = {
            .srcOffset = to_gpu ? 0 : offset,
            .dstOffset = to_gpu ? offset : 0,
            .size = n,
        };
        vkCmdCopyBuffer(slot->cb, to_gpu ? staging : b->buffer, to_gpu ? b->buffer : staging, 1, &region);
        vk_producer_cmd_release(p, slot->cb, b);
        err = vk_producer_submit(p, slot, 0, 0);
    }
    if (!err)
        err = vk_producer_work_wait(p, p->work_submitted, UINT64_MAX);
    if (!err && !to_gpu)
        memcpy(host, map, n);
    if (mem)
        vkFreeMemory(p->device, mem, NULL); /* implicitly unmaps */
    vkDestroyBuffer(p->device, staging, NULL);
    return err;
}

int vk_producer_buffer_write(vk_producer_buffer *b, size_t offset, const void *src, size_t n)
{
    if (!b || (!src && n) || !vk_producer_range_ok(b, offset, n))
        return -EINVAL;
    if (n == 0)
        return 0;
    /* Queued fills may touch the same bytes; the host must not race them. */
    int err = vk_producer_work_wait(b->p, b->p->work_submitted, UINT64_MAX);
    if (err)
        return err;
    if (!b->map)
        return vk_producer_buffer_staged_copy(b, offset, (void *)src, n, true);
    memcpy((char *)b->map + offset, src, n);
    return vk_producer_buffer_map_sync(b, true);
}

int vk_producer_buffer_read(vk_producer_buffer *b, size_t offset, void *dst, size_t n)
{
    if (!b || (!dst && n) || !vk_producer_range_ok(b, offset, n))
        return -EINVAL;
    if (n == 0)
        return 0;
    int err = vk_producer_work_wait(b->p, b->p->work_submitted, UINT64_MAX);
    if (err)
        return err;
    if (!b->map)
        return vk_producer_buffer_staged_copy(b, offset, dst, n, false);
    err = vk_producer_buffer_map_sync(b, false);
    if (!err)
        memcpy(dst, (const char *)b->map + offset, n);
    return err;
}

/* ---- fill and timeline ------------------------------------------------------------- */

int vk_producer_fill_after(vk_producer *p, vk_producer_buffer *b, size_t offset, uint32_t count, float base,
                           float scale, uint64_t wait_value, uint64_t signal_value)
{
    if (!p || !b || b->p != p || offset % 4 != 0)
        return -EINVAL;
    if ((uint64_t)offset + 4u * (uint64_t)count > (uint64_t)b->desc_range)
        return -EINVAL;
    if (signal_value && signal_value <= p->timeline_hi)
        return -EINVAL;
    struct vk_producer_slot *slot;
    int err = vk_producer_cmd_begin(p, &slot);
    if (err)
        return err;
    vk_producer_cmd_acquire(p, slot->cb, b);
    if (count) {
        struct vk_producer_push push = {
            .first = (uint32_t)(offset / 4),
            .count = count,
            .base = base,
            .scale = scale,
        };
        uint32_t groups = (uint32_t)(((uint64_t)count + VK_PRODUCER_LOCAL_SIZE - 1) / VK_PRODUCER_LOCAL_SIZE);
        if (groups > p->max_groups_x)
            groups = p->max_groups_x; /* the shader's grid-stride loop covers the rest */
        vkCmdBindPipeline(slot->cb, VK_PIPELINE_BIND_POINT_COMPUTE, p->pipeline);
        vkCmdBindDescriptorSets(slot->cb, VK_PIPELINE_BIND_POINT_COMPUTE, p->pipe_layout, 0, 1, &b->desc_set, 0,
                                NULL);
        vkCmdPushConstants(slot->cb, p->pipe_layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(push), &push);
        vkCmdDispatch(slot->cb, groups, 1, 1);
    }
    vk_producer_cmd_release(p, slot->cb, b);
    return vk_producer_submit(p, slot, wait_value, signal_value);
}

int vk_producer_fill(vk_producer *p, vk_producer_buffer *b, size_t offset, uint32_t count, float base,
                     float scale, uint64_t signal_value)
{
    return vk_producer_fill_after(p, b, offset, count, base, scale, 0, signal_value);
}

int vk_producer_timeline_wait(vk_producer *p, uint64_t value, uint64_t timeout_ns)
{
    if (!p)
        return -EINVAL;
    VkSemaphoreWaitInfo info = {
        .sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
        .semaphoreCount = 1,
        .pSemaphores = &p->timeline,
        .pValues = &value,
    };
    VkResult r = vkWaitSemaphores(p->device, &info, timeout_ns);
    if (r == VK_TIMEOUT)
        return -ETIMEDOUT;
    return vk_producer_check(r, "vkWaitSemaphores");
}

int vk_producer_timeline_signal(vk_producer *p, uint64_t value)
{
    if (!p)
        return -EINVAL;
    VkSemaphoreSignalInfo info = {
        .sType = VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO,
        .semaphore = p->timeline,
        .value = value,
    };
    int err = vk_producer_check(vkSignalSemaphore(p->device, &info), "vkSignalSemaphore");
    if (!err && value > p->timeline_hi)
        p->timeline_hi = value;
    return err;
}

int vk_producer_timeline_value(vk_producer *p, uint64_t *value)
{
    if (!p || !value)
        return -EINVAL;
    return vk_producer_check(vkGetSemaphoreCounterValue(p->device, p->timeline, value), "vkGetSemaphoreCounterValue");
}

int vk_producer_timeline_export_fd(vk_producer *p)
{
    if (!p)
        return -EINVAL;
    if (!p->timeline_exportable)
        return -ENOTSUP;
    VkSemaphoreGetFdInfoKHR info = {
        .sType = VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR,
        .semaphore = p->timeline,
        .handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT,
    };
    int fd = -1;
    int err = vk_producer_check(p->get_semaphore_fd(p->device, &info, &fd), "vkGetSemaphoreFdKHR");
    return err ? err : fd;
}

/* ---- additions for the demo: device by UUID, buffers in a given type, text frames ---- */

int vk_producer_create_by_uuid(const uint8_t device_uuid[16], vk_producer **out)
{
    if (!device_uuid)
        return -EINVAL;
    return vk_producer_create_on(-1, device_uuid, out);
}

const char *vk_producer_device_name(const vk_producer *p)
{
    return p->device_name;
}

int vk_producer_buffer_create_in_type(vk_producer *p, size_t size, uint32_t memory_type, vk_producer_buffer **out)
{
    if (!p || memory_type >= p->mem_props.memoryTypeCount)
        return -EINVAL;
    return vk_producer_buffer_create_typed(p, size, memory_type, out);
}

/* Must match the push constant block of producer_text.comp. */
struct vk_producer_text_push {
    uint32_t first; /* in floats */
    uint32_t width, height, frame;
    int32_t line[VK_PRODUCER_TEXT_MAX_LINES][4]; /* x, y, scale (0 = unused), length */
    uint32_t text[VK_PRODUCER_TEXT_MAX_LINES * VK_PRODUCER_TEXT_MAX_CHARS / 4];
};
_Static_assert(sizeof(struct vk_producer_text_push) == 112, "producer_text.comp's push constants are 112 bytes");

/* Must match local_size_x/y in producer_text.comp. */
#define VK_PRODUCER_TEXT_LOCAL_SIZE 8u

static int vk_producer_text_pipeline_create(vk_producer *p)
{
    return vk_producer_compute_pipeline(p, vk_producer_text_spv, sizeof(vk_producer_text_spv),
                                        sizeof(struct vk_producer_text_push), &p->text_layout, &p->text_pipeline);
}

/* The ASCII code the shader draws for c (a-z as A-Z; its font has 0-9, A-Z and the
 * punctuation below), or 0 when it has no glyph for it. */
static uint8_t vk_producer_text_char(char c)
{
    if (c >= 'a' && c <= 'z')
        c = (char)(c - 'a' + 'A');
    if ((c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c != '\0' && strchr(" .,:-!/?#%()+=", c)))
        return (uint8_t)c;
    return 0;
}

int vk_producer_draw_text(vk_producer *p, vk_producer_buffer *b, size_t offset, uint32_t width, uint32_t height,
                          uint32_t frame, const vk_producer_text_line *lines, uint32_t line_count,
                          uint64_t signal_value)
{
    if (!p || !b || b->p != p || offset % 4 != 0 || width == 0 || height == 0 || (line_count && !lines) ||
        line_count > VK_PRODUCER_TEXT_MAX_LINES)
        return -EINVAL;
    uint32_t groups_x = (width + VK_PRODUCER_TEXT_LOCAL_SIZE - 1) / VK_PRODUCER_TEXT_LOCAL_SIZE;
    uint32_t groups_y = (height + VK_PRODUCER_TEXT_LOCAL_SIZE - 1) / VK_PRODUCER_TEXT_LOCAL_SIZE;
    if (groups_x > 65535 || groups_y > 65535) /* Vulkan's guaranteed maxComputeWorkGroupCount */
        return -EINVAL;
    if ((uint64_t)offset + 3ull * 4ull * width * height > (uint64_t)b->desc_range)
        return -EINVAL;
    if (signal_value && signal_value <= p->timeline_hi)
        return -EINVAL;

    struct vk_producer_text_push push = {
        .first = (uint32_t)(offset / 4),
        .width = width,
        .height = height,
        .frame = frame,
    };
    for (uint32_t l = 0; l < line_count; l++) {
        size_t len = lines[l].text ? strlen(lines[l].text) : 0;
        if (len > VK_PRODUCER_TEXT_MAX_CHARS || lines[l].scale == 0 || lines[l].scale > 4096)
            return -EINVAL;
        for (size_t i = 0; i < len; i++) {
            uint8_t c = vk_producer_text_char(lines[l].text[i]);
            if (c == 0)
                return -EINVAL;
            size_t n = l * VK_PRODUCER_TEXT_MAX_CHARS + i;
            push.text[n / 4] |= (uint32_t)c << (8 * (n % 4));
        }
        push.line[l][0] = lines[l].x;
        push.line[l][1] = lines[l].y;
        push.line[l][2] = (int32_t)lines[l].scale;
        push.line[l][3] = (int32_t)len;
    }

    if (!p->text_pipeline) {
        int err = vk_producer_text_pipeline_create(p);
        if (err)
            return err;
    }
    struct vk_producer_slot *slot;
    int err = vk_producer_cmd_begin(p, &slot);
    if (err)
        return err;
    vk_producer_cmd_acquire(p, slot->cb, b);
    vkCmdBindPipeline(slot->cb, VK_PIPELINE_BIND_POINT_COMPUTE, p->text_pipeline);
    vkCmdBindDescriptorSets(slot->cb, VK_PIPELINE_BIND_POINT_COMPUTE, p->text_layout, 0, 1, &b->desc_set, 0, NULL);
    vkCmdPushConstants(slot->cb, p->text_layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(push), &push);
    vkCmdDispatch(slot->cb, groups_x, groups_y, 1);
    vk_producer_cmd_release(p, slot->cb, b);
    return vk_producer_submit(p, slot, 0, signal_value);
}
