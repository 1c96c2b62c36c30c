/* Private to ortvk. ONNX element types: which ortvk can hold, their sizes and names; tensor byte sizes. */
#ifndef ORTVK_ORT_TENSOR_H
#define ORTVK_ORT_TENSOR_H

#include <stddef.h>

#include "ort/ort_abi.h"

/* Size in bytes of one element, or 0 for types ortvk cannot hold (strings, sub-byte and 8-bit float types). */
size_t ortvk_element_size(int element_type);

/* "float", "int64", ... or "unknown". */
const char *ortvk_element_name(int element_type);

/* Bytes of a tensor's data, with overflow checks. */
OrtStatus *ortvk_tensor_bytes(const OrtValue *value, size_t *bytes) ORTVK_MUST_CHECK;

#endif
