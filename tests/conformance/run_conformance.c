/* The ONNX conformance run of ortvk's kernels: every node test of Debian's libonnx-testdata whose nodes ortvk
 * claims, run through ONNX Runtime with ortvk appended and compared with the expected outputs at ONNX backend-test
 * tolerances (rtol 1e-3, atol 1e-7 for floating types; exact otherwise). When ortvk claims every node of a model
 * the session is created with session.disable_cpu_ep_fallback = 1, which proves every node ran on the device.
 * Tests whose shapes, scales, pads or bounds come as graph inputs run a second time with those inputs made
 * constants (as real models have them), when that lets ortvk claim more of their nodes.
 * Prints per-test and per-op results and a pass rate; fails when any test with a claimed node fails (unless ORT's
 * own CPU EP fails it as well: then the reference data, not ortvk, is at odds with ORT, and it is listed apart).
 *
 * usage: run_conformance [--filter SUBSTRING] [--verbose] [DATA_DIR]
 *   DATA_DIR defaults to $ORTVK_CONFORMANCE_DATA or /usr/share/libonnx-testdata/data/node. */
#include <dirent.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>

#include "kernel_check.h"

#define RTOL 1e-3
#define ATOL 1e-7
#define MAX_OPS 256
#define MAX_SETS 8

typedef struct op_stats {
    char name[64];
    int claimed, passed, failed, baseline_fails, not_claimed;
} op_stats;

static op_stats ops[MAX_OPS];
static int n_ops;
static bool verbose;

static op_stats *stats_for(const char *op)
{
    for (int i = 0; i < n_ops; i++) {
        if (strcmp(ops[i].name, op) == 0) return &ops[i];
    }
    if (n_ops == MAX_OPS) return &ops[MAX_OPS - 1];
    snprintf(ops[n_ops].name, sizeof(ops[n_ops].name), "%s", op);
    return &ops[n_ops++];
}

/* Calls fn(op) for each word of " A B C". */
static void each_op(const char *list, void (*fn)(const char *op, int outcome), int outcome)
{
    char copy[4096];
    snprintf(copy, sizeof(copy), "%s", list);
    for (char *save = NULL, *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) fn(w, outcome);
}

enum { OUT_PASS, OUT_FAIL, OUT_BASELINE_FAILS, OUT_NOT_CLAIMED };

static void count_op(const char *op, int outcome)
{
    op_stats *s = stats_for(op);
    if (outcome == OUT_NOT_CLAIMED) {
        s->not_claimed++;
        return;
    }
    s->claimed++;
    if (outcome == OUT_PASS) s->passed++;
    else if (outcome == OUT_FAIL) s->failed++;
    else s->baseline_fails++;
}

typedef struct test_case {
    char name[320];
    char dir[1024];
    uint8_t *model;
    size_t model_len;
    onnx_model_info info;
    int file_index[ONNX_MAX_IO]; /* input_<k>.pb of each graph input (frozen variants have fewer inputs) */
    int max_sets;
} test_case;

/* Runs data set `set` on `session`; 0 = outputs match, 1 = mismatch or run failure (with `why`), -1 = data the
 * runner cannot feed (skip). */
static int run_set(ortapp *app, OrtSession *session, const test_case *t, int set, char *why, size_t why_len)
{
    const OrtApi *api = app->api;
    int n_in = t->info.n_inputs, n_out = t->info.n_outputs;
    onnx_tensor inputs[ONNX_MAX_IO], expected[ONNX_MAX_IO];
    OrtValue *values[ONNX_MAX_IO] = {0}, *outputs[ONNX_MAX_IO] = {0};
    const char *in_names[ONNX_MAX_IO], *out_names[ONNX_MAX_IO];
    memset(inputs, 0, sizeof(inputs));
    memset(expected, 0, sizeof(expected));
    int result = -1;
    OrtMemoryInfo *cpu = NULL;
    if (!ORT_OK(app, api->CreateCpuMemoryInfo(OrtDeviceAllocator, OrtMemTypeDefault, &cpu))) return 1;
    char path[1200];
    for (int i = 0; i < n_in; i++) {
        snprintf(path, sizeof(path), "%s/test_data_set_%d/input_%d.pb", t->dir, set, t->file_index[i]);
        if (onnx_tensor_read_file(path, &inputs[i]) != ONNX_OK) goto out;
        const onnx_value_info *vi = &t->info.inputs[i];
        /* A file whose type differs from the model's is a quirk of the data (see test_onnx_proto). */
        if (vi->elem_type != inputs[i].elem_type || onnx_elem_size(inputs[i].elem_type) == 0) goto out;
        in_names[i] = vi->name;
        static uint8_t empty[16];
        OrtStatus *status = api->CreateTensorWithDataAsOrtValue(
            cpu, inputs[i].data ? (void *)inputs[i].data : (void *)empty, inputs[i].data_bytes, inputs[i].dims,
            (size_t)inputs[i].rank, (ONNXTensorElementDataType)inputs[i].elem_type, &values[i]);
        if (status != NULL) {
            api->ReleaseStatus(status);
            goto out;
        }
    }
    for (int i = 0; i < n_out; i++) {
        snprintf(path, sizeof(path), "%s/test_data_set_%d/output_%d.pb", t->dir, set, i);
        if (onnx_tensor_read_file(path, &expected[i]) != ONNX_OK || onnx_elem_size(expected[i].elem_type) == 0 ||
            expected[i].elem_type != t->info.outputs[i].elem_type)
            goto out;
        out_names[i] = t->info.outputs[i].name;
    }
    result = 1;
    OrtStatus *status = api->Run(session, NULL, in_names, (const OrtValue *const *)values, (size_t)n_in, out_names,
                                 (size_t)n_out, outputs);
    if (status != NULL) {
        snprintf(why, why_len, "Run failed: %s", api->GetErrorMessage(status));
        api->ReleaseStatus(status);
        goto out;
    }
    for (int i = 0; i < n_out; i++) {
        OrtTensorTypeAndShapeInfo *info = NULL;
        size_t rank = 0;
        int64_t dims[ONNX_MAX_RANK];
        ONNXTensorElementDataType type;
        if (!ORT_OK(app, api->GetTensorTypeAndShape(outputs[i], &info))) goto out;
        api->GetTensorElementType(info, &type);
        api->GetDimensionsCount(info, &rank);
        api->GetDimensions(info, dims, rank < ONNX_MAX_RANK ? rank : ONNX_MAX_RANK);
        api->ReleaseTensorTypeAndShapeInfo(info);
        if ((int)type != expected[i].elem_type || (int)rank != expected[i].rank ||
            memcmp(dims, expected[i].dims, rank * sizeof(int64_t)) != 0) {
            snprintf(why, why_len, "output %d: type %d rank %zu, expected type %d rank %d (or other dims)", i,
                     (int)type, rank, expected[i].elem_type, expected[i].rank);
            goto out;
        }
        size_t bytes = 0;
        void *got = kc_host_data(app, outputs[i], &bytes);
        if (got == NULL || bytes != expected[i].data_bytes) {
            snprintf(why, why_len, "output %d: %zu bytes, expected %zu", i, bytes, expected[i].data_bytes);
            free(got);
            goto out;
        }
        char detail[256];
        int bad = kc_compare(&expected[i], got, RTOL, ATOL, detail, sizeof(detail));
        free(got);
        if (bad) {
            snprintf(why, why_len, "output %d (%s): %s", i, out_names[i], detail);
            goto out;
        }
    }
    result = 0;
out:
    for (int i = 0; i < n_in; i++) {
        if (values[i]) api->ReleaseValue(values[i]);
        onnx_tensor_free(&inputs[i]);
    }
    for (int i = 0; i < n_out; i++) {
        if (outputs[i]) api->ReleaseValue(outputs[i]);
        onnx_tensor_free(&expected[i]);
    }
    api->ReleaseMemoryInfo(cpu);
    return result;
}

/* Runs every data set; 0 pass, 1 fail (why), -1 skip. */
static int run_sets(ortapp *app, OrtSession *session, const test_case *t, char *why, size_t why_len)
{
    int ran = 0;
    for (int set = 0; set < t->max_sets; set++) {
        char path[1200];
        struct stat st;
        snprintf(path, sizeof(path), "%s/test_data_set_%d", t->dir, set);
        if (stat(path, &st) != 0) break;
        int r = run_set(app, session, t, set, why, why_len);
        if (r == 1) return 1;
        if (r == 0) ran++;
    }
    return ran > 0 ? 0 : -1;
}

typedef struct totals {
    int tests, claimed, strict, passed, failed, baseline_fails, skipped, not_claimed, unloadable;
    int variants; /* of them, runs with inputs made constant (run_frozen) */
} totals;

/* Runs one test case; returns how many of its nodes ortvk claimed (-1: ORT cannot load it). */
static int run_test(ortapp *app, const OrtEpDevice *device, test_case *t, totals *sum)
{
    OrtStatus *error = NULL;
    sum->tests++;
    OrtSession *probe = kc_session(app, device, t->model, t->model_len, false, true, &error);
    if (probe == NULL) {
        /* ORT itself cannot load it (an op or type it lacks): nothing of ortvk's to test. */
        if (verbose) printf("%-60s unloadable: %s\n", t->name, app->api->GetErrorMessage(error));
        app->api->ReleaseStatus(error);
        sum->unloadable++;
        return -1;
    }
    size_t on_ortvk = 0, other = 0;
    char ours[2048], theirs[2048];
    int rc = kc_assignment(app, probe, &on_ortvk, &other, ours, sizeof(ours), theirs, sizeof(theirs));
    if (rc != 0 || on_ortvk == 0) {
        app->api->ReleaseSession(probe);
        each_op(theirs, count_op, OUT_NOT_CLAIMED);
        sum->not_claimed++;
        if (verbose) printf("%-60s not claimed (%s )\n", t->name, theirs);
        return 0;
    }
    sum->claimed++;
    OrtSession *session = probe;
    bool strict = other == 0;
    if (strict) {
        /* Every node is ortvk's: prove it with the strict session, where a fallback would fail creation. */
        session = kc_session(app, device, t->model, t->model_len, true, false, &error);
        app->api->ReleaseSession(probe);
        if (session == NULL) {
            printf("%-60s FAIL strict session: %s\n", t->name, app->api->GetErrorMessage(error));
            app->api->ReleaseStatus(error);
            each_op(ours, count_op, OUT_FAIL);
            sum->failed++;
            return (int)on_ortvk;
        }
        sum->strict++;
    }
    char why[1024] = "";
    int r = run_sets(app, session, t, why, sizeof(why));
    app->api->ReleaseSession(session);
    const char *mode = strict ? "all nodes on ortvk (strict)" : "partly on ortvk";
    if (r < 0) {
        sum->skipped++;
        printf("%-60s SKIP (test data the runner cannot feed; ortvk:%s )\n", t->name, ours);
        return (int)on_ortvk;
    }
    if (r == 0) {
        sum->passed++;
        each_op(ours, count_op, OUT_PASS);
        each_op(theirs, count_op, OUT_NOT_CLAIMED);
        printf("%-60s PASS %s:%s%s%s\n", t->name, mode, ours, other ? " | CPU:" : "", other ? theirs : "");
        return (int)on_ortvk;
    }
    /* Does ORT's CPU EP pass it? If not, the expected data disagrees with ORT itself. */
    OrtSession *cpu = kc_session(app, NULL, t->model, t->model_len, false, false, &error);
    char cpu_why[1024] = "";
    int baseline = cpu ? run_sets(app, cpu, t, cpu_why, sizeof(cpu_why)) : 1;
    if (cpu) app->api->ReleaseSession(cpu);
    else app->api->ReleaseStatus(error);
    if (baseline != 0) {
        sum->baseline_fails++;
        each_op(ours, count_op, OUT_BASELINE_FAILS);
        printf("%-60s BASELINE-FAILS (ORT's CPU EP fails it too: %s) %s:%s\n", t->name, cpu_why, mode, ours);
        return (int)on_ortvk;
    }
    sum->failed++;
    each_op(ours, count_op, OUT_FAIL);
    each_op(theirs, count_op, OUT_NOT_CLAIMED);
    printf("%-60s FAIL %s:%s: %s\n", t->name, mode, ours, why);
    return (int)on_ortvk;
}

/* The test again with inputs 1.. turned into constants (their values from test_data_set_0): real models carry
 * shapes, scales, pads, bounds and axes as constants, and only then can ortvk claim the ops that read them on the
 * host. Run when it lets ortvk claim more nodes than the original. */
static void run_frozen(ortapp *app, const OrtEpDevice *device, const test_case *t, int claimed, totals *sum)
{
    int n = t->info.n_inputs;
    if (n < 2) return;
    const char *names[ONNX_MAX_IO];
    uint8_t *tensors[ONNX_MAX_IO] = {0};
    size_t lens[ONNX_MAX_IO];
    int frozen = 0;
    for (int i = 1; i < n; i++) {
        char path[1200];
        snprintf(path, sizeof(path), "%s/test_data_set_0/input_%d.pb", t->dir, i);
        onnx_tensor probe;
        /* Only tensors whose file agrees with the model (see run_set). */
        if (onnx_tensor_read_file(path, &probe) != ONNX_OK) goto out;
        bool agrees = probe.elem_type == t->info.inputs[i].elem_type;
        onnx_tensor_free(&probe);
        if (!agrees || onnx_read_file(path, &tensors[frozen], &lens[frozen]) != ONNX_OK) goto out;
        names[frozen++] = t->info.inputs[i].name;
    }
    test_case f = {.max_sets = 1};
    snprintf(f.name, sizeof(f.name), "%.256s (inputs 1-%d constant)", t->name, n - 1);
    snprintf(f.dir, sizeof(f.dir), "%s", t->dir);
    if (kc_freeze_inputs(t->model, t->model_len, names, (const uint8_t *const *)tensors, lens, frozen, &f.model,
                         &f.model_len) != 0 ||
        onnx_model_info_read(f.model, f.model_len, &f.info) != ONNX_OK) {
        printf("%-60s cannot freeze its inputs\n", f.name);
        free(f.model);
        goto out;
    }
    for (int i = 0; i < f.info.n_inputs; i++) {
        f.file_index[i] = -1;
        for (int k = 0; k < n; k++) {
            if (strcmp(f.info.inputs[i].name, t->info.inputs[k].name) == 0) f.file_index[i] = k;
        }
    }
    /* Only worth a run when freezing lets ortvk claim more. */
    OrtStatus *error = NULL;
    OrtSession *probe = kc_session(app, device, f.model, f.model_len, false, true, &error);
    size_t ours = 0, other = 0;
    bool more = probe != NULL && kc_assignment(app, probe, &ours, &other, NULL, 0, NULL, 0) == 0 && (int)ours > claimed;
    if (probe) app->api->ReleaseSession(probe);
    if (error) app->api->ReleaseStatus(error);
    if (more) {
        sum->variants++;
        run_test(app, device, &f, sum);
    }
    free(f.model);
out:
    for (int i = 0; i < frozen; i++) free(tensors[i]);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int op_by_name(const void *a, const void *b)
{
    return strcmp(((const op_stats *)a)->name, ((const op_stats *)b)->name);
}

int main(int argc, char **argv)
{
    const char *filter = NULL;
    const char *root = getenv("ORTVK_CONFORMANCE_DATA");
    if (root == NULL || root[0] == '\0') root = "/usr/share/libonnx-testdata/data/node";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--filter") == 0 && i + 1 < argc) filter = argv[++i];
        else if (strcmp(argv[i], "--verbose") == 0) verbose = true;
        else root = argv[i];
    }
    DIR *dir = opendir(root);
    if (dir == NULL) {
        printf("SKIP: no ONNX node tests at %s (Debian package libonnx-testdata)\n", root);
        return 77;
    }
    char **names = NULL;
    size_t count = 0, capacity = 0;
    for (struct dirent *e; (e = readdir(dir)) != NULL;) {
        if (strncmp(e->d_name, "test_", 5) != 0 || (filter && strstr(e->d_name, filter) == NULL)) continue;
        if (count == capacity) {
            capacity = capacity ? 2 * capacity : 1024;
            names = realloc(names, capacity * sizeof(*names));
        }
        names[count++] = strdup(e->d_name);
    }
    closedir(dir);
    qsort(names, count, sizeof(*names), by_name);

    ortapp app;
    const OrtEpDevice *device;
    test_open(&app, &device);
    /* Keeps one ortvk session alive throughout, so that the device's pipelines (shared by its sessions and
     * released with the last one) are compiled once rather than per test. */
    uint8_t *anchor_model = NULL;
    size_t anchor_len = 0;
    int64_t one = 1;
    OrtSession *anchor = NULL;
    OrtStatus *error = NULL;
    if (test_model_one_op("Relu", 1, 1, &one, &anchor_model, &anchor_len) == 0)
        anchor = kc_session(&app, device, anchor_model, anchor_len, false, false, &error);
    if (error) app.api->ReleaseStatus(error);

    totals sum = {0};
    for (size_t i = 0; i < count; i++) {
        test_case t = {.max_sets = MAX_SETS};
        snprintf(t.name, sizeof(t.name), "%s", names[i]);
        snprintf(t.dir, sizeof(t.dir), "%s/%s", root, names[i]);
        for (int k = 0; k < ONNX_MAX_IO; k++) t.file_index[k] = k;
        char path[1100];
        snprintf(path, sizeof(path), "%s/model.onnx", t.dir);
        if (onnx_read_file(path, &t.model, &t.model_len) == ONNX_OK &&
            onnx_model_info_read(t.model, t.model_len, &t.info) == ONNX_OK) {
            int claimed = run_test(&app, device, &t, &sum);
            if (claimed >= 0) run_frozen(&app, device, &t, claimed, &sum);
        } else {
            sum.tests++;
            sum.unloadable++;
        }
        free(t.model);
        free(names[i]);
    }
    free(names);
    if (anchor) app.api->ReleaseSession(anchor);
    free(anchor_model);

    qsort(ops, (size_t)n_ops, sizeof(ops[0]), op_by_name);
    printf("\nPer op (tests containing the op; a test counts for every op ortvk ran in it):\n");
    printf("%-28s %8s %7s %7s %15s %12s\n", "op", "claimed", "passed", "failed", "baseline-fails", "not-claimed");
    for (int i = 0; i < n_ops; i++) {
        const op_stats *s = &ops[i];
        if (s->claimed == 0) continue;
        printf("%-28s %8d %7d %7d %15d %12d\n", s->name, s->claimed, s->passed, s->failed, s->baseline_fails,
               s->not_claimed);
    }
    printf("\nOps in the tests that ortvk never claimed:");
    for (int i = 0, col = 0; i < n_ops; i++) {
        if (ops[i].claimed > 0) continue;
        printf("%s%s", col++ % 10 == 0 ? "\n  " : " ", ops[i].name);
    }
    int judged = sum.passed + sum.failed;
    printf("\n\nSummary: %d node tests and %d variants with constant inputs; ortvk claimed nodes in %d (%d of them "
           "entirely, run strict), not in %d; %d unloadable by ORT.\n",
           sum.tests - sum.variants, sum.variants, sum.claimed, sum.strict, sum.not_claimed, sum.unloadable);
    printf("Of the claimed: %d passed, %d failed, %d fail on ORT's CPU EP too (not counted), %d skipped.\n",
           sum.passed, sum.failed, sum.baseline_fails, sum.skipped);
    printf("Pass rate of claimed tests: %.1f%% (%d of %d)\n", judged ? 100.0 * sum.passed / judged : 0.0, sum.passed,
           judged);
    if (sum.failed > 0) test_failures += sum.failed;
    return test_finish(&app, "run_conformance");
}
