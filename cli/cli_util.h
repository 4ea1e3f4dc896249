/* cli_util.h: what several subcommands share: finding the lab and solution from the
 * arguments or the workspace, the progress line, and printing results. */
#ifndef CUDALAB_CLI_UTIL_H
#define CUDALAB_CLI_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "grader/result.h"
#include "i18n.h"
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
/* The exit code of a graded result (commands.h: 0 ok, 1 failed, 3 no GPU, 4 cudalab failed). */
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
void cl_cli_print_json(const cl_result *r, json_t *profile); /* profile: NULL, or set as "profile" (taken) */

/* The one error voice, on stderr: "cudalab <command>: <what went wrong> — <what to do>".
 * cmd NULL: the command is not known yet ("cudalab: ..."). fmt is usually CL_T("..."). */
void cl_cli_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A one-line warning in the same voice ("cudalab <command>: warning: ..."). */
void cl_cli_warn(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The running command's name, for messages from shared code (set by main). */
void cl_cli_set_command(const char *name);
const char *cl_cli_command(void);
/* --arch: refuses (prints, returns -1) what is not an architecture, and when will_run, one
 * this machine's GPU cannot run (sm_80 code on an sm_90 GPU). NULL arch: 0. */
int cl_cli_check_arch(const char *cmd, const char *arch, int will_run);
/* For the terminal: a long compiler log becomes its first errors whole, then how many
 * more and the path of the whole log (written under log_dir). */
void cl_cli_shorten_compile_log(cl_result *r, const char *log_dir);
/* Is lab one of the labs (labs/<lab>/lab.yaml)? 0, or prints "unknown lab — did you mean"
 * and returns -1. */
int cl_cli_check_lab(const char *cmd, const char *lab);
/* path quoted for a POSIX shell when it needs it (out: n bytes). */
const char *cl_cli_shell_quote(const char *path, char *out, size_t n);

#endif
