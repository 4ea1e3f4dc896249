/* cli_grade.c: the argument handling shared by compile, test, bench and submit.
 *
 *   cudalab test   [LAB] [FILE] [--reference|--skeleton] [--seed N] [--arch sm_XY]
 *                  [--sanitize] [--json] [--junit FILE] [--verbose]
 *   cudalab bench  ... [--no-reference]
 *   cudalab submit ...        (test + bench, scored, recorded in the progress database)
 *   cudalab compile [LAB] [FILE] [--arch sm_XY]
 */
#include "cli_grade.h"

#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli_util.h"
#include "db.h"
#include "grader/progress.h"
#include "grader/report.h"
#include "term.h"

static void usage(FILE *f, const char *cmd)
{
    fprintf(f,
            "usage: cudalab %s [LAB] [FILE] [options]\n"
            "  LAB and FILE default to the workspace you are in (see 'cudalab fetch').\n"
            "  --reference        grade the lab's reference solution\n"
            "  --skeleton         grade the lab's starting skeleton\n"
            "  --seed N           reproduce a run (every report prints its seed)\n"
            "  --arch sm_XY       compile for this architecture instead of this GPU's\n"
            "                     (compute_XY: PTX only, JIT-compiled by the driver for this GPU)\n"
            "  --timeout S        wall-clock limit per run (default: the lab's)\n",
            cmd);
    if (strcmp(cmd, "compile"))
        fprintf(f,
                "  --sanitize         also run the correctness cases under compute-sanitizer\n"
                "                     (memcheck and racecheck)\n"
                "  --json             print the full report as JSON\n"
                "  --junit FILE       write a JUnit XML report\n"
                "  --verbose          list every case, not only the failures\n");
    if (!strcmp(cmd, "bench") || !strcmp(cmd, "submit"))
        fprintf(f, "  --no-reference     do not time the reference alongside (faster)\n");
}

int cl_cli_grade_main(int argc, char **argv, cl_grade_mode mode)
{
    const char *cmd = argv[0];
    static const struct option opts[] = {
        {"reference", no_argument, 0, 'r'}, {"skeleton", no_argument, 0, 'k'},
        {"seed", required_argument, 0, 's'}, {"arch", required_argument, 0, 'a'},
        {"sanitize", no_argument, 0, 'z'},  {"json", no_argument, 0, 'j'},
        {"junit", required_argument, 0, 'u'}, {"verbose", no_argument, 0, 'v'},
        {"no-reference", no_argument, 0, 'n'}, {"runner", required_argument, 0, 'R'},
        {"timeout", required_argument, 0, 't'},
        {"no-color", no_argument, 0, 'C'},  {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    int reference = 0, skeleton = 0, json = 0, verbose = 0, ch;
    const char *junit = NULL;
    cl_grade_opts o = {0};
    optind = 1;
    while ((ch = getopt_long(argc, argv, "hv", opts, NULL)) != -1) {
        switch (ch) {
        case 'r': reference = 1; break;
        case 'k': skeleton = 1; break;
        case 's':
            if (cl_cli_seed(optarg, &o.seed))
                return 2;
            o.have_seed = 1;
            break;
        case 'a': o.arch = optarg; break;
        case 'z': o.sanitize = 1; break;
        case 'j': json = 1; break;
        case 'u': junit = optarg; break;
        case 'v': verbose = 1; break;
        case 'n': o.no_reference = 1; break;
        case 't':
            o.timeout_s = atof(optarg);
            if (o.timeout_s <= 0) {
                fprintf(stderr, "cudalab %s: --timeout wants seconds > 0\n", cmd);
                return 2;
            }
            break;
        case 'R': o.runner = optarg; o.allow_prebuilt = 1; break; /* the test suite's host runner */
        case 'C': cl_term_init(1); break;
        case 'h': usage(stdout, cmd); return 0;
        default: usage(stderr, cmd); return 2;
        }
    }
    if (argc - optind > 2) {
        usage(stderr, cmd);
        return 2;
    }
    cl_target t;
    if (cl_cli_target(optind < argc ? argv[optind] : NULL, optind + 1 < argc ? argv[optind + 1] : NULL, reference,
                      skeleton, &t))
        return 2;
    o.lab = t.lab;
    o.solution = t.solution;
    o.test = mode != CL_MODE_COMPILE;
    o.bench = mode == CL_MODE_BENCH || mode == CL_MODE_SUBMIT;
    if (!json) {
        o.progress = cl_cli_progress;
    }
    cl_result r;
    cl_err err;
    if (cl_grade(&o, &r, &err)) {
        cl_progress_clear();
        fprintf(stderr, "cudalab %s: %s\n", cmd, err.msg);
        return 2;
    }
    cl_progress_clear();
    int code = cl_cli_exit_code(&r);
    if (mode == CL_MODE_SUBMIT && r.verdict != CL_V_ERROR && r.verdict != CL_V_NO_DEVICE) {
        sqlite3 *db;
        if (cl_db_open(NULL, &db, &err) || cl_progress_record(db, &r, "submit", &err))
            fprintf(stderr, "cudalab %s: could not record the result: %s\n", cmd, err.msg);
        cl_db_close(db);
        /* the report next to the work, when there is a workspace */
        if (t.workspace[0]) {
            char dir[CL_PATH_MAX], path[CL_PATH_MAX + 64];
            snprintf(dir, sizeof dir, "%s/.cudalab/reports", t.workspace);
            if (cl_mkdirs(dir, &err) == 0) {
                snprintf(path, sizeof path, "%s/%lld.json", dir, (long long)time(NULL));
                json_t *j = cl_result_to_json(&r);
                if (json_dump_file(j, path, JSON_INDENT(2) | JSON_SORT_KEYS) == 0 && !json)
                    fprintf(stderr, "%sreport: %s%s\n", cl_c(stderr, CL_DIM), path, cl_c0(stderr));
                json_decref(j);
            }
        }
    }
    if (junit) {
        const cl_result *rs[] = {&r};
        if (cl_report_junit(rs, NULL, 1, junit, &err))
            fprintf(stderr, "cudalab %s: %s\n", cmd, err.msg);
    }
    if (json)
        cl_cli_print_json(&r);
    else
        cl_report_text(&r, stdout, verbose);
    cl_result_free(&r);
    return code;
}
