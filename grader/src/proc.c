/* proc.c: the supervisor: fork/exec with a new process group, limits, capped capture,
 * a private verdict pipe, and a wall-clock timeout that kills the whole group. */
#include "grader/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

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

static void child_exec(const cl_proc_opts *o, int in_fd, int out_fd, int vfd, char **env)
{
    setsid(); /* its own session and process group: we can kill all of it */
    if (in_fd >= 0) dup2(in_fd, STDIN_FILENO);
    dup2(out_fd, STDOUT_FILENO);
    dup2(out_fd, STDERR_FILENO);
    /* close everything else except the verdict pipe */
    long maxfd = sysconf(_SC_OPEN_MAX);
    if (maxfd < 0 || maxfd > 65536) maxfd = 65536;
    for (int fd = 3; fd < maxfd; fd++)
        if (fd != vfd)
            close(fd);
    if (vfd >= 0) {
        int flags = fcntl(vfd, F_GETFD);
        fcntl(vfd, F_SETFD, flags & ~FD_CLOEXEC);
    }
    set_limit(RLIMIT_CORE, 0);
    set_limit(RLIMIT_FSIZE, o->max_file_bytes);
    set_limit(RLIMIT_NPROC, o->max_procs);
    set_limit(RLIMIT_NOFILE, o->max_open_files);
    signal(SIGPIPE, SIG_DFL);
    if (o->cwd && chdir(o->cwd) != 0) {
        dprintf(STDERR_FILENO, "cannot enter %s: %s\n", o->cwd, strerror(errno));
        _exit(127);
    }
    /* argv with {VFD} replaced */
    int argc = 0;
    while (o->argv[argc]) argc++;
    char **argv = calloc((size_t)argc + 1, sizeof *argv);
    char vfd_str[16];
    snprintf(vfd_str, sizeof vfd_str, "%d", vfd);
    for (int i = 0; i < argc; i++)
        argv[i] = !strcmp(o->argv[i], "{VFD}") ? vfd_str : o->argv[i];
    environ = env;
    execvp(argv[0], argv);
    dprintf(STDERR_FILENO, "cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
}

int cl_proc_run(const cl_proc_opts *o, cl_proc_result *res, cl_err *err)
{
    memset(res, 0, sizeof *res);
    int out_pipe[2] = {-1, -1}, v_pipe[2] = {-1, -1}, in_pipe[2] = {-1, -1};
    if (pipe2(out_pipe, O_CLOEXEC) != 0)
        return cl_err_set(err, "pipe: %s", strerror(errno));
    if (o->verdict_pipe && pipe2(v_pipe, O_CLOEXEC) != 0) {
        close(out_pipe[0]); close(out_pipe[1]);
        return cl_err_set(err, "pipe: %s", strerror(errno));
    }
    if (pipe2(in_pipe, O_CLOEXEC) != 0) {
        close(out_pipe[0]); close(out_pipe[1]);
        if (v_pipe[0] >= 0) { close(v_pipe[0]); close(v_pipe[1]); }
        return cl_err_set(err, "pipe: %s", strerror(errno));
    }
    char **env = make_env(o->env_set);
    capture out = {0}, ver = {0};
    out.cap = o->output_cap ? o->output_cap : 65536;
    ver.cap = o->verdict_cap ? o->verdict_cap : (4u << 20);
    out.buf = malloc(out.cap + 1);
    ver.buf = malloc(ver.cap + 1);
    if (!env || !out.buf || !ver.buf) {
        free(env); free(out.buf); free(ver.buf);
        return cl_err_set(err, "out of memory");
    }
    out.buf[0] = ver.buf[0] = '\0';

    double t0 = now_s();
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        free(env); free(out.buf); free(ver.buf);
        return cl_err_set(err, "fork: %s", strerror(e));
    }
    if (pid == 0)
        child_exec(o, in_pipe[0], out_pipe[1], o->verdict_pipe ? v_pipe[1] : -1, env);
    setpgid(pid, pid); /* also from the parent, so the group exists before we may kill it */
    free(env);
    close(out_pipe[1]);
    close(in_pipe[0]);
    if (o->verdict_pipe)
        close(v_pipe[1]);
    /* stdin: write what the child must read, then close (small: fits the pipe buffer) */
    if (o->stdin_data) {
        signal(SIGPIPE, SIG_IGN);
        size_t left = strlen(o->stdin_data);
        const char *p = o->stdin_data;
        while (left) {
            ssize_t w = write(in_pipe[1], p, left);
            if (w <= 0) break;
            p += w;
            left -= (size_t)w;
        }
    }
    close(in_pipe[1]);

    int out_fd = out_pipe[0], v_fd = o->verdict_pipe ? v_pipe[0] : -1;
    char line[8192];
    size_t line_len = 0;
    int status = 0, reaped = 0;
    double deadline = o->timeout_s > 0 ? t0 + o->timeout_s : 0, grace_end = 0;
    char buf[65536];
    for (;;) {
        struct pollfd pf[2];
        int n = 0;
        if (out_fd >= 0) pf[n++] = (struct pollfd){out_fd, POLLIN, 0};
        if (v_fd >= 0) pf[n++] = (struct pollfd){v_fd, POLLIN, 0};
        if (!reaped) {
            /* peek without reaping, so the group id stays ours while we kill it */
            siginfo_t si;
            memset(&si, 0, sizeof si);
            if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid) {
                kill(-pid, SIGKILL); /* the child is gone: whatever it left behind goes too */
                waitpid(pid, &status, 0);
                reaped = 1;
                grace_end = now_s() + 2.0;
            }
        }
        if (n == 0 && reaped)
            break;
        double now = now_s();
        if (reaped && now > grace_end)
            break;
        if (!reaped && deadline && now >= deadline) {
            res->timed_out = 1;
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            reaped = 1;
            grace_end = now_s() + 1.0;
            continue;
        }
        int wait_ms = 100;
        if (n == 0) {
            usleep(20000);
            continue;
        }
        int r = poll(pf, (nfds_t)n, wait_ms);
        if (r < 0 && errno != EINTR)
            break;
        for (int i = 0; i < n && r > 0; i++) {
            if (!(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            ssize_t got = read(pf[i].fd, buf, sizeof buf);
            if (got <= 0) {
                close(pf[i].fd);
                if (pf[i].fd == out_fd) out_fd = -1; else v_fd = -1;
                continue;
            }
            if (pf[i].fd == out_fd) {
                capture_add(&out, buf, (size_t)got);
            } else {
                capture_add(&ver, buf, (size_t)got);
                for (ssize_t k = 0; k < got; k++) {
                    if (buf[k] == '\n') {
                        line[line_len] = '\0';
                        if (o->on_line && !ver.overflow)
                            o->on_line(o->ctx, line);
                        line_len = 0;
                    } else if (line_len + 1 < sizeof line) {
                        line[line_len++] = buf[k];
                    }
                }
            }
        }
    }
    if (out_fd >= 0) close(out_fd);
    if (v_fd >= 0) close(v_fd);
    if (!reaped)
        waitpid(pid, &status, 0);
    kill(-pid, SIGKILL);
    res->seconds = now_s() - t0;
    if (!res->timed_out) {
        if (WIFEXITED(status)) {
            res->exited = 1;
            res->exit_code = WEXITSTATUS(status);
        } else if (WIFSIGNALED(status)) {
            res->signaled = 1;
            res->signal = WTERMSIG(status);
        }
    }
    res->output = out.buf;
    res->output_len = out.len;
    res->output_dropped = out.dropped;
    res->verdict = ver.buf;
    res->verdict_len = ver.len;
    res->verdict_overflow = ver.overflow;
    return 0;
}

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
        long maxfd = sysconf(_SC_OPEN_MAX);
        if (maxfd < 0 || maxfd > 65536) maxfd = 65536;
        for (int fd = fd_pass >= 0 ? 4 : 3; fd < maxfd; fd++)
            close(fd);
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

void cl_proc_describe(const cl_proc_result *res, double timeout_s, char *out, size_t n)
{
    if (res->timed_out)
        snprintf(out, n, "timed out after %.0f s (the whole process group was killed)", timeout_s);
    else if (res->signaled)
        snprintf(out, n, "killed by signal %d (%s)", res->signal, strsignal(res->signal));
    else if (res->exited)
        snprintf(out, n, "exit code %d", res->exit_code);
    else
        snprintf(out, n, "ended in an unknown way");
}
