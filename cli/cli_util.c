/* cli_util.c: target resolution, progress, exit codes. */
#include "cli_util.h"

#include <errno.h>
#include <stdarg.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli_help.h"
#include "commands.h"
#include "grader/compile.h"
#include "grader/grade.h"
#include "db.h"
#include "grader/progress.h"
#include "grader/report.h"
#include "strbuf.h"
#include "grader/workspace.h"
#include "term.h"

static const char *g_command;

void cl_cli_set_command(const char *name) { g_command = name; }
const char *cl_cli_command(void) { return g_command ? g_command : ""; }

static void say(const char *cmd, const char *kind, const char *fmt, va_list ap)
{
    FILE *f = stderr;
    cl_progress_clear();
    fprintf(f, "%scudalab%s%s:%s ", cl_c(f, CL_BOLD), cmd && *cmd ? " " : "", cmd ? cmd : "", cl_c0(f));
    if (kind)
        fprintf(f, "%s%s%s ", cl_c(f, CL_YELLOW), kind, cl_c0(f));
    vfprintf(f, fmt, ap);
    fputc('\n', f);
}

void cl_cli_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say(cmd, NULL, fmt, ap);
    va_end(ap);
}

void cl_cli_warn(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say(cmd, CL_T("warning:"), fmt, ap);
    va_end(ap);
}

const char *cl_cli_shell_quote(const char *path, char *out, size_t n)
{
    if (strspn(path, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=:,@%") == strlen(path)) {
        snprintf(out, n, "%s", path);
        return out;
    }
    size_t o = 0;
    if (o + 1 < n)
        out[o++] = '\'';
    for (const char *p = path; *p && o + 5 < n; p++) {
        if (*p == '\'') {
            memcpy(out + o, "'\\''", 4);
            o += 4;
        } else {
            out[o++] = *p;
        }
    }
    if (o + 1 < n)
        out[o++] = '\'';
    out[o] = '\0';
    return out;
}

int cl_cli_check_lab(const char *cmd, const char *lab)
{
    char **names;
    int n;
    cl_err err;
    if (cl_lab_names(cl_home_dir(), &names, &n, &err)) {
        cl_cli_error(cmd, "%s", err.msg);
        return -1;
    }
    int found = 0;
    for (int i = 0; i < n; i++)
        found |= !strcmp(names[i], lab);
    if (!found) {
        const char *near = cl_help_nearest(lab, (const char *const *)names, n);
        if (near)
            cl_cli_error(cmd, CL_T("no lab named '%s' — did you mean %s? (cudalab list)"), lab, near);
        else
            cl_cli_error(cmd, CL_T("no lab named '%s' — 'cudalab list' shows the labs"), lab);
    }
    cl_lab_names_free(names, n);
    return found ? 0 : -1;
}

int cl_cli_target(const char *lab_arg, const char *file_arg, int reference, int skeleton, cl_target *t)
{
    memset(t, 0, sizeof *t);
    cl_workspace ws;
    cl_err err;
    int in_ws = cl_workspace_find(".", &ws, &err);
    if (in_ws < 0) {
        cl_cli_error(cl_cli_command(), "%s", err.msg);
        return -1;
    }
    if (in_ws == 0)
        snprintf(t->workspace, sizeof t->workspace, "%s", ws.dir);
    /* "cudalab test my.cu" inside a workspace: the argument is the file */
    if (lab_arg && !file_arg && strchr(lab_arg, '.') && in_ws == 0) {
        file_arg = lab_arg;
        lab_arg = NULL;
    }
    if (lab_arg && cl_cli_check_lab(cl_cli_command(), lab_arg))
        return -1;
    if (lab_arg)
        snprintf(t->lab, sizeof t->lab, "%s", lab_arg);
    else if (in_ws == 0)
        snprintf(t->lab, sizeof t->lab, "%s", ws.lab);
    else {
        cl_cli_error(cl_cli_command(), CL_T("which lab? — name it (cudalab %s reduce) or run it inside a workspace "
                                            "made by 'cudalab fetch <lab>'"), cl_cli_command());
        return -1;
    }
    if (reference)
        snprintf(t->solution, sizeof t->solution, "%s/reference/%s.cu", cl_home_dir(), t->lab);
    else if (skeleton)
        snprintf(t->solution, sizeof t->solution, "%s/labs/%s/%s.cu", cl_home_dir(), t->lab, t->lab);
    else if (file_arg)
        snprintf(t->solution, sizeof t->solution, "%s", file_arg);
    else if (in_ws == 0 && !strcmp(ws.lab, t->lab))
        snprintf(t->solution, sizeof t->solution, "%s", ws.solution);
    else {
        cl_cli_error(cl_cli_command(), CL_T("which solution? — give a .cu file, --reference or --skeleton"));
        return -1;
    }
    return 0;
}

void cl_cli_progress(void *ctx, const char *msg)
{
    (void)ctx;
    cl_progress("%s...", msg);
}

int cl_cli_exit_code(const cl_result *r)
{
    if (r->verdict == CL_V_ERROR)
        return CL_EXIT_INTERNAL;
    if (r->verdict == CL_V_NO_DEVICE)
        return CL_EXIT_ENV;
    return cl_verdict_ok(r->verdict) && r->verdict != CL_V_SLOW ? 0 : 1;
}

int cl_cli_seed(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || !*s || *end) {
        cl_cli_error(cl_cli_command(), CL_T("--seed wants a number, not '%s' — for example --seed 1234"), s);
        return -1;
    }
    *out = v;
    return 0;
}

void cl_cli_print_json(const cl_result *r, json_t *extra_profile)
{
    json_t *j = cl_result_to_json(r);
    if (extra_profile)
        json_object_set_new(j, "profile", extra_profile);
    if (!r->did_test && r->verdict == CL_V_CORRECT) /* cudalab compile: it compiled, nothing ran */
        json_object_set_new(j, "verdict", json_string("compiled"));
    char *s = json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS);
    json_decref(j);
    if (s) {
        puts(s);
        free(s);
    }
}

/* "sm_90a", "compute_80", "86" -> major, minor and suffix ('a', 'f' or 0); -1 when it is not one. */
static int arch_cc(const char *s, int *major, int *minor, char *suffix)
{
    if (!strncmp(s, "sm_", 3))
        s += 3;
    else if (!strncmp(s, "compute_", 8))
        s += 8;
    int n = 0;
    while (s[n] >= '0' && s[n] <= '9')
        n++;
    if (n < 2 || (s[n] && (s[n + 1] || (s[n] != 'a' && s[n] != 'f'))))
        return -1;
    *suffix = s[n];
    *minor = s[n - 1] - '0';
    *major = atoi(s) / 10;
    return 0;
}

int cl_cli_check_arch(const char *cmd, const char *arch, int will_run)
{
    int major, minor;
    char suffix;
    if (!arch)
        return 0;
    if (arch_cc(arch, &major, &minor, &suffix)) {
        cl_cli_error(cmd, CL_T("--arch '%s' is not an architecture — use one such as sm_80, sm_86 or sm_90"), arch);
        return -1;
    }
    if (!will_run)
        return 0;
    cl_gpu_info gpu;
    cl_detect_gpu(&gpu);
    if (!gpu.present)
        return 0; /* nothing will run here: compiling for any architecture is fine */
    /* machine code runs on its own major version, at the same or a later minor version;
     * PTX (compute_XX) is compiled by the driver for any GPU at least that new; sm_90a-style
     * code and its PTX only on exactly that GPU; sm_100f-style on its family */
    int ptx = !strncmp(arch, "compute_", 8), cc = major * 10 + minor, gpu_cc = gpu.cc_major * 10 + gpu.cc_minor;
    int runs = suffix == 'a'  ? cc == gpu_cc
               : ptx && !suffix ? cc <= gpu_cc
                                : major == gpu.cc_major && minor <= gpu.cc_minor;
    if (!runs) {
        cl_cli_error(cmd, CL_T("--arch %s builds code this GPU (%s, sm_%d%d) cannot run — leave out --arch, or use "
                               "--arch sm_%d%d"),
                     arch, gpu.name, gpu.cc_major, gpu.cc_minor, gpu.cc_major, gpu.cc_minor);
        return -1;
    }
    return 0;
}

/* nvcc error lines: "file(12): error: ..." or "error: ...". */
static int is_error_line(const char *line, size_t len)
{
    for (size_t i = 0; i + 6 <= len; i++)
        if (!strncmp(line + i, "error", 5) && (line[i + 5] == ':' || line[i + 5] == ' ') &&
            (i == 0 || line[i - 1] == ' '))
            return 1;
    return 0;
}

void cl_cli_shorten_compile_log(cl_result *r, const char *log_dir)
{
    enum { SHOW_ERRORS = 3, SHOW_LINES = 60 };
    if (r->verdict != CL_V_COMPILE_ERROR || !r->detail)
        return;
    const char *log = r->detail;
    int errors = 0, lines = 0;
    size_t cut = 0; /* bytes shown */
    for (const char *p = log; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (is_error_line(p, len) && ++errors > SHOW_ERRORS && !cut)
            cut = (size_t)(p - log);
        if (++lines > SHOW_LINES && !cut)
            cut = (size_t)(p - log);
        p += len + (nl != NULL);
    }
    if (!cut)
        return; /* short enough to show whole */
    char path[CL_PATH_MAX];
    cl_err err;
    int saved = -1;
    if (log_dir && cl_mkdirs(log_dir, &err) == 0) {
        snprintf(path, sizeof path, "%s/compile-%s.log", log_dir, r->lab);
        saved = cl_write_file_atomic(path, log, strlen(log), &err);
    }
    int shown = 0;
    for (size_t i = 0; i < cut; i++)
        if (log[i] == '\n' && i + 1 < cut && is_error_line(log + i + 1, strcspn(log + i + 1, "\n")))
            shown++;
    shown += is_error_line(log, strcspn(log, "\n"));
    cl_strbuf sb;
    cl_sb_init(&sb);
    cl_sb_printf(&sb, "%.*s", (int)cut, log);
    if (errors > shown)
        cl_sb_printf(&sb, CL_T("... %d more error(s), %zu KB of compiler output in all"), errors - shown,
                     (strlen(log) + 1023) / 1024);
    else
        cl_sb_printf(&sb, CL_T("... %zu KB of compiler output in all"), (strlen(log) + 1023) / 1024);
    if (saved == 0)
        cl_sb_printf(&sb, CL_T("; the whole log: %s\n"), path);
    else
        cl_sb_printf(&sb, CL_T("; --json prints the whole log\n"));
    free(r->detail);
    r->detail = cl_sb_take(&sb);
}

long long cl_cli_record(const cl_result *r, const char *cmd, const char *source, size_t source_len,
                        const char *workspace, int write_report, int quiet)
{
    if (r->verdict == CL_V_ERROR || r->verdict == CL_V_NO_DEVICE)
        return 0; /* nothing of the student's was graded */
    cl_err err;
    sqlite3 *db = NULL;
    long long id = 0;
    if (cl_db_open(NULL, &db, &err) ||
        cl_progress_record_source(db, r, cmd, source, source_len, &id, &err))
        cl_cli_warn(cmd, CL_T("the result was not recorded: %s"), err.msg);
    else if (!quiet)
        fprintf(stderr, CL_T("%sattempt %lld recorded (cudalab log)%s\n"), cl_c(stderr, CL_DIM), id, cl_c0(stderr));
    cl_db_close(db);
    /* a submit's report next to the work, when there is a workspace */
    if (write_report && workspace && workspace[0]) {
        char dir[CL_PATH_MAX], path[CL_PATH_MAX + 64];
        snprintf(dir, sizeof dir, "%s/.cudalab/reports", workspace);
        if (cl_mkdirs(dir, &err) == 0) {
            snprintf(path, sizeof path, "%s/%lld.json", dir, (long long)time(NULL));
            json_t *j = cl_result_to_json(r);
            if (json_dump_file(j, path, JSON_INDENT(2) | JSON_SORT_KEYS) == 0 && !quiet)
                fprintf(stderr, "%sreport: %s%s\n", cl_c(stderr, CL_DIM), path, cl_c0(stderr));
            json_decref(j);
        }
    }
    return id;
}
