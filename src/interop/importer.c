/* The OrtExternalResourceImporterImpl ORT wraps for an application: its entry points check their arguments
 * (interop_checks.c) and dispatch to the memory and semaphore handle code. */
#include "interop/interop.h"

#include <stdlib.h>

#include "ort/ort_status.h"

ORTVK_DEFINE_BASE_CAST(importer_cast, ortvk_importer, OrtExternalResourceImporterImpl)

static bool ORT_API_CALL can_import_memory(const OrtExternalResourceImporterImpl *impl,
                                           OrtExternalMemoryHandleType type)
{
    const ortvk_memory_kind *kind = ortvk_memory_kind_find((int)type);
    return kind != NULL && kind->supported != NULL && kind->supported(importer_cast(impl)->device);
}

static OrtStatus *ORT_API_CALL import_memory(OrtExternalResourceImporterImpl *impl,
                                             const OrtExternalMemoryDescriptor *desc, OrtExternalMemoryHandle **out)
{
    if (desc == NULL || out == NULL) return ortvk_status(ORT_INVALID_ARGUMENT, "desc and out_handle must not be NULL");
    *out = NULL;
    return ortvk_memory_import_create(importer_cast(impl), desc, out);
}

/* ORT releases handles through their own Release; this entry point exists for EPs' internal use. */
static void ORT_API_CALL release_memory(OrtExternalResourceImporterImpl *impl, OrtExternalMemoryHandle *handle)
{
    (void)impl;
    if (handle != NULL) handle->Release(handle);
}

static OrtStatus *ORT_API_CALL create_tensor(OrtExternalResourceImporterImpl *impl,
                                             const OrtExternalMemoryHandle *memory,
                                             const OrtExternalTensorDescriptor *desc, OrtValue **out)
{
    if (memory == NULL || desc == NULL || out == NULL) {
        return ortvk_status(ORT_INVALID_ARGUMENT, "mem_handle, tensor_desc and out_tensor must not be NULL");
    }
    *out = NULL;
    ortvk_importer *importer = importer_cast(impl);
    ortvk_memory_import *import = ortvk_memory_import_from_ort(memory);
    if (import == NULL) {
        return ortvk_status(ORT_INVALID_ARGUMENT, "mem_handle %p was not imported by ortvk", (const void *)memory);
    }
    if (import->buffer->device != importer->device) {
        return ortvk_status(ORT_INVALID_ARGUMENT, "mem_handle was imported into device %u, this importer is for %u",
                            import->buffer->device->index, importer->device->index);
    }
    return ortvk_memory_import_create_tensor(importer, import, desc, out);
}

static bool ORT_API_CALL can_import_semaphore(const OrtExternalResourceImporterImpl *impl,
                                              OrtExternalSemaphoreType type)
{
    const ortvk_semaphore_kind *kind = ortvk_semaphore_kind_find((int)type);
    return kind != NULL && kind->supported != NULL && kind->supported(importer_cast(impl)->device);
}

static OrtStatus *ORT_API_CALL import_semaphore(OrtExternalResourceImporterImpl *impl,
                                                const OrtExternalSemaphoreDescriptor *desc,
                                                OrtExternalSemaphoreHandle **out)
{
    if (desc == NULL || out == NULL) return ortvk_status(ORT_INVALID_ARGUMENT, "desc and out_handle must not be NULL");
    *out = NULL;
    return ortvk_semaphore_import_create(importer_cast(impl), desc, out);
}

static void ORT_API_CALL release_semaphore(OrtExternalResourceImporterImpl *impl, OrtExternalSemaphoreHandle *handle)
{
    (void)impl;
    if (handle != NULL) handle->Release(handle);
}

static OrtStatus *semaphore_args(ortvk_importer *importer, OrtExternalSemaphoreHandle *handle, OrtSyncStream *stream,
                                 ortvk_semaphore_import **out)
{
    if (handle == NULL || stream == NULL) {
        return ortvk_status(ORT_INVALID_ARGUMENT, "semaphore_handle and stream must not be NULL");
    }
    *out = ortvk_semaphore_import_from_ort(handle);
    if (*out == NULL) {
        return ortvk_status(ORT_INVALID_ARGUMENT, "semaphore_handle %p was not imported by ortvk", (void *)handle);
    }
    if ((*out)->device != importer->device) {
        return ortvk_status(ORT_INVALID_ARGUMENT,
                            "semaphore_handle was imported into device %u, this importer is for %u",
                            (*out)->device->index, importer->device->index);
    }
    return NULL;
}

/* WaitSemaphore and SignalSemaphore: the same checks, then `op`. */
static OrtStatus *semaphore_call(OrtExternalResourceImporterImpl *impl, OrtExternalSemaphoreHandle *handle,
                                 OrtSyncStream *stream, uint64_t value,
                                 OrtStatus *(*op)(ortvk_importer *, ortvk_semaphore_import *, OrtSyncStream *,
                                                  uint64_t))
{
    ortvk_importer *importer = importer_cast(impl);
    ortvk_semaphore_import *semaphore = NULL;
    ORTVK_TRY(semaphore_args(importer, handle, stream, &semaphore));
    return op(importer, semaphore, stream, value);
}

static OrtStatus *ORT_API_CALL wait_semaphore(OrtExternalResourceImporterImpl *impl,
                                              OrtExternalSemaphoreHandle *handle, OrtSyncStream *stream,
                                              uint64_t value)
{
    return semaphore_call(impl, handle, stream, value, ortvk_semaphore_import_wait);
}

static OrtStatus *ORT_API_CALL signal_semaphore(OrtExternalResourceImporterImpl *impl,
                                                OrtExternalSemaphoreHandle *handle, OrtSyncStream *stream,
                                                uint64_t value)
{
    return semaphore_call(impl, handle, stream, value, ortvk_semaphore_import_signal);
}

static void ORT_API_CALL importer_release(OrtExternalResourceImporterImpl *impl)
{
    ortvk_importer *importer = importer_cast(impl);
    ortvk_device_unref(importer->device);
    free(importer);
}

OrtStatus *ortvk_importer_create(ortvk_device *device, const OrtEpDevice *ep_device,
                                 OrtExternalResourceImporterImpl **out)
{
    ortvk_importer *importer = calloc(1, sizeof(*importer));
    if (importer == NULL) return ortvk_status(ORT_FAIL, "out of host memory creating an importer");
    importer->base = (OrtExternalResourceImporterImpl){
        .ort_version_supported = ortvk_ort_version,
        .CanImportMemory = can_import_memory,
        .ImportMemory = import_memory,
        .ReleaseMemory = release_memory,
        .CreateTensorFromMemory = create_tensor,
        .CanImportSemaphore = can_import_semaphore,
        .ImportSemaphore = import_semaphore,
        .ReleaseSemaphore = release_semaphore,
        .WaitSemaphore = wait_semaphore,
        .SignalSemaphore = signal_semaphore,
        .Release = importer_release,
    };
    ortvk_device_ref(device);
    importer->device = device;
    importer->ep_device = ep_device;
    *out = &importer->base;
    return NULL;
}
