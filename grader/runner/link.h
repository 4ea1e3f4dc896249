/* link.h: the judge's side of the solution's process (cudalab-exec).
 *
 * The judge starts the exec, shares buffers with it, calibrates its clock against the
 * exec's own trusted copy kernel before any student code exists, has it load the solution,
 * and then drives every call: arm, (the judge prepares inputs), go, wait for done, stamp,
 * snapshot, result. Whatever the exec says can only fail a call; the time of record is the
 * exec's own event time only where the judge's bracket agrees with it. */
#ifndef CUDALAB_LINK_H
#define CUDALAB_LINK_H

#include <stddef.h>
#include <stdint.h>

#include "callargs.h"

typedef enum cl_call_status {
    CL_CALL_OK = 0,
    CL_CALL_DIED,      /* the solution's process ended (crash, exit, signal) */
    CL_CALL_TIMEOUT,   /* no done within the call's time */
    CL_CALL_EXEC_ERR,  /* the solution's process reported a CUDA error */
    CL_CALL_PROTOCOL,  /* the solution's process broke the protocol */
    CL_CALL_READONLY,  /* it wrote to a read-only input (text says which) */
    CL_CALL_JUDGE_ERR, /* the judge itself failed (text says how) */
} cl_call_status;

typedef struct cl_call_timing {
    double ev_ms;      /* the exec's own event time */
    double bracket_ms; /* the judge's bracket (GPU %globaltimer or host clock), t1 - t0 */
    double gap_us;     /* the largest sentinel gap around the call (GPU); 0 on the host */
} cl_call_timing;

typedef struct cl_link {
    int pid, sock;
    int gated;          /* the GPU's go/done words are in use */
    int exited, status; /* how the exec ended, once reaped */
    char device[256];
    uint64_t next_k;
} cl_link;

/* Under which CUDA tool the exec runs: its injected library needs sockets, and a profiler
 * that wraps the judge reaches the exec only through the environment, kept whole then. */
enum { CL_TOOL_NONE, CL_TOOL_SANITIZER, CL_TOOL_PROFILER };
/* Starts the exec for solution/entry (wrap: a command to run it under, or NULL; name_kernels:
 * it names the kernels launched in its calls, for the Tensor Core check). It brings up its
 * own device and loads nothing else until cl_link_load, so the judge may spawn it before
 * its own device is up: the two CUDA contexts are then created side by side. 0 or -1. */
int cl_link_spawn(cl_link *l, const char *exec_path, const char *solution, const char *entry,
                  const char *const *wrap, int tool, int name_kernels, const char *file_limit, char *msg,
                  size_t n);
/* After cl_link_spawn and the judge's be_init: waits for the exec's device, then shares the
 * go/done words with it. 0 or -1. */
int cl_link_connect(cl_link *l, char *msg, size_t n);
int cl_link_map(cl_link *l, int id, int fd, size_t bytes, int readonly, char *msg, size_t n);
int cl_link_unmap_all(cl_link *l, char *msg, size_t n);
/* Loads the solution. 0, or a CL_LS_* status with the exec's message. CL_LS_JAIL only for a
 * failure before the exec reported itself jailed (no student code had run); -1: the exec
 * died, or broke the protocol, once the solution's code was running. */
int cl_link_load(cl_link *l, char *msg, size_t n);
/* One call. prepare(ctx) runs after the call is armed and before go (the judge fills the
 * inputs then); snapshot(ctx) right after done (the judge copies the outputs). */
cl_call_status cl_link_call(cl_link *l, const cl_args *a, int builtin, double timeout_s,
                            int (*prepare)(void *), int (*snapshot)(void *), void *ctx, cl_call_timing *t,
                            char *msg, size_t n);
/* The i-th kernel launched inside the solution's calls, into name: CL_KS_NAME, CL_KS_END past
 * the last, CL_KS_UNTRACKED when they were not all named; -1 when the exec did not answer
 * within timeout_ms. An answer is the solution's word: it can only narrow a check. */
int cl_link_kernel(cl_link *l, int i, int timeout_ms, char *name, size_t n);
/* "killed by SIGSEGV", "exit code 3": how the exec ended (reaps it when it has). */
void cl_link_describe(cl_link *l, char *out, size_t n);
/* One call of the exec's own copy kernel, before any student code, within 3 s: does the
 * protocol work on this machine? 0, or -1 with the reason. */
int cl_link_selftest(cl_link *l, char *msg, size_t n);
/* Closes the link and makes sure the exec is gone: it is killed if it has not ended within
 * a second. */
void cl_link_stop(cl_link *l);

#endif
