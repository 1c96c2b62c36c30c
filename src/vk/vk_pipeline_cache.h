/* Private to ortvk. The device's VkPipelineCache kept on disk between processes: one file per device and driver
 * (both UUIDs in its name), read when the kernels' state of a device is created and written when it goes. */
#ifndef ORTVK_VK_PIPELINE_CACHE_H
#define ORTVK_VK_PIPELINE_CACHE_H

#include <stddef.h>
#include <vulkan/vulkan.h>

#include "vk/vk_device.h"

/* The file's directory: ORTVK_PIPELINE_CACHE_DIR, else $XDG_CACHE_HOME/ortvk, else $HOME/.cache/ortvk; an empty
 * ORTVK_PIPELINE_CACHE_DIR turns the disk cache off. */
#define ORTVK_PIPELINE_CACHE_ENV "ORTVK_PIPELINE_CACHE_DIR"

typedef struct ortvk_pipeline_cache {
    VkPipelineCache vk; /* VK_NULL_HANDLE when none could be created: pipelines are then built without one */
    char path[512];     /* the file; empty when the disk cache is off */
} ortvk_pipeline_cache;

/* Creates the device's cache from its file when the file is whole and made by this device and driver (its header
 * says so), empty otherwise. Never fails: a cache only saves time, so problems are logged as warnings. */
void ortvk_pipeline_cache_open(ortvk_device *device, ortvk_pipeline_cache *cache);

/* Writes the cache's data to its file (a temporary file renamed over it, so readers never see half a file) and
 * destroys the cache. */
void ortvk_pipeline_cache_close(ortvk_device *device, ortvk_pipeline_cache *cache);

#endif
