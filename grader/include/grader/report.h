/* report.h: a cl_result for people (terminal text) and for machines (JSON, JUnit XML). */
#ifndef CUDALAB_REPORT_H
#define CUDALAB_REPORT_H

#include <jansson.h>
#include <stdio.h>

#include "err.h"
#include "grader/labconf.h"
#include "grader/result.h"

/* The full report as JSON (the --json output and what the progress database keeps). */
json_t *cl_result_to_json(const cl_result *r);
/* The inverse: a result rebuilt from cl_result_to_json's output (fields it does not
 * carry stay zero). Free with cl_result_free. */
void cl_result_from_json(json_t *j, cl_result *r);
/* One case, from a report's "cases" entry or a runner's "case" line (the same keys). */
void cl_case_from_json(json_t *c, cl_case_result *cr);
/* Human-readable, coloured when f is a terminal. verbose lists every case. */
void cl_report_text(const cl_result *r, FILE *f, int verbose);
/* JUnit XML: one <testsuite> per result, one <testcase> per case (plus compile and
 * verdict), as CI systems and Gradescope-like tools read it; a result that holds no grade
 * (no GPU, cudalab failed) is one skipped test without a score. names may be NULL. */
int cl_report_junit(const cl_result *const *rs, const char *const *names, int n, const char *path, cl_err *err);

#endif
