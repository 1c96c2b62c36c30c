/* Models with an If whose branches hold nodes ortvk claims: the session is created and its outputs equal ORT's CPU
 * EP's for both values of the condition, on every runtime (ORT 1.24.3 once refused such a session: two fused nodes
 * of the same name, one per branch). Also a model with two Ifs, and a run with the stream in the run options. */
#include <math.h>
#include <string.h>

#include "test_util.h"

#define N 12
static const int64_t shape[2] = {3, 4};

/* A branch: out = op(x, x) then Relu, reading x from the outer graph. */
static onnx_model *branch(const char *op, const char *tag)
{
    onnx_model *b = onnx_model_new(17);
    char mid[32], out[32];
    snprintf(mid, sizeof(mid), "%s_mid", tag);
    snprintf(out, sizeof(out), "%s_out", tag);
    const char *xx[] = {"x", "x"}, *m[] = {mid}, *o[] = {out};
    onnx_model_add_node(b, op, xx, 2, m, 1);
    onnx_model_add_node(b, "Relu", m, 1, o, 1);
    onnx_model_add_output(b, out, ONNX_FLOAT, 2, shape);
    return b;
}

typedef enum { ONE_IF, TWO_IFS, BRANCHES_ONLY } model_kind;

/* z = Sigmoid(If(c) then Add(x, x)->Relu else Mul(x, x)->Relu); TWO_IFS: Sigmoid of the sum of two such Ifs;
 * BRANCHES_ONLY: z = the If's output (the main graph holds no node ortvk runs). */
static int if_model(model_kind kind, uint8_t **model, size_t *len)
{
    onnx_model *m = onnx_model_new(17);
    onnx_model_add_input(m, "x", ONNX_FLOAT, 2, shape);
    onnx_model_add_input(m, "c", ONNX_BOOL, 0, NULL);
    onnx_model_add_output(m, "z", ONNX_FLOAT, 2, shape);
    const char *c[] = {"c"}, *y[] = {"y"}, *y2[] = {"y2"}, *z[] = {"z"};
    bool twice = kind == TWO_IFS;
    for (int k = 0; k < (twice ? 2 : 1); k++) {
        onnx_node *node = onnx_model_add_node(m, "If", c, 1, kind == BRANCHES_ONLY ? z : k == 0 ? y : y2, 1);
        char then_tag[16], else_tag[16];
        snprintf(then_tag, sizeof(then_tag), "then%d", k);
        snprintf(else_tag, sizeof(else_tag), "else%d", k);
        onnx_model *then_branch = branch("Add", then_tag), *else_branch = branch("Mul", else_tag);
        onnx_node_attr_graph(node, "then_branch", then_branch, then_tag);
        onnx_node_attr_graph(node, "else_branch", else_branch, else_tag);
        onnx_model_free(then_branch);
        onnx_model_free(else_branch);
    }
    if (twice) {
        const char *sum_in[] = {"y", "y2"}, *s[] = {"s"};
        onnx_model_add_node(m, "Add", sum_in, 2, s, 1);
        onnx_model_add_node(m, "Sigmoid", s, 1, z, 1);
    } else if (kind == ONE_IF) {
        onnx_model_add_node(m, "Sigmoid", y, 1, z, 1);
    }
    int rc = onnx_model_serialize(m, model, len);
    onnx_model_free(m);
    return rc;
}

/* Runs `session` on x and c; the output into z. */
static bool run(ortapp *app, OrtSession *session, OrtRunOptions *run_options, float *x, bool c, float *z)
{
    uint8_t cond = c;
    OrtValue *inputs[2] = {test_host_tensor(app, x, N, 2, shape),
                           test_host_tensor_of(app, &cond, ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL, 1, 0, NULL)};
    const char *in_names[] = {"x", "c"}, *out_names[] = {"z"};
    OrtValue *output = NULL;
    bool ok = ORT_OK(app, app->api->Run(session, run_options, in_names, (const OrtValue *const *)inputs, 2, out_names,
                                        1, &output));
    if (ok) {
        float *data = NULL;
        ok = ORT_OK(app, app->api->GetTensorMutableData(output, (void **)&data));
        if (ok) memcpy(z, data, N * sizeof(float));
    }
    app->api->ReleaseValue(output);
    app->api->ReleaseValue(inputs[0]);
    app->api->ReleaseValue(inputs[1]);
    return ok;
}

/* How many nodes ORT assigned to ortvk (ORT >= 1.24 records it when asked). */
static size_t ortvk_nodes(ortapp *app, OrtSession *session)
{
    const OrtEpAssignedSubgraph *const *subgraphs = NULL;
    size_t count = 0, nodes = 0;
    if (!ORT_OK(app, app->api->Session_GetEpGraphAssignmentInfo(session, &subgraphs, &count))) return 0;
    for (size_t i = 0; i < count; i++) {
        const char *ep = NULL;
        const OrtEpAssignedNode *const *list = NULL;
        size_t n = 0;
        ORT_OK(app, app->api->EpAssignedSubgraph_GetEpName(subgraphs[i], &ep));
        ORT_OK(app, app->api->EpAssignedSubgraph_GetNodes(subgraphs[i], &list, &n));
        if (ep != NULL && strcmp(ep, ORTVK_EP_NAME) == 0) nodes += n;
    }
    return nodes;
}

static void check_model(ortapp *app, const OrtEpDevice *device, model_kind kind)
{
    uint8_t *model = NULL;
    size_t len = 0;
    if (!CHECK(if_model(kind, &model, &len) == 0, "build the If model")) return;
    const char *keys[] = {"session.record_ep_graph_assignment_info"}, *values[] = {"1"};
    OrtSessionOptions *options = NULL;
    OrtSession *ortvk = NULL, *cpu = NULL;
    ORT_OK(app, app->api->CreateSessionOptions(&options));
    ORT_OK(app, app->api->AddSessionConfigEntry(options, keys[0], values[0]));
    ORT_OK(app, app->api->SessionOptionsAppendExecutionProvider_V2(options, app->env, &device, 1, NULL, NULL, 0));
    ORT_OK(app, app->api->CreateSessionFromArray(app->env, model, len, options, &ortvk));
    app->api->ReleaseSessionOptions(options);
    ORT_OK(app, app->api->CreateSessionOptions(&options));
    ORT_OK(app, app->api->CreateSessionFromArray(app->env, model, len, options, &cpu));
    app->api->ReleaseSessionOptions(options);
    free(model);
    static const char *const names[] = {"one If", "two Ifs", "an If alone"};
    const char *name = names[kind];
    if (CHECK(ortvk != NULL && cpu != NULL, "%s: sessions created", name)) {
        size_t claimed = ortvk_nodes(app, ortvk);
        printf("%s: ortvk runs %zu nodes\n", name, claimed);
        /* ORT before 1.30 cannot tell fused nodes of two graphs apart: ortvk claims only the main graph's there. */
        if (app->api_version >= 30)
            CHECK(claimed >= (kind == BRANCHES_ONLY ? 2u : 3u), "%s: ortvk runs the branches' nodes (%zu nodes)", name,
                  claimed);
        else
            CHECK(kind == BRANCHES_ONLY || claimed >= 1, "%s: ortvk runs the main graph's nodes (%zu nodes)", name,
                  claimed);
        OrtSyncStream *stream = NULL;
        OrtRunOptions *run_options = NULL;
        ORT_OK(app, app->api->CreateSyncStreamForEpDevice(device, NULL, &stream));
        ORT_OK(app, app->api->CreateRunOptions(&run_options));
        for (int pass = 0; pass < 4; pass++) {
            bool c = pass % 2 == 0, with_stream = pass >= 2;
            if (with_stream) app->api->RunOptionsSetSyncStream(run_options, stream);
            float x[N], expected[N], got[N];
            for (int i = 0; i < N; i++) x[i] = (float)(i * 7 % 11) * 0.5f - 2.5f + (float)pass;
            if (!run(app, cpu, NULL, x, c, expected) ||
                !run(app, ortvk, with_stream ? run_options : NULL, x, c, got))
                continue;
            int wrong = 0;
            for (int i = 0; i < N; i++) wrong += fabsf(got[i] - expected[i]) > 1e-5f;
            CHECK(wrong == 0, "%s, c = %d%s: %d of %d outputs differ from the CPU EP's", name, c,
                  with_stream ? ", stream in the run options" : "", wrong, N);
        }
        app->api->ReleaseRunOptions(run_options);
        app->api->ReleaseSyncStream(stream);
    }
    if (ortvk) app->api->ReleaseSession(ortvk);
    if (cpu) app->api->ReleaseSession(cpu);
}

int main(void)
{
    ortapp app;
    const OrtEpDevice *device = NULL;
    test_open(&app, &device);
    check_model(&app, device, ONE_IF);
    check_model(&app, device, TWO_IFS);
    check_model(&app, device, BRANCHES_ONLY);
    return test_finish(&app, "test_session_if");
}
