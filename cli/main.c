/* main.c: the cudalab entry point: global flags, then dispatch to a subcommand. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "paths.h"
#include "term.h"

const cl_command cl_commands[] = {
    {"tour", "grade every lab's reference on this GPU (or show what works without one)", cmd_tour},
    {"device", "show this GPU and its measured ceilings (--refresh to measure again)", cmd_device},
    {"list", "list the labs with difficulty, topics and your best result", cmd_list},
    {"fetch", "create a workspace folder for a lab: cudalab fetch reduce", cmd_fetch},
    {"hint", "show the next hint for the current lab", cmd_hint},
    {"compile", "compile a solution with nvcc (works without a GPU)", cmd_compile},
    {"test", "compile and check correctness", cmd_test},
    {"bench", "measure performance against this GPU's ceilings", cmd_bench},
    {"submit", "test + bench, score it and record it in your progress", cmd_submit},
    {"ladder", "grade every step of a lab's ladder on this GPU: verdict, speed-up", cmd_ladder},
    {"watch", "re-test on every save, with keys for hint, bench, submit", cmd_watch},
    {"log", "your attempts at a lab: verdict, cases, tier, seed, source", cmd_log},
    {"compare", "two attempts case by case, and the source diff", cmd_compare},
    {"progress", "every lab's best tier and the review queue", cmd_progress},
    {"quiz", "practise theory questions", cmd_quiz},
    {"review", "spaced review of what you got wrong", cmd_review},
    {"interview", "a timed mock interview with a scorecard", cmd_interview},
    {"exam", "a classroom exam: same questions for the same seed", cmd_exam},
    {"lint", "validate labs and questions (file:line errors)", cmd_lint},
    {"grade", "grade a folder of submissions (instructors)", cmd_grade},
    {"gradescope", "run inside Gradescope's autograder and write results.json", cmd_gradescope},
    {NULL, NULL, NULL},
};

static void usage(FILE *f)
{
    fprintf(f, "%susage:%s cudalab [--no-color] <command> [options]\n\n", cl_c(f, CL_BOLD), cl_c0(f));
    for (const cl_command *c = cl_commands; c->name; c++)
        fprintf(f, "  %s%-11s%s %s\n", cl_c(f, CL_CYAN), c->name, cl_c0(f), c->summary);
    fprintf(f, "\n'cudalab <command> --help' describes a command's options.\n");
}

int main(int argc, char **argv)
{
    cl_paths_set_exe(argv[0]);
    int i = 1, no_color = 0;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp(argv[i], "--no-color")) {
            no_color = 1;
        } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            cl_term_init(no_color);
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--version")) {
            printf("cudalab %s\n", CUDALAB_VERSION);
            return 0;
        } else {
            break;
        }
    }
    cl_term_init(no_color);
    if (i >= argc) {
        usage(stderr);
        return 2;
    }
    for (const cl_command *c = cl_commands; c->name; c++)
        if (!strcmp(c->name, argv[i]))
            return c->run(argc - i, argv + i);
    fprintf(stderr, "cudalab: unknown command '%s'\n\n", argv[i]);
    usage(stderr);
    return 2;
}
