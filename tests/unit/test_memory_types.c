/* Unit test for src/vk/vk_memory_types.c: the memory types ortvk takes for tensors and for the staging of host
 * copies, over tables of the shapes drivers report (lavapipe's as measured here; the others as discrete and
 * unified-memory GPUs list them). Readbacks must land in cached memory wherever a device has some. Prints PASS/FAIL. */
#include "vk/vk_memory_types.h"

#include <stdio.h>

enum {
    DL = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
    HV = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT,
    HC = VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
    CACHED = VK_MEMORY_PROPERTY_HOST_CACHED_BIT,
    END = -1,
};

typedef struct table_case {
    const char *name;
    int flags[8]; /* the types' property flags, in order, up to END */
    bool usable;
    ortvk_memory_types want;
} table_case;

static const table_case cases[] = {
    {"lavapipe: one type, device-local and host-cached", {DL | HV | HC | CACHED, END}, true, {0, 0, 0, true}},
    {"discrete: write-combined host memory, then cached, then a BAR",
     {0, DL, DL, HV | HC, HV | HC | CACHED, DL | HV | HC, END}, true, {1, 3, 4, false}},
    {"discrete: host-visible device memory listed before host memory",
     {DL, DL | HV | HC, HV | HC, HV | HC | CACHED, END}, true, {0, 1, 3, false}},
    {"discrete: no cached host memory", {DL, HV | HC, END}, true, {0, 1, 1, false}},
    {"unified: a device-only type first, then cached device memory", {DL, DL | HV | HC | CACHED, DL | HV | HC, END},
     true, {1, 1, 1, true}},
    {"cached but not coherent host memory is not taken", {DL, HV | CACHED, HV | HC, END}, true, {0, 2, 2, false}},
    {"no device-local type: tensors in host memory", {HV | HC, HV | HC | CACHED, END}, true, {0, 0, 1, false}},
    {"no host-visible coherent type", {DL, HV | CACHED, END}, false, {0, 0, 0, false}},
};

int main(void)
{
    int failures = 0;
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        const table_case *t = &cases[c];
        VkPhysicalDeviceMemoryProperties mem = {0};
        while (mem.memoryTypeCount < 8 && t->flags[mem.memoryTypeCount] != END) {
            mem.memoryTypes[mem.memoryTypeCount].propertyFlags = (VkMemoryPropertyFlags)t->flags[mem.memoryTypeCount];
            mem.memoryTypeCount++;
        }
        ortvk_memory_types got = {99, 99, 99, false};
        bool usable = ortvk_memory_types_choose(&mem, &got);
        bool ok = usable == t->usable &&
                  (!usable || (got.device == t->want.device && got.upload == t->want.upload &&
                               got.readback == t->want.readback && got.device_mapped == t->want.device_mapped));
        if (!ok) {
            failures++;
            fprintf(stderr, "FAIL %s: usable %d device %u upload %u readback %u mapped %d; want %d %u %u %u %d\n",
                    t->name, usable, got.device, got.upload, got.readback, got.device_mapped, t->usable,
                    t->want.device, t->want.upload, t->want.readback, t->want.device_mapped);
        }
    }
    printf("%s: %zu tables, %d failures\n", failures ? "FAIL" : "PASS", sizeof(cases) / sizeof(cases[0]), failures);
    return failures ? 1 : 0;
}
