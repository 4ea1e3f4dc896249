/* remote.h: grading on a GPU elsewhere: over ssh (cudalab installed there) and/or through
 * Slurm's srun. The solution is sent on the remote command's stdin (base64), graded there
 * by `cudalab <mode> --json` in a temporary folder that is removed afterwards, and the JSON
 * report comes back as a cl_result, to be printed and recorded here like a local one.
 *
 *   ssh [CUDALAB_SSH's words] HOST  sh -c SCRIPT               --remote HOST
 *   srun [slurm args] sh -c SCRIPT                              --slurm
 *   ssh ... HOST  srun [slurm args] sh -c SCRIPT                --remote HOST --slurm
 *
 * Spawned through cl_proc_run, the one process API. */
#ifndef CUDALAB_REMOTE_H
#define CUDALAB_REMOTE_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "grader/result.h"

typedef struct cl_remote_opts {
    const char *host;         /* ssh destination; NULL: run srun here */
    int slurm;                /* through srun */
    const char *slurm_args;   /* words for srun; NULL: "--gres=gpu:1" */
    const char *ssh;          /* the ssh command's words; NULL: $CUDALAB_SSH, else "ssh" */
    const char *cudalab;      /* the remote cudalab command; NULL: $CUDALAB_REMOTE_CUDALAB, else "cudalab" */
    const char *mode;         /* test, bench, submit */
    const char *lab;
    const char *solution_name; /* the file name to give it there (no '/') */
    const char *source;       /* its bytes; NULL with reference or skeleton */
    size_t source_len;
    int reference, skeleton;
    int have_seed;
    uint64_t seed;
    const char *arch;
    double timeout_s;         /* per run there (0: the lab's) */
    int sanitize, no_reference;
    const char *runner;       /* --runner there (tests: the host-backend runner) */
    double wall_s;            /* the whole remote call (0: one hour) */
} cl_remote_opts;

/* Grades remotely. 0 with r filled from the remote report; -1 when no report came back
 * (ssh or srun failed, cudalab missing there): err says what the remote side said. */
int cl_remote_grade(const cl_remote_opts *o, cl_result *r, cl_err *err);

/* The POSIX sh script run there (exposed for the unit tests). Caller frees. */
char *cl_remote_script(const cl_remote_opts *o);

#endif
