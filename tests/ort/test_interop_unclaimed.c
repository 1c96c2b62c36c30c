/* A session of which ortvk claims no node (Hardmax: ORT's CPU EP runs it), run with an ortvk stream in its run options
 * (RunOptionsSetSyncStream), as the README shows. The run happens in a child process, so that a crash inside ONNX
 * Runtime is a test failure, not the end of the test. Also checks that session creation warns about it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_util.h"

#define N 12
static const int64_t shape[2] = {3, 4};

/* The run, in the child: 0 when the output is right, 1 when it is wrong or Run failed, a signal when it crashed. */
static int run_with_stream(ortapp *app, const OrtEpDevice *device, OrtSession *session, bool device_input,
                           bool set_stream)
{
    OrtSyncStream *stream = NULL;
    if (!ORT_OK(app, app->api->CreateSyncStreamForEpDevice(device, NULL, &stream))) return 1;
    OrtRunOptions *run_options = NULL;
    if (!ORT_OK(app, app->api->CreateRunOptions(&run_options))) return 1;
    if (set_stream) app->api->RunOptionsSetSyncStream(run_options, stream);
    float x[N];
    for (int i = 0; i < N; i++) x[i] = (float)i * 0.25f - 1.5f;
    OrtValue *hx = test_host_tensor(app, x, N, 2, shape), *input = hx;
    if (device_input) {
        input = test_device_tensor(app, device, 2, shape);
        if (input == NULL || !ORT_OK(app, test_copy(app, hx, input, NULL))) return 1;
    }
    const char *in_names[] = {"x"}, *out_names[] = {"z"};
    OrtValue *output = NULL;
    int wrong = N;
    OrtStatus *status = app->api->Run(session, run_options, in_names, (const OrtValue *const *)&input, 1, out_names,
                                      1, &output);
    if (ORT_OK(app, status)) {
        float *data = NULL;
        ORT_OK(app, app->api->GetTensorMutableData(output, (void **)&data));
        wrong = 0;
        /* x rises along each row: Hardmax marks its last element. */
        for (int i = 0; i < N && data != NULL; i++) wrong += data[i] != (i % shape[1] == shape[1] - 1 ? 1.0f : 0.0f);
        CHECK(data != NULL && wrong == 0, "Hardmax output: %d of %d wrong", wrong, N);
        app->api->ReleaseValue(output);
    }
    if (input != hx) app->api->ReleaseValue(input);
    app->api->ReleaseValue(hx);
    app->api->ReleaseRunOptions(run_options);
    app->api->ReleaseSyncStream(stream);
    return test_failures == 0 ? 0 : 1;
}

/* Runs this program (`self`, argv[0]) again as "run host|device": a fresh process, since forking one that has
 * Vulkan and ORT threads would copy their locks mid-use (not /proc/self/exe: under valgrind that is valgrind). */
static void check_in_child(const char *self, bool device_input)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        execl(self, self, "run", device_input ? "device" : "host", (char *)NULL);
        _exit(127);
    }
    int wstatus = 0;
    if (!CHECK(pid > 0 && waitpid(pid, &wstatus, 0) == pid, "fork/wait")) return;
    const char *what = device_input ? "input in ortvk memory" : "input in host memory";
    if (WIFSIGNALED(wstatus)) {
        CHECK(0, "Run with the stream in its run options (%s) crashed the process: signal %d (%s)", what,
              WTERMSIG(wstatus), strsignal(WTERMSIG(wstatus)));
    } else {
        CHECK(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0, "Run with the stream (%s) failed (exit %d)", what,
              WEXITSTATUS(wstatus));
    }
}

/* The Hardmax session; *stderr_text (when not NULL) receives what ORT and ortvk logged while creating it. */
static OrtSession *make_session(ortapp *app, const OrtEpDevice *device, char *stderr_text, size_t size)
{
    uint8_t *model = NULL;
    size_t len = 0;
    if (!CHECK(test_model_one_op("Hardmax", 1, 2, shape, &model, &len) == 0, "build Hardmax model")) return NULL;
    FILE *capture = stderr_text ? tmpfile() : NULL;
    int saved = -1;
    if (capture != NULL) {
        fflush(stderr);
        saved = dup(2);
        dup2(fileno(capture), 2);
    }
    OrtSession *session = test_session(app, device, model, len, NULL, NULL, 0);
    if (capture != NULL) {
        fflush(stderr);
        dup2(saved, 2);
        close(saved);
        rewind(capture);
        size_t n = fread(stderr_text, 1, size - 1, capture);
        stderr_text[n] = '\0';
        fclose(capture);
        fputs(stderr_text, stderr); /* still shown in the test's log */
    }
    free(model);
    return session;
}

int main(int argc, char **argv)
{
    ortapp app;
    const OrtEpDevice *device = NULL;
    test_open(&app, &device);
    if (argc == 3 && strcmp(argv[1], "run") == 0) {
        OrtSession *session = make_session(&app, device, NULL, 0);
        int rc = session ? run_with_stream(&app, device, session, strcmp(argv[2], "device") == 0, true) : 1;
        if (session) app.api->ReleaseSession(session);
        ortapp_close(&app);
        return rc;
    }
    static char log[65536];
    OrtSession *session = make_session(&app, device, log, sizeof(log));
    if (session != NULL) {
        const OrtEpDevice *consumer = NULL;
        ORT_OK(&app, app.api->SessionGetEpDeviceForInputs(session, &consumer, 1));
        if (consumer == device) {
            printf("SKIP: ortvk now claims Hardmax; this test needs an op ortvk leaves to the CPU EP\n");
            app.api->ReleaseSession(session);
            ortapp_close(&app);
            return 77;
        }
        app.api->ReleaseSession(session);
    }
    /* At ORT's default log level (WARNING) the application hears that its stream cannot go into the run options. */
    CHECK(strstr(log, "claims none of the 1 nodes of this model's main graph") != NULL,
          "session creation warns that ortvk claims no node");
    check_in_child(argv[0], false);
    check_in_child(argv[0], true);
    return test_finish(&app, "test_interop_unclaimed");
}
