/* Imported memory: the table of memory handle kinds, ImportMemory's checks, the handle ORT releases, and the
 * tensor views CreateTensorFromMemory makes (each view keeps the import alive until ORT frees the tensor). */
#include <stdlib.h>
#include <string.h>

#include "interop/interop.h"
#include "ort/ort_status.h"
#include "ort/ort_tensor.h"

ORTVK_DEFINE_BASE_CAST(memory_cast, ortvk_memory_import, OrtExternalMemoryHandle)

/* ---- kinds ---------------------------------------------------------------------------------------------- */

static bool opaque_fd_supported(const ortvk_device *device)
{
    return device->caps.import_opaque_fd_memory;
}

static OrtStatus *opaque_fd_import(ortvk_device *device, const OrtExternalMemoryDescriptor *desc, ortvk_buffer **out)
{
    int fd;
    ORTVK_TRY(ortvk_fd_from_handle("desc", desc->native_handle, &fd));
    OrtStatus *status = ortvk_buffer_import_fd(device, fd, desc->size_bytes, out);
    /* The driver rejected the FD itself (ORT_INVALID_ARGUMENT): say what an importable one must match, as
     * docs/interop.md promises (ortvk_buffer_import_fd says it for its ORT_EP_FAIL failures). */
    const char *message = status != NULL ? ortvk_ort->GetErrorMessage(status) : NULL;
    if (message != NULL && strstr(message, "VK_ERROR_INVALID_EXTERNAL_HANDLE") != NULL && !strstr(message, "UUID")) {
        char device_uuid[33], driver_uuid[33];
        ortvk_uuid_hex(device->caps.device_uuid, device_uuid);
        ortvk_uuid_hex(device->caps.driver_uuid, driver_uuid);
        OrtStatus *named = ortvk_status(
            ortvk_ort->GetErrorCode(status),
            "%s. An opaque FD imports only if exported by vkGetMemoryFdKHR on a device with this device's deviceUUID "
            "%s and driverUUID %s, from memory type %u (EP metadata ortvk.opaque_fd_memory_type)",
            message + (strncmp(message, "ortvk: ", 7) == 0 ? 7 : 0), device_uuid, driver_uuid,
            device->caps.memory.device);
        ortvk_ort->ReleaseStatus(status);
        status = named;
    }
    return status;
}

static bool host_supported(const ortvk_device *device)
{
    return device->caps.import_host_memory;
}

static OrtStatus *host_import(ortvk_device *device, const OrtExternalMemoryDescriptor *desc, ortvk_buffer **out)
{
    if (desc->native_handle == NULL) {
        return ortvk_status(ORT_INVALID_ARGUMENT, "desc->native_handle is NULL, not a host address");
    }
    return ortvk_buffer_import_host(device, desc->native_handle, desc->size_bytes, out);
}

static const ortvk_memory_kind memory_kinds[] = {
    {ORT_EXTERNAL_MEMORY_HANDLE_TYPE_D3D12_RESOURCE, "D3D12_RESOURCE", NULL, NULL},
    {ORT_EXTERNAL_MEMORY_HANDLE_TYPE_D3D12_HEAP, "D3D12_HEAP", NULL, NULL},
    {ORT_EXTERNAL_MEMORY_HANDLE_TYPE_MEMORY_WIN32, "MEMORY_WIN32", NULL, NULL},
    {ORT_EXTERNAL_MEMORY_HANDLE_TYPE_MEMORY_OPAQUE_FD, "MEMORY_OPAQUE_FD", opaque_fd_supported, opaque_fd_import},
    {ORT_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION, "HOST_ALLOCATION", host_supported, host_import},
};

const ortvk_memory_kind *ortvk_memory_kind_find(int type)
{
    for (size_t i = 0; i < sizeof(memory_kinds) / sizeof(memory_kinds[0]); i++) {
        if ((int)memory_kinds[i].type == type) return &memory_kinds[i];
    }
    return NULL;
}

/* ---- handles -------------------------------------------------------------------------------------------- */

void ortvk_memory_import_unref(ortvk_memory_import *import)
{
    if (import == NULL || atomic_fetch_sub(&import->refs, 1) != 1) return;
    ortvk_buffer_unref(import->buffer);
    free(import);
}

static void ORT_API_CALL memory_release(OrtExternalMemoryHandle *handle)
{
    ortvk_memory_import_unref(memory_cast(handle));
}

ortvk_memory_import *ortvk_memory_import_from_ort(const OrtExternalMemoryHandle *handle)
{
    /* Our Release pointer is the tag; it lives in ORT's base struct, so reading it is safe for any handle. */
    if (handle == NULL || handle->Release != memory_release) return NULL;
    return memory_cast(handle);
}

OrtStatus *ortvk_memory_import_create(ortvk_importer *importer, const OrtExternalMemoryDescriptor *desc,
                               OrtExternalMemoryHandle **out)
{
    ORTVK_TRY(ortvk_check_version("desc", desc->version));
    /* Never trust that the application asked CanImportMemory first. */
    const ortvk_memory_kind *kind = ortvk_memory_kind_find((int)desc->handle_type);
    if (kind == NULL) {
        return ortvk_status(ORT_INVALID_ARGUMENT, "desc->handle_type %d is not an external memory handle type",
                            (int)desc->handle_type);
    }
    if (kind->import == NULL || !kind->supported(importer->device)) {
        return ortvk_status(ORT_NOT_IMPLEMENTED, "desc->handle_type %s (%d) cannot be imported into device %u (%s)",
                            kind->name, (int)kind->type, importer->device->index,
                            importer->device->caps.props.deviceName);
    }
    if (desc->size_bytes == 0) return ortvk_status(ORT_INVALID_ARGUMENT, "desc->size_bytes is 0");
    if (desc->offset_bytes >= desc->size_bytes) {
        return ortvk_status(ORT_INVALID_ARGUMENT, "desc->offset_bytes %zu is not below desc->size_bytes %zu",
                            desc->offset_bytes, desc->size_bytes);
    }
    ortvk_memory_import *import = calloc(1, sizeof(*import));
    if (import == NULL) return ortvk_status(ORT_FAIL, "out of host memory importing %s memory", kind->name);
    OrtStatus *status = kind->import(importer->device, desc, &import->buffer);
    if (status != NULL) {
        free(import);
        return status;
    }
    atomic_init(&import->refs, 1);
    import->base = (OrtExternalMemoryHandle){
        .version = ortvk_ort_version,
        .ep_device = importer->ep_device,
        .descriptor = *desc,
        .Release = memory_release,
    };
    *out = &import->base;
    return NULL;
}

/* ---- tensor views --------------------------------------------------------------------------------------- */

/* ORT frees a tensor made with CreateTensorWithDataAndDeleterAsOrtValue by calling Free on its deleter: one
 * deleter per view, holding a reference on the import, makes the tensor keep the memory alive. */
typedef struct ortvk_tensor_view {
    OrtAllocator base; /* first */
    ortvk_memory_import *import;
} ortvk_tensor_view;

ORTVK_DEFINE_BASE_CAST(view_cast, ortvk_tensor_view, OrtAllocator)

static void ORT_API_CALL view_free(OrtAllocator *allocator, void *p)
{
    (void)p;
    ortvk_tensor_view *view = view_cast(allocator);
    ortvk_memory_import_unref(view->import);
    free(view);
}

static void *ORT_API_CALL view_alloc(OrtAllocator *allocator, size_t size)
{
    (void)allocator, (void)size;
    return NULL; /* a view deleter never allocates */
}

static const OrtMemoryInfo *ORT_API_CALL view_info(const OrtAllocator *allocator)
{
    return ((const ortvk_tensor_view *)allocator)->import->buffer->device->memory_info;
}

OrtStatus *ortvk_memory_import_create_tensor(ortvk_importer *importer, ortvk_memory_import *import,
                                             const OrtExternalTensorDescriptor *desc, OrtValue **out)
{
    (void)importer;
    ORTVK_TRY(ortvk_check_version("tensor_desc", desc->version));
    size_t element = ortvk_element_size((int)desc->element_type);
    if (element == 0) {
        return ortvk_status(ORT_INVALID_ARGUMENT, "tensor_desc->element_type %s (%d) cannot live on an ortvk device",
                            ortvk_element_name((int)desc->element_type), (int)desc->element_type);
    }
    if (desc->rank > ORTVK_MAX_TENSOR_RANK) {
        return ortvk_status(ORT_INVALID_ARGUMENT, "tensor_desc->rank %zu exceeds ortvk's maximum of %d", desc->rank,
                            ORTVK_MAX_TENSOR_RANK);
    }
    if (desc->rank > 0 && desc->shape == NULL) {
        return ortvk_status(ORT_INVALID_ARGUMENT, "tensor_desc->shape is NULL for rank %zu", desc->rank);
    }
    size_t bytes = element;
    for (size_t i = 0; i < desc->rank; i++) {
        int64_t dim = desc->shape[i];
        if (dim < 0) {
            return ortvk_status(ORT_INVALID_ARGUMENT, "tensor_desc->shape[%zu] is %lld; dimensions must be >= 0", i,
                                (long long)dim);
        }
        if (dim > 0 && bytes > SIZE_MAX / (uint64_t)dim) {
            return ortvk_status(ORT_INVALID_ARGUMENT, "tensor_desc->shape[%zu] = %lld overflows the tensor's size", i,
                                (long long)dim);
        }
        bytes *= (size_t)dim;
    }
    /* The view is [region + offset, region + offset + bytes) where region = the memory descriptor's offset. */
    const OrtExternalMemoryDescriptor *memory = &import->base.descriptor;
    size_t region_size = memory->size_bytes - memory->offset_bytes;
    if (desc->offset_bytes > region_size || bytes > region_size - desc->offset_bytes) {
        return ortvk_status(ORT_INVALID_ARGUMENT,
                            "tensor_desc->offset_bytes %zu + %zu tensor bytes exceed the %zu-byte imported region "
                            "(size_bytes %zu - offset_bytes %zu)",
                            desc->offset_bytes, bytes, region_size, memory->size_bytes, memory->offset_bytes);
    }
    size_t start = memory->offset_bytes + desc->offset_bytes;
    if (start % element != 0) {
        return ortvk_status(ORT_INVALID_ARGUMENT,
                            "tensor_desc->offset_bytes %zu puts the tensor at byte %zu, not aligned to its %zu-byte "
                            "%s elements",
                            desc->offset_bytes, start, element, ortvk_element_name((int)desc->element_type));
    }

    ortvk_tensor_view *view = calloc(1, sizeof(*view));
    if (view == NULL) return ortvk_status(ORT_FAIL, "out of host memory creating a tensor view");
    view->base.version = ortvk_ort_version;
    view->base.Alloc = view_alloc;
    view->base.Free = view_free;
    view->base.Info = view_info;
    view->import = import;
    atomic_fetch_add(&import->refs, 1);
    OrtStatus *status = ortvk_ort->CreateTensorWithDataAndDeleterAsOrtValue(
        &view->base, ortvk_buffer_pointer(import->buffer, start), bytes, desc->shape, desc->rank,
        desc->element_type, out);
    if (status != NULL) {
        atomic_fetch_sub(&import->refs, 1); /* the handle still holds its own reference */
        free(view);
    }
    return status;
}
