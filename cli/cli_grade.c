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

#include "cli_help.h"
#include "cli_util.h"
#include "commands.h"
#include "db.h"
#include "grader/progress.h"
#include "grader/grade.h"
#include "grader/report.h"
#include "term.h"

static void usage(FILE *f, const char *cmd)
{
    cl_help_print_command(f, cl_command_find(cmd));
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
                return CL_EXIT_USAGE;
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
                cl_cli_error(cmd, CL_T("--timeout wants seconds > 0, not '%s' — for example --timeout 30"), optarg);
                return CL_EXIT_USAGE;
            }
            break;
        case 'R': o.runner = optarg; o.allow_prebuilt = 1; break; /* the test suite's host runner */
        case 'C': cl_term_init(1); break;
        case 'h': usage(stdout, cmd); return CL_EXIT_OK;
        default: usage(stderr, cmd); return CL_EXIT_USAGE;
        }
    }
    if (argc - optind > 2) {
        cl_cli_error(cmd, CL_T("too many arguments — cudalab %s [LAB] [FILE]"), cmd);
        return CL_EXIT_USAGE;
    }
    cl_target t;
    if (cl_cli_target(optind < argc ? argv[optind] : NULL, optind + 1 < argc ? argv[optind + 1] : NULL, reference,
                      skeleton, &t))
        return CL_EXIT_USAGE;
    /* code built for another architecture would fail on this GPU with a confusing verdict */
    if (cl_cli_check_arch(cmd, o.arch, mode != CL_MODE_COMPILE && !o.runner))
        return CL_EXIT_USAGE;
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
        cl_cli_error(cmd, "%s", err.msg);
        return CL_EXIT_USAGE;
    }
    cl_progress_clear();
    int code = cl_cli_exit_code(&r);
    if (mode == CL_MODE_SUBMIT && r.verdict != CL_V_ERROR && r.verdict != CL_V_NO_DEVICE) {
        sqlite3 *db = NULL;
        if (cl_db_open(NULL, &db, &err) || cl_progress_record(db, &r, "submit", &err))
            cl_cli_warn(cmd, CL_T("the result was not recorded: %s"), err.msg);
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
            cl_cli_error(cmd, "%s", err.msg);
    }
    if (json) {
        cl_cli_print_json(&r);
    } else {
        char log_dir[CL_PATH_MAX] = "";
        if (t.workspace[0])
            snprintf(log_dir, sizeof log_dir, "%s/.cudalab", t.workspace);
        else if (cl_cache_dir(log_dir, sizeof log_dir - 8, &err) == 0)
            strcat(log_dir, "/logs");
        cl_cli_shorten_compile_log(&r, log_dir[0] ? log_dir : NULL);
        cl_report_text(&r, stdout, verbose);
    }
    cl_result_free(&r);
    return code;
}
