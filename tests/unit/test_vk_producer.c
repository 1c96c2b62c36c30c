/* Self-test of the test producer (tests/support/vk_producer.c), including the importer's
 * side of the cross-device path: a second VkInstance/VkDevice imports an exported
 * OPAQUE_FD and both devices must see each other's host and GPU writes. */
#define _POSIX_C_SOURCE 200809L

#include "vk_producer.h"

#include "vk_app.h"

#include <vulkan/vulkan.h>

#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TEST_BUFFER_SIZE (1u << 20)
#define TEST_FILL_OFFSET 4096u
#define TEST_FILL_COUNT 1000u
#define TEST_WAIT_NS 10000000000ull /* 10 s: lavapipe on a loaded CI box can be slow */

static int test_failures;

static void test_vk_producer_expect(bool ok, const char *what)
{
    printf("%s: %s\n", ok ? "PASS" : "FAIL", what);
    if (!ok)
        test_failures++;
}

static void test_vk_producer_pattern(uint8_t *dst, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = (uint8_t)(i * 7u + seed + (i >> 11));
}

/* Every float in [first, first+count) equals base + scale * i, computed the way the
 * shader does it (separate multiply and add, each rounded). */
static bool test_vk_producer_floats_ok(const uint8_t *bytes, size_t offset, uint32_t count, float base, float scale)
{
    for (uint32_t i = 0; i < count; i++) {
        float got;
        memcpy(&got, bytes + offset + 4u * (size_t)i, sizeof(got));
        volatile float product = scale * (float)i; /* volatile: no host fma either */
        float want = base + product;
        if (memcmp(&got, &want, sizeof(got)) != 0) {
            fprintf(stderr, "test_vk_producer: float %u at byte %zu is %.9g, want %.9g\n", i,
                    offset + 4u * (size_t)i, (double)got, (double)want);
            return false;
        }
    }
    return true;
}

/* ---- the importing side: a second, unrelated instance and device ----------------- */

struct test_consumer {
    vk_app_instance instance;
    VkPhysicalDevice phys;
    VkDevice device;
    uint32_t queue_family;
    VkQueue queue;
    VkCommandPool pool;
    VkCommandBuffer cb;
    VkFence fence;
    VkBuffer buffer;
    VkDeviceMemory memory;
    void *map;
};

static bool test_vk_ok(VkResult r, const char *call)
{
    if (r == VK_SUCCESS)
        return true;
    fprintf(stderr, "test_vk_producer: %s failed: %s (%d)\n", call, vk_producer_result_name(r), (int)r);
    return false;
}

/* The physical device whose UUIDs match the producer's: the precondition for importing
 * OPAQUE_FD memory and reusing its memory type index. */
static bool test_consumer_phys_find(struct test_consumer *c, const uint8_t dev_uuid[16], const uint8_t drv_uuid[16])
{
    c->phys = vk_app_physical_by_uuid(c->instance.vk, dev_uuid, drv_uuid);
    return c->phys != VK_NULL_HANDLE;
}

static bool test_consumer_device_create(struct test_consumer *c)
{
    VkQueueFamilyProperties families[16];
    uint32_t n = 16;
    vkGetPhysicalDeviceQueueFamilyProperties(c->phys, &n, families);
    c->queue_family = UINT32_MAX;
    for (uint32_t i = 0; i < n && c->queue_family == UINT32_MAX; i++)
        if (families[i].queueFlags & (VK_QUEUE_COMPUTE_BIT | VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_TRANSFER_BIT))
            c->queue_family = i;
    if (c->queue_family == UINT32_MAX)
        return false;
    const char *ext = VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME;
    if (vk_app_device_create("consumer", c->phys, c->queue_family, NULL, &ext, 1, &c->device) != 0)
        return false;
    vkGetDeviceQueue(c->device, c->queue_family, 0, &c->queue);
    VkCommandPoolCreateInfo pool_info = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
        .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
        .queueFamilyIndex = c->queue_family,
    };
    VkCommandBufferAllocateInfo alloc = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
        .commandBufferCount = 1,
    };
    VkFenceCreateInfo fence_info = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    if (!test_vk_ok(vkCreateCommandPool(c->device, &pool_info, NULL, &c->pool), "vkCreateCommandPool"))
        return false;
    alloc.commandPool = c->pool;
    return test_vk_ok(vkAllocateCommandBuffers(c->device, &alloc, &c->cb), "vkAllocateCommandBuffers") &&
           test_vk_ok(vkCreateFence(c->device, &fence_info, NULL, &c->fence), "vkCreateFence");
}

/* Import exactly as the provider's importer will: same size, same memory type index,
 * a buffer created for OPAQUE_FD external memory. Takes ownership of fd. */
static bool test_consumer_import(struct test_consumer *c, int fd, size_t size, uint32_t type, bool dedicated,
                                 size_t buffer_size)
{
    VkExternalMemoryBufferCreateInfo ext_info = {
        .sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO,
        .handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT,
    };
    VkBufferCreateInfo buf_info = {
        .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
        .pNext = &ext_info,
        .size = buffer_size,
        .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
        .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
    };
    if (!test_vk_ok(vkCreateBuffer(c->device, &buf_info, NULL, &c->buffer), "vkCreateBuffer")) {
        close(fd);
        return false;
    }
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(c->device, c->buffer, &req);
    if (!(req.memoryTypeBits & (1u << type)) || req.size > size) {
        fprintf(stderr, "test_vk_producer: imported buffer needs types 0x%x size %llu; export is type %u size %zu\n",
                req.memoryTypeBits, (unsigned long long)req.size, type, size);
        close(fd);
        return false;
    }
    VkMemoryDedicatedAllocateInfo ded = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO,
        .buffer = c->buffer,
    };
    VkImportMemoryFdInfoKHR import = {
        .sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR,
        .pNext = dedicated ? &ded : NULL,
        .handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT,
        .fd = fd,
    };
    VkMemoryAllocateInfo alloc = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
        .pNext = &import,
        .allocationSize = size,
        .memoryTypeIndex = type,
    };
    if (!test_vk_ok(vkAllocateMemory(c->device, &alloc, NULL, &c->memory), "vkAllocateMemory(import)")) {
        close(fd); /* only a successful import transfers ownership to Vulkan */
        return false;
    }
    if (!test_vk_ok(vkBindBufferMemory(c->device, c->buffer, c->memory, 0), "vkBindBufferMemory"))
        return false;
    VkPhysicalDeviceMemoryProperties mem_props;
    vkGetPhysicalDeviceMemoryProperties(c->phys, &mem_props);
    VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    if ((mem_props.memoryTypes[type].propertyFlags & want) == want)
        return test_vk_ok(vkMapMemory(c->device, c->memory, 0, VK_WHOLE_SIZE, 0, &c->map), "vkMapMemory");
    return true; /* not mappable: host checks are skipped, GPU checks still run */
}

/* GPU write on the consumer's own queue, bracketed by the ownership hand-off the
 * producer's header describes: acquire from and release to VK_QUEUE_FAMILY_EXTERNAL. */
static bool test_consumer_gpu_fill(struct test_consumer *c, size_t offset, size_t size, uint32_t word)
{
    VkCommandBufferBeginInfo begin = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
        .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
    };
    if (!test_vk_ok(vkBeginCommandBuffer(c->cb, &begin), "vkBeginCommandBuffer"))
        return false;
    VkBufferMemoryBarrier acquire = {
        .sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER,
        .dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
        .srcQueueFamilyIndex = VK_QUEUE_FAMILY_EXTERNAL,
        .dstQueueFamilyIndex = c->queue_family,
        .buffer = c->buffer,
        .size = VK_WHOLE_SIZE,
    };
    vkCmdPipelineBarrier(c->cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, NULL, 1,
                         &acquire, 0, NULL);
    vkCmdFillBuffer(c->cb, c->buffer, offset, size, word);
    VkBufferMemoryBarrier release = {
        .sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER,
        .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
        .srcQueueFamilyIndex = c->queue_family,
        .dstQueueFamilyIndex = VK_QUEUE_FAMILY_EXTERNAL,
        .buffer = c->buffer,
        .size = VK_WHOLE_SIZE,
    };
    VkMemoryBarrier to_host = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
        .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
        .dstAccessMask = VK_ACCESS_HOST_READ_BIT,
    };
    vkCmdPipelineBarrier(c->cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &to_host, 1,
                         &release, 0, NULL);
    if (!test_vk_ok(vkEndCommandBuffer(c->cb), "vkEndCommandBuffer"))
        return false;
    VkSubmitInfo submit = {
        .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
        .commandBufferCount = 1,
        .pCommandBuffers = &c->cb,
    };
    return test_vk_ok(vkQueueSubmit(c->queue, 1, &submit, c->fence), "vkQueueSubmit") &&
           test_vk_ok(vkWaitForFences(c->device, 1, &c->fence, VK_TRUE, TEST_WAIT_NS), "vkWaitForFences") &&
           test_vk_ok(vkResetFences(c->device, 1, &c->fence), "vkResetFences");
}

static void test_consumer_destroy(struct test_consumer *c)
{
    if (c->device) {
        vkDeviceWaitIdle(c->device);
        vkDestroyFence(c->device, c->fence, NULL);
        vkDestroyCommandPool(c->device, c->pool, NULL);
        vkDestroyBuffer(c->device, c->buffer, NULL);
        vkFreeMemory(c->device, c->memory, NULL); /* implicitly unmaps */
        vkDestroyDevice(c->device, NULL);
    }
    vk_app_instance_close(&c->instance);
}

/* ---- test sections ---------------------------------------------------------------- */

/* Host write/read round trip, then the compute fill with its timeline. `shadow` mirrors
 * what the buffer should hold. */
static void test_vk_producer_basic(vk_producer *p, vk_producer_buffer *b, uint8_t *shadow, uint8_t *scratch)
{
    test_vk_producer_pattern(shadow, TEST_BUFFER_SIZE, 3);
    int err = vk_producer_buffer_write(b, 0, shadow, TEST_BUFFER_SIZE);
    memset(scratch, 0, TEST_BUFFER_SIZE);
    if (!err)
        err = vk_producer_buffer_read(b, 0, scratch, TEST_BUFFER_SIZE);
    test_vk_producer_expect(!err && memcmp(shadow, scratch, TEST_BUFFER_SIZE) == 0,
                            "buffer_write/read round-trips 1 MiB exactly");

    /* Unaligned sub-range: the paths must not round offsets or sizes. */
    uint8_t odd[37];
    test_vk_producer_pattern(odd, sizeof(odd), 99);
    memcpy(shadow + 777, odd, sizeof(odd));
    err = vk_producer_buffer_write(b, 777, odd, sizeof(odd));
    if (!err)
        err = vk_producer_buffer_read(b, 770, scratch, 64);
    test_vk_producer_expect(!err && memcmp(shadow + 770, scratch, 64) == 0, "unaligned 37-byte write at 777");

    err = vk_producer_fill(p, b, TEST_FILL_OFFSET, TEST_FILL_COUNT, 1.5f, 0.25f, 1);
    test_vk_producer_expect(err == 0, "fill 1000 floats at 4096 submits");
    err = vk_producer_timeline_wait(p, 1, TEST_WAIT_NS);
    test_vk_producer_expect(err == 0, "timeline reaches 1 after the fill");
    uint64_t value = 0;
    test_vk_producer_expect(vk_producer_timeline_value(p, &value) == 0 && value == 1, "timeline counter reads 1");
    for (uint32_t i = 0; i < TEST_FILL_COUNT; i++) {
        float v = 1.5f + 0.25f * (float)i;
        memcpy(shadow + TEST_FILL_OFFSET + 4u * i, &v, 4);
    }
    err = vk_producer_buffer_read(b, 0, scratch, TEST_BUFFER_SIZE);
    test_vk_producer_expect(!err && test_vk_producer_floats_ok(scratch, TEST_FILL_OFFSET, TEST_FILL_COUNT, 1.5f, 0.25f),
                            "filled values are exact");
    test_vk_producer_expect(!err && memcmp(shadow, scratch, TEST_BUFFER_SIZE) == 0,
                            "bytes outside the filled range are untouched");

    /* Non-representable steps, to prove the no-fma contract bit for bit. */
    err = vk_producer_fill(p, b, 65536, 4096, -3.1f, 0.1f, 2);
    if (!err)
        err = vk_producer_timeline_wait(p, 2, TEST_WAIT_NS);
    if (!err)
        err = vk_producer_buffer_read(b, 0, scratch, TEST_BUFFER_SIZE);
    test_vk_producer_expect(!err && test_vk_producer_floats_ok(scratch, 65536, 4096, -3.1f, 0.1f),
                            "fill with inexact base/scale matches host multiply-then-add bit for bit");
    memcpy(shadow + 65536, scratch + 65536, 4096 * 4);
}

static void test_vk_producer_errors(vk_producer *p, vk_producer_buffer *b)
{
    test_vk_producer_expect(vk_producer_fill(p, b, 2, 4, 0.0f, 1.0f, 0) == -EINVAL,
                            "misaligned fill offset is -EINVAL");
    test_vk_producer_expect(vk_producer_fill(p, b, TEST_BUFFER_SIZE - 8, 3, 0.0f, 1.0f, 0) == -EINVAL,
                            "fill past the end is -EINVAL");
    test_vk_producer_expect(vk_producer_fill(p, b, 0, 1, 0.0f, 1.0f, 2) == -EINVAL,
                            "non-increasing signal value is -EINVAL");
    uint8_t byte = 0;
    test_vk_producer_expect(vk_producer_buffer_read(b, TEST_BUFFER_SIZE, &byte, 1) == -EINVAL,
                            "read past the end is -EINVAL");
    test_vk_producer_expect(vk_producer_timeline_wait(p, 1000, 0) == -ETIMEDOUT,
                            "polling an unreached timeline value is -ETIMEDOUT");
}

/* The GPU waits for a value nobody has signalled yet; the host signals it later. */
static void test_vk_producer_wait_then_fill(vk_producer *p, vk_producer_buffer *b, uint8_t *shadow, uint8_t *scratch)
{
    int err = vk_producer_fill_after(p, b, 16384, 256, 7.0f, -2.0f, 10, 11);
    test_vk_producer_expect(err == 0, "fill_after(wait 10, signal 11) submits");
    test_vk_producer_expect(vk_producer_timeline_wait(p, 11, 50000000) == -ETIMEDOUT,
                            "fill_after does not run before its wait value is signalled");
    err = vk_producer_timeline_signal(p, 10);
    if (!err)
        err = vk_producer_timeline_wait(p, 11, TEST_WAIT_NS);
    test_vk_producer_expect(err == 0, "host signal 10 releases it and the timeline reaches 11");
    err = vk_producer_buffer_read(b, 0, scratch, TEST_BUFFER_SIZE);
    test_vk_producer_expect(!err && test_vk_producer_floats_ok(scratch, 16384, 256, 7.0f, -2.0f),
                            "fill_after wrote exact values");
    memcpy(shadow + 16384, scratch + 16384, 256 * 4);
    test_vk_producer_expect(!err && memcmp(shadow, scratch, TEST_BUFFER_SIZE) == 0, "rest of buffer intact");
}

static void test_vk_producer_cross_device(vk_producer *p, vk_producer_buffer *b, uint8_t *shadow, uint8_t *scratch)
{
    uint8_t dev_uuid[16], drv_uuid[16];
    vk_producer_uuids(p, dev_uuid, drv_uuid);
    int fd = vk_producer_buffer_export_fd(b);
    test_vk_producer_expect(fd >= 0, "buffer_export_fd returns an fd");
    int fd2 = vk_producer_buffer_export_fd(b);
    test_vk_producer_expect(fd2 >= 0 && fd2 != fd, "a second export returns a new fd");
    if (fd2 >= 0)
        close(fd2);
    if (fd < 0)
        return;

    struct test_consumer c = {0};
    bool ok = vk_app_instance_open("ortvk-test-consumer", "consumer", &c.instance) == 0;
    test_vk_producer_expect(ok, "consumer creates its own instance");
    ok = ok && test_consumer_phys_find(&c, dev_uuid, drv_uuid);
    test_vk_producer_expect(ok, "consumer finds the producer's physical device by UUID");
    ok = ok && test_consumer_device_create(&c);
    test_vk_producer_expect(ok, "consumer creates a second VkDevice");
    if (!ok) {
        close(fd);
        test_consumer_destroy(&c);
        return;
    }
    ok = test_consumer_import(&c, fd, vk_producer_buffer_alloc_size(b), vk_producer_buffer_memory_type(b),
                              vk_producer_buffer_dedicated(b) != 0, TEST_BUFFER_SIZE);
    test_vk_producer_expect(ok, "consumer imports the OPAQUE_FD (same size and memory type)");
    if (!ok) {
        test_consumer_destroy(&c);
        return;
    }

    if (c.map) {
        test_vk_producer_expect(memcmp(c.map, shadow, TEST_BUFFER_SIZE) == 0,
                                "consumer mapping sees the producer's host writes and GPU fills");
        /* consumer host write -> producer sees it */
        test_vk_producer_pattern((uint8_t *)c.map + 200000, 5000, 42);
        memcpy(shadow + 200000, (uint8_t *)c.map + 200000, 5000);
        int err = vk_producer_buffer_read(b, 0, scratch, TEST_BUFFER_SIZE);
        test_vk_producer_expect(!err && memcmp(shadow, scratch, TEST_BUFFER_SIZE) == 0,
                                "producer reads the consumer's host writes");
        /* producer host write -> consumer sees it */
        test_vk_producer_pattern(shadow + 300000, 3000, 17);
        err = vk_producer_buffer_write(b, 300000, shadow + 300000, 3000);
        test_vk_producer_expect(!err && memcmp((uint8_t *)c.map + 300000, shadow + 300000, 3000) == 0,
                                "consumer mapping sees the producer's host writes");
    } else {
        printf("SKIP: imported memory type is not host-visible; host-side cross checks skipped\n");
    }

    /* producer GPU write -> consumer */
    int err = vk_producer_fill(p, b, 500000, 1000, 100.0f, 3.0f, 20);
    if (!err)
        err = vk_producer_timeline_wait(p, 20, TEST_WAIT_NS);
    for (uint32_t i = 0; i < 1000; i++) {
        float v = 100.0f + 3.0f * (float)i;
        memcpy(shadow + 500000 + 4u * i, &v, 4);
    }
    if (c.map)
        test_vk_producer_expect(!err && test_vk_producer_floats_ok(c.map, 500000, 1000, 100.0f, 3.0f),
                                "consumer mapping sees a fill done after the import");

    /* consumer GPU write -> producer */
    ok = test_consumer_gpu_fill(&c, 8192, 1024, 0xA5A5A5A5u);
    memset(shadow + 8192, 0xA5, 1024);
    err = vk_producer_buffer_read(b, 0, scratch, TEST_BUFFER_SIZE);
    test_vk_producer_expect(ok && !err && memcmp(shadow, scratch, TEST_BUFFER_SIZE) == 0,
                            "producer sees the consumer's GPU write (vkCmdFillBuffer on device 2)");

    /* and the producer can write the buffer on its GPU again after the consumer did */
    err = vk_producer_fill(p, b, 8192, 16, -1.0f, 0.5f, 21);
    if (!err)
        err = vk_producer_timeline_wait(p, 21, TEST_WAIT_NS);
    if (!err)
        err = vk_producer_buffer_read(b, 0, scratch, TEST_BUFFER_SIZE);
    test_vk_producer_expect(!err && test_vk_producer_floats_ok(scratch, 8192, 16, -1.0f, 0.5f) &&
                                memcmp(shadow + 8192 + 64, scratch + 8192 + 64, 1024 - 64) == 0,
                            "producer GPU fill after the consumer's GPU write");
    test_consumer_destroy(&c);
}

static void test_vk_producer_timeline_export(vk_producer *p)
{
    int fd = vk_producer_timeline_export_fd(p);
    if (fd == -ENOTSUP) {
        printf("SKIP: driver exports no timeline semaphore FDs\n");
        return;
    }
    test_vk_producer_expect(fd >= 0, "timeline_export_fd returns an fd");
    if (fd >= 0)
        close(fd);
}

/* Same checks through staging copies, the path a device without host-visible
 * exportable memory takes. */
static void test_vk_producer_staging(void)
{
    if (setenv("ORTVK_PRODUCER_STAGING", "1", 1) != 0) {
        test_vk_producer_expect(false, "setenv ORTVK_PRODUCER_STAGING");
        return;
    }
    vk_producer *p = NULL;
    vk_producer_buffer *b = NULL;
    int err = vk_producer_create(-1, &p);
    unsetenv("ORTVK_PRODUCER_STAGING");
    if (!err)
        err = vk_producer_buffer_create(p, 65536, &b);
    test_vk_producer_expect(err == 0, "staging producer and 64 KiB buffer created");
    if (!err) {
        static uint8_t src[65536], dst[65536];
        test_vk_producer_pattern(src, sizeof(src), 5);
        err = vk_producer_buffer_write(b, 0, src, sizeof(src));
        if (!err)
            err = vk_producer_buffer_write(b, 1001, src + 5, 333);
        memcpy(src + 1001, src + 5, 333);
        if (!err)
            err = vk_producer_buffer_read(b, 0, dst, sizeof(dst));
        test_vk_producer_expect(!err && memcmp(src, dst, sizeof(src)) == 0, "staging write/read exact");
        err = vk_producer_fill(p, b, 40000, 100, 2.0f, 0.5f, 1);
        if (!err)
            err = vk_producer_timeline_wait(p, 1, TEST_WAIT_NS);
        if (!err)
            err = vk_producer_buffer_read(b, 0, dst, sizeof(dst));
        test_vk_producer_expect(!err && test_vk_producer_floats_ok(dst, 40000, 100, 2.0f, 0.5f) &&
                                    memcmp(src, dst, 40000) == 0 &&
                                    memcmp(src + 40400, dst + 40400, sizeof(src) - 40400) == 0,
                                "staging read after a fill");
    }
    vk_producer_buffer_destroy(b);
    vk_producer_destroy(p);
}

int main(void)
{
    bool validation = vk_app_env_on("ORTVK_VALIDATION");
    vk_producer *p = NULL;
    int err = vk_producer_create(-1, &p);
    test_vk_producer_expect(err == 0, "vk_producer_create");
    if (err) {
        fprintf(stderr, "vk_producer_create: %d (%s)\n", err, strerror(-err));
        return 1;
    }
    /* The loader dlcloses the validation layer with the last instance, after which
     * LeakSanitizer cannot name the module its leftovers came from and tests/lsan.supp
     * cannot match them. One extra reference, never dropped, keeps it mapped until
     * exit; the layer is already loaded, so this changes nothing else. */
    if (validation)
        (void)dlopen("libVkLayer_khronos_validation.so", RTLD_LAZY);
    vk_producer_buffer *b = NULL;
    err = vk_producer_buffer_create(p, TEST_BUFFER_SIZE, &b);
    test_vk_producer_expect(err == 0 && vk_producer_buffer_alloc_size(b) >= TEST_BUFFER_SIZE,
                            "1 MiB buffer created, alloc_size >= size");
    uint8_t *shadow = malloc(TEST_BUFFER_SIZE);
    uint8_t *scratch = malloc(TEST_BUFFER_SIZE);
    if (!err && shadow && scratch) {
        printf("INFO: alloc_size %zu, memory type %u, dedicated %d\n", vk_producer_buffer_alloc_size(b),
               vk_producer_buffer_memory_type(b), vk_producer_buffer_dedicated(b));
        test_vk_producer_basic(p, b, shadow, scratch);
        test_vk_producer_errors(p, b);
        test_vk_producer_wait_then_fill(p, b, shadow, scratch);
        test_vk_producer_cross_device(p, b, shadow, scratch);
        test_vk_producer_timeline_export(p);
    }
    free(shadow);
    free(scratch);
    vk_producer_buffer_destroy(b);
    vk_producer_destroy(p);
    test_vk_producer_staging();

    /* Counted after every device and instance is gone, so teardown reports count too. */
    unsigned messages = vk_producer_validation_messages();
    if (validation)
        test_vk_producer_expect(messages == 0, "validation layer reported no warnings or errors");
    else
        printf("SKIP: validation off (set ORTVK_VALIDATION=1)\n");
    printf("%s: test_vk_producer (%d failure%s)\n", test_failures ? "FAIL" : "PASS", test_failures,
           test_failures == 1 ? "" : "s");
    return test_failures ? 1 : 0;
}
