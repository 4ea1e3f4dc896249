/* cmd_grade.c: cudalab grade: a folder of submissions (instructors).
 *
 *   cudalab grade --lab L --submissions DIR [--roster roster.csv] [--out DIR] [--course FILE]
 *                 [--gpus 0,1|all] [--slurm [--gres G|none] [--partition P] [--max-parallel N]]
 *                 [--timeout S] [--arch sm_XY] [--no-reference] [--no-sandbox] [--report-only] [--json]
 * and, inside a Slurm job array (written by --slurm): cudalab grade --task MANIFEST --index I */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grader/result.h"
#include "cli_help.h"
#include "cli_util.h"
#include "commands.h"
#include "grader/classroom.h"
#include "grader/compile.h"
#include "term.h"

static void usage(FILE *f)
{
    cl_help_print_command(f, cl_command_find("grade"));
}

typedef struct ui {
    int json, tty;
} ui;

static void on_event(void *ctx, const char *kind, const char *student, const char *detail, int done, int total)
{
    ui *u = ctx;
    if (u->json && strcmp(kind, "error"))
        return;
    FILE *f = stderr;
    if (!strcmp(kind, "start")) {
        cl_progress(CL_T("[%d/%d done] grading %s (%s)..."), done, total, student, detail);
    } else if (!strcmp(kind, "done")) {
        cl_progress_clear();
        char verdict[64];
        double score = 0;
        sscanf(detail, "%63s %lf", verdict, &score);
        cl_verdict v = cl_verdict_from_name(verdict);
        int good = cl_verdict_ok(v) && v != CL_V_SLOW;
        fprintf(f, "  %3d/%-3d %-24s %s%-14s%s %6.1f\n", done, total, student,
                cl_c(f, good ? CL_GREEN : v == CL_V_SLOW ? CL_YELLOW : CL_RED), verdict, cl_c0(f), score);
    } else if (!strcmp(kind, "skip")) {
        /* counted in the summary */
    } else if (!strcmp(kind, "error")) {
        cl_progress_clear();
        fprintf(f, "cudalab grade: %s%s%s\n", student ? student : "", student ? ": " : "", detail);
    } else if (!strcmp(kind, "note")) {
        cl_progress_clear();
        fprintf(f, "%s%s%s %s%s%s\n", cl_c(f, CL_DIM), CL_T("note:"), cl_c0(f), student ? student : "", student ? ": " : "",
                detail);
    }
}

static void print_summary(const cl_class_summary *s, int json)
{
    if (json) {
        json_t *j = json_object();
        json_object_set_new(j, "total", json_integer(s->total));
        json_object_set_new(j, "graded", json_integer(s->graded));
        json_object_set_new(j, "skipped", json_integer(s->skipped));
        json_object_set_new(j, "missing", json_integer(s->missing));
        json_object_set_new(j, "not_graded", json_integer(s->not_graded));
        json_object_set_new(j, "failed_tasks", json_integer(s->failed_tasks));
        json_object_set_new(j, "workers", json_integer(s->workers));
        json_object_set_new(j, "seconds", json_real(s->seconds));
        json_object_set_new(j, "sandbox", json_string(s->sandbox));
        json_object_set_new(j, "gradebook", json_string(s->gradebook));
        json_object_set_new(j, "csv", json_string(s->csv));
        json_object_set_new(j, "html", json_string(s->html));
        json_object_set_new(j, "junit", json_string(s->junit));
        if (s->slurm_job[0])
            json_object_set_new(j, "slurm_job", json_string(s->slurm_job));
        json_t *v = json_object();
        for (int k = 0; k <= CL_V_EXCELLENT; k++)
            if (s->verdicts[k])
                json_object_set_new(v, cl_verdict_name((cl_verdict)k), json_integer(s->verdicts[k]));
        json_object_set_new(j, "verdicts", v);
        char *text = json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS);
        puts(text);
        free(text);
        json_decref(j);
        return;
    }
    FILE *f = stdout;
    printf(CL_T("%sgraded %d%s, skipped %d (already graded), %d missing"), cl_c(f, CL_BOLD), s->graded, cl_c0(f),
           s->skipped, s->missing);
    if (s->not_graded)
        printf(CL_T(", %s%d not graded (no score recorded: run again)%s"), cl_c(f, CL_RED), s->not_graded, cl_c0(f));
    if (s->failed_tasks)
        printf(CL_T(", %s%d Slurm task(s) without a result%s"), cl_c(f, CL_RED), s->failed_tasks, cl_c0(f));
    printf(CL_T(" in %.0f s"), s->seconds);
    if (s->graded && s->seconds > 0)
        printf(CL_T(" (%.1f submissions/min)"), s->graded * 60.0 / s->seconds);
    printf("\n  %s  ", CL_T("verdicts"));
    for (int k = 0; k <= CL_V_EXCELLENT; k++)
        if (s->verdicts[k])
            printf("%s %d  ", CL_T(cl_verdict_name((cl_verdict)k)), s->verdicts[k]);
    printf("\n");
    if (s->sandbox[0])
        printf(CL_T("  sandbox   %s\n"), s->sandbox);
    printf(CL_T("  gradebook %s\n  csv       %s\n  report    %s\n  junit     %s\n"), s->gradebook, s->csv, s->html,
           s->junit);
}

/* What the command line asked for: the class run's options, or one Slurm array task. */
typedef struct grade_flags {
    cl_class_opts o;
    ui u;
    const char *task;
    int index;
} grade_flags;

/* Reads the command line into f. Returns -1 to go on, else the exit code. */
static int parse_flags(int argc, char **argv, grade_flags *f)
{
    enum { O_LAB = 256, O_SUB, O_ROSTER, O_OUT, O_COURSE, O_GPUS, O_JOBS, O_SLURM, O_GRES, O_PART, O_MAXP, O_POLL,
           O_TIMEOUT, O_ARCH, O_NOREF, O_NOSB, O_REPORT, O_JSON, O_RUNNER, O_TASK, O_INDEX, O_WATCHDOG };
    static const struct option opts[] = {
        {"lab", required_argument, 0, O_LAB},        {"submissions", required_argument, 0, O_SUB},
        {"roster", required_argument, 0, O_ROSTER},  {"out", required_argument, 0, O_OUT},
        {"course", required_argument, 0, O_COURSE},  {"gpus", required_argument, 0, O_GPUS},
        {"jobs", required_argument, 0, O_JOBS},      {"slurm", no_argument, 0, O_SLURM},
        {"gres", required_argument, 0, O_GRES},      {"partition", required_argument, 0, O_PART},
        {"max-parallel", required_argument, 0, O_MAXP}, {"poll", required_argument, 0, O_POLL},
        {"timeout", required_argument, 0, O_TIMEOUT}, {"arch", required_argument, 0, O_ARCH},
        {"no-reference", no_argument, 0, O_NOREF},   {"no-sandbox", no_argument, 0, O_NOSB},
        {"report-only", no_argument, 0, O_REPORT},   {"json", no_argument, 0, O_JSON},
        {"runner", required_argument, 0, O_RUNNER},  {"task", required_argument, 0, O_TASK},
        {"index", required_argument, 0, O_INDEX},    {"watchdog", required_argument, 0, O_WATCHDOG},
        {"help", no_argument, 0, 'h'},               {0, 0, 0, 0}};
    cl_class_opts *o = &f->o;
    memset(f, 0, sizeof *f);
    f->u.tty = isatty(STDERR_FILENO);
    f->index = -1;
    int ch;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (ch) {
        case O_LAB: o->lab = optarg; break;
        case O_SUB: o->submissions = optarg; break;
        case O_ROSTER: o->roster = optarg; break;
        case O_OUT: o->out = optarg; break;
        case O_COURSE: o->course_path = optarg; break;
        case O_GPUS: o->gpus = optarg; break;
        case O_JOBS: o->jobs = atoi(optarg); break;
        case O_SLURM: o->slurm = 1; break;
        case O_GRES: o->slurm_gres = optarg; break;
        case O_PART: o->slurm_partition = optarg; break;
        case O_MAXP: o->slurm_max_parallel = atoi(optarg); break;
        case O_POLL: o->slurm_poll_s = atof(optarg); break;
        case O_TIMEOUT:
            if ((o->timeout_s = atof(optarg)) <= 0) {
                cl_cli_error("grade", CL_T("--timeout wants seconds > 0, not '%s' — for example --timeout 30"), optarg);
                return CL_EXIT_USAGE;
            }
            break;
        case O_ARCH: o->arch = optarg; break;
        case O_NOREF: o->no_reference = 1; break;
        case O_NOSB: o->no_sandbox = 1; break;
        case O_REPORT: o->report_only = 1; break;
        case O_JSON: f->u.json = 1; break;
        case O_RUNNER: o->runner = optarg; o->allow_prebuilt = 1; break; /* the CPU test suite's host runner */
        case O_TASK: f->task = optarg; break;
        case O_INDEX: f->index = atoi(optarg); break;
        case O_WATCHDOG: o->watchdog_s = atof(optarg); break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    return -1;
}

/* --task MANIFEST --index I: one task of a Slurm job array that --slurm wrote. */
static int run_task(const grade_flags *f)
{
    cl_err err;
    if (f->index < 0) {
        cl_cli_error("grade", CL_T("--task needs --index — cudalab grade --task MANIFEST --index I"));
        return CL_EXIT_USAGE;
    }
    if (cl_class_slurm_task(f->task, f->index, &err)) {
        cl_cli_error("grade", CL_T("task %d: %s"), f->index, err.msg);
        return 1;
    }
    return 0;
}

/* No GPU, nothing to grade on: say so; the class run then records each submission as not
 * graded, with no score, so the instructor's reports say why, and the exit status says
 * the machine was the problem. (A Slurm array runs elsewhere; --runner is the CPU test
 * suite's host runner; --report-only grades nothing.) Returns 1 when there is no GPU,
 * 0 when there is one or none is needed, -1 for an --arch this GPU cannot run. */
static int check_gpu(const cl_class_opts *o)
{
    if (o->report_only || o->slurm || o->runner)
        return 0;
    cl_gpu_info gpu;
    cl_detect_gpu(&gpu);
    if (!gpu.present) {
        cl_cli_error("grade", CL_T("no GPU on this machine, so nothing was graded and no score written — run it "
                                   "where there is an NVIDIA GPU, or on a GPU cluster with --slurm"));
        return 1;
    }
    return cl_cli_check_arch("grade", o->arch, 1) ? -1 : 0;
}

int cmd_grade(int argc, char **argv)
{
    grade_flags f;
    int rc = parse_flags(argc, argv, &f);
    if (rc >= 0)
        return rc;
    if (f.task)
        return run_task(&f);
    cl_class_opts *o = &f.o;
    if (optind < argc) {
        cl_cli_error("grade", CL_T("unexpected argument '%s' — see 'cudalab grade --help'"), argv[optind]);
        return CL_EXIT_USAGE;
    }
    if (!o->lab || !o->submissions) {
        cl_cli_error("grade", CL_T("--lab and --submissions are needed — cudalab grade --lab LAB --submissions DIR"));
        return CL_EXIT_USAGE;
    }
    if (cl_cli_check_lab("grade", o->lab))
        return CL_EXIT_USAGE;
    int no_gpu = check_gpu(o);
    if (no_gpu < 0)
        return CL_EXIT_USAGE;
    char out_default[300];
    if (!o->out) {
        snprintf(out_default, sizeof out_default, "grades-%s", o->lab);
        o->out = out_default;
    }
    o->event = on_event;
    o->ctx = &f.u;
    cl_class_summary sum;
    cl_err err;
    rc = cl_class_grade(o, &sum, &err);
    cl_progress_clear();
    if (no_gpu) {
        if (rc)
            cl_cli_error("grade", "%s", err.msg);
        else
            print_summary(&sum, f.u.json);
        return CL_EXIT_ENV;
    }
    if (rc) {
        cl_cli_error("grade", "%s", err.msg);
        return CL_EXIT_USAGE; /* the submissions, roster, course file or output folder given */
    }
    print_summary(&sum, f.u.json);
    return sum.failed_tasks ? 1 : 0;
}
