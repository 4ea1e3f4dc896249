/* labconf.c: lab.yaml -> cl_lab, with every schema error reported at file:line:col. */
#include "grader/labconf.h"

#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "paths.h"

static char *dupstr(const char *s) { return s ? strdup(s) : NULL; }

const char *const cl_sanitize_tools[CL_SAN_TOOLS] = {"memcheck", "racecheck"};

int cl_sanitize_bit(const char *tool)
{
    for (int i = 0; tool && i < CL_SAN_TOOLS; i++)
        if (!strcmp(tool, cl_sanitize_tools[i]))
            return 1 << i;
    return 0;
}

static int read_text(cl_yaml *y, cl_ynode *n, const char *what, cl_text *out, cl_err *err)
{
    static const char *const keys[] = {"en", "zh", NULL};
    if (!cl_yaml_is_map(n))
        return cl_yaml_errf(y, n, err, "%s must be a mapping with 'en' and 'zh'", what);
    if (cl_yaml_check_keys(y, n, keys, err))
        return -1;
    const char *en, *zh;
    cl_ynode *ne = cl_yaml_need(y, n, "en", err), *nz;
    if (!ne || cl_yaml_as_str(y, ne, what, &en, err))
        return -1;
    if (!(nz = cl_yaml_need(y, n, "zh", err)) || cl_yaml_as_str(y, nz, what, &zh, err))
        return -1;
    if (!*en || !*zh)
        return cl_yaml_errf(y, n, err, "%s: 'en' and 'zh' must both be non-empty", what);
    out->en = dupstr(en);
    out->zh = dupstr(zh);
    return 0;
}

static int read_str_list(cl_yaml *y, cl_ynode *n, const char *what, char **out, int max, int *count,
                         cl_err *err)
{
    if (!cl_yaml_is_seq(n))
        return cl_yaml_errf(y, n, err, "%s must be a list", what);
    size_t len = cl_yaml_seq_len(n);
    if ((int)len > max)
        return cl_yaml_errf(y, n, err, "%s has %zu entries (at most %d)", what, len, max);
    for (size_t i = 0; i < len; i++) {
        const char *s;
        if (cl_yaml_as_str(y, cl_yaml_seq_at(y, n, i), what, &s, err))
            return -1;
        out[(*count)++] = dupstr(s);
    }
    return 0;
}

static int read_cases(cl_yaml *y, cl_ynode *seq, int bench, cl_lab *lab, cl_err *err)
{
    const char *what = bench ? "bench" : "cases";
    if (!cl_yaml_is_seq(seq) || cl_yaml_seq_len(seq) == 0)
        return cl_yaml_errf(y, seq, err, "'%s' must be a non-empty list of cases", what);
    size_t len = cl_yaml_seq_len(seq);
    for (size_t i = 0; i < len; i++) {
        cl_ynode *cn = cl_yaml_seq_at(y, seq, i);
        if (!cl_yaml_is_map(cn))
            return cl_yaml_errf(y, cn, err, "each entry of '%s' must be a mapping", what);
        if (lab->ncases >= CL_MAX_CASES)
            return cl_yaml_errf(y, cn, err, "too many cases (at most %d)", CL_MAX_CASES);
        cl_case_conf *c = &lab->cases[lab->ncases];
        memset(c, 0, sizeof *c);
        c->bench = bench;
        c->line = cl_yaml_line(cn);
        c->sanitize = bench ? 0 : CL_SAN_ALL;
        c->runs = 30;
        size_t np = cl_yaml_map_len(cn);
        for (size_t k = 0; k < np; k++) {
            cl_ynode *kn = cl_yaml_map_key(y, cn, k), *vn = cl_yaml_map_val(y, cn, k);
            const char *key = cl_yaml_str(kn);
            if (!key)
                return cl_yaml_errf(y, kn, err, "case keys must be strings");
            for (size_t j = 0; j < k; j++)
                if (!strcmp(cl_yaml_str(cl_yaml_map_key(y, cn, j)), key))
                    return cl_yaml_errf(y, kn, err, "duplicate key '%s' in case", key);
            if (!strcmp(key, "name")) {
                const char *s;
                if (cl_yaml_as_str(y, vn, "case name", &s, err))
                    return -1;
                c->name = dupstr(s);
            } else if (!strcmp(key, "runs")) {
                long long r;
                if (cl_yaml_as_int(y, vn, "runs", &r, err))
                    return -1;
                if (!bench)
                    return cl_yaml_errf(y, kn, err, "'runs' is for bench cases only");
                if (r < 20 || r > 10000)
                    return cl_yaml_errf(y, vn, err, "runs must be between 20 and 10000 (median of at least 20)");
                c->runs = (int)r;
            } else if (!strcmp(key, "sanitize")) {
                int on;
                cl_err not_bool;
                if ((c->sanitize = cl_sanitize_bit(cl_yaml_str(vn))) == 0) {
                    if (cl_yaml_as_bool(y, vn, "sanitize", &on, &not_bool)) {
                        char names[64] = "";
                        for (int t = 0; t < CL_SAN_TOOLS; t++)
                            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", t ? ", " : "",
                                     cl_sanitize_tools[t]);
                        return cl_yaml_errf(y, vn, err,
                                            "sanitize must be true, false or one compute-sanitizer tool (%s)", names);
                    }
                    c->sanitize = on ? CL_SAN_ALL : 0;
                }
            } else {
                const char *s = cl_yaml_str(vn);
                if (!s)
                    return cl_yaml_errf(y, vn, err, "case parameter '%s' must be a scalar", key);
                if (c->nparams >= CL_MAX_PARAMS)
                    return cl_yaml_errf(y, kn, err, "too many parameters (at most %d)", CL_MAX_PARAMS);
                cl_param *p = &c->params[c->nparams++];
                p->key = dupstr(key);
                p->value = dupstr(s);
                p->line = cl_yaml_line(vn);
            }
        }
        if (!c->name || !*c->name)
            return cl_yaml_errf(y, cn, err, "case has no 'name'");
        for (int j = 0; j < lab->ncases; j++)
            if (!strcmp(lab->cases[j].name, c->name))
                return cl_yaml_errf(y, cn, err, "duplicate case name '%s' (first at line %d)", c->name,
                                    lab->cases[j].line);
        lab->ncases++;
    }
    return 0;
}

static int read_tolerance(cl_yaml *y, cl_ynode *n, cl_lab *lab, cl_err *err)
{
    static const char *const keys[] = {"value", "why", NULL};
    if (!cl_yaml_is_map(n))
        return cl_yaml_errf(y, n, err, "'tolerance' must map names to {value, why}");
    size_t len = cl_yaml_map_len(n);
    if ((int)len > CL_MAX_TOLS)
        return cl_yaml_errf(y, n, err, "too many tolerances (at most %d)", CL_MAX_TOLS);
    for (size_t i = 0; i < len; i++) {
        cl_ynode *kn = cl_yaml_map_key(y, n, i), *vn = cl_yaml_map_val(y, n, i);
        cl_tol_conf *t = &lab->tols[lab->ntols];
        if (!cl_yaml_is_map(vn))
            return cl_yaml_errf(y, vn, err, "tolerance '%s' must be {value: <number>, why: <text>}",
                                cl_yaml_str(kn) ? cl_yaml_str(kn) : "?");
        if (cl_yaml_check_keys(y, vn, keys, err))
            return -1;
        cl_ynode *v = cl_yaml_need(y, vn, "value", err), *w;
        if (!v || cl_yaml_as_double(y, v, "tolerance value", &t->value, err))
            return -1;
        if (!(w = cl_yaml_get(y, vn, "why")))
            return cl_yaml_errf(y, vn, err, "tolerance '%s' needs a 'why': say why this value is right",
                                cl_yaml_str(kn));
        const char *why;
        if (cl_yaml_as_str(y, w, "why", &why, err))
            return -1;
        if (strlen(why) < 10)
            return cl_yaml_errf(y, w, err, "tolerance '%s': 'why' is too short to justify anything",
                                cl_yaml_str(kn));
        t->key = dupstr(cl_yaml_str(kn));
        t->why = dupstr(why);
        t->line = cl_yaml_line(kn);
        lab->ntols++;
    }
    return 0;
}

/* names: the numbers the mapping must have; allowed: every key it may have (NULL: names). */
static int read_fractions(cl_yaml *y, cl_ynode *n, const char *what, const char *const *names,
                          const char *const *allowed, double *const *outs, int fraction, cl_err *err)
{
    if (!cl_yaml_is_map(n))
        return cl_yaml_errf(y, n, err, "'%s' must be a mapping", what);
    if (cl_yaml_check_keys(y, n, allowed ? allowed : names, err))
        return -1;
    for (int i = 0; names[i]; i++) {
        cl_ynode *v = cl_yaml_need(y, n, names[i], err);
        if (!v || cl_yaml_as_double(y, v, names[i], outs[i], err))
            return -1;
        if (*outs[i] < 0 || (fraction && *outs[i] > 4.0))
            return cl_yaml_errf(y, v, err, "%s.%s is out of range", what, names[i]);
    }
    return 0;
}

/* What the lab is: name, title, difficulty, topics, and its entry point's signature. */
static int read_identity(cl_yaml *y, cl_ynode *root, cl_lab *lab, cl_err *err)
{
    cl_ynode *n;
    const char *s;
    if (!(n = cl_yaml_need(y, root, "name", err)) || cl_yaml_as_str(y, n, "name", &s, err))
        return -1;
    lab->name = dupstr(s);
    if (!(n = cl_yaml_need(y, root, "title", err)) || read_text(y, n, "title", &lab->title, err))
        return -1;
    long long d;
    if (!(n = cl_yaml_need(y, root, "difficulty", err)) || cl_yaml_as_int(y, n, "difficulty", &d, err))
        return -1;
    if (d < 1 || d > 5)
        return cl_yaml_errf(y, n, err, "difficulty must be 1..5, not %lld", d);
    lab->difficulty = (int)d;
    if (!(n = cl_yaml_need(y, root, "topics", err)) ||
        read_str_list(y, n, "topics", lab->topics, CL_MAX_TOPICS, &lab->ntopics, err))
        return -1;
    if (!(n = cl_yaml_need(y, root, "entry", err)) || cl_yaml_as_str(y, n, "entry", &s, err))
        return -1;
    lab->entry = dupstr(s);
    if (!(n = cl_yaml_need(y, root, "signature", err)) || cl_yaml_as_str(y, n, "signature", &s, err))
        return -1;
    lab->signature = dupstr(s);
    if (!strstr(lab->signature, lab->entry))
        return cl_yaml_errf(y, n, err, "signature does not mention the entry point '%s'", lab->entry);
    return 0;
}

/* How speed is measured: the metric and the ceiling it is a fraction of, which must agree. */
static int read_metric(cl_yaml *y, cl_ynode *root, cl_lab *lab, cl_err *err)
{
    cl_ynode *n;
    const char *s;
    if (!(n = cl_yaml_need(y, root, "metric", err)) || cl_yaml_as_str(y, n, "metric", &s, err))
        return -1;
    if (!strcmp(s, "bandwidth")) lab->metric = CL_METRIC_BANDWIDTH;
    else if (!strcmp(s, "tflops")) lab->metric = CL_METRIC_TFLOPS;
    else if (!strcmp(s, "throughput")) lab->metric = CL_METRIC_THROUGHPUT;
    else if (!strcmp(s, "time")) lab->metric = CL_METRIC_TIME;
    else return cl_yaml_errf(y, n, err, "metric must be bandwidth, tflops, throughput or time, not '%s'", s);
    if (!(n = cl_yaml_need(y, root, "ceiling", err)) || cl_yaml_as_str(y, n, "ceiling", &s, err))
        return -1;
    if (!strcmp(s, "copy")) lab->ceiling = CL_CEIL_COPY;
    else if (!strcmp(s, "read")) lab->ceiling = CL_CEIL_READ;
    else if (!strcmp(s, "write")) lab->ceiling = CL_CEIL_WRITE;
    else if (!strcmp(s, "cublas")) lab->ceiling = CL_CEIL_CUBLAS;
    else if (!strcmp(s, "reference")) lab->ceiling = CL_CEIL_REFERENCE;
    else return cl_yaml_errf(y, n, err, "ceiling must be copy, read, write, cublas or reference, not '%s'", s);
    if (cl_ceiling_is_bandwidth(lab->ceiling) && lab->metric != CL_METRIC_BANDWIDTH)
        return cl_yaml_errf(y, n, err, "ceiling '%s' goes with metric 'bandwidth'", s);
    if (lab->ceiling == CL_CEIL_CUBLAS && lab->metric != CL_METRIC_TFLOPS)
        return cl_yaml_errf(y, n, err, "ceiling 'cublas' goes with metric 'tflops'");
    return 0;
}

/* How a solution is built and run: timeouts, extra nvcc flags, the Hopper suffix, and
 * the headers and libraries it may not use. All optional. */
static int read_build(cl_yaml *y, cl_ynode *root, cl_lab *lab, cl_err *err)
{
    cl_ynode *n;
    const char *s;
    lab->timeout_test_s = 60;
    lab->timeout_bench_s = 180;
    if ((n = cl_yaml_get(y, root, "timeout"))) {
        static const char *const tk[] = {"test", "bench", NULL};
        double *outs[] = {&lab->timeout_test_s, &lab->timeout_bench_s};
        if (read_fractions(y, n, "timeout", tk, NULL, outs, 0, err))
            return -1;
        if (lab->timeout_test_s < 1 || lab->timeout_bench_s < 1)
            return cl_yaml_errf(y, n, err, "timeouts must be at least 1 second");
    }
    lab->nvcc_flags = dupstr("");
    if ((n = cl_yaml_get(y, root, "nvcc_flags"))) {
        if (cl_yaml_as_str(y, n, "nvcc_flags", &s, err))
            return -1;
        free(lab->nvcc_flags);
        lab->nvcc_flags = dupstr(s);
    }
    lab->arch_suffix = dupstr("");
    if ((n = cl_yaml_get(y, root, "arch_suffix"))) {
        if (cl_yaml_as_str(y, n, "arch_suffix", &s, err))
            return -1;
        if (strcmp(s, "") && strcmp(s, "a"))
            return cl_yaml_errf(y, n, err, "arch_suffix must be \"\" or \"a\"");
        free(lab->arch_suffix);
        lab->arch_suffix = dupstr(s);
    }
    if ((n = cl_yaml_get(y, root, "banned"))) {
        static const char *const bk[] = {"headers", "libraries", NULL};
        if (cl_yaml_check_keys(y, n, bk, err))
            return -1;
        cl_ynode *h = cl_yaml_get(y, n, "headers"), *l = cl_yaml_get(y, n, "libraries");
        if (h && read_str_list(y, h, "banned.headers", lab->banned_headers, CL_MAX_BANNED,
                               &lab->nbanned_headers, err))
            return -1;
        if (l && read_str_list(y, l, "banned.libraries", lab->banned_libs, CL_MAX_BANNED,
                               &lab->nbanned_libs, err))
            return -1;
    }
    return 0;
}

/* How a run becomes points: the tiers (fractions of the ceiling), the weights, and how the
 * bench cases are aggregated. */
static int read_score(cl_yaml *y, cl_ynode *root, cl_lab *lab, cl_err *err)
{
    cl_ynode *n;
    const char *s;
    static const char *const tiers[] = {"pass", "good", "excellent", NULL};
    double *touts[] = {&lab->tier_pass, &lab->tier_good, &lab->tier_excellent};
    if (!(n = cl_yaml_need(y, root, "tiers", err)) || read_fractions(y, n, "tiers", tiers, NULL, touts, 1, err))
        return -1;
    if (!(lab->tier_pass > 0 && lab->tier_pass <= lab->tier_good && lab->tier_good <= lab->tier_excellent))
        return cl_yaml_errf(y, n, err, "tiers must satisfy 0 < pass <= good <= excellent");
    static const char *const weights[] = {"correctness", "pass", "good", "excellent", NULL};
    static const char *const score_keys[] = {"correctness", "pass", "good", "excellent", "aggregate", NULL};
    double *wouts[] = {&lab->w_correct, &lab->w_pass, &lab->w_good, &lab->w_excellent};
    if (!(n = cl_yaml_need(y, root, "score", err)) ||
        read_fractions(y, n, "score", weights, score_keys, wouts, 0, err))
        return -1;
    lab->aggregate = CL_AGG_GEOMEAN;
    cl_ynode *agg = cl_yaml_get(y, n, "aggregate");
    if (agg) {
        if (cl_yaml_as_str(y, agg, "score.aggregate", &s, err))
            return -1;
        if (!strcmp(s, "slowest")) lab->aggregate = CL_AGG_SLOWEST;
        else if (strcmp(s, "geomean"))
            return cl_yaml_errf(y, agg, err, "score.aggregate must be geomean or slowest, not '%s'", s);
    }
    if (!(lab->w_pass <= lab->w_good && lab->w_good <= lab->w_excellent))
        return cl_yaml_errf(y, n, err, "score weights must satisfy pass <= good <= excellent");
    return 0;
}

/* The hints `cudalab hint` gives, in order (optional). */
static int read_hints(cl_yaml *y, cl_ynode *n, cl_lab *lab, cl_err *err)
{
    if (!cl_yaml_is_seq(n))
        return cl_yaml_errf(y, n, err, "'hints' must be a list of {en, zh}");
    size_t len = cl_yaml_seq_len(n);
    if ((int)len > CL_MAX_HINTS)
        return cl_yaml_errf(y, n, err, "too many hints (at most %d)", CL_MAX_HINTS);
    for (size_t i = 0; i < len; i++)
        if (read_text(y, cl_yaml_seq_at(y, n, i), "hint", &lab->hints[lab->nhints++], err))
            return -1;
    return 0;
}

/* lab.yaml, top to bottom: what the lab is, how it is measured, built and run, its cases,
 * how it is scored, its hints. */
static int parse_lab(cl_yaml *y, cl_lab *lab, cl_err *err)
{
    static const char *const top[] = {"name", "title", "difficulty", "topics", "entry", "signature",
                                      "metric", "ceiling", "timeout", "nvcc_flags", "arch_suffix",
                                      "banned", "tolerance", "cases", "bench", "tiers", "score",
                                      "hints", NULL};
    cl_ynode *root = cl_yaml_root(y), *n;
    if (!cl_yaml_is_map(root))
        return cl_yaml_errf(y, root, err, "lab.yaml must be a mapping");
    if (cl_yaml_check_keys(y, root, top, err))
        return -1;
    if (read_identity(y, root, lab, err) || read_metric(y, root, lab, err) || read_build(y, root, lab, err))
        return -1;
    if ((n = cl_yaml_get(y, root, "tolerance")) && read_tolerance(y, n, lab, err))
        return -1;
    if (!(n = cl_yaml_need(y, root, "cases", err)) || read_cases(y, n, 0, lab, err))
        return -1;
    if (!(n = cl_yaml_need(y, root, "bench", err)) || read_cases(y, n, 1, lab, err))
        return -1;
    if (read_score(y, root, lab, err))
        return -1;
    if ((n = cl_yaml_get(y, root, "hints")) && read_hints(y, n, lab, err))
        return -1;
    return 0;
}

int cl_lab_load_file(const char *path, cl_lab *lab, cl_err *err)
{
    memset(lab, 0, sizeof *lab);
    snprintf(lab->path, sizeof lab->path, "%s", path);
    snprintf(lab->dir, sizeof lab->dir, "%s", path);
    char *slash = strrchr(lab->dir, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(lab->dir, sizeof lab->dir, ".");
    cl_yaml y;
    if (cl_yaml_load_file(&y, path, err))
        return -1;
    int rc = parse_lab(&y, lab, err);
    cl_yaml_free(&y);
    if (rc)
        cl_lab_free(lab);
    return rc;
}

int cl_lab_load(const char *home, const char *name, cl_lab *lab, cl_err *err)
{
    char path[CL_PATH_MAX];
    snprintf(path, sizeof path, "%s/labs/%s/lab.yaml", home, name);
    if (!cl_file_exists(path))
        return cl_err_set(err, "no lab named '%s' (no %s)", name, path);
    if (cl_lab_load_file(path, lab, err))
        return -1;
    if (strcmp(lab->name, name)) {
        cl_err_set(err, "%s: name '%s' does not match its folder '%s'", path, lab->name, name);
        cl_lab_free(lab);
        return -1;
    }
    return 0;
}

static void free_text(cl_text *t) { free(t->en); free(t->zh); }

void cl_lab_free(cl_lab *lab)
{
    free(lab->name);
    free_text(&lab->title);
    for (int i = 0; i < lab->ntopics; i++) free(lab->topics[i]);
    free(lab->entry);
    free(lab->signature);
    free(lab->arch_suffix);
    free(lab->nvcc_flags);
    for (int i = 0; i < lab->nbanned_headers; i++) free(lab->banned_headers[i]);
    for (int i = 0; i < lab->nbanned_libs; i++) free(lab->banned_libs[i]);
    for (int i = 0; i < lab->ntols; i++) { free(lab->tols[i].key); free(lab->tols[i].why); }
    for (int i = 0; i < lab->ncases; i++) {
        free(lab->cases[i].name);
        for (int k = 0; k < lab->cases[i].nparams; k++) {
            free(lab->cases[i].params[k].key);
            free(lab->cases[i].params[k].value);
        }
    }
    for (int i = 0; i < lab->nhints; i++) free_text(&lab->hints[i]);
    char dir[sizeof lab->dir], path[sizeof lab->path];
    memcpy(dir, lab->dir, sizeof dir);
    memcpy(path, lab->path, sizeof path);
    memset(lab, 0, sizeof *lab);
    memcpy(lab->dir, dir, sizeof dir);
    memcpy(lab->path, path, sizeof path);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int cl_lab_names(const char *home, char ***names, int *count, cl_err *err)
{
    char dir[CL_PATH_MAX];
    snprintf(dir, sizeof dir, "%s/labs", home);
    DIR *d = opendir(dir);
    *names = NULL;
    *count = 0;
    if (!d)
        return cl_err_set(err, "cannot open %s (is CUDALAB_HOME right?)", dir);
    struct dirent *e;
    int cap = 0;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char yaml[CL_PATH_MAX];
        snprintf(yaml, sizeof yaml, "%s/%s/lab.yaml", dir, e->d_name);
        if (!cl_file_exists(yaml))
            continue;
        if (*count == cap) {
            cap = cap ? cap * 2 : 16;
            *names = realloc(*names, (size_t)cap * sizeof **names);
        }
        (*names)[(*count)++] = strdup(e->d_name);
    }
    closedir(d);
    if (*count)
        qsort(*names, (size_t)*count, sizeof **names, cmp_str);
    return 0;
}

void cl_lab_names_free(char **names, int count)
{
    for (int i = 0; i < count; i++) free(names[i]);
    free(names);
}

const cl_tol_conf *cl_lab_tol(const cl_lab *lab, const char *key)
{
    for (int i = 0; i < lab->ntols; i++)
        if (!strcmp(lab->tols[i].key, key))
            return &lab->tols[i];
    return NULL;
}

const char *cl_case_param(const cl_case_conf *c, const char *key)
{
    for (int i = 0; i < c->nparams; i++)
        if (!strcmp(c->params[i].key, key))
            return c->params[i].value;
    return NULL;
}

const char *cl_metric_name(cl_metric m)
{
    switch (m) {
    case CL_METRIC_BANDWIDTH: return "bandwidth";
    case CL_METRIC_TFLOPS: return "tflops";
    case CL_METRIC_THROUGHPUT: return "throughput";
    default: return "time";
    }
}

const char *cl_ceiling_name(cl_ceiling c)
{
    switch (c) {
    case CL_CEIL_COPY: return "copy bandwidth";
    case CL_CEIL_READ: return "read-only bandwidth";
    case CL_CEIL_WRITE: return "write-only bandwidth";
    case CL_CEIL_CUBLAS: return "cuBLAS";
    default: return "reference";
    }
}

int cl_ceiling_is_bandwidth(cl_ceiling c) { return c == CL_CEIL_COPY || c == CL_CEIL_READ || c == CL_CEIL_WRITE; }

double cl_lab_max_score(const cl_lab *lab) { return lab->w_correct + lab->w_excellent; }

/* ---- lint ---- */

static void lint_report(void (*report)(void *, const char *), void *ctx, int *problems, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void lint_report(void (*report)(void *, const char *), void *ctx, int *problems, const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    report(ctx, msg);
    (*problems)++;
}

int cl_lab_lint_all(const char *home, void (*report)(void *ctx, const char *msg), void *ctx)
{
    int problems = 0, count;
    char **names, grader_dir[CL_PATH_MAX];
    cl_err err;
    /* an installed tree has no checker sources (they are compiled into the runner) */
    snprintf(grader_dir, sizeof grader_dir, "%s/grader/labs", home);
    int have_sources = cl_dir_exists(grader_dir);
    if (cl_lab_names(home, &names, &count, &err)) {
        lint_report(report, ctx, &problems, "%s", err.msg);
        return problems;
    }
    for (int i = 0; i < count; i++) {
        const char *n = names[i];
        cl_lab lab;
        if (cl_lab_load(home, n, &lab, &err)) {
            lint_report(report, ctx, &problems, "%s", err.msg);
        } else {
            if (lab.nhints == 0)
                lint_report(report, ctx, &problems, "%s:1:1: no hints", lab.path);
            cl_lab_free(&lab);
        }
        const char *parts[][2] = {{"labs/%s/%s.cu", "skeleton"}, {"labs/%s/README.md", "README"},
                                  {"reference/%s.cu", "reference"}, {"grader/labs/%s.c", "checker"}};
        for (size_t p = 0; p < sizeof parts / sizeof parts[0]; p++) {
            char rel[512], path[CL_PATH_MAX];
            if (strstr(parts[p][0], "%s/%s"))
                snprintf(rel, sizeof rel, parts[p][0], n, n);
            else
                snprintf(rel, sizeof rel, parts[p][0], n);
            snprintf(path, sizeof path, "%s/%s", home, rel);
            if (p == 3 && !have_sources)
                continue;
            if (!cl_file_exists(path))
                lint_report(report, ctx, &problems, "%s: lab '%s' has no %s (%s)", path, n, parts[p][1], rel);
        }
    }
    cl_lab_names_free(names, count);
    return problems;
}
