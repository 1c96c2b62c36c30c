/* Adds float-control execution modes to the kernels' SPIR-V before a module is made: without them a GPU driver may
 * flush subnormals to zero and treat x < 0 ? 0 : x as max(x, 0), which drops a NaN; ORT's CPU EP does neither.
 * glslc cannot declare them from GLSL, so the words go in here, where the device's limits are known. */
#include "kernels/kernel_float_controls.h"

#include <stdlib.h>
#include <string.h>

enum {
    SPV_MAGIC = 0x07230203u,
    SPV_HEADER_WORDS = 5,
    SPV_OP_EXTENSION = 10,
    SPV_OP_ENTRY_POINT = 15,
    SPV_OP_EXECUTION_MODE = 16,
    SPV_OP_CAPABILITY = 17,
    SPV_OP_TYPE_FLOAT = 22,
    SPV_MODE_DENORM_PRESERVE = 4459,
    SPV_MODE_SIGNED_ZERO_INF_NAN_PRESERVE = 4461,
    SPV_CAP_DENORM_PRESERVE = 4464,
    SPV_CAP_SIGNED_ZERO_INF_NAN_PRESERVE = 4466,
    SPV_VERSION_1_4 = 0x00010400u, /* float controls are core from here; before, SPV_KHR_float_controls */
};

static const char float_controls_extension[] = "SPV_KHR_float_controls";
#define EXTENSION_WORDS (1 + (sizeof(float_controls_extension) + 3) / 4)

static int width_index(uint32_t width) { return width == 16 ? 0 : width == 32 ? 1 : width == 64 ? 2 : -1; }
static uint32_t instruction(uint32_t words, uint32_t opcode) { return words << 16 | opcode; }

/* What a module holds that the modes depend on, from one pass over its instructions. */
typedef struct module_scan {
    size_t capabilities_end, entry_points_end; /* word indices just past the last of each */
    uint32_t entry_point;                      /* its id */
    bool uses[3];                              /* OpTypeFloat of 16, 32, 64 bits */
    bool has_capability[2];                    /* DenormPreserve, SignedZeroInfNanPreserve */
    bool has_mode[2][3];                       /* [mode][width] already declared */
    bool has_extension;
} module_scan;

static bool scan_module(const uint32_t *code, size_t words, module_scan *m)
{
    memset(m, 0, sizeof(*m));
    if (words < SPV_HEADER_WORDS || code[0] != SPV_MAGIC) return false;
    int entry_points = 0;
    for (size_t i = SPV_HEADER_WORDS; i < words;) {
        uint32_t length = code[i] >> 16, opcode = code[i] & 0xffffu;
        if (length == 0 || length > words - i) return false;
        const uint32_t *w = code + i;
        if (opcode == SPV_OP_CAPABILITY && length == 2) {
            m->capabilities_end = i + length;
            if (w[1] == SPV_CAP_DENORM_PRESERVE) m->has_capability[0] = true;
            if (w[1] == SPV_CAP_SIGNED_ZERO_INF_NAN_PRESERVE) m->has_capability[1] = true;
        } else if (opcode == SPV_OP_EXTENSION) {
            size_t bytes = (length - 1) * 4;
            m->has_extension |= strnlen((const char *)(w + 1), bytes) == sizeof(float_controls_extension) - 1 &&
                                memcmp(w + 1, float_controls_extension, sizeof(float_controls_extension) - 1) == 0;
        } else if (opcode == SPV_OP_ENTRY_POINT && length >= 3) {
            m->entry_points_end = i + length;
            m->entry_point = w[2];
            entry_points++;
        } else if (opcode == SPV_OP_EXECUTION_MODE && length == 4) {
            int k = width_index(w[3]);
            if (k >= 0 && w[2] == SPV_MODE_DENORM_PRESERVE) m->has_mode[0][k] = true;
            if (k >= 0 && w[2] == SPV_MODE_SIGNED_ZERO_INF_NAN_PRESERVE) m->has_mode[1][k] = true;
        } else if (opcode == SPV_OP_TYPE_FLOAT && length >= 3) {
            int k = width_index(w[2]);
            if (k >= 0) m->uses[k] = true;
        }
        i += length;
    }
    /* One entry point, after the capabilities (the layout every module has; anything else is left alone). */
    return entry_points == 1 && m->capabilities_end > 0 && m->entry_points_end > m->capabilities_end;
}

/* The widths to declare DenormPreserve for: those the module uses, as the device's independence rule allows (with
 * 32_BIT_ONLY, 16 and 64 bits must be declared alike; with NONE, all three). */
static void denorm_widths(const module_scan *m, const ortvk_float_controls *fc, bool out[3])
{
    const bool *can = fc->denorm_preserve;
    memset(out, 0, 3 * sizeof(bool));
    switch (fc->denorm_independence) {
    case VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_ALL:
        for (int k = 0; k < 3; k++) out[k] = m->uses[k] && can[k];
        break;
    case VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_32_BIT_ONLY:
        out[1] = m->uses[1] && can[1];
        out[0] = out[2] = (m->uses[0] || m->uses[2]) && can[0] && can[2];
        break;
    default: /* NONE */
        out[0] = out[1] = out[2] = can[0] && can[1] && can[2];
        break;
    }
}

bool ortvk_spirv_add_float_controls(const uint32_t *code, size_t words, const ortvk_float_controls *fc,
                                    uint32_t **out, size_t *out_words)
{
    *out = NULL;
    *out_words = 0;
    module_scan m;
    if (!scan_module(code, words, &m)) return true;
    bool modes[2][3];
    denorm_widths(&m, fc, modes[0]);
    for (int k = 0; k < 3; k++) modes[1][k] = m.uses[k] && fc->nan_preserve[k];
    bool capability[2] = {false, false};
    size_t mode_count = 0;
    for (int mode = 0; mode < 2; mode++) {
        for (int k = 0; k < 3; k++) {
            modes[mode][k] = modes[mode][k] && !m.has_mode[mode][k];
            mode_count += modes[mode][k];
            capability[mode] = capability[mode] || modes[mode][k];
        }
        capability[mode] = capability[mode] && !m.has_capability[mode];
    }
    if (mode_count == 0) return true;
    bool extension = code[1] < SPV_VERSION_1_4 && !m.has_extension;

    size_t added = 2 * (size_t)(capability[0] + capability[1]) + (extension ? EXTENSION_WORDS : 0) + 4 * mode_count;
    uint32_t *p = malloc((words + added) * sizeof(uint32_t));
    if (p == NULL) return false;
    memcpy(p, code, m.capabilities_end * sizeof(uint32_t));
    size_t n = m.capabilities_end;
    static const uint32_t capability_ids[2] = {SPV_CAP_DENORM_PRESERVE, SPV_CAP_SIGNED_ZERO_INF_NAN_PRESERVE};
    for (int mode = 0; mode < 2; mode++) {
        if (!capability[mode]) continue;
        p[n++] = instruction(2, SPV_OP_CAPABILITY);
        p[n++] = capability_ids[mode];
    }
    if (extension) {
        p[n++] = instruction(EXTENSION_WORDS, SPV_OP_EXTENSION);
        memset(p + n, 0, (EXTENSION_WORDS - 1) * sizeof(uint32_t));
        memcpy(p + n, float_controls_extension, sizeof(float_controls_extension));
        n += EXTENSION_WORDS - 1;
    }
    memcpy(p + n, code + m.capabilities_end, (m.entry_points_end - m.capabilities_end) * sizeof(uint32_t));
    n += m.entry_points_end - m.capabilities_end;
    static const uint32_t mode_ids[2] = {SPV_MODE_DENORM_PRESERVE, SPV_MODE_SIGNED_ZERO_INF_NAN_PRESERVE};
    static const uint32_t widths[3] = {16, 32, 64};
    for (int mode = 0; mode < 2; mode++) {
        for (int k = 0; k < 3; k++) {
            if (!modes[mode][k]) continue;
            p[n++] = instruction(4, SPV_OP_EXECUTION_MODE);
            p[n++] = m.entry_point;
            p[n++] = mode_ids[mode];
            p[n++] = widths[k];
        }
    }
    memcpy(p + n, code + m.entry_points_end, (words - m.entry_points_end) * sizeof(uint32_t));
    n += words - m.entry_points_end;
    *out = p;
    *out_words = n;
    return true;
}
