/* runner_main.c: cudalab-run, the process a solution runs in.
 *
 *   cudalab-run --lab-yaml FILE --solution SO --mode test|bench|all --seed N
 *               --verdict-fd FD [--quick] [--case NAME]...
 *
 * The parent sends a nonce on stdin; the runner reads it, then replaces stdin with
 * /dev/null, moves the verdict descriptor somewhere unguessable, initialises the device,
 * and only then loads the solution. Every verdict line carries the nonce; the last one
 * is "done". Libraries the solution loads (dlopen is interposed, and the list of loaded
 * objects is compared after every call) are reported, so the parent can enforce bans. */
#include <dlfcn.h>
#include <fcntl.h>
#include <getopt.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "engine.h"
#include "grader/labconf.h"
#include "registry.h"
#include "verdict.h"

/* ---- libraries loaded while the solution is in the process ---- */

#define MAX_LIBS 256
static char *g_baseline[MAX_LIBS];
static int g_nbaseline;
static char *g_loaded[MAX_LIBS];
static int g_nloaded;
static int g_tracking;
static const char *g_solution_path;

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

static void note_loaded(const char *name)
{
    if (!name || !*name || !g_tracking)
        return;
    const char *b = base_name(name);
    if (g_solution_path && !strcmp(b, base_name(g_solution_path)))
        return;
    if (in_list(g_baseline, g_nbaseline, b) || in_list(g_loaded, g_nloaded, b) || g_nloaded >= MAX_LIBS)
        return;
    g_loaded[g_nloaded++] = strdup(b);
}

static int collect_cb(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    if (data) {
        const char *b = base_name(info->dlpi_name);
        if (*b && g_nbaseline < MAX_LIBS && !in_list(g_baseline, g_nbaseline, b))
            g_baseline[g_nbaseline++] = strdup(b);
    } else {
        note_loaded(info->dlpi_name);
    }
    return 0;
}

static void snapshot_libs(void) { dl_iterate_phdr(collect_cb, NULL); }

/* dlopen as the solution sees it: the executable's exported definition wins symbol
 * lookup, so a solution's dlopen("libcublas.so") is recorded before it happens. */
void *dlopen(const char *file, int mode)
{
    static void *(*real_dlopen)(const char *, int);
    if (!real_dlopen)
        real_dlopen = (void *(*)(const char *, int))dlsym(RTLD_NEXT, "dlopen");
    if (file)
        note_loaded(file);
    void *h = real_dlopen(file, mode);
    snapshot_libs();
    return h;
}

void *dlmopen(Lmid_t lmid, const char *file, int mode)
{
    static void *(*real_dlmopen)(Lmid_t, const char *, int);
    if (!real_dlmopen)
        real_dlmopen = (void *(*)(Lmid_t, const char *, int))dlsym(RTLD_NEXT, "dlmopen");
    if (file)
        note_loaded(file);
    void *h = real_dlmopen(lmid, file, mode);
    snapshot_libs();
    return h;
}

/* ---- cudalab_scratch, exported to solutions ---- */

static void *g_scratch;
static size_t g_scratch_bytes;

void *cudalab_scratch(size_t bytes)
{
    if (bytes <= g_scratch_bytes && g_scratch)
        return g_scratch;
    if (g_scratch) {
        be_sync();
        be_free(g_scratch);
    }
    g_scratch = NULL;
    g_scratch_bytes = 0;
    size_t want = bytes + bytes / 4; /* grow with headroom, to avoid reallocating each call */
    if (be_malloc(&g_scratch, want)) {
        g_scratch = NULL;
        return NULL;
    }
    g_scratch_bytes = want;
    return g_scratch;
}

/* ---- main ---- */

static void usage(void)
{
    fprintf(stderr,
            "usage: cudalab-run --lab-yaml FILE --solution SO --mode test|bench|all [--seed N]\n"
            "                   [--verdict-fd FD] [--quick] [--case NAME]...\n"
            "The parent (cudalab) writes a nonce line on stdin. This program is not meant to be\n"
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

static json_t *libs_json(void)
{
    json_t *a = json_array();
    for (int i = 0; i < g_nloaded; i++)
        json_array_append_new(a, json_string(g_loaded[i]));
    return a;
}

static int done(cl_verdict_out *vo, const char *status, const char *message)
{
    snapshot_libs();
    json_t *o = json_pack("{s:s}", "status", status);
    if (message)
        json_object_set_new(o, "message", json_string(message));
    json_object_set_new(o, "libs_loaded", libs_json());
    cl_verdict_emit(vo, "done", o);
    return 0;
}

int main(int argc, char **argv)
{
    const char *yaml = NULL, *solution = NULL, *mode = "all";
    unsigned long long seed = 1;
    int fd = -1, quick = 0, nonly = 0;
    const char **only = calloc((size_t)argc + 1, sizeof *only);
    static const struct option opts[] = {
        {"lab-yaml", required_argument, 0, 'y'}, {"solution", required_argument, 0, 's'},
        {"mode", required_argument, 0, 'm'},     {"seed", required_argument, 0, 'S'},
        {"verdict-fd", required_argument, 0, 'f'}, {"quick", no_argument, 0, 'q'},
        {"case", required_argument, 0, 'c'},     {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    int ch;
    while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (ch) {
        case 'y': yaml = optarg; break;
        case 's': solution = optarg; break;
        case 'm': mode = optarg; break;
        case 'S': seed = strtoull(optarg, NULL, 0); break;
        case 'f': fd = atoi(optarg); break;
        case 'q': quick = 1; break;
        case 'c': only[nonly++] = optarg; break;
        default: usage(); return 2;
        }
    }
    if (!yaml || !solution || (strcmp(mode, "test") && strcmp(mode, "bench") && strcmp(mode, "all"))) {
        usage();
        return 2;
    }
    /* the nonce: one line on stdin, then stdin is gone */
    char nonce[80] = "-";
    if (fd >= 0) {
        if (!fgets(nonce, sizeof nonce, stdin)) {
            fprintf(stderr, "cudalab-run: no nonce on stdin\n");
            return 2;
        }
        nonce[strcspn(nonce, "\r\n")] = '\0';
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0) {
            dup2(devnull, STDIN_FILENO);
            close(devnull);
        }
    }
    cl_verdict_out vo;
    if (cl_verdict_open(&vo, fd, nonce)) {
        fprintf(stderr, "cudalab-run: bad verdict descriptor %d\n", fd);
        return 2;
    }

    cl_lab lab;
    cl_err err;
    if (cl_lab_load_file(yaml, &lab, &err))
        return done(&vo, "error", err.msg);
    const cl_checker *chk = cl_find_checker(lab.name);
    if (!chk) {
        char msg[256];
        snprintf(msg, sizeof msg, "this runner has no checker for lab '%s'", lab.name);
        return done(&vo, "error", msg);
    }

    be_device dev;
    if (be_init(&dev)) {
        char msg[1200];
        snprintf(msg, sizeof msg, "no GPU: %s", be_error());
        return done(&vo, "no_device", msg);
    }
    cl_verdict_emit(&vo, "hello", json_pack("{s:o, s:s, s:I}", "device", device_json(&dev), "lab", lab.name,
                                            "seed", (json_int_t)seed));

    /* everything loaded so far is ours; from here on, new objects are the solution's */
    dl_iterate_phdr(collect_cb, (void *)1);
    g_tracking = 1;
    g_solution_path = solution;
    void *so = dlopen(solution, RTLD_NOW | RTLD_LOCAL);
    if (!so) {
        const char *e = dlerror();
        return done(&vo, "load_error", e ? e : "dlopen failed");
    }
    dlerror();
    void *entry = dlsym(so, lab.entry);
    if (!entry) {
        char msg[512];
        snprintf(msg, sizeof msg,
                 "the solution does not export '%s' (is it declared extern \"C\" with the lab's signature?)",
                 lab.entry);
        return done(&vo, "missing_symbol", msg);
    }
    cl_engine_after_call = snapshot_libs;
    cl_engine_opts o = {&lab, chk, entry, seed, strcmp(mode, "bench") != 0, strcmp(mode, "test") != 0, quick,
                        nonly ? only : NULL};
    int rc = cl_engine_run(&o, &dev, &vo);
    done(&vo, rc ? "device_lost" : "ok", rc ? "the device became unusable after a CUDA error" : NULL);
    fflush(stdout);
    fflush(stderr);
    /* Skip the solution's destructors and atexit handlers: the verdict is written, and a
     * solution that misbehaves at exit must not turn a finished run into a crash. */
    _exit(0);
}
