/* proc.h: the one way cudalab starts a process.
 *
 * cl_proc_run runs a program under supervision: the child gets its own session and process group, resource limits, its output captured
 * up to a cap (stdout and stderr interleaved), and optionally a private verdict pipe whose
 * descriptor number replaces "{VFD}" in argv. A wall-clock timeout kills the whole group,
 * and so does the end of the run, so nothing the child started outlives it; so does
 * SIGINT, SIGTERM or SIGHUP to cudalab while the child runs (where cudalab has no handler
 * of its own for that signal), before cudalab ends as the signal would have it.
 * cl_proc_capture is cl_proc_run for a trusted helper whose output is wanted;
 * cl_proc_spawn starts a helper that lives beside the caller; cl_proc_fork runs a
 * function of this program in a child (no exec), for work that must not change this
 * process (the classroom's sandbox, which sets up namespaces in the child, and workers
 * with an environment of their own). Nothing else in cudalab calls fork or exec. */
#ifndef CUDALAB_PROC_H
#define CUDALAB_PROC_H

#include <stddef.h>

#include "err.h"
#include "lang.h"

typedef struct cl_proc_opts {
    char *const *argv;        /* argv[0] is looked up in PATH when it has no '/' */
    const char *const *env_set; /* "NAME=value" entries added to (or replacing in) our environment */
    const char *cwd;          /* NULL: inherit */
    double timeout_s;         /* <= 0: none */
    size_t output_cap;        /* bytes of output kept (the rest is counted) */
    const char *stdin_data;   /* written to the child's stdin, then closed; NULL: /dev/null */
    int verdict_pipe;         /* create the verdict pipe */
    size_t verdict_cap;       /* bytes of verdict kept; more is reported as overflow */
    /* resource limits for the child (0: unchanged) */
    unsigned long long max_file_bytes; /* RLIMIT_FSIZE */
    unsigned long long max_procs;      /* RLIMIT_NPROC */
    unsigned long long max_open_files; /* RLIMIT_NOFILE */
    /* called with each complete verdict line as it arrives (progress) */
    void (*on_line)(void *ctx, const char *line);
    void *ctx;
} cl_proc_opts;

typedef struct cl_proc_result {
    int exited, exit_code; /* normal exit */
    int signaled, signal;  /* killed by a signal (not ours) */
    int timed_out;         /* killed by us at the timeout */
    double seconds;
    char *output;          /* NUL-terminated, at most output_cap bytes */
    size_t output_len, output_dropped;
    char *verdict;         /* NUL-terminated verdict bytes */
    size_t verdict_len;
    int verdict_overflow;
} cl_proc_result;

/* Runs the child to completion (or timeout). Returns -1 only when it could not be
 * started; how it ended is in res. Free res with cl_proc_result_free. */
int cl_proc_run(const cl_proc_opts *o, cl_proc_result *res, cl_err *err);
void cl_proc_result_free(cl_proc_result *res);
/* Runs a trusted helper (nvcc, nvidia-smi, cuobjdump, cudalab-probe) and keeps its output
 * (stdout and stderr, up to cap bytes) in *out (NUL-terminated; the caller frees it).
 * Returns -1 when it could not be started, 0 when it exited with status 0, 1 otherwise. */
int cl_proc_capture(char *const *argv, double timeout_s, size_t cap, char **out, cl_err *err);
/* Starts a helper that lives beside the caller (the judge's solution process): it stays
 * in the caller's process group (so the caller's own end, or the supervisor's kill of the
 * group, ends it), shares stdout and stderr, gets fd_pass as its descriptor 3 and no other
 * descriptor above 2, and, when env is not NULL, exactly that environment. */
int cl_proc_spawn(char *const *argv, char *const *env, int fd_pass, int *pid_out, cl_err *err);
/* Runs fn(ctx) in a forked child of this process (after flushing stdio, so nothing
 * buffered is written twice); the child exits with fn's return value (fn may also _exit
 * itself). The child shares nothing with the caller after the fork but what it inherited:
 * whatever it must set up (namespaces, privileges, the environment) it does inside fn.
 * Returns -1 when it could not fork; the caller reaps the child (cl_proc_wait). */
int cl_proc_fork(int (*fn)(void *ctx), void *ctx, int *pid_out, cl_err *err);
/* Kills the process groups of the cl_proc_run children in flight (their runs then end as
 * killed). Async-signal-safe: for a command's own signal handler. */
void cl_proc_stop_running(void);
/* Seconds on the monotonic clock (for durations). */
double cl_mono_s(void);
/* waitpid, retried on EINTR; the raw status in *status (may be NULL). -1 on failure. */
int cl_proc_wait(int pid, int *status);
/* "exit code 3", "killed by SIGSEGV (segmentation fault)", "timed out after 60 s". */
void cl_proc_describe(const cl_proc_result *res, double timeout_s, char *out, size_t n);
/* The same in lang (its phrases come from the catalogue). */
void cl_proc_describe_lang(const cl_proc_result *res, double timeout_s, cl_lang lang, char *out, size_t n);

#endif
