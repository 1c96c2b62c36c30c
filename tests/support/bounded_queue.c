/* bounded_queue: an LD_PRELOAD shim that gives lavapipe the one trait of a GPU driver's queue that matters to
 * ortvk's locking: vkQueueSubmit may block its caller until the device has worked through earlier submissions.
 * A GPU driver feeds a ring of bounded size; when the ring is full, vkQueueSubmit waits for the GPU to make room
 * (NVIDIA's may then give up with VK_ERROR_DEVICE_LOST). lavapipe queues without bound and never blocks, so a
 * thread that holds a lock across vkQueueSubmit never waits there, and a lock cycle through the GPU cannot show.
 *
 * Each queue here admits $ORTVK_BOUNDED_QUEUE_DEPTH (default 2) unfinished batches; vkQueueSubmit waits for room
 * (the shim appends a signal of its own timeline semaphore to every batch to see the queue drain) and, after
 * $ORTVK_BOUNDED_QUEUE_TIMEOUT_S seconds (default 10) without any, prints "bounded_queue: ... no progress" and
 * returns VK_ERROR_DEVICE_LOST, as NVIDIA's driver did on the GPU run of test_concurrency. Used by ctest's
 * test_concurrency_bounded_queue; the shim's own semaphore is destroyed in vkDestroyDevice. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_NEXT */
#endif
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vulkan.h>

#define MAX_QUEUES 16
#define MAX_SIGNALS 64

typedef struct bounded {
    VkQueue queue;
    VkDevice device;
    VkSemaphore done;   /* the shim's timeline: batch n signals n */
    uint64_t submitted; /* batches handed to the driver */
} bounded;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static bounded queues[MAX_QUEUES];
static size_t queue_count;

static void *next_fn(const char *name)
{
    void *fn = dlsym(RTLD_NEXT, name);
    if (fn == NULL) {
        fprintf(stderr, "bounded_queue: %s not found after the shim\n", name);
        abort();
    }
    return fn;
}

static uint64_t env_u64(const char *name, uint64_t fallback)
{
    const char *text = getenv(name);
    long long n = text ? atoll(text) : 0;
    return n > 0 ? (uint64_t)n : fallback;
}

/* Lock held. */
static bounded *find(VkQueue queue)
{
    for (size_t i = 0; i < queue_count; i++) {
        if (queues[i].queue == queue) return &queues[i];
    }
    return NULL;
}

VKAPI_ATTR void VKAPI_CALL vkGetDeviceQueue(VkDevice device, uint32_t family, uint32_t index, VkQueue *queue)
{
    static PFN_vkGetDeviceQueue next;
    if (next == NULL) next = (PFN_vkGetDeviceQueue)next_fn("vkGetDeviceQueue");
    next(device, family, index, queue);
    pthread_mutex_lock(&lock);
    if (find(*queue) == NULL && queue_count < MAX_QUEUES) {
        queues[queue_count++] = (bounded){.queue = *queue, .device = device};
    }
    pthread_mutex_unlock(&lock);
}

VKAPI_ATTR void VKAPI_CALL vkDestroyDevice(VkDevice device, const VkAllocationCallbacks *allocator)
{
    static PFN_vkDestroyDevice next;
    if (next == NULL) next = (PFN_vkDestroyDevice)next_fn("vkDestroyDevice");
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < queue_count;) {
        if (queues[i].device != device) {
            i++;
            continue;
        }
        if (queues[i].done != VK_NULL_HANDLE) vkDestroySemaphore(device, queues[i].done, NULL);
        queues[i] = queues[--queue_count];
    }
    pthread_mutex_unlock(&lock);
    next(device, allocator);
}

/* Lock held. Waits until at most `depth` of the queue's batches are unfinished; false when nothing finished for
 * `timeout_ns`. */
static bool wait_for_room(bounded *b, uint64_t depth, uint64_t timeout_ns)
{
    if (b->submitted < depth) return true;
    uint64_t value = b->submitted - depth + 1;
    VkSemaphoreWaitInfo info = {
        .sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
        .semaphoreCount = 1,
        .pSemaphores = &b->done,
        .pValues = &value,
    };
    return vkWaitSemaphores(b->device, &info, timeout_ns) == VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL vkQueueSubmit(VkQueue queue, uint32_t count, const VkSubmitInfo *submits,
                                             VkFence fence)
{
    static PFN_vkQueueSubmit next;
    if (next == NULL) next = (PFN_vkQueueSubmit)next_fn("vkQueueSubmit");
    pthread_mutex_lock(&lock);
    bounded *b = find(queue);
    const VkSubmitInfo *last = count ? &submits[count - 1] : NULL;
    const VkTimelineSemaphoreSubmitInfo *values = last ? last->pNext : NULL;
    /* Only batches whose timeline values come first in pNext (ortvk's) are tracked; fence-only submits pass. */
    bool tracked = b != NULL && values != NULL && values->sType == VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO &&
                   last->signalSemaphoreCount < MAX_SIGNALS &&
                   values->signalSemaphoreValueCount == last->signalSemaphoreCount;
    if (!tracked) {
        pthread_mutex_unlock(&lock);
        return next(queue, count, submits, fence);
    }
    if (b->done == VK_NULL_HANDLE) {
        VkSemaphoreTypeCreateInfo type = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
                                          .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE};
        VkSemaphoreCreateInfo info = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &type};
        if (vkCreateSemaphore(b->device, &info, NULL, &b->done) != VK_SUCCESS) {
            pthread_mutex_unlock(&lock);
            return VK_ERROR_OUT_OF_HOST_MEMORY;
        }
    }
    uint64_t depth = env_u64("ORTVK_BOUNDED_QUEUE_DEPTH", 2);
    uint64_t timeout_s = env_u64("ORTVK_BOUNDED_QUEUE_TIMEOUT_S", 10);
    if (!wait_for_room(b, depth, timeout_s * 1000000000ull)) {
        fprintf(stderr, "bounded_queue: vkQueueSubmit waited %llu s for room and the queue made no progress (a "
                        "deadlock through the GPU); returning VK_ERROR_DEVICE_LOST\n", (unsigned long long)timeout_s);
        pthread_mutex_unlock(&lock);
        return VK_ERROR_DEVICE_LOST;
    }
    VkSemaphore semaphores[MAX_SIGNALS];
    uint64_t signal_values[MAX_SIGNALS];
    uint32_t n = last->signalSemaphoreCount;
    memcpy(semaphores, last->pSignalSemaphores, n * sizeof(*semaphores));
    memcpy(signal_values, values->pSignalSemaphoreValues, n * sizeof(*signal_values));
    semaphores[n] = b->done;
    signal_values[n] = b->submitted + 1;
    VkTimelineSemaphoreSubmitInfo timeline = *values;
    timeline.signalSemaphoreValueCount = n + 1;
    timeline.pSignalSemaphoreValues = signal_values;
    VkSubmitInfo *copy = malloc(count * sizeof(*copy));
    if (copy == NULL) {
        pthread_mutex_unlock(&lock);
        return VK_ERROR_OUT_OF_HOST_MEMORY;
    }
    memcpy(copy, submits, count * sizeof(*copy));
    copy[count - 1].pNext = &timeline;
    copy[count - 1].signalSemaphoreCount = n + 1;
    copy[count - 1].pSignalSemaphores = semaphores;
    VkResult r = next(queue, count, copy, fence);
    if (r == VK_SUCCESS) b->submitted++;
    free(copy);
    pthread_mutex_unlock(&lock);
    return r;
}
