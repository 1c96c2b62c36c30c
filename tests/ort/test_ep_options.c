/* ep.ortvk.* session options as an application meets them: a misspelt key is named in a WARNING at session creation
 * with the keys ortvk reads, known keys raise no such warning, and ep.ortvk.host_wait_timeout_ms on a session whose
 * run uses the application's stream says (once) which option sets that stream's timeout. */
#include <string.h>
#include <unistd.h>

#include "test_util.h"

static const int64_t shape[2] = {3, 4};

/* What ORT and ortvk print on stderr while `fn(arg)` runs (ORT's default logger writes there). */
typedef struct capture {
    FILE *file;
    int saved;
} capture;

static void capture_begin(capture *c)
{
    fflush(stderr);
    c->file = tmpfile();
    c->saved = dup(2);
    if (c->file) dup2(fileno(c->file), 2);
}

static void capture_end(capture *c, char *text, size_t size)
{
    fflush(stderr);
    dup2(c->saved, 2);
    close(c->saved);
    text[0] = '\0';
    if (c->file == NULL) return;
    rewind(c->file);
    size_t n = fread(text, 1, size - 1, c->file);
    text[n] = '\0';
    fclose(c->file);
    fputs(text, stderr);
}

static OrtSession *relu_session(ortapp *app, const OrtEpDevice *device, const char *const *keys,
                                const char *const *values, size_t count, char *log, size_t log_size)
{
    uint8_t *model = NULL;
    size_t len = 0;
    if (!CHECK(test_model_one_op("Relu", 1, 2, shape, &model, &len) == 0, "Relu model")) return NULL;
    capture c;
    capture_begin(&c);
    OrtSession *session = test_session(app, device, model, len, keys, values, count);
    capture_end(&c, log, log_size);
    free(model);
    return session;
}

int main(void)
{
    ortapp app;
    const OrtEpDevice *device = NULL;
    test_open(&app, &device);
    static char log[65536];

    /* A misspelt key: named, with the known ones. */
    const char *keys[] = {"device_indx", "host_wait_timeout_ms"}, *values[] = {"0", "250"};
    OrtSession *session = relu_session(&app, device, keys, values, 2, log, sizeof(log));
    CHECK(session != NULL, "a session with an unknown key is still created");
    CHECK(strstr(log, "ep.ortvk.device_indx = \"0\" is not an ortvk option") != NULL,
          "session creation warns about ep.ortvk.device_indx");
    CHECK(strstr(log, "ep.ortvk.device_index, device_uuid, host_wait_timeout_ms, profile") != NULL,
          "the warning lists the keys ortvk reads");
    CHECK(strstr(log, "host_wait_timeout_ms = \"250\" is not") == NULL, "a known key raises no warning");

    /* The session option and the application's stream: Run on the stream says which option sets its timeout. */
    if (session != NULL) {
        OrtSyncStream *stream = NULL;
        OrtRunOptions *run_options = NULL;
        ORT_OK(&app, app.api->CreateSyncStreamForEpDevice(device, NULL, &stream));
        ORT_OK(&app, app.api->CreateRunOptions(&run_options));
        app.api->RunOptionsSetSyncStream(run_options, stream);
        float x[12];
        for (int i = 0; i < 12; i++) x[i] = (float)i - 6.0f;
        OrtValue *input = test_host_tensor(&app, x, 12, 2, shape), *output = NULL;
        const char *in_names[] = {"x"}, *out_names[] = {"z"};
        capture c;
        for (int run = 0; run < 2; run++) {
            capture_begin(&c);
            OrtStatus *status = app.api->Run(session, run_options, in_names, (const OrtValue *const *)&input, 1,
                                             out_names, 1, &output);
            capture_end(&c, log, sizeof(log));
            ORT_OK(&app, status);
            app.api->ReleaseValue(output);
            output = NULL;
            bool said = strstr(log, "keeps its own host wait timeout (10000 ms), set by the stream option") != NULL;
            if (run == 0) CHECK(said, "Run on the application's stream says which option sets its timeout");
            else CHECK(!said, "... once");
        }
        app.api->ReleaseValue(input);
        app.api->ReleaseRunOptions(run_options);
        app.api->ReleaseSyncStream(stream);
        app.api->ReleaseSession(session);
    }

    /* Known keys only: no warning about options. */
    const char *good_keys[] = {"device_index"}, *good_values[] = {"0"};
    session = relu_session(&app, device, good_keys, good_values, 1, log, sizeof(log));
    CHECK(session != NULL && strstr(log, "is not an ortvk option") == NULL, "known keys raise no warning");
    if (session) app.api->ReleaseSession(session);
    return test_finish(&app, "test_ep_options");
}
