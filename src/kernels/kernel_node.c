/* The graph-time view of a node: what ORT's graph API says about its inputs, outputs and attributes, read once
 * into plain structs so that the ops' checks (GetCapability) and compilation (Compile) share one reading. */
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "kernels/kernel_internal.h"

bool ortvk_krefuse(char *why, size_t why_len, const char *fmt, ...)
{
    if (why != NULL && why_len > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, why_len, fmt, ap);
        va_end(ap);
    }
    return false;
}

/* Graph API calls only fail on malformed handles; a failure refuses the node rather than failing the session. */
static bool ok(OrtStatus *status)
{
    if (status == NULL) return true;
    ortvk_ort->ReleaseStatus(status);
    return false;
}

bool ortvk_kvalue_read(const OrtValueInfo *info, ortvk_kvalue *v, char *why, size_t why_len)
{
    memset(v, 0, sizeof(*v));
    v->rank = -1;
    if (info == NULL) return true; /* omitted optional input */
    v->present = true;
    v->info = info;
    if (!ok(ortvk_ort->GetValueInfoName(info, &v->name))) return ortvk_krefuse(why, why_len, "unnamed value");
    if (v->name != NULL && v->name[0] == '\0') {
        v->present = false;
        return true;
    }
    const OrtTypeInfo *type = NULL;
    ONNXType onnx_type = ONNX_TYPE_UNKNOWN;
    if (!ok(ortvk_ort->GetValueInfoTypeInfo(info, &type)) || type == NULL ||
        !ok(ortvk_ort->GetOnnxTypeFromTypeInfo(type, &onnx_type)))
        return ortvk_krefuse(why, why_len, "value %s has no type", v->name);
    if (onnx_type != ONNX_TYPE_TENSOR) return true; /* type stays UNDEFINED: every op refuses it */
    const OrtTensorTypeAndShapeInfo *tensor = NULL;
    if (!ok(ortvk_ort->CastTypeInfoToTensorInfo(type, &tensor)) || tensor == NULL ||
        !ok(ortvk_ort->GetTensorElementType(tensor, &v->type)))
        return ortvk_krefuse(why, why_len, "value %s: no tensor type", v->name);
    if (ortvk_ort->TensorTypeAndShape_HasShape(tensor)) {
        size_t rank = 0;
        if (!ok(ortvk_ort->GetDimensionsCount(tensor, &rank)))
            return ortvk_krefuse(why, why_len, "value %s: no rank", v->name);
        if (rank > ORTVK_KMAX_RANK)
            return ortvk_krefuse(why, why_len, "value %s has rank %zu (ortvk handles up to %d)", v->name, rank,
                                 ORTVK_KMAX_RANK);
        if (!ok(ortvk_ort->GetDimensions(tensor, v->dims, rank)))
            return ortvk_krefuse(why, why_len, "value %s: no dims", v->name);
        v->rank = (int)rank;
    }
    bool constant = false;
    if (ok(ortvk_ort->ValueInfo_IsConstantInitializer(info, &constant)) && constant) {
        const OrtValue *value = NULL;
        if (ok(ortvk_ort->ValueInfo_GetInitializerValue(info, &value))) v->constant = value;
    }
    return true;
}

bool ortvk_knode_read(const OrtNode *node, ortvk_knode *out, char *why, size_t why_len)
{
    memset(out, 0, sizeof(*out));
    out->node = node;
    if (!ok(ortvk_ort->Node_GetOperatorType(node, &out->op_type)) ||
        !ok(ortvk_ort->Node_GetDomain(node, &out->domain)) || !ok(ortvk_ort->Node_GetName(node, &out->name)) ||
        !ok(ortvk_ort->Node_GetSinceVersion(node, &out->opset)))
        return ortvk_krefuse(why, why_len, "node without op type, domain or version");
    if (out->name == NULL) out->name = "";
    if (out->domain == NULL) out->domain = "";

    size_t n_in = 0, n_out = 0, n_attrs = 0;
    if (!ok(ortvk_ort->Node_GetNumInputs(node, &n_in)) || !ok(ortvk_ort->Node_GetNumOutputs(node, &n_out)) ||
        !ok(ortvk_ort->Node_GetNumAttributes(node, &n_attrs)))
        return ortvk_krefuse(why, why_len, "node without input, output or attribute counts");
    if (n_in > ORTVK_KMAX_INPUTS || n_out > ORTVK_KMAX_OUTPUTS || n_attrs > ORTVK_KMAX_ATTRS)
        return ortvk_krefuse(why, why_len, "%zu inputs, %zu outputs, %zu attributes exceed ortvk's limits", n_in,
                             n_out, n_attrs);

    const OrtValueInfo *infos[ORTVK_KMAX_INPUTS] = {0};
    if (n_in > 0 && !ok(ortvk_ort->Node_GetInputs(node, infos, n_in)))
        return ortvk_krefuse(why, why_len, "node inputs unreadable");
    for (size_t i = 0; i < n_in; i++) {
        if (!ortvk_kvalue_read(infos[i], &out->in[i], why, why_len)) return false;
    }
    const OrtValueInfo *outs[ORTVK_KMAX_OUTPUTS] = {0};
    if (n_out > 0 && !ok(ortvk_ort->Node_GetOutputs(node, outs, n_out)))
        return ortvk_krefuse(why, why_len, "node outputs unreadable");
    for (size_t i = 0; i < n_out; i++) {
        if (!ortvk_kvalue_read(outs[i], &out->out[i], why, why_len)) return false;
    }
    const OrtOpAttr *attrs[ORTVK_KMAX_ATTRS] = {0};
    if (n_attrs > 0 && !ok(ortvk_ort->Node_GetAttributes(node, attrs, n_attrs)))
        return ortvk_krefuse(why, why_len, "node attributes unreadable");
    for (size_t i = 0; i < n_attrs; i++) {
        ortvk_kattr *a = &out->attrs[i];
        a->attr = attrs[i];
        if (!ok(ortvk_ort->OpAttr_GetName(attrs[i], &a->name)) || !ok(ortvk_ort->OpAttr_GetType(attrs[i], &a->type)))
            return ortvk_krefuse(why, why_len, "attribute %zu unreadable", i);
    }
    out->n_in = n_in;
    out->n_out = n_out;
    out->n_attrs = n_attrs;
    return true;
}

static const ortvk_kattr *find(const ortvk_knode *node, const char *name)
{
    for (size_t i = 0; i < node->n_attrs; i++) {
        if (node->attrs[i].name != NULL && strcmp(node->attrs[i].name, name) == 0) return &node->attrs[i];
    }
    return NULL;
}

bool ortvk_knode_has(const ortvk_knode *node, const char *name)
{
    return find(node, name) != NULL;
}

bool ortvk_knode_int(const ortvk_knode *node, const char *name, int64_t fallback, int64_t *out)
{
    const ortvk_kattr *a = find(node, name);
    *out = fallback;
    if (a == NULL) return true;
    size_t size = 0;
    return a->type == ORT_OP_ATTR_INT && ok(ortvk_ort->ReadOpAttr(a->attr, ORT_OP_ATTR_INT, out, sizeof(*out), &size));
}

bool ortvk_knode_float(const ortvk_knode *node, const char *name, float fallback, float *out)
{
    const ortvk_kattr *a = find(node, name);
    *out = fallback;
    if (a == NULL) return true;
    size_t size = 0;
    return a->type == ORT_OP_ATTR_FLOAT &&
           ok(ortvk_ort->ReadOpAttr(a->attr, ORT_OP_ATTR_FLOAT, out, sizeof(*out), &size));
}

static bool read_array(const ortvk_knode *node, const char *name, OrtOpAttrType type, void *out, size_t elem,
                       size_t max, int *count)
{
    const ortvk_kattr *a = find(node, name);
    *count = -1;
    if (a == NULL) return true;
    if (a->type != type) return false;
    size_t bytes = 0;
    /* ORT reports the size it needs (and fails) when the buffer is too small. */
    OrtStatus *status = ortvk_ort->ReadOpAttr(a->attr, type, out, max * elem, &bytes);
    if (!ok(status) || bytes > max * elem) return false;
    *count = (int)(bytes / elem);
    return true;
}

bool ortvk_knode_ints(const ortvk_knode *node, const char *name, int64_t *out, size_t max, int *count)
{
    return read_array(node, name, ORT_OP_ATTR_INTS, out, sizeof(int64_t), max, count);
}

bool ortvk_knode_floats(const ortvk_knode *node, const char *name, float *out, size_t max, int *count)
{
    return read_array(node, name, ORT_OP_ATTR_FLOATS, out, sizeof(float), max, count);
}

bool ortvk_knode_string(const ortvk_knode *node, const char *name, char *out, size_t max)
{
    const ortvk_kattr *a = find(node, name);
    memset(out, 0, max);
    if (a == NULL) return true;
    size_t size = 0;
    /* Some ORT versions count and write the terminating NUL, others do not: terminate at the reported size. */
    if (a->type != ORT_OP_ATTR_STRING || !ok(ortvk_ort->ReadOpAttr(a->attr, ORT_OP_ATTR_STRING, out, max - 1, &size)))
        return false;
    out[size < max - 1 ? size : max - 1] = '\0';
    return true;
}

bool ortvk_knode_auto_pad(const ortvk_knode *node, int *out)
{
    static const char *const names[] = {"NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER"};
    _Static_assert(ORTVK_AUTO_PAD_NOTSET == 0 && ORTVK_AUTO_PAD_VALID == 1 && ORTVK_AUTO_PAD_SAME_UPPER == 2 &&
                       ORTVK_AUTO_PAD_SAME_LOWER == 3,
                   "names[] follows ORTVK_AUTO_PAD_*");
    char text[32];
    if (!ortvk_knode_string(node, "auto_pad", text, sizeof(text))) return false;
    for (int k = 0; k < 4; k++) {
        if (strcmp(text, names[k]) == 0 || (k == 0 && text[0] == '\0')) {
            *out = k;
            return true;
        }
    }
    return false;
}

/* A constant input's host data, checked to be in CPU memory (Compile runs before ORT places initializers). */
static bool const_data(const ortvk_knode *node, size_t input, const void **data, size_t *count,
                       ONNXTensorElementDataType *type)
{
    if (input >= node->n_in || !node->in[input].present || node->in[input].constant == NULL) return false;
    const OrtValue *value = node->in[input].constant;
    const OrtMemoryInfo *where = NULL;
    OrtMemoryInfoDeviceType device = OrtMemoryInfoDeviceType_GPU;
    if (!ok(ortvk_ort->GetTensorMemoryInfo(value, &where))) return false;
    ortvk_ort->MemoryInfoGetDeviceType(where, &device);
    if (device != OrtMemoryInfoDeviceType_CPU) return false;
    const int64_t *dims = NULL;
    size_t rank = 0;
    if (!ok(ortvk_ort->GetTensorElementTypeAndShapeDataReference(value, type, &dims, &rank))) return false;
    size_t n = 1;
    for (size_t i = 0; i < rank; i++) {
        if (dims[i] < 0) return false;
        n *= (size_t)dims[i];
    }
    *count = n;
    *data = NULL;
    return n == 0 || ok(ortvk_ort->GetTensorData(value, data));
}

bool ortvk_knode_const_ints(const ortvk_knode *node, size_t input, int64_t *out, size_t max, size_t *count)
{
    const void *data = NULL;
    ONNXTensorElementDataType type;
    if (!const_data(node, input, &data, count, &type) || *count > max) return false;
    for (size_t i = 0; i < *count; i++) {
        if (type == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64) out[i] = ((const int64_t *)data)[i];
        else if (type == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32) out[i] = ((const int32_t *)data)[i];
        else return false;
    }
    return type == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64 || type == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32;
}

bool ortvk_knode_const_bytes(const ortvk_knode *node, size_t input, const uint8_t **out, size_t *count)
{
    const void *data = NULL;
    ONNXTensorElementDataType type;
    if (!const_data(node, input, &data, count, &type)) return false;
    *out = data;
    return type == ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8 || type == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8;
}

float ortvk_khalf_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu, bits;
    if (e == 0) {
        float f = (float)m * 0x1p-24f;
        return sign ? -f : f;
    }
    bits = e == 31 ? sign | 0x7f800000u | (m << 13) : sign | ((e + 112u) << 23) | (m << 13);
    float f;
    memcpy(&f, &bits, sizeof(f));
    return f;
}

bool ortvk_knode_const_nonfinite(const ortvk_knode *node, size_t input)
{
    const void *data = NULL;
    size_t count = 0;
    ONNXTensorElementDataType type;
    if (!const_data(node, input, &data, &count, &type)) return false;
    for (size_t i = 0; i < count; i++) {
        if (type == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT && !isfinite(((const float *)data)[i])) return true;
        if (type == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16 && (((const uint16_t *)data)[i] & 0x7c00u) == 0x7c00u)
            return true;
    }
    return false;
}

bool ortvk_knode_const_floats(const ortvk_knode *node, size_t input, float *out, size_t max, size_t *count)
{
    const void *data = NULL;
    ONNXTensorElementDataType type;
    if (!const_data(node, input, &data, count, &type) || *count > max) return false;
    if (type == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT) {
        if (*count > 0) memcpy(out, data, *count * sizeof(float));
        return true;
    }
    if (type != ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16) return false;
    for (size_t i = 0; i < *count; i++) out[i] = ortvk_khalf_to_float(((const uint16_t *)data)[i]);
    return true;
}
