/* cli_grade.h: the shared body of compile, test, bench and submit. */
#ifndef CUDALAB_CLI_GRADE_H
#define CUDALAB_CLI_GRADE_H

typedef enum { CL_MODE_COMPILE, CL_MODE_TEST, CL_MODE_BENCH, CL_MODE_SUBMIT } cl_grade_mode;

int cl_cli_grade_main(int argc, char **argv, cl_grade_mode mode);

#endif
