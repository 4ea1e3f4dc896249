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

/* What the command line of compile, test, bench or submit asked for. */
typedef struct grade_args {
    const char *cmd;
    cl_grade_mode mode;
    int reference, skeleton, json, verbose, profile;
    const char *junit;
    cl_grade_opts o;
    cl_remote_opts ro;
} grade_args;

/* Reads the flags into a (the LAB and FILE arguments are left at argv[optind...]).
 * Returns -1 to go on, else the exit code. */
static int parse_flags(int argc, char **argv, grade_args *a)
{
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
    const char *cmd = a->cmd;
    int ch;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "hv", opts, NULL)) != -1) {
        switch (ch) {
        case 'r': a->reference = 1; break;
        case 'k': a->skeleton = 1; break;
        case 's':
            if (cl_cli_seed(optarg, &a->o.seed))
                return CL_EXIT_USAGE;
            a->o.have_seed = 1;
            break;
        case 'a': a->o.arch = optarg; break;
        case 'z': a->o.sanitize = 1; break;
        case 'j': a->json = 1; break;
        case 'u': a->junit = optarg; break;
        case 'v': a->verbose = 1; break;
        case 'n': a->o.no_reference = 1; break;
        case 't':
            a->o.timeout_s = atof(optarg);
            if (a->o.timeout_s <= 0) {
                cl_cli_error(cmd, CL_T("--timeout wants seconds > 0, not '%s' — for example --timeout 30"), optarg);
                return CL_EXIT_USAGE;
            }
            break;
        case 'R': a->o.runner = optarg; a->o.allow_prebuilt = 1; break; /* the test suite's host runner */
        case 'P': a->profile = 1; break;
        case 'H': a->ro.host = optarg; break;
        case 'S': a->ro.slurm = 1; break;
        case 'A': a->ro.slurm_args = optarg; break;
        case 'E': a->ro.cudalab = optarg; break;
        case 'C': cl_term_init(1); break;
        case 'h': usage(stdout, cmd); return CL_EXIT_OK;
        default: usage(stderr, cmd); return CL_EXIT_USAGE;
        }
    }
    if (argc - optind > 2) {
        cl_cli_error(cmd, CL_T("too many arguments — cudalab %s [LAB] [FILE]"), cmd);
        return CL_EXIT_USAGE;
    }
    return -1;
}

/* Flags that do not go together with this command. 0, or the exit code. */
static int refuse_combinations(const grade_args *a)
{
    int remote = a->ro.host || a->ro.slurm;
    if (a->profile && (a->mode == CL_MODE_COMPILE || a->mode == CL_MODE_TEST || remote)) {
        cl_cli_error(a->cmd, CL_T("--profile is for bench and submit on this machine"));
        return CL_EXIT_USAGE;
    }
    if (remote && a->mode == CL_MODE_COMPILE) {
        cl_cli_error(a->cmd, CL_T("--remote and --slurm are for test, bench and submit"));
        return CL_EXIT_USAGE;
    }
    return 0;
}

/* --profile: after the timed runs, in a process of its own. The summary, or NULL with
 * perr saying why not. */
static json_t *profile_result(const grade_args *a, const cl_result *r, cl_err *perr)
{
    json_t *prof = NULL;
    if (!a->profile)
        return NULL;
    if (!(cl_verdict_ok(r->verdict) && r->did_bench))
        snprintf(perr->msg, sizeof perr->msg, "%s",
                 CL_T("not profiled: the solution must pass its correctness cases first"));
    else if (cl_cli_profile(r, &a->o, &prof, perr))
        prof = NULL;
    return prof;
}

/* The report on stdout: JSON, or the text report with a shortened compile log (the
 * whole log goes to the workspace's .cudalab/ or the cache). */
static void print_report(const grade_args *a, cl_result *r, const cl_target *t, json_t *prof, const cl_err *perr)
{
    if (a->json) {
        cl_cli_print_json(r, a->profile ? (prof ? prof : json_pack("{s:s}", "error", perr->msg)) : NULL);
        return;
    }
    char log_dir[CL_PATH_MAX] = "";
    cl_err err;
    if (t->workspace[0])
        snprintf(log_dir, sizeof log_dir, "%s/.cudalab", t->workspace);
    else if (cl_cache_dir(log_dir, sizeof log_dir - 8, &err) == 0)
        strcat(log_dir, "/logs");
    cl_cli_shorten_compile_log(r, log_dir[0] ? log_dir : NULL);
    cl_report_text(r, stdout, a->verbose);
    if (prof)
        cl_profile_print(prof, stdout);
    else if (a->profile)
        cl_cli_warn(a->cmd, CL_T("--profile: %s"), perr->msg);
    json_decref(prof);
}

int cl_cli_grade_main(int argc, char **argv, cl_grade_mode mode)
{
    grade_args a;
    memset(&a, 0, sizeof a);
    a.cmd = argv[0];
    a.mode = mode;
    int code = parse_flags(argc, argv, &a);
    if (code >= 0)
        return code;
    cl_target t;
    if (cl_cli_target(optind < argc ? argv[optind] : NULL, optind + 1 < argc ? argv[optind + 1] : NULL, a.reference,
                      a.skeleton, &t))
        return CL_EXIT_USAGE;
    /* code built for another architecture would fail on this GPU with a confusing verdict */
    if (cl_cli_check_arch(a.cmd, a.o.arch, mode != CL_MODE_COMPILE && !a.o.runner))
        return CL_EXIT_USAGE;
    if ((code = refuse_combinations(&a)))
        return code;
    a.o.lab = t.lab;
    a.o.solution = t.solution;
    a.o.test = mode != CL_MODE_COMPILE;
    a.o.bench = mode == CL_MODE_BENCH || mode == CL_MODE_SUBMIT;
    if (!a.json)
        a.o.progress = cl_cli_progress;
    /* the source as it is graded, for the history (read before grading: an editor may save
     * again while it runs) */
    char *source = NULL;
    size_t source_len = 0;
    cl_err err;
    if (mode != CL_MODE_COMPILE && cl_read_file(t.solution, CL_HISTORY_SOURCE_MAX, &source, &source_len, &err))
        source = NULL; /* cl_grade says what is wrong with the file */
    cl_result r;
    if (a.ro.host || a.ro.slurm ? grade_remote(&a.ro, &a.o, a.cmd, a.reference, a.skeleton, source, source_len, &r, &err)
                                : cl_grade(&a.o, &r, &err)) {
        free(source);
        cl_progress_clear();
        cl_cli_error(a.cmd, "%s", err.msg);
        return CL_EXIT_USAGE;
    }
    cl_progress_clear();
    code = cl_cli_exit_code(&r);
    if (mode != CL_MODE_COMPILE && !a.reference && !a.skeleton) /* the student's own work only */
        cl_cli_record(&r, a.cmd, source, source_len, t.workspace, mode == CL_MODE_SUBMIT, a.json);
    if (a.junit) {
        const cl_result *rs[] = {&r};
        if (cl_report_junit(rs, NULL, 1, a.junit, &err))
            cl_cli_error(a.cmd, "%s", err.msg);
    }
    cl_err perr = {{0}};
    json_t *prof = profile_result(&a, &r, &perr);
    cl_progress_clear();
    print_report(&a, &r, &t, prof, &perr);
    cl_result_free(&r);
    free(source);
    return code;
}
