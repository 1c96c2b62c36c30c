/* An opaque FD the driver itself rejects (here /dev/null, which passes ortvk's own checks on the fd) fails with a
 * message that names the deviceUUID, driverUUID and memory type an importable FD must come from (docs/interop.md,
 * "the driver rejects an FD"). Runs without the validation layer, which reports the invalid handle itself. */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "test_util.h"

int main(void)
{
    ortapp app;
    const OrtEpDevice *device;
    OrtExternalResourceImporter *importer = test_open_importer(&app, &device);
    const char *uuid = app.api->GetKeyValue(app.api->EpDevice_EpMetadata(device), ORTVK_META_DEVICE_UUID);
    bool can = false;
    if (importer)
        ORT_OK(&app, app.interop->CanImportMemory(importer, ORT_EXTERNAL_MEMORY_HANDLE_TYPE_MEMORY_OPAQUE_FD, &can));
    if (!can) {
        printf("SKIP: this device imports no opaque FD memory\n");
        if (importer) app.interop->ReleaseExternalResourceImporter(importer);
        ortapp_close(&app);
        return 77;
    }
    int fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    OrtExternalMemoryDescriptor desc = {.version = app.api_version,
                                        .handle_type = ORT_EXTERNAL_MEMORY_HANDLE_TYPE_MEMORY_OPAQUE_FD,
                                        .native_handle = (void *)(intptr_t)fd, .size_bytes = 4096};
    OrtExternalMemoryHandle *memory = NULL;
    OrtStatus *status = app.interop->ImportMemory(importer, &desc, &memory);
    CHECK(status != NULL, "importing /dev/null as an opaque FD succeeded");
    if (status != NULL) {
        const char *message = app.api->GetErrorMessage(status);
        OrtErrorCode code = app.api->GetErrorCode(status);
        printf("ImportMemory(/dev/null): %s (code %d)\n", message, (int)code);
        CHECK(code == ORT_INVALID_ARGUMENT || code == ORT_EP_FAIL, "code %d", (int)code);
        CHECK(uuid != NULL && strstr(message, uuid) != NULL, "the message names the deviceUUID %s", uuid);
        CHECK(strstr(message, "memory type") != NULL, "the message names the memory type");
        app.api->ReleaseStatus(status);
    }
    if (memory) app.interop->ReleaseExternalMemoryHandle(memory);
    close(fd);
    app.interop->ReleaseExternalResourceImporter(importer);
    return test_finish(&app, "test_interop_fd_hint");
}
