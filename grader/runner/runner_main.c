/* runner_main.c: cudalab-run, the judge. It owns the truth of a grading: the seeds, the
 * inputs, the clock of record, the checks and the verdict. It never loads student code:
 * the solution runs in cudalab-exec, a process of its own that the judge starts, feeds
 * shared buffers and drives call by call (link.c).
 *
 *   cudalab-run --lab-yaml FILE --solution SO --mode test|bench|all|plan --verdict-fd FD
 *               [--quick] [--case NAME]... [--sanitize TOOL --sanitize-log FILE]
 *               [--file-limit BYTES]   (RLIMIT_FSIZE of the solution's process)
 *               [--profiled]           (under ncu, not graded: the solution's process keeps
 *                                       the environment and sockets the profiler needs)
 *
 * The secrets come on stdin, one line "NONCE SEED", never on the command line or in the
 * environment (any process of the same user can read those). The judge first makes itself
 * non-dumpable (no other process may read its memory or descriptors), reads the line,
 * replaces stdin with /dev/null, moves the verdict descriptor, measures the GPU and fixes
 * the memory budget, and only then starts the solution's process. Every verdict line
 * carries the nonce; the last one is "done". Mode plan only sizes the bench cases and reports
 * their dimensions (for cuBLAS, measured before any solution runs). Libraries the solution's process maps (read
 * from the kernel's own list, /proc/PID/maps, after every call) are reported, so the
 * parent can enforce bans. */
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "engine.h"
#include "grader/compile.h"
#include "grader/labconf.h"
#include "grader/phases.h"
#include "grader/proc.h"
#include "grader/result.h"
#include "link.h"
#include "link_proto.h"
#include "registry.h"
#include "verdict.h"

/* ---- libraries the solution's process maps ---- */

#define MAX_LIBS 256

typedef enum { SCAN_PRE_LOAD, SCAN_AFTER_LOAD, SCAN_AFTER_CALL } scan_when;

typedef struct libs {
    int pid;
    const char *solution;
    char solution_real[PATH_MAX];
    char *pre[MAX_LIBS];      /* shared objects before the solution was loaded */
    int npre;
    char *pre_code[MAX_LIBS]; /* full paths of every executable file mapping then */
    int npre_code;
    char *baseline[MAX_LIBS]; /* shared objects once it was loaded */
    int nbaseline;
    char *at_load[MAX_LIBS];  /* new while it was loaded (its constructors' and its own needs) */
    int nat_load;
    char *loaded[MAX_LIBS];   /* new while it ran */
    int nloaded;
    char *foreign[MAX_LIBS];  /* code mapped from a file the solution could have written */
    int nforeign;
} libs;

static libs g_libs;

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

static int in_list(char **list, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(list[i], name))
            return 1;
    return 0;
}

static void add(char **list, int *n, const char *name)
{
    if (*n < MAX_LIBS && !in_list(list, *n, name))
        list[(*n)++] = strdup(name);
}

static int under(const char *path, const char *dir)
{
    size_t n = dir ? strlen(dir) : 0;
    return n > 1 && !strncmp(path, dir, n) && (path[n] == '/' || dir[n - 1] == '/');
}

/* A file the solution's process could have written (the jail lets it write only these
 * folders), or one with no name left: code mapped from there is a copy it made. */
static int writable_place(const char *path)
{
    char nv[PATH_MAX] = "";
    const char *home = getenv("HOME");
    if (home)
        snprintf(nv, sizeof nv, "%s/.nv", home);
    size_t n = strlen(path);
    return !strncmp(path, "/memfd:", 7) || (n > 10 && !strcmp(path + n - 10, " (deleted)")) ||
           under(path, "/tmp") || under(path, "/var/tmp") || under(path, "/dev") ||
           under(path, getenv("TMPDIR")) || (nv[0] && under(path, nv));
}

/* Shared objects in /proc/PID/maps: the kernel's list, which no link_map trick hides, with
 * every executable mapping of a file the solution could have made (a library copied under
 * another name or into a memory file). */
static void scan_maps(libs *l, scan_when when)
{
    char path[64], line[PATH_MAX + 128];
    snprintf(path, sizeof path, "/proc/%d/maps", l->pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        char *name = strchr(line, '/');
        char perms[8] = "";
        if (!name || sscanf(line, "%*s %7s", perms) != 1)
            continue;
        name[strcspn(name, "\n")] = '\0';
        int exec = strchr(perms, 'x') != NULL;
        if (l->solution_real[0] && !strcmp(name, l->solution_real))
            continue;
        if (exec && when == SCAN_PRE_LOAD)
            add(l->pre_code, &l->npre_code, name);
        else if (exec && writable_place(name) && !in_list(l->pre_code, l->npre_code, name))
            add(l->foreign, &l->nforeign, name);
        const char *b = base_name(name);
        if (!strstr(b, ".so") || (l->solution && !strcmp(b, base_name(l->solution))))
            continue;
        if (when == SCAN_PRE_LOAD) {
            add(l->pre, &l->npre, b);
        } else if (when == SCAN_AFTER_LOAD) {
            add(l->baseline, &l->nbaseline, b);
            if (!in_list(l->pre, l->npre, b))
                add(l->at_load, &l->nat_load, b);
        } else if (!in_list(l->baseline, l->nbaseline, b)) {
            add(l->loaded, &l->nloaded, b);
        }
    }
    fclose(f);
}

static void libs_before_load(void *ctx) { scan_maps(ctx, SCAN_PRE_LOAD); }
static void libs_after_load(void *ctx) { scan_maps(ctx, SCAN_AFTER_LOAD); }
static void libs_after_call(void *ctx) { scan_maps(ctx, SCAN_AFTER_CALL); }

static json_t *list_json(char *const *list, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_string(list[i]));
    return a;
}

/* ---- main ---- */

static void usage(void)
{
    fprintf(stderr,
            "usage: cudalab-run --lab-yaml FILE --solution SO --mode test|bench|all --verdict-fd FD\n"
            "                   [--quick] [--case NAME]... [--sanitize TOOL --sanitize-log FILE]\n"
            "                   [--file-limit BYTES] [--profiled]\n"
            "The parent (cudalab) writes \"NONCE SEED\" on stdin. This program is not meant to be\n"
            "run by hand; use 'cudalab test' or 'cudalab bench'.\n");
}

static json_t *device_json(const be_device *d)
{
    return json_pack("{s:s, s:s, s:i, s:i, s:i, s:i, s:i, s:i, s:I, s:I, s:i, s:i, s:i, s:b}", "name", d->name,
                     "uuid", d->uuid, "cc_major", d->cc_major, "cc_minor", d->cc_minor, "sms", d->sms, "clock_mhz",
                     d->clock_mhz, "mem_clock_mhz", d->mem_clock_mhz, "bus_width_bits", d->bus_width_bits,
                     "mem_total", (json_int_t)d->mem_total, "mem_free", (json_int_t)d->mem_free, "l2_bytes",
                     d->l2_bytes, "driver_version", d->driver_version, "runtime_version", d->runtime_version,
                     "host", d->is_host);
}

/* The kernels the solution launched inside its calls, when its process could name them
 * all (the done line's "kernels_ran"); NULL otherwise. */
static json_t *g_kernels_ran;

static double mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* (2 s for the whole list: an exec that answers slowly cannot stretch the run) */
static void ask_kernels_ran(cl_link *link)
{
    json_t *names = json_array();
    char name[1024];
    double deadline = mono_ms() + 2000;
    for (int i = 0; i < 64; i++) {
        int left = (int)(deadline - mono_ms());
        int st = left > 0 ? cl_link_kernel(link, i, left, name, sizeof name) : -1;
        if (st == CL_KS_END) {
            g_kernels_ran = names;
            return;
        }
        if (st != CL_KS_NAME)
            break;
        json_array_append_new(names, json_string(name));
    }
    json_decref(names);
}

static int done(cl_verdict_out *vo, const char *status, const char *message)
{
    if (g_libs.pid > 0)
        scan_maps(&g_libs, SCAN_AFTER_CALL);
    json_t *o = json_pack("{s:s}", "status", status);
    if (message && *message)
        json_object_set_new(o, "message", json_string(message));
    json_object_set_new(o, "libs_loaded", list_json(g_libs.loaded, g_libs.nloaded));
    json_object_set_new(o, "libs_at_load", list_json(g_libs.at_load, g_libs.nat_load));
    json_object_set_new(o, "code_foreign", list_json(g_libs.foreign, g_libs.nforeign));
    if (g_kernels_ran)
        json_object_set(o, "kernels_ran", g_kernels_ran);
    cl_verdict_emit(vo, "done", o);
    return 0;
}

/* The done line of a run that ends before the engine runs: -1, for the caller to return. */
static int stop(cl_verdict_out *vo, cl_run_status status, const char *message)
{
    done(vo, cl_run_status_name(status), message);
    return -1;
}

/* The solution's process sits next to the judge. */
static int exec_path(char *out, size_t n)
{
    char self[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0)
        return -1;
    self[len] = '\0';
    char *slash = strrchr(self, '/');
    if (!slash)
        return -1;
    *slash = '\0';
    snprintf(out, n, "%s/%s", self, be_exec_name);
    return access(out, X_OK);
}

/* The command line. */
typedef struct run_opts {
    const char *yaml, *solution, *mode, *sanitize, *sanitize_log, *file_limit;
    int fd, quick, nonly, plan, profiled;
    const char **only; /* --case names, NULL-terminated */
} run_opts;

/* Reads the options into ro. 0, or 2 (the exit status) after the usage. */
static int parse_options(int argc, char **argv, run_opts *ro)
{
    memset(ro, 0, sizeof *ro);
    ro->mode = "all";
    ro->fd = -1;
    ro->only = calloc((size_t)argc + 1, sizeof *ro->only);
    static const struct option opts[] = {
        {"lab-yaml", required_argument, 0, 'y'}, {"solution", required_argument, 0, 's'},
        {"mode", required_argument, 0, 'm'},     {"verdict-fd", required_argument, 0, 'f'},
        {"quick", no_argument, 0, 'q'},          {"profiled", no_argument, 0, 'P'},          {"case", required_argument, 0, 'c'},
        {"sanitize", required_argument, 0, 'z'}, {"sanitize-log", required_argument, 0, 'L'},
        {"file-limit", required_argument, 0, 'F'},
        {"help", no_argument, 0, 'h'},           {0, 0, 0, 0}};
    int ch;
    while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (ch) {
        case 'y': ro->yaml = optarg; break;
        case 's': ro->solution = optarg; break;
        case 'm': ro->mode = optarg; break;
        case 'f': ro->fd = atoi(optarg); break;
        case 'q': ro->quick = 1; break;
        case 'P': ro->profiled = 1; break;
        case 'c': ro->only[ro->nonly++] = optarg; break;
        case 'z': ro->sanitize = optarg; break;
        case 'L': ro->sanitize_log = optarg; break;
        case 'F': ro->file_limit = optarg; break;
        default: usage(); return 2;
        }
    }
    ro->plan = !strcmp(ro->mode, "plan");
    if (!ro->yaml || !ro->solution || ro->fd < 0 ||
        (strcmp(ro->mode, "test") && strcmp(ro->mode, "bench") && strcmp(ro->mode, "all") && !ro->plan) ||
        (ro->sanitize && !ro->sanitize_log)) {
        usage();
        return 2;
    }
    return 0;
}

/* The secrets: one line "NONCE SEED" on stdin, then stdin is gone. 0, or 2 (the exit status). */
static int read_secrets(char *nonce, unsigned long long *seed)
{
    char line[160];
    if (!fgets(line, sizeof line, stdin) || sscanf(line, "%79s %llu", nonce, seed) != 2) {
        fprintf(stderr, "cudalab-run: expected \"NONCE SEED\" on stdin\n");
        return 2;
    }
    memset(line, 0, sizeof line);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) {
        dup2(devnull, STDIN_FILENO);
        close(devnull);
    }
    return 0;
}

/* The lab and its checker. 0, or -1 once the done line says why. */
static int open_lab(cl_verdict_out *vo, const char *yaml, cl_lab *lab, const cl_checker **chk)
{
    cl_err err;
    if (cl_lab_load_file(yaml, lab, &err))
        return stop(vo, CL_RUN_JUDGE_ERROR, err.msg);
    *chk = cl_find_checker(lab->name);
    if (!*chk) {
        char msg[256];
        snprintf(msg, sizeof msg, "this judge has no checker for lab '%s'", lab->name);
        return stop(vo, CL_RUN_JUDGE_ERROR, msg);
    }
    return 0;
}

/* The judge's device, and the hello line. 0, or -1 once the done line says why. */
static int open_device(cl_verdict_out *vo, const cl_lab *lab, be_device *dev)
{
    if (be_init(dev)) {
        char msg[1200];
        snprintf(msg, sizeof msg, "no GPU: %s", be_error());
        return stop(vo, CL_RUN_NO_DEVICE, msg);
    }
    cl_verdict_emit(vo, "hello", json_pack("{s:o, s:s}", "device", device_json(dev), "lab", lab->name));
    return 0;
}

/* How the solution's process is started: the exec next to the judge, under
 * compute-sanitizer with --sanitize. */
typedef struct exec_plan {
    char exec[PATH_MAX], tool_path[PATH_MAX];
    const char *wrap[16];
    int tool, name_kernels;
} exec_plan;

/* Starts the solution's process, before the judge's own device is up (its CUDA context is
 * created beside the judge's; it loads no solution before LM_LOAD, long after the judge's
 * buffers and budget exist). 0, or -1 once the done line says why. */
static int spawn_solution_process(cl_verdict_out *vo, const run_opts *ro, const cl_lab *lab, cl_link *link,
                                  exec_plan *xp)
{
    char msg[1024];
    memset(xp, 0, sizeof *xp);
    if (exec_path(xp->exec, sizeof xp->exec)) {
        snprintf(msg, sizeof msg, "the solution host %s is missing next to the judge", be_exec_name);
        return stop(vo, CL_RUN_JUDGE_ERROR, msg);
    }
    if (ro->sanitize) {
        if (cl_cuda_tool("compute-sanitizer", xp->tool_path, sizeof xp->tool_path))
            return stop(vo, CL_RUN_JUDGE_ERROR, "compute-sanitizer not found next to nvcc");
        const char *w[] = {xp->tool_path, "--tool", ro->sanitize, "--error-exitcode", "86", "--print-limit", "20",
                           "--log-file", ro->sanitize_log, NULL};
        memcpy(xp->wrap, w, sizeof w);
    }
    /* ncu profiles a kernel inside its launch call, so a launch queued behind the stream's
     * wait for go would wait for ever: a profiled run (never a grade) takes the host clock */
    if (ro->profiled)
        setenv("CUDALAB_UNGATED", "1", 1);
    xp->tool = ro->sanitize ? CL_TOOL_SANITIZER : ro->profiled ? CL_TOOL_PROFILER : CL_TOOL_NONE;
    /* (CUPTI costs the exec a second to start: only where the Tensor Core check needs it,
     * and only in a run that checks correctness, whose kernels are the ones it names: a
     * bench run's names would add nothing) */
    xp->name_kernels = (lab->metric == CL_METRIC_TFLOPS && strcmp(ro->mode, "bench")) ||
                       getenv("CUDALAB_TEST_KERNELS_RAN");
    if (cl_link_spawn(link, xp->exec, ro->solution, lab->entry, ro->sanitize ? xp->wrap : NULL, xp->tool,
                      xp->name_kernels, ro->file_limit, msg, sizeof msg)) {
        cl_link_stop(link);
        return stop(vo, CL_RUN_JUDGE_ERROR, msg);
    }
    return 0;
}

/* Once the judge's device is up: connects to the spawned process and checks the protocol
 * with a call of the exec's own kernel, before any student code exists: the GPU protocol
 * (go/done stream memory operations, globaltimer bracket) first; where it cannot complete
 * that call, a new process on the host-clock protocol, and the report says the bound is
 * the weaker one. 0, or -1 once the done line says why. */
static int connect_solution_process(cl_verdict_out *vo, const run_opts *ro, const cl_lab *lab, cl_link *link,
                                    exec_plan *xp)
{
    char msg[1024];
    for (int attempt = 0;; attempt++) {
        if (attempt > 0 && cl_link_spawn(link, xp->exec, ro->solution, lab->entry, ro->sanitize ? xp->wrap : NULL,
                                         xp->tool, xp->name_kernels, ro->file_limit, msg, sizeof msg)) {
            cl_link_stop(link);
            return stop(vo, CL_RUN_JUDGE_ERROR, msg);
        }
        if (cl_link_connect(link, msg, sizeof msg)) {
            cl_link_stop(link);
            return stop(vo, CL_RUN_JUDGE_ERROR, msg);
        }
        if (cl_link_selftest(link, msg, sizeof msg) == 0)
            break;
        cl_link_stop(link);
        if (attempt > 0 || !link->gated)
            return stop(vo, CL_RUN_JUDGE_ERROR, msg);
        fprintf(stderr, "cudalab-run: note: the GPU bracket protocol failed here (%s); using the host clock\n", msg);
        setenv("CUDALAB_UNGATED", "1", 1);
    }
    cl_verdict_emit(vo, "clock", json_pack("{s:s}", "bound", link->gated ? "gpu" : "host"));
    g_libs.pid = link->pid;
    g_libs.solution = ro->solution;
    if (!realpath(ro->solution, g_libs.solution_real))
        g_libs.solution_real[0] = '\0';
    return 0;
}

/* The memory budget of the judge's buffers: half of what is free once the judge's and the
 * exec's contexts exist, fixed before any solution code is loaded. */
static size_t memory_budget(be_device *dev)
{
    size_t free_now;
    if (be_mem_free(&free_now) == 0)
        dev->mem_free = free_now;
    return (size_t)((double)dev->mem_free * 0.5);
}

/* --quick: the cases marked for the sanitizer this run is under (any tool's, without one). */
static int quick_tools(const run_opts *ro)
{
    if (!ro->quick)
        return 0;
    const int bit = cl_sanitize_bit(ro->sanitize);
    return bit ? bit : CL_SAN_ALL;
}

/* The engine's run over the started process, then the done line with its status. */
static void run_and_report(cl_verdict_out *vo, const run_opts *ro, const cl_lab *lab, const cl_checker *chk,
                           const be_device *dev, size_t budget, uint64_t seed, cl_link *link)
{
    cl_engine_opts o = {lab,  chk,   link, budget, seed, !ro->plan && strcmp(ro->mode, "bench") != 0,
                        strcmp(ro->mode, "test") != 0, quick_tools(ro), ro->plan, ro->nonly ? ro->only : NULL,
                        libs_after_load, libs_after_call, &g_libs, libs_before_load};
    cl_engine_outcome out;
    int rc = cl_engine_run(&o, dev, vo, &out);
    if (rc == CL_ENGINE_OK && !ro->plan)
        ask_kernels_ran(link);
    static const cl_run_status status[] = {[CL_ENGINE_OK] = CL_RUN_OK,
                                           [CL_ENGINE_SOLUTION_LOST] = CL_RUN_SOLUTION_LOST,
                                           [CL_ENGINE_DEVICE_LOST] = CL_RUN_DEVICE_LOST,
                                           [CL_ENGINE_LOAD_ERROR] = CL_RUN_LOAD_ERROR,
                                           [CL_ENGINE_MISSING_SYMBOL] = CL_RUN_MISSING_SYMBOL,
                                           [CL_ENGINE_JUDGE_ERROR] = CL_RUN_JUDGE_ERROR};
    done(vo, cl_run_status_name(status[rc]), rc ? out.message : NULL);
}

int main(int argc, char **argv)
{
    prctl(PR_SET_DUMPABLE, 0); /* nobody reads this process's memory, descriptors or environment */
    /* every grader kernel loaded at start: loading one lazily while a sentinel spins can
     * deadlock the context */
    setenv("CUDA_MODULE_LOADING", "EAGER", 1);
    run_opts ro;
    if (parse_options(argc, argv, &ro))
        return 2;
    char nonce[80];
    unsigned long long seed = 0;
    if (read_secrets(nonce, &seed))
        return 2;
    cl_verdict_out vo;
    if (cl_verdict_open(&vo, ro.fd, nonce)) {
        fprintf(stderr, "cudalab-run: bad verdict descriptor %d\n", ro.fd);
        return 2;
    }

    cl_lab lab;
    const cl_checker *chk;
    be_device dev;
    double t0 = cl_mono_s();
    if (open_lab(&vo, ro.yaml, &lab, &chk))
        return 0; /* the done line says why */
    /* plan mode loads nothing: it needs no solution process */
    cl_link link, *lp = ro.plan ? NULL : &link;
    exec_plan xp;
    if (lp && spawn_solution_process(&vo, &ro, &lab, lp, &xp))
        return 0;
    if (open_device(&vo, &lab, &dev)) {
        if (lp)
            cl_link_stop(lp);
        return 0;
    }
    double t1 = cl_mono_s();
    if (lp && connect_solution_process(&vo, &ro, &lab, lp, &xp))
        return 0;
    size_t budget = memory_budget(&dev);
    double t2 = cl_mono_s();
    run_and_report(&vo, &ro, &lab, chk, &dev, budget, seed, lp);
    double t3 = cl_mono_s();
    if (lp)
        cl_link_stop(lp);
    if (cl_phases_on()) { /* the judge's own steps around the cases */
        double t4 = cl_mono_s();
        char parts[160];
        snprintf(parts, sizeof parts, "device=%.1f exec=%.1f cases=%.1f stop=%.1f", (t1 - t0) * 1e3,
                 (t2 - t1) * 1e3, (t3 - t2) * 1e3, (t4 - t3) * 1e3);
        cl_phases_line(lab.name, "judge", ro.mode, (t4 - t0) * 1e3, parts);
    }
    fflush(stdout);
    fflush(stderr);
    _exit(0);
}
