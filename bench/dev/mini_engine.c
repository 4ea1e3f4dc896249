/* mini_engine.c: the checker services of grader/checker.h over a mini_backend, and the
 * life of one case (see mini_engine.h). Development tool for the graph labs; the real
 * engine lives in grader/ and replaces all of this. */
#include "mini_engine.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GUARD 256          /* bytes of guard zone on each side of a checker buffer */
#define GUARD_BYTE 0xA5
#define MAX_BUFS 32
#define MAX_HOST 64
#define MAX_TOLS 16
#define SNAP_LIMIT (512u << 20) /* inputs larger than this are not snapshotted */

static const mini_backend *be;
static uint64_t run_seed = 0x5EEDu;
static int ntols;
static char tol_key[MAX_TOLS][48];
static double tol_val[MAX_TOLS];

typedef struct buf {
    unsigned char *base; /* allocation, guard zones included */
    size_t bytes;
    int is_out, is_in;
    char name[48];
    unsigned char *snap; /* host copy of an input before the launch */
} buf;

struct cl_run {
    const cl_checker *chk;
    const cl_case *c;
    void *state;
    buf bufs[MAX_BUFS];
    int nbufs;
    void *host[MAX_HOST];
    int nhost;
    double bytes, flops, items;
    char unit[32];
    char shape[512];
    char msg[1024];
    const char *verdict;
};

void mini_set_backend(const mini_backend *b) { be = b; }
void mini_set_seed(uint64_t seed) { run_seed = seed; }

/* ---- the flat case file ---- */

int mini_load_cases(const char *path, const char *lab, cl_case *cases, int max, int *count)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "mini_engine: cannot open %s\n", path);
        return -1;
    }
    char line[4096];
    *count = 0;
    ntols = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        char *save = NULL, *tok = strtok_r(line, "\t", &save);
        if (!tok)
            continue;
        char *lname = strtok_r(NULL, "\t", &save);
        if (!lname || strcmp(lname, lab))
            continue;
        if (!strcmp(tok, "tol")) {
            char *k = strtok_r(NULL, "\t", &save), *v = strtok_r(NULL, "\t", &save);
            if (k && v && ntols < MAX_TOLS) {
                snprintf(tol_key[ntols], sizeof tol_key[0], "%s", k);
                tol_val[ntols++] = strtod(v, NULL);
            }
            continue;
        }
        if (strcmp(tok, "case") || *count >= max)
            continue;
        cl_case *c = &cases[(*count)++];
        memset(c, 0, sizeof *c);
        c->bench = atoi(strtok_r(NULL, "\t", &save));
        c->runs = atoi(strtok_r(NULL, "\t", &save));
        snprintf(c->name, sizeof c->name, "%s", strtok_r(NULL, "\t", &save));
        char *kv;
        while ((kv = strtok_r(NULL, "\t", &save)) && c->nparams < MINI_MAX_PARAMS) {
            char *eq = strchr(kv, '=');
            if (!eq)
                continue;
            *eq = 0;
            snprintf(c->key[c->nparams], sizeof c->key[0], "%s", kv);
            snprintf(c->val[c->nparams], sizeof c->val[0], "%s", eq + 1);
            c->nparams++;
        }
    }
    fclose(f);
    return 0;
}

/* ---- case parameters ---- */

const char *cl_case_name(const cl_case *c) { return c->name; }
int cl_case_is_bench(const cl_case *c) { return c->bench; }

uint64_t mini_seed_of(const char *name)
{
    uint64_t h = run_seed;
    for (const char *p = name; *p; p++)
        h = cl_mix64(h ^ (unsigned char)*p);
    return h;
}

uint64_t cl_case_seed(const cl_case *c) { return mini_seed_of(c->name); }

static const char *param(const cl_case *c, const char *key)
{
    for (int i = 0; i < c->nparams; i++)
        if (!strcmp(c->key[i], key))
            return c->val[i];
    return NULL;
}

int cl_param_has(const cl_case *c, const char *key) { return param(c, key) != NULL; }

/* "2^20", "1e6", "4096" */
static int parse_num(const char *s, double *out)
{
    char *end;
    const char *caret = strchr(s, '^');
    if (caret) {
        double b = strtod(s, &end), e = strtod(caret + 1, NULL);
        *out = pow(b, e);
        return 0;
    }
    *out = strtod(s, &end);
    return end == s || *end ? -1 : 0;
}

int cl_param_f64_or(cl_run *run, const cl_case *c, const char *key, double dflt, double *out)
{
    const char *v = param(c, key);
    if (!v) {
        *out = dflt;
        return 0;
    }
    if (parse_num(v, out))
        return cl_errorf(run, "lab.yaml: case '%s': %s = '%s' is not a number", c->name, key, v);
    return 0;
}

int cl_param_f64(cl_run *run, const cl_case *c, const char *key, double *out)
{
    if (!param(c, key))
        return cl_errorf(run, "lab.yaml: case '%s' needs '%s'", c->name, key);
    return cl_param_f64_or(run, c, key, 0, out);
}

int cl_param_i64_or(cl_run *run, const cl_case *c, const char *key, long long dflt, long long *out)
{
    double d;
    if (cl_param_f64_or(run, c, key, (double)dflt, &d))
        return -1;
    if (d != floor(d))
        return cl_errorf(run, "lab.yaml: case '%s': %s is not an integer", c->name, key);
    *out = (long long)d;
    return 0;
}

int cl_param_i64(cl_run *run, const cl_case *c, const char *key, long long *out)
{
    if (!param(c, key))
        return cl_errorf(run, "lab.yaml: case '%s' needs '%s'", c->name, key);
    return cl_param_i64_or(run, c, key, 0, out);
}

const char *cl_param_str_or(const cl_case *c, const char *key, const char *dflt)
{
    const char *v = param(c, key);
    return v ? v : dflt;
}

size_t cl_mem_budget(cl_run *run) { return (size_t)((double)be->mem_free() * 0.8); }

int cl_param_size(cl_run *run, const cl_case *c, const char *key, double per_unit_bytes, double fixed_bytes,
                  long long *out)
{
    const char *v = param(c, key);
    double budget = (double)cl_mem_budget(run);
    double count;
    if (!v)
        return cl_errorf(run, "lab.yaml: case '%s' needs '%s'", c->name, key);
    if (!strcmp(v, "max"))
        count = floor((budget - fixed_bytes) / per_unit_bytes);
    else if (parse_num(v, &count))
        return cl_errorf(run, "lab.yaml: case '%s': %s = '%s' is not a size", c->name, key, v);
    while (count >= 1 && fixed_bytes + count * per_unit_bytes > budget)
        count = floor(count / 2);
    if (count < 1)
        return cl_errorf(run, "case '%s' does not fit in %.0f MB of device memory", c->name, budget / 1e6);
    *out = (long long)count;
    return 0;
}

double cl_tolerance(cl_run *run, const char *key, double dflt)
{
    for (int i = 0; i < ntols; i++)
        if (!strcmp(tol_key[i], key))
            return tol_val[i];
    return dflt;
}

/* ---- buffers ---- */

static void *new_buf(cl_run *run, size_t bytes, const char *name, int is_in, int is_out)
{
    if (run->nbufs == MAX_BUFS) {
        cl_errorf(run, "mini_engine: too many buffers");
        return NULL;
    }
    unsigned char *p = be->alloc(bytes + 2 * GUARD);
    if (!p) {
        cl_errorf(run, "out of device memory for %s (%zu bytes)", name ? name : "scratch", bytes);
        return NULL;
    }
    buf *b = &run->bufs[run->nbufs++];
    memset(b, 0, sizeof *b);
    b->base = p;
    b->bytes = bytes;
    b->is_in = is_in;
    b->is_out = is_out;
    snprintf(b->name, sizeof b->name, "%s", name ? name : "scratch");
    if (be->set(p, GUARD_BYTE, GUARD) || be->set(p + GUARD + bytes, GUARD_BYTE, GUARD)) {
        cl_errorf(run, "mini_engine: cannot set guard zones");
        return NULL;
    }
    return p + GUARD;
}

void *cl_alloc_in(cl_run *run, size_t bytes, const char *name) { return new_buf(run, bytes, name, 1, 0); }
void *cl_alloc_out(cl_run *run, size_t bytes, const char *name) { return new_buf(run, bytes, name, 0, 1); }
void *cl_alloc_dev(cl_run *run, size_t bytes) { return new_buf(run, bytes, NULL, 0, 0); }

void *cl_host_alloc(cl_run *run, size_t bytes)
{
    if (run->nhost == MAX_HOST)
        return NULL;
    void *p = calloc(1, bytes ? bytes : 1);
    if (p)
        run->host[run->nhost++] = p;
    return p;
}

int cl_upload(cl_run *run, void *dev, const void *host, size_t bytes)
{
    return be->upload(dev, host, bytes) ? cl_errorf(run, "upload of %zu bytes failed", bytes) : 0;
}

int cl_download(cl_run *run, void *host, const void *dev, size_t bytes)
{
    return be->download(host, dev, bytes) ? cl_errorf(run, "download of %zu bytes failed", bytes) : 0;
}

int cl_fill(cl_run *run, void *dev, size_t count, cl_dtype t, const cl_gen *g)
{
    return be->fill(dev, count, t, g) ? cl_errorf(run, "cl_fill of %zu elements failed", count) : 0;
}

/* ---- work and verdicts ---- */

void cl_set_work(cl_run *run, double bytes, double flops)
{
    run->bytes = bytes;
    run->flops = flops;
}

void cl_set_items(cl_run *run, double items, const char *unit)
{
    run->items = items;
    snprintf(run->unit, sizeof run->unit, "%s", unit);
}

void cl_set_shape(cl_run *run, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(run->shape, sizeof run->shape, fmt, ap);
    va_end(ap);
}

static int set_msg(cl_run *run, const char *verdict, int rc, const char *fmt, va_list ap)
{
    if (!run->msg[0]) { /* the first failure is the one reported */
        vsnprintf(run->msg, sizeof run->msg, fmt, ap);
        run->verdict = verdict;
    }
    return rc;
}

int cl_mismatch(cl_run *run, const char *where, double expected, double got, const char *fmt, ...)
{
    char head[256], tail[700];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tail, sizeof tail, fmt, ap);
    va_end(ap);
    snprintf(head, sizeof head, "%s: expected %.9g, got %.9g", where, expected, got);
    if (!run->msg[0]) {
        snprintf(run->msg, sizeof run->msg, "%s (%s)", head, tail);
        run->verdict = "wrong";
    }
    return 1;
}

int cl_failf(cl_run *run, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = set_msg(run, "wrong", 1, fmt, ap);
    va_end(ap);
    return rc;
}

int cl_errorf(cl_run *run, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = set_msg(run, "error", -1, fmt, ap);
    va_end(ap);
    return rc;
}

int cl_close(double got, double expected, double abs_tol, double rel_tol)
{
    if (isnan(got) || isnan(expected))
        return 0;
    if (isinf(expected) || isinf(got))
        return got == expected;
    return fabs(got - expected) <= abs_tol + rel_tol * fabs(expected);
}

uint64_t cl_sample_index(uint64_t seed, uint64_t k, uint64_t n)
{
    return n ? cl_rand64(seed, k, 7) % n : 0;
}

/* ---- the life of a case ---- */

mini_case_run *mini_case_open(const cl_checker *chk, const cl_case *c)
{
    cl_run *run = calloc(1, sizeof *run);
    run->chk = chk;
    run->c = c;
    run->verdict = "ok";
    run->state = calloc(1, chk->state_size);
    if (chk->setup(run, c, run->state) && !run->msg[0])
        cl_errorf(run, "setup failed");
    return run;
}

int mini_case_generate(mini_case_run *run, uint64_t seed)
{
    if (run->msg[0])
        return -1;
    if (run->chk->generate(run, run->state, seed))
        return -1;
    for (int i = 0; i < run->nbufs; i++)
        if (run->bufs[i].is_out && be->set(run->bufs[i].base + GUARD, 0xFF, run->bufs[i].bytes))
            return cl_errorf(run, "cannot poison %s", run->bufs[i].name);
    return 0;
}

void mini_case_snapshot_inputs(mini_case_run *run)
{
    for (int i = 0; i < run->nbufs; i++) {
        buf *b = &run->bufs[i];
        if (!b->is_in || b->bytes > SNAP_LIMIT)
            continue;
        if (!b->snap)
            b->snap = malloc(b->bytes ? b->bytes : 1);
        if (b->snap)
            be->download(b->snap, b->base + GUARD, b->bytes);
    }
}

void mini_case_launch(mini_case_run *run, const void *entry, void *stream)
{
    run->chk->launch(run->state, entry, stream);
}

int mini_case_check(mini_case_run *run, int full)
{
    char err[512] = "";
    if (be->sync(err, sizeof err)) {
        snprintf(run->msg, sizeof run->msg, "%s", err);
        run->verdict = "cuda_error";
        return MINI_ERROR;
    }
    unsigned char g[GUARD];
    for (int i = 0; i < run->nbufs; i++) {
        buf *b = &run->bufs[i];
        for (int side = 0; side < 2; side++) {
            be->download(g, side ? b->base + GUARD + b->bytes : b->base, GUARD);
            for (int k = 0; k < GUARD; k++)
                if (g[k] != GUARD_BYTE) {
                    snprintf(run->msg, sizeof run->msg, "a write %s %s (byte %d of the guard zone)",
                             side ? "past the end of" : "before the start of", b->name, k);
                    run->verdict = "out_of_bounds";
                    return MINI_WRONG;
                }
        }
        if (b->snap) {
            unsigned char *now = malloc(b->bytes ? b->bytes : 1);
            be->download(now, b->base + GUARD, b->bytes);
            int diff = memcmp(now, b->snap, b->bytes);
            free(now);
            free(b->snap);
            b->snap = NULL;
            if (diff) {
                snprintf(run->msg, sizeof run->msg, "the input %s was modified", b->name);
                run->verdict = "out_of_bounds";
                return MINI_WRONG;
            }
        }
    }
    int rc = run->chk->verify(run, run->state, full);
    if (rc > 0)
        return MINI_WRONG;
    if (rc < 0) {
        if (!run->msg[0])
            cl_errorf(run, "verify failed");
        return MINI_ERROR;
    }
    return MINI_OK;
}

const char *mini_case_message(const mini_case_run *run) { return run->msg; }
const char *mini_case_verdict(const mini_case_run *run) { return run->verdict; }
const char *mini_case_shape(const mini_case_run *run) { return run->shape; }
double mini_case_bytes(const mini_case_run *run) { return run->bytes; }
double mini_case_flops(const mini_case_run *run) { return run->flops; }
double mini_case_items(const mini_case_run *run) { return run->items; }
const char *mini_case_item_unit(const mini_case_run *run) { return run->unit; }

void mini_case_close(mini_case_run *run)
{
    if (run->chk->teardown)
        run->chk->teardown(run, run->state);
    for (int i = 0; i < run->nbufs; i++) {
        be->release(run->bufs[i].base);
        free(run->bufs[i].snap);
    }
    for (int i = 0; i < run->nhost; i++)
        free(run->host[i]);
    free(run->state);
    free(run);
}
