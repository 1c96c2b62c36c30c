/* The device's VkPipelineCache on disk (vk_pipeline_cache.h): where its file lives, what a file must hold to be
 * trusted, and how it is read and replaced. */
#include "vk/vk_pipeline_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ort/ort_status.h"

/* A file larger than this is not read (no real cache of ortvk's few dozen pipelines comes near it). */
#define MAX_FILE_BYTES (64u << 20)

/* VkPipelineCacheHeaderVersionOne's bytes: header size, version, vendor and device IDs, then the cache UUID. */
#define HEADER_BYTES (16 + VK_UUID_SIZE)

/* The directory (vk_pipeline_cache.h), created if missing; false when the disk cache is off or has no home. */
static bool cache_dir(char *out, size_t len)
{
    const char *dir = getenv(ORTVK_PIPELINE_CACHE_ENV), *base = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n;
    if (dir != NULL) {
        n = snprintf(out, len, "%s", dir);
    } else if (base != NULL && base[0] != '\0') {
        mkdir(base, 0700);
        n = snprintf(out, len, "%s/ortvk", base);
    } else if (home != NULL && home[0] != '\0') {
        char parent[512];
        snprintf(parent, sizeof(parent), "%s/.cache", home);
        mkdir(parent, 0700);
        n = snprintf(out, len, "%s/.cache/ortvk", home);
    } else {
        return false;
    }
    if (n <= 0 || (size_t)n >= len) return false;
    mkdir(out, 0700); /* EEXIST is fine; any other failure shows when the file is written */
    return true;
}

/* Whether `data` begins with a header this device and driver wrote (drivers check it too; some crash on less). */
static bool header_matches(const ortvk_device *device, const uint8_t *data, size_t size)
{
    if (size < HEADER_BYTES) return false;
    uint32_t words[4];
    memcpy(words, data, sizeof(words));
    const VkPhysicalDeviceProperties *props = &device->caps.props;
    return words[0] >= HEADER_BYTES && words[0] <= size && words[1] == VK_PIPELINE_CACHE_HEADER_VERSION_ONE &&
           words[2] == props->vendorID && words[3] == props->deviceID &&
           memcmp(data + 16, props->pipelineCacheUUID, VK_UUID_SIZE) == 0;
}

/* The file's bytes (malloc'd) when it exists and is of a plausible size; NULL otherwise. */
static uint8_t *read_file(const char *path, size_t *size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return NULL;
    struct stat st;
    uint8_t *data = NULL;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && st.st_size <= (off_t)MAX_FILE_BYTES)
        data = malloc((size_t)st.st_size);
    size_t done = 0;
    while (data != NULL && done < (size_t)st.st_size) {
        ssize_t r = read(fd, data + done, (size_t)st.st_size - done);
        if (r <= 0) {
            free(data);
            data = NULL;
        } else {
            done += (size_t)r;
        }
    }
    close(fd);
    *size = done;
    return data;
}

void ortvk_pipeline_cache_open(ortvk_device *device, ortvk_pipeline_cache *cache)
{
    *cache = (ortvk_pipeline_cache){VK_NULL_HANDLE, ""};
    char dir[400], device_uuid[2 * VK_UUID_SIZE + 1], driver_uuid[2 * VK_UUID_SIZE + 1];
    if (cache_dir(dir, sizeof(dir))) {
        ortvk_uuid_hex(device->caps.device_uuid, device_uuid);
        ortvk_uuid_hex(device->caps.driver_uuid, driver_uuid);
        snprintf(cache->path, sizeof(cache->path), "%s/pipelines-%s-%s.bin", dir, device_uuid, driver_uuid);
    }
    size_t size = 0;
    uint8_t *data = cache->path[0] != '\0' ? read_file(cache->path, &size) : NULL;
    if (data != NULL && !header_matches(device, data, size)) {
        ORTVK_LOG_WARNING(device->instance->logger, "pipeline cache %s (%zu bytes) is not this device's and "
                          "driver's: ignored, and replaced when the device's kernels are released", cache->path, size);
        free(data);
        data = NULL;
    }
    VkPipelineCacheCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO,
        .initialDataSize = data != NULL ? size : 0,
        .pInitialData = data,
    };
    VkResult r = vkCreatePipelineCache(device->vk, &info, NULL, &cache->vk);
    if (r != VK_SUCCESS && data != NULL) { /* the driver refused the data: start empty */
        info = (VkPipelineCacheCreateInfo){.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
        r = vkCreatePipelineCache(device->vk, &info, NULL, &cache->vk);
    }
    free(data);
    if (r != VK_SUCCESS) {
        cache->vk = VK_NULL_HANDLE;
        ORTVK_LOG_WARNING(device->instance->logger, "vkCreatePipelineCache failed: %s (%d); pipelines are built "
                          "without a cache", ortvk_vk_result_name(r), (int)r);
    }
}

/* Writes `size` bytes to `path` through a temporary file renamed over it; errno's text on failure, else NULL. */
static const char *replace_file(const char *path, const void *data, size_t size)
{
    char tmp[600];
    snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return strerror(errno);
    size_t done = 0;
    while (done < size) {
        ssize_t w = write(fd, (const uint8_t *)data + done, size - done);
        if (w <= 0) break;
        done += (size_t)w;
    }
    int err = done == size ? 0 : errno != 0 ? errno : EIO;
    if (close(fd) != 0 && err == 0) err = errno;
    if (err == 0 && rename(tmp, path) != 0) err = errno;
    if (err != 0) unlink(tmp);
    return err != 0 ? strerror(err) : NULL;
}

void ortvk_pipeline_cache_close(ortvk_device *device, ortvk_pipeline_cache *cache)
{
    if (cache->vk == VK_NULL_HANDLE) return;
    size_t size = 0;
    void *data = NULL;
    VkResult r = cache->path[0] != '\0' ? vkGetPipelineCacheData(device->vk, cache->vk, &size, NULL) : VK_SUCCESS;
    if (r == VK_SUCCESS && size > 0) {
        data = malloc(size);
        r = data != NULL ? vkGetPipelineCacheData(device->vk, cache->vk, &size, data) : VK_ERROR_OUT_OF_HOST_MEMORY;
    }
    if (r != VK_SUCCESS) {
        ORTVK_LOG_WARNING(device->instance->logger, "vkGetPipelineCacheData failed: %s (%d); %s is not updated",
                          ortvk_vk_result_name(r), (int)r, cache->path);
    } else if (data != NULL) {
        const char *why = replace_file(cache->path, data, size);
        if (why != NULL)
            ORTVK_LOG_WARNING(device->instance->logger, "writing pipeline cache %s: %s", cache->path, why);
    }
    free(data);
    vkDestroyPipelineCache(device->vk, cache->vk, NULL);
    cache->vk = VK_NULL_HANDLE;
}
