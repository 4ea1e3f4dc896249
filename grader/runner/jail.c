/* jail.c: the seccomp filter and Landlock ruleset of the solution's process.
 *
 * The filter allows by default (the CUDA driver's ioctl and mmap traffic makes an allow-list
 * brittle) and refuses, with EPERM, what a solution could use to escape its run: creating
 * processes (so nothing outlives it), touching other processes (signals, ptrace, reading
 * their memory), changing session or group, hiding itself (dumpable, pdeathsig), namespaces,
 * mounts, keys and the network. Landlock keeps its writes beneath a few folders, so the
 * self-study caches (ceilings, reference builds) cannot be rewritten by it, and keeps it off
 * the device nodes of GPUs that are not its own (a class run's other workers). */
#include "jail.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/landlock.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* rights newer than some distributions' kernel headers (the kernel's ABI, stable) */
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14) /* Landlock ABI 3 */
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15) /* Landlock ABI 5 */
#endif

#ifndef PR_SET_PTRACER
#define PR_SET_PTRACER 0x59616d61
#endif

#ifdef SYS_landlock_create_ruleset
static void allow_beneath(int rs, const char *path, __u64 access)
{
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0)
        return; /* a path that does not exist needs no rule */
    struct stat st;
    if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode)) /* a file takes only the file rights */
        access &= LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE |
                  LANDLOCK_ACCESS_FS_IOCTL_DEV;
    struct landlock_path_beneath_attr pb = {.allowed_access = access, .parent_fd = fd};
    syscall(SYS_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
    close(fd);
}

/* /dev, entry by entry, leaving out the hidden devices (a rule on /dev itself would cover
 * them) */
static void allow_dev_but(int rs, __u64 access, const char *const *hidden)
{
    DIR *d = opendir("/dev");
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char path[300];
        snprintf(path, sizeof path, "/dev/%s", e->d_name);
        int skip = 0;
        for (const char *const *h = hidden; *h && !skip; h++)
            skip = !strcmp(*h, path);
        if (!skip)
            allow_beneath(rs, path, access);
    }
    closedir(d);
}
#endif

static int landlock(const char *const *writable, const char *const *hidden, char *note, size_t noten)
{
#ifdef SYS_landlock_create_ruleset
    int abi = (int)syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    if (abi < 1) {
        snprintf(note, noten, "Landlock is not available in this kernel (%s): writes are not confined",
                 strerror(errno));
        return 0;
    }
    __u64 handled = LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |
                    LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |
                    LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK |
                    LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM;
#ifdef LANDLOCK_ACCESS_FS_REFER
    if (abi >= 2)
        handled |= LANDLOCK_ACCESS_FS_REFER;
#endif
    if (abi >= 3)
        handled |= LANDLOCK_ACCESS_FS_TRUNCATE;
    int hide = hidden && hidden[0], hide_ioctl = hide && abi >= 5;
    if (hide_ioctl) /* a node opened read-only would otherwise still take ioctls */
        handled |= LANDLOCK_ACCESS_FS_IOCTL_DEV; /* (and so would none outside /dev) */
    struct landlock_ruleset_attr ra = {.handled_access_fs = handled};
    int rs = (int)syscall(SYS_landlock_create_ruleset, &ra, sizeof ra, 0);
    if (rs < 0) {
        snprintf(note, noten, "Landlock ruleset: %s: writes are not confined", strerror(errno));
        return 0;
    }
    for (const char *const *w = writable; w && *w; w++) {
        if (hide && !strcmp(*w, "/dev"))
            allow_dev_but(rs, handled, hidden);
        else
            allow_beneath(rs, *w, handled);
    }
    if (hide && !hide_ioctl)
        snprintf(note, noten, "Landlock ABI %d: the other GPUs' device nodes cannot be opened for writing, but one "
                 "opened read-only would take ioctls", abi);
    int rc = (int)syscall(SYS_landlock_restrict_self, rs, 0);
    close(rs);
    if (rc)
        snprintf(note, noten, "Landlock restrict_self: %s: writes are not confined", strerror(errno));
    return 0;
#else
    (void)writable, (void)hidden;
    snprintf(note, noten, "built without Landlock: writes are not confined");
    return 0;
#endif
}

/* Run as root (a container), the solution's process would keep every capability, and with
 * them the right to read a non-dumpable judge's memory: it gives them all up. */
static void drop_capabilities(void)
{
    for (int c = 0; c < 64; c++)
        prctl(PR_CAPBSET_DROP, c, 0, 0, 0); /* EINVAL past the last one; EPERM unless root */
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
    struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct d[2];
    memset(d, 0, sizeof d);
    syscall(SYS_capset, &h, d);
}

#define ADD(x) do { int r_ = (x); if (r_ && !bad_line) bad_line = __LINE__, bad_rc = r_; } while (0)
#define DENY(ctx, name, ...) seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(name), __VA_ARGS__)

int cl_jail_enter(const cl_jail_opts *o, char *note, size_t noten, char *err, size_t errn)
{
    note[0] = '\0';
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
        snprintf(err, errn, "no_new_privs: %s", strerror(errno));
        return -1;
    }
    drop_capabilities();
    landlock(o->writable, o->hidden, note, noten);
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (!ctx) {
        snprintf(err, errn, "seccomp_init failed");
        return -1;
    }
    scmp_datum_t self = (scmp_datum_t)getpid();
    int rc, bad_line = 0, bad_rc = 0;
    /* processes: threads only */
    ADD(DENY(ctx, clone, 1, SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0)));
    ADD(seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0)); /* glibc falls back to clone */
    static const int no_args[] = {
        SCMP_SYS(fork), SCMP_SYS(vfork), SCMP_SYS(execve), SCMP_SYS(execveat), SCMP_SYS(setsid),
        SCMP_SYS(setpgid), SCMP_SYS(tkill), SCMP_SYS(pidfd_send_signal), SCMP_SYS(ptrace),
        SCMP_SYS(process_vm_readv), SCMP_SYS(process_vm_writev), SCMP_SYS(pidfd_open), SCMP_SYS(pidfd_getfd),
        SCMP_SYS(kcmp), SCMP_SYS(perf_event_open), SCMP_SYS(bpf), SCMP_SYS(userfaultfd), SCMP_SYS(unshare),
        SCMP_SYS(setns), SCMP_SYS(mount), SCMP_SYS(umount2), SCMP_SYS(pivot_root), SCMP_SYS(chroot),
        SCMP_SYS(fsopen), SCMP_SYS(fsmount), SCMP_SYS(fsconfig), SCMP_SYS(move_mount), SCMP_SYS(open_tree),
        SCMP_SYS(mount_setattr), SCMP_SYS(keyctl), SCMP_SYS(add_key), SCMP_SYS(request_key),
        SCMP_SYS(migrate_pages), SCMP_SYS(seccomp),
    };
    for (size_t i = 0; i < sizeof no_args / sizeof no_args[0]; i++)
        ADD(seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), no_args[i], 0));
    /* signals: only to itself */
    ADD(DENY(ctx, kill, 1, SCMP_A0(SCMP_CMP_NE, self)));
    ADD(DENY(ctx, tgkill, 1, SCMP_A0(SCMP_CMP_NE, self)));
    ADD(DENY(ctx, rt_sigqueueinfo, 1, SCMP_A0(SCMP_CMP_NE, self)));
    ADD(DENY(ctx, rt_tgsigqueueinfo, 1, SCMP_A0(SCMP_CMP_NE, self)));
    /* acting on other processes: only on itself (0 or its own pid) */
    static const int on_pid[] = {SCMP_SYS(sched_setaffinity), SCMP_SYS(sched_setscheduler),
                                 SCMP_SYS(sched_setparam), SCMP_SYS(move_pages), SCMP_SYS(prlimit64)};
    /* (a rule may test an argument once: the judge and every later pid are refused; 0,
     * itself, and its own pid stay allowed) */
    scmp_datum_t parent = (scmp_datum_t)getppid();
    for (size_t i = 0; i < sizeof on_pid / sizeof on_pid[0]; i++) {
        ADD(seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), on_pid[i], 1, SCMP_A0(SCMP_CMP_GT, self)));
        ADD(seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), on_pid[i], 1, SCMP_A0(SCMP_CMP_EQ, parent)));
    }
    ADD(DENY(ctx, setpriority, 1, SCMP_A1(SCMP_CMP_NE, 0)));
    /* prctl that would hide it or let it outlive its parent */
    static const long bad_prctl[] = {PR_SET_DUMPABLE, PR_SET_PDEATHSIG, PR_SET_PTRACER, PR_SET_CHILD_SUBREAPER,
                                     PR_SET_MM, PR_SET_SECCOMP};
    for (size_t i = 0; i < sizeof bad_prctl / sizeof bad_prctl[0]; i++)
        ADD(DENY(ctx, prctl, 1, SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)bad_prctl[i])));
    if (!o->allow_sockets) {
        static const int net[] = {SCMP_SYS(socket), SCMP_SYS(socketpair), SCMP_SYS(connect), SCMP_SYS(bind),
                                  SCMP_SYS(listen), SCMP_SYS(accept), SCMP_SYS(accept4)};
        for (size_t i = 0; i < sizeof net / sizeof net[0]; i++)
            ADD(seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), net[i], 0));
    }
    if (bad_line) {
        seccomp_release(ctx);
        snprintf(err, errn, "building the seccomp filter failed (jail.c:%d: %s)", bad_line, strerror(-bad_rc));
        return -1;
    }
    rc = seccomp_load(ctx);
    seccomp_release(ctx);
    if (rc) {
        snprintf(err, errn, "loading the seccomp filter: %s", strerror(-rc));
        return -1;
    }
    return 0;
}
