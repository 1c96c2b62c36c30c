/* ortvk_buffer: allocation, import (opaque FD, host allocation) and references of the buffers behind every tensor
 * on an ortvk device, and the queue-ownership barriers of imported memory. The device heap keeps the tables. */
#include "vk/vk_buffer.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ort/ort_status.h"
#include "vk/vk_heap.h"

_Static_assert(sizeof(void *) == sizeof(VkDeviceAddress), "ortvk data pointers are 64-bit device addresses");

/* How to get the memory of a buffer being created: a plain allocation or one of the imports. */
typedef struct buffer_source {
    ortvk_buffer_kind kind;
    VkExternalMemoryHandleTypeFlagBits handle_type; /* 0 for ortvk's own memory */
    const void *import_info;                        /* VkImport...Info chained into VkMemoryAllocateInfo */
    uint32_t memory_type_bits;                      /* extra restriction from the import, or ~0u */
} buffer_source;

static uint32_t pick_memory_type(const ortvk_device *device, const buffer_source *source, uint32_t allowed)
{
    uint32_t preferred = source->kind == ORTVK_BUFFER_STAGING    ? device->caps.memory.upload
                         : source->kind == ORTVK_BUFFER_READBACK ? device->caps.memory.readback
                                                                 : device->caps.memory.device;
    allowed &= source->memory_type_bits;
    if (allowed & (1u << preferred)) return preferred;
    for (uint32_t i = 0; i < 32; i++) {
        if (allowed & (1u << i)) return i;
    }
    return UINT32_MAX;
}

/* Beyond the largest heap no buffer can exist: for an import that is a bad size_bytes, said as such, rather than
 * whatever the driver makes of it. */
static OrtStatus *check_size(const ortvk_device *device, VkDeviceSize size, const buffer_source *source)
{
    VkPhysicalDeviceMemoryProperties heaps;
    vkGetPhysicalDeviceMemoryProperties(device->physical, &heaps);
    VkDeviceSize largest = 0;
    for (uint32_t i = 0; i < heaps.memoryHeapCount; i++)
        if (heaps.memoryHeaps[i].size > largest) largest = heaps.memoryHeaps[i].size;
    if (size <= largest) return NULL;
    return ortvk_status(source->import_info ? ORT_INVALID_ARGUMENT : ORT_FAIL,
                        "%s%llu bytes exceed the largest memory heap of device %u (%llu bytes)",
                        source->import_info ? "desc->size_bytes " : "", (unsigned long long)size, device->index,
                        (unsigned long long)largest);
}

/* Allocates (or imports) the memory behind `buffer` (its VkBuffer created): buffer->memory. */
static OrtStatus *allocate_memory(ortvk_device *device, ortvk_buffer *buffer, const buffer_source *source)
{
    VkDeviceSize size = buffer->size;
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(device->vk, buffer->vk, &req);
    uint32_t type = pick_memory_type(device, source, req.memoryTypeBits);
    if (type == UINT32_MAX) {
        return ortvk_status(ORT_EP_FAIL, "no memory type of device %u can back this buffer (allowed 0x%x)",
                            device->index, req.memoryTypeBits & source->memory_type_bits);
    }
    /* An import must cover exactly the external allocation; ortvk's own memory may round up. */
    VkDeviceSize allocation_size = source->import_info ? size : req.size;
    if (req.size > allocation_size) {
        return ortvk_status(ORT_INVALID_ARGUMENT,
                            "desc->size_bytes %llu is too small for a buffer on device %u: it needs %llu bytes "
                            "(a multiple of the %llu-byte alignment)",
                            (unsigned long long)size, device->index, (unsigned long long)req.size,
                            (unsigned long long)req.alignment);
    }
    /* A size beyond the heap is invalid usage (VUID-vkAllocateMemory-pAllocateInfo-01713), not an allocation
     * failure: refuse it here. Imports reach this with any size_bytes an application passes. */
    VkPhysicalDeviceMemoryProperties heaps;
    vkGetPhysicalDeviceMemoryProperties(device->physical, &heaps);
    VkDeviceSize heap_size = heaps.memoryHeaps[heaps.memoryTypes[type].heapIndex].size;
    if (allocation_size > heap_size) {
        return ortvk_status(source->import_info ? ORT_INVALID_ARGUMENT : ORT_FAIL,
                            "%llu bytes exceed the %llu-byte memory heap %u of device %u",
                            (unsigned long long)allocation_size, (unsigned long long)heap_size,
                            heaps.memoryTypes[type].heapIndex, device->index);
    }
    VkMemoryAllocateFlagsInfo flags = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO,
        .pNext = source->import_info,
        .flags = ortvk_buffer_kind_staging(source->kind) ? 0 : VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT,
    };
    VkMemoryAllocateInfo alloc = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
        .pNext = &flags,
        .allocationSize = allocation_size,
        .memoryTypeIndex = type,
    };
    VkResult r = vkAllocateMemory(device->vk, &alloc, NULL, &buffer->memory);
    if (r != VK_SUCCESS) {
        return ortvk_status_vk(r, "vkAllocateMemory", "%s %llu bytes on device %u",
                               source->import_info ? "importing" : "allocating", (unsigned long long)size,
                               device->index);
    }
    return NULL;
}

/* A staging buffer is mapped, and so is an ortvk-allocated one where device memory is host-visible, coherent, cached
 * (caps.device_memory_mapped: host copies then skip the queue); any other gets its device address and enters the
 * heap's address table. */
static OrtStatus *publish(ortvk_device *device, ortvk_buffer *buffer)
{
    bool staging = ortvk_buffer_kind_staging(buffer->kind);
    if (staging || (buffer->kind == ORTVK_BUFFER_DEVICE && device->caps.memory.device_mapped)) {
        VkResult r = vkMapMemory(device->vk, buffer->memory, 0, VK_WHOLE_SIZE, 0, &buffer->mapped);
        if (r != VK_SUCCESS)
            return ortvk_status_vk(r, "vkMapMemory", "mapping a %llu-byte %s buffer", (unsigned long long)buffer->size,
                                   staging ? "staging" : "device");
        if (staging) return NULL;
    }
    VkBufferDeviceAddressInfo address = {.sType = VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO, .buffer = buffer->vk};
    buffer->address = vkGetBufferDeviceAddress(device->vk, &address);
    return ortvk_heap_add_range(device->heap, buffer);
}

/* The VkBuffer's bytes for `size` bytes of `kind`: an import covers exactly its memory; ortvk's own device buffers
 * keep ORTVK_BUFFER_TAIL more, and 16 more where that sum is a power of two (vk_buffer.h). */
static VkDeviceSize vk_bytes(ortvk_buffer_kind kind, VkDeviceSize size)
{
    if (kind != ORTVK_BUFFER_DEVICE) return size;
    VkDeviceSize bytes = size + ORTVK_BUFFER_TAIL;
    return (bytes & (bytes - 1)) == 0 ? bytes + 16 : bytes;
}

static OrtStatus *buffer_create(ortvk_device *device, VkDeviceSize size, const buffer_source *source,
                                ortvk_buffer **out)
{
    *out = NULL;
    ORTVK_TRY(check_size(device, size, source));
    ortvk_buffer *buffer = calloc(1, sizeof(*buffer));
    if (buffer == NULL) return ortvk_status(ORT_FAIL, "out of host memory for a %llu-byte buffer",
                                            (unsigned long long)size);
    buffer->kind = source->kind;
    buffer->size = size;
    buffer->vk_size = vk_bytes(source->kind, size);
    atomic_init(&buffer->refs, 1);
    OrtStatus *status = NULL;

    VkExternalMemoryBufferCreateInfo external = {
        .sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO,
        .handleTypes = source->handle_type,
    };
    VkBufferCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
        .pNext = source->handle_type ? &external : NULL,
        .size = buffer->vk_size,
        .usage = ortvk_buffer_kind_staging(source->kind)
                     ? (VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT)
                     : ORTVK_BUFFER_USAGE,
        .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
    };
    VkResult r = vkCreateBuffer(device->vk, &info, NULL, &buffer->vk);
    if (r != VK_SUCCESS) {
        status = ortvk_status_vk(r, "vkCreateBuffer", "creating a %llu-byte buffer", (unsigned long long)size);
        goto err_buffer;
    }
    status = allocate_memory(device, buffer, source);
    if (status != NULL) goto err_memory;
    r = vkBindBufferMemory(device->vk, buffer->vk, buffer->memory, 0);
    if (r != VK_SUCCESS) {
        status = ortvk_status_vk(r, "vkBindBufferMemory", "binding a %llu-byte buffer", (unsigned long long)size);
        goto err_bind;
    }
    status = publish(device, buffer);
    if (status != NULL) goto err_bind;
    ortvk_device_ref(device);
    buffer->device = device;
    *out = buffer;
    return NULL;

err_bind:
    vkFreeMemory(device->vk, buffer->memory, NULL);
err_memory:
    vkDestroyBuffer(device->vk, buffer->vk, NULL);
err_buffer:
    free(buffer);
    return status;
}

OrtStatus *ortvk_buffer_allocate(ortvk_device *device, VkDeviceSize size, ortvk_buffer **out)
{
    if (size == 0) size = 4;
    *out = ortvk_heap_take_cached(device->heap, ORTVK_BUFFER_DEVICE, size);
    if (*out != NULL) {
        ortvk_device_ref(device); /* cached buffers hold no reference: take it back */
        return NULL;
    }
    buffer_source source = {.kind = ORTVK_BUFFER_DEVICE, .memory_type_bits = ~0u};
    return buffer_create(device, size, &source, out);
}

/* Staging sizes are rounded up so that frames of similar sizes reuse each other's buffers. */
static VkDeviceSize staging_size(VkDeviceSize size)
{
    VkDeviceSize rounded = 64 * 1024;
    while (rounded < size) rounded *= 2;
    return rounded;
}

OrtStatus *ortvk_buffer_allocate_staging(ortvk_device *device, ortvk_buffer_kind kind, VkDeviceSize size,
                                         ortvk_buffer **out)
{
    VkDeviceSize want = staging_size(size);
    *out = ortvk_heap_take_cached(device->heap, kind, want);
    if (*out != NULL) {
        ortvk_device_ref(device); /* cached buffers hold no reference: take it back */
        return NULL;
    }
    buffer_source source = {.kind = kind, .memory_type_bits = ~0u};
    return buffer_create(device, want, &source, out);
}

/* After a failed import the FD is still ours (the Vulkan spec transfers ownership only on success), but some
 * drivers close it anyway: Mesa 22.3's lavapipe does on every failed opaque FD import. Closing it again would close
 * whatever another thread has opened under that number since, so close `dup_fd` only if it is still open on the
 * same file as the caller's `fd`. */
static void close_unless_consumed(int dup_fd, int fd)
{
    struct stat ours, theirs;
    if (fstat(dup_fd, &ours) != 0) return; /* the driver closed it */
    if (fstat(fd, &theirs) != 0 || ours.st_dev != theirs.st_dev || ours.st_ino != theirs.st_ino) return;
    close(dup_fd);
}

OrtStatus *ortvk_buffer_import_fd(ortvk_device *device, int fd, VkDeviceSize size, ortvk_buffer **out)
{
    *out = NULL;
    if (!device->caps.import_opaque_fd_memory) {
        return ortvk_status(ORT_NOT_IMPLEMENTED, "device %u (%s) cannot import opaque FD memory", device->index,
                            device->caps.props.deviceName);
    }
    struct stat st;
    if (fcntl(fd, F_GETFD) == -1 || fstat(fd, &st) != 0) {
        return ortvk_status(ORT_INVALID_ARGUMENT, "desc->native_handle: fd %d is not an open file descriptor", fd);
    }
    if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) || S_ISDIR(st.st_mode)) {
        return ortvk_status(ORT_INVALID_ARGUMENT, "desc->native_handle: fd %d is a %s, not exported Vulkan memory", fd,
                            S_ISFIFO(st.st_mode) ? "pipe" : S_ISSOCK(st.st_mode) ? "socket" : "directory");
    }
    /* Drivers that back opaque FDs with files (lavapipe uses memfds) would fault on access past the file's end. */
    if (S_ISREG(st.st_mode) && (VkDeviceSize)st.st_size < size) {
        return ortvk_status(ORT_INVALID_ARGUMENT, "desc->size_bytes %llu exceeds the %lld bytes behind fd %d",
                            (unsigned long long)size, (long long)st.st_size, fd);
    }
    /* Vulkan takes ownership of the FD it imports: give it a duplicate so the caller keeps its own. */
    int dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (dup_fd < 0) {
        return ortvk_status(ORT_FAIL, "duplicating fd %d: errno %d", fd, errno);
    }
    VkImportMemoryFdInfoKHR import = {
        .sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR,
        .handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT,
        .fd = dup_fd,
    };
    buffer_source source = {
        .kind = ORTVK_BUFFER_OPAQUE_FD,
        .handle_type = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT,
        .import_info = &import,
        /* Opaque FD imports must use the exporter's memory type; ortvk documents that it imports into
         * caps.memory.device, published as the EP metadata key "ortvk.opaque_fd_memory_type". */
        .memory_type_bits = 1u << device->caps.memory.device,
    };
    OrtStatus *status = buffer_create(device, size, &source, out);
    if (status != NULL) {
        close_unless_consumed(dup_fd, fd); /* a failed import leaves ownership with us, unless the driver took it */
        if (ortvk_ort->GetErrorCode(status) == ORT_EP_FAIL) {
            char device_uuid[33], driver_uuid[33];
            ortvk_uuid_hex(device->caps.device_uuid, device_uuid);
            ortvk_uuid_hex(device->caps.driver_uuid, driver_uuid);
            OrtStatus *named = ortvk_status(
                ORT_EP_FAIL,
                "%s. An opaque FD imports only into a device with the exporter's deviceUUID and driverUUID "
                "(this device: %s / %s) and memory type %u",
                ortvk_ort->GetErrorMessage(status) +
                    (strncmp(ortvk_ort->GetErrorMessage(status), "ortvk: ", 7) ? 0 : 7),
                device_uuid, driver_uuid, device->caps.memory.device);
            ortvk_ort->ReleaseStatus(status);
            status = named;
        }
    }
    return status;
}

OrtStatus *ortvk_buffer_import_host(ortvk_device *device, void *pointer, VkDeviceSize size, ortvk_buffer **out)
{
    *out = NULL;
    if (!device->caps.import_host_memory) {
        return ortvk_status(ORT_NOT_IMPLEMENTED, "device %u (%s) cannot import host allocations", device->index,
                            device->caps.props.deviceName);
    }
    VkDeviceSize align = device->caps.host_pointer_alignment;
    if ((uintptr_t)pointer % align != 0) {
        return ortvk_status(ORT_INVALID_ARGUMENT,
                            "desc->native_handle %p is not aligned to the device's %llu-byte host pointer alignment",
                            pointer, (unsigned long long)align);
    }
    if (size % align != 0) {
        return ortvk_status(ORT_INVALID_ARGUMENT,
                            "desc->size_bytes %llu is not a multiple of the device's %llu-byte host pointer alignment",
                            (unsigned long long)size, (unsigned long long)align);
    }
    /* No buffer exists past the largest heap: refused before the walk below, which would otherwise visit every page
     * of a range of terabytes that happens to be reserved (a sanitizer's shadow memory took minutes). */
    VkImportMemoryHostPointerInfoEXT import = {
        .sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT,
        .handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT,
        .pHostPointer = pointer,
    };
    buffer_source source = {
        .kind = ORTVK_BUFFER_HOST,
        .handle_type = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT,
        .import_info = &import,
        .memory_type_bits = ~0u,
    };
    ORTVK_TRY(check_size(device, size, &source));
    /* Every page of the range must be mapped: the driver takes the pointer on trust, and a view of a page that is
     * not there faulted inside it at the first use. mincore fails with ENOMEM for a range with a hole. (A mapping
     * of a file past the file's end passes this check; its pages fault when touched, as they would for the
     * application.) */
    uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
    uint64_t lead = (uint64_t)(uintptr_t)pointer % page; /* mincore wants a page-aligned start */
    char *first = (char *)pointer - lead;
    unsigned char residency[4096];
    for (uint64_t done = 0; done < size + lead;) {
        uint64_t chunk = size + lead - done;
        if (chunk > sizeof(residency) * page) chunk = sizeof(residency) * page;
        if (mincore(first + done, chunk, residency) != 0) {
            int err = errno;
            return ortvk_status(ORT_INVALID_ARGUMENT,
                                "desc->native_handle %p + desc->size_bytes %llu: the range is not mapped in this "
                                "process from byte %llu on (%s)",
                                pointer, (unsigned long long)size, (unsigned long long)(done > lead ? done - lead : 0),
                                err == ENOMEM ? "a page of it is not mapped" : "mincore failed");
        }
        done += chunk;
    }
    /* An import of this very range that is still alive is shared. */
    *out = ortvk_heap_share_host(device->heap, pointer, size);
    if (*out != NULL) return NULL;

    VkMemoryHostPointerPropertiesEXT props = {.sType = VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT};
    VkResult r = device->GetMemoryHostPointerPropertiesEXT(
        device->vk, VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT, pointer, &props);
    if (r != VK_SUCCESS) {
        return ortvk_status_vk(r, "vkGetMemoryHostPointerPropertiesEXT", "desc->native_handle %p", pointer);
    }
    source.memory_type_bits = props.memoryTypeBits;
    ORTVK_TRY(buffer_create(device, size, &source, out));
    (*out)->host_pointer = pointer;
    ortvk_heap_list_host(device->heap, *out);
    return NULL;
}

void ortvk_buffer_unref(ortvk_buffer *buffer)
{
    if (buffer == NULL || atomic_fetch_sub(&buffer->refs, 1) != 1) return;
    ortvk_device *device = buffer->device;
    if (buffer->kind == ORTVK_BUFFER_HOST) ortvk_heap_unlist_host(device->heap, buffer);
    /* A kept buffer's device reference goes too: if it was the last, the device frees its heap, this buffer
     * included. */
    if (!ortvk_heap_keep(device->heap, buffer)) ortvk_heap_free(device->heap, buffer);
    ortvk_device_unref(device);
}

void ortvk_buffer_ownership(VkCommandBuffer cmd, const ortvk_buffer *buffer, bool acquire, VkPipelineStageFlags work,
                            VkAccessFlags reads, VkAccessFlags writes)
{
    if (buffer == NULL || buffer->kind != ORTVK_BUFFER_OPAQUE_FD) return;
    uint32_t ours = buffer->device->caps.queue_family;
    VkBufferMemoryBarrier b = {
        .sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER,
        .srcAccessMask = acquire ? 0 : writes,
        .dstAccessMask = acquire ? reads | writes : 0,
        .srcQueueFamilyIndex = acquire ? VK_QUEUE_FAMILY_EXTERNAL : ours,
        .dstQueueFamilyIndex = acquire ? ours : VK_QUEUE_FAMILY_EXTERNAL,
        .buffer = buffer->vk,
        .offset = 0,
        .size = VK_WHOLE_SIZE,
    };
    vkCmdPipelineBarrier(cmd, acquire ? VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT : work,
                         acquire ? work : VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0, 0, NULL, 1, &b, 0, NULL);
}
