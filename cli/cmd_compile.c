/* cmd_compile.c: cudalab compile: compile a solution with nvcc and run the static checks (works without a GPU). */
#include "cli_grade.h"
#include "commands.h"

int cmd_compile(int argc, char **argv) { return cl_cli_grade_main(argc, argv, CL_MODE_COMPILE); }
