/* Private to ortvk. The external resource importer and the handles it makes. Each handle kind (opaque FD
 * memory, host allocation, Vulkan timeline semaphore, host timeline semaphore) is one row of a table whose
 * function pointers say what it supports; CanImport* and Import* read the table, nothing else switches on types. */
#ifndef ORTVK_INTEROP_H
#define ORTVK_INTEROP_H

#include <stdatomic.h>

#include "vk/vk_stream.h"

/* Accepted descriptor versions: ORT 1.24's and every later one. ORT's structs only grow at the end, so a
 * descriptor of a newer version starts with the fields ortvk knows; ortvk reads those and nothing beyond. */
#define ORTVK_DESCRIPTOR_MIN_VERSION 24

/* Tensors ortvk makes from imported memory have at most this many dimensions. */
#define ORTVK_MAX_TENSOR_RANK 8

typedef struct ortvk_importer {
    OrtExternalResourceImporterImpl base; /* first: ORT hands us this pointer */
    ortvk_device *device;                 /* holds a reference */
    const OrtEpDevice *ep_device;
} ortvk_importer;

OrtStatus *ortvk_importer_create(ortvk_device *device, const OrtEpDevice *ep_device,
                                 OrtExternalResourceImporterImpl **out) ORTVK_MUST_CHECK;

/* ---- memory --------------------------------------------------------------------------------------------- */

typedef struct ortvk_memory_kind {
    OrtExternalMemoryHandleType type;
    const char *name;
    bool (*supported)(const ortvk_device *device); /* NULL: known to ORT, never supported by ortvk */
    OrtStatus *(*import)(ortvk_device *device, const OrtExternalMemoryDescriptor *desc, ortvk_buffer **out);
} ortvk_memory_kind;

/* The row for `type`, or NULL for a value that is not an ORT memory handle type. */
const ortvk_memory_kind *ortvk_memory_kind_find(int type);

/* An imported allocation. Referenced by its handle and by every tensor view made from it. */
typedef struct ortvk_memory_import {
    OrtExternalMemoryHandle base; /* first */
    atomic_int refs;
    ortvk_buffer *buffer;         /* covers the whole allocation [0, size_bytes) */
} ortvk_memory_import;

OrtStatus *ortvk_memory_import_create(ortvk_importer *importer, const OrtExternalMemoryDescriptor *desc,
                               OrtExternalMemoryHandle **out) ORTVK_MUST_CHECK;
/* The import behind an ORT handle, or NULL when the handle is not one of ortvk's. */
ortvk_memory_import *ortvk_memory_import_from_ort(const OrtExternalMemoryHandle *handle);
OrtStatus *ortvk_memory_import_create_tensor(ortvk_importer *importer, ortvk_memory_import *import,
                                             const OrtExternalTensorDescriptor *desc,
                                             OrtValue **out) ORTVK_MUST_CHECK;
void ortvk_memory_import_unref(ortvk_memory_import *import);

/* ---- semaphores ----------------------------------------------------------------------------------------- */

typedef struct ortvk_semaphore_import ortvk_semaphore_import;

typedef struct ortvk_semaphore_kind {
    int type; /* OrtExternalSemaphoreType or ORTVK_EXTERNAL_SEMAPHORE_HOST_TIMELINE */
    const char *name;
    bool (*supported)(const ortvk_device *device);
    OrtStatus *(*import)(ortvk_semaphore_import *semaphore, int fd);
    OrtStatus *(*wait)(ortvk_semaphore_import *semaphore, ortvk_stream *stream, uint64_t value);
    OrtStatus *(*signal)(ortvk_semaphore_import *semaphore, ortvk_stream *stream, uint64_t value);
    uint64_t (*current)(ortvk_semaphore_import *semaphore);
    void (*destroy)(ortvk_semaphore_import *semaphore);
} ortvk_semaphore_kind;

const ortvk_semaphore_kind *ortvk_semaphore_kind_find(int type);

struct ortvk_semaphore_import {
    OrtExternalSemaphoreHandle base; /* first */
    atomic_int refs;                 /* the handle, and every queued wait/signal still in flight */
    const ortvk_semaphore_kind *kind;
    ortvk_device *device;            /* holds a reference */
    VkSemaphore vk;                  /* Vulkan timeline semaphores */
    ortvk_host_timeline *host;       /* host timeline semaphores */
    pthread_mutex_t lock;
    uint64_t last_signal;            /* highest value a SignalSemaphore queued */
};

OrtStatus *ortvk_semaphore_import_create(ortvk_importer *importer, const OrtExternalSemaphoreDescriptor *desc,
                                  OrtExternalSemaphoreHandle **out) ORTVK_MUST_CHECK;
ortvk_semaphore_import *ortvk_semaphore_import_from_ort(const OrtExternalSemaphoreHandle *handle);
OrtStatus *ortvk_semaphore_import_wait(ortvk_importer *importer, ortvk_semaphore_import *semaphore,
                                       OrtSyncStream *stream, uint64_t value) ORTVK_MUST_CHECK;
OrtStatus *ortvk_semaphore_import_signal(ortvk_importer *importer, ortvk_semaphore_import *semaphore,
                                         OrtSyncStream *stream, uint64_t value) ORTVK_MUST_CHECK;
void ortvk_semaphore_import_unref(ortvk_semaphore_import *semaphore);

/* Shared checks. */
OrtStatus *ortvk_check_version(const char *what, uint32_t version) ORTVK_MUST_CHECK;
OrtStatus *ortvk_fd_from_handle(const char *what, void *native_handle, int *fd) ORTVK_MUST_CHECK;

#endif
