/* ortvk_heap: the address table of a device's buffers, the caches of freed staging and device buffers, the list of
 * live host-allocation imports, and the freeing of a buffer's Vulkan objects. */
#include "vk/vk_heap.h"

#include <stdlib.h>
#include <string.h>

#include "ort/ort_status.h"

/* One entry of the address table: [address, address + size) belongs to `buffer`. */
typedef struct heap_range {
    VkDeviceAddress address;
    VkDeviceSize size;
    ortvk_buffer *buffer;
} heap_range;

struct ortvk_heap {
    uint32_t device_index;

    /* Every non-staging buffer, sorted by address: resolves tensor data pointers. */
    pthread_mutex_t address_lock;
    heap_range *ranges;
    size_t range_count, range_capacity;

    /* Staging buffers kept for reuse: a fresh host-visible allocation per copy costs page faults on every byte
     * (dominant for large frames). Device buffers freed by ORT's allocator and by runs, kept for an allocation of
     * the very same size: a model run frame after frame asks for the same sizes, and each vkAllocateMemory costs
     * (a driver call, and on lavapipe page faults on every byte). Cached buffers hold no device reference. */
    pthread_mutex_t cache_lock;
    ortvk_buffer *staging[ORTVK_STAGING_CACHE];
    size_t staging_count;
    ortvk_buffer *cached[ORTVK_DEVICE_CACHE];
    size_t cached_count;
    VkDeviceSize cached_bytes;

    /* Live host-allocation imports, to share a buffer between imports of one range. */
    pthread_mutex_t host_lock;
    ortvk_buffer **host_imports;
    size_t host_count, host_capacity;
};

OrtStatus *ortvk_heap_create(uint32_t device_index, ortvk_heap **out)
{
    *out = calloc(1, sizeof(**out));
    if (*out == NULL) return ortvk_status(ORT_FAIL, "out of host memory creating the heap of device %u", device_index);
    (*out)->device_index = device_index;
    pthread_mutex_init(&(*out)->address_lock, NULL);
    pthread_mutex_init(&(*out)->cache_lock, NULL);
    pthread_mutex_init(&(*out)->host_lock, NULL);
    return NULL;
}

void ortvk_heap_destroy(ortvk_heap *heap)
{
    pthread_mutex_lock(&heap->cache_lock);
    size_t staging_count = heap->staging_count, cached_count = heap->cached_count;
    heap->staging_count = heap->cached_count = 0;
    heap->cached_bytes = 0;
    pthread_mutex_unlock(&heap->cache_lock);
    for (size_t i = 0; i < staging_count; i++) ortvk_heap_free(heap, heap->staging[i]);
    for (size_t i = 0; i < cached_count; i++) ortvk_heap_free(heap, heap->cached[i]);
    pthread_mutex_destroy(&heap->address_lock);
    pthread_mutex_destroy(&heap->cache_lock);
    pthread_mutex_destroy(&heap->host_lock);
    free(heap->ranges);
    free(heap->host_imports);
    free(heap);
}

/* ---- address table ------------------------------------------------------------------------------------- */

/* Index of the first range whose address is > `address`. */
static size_t upper_bound(const ortvk_heap *heap, VkDeviceAddress address)
{
    size_t lo = 0, hi = heap->range_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (heap->ranges[mid].address <= address) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

OrtStatus *ortvk_heap_add_range(ortvk_heap *heap, ortvk_buffer *buffer)
{
    pthread_mutex_lock(&heap->address_lock);
    if (heap->range_count == heap->range_capacity) {
        size_t capacity = heap->range_capacity ? heap->range_capacity * 2 : 64;
        heap_range *ranges = realloc(heap->ranges, capacity * sizeof(*ranges));
        if (ranges == NULL) {
            pthread_mutex_unlock(&heap->address_lock);
            return ortvk_status(ORT_FAIL, "out of host memory growing the address table of device %u",
                                heap->device_index);
        }
        heap->ranges = ranges;
        heap->range_capacity = capacity;
    }
    size_t at = upper_bound(heap, buffer->address);
    memmove(&heap->ranges[at + 1], &heap->ranges[at], (heap->range_count - at) * sizeof(*heap->ranges));
    heap->ranges[at] = (heap_range){buffer->address, buffer->size, buffer};
    heap->range_count++;
    pthread_mutex_unlock(&heap->address_lock);
    return NULL;
}

static void remove_range(ortvk_heap *heap, const ortvk_buffer *buffer)
{
    pthread_mutex_lock(&heap->address_lock);
    /* Entries with equal addresses sit together just below upper_bound: find this buffer's among them. Removing
     * just any of them would leave a live address mapped to this (freed) buffer. */
    VkDeviceAddress address = buffer->address;
    for (size_t at = upper_bound(heap, address); at > 0 && heap->ranges[at - 1].address == address; at--) {
        if (heap->ranges[at - 1].buffer != buffer) continue;
        memmove(&heap->ranges[at - 1], &heap->ranges[at], (heap->range_count - at) * sizeof(*heap->ranges));
        heap->range_count--;
        break;
    }
    pthread_mutex_unlock(&heap->address_lock);
}

/* The range holding [address, address + size), the last added first among those that start together; with `ref`,
 * one whose buffer a reference could be taken on. Ranges overlap only where memory is imported twice (two host
 * imports of overlapping ranges, whose device addresses are their host addresses on lavapipe): when the ranges that
 * start nearest below miss, every range that starts below is tried, from the nearest down. */
static ortvk_buffer *find_range(ortvk_heap *heap, const void *pointer, size_t size, bool ref, VkDeviceSize *offset)
{
    VkDeviceAddress address = (VkDeviceAddress)(uintptr_t)pointer;
    ortvk_buffer *found = NULL;
    pthread_mutex_lock(&heap->address_lock);
    size_t at = upper_bound(heap, address);
    for (int pass = 0; pass < 2 && found == NULL; pass++) {
        for (size_t k = at; k-- > 0 && found == NULL;) {
            const heap_range *range = &heap->ranges[k];
            if (pass == 0 && range->address != heap->ranges[at - 1].address) break;
            VkDeviceSize into = address - range->address;
            if (into <= range->size && size <= range->size - into && (!ref || ortvk_buffer_try_ref(range->buffer))) {
                *offset = into;
                found = range->buffer;
            }
        }
    }
    pthread_mutex_unlock(&heap->address_lock);
    return found;
}

ortvk_buffer *ortvk_device_resolve(ortvk_device *device, const void *pointer, size_t size, VkDeviceSize *offset)
{
    return find_range(device->heap, pointer, size, false, offset);
}

ortvk_buffer *ortvk_device_acquire(ortvk_device *device, const void *pointer, size_t size, VkDeviceSize *offset)
{
    return find_range(device->heap, pointer, size, true, offset);
}

/* ---- caches -------------------------------------------------------------------------------------------- */

ortvk_buffer *ortvk_heap_take_cached(ortvk_heap *heap, ortvk_buffer_kind kind, VkDeviceSize size)
{
    bool staging = ortvk_buffer_kind_staging(kind);
    ortvk_buffer **list = staging ? heap->staging : heap->cached;
    ortvk_buffer *found = NULL;
    pthread_mutex_lock(&heap->cache_lock);
    size_t *count = staging ? &heap->staging_count : &heap->cached_count;
    for (size_t i = 0; i < *count && found == NULL; i++) {
        if (list[i]->size != size || list[i]->kind != kind) continue;
        found = list[i];
        list[i] = list[--*count];
        if (!staging) heap->cached_bytes -= size;
    }
    pthread_mutex_unlock(&heap->cache_lock);
    if (found != NULL) atomic_store(&found->refs, 1);
    return found;
}

bool ortvk_heap_keep(ortvk_heap *heap, ortvk_buffer *buffer)
{
    bool kept = false;
    pthread_mutex_lock(&heap->cache_lock);
    if (ortvk_buffer_kind_staging(buffer->kind)) {
        kept = heap->staging_count < ORTVK_STAGING_CACHE;
        if (kept) heap->staging[heap->staging_count++] = buffer;
    } else if (buffer->kind == ORTVK_BUFFER_DEVICE) {
        kept = heap->cached_count < ORTVK_DEVICE_CACHE && heap->cached_bytes + buffer->size <= ORTVK_DEVICE_CACHE_BYTES;
        if (kept) heap->cached[heap->cached_count++] = buffer, heap->cached_bytes += buffer->size;
    }
    pthread_mutex_unlock(&heap->cache_lock);
    return kept;
}

void ortvk_heap_free(ortvk_heap *heap, ortvk_buffer *buffer)
{
    VkDevice vk = buffer->device->vk;
    if (buffer->address != 0) remove_range(heap, buffer);
    if (buffer->mapped != NULL) vkUnmapMemory(vk, buffer->memory);
    vkDestroyBuffer(vk, buffer->vk, NULL);
    vkFreeMemory(vk, buffer->memory, NULL);
    free(buffer);
}

/* ---- host-allocation imports --------------------------------------------------------------------------- */

ortvk_buffer *ortvk_heap_share_host(ortvk_heap *heap, const void *pointer, VkDeviceSize size)
{
    ortvk_buffer *found = NULL;
    pthread_mutex_lock(&heap->host_lock);
    for (size_t i = 0; i < heap->host_count && found == NULL; i++) {
        ortvk_buffer *b = heap->host_imports[i];
        if (b->host_pointer == pointer && b->size == size && ortvk_buffer_try_ref(b)) found = b;
    }
    pthread_mutex_unlock(&heap->host_lock);
    return found;
}

void ortvk_heap_list_host(ortvk_heap *heap, ortvk_buffer *buffer)
{
    pthread_mutex_lock(&heap->host_lock);
    bool room = heap->host_count < heap->host_capacity;
    if (!room) {
        size_t capacity = heap->host_capacity ? heap->host_capacity * 2 : 16;
        ortvk_buffer **grown = realloc(heap->host_imports, capacity * sizeof(*grown));
        if (grown != NULL) heap->host_imports = grown, heap->host_capacity = capacity, room = true;
    }
    /* Without room (out of host memory) the import still works; it is just not shared. */
    if (room) heap->host_imports[heap->host_count++] = buffer;
    pthread_mutex_unlock(&heap->host_lock);
}

void ortvk_heap_unlist_host(ortvk_heap *heap, ortvk_buffer *buffer)
{
    pthread_mutex_lock(&heap->host_lock);
    for (size_t i = 0; i < heap->host_count; i++) {
        if (heap->host_imports[i] == buffer) {
            heap->host_imports[i] = heap->host_imports[--heap->host_count];
            break;
        }
    }
    pthread_mutex_unlock(&heap->host_lock);
}
