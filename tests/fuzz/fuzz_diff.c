/* The differential fuzzer: runs generated one-node models (diff_gen.c) on a session with ortvk appended and on ORT's
 * CPU EP alone, and reports crashes, hangs, wrong answers, unclear errors and sanitizer/validation reports.
 *
 * The parent never loads ONNX Runtime: it starts workers (this program again, --worker) that each run a batch of
 * cases and report every case on their stdout/stderr pipe ("@@B i" before, "@@E i verdict ..." after); whatever
 * else the worker prints between the two (a validation message, a sanitizer report) belongs to that case. A worker
 * that dies inside a case, or overruns the timeout in one of its sessions ("@@P c" the CPU EP's, "@@P v" ortvk's,
 * each timed on its own), pins that case as a crash or a hang; the parent starts a new
 * worker for the rest of the batch. When --seconds is up, the parent hands out no more cases: it closes each
 * worker's stdin (a pipe), which a worker checks before each case, so that it ends after its current one; a worker
 * still in a case STOP_GRACE seconds later is killed and its case counted as cut off, not as a hang. The summary
 * names the slowest cases (a device that builds its pipelines slowly shows there).
 *
 *   fuzz_diff [--seed S] [--cases N] [--first I] [--seconds T] [--jobs J] [--batch B] [--timeout T] [--op NAME]
 *             [--all] [--fail-on-unclear]      a session (the summary and every finding on stdout)
 *   fuzz_diff --seed S --case I [--write-model DIR] [--verbose]   one case in this process, described in full
 *             (--verbose: ORT's verbose log too, where ortvk says why it leaves a node to the CPU EP)
 * Case i exercises op i % (number of ops); --op keeps only that op's indices, so a case keeps its number. --all
 * also runs the cases the known-open list (diff_known.c) excludes. Exit 0 when no crash, hang, wrong answer or
 * sanitizer/validation report was found (unclear errors too with --fail-on-unclear), 1 otherwise. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "diff_gen.h"
#include "diff_known.h"
#include "kernel_check.h"
#include "ortvk.h"

/* Seconds a worker gets to end its current case once --seconds is up, before it is killed. */
#define STOP_GRACE 5.0
#define SLOWEST 5

/* Verdicts. The first ones are fine; from V_UNCLEAR on they are findings, from V_WRONG on they fail a session (a
 * wrong answer is a different type, shape or value). */
enum {
    V_MATCH,     /* ran on ortvk, same answer */
    V_REFUSED,   /* ortvk took no node: the CPU EP ran it */
    V_BOTH_FAIL, /* both failed (an invalid model) */
    V_CLEAR,     /* ortvk failed with a message naming the field, the CPU EP ran it */
    V_EXCLUDED,  /* a known-open finding (diff_known.c), not run */
    V_SKIP,      /* the generator could not build it */
    V_UNCLEAR,   /* ortvk failed (session or run) with a message that names nothing of the case */
    V_LENIENT,   /* ortvk ran a node the CPU EP rejects (an invalid model got an answer) */
    V_REF_CRASH, /* the CPU EP alone crashed or hung (ORT's own problem; under ASan a huge C++ allocation) */
    V_WRONG,
    V_CRASH,
    V_HANG,
    V_REPORT, /* a sanitizer or validation-layer report */
    V_COUNT
};
static const char *const verdict_names[V_COUNT] = {"match", "refused", "both-fail", "clear-error", "excluded",
                                                   "skipped", "unclear-error", "lenient", "reference-crash/hang",
                                                   "wrong-answer", "crash", "hang", "sanitizer/validation"};

typedef struct options {
    uint64_t seed;
    long first, cases, one_case;
    double seconds, timeout;
    int jobs, batch, op;
    bool all, worker, fail_on_unclear, verbose;
    const char *write_model, *list;
} options;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- one case (worker side) ------------------------------------------------------------------------------- */

static OrtValue *tensor_value(ortapp *app, dc_tensor *t)
{
    OrtMemoryInfo *cpu = NULL;
    OrtValue *v = NULL;
    if (!ORT_OK(app, app->api->CreateCpuMemoryInfo(OrtDeviceAllocator, OrtMemTypeDefault, &cpu))) return NULL;
    OrtStatus *s = app->api->CreateTensorWithDataAsOrtValue(cpu, t->data, t->bytes, t->dims, (size_t)t->rank,
                                                            (ONNXTensorElementDataType)t->type, &v);
    if (s) app->api->ReleaseStatus(s);
    app->api->ReleaseMemoryInfo(cpu);
    return v;
}

/* One line: newlines and control characters become spaces, at most `len` - 1 bytes. */
static void one_line(char *dst, size_t len, const char *src)
{
    size_t i = 0;
    for (; src && src[i] && i + 1 < len; i++) dst[i] = (unsigned char)src[i] < 32 ? ' ' : src[i];
    dst[i] = '\0';
}

/* A message that names the case's op, one of its attributes or inputs, or a dimension/shape with a number. */
static bool clear_message(const dcase *c, const char *message)
{
    const char *m = strstr(message, "Status Message:");
    m = m ? m : message;
    bool digit = strpbrk(m, "0123456789") != NULL;
    if (!digit) return false;
    if (strstr(m, c->op_name)) return true;
    for (int i = 0; i < c->n_attr; i++)
        if (strstr(m, c->attr[i].name)) return true;
    static const char *const words[] = {"shape", "dim", "axis", "axes", "input", "output", "size", "rank", "limit",
                                        "exceed", "too large", "overflow"};
    for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
        if (strstr(m, words[i])) return true;
    return false;
}

typedef struct run_result {
    OrtStatus *error;
    OrtValue *out[DC_MAX_OUT];
} run_result;

static void run_session(ortapp *app, OrtSession *session, dcase *c, run_result *r)
{
    OrtValue *in[DC_MAX_IN] = {0};
    const char *in_names[DC_MAX_IN], *out_names[DC_MAX_OUT];
    for (int i = 0; i < c->n_in; i++) {
        in[i] = tensor_value(app, &c->in[i]);
        in_names[i] = c->in[i].name;
    }
    for (int i = 0; i < c->n_out; i++) out_names[i] = c->out[i];
    r->error = app->api->Run(session, NULL, in_names, (const OrtValue *const *)in, (size_t)c->n_in, out_names,
                             (size_t)c->n_out, r->out);
    for (int i = 0; i < c->n_in; i++)
        if (in[i]) app->api->ReleaseValue(in[i]);
}

static void release_result(ortapp *app, run_result *r)
{
    if (r->error) app->api->ReleaseStatus(r->error);
    for (int i = 0; i < DC_MAX_OUT; i++)
        if (r->out[i]) app->api->ReleaseValue(r->out[i]);
    memset(r, 0, sizeof(*r));
}

/* Element type, rank and dims of a tensor value. */
static bool value_shape(ortapp *app, OrtValue *v, int32_t *type, size_t *rank, int64_t *dims)
{
    OrtTensorTypeAndShapeInfo *info = NULL;
    if (app->api->GetTensorTypeAndShape(v, &info) != NULL) return false;
    ONNXTensorElementDataType t;
    app->api->GetTensorElementType(info, &t);
    app->api->GetDimensionsCount(info, rank);
    if (*rank > 16) *rank = 16;
    app->api->GetDimensions(info, dims, *rank);
    app->api->ReleaseTensorTypeAndShapeInfo(info);
    *type = (int32_t)t;
    return true;
}

/* Compares ortvk's outputs with the CPU EP's: type, shape, values. 0 when they match; else `why`. */
static int compare(ortapp *app, const dcase *cpu_case, const run_result *want, const run_result *got, char *why,
                   size_t why_len)
{
    for (int o = 0; o < cpu_case->n_out; o++) {
        int32_t wt, gt;
        size_t wr, gr;
        int64_t wd[16], gd[16];
        if (!value_shape(app, want->out[o], &wt, &wr, wd) || !value_shape(app, got->out[o], &gt, &gr, gd)) {
            snprintf(why, why_len, "%s: no tensor", cpu_case->out[o]);
            return 1;
        }
        bool half = cpu_case->half && wt == ONNX_FLOAT && gt == ONNX_FLOAT16;
        if ((wt != gt && !half) || wr != gr || memcmp(wd, gd, wr * sizeof(int64_t)) != 0) {
            char ws[128] = "", gs[128] = "";
            for (size_t i = 0; i < wr; i++)
                snprintf(ws + strlen(ws), sizeof(ws) - strlen(ws), "%s%lld", i ? "," : "", (long long)wd[i]);
            for (size_t i = 0; i < gr; i++)
                snprintf(gs + strlen(gs), sizeof(gs) - strlen(gs), "%s%lld", i ? "," : "", (long long)gd[i]);
            snprintf(why, why_len, "%s: type %d shape [%s], want type %d shape [%s]", cpu_case->out[o], gt, gs, wt, ws);
            return 1;
        }
        size_t wb = 0, gb = 0;
        void *w = kc_host_data(app, want->out[o], &wb), *g = kc_host_data(app, got->out[o], &gb);
        int bad = 0;
        if (w == NULL || g == NULL) {
            snprintf(why, why_len, "%s: could not read the output", cpu_case->out[o]);
            bad = 1;
        } else {
            double rtol = 1e-3, atol = cpu_case->atol;
            if (half) { /* both as float: ortvk's float16, and the CPU's float rounded to float16 once */
                size_t n = wb / sizeof(float);
                float *gf = malloc(n * sizeof(float) + 4), *wf = w;
                for (size_t i = 0; i < n; i++) {
                    gf[i] = kc_half_to_float(((const uint16_t *)g)[i]);
                    wf[i] = kc_half_to_float(kc_float_to_half(wf[i]));
                }
                free(g);
                g = gf;
                gb = wb;
                rtol += 0x1p-10;
                atol += 1e-4;
            }
            onnx_tensor expected = {.elem_type = wt, .data = w, .data_bytes = wb};
            char detail[256];
            if (gb != wb) {
                snprintf(why, why_len, "%s: %zu bytes, want %zu", cpu_case->out[o], gb, wb);
                bad = 1;
            } else if (kc_compare(&expected, g, rtol, atol, detail, sizeof(detail)) != 0) {
                snprintf(why, why_len, "%s: %s", cpu_case->out[o], detail);
                bad = 1;
            }
        }
        free(w);
        free(g);
        if (bad) return 1;
    }
    return 0;
}

static const char *status_message(ortapp *app, OrtStatus *s) { return s ? app->api->GetErrorMessage(s) : ""; }

/* Whether ortvk's kernels take their GPU forms on `device` (docs/kernels.md, "Forms per device"): as
 * ORTVK_KERNEL_FORMS says, else unless the device is a CPU. Some sums then run in another order than MLAS's. */
static bool gpu_forms(ortapp *app, const OrtEpDevice *device)
{
    const char *forms = getenv("ORTVK_KERNEL_FORMS");
    if (forms != NULL && forms[0] != '\0') return strcmp(forms, "gpu") == 0;
    return !kc_device_is_cpu(app, device);
}

/* Runs case `index`: the verdict, how many nodes ran on ortvk, and a one-line detail. */
static int run_case(ortapp *app, const OrtEpDevice *device, const options *o, long index, size_t *on_ortvk,
                    char *detail, size_t detail_len, dcase *cpu)
{
    dcase vkside, *vk = cpu;
    int verdict = V_SKIP;
    uint8_t *cpu_model = NULL, *vk_model = NULL;
    size_t cpu_len = 0, vk_len = 0;
    OrtSession *cpu_session = NULL, *vk_session = NULL;
    run_result want = {0}, got = {0};
    OrtStatus *error = NULL;
    *on_ortvk = 0;
    detail[0] = '\0';
    dc_build(cpu, o->seed, index, false);
    cpu->gpu_forms = gpu_forms(app, device);
    cpu->flushes_subnormals = kc_device_flushes_subnormals(app, device);
    if (!o->all) {
        int known = dc_known_match(cpu);
        if (known >= 0) {
            snprintf(detail, detail_len, "%d", known);
            dc_free(cpu);
            return V_EXCLUDED;
        }
    }
    if (cpu->half) {
        vk = &vkside;
        dc_build(vk, o->seed, index, true);
    }
    if (cpu->failed || vk->failed || onnx_model_serialize(cpu->model, &cpu_model, &cpu_len) != ONNX_OK ||
        onnx_model_serialize(vk->model, &vk_model, &vk_len) != ONNX_OK) {
        snprintf(detail, detail_len, "the generator could not build it");
        goto done;
    }
    if (o->write_model) {
        char path[512];
        snprintf(path, sizeof(path), "%s/case-%llu-%ld.onnx", o->write_model, (unsigned long long)o->seed, index);
        FILE *f = fopen(path, "wb");
        if (f) {
            fwrite(vk_model, 1, vk_len, f);
            fclose(f);
            printf("model: %s\n", path);
        }
    }
    if (o->worker) say("@@P c\n");
    cpu_session = kc_session(app, NULL, cpu_model, cpu_len, false, false, &error);
    if (cpu_session) run_session(app, cpu_session, cpu, &want);
    else want.error = error;
    error = NULL;
    bool cpu_ok = want.error == NULL;
    if (o->worker) say("@@P v\n");
    vk_session = kc_session(app, device, vk_model, vk_len, false, true, &error);
    if (vk_session == NULL) {
        char m[400];
        one_line(m, sizeof(m), status_message(app, error));
        verdict = !cpu_ok ? V_BOTH_FAIL : clear_message(cpu, m) ? V_CLEAR : V_UNCLEAR;
        snprintf(detail, detail_len, "session with ortvk: %s", m);
        app->api->ReleaseStatus(error);
        goto done;
    }
    size_t other = 0;
    if (kc_assignment(app, vk_session, on_ortvk, &other, NULL, 0, NULL, 0) != 0 || *on_ortvk == 0) {
        verdict = cpu_ok ? V_REFUSED : V_BOTH_FAIL;
        goto done;
    }
    run_session(app, vk_session, vk, &got);
    if (got.error) {
        char m[400];
        one_line(m, sizeof(m), status_message(app, got.error));
        verdict = !cpu_ok ? V_BOTH_FAIL : clear_message(cpu, m) ? V_CLEAR : V_UNCLEAR;
        snprintf(detail, detail_len, "run on ortvk: %s", m);
        goto done;
    }
    if (!cpu_ok) {
        char m[300];
        one_line(m, sizeof(m), status_message(app, want.error));
        verdict = V_LENIENT;
        snprintf(detail, detail_len, "ortvk ran it; the CPU EP: %s", m);
        goto done;
    }
    char why[400];
    verdict = compare(app, cpu, &want, &got, why, sizeof(why)) ? V_WRONG : V_MATCH;
    if (verdict == V_WRONG) snprintf(detail, detail_len, "%s", why);
done:
    release_result(app, &want);
    release_result(app, &got);
    if (vk_session) app->api->ReleaseSession(vk_session);
    if (cpu_session) app->api->ReleaseSession(cpu_session);
    free(cpu_model);
    free(vk_model);
    if (vk != cpu) dc_free(vk);
    dc_free(cpu);
    return verdict;
}

static void say(const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n >= sizeof(line)) n = sizeof(line) - 1, line[n - 1] = '\n';
    for (ssize_t w = 0; w < n;) {
        ssize_t k = write(1, line + w, (size_t)(n - w));
        if (k <= 0) break;
        w += k;
    }
}

/* Whether the parent asks this worker to stop: it closed the worker's stdin (or wrote to it). */
static bool asked_to_stop(void)
{
    struct pollfd p = {.fd = 0, .events = POLLIN};
    return poll(&p, 1, 0) > 0;
}

/* A worker: the cases of --list, each framed by @@B and @@E lines, until its stdin is closed. */
static int worker_main(const options *o)
{
    ortapp app;
    const OrtEpDevice *device = NULL;
    char error[512];
    if (ortapp_open(&app, NULL, ORT_LOGGING_LEVEL_ERROR, error, sizeof(error)) != 0) {
        say("SKIP: %s\n", error);
        return 77;
    }
    if (!ORT_OK(&app, ortapp_register(&app, NULL)) || ortapp_devices(&app, &device, 1) != 1) {
        say("@@X no ortvk device\n");
        return 1;
    }
    /* A session kept open for the worker's life keeps ortvk's device and its pipelines (created on first use,
     * released with the last session) from being made again for every case. */
    OrtSession *keeper = NULL;
    uint8_t *model = NULL;
    size_t len = 0;
    int64_t dims[1] = {4};
    onnx_model *m = onnx_model_new(13); /* Relu of opset 13: an op and opset ortvk claims */
    static const char *const x[] = {"x"}, *const y[] = {"y"};
    onnx_model_add_input(m, "x", ONNX_FLOAT, 1, dims);
    onnx_model_add_output(m, "y", ONNX_FLOAT, 1, dims);
    onnx_model_add_node(m, "Relu", x, 1, y, 1);
    if (onnx_model_serialize(m, &model, &len) == ONNX_OK) {
        OrtStatus *e = NULL;
        keeper = kc_session(&app, device, model, len, false, false, &e);
        if (e) app.api->ReleaseStatus(e);
    }
    onnx_model_free(m);
    free(model);
    for (const char *p = o->list; p && *p && !asked_to_stop();) {
        char *end;
        long index = strtol(p, &end, 10);
        if (end == p) break;
        say("@@B %ld\n", index);
        double t0 = now();
        size_t on = 0;
        char detail[600];
        dcase c;
        int v = run_case(&app, device, o, index, &on, detail, sizeof(detail), &c);
        say("@@E %ld %d %zu %.0f %s\n", index, v, on, (now() - t0) * 1000, detail);
        p = *end == ',' ? end + 1 : end;
    }
    if (keeper) app.api->ReleaseSession(keeper);
    ortapp_close(&app);
    return 0;
}

/* --case: one case here, in full. */
static int one_case(const options *o)
{
    ortapp app;
    const OrtEpDevice *device = NULL;
    char error[512];
    OrtLoggingLevel level = o->verbose ? ORT_LOGGING_LEVEL_VERBOSE : ORT_LOGGING_LEVEL_WARNING;
    if (ortapp_open(&app, NULL, level, error, sizeof(error)) != 0) {
        printf("SKIP: %s\n", error);
        return 77;
    }
    if (!ORT_OK(&app, ortapp_register(&app, NULL)) || ortapp_devices(&app, &device, 1) != 1) return 1;
    dcase c;
    dc_build(&c, o->seed, o->one_case, false);
    printf("case %ld of seed %llu: %s\n", o->one_case, (unsigned long long)o->seed, c.desc);
    dc_free(&c);
    size_t on = 0;
    char detail[600];
    double t0 = now();
    int v = run_case(&app, device, o, o->one_case, &on, detail, sizeof(detail), &c);
    if (v == V_EXCLUDED) {
        int k = atoi(detail);
        snprintf(detail, sizeof(detail), "known: %s (%s); --all runs it", dc_known_findings[k].reason,
                 dc_known_findings[k].when);
    }
    printf("verdict: %s (%zu node(s) on ortvk, %.0f ms)%s%s\n", verdict_names[v], on, (now() - t0) * 1000,
           detail[0] ? ": " : "", detail);
    ortapp_close(&app);
    return v >= V_WRONG || (o->fail_on_unclear && v >= V_UNCLEAR) ? 1 : 0;
}

/* ---- the session (parent side) ---------------------------------------------------------------------------- */

typedef struct finding {
    int verdict;
    long index;
    char detail[700];
} finding;

typedef struct worker {
    pid_t pid;
    int fd;
    int stop_fd;  /* the write end of its stdin: closed (-1) to ask it to end after its current case */
    long *cases;  /* its batch */
    int n, done;  /* cases, and how many have ended */
    long current; /* the case begun and not ended, or -1 */
    char phase;   /* of the current case: 'c' the CPU EP alone, 'v' the session with ortvk */
    double since, phase_since; /* the case's start, its phase's: each session has --timeout of its own, so that a
                                  CPU EP slow on a huge output does not count as ortvk's hang */
    int report;   /* a sanitizer/validation line seen in the current case */
    char report_line[400];
    char buf[8192];
    size_t len;
    char tail[8][300]; /* its last lines of other output */
    int tail_n;
} worker;

/* A case and how long it ran (ms), and in which session ('c' the CPU EP's, 'v' ortvk's; 0 not known). */
typedef struct timed {
    long index;
    double ms;
    char phase;
} timed;

typedef struct session {
    const options *o;
    long *queue;
    long n_queue, next;
    long count[V_COUNT];
    long *per_op; /* [op][verdict] */
    long *placed; /* cases with a node on ortvk, per op */
    long *known;  /* excluded, per known entry */
    finding *findings;
    int n_findings, cap_findings;
    double ms_total;
    long ended;
    const char *self;
    bool stopping;          /* --seconds is up: no more cases begin */
    long unrun;             /* cases never begun, or cut off, for that */
    timed cut[64];          /* cases in flight when their worker was killed, STOP_GRACE after that */
    int n_cut;
    timed slowest[SLOWEST]; /* the slowest cases that ended, slowest first */
    int n_slowest;
} session;

static bool fatal_line(const char *line)
{
    return strstr(line, "runtime error:") || strstr(line, "ERROR: AddressSanitizer") ||
           strstr(line, "ERROR: LeakSanitizer") || strstr(line, "VUID-") || strstr(line, "Validation Error");
}

static void add_finding(session *s, int verdict, long index, const char *detail)
{
    if (s->n_findings == s->cap_findings) {
        s->cap_findings = s->cap_findings ? 2 * s->cap_findings : 64;
        s->findings = realloc(s->findings, (size_t)s->cap_findings * sizeof(finding));
    }
    finding *f = &s->findings[s->n_findings++];
    f->verdict = verdict;
    f->index = index;
    snprintf(f->detail, sizeof(f->detail), "%s", detail);
}

static void count(session *s, long index, int verdict, size_t on_ortvk)
{
    size_t op = (size_t)index % dc_op_count();
    s->count[verdict]++;
    s->per_op[op * V_COUNT + (size_t)verdict]++;
    if (on_ortvk) s->placed[op]++;
    s->ended++;
}

/* Keeps the SLOWEST slowest cases that ended. */
static void note_slow(session *s, long index, double ms)
{
    int at = s->n_slowest;
    while (at > 0 && s->slowest[at - 1].ms < ms) at--;
    if (at >= SLOWEST) return;
    if (s->n_slowest < SLOWEST) s->n_slowest++;
    memmove(&s->slowest[at + 1], &s->slowest[at], (size_t)(s->n_slowest - 1 - at) * sizeof(timed));
    s->slowest[at] = (timed){.index = index, .ms = ms};
}

static void print_finding(const session *s, const finding *f)
{
    dcase c;
    dc_build(&c, s->o->seed, f->index, false);
    say("FINDING %s: case %ld: %s\n  %s\n  rerun: %s --seed %llu --case %ld\n", verdict_names[f->verdict], f->index,
        c.desc, f->detail, s->self, (unsigned long long)s->o->seed, f->index);
    dc_free(&c);
}

static void worker_start(session *s, worker *w, long *cases, int n)
{
    memset(w, 0, sizeof(*w));
    w->cases = cases;
    w->n = n;
    w->current = -1;
    w->since = now();
    size_t len = (size_t)n * 24 + 1;
    char *list = malloc(len);
    list[0] = '\0';
    for (int i = 0; i < n; i++) snprintf(list + strlen(list), len - strlen(list), "%s%ld", i ? "," : "", cases[i]);
    char seed[32];
    snprintf(seed, sizeof(seed), "%llu", (unsigned long long)s->o->seed);
    /* Both pipes close on exec: another worker holding this one's stop_fd would keep its stdin open. */
    int p[2], q[2];
    if (pipe(p) != 0 || pipe(q) != 0) {
        perror("pipe");
        exit(2);
    }
    for (int i = 0; i < 2; i++) fcntl(p[i], F_SETFD, FD_CLOEXEC), fcntl(q[i], F_SETFD, FD_CLOEXEC);
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        dup2(q[0], 0);
        dup2(p[1], 1);
        dup2(p[1], 2);
        const char *argv[10] = {s->self, "--worker", "--seed", seed, "--list", list, NULL, NULL};
        if (s->o->all) argv[6] = "--all";
        execv("/proc/self/exe", (char *const *)argv);
        _exit(127);
    }
    free(list);
    close(p[1]);
    close(q[0]);
    w->pid = pid;
    w->fd = p[0];
    w->stop_fd = q[1];
}

/* A worker's line. */
static void worker_line(session *s, worker *w, char *line)
{
    if (strncmp(line, "@@B ", 4) == 0) {
        w->current = strtol(line + 4, NULL, 10);
        w->since = w->phase_since = now();
        w->report = 0;
        w->phase = 0;
        return;
    }
    if (strncmp(line, "@@P ", 4) == 0) {
        w->phase = line[4];
        w->phase_since = now();
        return;
    }
    if (strncmp(line, "@@E ", 4) == 0) {
        char *p = line + 4;
        long index = strtol(p, &p, 10);
        int v = (int)strtol(p, &p, 10);
        size_t on = (size_t)strtoul(p, &p, 10);
        double ms = strtod(p, &p);
        if (*p == ' ') p++;
        if (v < 0 || v >= V_COUNT) v = V_SKIP;
        if (w->report && v != V_EXCLUDED) {
            char d[700];
            snprintf(d, sizeof(d), "%s (the case's own verdict: %s %s)", w->report_line, verdict_names[v], p);
            v = V_REPORT;
            add_finding(s, v, index, d);
        } else if (v == V_EXCLUDED) {
            int k = atoi(p);
            if (k >= 0 && (size_t)k < dc_known_count) s->known[k]++;
        } else if (v >= V_UNCLEAR) {
            add_finding(s, v, index, p);
        }
        count(s, index, v, on);
        s->ms_total += ms;
        note_slow(s, index, ms);
        w->current = -1;
        w->done++;
        return;
    }
    if (fatal_line(line)) {
        if (w->current >= 0 && !w->report) {
            w->report = 1;
            one_line(w->report_line, sizeof(w->report_line), line);
        } else if (w->current < 0) {
            add_finding(s, V_REPORT, w->done < w->n ? w->cases[w->done] : w->cases[w->n - 1], line);
        }
    }
    one_line(w->tail[w->tail_n % 8], sizeof(w->tail[0]), line);
    w->tail_n++;
}

/* The worker has ended (EOF) or overrun: a case in flight is a crash or hang; the rest of its batch is requeued
 * to a fresh worker. `cut`: killed STOP_GRACE after --seconds was up; a case in flight is cut off, not a hang. */
static void worker_end(session *s, worker *w, bool hung, bool cut)
{
    if (hung || cut) kill(-w->pid, SIGKILL), kill(w->pid, SIGKILL);
    int status = 0;
    waitpid(w->pid, &status, 0);
    close(w->fd);
    w->fd = -1;
    if (w->stop_fd >= 0) close(w->stop_fd);
    w->stop_fd = -1;
    if (cut && w->current >= 0) {
        if (s->n_cut < (int)(sizeof(s->cut) / sizeof(s->cut[0])))
            s->cut[s->n_cut++] = (timed){.index = w->current, .ms = (now() - w->since) * 1000, .phase = w->phase};
        s->unrun++;
        w->done++;
    } else if (w->current >= 0) {
        char d[700] = "";
        if (hung) snprintf(d, sizeof(d), "no answer within %.0f s", s->o->timeout);
        else if (WIFSIGNALED(status)) snprintf(d, sizeof(d), "signal %d", WTERMSIG(status));
        else snprintf(d, sizeof(d), "exit %d", WEXITSTATUS(status));
        /* what it printed last: a sanitizer's summary says where */
        for (int i = w->tail_n > 8 ? w->tail_n - 8 : 0; i < w->tail_n; i++) {
            const char *t = w->tail[i % 8];
            if (strstr(t, "SUMMARY") || strstr(t, "runtime error") || strstr(t, "ERROR:") || strstr(t, "Assert"))
                snprintf(d + strlen(d), sizeof(d) - strlen(d), "; %s", t);
        }
        if (w->report) snprintf(d + strlen(d), sizeof(d) - strlen(d), "; %s", w->report_line);
        int v = w->phase == 'c' ? V_REF_CRASH : hung ? V_HANG : V_CRASH;
        if (v == V_REF_CRASH)
            snprintf(d + strlen(d), sizeof(d) - strlen(d), " (%s in the CPU EP's session)", hung ? "hang" : "crash");
        add_finding(s, v, w->current, d);
        count(s, w->current, v, 0);
        w->done++;
    } else if (!cut && (hung || WIFSIGNALED(status) || (WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != 77))) {
        /* died or hung outside a case (starting up, or at exit: LeakSanitizer) */
        char d[700];
        snprintf(d, sizeof(d), "worker of cases %ld..%ld ended with %s %d; last output: %s", w->cases[0],
                 w->cases[w->n - 1], WIFSIGNALED(status) ? "signal" : "exit",
                 WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status),
                 w->tail_n ? w->tail[(w->tail_n - 1) % 8] : "");
        add_finding(s, V_REPORT, w->cases[w->done < w->n ? w->done : w->n - 1], d);
        if (w->done < w->n) { /* never began the rest: count them once, here, to avoid a loop */
            for (int i = w->done; i < w->n; i++) count(s, w->cases[i], V_SKIP, 0);
            w->done = w->n;
        }
    } else if (WIFEXITED(status) && WEXITSTATUS(status) == 77) {
        say("SKIP: the worker found no ONNX Runtime\n");
        exit(77);
    }
    if (w->done < w->n && !s->stopping) {
        long *rest = w->cases + w->done;
        int n = w->n - w->done;
        worker_start(s, w, rest, n);
    } else {
        s->unrun += w->n - w->done; /* never begun: --seconds was up */
        w->pid = 0;
    }
}

static int session_main(options *o, const char *self)
{
    session s = {.o = o, .self = self};
    size_t n_ops = dc_op_count();
    s.per_op = calloc(n_ops * V_COUNT, sizeof(long));
    s.placed = calloc(n_ops, sizeof(long));
    s.known = calloc(dc_known_count + 1, sizeof(long));
    s.queue = malloc((size_t)o->cases * sizeof(long));
    /* Grouped by op (the cases of op 0 first, ...): a worker's batch then reuses the pipelines that ortvk creates
     * for an op on first use, which costs 100-300 ms each on lavapipe. */
    long last = o->first;
    for (long i = o->first, n = 0; n < o->cases; i++)
        if (o->op < 0 || (size_t)i % n_ops == (size_t)o->op) n++, last = i;
    for (size_t op = 0; op < n_ops; op++)
        for (long i = o->first; i <= last; i++)
            if ((size_t)i % n_ops == op && (o->op < 0 || op == (size_t)o->op)) s.queue[s.n_queue++] = i;
    say("fuzz_diff: seed %llu, %ld cases from %ld%s%s, %d workers, batches of %d, timeout %.0f s%s\n",
        (unsigned long long)o->seed, o->cases, o->first, o->op >= 0 ? " of " : "",
        o->op >= 0 ? dc_op_name((size_t)o->op) : "", o->jobs, o->batch, o->timeout,
        o->all ? ", known findings included" : "");
    worker *workers = calloc((size_t)o->jobs, sizeof(worker));
    double t0 = now(), last_progress = t0, stop_at = 0;
    for (;;) {
        if (!s.stopping && o->seconds > 0 && now() - t0 > o->seconds) {
            /* No case begins from now on: the batches not handed out are dropped, and each worker ends after its
             * current case (its stdin closed), or is killed STOP_GRACE seconds from now. */
            s.stopping = true;
            stop_at = now();
            s.unrun += s.n_queue - s.next;
            s.next = s.n_queue;
            for (int j = 0; j < o->jobs; j++) {
                worker *w = &workers[j];
                if (w->pid != 0 && w->stop_fd >= 0) close(w->stop_fd), w->stop_fd = -1;
            }
            say("  --seconds %.0f is up: %ld/%ld cases ended; the workers end their current case (%.0f s at most)\n",
                o->seconds, s.ended, s.n_queue, STOP_GRACE);
        }
        int active = 0;
        for (int j = 0; j < o->jobs; j++) {
            worker *w = &workers[j];
            if (w->pid == 0 && !s.stopping && s.next < s.n_queue) {
                int n = (int)(s.n_queue - s.next < o->batch ? s.n_queue - s.next : o->batch);
                worker_start(&s, w, s.queue + s.next, n);
                s.next += n;
            }
            active += w->pid != 0;
        }
        if (active == 0) break;
        struct pollfd fds[64];
        int map[64], nf = 0;
        for (int j = 0; j < o->jobs && nf < 64; j++)
            if (workers[j].pid) fds[nf] = (struct pollfd){.fd = workers[j].fd, .events = POLLIN}, map[nf++] = j;
        poll(fds, (nfds_t)nf, 500);
        for (int k = 0; k < nf; k++) {
            worker *w = &workers[map[k]];
            if (fds[k].revents & (POLLIN | POLLHUP | POLLERR)) {
                ssize_t r = read(w->fd, w->buf + w->len, sizeof(w->buf) - 1 - w->len);
                if (r <= 0) {
                    if (w->len) { /* a last line without newline */
                        w->buf[w->len] = '\0';
                        worker_line(&s, w, w->buf);
                        w->len = 0;
                    }
                    worker_end(&s, w, false, false);
                    continue;
                }
                w->len += (size_t)r;
                w->buf[w->len] = '\0';
                char *start = w->buf, *nl;
                while ((nl = strchr(start, '\n')) != NULL) {
                    *nl = '\0';
                    worker_line(&s, w, start);
                    start = nl + 1;
                }
                w->len = strlen(start);
                memmove(w->buf, start, w->len + 1);
                if (w->len == sizeof(w->buf) - 1) w->len = 0; /* an endless line: dropped */
            }
            if (w->pid && w->current >= 0 && now() - w->phase_since > o->timeout) worker_end(&s, w, true, false);
            /* a worker silent outside any case for that long (starting up) is hung too */
            if (w->pid && w->current < 0 && now() - w->since > 4 * o->timeout) worker_end(&s, w, true, false);
            if (w->pid && s.stopping && now() - stop_at > STOP_GRACE) worker_end(&s, w, false, true);
        }
        if (now() - last_progress > 30) {
            last_progress = now();
            say("  %ld/%ld cases, %.0f s, %d findings\n", s.ended, s.n_queue, now() - t0, s.n_findings);
        }
    }
    double elapsed = now() - t0;
    int fatal = 0, unclear = 0;
    for (int i = 0; i < s.n_findings; i++) {
        print_finding(&s, &s.findings[i]);
        fatal += s.findings[i].verdict >= V_WRONG;
        unclear += s.findings[i].verdict < V_WRONG;
    }
    say("\nper op: cases, on ortvk, match, refused, both-fail, clear-error, excluded | unclear, lenient, reference "
        "crash, wrong, crash, hang, reports\n");
    for (size_t op = 0; op < n_ops; op++) {
        long *v = &s.per_op[op * V_COUNT], total = 0;
        for (int k = 0; k < V_COUNT; k++) total += v[k];
        if (total == 0) continue;
        say("  %-22s %5ld %5ld %5ld %5ld %5ld %5ld %5ld | %ld %ld %ld %ld %ld %ld %ld\n", dc_op_name(op), total,
            s.placed[op], v[V_MATCH], v[V_REFUSED], v[V_BOTH_FAIL], v[V_CLEAR], v[V_EXCLUDED], v[V_UNCLEAR],
            v[V_LENIENT], v[V_REF_CRASH], v[V_WRONG], v[V_CRASH], v[V_HANG], v[V_REPORT]);
    }
    if (dc_known_count)
        say("known-open findings (tests/fuzz/diff_known.c)%s:\n", o->all ? ", not excluded (--all)" : "");
    for (size_t k = 0; k < dc_known_count; k++)
        say("  %-18s %-50s %5ld excluded: %s\n", dc_known_findings[k].op, dc_known_findings[k].when, s.known[k],
            dc_known_findings[k].reason);
    long placed = 0;
    for (size_t op = 0; op < n_ops; op++) placed += s.placed[op];
    say("summary: %ld cases in %.0f s (%.1f cases/s, %.0f ms per case in the workers), %ld with the node on ortvk; ",
        s.ended, elapsed, (double)s.ended / (elapsed > 0 ? elapsed : 1), s.ended ? s.ms_total / (double)s.ended : 0,
        placed);
    for (int k = 0; k < V_COUNT; k++) say("%s %ld%s", verdict_names[k], s.count[k], k + 1 < V_COUNT ? ", " : "\n");
    if (s.n_slowest) say("slowest cases:");
    for (int i = 0; i < s.n_slowest; i++)
        say(" %ld (%s) %.0f ms%s", s.slowest[i].index, dc_op_name((size_t)s.slowest[i].index % n_ops),
            s.slowest[i].ms, i + 1 < s.n_slowest ? "," : "\n");
    if (s.stopping)
        say("time up (--seconds %.0f): %ld of %ld cases not run, %d of them cut off in flight\n", o->seconds,
            s.unrun, s.n_queue, s.n_cut);
    for (int i = 0; i < s.n_cut; i++)
        say("  cut off: case %ld (%s), %.0f ms into %s; rerun: %s --seed %llu --case %ld\n", s.cut[i].index,
            dc_op_name((size_t)s.cut[i].index % n_ops), s.cut[i].ms,
            s.cut[i].phase == 'c'   ? "the CPU EP's session"
            : s.cut[i].phase == 'v' ? "ortvk's session"
                                    : "building it",
            self, (unsigned long long)o->seed, s.cut[i].index);
    say("fuzz_diff: %s (%d failing findings, %d unclear/lenient)\n",
        fatal || (o->fail_on_unclear && unclear) ? "FAIL" : "PASS", fatal, unclear);
    free(workers);
    free(s.queue);
    free(s.per_op);
    free(s.placed);
    free(s.known);
    free(s.findings);
    return fatal || (o->fail_on_unclear && unclear) ? 1 : 0;
}

int main(int argc, char **argv)
{
    options o = {.seed = 1, .cases = 1000, .one_case = -1, .timeout = 60, .jobs = 2, .batch = 100, .op = -1};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
#define ARG(name) (strcmp(a, name) == 0 && v && (i++, 1))
        if (ARG("--seed")) o.seed = strtoull(v, NULL, 10);
        else if (ARG("--cases")) o.cases = atol(v);
        else if (ARG("--first")) o.first = atol(v);
        else if (ARG("--case")) o.one_case = atol(v);
        else if (ARG("--seconds")) o.seconds = atof(v);
        else if (ARG("--timeout")) o.timeout = atof(v);
        else if (ARG("--jobs")) o.jobs = atoi(v);
        else if (ARG("--batch")) o.batch = atoi(v);
        else if (ARG("--list")) o.list = v;
        else if (ARG("--write-model")) o.write_model = v;
        else if (ARG("--op")) {
            o.op = dc_op_index(v);
            if (o.op < 0) {
                fprintf(stderr, "fuzz_diff: no op %s\n", v);
                return 2;
            }
        } else if (!strcmp(a, "--all")) o.all = true;
        else if (!strcmp(a, "--worker")) o.worker = true;
        else if (!strcmp(a, "--fail-on-unclear")) o.fail_on_unclear = true;
        else if (!strcmp(a, "--verbose")) o.verbose = true;
        else if (!strcmp(a, "--list-ops")) {
            for (size_t k = 0; k < dc_op_count(); k++) printf("%s\n", dc_op_name(k));
            return 0;
        } else {
            fprintf(stderr, "fuzz_diff: unknown argument %s (see the header of tests/fuzz/fuzz_diff.c)\n", a);
            return 2;
        }
#undef ARG
    }
    if (o.jobs < 1) o.jobs = 1;
    if (o.jobs > 64) o.jobs = 64;
    if (o.batch < 1) o.batch = 1;
    if (o.worker) return worker_main(&o);
    if (o.one_case >= 0) return one_case(&o);
    signal(SIGPIPE, SIG_IGN);
    /* In the workers a failed allocation returns NULL, as it would without ASan (ortvk must cope); ONNX Runtime's
     * C++ allocations abort under ASan regardless, which shows as a reference crash when it is the CPU EP's. */
    const char *asan = getenv("ASAN_OPTIONS");
    if (asan == NULL || strstr(asan, "allocator_may_return_null") == NULL) {
        char value[1024];
        snprintf(value, sizeof(value), "%s%sallocator_may_return_null=1", asan ? asan : "", asan && *asan ? ":" : "");
        setenv("ASAN_OPTIONS", value, 1);
    }
    return session_main(&o, argv[0]);
}
