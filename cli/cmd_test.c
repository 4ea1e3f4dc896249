/* cmd_test.c: cudalab test: compile and check correctness on every case of lab.yaml. */
#include "cli_grade.h"
#include "commands.h"

int cmd_test(int argc, char **argv) { return cl_cli_grade_main(argc, argv, CL_MODE_TEST); }
