/* class_rt.c: the run-time of a grading run, shared by local workers, Slurm tasks and
 * Gradescope: the sandbox, the stage root, what stays visible inside the sandbox, and the
 * trusted inputs every stage gets (this GPU's ceilings and the reference's build, made
 * before any submission runs, then read-only for it). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "class_internal.h"
#include "grader/ceilings.h"
#include "grader/compile.h"
#include "grader/proc.h"
#include "strbuf.h"

/* ---- keys, secrets, GPUs ---- */

int cl_class_config_hash(const cl_course *c, const cl_lab *lab, char out[CL_SHA256_HEX], cl_err *err)
{
    char lab_hash[CL_SHA256_HEX];
    if (cl_sha256_file(lab->path, 1u << 20, lab_hash, err))
        return -1;
    char course[CL_SHA256_HEX], buf[256];
    cl_course_grading_digest(c, lab->name, course);
    snprintf(buf, sizeof buf, "course %s\nlab %s\n", course, lab_hash);
    cl_sha256_hex(buf, strlen(buf), out);
    return 0;
}

int cl_class_secret(cl_course *c, const char *out_dir, cl_err *err)
{
    if (c->secret)
        return 0;
    char path[CL_PATH_MAX];
    cl_path_join(path, sizeof path, out_dir, "course-secret");
    char *data;
    size_t len;
    cl_err e2;
    if (cl_read_file(path, 4096, &data, &len, &e2) == 0) {
        while (len && (data[len - 1] == '\n' || data[len - 1] == ' '))
            data[--len] = '\0';
        if (len >= 16) {
            c->secret = (unsigned char *)data;
            c->secret_len = len;
            snprintf(c->secret_path, sizeof c->secret_path, "%s", path);
            return 0;
        }
        free(data);
    }
    unsigned char raw[32];
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0 || read(fd, raw, sizeof raw) != (ssize_t)sizeof raw) {
        if (fd >= 0)
            close(fd);
        return cl_err_set(err, "cannot read /dev/urandom for the course secret");
    }
    close(fd);
    char hex[72];
    for (int i = 0; i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", raw[i]);
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0 || write(fd, hex, 64) != 64 || write(fd, "\n", 1) != 1) {
        if (fd >= 0)
            close(fd);
        return cl_err_set(err, "cannot write the course secret %s: %s", path, strerror(errno));
    }
    close(fd);
    c->secret = (unsigned char *)strdup(hex);
    c->secret_len = 64;
    snprintf(c->secret_path, sizeof c->secret_path, "%s", path);
    return 0;
}

/* One GPU of a --gpus list or CUDA_VISIBLE_DEVICES: an index or a UUID (GPU-..., MIG-...). */
static int gpu_id_ok(const char *t)
{
    if (!strncmp(t, "GPU-", 4) || !strncmp(t, "MIG-", 4))
        return strlen(t) > 4 && strlen(t) < 32;
    return *t && strlen(t) < 6 && strspn(t, "0123456789") == strlen(t);
}

static int gpu_list(const char *list, const char *what, char gpus[][32], int max, cl_err *err)
{
    int n = 0;
    char *copy = strdup(list), *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        t += strspn(t, " ");
        if (!gpu_id_ok(t)) {
            cl_err_set(err, "%s: '%s' is not a GPU (an index as nvidia-smi -L lists it, e.g. 0 or 0,2, or a "
                            "GPU-/MIG- UUID)", what, t);
            free(copy);
            return -1;
        }
        for (int i = 0; i < n; i++)
            if (!strcmp(gpus[i], t)) {
                cl_err_set(err, "%s: GPU %s is listed twice", what, t);
                free(copy);
                return -1;
            }
        if (n < max)
            snprintf(gpus[n++], 32, "%s", t);
    }
    free(copy);
    return n;
}

int cl_class_gpus(const char *spec, char gpus[][32], int max, cl_err *err)
{
    if (spec && *spec && strcmp(spec, "all")) /* ids, never a count: --gpus 1 is GPU 1 */
        return gpu_list(spec, "--gpus", gpus, max, err);
    const char *cvd = getenv("CUDA_VISIBLE_DEVICES");
    if (cvd && *cvd && strcmp(cvd, "-1") && strcmp(cvd, "none"))
        return gpu_list(cvd, "CUDA_VISIBLE_DEVICES", gpus, max, err);
    char *argv[] = {"nvidia-smi", "-L", NULL};
    cl_proc_opts po = {0};
    po.argv = argv;
    po.timeout_s = 30;
    po.output_cap = 1 << 16;
    cl_proc_result pr;
    cl_err e2;
    int n = 0;
    if (cl_proc_run(&po, &pr, &e2))
        return 0;
    if (pr.exited && pr.exit_code == 0 && pr.output)
        for (const char *p = pr.output; (p = strstr(p, "GPU ")) && n < max; p += 4)
            if (p == pr.output || p[-1] == '\n')
                snprintf(gpus[n], 32, "%d", n), n++;
    cl_proc_result_free(&pr);
    return n;
}

const char *cl_class_abspath(const char *path, char *buf, size_t n)
{
    if (!path || !*path)
        return path;
    char real[CL_PATH_MAX];
    if (realpath(path, real)) {
        snprintf(buf, n, "%s", real);
        return buf;
    }
    if (path[0] != '/') {
        char cwd[CL_PATH_MAX];
        if (getcwd(cwd, sizeof cwd)) {
            snprintf(buf, n, "%s/%s", cwd, path);
            return buf;
        }
    }
    return path;
}

void cl_class_absolute_home(void)
{
    /* grading runs in its stage folder: a relative CUDALAB_HOME would point nowhere */
    const char *h = getenv("CUDALAB_HOME");
    char buf[CL_PATH_MAX];
    if (h && *h && h[0] != '/' && cl_class_abspath(h, buf, sizeof buf) == buf)
        setenv("CUDALAB_HOME", buf, 1);
}

/* ---- trusted inputs: ceilings per GPU, the reference's build ---- */

/* In a child, so that CUDA_VISIBLE_DEVICES is set for this GPU only. */
static int ceilings_of_visible_gpu(void *gpu)
{
    setenv("CUDA_VISIBLE_DEVICES", (const char *)gpu, 1);
    cl_ceilings c;
    cl_err err;
    return cl_ceilings_get(0, &c, NULL, NULL, &err) ? 1 : 0;
}

static void measure_ceilings(const char *gpu)
{
    int pid;
    cl_err err;
    if (cl_proc_fork(ceilings_of_visible_gpu, (void *)gpu, &pid, &err) == 0)
        cl_proc_wait(pid, NULL);
}

static void build_reference(cl_class_rt *rt, const cl_lab *lab, const char *arch)
{
    char src[CL_PATH_MAX];
    snprintf(src, sizeof src, "%s/reference/%s.cu", cl_home_dir(), lab->name);
    if (!cl_file_exists(src) || !cl_nvcc_path())
        return;
    cl_compile_opts co = {src, arch, lab->arch_suffix, lab->nvcc_flags, 0};
    cl_compile_result cr;
    cl_err err;
    if (cl_compile(&co, &cr, &err) == 0 && cr.ok) {
        size_t n = strlen(rt->shared_cache);
        if (!strncmp(cr.so_path, rt->shared_cache, n) && cr.so_path[n] == '/')
            snprintf(rt->ref_rel, sizeof rt->ref_rel, "%s", cr.so_path + n + 1);
    }
    cl_compile_result_free(&cr);
}

/* ---- what stays visible ---- */

static void add_keep(cl_class_rt *rt, const char *path)
{
    char real[CL_PATH_MAX];
    if (!path || !*path || rt->nkeep >= CL_RT_MAX_KEEP || !realpath(path, real))
        return;
    for (int i = 0; i < rt->nkeep; i++)
        if (!strcmp(rt->keep_buf[i], real))
            return;
    snprintf(rt->keep_buf[rt->nkeep], CL_PATH_MAX, "%s", real);
    rt->keep[rt->nkeep] = rt->keep_buf[rt->nkeep];
    rt->nkeep++;
    rt->keep[rt->nkeep] = NULL;
}

static void dirname_of(const char *path, char *out, size_t n)
{
    snprintf(out, n, "%s", path);
    char *s = strrchr(out, '/');
    if (s && s != out)
        *s = '\0';
}

static int under(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    return !strncmp(path, dir, n) && (path[n] == '\0' || path[n] == '/');
}

/* base/cudalab-stage-XXXXXX, mode 0700, its name chosen here and written to mark (when not
 * NULL) before the folder exists: a run killed at any moment leaves no stage the next run
 * cannot find (the mark may name a folder never made; removing it is then a no-op). */
static int make_stage_root(char *root, size_t n, const char *base, const char *mark, cl_err *err)
{
    static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    for (int tries = 0; tries < 100; tries++) {
        unsigned char r[6];
        char name[7];
        if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r)
            return cl_err_set(err, "getrandom: %s", strerror(errno));
        for (int i = 0; i < 6; i++)
            name[i] = digits[r[i] % (sizeof digits - 1)];
        name[6] = '\0';
        if (snprintf(root, n, "%s/cudalab-stage-%s", base, name) >= (int)n)
            return cl_err_set(err, "the stage folder's path is too long: %s", base);
        if (mark) {
            char text[CL_PATH_MAX + 2];
            int len = snprintf(text, sizeof text, "%s\n", root);
            if (cl_write_file_atomic(mark, text, (size_t)len, err))
                return -1;
        }
        if (mkdir(root, 0700) == 0)
            return chmod(root, 0700) == 0 ? 0 : cl_err_set(err, "chmod %s: %s", root, strerror(errno));
        if (errno != EEXIST)
            break;
    }
    return cl_err_set(err, "cannot make a stage folder in %s: %s", base, strerror(errno));
}

int cl_class_rt_init(cl_class_rt *rt, const cl_lab *lab, const char *runner, const char *arch, cl_sandbox_mode mode,
                     unsigned uid_base, char gpus[][32], int ngpus, const char *stage_mark,
                     cl_err *err)
{
    cl_sandbox hidden = rt->sb;
    memset(rt, 0, sizeof *rt);
    rt->sb = hidden;
    if (cl_cache_dir(rt->shared_cache, sizeof rt->shared_cache, err))
        return -1;
    cl_sandbox_hide(&rt->sb, rt->shared_cache); /* other builds, other students' */
    chmod(rt->shared_cache, 0700);               /* our own cache: no one else's business */
    /* the stage root: $CUDALAB_STAGE_DIR, else $TMPDIR, else /tmp (it must allow exec) */
    const char *base = getenv("CUDALAB_STAGE_DIR");
    if (!base || !*base)
        base = getenv("TMPDIR");
    if (!base || !*base)
        base = "/tmp";
    if (make_stage_root(rt->stage_root, sizeof rt->stage_root, base, stage_mark, err))
        return -1;
    char real[CL_PATH_MAX];
    if (realpath(rt->stage_root, real))
        snprintf(rt->stage_root, sizeof rt->stage_root, "%s", real);
    for (int i = 0; i < rt->sb.nhide; i++)
        if (under(rt->stage_root, rt->sb.hide[i])) {
            cl_err_set(err, "the stage folder %s lies in %s, which submissions must not see: set CUDALAB_STAGE_DIR",
                       rt->stage_root, rt->sb.hide[i]);
            cl_rmtree(rt->stage_root, err);
            return -1;
        }
    /* visible inside: the runner, the lab home (and where its lab and reference folders
     * really are), the CUDA toolkit */
    char dir[CL_PATH_MAX], p[CL_PATH_MAX];
    if (runner) {
        dirname_of(runner, dir, sizeof dir);
        add_keep(rt, dir);
    }
    add_keep(rt, cl_exe_dir());
    add_keep(rt, cl_home_dir());
    snprintf(p, sizeof p, "%s/labs/%s", cl_home_dir(), lab->name);
    add_keep(rt, p);
    snprintf(p, sizeof p, "%s/labs/include", cl_home_dir());
    add_keep(rt, p);
    /* the ABI header itself may be a link into another tree (the test fixtures' home) */
    snprintf(p, sizeof p, "%s/labs/include/cudalab_lab.h", cl_home_dir());
    if (realpath(p, real)) {
        dirname_of(real, dir, sizeof dir);
        add_keep(rt, dir);
    }
    snprintf(p, sizeof p, "%s/reference", cl_home_dir());
    add_keep(rt, p);
    const char *nvcc = cl_nvcc_path();
    if (nvcc && realpath(nvcc, real)) {
        dirname_of(real, dir, sizeof dir); /* .../bin */
        dirname_of(dir, p, sizeof p);      /* the toolkit */
        add_keep(rt, p);
    }
    if (cl_sandbox_resolve(&rt->sb, mode, uid_base, rt->keep, err)) {
        cl_rmtree(rt->stage_root, err);
        return -1;
    }
    if (rt->sb.as_root && rt->sb.mode != CL_SANDBOX_NONE)
        chmod(rt->stage_root, 0711);
    /* trusted inputs, before any submission runs */
    if (!runner) {
        for (int i = 0; i < ngpus; i++)
            measure_ceilings(gpus[i]);
        if (ngpus > 0)
            build_reference(rt, lab, arch);
    }
    return 0;
}

void cl_class_rt_free(cl_class_rt *rt)
{
    cl_err err;
    if (rt->stage_root[0])
        cl_rmtree(rt->stage_root, &err);
    rt->stage_root[0] = '\0';
}

/* ---- one stage ---- */

static void add_protect(cl_class_stage *st, const char *path)
{
    if (st->nprotect >= CL_RT_MAX_PROTECT)
        return;
    snprintf(st->protect_buf[st->nprotect], CL_PATH_MAX, "%s", path);
    st->protect[st->nprotect] = st->protect_buf[st->nprotect];
    st->nprotect++;
    st->protect[st->nprotect] = NULL;
}

/* Gives the grader's own files to root (read-only for the worker's uid) in folders where
 * the worker may create, but not remove or rename, what root owns (the sticky bit). */
static void root_owns(const char *path, mode_t mode)
{
    if (lchown(path, 0, 0) == 0)
        chmod(path, mode);
}

static int seed_cache(const cl_class_rt *rt, cl_class_stage *st, cl_err *err)
{
    char cache[CL_PATH_MAX], build[CL_PATH_MAX];
    snprintf(cache, sizeof cache, "%s/cache/cudalab", st->dir);
    snprintf(build, sizeof build, "%s/build", cache);
    if (cl_mkdirs(build, err))
        return -1;
    DIR *d = opendir(rt->shared_cache);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (strncmp(e->d_name, "device-", 7) || n < 5 || strcmp(e->d_name + n - 5, ".json"))
            continue;
        char from[CL_PATH_MAX], to[CL_PATH_MAX];
        cl_path_join(from, sizeof from, rt->shared_cache, e->d_name);
        cl_path_join(to, sizeof to, cache, e->d_name);
        if (cl_copy_file(from, to, err) == 0)
            add_protect(st, to);
    }
    if (d)
        closedir(d);
    if (rt->ref_rel[0]) {
        char from[CL_PATH_MAX], to[CL_PATH_MAX], todir[CL_PATH_MAX];
        cl_path_join(from, sizeof from, rt->shared_cache, rt->ref_rel);
        cl_path_join(to, sizeof to, cache, rt->ref_rel);
        dirname_of(to, todir, sizeof todir);
        if (cl_mkdirs(todir, err) == 0 && cl_copy_file(from, to, err) == 0)
            add_protect(st, todir);
    }
    return 0;
}

int cl_class_rt_stage(const cl_class_rt *rt, const cl_class_job *job, int slot, cl_class_stage *st, json_t **result,
                      cl_err *err)
{
    memset(st, 0, sizeof *st);
    *result = NULL;
    snprintf(st->dir, sizeof st->dir, "%s/s%d-XXXXXX", rt->stage_root, slot);
    if (!mkdtemp(st->dir))
        return cl_err_set(err, "cannot make a stage in %s: %s", rt->stage_root, strerror(errno));
    char why[1024];
    int rc = cl_stage_copy(job->sub, job->lab, st->dir, job->allow_prebuilt, why, sizeof why, err);
    if (rc > 0)
        *result = cl_class_rejected_result(job, why);
    if (rc == 0)
        rc = cl_stage_hash(job->sub, st->dir, st->sha256, err);
    if (rc) {
        cl_class_rt_unstage(st);
        return rc;
    }
    if (seed_cache(rt, st, err) || cl_sandbox_own(&rt->sb, slot, st->dir, err)) {
        cl_class_rt_unstage(st);
        return -1;
    }
    if (rt->sb.as_root && rt->sb.mode != CL_SANDBOX_NONE) {
        char cache[CL_PATH_MAX], build[CL_PATH_MAX];
        snprintf(cache, sizeof cache, "%s/cache/cudalab", st->dir);
        snprintf(build, sizeof build, "%s/build", cache);
        root_owns(cache, 01777);
        root_owns(build, 01777);
        for (int i = 0; i < st->nprotect; i++) {
            struct stat s;
            if (lstat(st->protect[i], &s) != 0)
                continue;
            root_owns(st->protect[i], S_ISDIR(s.st_mode) ? 0755 : 0644);
            if (S_ISDIR(s.st_mode)) {
                char so[CL_PATH_MAX];
                cl_path_join(so, sizeof so, st->protect[i], "solution.so");
                root_owns(so, 0755);
            }
        }
    }
    return 0;
}

void cl_class_rt_unstage(cl_class_stage *st)
{
    cl_err err;
    if (st->dir[0])
        cl_rmtree(st->dir, &err);
    st->dir[0] = '\0';
}

/* ---- one submission, start to end ---- */

json_t *cl_class_rt_run(const cl_class_rt *rt, const cl_class_job *job, int slot, double watchdog_s)
{
    cl_class_stage st;
    json_t *res = NULL;
    cl_err err;
    int rc = cl_class_rt_stage(rt, job, slot, &st, &res, &err);
    if (rc > 0)
        return res;
    if (rc < 0)
        return cl_class_error_result(job, err.msg);
    if (strcmp(st.sha256, job->sub->sha256)) { /* its seed came with the old content: not graded */
        cl_class_rt_unstage(&st);
        return cl_class_error_result(job, "the submission changed while this run was grading it: it is graded "
                                          "again, as it is now, by the next run");
    }
    int pid, fd;
    if (cl_class_job_start(job, &rt->sb, slot, st.dir, rt->keep, st.protect, &pid, &fd, &err)) {
        cl_class_rt_unstage(&st);
        return cl_class_error_result(job, err.msg);
    }
    cl_strbuf text;
    cl_sb_init(&text);
    double deadline = cl_mono_s() + (watchdog_s > 0 ? watchdog_s : 3600);
    int killed = 0;
    for (;;) {
        struct pollfd pf = {fd, POLLIN, 0};
        int n = poll(&pf, 1, 500);
        if (n > 0) {
            char buf[65536];
            ssize_t got = read(fd, buf, sizeof buf);
            if (got <= 0)
                break;
            if (text.len < (64u << 20))
                cl_sb_appendn(&text, buf, (size_t)got);
        } else if (n < 0 && errno != EINTR) {
            break;
        }
        if (cl_mono_s() > deadline) {
            cl_sandbox_stop(pid);
            killed = 1;
            break;
        }
    }
    close(fd);
    int status = 0;
    waitpid(pid, &status, 0);
    if (killed) {
        char why[256];
        snprintf(why, sizeof why, "grading this submission took longer than %.0f s (all stages): stopped", watchdog_s);
        res = cl_class_error_result(job, why);
    } else {
        res = cl_class_job_finish(job, cl_sb_str(&text), status);
    }
    cl_sb_free(&text);
    cl_class_rt_unstage(&st);
    return res;
}
