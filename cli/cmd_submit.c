/* cmd_submit.c: cudalab submit: test + bench, scored, recorded in the progress database, with a JSON report. */
#include "cli_grade.h"
#include "commands.h"

int cmd_submit(int argc, char **argv) { return cl_cli_grade_main(argc, argv, CL_MODE_SUBMIT); }
