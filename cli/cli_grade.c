/* cli_grade.c: the argument handling shared by compile, test, bench and submit.
 *
 *   cudalab test   [LAB] [FILE] [--reference|--skeleton] [--seed N] [--arch sm_XY]
 *                  [--sanitize] [--json] [--junit FILE] [--verbose]
 *   cudalab bench  ... [--no-reference]
 *   cudalab submit ...        (test + bench, scored)
 * Every test, bench and submit is recorded in the progress database (cudalab log).
 *   cudalab compile [LAB] [FILE] [--arch sm_XY]
 *   test, bench, submit ... --remote HOST | --slurm    (graded elsewhere, recorded here)
 */
#include "cli_grade.h"

#include <ctype.h>
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
#include "grader/profile.h"
#include "grader/progress.h"
#include "grader/grade.h"
#include "grader/remote.h"
#include "grader/report.h"
#include "term.h"

static void usage(FILE *f, const char *cmd)
{
    cl_help_print_command(f, cl_command_find(cmd));
}

/* --remote HOST / --slurm: the same grading on a GPU elsewhere; the report comes back. */
static int grade_remote(cl_remote_opts *ro, const cl_grade_opts *o, const char *cmd, int reference, int skeleton,
                        const char *source, size_t source_len, cl_result *r, cl_err *err)
{
    if (!reference && !skeleton && !source)
        return cl_err_set(err, "cannot read %s", o->solution);
    const char *base = strrchr(o->solution, '/') ? strrchr(o->solution, '/') + 1 : o->solution;
    char name[256];
    snprintf(name, sizeof name, "%s", base);
    for (char *p = name; *p; p++) /* a plain file name there, whatever it was called here */
        if (!(isalnum((unsigned char)*p) || *p == '.' || *p == '_' || *p == '-'))
            *p = '_';
    ro->mode = cmd;
    ro->lab = o->lab;
    ro->solution_name = name[0] && name[0] != '.' ? name : "solution.cu";
    ro->source = source;
    ro->source_len = source_len;
    ro->reference = reference;
    ro->skeleton = skeleton;
    ro->have_seed = o->have_seed;
    ro->seed = o->seed;
    ro->arch = o->arch;
    ro->timeout_s = o->timeout_s;
    ro->sanitize = o->sanitize;
    ro->no_reference = o->no_reference;
    ro->runner = o->runner;
    if (o->progress)
        o->progress(o->ctx, ro->host ? (ro->slurm ? "grading through ssh and srun" : "grading over ssh")
                                     : "grading through srun");
    return cl_remote_grade(ro, r, err);
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
        {"remote", required_argument, 0, 'H'}, {"slurm", no_argument, 0, 'S'},
        {"slurm-args", required_argument, 0, 'A'}, {"profile", no_argument, 0, 'P'}, {"remote-cudalab", required_argument, 0, 'E'},
        {"no-color", no_argument, 0, 'C'},  {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    int reference = 0, skeleton = 0, json = 0, verbose = 0, profile = 0, ch;
    const char *junit = NULL;
    cl_grade_opts o = {0};
    cl_remote_opts ro = {0};
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
        case 'P': profile = 1; break;
        case 'H': ro.host = optarg; break;
        case 'S': ro.slurm = 1; break;
        case 'A': ro.slurm_args = optarg; break;
        case 'E': ro.cudalab = optarg; break;
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
    /* the source as it is graded, for the history (read before grading: an editor may save
     * again while it runs) */
    char *source = NULL;
    size_t source_len = 0;
    cl_err err;
    if (mode != CL_MODE_COMPILE && cl_read_file(t.solution, CL_HISTORY_SOURCE_MAX, &source, &source_len, &err))
        source = NULL; /* cl_grade says what is wrong with the file */
    cl_result r;
    int remote = ro.host || ro.slurm;
    if (profile && (mode == CL_MODE_COMPILE || mode == CL_MODE_TEST || remote)) {
        free(source);
        cl_cli_error(cmd, CL_T("--profile is for bench and submit on this machine"));
        return CL_EXIT_USAGE;
    }
    if (remote && mode == CL_MODE_COMPILE) {
        free(source);
        cl_cli_error(cmd, CL_T("--remote and --slurm are for test, bench and submit"));
        return CL_EXIT_USAGE;
    }
    if (remote ? grade_remote(&ro, &o, cmd, reference, skeleton, source, source_len, &r, &err)
               : cl_grade(&o, &r, &err)) {
        free(source);
        cl_progress_clear();
        cl_cli_error(cmd, "%s", err.msg);
        return CL_EXIT_USAGE;
    }
    cl_progress_clear();
    int code = cl_cli_exit_code(&r);
    if (mode != CL_MODE_COMPILE && !reference && !skeleton) /* the student's own work only */
        cl_cli_record(&r, cmd, source, source_len, t.workspace, mode == CL_MODE_SUBMIT, json);
    if (junit) {
        const cl_result *rs[] = {&r};
        if (cl_report_junit(rs, NULL, 1, junit, &err))
            cl_cli_error(cmd, "%s", err.msg);
    }
    /* --profile: after the timed runs, in a process of its own */
    json_t *prof = NULL;
    cl_err perr = {{0}};
    if (profile && cl_verdict_ok(r.verdict) && r.did_bench && cl_cli_profile(&r, &o, &prof, &perr))
        prof = NULL;
    else if (profile && !(cl_verdict_ok(r.verdict) && r.did_bench))
        snprintf(perr.msg, sizeof perr.msg, "not profiled: the solution must pass its correctness cases first");
    cl_progress_clear();
    if (json) {
        cl_cli_print_json(&r, profile ? (prof ? prof : json_pack("{s:s}", "error", perr.msg)) : NULL);
        prof = NULL;
    } else {
        char log_dir[CL_PATH_MAX] = "";
        if (t.workspace[0])
            snprintf(log_dir, sizeof log_dir, "%s/.cudalab", t.workspace);
        else if (cl_cache_dir(log_dir, sizeof log_dir - 8, &err) == 0)
            strcat(log_dir, "/logs");
        cl_cli_shorten_compile_log(&r, log_dir[0] ? log_dir : NULL);
        cl_report_text(&r, stdout, verbose);
        if (prof)
            cl_profile_print(prof, stdout);
        else if (profile)
            cl_cli_warn(cmd, CL_T("--profile: %s"), perr.msg);
        json_decref(prof);
    }
    cl_result_free(&r);
    free(source);
    return code;
}
