/* cmd_tour.c: cudalab tour: the main job of a fresh install.
 *
 * With a GPU: this GPU's ceilings, then every lab's reference graded exactly as a
 * student's submission would be (correctness, then performance), one line each.
 * Without one: says so plainly, then shows what still works: every reference and skeleton
 * compiles with nvcc, and the question bank is ready for `cudalab quiz`. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "commands.h"
#include "grader/ceilings.h"
#include "grader/compile.h"
#include "grader/grade.h"
#include "grader/labconf.h"
#include "paths.h"
#include "term.h"
#include "tour_questions.h"

static int tour_gpu(char **names, int n, int json_out)
{
    FILE *f = stdout;
    const char *B = cl_c(f, CL_BOLD), *D = cl_c(f, CL_DIM), *Z = cl_c0(f);
    cl_ceilings c;
    cl_err err;
    if (cl_ceilings_get(0, &c, cl_cli_progress, NULL, &err)) {
        cl_progress_clear();
        fprintf(stderr, "cudalab tour: cannot use the GPU: %s\n", err.msg);
        return 3;
    }
    cl_progress_clear();
    printf("%s%s%s: copy bandwidth %.0f GB/s, read-only %.0f GB/s, write-only %.0f GB/s, fp16 Tensor Cores %.0f"
           " TFLOP/s %s(cudalab device)%s\n\n", B, c.name, Z, c.copy_gbps, c.read_gbps, c.write_gbps, c.fp16_tflops, D, Z);
    printf("Grading every lab's reference solution, as a student's submission is graded:\n");
    int failures = 0;
    for (int i = 0; i < n; i++) {
        char ref[CL_PATH_MAX];
        snprintf(ref, sizeof ref, "%s/reference/%s.cu", cl_home_dir(), names[i]);
        if (!cl_file_exists(ref))
            continue;
        cl_grade_opts o = {0};
        o.lab = names[i];
        o.solution = ref;
        o.test = o.bench = 1;
        o.progress = cl_cli_progress;
        cl_result r;
        if (cl_grade(&o, &r, &err)) {
            cl_progress_clear();
            printf("  %-16s %serror%s %s\n", names[i], cl_c(f, CL_RED), Z, err.msg);
            failures++;
            continue;
        }
        cl_progress_clear();
        if (json_out) {
            cl_cli_print_json(&r);
        } else {
            double worst = 0;
            const char *what = "";
            for (int k = 0; k < r.ncases; k++)
                if (r.cases[k].bench && (worst == 0 || r.cases[k].fraction < worst)) {
                    worst = r.cases[k].fraction;
                    what = r.cases[k].name;
                }
            int ok = cl_verdict_ok(r.verdict) && r.verdict != CL_V_SLOW;
            printf("  %-16s %s%-10s%s %2d/%-2d cases", names[i], cl_c(f, ok ? CL_GREEN : CL_RED),
                   cl_verdict_name(r.verdict), Z, r.passed, r.total);
            if (worst > 0)
                printf("  slowest: %5.1f%% of the ceiling %s(%s)%s", worst * 100, D, what, Z);
            printf("  %.0f/%.0f\n", r.score, r.max_score);
            if (!ok)
                printf("  %s  %s%s\n", D, r.message ? r.message : "", Z);
        }
        failures += !(cl_verdict_ok(r.verdict) && r.verdict != CL_V_SLOW);
        cl_result_free(&r);
    }
    printf("\nYour turn: %scudalab list%s, %scudalab fetch reduce%s, then %scudalab test%s in that folder.\n", B, Z,
           B, Z, B, Z);
    return failures ? 1 : 0;
}

static int tour_no_gpu(char **names, int n)
{
    FILE *f = stdout;
    const char *B = cl_c(f, CL_BOLD), *D = cl_c(f, CL_DIM), *Y = cl_c(f, CL_YELLOW), *Z = cl_c0(f);
    printf("%sNo GPU on this machine%s: solutions cannot run here, so nothing can be tested or\n"
           "timed. What works without a GPU:\n\n",
           Y, Z);
    if (!cl_nvcc_path()) {
        printf("  compiling solutions: %sno nvcc found%s (install the CUDA toolkit)\n", Y, Z);
    } else {
        printf("%s1. Compiling solutions%s (nvcc, for sm_80 unless you pass --arch):\n", B, Z);
        int bad = 0;
        for (int i = 0; i < n; i++) {
            const char *kinds[2] = {"reference", "skeleton"};
            char paths[2][CL_PATH_MAX];
            snprintf(paths[0], sizeof paths[0], "%s/reference/%s.cu", cl_home_dir(), names[i]);
            snprintf(paths[1], sizeof paths[1], "%s/labs/%s/%s.cu", cl_home_dir(), names[i], names[i]);
            printf("  %-16s", names[i]);
            for (int k = 0; k < 2; k++) {
                cl_grade_opts o = {0};
                o.lab = names[i];
                o.solution = paths[k];
                o.progress = cl_cli_progress;
                cl_result r;
                cl_err err;
                int rc = cl_grade(&o, &r, &err);
                cl_progress_clear();
                int ok = rc == 0 && r.verdict == CL_V_CORRECT;
                bad += !ok;
                printf(" %s %s%s%s", kinds[k], cl_c(f, ok ? CL_GREEN : CL_CYAN), ok ? "compiles" : "FAILS", Z);
                if (rc == 0)
                    cl_result_free(&r);
            }
            printf("\n");
        }
        if (bad)
            printf("  %s(a failure here is a bug in cudalab: please report it)%s\n", D, Z);
    }
    printf("\n%s2. The question bank%s (quizzes, spaced review, mock interviews):\n", B, Z);
    cl_tour_questions(f);
    printf("\nOn a machine with an NVIDIA GPU, %scudalab tour%s grades every lab's reference there.\n", B, Z);
    return 0;
}

int cmd_tour(int argc, char **argv)
{
    static const struct option opts[] = {{"json", no_argument, 0, 'j'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int json = 0, ch;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (ch == 'j') json = 1;
        else {
            fprintf(ch == 'h' ? stdout : stderr,
                    "usage: cudalab tour [--json]\n"
                    "  With a GPU: grades every lab's reference solution (a real report per lab).\n"
                    "  Without one: shows what works here (compiling, the question bank).\n");
            return ch == 'h' ? 0 : 2;
        }
    }
    char **names;
    int n;
    cl_err err;
    if (cl_lab_names(cl_home_dir(), &names, &n, &err)) {
        fprintf(stderr, "cudalab tour: %s\n", err.msg);
        return 2;
    }
    cl_gpu_info gpu;
    cl_detect_gpu(&gpu);
    int rc = gpu.present ? tour_gpu(names, n, json) : tour_no_gpu(names, n);
    cl_lab_names_free(names, n);
    return rc;
}
