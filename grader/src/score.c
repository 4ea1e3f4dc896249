/* score.c: metrics, fractions of the ceiling, tiers, points (docs/grading-policy.md). */
#include "grader/score.h"

#include <math.h>
#include <string.h>

const char *cl_tier_for(const cl_lab *lab, double f)
{
    /* a tier is spelled as the verdict it earns */
    if (f >= lab->tier_excellent) return cl_verdict_name(CL_V_EXCELLENT);
    if (f >= lab->tier_good) return cl_verdict_name(CL_V_GOOD);
    if (f >= lab->tier_pass) return cl_verdict_name(CL_V_PASS);
    return cl_verdict_name(CL_V_SLOW);
}

double cl_lab_bandwidth(const cl_lab *lab, const cl_result *r)
{
    switch (lab->ceiling) {
    case CL_CEIL_COPY: return r->copy_gbps;
    case CL_CEIL_READ: return r->read_gbps;
    case CL_CEIL_WRITE: return r->write_gbps;
    default: return 0;
    }
}

/* Linear from (x0, y0) to (x1, y1), at x; y1 when the segment has no width. */
static double lerp(double x, double x0, double y0, double x1, double y1)
{
    return x1 > x0 ? y0 + (y1 - y0) * (x - x0) / (x1 - x0) : y1;
}

double cl_perf_points(const cl_lab *lab, double f)
{
    if (!(f > 0))
        return 0;
    if (f >= lab->tier_excellent)
        return lab->w_excellent;
    if (f >= lab->tier_good)
        return lerp(f, lab->tier_good, lab->w_good, lab->tier_excellent, lab->w_excellent);
    if (f >= lab->tier_pass)
        return lerp(f, lab->tier_pass, lab->w_pass, lab->tier_good, lab->w_good);
    return lerp(f, 0, 0, lab->tier_pass, lab->w_pass);
}

void cl_score_bench(const cl_lab *lab, cl_result *r)
{
    double bandwidth = cl_lab_bandwidth(lab, r);
    double log_sum = 0, slowest = 0;
    int counted = 0;
    r->limiting_case = -1;
    r->perf_fraction = 0;
    r->tier = NULL;
    r->ceiling = (int)lab->ceiling;
    r->aggregate = (int)lab->aggregate;
    for (int i = 0; i < r->ncases; i++) {
        cl_case_result *c = &r->cases[i];
        if (!c->bench || c->median_ms <= 0)
            continue;
        double s = c->median_ms * 1e-3;
        switch (lab->metric) {
        case CL_METRIC_BANDWIDTH: c->metric = c->bytes / s / 1e9; break;
        case CL_METRIC_TFLOPS: c->metric = c->flops / s / 1e12; break;
        case CL_METRIC_THROUGHPUT: c->metric = c->items / s; break;
        default: c->metric = c->median_ms; break;
        }
        if (c->ref_ms > 0)
            c->ref_ratio = c->ref_ms / c->median_ms;
        switch (lab->ceiling) {
        case CL_CEIL_COPY:
        case CL_CEIL_READ:
        case CL_CEIL_WRITE:
            /* a report re-scored without this GPU's figure keeps the ceiling it was graded with */
            if (bandwidth > 0)
                c->ceiling = bandwidth;
            break;
        case CL_CEIL_CUBLAS: break; /* set per shape by the grader */
        case CL_CEIL_REFERENCE:
            /* the reference's metric in the same run; for time, smaller is better */
            if (c->ref_ms > 0)
                /* items / ref time = metric x (median / ref time) = metric / ref_ratio */
                c->ceiling = lab->metric == CL_METRIC_TIME ? c->ref_ms : c->metric / c->ref_ratio;
            break;
        }
        if (c->ceiling > 0)
            c->fraction = lab->metric == CL_METRIC_TIME ? c->ceiling / c->metric : c->metric / c->ceiling;
        else
            c->fraction = 0;
        c->tier = c->ceiling > 0 ? cl_tier_for(lab, c->fraction) : NULL;
        if (!c->tier)
            continue;
        /* beyond the excellent tier there is nothing left to earn: a case far above it
         * cannot buy back a slow one */
        double capped = fmin(c->fraction, lab->tier_excellent);
        if (capped <= 0)
            capped = 1e-9; /* a case too fast to time at all is not faster than anything */
        log_sum += log(capped);
        if (!counted || capped < slowest) {
            slowest = capped;
            if (capped < lab->tier_excellent)
                r->limiting_case = i;
        }
        counted++;
    }
    if (!counted)
        return;
    r->perf_fraction = lab->aggregate == CL_AGG_SLOWEST ? slowest : exp(log_sum / counted);
    if (r->perf_fraction > lab->tier_excellent) /* rounding of exp(log) */
        r->perf_fraction = lab->tier_excellent;
    r->tier = cl_tier_for(lab, r->perf_fraction);
}

void cl_score_total(const cl_lab *lab, cl_result *r)
{
    r->max_score = cl_lab_max_score(lab);
    r->score = 0;
    r->perf_points = 0;
    if (r->total > 0)
        r->score = lab->w_correct * (double)r->passed / (double)r->total;
    if (r->passed != r->total || r->total == 0 || !r->did_bench || r->verdict < CL_V_CORRECT)
        return;
    if (!r->tier)
        return;
    /* points grow continuously with the aggregated fraction; shown to one decimal */
    r->perf_points = round(cl_perf_points(lab, r->perf_fraction) * 10) / 10;
    r->score += r->perf_points;
    cl_verdict v = cl_verdict_from_name(r->tier);
    r->verdict = v == CL_V_EXCELLENT || v == CL_V_GOOD || v == CL_V_PASS ? v : CL_V_SLOW;
}
