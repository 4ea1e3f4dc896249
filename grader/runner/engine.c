/* engine.c: the runner's case loop and the services checkers use (checker.h).
 *
 * For every case: the checker sizes and allocates; the engine surrounds each buffer with
 * guard zones of random bytes, poisons outputs with 0xFF (NaN / -1), remembers a hash of
 * every input, calls the solution, synchronises the whole device, then checks the
 * guards, the inputs and (through the checker) the outputs. Bench cases add a verified
 * warm-up and timed runs, each on freshly generated inputs with L2 evicted, each
 * verified, repeated in batches until the spread is narrow. */
#include "engine.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define GUARD_BYTES 4096                 /* before each buffer */
#define GUARD_TAIL_MAX (GUARD_BYTES + 256) /* after it: the alignment slack plus a guard */
#define MAX_BUFS 32
#define MAX_HOST 64
#define MAX_BATCHES 3
#define SPREAD_LIMIT 0.10         /* (p90 - p10) / median above which a batch is repeated */
#define INPUT_HASH_LIMIT (256u << 20) /* inputs up to this size are checked for modification */

void (*cl_engine_after_call)(void);

typedef struct cl_buffer {
    unsigned char *base; /* allocation: [guard][data][slack + guard] */
    unsigned char *data;
    size_t bytes, tail_bytes;
    int output;
    char name[48];
    uint64_t hash; /* inputs: hash after generate */
} cl_buffer;

struct cl_case {
    const cl_case_conf *conf;
    const cl_lab *lab;
    uint64_t seed;
};

struct cl_run {
    const cl_lab *lab;
    const be_device *dev;
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
    /* the outcome of the last check */
    int failed;
    char msg[2048];
    char where[256];
    int has_values;
    double expected, got;
    char error[2048];
    unsigned char guard[GUARD_BYTES + GUARD_TAIL_MAX];
    unsigned char *scratch_host;
};

/* ---- small utilities ---- */

static uint64_t hash_bytes(const unsigned char *p, size_t n)
{
    uint64_t h = 0x243F6A8885A308D3ull ^ n;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = cl_mix64(h ^ w);
    }
    uint64_t w = 0;
    memcpy(&w, p + i, n - i);
    return cl_mix64(h ^ w);
}

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
    if (be_malloc(&base, GUARD_BYTES + padded + GUARD_BYTES)) {
        cl_errorf(run, "cannot allocate %s (%zu bytes): %s", name, bytes, be_error());
        return NULL;
    }
    cl_buffer *b = &run->bufs[run->nbufs++];
    memset(b, 0, sizeof *b);
    b->base = base;
    b->data = b->base + GUARD_BYTES;
    b->bytes = bytes;
    b->tail_bytes = padded - bytes + GUARD_BYTES;
    b->output = output;
    snprintf(b->name, sizeof b->name, "%s", name);
    return b->data;
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

int cl_download(cl_run *run, void *host, const void *dev, size_t bytes)
{
    return bytes == 0 || be_download(host, dev, bytes) == 0 ? 0 : cl_errorf(run, "%s", be_error());
}

int cl_fill(cl_run *run, void *dev, size_t count, cl_dtype t, const cl_gen *g)
{
    return be_fill(dev, count, t, g) == 0 ? 0 : cl_errorf(run, "%s", be_error());
}

int cl_dev_sum(cl_run *run, const void *dev, size_t count, cl_dtype t, double *sum, double *abs_sum)
{
    return be_sum(dev, count, t, sum, abs_sum) == 0 ? 0 : cl_errorf(run, "%s", be_error());
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

/* 1 when a guard was overwritten (the message says where), 0 clean, -1 error. */
static int check_guards(cl_run *run)
{
    unsigned char got[GUARD_BYTES + GUARD_TAIL_MAX];
    for (int i = 0; i < run->nbufs; i++) {
        cl_buffer *b = &run->bufs[i];
        if (be_download(got, b->base, GUARD_BYTES) ||
            be_download(got + GUARD_BYTES, b->data + b->bytes, b->tail_bytes))
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
        if (run->bufs[i].output && be_memset(run->bufs[i].data, 0xFF, run->bufs[i].bytes))
            return cl_errorf(run, "poisoning outputs: %s", be_error());
    return 0;
}

static size_t input_bytes(cl_run *run)
{
    size_t total = 0;
    for (int i = 0; i < run->nbufs; i++)
        if (!run->bufs[i].output)
            total += run->bufs[i].bytes;
    return total;
}

static int hash_inputs(cl_run *run, int compare)
{
    size_t total = input_bytes(run);
    if (total == 0 || total > INPUT_HASH_LIMIT)
        return 0;
    for (int i = 0; i < run->nbufs; i++) {
        cl_buffer *b = &run->bufs[i];
        if (b->output || b->bytes == 0)
            continue;
        unsigned char *tmp = malloc(b->bytes);
        if (!tmp)
            return cl_errorf(run, "out of host memory");
        if (be_download(tmp, b->data, b->bytes)) {
            free(tmp);
            return cl_errorf(run, "reading input '%s': %s", b->name, be_error());
        }
        uint64_t h = hash_bytes(tmp, b->bytes);
        free(tmp);
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
    for (int i = 0; i < run->nbufs; i++)
        be_free(run->bufs[i].base);
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
}

/* ---- one case ---- */

typedef enum { ST_PASS, ST_WRONG, ST_OOB, ST_CUDA, ST_ERROR } case_status;
static const char *status_name[] = {"pass", "wrong", "out_of_bounds", "cuda_error", "error"};

typedef struct bench_stats {
    int runs, batches, off_stream_runs;
    double median_ms, min_ms, max_ms, p10_ms, p90_ms, event_median_ms, wall_median_ms, tail_median_ms;
} bench_stats;

/* After a call: device error? guards? inputs? then the checker's verdict. */
static case_status check_call(cl_run *run, const cl_checker *chk, void *st, int full, int check_inputs,
                              const char *prefix)
{
    int g = check_guards(run);
    if (g < 0)
        return be_fatal() ? ST_CUDA : ST_ERROR;
    if (g > 0) {
        if (prefix[0]) {
            char tmp[sizeof run->msg];
            snprintf(tmp, sizeof tmp, "%s: %s", prefix, run->msg);
            snprintf(run->msg, sizeof run->msg, "%s", tmp);
        }
        return ST_OOB;
    }
    if (check_inputs) {
        int h = hash_inputs(run, 1);
        if (h < 0)
            return be_fatal() ? ST_CUDA : ST_ERROR;
        if (h > 0)
            return ST_OOB;
    }
    int v = chk->verify(run, st, full);
    if (v < 0)
        return be_fatal() ? ST_CUDA : ST_ERROR;
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

static case_status call_failed(cl_run *run)
{
    snprintf(run->msg, sizeof run->msg, "%s", be_error());
    return ST_CUDA;
}

static case_status run_correctness(cl_run *run, const cl_checker *chk, void *st, uint64_t seed, const void *entry,
                                   double *ms)
{
    if (chk->generate(run, st, seed) || be_sync())
        return ST_ERROR;
    if (hash_inputs(run, 0) < 0 || poison_outputs(run) || be_sync())
        return ST_ERROR;
    be_timing t;
    if (be_timed_call(chk->launch, st, entry, &t))
        return call_failed(run);
    if (cl_engine_after_call)
        cl_engine_after_call();
    *ms = t.wall_ms;
    return check_call(run, chk, st, 1, 1, "");
}

static case_status run_bench(cl_run *run, const cl_checker *chk, void *st, const cl_case *c, const void *entry,
                             bench_stats *bs)
{
    memset(bs, 0, sizeof *bs);
    /* warm-up: untimed, fully verified */
    if (chk->generate(run, st, c->seed) || poison_outputs(run) || be_sync())
        return ST_ERROR;
    if (be_call(chk->launch, st, entry))
        return call_failed(run);
    if (cl_engine_after_call)
        cl_engine_after_call();
    case_status s = check_call(run, chk, st, 1, 0, "warm-up run");
    if (s != ST_PASS)
        return s;

    int per_batch = c->conf->runs;
    double *times = calloc((size_t)per_batch * MAX_BATCHES, sizeof *times);
    double *ev = calloc((size_t)per_batch * MAX_BATCHES, sizeof *ev);
    double *wall = calloc((size_t)per_batch * MAX_BATCHES, sizeof *wall);
    double *tail = calloc((size_t)per_batch * MAX_BATCHES, sizeof *tail);
    if (!times || !ev || !wall || !tail) {
        free(times); free(ev); free(wall); free(tail);
        cl_errorf(run, "out of host memory");
        return ST_ERROR;
    }
    int n = 0;
    s = ST_PASS;
    for (int batch = 0; batch < MAX_BATCHES && s == ST_PASS; batch++) {
        for (int r = 0; r < per_batch; r++) {
            uint64_t seed = cl_mix64(c->seed + 0x1000u + (uint64_t)n);
            reset_outcome(run);
            if (chk->generate(run, st, seed) || poison_outputs(run) || be_sync()) {
                s = ST_ERROR;
                break;
            }
            be_timing t;
            if (be_timed_call(chk->launch, st, entry, &t)) {
                s = call_failed(run);
                break;
            }
            if (cl_engine_after_call)
                cl_engine_after_call();
            char prefix[64];
            snprintf(prefix, sizeof prefix, "timed run %d", n + 1);
            s = check_call(run, chk, st, 0, 0, prefix);
            if (s != ST_PASS)
                break;
            /* work still running after the stream's stop event ran outside the stream */
            int off = t.tail_ms > 0.05 && t.tail_ms > 0.05 * t.event_ms;
            bs->off_stream_runs += off;
            ev[n] = t.event_ms;
            wall[n] = t.wall_ms;
            tail[n] = t.tail_ms;
            times[n] = off ? t.wall_ms : t.event_ms;
            n++;
        }
        if (s != ST_PASS)
            break;
        bs->batches = batch + 1;
        qsort(times, (size_t)n, sizeof *times, cmp_double);
        double med = percentile(times, n, 0.5);
        double spread = med > 0 ? (percentile(times, n, 0.9) - percentile(times, n, 0.1)) / med : 0;
        if (spread <= SPREAD_LIMIT)
            break;
    }
    if (s == ST_PASS && n > 0) {
        qsort(times, (size_t)n, sizeof *times, cmp_double);
        qsort(ev, (size_t)n, sizeof *ev, cmp_double);
        qsort(wall, (size_t)n, sizeof *wall, cmp_double);
        qsort(tail, (size_t)n, sizeof *tail, cmp_double);
        bs->runs = n;
        bs->median_ms = percentile(times, n, 0.5);
        bs->min_ms = times[0];
        bs->max_ms = times[n - 1];
        bs->p10_ms = percentile(times, n, 0.1);
        bs->p90_ms = percentile(times, n, 0.9);
        bs->event_median_ms = percentile(ev, n, 0.5);
        bs->wall_median_ms = percentile(wall, n, 0.5);
        bs->tail_median_ms = percentile(tail, n, 0.5);
    }
    free(times); free(ev); free(wall); free(tail);
    return s;
}

static json_t *case_json(cl_run *run, const cl_case_conf *cc, case_status s, double ms, const bench_stats *bs)
{
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(cc->name));
    json_object_set_new(o, "kind", json_string(cc->bench ? "bench" : "test"));
    json_object_set_new(o, "status", json_string(status_name[s]));
    const char *msg = s == ST_ERROR ? (run->error[0] ? run->error : be_error()) : run->msg;
    if (msg && *msg)
        json_object_set_new(o, "message", json_string(msg));
    if (s == ST_WRONG && run->has_values) {
        json_object_set_new(o, "where", json_string(run->where));
        json_object_set_new(o, "expected", json_real(run->expected));
        json_object_set_new(o, "got", json_real(run->got));
    }
    if (run->shape[0])
        json_object_set_new(o, "shape", json_string(run->shape));
    if (run->scaled[0])
        json_object_set_new(o, "scaled", json_string(run->scaled));
    json_object_set_new(o, "ms", json_real(ms));
    if (cc->bench && bs && bs->runs) {
        json_t *b = json_pack("{s:i, s:i, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:i, s:f, s:f, s:f, s:s}",
                              "runs", bs->runs, "batches", bs->batches, "median_ms", bs->median_ms, "min_ms",
                              bs->min_ms, "max_ms", bs->max_ms, "p10_ms", bs->p10_ms, "p90_ms", bs->p90_ms,
                              "event_median_ms", bs->event_median_ms, "wall_median_ms", bs->wall_median_ms,
                              "tail_median_ms", bs->tail_median_ms, "off_stream_runs", bs->off_stream_runs,
                              "bytes", run->bytes, "flops", run->flops, "items", run->items, "items_unit",
                              run->items_unit);
        json_object_set_new(b, "off_stream", json_boolean(bs->off_stream_runs * 2 > bs->runs));
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
    if (o->quick && !cc->sanitize)
        return 0;
    if (!o->only)
        return 1;
    for (const char **n = o->only; *n; n++)
        if (!strcmp(*n, cc->name))
            return 1;
    return 0;
}

int cl_engine_run(const cl_engine_opts *o, const be_device *dev, cl_verdict_out *vo)
{
    cl_run *run = calloc(1, sizeof *run);
    if (!run)
        return -1;
    run->lab = o->lab;
    run->dev = dev;
    int lost = 0;
    for (int i = 0; i < o->lab->ncases; i++) {
        const cl_case_conf *cc = &o->lab->cases[i];
        if (!selected(o, cc))
            continue;
        if (lost) {
            json_t *j = json_pack("{s:s, s:s, s:s, s:s}", "name", cc->name, "kind", cc->bench ? "bench" : "test",
                                  "status", "not_run", "message",
                                  "not run: the device was unusable after an earlier CUDA error");
            cl_verdict_emit(vo, "case", j);
            continue;
        }
        cl_verdict_emit(vo, "case_start", json_pack("{s:s, s:s}", "name", cc->name, "kind",
                                                    cc->bench ? "bench" : "test"));
        size_t free_b = 0, total_b = 0;
        be_mem_info(&free_b, &total_b);
        run->budget = (size_t)((double)free_b * 0.6);
        run->bytes = run->flops = run->items = 0;
        run->items_unit[0] = run->shape[0] = run->scaled[0] = '\0';
        run->ndims = 0;
        reset_outcome(run);

        cl_case c = {cc, o->lab, cl_mix64(o->seed ^ hash_bytes((const unsigned char *)cc->name, strlen(cc->name)))};
        void *st = calloc(1, o->checker->state_size ? o->checker->state_size : 1);
        case_status s = ST_ERROR;
        double ms = 0;
        bench_stats bs;
        memset(&bs, 0, sizeof bs);
        if (!st) {
            cl_errorf(run, "out of host memory");
        } else if (o->checker->setup(run, &c, st) == 0) {
            make_guard_pattern(run, cl_mix64(c.seed ^ 0x6A09E667F3BCC909ull));
            if (write_guards(run) == 0 && be_sync() == 0)
                s = cc->bench ? run_bench(run, o->checker, st, &c, o->entry, &bs)
                              : run_correctness(run, o->checker, st, c.seed, o->entry, &ms);
        }
        if (s == ST_ERROR && be_fatal()) {
            s = ST_CUDA;
            if (!run->msg[0])
                snprintf(run->msg, sizeof run->msg, "%s", run->error[0] ? run->error : be_error());
        }
        cl_verdict_emit(vo, "case", case_json(run, cc, s, ms, &bs));
        if (st && o->checker->teardown)
            o->checker->teardown(run, st);
        release_case(run);
        free(st);
        if (be_fatal())
            lost = 1;
    }
    free(run);
    return lost ? -1 : 0;
}
