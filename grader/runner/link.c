/* link.c: the judge's side of the solution's process (see link.h). */
#include "link.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "grader/proc.h"
#include "link_proto.h"

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* The environment the solution sees: enough to find the driver and the toolkit, nothing
 * of cudalab's own; under a profiler that wraps the judge (ncu's injection travels in the
 * environment), all of the judge's. Either way every module is loaded up front: a kernel
 * loaded lazily while the stream waits for go, or while the judge's sentinel spins, can
 * deadlock the context. NULL-terminated; the caller frees the array (its strings are
 * environ's). */
static char **exec_env(int whole)
{
    static const char *keep[] = {"PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "LD_LIBRARY_PATH",
                                 "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "CUDA_CACHE_PATH",
                                 "CUDA_CACHE_DISABLE", "NVIDIA_VISIBLE_DEVICES",
                                 "NVIDIA_DRIVER_CAPABILITIES", "CUDALAB_TRACE", NULL};
    static const char loading[] = "CUDA_MODULE_LOADING=";
    extern char **environ;
    size_t cap = sizeof keep / sizeof keep[0] + 2, n = 0;
    for (char **e = environ; *e; e++)
        cap++;
    char **env = calloc(cap, sizeof *env);
    if (!env)
        return NULL;
    for (char **e = environ; *e; e++) {
        size_t name = strcspn(*e, "=");
        int take = whole && strncmp(*e, loading, sizeof loading - 1);
        /* the CPU test suite's fixtures find their scratch files through CUDALAB_TEST_*;
         * cudalab itself never puts anything there */
        take = take || !strncmp(*e, "CUDALAB_TEST_", 13);
        for (const char **k = keep; *k && !take && !whole; k++)
            take = strlen(*k) == name && !strncmp(*e, *k, name);
        if (take)
            env[n++] = *e;
    }
    env[n++] = "CUDA_MODULE_LOADING=EAGER";
    env[n] = NULL;
    return env;
}

static void reap(cl_link *l, int block)
{
    if (l->exited || l->pid <= 0)
        return;
    int st;
    pid_t r = waitpid(l->pid, &st, block ? 0 : WNOHANG);
    if (r == l->pid) {
        l->exited = 1;
        l->status = st;
    }
}

void cl_link_describe(cl_link *l, char *out, size_t n)
{
    for (int i = 0; i < 50 && !l->exited; i++) { /* it is dying: give it a moment to be reaped */
        reap(l, 0);
        if (!l->exited)
            usleep(10000);
    }
    if (!l->exited)
        snprintf(out, n, "stopped answering");
    else if (WIFSIGNALED(l->status))
        snprintf(out, n, "was killed by signal %d (%s)", WTERMSIG(l->status), strsignal(WTERMSIG(l->status)));
    else
        snprintf(out, n, "exited with code %d", WEXITSTATUS(l->status));
}

static int expect(cl_link *l, uint32_t type, cl_lmsg *m, char *msg, size_t n)
{
    int rc = cl_lm_recv(l->sock, m, NULL, -1);
    if (rc) {
        char how[128];
        cl_link_describe(l, how, sizeof how);
        snprintf(msg, n, "the solution's process %s", how);
        return -1;
    }
    if (m->type != type) {
        snprintf(msg, n, "the solution's process broke the protocol (message %u where %u was due)", m->type, type);
        return -2;
    }
    return 0;
}

int cl_link_spawn(cl_link *l, const char *exec_path, const char *solution, const char *entry,
                  const char *const *wrap, int tool, int name_kernels, const char *file_limit, char *msg,
                  size_t n)
{
    memset(l, 0, sizeof *l);
    l->pid = -1;
    l->sock = -1;
    l->next_k = 1;
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
        snprintf(msg, n, "socketpair: %s", strerror(errno));
        return -1;
    }
    char *argv[40];
    int argc = 0;
    for (const char *const *w = wrap; w && *w && argc < 30; w++)
        argv[argc++] = (char *)*w;
    argv[argc++] = (char *)exec_path;
    argv[argc++] = "--solution";
    argv[argc++] = (char *)solution;
    argv[argc++] = "--entry";
    argv[argc++] = (char *)entry;
    if (tool != CL_TOOL_NONE)
        argv[argc++] = "--sanitized"; /* sockets stay allowed */
    else if (name_kernels)
        argv[argc++] = "--name-kernels";
    if (file_limit) {
        argv[argc++] = "--file-limit";
        argv[argc++] = (char *)file_limit;
    }
    argv[argc] = NULL;
    cl_err err;
    int pid;
    char **env = exec_env(tool == CL_TOOL_PROFILER);
    int spawn = env ? cl_proc_spawn(argv, env, sv[1], &pid, &err) : cl_err_set(&err, "out of memory");
    free(env);
    if (spawn) {
        close(sv[0]);
        close(sv[1]);
        snprintf(msg, n, "cannot start the solution's process: %s", err.msg);
        return -1;
    }
    close(sv[1]);
    l->pid = pid;
    l->sock = sv[0];
    return 0;
}

int cl_link_connect(cl_link *l, char *msg, size_t n)
{
    cl_lmsg m;
    if (expect(l, LM_HELLO, &m, msg, n))
        return -1;
    if (m.status) {
        snprintf(msg, n, "the solution's process could not use the GPU: %s", m.text);
        return -1;
    }
    snprintf(l->device, sizeof l->device, "%s", m.text);
    int go_fd = -1, done_fd = -1;
    size_t go_bytes = 0, done_bytes = 0;
    int w = be_words_export(&go_fd, &go_bytes, &done_fd, &done_bytes);
    if (w < 0) {
        snprintf(msg, n, "the judge cannot share its protocol words: %s", be_error());
        return -1;
    }
    if (w == 0) {
        int rc = cl_link_map(l, CL_MAP_GO, go_fd, go_bytes, 1, msg, n);
        if (!rc)
            rc = cl_link_map(l, CL_MAP_DONE, done_fd, done_bytes, 0, msg, n);
        close(go_fd);
        close(done_fd);
        if (rc)
            return -1;
        l->gated = 1;
    }
    return 0;
}

/* Sends a request (with a descriptor, or -1); -1 with msg when the exec is gone. */
static int send_request(cl_link *l, const cl_lmsg *m, int fd, char *msg, size_t n)
{
    if (cl_lm_send(l->sock, m, fd) == 0)
        return 0;
    snprintf(msg, n, "the solution's process is gone");
    return -1;
}

int cl_link_kernel(cl_link *l, int i, int timeout_ms, char *name, size_t n)
{
    cl_lmsg m;
    memset(&m, 0, sizeof m);
    m.type = LM_KERNELS;
    m.k = (uint64_t)i;
    if (cl_lm_send(l->sock, &m, -1) || cl_lm_recv(l->sock, &m, NULL, timeout_ms) || m.type != LM_KERNEL ||
        m.k != (uint64_t)i || m.status < CL_KS_NAME || m.status > CL_KS_UNTRACKED)
        return -1;
    m.text[sizeof m.text - 1] = '\0';
    snprintf(name, n, "%s", m.status == CL_KS_NAME ? m.text : "");
    return m.status;
}

int cl_link_map(cl_link *l, int id, int fd, size_t bytes, int readonly, char *msg, size_t n)
{
    cl_lmsg m;
    memset(&m, 0, sizeof m);
    m.type = LM_MAP;
    m.id = id;
    m.bytes = bytes;
    m.readonly = readonly;
    if (send_request(l, &m, fd, msg, n))
        return -1;
    if (expect(l, LM_ACK, &m, msg, n))
        return -1;
    if (m.status) {
        snprintf(msg, n, "the solution's process could not map a buffer: %s", m.text);
        return -1;
    }
    return 0;
}

int cl_link_unmap_all(cl_link *l, char *msg, size_t n)
{
    cl_lmsg m;
    memset(&m, 0, sizeof m);
    m.type = LM_UNMAP_ALL;
    if (send_request(l, &m, -1, msg, n))
        return -1;
    return expect(l, LM_ACK, &m, msg, n) ? -1 : 0;
}

int cl_link_load(cl_link *l, char *msg, size_t n)
{
    cl_lmsg m;
    memset(&m, 0, sizeof m);
    m.type = LM_LOAD;
    if (send_request(l, &m, -1, msg, n))
        return -1;
    /* first the jail: a failure there is the exec's own, before any student code ran */
    int rc = cl_lm_recv(l->sock, &m, NULL, -1);
    if (rc || m.type != LM_ACK) {
        char how[128] = "broke the protocol";
        if (rc)
            cl_link_describe(l, how, sizeof how);
        if (!rc && m.type == LM_LOADED && m.status == CL_LS_JAIL)
            snprintf(msg, n, "%s", m.text);
        else
            snprintf(msg, n, "the solution's process %s while entering its jail", how);
        return CL_LS_JAIL;
    }
    /* then the solution is loaded: what comes now may be its constructors' doing */
    if (expect(l, LM_LOADED, &m, msg, n))
        return -1;
    if (m.status != CL_LS_OK && m.status != CL_LS_LOAD_ERROR && m.status != CL_LS_MISSING_SYMBOL) {
        snprintf(msg, n, "the solution's process broke the protocol while the solution was loading");
        return -1;
    }
    snprintf(msg, n, "%s", m.text);
    return m.status;
}

/* How a call ended before its done: rc is cl_lm_recv's (0: message m came out of turn). */
static cl_call_status call_failed_early(cl_link *l, const cl_lmsg *m, int rc, char *msg, size_t n)
{
    if (rc == -3) {
        snprintf(msg, n, "the solution's process broke the protocol (it wrote to the judge's socket)");
        return CL_CALL_PROTOCOL;
    }
    if (rc) {
        char how[128];
        cl_link_describe(l, how, sizeof how);
        snprintf(msg, n, "the solution's process %s while its code ran", how);
        return CL_CALL_DIED;
    }
    if (m->type == LM_DONE && m->status == CL_DS_BAD_CALL) {
        snprintf(msg, n, "the solution's process refused the call: %s", m->text);
        return CL_CALL_PROTOCOL;
    }
    if (m->type == LM_DONE && m->status == CL_DS_READONLY) {
        snprintf(msg, n, "%d", (int)m->id); /* the buffer: the judge knows its name */
        return CL_CALL_READONLY;
    }
    if (m->type == LM_DONE && m->status != CL_DS_OK) {
        snprintf(msg, n, "the solution's process reported: %s", m->text);
        return CL_CALL_EXEC_ERR;
    }
    snprintf(msg, n, "the solution's process broke the protocol (message %u out of turn)", m->type);
    return CL_CALL_PROTOCOL;
}

/* The host clock (the host backend, or a GPU without the go/done words): the judge prepares, stamps t0, sends
 * LM_GO, and stamps t1 when LM_DONE comes. */
static cl_call_status call_host_clock(cl_link *l, uint64_t k, double timeout_s, int (*prepare)(void *),
                                      int (*snapshot)(void *), void *ctx, cl_call_timing *t, char *msg, size_t n)
{
    if (prepare && prepare(ctx)) {
        snprintf(msg, n, "%s", be_error());
        return CL_CALL_JUDGE_ERR;
    }
    cl_lmsg m, r;
    memset(&m, 0, sizeof m);
    m.type = LM_GO;
    m.k = k;
    double t0 = now_ms();
    if (cl_lm_send(l->sock, &m, -1))
        return call_failed_early(l, &m, -1, msg, n);
    int rc = cl_lm_recv(l->sock, &r, NULL, timeout_s > 0 ? (int)(timeout_s * 1000) : -1);
    double t1 = now_ms();
    if (rc == -2) {
        snprintf(msg, n, "no answer from the solution's process within %.0f s", timeout_s);
        return CL_CALL_TIMEOUT;
    }
    if (rc || r.type != LM_DONE || r.k != k || r.status != CL_DS_OK)
        return call_failed_early(l, &r, rc, msg, n);
    t->bracket_ms = t1 - t0;
    t->ev_ms = r.ev_ms;
    if (snapshot && snapshot(ctx)) {
        snprintf(msg, n, "%s", be_error());
        return CL_CALL_JUDGE_ERR;
    }
    return CL_CALL_OK;
}

/* Waits for call k's done word, spinning on the host: 1 when it is written; 0 when a message
 * came first (in r, rc as cl_lm_recv's: the exec failed, died or broke the protocol) or the
 * call ran past timeout_s (rc -2). The spin costs one core for the length of the call; it is
 * what keeps t1 within microseconds of the solution's last work. */
static int await_done(cl_link *l, uint64_t k, double timeout_s, cl_lmsg *r, int *rc)
{
    double start = now_ms(), next_poll = start;
    for (;;) {
        if (be_done_reached(k))
            return 1;
        double now = now_ms();
        if (now >= next_poll) {
            struct pollfd p = {.fd = l->sock, .events = POLLIN};
            if (poll(&p, 1, 0) > 0) {
                *rc = cl_lm_recv(l->sock, r, NULL, 1000);
                if (*rc || r->type != LM_DONE || r->k != k || r->status != CL_DS_OK)
                    return 0;
                /* the message came with the word's write still on its way: a moment more */
                for (double t = now_ms(); now_ms() - t < 1000;)
                    if (be_done_reached(k))
                        return 2;
                return 0;
            }
            if (timeout_s > 0 && now - start > timeout_s * 1e3) {
                *rc = -2;
                return 0;
            }
            next_poll = now + 0.2;
        }
        cpu_relax();
    }
}

/* The GPU: the exec's stream waits for go >= k; the judge prepares, stamps t0 and opens; the
 * exec's stream writes done after the call; the judge sees it on the host, stamps t1 and
 * snapshots on the GPU, then hears the exec's done message and settles the bracket. */
static cl_call_status call_gpu(cl_link *l, uint64_t k, double timeout_s, int (*prepare)(void *),
                               int (*snapshot)(void *), void *ctx, cl_call_timing *t, char *msg, size_t n)
{
    cl_lm_trace("judge", "call %llu armed", (unsigned long long)k);
    int brc = be_sentinel_start();
    brc = brc || (prepare && prepare(ctx));
    brc = brc || be_go(k);
    cl_lm_trace("judge", "go (%d)", brc);
    if (brc) {
        snprintf(msg, n, "%s", be_error());
        be_unblock(k);
        return CL_CALL_JUDGE_ERR;
    }
    /* While the solution runs, the judge's context has nothing queued: a judge stream that
     * waited on the GPU for done kept the judge's context on the GPU for a whole time slice
     * (2.06 ms on the H100, measured). Nor does the judge sleep: waking a process that slept
     * through the call took 20 to 80 us on the H100's host, more for longer calls, and all of
     * it landed in the bracket. It reads the done word in host memory in a loop instead. */
    cl_lmsg r;
    int rc = 0, timed_out = 0;
    int seen = await_done(l, k, timeout_s, &r, &rc);
    cl_lm_trace("judge", "done seen (%d, rc %d)", seen, rc);
    if (!seen) {
        be_unblock(k);
        be_settle(5.0, &t->bracket_ms, &t->gap_us, &timed_out);
        if (rc == -2) {
            snprintf(msg, n, "the call did not finish within %.0f s", timeout_s);
            return CL_CALL_TIMEOUT;
        }
        if (!rc && r.type == LM_DONE && r.k == k && r.status == CL_DS_OK) {
            snprintf(msg, n, "the solution's process said call %llu was done but never marked it done on the GPU",
                     (unsigned long long)k);
            return CL_CALL_PROTOCOL;
        }
        return call_failed_early(l, &r, rc, msg, n);
    }
    /* t1 and the snapshot right away: work the solution left running past done cannot
     * finish its outputs before they are copied */
    brc = be_wait_done(k) || (snapshot && snapshot(ctx)) || be_sentinel_end();
    cl_lm_trace("judge", "t1+snapshot enqueued (%d)", brc);
    if (brc) {
        snprintf(msg, n, "%s", be_error());
        be_unblock(k);
        return CL_CALL_JUDGE_ERR;
    }
    if (seen == 1) /* the exec's message: sent once its whole context is idle */
        rc = cl_lm_recv(l->sock, &r, NULL, timeout_s > 0 ? (int)(timeout_s * 1000) : -1);
    if (rc || r.type != LM_DONE || r.k != k || r.status != CL_DS_OK) {
        be_settle(5.0, &t->bracket_ms, &t->gap_us, &timed_out);
        if (rc == -2) {
            snprintf(msg, n, "the call did not finish within %.0f s (work left running after it returned)",
                     timeout_s);
            return CL_CALL_TIMEOUT;
        }
        return call_failed_early(l, &r, rc, msg, n);
    }
    rc = be_settle(10.0, &t->bracket_ms, &t->gap_us, &timed_out);
    cl_lm_trace("judge", "settled rc %d bracket %.4f ms gap %.2f us", rc, t->bracket_ms, t->gap_us);
    if (rc || timed_out) {
        snprintf(msg, n, "%s", rc ? be_error() : "the judge's own stream did not finish");
        return CL_CALL_JUDGE_ERR;
    }
    t->ev_ms = r.ev_ms;
    return CL_CALL_OK;
}

cl_call_status cl_link_call(cl_link *l, const cl_args *a, int builtin, double timeout_s,
                            int (*prepare)(void *), int (*snapshot)(void *), void *ctx, cl_call_timing *t,
                            char *msg, size_t n)
{
    memset(t, 0, sizeof *t);
    msg[0] = '\0';
    uint64_t k = l->next_k++;
    cl_lmsg m;
    memset(&m, 0, sizeof m);
    m.type = LM_CALL;
    m.k = k;
    m.builtin = builtin;
    m.args = *a;
    cl_lm_trace("judge", "call %llu sent", (unsigned long long)k);
    if (cl_lm_send(l->sock, &m, -1))
        return call_failed_early(l, &m, -1, msg, n);
    cl_lmsg r;
    int rc = cl_lm_recv(l->sock, &r, NULL, timeout_s > 0 ? (int)(timeout_s * 1000) : -1);
    if (rc == -2) {
        snprintf(msg, n, "the solution's process did not arm call %llu within %.0f s", (unsigned long long)k,
                 timeout_s);
        return CL_CALL_TIMEOUT;
    }
    if (rc || r.type != LM_ARMED || r.k != k)
        return call_failed_early(l, &r, rc, msg, n);
    if (!l->gated)
        return call_host_clock(l, k, timeout_s, prepare, snapshot, ctx, t, msg, n);
    return call_gpu(l, k, timeout_s, prepare, snapshot, ctx, t, msg, n);
}

int cl_link_selftest(cl_link *l, char *msg, size_t n)
{
    void *p[2] = {NULL, NULL};
    size_t bytes[2] = {0, 0};
    int rc = -1;
    for (int i = 0; i < 2; i++) {
        int fd;
        if (be_share_alloc(&p[i], 4096, &bytes[i], &fd)) {
            snprintf(msg, n, "%s", be_error());
            goto out;
        }
        int m = cl_link_map(l, i, fd, bytes[i], i == 1, msg, n);
        close(fd);
        if (m)
            goto out;
    }
    cl_args a;
    memset(&a, 0, sizeof a);
    a.n = 3;
    a.a[0] = (cl_arg){CL_ARG_PTR, 0, 0, 0, 0};
    a.a[1] = (cl_arg){CL_ARG_PTR, 1, 0, 0, 0};
    a.a[2] = (cl_arg){CL_ARG_I64, 0, 0, 4096, 0};
    cl_call_timing t;
    rc = cl_link_call(l, &a, 1, 3.0, NULL, NULL, NULL, &t, msg, n) == CL_CALL_OK ? 0 : -1;
    if (!rc)
        rc = cl_link_unmap_all(l, msg, n);
out:
    for (int i = 0; i < 2; i++)
        be_share_free(p[i], bytes[i]);
    return rc;
}

void cl_link_stop(cl_link *l)
{
    if (l->sock >= 0)
        close(l->sock);
    l->sock = -1;
    if (l->pid > 0 && !l->exited) {
        for (int i = 0; i < 1000 && !l->exited; i++) { /* it ends when the socket closes */
            reap(l, 0);
            if (!l->exited)
                usleep(1000);
        }
        if (!l->exited) {
            kill(l->pid, SIGKILL);
            reap(l, 1);
        }
    }
}
