/* The argument checks the interop entry points share: descriptor versions, and file descriptors passed as
 * native handles. */
#include <limits.h>
#include <stdint.h>

#include "interop/interop.h"
#include "ort/ort_status.h"

OrtStatus *ortvk_check_version(const char *what, uint32_t version)
{
    /* ORT core checks only pointers; descriptor versions are the EP's to check. An application built with a newer
     * ORT's headers (ORT_API_VERSION above ortvk's) fills a longer struct whose start is the one ortvk knows. */
    if (version < ORTVK_DESCRIPTOR_MIN_VERSION) {
        return ortvk_status(ORT_INVALID_ARGUMENT,
                            "%s->version %u is not supported (ortvk accepts %d and later; use ORT_API_VERSION)", what,
                            version, ORTVK_DESCRIPTOR_MIN_VERSION);
    }
    return NULL;
}

OrtStatus *ortvk_fd_from_handle(const char *what, void *native_handle, int *fd)
{
    intptr_t value = (intptr_t)native_handle;
    if (value < 0 || value > INT_MAX) {
        return ortvk_status(ORT_INVALID_ARGUMENT, "%s->native_handle %p is not a file descriptor", what,
                            native_handle);
    }
    *fd = (int)value;
    return NULL;
}
