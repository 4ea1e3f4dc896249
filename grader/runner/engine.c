/* engine.c: the judge's case loop and the services checkers use (checker.h).
 *
 * Before the solution exists: each bench case is sized from a memory budget fixed at
 * start, and the judge's clock is calibrated against the solution process's own trusted
 * copy kernel of that size. Then the solution is loaded (in cudalab-exec, never here) and
 * for every case: the checker sizes and allocates shared buffers; the engine surrounds each
 * with guard zones of secret random bytes; for every call it makes fresh inputs (bench
 * runs: from a seed drawn from the kernel, known to nobody), hashes them with a secret key,
 * poisons the outputs with 0xFF (NaN / -1), lets the call run, snapshots the outputs into
 * private memory, then checks the guards, the inputs and (through the checker, on the
 * snapshot, at positions drawn after the call) the outputs. A bench run's time is the
 * exec's own event time where the judge's bracket agrees with it, and the bracket's
 * otherwise; runs where the sentinel saw another context are void. */
#include "engine.h"
#include "link_proto.h"
#include "grader/phases.h"
#include "grader/proc.h"
#include "grader/result.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#define GUARD_BYTES 4096                 /* before each buffer */
#define GUARD_TAIL_MAX (GUARD_BYTES + 256) /* after it: the alignment slack plus a guard */
#define MAX_BUFS CL_MAX_SHARED
#define MAX_HOST 64
#define MAX_BATCHES 3
#define SPREAD_LIMIT 0.10         /* (p90 - p10) / median above which a batch is repeated */
#define REPEAT_LIMIT_MS 5000.0    /* ... unless the case's timed calls already took this long */
#define CALIB_RUNS 15             /* calls of the exec's own copy kernel per bench case */
#define MAX_VOIDED 3              /* timed runs voided by the sentinel before off_stream */

typedef struct cl_buffer {
    unsigned char *base; /* allocation: [guard][data][slack + guard], shared with the exec */
    unsigned char *data;
    size_t bytes, tail_bytes, map_bytes;
    int output;
    char name[48];
    uint64_t hash; /* inputs: keyed hash after generate */
    unsigned char *snap; /* outputs: the judge's private copy, taken right after the call */
} cl_buffer;

/* The judge's own time per case, by phase: written, one line a case, to the file named by
 * CUDALAB_PHASES (a developer's tool: where does grading spend its seconds?). */
enum { PH_SETUP, PH_GENERATE, PH_HASH, PH_POISON, PH_FLUSH, PH_CALL, PH_SNAPSHOT, PH_GUARDS, PH_VERIFY, PH_COUNT };
static const char *const phase_names[PH_COUNT] = {"setup", "generate", "hash", "poison", "flush",
                                                  "call", "snapshot", "guards", "verify"};

static double mono_ms(void) { return cl_mono_s() * 1e3; }

struct cl_case {
    const cl_case_conf *conf;
    const cl_lab *lab;
    uint64_t seed;
};

struct cl_run {
    const cl_lab *lab;
    const be_device *dev;
    cl_link *link;
    size_t budget;
    cl_buffer bufs[MAX_BUFS];
    int nbufs;
    void *dev_allocs[MAX_BUFS];
    int ndev;
    void *host[MAX_HOST];
    int nhost;
    double bytes, flops, items;
    char items_unit[32];
    int ndims;
    long long dims[4];
    char shape[256];
    char scaled[256];
    uint64_t check_seed; /* drawn after each call: where sampled checks look */
    void (*after_call)(void *ctx);
    void *cb_ctx;
    uint64_t hash_key;   /* secret key of the input hash, per case */
    int share_failed;    /* a shared buffer could not be made (memory) */
    int map_failed;      /* the solution's process could not map a shared buffer */
    /* the outcome of the last check */
    int failed;
    char msg[2048];
    char where[256];
    int has_values;
    double expected, got;
    cl_mm_acc mm;        /* the full report of a wrong array output (cl_report_elements) */
    int mm_on;
    json_t *mm_rule;     /* the rule a multi-answer output broke (cl_report_rule) */
    char error[2048];
    unsigned char guard[GUARD_BYTES + GUARD_TAIL_MAX];
    double phase_ms[PH_COUNT]; /* where the judge's time went in this case (CUDALAB_PHASES) */
};

/* 64 secret bits from the kernel: never derived from anything the solution could know. */
static uint64_t secret64(void)
{
    uint64_t v = 0;
    if (getrandom(&v, sizeof v, 0) != (ssize_t)sizeof v) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        v = cl_mix64((uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 32) ^ (uint64_t)getpid());
    }
    return v;
}

/* ---- small utilities ---- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double percentile(const double *sorted, int n, double q)
{
    if (n == 0)
        return 0;
    double pos = q * (n - 1);
    int i = (int)pos;
    double f = pos - i;
    return i + 1 < n ? sorted[i] * (1 - f) + sorted[i + 1] * f : sorted[i];
}

/* ---- checker.h services ---- */

const char *cl_case_name(const cl_case *c) { return c->conf->name; }
int cl_case_is_bench(const cl_case *c) { return c->conf->bench; }
uint64_t cl_case_seed(const cl_case *c) { return c->seed; }

int cl_errorf(cl_run *run, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(run->error, sizeof run->error, fmt, ap);
    va_end(ap);
    return -1;
}

int cl_failf(cl_run *run, const char *fmt, ...)
{
    if (run->failed)
        return 1; /* keep the first failure */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(run->msg, sizeof run->msg, fmt, ap);
    va_end(ap);
    run->failed = 1;
    return 1;
}

int cl_mismatch(cl_run *run, const char *where, double expected, double got, const char *fmt, ...)
{
    if (run->failed)
        return 1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(run->msg, sizeof run->msg, fmt, ap);
    va_end(ap);
    snprintf(run->where, sizeof run->where, "%s", where);
    run->expected = expected;
    run->got = got;
    run->has_values = 1;
    run->failed = 1;
    return 1;
}

int cl_run_failed(const cl_run *run) { return run->failed; }

cl_mm_acc *cl_report_elements(cl_run *run, const cl_mm_shape *shape, const cl_mm_tol *tol)
{
    cl_mm_begin(&run->mm, shape, tol);
    run->mm_on = 1;
    return &run->mm;
}

void cl_report_rule(cl_run *run, cl_mm_rule *r)
{
    if (r->broken && !run->mm_rule)
        run->mm_rule = cl_mm_rule_json(r);
    cl_mm_rule_free(r);
}

/* The report a wrong case carries (bounded: ten elements, the largest, one guess; or one
 * rule and its counterexample), or NULL. */
static json_t *mismatch_json(cl_run *run)
{
    if (run->mm_rule)
        return json_incref(run->mm_rule);
    if (run->mm_on && cl_mm_end(&run->mm) > 0)
        return cl_mm_acc_json(&run->mm);
    return NULL;
}

static const cl_param *find_param(const cl_case *c, const char *key)
{
    for (int i = 0; i < c->conf->nparams; i++)
        if (!strcmp(c->conf->params[i].key, key))
            return &c->conf->params[i];
    return NULL;
}

int cl_param_has(const cl_case *c, const char *key) { return find_param(c, key) != NULL; }

static int parse_number(const char *s, double *out)
{
    const char *caret = strchr(s, '^');
    char *end;
    if (caret) {
        double b = strtod(s, &end);
        if (end != caret)
            return -1;
        double e = strtod(caret + 1, &end);
        if (*end)
            return -1;
        *out = pow(b, e);
        return 0;
    }
    *out = strtod(s, &end);
    return (*s && !*end) ? 0 : -1;
}

int cl_param_f64(cl_run *run, const cl_case *c, const char *key, double *out)
{
    const cl_param *p = find_param(c, key);
    if (!p)
        return cl_errorf(run, "%s:%d: case '%s' needs parameter '%s'", run->lab->path, c->conf->line,
                         c->conf->name, key);
    if (!strcmp(p->value, "inf")) { *out = INFINITY; return 0; }
    if (!strcmp(p->value, "-inf")) { *out = -INFINITY; return 0; }
    if (parse_number(p->value, out))
        return cl_errorf(run, "%s:%d: parameter '%s' must be a number, not '%s'", run->lab->path, p->line,
                         key, p->value);
    return 0;
}

int cl_param_f64_or(cl_run *run, const cl_case *c, const char *key, double dflt, double *out)
{
    if (!find_param(c, key)) {
        *out = dflt;
        return 0;
    }
    return cl_param_f64(run, c, key, out);
}

int cl_param_i64(cl_run *run, const cl_case *c, const char *key, long long *out)
{
    double d;
    if (cl_param_f64(run, c, key, &d))
        return -1;
    if (d != floor(d) || fabs(d) > 9.0e18) {
        const cl_param *p = find_param(c, key);
        return cl_errorf(run, "%s:%d: parameter '%s' must be an integer, not '%s'", run->lab->path, p->line,
                         key, p->value);
    }
    *out = (long long)d;
    return 0;
}

int cl_param_i64_or(cl_run *run, const cl_case *c, const char *key, long long dflt, long long *out)
{
    if (!find_param(c, key)) {
        *out = dflt;
        return 0;
    }
    return cl_param_i64(run, c, key, out);
}

const char *cl_param_str_or(const cl_case *c, const char *key, const char *dflt)
{
    const cl_param *p = find_param(c, key);
    return p ? p->value : dflt;
}

size_t cl_mem_budget(cl_run *run) { return run->budget; }

int cl_param_size(cl_run *run, const cl_case *c, const char *key, double per_unit_bytes,
                  double fixed_bytes, long long *out)
{
    const cl_param *p = find_param(c, key);
    if (!p)
        return cl_errorf(run, "%s:%d: case '%s' needs parameter '%s'", run->lab->path, c->conf->line,
                         c->conf->name, key);
    double budget = (double)run->budget;
    if (per_unit_bytes <= 0)
        return cl_errorf(run, "checker bug: per-unit bytes must be positive");
    long long fit = (long long)floor((budget - fixed_bytes) / per_unit_bytes);
    if (fit < 1)
        return cl_errorf(run, "this GPU has too little free memory for case '%s' (%.0f MiB budget)",
                         c->conf->name, budget / 1048576.0);
    if (!strcmp(p->value, "max")) {
        *out = fit;
        snprintf(run->scaled, sizeof run->scaled, "%s = %lld (the largest that fits in %.0f MiB)", key, fit,
                 budget / 1048576.0);
        return 0;
    }
    long long want;
    if (cl_param_i64(run, c, key, &want))
        return -1;
    if (want < 0)
        return cl_errorf(run, "%s:%d: parameter '%s' must not be negative", run->lab->path, p->line, key);
    long long n = want;
    while (n > fit)
        n /= 2;
    if (n != want)
        snprintf(run->scaled, sizeof run->scaled, "%s scaled from %lld to %lld to fit this GPU's memory",
                 key, want, n);
    *out = n;
    return 0;
}

double cl_tolerance(cl_run *run, const char *key, double dflt)
{
    const cl_tol_conf *t = cl_lab_tol(run->lab, key);
    return t ? t->value : dflt;
}

static void *alloc_buffer(cl_run *run, size_t bytes, const char *name, int output)
{
    if (run->nbufs >= MAX_BUFS) {
        cl_errorf(run, "checker bug: more than %d buffers", MAX_BUFS);
        return NULL;
    }
    size_t padded = (bytes + 255) / 256 * 256;
    void *base;
    size_t map_bytes;
    int fd;
    if (be_share_alloc(&base, GUARD_BYTES + padded + GUARD_BYTES, &map_bytes, &fd)) {
        run->share_failed = 1;
        cl_errorf(run, "cannot allocate %s (%zu bytes): %s", name, bytes, be_error());
        return NULL;
    }
    int id = run->nbufs;
    cl_buffer *b = &run->bufs[run->nbufs++];
    memset(b, 0, sizeof *b);
    b->base = base;
    b->map_bytes = map_bytes;
    b->data = b->base + GUARD_BYTES;
    b->bytes = bytes;
    b->tail_bytes = padded - bytes + GUARD_BYTES;
    b->output = output;
    snprintf(b->name, sizeof b->name, "%s", name);
    char msg[1024];
    int rc = 0;
    if (output) {
        void *snap;
        if (be_malloc(&snap, map_bytes)) {
            run->share_failed = 1;
            cl_errorf(run, "cannot allocate the judge's copy of %s (%zu bytes): %s", name, bytes, be_error());
            rc = -1;
        } else {
            b->snap = snap;
        }
    }
    if (!rc && run->link && cl_link_map(run->link, id, fd, map_bytes, !output, msg, sizeof msg)) {
        run->map_failed = 1;
        cl_errorf(run, "%s", msg);
        rc = -1;
    }
    close(fd);
    return rc ? NULL : b->data;
}

void *cl_alloc_in(cl_run *run, size_t bytes, const char *name) { return alloc_buffer(run, bytes, name, 0); }
void *cl_alloc_out(cl_run *run, size_t bytes, const char *name) { return alloc_buffer(run, bytes, name, 1); }

void *cl_alloc_dev(cl_run *run, size_t bytes)
{
    if (run->ndev >= MAX_BUFS) {
        cl_errorf(run, "checker bug: too many device allocations");
        return NULL;
    }
    void *p;
    if (be_malloc(&p, bytes)) {
        cl_errorf(run, "cannot allocate %zu bytes: %s", bytes, be_error());
        return NULL;
    }
    run->dev_allocs[run->ndev++] = p;
    return p;
}

void *cl_host_alloc(cl_run *run, size_t bytes)
{
    if (run->nhost >= MAX_HOST) {
        cl_errorf(run, "checker bug: too many host allocations");
        return NULL;
    }
    void *p = calloc(1, bytes ? bytes : 1);
    if (!p) {
        cl_errorf(run, "out of host memory (%zu bytes)", bytes);
        return NULL;
    }
    run->host[run->nhost++] = p;
    return p;
}

int cl_upload(cl_run *run, void *dev, const void *host, size_t bytes)
{
    return bytes == 0 || be_upload(dev, host, bytes) == 0 ? 0 : cl_errorf(run, "%s", be_error());
}

/* Outputs are read from the judge's snapshot, taken right after the call: whatever the
 * solution's process writes later cannot change what is checked. */
static const void *checked_address(cl_run *run, const void *dev, size_t bytes)
{
    const unsigned char *p = dev;
    for (int i = 0; i < run->nbufs; i++) {
        const cl_buffer *b = &run->bufs[i];
        if (b->output && b->snap && p >= b->base && p + bytes <= b->base + b->map_bytes)
            return b->snap + (p - b->base);
    }
    return dev;
}

int cl_download(cl_run *run, void *host, const void *dev, size_t bytes)
{
    return bytes == 0 || be_download(host, checked_address(run, dev, bytes), bytes) == 0
               ? 0
               : cl_errorf(run, "%s", be_error());
}

int cl_find_nan16(cl_run *run, const void *dev, size_t count, long long *first)
{
    return be_find_nan16(checked_address(run, dev, count * 2), count, first) == 0 ? 0
                                                                                : cl_errorf(run, "%s", be_error());
}

int cl_fill(cl_run *run, void *dev, size_t count, cl_dtype t, const cl_gen *g)
{
    return be_fill(dev, count, t, g) == 0 ? 0 : cl_errorf(run, "%s", be_error());
}

int cl_gen_sum(cl_run *run, size_t count, cl_dtype t, const cl_gen *g, double *sum, double *abs_sum)
{
    return be_gen_sum(count, t, g, sum, abs_sum) == 0 ? 0 : cl_errorf(run, "%s", be_error());
}

uint64_t cl_check_seed(const cl_run *run) { return run->check_seed; }

/* ---- the call's arguments, as data for the solution's process ---- */

static int arg_slot(cl_args *a)
{
    if (a->n >= CL_MAX_ARGS) {
        a->overflow = 1;
        return -1;
    }
    return a->n++;
}

/* A device pointer of the judge's as (shared buffer, offset). */
static int locate(cl_run *run, const void *dev, int32_t *buf, uint64_t *off)
{
    if (!dev) {
        *buf = -1;
        *off = 0;
        return 0;
    }
    const unsigned char *p = dev;
    for (int i = 0; i < run->nbufs; i++) {
        const cl_buffer *b = &run->bufs[i];
        if (p >= b->base && p <= b->base + b->map_bytes) {
            *buf = i;
            *off = (uint64_t)(p - b->base);
            return 0;
        }
    }
    return cl_errorf(run, "checker bug: an argument points outside the case's buffers");
}

void cl_arg_ptr(cl_run *run, cl_args *a, const void *dev)
{
    int k = arg_slot(a);
    if (k < 0)
        return;
    a->a[k].kind = CL_ARG_PTR;
    if (locate(run, dev, &a->a[k].buf, &a->a[k].off))
        a->overflow = 1;
}

void cl_arg_i32(cl_args *a, int32_t v)
{
    int k = arg_slot(a);
    if (k >= 0) {
        a->a[k].kind = CL_ARG_I32;
        a->a[k].i = v;
    }
}

void cl_arg_i64(cl_args *a, int64_t v)
{
    int k = arg_slot(a);
    if (k >= 0) {
        a->a[k].kind = CL_ARG_I64;
        a->a[k].i = v;
    }
}

void cl_arg_f32(cl_args *a, float v)
{
    int k = arg_slot(a);
    if (k >= 0) {
        a->a[k].kind = CL_ARG_F32;
        a->a[k].f = v;
    }
}

void cl_arg_blob(cl_args *a, const void *host, size_t bytes)
{
    int k = arg_slot(a);
    if (k < 0)
        return;
    if (bytes > CL_MAX_BLOB || a->blob_len) {
        a->overflow = 1;
        return;
    }
    a->a[k].kind = CL_ARG_BLOB;
    memcpy(a->blob, host, bytes);
    a->blob_len = (uint32_t)bytes;
}

void cl_arg_blob_ptr(cl_run *run, cl_args *a, size_t at, const void *dev)
{
    if (a->nptr >= CL_MAX_BLOB_PTRS || at + sizeof(void *) > CL_MAX_BLOB) {
        a->overflow = 1;
        return;
    }
    cl_blob_ptr *p = &a->ptr[a->nptr++];
    p->at = (uint32_t)at;
    if (locate(run, dev, &p->buf, &p->off))
        a->overflow = 1;
}

void cl_set_work(cl_run *run, double bytes, double flops)
{
    run->bytes = bytes;
    run->flops = flops;
}

void cl_set_items(cl_run *run, double items, const char *unit)
{
    run->items = items;
    snprintf(run->items_unit, sizeof run->items_unit, "%s", unit);
}

void cl_set_dims(cl_run *run, int ndims, const long long *dims)
{
    run->ndims = ndims < 0 ? 0 : ndims > 4 ? 4 : ndims;
    memcpy(run->dims, dims, (size_t)run->ndims * sizeof *dims);
}

void cl_set_shape(cl_run *run, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(run->shape, sizeof run->shape, fmt, ap);
    va_end(ap);
}

/* ---- guards, poison, input hashes ---- */

static void make_guard_pattern(cl_run *run, uint64_t key)
{
    for (size_t i = 0; i < sizeof run->guard; i += 8) {
        uint64_t w = cl_mix64(key + i);
        memcpy(run->guard + i, &w, 8);
    }
}

static int write_guards(cl_run *run)
{
    for (int i = 0; i < run->nbufs; i++) {
        cl_buffer *b = &run->bufs[i];
        if (be_upload(b->base, run->guard, GUARD_BYTES) ||
            be_upload(b->data + b->bytes, run->guard + GUARD_BYTES, b->tail_bytes))
            return cl_errorf(run, "writing guard zones: %s", be_error());
    }
    return 0;
}

/* 1 when a guard was overwritten (the message says where), 0 clean, -1 error. Outputs'
 * guards are read from the snapshot. */
static int check_guards(cl_run *run)
{
    unsigned char got[GUARD_BYTES + GUARD_TAIL_MAX];
    for (int i = 0; i < run->nbufs; i++) {
        cl_buffer *b = &run->bufs[i];
        const unsigned char *base = b->snap ? b->snap : b->base;
        if (be_download(got, base, GUARD_BYTES) ||
            be_download(got + GUARD_BYTES, base + GUARD_BYTES + b->bytes, b->tail_bytes))
            return cl_errorf(run, "reading guard zones: %s", be_error());
        for (size_t k = 0; k < GUARD_BYTES; k++)
            if (got[k] != run->guard[k]) {
                long long off = (long long)k - GUARD_BYTES;
                snprintf(run->msg, sizeof run->msg,
                         "wrote before the start of '%s': byte offset %lld (the buffer is %zu bytes)", b->name, off,
                         b->bytes);
                return 1;
            }
        for (size_t k = 0; k < b->tail_bytes; k++)
            if (got[GUARD_BYTES + k] != run->guard[GUARD_BYTES + k]) {
                snprintf(run->msg, sizeof run->msg,
                         "wrote past the end of '%s': byte offset %zu (the buffer is %zu bytes)", b->name,
                         b->bytes + k, b->bytes);
                return 1;
            }
    }
    return 0;
}

static int poison_outputs(cl_run *run)
{
    for (int i = 0; i < run->nbufs; i++)
        if (run->bufs[i].output && be_memset(run->bufs[i].data, CL_POISON_BYTE, run->bufs[i].bytes))
            return cl_errorf(run, "poisoning outputs: %s", be_error());
    return 0;
}

/* Every input, every call, at every size: a keyed hash (a grader kernel on the GPU). */
static int hash_inputs(cl_run *run, int compare)
{
    for (int i = 0; i < run->nbufs; i++) {
        cl_buffer *b = &run->bufs[i];
        if (b->output || b->bytes == 0)
            continue;
        uint64_t h;
        if (be_hash(b->data, b->bytes, run->hash_key, &h))
            return cl_errorf(run, "hashing input '%s': %s", b->name, be_error());
        if (!compare) {
            b->hash = h;
        } else if (h != b->hash) {
            snprintf(run->msg, sizeof run->msg, "modified its input '%s' (inputs are read-only)", b->name);
            return 1;
        }
    }
    return 0;
}

static void release_case(cl_run *run)
{
    char msg[512];
    if (run->link && run->nbufs && run->link->sock >= 0)
        cl_link_unmap_all(run->link, msg, sizeof msg);
    for (int i = 0; i < run->nbufs; i++) {
        be_share_free(run->bufs[i].base, run->bufs[i].map_bytes);
        be_free(run->bufs[i].snap);
    }
    for (int i = 0; i < run->ndev; i++)
        be_free(run->dev_allocs[i]);
    for (int i = 0; i < run->nhost; i++)
        free(run->host[i]);
    run->nbufs = run->ndev = run->nhost = 0;
}

static void reset_outcome(cl_run *run)
{
    run->failed = 0;
    run->has_values = 0;
    run->msg[0] = run->where[0] = run->error[0] = '\0';
    run->mm_on = 0;
    json_decref(run->mm_rule);
    run->mm_rule = NULL;
}

/* ---- one call of the solution ---- */

/* ST_LATE: outputs finished after the call's stream was done (off_stream) */
typedef enum { ST_PASS, ST_WRONG, ST_OOB, ST_CUDA, ST_ERROR, ST_CRASH, ST_TIMEOUT, ST_LATE } case_status;
static const cl_verdict status_verdict[] = {CL_V_CORRECT, CL_V_WRONG, CL_V_OUT_OF_BOUNDS, CL_V_CUDA_ERROR,
                                            CL_V_ERROR, CL_V_CRASH, CL_V_TIMEOUT, CL_V_OFF_STREAM};

typedef struct call_ctx {
    cl_run *run;
    const cl_checker *chk;
    void *st;
    uint64_t seed;
    int flush; /* timed: evict L2 before go */
} call_ctx;

/* After the call is armed, before go: fresh inputs, their hash, poisoned outputs. */
static int prepare_call(void *vc)
{
    call_ctx *c = vc;
    double *ph = c->run->phase_ms, t0 = mono_ms(), t1, t2, t3;
    if (c->chk->generate(c->run, c->st, c->seed))
        return -1;
    t1 = mono_ms();
    if (hash_inputs(c->run, 0))
        return -1;
    t2 = mono_ms();
    if (poison_outputs(c->run))
        return -1;
    t3 = mono_ms();
    if (c->flush && be_flush_l2())
        return cl_errorf(c->run, "%s", be_error());
    ph[PH_GENERATE] += t1 - t0;
    ph[PH_HASH] += t2 - t1;
    ph[PH_POISON] += t3 - t2;
    ph[PH_FLUSH] += mono_ms() - t3;
    return 0;
}

static int snapshot_outputs(void *vc)
{
    cl_run *run = ((call_ctx *)vc)->run;
    double t0 = mono_ms();
    for (int i = 0; i < run->nbufs; i++)
        if (run->bufs[i].output && be_copy(run->bufs[i].snap, run->bufs[i].base, run->bufs[i].map_bytes))
            return cl_errorf(run, "snapshot of '%s': %s", run->bufs[i].name, be_error());
    run->phase_ms[PH_SNAPSHOT] += mono_ms() - t0;
    return 0;
}

typedef struct calib {
    double o_med;  /* bracket - exec events, median, for a clean call of this size */
    double slack;  /* allowed shortfall beyond o_med */
    double gap_us; /* the sentinel's largest gap in clean calls */
    int done;
} calib;

/* The judge's own steps inside a link call so far (prepare_call's and the snapshot's). */
static double judge_side_ms(const cl_run *run)
{
    const double *ph = run->phase_ms;
    return ph[PH_GENERATE] + ph[PH_HASH] + ph[PH_POISON] + ph[PH_FLUSH] + ph[PH_SNAPSHOT];
}

/* One call: 0 ran (the checks decide), else the status that ends the case. */
static case_status make_call(cl_run *run, const cl_checker *chk, void *st, uint64_t seed, int flush,
                             cl_call_timing *t)
{
    cl_args a;
    memset(&a, 0, sizeof a);
    if (chk->args(run, st, &a) || a.overflow) {
        if (!run->error[0])
            cl_errorf(run, "checker bug: the call's arguments do not fit its description");
        return ST_ERROR;
    }
    call_ctx cc = {run, chk, st, seed, flush};
    char msg[1024];
    double before = mono_ms(), judge_before = judge_side_ms(run);
    cl_call_status cs = cl_link_call(run->link, &a, 0, 0, prepare_call, snapshot_outputs, &cc, t, msg, sizeof msg);
    /* the handshake and the solution's call: the link's time less the judge's own steps in it */
    run->phase_ms[PH_CALL] += mono_ms() - before - (judge_side_ms(run) - judge_before);
    run->check_seed = secret64(); /* drawn after the call: sampled checks look where nobody knew */
    if (run->after_call)
        run->after_call(run->cb_ctx);
    switch (cs) {
    case CL_CALL_OK: return ST_PASS;
    case CL_CALL_DIED:
    case CL_CALL_PROTOCOL: snprintf(run->msg, sizeof run->msg, "%s", msg); return ST_CRASH;
    case CL_CALL_TIMEOUT: snprintf(run->msg, sizeof run->msg, "%s", msg); return ST_TIMEOUT;
    case CL_CALL_EXEC_ERR: snprintf(run->msg, sizeof run->msg, "%s", msg); return ST_CUDA;
    case CL_CALL_READONLY: {
        int id = atoi(msg);
        snprintf(run->msg, sizeof run->msg, "modified its input '%s' (inputs are read-only: the write faulted)",
                 id >= 0 && id < run->nbufs ? run->bufs[id].name : "?");
        return ST_OOB;
    }
    case CL_CALL_JUDGE_ERR:
    default:
        if (!run->error[0])
            cl_errorf(run, "%s", msg);
        if (be_fatal()) { /* the GPU failed while the solution's code ran: its fault */
            snprintf(run->msg, sizeof run->msg, "the GPU failed while your code ran: %s", run->error);
            return ST_CUDA;
        }
        return ST_ERROR;
    }
}

/* 1 when an output changed after its snapshot: work of the solution's still running once
 * the call's stream was done (by now it has finished: the exec says done only once its whole
 * context is idle). Asked only of a failed check, to tell the student why. */
static int outputs_changed_late(cl_run *run)
{
    for (int i = 0; i < run->nbufs; i++) {
        const cl_buffer *b = &run->bufs[i];
        if (!b->output || !b->snap || b->bytes == 0)
            continue;
        uint64_t live, snap;
        if (be_hash(b->data, b->bytes, run->hash_key, &live) ||
            be_hash(b->snap + ((const unsigned char *)b->data - b->base), b->bytes, run->hash_key, &snap))
            return 0;
        if (live != snap)
            return 1;
    }
    return 0;
}

/* After a call: guards? inputs? then the checker's verdict (on the snapshot). */
static case_status check_call(cl_run *run, const cl_checker *chk, void *st, int full, const char *prefix)
{
    double t0 = mono_ms();
    int g = check_guards(run);
    if (g < 0)
        return be_fatal() ? ST_CUDA : ST_ERROR;
    double t1 = mono_ms();
    if (g == 0) {
        g = hash_inputs(run, 1);
        if (g < 0)
            return be_fatal() ? ST_CUDA : ST_ERROR;
    }
    double t2 = mono_ms();
    run->phase_ms[PH_GUARDS] += t1 - t0;
    run->phase_ms[PH_HASH] += t2 - t1;
    if (g > 0) {
        if (prefix[0]) {
            char tmp[sizeof run->msg];
            snprintf(tmp, sizeof tmp, "%s: %s", prefix, run->msg);
            snprintf(run->msg, sizeof run->msg, "%s", tmp);
        }
        return ST_OOB;
    }
    int v = chk->verify(run, st, full);
    run->phase_ms[PH_VERIFY] += mono_ms() - t2;
    if (v < 0)
        return be_fatal() ? ST_CUDA : ST_ERROR;
    if ((v > 0 || run->failed) && outputs_changed_late(run)) {
        snprintf(run->msg, sizeof run->msg,
                 "%s%sthe outputs were still being written after the call's stream was done (work on a stream of "
                 "your own): launch every kernel on the stream you are given",
                 prefix, prefix[0] ? ": " : "");
        return ST_LATE;
    }
    if (v > 0 || run->failed) {
        if (prefix[0]) {
            char tmp[sizeof run->msg];
            snprintf(tmp, sizeof tmp, "%s: %s", prefix, run->msg);
            snprintf(run->msg, sizeof run->msg, "%s", tmp);
        }
        return ST_WRONG;
    }
    return ST_PASS;
}

static case_status run_correctness(cl_run *run, const cl_checker *chk, void *st, uint64_t seed, double *ms)
{
    cl_call_timing t;
    case_status s = make_call(run, chk, st, seed, 0, &t);
    if (s != ST_PASS)
        return s;
    *ms = t.ev_ms;
    return check_call(run, chk, st, 1, "");
}

typedef struct bench_stats {
    int runs, batches, off_stream_runs, voided;
    double median_ms, min_ms, max_ms, p10_ms, p90_ms, event_median_ms, bracket_median_ms;
    char off_why[160];
} bench_stats;

/* Whose clock the case's times are. Each timed run has the exec's own event time ev and the
 * judge's bracket br, which exceeds ev by a nearly constant offset (the context switches and
 * the handshake), measured on the exec's own kernel before the solution existed (o_med).
 * Per run the excess br - ev - o_med scatters by the host's noise; its median does not. A run
 * whose excess is within the allowance keeps its own time (the precise one); a run past it is
 * timed by the judge's bound br - o_med. Where the median excess is past the allowance by a
 * margin as well, every run is timed by the bound and the case is off_stream: the solution's
 * clock reads short, or it left work outside its stream. */
static void judge_clock(cl_run *run, const calib *cal, const double *ev, const double *br, double *times, int n,
                        bench_stats *bs)
{
    double *d = calloc((size_t)n, sizeof *d), *b = calloc((size_t)n, sizeof *b);
    if (!d || !b) {
        free(d);
        free(b);
        return;
    }
    for (int i = 0; i < n; i++) {
        d[i] = br[i] - ev[i] - cal->o_med;
        b[i] = br[i];
    }
    qsort(d, (size_t)n, sizeof *d, cmp_double);
    qsort(b, (size_t)n, sizeof *b, cmp_double);
    double d_med = percentile(d, n, 0.5), br_med = percentile(b, n, 0.5);
    double iqr = percentile(d, n, 0.75) - percentile(d, n, 0.25);
    /* the GPU's bracket is steady to microseconds; the host backend's holds the OS's
     * scheduling delays (a loaded CI machine), so half of it more is allowed there */
    double loose = run->dev->is_host ? 0.5 * br_med : run->link->gated ? 0 : 0.1 * br_med;
    double allow = cal->slack + 2.0 * iqr / sqrt((double)n) + loose;
    /* the case is off_stream only past a margin: an honest solution whose runs sit just past
     * the allowance (some multi-kernel ones on the GPU) has those runs timed by the bound,
     * which costs it microseconds, not its grade */
    double margin = run->link->gated ? 0.020 + 0.02 * br_med : 0;
    int agree = br_med <= 0 || d_med <= allow + margin;
    /* run by run too: a run whose own time is shorter than its bound allows is timed by the
     * bound (honest runs that land there on noise move the median by nothing measurable; a
     * solution that under-reports some of its runs gains nothing on those) */
    for (int i = 0; i < n; i++) {
        int by_bound = br[i] > 0 && (!agree || br[i] - ev[i] - cal->o_med > cal->slack + loose);
        bs->off_stream_runs += by_bound;
        if (by_bound)
            times[i] = br[i] - cal->o_med;
    }
    if (!agree)
        snprintf(bs->off_why, sizeof bs->off_why,
                 "the solution's own timing disagrees with the judge's clock: it reads %.1f us short (median of %d "
                 "timed runs)",
                 d_med * 1e3, n);
    free(d);
    free(b);
}

static case_status run_bench(cl_run *run, const cl_checker *chk, void *st, const cl_case *c, const calib *cal,
                             bench_stats *bs)
{
    memset(bs, 0, sizeof *bs);
    cl_call_timing t;
    /* warm-up: untimed, fully verified */
    case_status s = make_call(run, chk, st, c->seed, 0, &t);
    if (s == ST_PASS)
        s = check_call(run, chk, st, 1, "warm-up run");
    if (s != ST_PASS)
        return s;

    int per_batch = c->conf->runs, cap = per_batch * MAX_BATCHES;
    double *times = calloc((size_t)cap, sizeof *times);
    double *ev = calloc((size_t)cap, sizeof *ev);
    double *br = calloc((size_t)cap, sizeof *br);
    double *sorted = calloc((size_t)cap, sizeof *sorted);
    if (!times || !ev || !br || !sorted) {
        free(times); free(ev); free(br); free(sorted);
        cl_errorf(run, "out of host memory");
        return ST_ERROR;
    }
    int n = 0;
    for (int batch = 0; batch < MAX_BATCHES && s == ST_PASS; batch++) {
        for (int r = 0; r < per_batch; r++) {
            reset_outcome(run);
            s = make_call(run, chk, st, secret64(), 1, &t); /* inputs from a seed nobody knows */
            if (s != ST_PASS)
                break;
            char prefix[64];
            snprintf(prefix, sizeof prefix, "timed run %d", n + 1);
            s = check_call(run, chk, st, 0, prefix);
            if (s != ST_PASS)
                break;
            if (run->link->gated && t.gap_us > cal->gap_us) {
                /* another context had the GPU around the call: the run is void */
                if (++bs->voided > MAX_VOIDED) {
                    snprintf(bs->off_why, sizeof bs->off_why,
                             "GPU work outside the call: another context held the GPU around %d timed runs "
                             "(a gap of %.1f us)", bs->voided, t.gap_us);
                    break;
                }
                r--;
                continue;
            }
            ev[n] = t.ev_ms;
            br[n] = t.bracket_ms;
            times[n] = t.ev_ms;
            n++;
        }
        if (s != ST_PASS || bs->off_why[0])
            break;
        bs->batches = batch + 1;
        memcpy(sorted, times, (size_t)n * sizeof *sorted);
        qsort(sorted, (size_t)n, sizeof *sorted, cmp_double);
        double med = percentile(sorted, n, 0.5), timed_ms = 0;
        double spread = med > 0 ? (percentile(sorted, n, 0.9) - percentile(sorted, n, 0.1)) / med : 0;
        for (int i = 0; i < n; i++)
            timed_ms += times[i];
        /* a batch is repeated to ride out a noisy GPU for calls of microseconds to
         * milliseconds; a solution whose runs so far took seconds is hundreds of times
         * slower than any tier, and its median is already known well enough */
        if (spread <= SPREAD_LIMIT || timed_ms >= REPEAT_LIMIT_MS)
            break;
    }
    if (s == ST_PASS && n > 0 && !bs->off_why[0])
        judge_clock(run, cal, ev, br, times, n, bs);
    if (s == ST_PASS && n > 0) {
        qsort(times, (size_t)n, sizeof *times, cmp_double);
        qsort(ev, (size_t)n, sizeof *ev, cmp_double);
        qsort(br, (size_t)n, sizeof *br, cmp_double);
        bs->runs = n;
        bs->median_ms = percentile(times, n, 0.5);
        bs->min_ms = times[0];
        bs->max_ms = times[n - 1];
        bs->p10_ms = percentile(times, n, 0.1);
        bs->p90_ms = percentile(times, n, 0.9);
        bs->event_median_ms = percentile(ev, n, 0.5);
        bs->bracket_median_ms = percentile(br, n, 0.5);
    }
    free(sorted);
    free(times); free(ev); free(br);
    return s;
}

static json_t *jnum_or_text(double v)
{
    return isfinite(v) ? json_real(v) : json_string(isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
}

static json_t *case_json(cl_run *run, const cl_case_conf *cc, case_status s, double ms, const bench_stats *bs,
                         const calib *cal)
{
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(cc->name));
    json_object_set_new(o, "kind", json_string(cc->bench ? "bench" : "test"));
    json_object_set_new(o, "status", json_string(cl_case_status_name(status_verdict[s])));
    const char *msg = s == ST_ERROR ? (run->error[0] ? run->error : be_error()) : run->msg;
    if (msg && *msg)
        json_object_set_new(o, "message", json_string(msg));
    if (s == ST_WRONG && run->has_values) {
        json_object_set_new(o, "where", json_string(run->where));
        /* JSON has no NaN or Inf: as text, the way the reports write them */
        json_object_set_new(o, "expected", jnum_or_text(run->expected));
        json_object_set_new(o, "got", jnum_or_text(run->got));
    }
    json_t *mm = s == ST_WRONG ? mismatch_json(run) : NULL;
    if (mm)
        json_object_set_new(o, "mismatch", mm);
    if (run->shape[0])
        json_object_set_new(o, "shape", json_string(run->shape));
    if (run->scaled[0])
        json_object_set_new(o, "scaled", json_string(run->scaled));
    json_object_set_new(o, "ms", json_real(ms));
    if (cc->bench && bs && bs->runs) {
        json_t *b = json_pack("{s:i, s:i, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:i, s:i, s:f, s:f, s:f, s:f, s:s}",
                              "runs", bs->runs, "batches", bs->batches, "median_ms", bs->median_ms, "min_ms",
                              bs->min_ms, "max_ms", bs->max_ms, "p10_ms", bs->p10_ms, "p90_ms", bs->p90_ms,
                              "event_median_ms", bs->event_median_ms, "bracket_median_ms", bs->bracket_median_ms,
                              "off_stream_runs", bs->off_stream_runs, "voided_runs", bs->voided,
                              "clock_offset_ms", cal ? cal->o_med : 0.0, "bytes", run->bytes, "flops",
                              run->flops, "items", run->items, "items_unit", run->items_unit);
        json_object_set_new(b, "off_stream", json_boolean(bs->off_why[0] != 0));
        if (bs->off_why[0])
            json_object_set_new(b, "off_stream_why", json_string(bs->off_why));
        json_t *dims = json_array();
        for (int i = 0; i < run->ndims; i++)
            json_array_append_new(dims, json_integer(run->dims[i]));
        json_object_set_new(b, "dims", dims);
        json_object_set_new(o, "bench", b);
    }
    return o;
}

static int selected(const cl_engine_opts *o, const cl_case_conf *cc)
{
    if (cc->bench ? !o->do_bench : !o->do_tests)
        return 0;
    if (o->sanitize_tools && !(cc->sanitize & o->sanitize_tools))
        return 0;
    if (!o->only)
        return 1;
    for (const char **n = o->only; *n; n++)
        if (!strcmp(*n, cc->name))
            return 1;
    return 0;
}

static uint64_t case_seed(const cl_engine_opts *o, const cl_case_conf *cc)
{
    uint64_t h = 0x243F6A8885A308D3ull ^ strlen(cc->name);
    for (const char *p = cc->name; *p; p++)
        h = cl_mix64(h ^ (unsigned char)*p);
    return cl_mix64(o->seed ^ h);
}

/* Sets a case up (sizes from the fixed budget, buffers, guards). 0 or -1. */
static int setup_case(cl_run *run, const cl_engine_opts *o, const cl_case *c, void *st)
{
    run->bytes = run->flops = run->items = 0;
    run->items_unit[0] = run->shape[0] = run->scaled[0] = '\0';
    run->ndims = 0;
    run->share_failed = run->map_failed = 0;
    reset_outcome(run);
    run->hash_key = secret64();
    if (o->checker->setup(run, c, st))
        return -1;
    make_guard_pattern(run, secret64());
    return write_guards(run) || be_sync() ? -1 : 0;
}

/* Calibration calls are prepared like timed ones (the judge's kernels, then an L2 flush,
 * before go): without that the offset came out 5 to 8 us short of every timed call's on the
 * H100. */
static int calib_prepare(void *ctx)
{
    (void)ctx;
    return be_flush_l2();
}

/* The clock's offset for calls moving about `bytes`, measured on the exec's own copy kernel
 * before any student code exists. */
static int calibrate(cl_run *run, double bytes, calib *cal)
{
    size_t half = (size_t)(bytes / 2);
    if (half < 4096)
        half = 4096;
    if (half > run->budget / 3)
        half = run->budget / 3;
    half &= ~(size_t)255;
    void *src = alloc_buffer(run, half, "calibration in", 0);
    void *dst = src ? alloc_buffer(run, half, "calibration out", 1) : NULL;
    if (!dst)
        return -1;
    double off[CALIB_RUNS], gap = 0;
    int n = 0;
    for (int i = 0; i < CALIB_RUNS; i++) {
        cl_args a;
        memset(&a, 0, sizeof a);
        cl_arg_ptr(run, &a, dst);
        cl_arg_ptr(run, &a, src);
        cl_arg_i64(&a, (int64_t)half);
        cl_call_timing t;
        char msg[1024];
        if (cl_link_call(run->link, &a, 1, 10.0, calib_prepare, NULL, NULL, &t, msg, sizeof msg) != CL_CALL_OK)
            return cl_errorf(run, "calibrating the judge's clock: %s", msg);
        off[n++] = t.bracket_ms - t.ev_ms;
        if (t.gap_us > gap)
            gap = t.gap_us;
    }
    qsort(off, (size_t)n, sizeof *off, cmp_double);
    cal->o_med = percentile(off, n, 0.5);
    double spread = percentile(off, n, 0.9) - percentile(off, n, 0.1);
    /* the GPU bracket: steady to microseconds (the judge's host reads the done word in a
     * loop, then stamps t1), but honest multi-kernel solutions (nms: CUB's sort, then a
     * one-block scan) ran 10 to 20 us past a copy kernel's offset on the H100: 10 us is what
     * a solution could hide per call; the host backend's is the OS's scheduling */
    cal->slack = run->dev->is_host ? 5.0 + 2 * spread : run->link->gated ? 0.010 + 2 * spread : 0.5 + 2 * spread;
    /* honest runs on the H100 showed gaps of 4 to 4.5 us now and then (a memory operation,
     * a clock update); another context taking the GPU costs two context switches */
    cal->gap_us = gap * 1.5 + 3.0 > 10.0 ? gap * 1.5 + 3.0 : 10.0;
    cal->done = 1;
    release_case(run);
    return 0;
}

static void emit_case(cl_verdict_out *vo, cl_run *run, const cl_case_conf *cc, case_status s, double ms,
                      const bench_stats *bs, const calib *cal)
{
    cl_verdict_emit(vo, "case", case_json(run, cc, s, ms, bs, cal));
}

/* ---- the run: plan the bench cases, load the solution, run the cases ---- */

/* One bench case sized from the fixed budget, before any student code: the bytes it moves,
 * or 0 when it could not be set up. In plan mode its dimensions are reported instead (the
 * shapes, for yardsticks measured before any solution runs) and 0 is returned. */
static double size_bench_case(cl_run *run, const cl_engine_opts *o, cl_verdict_out *vo, const cl_case_conf *cc)
{
    cl_case c = {cc, o->lab, case_seed(o, cc)};
    void *st = calloc(1, o->checker->state_size ? o->checker->state_size : 1);
    double bytes = 0;
    if (st && setup_case(run, o, &c, st) == 0) {
        bytes = run->bytes;
        if (o->plan) {
            json_t *d = json_array();
            for (int k = 0; k < run->ndims; k++)
                json_array_append_new(d, json_integer(run->dims[k]));
            cl_verdict_emit(vo, "case", json_pack("{s:s, s:s, s:s, s:{s:o}}", "name", cc->name, "kind",
                                                  "bench", "status", "planned", "bench", "dims", d));
            bytes = 0;
        }
    }
    if (st && o->checker->teardown)
        o->checker->teardown(run, st);
    release_case(run);
    free(st);
    return bytes;
}

/* Step 1, before any student code: each selected bench case's size, and the clock's offset
 * for it (cal[i]). A cl_engine_rc; out->message says why for anything but OK. */
static int plan_bench_cases(cl_run *run, const cl_engine_opts *o, cl_verdict_out *vo, calib *cal,
                            cl_engine_outcome *out)
{
    for (int i = 0; i < o->lab->ncases; i++) {
        const cl_case_conf *cc = &o->lab->cases[i];
        if (!cc->bench || !selected(o, cc))
            continue;
        double bytes = size_bench_case(run, o, vo, cc);
        if (bytes > 0 && calibrate(run, bytes, &cal[i])) {
            release_case(run);
            snprintf(out->message, sizeof out->message, "%s", run->error);
            return CL_ENGINE_JUDGE_ERROR;
        }
    }
    return CL_ENGINE_OK;
}

/* Step 2: the solution comes in, loaded by its own process. A cl_engine_rc. */
static int load_solution(const cl_engine_opts *o, cl_engine_outcome *out)
{
    char msg[1024];
    if (o->before_load)
        o->before_load(o->ctx);
    int ls = cl_link_load(o->link, msg, sizeof msg);
    if (ls) {
        snprintf(out->message, sizeof out->message, "%s", msg);
        return ls < 0 ? CL_ENGINE_SOLUTION_LOST : ls == CL_LS_MISSING_SYMBOL ? CL_ENGINE_MISSING_SYMBOL
               : ls == CL_LS_LOAD_ERROR                                      ? CL_ENGINE_LOAD_ERROR
                                                                             : CL_ENGINE_JUDGE_ERROR;
    }
    if (o->after_load)
        o->after_load(o->ctx);
    return CL_ENGINE_OK;
}

/* A case that is not run because an earlier one lost the solution's process or the GPU. */
static void emit_not_run(cl_verdict_out *vo, const cl_case_conf *cc, int rc)
{
    json_t *j = json_pack("{s:s, s:s, s:s, s:s}", "name", cc->name, "kind", cc->bench ? "bench" : "test",
                          "status", cl_case_not_run_name(), "message",
                          rc == CL_ENGINE_DEVICE_LOST ? "not run: the GPU was unusable after an earlier error"
                                                      : "not run: the solution's process ended earlier");
    cl_verdict_emit(vo, "case", j);
}

/* Why a case could not be set up, once the solution is loaded: ST_ERROR (the judge's),
 * unless the memory or the mapping failed because of what the solution's process holds. */
static case_status setup_failure(cl_run *run)
{
    if (run->share_failed) {
        /* the budget was fixed before the solution existed: memory it holds is its own doing */
        snprintf(run->msg, sizeof run->msg,
                 "the judge could not allocate this case within the memory budget fixed before your code "
                 "was loaded (%s): your process holds too much GPU memory", run->error);
        return ST_CUDA;
    }
    if (run->map_failed) {
        /* the judge made the buffers; after the solution's code has run in it, the
         * solution's process could not take them: that process is the solution's */
        snprintf(run->msg, sizeof run->msg, "the solution's process could not take this case's buffers (%s)",
                 run->error);
        return ST_CRASH;
    }
    return ST_ERROR;
}

/* One line for the case in the CUDALAB_PHASES file, if one is named. */
static void write_phases(const cl_run *run, const cl_case_conf *cc, double total_ms)
{
    if (!cl_phases_on())
        return;
    char parts[512];
    int at = 0;
    for (int p = 0; p < PH_COUNT && at < (int)sizeof parts; p++)
        at += snprintf(parts + at, sizeof parts - (size_t)at, "%s%s=%.1f", p ? " " : "", phase_names[p],
                       run->phase_ms[p]);
    cl_phases_line(run->lab->name, cc->bench ? "bench" : "test", cc->name, total_ms, parts);
}

/* One selected case, correctness or bench, from its start line to its verdict line and the
 * release of its buffers. Returns its status. */
static case_status run_case(cl_run *run, const cl_engine_opts *o, cl_verdict_out *vo, const cl_case_conf *cc,
                            const calib *cal)
{
    cl_verdict_emit(vo, "case_start", json_pack("{s:s, s:s}", "name", cc->name, "kind",
                                                cc->bench ? "bench" : "test"));
    cl_case c = {cc, o->lab, case_seed(o, cc)};
    void *st = calloc(1, o->checker->state_size ? o->checker->state_size : 1);
    case_status s = ST_ERROR;
    double ms = 0;
    bench_stats bs;
    memset(&bs, 0, sizeof bs);
    memset(run->phase_ms, 0, sizeof run->phase_ms);
    double t0 = mono_ms();
    if (!st)
        cl_errorf(run, "out of host memory");
    else if (setup_case(run, o, &c, st) == 0) {
        run->phase_ms[PH_SETUP] = mono_ms() - t0;
        s = cc->bench ? run_bench(run, o->checker, st, &c, cal, &bs)
                      : run_correctness(run, o->checker, st, c.seed, &ms);
    } else
        s = setup_failure(run);
    write_phases(run, cc, mono_ms() - t0);
    if (s == ST_ERROR && be_fatal()) {
        s = ST_CUDA;
        if (!run->msg[0])
            snprintf(run->msg, sizeof run->msg, "the GPU failed while your code ran: %s",
                     run->error[0] ? run->error : be_error());
    }
    emit_case(vo, run, cc, s, ms, &bs, cal);
    if (st && o->checker->teardown)
        o->checker->teardown(run, st);
    release_case(run);
    free(st);
    return s;
}

/* Step 3: the selected cases in the lab's order, correctness and bench alike; once the
 * solution's process or the GPU is lost, the rest are reported as not run. A cl_engine_rc. */
static int run_cases(cl_run *run, const cl_engine_opts *o, cl_verdict_out *vo, const calib *cal,
                     cl_engine_outcome *out)
{
    int rc = CL_ENGINE_OK;
    for (int i = 0; i < o->lab->ncases; i++) {
        const cl_case_conf *cc = &o->lab->cases[i];
        if (!selected(o, cc))
            continue;
        if (rc != CL_ENGINE_OK) {
            emit_not_run(vo, cc, rc);
            continue;
        }
        case_status s = run_case(run, o, vo, cc, &cal[i]);
        if (s == ST_CRASH || s == ST_TIMEOUT) {
            rc = CL_ENGINE_SOLUTION_LOST;
            snprintf(out->message, sizeof out->message, "%s", run->msg);
        } else if (be_fatal()) {
            rc = CL_ENGINE_DEVICE_LOST;
            snprintf(out->message, sizeof out->message, "the GPU was unusable after an error");
        }
    }
    return rc;
}

int cl_engine_run(const cl_engine_opts *o, const be_device *dev, cl_verdict_out *vo, cl_engine_outcome *out)
{
    memset(out, 0, sizeof *out);
    cl_run *run = calloc(1, sizeof *run);
    calib *cal = calloc((size_t)o->lab->ncases + 1, sizeof *cal);
    if (!run || !cal) {
        free(run);
        free(cal);
        snprintf(out->message, sizeof out->message, "out of host memory");
        return CL_ENGINE_JUDGE_ERROR;
    }
    run->lab = o->lab;
    run->dev = dev;
    run->link = o->link;
    run->budget = o->budget;
    run->after_call = o->after_call;
    run->cb_ctx = o->ctx;

    double t0 = mono_ms();
    int rc = plan_bench_cases(run, o, vo, cal, out);
    if (rc == CL_ENGINE_OK && !o->plan) {
        double t1 = mono_ms();
        rc = load_solution(o, out);
        cl_phases_line(o->lab->name, "plan", NULL, t1 - t0, NULL);
        cl_phases_line(o->lab->name, "load", NULL, mono_ms() - t1, NULL);
        if (rc == CL_ENGINE_OK) {
            rc = run_cases(run, o, vo, cal, out);
            reset_outcome(run);
        }
    }
    free(run);
    free(cal);
    return rc;
}
