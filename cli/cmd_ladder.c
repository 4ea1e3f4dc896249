/* cmd_ladder.c: cudalab ladder LAB [--json]: grade every step of a lab's ladder on this GPU.
 *
 * Each step (labs/LAB/ladder/NN_<step>.cu) is graded exactly as a submission is
 * (correctness, then the lab's bench cases), in one run, and the table shows the verdict,
 * the fraction of this GPU's ceiling (the slowest bench case, as the tier uses) and the
 * speed-up over the step before: the geometric mean over the bench cases of the previous
 * step's median time over this one's. The yardsticks (the reference's medians where it is
 * the lab's ceiling, cuBLAS on the bench shapes) are measured once, by the first step's
 * grading, for all the steps. Without a GPU it says so and exits 3. */
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "commands.h"
#include "grader/compile.h"
#include "grader/grade.h"
#include "grader/labconf.h"
#include "ladder_steps.h"
#include "paths.h"
#include "term.h"

typedef struct step_row {
    cl_verdict verdict;
    char *message;
    double fraction;  /* slowest bench case's fraction of the ceiling; 0: not timed */
    double geo_ms;    /* geometric mean of the bench cases' median times; 0: not timed */
    double speedup;   /* previous step's geo_ms / this one's; 0: not comparable */
    int nbench;
    double median_ms[CL_MAX_CASES];
    char *case_names[CL_MAX_CASES];
} step_row;

static void usage(FILE *f)
{
    fprintf(f, "usage: cudalab ladder LAB [--json]\n"
               "  Grades every step of LAB's ladder (labs/LAB/ladder/NN_<step>.cu) on this GPU:\n"
               "  verdict, fraction of the ceiling, and speed-up over the step before.\n"
               "  --json   print the table as JSON\n"
               "  Exit status: 0 every step is correct, 1 a step failed, 2 usage, 3 no GPU.\n");
}

/* Grades one step and fills its row (the timings from r's bench cases). */
static int grade_step(const cl_lab *lab, const char *path, int json, cl_yardstick_memo *memo, step_row *row,
                      cl_err *err)
{
    cl_grade_opts o = {0};
    o.memo = memo; /* the reference and cuBLAS, timed once for every step */
    o.lab = lab->name;
    o.solution = path;
    o.test = o.bench = 1;
    o.no_reference = lab->ceiling != CL_CEIL_REFERENCE; /* the reference is the ceiling only there */
    o.progress = json ? NULL : cl_cli_progress; /* as the other commands: no progress line with --json */
    cl_result r;
    if (cl_grade(&o, &r, err))
        return -1;
    row->verdict = r.verdict;
    row->message = r.message ? strdup(r.message) : NULL;
    double log_sum = 0;
    for (int k = 0; k < r.ncases; k++) {
        const cl_case_result *c = &r.cases[k];
        if (!c->bench || c->median_ms <= 0)
            continue;
        if (row->fraction == 0 || c->fraction < row->fraction)
            row->fraction = c->fraction;
        row->case_names[row->nbench] = strdup(c->name);
        row->median_ms[row->nbench++] = c->median_ms;
        log_sum += log(c->median_ms);
    }
    if (row->nbench && cl_verdict_ok(r.verdict))
        row->geo_ms = exp(log_sum / row->nbench);
    cl_result_free(&r);
    return 0;
}

static void print_table(const cl_lab *lab, const cl_gpu_info *gpu, const cl_ladder *l, const step_row *rows)
{
    FILE *f = stdout;
    const char *B = cl_c(f, CL_BOLD), *D = cl_c(f, CL_DIM), *Z = cl_c0(f);
    printf("%s%s%s  %s  %s(%s, %d steps)%s\n", B, lab->name, Z, lab->title.en, D, gpu->name, l->n, Z);
    printf("%-28s %-12s %11s %9s\n", "step", "verdict", "of ceiling", "speed-up");
    for (int i = 0; i < l->n; i++) {
        const step_row *s = &rows[i];
        int ok = cl_verdict_ok(s->verdict);
        printf("%-28s %s%-12s%s", l->names[i], cl_c(f, ok ? CL_GREEN : CL_RED), cl_verdict_name(s->verdict), Z);
        if (s->fraction > 0)
            printf(" %10.1f%%", s->fraction * 100);
        else
            printf(" %11s", "-");
        if (s->speedup > 0)
            printf(" %8.2fx", s->speedup);
        else
            printf(" %9s", "-");
        printf("\n");
        if (!ok && s->message)
            printf("  %s%s%s\n", D, s->message, Z);
    }
    printf("%s(of ceiling: the slowest bench case; speed-up: geometric mean over the bench cases of the\n"
           " previous step's median time over this one's, all from this run)%s\n",
           D, Z);
}

static json_t *ladder_json(const cl_lab *lab, const cl_gpu_info *gpu, const cl_ladder *l, const step_row *rows)
{
    json_t *steps = json_array();
    for (int i = 0; i < l->n; i++) {
        const step_row *s = &rows[i];
        json_t *cases = json_array();
        for (int k = 0; k < s->nbench; k++)
            json_array_append_new(cases, json_pack("{s:s, s:f}", "name", s->case_names[k], "median_ms", s->median_ms[k]));
        json_t *j = json_pack("{s:s, s:s, s:s, s:b, s:o, s:o, s:o, s:o, s:s?}", "step", l->names[i], "file",
                              l->paths[i], "verdict", cl_verdict_name(s->verdict), "correct",
                              cl_verdict_ok(s->verdict), "fraction", s->fraction > 0 ? json_real(s->fraction) : json_null(),
                              "time_ms", s->geo_ms > 0 ? json_real(s->geo_ms) : json_null(), "speedup",
                              s->speedup > 0 ? json_real(s->speedup) : json_null(), "bench", cases, "message",
                              s->message);
        json_array_append_new(steps, j);
    }
    return json_pack("{s:s, s:s, s:s, s:o}", "lab", lab->name, "gpu", gpu->name, "ceiling",
                     cl_ceiling_name(lab->ceiling), "steps", steps);
}

/* Keeps the run for `cudalab hint` (which step a student's speed matches on this machine). */
static void save_for_hint(const char *lab, json_t *j)
{
    char path[4096], dir[4096];
    cl_err err;
    if (cl_ladder_cache_path(lab, path, sizeof path))
        return;
    snprintf(dir, sizeof dir, "%.*s", (int)(strrchr(path, '/') - path), path);
    if (cl_mkdirs(dir, &err) || json_dump_file(j, path, JSON_INDENT(2)))
        cl_cli_error("ladder", CL_T("could not keep the result in %s"), path);
}

static int run_ladder(const cl_lab *lab, const cl_gpu_info *gpu, const cl_ladder *l, int json)
{
    step_row *rows = calloc(l->n, sizeof *rows);
    cl_yardstick_memo *memo = cl_yardstick_memo_new();
    int failures = 0, rc = 0;
    for (int i = 0; i < l->n; i++) {
        cl_err err;
        if (grade_step(lab, l->paths[i], json, memo, &rows[i], &err)) {
            cl_progress_clear();
            cl_cli_error("ladder", CL_T("%s: %s"), l->names[i], err.msg);
            rc = 2;
            break;
        }
        cl_progress_clear();
        failures += !cl_verdict_ok(rows[i].verdict);
        if (i > 0 && rows[i - 1].geo_ms > 0 && rows[i].geo_ms > 0)
            rows[i].speedup = rows[i - 1].geo_ms / rows[i].geo_ms;
    }
    if (rc == 0) {
        json_t *j = ladder_json(lab, gpu, l, rows);
        save_for_hint(lab->name, j);
        if (json) {
            char *text = json_dumps(j, JSON_INDENT(2));
            puts(text);
            free(text);
        } else {
            print_table(lab, gpu, l, rows);
        }
        json_decref(j);
        rc = failures ? 1 : 0;
    }
    for (int i = 0; i < l->n; i++) {
        free(rows[i].message);
        for (int k = 0; k < rows[i].nbench; k++)
            free(rows[i].case_names[k]);
    }
    free(rows);
    cl_yardstick_memo_free(memo);
    return rc;
}

int cmd_ladder(int argc, char **argv)
{
    static const struct option opts[] = {{"json", no_argument, 0, 'j'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int json = 0, ch;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (ch == 'j') {
            json = 1;
        } else {
            usage(ch == 'h' ? stdout : stderr);
            return ch == 'h' ? 0 : 2;
        }
    }
    if (argc - optind != 1) {
        usage(stderr);
        return 2;
    }
    cl_lab lab;
    cl_err err;
    if (cl_lab_load(cl_home_dir(), argv[optind], &lab, &err)) {
        cl_cli_error("ladder", CL_T("%s"), err.msg);
        return 2;
    }
    cl_ladder l;
    int rc = 2;
    if (cl_ladder_load(cl_home_dir(), lab.name, &l, &err)) {
        cl_cli_error("ladder", CL_T("%s"), err.msg);
    } else if (l.n == 0) {
        cl_cli_error("ladder", CL_T("%s has no ladder (no labs/%s/ladder/NN_<step>.cu files)"), lab.name, lab.name);
    } else {
        cl_gpu_info gpu;
        cl_detect_gpu(&gpu);
        if (!gpu.present) {
            cl_cli_error("ladder", CL_T("no GPU on this machine: the %d steps of %s cannot be timed here.\n"
                                        "  Each one still compiles: cudalab compile %s %s"),
                    l.n, lab.name, lab.name, l.paths[0]);
            rc = 3;
        } else {
            rc = run_ladder(&lab, &gpu, &l, json);
        }
        cl_ladder_free(&l);
    }
    cl_lab_free(&lab);
    return rc;
}
