/* score.c: metrics, fractions of the ceiling, tiers, points. */
#include "grader/score.h"

#include <string.h>

const char *cl_tier_for(const cl_lab *lab, double f)
{
    if (f >= lab->tier_excellent) return "excellent";
    if (f >= lab->tier_good) return "good";
    if (f >= lab->tier_pass) return "pass";
    return "slow";
}

static int tier_rank(const char *t)
{
    if (!t) return -1;
    if (!strcmp(t, "excellent")) return 3;
    if (!strcmp(t, "good")) return 2;
    if (!strcmp(t, "pass")) return 1;
    return 0;
}

void cl_score_bench(const cl_lab *lab, cl_result *r, double copy_gbps)
{
    const char *overall = NULL;
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
        case CL_CEIL_COPY: c->ceiling = copy_gbps; break;
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
        if (c->tier && (!overall || tier_rank(c->tier) < tier_rank(overall)))
            overall = c->tier;
    }
    r->tier = overall;
}

void cl_score_total(const cl_lab *lab, cl_result *r)
{
    r->max_score = cl_lab_max_score(lab);
    r->score = 0;
    if (r->total > 0)
        r->score = lab->w_correct * (double)r->passed / (double)r->total;
    if (r->passed != r->total || r->total == 0 || !r->did_bench || r->verdict < CL_V_CORRECT)
        return;
    if (!r->tier)
        return;
    if (!strcmp(r->tier, "excellent")) { r->score += lab->w_excellent; r->verdict = CL_V_EXCELLENT; }
    else if (!strcmp(r->tier, "good")) { r->score += lab->w_good; r->verdict = CL_V_GOOD; }
    else if (!strcmp(r->tier, "pass")) { r->score += lab->w_pass; r->verdict = CL_V_PASS; }
    else r->verdict = CL_V_SLOW;
}
