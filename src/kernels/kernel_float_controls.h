/* The float semantics ortvk's shaders ask a driver for: SPIR-V execution modes that keep subnormals and honour NaN,
 * infinities and signed zeros, added to a shader's SPIR-V where the device offers them (kernel_float_controls.c). */
#ifndef ORTVK_KERNEL_FLOAT_CONTROLS_H
#define ORTVK_KERNEL_FLOAT_CONTROLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vk/vk_device.h"

/* `code` (`words` 32-bit words of SPIR-V) with DenormPreserve and SignedZeroInfNanPreserve for the float widths it
 * uses that `fc` allows, in *out (a new allocation the caller frees; `*out_words` long). *out is NULL when there is
 * nothing to add or the module is not SPIR-V this reads: use `code` as it is then. False only when out of memory. */
bool ortvk_spirv_add_float_controls(const uint32_t *code, size_t words, const ortvk_float_controls *fc,
                                    uint32_t **out, size_t *out_words);

#endif
