/* cmd_gradescope.c: cudalab gradescope: inside Gradescope's autograder (docs/gradescope.md).
 *
 *   cudalab gradescope [--lab L] [--course FILE] [--submission DIR] [--results FILE]
 *                      [--metadata FILE] [--report FILE] [--timeout S] [--arch sm_XY] [--no-sandbox]
 * Defaults are Gradescope's paths: /autograder/submission, /autograder/results/results.json,
 * /autograder/submission_metadata.json, and /autograder/source/course.yaml when it exists. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli_help.h"
#include "cli_util.h"
#include "commands.h"
#include "grader/classroom.h"
#include "paths.h"

static void usage(FILE *f)
{
    cl_help_print_command(f, cl_command_find("gradescope"));
}

int cmd_gradescope(int argc, char **argv)
{
    enum { O_LAB = 256, O_COURSE, O_SUB, O_RES, O_META, O_REPORT, O_TIMEOUT, O_ARCH, O_NOSB, O_RUNNER };
    static const struct option opts[] = {
        {"lab", required_argument, 0, O_LAB},         {"course", required_argument, 0, O_COURSE},
        {"submission", required_argument, 0, O_SUB},  {"results", required_argument, 0, O_RES},
        {"metadata", required_argument, 0, O_META},   {"report", required_argument, 0, O_REPORT},
        {"timeout", required_argument, 0, O_TIMEOUT}, {"arch", required_argument, 0, O_ARCH},
        {"no-sandbox", no_argument, 0, O_NOSB},       {"runner", required_argument, 0, O_RUNNER},
        {"help", no_argument, 0, 'h'},                {0, 0, 0, 0}};
    cl_gradescope_opts o = {0};
    o.submission = "/autograder/submission";
    o.results_path = "/autograder/results/results.json";
    o.metadata_path = "/autograder/submission_metadata.json";
    if (cl_file_exists("/autograder/source/course.yaml"))
        o.course_path = "/autograder/source/course.yaml";
    int ch;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (ch) {
        case O_LAB: o.lab = optarg; break;
        case O_COURSE: o.course_path = optarg; break;
        case O_SUB: o.submission = optarg; break;
        case O_RES: o.results_path = optarg; break;
        case O_META: o.metadata_path = optarg; break;
        case O_REPORT: o.report_path = optarg; break;
        case O_TIMEOUT: o.timeout_s = atof(optarg); break;
        case O_ARCH: o.arch = optarg; break;
        case O_NOSB: o.no_sandbox = 1; break;
        case O_RUNNER: o.runner = optarg; o.allow_prebuilt = 1; break; /* the CPU test suite */
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind < argc) {
        usage(stderr);
        return 2;
    }
    if (o.metadata_path && !cl_file_exists(o.metadata_path))
        o.metadata_path = NULL;
    cl_err err;
    if (cl_gradescope_run(&o, &err)) {
        cl_cli_error("gradescope", "%s", err.msg);
        return 2;
    }
    printf("cudalab gradescope: wrote %s\n", o.results_path);
    return 0;
}
