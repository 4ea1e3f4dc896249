/* cli_util.c: target resolution, progress, exit codes. */
#include "cli_util.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "db.h"
#include "grader/progress.h"
#include "grader/report.h"
#include "grader/workspace.h"
#include "term.h"

int cl_cli_target(const char *lab_arg, const char *file_arg, int reference, int skeleton, cl_target *t)
{
    memset(t, 0, sizeof *t);
    cl_workspace ws;
    cl_err err;
    int in_ws = cl_workspace_find(".", &ws, &err);
    if (in_ws < 0) {
        fprintf(stderr, "cudalab: %s\n", err.msg);
        return -1;
    }
    if (in_ws == 0)
        snprintf(t->workspace, sizeof t->workspace, "%s", ws.dir);
    /* "cudalab test my.cu" inside a workspace: the argument is the file */
    if (lab_arg && !file_arg && strchr(lab_arg, '.') && in_ws == 0) {
        file_arg = lab_arg;
        lab_arg = NULL;
    }
    if (lab_arg)
        snprintf(t->lab, sizeof t->lab, "%s", lab_arg);
    else if (in_ws == 0)
        snprintf(t->lab, sizeof t->lab, "%s", ws.lab);
    else {
        fprintf(stderr, "cudalab: which lab? Name it (cudalab test reduce FILE) or run inside a workspace "
                        "made by 'cudalab fetch <lab>'.\n");
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
        fprintf(stderr, "cudalab: which solution? Give a .cu file, --reference or --skeleton.\n");
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
        return 2;
    if (r->verdict == CL_V_NO_DEVICE)
        return 3;
    return cl_verdict_ok(r->verdict) && r->verdict != CL_V_SLOW ? 0 : 1;
}

int cl_cli_seed(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || !*s || *end) {
        fprintf(stderr, "cudalab: --seed wants a number, not '%s'\n", s);
        return -1;
    }
    *out = v;
    return 0;
}

void cl_cli_print_json(const cl_result *r)
{
    json_t *j = cl_result_to_json(r);
    char *s = json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS);
    json_decref(j);
    if (s) {
        puts(s);
        free(s);
    }
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
        fprintf(stderr, "cudalab %s: could not record the result: %s\n", cmd, err.msg);
    else if (!quiet)
        fprintf(stderr, "%sattempt %lld recorded (cudalab log)%s\n", cl_c(stderr, CL_DIM), id, cl_c0(stderr));
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
