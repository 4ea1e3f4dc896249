/* grade.c: one solution through the stages compile -> inspect -> run + judge (correctness,
 * then performance) -> score, each failure turned into a verdict. */
#include "grader/grade.h"

#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "grader/ceilings.h"
#include "grader/compile.h"
#include "grader/elfinfo.h"
#include "grader/driver_keep.h"
#include "grader/labconf.h"
#include "grader/phases.h"
#include "grader/proc.h"
#include "grader/report.h"
#include "grader/sass.h"
#include "grader/score.h"
#include "i18n.h"
#include "paths.h"
#include "strbuf.h"

#define MAX_SOLUTION_BYTES (1u << 20)
#define OUTPUT_CAP (64u << 10)

typedef struct grader {
    const cl_grade_opts *o;
    cl_lab lab;
    cl_result *r;
    char runner[CL_PATH_MAX];
    char last_case[128];
    cl_gpu_info gpu; /* asked once (nvidia-smi is not free); unknown with a test runner */
    int host_backend; /* the judge runs on the host test backend (no GPU, no ceilings) */
    cl_err *err;      /* cl_grade's, for the messages of the stages' library calls */
    int prebuilt;     /* the solution is a shared object already (the CPU test suite) */
    cl_compile_result cr; /* compile's result (zero when prebuilt) */
    const char *so;   /* the shared object that runs */
    char *sass;       /* its machine code, for the Tensor Core check (gemm), or NULL */
    int sass_tensor;  /* Tensor Core instructions somewhere in it */
    int ran_named;    /* a run named the kernels it launched (its done line's kernels_ran) */
    int ran_tensor;   /* and one of them has Tensor Core instructions */
} grader;

static void progress(grader *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void progress(grader *g, const char *fmt, ...)
{
    if (!g->o->progress)
        return;
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, cl_tr(fmt), ap);
    va_end(ap);
    g->o->progress(g->o->ctx, buf);
}

static uint64_t random_seed(void)
{
    uint64_t s = 0;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        if (read(fd, &s, sizeof s) != sizeof s)
            s = 0;
        close(fd);
    }
    if (!s)
        s = (uint64_t)time(NULL) * 2654435761u ^ (uint64_t)getpid();
    return s & 0xFFFFFFFFFFFFull; /* 48 bits: short enough to type back with --seed */
}

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

/* ---- static checks ---- */

static int list_has(const char *const *list, const char *s)
{
    for (; list && *list; list++)
        if (!strcmp(*list, s))
            return 1;
    return 0;
}

/* A banned header in any #include line (quotes or angle brackets). */
static const char *find_banned_header(grader *g, const char *src, int *line_out)
{
    int line = 1;
    for (const char *p = src; *p; line++) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        const char *q = p;
        while (q < p + len && (*q == ' ' || *q == '\t')) q++;
        if (q < p + len && *q == '#') {
            char buf[512];
            snprintf(buf, sizeof buf, "%.*s", (int)(len < 511 ? len : 511), p);
            if (strstr(buf, "include")) {
                for (int i = 0; i < g->lab.nbanned_headers; i++)
                    if (strstr(buf, g->lab.banned_headers[i])) {
                        *line_out = line;
                        return g->lab.banned_headers[i];
                    }
                for (const char *const *h = g->o->extra_banned_headers; h && *h; h++)
                    if (strstr(buf, *h)) {
                        *line_out = line;
                        return *h;
                    }
            }
        }
        p = eol ? eol + 1 : p + len;
    }
    return NULL;
}

/* "libcublas.so.13" is banned by stem "cublas": lib<stem>.so or lib<stem>-... */
static const char *banned_lib(grader *g, const char *soname)
{
    const char *b = strrchr(soname, '/');
    b = b ? b + 1 : soname;
    if (strncmp(b, "lib", 3))
        return NULL;
    b += 3;
    for (int i = 0; i < g->lab.nbanned_libs; i++) {
        size_t n = strlen(g->lab.banned_libs[i]);
        if (!strncmp(b, g->lab.banned_libs[i], n) && (b[n] == '.' || b[n] == '_' || b[n] == '-'))
            return g->lab.banned_libs[i];
    }
    for (const char *const *l = g->o->extra_banned_libs; l && *l; l++) {
        size_t n = strlen(*l);
        if (!strncmp(b, *l, n) && (b[n] == '.' || b[n] == '_' || b[n] == '-'))
            return *l;
    }
    return NULL;
}

/* Calls into a banned library's API: undefined symbols named after a banned stem. */
static const char *banned_symbol(grader *g, const cl_elf_info *e)
{
    for (int i = 0; i < e->nundefined; i++)
        for (int k = 0; k < g->lab.nbanned_libs; k++)
            if (!strncmp(e->undefined[i], g->lab.banned_libs[k], strlen(g->lab.banned_libs[k])))
                return e->undefined[i];
    return NULL;
}

/* Loading GPU code at run time (a cubin or fatbin from memory or a file, JIT linking): in a
 * lab that bans libraries, a banned library's kernels could arrive this way (INTEGRITY.md
 * H6). A call through a driver entry point or dlsym is not seen here: docs/grading-policy.md. */
static const char *code_loader_symbol(grader *g, const cl_elf_info *e)
{
    static const char *const loaders[] = {"cuModuleLoad", "cuModuleLoadData", "cuModuleLoadDataEx",
                                          "cuModuleLoadFatBinary", "cuLibraryLoadData", "cuLibraryLoadFromFile",
                                          "cudaLibraryLoadData", "cudaLibraryLoadFromFile", "cuLinkCreate",
                                          "cuLinkCreate_v2", "cuLinkAddData", "cuLinkAddData_v2", NULL};
    if (g->lab.nbanned_libs == 0 && !(g->o->extra_banned_libs && *g->o->extra_banned_libs))
        return NULL;
    for (int i = 0; i < e->nundefined; i++)
        for (const char *const *l = loaders; *l; l++)
            if (!strcmp(e->undefined[i], *l))
                return e->undefined[i];
    return NULL;
}

static int check_source(grader *g)
{
    cl_result *r = g->r;
    struct stat st;
    if (stat(g->o->solution, &st) != 0) {
        cl_result_set(r, CL_V_COMPILE_ERROR, "solution file not found: %s", g->o->solution);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        cl_result_set(r, CL_V_COMPILE_ERROR, "%s is not a regular file", g->o->solution);
        return -1;
    }
    size_t len = strlen(g->o->solution);
    if (g->o->allow_prebuilt && len > 3 && !strcmp(g->o->solution + len - 3, ".so"))
        return 0;
    if ((size_t)st.st_size > MAX_SOLUTION_BYTES) {
        cl_result_set(r, CL_V_COMPILE_ERROR, "%s is too large (%lld bytes; the limit is %u)", g->o->solution,
                      (long long)st.st_size, MAX_SOLUTION_BYTES);
        return -1;
    }
    char *src;
    size_t n;
    cl_err err;
    if (cl_read_file(g->o->solution, MAX_SOLUTION_BYTES, &src, &n, &err)) {
        cl_result_set(r, CL_V_COMPILE_ERROR, "%s", err.msg);
        return -1;
    }
    if (memchr(src, '\0', n)) {
        free(src);
        cl_result_set(r, CL_V_COMPILE_ERROR, "%s is not a text file (it contains NUL bytes)", g->o->solution);
        return -1;
    }
    int line = 0;
    const char *h = find_banned_header(g, src, &line);
    free(src);
    if (h) {
        cl_result_set(r, CL_V_BANNED, "%s:%d: includes %s, which this lab does not allow", g->o->solution, line, h);
        return -1;
    }
    return 0;
}

static int check_binary(grader *g, const char *so)
{
    cl_result *r = g->r;
    cl_elf_info e;
    cl_err err;
    if (cl_elf_inspect(so, &e, &err)) {
        cl_result_set(r, CL_V_ERROR, "%s", err.msg);
        return -1;
    }
    int rc = 0;
    for (int i = 0; i < e.nneeded && !rc; i++) {
        const char *b = banned_lib(g, e.needed[i]);
        if (b) {
            cl_result_set(r, CL_V_BANNED, "the solution links against %s (%s is not allowed in this lab)",
                          e.needed[i], b);
            rc = -1;
        }
    }
    const char *sym = rc ? NULL : banned_symbol(g, &e);
    if (sym) {
        cl_result_set(r, CL_V_BANNED, "the solution calls %s (a library this lab does not allow)", sym);
        rc = -1;
    }
    const char *loader = rc ? NULL : code_loader_symbol(g, &e);
    if (loader) {
        cl_result_set(r, CL_V_BANNED,
                      "the solution loads GPU code at run time (%s): this lab bans libraries, so every kernel must "
                      "be compiled from the solution's source", loader);
        rc = -1;
    }
    if (!rc && !cl_elf_defines(&e, g->lab.entry)) {
        const char *mangled = NULL;
        for (int i = 0; i < e.ndefined; i++)
            if (strstr(e.defined[i], g->lab.entry)) {
                mangled = e.defined[i];
                break;
            }
        if (mangled)
            cl_result_set(r, CL_V_MISSING_SYMBOL,
                          "'%s' is exported as the C++ name '%s': declare it extern \"C\" (the lab header does)",
                          g->lab.entry, mangled);
        else
            cl_result_set(r, CL_V_MISSING_SYMBOL, "the solution does not define '%s' (expected: %s)", g->lab.entry,
                          g->lab.signature);
        rc = -1;
    }
    cl_elf_free(&e);
    return rc;
}

/* ---- the runner ---- */

typedef struct run_out {
    int have_done;
    char done_status[64];
    char *done_message;
    int tampered;
    char tamper_why[256];
    json_t *cases; /* array of case objects */
    json_t *libs;
    json_t *libs_at_load; /* new while the solution was being loaded (its constructors) */
    json_t *code_foreign; /* code mapped from files the solution could have written */
    json_t *kernels_ran;  /* the kernels launched inside the calls, when all were named */
    char gpu[256], uuid[64];
    int host; /* the runner's backend is the host test backend */
    cl_proc_result proc;
    double timeout;
} run_out;

typedef struct line_ctx {
    grader *g;
    const char *nonce;
    const char *what; /* "testing", "benchmarking", ... */
} line_ctx;

static void on_line(void *vctx, const char *line)
{
    line_ctx *lc = vctx;
    json_t *j = json_loads(line, 0, NULL);
    if (!j)
        return;
    const char *ev = json_string_value(json_object_get(j, "event"));
    const char *nonce = json_string_value(json_object_get(j, "nonce"));
    if (ev && nonce && !strcmp(nonce, lc->nonce) && !strcmp(ev, "case_start")) {
        const char *name = json_string_value(json_object_get(j, "name"));
        snprintf(lc->g->last_case, sizeof lc->g->last_case, "%s", name ? name : "?");
        progress(lc->g, "%s %s: %s", lc->what, lc->g->lab.name, lc->g->last_case);
    }
    json_decref(j);
}

static void parse_verdict(run_out *ro, const char *nonce)
{
    ro->cases = json_array();
    const char *p = ro->proc.verdict ? ro->proc.verdict : "";
    if (ro->proc.verdict_overflow) {
        ro->tampered = 1;
        snprintf(ro->tamper_why, sizeof ro->tamper_why, "the verdict channel overflowed");
    }
    while (*p) {
        const char *eol = strchr(p, '\n');
        if (!eol) { /* a partial last line: the process died while writing */
            break;
        }
        size_t len = (size_t)(eol - p);
        json_error_t je;
        json_t *j = json_loadb(p, len, 0, &je);
        p = eol + 1;
        const char *ev = j ? json_string_value(json_object_get(j, "event")) : NULL;
        const char *n = j ? json_string_value(json_object_get(j, "nonce")) : NULL;
        if (!j || !ev || !n || strcmp(n, nonce)) {
            ro->tampered = 1;
            snprintf(ro->tamper_why, sizeof ro->tamper_why, "a line on the verdict channel was not the runner's");
            json_decref(j);
            continue;
        }
        if (ro->have_done) {
            ro->tampered = 1;
            snprintf(ro->tamper_why, sizeof ro->tamper_why, "lines after the final verdict");
        }
        if (!strcmp(ev, "hello")) {
            json_t *d = json_object_get(j, "device");
            const char *nm = json_string_value(json_object_get(d, "name"));
            const char *u = json_string_value(json_object_get(d, "uuid"));
            ro->host = json_is_true(json_object_get(d, "host"));
            if (nm) snprintf(ro->gpu, sizeof ro->gpu, "%s", nm);
            if (u) snprintf(ro->uuid, sizeof ro->uuid, "%s", u);
        } else if (!strcmp(ev, "case")) {
            json_array_append(ro->cases, j);
        } else if (!strcmp(ev, "done")) {
            ro->have_done = 1;
            const char *st = json_string_value(json_object_get(j, "status"));
            snprintf(ro->done_status, sizeof ro->done_status, "%s", st ? st : "?");
            ro->done_message = dup_or_null(json_string_value(json_object_get(j, "message")));
            ro->libs = json_incref(json_object_get(j, "libs_loaded"));
            ro->libs_at_load = json_incref(json_object_get(j, "libs_at_load"));
            ro->code_foreign = json_incref(json_object_get(j, "code_foreign"));
            ro->kernels_ran = json_incref(json_object_get(j, "kernels_ran"));
        }
        json_decref(j);
    }
}

static void run_out_free(run_out *ro)
{
    json_decref(ro->cases);
    json_decref(ro->libs);
    json_decref(ro->libs_at_load);
    json_decref(ro->code_foreign);
    json_decref(ro->kernels_ran);
    free(ro->done_message);
    cl_proc_result_free(&ro->proc);
}

/* Runs the judge (cudalab-run) on so in mode ("test", "bench"); sanitize: a
 * compute-sanitizer tool to run the solution's process under (its log goes to log), or
 * NULL. */
static int run_runner(grader *g, const char *so, const char *mode, int quick, const char *sanitize,
                      const char *log, const char *what, run_out *ro)
{
    memset(ro, 0, sizeof *ro);
    char nonce[40], seed[32];
    uint64_t nv = random_seed() ^ ((uint64_t)random_seed() << 16);
    snprintf(nonce, sizeof nonce, "%016llx%08x", (unsigned long long)nv, (unsigned)getpid());
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)g->r->seed);
    char *argv[32];
    int argc = 0;
    const char *fixed[] = {g->runner, "--lab-yaml", g->lab.path, "--solution", so, "--mode", mode,
                           "--verdict-fd", "{VFD}"};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        argv[argc++] = (char *)fixed[i];
    if (quick)
        argv[argc++] = "--quick";
    char file_limit[32];
    snprintf(file_limit, sizeof file_limit, "%llu",
             (unsigned long long)(g->o->max_file_bytes ? g->o->max_file_bytes : (1ull << 30)));
    argv[argc++] = "--file-limit";
    argv[argc++] = file_limit;
    if (sanitize) {
        argv[argc++] = "--sanitize";
        argv[argc++] = (char *)sanitize;
        argv[argc++] = "--sanitize-log";
        argv[argc++] = (char *)log;
    }
    argv[argc] = NULL;
    /* the secrets go on the judge's stdin, never on a command line anyone can read */
    char stdin_line[96];
    snprintf(stdin_line, sizeof stdin_line, "%s %s\n", nonce, seed);
    double scale = g->o->timeout_scale > 0 ? g->o->timeout_scale : 1.0;
    ro->timeout = (strcmp(mode, "bench") ? g->lab.timeout_test_s : g->lab.timeout_bench_s) * scale;
    if (g->o->timeout_s > 0)
        ro->timeout = g->o->timeout_s;
    if (sanitize)
        ro->timeout *= 10; /* the sanitizer is slow */
    line_ctx lc = {g, nonce, what};
    cl_proc_opts po = {0};
    po.argv = argv;
    po.env_set = g->o->env_set;
    po.timeout_s = ro->timeout;
    po.output_cap = OUTPUT_CAP;
    po.stdin_data = stdin_line;
    po.verdict_pipe = 1;
    /* the file-size limit is the solution's: the judge puts it on the solution's process (the
     * judge's own shared buffers are files too, on the host backend) */
    po.max_file_bytes = 0;
    po.max_procs = g->o->max_procs;
    po.on_line = on_line;
    po.ctx = &lc;
    g->last_case[0] = '\0';
    cl_err err;
    /* the nonce is in this process's memory: no process of the same user may read it
     * (where Landlock does not already keep the solution's process out) */
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    double t0 = cl_mono_s();
    int failed = cl_proc_run(&po, &ro->proc, &err);
    cl_phases_line(g->lab.name, "runner", mode, (cl_mono_s() - t0) * 1e3, NULL);
    if (failed) {
        cl_result_set(g->r, CL_V_ERROR, "cannot start the runner: %s", err.msg);
        return -1;
    }
    parse_verdict(ro, nonce);
    return 0;
}

static double jnum(json_t *o, const char *k) { return json_number_value(json_object_get(o, k)); }

static void absorb_cases(cl_result *r, json_t *cases)
{
    size_t i;
    json_t *c;
    json_array_foreach(cases, i, c) {
        if (json_string_value(json_object_get(c, "name")) && r->ncases < CL_MAX_CASES)
            cl_case_from_json(c, &r->cases[r->ncases++]);
    }
}

static void keep_output(cl_result *r, const run_out *ro)
{
    if (!ro->proc.output_len)
        return;
    cl_strbuf sb;
    cl_sb_init(&sb);
    if (r->output)
        cl_sb_append(&sb, r->output);
    cl_sb_append(&sb, ro->proc.output);
    if (ro->proc.output_dropped)
        cl_sb_printf(&sb, "\n[... %zu more bytes of output not kept]\n", ro->proc.output_dropped);
    free(r->output);
    r->output = cl_sb_take(&sb);
}


/* ---- judge: one runner process's lines turned into a verdict ---- */

/* Libraries first: a banned library taints everything after it. */
static int judge_libraries(grader *g, const run_out *ro)
{
    cl_result *r = g->r;
    size_t i;
    json_t *l;
    json_array_foreach(ro->libs, i, l) {
        const char *name = json_string_value(l);
        if (!name)
            continue;
        if (r->nlibs < 32 && !list_has((const char *const *)r->libs, name))
            r->libs[r->nlibs++] = strdup(name);
        const char *b = banned_lib(g, name);
        if (b) {
            cl_result_set(r, CL_V_BANNED, "the solution loaded %s while it ran (%s is not allowed in this lab)", name, b);
            return -1;
        }
    }
    json_array_foreach(ro->libs_at_load, i, l) {
        const char *b = json_string_value(l) ? banned_lib(g, json_string_value(l)) : NULL;
        if (b) {
            cl_result_set(r, CL_V_BANNED, "the solution loaded %s as it was loaded (%s is not allowed in this lab)",
                          json_string_value(l), b);
            return -1;
        }
    }
    /* a lab that bans libraries runs code only from installed files: a library copied under
     * another name, or into a memory file, cannot be told from a banned one */
    if ((g->lab.nbanned_libs > 0 || (g->o->extra_banned_libs && *g->o->extra_banned_libs)) &&
        json_array_size(ro->code_foreign) > 0) {
        cl_result_set(r, CL_V_BANNED,
                      "the solution ran code from %s, a file it could have made itself (this lab bans libraries, "
                      "so code may come only from installed libraries)",
                      json_string_value(json_array_get(ro->code_foreign, 0)));
        return -1;
    }
    return 0;
}

/* A message about how a process ended: fmt takes how it ended (%s), then the case (%s) when
 * it names one; how in English for the report, how_tr in the user's language for the screen. */
static void set_ending(cl_result *r, cl_verdict v, const char *fmt, const char *how, const char *how_tr,
                       const char *where)
{
    char en[1024], tr[1024];
    snprintf(en, sizeof en, fmt, how, where);
    snprintf(tr, sizeof tr, cl_tr(fmt), how_tr, where);
    cl_result_set2(r, v, en, tr);
}

/* How the runner ended when it gave no final verdict, or gave one that ends the run
 * before any case counts. */
static int judge_ending(grader *g, const run_out *ro)
{
    cl_result *r = g->r;
    const char *where = g->last_case[0] ? g->last_case : NULL;
    if (ro->tampered) {
        cl_result_set(r, CL_V_CRASH, "the verdict channel was tampered with (%s): the run is void", ro->tamper_why);
        return -1;
    }
    if (!ro->have_done) {
        char how[256], how_tr[256];
        cl_proc_describe_lang(&ro->proc, ro->timeout, CL_LANG_EN, how, sizeof how);
        cl_proc_describe_lang(&ro->proc, ro->timeout, cl_lang_current(), how_tr, sizeof how_tr);
        if (ro->proc.timed_out && where)
            set_ending(r, CL_V_TIMEOUT, "%s in case %s", how, how_tr, where);
        else if (ro->proc.timed_out)
            set_ending(r, CL_V_TIMEOUT, "%s", how, how_tr, where);
        else if (ro->proc.signaled && where)
            set_ending(r, CL_V_CRASH, "the solution crashed: %s in case %s", how, how_tr, where);
        else if (ro->proc.signaled)
            set_ending(r, CL_V_CRASH, "the solution crashed: %s", how, how_tr, where);
        else if (where)
            set_ending(r, CL_V_CRASH,
                       "the run ended without a verdict (%s) in case %s: a solution must not exit the process", how,
                       how_tr, where);
        else
            set_ending(r, CL_V_CRASH, "the run ended without a verdict (%s): a solution must not exit the process",
                       how, how_tr, where);
        absorb_cases(r, ro->cases);
        return -1;
    }
    const char *msg = ro->done_message;
    switch (cl_run_status_of(ro->done_status)) {
    case CL_RUN_MISSING_SYMBOL:
        if (msg)
            cl_result_set(r, CL_V_MISSING_SYMBOL, "%s", msg);
        else
            cl_result_set(r, CL_V_MISSING_SYMBOL, "entry point not found");
        return -1;
    case CL_RUN_LOAD_ERROR:
        cl_result_set(r, CL_V_CRASH, "the solution could not be loaded: %s", msg ? msg : "");
        return -1;
    case CL_RUN_NO_DEVICE:
        if (msg)
            cl_result_set(r, CL_V_NO_DEVICE, "%s", msg);
        else
            cl_result_set(r, CL_V_NO_DEVICE, "no GPU");
        return -1;
    case CL_RUN_JUDGE_ERROR:
        if (msg)
            cl_result_set(r, CL_V_ERROR, "%s", msg);
        else
            cl_result_set(r, CL_V_ERROR, "runner error");
        return -1;
    default:
        return 0;
    }
}

/* The run's cases: the first failing one in lab.yaml order decides (fix that one first);
 * cases not run because the device was lost after an earlier error do not count. */
static int judge_cases(grader *g, const run_out *ro, int first)
{
    cl_result *r = g->r;
    cl_case_result *wc = NULL;
    for (int k = first; k < r->ncases; k++) {
        cl_case_result *c = &r->cases[k];
        if (!c->bench) {
            r->total++;
            r->passed += cl_case_passed(c->status);
        }
        if (!wc && c->status && !cl_case_not_run(c->status) && cl_verdict_of_case(c->status) != CL_V_CORRECT)
            wc = c;
    }
    if (wc) {
        cl_result_set(r, cl_verdict_of_case(wc->status), "case '%s': %s", wc->name,
                      wc->message ? wc->message : wc->status);
        return -1;
    }
    cl_run_status st = cl_run_status_of(ro->done_status);
    if (st == CL_RUN_SOLUTION_LOST || st == CL_RUN_DEVICE_LOST) {
        if (ro->done_message)
            cl_result_set(r, CL_V_CRASH, "%s", ro->done_message);
        else
            cl_result_set(r, CL_V_CRASH, "the solution's process ended");
        return -1;
    }
    return 0;
}

/* A bench case whose GPU work ran outside the call, or whose clock disagrees. */
static int judge_off_stream(grader *g, int first)
{
    cl_result *r = g->r;
    for (int k = first; k < r->ncases; k++)
        if (r->cases[k].bench && r->cases[k].off_stream) {
            cl_result_set(r, CL_V_OFF_STREAM,
                          "case '%s': %s: launch every kernel on the stream you are given, and let the grader "
                          "time it", r->cases[k].name,
                          r->cases[k].off_stream_why ? r->cases[k].off_stream_why : "work outside the call");
            return -1;
        }
    return 0;
}

/* The Tensor Core check, narrowed to the kernels this run launched when its process named
 * them: mma code in a kernel that never runs proves nothing. Over several runs, one kernel
 * with Tensor Core code that ran is enough. */
static void judge_kernels_ran(grader *g, const run_out *ro)
{
    if (!g->sass || !json_is_array(ro->kernels_ran))
        return;
    size_t n = json_array_size(ro->kernels_ran);
    const char **names = calloc(n + 1, sizeof *names);
    if (!names)
        return;
    for (size_t i = 0; i < n; i++) {
        const char *s = json_string_value(json_array_get(ro->kernels_ran, i));
        names[i] = s ? s : "";
    }
    g->ran_named = 1;
    g->ran_tensor |= cl_sass_tensor_cores(g->sass, names, (int)n);
    free(names);
    g->r->tensor_cores = g->ran_tensor; /* (g->sass: the check ran) */
}

/* Turns one runner process into a verdict. Returns 0 when every case it ran passed. */
static int judge_run(grader *g, run_out *ro, int bench)
{
    cl_result *r = g->r;
    if (ro->gpu[0]) {
        snprintf(r->gpu, sizeof r->gpu, "%s", ro->gpu);
        snprintf(r->gpu_uuid, sizeof r->gpu_uuid, "%s", ro->uuid);
    }
    keep_output(r, ro);
    judge_kernels_ran(g, ro);
    if (judge_libraries(g, ro) || judge_ending(g, ro))
        return -1;
    int first = r->ncases;
    absorb_cases(r, ro->cases);
    if (judge_cases(g, ro, first))
        return -1;
    return bench ? judge_off_stream(g, first) : 0;
}

/* ---- compute-sanitizer ---- */

static void run_sanitizer(grader *g, const char *so)
{
    cl_result *r = g->r;
    char tool[CL_PATH_MAX] = "no nvcc found";
    int have_tool = cl_cuda_tool("compute-sanitizer", tool, sizeof tool) == 0;
    cl_strbuf report;
    cl_sb_init(&report);
    int total_errors = 0;
    const char *const *tools = cl_sanitize_tools;
    for (int t = 0; t < CL_SAN_TOOLS; t++) {
        char log[CL_PATH_MAX], cache[CL_PATH_MAX];
        cl_err err;
        if (cl_cache_dir(cache, sizeof cache, &err))
            break;
        snprintf(log, sizeof log, "%s/sanitizer-%d-%s.log", cache, (int)getpid(), tools[t]);
        if (!have_tool) {
            cl_sb_printf(&report, "%s: compute-sanitizer not found next to nvcc (%s)\n", tools[t], tool);
            break;
        }
        progress(g, "compute-sanitizer --tool %s", tools[t]);
        run_out ro;
        if (run_runner(g, so, "test", 1, tools[t], log, tools[t], &ro))
            break;
        /* the sanitized run is a run of record: its outputs are judged like any other, so a
         * solution that behaves differently under the sanitizer gains nothing */
        size_t ci;
        json_t *c;
        json_array_foreach(ro.cases, ci, c) {
            const char *st = json_string_value(json_object_get(c, "status"));
            cl_verdict v = cl_verdict_of_case(st);
            if (r->verdict == CL_V_CORRECT && v != CL_V_CORRECT && st && !cl_case_not_run(st)) {
                const char *m = json_string_value(json_object_get(c, "message"));
                cl_result_set(r, v, "under compute-sanitizer %s, case '%s': %s", tools[t],
                              json_string_value(json_object_get(c, "name")), m ? m : st);
            }
        }
        char *text = NULL;
        size_t n = 0;
        int errors = -1;
        if (cl_read_file(log, 16u << 20, &text, &n, &err) == 0) {
            const char *s = strstr(text, "ERROR SUMMARY:");
            if (s)
                errors = atoi(s + strlen("ERROR SUMMARY:"));
        }
        unlink(log);
        if (errors < 0 && !ro.have_done) {
            char how[256];
            cl_proc_describe(&ro.proc, ro.timeout, how, sizeof how);
            cl_sb_printf(&report, "%s: the run ended without a verdict (%s)\n", tools[t], how);
            total_errors++;
        } else if (errors > 0) {
            total_errors += errors;
            cl_sb_printf(&report, "%s: %d error%s\n", tools[t], errors, errors == 1 ? "" : "s");
            /* keep the first findings, without the ========= prefix noise */
            int lines = 0;
            for (char *p = text; p && *p && lines < 24; lines++) {
                char *eol = strchr(p, '\n');
                if (eol) *eol = '\0';
                const char *q = p;
                while (*q == '=') q++;
                while (*q == ' ') q++;
                if (*q && !strstr(q, "ERROR SUMMARY") && strncmp(q, "COMPUTE-SANITIZER", 17))
                    cl_sb_printf(&report, "  %s\n", q);
                p = eol ? eol + 1 : NULL;
            }
        } else {
            cl_sb_printf(&report, "%s: no errors\n", tools[t]);
        }
        free(text);
        run_out_free(&ro);
    }
    r->did_sanitize = 1;
    r->sanitizer = cl_sb_take(&report);
    if (total_errors > 0 && r->verdict == CL_V_CORRECT)
        cl_result_set(r, CL_V_SANITIZER, "compute-sanitizer found problems (see the sanitizer report)");
}

/* ---- bench ---- */

static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* The reference's bench medians, measured before the solution's bench run (a solution
 * that left something running cannot slow its yardstick down), kept by case name. */
typedef struct yardstick {
    int n;
    char name[CL_MAX_CASES][128];
    double ref_ms[CL_MAX_CASES];
    long long dims[CL_MAX_CASES][3];
    int ndims[CL_MAX_CASES];
    double cublas_tflops[CL_MAX_CASES];
    int self; /* the solution is the reference: its own medians are the ratio's base */
} yardstick;

/* The bench cases' dimensions, from the judge's plan mode (no solution is loaded). */
static void plan_shapes(grader *g, const char *so, yardstick *y)
{
    run_out ro;
    if (run_runner(g, so, "plan", 0, NULL, NULL, CL_T("sizing the cases of"), &ro))
        return;
    size_t i;
    json_t *c;
    json_array_foreach(ro.cases, i, c) {
        const char *name = json_string_value(json_object_get(c, "name"));
        json_t *d = json_object_get(json_object_get(c, "bench"), "dims");
        if (!name || y->n >= CL_MAX_CASES)
            continue;
        int k = y->n++;
        snprintf(y->name[k], sizeof y->name[k], "%s", name);
        y->ndims[k] = json_array_size(d) == 3 ? 3 : 0;
        for (int j = 0; j < y->ndims[k]; j++)
            y->dims[k][j] = (long long)json_integer_value(json_array_get(d, (size_t)j));
    }
    run_out_free(&ro);
}

static void time_reference(grader *g, yardstick *y)
{
    char ref_src[CL_PATH_MAX];
    snprintf(ref_src, sizeof ref_src, "%s/reference/%s.cu", cl_home_dir(), g->lab.name);
    if (!cl_file_exists(ref_src))
        return;
    if (same_file(ref_src, g->o->solution)) { /* the reference against itself */
        y->self = 1;
        return;
    }
    progress(g, "compiling the reference");
    cl_compile_opts co = {ref_src, g->o->arch, g->lab.arch_suffix, g->lab.nvcc_flags, 0, g->o->runner ? NULL : &g->gpu};
    cl_compile_result cr;
    cl_err err;
    if (cl_compile(&co, &cr, &err) || !cr.ok) {
        cl_compile_result_free(&cr);
        return; /* no ratio then; the fraction of the ceiling still stands */
    }
    run_out ro;
    if (run_runner(g, cr.so_path, "bench", 0, NULL, NULL, CL_T("timing the reference of"), &ro) == 0) {
        size_t i;
        json_t *c;
        json_array_foreach(ro.cases, i, c) {
            const char *name = json_string_value(json_object_get(c, "name"));
            const char *st = json_string_value(json_object_get(c, "status"));
            json_t *b = json_object_get(c, "bench");
            if (!name || !cl_case_passed(st) || !b)
                continue;
            int k = 0;
            while (k < y->n && strcmp(y->name[k], name))
                k++;
            if (k == y->n) { /* no plan was needed for this lab: the reference names its cases */
                if (y->n >= CL_MAX_CASES)
                    continue;
                snprintf(y->name[y->n++], sizeof y->name[k], "%s", name);
            }
            y->ref_ms[k] = jnum(b, "median_ms");
        }
        run_out_free(&ro);
    }
    cl_compile_result_free(&cr);
}

/* cuBLAS on the bench shapes (from the reference's run), in its own process, before the
 * solution's bench run. */
static void cublas_ceilings(grader *g, yardstick *y)
{
    long long shapes[CL_MAX_CASES][3];
    int idx[CL_MAX_CASES], n = 0;
    for (int i = 0; i < y->n; i++)
        if (y->ndims[i] == 3) {
            memcpy(shapes[n], y->dims[i], sizeof shapes[n]);
            idx[n++] = i;
        }
    if (!n)
        return;
    progress(g, "timing cuBLAS on the same shapes (in its own process)");
    double tf[CL_MAX_CASES] = {0};
    cl_err err;
    double t0 = cl_mono_s();
    int failed = cl_cublas_tflops(n, (const long long (*)[3])shapes, tf, &err);
    cl_phases_line(g->lab.name, "cublas", NULL, (cl_mono_s() - t0) * 1e3, NULL);
    if (failed)
        return;
    for (int k = 0; k < n; k++)
        y->cublas_tflops[idx[k]] = tf[k];
}

/* The yardsticks, matched to the solution's cases by name. */
static void apply_yardsticks(grader *g, const yardstick *y)
{
    cl_result *r = g->r;
    for (int i = 0; i < r->ncases; i++) {
        cl_case_result *c = &r->cases[i];
        if (!c->bench)
            continue;
        if (y->self)
            c->ref_ms = c->median_ms;
        for (int k = 0; k < y->n; k++)
            if (!strcmp(y->name[k], c->name)) {
                if (!y->self && y->ref_ms[k] > 0)
                    c->ref_ms = y->ref_ms[k];
                if (y->cublas_tflops[k] > 0)
                    c->ceiling = y->cublas_tflops[k];
            }
    }
}

/* A figure past what this GPU can do is a measurement to investigate, never a grade:
 * bandwidth above the measured ceiling by more than its noise, or TFLOP/s far above
 * cuBLAS (a hand-written kernel can beat cuBLAS, by tens of percent, not by half). */
#define BANDWIDTH_BOUND 1.10
#define CUBLAS_BOUND 1.50
static const cl_case_result *impossible_case(const grader *g)
{
    const cl_result *r = g->r;
    double bound = g->lab.ceiling == CL_CEIL_CUBLAS ? CUBLAS_BOUND : BANDWIDTH_BOUND;
    if (g->lab.ceiling == CL_CEIL_REFERENCE)
        return NULL; /* beating the reference is allowed, by any margin */
    for (int i = 0; i < r->ncases; i++)
        if (r->cases[i].bench && r->cases[i].ceiling > 0 && r->cases[i].fraction > bound)
            return &r->cases[i];
    return NULL;
}

/* ---- the stages ---- */

/* Each stage returns GO, or STOP once it has set the verdict that ends grading. */
enum { GO = 0, STOP = 1 };

/* The grader's state: the options, lab.yaml, the seed, the judge's path, this GPU. */
static int begin(grader *g, const cl_grade_opts *o, cl_result *r, cl_err *err)
{
    cl_result_init(r);
    memset(g, 0, sizeof *g);
    g->o = o;
    g->r = r;
    g->err = err;
    r->seed = o->have_seed ? o->seed : random_seed();
    snprintf(r->lab, sizeof r->lab, "%s", o->lab);
    snprintf(r->solution, sizeof r->solution, "%s", o->solution);
    if (o->runner)
        snprintf(g->runner, sizeof g->runner, "%s", o->runner);
    else
        snprintf(g->runner, sizeof g->runner, "%s/cudalab-run", cl_exe_dir());
    if (cl_lab_load(cl_home_dir(), o->lab, &g->lab, err))
        return -1;
    snprintf(r->title, sizeof r->title, "%s", g->lab.title.en);
    snprintf(r->title_zh, sizeof r->title_zh, "%s", g->lab.title.zh ? g->lab.title.zh : "");
    r->metric = (int)g->lab.metric;
    if (!o->runner)
        cl_detect_gpu(&g->gpu);
    r->did_test = o->test || o->bench;
    if (r->did_test && g->gpu.present)
        cl_driver_keep(); /* every judge and solution process from here on starts sooner */
    g->so = o->solution;
    size_t sl = strlen(o->solution);
    g->prebuilt = o->allow_prebuilt && sl > 3 && !strcmp(o->solution + sl - 3, ".so");
    return 0;
}

/* compile: the source's static checks, then nvcc (cached); a prebuilt .so is taken as is. */
static int stage_compile(grader *g)
{
    cl_result *r = g->r;
    if (check_source(g))
        return STOP;
    if (g->prebuilt) {
        r->compiled = 1;
        return GO;
    }
    progress(g, "compiling %s", g->o->solution);
    cl_compile_opts co = {g->o->solution, g->o->arch, g->lab.arch_suffix, g->lab.nvcc_flags, g->o->sanitize,
                          g->o->runner ? NULL : &g->gpu};
    if (cl_compile(&co, &g->cr, g->err)) {
        cl_result_set(r, CL_V_ERROR, "%s", g->err->msg);
        return STOP;
    }
    r->compile_cached = g->cr.cached;
    r->compile_s = g->cr.seconds;
    snprintf(r->arch, sizeof r->arch, "%s", g->cr.arch);
    r->compile_log = dup_or_null(g->cr.log);
    if (!g->cr.ok) {
        cl_result_set(r, CL_V_COMPILE_ERROR, "nvcc failed (%s)", g->cr.arch);
        r->detail = dup_or_null(g->cr.log);
        return STOP;
    }
    r->compiled = 1;
    g->so = g->cr.so_path;
    return GO;
}

/* inspect: the shared object's entry point, libraries and Tensor Core code; then whether
 * there is anything to run it on. */
static int stage_inspect(grader *g)
{
    cl_result *r = g->r;
    if (check_binary(g, g->so))
        return STOP;
    if (g->lab.metric == CL_METRIC_TFLOPS && !g->prebuilt && cl_sass_read(g->so, &g->sass) == 0)
        r->tensor_cores = g->sass_tensor = cl_sass_tensor_cores(g->sass, NULL, 0);
    if (!r->did_test) {
        if (g->cr.note[0])
            cl_result_set(r, CL_V_CORRECT, "no GPU found: compiled for %s (choose with --arch)", g->cr.arch);
        else
            cl_result_set(r, CL_V_CORRECT, "ready to test on a GPU of this architecture");
        return STOP;
    }
    if (access(g->runner, X_OK) != 0) {
        cl_result_set(r, CL_V_NO_DEVICE, "compiled for %s; this build has no runner (no CUDA): cannot run it",
                      r->arch[0] ? r->arch : "?");
        return STOP;
    }
    if (!g->o->runner && !g->prebuilt && !g->gpu.present) {
        cl_result_set(r, CL_V_NO_DEVICE, "compiled for %s; there is no GPU here to run it", g->cr.arch);
        return STOP;
    }
    return GO;
}

/* run + judge, correctness: every case once, then (--sanitize) again under
 * compute-sanitizer. */
static int stage_correctness(grader *g)
{
    cl_result *r = g->r;
    run_out ro;
    if (run_runner(g, g->so, "test", 0, NULL, NULL, CL_T("testing"), &ro))
        return STOP;
    g->host_backend = ro.host;
    int bad = judge_run(g, &ro, 0);
    run_out_free(&ro);
    if (bad)
        return STOP;
    cl_result_set(r, CL_V_CORRECT, "all %d correctness cases passed", r->total);
    if (g->o->sanitize)
        run_sanitizer(g, g->so);
    return g->o->bench && r->verdict == CL_V_CORRECT ? GO : STOP;
}

struct cl_yardstick_memo {
    int have;
    yardstick y;
};

cl_yardstick_memo *cl_yardstick_memo_new(void) { return calloc(1, sizeof(cl_yardstick_memo)); }
void cl_yardstick_memo_free(cl_yardstick_memo *m) { free(m); }

/* The yardsticks, on a GPU no solution code has touched since the correctness run ended
 * (its process and everything it started are gone): this GPU's ceilings, the bench
 * shapes, the reference's medians, cuBLAS on those shapes. None on the host backend. */
static int measure_yardsticks(grader *g, yardstick *y)
{
    cl_result *r = g->r;
    if (g->host_backend)
        return GO;
    cl_ceilings ceil;
    memset(&ceil, 0, sizeof ceil);
    double t0 = cl_mono_s();
    int failed = cl_ceilings_get(0, &ceil, g->o->progress, g->o->ctx, g->err);
    cl_phases_line(g->lab.name, "ceilings", NULL, (cl_mono_s() - t0) * 1e3, NULL);
    if (failed) {
        cl_result_set(r, CL_V_ERROR, "cannot measure this GPU's ceilings: %s", g->err->msg);
        return STOP;
    }
    r->copy_gbps = ceil.copy_gbps;
    r->read_gbps = ceil.read_gbps;
    r->write_gbps = ceil.write_gbps;
    r->fp16_tflops = ceil.fp16_tflops;
    cl_yardstick_memo *memo = g->o->memo;
    if (memo && memo->have) { /* measured by an earlier grading of this run (the ladder) */
        *y = memo->y;
        return GO;
    }
    /* only cuBLAS needs the shapes before any solution runs (a plan run is a judge and a
     * solution process more, a second or two) */
    if (g->lab.ceiling == CL_CEIL_CUBLAS)
        plan_shapes(g, g->so, y);
    if (!g->o->no_reference)
        time_reference(g, y);
    if (g->lab.ceiling == CL_CEIL_CUBLAS)
        cublas_ceilings(g, y);
    if (memo && !y->self) {
        memo->y = *y;
        memo->have = 1;
    }
    return GO;
}

/* run + judge + score, performance: the solution's bench run, its figures against the
 * yardsticks; a figure past the ceiling is measured once more, and if it stands it is a
 * grader fault, never a grade. */
static int stage_performance(grader *g)
{
    cl_result *r = g->r;
    r->did_bench = 1;
    static yardstick y;
    memset(&y, 0, sizeof y);
    if (measure_yardsticks(g, &y))
        return STOP;
    int host = g->host_backend, first_bench = r->ncases;
    for (int attempt = 0; attempt < 2; attempt++) {
        run_out ro;
        if (run_runner(g, g->so, "bench", 0, NULL, NULL, CL_T("benchmarking"), &ro))
            return STOP;
        host = host || ro.host;
        int bad = judge_run(g, &ro, 1);
        run_out_free(&ro);
        if (bad)
            return STOP;
        if (host)
            break;
        apply_yardsticks(g, &y);
        cl_score_bench(&g->lab, r);
        const cl_case_result *imp = impossible_case(g);
        if (!imp)
            break;
        if (attempt == 1) {
            cl_result_set(r, CL_V_ERROR,
                          "case '%s' measured %.2fx this GPU's ceiling twice: that is beyond what the GPU can do, "
                          "so it is not a grade but a fault of the grader to investigate (please report it)",
                          imp->name, imp->fraction);
            return STOP;
        }
        progress(g, "a figure above the ceiling: measuring again");
        for (int i = first_bench; i < r->ncases; i++) /* drop the first measurement */
            cl_case_result_clear(&r->cases[i]);
        r->ncases = first_bench;
        r->tier = NULL;
    }
    if (host)
        cl_score_bench(&g->lab, r); /* no bandwidth figures: no ceiling */
    if (!r->tier)
        cl_result_set(r, CL_V_CORRECT, "correct; no ceiling to compare the speed with");
    return GO;
}

/* score: the points, and the verdict's final message. */
static void stage_score(grader *g)
{
    cl_result *r = g->r;
    cl_score_total(&g->lab, r);
    if (r->verdict == CL_V_SLOW) { /* the ceiling's name in each language */
        const char *name = cl_ceiling_name(g->lab.ceiling);
        char en[512], tr[512];
        snprintf(en, sizeof en, "correct, but below the pass tier (%.0f%% of %s)", g->lab.tier_pass * 100, name);
        snprintf(tr, sizeof tr, CL_T("correct, but below the pass tier (%.0f%% of %s)"), g->lab.tier_pass * 100,
                 cl_tr(name));
        cl_result_set2(r, CL_V_SLOW, en, tr);
    } else if (r->verdict == CL_V_PASS)
        cl_result_set(r, r->verdict, "correct, pass tier");
    else if (r->verdict == CL_V_GOOD)
        cl_result_set(r, r->verdict, "correct, good tier");
    else if (r->verdict == CL_V_EXCELLENT)
        cl_result_set(r, r->verdict, "correct, excellent tier");
    if (r->tensor_cores == 0) { /* the lab is about Tensor Cores: say so whatever the verdict */
        static const char *const notes[] = {
            "note: no Tensor Core instructions (HMMA/HGMMA) in its machine code",
            "note: no Tensor Core instructions (HMMA/HGMMA) in the kernels that ran"};
        const char *note = notes[g->ran_named && g->sass_tensor];
        const char *m = r->message, *mt = cl_result_message(r);
        cl_strbuf en, tr;
        cl_sb_init(&en);
        cl_sb_init(&tr);
        cl_sb_printf(&en, "%s%s%s", m ? m : "", m ? "; " : "", note);
        cl_sb_printf(&tr, "%s%s%s", mt ? mt : "", mt ? CL_T("; ") : "", cl_tr(note));
        cl_result_set2(r, r->verdict, cl_sb_str(&en), cl_sb_str(&tr));
        cl_sb_free(&en);
        cl_sb_free(&tr);
    }
}

/* ---- the whole thing ---- */

int cl_grade(const cl_grade_opts *o, cl_result *r, cl_err *err)
{
    double t0 = cl_mono_s();
    grader g;
    if (begin(&g, o, r, err))
        return -1;
    if (stage_compile(&g) == GO && stage_inspect(&g) == GO) {
        double t1 = cl_mono_s();
        int go = stage_correctness(&g);
        double t2 = cl_mono_s();
        r->test_s = t2 - t1;
        if (go == GO) {
            stage_performance(&g);
            r->bench_s = cl_mono_s() - t2;
        }
    }
    stage_score(&g);
    cl_compile_result_free(&g.cr);
    cl_lab_free(&g.lab);
    free(g.sass);
    r->seconds = cl_mono_s() - t0;
    if (cl_phases_on()) {
        char parts[128];
        snprintf(parts, sizeof parts, "compile=%.1f test=%.1f bench=%.1f", r->compile_s * 1e3, r->test_s * 1e3,
                 r->bench_s * 1e3);
        cl_phases_line(o->lab, "grading", NULL, r->seconds * 1e3, parts);
    }
    return 0;
}
