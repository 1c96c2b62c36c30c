/* flush_subnormals: an LD_PRELOAD shim that makes lavapipe a device whose shaders flush float32 subnormals, as
 * NVIDIA's do (docs/kernels.md, "Subnormals"), so that ortvk's exact handling of them is tested where no such GPU is.
 * lavapipe runs shaders as x86-64 code on threads it starts in vkCreateDevice; threads take their creator's SSE
 * control word. The shim sets its DAZ bit (subnormal operands read as zero) and FTZ bit (subnormal results written
 * as zero) around the real vkCreateDevice, so those threads start with them, and restores the caller's word after.
 * Threads started later (ORT's, the application's) are not touched. Used by ctest's *_flushing tests, with
 * ORTVK_SUBNORMALS=exact (lavapipe, a CPU, would otherwise be taken at its word). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_NEXT */
#endif
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <vulkan/vulkan.h>
#include <xmmintrin.h>

#define MXCSR_DAZ 0x0040u
#define MXCSR_FTZ 0x8000u

VKAPI_ATTR VkResult VKAPI_CALL vkCreateDevice(VkPhysicalDevice physical, const VkDeviceCreateInfo *info,
                                              const VkAllocationCallbacks *allocator, VkDevice *device)
{
    PFN_vkCreateDevice next = (PFN_vkCreateDevice)dlsym(RTLD_NEXT, "vkCreateDevice");
    if (next == NULL) {
        fprintf(stderr, "flush_subnormals: vkCreateDevice not found after the shim\n");
        abort();
    }
    unsigned int saved = _mm_getcsr();
    _mm_setcsr(saved | MXCSR_DAZ | MXCSR_FTZ);
    VkResult r = next(physical, info, allocator, device);
    _mm_setcsr(saved);
    return r;
}
