/* cli_util.h: what several subcommands share: finding the lab and solution from the
 * arguments or the workspace, the progress line, and printing results. */
#ifndef CUDALAB_CLI_UTIL_H
#define CUDALAB_CLI_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "grader/grade.h"
#include "grader/result.h"
#include "paths.h"

typedef struct cl_target {
    char lab[128];
    char solution[CL_PATH_MAX];
    char workspace[CL_PATH_MAX]; /* "" when not inside one */
} cl_target;

/* Resolves [LAB] [FILE] plus --reference/--skeleton against the current workspace.
 * Prints the problem and returns -1 when it cannot. */
int cl_cli_target(const char *lab_arg, const char *file_arg, int reference, int skeleton, cl_target *t);
/* A progress callback for cl_grade: a transient line on a terminal. */
void cl_cli_progress(void *ctx, const char *msg);
/* 0 ok, 1 the solution failed, 2 cudalab could not grade, 3 no GPU. */
int cl_cli_exit_code(const cl_result *r);
/* Parses a seed; prints and returns -1 on junk. */
int cl_cli_seed(const char *s, uint64_t *out);
/* The largest source kept in the history (bytes). */
#define CL_HISTORY_SOURCE_MAX (4u << 20)
/* Records a graded attempt (cmd: test, bench, submit) with its source in the progress
 * database, and for a submit its JSON report under <workspace>/.cudalab/reports/. Says
 * so on stderr unless quiet; a failure to record is reported, never fatal. Returns the
 * attempt's id, 0 when nothing was recorded. */
long long cl_cli_record(const cl_result *r, const char *cmd, const char *source, size_t source_len,
                        const char *workspace, int write_report, int quiet);
/* Prints r as JSON on stdout. */
void cl_cli_print_json(const cl_result *r);

#endif
