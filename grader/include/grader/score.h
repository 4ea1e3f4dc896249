/* score.h: from measurements to tiers and points, as lab.yaml says.
 *
 * Each bench case's metric is a fraction of this GPU's ceiling (copy bandwidth, cuBLAS
 * on the same shape, or the reference's speed). A case's tier is the highest of pass /
 * good / excellent whose threshold it reaches ("slow" below pass); the solution's tier
 * is its slowest case's. Correctness earns correctness x passed/total; the tier's points
 * are added only when every correctness case passed. */
#ifndef CUDALAB_SCORE_H
#define CUDALAB_SCORE_H

#include "grader/labconf.h"
#include "grader/result.h"

/* Fills metric/ceiling/fraction/tier of every bench case of r. copy_gbps: the measured
 * copy bandwidth; cuBLAS ceilings, if any, are already in each case's `ceiling`. */
void cl_score_bench(const cl_lab *lab, cl_result *r, double copy_gbps);
/* Sets r->score, r->max_score, and the tier verdict when the run was correct. */
void cl_score_total(const cl_lab *lab, cl_result *r);
/* The tier name reached by fraction f. */
const char *cl_tier_for(const cl_lab *lab, double f);

#endif
