/* The pipeline cache on disk (src/vk/vk_pipeline_cache.c): written when a device's kernels are released, in the
 * directory ORTVK_PIPELINE_CACHE_DIR names, with a Vulkan pipeline cache header; a file that is garbage, cut short
 * or another driver's is ignored and replaced; an empty ORTVK_PIPELINE_CACHE_DIR writes nothing; a directory that
 * cannot be written costs only a warning. Every session must still answer as the CPU EP. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel_check.h"

/* One session pair on a Relu model, one run compared with the CPU EP, everything released (the EP and with it the
 * device's kernels, which writes the cache). */
static void run_relu(ortapp *app, const OrtEpDevice *device, const char *what)
{
    int64_t shape[2] = {4, 5};
    uint8_t *model = NULL;
    size_t len = 0;
    kc_pair pair;
    if (!CHECK(test_model_one_op("Relu", 1, 2, shape, &model, &len) == ONNX_OK, "%s: the model", what) ||
        !kc_pair_open(app, device, model, len, NULL, 0, true, what, &pair)) {
        free(model);
        return;
    }
    float x[20];
    for (int i = 0; i < 20; i++) x[i] = (float)(i - 10) * 0.5f;
    OrtValue *in = test_host_tensor(app, x, 20, 2, shape), *want = NULL, *got = NULL;
    const char *in_names[] = {"x"}, *out_names[] = {"z"};
    if (kc_pair_run(app, &pair, in_names, &in, NULL, 1, out_names, 1, &want, &got)) {
        size_t wb = 0, gb = 0;
        float *w = kc_host_data(app, want, &wb), *g = kc_host_data(app, got, &gb);
        CHECK(w && g && wb == gb && memcmp(w, g, wb) == 0, "%s: ortvk's Relu differs from the CPU EP's", what);
        free(w), free(g);
    }
    kc_pair_release(app, &want, &got, 1);
    app->api->ReleaseValue(in);
    kc_pair_close(app, &pair);
    free(model);
}

/* The one cache file in `dir` (its path in `path`): its size, or -1 when there is none (or more than one). */
static long cache_file(const char *dir, char *path, size_t len)
{
    DIR *d = opendir(dir);
    long size = -1;
    int count = 0;
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;) {
        if (strncmp(e->d_name, "pipelines-", 10) != 0) continue;
        struct stat st;
        snprintf(path, len, "%s/%s", dir, e->d_name);
        if (stat(path, &st) == 0) size = (long)st.st_size;
        count++;
    }
    if (d != NULL) closedir(d);
    return count == 1 ? size : -1;
}

/* Whether the file begins with a Vulkan pipeline cache header (size >= 32, version 1). */
static bool valid_header(const char *path)
{
    uint32_t words[2] = {0, 0};
    FILE *f = fopen(path, "rb");
    bool ok = f != NULL && fread(words, sizeof(words), 1, f) == 1 && words[0] >= 32 && words[1] == 1;
    if (f) fclose(f);
    return ok;
}

static void overwrite(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (CHECK(f != NULL, "open %s", path)) {
        CHECK(fwrite(data, 1, size, f) == size, "write %s", path);
        fclose(f);
    }
}

int main(void)
{
    char dir[] = "/tmp/ortvk-pipeline-cache-XXXXXX", path[600];
    if (mkdtemp(dir) == NULL) {
        printf("SKIP: no temporary directory\n");
        return 77;
    }
    setenv("ORTVK_PIPELINE_CACHE_DIR", dir, 1);
    ortapp app;
    const OrtEpDevice *device;
    test_open(&app, &device);

    run_relu(&app, device, "first session");
    long size = cache_file(dir, path, sizeof(path));
    if (CHECK(size >= 32 && valid_header(path), "a cache file with a pipeline cache header (%ld bytes)", size))
        printf("written: %s (%ld bytes)\n", strrchr(path, '/') + 1, size);
    uint8_t header[32] = {0};
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL && fread(header, sizeof(header), 1, f) == 1, "read the header back");
    if (f) fclose(f);

    /* Files the next session must not trust: each is ignored, the session answers, the file is replaced. */
    uint8_t garbage[100], other_driver[32];
    for (size_t i = 0; i < sizeof(garbage); i++) garbage[i] = (uint8_t)(i * 37 + 11);
    memcpy(other_driver, header, sizeof(header));
    other_driver[16] ^= 0xff; /* the first byte of pipelineCacheUUID */
    static const char *const names[] = {"a garbage file", "a file cut short", "another driver's file"};
    const void *bodies[] = {garbage, header, other_driver};
    size_t sizes[] = {sizeof(garbage), 10, sizeof(other_driver)};
    for (int k = 0; k < 3; k++) {
        overwrite(path, bodies[k], sizes[k]);
        run_relu(&app, device, names[k]);
        long now = cache_file(dir, path, sizeof(path));
        if (CHECK(now >= 32 && valid_header(path), "after %s: replaced by a valid one (%ld bytes)", names[k], now))
            printf("%s: ignored and replaced\n", names[k]);
    }

    /* Off: nothing written. */
    unlink(path);
    setenv("ORTVK_PIPELINE_CACHE_DIR", "", 1);
    run_relu(&app, device, "cache off");
    CHECK(cache_file(dir, path, sizeof(path)) == -1, "ORTVK_PIPELINE_CACHE_DIR empty: no file written");

    /* A directory that cannot hold it (a regular file in its place): a warning, the session still answers. */
    char blocked[640];
    snprintf(blocked, sizeof(blocked), "%s/not-a-dir", dir);
    overwrite(blocked, "x", 1);
    setenv("ORTVK_PIPELINE_CACHE_DIR", blocked, 1);
    run_relu(&app, device, "unwritable directory");

    unlink(blocked);
    rmdir(dir);
    return test_finish(&app, "test_pipeline_cache");
}
