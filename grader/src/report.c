/* report.c: the three faces of a result: terminal text, JSON and JUnit XML. */
#include "grader/report.h"
#include "grader/mismatch.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "paths.h"
#include "strbuf.h"
#include "i18n.h"
#include "term.h"

/* ---- JSON ---- */

static void set_str(json_t *o, const char *k, const char *v)
{
    if (!v)
        return;
    char *copy = strdup(v);
    if (!copy)
        return;
    cl_utf8_scrub(copy); /* a solution's output may be any bytes */
    json_object_set_new(o, k, json_string(copy));
    free(copy);
}

static void set_num(json_t *o, const char *k, double v)
{
    if (isfinite(v))
        json_object_set_new(o, k, json_real(v));
    else
        json_object_set_new(o, k, json_string(isnan(v) ? "nan" : v > 0 ? "inf" : "-inf"));
}

static json_t *case_to_json(const cl_case_result *c)
{
    json_t *o = json_object();
    set_str(o, "name", c->name);
    set_str(o, "kind", c->bench ? "bench" : "test");
    set_str(o, "status", c->status);
    set_str(o, "message", c->message);
    set_str(o, "where", c->where);
    if (c->has_values) {
        set_num(o, "expected", c->expected);
        set_num(o, "got", c->got);
    }
    if (c->mismatch)
        json_object_set_new(o, "mismatch", json_loads(c->mismatch, 0, NULL));
    set_str(o, "shape", c->shape);
    set_str(o, "scaled", c->scaled);
    if (c->bench && c->runs) {
        json_t *b = json_object();
        json_object_set_new(b, "runs", json_integer(c->runs));
        json_object_set_new(b, "batches", json_integer(c->batches));
        set_num(b, "median_ms", c->median_ms);
        set_num(b, "min_ms", c->min_ms);
        set_num(b, "max_ms", c->max_ms);
        set_num(b, "p10_ms", c->p10_ms);
        set_num(b, "p90_ms", c->p90_ms);
        set_num(b, "event_median_ms", c->event_median_ms);
        set_num(b, "bracket_median_ms", c->bracket_median_ms);
        set_num(b, "clock_offset_ms", c->clock_offset_ms);
        json_object_set_new(b, "off_stream_runs", json_integer(c->off_stream_runs));
        json_object_set_new(b, "voided_runs", json_integer(c->voided_runs));
        set_num(b, "bytes", c->bytes);
        set_num(b, "flops", c->flops);
        if (c->items > 0) {
            set_num(b, "items", c->items);
            set_str(b, "items_unit", c->items_unit);
        }
        set_num(b, "metric", c->metric);
        set_num(b, "ceiling", c->ceiling);
        set_num(b, "fraction", c->fraction);
        if (c->ref_ms > 0) {
            set_num(b, "reference_ms", c->ref_ms);
            set_num(b, "vs_reference", c->ref_ratio);
        }
        set_str(b, "tier", c->tier);
        json_object_set_new(b, "off_stream", json_boolean(c->off_stream));
        if (c->off_stream_why)
            json_object_set_new(b, "off_stream_why", json_string(c->off_stream_why));
        json_object_set_new(o, "bench", b);
    } else if (!c->bench) {
        set_num(o, "ms", c->ms);
    }
    return o;
}

json_t *cl_result_to_json(const cl_result *r)
{
    json_t *o = json_object();
    set_str(o, "lab", r->lab);
    set_str(o, "title", r->title);
    set_str(o, "title_zh", r->title_zh[0] ? r->title_zh : NULL);
    set_str(o, "metric", cl_metric_name((cl_metric)r->metric));
    set_str(o, "solution", r->solution);
    json_object_set_new(o, "seed", json_integer((json_int_t)r->seed));
    set_str(o, "verdict", cl_verdict_name(r->verdict));
    set_str(o, "message", r->message);
    set_str(o, "detail", r->detail);
    set_num(o, "score", r->score);
    set_num(o, "max_score", r->max_score);
    set_str(o, "tier", r->tier);
    json_object_set_new(o, "passed", json_integer(r->passed));
    json_object_set_new(o, "total", json_integer(r->total));
    json_t *comp = json_object();
    json_object_set_new(comp, "ok", json_boolean(r->compiled));
    json_object_set_new(comp, "cached", json_boolean(r->compile_cached));
    set_num(comp, "seconds", r->compile_s);
    set_str(comp, "arch", r->arch[0] ? r->arch : NULL);
    set_str(comp, "log", r->compile_log);
    json_object_set_new(o, "compile", comp);
    if (r->tensor_cores >= 0)
        json_object_set_new(o, "tensor_cores", json_boolean(r->tensor_cores));
    if (r->gpu[0]) {
        json_t *d = json_object();
        set_str(d, "name", r->gpu);
        set_str(d, "uuid", r->gpu_uuid);
        if (r->copy_gbps > 0)
            set_num(d, "copy_gbps", r->copy_gbps);
        if (r->read_gbps > 0)
            set_num(d, "read_gbps", r->read_gbps);
        if (r->write_gbps > 0)
            set_num(d, "write_gbps", r->write_gbps);
        if (r->fp16_tflops > 0)
            set_num(d, "fp16_tflops", r->fp16_tflops);
        json_object_set_new(o, "device", d);
    }
    if (r->did_bench && r->tier) {
        /* how the bench cases became the score (docs/grading-policy.md) */
        json_t *p = json_object();
        set_str(p, "ceiling", cl_ceiling_name((cl_ceiling)r->ceiling));
        set_str(p, "aggregate", r->aggregate == CL_AGG_SLOWEST ? "slowest" : "geomean");
        set_num(p, "fraction", r->perf_fraction);
        set_num(p, "points", r->perf_points);
        set_str(p, "tier", r->tier);
        if (r->limiting_case >= 0 && r->limiting_case < r->ncases)
            set_str(p, "limited_by", r->cases[r->limiting_case].name);
        json_object_set_new(o, "performance", p);
    }
    json_t *cases = json_array();
    for (int i = 0; i < r->ncases; i++)
        json_array_append_new(cases, case_to_json(&r->cases[i]));
    json_object_set_new(o, "cases", cases);
    json_t *libs = json_array();
    for (int i = 0; i < r->nlibs; i++)
        json_array_append_new(libs, json_string(r->libs[i]));
    json_object_set_new(o, "libraries_loaded", libs);
    set_str(o, "sanitizer", r->sanitizer);
    set_str(o, "output", r->output);
    set_num(o, "seconds", r->seconds);
    if (r->test_s > 0)
        set_num(o, "test_seconds", r->test_s);
    if (r->bench_s > 0)
        set_num(o, "bench_seconds", r->bench_s);
    json_object_set_new(o, "cudalab_version", json_string(CUDALAB_VERSION));
    json_object_set_new(o, "graded_at", json_integer((json_int_t)time(NULL)));
    return o;
}

/* ---- JSON back to a result (the classroom keeps reports as JSON) ---- */

static char *jdup(json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? strdup(s) : NULL;
}

static double jnum(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    const char *t = json_string_value(v); /* set_num writes non-finite numbers as text */
    if (t)
        return !strcmp(t, "nan") ? NAN : !strcmp(t, "inf") ? INFINITY : !strcmp(t, "-inf") ? -INFINITY : 0;
    return json_is_number(v) ? json_number_value(v) : 0;
}

/* The tier's static name, the verdict table's (results point at these). */
static const char *tier_named(const char *t)
{
    cl_verdict v = cl_verdict_from_name(t);
    return v >= CL_V_SLOW && cl_verdict_is(t, v) ? cl_verdict_name(v) : NULL;
}

/* A case's mismatch report as compact JSON text: an object, and bounded (the judge's is a
 * few KiB; anything larger is not the judge's and is dropped). */
#define MISMATCH_MAX_BYTES 16384
static char *mismatch_text(const json_t *m)
{
    if (!json_is_object(m))
        return NULL;
    char *s = json_dumps(m, JSON_COMPACT | JSON_SORT_KEYS);
    if (s && strlen(s) > MISMATCH_MAX_BYTES) {
        free(s);
        return NULL;
    }
    if (s)
        cl_utf8_scrub(s);
    return s;
}

void cl_case_from_json(json_t *c, cl_case_result *cr)
{
    memset(cr, 0, sizeof *cr);
    cr->name = jdup(c, "name");
    const char *kind = json_string_value(json_object_get(c, "kind"));
    cr->bench = kind && !strcmp(kind, "bench");
    cr->status = jdup(c, "status");
    cr->message = jdup(c, "message");
    cr->where = jdup(c, "where");
    cr->has_values = json_object_get(c, "expected") != NULL;
    cr->expected = jnum(c, "expected");
    cr->got = jnum(c, "got");
    cr->mismatch = mismatch_text(json_object_get(c, "mismatch"));
    cr->shape = jdup(c, "shape");
    cr->scaled = jdup(c, "scaled");
    cr->ms = jnum(c, "ms");
    json_t *b = json_object_get(c, "bench");
    if (!b)
        return;
    cr->runs = (int)json_integer_value(json_object_get(b, "runs"));
    cr->batches = (int)json_integer_value(json_object_get(b, "batches"));
    cr->off_stream = json_is_true(json_object_get(b, "off_stream"));
    const char *why = json_string_value(json_object_get(b, "off_stream_why"));
    cr->off_stream_why = why ? strdup(why) : NULL;
    cr->median_ms = jnum(b, "median_ms");
    cr->min_ms = jnum(b, "min_ms");
    cr->max_ms = jnum(b, "max_ms");
    cr->p10_ms = jnum(b, "p10_ms");
    cr->p90_ms = jnum(b, "p90_ms");
    cr->event_median_ms = jnum(b, "event_median_ms");
    cr->bracket_median_ms = jnum(b, "bracket_median_ms");
    cr->clock_offset_ms = jnum(b, "clock_offset_ms");
    cr->off_stream_runs = (int)json_integer_value(json_object_get(b, "off_stream_runs"));
    cr->voided_runs = (int)json_integer_value(json_object_get(b, "voided_runs"));
    cr->bytes = jnum(b, "bytes");
    cr->flops = jnum(b, "flops");
    cr->items = jnum(b, "items");
    cr->items_unit = jdup(b, "items_unit");
    json_t *d = json_object_get(b, "dims");
    for (size_t k = 0; k < json_array_size(d) && k < 4; k++)
        cr->dims[cr->ndims++] = (long long)json_integer_value(json_array_get(d, k));
    /* what the grader derived (reports only; the runner's lines have none of it) */
    cr->metric = jnum(b, "metric");
    cr->ceiling = jnum(b, "ceiling");
    cr->fraction = jnum(b, "fraction");
    cr->ref_ms = jnum(b, "reference_ms");
    cr->ref_ratio = jnum(b, "vs_reference");
    cr->tier = tier_named(json_string_value(json_object_get(b, "tier")));
}

void cl_result_from_json(json_t *j, cl_result *r)
{
    cl_result_init(r);
    if (!j)
        return;
    const char *s;
    if ((s = json_string_value(json_object_get(j, "lab"))))
        snprintf(r->lab, sizeof r->lab, "%s", s);
    if ((s = json_string_value(json_object_get(j, "title"))))
        snprintf(r->title, sizeof r->title, "%s", s);
    if ((s = json_string_value(json_object_get(j, "title_zh"))))
        snprintf(r->title_zh, sizeof r->title_zh, "%s", s);
    if ((s = json_string_value(json_object_get(j, "solution"))))
        snprintf(r->solution, sizeof r->solution, "%s", s);
    const char *metric = json_string_value(json_object_get(j, "metric"));
    r->metric = metric && !strcmp(metric, "tflops") ? CL_METRIC_TFLOPS
                : metric && !strcmp(metric, "throughput") ? CL_METRIC_THROUGHPUT
                : metric && !strcmp(metric, "time") ? CL_METRIC_TIME
                                                    : CL_METRIC_BANDWIDTH;
    r->seed = (uint64_t)json_integer_value(json_object_get(j, "seed"));
    r->verdict = cl_verdict_from_name(json_string_value(json_object_get(j, "verdict")));
    r->message = jdup(j, "message");
    r->detail = jdup(j, "detail");
    r->score = jnum(j, "score");
    r->max_score = jnum(j, "max_score");
    r->passed = (int)json_integer_value(json_object_get(j, "passed"));
    r->total = (int)json_integer_value(json_object_get(j, "total"));
    json_t *comp = json_object_get(j, "compile");
    r->compiled = json_is_true(json_object_get(comp, "ok"));
    r->compile_s = jnum(comp, "seconds");
    r->compile_log = jdup(comp, "log");
    if ((s = json_string_value(json_object_get(comp, "arch"))))
        snprintf(r->arch, sizeof r->arch, "%s", s);
    json_t *dev = json_object_get(j, "device");
    if ((s = json_string_value(json_object_get(dev, "name"))))
        snprintf(r->gpu, sizeof r->gpu, "%s", s);
    r->copy_gbps = jnum(dev, "copy_gbps");
    r->read_gbps = jnum(dev, "read_gbps");
    r->write_gbps = jnum(dev, "write_gbps");
    r->fp16_tflops = jnum(dev, "fp16_tflops");
    r->output = jdup(j, "output");
    r->sanitizer = jdup(j, "sanitizer");
    r->seconds = jnum(j, "seconds");
    r->test_s = jnum(j, "test_seconds");
    r->bench_s = jnum(j, "bench_seconds");
    r->tier = tier_named(json_string_value(json_object_get(j, "tier")));
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(j, "cases"), i, c) {
        if (r->ncases >= CL_MAX_CASES)
            break;
        cl_case_from_json(c, &r->cases[r->ncases++]);
    }
    json_t *perf = json_object_get(j, "performance");
    if (perf) {
        r->did_bench = 1;
        r->perf_fraction = jnum(perf, "fraction");
        r->perf_points = jnum(perf, "points");
        const char *agg = json_string_value(json_object_get(perf, "aggregate"));
        r->aggregate = agg && !strcmp(agg, "slowest") ? CL_AGG_SLOWEST : CL_AGG_GEOMEAN;
        const char *ceil = json_string_value(json_object_get(perf, "ceiling"));
        for (int k = CL_CEIL_COPY; k <= CL_CEIL_WRITE && ceil; k++)
            if (!strcmp(ceil, cl_ceiling_name((cl_ceiling)k)))
                r->ceiling = k;
        const char *lim = json_string_value(json_object_get(perf, "limited_by"));
        for (int k = 0; k < r->ncases && lim; k++)
            if (r->cases[k].name && !strcmp(r->cases[k].name, lim))
                r->limiting_case = k;
    }
}

/* ---- text ---- */

static cl_color verdict_color(cl_verdict v)
{
    if (v >= CL_V_PASS || v == CL_V_CORRECT) return CL_GREEN;
    if (v == CL_V_SLOW || v == CL_V_NO_DEVICE) return CL_YELLOW;
    return CL_RED;
}

static void fmt_metric(const cl_result *r, const cl_case_result *c, char *out, size_t n)
{
    double s = c->median_ms * 1e-3;
    switch (r->metric) {
    case CL_METRIC_BANDWIDTH: snprintf(out, n, "%.0f GB/s", c->bytes / s / 1e9); break;
    case CL_METRIC_TFLOPS: snprintf(out, n, "%.1f TFLOP/s", c->flops / s / 1e12); break;
    case CL_METRIC_THROUGHPUT:
        snprintf(out, n, "%.3g %s/s", c->items / s, c->items_unit && *c->items_unit ? c->items_unit : "items");
        break;
    default: snprintf(out, n, "%.3f ms", c->median_ms); break;
    }
}

static void print_output_tail(const cl_result *r, FILE *f)
{
    if (!r->output || !*r->output)
        return;
    size_t len = strlen(r->output);
    const char *start = len > 1500 ? r->output + len - 1500 : r->output;
    fprintf(f, CL_T("  %soutput of the solution%s%s:\n"), cl_c(f, CL_DIM), len > 1500 ? CL_T(" (last 1500 bytes)") : "",
            cl_c0(f));
    for (const char *p = start; *p;) {
        const char *eol = strchr(p, '\n');
        int n = eol ? (int)(eol - p) : (int)strlen(p);
        fprintf(f, "    %.*s\n", n, p);
        p += n + (eol ? 1 : 0);
    }
}

/* One line: the aggregated fraction, the points it earned, and the case that holds the
 * score down (the slowest one below the excellent tier). */
static void print_perf_summary(const cl_result *r, FILE *f)
{
    const char *D = cl_c(f, CL_DIM), *Z = cl_c0(f);
    fprintf(f, CL_T("    %s%s:%s %.1f%% of %s"), D,
            r->aggregate == CL_AGG_SLOWEST ? CL_T("slowest case") : CL_T("geometric mean"), Z, r->perf_fraction * 100,
            CL_T(cl_ceiling_name((cl_ceiling)r->ceiling)));
    /* An excellent aggregate is the tier's threshold itself (score.c caps every case there),
     * so where a case went past it, say the number is the cap and not the kernel's speed */
    int capped = 0;
    if (r->tier && cl_verdict_from_name(r->tier) == CL_V_EXCELLENT)
        for (int i = 0; i < r->ncases; i++)
            capped |= r->cases[i].bench && r->cases[i].tier && r->cases[i].fraction > r->perf_fraction + 1e-9;
    if (capped)
        fprintf(f, "%s", CL_T(" (each case counted up to the excellent tier)"));
    if (r->perf_points > 0 || r->score > 0)
        fprintf(f, CL_T(" -> %.1f performance points"), r->perf_points);
    if (r->limiting_case >= 0 && r->limiting_case < r->ncases) {
        const cl_case_result *c = &r->cases[r->limiting_case];
        fprintf(f, CL_T("; held down by '%s' (%.1f%%, %s)"), c->name, c->fraction * 100, c->tier ? CL_T(c->tier) : "-");
    }
    fputc('\n', f);
}

/* The title line, the compile step and the Tensor Core check. */
static void print_build(const cl_result *r, FILE *f)
{
    const char *B = cl_c(f, CL_BOLD), *D = cl_c(f, CL_DIM), *R = cl_c(f, CL_RED), *G = cl_c(f, CL_GREEN),
               *Z = cl_c0(f);
    fprintf(f, CL_T("%s%s%s  %s   %sseed %llu%s\n"), B, r->lab, Z, cl_result_title(r), D, (unsigned long long)r->seed,
            Z);
    if (r->compiled && r->arch[0])
        fprintf(f, CL_T("  compile      %sok%s  %s%s\n"), G, Z, r->arch, r->compile_cached ? CL_T(" (cached)") : "");
    if (r->verdict == CL_V_COMPILE_ERROR && r->detail) {
        fprintf(f, CL_T("  compile      %sfailed%s\n"), R, Z);
        fputs(r->detail, f);
        if (r->detail[0] && r->detail[strlen(r->detail) - 1] != '\n')
            fputc('\n', f);
    }
    if (r->tensor_cores >= 0)
        fprintf(f, CL_T("  tensor cores %s%s%s\n"), r->tensor_cores ? G : R,
                r->tensor_cores ? CL_T("HMMA/HGMMA instructions present") : CL_T("none: no HMMA/HGMMA instructions"), Z);
}

/* The correctness cases: the count, and each failing one (every one with verbose). */
static void print_correctness(const cl_result *r, FILE *f, int verbose)
{
    const char *D = cl_c(f, CL_DIM), *R = cl_c(f, CL_RED), *G = cl_c(f, CL_GREEN), *Z = cl_c0(f);
    if (r->total <= 0)
        return;
    fprintf(f, CL_T("  correctness  %s%d/%d%s cases passed\n"), r->passed == r->total ? G : R, r->passed, r->total, Z);
    int reported = 0;
    for (int i = 0; i < r->ncases; i++) {
        const cl_case_result *c = &r->cases[i];
        if (c->bench)
            continue;
        int ok = cl_case_passed(c->status);
        if (ok && !verbose)
            continue;
        fprintf(f, "    %s", ok ? G : R);
        cl_fput_padded(ok ? CL_T("ok") : CL_T("FAIL"), 4, f);
        fprintf(f, "%s %s", Z, c->name);
        if (c->shape && verbose)
            fprintf(f, " %s(%s)%s", D, c->shape, Z);
        if (!ok) {
            fprintf(f, ": %s", c->message ? c->message : c->status);
            if (c->has_values)
                fprintf(f, CL_T("\n         at %s: expected %.9g, got %.9g"), c->where ? c->where : "?", c->expected,
                        c->got);
        }
        fputc('\n', f);
        if (!ok && c->mismatch) { /* in full for the first failing case (all with --verbose) */
            json_t *m = json_loads(c->mismatch, 0, NULL);
            cl_mismatch_print(m, "         ", !verbose && reported++, f);
            json_decref(m);
        }
        if (c->scaled && (verbose || !ok))
            fprintf(f, "         %s%s%s\n", D, c->scaled, Z);
    }
}

/* The bench cases, one row each, then the score's summary line. */
static void print_performance(const cl_result *r, FILE *f)
{
    const char *D = cl_c(f, CL_DIM), *R = cl_c(f, CL_RED), *G = cl_c(f, CL_GREEN), *Z = cl_c0(f);
    int header = 0;
    for (int i = 0; i < r->ncases; i++) {
        const cl_case_result *c = &r->cases[i];
        if (!c->bench)
            continue;
        if (!header) {
            fprintf(f, CL_T("  performance  %s"), r->gpu);
            double bw = r->ceiling == CL_CEIL_READ ? r->read_gbps : r->ceiling == CL_CEIL_WRITE ? r->write_gbps
                                                                                               : r->copy_gbps;
            if (bw > 0 && (r->ceiling == CL_CEIL_COPY || r->ceiling == CL_CEIL_READ || r->ceiling == CL_CEIL_WRITE))
                fprintf(f, " %s(%s %.0f GB/s)%s", D, CL_T(cl_ceiling_name((cl_ceiling)r->ceiling)), bw, Z);
            /* the column titles padded by display width, so Chinese titles align with the rows */
            const char *titles[] = {CL_T("case"), CL_T("median [min - max] ms"), CL_T("metric"), CL_T("of ceiling"),
                                    CL_T("vs ref")};
            const int widths[] = {22, 26, 16, 10, 9};
            fprintf(f, "\n    %s", D);
            for (int k = 0; k < 5; k++) {
                cl_fput_padded(titles[k], widths[k], f);
                fputc(' ', f);
            }
            fprintf(f, "%s%s\n", CL_T("tier"), Z);
            header = 1;
        }
        if (c->runs == 0) {
            fprintf(f, "    %-22s %s%s%s: %s\n", c->name, R, c->status ? c->status : "?", Z, c->message ? c->message : "");
            continue;
        }
        char metric[64], range[64], frac[32] = "-", ref[32] = "-";
        fmt_metric(r, c, metric, sizeof metric);
        snprintf(range, sizeof range, "%.4g [%.4g - %.4g]", c->median_ms, c->min_ms, c->max_ms);
        if (c->ceiling > 0)
            snprintf(frac, sizeof frac, "%.1f%%", c->fraction * 100);
        if (c->ref_ms > 0)
            snprintf(ref, sizeof ref, "%.2fx", c->ref_ratio);
        const char *tc = cl_verdict_is(c->tier, CL_V_SLOW) ? R : G;
        fprintf(f, "    %-22s %-26s %-16s %-10s %-9s %s%s%s\n", c->name, range, metric, frac, ref, tc,
                c->tier ? CL_T(c->tier) : "-", Z);
        if (c->scaled)
            fprintf(f, "      %s%s%s\n", D, c->scaled, Z);
    }
    if (header && r->tier)
        print_perf_summary(r, f);
}

/* The output of a failed run, and the verdict and score lines. */
static void print_verdict(const cl_result *r, FILE *f)
{
    const char *B = cl_c(f, CL_BOLD), *D = cl_c(f, CL_DIM), *G = cl_c(f, CL_GREEN), *Z = cl_c0(f);
    if (!cl_verdict_ok(r->verdict) && r->verdict != CL_V_COMPILE_ERROR)
        print_output_tail(r, f);
    if (!r->did_test && r->verdict == CL_V_CORRECT) { /* cudalab compile */
        fprintf(f, CL_T("  result       %scompiled%s  %s\n"), G, Z, r->message ? cl_result_message(r) : "");
        return;
    }
    cl_strbuf v;
    cl_sb_init(&v);
    for (const char *p = cl_verdict_name(r->verdict); *p; p++)
        cl_sb_printf(&v, "%c", (*p >= 'a' && *p <= 'z') ? *p - 32 : *p == '_' ? ' ' : *p);
    if (cl_lang_current() == CL_LANG_ZH) { /* Chinese has no capitals: the verdict's own word */
        cl_sb_free(&v);
        cl_sb_init(&v);
        cl_sb_append(&v, CL_T(cl_verdict_name(r->verdict)));
    }
    fprintf(f, CL_T("  verdict      %s%s%s%s"), B, cl_c(f, verdict_color(r->verdict)), cl_sb_str(&v), Z);
    cl_sb_free(&v);
    if (r->message)
        fprintf(f, "  %s", cl_result_message(r));
    fputc('\n', f);
    if (r->did_test && r->max_score > 0 && r->verdict != CL_V_ERROR && r->verdict != CL_V_NO_DEVICE)
        fprintf(f, CL_T("  score        %.1f / %.0f   %s(reproduce with --seed %llu)%s\n"), r->score, r->max_score, D,
                (unsigned long long)r->seed, Z);
}

void cl_report_text(const cl_result *r, FILE *f, int verbose)
{
    print_build(r, f);
    print_correctness(r, f, verbose);
    if (r->sanitizer)
        fprintf(f, CL_T("  sanitizer\n%s"), r->sanitizer);
    print_performance(r, f);
    print_verdict(r, f);
}

/* ---- JUnit ---- */


static void junit_case(cl_strbuf *sb, const char *suite, const char *name, double secs, const char *failure_type,
                       const char *message, const char *body)
{
    cl_sb_append(sb, "    <testcase classname=\"");
    cl_sb_append_markup(sb, suite);
    cl_sb_append(sb, "\" name=\"");
    cl_sb_append_markup(sb, name);
    cl_sb_printf(sb, "\" time=\"%.3f\"", secs);
    if (!failure_type) {
        cl_sb_append(sb, "/>\n");
        return;
    }
    cl_sb_append(sb, ">\n      <failure type=\"");
    cl_sb_append_markup(sb, failure_type);
    cl_sb_append(sb, "\" message=\"");
    cl_sb_append_markup(sb, message ? message : failure_type);
    cl_sb_append(sb, "\">");
    cl_sb_append_markup(sb, body ? body : message);
    cl_sb_append(sb, "</failure>\n    </testcase>\n");
}

/* A wrong case's failure text: its message, then its mismatch report in full (English,
 * as the rest of the file). NULL when it has none. */
static char *junit_mismatch(const char *msg, const char *mismatch)
{
    json_t *m = mismatch ? json_loads(mismatch, 0, NULL) : NULL;
    if (!m)
        return NULL;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (f) {
        fprintf(f, "%s\n", msg);
        cl_mismatch_print_lang(m, "", CL_MM_FIRST, CL_LANG_EN, f);
        fclose(f);
    }
    json_decref(m);
    return buf;
}

/* A result that holds no grade (no GPU, cudalab failed): one skipped test that says why,
 * and no score, so no CI counts it as passed or as the solution's failure. */
static void junit_not_graded(cl_strbuf *body, const cl_result *r, const char *suite)
{
    cl_sb_append(body, "  <testsuite name=\"");
    cl_sb_append_markup(body, suite);
    cl_sb_printf(body, "\" tests=\"1\" failures=\"0\" errors=\"0\" skipped=\"1\" time=\"%.3f\">\n", r->seconds);
    cl_sb_printf(body, "    <properties><property name=\"max_score\" value=\"%.2f\"/>"
                       "<property name=\"verdict\" value=\"%s\"/></properties>\n",
                 r->max_score, cl_verdict_name(r->verdict));
    cl_sb_append(body, "    <testcase classname=\"");
    cl_sb_append_markup(body, suite);
    cl_sb_printf(body, "\" name=\"verdict\" time=\"%.3f\">\n      <skipped message=\"", r->seconds);
    cl_sb_append(body, "not graded, no score: ");
    cl_sb_append_markup(body, r->message ? r->message : cl_verdict_info_of(r->verdict)->meaning);
    cl_sb_append(body, "\"/>\n    </testcase>\n  </testsuite>\n");
}

/* One result's <testsuite>: compile, every case, the overall verdict. */
static void junit_suite(cl_strbuf *body, const cl_result *r, const char *suite, int *tests, int *failures)
{
    int st = 0, sf = 0;
    cl_strbuf cases;
    cl_sb_init(&cases);
    /* compile */
    st++;
    if (r->verdict == CL_V_COMPILE_ERROR || r->verdict == CL_V_BANNED || r->verdict == CL_V_MISSING_SYMBOL) {
        sf++;
        junit_case(&cases, suite, "compile", r->compile_s, cl_verdict_name(r->verdict), r->message,
                   r->detail ? r->detail : r->message);
    } else {
        junit_case(&cases, suite, "compile", r->compile_s, NULL, NULL, NULL);
    }
    for (int i = 0; i < r->ncases; i++) {
        const cl_case_result *c = &r->cases[i];
        char name[300];
        snprintf(name, sizeof name, "%s %s", c->bench ? "bench" : "test", c->name);
        st++;
        int ok = cl_case_passed(c->status);
        if (ok && c->bench && cl_verdict_is(c->tier, CL_V_SLOW))
            ok = 0;
        if (ok) {
            junit_case(&cases, suite, name, c->bench ? c->median_ms * 1e-3 : c->ms * 1e-3, NULL, NULL, NULL);
        } else {
            sf++;
            char msg[1024];
            if (c->has_values)
                snprintf(msg, sizeof msg, "%s (at %s: expected %.9g, got %.9g)", c->message ? c->message : "",
                         c->where ? c->where : "?", c->expected, c->got);
            else if (c->bench && c->tier)
                snprintf(msg, sizeof msg, "%.1f%% of the ceiling: below the pass tier", c->fraction * 100);
            else
                snprintf(msg, sizeof msg, "%s", c->message ? c->message : (c->status ? c->status : "failed"));
            char *body = junit_mismatch(msg, c->mismatch);
            junit_case(&cases, suite, name, c->ms * 1e-3, c->status ? c->status : "failed", msg, body ? body : msg);
            free(body);
        }
    }
    /* the overall verdict, so a crash or timeout with no case lines still fails */
    st++;
    if (cl_verdict_ok(r->verdict) && r->verdict != CL_V_SLOW) {
        junit_case(&cases, suite, "verdict", r->seconds, NULL, NULL, NULL);
    } else {
        sf++;
        junit_case(&cases, suite, "verdict", r->seconds, cl_verdict_name(r->verdict), r->message, r->output);
    }
    cl_sb_append(body, "  <testsuite name=\"");
    cl_sb_append_markup(body, suite);
    cl_sb_printf(body, "\" tests=\"%d\" failures=\"%d\" errors=\"0\" time=\"%.3f\">\n", st, sf, r->seconds);
    cl_sb_printf(body, "    <properties><property name=\"seed\" value=\"%llu\"/>"
                       "<property name=\"score\" value=\"%.2f\"/><property name=\"max_score\" value=\"%.2f\"/>"
                       "<property name=\"verdict\" value=\"%s\"/></properties>\n",
                 (unsigned long long)r->seed, r->score, r->max_score, cl_verdict_name(r->verdict));
    cl_sb_append(body, cl_sb_str(&cases));
    cl_sb_append(body, "  </testsuite>\n");
    cl_sb_free(&cases);
    *tests += st;
    *failures += sf;
}

int cl_report_junit(const cl_result *const *rs, const char *const *names, int n, const char *path, cl_err *err)
{
    int tests = 0, failures = 0, skipped = 0;
    cl_strbuf body;
    cl_sb_init(&body);
    for (int k = 0; k < n; k++) {
        const char *suite = names && names[k] ? names[k] : rs[k]->lab;
        if (cl_verdict_graded(rs[k]->verdict)) {
            junit_suite(&body, rs[k], suite, &tests, &failures);
        } else {
            junit_not_graded(&body, rs[k], suite);
            tests++;
            skipped++;
        }
    }
    cl_strbuf sb;
    cl_sb_init(&sb);
    cl_sb_printf(&sb, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"cudalab\" tests=\"%d\" "
                      "failures=\"%d\" errors=\"0\" skipped=\"%d\">\n",
                 tests, failures, skipped);
    cl_sb_append(&sb, cl_sb_str(&body));
    cl_sb_append(&sb, "</testsuites>\n");
    cl_sb_free(&body);
    int rc = cl_write_file_atomic(path, sb.data, sb.len, err);
    cl_sb_free(&sb);
    return rc;
}
