/* proc.c: the one way cudalab starts a process: fork/exec with a new process group,
 * limits, capped capture, a private verdict pipe, and a wall-clock timeout that kills the
 * whole group, as does a signal that ends cudalab (cl_proc_run); a helper beside the caller (cl_proc_spawn); and a function
 * run in a forked child (cl_proc_fork, for the classroom's sandbox and workers). */
#include "grader/proc.h"

#include "i18n.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

double cl_mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- capture: a capped buffer of what a stream said ---- */

typedef struct capture {
    char *buf;
    size_t len, cap, dropped;
    int overflow;
} capture;

static void capture_add(capture *c, const char *data, size_t n)
{
    size_t room = c->cap > c->len ? c->cap - c->len : 0;
    size_t take = n < room ? n : room;
    if (take) {
        memcpy(c->buf + c->len, data, take);
        c->len += take;
        c->buf[c->len] = '\0';
    }
    if (take < n) {
        c->dropped += n - take;
        c->overflow = 1;
    }
}

/* ---- the child's side, between fork and exec ---- */

/* Build the child's environment: ours, with env_set entries replacing or added. */
static char **make_env(const char *const *set)
{
    size_t n = 0, k = 0;
    while (environ[n]) n++;
    while (set && set[k]) k++;
    char **env = calloc(n + k + 1, sizeof *env);
    if (!env)
        return NULL;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        int replaced = 0;
        for (size_t j = 0; j < k; j++) {
            const char *eq = strchr(set[j], '=');
            size_t len = eq ? (size_t)(eq - set[j]) : strlen(set[j]);
            if (!strncmp(environ[i], set[j], len) && environ[i][len] == '=') {
                replaced = 1;
                break;
            }
        }
        if (!replaced)
            env[m++] = environ[i];
    }
    for (size_t j = 0; j < k; j++)
        env[m++] = (char *)set[j];
    env[m] = NULL;
    return env;
}

static void set_limit(int resource, unsigned long long v)
{
    if (!v)
        return;
    struct rlimit rl = {(rlim_t)v, (rlim_t)v};
    struct rlimit cur;
    if (getrlimit(resource, &cur) == 0 && cur.rlim_max != RLIM_INFINITY && rl.rlim_max > cur.rlim_max)
        rl.rlim_cur = rl.rlim_max = cur.rlim_max;
    setrlimit(resource, &rl);
}

/* Closes every descriptor from first up, except keep: close_range (Linux 5.9), two system
 * calls whatever the descriptor limit; on older kernels, one close per possible descriptor
 * (a container's limit of 2^20 made that a second's worth of system calls per spawn). */
static void close_from(int first, int keep)
{
#ifdef SYS_close_range
    int ok = keep < first ? syscall(SYS_close_range, (unsigned)first, ~0u, 0u) == 0
                          : (keep == first || syscall(SYS_close_range, (unsigned)first, (unsigned)keep - 1, 0u) == 0) &&
                                syscall(SYS_close_range, (unsigned)keep + 1, ~0u, 0u) == 0;
    if (ok)
        return;
#endif
    long maxfd = sysconf(_SC_OPEN_MAX);
    if (maxfd < 0 || maxfd > 65536) maxfd = 65536;
    for (int fd = first; fd < maxfd; fd++)
        if (fd != keep)
            close(fd);
}

/* stdin, stdout + stderr, and the verdict pipe (kept open across exec); nothing else. */
static void child_descriptors(int in_fd, int out_fd, int vfd)
{
    if (in_fd >= 0) dup2(in_fd, STDIN_FILENO);
    dup2(out_fd, STDOUT_FILENO);
    dup2(out_fd, STDERR_FILENO);
    close_from(3, vfd);
    if (vfd >= 0) {
        int flags = fcntl(vfd, F_GETFD);
        fcntl(vfd, F_SETFD, flags & ~FD_CLOEXEC);
    }
}

static void child_limits(const cl_proc_opts *o)
{
    set_limit(RLIMIT_CORE, 0);
    set_limit(RLIMIT_FSIZE, o->max_file_bytes);
    set_limit(RLIMIT_NPROC, o->max_procs);
    set_limit(RLIMIT_NOFILE, o->max_open_files);
    signal(SIGPIPE, SIG_DFL);
}

/* argv with "{VFD}" replaced by the verdict pipe's number. */
static char **child_argv(const cl_proc_opts *o, int vfd, char vfd_str[16])
{
    int argc = 0;
    while (o->argv[argc]) argc++;
    char **argv = calloc((size_t)argc + 1, sizeof *argv);
    if (!argv)
        return (char **)o->argv;
    snprintf(vfd_str, 16, "%d", vfd);
    for (int i = 0; i < argc; i++)
        argv[i] = !strcmp(o->argv[i], "{VFD}") ? vfd_str : o->argv[i];
    return argv;
}

static void child_exec(const cl_proc_opts *o, int in_fd, int out_fd, int vfd, char **env)
{
    setsid(); /* its own session and process group: we can kill all of it */
    child_descriptors(in_fd, out_fd, vfd);
    child_limits(o);
    if (o->cwd && chdir(o->cwd) != 0) {
        dprintf(STDERR_FILENO, "cannot enter %s: %s\n", o->cwd, strerror(errno));
        _exit(127);
    }
    char vfd_str[16];
    char **argv = child_argv(o, vfd, vfd_str);
    environ = env;
    execvp(argv[0], argv);
    dprintf(STDERR_FILENO, "cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
}

/* ---- children in flight: a signal that ends cudalab ends them too ---- */

/* The children cl_proc_run is waiting for run in sessions of their own, so a Ctrl-C at
 * the terminal, a SIGTERM from `timeout` or a closed terminal reaches cudalab but not
 * them: without this a grading would go on using the GPU after cudalab is gone. Their
 * process groups are kept here (slots claimed with a compare-and-swap: this is read in
 * a signal handler), and SIGINT, SIGTERM and SIGHUP kill the groups, then end cudalab as
 * the signal would have. Only where the signal's action is still the default: a command
 * with its own handler (`cudalab watch`) or an ignored signal (nohup) keeps it; such a
 * handler may call cl_proc_stop_running itself. */
#define LIVE_SLOTS 256
static volatile sig_atomic_t g_live[LIVE_SLOTS];
static const int g_ending[] = {SIGINT, SIGTERM, SIGHUP};

void cl_proc_stop_running(void)
{
    for (int i = 0; i < LIVE_SLOTS; i++) {
        pid_t p = (pid_t)g_live[i];
        if (p > 0)
            kill(-p, SIGKILL);
    }
}

static void on_ending_signal(int sig)
{
    int saved = errno;
    cl_proc_stop_running();
    signal(sig, SIG_DFL);
    raise(sig); /* delivered when the handler returns: the usual end, the usual status */
    errno = saved;
}

static void install_live_handlers(void)
{
    static int installed;
    if (installed)
        return;
    installed = 1;
    for (size_t i = 0; i < sizeof g_ending / sizeof g_ending[0]; i++) {
        struct sigaction old, sa;
        if (sigaction(g_ending[i], NULL, &old) != 0 || (old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL)
            continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_ending_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(g_ending[i], &sa, NULL);
    }
}

static void live_add(pid_t pid)
{
    for (int i = 0; i < LIVE_SLOTS; i++)
        if (__sync_bool_compare_and_swap(&g_live[i], 0, (sig_atomic_t)pid))
            return;
}

static void live_remove(pid_t pid)
{
    for (int i = 0; i < LIVE_SLOTS; i++)
        if (__sync_bool_compare_and_swap(&g_live[i], (sig_atomic_t)pid, 0))
            return;
}

/* ---- the parent's side: pipes, stdin, the watch loop, the result ---- */

typedef struct pipes {
    int out[2], ver[2], in[2];
} pipes;

static void close_pair(int p[2])
{
    if (p[0] >= 0) close(p[0]);
    if (p[1] >= 0) close(p[1]);
    p[0] = p[1] = -1;
}

static int open_pipes(pipes *p, int want_verdict, cl_err *err)
{
    p->out[0] = p->out[1] = p->ver[0] = p->ver[1] = p->in[0] = p->in[1] = -1;
    if (pipe2(p->out, O_CLOEXEC) != 0 || (want_verdict && pipe2(p->ver, O_CLOEXEC) != 0) ||
        pipe2(p->in, O_CLOEXEC) != 0) {
        int e = errno;
        close_pair(p->out);
        close_pair(p->ver);
        close_pair(p->in);
        return cl_err_set(err, "pipe: %s", strerror(e));
    }
    return 0;
}

/* Writes what the child must read, then closes (small: fits the pipe buffer). */
static void feed_stdin(int fd, const char *data)
{
    if (data) {
        signal(SIGPIPE, SIG_IGN);
        size_t left = strlen(data);
        while (left) {
            ssize_t w = write(fd, data, left);
            if (w <= 0) break;
            data += w;
            left -= (size_t)w;
        }
    }
    close(fd);
}

/* One supervised child, from fork to reaping. */
typedef struct watch {
    const cl_proc_opts *o;
    pid_t pid;
    int out_fd, v_fd;
    capture out, ver;
    char line[8192];
    size_t line_len;
    int status, reaped, timed_out;
    double deadline, grace_end;
} watch;

/* The child has exited: peek without reaping, so the group id stays ours while we kill
 * whatever it left behind, then reap. */
static void reap_if_exited(watch *w)
{
    if (w->reaped)
        return;
    siginfo_t si;
    memset(&si, 0, sizeof si);
    if (waitid(P_PID, (id_t)w->pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == w->pid) {
        kill(-w->pid, SIGKILL);
        waitpid(w->pid, &w->status, 0);
        w->reaped = 1;
        w->grace_end = cl_mono_s() + 2.0;
    }
}

static void kill_at_deadline(watch *w)
{
    w->timed_out = 1;
    kill(-w->pid, SIGKILL);
    kill(w->pid, SIGKILL);
    waitpid(w->pid, &w->status, 0);
    w->reaped = 1;
    w->grace_end = cl_mono_s() + 1.0;
}

/* Verdict bytes: kept, and handed to on_line one complete line at a time. */
static void take_verdict(watch *w, const char *buf, size_t got)
{
    capture_add(&w->ver, buf, got);
    for (size_t k = 0; k < got; k++) {
        if (buf[k] == '\n') {
            w->line[w->line_len] = '\0';
            if (w->o->on_line && !w->ver.overflow)
                w->o->on_line(w->o->ctx, w->line);
            w->line_len = 0;
        } else if (w->line_len + 1 < sizeof w->line) {
            w->line[w->line_len++] = buf[k];
        }
    }
}

/* Waits up to 100 ms for output and reads what came. -1 when poll failed. */
static int drain_once(watch *w)
{
    struct pollfd pf[2];
    int n = 0;
    if (w->out_fd >= 0) pf[n++] = (struct pollfd){w->out_fd, POLLIN, 0};
    if (w->v_fd >= 0) pf[n++] = (struct pollfd){w->v_fd, POLLIN, 0};
    if (n == 0) {
        usleep(20000);
        return 0;
    }
    int r = poll(pf, (nfds_t)n, 100);
    if (r < 0 && errno != EINTR)
        return -1;
    char buf[65536];
    for (int i = 0; i < n && r > 0; i++) {
        if (!(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
            continue;
        ssize_t got = read(pf[i].fd, buf, sizeof buf);
        if (got <= 0) {
            close(pf[i].fd);
            if (pf[i].fd == w->out_fd) w->out_fd = -1; else w->v_fd = -1;
            continue;
        }
        if (pf[i].fd == w->out_fd)
            capture_add(&w->out, buf, (size_t)got);
        else
            take_verdict(w, buf, (size_t)got);
    }
    return 0;
}

/* Until the child is gone and its pipes are closed (or a short grace after it ended). */
static void watch_child(watch *w)
{
    for (;;) {
        reap_if_exited(w);
        if (w->out_fd < 0 && w->v_fd < 0 && w->reaped)
            break;
        double now = cl_mono_s();
        if (w->reaped && now > w->grace_end)
            break;
        if (!w->reaped && w->deadline && now >= w->deadline) {
            kill_at_deadline(w);
            continue;
        }
        if (drain_once(w))
            break;
    }
    if (w->out_fd >= 0) close(w->out_fd);
    if (w->v_fd >= 0) close(w->v_fd);
    if (!w->reaped)
        waitpid(w->pid, &w->status, 0);
    kill(-w->pid, SIGKILL);
}

static void fill_result(cl_proc_result *res, watch *w, double seconds)
{
    res->seconds = seconds;
    res->timed_out = w->timed_out;
    if (!w->timed_out) {
        if (WIFEXITED(w->status)) {
            res->exited = 1;
            res->exit_code = WEXITSTATUS(w->status);
        } else if (WIFSIGNALED(w->status)) {
            res->signaled = 1;
            res->signal = WTERMSIG(w->status);
        }
    }
    res->output = w->out.buf;
    res->output_len = w->out.len;
    res->output_dropped = w->out.dropped;
    res->verdict = w->ver.buf;
    res->verdict_len = w->ver.len;
    res->verdict_overflow = w->ver.overflow;
}

static int alloc_captures(watch *w, const cl_proc_opts *o)
{
    w->out.cap = o->output_cap ? o->output_cap : 65536;
    w->ver.cap = o->verdict_cap ? o->verdict_cap : (4u << 20);
    w->out.buf = malloc(w->out.cap + 1);
    w->ver.buf = malloc(w->ver.cap + 1);
    if (!w->out.buf || !w->ver.buf) {
        free(w->out.buf);
        free(w->ver.buf);
        return -1;
    }
    w->out.buf[0] = w->ver.buf[0] = '\0';
    return 0;
}

int cl_proc_run(const cl_proc_opts *o, cl_proc_result *res, cl_err *err)
{
    memset(res, 0, sizeof *res);
    pipes p;
    if (open_pipes(&p, o->verdict_pipe, err))
        return -1;
    static const watch empty;
    watch w = empty;
    w.o = o;
    char **env = make_env(o->env_set);
    if (!env || alloc_captures(&w, o)) {
        free(env);
        close_pair(p.out);
        close_pair(p.ver);
        close_pair(p.in);
        return cl_err_set(err, "out of memory");
    }
    double t0 = cl_mono_s();
    /* the ending signals wait while the child is forked and registered, so that none can
     * come between the two and leave it behind */
    install_live_handlers();
    sigset_t ending, before;
    sigemptyset(&ending);
    for (size_t i = 0; i < sizeof g_ending / sizeof g_ending[0]; i++)
        sigaddset(&ending, g_ending[i]);
    sigprocmask(SIG_BLOCK, &ending, &before);
    w.pid = fork();
    if (w.pid == 0) {
        sigprocmask(SIG_SETMASK, &before, NULL);
        child_exec(o, p.in[0], p.out[1], o->verdict_pipe ? p.ver[1] : -1, env);
    }
    if (w.pid > 0) {
        setpgid(w.pid, w.pid); /* also from the parent, so the group exists before we may kill it */
        live_add(w.pid);
    }
    sigprocmask(SIG_SETMASK, &before, NULL);
    if (w.pid < 0) {
        int e = errno;
        free(env);
        free(w.out.buf);
        free(w.ver.buf);
        close_pair(p.out);
        close_pair(p.ver);
        close_pair(p.in);
        return cl_err_set(err, "fork: %s", strerror(e));
    }
    free(env);
    close(p.out[1]);
    close(p.in[0]);
    if (o->verdict_pipe)
        close(p.ver[1]);
    feed_stdin(p.in[1], o->stdin_data);
    w.out_fd = p.out[0];
    w.v_fd = o->verdict_pipe ? p.ver[0] : -1;
    w.deadline = o->timeout_s > 0 ? t0 + o->timeout_s : 0;
    watch_child(&w);
    live_remove(w.pid);
    fill_result(res, &w, cl_mono_s() - t0);
    return 0;
}

/* ---- a helper beside the caller ---- */

int cl_proc_spawn(char *const *argv, char *const *env, int fd_pass, int *pid_out, cl_err *err)
{
    pid_t pid = fork();
    if (pid < 0)
        return cl_err_set(err, "fork: %s", strerror(errno));
    if (pid == 0) {
        if (fd_pass >= 0 && fd_pass != 3) {
            if (dup2(fd_pass, 3) < 0)
                _exit(127);
        } else if (fd_pass == 3) {
            int flags = fcntl(3, F_GETFD);
            fcntl(3, F_SETFD, flags & ~FD_CLOEXEC);
        }
        close_from(fd_pass >= 0 ? 4 : 3, -1);
        set_limit(RLIMIT_CORE, 0);
        signal(SIGPIPE, SIG_DFL);
        if (env)
            environ = (char **)env;
        execvp(argv[0], argv);
        dprintf(STDERR_FILENO, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    *pid_out = (int)pid;
    return 0;
}

/* ---- a function in a child ---- */

int cl_proc_fork(int (*fn)(void *ctx), void *ctx, int *pid_out, cl_err *err)
{
    fflush(NULL); /* nothing buffered is written twice */
    pid_t pid = fork();
    if (pid < 0)
        return cl_err_set(err, "fork: %s", strerror(errno));
    if (pid == 0)
        _exit(fn(ctx) & 0xff);
    *pid_out = (int)pid;
    return 0;
}

int cl_proc_wait(int pid, int *status)
{
    int st = 0;
    while (waitpid((pid_t)pid, &st, 0) < 0)
        if (errno != EINTR)
            return -1;
    if (status)
        *status = st;
    return 0;
}

/* ---- helpers ---- */

int cl_proc_capture(char *const *argv, double timeout_s, size_t cap, char **out, cl_err *err)
{
    cl_proc_opts o = {0};
    o.argv = argv;
    o.timeout_s = timeout_s;
    o.output_cap = cap;
    cl_proc_result r;
    *out = NULL;
    if (cl_proc_run(&o, &r, err))
        return -1;
    int ok = r.exited && r.exit_code == 0;
    *out = r.output;
    r.output = NULL;
    cl_proc_result_free(&r);
    return ok ? 0 : 1;
}

void cl_proc_result_free(cl_proc_result *res)
{
    free(res->output);
    free(res->verdict);
    memset(res, 0, sizeof *res);
}

void cl_proc_describe_lang(const cl_proc_result *res, double timeout_s, cl_lang lang, char *out, size_t n)
{
    if (res->timed_out)
        snprintf(out, n, cl_tr_lang(lang, "timed out after %.0f s (the whole process group was killed)"), timeout_s);
    else if (res->signaled)
        snprintf(out, n, cl_tr_lang(lang, "killed by signal %d (%s)"), res->signal, strsignal(res->signal));
    else if (res->exited)
        snprintf(out, n, cl_tr_lang(lang, "exit code %d"), res->exit_code);
    else
        snprintf(out, n, "%s", cl_tr_lang(lang, "ended in an unknown way"));
}

void cl_proc_describe(const cl_proc_result *res, double timeout_s, char *out, size_t n)
{
    cl_proc_describe_lang(res, timeout_s, CL_LANG_EN, out, n);
}
