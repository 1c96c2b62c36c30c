/* Helpers of the kernel tests: strict-placement sessions, the node-to-EP assignment ORT records, host copies of
 * outputs and ONNX backend-test comparisons. Everything goes through ONNX Runtime's public API. */
#include "kernel_check.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ortvk.h"

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

int kc_profile_events(const char *text, const char *op, int *dispatched, char *first, size_t first_len)
{
    static const char key[] = "\"pipelines\": \"";
    char cat[96];
    int events = 0, named = 0;
    snprintf(cat, sizeof(cat), "\"cat\": \"%s\"", op);
    if (first_len > 0) first[0] = '\0';
    for (const char *line = text, *end; line != NULL && (end = strchr(line, '\n')) != NULL; line = end + 1) {
        const char *hit = strstr(line, cat), *list = strstr(line, key);
        if (hit == NULL || hit > end) continue;
        bool has = list != NULL && list < end;
        if (has && named == 0 && first_len > 0) {
            const char *from = list + strlen(key), *to = strchr(from, '"');
            snprintf(first, first_len, "%.*s", to != NULL && to < end ? (int)(to - from) : 0, from);
        }
        events++;
        named += has;
    }
    if (dispatched != NULL) *dispatched = named;
    return events;
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

bool kc_device_is_cpu(ortapp *app, const OrtEpDevice *device)
{
    const char *kind = app->api->GetKeyValue(app->api->EpDevice_EpMetadata(device), ORTVK_META_DEVICE_TYPE);
    return kind != NULL && strcmp(kind, "cpu") == 0;
}

bool kc_device_flushes_subnormals(ortapp *app, const OrtEpDevice *device)
{
    const char *floats = app->api->GetKeyValue(app->api->EpDevice_EpMetadata(device), ORTVK_META_FLOAT_CONTROLS);
    return floats == NULL || strstr(floats, "float32_subnormals:native") == NULL;
}

float kc_flush_subnormal(float v)
{
    return v != 0 && fabsf(v) < FLT_MIN ? copysignf(0.0f, v) : v;
}

size_t kc_count(const int64_t *dims, int rank)
{
    size_t n = 1;
    for (int i = 0; i < rank; i++) n *= (size_t)dims[i];
    return n;
}

uint32_t kc_rand_bits(uint32_t *state)
{
    *state = *state * 1664525u + 1013904223u;
    return *state >> 8;
}

float kc_rand_float(uint32_t *state)
{
    return (float)kc_rand_bits(state) / 8388608.0f - 1.0f;
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

/* Element i as a double (exact for every type but 64-bit integers past 2^53); *is_float says whether it compares
 * within a tolerance (or else bit for bit). */
static double element(int type, const void *data, size_t i, bool *is_float)
{
    *is_float = true;
    switch (type) {
    case ONNX_FLOAT: return ((const float *)data)[i];
    case ONNX_DOUBLE: return ((const double *)data)[i];
    case ONNX_FLOAT16: return kc_half_to_float(((const uint16_t *)data)[i]);
    case ONNX_BFLOAT16: return kc_bfloat_to_float(((const uint16_t *)data)[i]);
    default: break;
    }
    *is_float = false;
    switch (type) {
    case ONNX_INT8: return ((const int8_t *)data)[i];
    case ONNX_UINT8: case ONNX_BOOL: return ((const uint8_t *)data)[i];
    case ONNX_INT16: return ((const int16_t *)data)[i];
    case ONNX_UINT16: return ((const uint16_t *)data)[i];
    case ONNX_INT32: return ((const int32_t *)data)[i];
    case ONNX_UINT32: return ((const uint32_t *)data)[i];
    case ONNX_INT64: return (double)((const int64_t *)data)[i];
    case ONNX_UINT64: return (double)((const uint64_t *)data)[i];
    default: return 0;
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
            if (!ok && bad == 0)
                first = i, worst_got = element(expected->elem_type, got, i, &is_float), worst_want = want;
        }
        bad += !ok;
    }
    if (bad == 0) return 0;
    snprintf(why, why_len, "%zu of %zu elements differ (worst at %zu: got %.9g, want %.9g)", bad, n, first, worst_got,
             worst_want);
    return 1;
}

/* ---- protobuf surgery for kc_freeze_inputs and kc_model_to_float16 (wire format only) -------------------------- */

typedef struct pb_buf {
    uint8_t *data;
    size_t len, cap;
    bool failed;
} pb_buf;

static void pb_put(pb_buf *b, const void *p, size_t n)
{
    if (b->failed || n == 0) return; /* an empty field may come with p == NULL (an empty pb_buf) */
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
/* ---- kc_model_to_float16 ---------------------------------------------------------------------------------- */

/* A byte range of the model: a value's name or a serialized TensorProto. */
typedef struct pb_slice {
    const uint8_t *data;
    size_t len;
} pb_slice;

static bool slice_is(pb_slice s, const char *text)
{
    return s.data != NULL && s.len == strlen(text) && memcmp(s.data, text, s.len) == 0;
}

static bool slices_equal(pb_slice a, pb_slice b)
{
    return a.len == b.len && (a.len == 0 || memcmp(a.data, b.data, a.len) == 0);
}

/* The `index`-th length-delimited field `number` of a message; {NULL, 0} when there is none (or the message is
 * malformed before it: the rewrite, which walks every field, fails on that). */
static pb_slice pb_string(const uint8_t *p, const uint8_t *end, uint32_t number, int index)
{
    pb_field f;
    bool ok;
    while (pb_next(&p, end, &f, &ok)) {
        if (f.number == number && f.wire == 2 && index-- == 0)
            return (pb_slice){f.payload, (size_t)(f.end - f.payload)};
    }
    return (pb_slice){NULL, 0};
}

static uint64_t pb_varint_value(const pb_field *f)
{
    const uint8_t *p = f->payload;
    uint64_t v = 0;
    pb_read_varint(&p, f->end, &v); /* pb_next has checked it */
    return v;
}

static void pb_varint_field(pb_buf *b, uint32_t field, uint64_t v)
{
    pb_varint(b, (uint64_t)field << 3 | 0);
    pb_varint(b, v);
}

/* Values by name, each with a serialized TensorProto (or none), as slices of the model's bytes. */
typedef struct value_list {
    struct {
        pb_slice name, tensor;
    } *items;
    size_t count, cap;
} value_list;

static bool value_list_add(value_list *l, pb_slice name, pb_slice tensor)
{
    if (l->count == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        void *items = realloc(l->items, cap * sizeof(*l->items));
        if (items == NULL) return false;
        l->items = items;
        l->cap = cap;
    }
    l->items[l->count].name = name;
    l->items[l->count++].tensor = tensor;
    return true;
}

/* The tensor of value `name`; NULL when the list has no such value. */
static const pb_slice *value_list_find(const value_list *l, pb_slice name)
{
    for (size_t i = 0; name.data != NULL && i < l->count; i++)
        if (slices_equal(l->items[i].name, name)) return &l->items[i].tensor;
    return NULL;
}

/* What the conversion of one graph knows beyond the message at hand. */
typedef struct float16_graph {
    value_list keep;      /* Resize's roi and scales: they stay float */
    value_list constants; /* initializers and Constant nodes' values, for folding BatchNormalization */
    pb_buf folded;        /* the initializers (GraphProto field 5 entries) that folding made */
} float16_graph;

/* Fills `keep` and `constants` from a GraphProto's nodes (1) and initializers (5). ONNX types Resize's scales as
 * tensor(float) whatever X is, so inputs 1 (roi) and 2 (scales) of a Resize, and the initializers, Constant nodes
 * and graph inputs that provide them, stay float. */
static bool graph_survey(const uint8_t *p, const uint8_t *end, float16_graph *g)
{
    pb_field f;
    bool ok = true;
    while (ok && pb_next(&p, end, &f, &ok)) {
        if (f.wire != 2 || (f.number != 1 && f.number != 5)) continue;
        if (f.number == 5) {
            pb_slice name = pb_string(f.payload, f.end, 8, 0);
            if (name.data) ok = value_list_add(&g->constants, name, (pb_slice){f.payload, (size_t)(f.end - f.payload)});
            continue;
        }
        pb_slice op = pb_string(f.payload, f.end, 4, 0);
        for (int i = 1; slice_is(op, "Resize") && i <= 2 && ok; i++) {
            pb_slice input = pb_string(f.payload, f.end, 1, i);
            if (input.len > 0) ok = value_list_add(&g->keep, input, (pb_slice){NULL, 0});
        }
        if (!slice_is(op, "Constant")) continue;
        for (int i = 0;; i++) {
            pb_slice attribute = pb_string(f.payload, f.end, 5, i), output = pb_string(f.payload, f.end, 2, 0);
            if (attribute.data == NULL) break;
            pb_slice tensor = pb_string(attribute.data, attribute.data + attribute.len, 5, 0);
            if (slice_is(pb_string(attribute.data, attribute.data + attribute.len, 1, 0), "value") && tensor.data &&
                output.data)
                ok = value_list_add(&g->constants, output, tensor);
        }
    }
    return ok;
}

/* Re-encodes a length-delimited field whose payload is a message, through `rewrite`, into `out`. */
typedef bool (*pb_rewrite)(const uint8_t *p, const uint8_t *end, void *context, pb_buf *out);

static bool pb_rewrite_field(pb_buf *out, const pb_field *f, pb_rewrite rewrite, void *context)
{
    pb_buf sub = {0};
    bool ok = f->wire == 2 && rewrite(f->payload, f->end, context, &sub) && !sub.failed;
    if (ok) pb_bytes_field(out, f->number, sub.data, sub.len);
    free(sub.data);
    return ok;
}

/* A TensorProto's data_type (2); 0 when absent. */
static uint64_t tensor_data_type(const uint8_t *p, const uint8_t *end)
{
    pb_field f;
    bool ok;
    uint64_t type = 0;
    while (pb_next(&p, end, &f, &ok))
        if (f.number == 2 && f.wire == 0) type = pb_varint_value(&f); /* the last one counts */
    return type;
}

/* The values of a FLOAT TensorProto, from raw_data (9) or float_data (4, packed or not): *values is malloc'd
 * (NULL when there are none). False on malformed data, on both encodings at once, and on segmented or external
 * data (segment 3, external_data 13, data_location 14), which this converter does not follow. */
static bool tensor_floats(const uint8_t *p, const uint8_t *end, float **values, size_t *count)
{
    pb_buf bytes = {0};
    pb_field f;
    bool ok = true, has_float_data = false, has_raw_data = false;
    while (ok && pb_next(&p, end, &f, &ok)) {
        if (f.number == 4 && (f.wire == 2 || f.wire == 5)) {
            has_float_data = true;
            pb_put(&bytes, f.payload, (size_t)(f.end - f.payload));
        } else if (f.number == 9 && f.wire == 2) {
            has_raw_data = true;
            pb_put(&bytes, f.payload, (size_t)(f.end - f.payload));
        } else if (f.number == 3 || f.number == 13 || (f.number == 14 && pb_varint_value(&f) != 0)) {
            ok = false;
        }
    }
    ok = ok && !bytes.failed && !(has_float_data && has_raw_data) && bytes.len % sizeof(float) == 0;
    *values = NULL;
    *count = ok ? bytes.len / sizeof(float) : 0;
    if (ok && *count > 0) {
        *values = malloc(bytes.len);
        if (*values) memcpy(*values, bytes.data, bytes.len); /* little-endian, as on every host ortvk runs on */
        else ok = false;
    }
    free(bytes.data);
    return ok;
}

/* raw_data (9) of `values` as float16 bit patterns, each rounded to nearest even. */
static void put_float16_raw_data(pb_buf *out, const float *values, size_t count)
{
    pb_varint(out, 9 << 3 | 2);
    pb_varint(out, count * sizeof(uint16_t));
    for (size_t i = 0; i < count; i++) {
        uint16_t h = kc_float_to_half(values[i]);
        uint8_t bytes[2] = {(uint8_t)(h & 0xff), (uint8_t)(h >> 8)};
        pb_put(out, bytes, sizeof(bytes));
    }
}

/* A TensorProto of data_type FLOAT as FLOAT16, its values in raw_data; tensors of other types are copied. */
static bool tensor_to_float16(const uint8_t *p, const uint8_t *end, void *unused, pb_buf *out)
{
    (void)unused;
    if (tensor_data_type(p, end) != ONNX_FLOAT) {
        pb_put(out, p, (size_t)(end - p));
        return true;
    }
    float *values = NULL;
    size_t count = 0;
    if (!tensor_floats(p, end, &values, &count)) return false;
    pb_field f;
    bool ok = true;
    while (ok && pb_next(&p, end, &f, &ok))
        if (f.number != 2 && f.number != 4 && f.number != 9) pb_put(out, f.start, (size_t)(f.end - f.start));
    pb_varint_field(out, 2, ONNX_FLOAT16);
    if (count > 0) put_float16_raw_data(out, values, count);
    free(values);
    return ok;
}

/* What an attribute's node is, for attribute_to_float16. */
typedef enum { NODE_OTHER, NODE_CONSTANT, NODE_CAST } node_kind;

/* An AttributeProto with its float tensors (t 5, tensors 10) as float16, and Cast's to = FLOAT as FLOAT16.
 * Fails where a float would stay behind: Constant's value_float(s), subgraphs, sparse tensors. */
static bool attribute_to_float16(const uint8_t *p, const uint8_t *end, void *context, pb_buf *out)
{
    node_kind kind = *(const node_kind *)context;
    pb_slice name = pb_string(p, end, 1, 0);
    if (kind == NODE_CONSTANT && (slice_is(name, "value_float") || slice_is(name, "value_floats"))) return false;
    bool cast_to = kind == NODE_CAST && slice_is(name, "to");
    pb_field f;
    bool ok = true;
    while (ok && pb_next(&p, end, &f, &ok)) {
        if (f.number == 5 || f.number == 10) ok = pb_rewrite_field(out, &f, tensor_to_float16, NULL);
        else if (f.number == 6 || f.number == 11 || f.number == 22 || f.number == 23) ok = false;
        else if (cast_to && f.number == 3 && f.wire == 0 && pb_varint_value(&f) == ONNX_FLOAT)
            pb_varint_field(out, 3, ONNX_FLOAT16);
        else pb_put(out, f.start, (size_t)(f.end - f.start));
    }
    return ok;
}

/* A BatchNormalization node's epsilon attribute (f, field 2 of the AttributeProto), or ONNX's default. */
static float batch_norm_epsilon(const uint8_t *node, const uint8_t *end)
{
    float epsilon = 1e-5f;
    for (int i = 0;; i++) {
        pb_slice attribute = pb_string(node, end, 5, i);
        if (attribute.data == NULL) return epsilon;
        if (!slice_is(pb_string(attribute.data, attribute.data + attribute.len, 1, 0), "epsilon")) continue;
        const uint8_t *p = attribute.data;
        pb_field f;
        bool ok;
        while (pb_next(&p, attribute.data + attribute.len, &f, &ok))
            if (f.number == 2 && f.wire == 5) memcpy(&epsilon, f.payload, sizeof(epsilon));
    }
}

/* Appends to `initializers` a FLOAT16 vector of `values` named `node_output` + `suffix`; the name in *name. */
static void add_folded(pb_buf *initializers, pb_slice node_output, const char *suffix, const float *values,
                       size_t count, pb_buf *name)
{
    pb_put(name, node_output.data, node_output.len);
    pb_put(name, suffix, strlen(suffix));
    pb_buf tensor = {0};
    pb_varint_field(&tensor, 1, count);
    pb_varint_field(&tensor, 2, ONNX_FLOAT16);
    pb_bytes_field(&tensor, 8, name->data, name->len);
    put_float16_raw_data(&tensor, values, count);
    pb_bytes_field(initializers, 5, tensor.data, tensor.len);
    if (tensor.failed) initializers->failed = true;
    free(tensor.data);
}

/* BatchNormalization computes scale * (x - mean) / sqrt(var + epsilon) + B. A trained network's variance can
 * exceed float16's range (PP-OCRv4's head has variances up to 1e8: as float16 they become infinity and zero the
 * map), so where scale and var are constants the node gets new ones, appended to g->folded and named in
 * names[0] and names[1]: scale / sqrt(var + epsilon), computed in double and rounded once, and a variance of
 * 1 - epsilon (as float16), which leaves the kernel dividing by 1 within float16's resolution. *folded says
 * whether it did; a node in training mode (more than one output) keeps its own. */
static bool fold_batch_norm(const uint8_t *node, const uint8_t *end, float16_graph *g, pb_buf names[2],
                            bool *folded)
{
    *folded = false;
    pb_slice output = pb_string(node, end, 2, 0);
    const pb_slice *scale_tensor = value_list_find(&g->constants, pb_string(node, end, 1, 1));
    const pb_slice *var_tensor = value_list_find(&g->constants, pb_string(node, end, 1, 4));
    if (output.data == NULL || pb_string(node, end, 2, 1).data != NULL || scale_tensor == NULL ||
        var_tensor == NULL)
        return true;
    const uint8_t *scale_end = scale_tensor->data + scale_tensor->len, *var_end = var_tensor->data + var_tensor->len;
    if (tensor_data_type(scale_tensor->data, scale_end) != ONNX_FLOAT ||
        tensor_data_type(var_tensor->data, var_end) != ONNX_FLOAT)
        return true;
    float epsilon = batch_norm_epsilon(node, end), *scale = NULL, *var = NULL;
    size_t n_scale = 0, n_var = 0;
    bool ok = tensor_floats(scale_tensor->data, scale_end, &scale, &n_scale) &&
              tensor_floats(var_tensor->data, var_end, &var, &n_var);
    if (ok && n_scale == n_var && n_scale > 0) {
        for (size_t i = 0; i < n_scale; i++) {
            scale[i] = (float)((double)scale[i] / sqrt((double)var[i] + (double)epsilon));
            var[i] = 1.0f - epsilon;
        }
        add_folded(&g->folded, output, ".folded_scale", scale, n_scale, &names[0]);
        add_folded(&g->folded, output, ".folded_var", var, n_var, &names[1]);
        *folded = true;
    }
    free(scale);
    free(var);
    return ok;
}

/* A NodeProto with its attributes converted (and BatchNormalization's parameters folded), unless one of its
 * outputs (2) is to stay float. */
static bool node_to_float16(const uint8_t *p, const uint8_t *end, void *context, pb_buf *out)
{
    float16_graph *g = context;
    for (int i = 0;; i++) {
        pb_slice output = pb_string(p, end, 2, i);
        if (output.data == NULL) break;
        if (value_list_find(&g->keep, output)) {
            pb_put(out, p, (size_t)(end - p));
            return true;
        }
    }
    pb_slice op = pb_string(p, end, 4, 0);
    node_kind kind = slice_is(op, "Constant") ? NODE_CONSTANT : slice_is(op, "Cast") ? NODE_CAST : NODE_OTHER;
    pb_buf folded_names[2] = {{0}, {0}};
    bool ok = true, folded = false;
    if (slice_is(op, "BatchNormalization")) ok = fold_batch_norm(p, end, g, folded_names, &folded);
    pb_field f;
    int input = 0;
    while (ok && pb_next(&p, end, &f, &ok)) {
        if (f.number == 1 && folded && (input == 1 || input == 4))
            pb_bytes_field(out, 1, folded_names[input == 4].data, folded_names[input == 4].len);
        else if (f.number == 5) ok = pb_rewrite_field(out, &f, attribute_to_float16, &kind);
        else pb_put(out, f.start, (size_t)(f.end - f.start));
        input += f.number == 1;
    }
    ok = ok && !folded_names[0].failed && !folded_names[1].failed;
    free(folded_names[0].data);
    free(folded_names[1].data);
    return ok;
}

/* TypeProto.Tensor: elem_type (1) FLOAT becomes FLOAT16. */
static bool tensor_type_to_float16(const uint8_t *p, const uint8_t *end, void *unused, pb_buf *out)
{
    (void)unused;
    pb_field f;
    bool ok = true;
    while (ok && pb_next(&p, end, &f, &ok)) {
        if (f.number == 1 && f.wire == 0 && pb_varint_value(&f) == ONNX_FLOAT) pb_varint_field(out, 1, ONNX_FLOAT16);
        else pb_put(out, f.start, (size_t)(f.end - f.start));
    }
    return ok;
}

/* TypeProto: its tensor_type (1); sequences, maps and optionals are copied. */
static bool type_to_float16(const uint8_t *p, const uint8_t *end, void *unused, pb_buf *out)
{
    pb_field f;
    bool ok = true;
    while (ok && pb_next(&p, end, &f, &ok)) {
        if (f.number == 1) ok = pb_rewrite_field(out, &f, tensor_type_to_float16, unused);
        else pb_put(out, f.start, (size_t)(f.end - f.start));
    }
    return ok;
}

/* A ValueInfoProto (graph input, output, value_info) with its type (2) converted, unless its name (1) is to stay
 * float. */
static bool value_info_to_float16(const uint8_t *p, const uint8_t *end, void *context, pb_buf *out)
{
    const float16_graph *g = context;
    bool kept = value_list_find(&g->keep, pb_string(p, end, 1, 0)) != NULL;
    pb_field f;
    bool ok = true;
    while (ok && pb_next(&p, end, &f, &ok)) {
        if (f.number == 2 && !kept) ok = pb_rewrite_field(out, &f, type_to_float16, NULL);
        else pb_put(out, f.start, (size_t)(f.end - f.start));
    }
    return ok;
}

/* An initializer (TensorProto) converted, unless its name (8) is to stay float. */
static bool initializer_to_float16(const uint8_t *p, const uint8_t *end, void *context, pb_buf *out)
{
    const float16_graph *g = context;
    if (value_list_find(&g->keep, pb_string(p, end, 8, 0)) == NULL) return tensor_to_float16(p, end, NULL, out);
    pb_put(out, p, (size_t)(end - p));
    return true;
}

/* GraphProto: node (1), initializer (5), input (11), output (12) and value_info (13); then the initializers that
 * folding BatchNormalization made. */
static bool graph_to_float16(const uint8_t *p, const uint8_t *end, void *context, pb_buf *out)
{
    float16_graph *g = context;
    pb_field f;
    bool ok = true;
    while (ok && pb_next(&p, end, &f, &ok)) {
        switch (f.number) {
        case 1: ok = pb_rewrite_field(out, &f, node_to_float16, g); break;
        case 5: ok = pb_rewrite_field(out, &f, initializer_to_float16, g); break;
        case 11:
        case 12:
        case 13: ok = pb_rewrite_field(out, &f, value_info_to_float16, g); break;
        default: pb_put(out, f.start, (size_t)(f.end - f.start)); break;
        }
    }
    pb_put(out, g->folded.data, g->folded.len);
    return ok && !g->folded.failed;
}

int kc_model_to_float16(const uint8_t *model, size_t len, uint8_t **out, size_t *out_len)
{
    pb_buf result = {0};
    float16_graph g = {0};
    const uint8_t *p = model, *end = model + len;
    pb_field f;
    bool ok = true, found = false;
    /* ModelProto.graph is field 7. */
    while (ok && pb_next(&p, end, &f, &ok)) {
        if (f.number == 7 && f.wire == 2 && !found) {
            found = true;
            ok = graph_survey(f.payload, f.end, &g) && pb_rewrite_field(&result, &f, graph_to_float16, &g);
        } else {
            ok = f.number != 7; /* a second graph would be merged into the first: not followed here */
            pb_put(&result, f.start, (size_t)(f.end - f.start));
        }
    }
    free(g.keep.items);
    free(g.constants.items);
    free(g.folded.data);
    if (!ok || !found || result.failed) {
        free(result.data);
        return -1;
    }
    *out = result.data;
    *out_len = result.len;
    return 0;
}

int kc_load_model(const char *default_dir, const char *file, uint8_t **model, size_t *len)
{
    const char *dir = getenv("ORTVK_MODELS_DIR");
    if (dir == NULL || dir[0] == '\0') dir = default_dir;
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", dir, file);
    if (onnx_read_file(path, model, len) == ONNX_OK) return 0;
    printf("SKIP: %s not found (scripts/fetch-models.sh fetches it)\n", path);
    return 77;
}
