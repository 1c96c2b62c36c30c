/* A stand-in for ONNX Runtime's onnxruntime_c_api.h, so that CI builds the examples where ORT's own header is not at
 * hand (Debian packages none; npm's onnxruntime-node ships the library only). It declares what ortvk itself uses
 * (src/ort/ort_abi.h), under the official names; a real application uses ONNX Runtime's header instead
 * (README.md: "ONNX Runtime's header"), and -DORTVK_ORT_INCLUDE_DIR builds the examples against that one. */
#ifndef ORTVK_ORT_STAND_IN_ONNXRUNTIME_C_API_H
#define ORTVK_ORT_STAND_IN_ONNXRUNTIME_C_API_H

#include "../../src/ort/ort_abi.h"

#define ORT_API_VERSION ORTVK_ORT_API_VERSION

#ifdef __cplusplus
extern "C" {
#endif
const OrtApiBase *ORT_API_CALL OrtGetApiBase(void);
#ifdef __cplusplus
}
#endif

#endif
