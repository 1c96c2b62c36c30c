/* The per-op device profiler (ep.ortvk.profile, ORTVK_PROFILE): a four-node model (Conv, Elu, Add, Softplus; none
 * of them a step ortvk fuses with another: test_kernels_fusion covers fused kernels) in one partition, run three
 * times with profiling on, writes a Chrome-trace JSON with one event per node run (names, op types, non-negative
 * device durations, the Conv's FLOPs) and a per-op summary; the environment variable does the same; a path that
 * cannot be written fails session creation naming the option; without either nothing is written. With ORT >= 1.30,
 * ORT's own profile (enable_profiling) gets the same node runs as "Kernel" events of
 * provider ortvk. The validation layer is on (ctest fails on any VALIDATION: line). */
#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "test_util.h"

#define RUNS 3
#define NODES 4
static const int64_t x_shape[4] = {1, 3, 8, 8}, y_shape[4] = {1, 4, 8, 8}, w_shape[4] = {4, 3, 3, 3};
static const char *const node_names[NODES] = {"n0", "n1", "n2", "n3"};
static const char *const node_ops[NODES] = {"Conv", "Elu", "Add", "Softplus"};

static int build_model(uint8_t **model, size_t *len)
{
    onnx_model *m = onnx_model_new(17);
    float w[108];
    for (int i = 0; i < 108; i++) w[i] = (float)(i % 7) * 0.1f - 0.3f;
    onnx_model_add_input(m, "x", ONNX_FLOAT, 4, x_shape);
    onnx_model_add_input(m, "y", ONNX_FLOAT, 4, y_shape);
    onnx_model_add_output(m, "z", ONNX_FLOAT, 4, y_shape);
    onnx_model_add_initializer(m, "w", ONNX_FLOAT, 4, w_shape, w, sizeof(w));
    const char *conv_in[] = {"x", "w"}, *conv_out[] = {"c"}, *relu_out[] = {"r"}, *add_in[] = {"r", "y"},
               *add_out[] = {"a"}, *sig_out[] = {"z"};
    onnx_node *conv = onnx_model_add_node(m, "Conv", conv_in, 2, conv_out, 1);
    const int64_t pads[4] = {1, 1, 1, 1};
    onnx_node_attr_ints(conv, "pads", pads, 4);
    onnx_model_add_node(m, "Elu", conv_out, 1, relu_out, 1);
    onnx_model_add_node(m, "Add", add_in, 2, add_out, 1);
    onnx_model_add_node(m, "Softplus", add_out, 1, sig_out, 1);
    int rc = onnx_model_serialize(m, model, len);
    onnx_model_free(m);
    return rc;
}

/* Runs `session` RUNS times on host inputs. */
static void run(ortapp *app, OrtSession *session)
{
    static float x[3 * 64], y[4 * 64];
    for (int i = 0; i < 3 * 64; i++) x[i] = (float)(i % 11) * 0.2f - 1.0f;
    for (int i = 0; i < 4 * 64; i++) y[i] = (float)(i % 5) * 0.1f;
    OrtValue *hx = test_host_tensor(app, x, 3 * 64, 4, x_shape), *hy = test_host_tensor(app, y, 4 * 64, 4, y_shape);
    const char *in_names[] = {"x", "y"}, *out_names[] = {"z"};
    const OrtValue *inputs[] = {hx, hy};
    for (int k = 0; k < RUNS; k++) {
        OrtValue *out = NULL;
        ORT_OK(app, app->api->Run(session, NULL, in_names, inputs, 2, out_names, 1, &out));
        app->api->ReleaseValue(out);
    }
    app->api->ReleaseValue(hx);
    app->api->ReleaseValue(hy);
}

/* Structural checks of the profile written to `path` (the writer puts one event or summary entry per line). */
static void check_profile(const char *path, const char *how)
{
    char *text = test_read_text(path);
    if (!CHECK(text != NULL, "%s: the profile %s was written", how, path)) return;
    CHECK(strncmp(text, "{", 1) == 0 && strstr(text, "\"traceEvents\": [") != NULL &&
              strstr(text, "\"ortvkSummary\": [") != NULL && strstr(text, "]}\n") != NULL,
          "%s: a JSON object with traceEvents and ortvkSummary", how);
    if (strstr(text, "timestampValidBits 0") != NULL) {
        printf("SKIP: %s: the device has no timestamps; the profile says so\n", how);
        free(text);
        return;
    }
    int events = 0, per_node[NODES] = {0}, bad = 0, bad_pipelines = 0, runs = -1;
    double conv_flops = -1;
    char *summary = strstr(text, "\"ortvkSummary\"");
    for (char *line = text; line != NULL && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        if (summary != NULL && line > summary) break;
        if (strncmp(line, "{\"name\": \"", 10) != 0) continue;
        events++;
        char name[64] = "", cat[64] = "";
        double dur = -1;
        const char *d = strstr(line, "\"dur\": ");
        if (sscanf(line, "{\"name\": \"%63[^\"]\", \"cat\": \"%63[^\"]\"", name, cat) != 2 || d == NULL ||
            sscanf(d, "\"dur\": %lf", &dur) != 1 || !(dur >= 0) || strstr(line, "\"ph\": \"X\"") == NULL ||
            strstr(line, "\"ts\": ") == NULL)
            bad++;
        for (int i = 0; i < NODES; i++) {
            if (strcmp(name, node_names[i]) != 0) continue;
            per_node[i]++;
            if (strcmp(cat, node_ops[i]) != 0) bad++;
        }
        const char *f = strstr(line, "\"flops\": ");
        if (strcmp(cat, "Conv") == 0 && f != NULL) sscanf(f, "\"flops\": %lf", &conv_flops);
        if (strcmp(cat, "Conv") == 0 && strstr(line, "\"inputs\": \"1x3x8x8 float, 4x3x3x3 float\"") == NULL) bad++;
        /* The pipelines each node dispatched: the Conv's are the conv shader's ("conv.<function>"). */
        if (strcmp(cat, "Conv") == 0 && strstr(line, "\"pipelines\": \"conv.") == NULL) bad_pipelines++;
    }
    const char *r = strstr(text, "\"runs\": ");
    if (r != NULL) sscanf(r, "\"runs\": %d", &runs);
    CHECK(events == RUNS * NODES, "%s: %d events, expected one per node and run (%d)", how, events, RUNS * NODES);
    CHECK(bad == 0, "%s: %d events lack a name, op, ph X, ts or a non-negative dur, or have the wrong shapes", how,
          bad);
    for (int i = 0; i < NODES; i++)
        CHECK(per_node[i] == RUNS, "%s: node %s (%s) has %d events, expected %d", how, node_names[i], node_ops[i],
              per_node[i], RUNS);
    /* 2 FLOPs per multiply-add: 4x8x8 outputs, each over 3 channels x 3x3 taps. */
    CHECK(conv_flops == 2.0 * 4 * 8 * 8 * 27, "%s: the Conv's FLOPs are %.0f, expected %d", how, conv_flops,
          2 * 4 * 8 * 8 * 27);
    CHECK(runs == RUNS, "%s: otherData.runs is %d, expected %d", how, runs, RUNS);
    CHECK(bad_pipelines == 0, "%s: %d Conv events do not name the conv shader's pipeline", how, bad_pipelines);
    for (int i = 0; i < NODES && summary != NULL; i++) {
        char entry[64];
        snprintf(entry, sizeof(entry), "{\"op\": \"%s\", \"count\": %d,", node_ops[i], RUNS);
        CHECK(strstr(summary, entry) != NULL, "%s: the summary lists %s with count %d", how, node_ops[i], RUNS);
    }
    free(text);
}

static void temp_path(char *out, size_t len, const char *tag)
{
    const char *dir = getenv("TMPDIR");
    snprintf(out, len, "%s/ortvk-test-profile-%d-%s.json", dir && dir[0] ? dir : "/tmp", (int)getpid(), tag);
    unlink(out);
}

/* Counts the occurrences of `needle` in `text`. */
static int occurrences(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(text, needle); p != NULL; p = strstr(p + 1, needle)) n++;
    return n;
}

/* ORT's profiler: its file (prefix_<date>.json) holds a Kernel event of provider ortvk per node run. */
static void ort_profile(ortapp *app, const OrtEpDevice *device, const uint8_t *model, size_t len)
{
    const char *dir = getenv("TMPDIR");
    dir = dir && dir[0] ? dir : "/tmp";
    char prefix[512], stem[128];
    snprintf(stem, sizeof(stem), "ortvk-test-ort-profile-%d", (int)getpid());
    snprintf(prefix, sizeof(prefix), "%s/%s", dir, stem);
    OrtSessionOptions *options = NULL;
    OrtSession *session = NULL;
    if (!ORT_OK(app, app->api->CreateSessionOptions(&options))) return;
    if (ORT_OK(app, app->api->EnableProfiling(options, prefix)) &&
        ORT_OK(app, app->api->SessionOptionsAppendExecutionProvider_V2(options, app->env, &device, 1, NULL, NULL, 0)))
        ORT_OK(app, app->api->CreateSessionFromArray(app->env, model, len, options, &session));
    app->api->ReleaseSessionOptions(options);
    if (session == NULL) return;
    run(app, session);
    app->api->ReleaseSession(session); /* ORT writes its profile */
    DIR *d = opendir(dir);
    char path[1024] = "";
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;)
        if (strncmp(e->d_name, stem, strlen(stem)) == 0) snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
    if (d != NULL) closedir(d);
    char *text = path[0] ? test_read_text(path) : NULL;
    if (CHECK(text != NULL, "ORT wrote its profile %s*.json", prefix)) {
        int kernels = occurrences(text, "\"cat\" : \"Kernel\"");
        int ours = occurrences(text, "\"provider\" : \"ortvk\"");
        /* ORT's own Node events of the fused node name provider ortvk too: one per run. */
        CHECK(kernels == RUNS * NODES && ours == RUNS * NODES + RUNS,
              "ORT's profile: %d Kernel events and %d naming provider ortvk, expected %d and %d", kernels, ours,
              RUNS * NODES, RUNS * NODES + RUNS);
        for (int i = 0; i < NODES; i++) {
            char name[64];
            snprintf(name, sizeof(name), "\"name\" :\"%s\"", node_names[i]);
            CHECK(occurrences(text, name) == RUNS, "ORT's profile: %d events of node %s, expected %d",
                  occurrences(text, name), node_names[i], RUNS);
        }
    }
    free(text);
    if (path[0]) unlink(path);
}

int main(void)
{
    ortapp app;
    const OrtEpDevice *device;
    test_open(&app, &device);
    unsetenv("ORTVK_PROFILE");
    uint8_t *model = NULL;
    size_t len = 0;
    if (!CHECK(build_model(&model, &len) == 0, "build the model")) return test_finish(&app, "test_profile");

    /* Off by default: no option, no environment variable, no file. */
    char path[512];
    temp_path(path, sizeof(path), "off");
    OrtSession *session = test_session(&app, device, model, len, NULL, NULL, 0);
    if (session != NULL) {
        run(&app, session);
        app.api->ReleaseSession(session);
    }
    CHECK(access(path, F_OK) != 0, "no profile is written when profiling is off");

    /* The session option. */
    temp_path(path, sizeof(path), "option");
    const char *keys[] = {ORTVK_OPTION_PROFILE}, *values[] = {path};
    session = test_session(&app, device, model, len, keys, values, 1);
    if (session != NULL) {
        run(&app, session);
        app.api->ReleaseSession(session); /* the profile is written when the session ends */
        check_profile(path, "ep.ortvk.profile");
    }
    unlink(path);

    /* The environment variable, read when the session is created. */
    temp_path(path, sizeof(path), "env");
    setenv("ORTVK_PROFILE", path, 1);
    session = test_session(&app, device, model, len, NULL, NULL, 0);
    unsetenv("ORTVK_PROFILE");
    if (session != NULL) {
        run(&app, session);
        app.api->ReleaseSession(session);
        check_profile(path, "ORTVK_PROFILE");
    }
    unlink(path);

    /* A path that cannot be written: session creation fails and names the option. */
    OrtSessionOptions *options = NULL;
    const char *bad[] = {"/nonexistent-directory/profile.json"};
    if (ORT_OK(&app, app.api->CreateSessionOptions(&options))) {
        ORT_OK(&app, app.api->SessionOptionsAppendExecutionProvider_V2(options, app.env, &device, 1, keys, bad, 1));
        session = NULL;
        /* ORT reports an EP's failure to create as ORT_FAIL, quoting the EP's code and message. */
        ORT_FAILS(&app, app.api->CreateSessionFromArray(app.env, model, len, options, &session), ORT_FAIL,
                  "INVALID_ARGUMENT : ortvk: ep.ortvk.profile = \"/nonexistent-directory/profile.json\"");
        if (session != NULL) app.api->ReleaseSession(session);
        app.api->ReleaseSessionOptions(options);
    }
    if (app.api_version >= 30) ort_profile(&app, device, model, len);
    else printf("ONNX Runtime %s has no profiler for plugin EPs (OrtEp::CreateProfiler came with 1.30)\n", app.version);
    free(model);
    return test_finish(&app, "test_profile");
}
