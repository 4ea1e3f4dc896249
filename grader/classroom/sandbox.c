/* sandbox.c: where a submission is graded, so that it cannot read other submissions, the
 * gradebook or the course secret, nor change anything the next submission depends on.
 *
 * Modes (docs/classroom.md has the threat model):
 *   namespaces  a worker process unshares a mount, PID and IPC namespace (and, when not
 *               root, a user namespace mapping only the caller's uid), then forks the
 *               grading process, PID 1 of the new namespace. That process makes the
 *               whole filesystem read-only, covers the hidden paths (submissions, output
 *               folder, course config and secret, the shared build cache) and the
 *               homes (/home, /root, /run/user) with empty tmpfs, gives itself private
 *               /tmp, /var/tmp and /dev/shm, binds back what grading needs (its stage
 *               directory read-write; the runner, the lab home and the CUDA toolkit
 *               read-only), mounts a /proc that shows only its own namespace, and drops
 *               every privilege (root: a uid of its own per worker; otherwise all
 *               capabilities). When it exits, the kernel kills whatever is left in it.
 *   user        root without namespaces (a container): the grading process runs as a
 *               uid of its own; the hidden paths must not be world-readable.
 *   none        --no-sandbox: the grading process runs with the caller's rights.
 * In every mode the grading process is not dumpable (no ptrace, no /proc/<pid>/fd from
 * the solution), has no_new_privs, and an environment reduced to a safe list. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "grader/classroom.h"
#include "grader/proc.h"

extern char **environ;

#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif
#define CL_MOUNT_ATTR_RDONLY 0x00000001ull
#define CL_RT_KEEP_MAX 24

struct cl_mount_attr {
    uint64_t attr_set, attr_clr, propagation, userns_fd;
};

static int set_readonly(const char *path, int recursive, int on)
{
    struct cl_mount_attr a = {0};
    if (on)
        a.attr_set = CL_MOUNT_ATTR_RDONLY;
    else
        a.attr_clr = CL_MOUNT_ATTR_RDONLY;
    return (int)syscall(SYS_mount_setattr, AT_FDCWD, path, recursive ? AT_RECURSIVE : 0, &a, sizeof a);
}

/* A bind mount made read-only (the mount's other flags kept, which user namespaces require). */
static int bind_ro(const char *from, const char *to)
{
    if (mount(from, to, NULL, MS_BIND, NULL) != 0)
        return -1;
    if (set_readonly(to, 0, 1) == 0)
        return 0;
    return mount(NULL, to, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL);
}

void cl_sandbox_hide(cl_sandbox *sb, const char *path)
{
    if (!path || !*path || sb->nhide >= (int)(sizeof sb->hide / sizeof sb->hide[0]))
        return;
    char real[CL_PATH_MAX];
    if (!realpath(path, real))
        snprintf(real, sizeof real, "%s", path);
    for (int i = 0; i < sb->nhide; i++)
        if (!strcmp(sb->hide[i], real))
            return;
    snprintf(sb->hide[sb->nhide++], CL_PATH_MAX, "%s", real);
}

/* 1 when path is dir or below it */
static int under(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    if (n == 1 && dir[0] == '/')
        return 1;
    return !strncmp(path, dir, n) && (path[n] == '\0' || path[n] == '/');
}

/* ---- the child side: every failure is reported as "E:<why>" on the pipe ---- */

static void fail(int fd, const char *what, int e)
{
    dprintf(fd, "E:sandbox: %s: %s", what, strerror(e));
    _exit(111);
}

static int write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = (ssize_t)strlen(text);
    int ok = write(fd, text, (size_t)n) == n;
    close(fd);
    return ok ? 0 : -1;
}

static void mkdirs_in(const char *path)
{
    char buf[CL_PATH_MAX];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(buf, 0755);
            *p = '/';
        }
    mkdir(buf, 0755);
}

static const char *const g_private_tmp[] = {"/tmp", "/var/tmp", "/dev/shm", NULL};
static const char *const g_hide_roots[] = {"/home", "/root", "/run/user", "/var/mail", NULL};

typedef struct keep_fd {
    char path[CL_PATH_MAX];
    int fd;
    int rw;
} keep_fd;

static int by_length(const void *a, const void *b)
{
    return (int)strlen(((const keep_fd *)a)->path) - (int)strlen(((const keep_fd *)b)->path);
}

/* What must stay visible, opened before anything is covered: the kept paths (an inner one
 * folded into its outer one), shortest first, and the stage last, read-write. Returns how
 * many; keeps has room for 24. */
static int open_keeps(const char *stage, const char *const *keep, keep_fd *keeps, int out)
{
    int nk = 0;
    for (const char *const *k = keep; k && *k && nk < 22; k++) {
        char real[CL_PATH_MAX];
        if (!realpath(*k, real))
            continue;
        int dup_ = 0;
        for (int j = 0; j < nk; j++)
            dup_ |= under(real, keeps[j].path) || under(keeps[j].path, real);
        if (dup_) { /* keep the outer one */
            for (int j = 0; j < nk; j++)
                if (under(keeps[j].path, real))
                    snprintf(keeps[j].path, sizeof keeps[j].path, "%s", real);
            continue;
        }
        snprintf(keeps[nk].path, sizeof keeps[nk].path, "%s", real);
        keeps[nk].rw = 0;
        nk++;
    }
    qsort(keeps, (size_t)nk, sizeof keeps[0], by_length);
    keep_fd *st_keep = &keeps[nk];
    if (!realpath(stage, st_keep->path))
        fail(out, "the stage is gone", errno);
    st_keep->rw = 1;
    nk++;
    for (int i = 0; i < nk; i++)
        if ((keeps[i].fd = open(keeps[i].path, O_PATH | O_CLOEXEC)) < 0)
            fail(out, "cannot open a needed folder", errno);
    return nk;
}

/* The folders to cover with an empty tmpfs: the homes, and (as root) a folder the sandbox
 * uid could not pass on the way to a kept path (the kept paths are bound back inside).
 * Returns how many; covered has room for 16 + CL_RT_KEEP_MAX. */
static int choose_covers(const cl_sandbox *sb, const keep_fd *keeps, int nk, const char **covered)
{
    static char extra[CL_RT_KEEP_MAX][CL_PATH_MAX];
    int nc = 0;
    for (int i = 0; g_hide_roots[i]; i++)
        covered[nc++] = g_hide_roots[i];
    for (int i = 0; sb->as_root && i < nk && i < CL_RT_KEEP_MAX; i++) {
        char cur[CL_PATH_MAX] = "";
        extra[i][0] = '\0';
        for (const char *p = keeps[i].path + 1; *p; p++) {
            if (*p != '/')
                continue;
            snprintf(cur, sizeof cur, "%.*s", (int)(p - keeps[i].path), keeps[i].path);
            struct stat st;
            if (stat(cur, &st) == 0 && S_ISDIR(st.st_mode) && !(st.st_mode & S_IXOTH)) {
                snprintf(extra[i], sizeof extra[i], "%s", cur);
                break;
            }
        }
        int dup_ = !extra[i][0];
        for (int c = 0; c < nc && !dup_; c++)
            dup_ = under(extra[i], covered[c]);
        if (!dup_)
            covered[nc++] = extra[i];
    }
    return nc;
}

/* Covers each folder of covered that exists (the others are dropped from it); then the
 * private /tmp, /var/tmp and /dev/shm. Returns how many covers were mounted. */
static int mount_covers(const char **covered, int nc, int out)
{
    for (int i = 0; i < nc;) {
        struct stat st;
        if (stat(covered[i], &st) != 0 || !S_ISDIR(st.st_mode)) {
            covered[i] = covered[--nc];
            continue;
        }
        if (mount("tmpfs", covered[i], "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1m") != 0)
            fail(out, "cannot cover the home folders", errno);
        i++;
    }
    for (int i = 0; g_private_tmp[i]; i++) {
        struct stat st;
        if (stat(g_private_tmp[i], &st) == 0 && S_ISDIR(st.st_mode) &&
            mount("tmpfs", g_private_tmp[i], "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777,size=4g") != 0)
            fail(out, "cannot make a private /tmp", errno);
    }
    return nc;
}

/* Binds back the kept paths that were covered (outer first), and the stage always. */
static void bind_back(const keep_fd *keeps, int nk, const char *const *covered, int nc, int out)
{
    for (int i = 0; i < nk; i++) {
        int hidden = keeps[i].rw;
        for (int c = 0; c < nc; c++)
            hidden |= under(keeps[i].path, covered[c]);
        for (int c = 0; g_private_tmp[c]; c++)
            hidden |= under(keeps[i].path, g_private_tmp[c]);
        if (!hidden)
            continue;
        char src[64];
        snprintf(src, sizeof src, "/proc/self/fd/%d", keeps[i].fd);
        mkdirs_in(keeps[i].path);
        if (mount(src, keeps[i].path, NULL, MS_BIND | MS_REC, NULL) != 0)
            fail(out, "cannot bind a needed folder back", errno);
    }
}

/* The stage is the one place the grading may write, but for what the grader put there for
 * itself (ceilings, the reference's build). ro: the whole filesystem was made read-only. */
static void open_stage(const char *stage_path, int ro, const char *const *protect, int out)
{
    if (ro && set_readonly(stage_path, 1, 0) != 0)
        fail(out, "cannot make the stage writable", errno);
    for (const char *const *p = protect; p && *p; p++) {
        if (bind_ro(*p, *p) != 0)
            fail(out, "cannot protect the grader's files in the stage", errno);
    }
}

/* The hidden paths: folders become empty, files empty (and all of it read-only). */
static void hide_paths(const cl_sandbox *sb, int out)
{
    const char *empty = "/tmp/.cudalab-hidden";
    int efd = open(empty, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444);
    if (efd >= 0)
        close(efd);
    for (int i = 0; i < sb->nhide; i++) {
        struct stat st;
        if (lstat(sb->hide[i], &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            if (mount("tmpfs", sb->hide[i], "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY,
                      "mode=0755,size=4k") != 0)
                fail(out, "cannot hide a folder", errno);
        } else {
            if (bind_ro(empty, sb->hide[i]) != 0)
                fail(out, "cannot hide a file", errno);
        }
    }
}

/* The grading process's view of the filesystem, in this order: private mounts; the kept
 * paths opened; everything read-only; the covers and private /tmp; the kept paths bound
 * back; the stage writable; the hidden paths emptied; the covers read-only; a private /proc. */
static void build_fs(const cl_sandbox *sb, const char *stage, const char *const *keep, const char *const *protect,
                     int out)
{
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
        fail(out, "cannot make the mounts private", errno);
    keep_fd keeps[24];
    int nk = open_keeps(stage, keep, keeps, out);
    /* everything read-only (kernels >= 5.12; older ones keep their write bits) */
    int ro = set_readonly("/", 1, 1) == 0;
    const char *covered[16 + CL_RT_KEEP_MAX];
    int nc = choose_covers(sb, keeps, nk, covered);
    nc = mount_covers(covered, nc, out);
    bind_back(keeps, nk, covered, nc, out);
    open_stage(keeps[nk - 1].path, ro, protect, out);
    hide_paths(sb, out);
    for (int c = 0; c < nc; c++)
        if (mount(NULL, covered[c], NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, "mode=0755,size=1m") != 0)
            fail(out, "cannot make the home covers read-only", errno);
    /* a /proc of this PID namespace only: no /proc/<pid>/root of anything outside */
    if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0)
        fail(out, "cannot mount a private /proc", errno);
    for (int i = 0; i < nk; i++)
        close(keeps[i].fd);
}

static void drop_caps(int out)
{
    for (int c = 0; c <= 63; c++)
        if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) != 0 && errno != EINVAL)
            fail(out, "cannot drop capabilities", errno);
    struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct d[2];
    memset(d, 0, sizeof d);
    if (syscall(SYS_capset, &h, d) != 0)
        fail(out, "cannot drop capabilities", errno);
}

static void drop_privileges(const cl_sandbox *sb, int slot, int out)
{
    if (sb->as_root && sb->mode != CL_SANDBOX_NONE) {
        uid_t uid = (uid_t)(sb->uid + (unsigned)slot);
        if (setgroups(0, NULL) != 0 || setresgid(uid, uid, uid) != 0 || setresuid(uid, uid, uid) != 0)
            fail(out, "cannot switch to the sandbox uid", errno);
    } else if (sb->mode == CL_SANDBOX_NAMESPACES) {
        drop_caps(out);
    }
    if (sb->mode != CL_SANDBOX_NONE && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        fail(out, "no_new_privs", errno);
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    /* a change of uid clears the parent-death signal: ask again, then check the parent.
     * SIGTERM, not SIGKILL: the gradings this process starts run in sessions of their own
     * (cl_proc_run), and its SIGTERM handler kills them before it ends; without a PID
     * namespace (mode user) nothing else would */
    pid_t parent = getppid();
    prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0);
    if (parent != getppid())
        _exit(112);
}

/* The environment a submission sees: a safe list, the stage's folders, and env_set. */
static void reset_env(const char *stage, const char *const *env_set, int private_tmp)
{
    static const char *const keep_exact[] = {"PATH", "LANG", "LANGUAGE", "TZ", "TERM", "NO_COLOR", "LD_LIBRARY_PATH",
                                             "CUDALAB_HOME", "CUDALAB_NVCC", NULL};
    static const char *const keep_prefix[] = {"LC_", "CUDA_", "NVIDIA_", "NCCL_", "TORCH_SYMM", "NVSHMEM_", NULL};
    char **old = environ;
    int n = 0;
    while (old[n]) n++;
    char **saved = calloc((size_t)n + 1, sizeof *saved);
    int m = 0;
    for (int i = 0; i < n; i++) {
        size_t len = strcspn(old[i], "=");
        int ok = 0;
        for (int k = 0; keep_exact[k] && !ok; k++)
            ok = strlen(keep_exact[k]) == len && !strncmp(old[i], keep_exact[k], len);
        for (int k = 0; keep_prefix[k] && !ok; k++)
            ok = !strncmp(old[i], keep_prefix[k], strlen(keep_prefix[k]));
        if (ok && saved)
            saved[m++] = strdup(old[i]);
    }
    clearenv();
    for (int i = 0; i < m; i++)
        putenv(saved[i]);
    char buf[CL_PATH_MAX + 32];
    static const char *const dirs[][2] = {{"HOME", "home"}, {"XDG_CACHE_HOME", "cache"}, {"XDG_DATA_HOME", "data"},
                                          {"XDG_CONFIG_HOME", "home/.config"}, {"TMPDIR", "tmp"}};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        snprintf(buf, sizeof buf, "%s/%s", stage, dirs[i][1]);
        mkdirs_in(buf);
        setenv(dirs[i][0], buf, 1);
    }
    if (private_tmp) /* the namespace's own /tmp */
        setenv("TMPDIR", "/tmp", 1);
    for (const char *const *e = env_set; e && *e; e++) {
        char *copy = strdup(*e);
        if (copy && strchr(copy, '='))
            putenv(copy);
    }
}

static void grade_child(const cl_sandbox *sb, int slot, const char *stage, const char *const *env_set,
                        int (*fn)(void *, int), void *ctx, int out)
{
    drop_privileges(sb, slot, out);
    reset_env(stage, env_set, sb->mode == CL_SANDBOX_NAMESPACES); /* its folders made by the sandbox's uid */
    char src[CL_PATH_MAX];
    snprintf(src, sizeof src, "%s/src", stage);
    if (chdir(src) != 0 && chdir(stage) != 0)
        fail(out, "cannot enter the stage", errno);
    int rc = fn(ctx, out);
    _exit(rc ? 1 : 0);
}

/* What the sandbox's two children (the worker, and PID 1 of its namespace) need. */
typedef struct sandbox_child {
    const cl_sandbox *sb;
    int slot;
    const char *stage;
    const char *const *keep, *const *protect, *const *env_set;
    int (*fn)(void *ctx, int out_fd);
    void *ctx;
    int out, unused_in; /* the answer pipe's write end; its read end, the parent's */
    uid_t uid;
    gid_t gid;
    pid_t parent;
} sandbox_child;

/* PID 1 of the new namespaces: the filesystem, then the grading. */
static int namespace_init(void *v)
{
    sandbox_child *c = v;
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    build_fs(c->sb, c->stage, c->keep, c->protect, c->out);
    grade_child(c->sb, c->slot, c->stage, c->env_set, c->fn, c->ctx, c->out);
    return 1; /* not reached: grade_child exits */
}

/* Gives the worker (already in the new user namespace) only the caller's uid and gid. */
static void map_ids(const sandbox_child *c)
{
    char map[64];
    snprintf(map, sizeof map, "%u %u 1\n", (unsigned)c->uid, (unsigned)c->uid);
    if (write_file("/proc/self/setgroups", "deny") != 0 || write_file("/proc/self/uid_map", map) != 0)
        fail(c->out, "cannot map the user namespace", errno);
    snprintf(map, sizeof map, "%u %u 1\n", (unsigned)c->gid, (unsigned)c->gid);
    if (write_file("/proc/self/gid_map", map) != 0)
        fail(c->out, "cannot map the user namespace", errno);
}

/* The worker: without namespaces it grades itself; with them it unshares, starts PID 1
 * of the new namespace and passes on how it ended. */
static int sandbox_worker(void *v)
{
    sandbox_child *c = v;
    close(c->unused_in);
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    if (getppid() != c->parent)
        _exit(112);
    signal(SIGINT, SIG_IGN); /* the parent decides; Ctrl-C reaches it and it kills us */
    if (c->sb->mode != CL_SANDBOX_NAMESPACES)
        grade_child(c->sb, c->slot, c->stage, c->env_set, c->fn, c->ctx, c->out);
    int flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | (c->sb->as_root ? 0 : CLONE_NEWUSER);
    if (unshare(flags) != 0)
        fail(c->out, "unshare", errno);
    if (!c->sb->as_root)
        map_ids(c);
    int init;
    cl_err err;
    if (cl_proc_fork(namespace_init, c, &init, &err)) {
        dprintf(c->out, "E:sandbox: %s", err.msg);
        _exit(111);
    }
    close(c->out);
    int st = 0;
    cl_proc_wait(init, &st);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

int cl_sandbox_spawn(const cl_sandbox *sb, int slot, const char *stage_dir, const char *const *keep,
                     const char *const *protect, const char *const *env_set, int (*fn)(void *ctx, int out_fd), void *ctx, int *pid_out,
                     int *read_fd, cl_err *err)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0)
        return cl_err_set(err, "pipe: %s", strerror(errno));
    sandbox_child c = {sb, slot, stage_dir, keep, protect, env_set, fn, ctx, p[1], p[0], getuid(), getgid(), getpid()};
    if (cl_proc_fork(sandbox_worker, &c, pid_out, err)) {
        close(p[0]);
        close(p[1]);
        return -1;
    }
    close(p[1]);
    *read_fd = p[0];
    return 0;
}

void cl_sandbox_stop(int pid)
{
    kill((pid_t)pid, SIGTERM);
    for (int i = 0; i < 200; i++) { /* 2 s */
        siginfo_t si;
        memset(&si, 0, sizeof si);
        if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid)
            return;
        usleep(10000);
    }
    kill((pid_t)pid, SIGKILL);
}

/* ---- choosing a mode ---- */

typedef struct probe_ctx {
    const cl_sandbox *sb;
    const char *const *keep;
} probe_ctx;

static int probe_fn(void *vctx, int out)
{
    probe_ctx *c = vctx;
    /* the sandbox's uid must reach what grading needs... */
    for (const char *const *k = c->keep; k && *k; k++)
        if (access(*k, R_OK | X_OK) != 0) {
            dprintf(out, "E:the sandbox cannot reach %s (%s): make it readable by other users", *k, strerror(errno));
            return 1;
        }
    /* ...and, without namespaces to cover them, nothing it must not see */
    for (int i = 0; c->sb->mode == CL_SANDBOX_USER && i < c->sb->nhide; i++)
        if (access(c->sb->hide[i], R_OK) == 0) {
            dprintf(out, "E:without namespaces the sandbox's uid could read %s: make it private "
                         "(chmod -R go-rwx) or grade where namespaces work", c->sb->hide[i]);
            return 1;
        }
    dprintf(out, "ok uid=%u", (unsigned)getuid());
    return 0;
}

static int probe(const cl_sandbox *sb, const char *const *keep, char *why, size_t n)
{
    char tmpl[] = "/tmp/cudalab-sandbox-probe-XXXXXX";
    const char *base = getenv("TMPDIR");
    char dir[CL_PATH_MAX];
    snprintf(dir, sizeof dir, "%s/cudalab-sandbox-probe-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(dir) && !mkdtemp(tmpl)) {
        snprintf(why, n, "cannot make a temporary folder");
        return -1;
    }
    if (sb->as_root && sb->mode != CL_SANDBOX_NONE) {
        chmod(dir, 0711);
        if (chown(dir, sb->uid, sb->uid) != 0) {
            snprintf(why, n, "cannot hand the stage to uid %u", sb->uid);
            return -1;
        }
    }
    int pid, fd;
    cl_err err;
    probe_ctx pc = {sb, keep};
    if (cl_sandbox_spawn(sb, 0, dir, keep, NULL, NULL, probe_fn, &pc, &pid, &fd, &err)) {
        snprintf(why, n, "%s", err.msg);
        cl_rmtree(dir, &err);
        return -1;
    }
    char buf[512];
    size_t len = 0;
    ssize_t got;
    while (len + 1 < sizeof buf && (got = read(fd, buf + len, sizeof buf - 1 - len)) > 0)
        len += (size_t)got;
    buf[len] = '\0';
    close(fd);
    cl_proc_wait(pid, NULL);
    cl_rmtree(dir, &err);
    if (strncmp(buf, "ok", 2)) {
        snprintf(why, n, "%s", !strncmp(buf, "E:", 2) ? buf + 2 : "the probe failed");
        return -1;
    }
    return 0;
}

int cl_sandbox_resolve(cl_sandbox *sb, cl_sandbox_mode want, unsigned uid_base, const char *const *keep,
                       cl_err *err)
{
    int nhide = sb->nhide;
    char hide[16][CL_PATH_MAX];
    memcpy(hide, sb->hide, sizeof hide);
    memset(sb, 0, sizeof *sb);
    sb->nhide = nhide;
    memcpy(sb->hide, hide, sizeof hide);
    sb->as_root = geteuid() == 0;
    sb->uid = uid_base ? uid_base : 64000;
    char why[512] = "";
    if (want == CL_SANDBOX_NONE) {
        sb->mode = CL_SANDBOX_NONE;
        snprintf(sb->describe, sizeof sb->describe, "none: submissions run with your rights (--no-sandbox)");
        return 0;
    }
    if (want == CL_SANDBOX_AUTO || want == CL_SANDBOX_NAMESPACES) {
        sb->mode = CL_SANDBOX_NAMESPACES;
        if (probe(sb, keep, why, sizeof why) == 0) {
            if (sb->as_root)
                snprintf(sb->describe, sizeof sb->describe,
                         "namespaces (mount, pid, ipc), read-only filesystem, uid %u + worker", sb->uid);
            else
                snprintf(sb->describe, sizeof sb->describe,
                         "namespaces (user, mount, pid, ipc), read-only filesystem, no capabilities");
            return 0;
        }
        if (want == CL_SANDBOX_NAMESPACES)
            return cl_err_set(err, "the namespace sandbox does not work here: %s", why);
    }
    if (sb->as_root) {
        char why2[512];
        sb->mode = CL_SANDBOX_USER;
        if (probe(sb, keep, why2, sizeof why2) == 0) {
            snprintf(sb->describe, sizeof sb->describe, "uid %u + worker, no namespaces (%s)", sb->uid,
                     why[0] ? why : "as configured");
            return 0;
        }
        return cl_err_set(err, "cannot isolate submissions: %s; %s", why[0] ? why : "no namespaces", why2);
    }
    return cl_err_set(err,
                      "cannot isolate submissions (%s). Run as root, allow unprivileged user namespaces "
                      "(sysctl kernel.unprivileged_userns_clone=1), or grade trusted code with --no-sandbox",
                      why[0] ? why : "user mode needs root");
}

/* Hands a stage folder to the uid a worker runs as (root only). */
int cl_sandbox_own(const cl_sandbox *sb, int slot, const char *dir, cl_err *err)
{
    if (!sb->as_root || sb->mode == CL_SANDBOX_NONE)
        return 0;
    uid_t uid = (uid_t)(sb->uid + (unsigned)slot);
    char cmd_path[CL_PATH_MAX];
    /* walk the tree without following links (the stage holds only what we copied) */
    struct stat st;
    if (lstat(dir, &st) != 0)
        return cl_err_set(err, "%s: %s", dir, strerror(errno));
    if (lchown(dir, uid, uid) != 0)
        return cl_err_set(err, "cannot hand %s to uid %u: %s", dir, (unsigned)uid, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return 0;
    chmod(dir, 0700);
    DIR *d = opendir(dir);
    if (!d)
        return cl_err_set(err, "%s: %s", dir, strerror(errno));
    struct dirent *e;
    int rc = 0;
    while (!rc && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        cl_path_join(cmd_path, sizeof cmd_path, dir, e->d_name);
        rc = cl_sandbox_own(sb, slot, cmd_path, err);
    }
    closedir(d);
    return rc;
}
