/* Unit test for src/kernels/kernel_float_controls.c: every kernel shader, both variants, rewritten for the devices'
 * float-control limits (all widths independent, 32-bit only, none; NaN only as lavapipe): the modes it may add are
 * there once, a second rewrite adds nothing, and spirv-val (when installed) accepts each module. Prints PASS/FAIL. */
#define _POSIX_C_SOURCE 200809L

#include "kernels/kernel_float_controls.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel_spirv.h"

static const struct {
    const char *name;
    const uint32_t *code;
    size_t bytes;
} modules[] = {
#define ORTVK_SHADER(id, name, operands, texels, texel_type) {#name, spv_##name, sizeof(spv_##name)}, \
    {#name "_f16", spv_##name##_f16, sizeof(spv_##name##_f16)},
#include "kernels/kernel_shaders.def"
#undef ORTVK_SHADER
};

static int failures;
#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (!(cond)) {                                                     \
            failures++;                                                    \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                  \
            fputc('\n', stderr);                                           \
        }                                                                  \
    } while (0)

/* How many OpExecutionMode `mode` of `width`, and OpCapability `capability`, `code` holds; whether it has floats of
 * `width` bits. */
static int count_mode(const uint32_t *code, size_t words, uint32_t mode, uint32_t width)
{
    int n = 0;
    for (size_t i = 5; i < words; i += code[i] >> 16)
        n += (code[i] & 0xffffu) == 16 && (code[i] >> 16) == 4 && code[i + 2] == mode && code[i + 3] == width;
    return n;
}
static int count_capability(const uint32_t *code, size_t words, uint32_t capability)
{
    int n = 0;
    for (size_t i = 5; i < words; i += code[i] >> 16)
        n += (code[i] & 0xffffu) == 17 && code[i + 1] == capability;
    return n;
}
static bool uses_width(const uint32_t *code, size_t words, uint32_t width)
{
    for (size_t i = 5; i < words; i += code[i] >> 16)
        if ((code[i] & 0xffffu) == 22 && code[i + 2] == width) return true;
    return false;
}

static bool spirv_val(const uint32_t *code, size_t words, const char *what)
{
    char path[] = "/tmp/ortvk-float-controls-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) return false;
    bool written = write(fd, code, words * 4) == (ssize_t)(words * 4);
    close(fd);
    char command[256];
    snprintf(command, sizeof(command), "spirv-val --target-env vulkan1.2 %s", path);
    int rc = written ? system(command) : -1;
    unlink(path);
    if (rc != 0) fprintf(stderr, "  spirv-val rejects %s (exit %d)\n", what, rc);
    return rc == 0;
}

int main(void)
{
    enum { DENORM = 4459, NAN_INF = 4461, CAP_DENORM = 4464, CAP_NAN_INF = 4466 };
    const struct {
        const char *name;
        ortvk_float_controls fc;
    } devices[] = {
        {"all widths, independent",
         {{true, true, true}, {true, true, true}, VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_ALL}},
        {"32-bit only independent",
         {{true, true, false}, {true, true, true}, VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_32_BIT_ONLY}},
        {"none independent, 64-bit lacking",
         {{true, true, false}, {false, true, false}, VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_NONE}},
        {"NaN only (lavapipe)", {{false, false, false}, {true, true, true}, VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_ALL}},
        {"nothing", {{false, false, false}, {false, false, false}, VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_ALL}},
    };
    bool have_val = system("spirv-val --version >/dev/null 2>&1") == 0;
    size_t n_modules = sizeof(modules) / sizeof(modules[0]), validated = 0;
    for (size_t d = 0; d < sizeof(devices) / sizeof(devices[0]); d++) {
        const ortvk_float_controls *fc = &devices[d].fc;
        for (size_t k = 0; k < n_modules; k++) {
            const uint32_t *code = modules[k].code;
            size_t words = modules[k].bytes / 4;
            uint32_t *out = NULL, *again = NULL;
            size_t out_words = 0, again_words = 0;
            CHECK(ortvk_spirv_add_float_controls(code, words, fc, &out, &out_words), "%s", modules[k].name);
            const uint32_t *got = out ? out : code;
            size_t got_words = out ? out_words : words;
            bool f16 = uses_width(code, words, 16), f32 = uses_width(code, words, 32);
            /* 32-bit floats: subnormals kept where the device can and its rule allows; NaN honoured where it can. */
            bool denorm32 = f32 && fc->denorm_preserve[1] &&
                            (fc->denorm_independence != VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_NONE ||
                             (fc->denorm_preserve[0] && fc->denorm_preserve[2]));
            CHECK(count_mode(got, got_words, DENORM, 32) == denorm32, "%s on %s", modules[k].name, devices[d].name);
            CHECK(count_mode(got, got_words, NAN_INF, 32) == (f32 && fc->nan_preserve[1]), "%s on %s",
                  modules[k].name, devices[d].name);
            CHECK(count_mode(got, got_words, NAN_INF, 16) == (f16 && fc->nan_preserve[0]), "%s on %s",
                  modules[k].name, devices[d].name);
            /* 16-bit subnormals only where 64-bit ones can be declared alike (or the widths are independent). */
            bool denorm16 = f16 && fc->denorm_preserve[0] &&
                            (fc->denorm_independence == VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_ALL ||
                             fc->denorm_preserve[2]);
            CHECK(count_mode(got, got_words, DENORM, 16) == denorm16, "%s on %s", modules[k].name,
                  devices[d].name);
            CHECK(count_capability(got, got_words, CAP_DENORM) == (denorm32 || denorm16), "%s on %s",
                  modules[k].name, devices[d].name);
            CHECK(count_capability(got, got_words, CAP_NAN_INF) ==
                      ((f32 && fc->nan_preserve[1]) || (f16 && fc->nan_preserve[0])), "%s on %s",
                  modules[k].name, devices[d].name);
            CHECK(ortvk_spirv_add_float_controls(got, got_words, fc, &again, &again_words) && again == NULL,
                  "a second rewrite of %s on %s adds %zu words", modules[k].name, devices[d].name,
                  again_words - got_words);
            if (have_val && out != NULL && d == 0) {
                CHECK(spirv_val(out, out_words, modules[k].name), "%s", modules[k].name);
                validated++;
            }
            free(again);
            free(out);
        }
    }
    uint32_t junk[8] = {0x12345678u, 0, 0, 0, 0, 0, 0, 0};
    uint32_t *out = NULL;
    size_t out_words = 0;
    CHECK(ortvk_spirv_add_float_controls(junk, 8, &devices[0].fc, &out, &out_words) && out == NULL,
          "a module that is not SPIR-V is left alone");
    uint32_t cut[6] = {0x07230203u, 0x00010500u, 0, 100, 0, 17u | 9u << 16};
    CHECK(ortvk_spirv_add_float_controls(cut, 6, &devices[0].fc, &out, &out_words) && out == NULL,
          "an instruction running past the end is left alone");
    if (!have_val) printf("SKIP: spirv-val is not installed: the rewritten modules were not validated\n");
    printf("%zu modules x %zu devices rewritten, %zu validated by spirv-val\n", n_modules,
           sizeof(devices) / sizeof(devices[0]), validated);
    printf("%s: test_float_controls (%d failures)\n", failures ? "FAIL" : "PASS", failures);
    return failures ? 1 : 0;
}
