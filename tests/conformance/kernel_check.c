/* Helpers of the kernel tests: strict-placement sessions, the node-to-EP assignment ORT records, host copies of
 * outputs and ONNX backend-test comparisons. Everything goes through ONNX Runtime's public API. */
#include "kernel_check.h"

#include <math.h>
#include <string.h>

OrtSession *kc_session(ortapp *app, const OrtEpDevice *device, const uint8_t *model, size_t len, bool strict,
                       bool record, OrtStatus **error)
{
    const OrtApi *api = app->api;
    OrtSessionOptions *options = NULL;
    OrtSession *session = NULL;
    *error = api->CreateSessionOptions(&options);
    if (*error == NULL && strict) *error = api->AddSessionConfigEntry(options, "session.disable_cpu_ep_fallback", "1");
    if (*error == NULL && record)
        *error = api->AddSessionConfigEntry(options, "session.record_ep_graph_assignment_info", "1");
    if (*error == NULL && device != NULL)
        *error = api->SessionOptionsAppendExecutionProvider_V2(options, app->env, &device, 1, NULL, NULL, 0);
    if (*error == NULL) *error = api->CreateSessionFromArray(app->env, model, len, options, &session);
    if (options) api->ReleaseSessionOptions(options);
    return *error == NULL ? session : NULL;
}

static void add_op(char *list, size_t len, const char *op)
{
    if (list == NULL || len == 0) return;
    char word[96];
    snprintf(word, sizeof(word), " %s ", op);
    size_t have = strlen(list);
    /* Listed already? (the list is " A B C", so search " op " with the trailing space appended virtually) */
    char padded[4096];
    snprintf(padded, sizeof(padded), "%s ", list);
    if (strstr(padded, word) != NULL) return;
    snprintf(list + have, len - have, " %s", op);
}

int kc_assignment(ortapp *app, OrtSession *session, size_t *n_ortvk, size_t *n_other, char *on_ortvk,
                  size_t on_ortvk_len, char *elsewhere, size_t elsewhere_len)
{
    const OrtApi *api = app->api;
    const OrtEpAssignedSubgraph *const *subgraphs = NULL;
    size_t count = 0;
    *n_ortvk = *n_other = 0;
    if (on_ortvk) on_ortvk[0] = '\0';
    if (elsewhere) elsewhere[0] = '\0';
    if (!ORT_OK(app, api->Session_GetEpGraphAssignmentInfo(session, &subgraphs, &count))) return -1;
    for (size_t i = 0; i < count; i++) {
        const char *ep = NULL;
        const OrtEpAssignedNode *const *nodes = NULL;
        size_t n = 0;
        if (!ORT_OK(app, api->EpAssignedSubgraph_GetEpName(subgraphs[i], &ep)) ||
            !ORT_OK(app, api->EpAssignedSubgraph_GetNodes(subgraphs[i], &nodes, &n)))
            return -1;
        bool ours = strcmp(ep, ORTVK_EP_NAME) == 0;
        for (size_t k = 0; k < n; k++) {
            const char *op = NULL;
            if (!ORT_OK(app, api->EpAssignedNode_GetOperatorType(nodes[k], &op))) return -1;
            if (strcmp(op, "MemcpyFromHost") == 0 || strcmp(op, "MemcpyToHost") == 0) continue;
            if (ours) {
                (*n_ortvk)++;
                add_op(on_ortvk, on_ortvk_len, op);
            } else {
                (*n_other)++;
                add_op(elsewhere, elsewhere_len, op);
            }
        }
    }
    return 0;
}

void *kc_host_data(ortapp *app, OrtValue *value, size_t *bytes)
{
    const OrtApi *api = app->api;
    *bytes = 0;
    if (!ORT_OK(app, api->GetTensorSizeInBytes(value, bytes))) return NULL;
    void *out = malloc(*bytes ? *bytes : 1);
    if (out == NULL) return NULL;
    const OrtMemoryInfo *where = NULL;
    OrtMemoryInfoDeviceType type = OrtMemoryInfoDeviceType_CPU;
    if (!ORT_OK(app, api->GetTensorMemoryInfo(value, &where))) goto fail;
    api->MemoryInfoGetDeviceType(where, &type);
    if (type == OrtMemoryInfoDeviceType_CPU) {
        void *data = NULL;
        if (!ORT_OK(app, api->GetTensorMutableData(value, &data))) goto fail;
        if (*bytes) memcpy(out, data, *bytes);
        return out;
    }
    /* A device tensor: copy it into a host tensor of the same type and shape. */
    OrtTensorTypeAndShapeInfo *info = NULL;
    if (!ORT_OK(app, api->GetTensorTypeAndShape(value, &info))) goto fail;
    ONNXTensorElementDataType elem;
    size_t rank = 0;
    int64_t dims[16];
    api->GetTensorElementType(info, &elem);
    api->GetDimensionsCount(info, &rank);
    api->GetDimensions(info, dims, rank);
    api->ReleaseTensorTypeAndShapeInfo(info);
    OrtMemoryInfo *cpu = NULL;
    OrtValue *host = NULL;
    int ok = ORT_OK(app, api->CreateCpuMemoryInfo(OrtDeviceAllocator, OrtMemTypeDefault, &cpu)) &&
             ORT_OK(app, api->CreateTensorWithDataAsOrtValue(cpu, out, *bytes, dims, rank, elem, &host)) &&
             ORT_OK(app, test_copy(app, value, host, NULL));
    if (host) api->ReleaseValue(host);
    if (cpu) api->ReleaseMemoryInfo(cpu);
    if (ok) return out;
fail:
    free(out);
    return NULL;
}

float kc_half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 31, mant = h & 1023;
    float f;
    if (exp == 0) f = ldexpf((float)mant, -24);
    else if (exp == 31) f = mant ? NAN : INFINITY;
    else f = ldexpf((float)(mant | 1024), (int)exp - 25);
    return sign ? -f : f;
}

uint16_t kc_float_to_half(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof(x));
    uint32_t sign = (x >> 16) & 0x8000u, a = x & 0x7fffffffu;
    if (a > 0x7f800000u) return (uint16_t)(sign | 0x7e00u | ((a >> 13) & 0x3ffu));
    if (a >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u);
    if (a >= 0x38800000u) {
        uint32_t r = a - 0x38000000u, h = r >> 13, rest = r & 0x1fffu;
        if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) h++;
        return (uint16_t)(sign | h);
    }
    float scaled;
    memcpy(&scaled, &a, sizeof(scaled));
    return (uint16_t)(sign | (uint32_t)nearbyintf(scaled * 16777216.0f)); /* the default mode: ties to even */
}

float kc_bfloat_to_float(uint16_t h)
{
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, sizeof(f));
    return f;
}

static double element(int type, const void *data, size_t i, bool *is_float)
{
    *is_float = true;
    switch (type) {
    case ONNX_FLOAT: return ((const float *)data)[i];
    case ONNX_DOUBLE: return ((const double *)data)[i];
    case ONNX_FLOAT16: return kc_half_to_float(((const uint16_t *)data)[i]);
    case ONNX_BFLOAT16: return kc_bfloat_to_float(((const uint16_t *)data)[i]);
    default: *is_float = false; return 0;
    }
}

int kc_compare(const onnx_tensor *expected, const void *got, double rtol, double atol, char *why, size_t why_len)
{
    size_t esize = onnx_elem_size(expected->elem_type);
    size_t n = esize ? expected->data_bytes / esize : 0;
    size_t bad = 0, first = 0;
    double worst = 0, worst_got = 0, worst_want = 0;
    for (size_t i = 0; i < n; i++) {
        bool is_float;
        double want = element(expected->elem_type, expected->data, i, &is_float);
        bool ok;
        if (is_float) {
            double have = element(expected->elem_type, got, i, &is_float);
            if (isnan(want) || isnan(have)) ok = isnan(want) && isnan(have);
            else if (isinf(want) || isinf(have)) ok = want == have;
            else ok = fabs(have - want) <= atol + rtol * fabs(want);
            double excess = fabs(have - want) - (atol + rtol * fabs(want));
            if (!ok && (bad == 0 || excess > worst)) worst = excess, worst_got = have, worst_want = want, first = i;
        } else {
            ok = memcmp((const uint8_t *)got + i * esize, expected->data + i * esize, esize) == 0;
            if (!ok && bad == 0) first = i;
        }
        bad += !ok;
    }
    if (bad == 0) return 0;
    snprintf(why, why_len, "%zu of %zu elements differ (worst at %zu: got %.9g, want %.9g)", bad, n, first, worst_got,
             worst_want);
    return 1;
}

/* ---- protobuf surgery for kc_freeze_inputs (wire format only: varints and length-delimited fields) -------- */

typedef struct pb_buf {
    uint8_t *data;
    size_t len, cap;
    bool failed;
} pb_buf;

static void pb_put(pb_buf *b, const void *p, size_t n)
{
    if (b->failed) return;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n) cap *= 2;
        uint8_t *d = realloc(b->data, cap);
        if (d == NULL) {
            b->failed = true;
            return;
        }
        b->data = d;
        b->cap = cap;
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

static void pb_varint(pb_buf *b, uint64_t v)
{
    uint8_t tmp[10];
    size_t n = 0;
    do {
        tmp[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v);
    pb_put(b, tmp, n);
}

static void pb_bytes_field(pb_buf *b, uint32_t field, const void *p, size_t n)
{
    pb_varint(b, (uint64_t)field << 3 | 2);
    pb_varint(b, n);
    pb_put(b, p, n);
}

static bool pb_read_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    *v = 0;
    for (int shift = 0; *p < end && shift < 64; shift += 7) {
        uint8_t byte = *(*p)++;
        *v |= (uint64_t)(byte & 0x7f) << shift;
        if (!(byte & 0x80)) return true;
    }
    return false;
}

/* One field of a message: its number, wire type, and the whole encoding [start, end) plus, for length-delimited
 * fields, the payload [payload, end). False at the end or on malformed input (then *ok is false). */
typedef struct pb_field {
    uint32_t number, wire;
    const uint8_t *start, *payload, *end;
} pb_field;

static bool pb_next(const uint8_t **p, const uint8_t *end, pb_field *f, bool *ok)
{
    *ok = true;
    if (*p >= end) return false;
    f->start = *p;
    uint64_t tag, v;
    if (!pb_read_varint(p, end, &tag)) return *ok = false;
    f->number = (uint32_t)(tag >> 3);
    f->wire = (uint32_t)(tag & 7);
    f->payload = *p;
    switch (f->wire) {
    case 0: if (!pb_read_varint(p, end, &v)) return *ok = false; break;
    case 1: if (end - *p < 8) return *ok = false; *p += 8; break;
    case 5: if (end - *p < 4) return *ok = false; *p += 4; break;
    case 2:
        if (!pb_read_varint(p, end, &v) || v > (uint64_t)(end - *p)) return *ok = false;
        f->payload = *p;
        *p += v;
        break;
    default: return *ok = false;
    }
    f->end = *p;
    return true;
}

/* The name (field 1) of a ValueInfoProto. */
static bool value_info_name(const uint8_t *p, const uint8_t *end, char *name, size_t max)
{
    pb_field f;
    bool ok;
    while (pb_next(&p, end, &f, &ok)) {
        if (f.number == 1 && f.wire == 2) {
            size_t n = (size_t)(f.end - f.payload);
            if (n >= max) return false;
            memcpy(name, f.payload, n);
            name[n] = '\0';
            return true;
        }
    }
    return false;
}

int kc_freeze_inputs(const uint8_t *model, size_t len, const char *const *names, const uint8_t *const *tensors,
                     const size_t *tensor_lens, int count, uint8_t **out, size_t *out_len)
{
    pb_buf graph = {0}, result = {0};
    const uint8_t *p = model, *end = model + len;
    pb_field f;
    bool ok = true, found = false;
    /* ModelProto.graph is field 7. */
    while (pb_next(&p, end, &f, &ok)) {
        if (f.number != 7 || f.wire != 2) {
            pb_put(&result, f.start, (size_t)(f.end - f.start));
            continue;
        }
        found = true;
        const uint8_t *g = f.payload, *g_end = f.end;
        pb_field gf;
        bool g_ok = true;
        while (pb_next(&g, g_end, &gf, &g_ok)) {
            /* GraphProto.input (11) entries that are frozen are dropped: an initializer that is also a graph input
             * is overridable, not constant. */
            if (gf.number == 11 && gf.wire == 2) {
                char name[256];
                bool frozen = false;
                if (value_info_name(gf.payload, gf.end, name, sizeof(name))) {
                    for (int i = 0; i < count && !frozen; i++) frozen = strcmp(name, names[i]) == 0;
                }
                if (frozen) continue;
            }
            pb_put(&graph, gf.start, (size_t)(gf.end - gf.start));
        }
        if (!g_ok) ok = false;
        /* GraphProto.initializer (5): the TensorProto, its name (field 8) appended (the last occurrence wins). */
        for (int i = 0; i < count; i++) {
            pb_buf t = {0};
            pb_put(&t, tensors[i], tensor_lens[i]);
            pb_bytes_field(&t, 8, names[i], strlen(names[i]));
            pb_bytes_field(&graph, 5, t.data, t.len);
            if (t.failed) graph.failed = true;
            free(t.data);
        }
    }
    if (found) pb_bytes_field(&result, 7, graph.data, graph.len);
    free(graph.data);
    if (!ok || !found || graph.failed || result.failed) {
        free(result.data);
        return -1;
    }
    *out = result.data;
    *out_len = result.len;
    return 0;
}
