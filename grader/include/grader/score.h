/* score.h: from measurements to tiers and points, as lab.yaml says
 * (docs/grading-policy.md, "Score").
 *
 * Each bench case's metric is a fraction of this GPU's ceiling (the copy, read-only or
 * write-only bandwidth, cuBLAS on the same shape, or the reference's speed), and gets the
 * tier that fraction reaches. The cases' fractions, each capped at the excellent
 * threshold, are aggregated (geometric mean, or the slowest: lab.yaml score.aggregate)
 * into one fraction, whose tier is the solution's. Correctness earns
 * correctness x passed/total; when every correctness case passed, performance points are
 * added, interpolated linearly in the aggregated fraction between the tier thresholds
 * (0 at 0, score.pass at tiers.pass, score.good at tiers.good, score.excellent at and
 * above tiers.excellent). */
#ifndef CUDALAB_SCORE_H
#define CUDALAB_SCORE_H

#include "grader/labconf.h"
#include "grader/result.h"

/* Fills metric/ceiling/fraction/tier of every bench case of r, and r's perf_fraction,
 * tier and limiting_case. Bandwidth ceilings come from r->copy_gbps / read_gbps /
 * write_gbps (as the lab names); cuBLAS ceilings, if any, are already in each case's
 * `ceiling`. */
void cl_score_bench(const cl_lab *lab, cl_result *r);
/* Sets r->score, r->perf_points, r->max_score, and the tier verdict when the run was correct. */
void cl_score_total(const cl_lab *lab, cl_result *r);
/* The tier name reached by fraction f. */
const char *cl_tier_for(const cl_lab *lab, double f);
/* Performance points earned by an aggregated fraction f (0 <= points <= score.excellent). */
double cl_perf_points(const cl_lab *lab, double f);
/* The bandwidth (GB/s) the lab's ceiling names, from r's device figures; 0 if not a
 * bandwidth ceiling or not measured. */
double cl_lab_bandwidth(const cl_lab *lab, const cl_result *r);

#endif
