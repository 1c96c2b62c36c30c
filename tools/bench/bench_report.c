/* ortvk-bench's output: aligned tables with notes (default) or one JSON object (--json). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static const char *bytes_text(double bytes, char *buf, size_t len)
{
    if (bytes < 1024) snprintf(buf, len, "%.0f B", bytes);
    else if (bytes < 1024 * 1024) snprintf(buf, len, "%.1f KiB", bytes / 1024);
    else snprintf(buf, len, "%.2f MiB", bytes / (1024 * 1024));
    return buf;
}

static double ratio(double a, double b)
{
    return b > 0 ? a / b : 0;
}

static void header_text(const bench *b)
{
    const bench_options *o = &b->opt;
    printf("ortvk-bench %s: ortvk's zero-copy import against what an application does without it\n",
           ORTVK_VERSION_STRING);
    printf("  ONNX Runtime %s (API %u): %s\n", b->app.version, b->app.api_version, b->app.library_path);
    printf("  device [%d] %s, %s; driver %s; Vulkan %s\n", o->device_index, b->device_name, b->device_type, b->driver,
           b->api_version);
    printf("  imports: memory %s; semaphores %s\n", b->memory_import, b->semaphore_import);
    printf("  CPU %s, %ld cores; validation %s\n", b->cpu_model, b->cores,
           b->validation ? "ON (ORTVK_VALIDATION=1; the numbers include the layer)"
                         : "off (ORTVK_VALIDATION=1 turns it on)");
    if (b->model.builtin) printf("  model: built-in z = Relu(x), [1,3,H,W] float (transport, not compute)");
    else printf("  model: %s (input %s, output %s)", o->model_path, b->model.input_name, b->model.output_name);
    printf("; the input's consumer runs on %s\n", b->ortvk_consumes_input ? "ortvk" : "ORT's CPU EP");
    printf("  runs: %d iterations (+%d warm-up) per import/semaphore case; %d frames (+%d warm-up) per size and "
           "path; ORT intra-op threads %d\n",
           o->iterations, o->iterations / 10 + 1, o->frames, o->warmup_frames, o->threads);
}

static void import_text(const bench *b)
{
    printf("\n1. Import cost, us per import of one frame-sized allocation (median, p99 over %d; x = ortvk / floor)\n",
           b->opt.iterations);
    printf("   ortvk: ImportMemory + CreateTensorFromMemory + ReleaseValue + ReleaseExternalMemoryHandle, through ORT\n"
           "   floor: the same handle (a fresh dup() of the FD each time) on the bench's own VkDevice, same GPU\n");
    printf("   %-10s %-15s %9s  %9s %8s  %9s %8s  %7s %7s  %s\n", "size", "handle", "bytes", "ortvk med", "p99",
           "floor med", "p99", "x med", "x p99", "floor does");
    for (int i = 0; i < b->import_count; i++) {
        const import_result *r = &b->imports[i];
        char bytes[32];
        printf("   %-10s %-15s %9s  %9.1f %8.1f  %9.1f %8.1f  %6.2fx %6.2fx  %s\n", r->size, r->kind,
               bytes_text((double)r->bytes, bytes, sizeof(bytes)), r->ortvk.median, r->ortvk.p99, r->bare.median,
               r->bare.p99, ratio(r->ortvk.median, r->bare.median), ratio(r->ortvk.p99, r->bare.p99), r->floor);
    }
    for (int i = 0; i < b->import_note_count; i++) printf("   note: %s\n", b->import_notes[i]);
    if (b->failed[0]) printf("   FAILED: this benchmark could not complete (the error is on stderr)\n");
}

static void stat_row(const char *size, const char *metric, const bench_stat *zero, const bench_stat *today)
{
    printf("   %-10s %-12s %11.1f %10.1f  %11.1f %10.1f  %6.2fx %6.2fx\n", size, metric, zero->median, zero->p99,
           today->median, today->p99, ratio(zero->median, today->median), ratio(zero->p99, today->p99));
}

static void frames_text(const bench *b)
{
    const char *semaphore = b->frame_count ? b->frames[0].semaphore : "host timeline";
    printf("\n2. Frame path, [1,3,H,W] float in, output into the producer's memory (median, p99 over %d frames; "
           "x = zero-copy / today)\n", b->opt.frames);
    printf("   zero-copy: import once; per frame WaitSemaphore(%s) -> Run(imported in -> imported out) -> "
           "SignalSemaphore\n"
           "   today:     fence wait -> read back into a host buffer -> Run on host tensors -> write back -> signal\n"
           "   latency: fill completion first seen on the CPU -> the producer sees the output; app CPU, app wall:\n"
           "   the application thread's CPU time, and wall time from \"frame submitted\", per frame\n",
           semaphore);
    printf("   %-10s %-12s %11s %10s  %11s %10s  %7s %7s\n", "size", "metric", "zero-copy", "p99", "today", "p99",
           "x med", "x p99");
    int wrong = 0;
    for (int i = 0; i < b->frame_count; i++) {
        const frame_result *r = &b->frames[i];
        stat_row(r->size, "latency us", &r->latency[0], &r->latency[1]);
        stat_row("", "app CPU us", &r->app_cpu[0], &r->app_cpu[1]);
        stat_row("", "app wall us", &r->app_wall[0], &r->app_wall[1]);
        char app[2][32], ortvk[2][32];
        for (int p = 0; p < 2; p++) {
            bytes_text(r->app_bytes[p], app[p], sizeof(app[p]));
            bytes_text(r->ortvk_bytes[p], ortvk[p], sizeof(ortvk[p]));
            wrong += !r->verified[p];
        }
        printf("   %-10s %-12s zero-copy: app copied %s, ortvk moved %s in %.0f copies; today: app copied %s, "
               "ortvk moved %s\n", "", "bytes/frame", app[0], ortvk[0], r->ortvk_copies[0], app[1], ortvk[1]);
    }
    if (b->failed[1]) printf("   FAILED: this benchmark could not complete (the error is on stderr)\n");
    else if (wrong) printf("   output in the producer's memory after the last frame: WRONG in %d run(s)\n", wrong);
    else
        printf("   output in the producer's memory after the last frame: correct in all %d runs\n", 2 * b->frame_count);
    if (!b->ortvk_consumes_input)
        printf("   note: ortvk does not run the node that reads the input, ORT's CPU EP does: in the zero-copy path\n"
               "   the application copies nothing, but ORT copies the input out of the imported memory and the output\n"
               "   back into it through ortvk's data transfer (staging buffer + vkCmdCopyBuffer each way; the bytes\n"
               "   ortvk moved). These numbers are the cost of that arrangement, not of running on the device.\n");
    else
        printf(
            "   note: ortvk runs the node that reads the input (SessionGetEpDeviceForInputs), so Run gets the stream\n"
            "   (RunOptionsSetSyncStream); the bytes ortvk moved are whatever ORT still copies in or out.\n");
}

static void semaphores_text(const bench *b)
{
    printf("\n3. WaitSemaphore / SignalSemaphore enqueue cost on an ortvk stream, us per call (median, p99 over %d),\n"
           "   and proof that WaitSemaphore does not block: the awaited value is signaled %d ms after the call\n",
           b->opt.iterations, b->opt.delay_ms);
    printf("   %-20s %9s %8s  %10s %8s  %s\n", "semaphore", "Wait med", "p99", "Signal med", "p99",
           "non-blocking proof");
    for (int i = 0; i < b->semaphore_count; i++) {
        const semaphore_result *r = &b->semaphores[i];
        if (!r->available) {
            printf("   %-20s %s\n", r->semaphore, r->why_not);
            continue;
        }
        printf("   %-20s %9.1f %8.1f  %10.1f %8.1f  %s: %d of %d returned in <= %.1f us\n", r->semaphore,
               r->wait.median, r->wait.p99, r->signal.median, r->signal.p99, r->pass ? "PASS" : "FAIL",
               r->pass ? r->trials : 0, r->trials, r->max_wait_call_us);
        printf("   %-20s value at return <= %llu < awaited %llu; producer signaled at +%.1f ms, ortvk's signal behind "
               "the wait done at +%.1f ms\n",
               "", (unsigned long long)r->max_value_at_return, (unsigned long long)r->awaited, r->min_signal_after_ms,
               r->min_done_after_ms);
    }
    if (b->failed[2]) printf("   FAILED: this benchmark could not complete (the error is on stderr)\n");
}

void bench_report_text(const bench *b)
{
    header_text(b);
    import_text(b);
    frames_text(b);
    semaphores_text(b);
    printf("\n%s\n", b->failures ? "RESULT: FAIL (see the lines marked WRONG or FAIL)" : "RESULT: ok");
}

/* ---- JSON ---------------------------------------------------------------------------------------------- */


static void json_key_string(const char *key, const char *value, bool comma)
{
    printf("\"%s\": ", key);
    ortapp_print_json_string(value);
    if (comma) printf(", ");
}

static void json_stat(const char *key, const bench_stat *s)
{
    printf("\"%s\": {\"n\": %zu, \"median\": %.3f, \"p99\": %.3f, \"mean\": %.3f, \"min\": %.3f, \"max\": %.3f}", key,
           s->n, s->median, s->p99, s->mean, s->min, s->max);
}

void bench_report_json(const bench *b)
{
    const bench_options *o = &b->opt;
    printf("{\n  \"tool\": \"ortvk-bench\", \"version\": \"%s\",\n  \"machine\": {", ORTVK_VERSION_STRING);
    json_key_string("ort_version", b->app.version, true);
    printf("\"ort_api\": %u, ", b->app.api_version);
    json_key_string("ort_library", b->app.library_path, true);
    printf("\"device_index\": %d, ", o->device_index);
    json_key_string("device_name", b->device_name, true);
    json_key_string("device_type", b->device_type, true);
    json_key_string("driver", b->driver, true);
    json_key_string("vulkan_api", b->api_version, true);
    json_key_string("memory_import", b->memory_import, true);
    json_key_string("semaphore_import", b->semaphore_import, true);
    json_key_string("cpu", b->cpu_model, true);
    printf("\"cores\": %ld, \"validation\": %s, \"ortvk_consumes_input\": %s},\n", b->cores,
           b->validation ? "true" : "false", b->ortvk_consumes_input ? "true" : "false");
    printf("  \"options\": {\"iterations\": %d, \"warmup_iterations\": %d, \"frames\": %d, \"warmup_frames\": %d, "
           "\"threads\": %d, \"delay_ms\": %d, ",
           o->iterations, o->iterations / 10 + 1, o->frames, o->warmup_frames, o->threads, o->delay_ms);
    json_key_string("model", b->model.builtin ? "builtin:Relu" : o->model_path, false);
    printf("},\n  \"import\": [");
    for (int i = 0; i < b->import_count; i++) {
        const import_result *r = &b->imports[i];
        printf("%s\n    {", i ? "," : "");
        json_key_string("size", r->size, true);
        json_key_string("handle", r->kind, true);
        json_key_string("floor", r->floor, true);
        printf("\"bytes\": %zu, ", r->bytes);
        json_stat("ortvk_us", &r->ortvk);
        printf(", ");
        json_stat("floor_us", &r->bare);
        printf(", \"ratio_median\": %.3f, \"ratio_p99\": %.3f}", ratio(r->ortvk.median, r->bare.median),
               ratio(r->ortvk.p99, r->bare.p99));
    }
    printf("\n  ],\n  \"frames\": [");
    for (int i = 0; i < b->frame_count; i++) {
        const frame_result *r = &b->frames[i];
        printf("%s\n    {", i ? "," : "");
        json_key_string("size", r->size, true);
        json_key_string("semaphore", r->semaphore, true);
        printf("\"input_bytes\": %zu, \"output_bytes\": %zu", r->input_bytes, r->output_bytes);
        static const char *const names[2] = {"zero_copy", "today"};
        for (int p = 0; p < 2; p++) {
            printf(",\n     \"%s\": {", names[p]);
            json_stat("latency_us", &r->latency[p]);
            printf(", ");
            json_stat("app_cpu_us", &r->app_cpu[p]);
            printf(", ");
            json_stat("app_wall_us", &r->app_wall[p]);
            printf(
                ", \"app_bytes_per_frame\": %.0f, \"ortvk_bytes_per_frame\": %.0f, \"ortvk_copies_per_frame\": %.2f, "
                "\"output_correct\": %s}",
                r->app_bytes[p], r->ortvk_bytes[p], r->ortvk_copies[p], r->verified[p] ? "true" : "false");
        }
        printf(",\n     \"ratio_latency_median\": %.3f, \"ratio_app_cpu_median\": %.3f}",
               ratio(r->latency[0].median, r->latency[1].median), ratio(r->app_cpu[0].median, r->app_cpu[1].median));
    }
    printf("\n  ],\n  \"semaphores\": [");
    for (int i = 0; i < b->semaphore_count; i++) {
        const semaphore_result *r = &b->semaphores[i];
        printf("%s\n    {", i ? "," : "");
        json_key_string("semaphore", r->semaphore, true);
        printf("\"available\": %s", r->available ? "true" : "false");
        if (!r->available) {
            printf(", ");
            json_key_string("why_not", r->why_not, false);
        } else {
            printf(", ");
            json_stat("wait_us", &r->wait);
            printf(", ");
            json_stat("signal_us", &r->signal);
            printf(",\n     \"non_blocking\": {\"pass\": %s, \"trials\": %d, \"delay_ms\": %d, "
                   "\"max_wait_call_us\": %.3f, \"awaited\": %llu, \"max_value_at_return\": %llu, "
                   "\"producer_signal_after_ms\": %.3f, "
                   "\"ortvk_signal_done_after_ms\": %.3f}",
                   r->pass ? "true" : "false", r->trials, b->opt.delay_ms, r->max_wait_call_us,
                   (unsigned long long)r->awaited, (unsigned long long)r->max_value_at_return, r->min_signal_after_ms,
                   r->min_done_after_ms);
        }
        printf("}");
    }
    printf("\n  ],\n  \"notes\": [");
    bool first = true;
    for (int i = 0; i < b->import_note_count; i++, first = false) {
        printf("%s\n    ", first ? "" : ",");
        ortapp_print_json_string(b->import_notes[i]);
    }
    static const char *const names[3] = {"import", "frames", "semaphores"};
    for (int i = 0; i < 3; i++)
        if (b->failed[i]) {
            printf("%s\n    \"%s: could not complete (the error is on stderr)\"", first ? "" : ",", names[i]);
            first = false;
        }
    printf("%s\n    ", first ? "" : ",");
    ortapp_print_json_string(b->ortvk_consumes_input
                    ? "ortvk runs the node that consumes the input; Run gets the stream through RunOptionsSetSyncStream"
                    : "ortvk does not run the node that reads the input: ORT runs it on its CPU EP and, in the "
                      "zero-copy path, copies the input out of the imported memory (and the output back into it) "
                      "through ortvk's data transfer (ortvk_bytes_per_frame)");
    printf("\n  ],\n  \"failures\": %d\n}\n", b->failures);
}

/* ---- --compare-model --profile --------------------------------------------------------------------------- */

typedef struct profile_op {
    char op[32];
    double count, ms, flops, bytes;
} profile_op;

#define PROFILE_MAX_OPS 128

/* One node's events: its device time over the measured runs, the pipelines it ran and its inputs (from its first
 * event). */
typedef struct profile_node {
    char name[64], op[32], pipelines[48], inputs[112];
    double ms;
} profile_node;

#define PROFILE_MAX_NODES 1024
#define PROFILE_SLOWEST 12

static int by_ms(const void *a, const void *b)
{
    double x = ((const profile_op *)a)->ms, y = ((const profile_op *)b)->ms;
    return x < y ? 1 : x > y ? -1 : 0;
}

static int node_by_ms(const void *a, const void *b)
{
    double x = ((const profile_node *)a)->ms, y = ((const profile_node *)b)->ms;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* The string value of `key` ("\"key\": \"") in `line` into out, "" if none. */
static void json_string_field(const char *line, const char *key, char *out, size_t len)
{
    const char *at = strstr(line, key);
    out[0] = '\0';
    if (at == NULL) return;
    snprintf(out, len, "%s", at + strlen(key));
    out[strcspn(out, "\"")] = '\0';
}

/* The entry of op `name` in `ops` (*n of them), added where it is new; NULL where the table is full. */
static profile_op *op_entry(profile_op *ops, int *n, const char *name)
{
    int k = 0;
    while (k < *n && strcmp(ops[k].op, name) != 0) k++;
    if (k == *n) {
        if (*n == PROFILE_MAX_OPS) return NULL;
        ops[(*n)++] = (profile_op){0};
        snprintf(ops[k].op, sizeof(ops[k].op), "%s", name);
    }
    return &ops[k];
}

/* Adds an event of node `name` to `nodes`. */
static void add_node(profile_node *nodes, int *n, const char *line, const char *name, const char *cat, double dur)
{
    int k = 0;
    while (k < *n && strcmp(nodes[k].name, name) != 0) k++;
    if (k == *n) {
        if (*n == PROFILE_MAX_NODES) return;
        nodes[(*n)++] = (profile_node){0};
        snprintf(nodes[k].name, sizeof(nodes[k].name), "%s", name);
        snprintf(nodes[k].op, sizeof(nodes[k].op), "%s", cat);
        json_string_field(line, "\"pipelines\": \"", nodes[k].pipelines, sizeof(nodes[k].pipelines));
        json_string_field(line, "\"inputs\": \"", nodes[k].inputs, sizeof(nodes[k].inputs));
    }
    nodes[k].ms += dur / 1e3;
}

/* Per-op and per-node totals of the events ortvk's profiler wrote (src/kernels/kernel_profile.c: one event a line)
 * of runs `from` and later (the warm-up run, which includes the driver's first-use work, is left out), most time
 * first. */
static int read_profile(const char *path, unsigned from, profile_op *ops, int *n, profile_node *nodes, int *n_nodes,
                        unsigned *runs, char *note, size_t note_len)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) return -1;
    char line[4096];
    *n = *n_nodes = 0;
    *runs = 0;
    note[0] = '\0';
    while (fgets(line, sizeof(line), f)) {
        const char *r = strstr(line, "\"runs\": ");
        if (strncmp(line, "\"otherData\"", 11) == 0) {
            if (r != NULL) sscanf(r, "\"runs\": %u", runs);
            json_string_field(line, "\"note\": \"", note, note_len);
        }
        char cat[32], name[64];
        const char *c = strstr(line, "\"cat\": \""), *d = strstr(line, "\"dur\": "), *b = strstr(line, "\"bytes\": ");
        const char *fl = strstr(line, "\"flops\": ");
        unsigned run = 0;
        double dur = 0, bytes = 0, flops = 0;
        if (strncmp(line, "{\"name\": ", 9) != 0 || c == NULL || d == NULL || strstr(line, "\"run\": ") == NULL ||
            sscanf(c, "\"cat\": \"%31[^\"]", cat) != 1 || sscanf(d, "\"dur\": %lf", &dur) != 1 ||
            sscanf(strstr(line, "\"run\": "), "\"run\": %u", &run) != 1)
            continue;
        if (run < from) continue;
        json_string_field(line, "{\"name\": \"", name, sizeof(name));
        add_node(nodes, n_nodes, line, name, cat, dur);
        if (b != NULL) sscanf(b, "\"bytes\": %lf", &bytes);
        if (fl != NULL) sscanf(fl, "\"flops\": %lf", &flops);
        profile_op *op = op_entry(ops, n, cat);
        if (op == NULL) continue;
        op->count += 1;
        op->ms += dur / 1e3;
        op->flops += flops;
        op->bytes += bytes;
    }
    fclose(f);
    qsort(ops, (size_t)*n, sizeof(*ops), by_ms);
    qsort(nodes, (size_t)*n_nodes, sizeof(*nodes), node_by_ms);
    return 0;
}

void bench_find_file(const char *prefix, char *out, size_t len)
{
    char dir[512];
    snprintf(dir, sizeof(dir), "%s", prefix);
    char *slash = strrchr(dir, '/');
    const char *stem = slash ? slash + 1 : dir;
    if (slash) *slash = '\0';
    out[0] = '\0';
    DIR *d = opendir(slash ? dir : ".");
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;)
        if (strncmp(e->d_name, stem, strlen(stem)) == 0) snprintf(out, len, "%s/%s", slash ? dir : ".", e->d_name);
    if (d != NULL) closedir(d);
}

/* Per-op totals of the CPU EP's nodes in ORT's profile ("Node" events named <node>_kernel_time, one a line), the
 * first run (the warm-up) left out; *runs: the runs counted. */
static int read_ort_profile(const char *path, profile_op *ops, int *n, unsigned *runs)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) return -1;
    char line[8192];
    double first_ts = -1, first_end = 0;
    unsigned all = 0;
    *n = 0;
    while (fgets(line, sizeof(line), f)) { /* ORT writes a run's model_run event after the run's node events */
        const char *ts = strstr(line, "\"ts\" :"), *dur = strstr(line, "\"dur\" :");
        double t = 0, d = 0;
        if (strstr(line, "\"name\" :\"model_run\"") == NULL || ts == NULL || dur == NULL ||
            sscanf(ts, "\"ts\" :%lf", &t) != 1 || sscanf(dur, "\"dur\" :%lf", &d) != 1)
            continue;
        all++;
        if (first_ts < 0 || t < first_ts) first_ts = t, first_end = t + d;
    }
    rewind(f);
    while (fgets(line, sizeof(line), f)) {
        const char *ts = strstr(line, "\"ts\" :"), *dur = strstr(line, "\"dur\" :");
        const char *op = strstr(line, "\"op_name\" : \"");
        double t = 0, d = 0;
        char name[32];
        if (strstr(line, "\"cat\" : \"Node\"") == NULL || strstr(line, "_kernel_time\"") == NULL || ts == NULL ||
            dur == NULL || op == NULL || sscanf(ts, "\"ts\" :%lf", &t) != 1 || sscanf(dur, "\"dur\" :%lf", &d) != 1 ||
            sscanf(op, "\"op_name\" : \"%31[^\"]", name) != 1 || t < first_end)
            continue;
        profile_op *entry = op_entry(ops, n, name);
        if (entry == NULL) continue;
        entry->count += 1;
        entry->ms += d / 1e3;
    }
    fclose(f);
    *runs = all > 1 ? all - 1 : 0;
    return 0;
}

static const profile_op *find_op(const profile_op *ops, int n, const char *op)
{
    for (int i = 0; i < n; i++)
        if (strcmp(ops[i].op, op) == 0) return &ops[i];
    return NULL;
}

void bench_report_profile(const bench_options *opt, const char *path, const char *cpu_path, const char *size,
                          double cpu_ms, double ortvk_ms)
{
    static profile_op ops[PROFILE_MAX_OPS], cpu[PROFILE_MAX_OPS];
    static profile_node nodes[PROFILE_MAX_NODES];
    int n = 0, n_cpu = 0, n_nodes = 0;
    unsigned runs = 0, warmup = 1, cpu_runs = 0;
    char note[256];
    if (read_profile(path, warmup, ops, &n, nodes, &n_nodes, &runs, note, sizeof(note)) != 0) {
        fprintf(stderr, "ortvk-bench: cannot read the profile %s\n", path);
        if (opt->json) printf(", \"profile\": null");
        return;
    }
    if (cpu_path[0] != '\0' && read_ort_profile(cpu_path, cpu, &n_cpu, &cpu_runs) != 0)
        fprintf(stderr, "ortvk-bench: cannot read ORT's profile %s\n", cpu_path);
    unsigned counted = runs > warmup ? runs - warmup : 0;
    double per = counted > 0 ? 1.0 / counted : 0, device_ms = 0, cpu_per = cpu_runs > 0 ? 1.0 / cpu_runs : 0;
    for (int i = 0; i < n; i++) device_ms += ops[i].ms * per;
    if (opt->json) {
        printf(", \"profile\": {\"file\": ");
        ortapp_print_json_string(path);
        printf(", \"runs\": %u, \"device_ms_per_run\": %.3f, \"ops\": [", counted, device_ms);
        for (int i = 0; i < n; i++) {
            double s = ops[i].ms / 1e3;
            const profile_op *c = find_op(cpu, n_cpu, ops[i].op);
            printf("%s{\"op\": \"%s\", \"count_per_run\": %.1f, \"ms_per_run\": %.3f, \"share\": %.4f, "
                   "\"gflop_per_s\": %.3f, \"gb_per_s\": %.3f",
                   i ? ", " : "", ops[i].op, ops[i].count * per, ops[i].ms * per,
                   device_ms > 0 ? ops[i].ms * per / device_ms : 0, s > 0 ? ops[i].flops / s / 1e9 : 0,
                   s > 0 ? ops[i].bytes / s / 1e9 : 0);
            if (c != NULL) printf(", \"cpu_ms_per_run\": %.3f, \"cpu_count_per_run\": %.1f", c->ms * cpu_per,
                                  c->count * cpu_per);
            printf("}");
        }
        printf("], \"slowest_nodes\": [");
        for (int i = 0; i < n_nodes && i < PROFILE_SLOWEST; i++) {
            printf("%s{\"node\": ", i ? ", " : "");
            ortapp_print_json_string(nodes[i].name);
            printf(", \"op\": \"%s\", \"ms_per_run\": %.4f, \"pipelines\": \"%s\", \"inputs\": \"%s\"}", nodes[i].op,
                   nodes[i].ms * per, nodes[i].pipelines, nodes[i].inputs);
        }
        printf("], \"cpu_ops\": [");
        for (int i = 0; i < n_cpu; i++)
            printf("%s{\"op\": \"%s\", \"count_per_run\": %.1f, \"ms_per_run\": %.3f}", i ? ", " : "", cpu[i].op,
                   cpu[i].count * cpu_per, cpu[i].ms * cpu_per);
        printf("]}");
        return;
    }
    printf("    ortvk's device time per op at %s, per run (%u measured runs; the profile: %s)\n", size, counted, path);
    if (note[0] != '\0') printf("    note: %s\n", note);
    printf("    device time %.1f ms per run; Run median %.1f ms on ortvk, %.1f ms on the CPU EP\n", device_ms, ortvk_ms,
           cpu_ms);
    if (cpu_runs > 0)
        printf(
            "    CPU EP per op: ORT's profile of %u measured runs (%s); ORT's CPU EP fuses some ops (FusedConv ...)\n",
            cpu_runs, cpu_path);
    printf("      %-22s %9s %11s %7s %16s %13s %9s\n", "op", "count/run", "ms/run", "share", "rate", "CPU EP ms/run",
           "ratio");
    for (int i = 0; i < n; i++) {
        double s = ops[i].ms / 1e3;
        char rate[32] = "", cpu_text[32] = "", ratio_text[32] = "";
        if (s > 0 && ops[i].flops > 0) snprintf(rate, sizeof(rate), "%.2f GFLOP/s", ops[i].flops / s / 1e9);
        else if (s > 0 && ops[i].bytes > 0) snprintf(rate, sizeof(rate), "%.2f GB/s", ops[i].bytes / s / 1e9);
        const profile_op *c = find_op(cpu, n_cpu, ops[i].op);
        if (c != NULL) {
            snprintf(cpu_text, sizeof(cpu_text), "%.2f", c->ms * cpu_per);
            if (c->ms > 0) snprintf(ratio_text, sizeof(ratio_text), "%.1fx", ops[i].ms * per / (c->ms * cpu_per));
        }
        printf("      %-22s %9.1f %11.2f %6.1f%% %16s %13s %9s\n", ops[i].op, ops[i].count * per, ops[i].ms * per,
               device_ms > 0 ? 100 * ops[i].ms * per / device_ms : 0, rate, cpu_text, ratio_text);
    }
    for (int i = 0; i < n_cpu; i++) {
        if (find_op(ops, n, cpu[i].op) != NULL) continue;
        printf("      %-22s %9.1f %11s %7s %16s %13.2f %9s   (CPU EP only)\n", cpu[i].op, cpu[i].count * cpu_per, "",
               "", "", cpu[i].ms * cpu_per, "");
    }
    printf("    the %d slowest nodes at %s (device ms per run; the pipelines they ran, docs/kernels.md)\n",
           n_nodes < PROFILE_SLOWEST ? n_nodes : PROFILE_SLOWEST, size);
    for (int i = 0; i < n_nodes && i < PROFILE_SLOWEST; i++)
        printf("      %-24s %9.3f  %-22.22s %-22s %s\n", nodes[i].name, nodes[i].ms * per, nodes[i].op,
               nodes[i].pipelines, nodes[i].inputs);
}
