/* cli_grade.h: the shared body of compile, test, bench and submit. */
#ifndef CUDALAB_CLI_GRADE_H
#define CUDALAB_CLI_GRADE_H

typedef enum { CL_MODE_COMPILE, CL_MODE_TEST, CL_MODE_BENCH, CL_MODE_SUBMIT } cl_grade_mode;

int cl_cli_grade_main(int argc, char **argv, cl_grade_mode mode);

#include <jansson.h>

#include "err.h"
#include "grader/grade.h"
/* bench --profile (cli_profile.c): ncu on the slowest bench case of r; *summary as
 * cl_profile_summarize makes it. -1 with err saying what is missing. */
int cl_cli_profile(const cl_result *r, const cl_grade_opts *o, json_t **summary, cl_err *err);

#endif
