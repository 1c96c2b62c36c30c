/* consumer: what an application gets from an installed ortvk. The plugin path to give ONNX Runtime (from the CMake
 * package or pkg-config), and the header-only host timeline a CPU producer process uses to hand frames over. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ortvk.h"

int main(void)
{
    /* The plugin ONNX Runtime loads: it exports exactly the two EP entry points. */
    void *plugin = dlopen(ORTVK_PLUGIN_PATH, RTLD_NOW | RTLD_LOCAL);
    if (plugin == NULL) return fprintf(stderr, "consumer: %s\n", dlerror()), 1;
    int entry_points = (dlsym(plugin, "CreateEpFactories") != NULL) + (dlsym(plugin, "ReleaseEpFactory") != NULL);
    printf("ortvk %s plugin %s: %d of 2 entry points\n", ORTVK_VERSION_STRING, ORTVK_PLUGIN_PATH, entry_points);

    /* A producer process signals frames on a host timeline; the consumer waits for them. */
    ortvk_host_timeline *timeline;
    if (ortvk_host_timeline_create(0, &timeline) != 0) return fprintf(stderr, "consumer: host timeline\n"), 1;
    pid_t child = fork();
    if (child == 0) {
        for (uint64_t v = 1; v <= 3; v++) ortvk_host_timeline_signal(timeline, v);
        _exit(0);
    }
    int waited = ortvk_host_timeline_wait(timeline, 3, 5ull * 1000 * 1000 * 1000);
    int status = 0;
    waitpid(child, &status, 0);
    printf("host timeline reached %llu\n", (unsigned long long)ortvk_host_timeline_value(timeline));
    ortvk_host_timeline_close(timeline);
    dlclose(plugin);
    return entry_points == 2 && waited == 0 && status == 0 ? 0 : 1;
}
