/* cmd_bench.c: cudalab bench: correctness, then performance against this GPU's ceilings and the reference. */
#include "cli_grade.h"
#include "commands.h"

int cmd_bench(int argc, char **argv) { return cl_cli_grade_main(argc, argv, CL_MODE_BENCH); }
