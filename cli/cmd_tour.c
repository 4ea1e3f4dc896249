/* cmd_tour.c: cudalab tour: the main job of a fresh install.
 *
 * With a GPU: this GPU's ceilings, then every lab's reference graded exactly as a
 * student's submission would be (correctness, then performance), one line each.
 * Without one: says so plainly, then shows what still works: every reference and skeleton
 * compiles with nvcc, and the question bank is ready for `cudalab quiz`.
 * --json: one JSON document either way ({"gpu": null, ...} without a GPU). */
#include <jansson.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "grader/result.h"
#include "cli_util.h"
#include "commands.h"
#include "grader/ceilings.h"
#include "grader/compile.h"
#include "grader/grade.h"
#include "grader/labconf.h"
#include "grader/proc.h"
#include "grader/report.h"
#include "paths.h"
#include "term.h"
#include "tour_questions.h"

static void print_json(json_t *j)
{
    char *s = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    if (s)
        puts(s);
    free(s);
}

/* One reference compiled into the build cache, in a child of its own. */
typedef struct precompile {
    const char *lab;
    const cl_gpu_info *gpu;
} precompile;

static int compile_reference(void *vctx)
{
    const precompile *p = vctx;
    char ref[CL_PATH_MAX];
    snprintf(ref, sizeof ref, "%s/reference/%s.cu", cl_home_dir(), p->lab);
    cl_lab lab;
    cl_err err;
    if (!cl_file_exists(ref) || cl_lab_load(cl_home_dir(), p->lab, &lab, &err))
        return 1;
    cl_compile_opts co = {ref, NULL, lab.arch_suffix, lab.nvcc_flags, 0, p->gpu};
    cl_compile_result cr;
    int rc = cl_compile(&co, &cr, &err) || !cr.ok;
    cl_compile_result_free(&cr);
    cl_lab_free(&lab);
    return rc;
}

/* Every reference compiled before any is graded, as many at once as there are CPUs: nvcc
 * is the longest wait of a first tour, and it runs here while no GPU work is timed. Each
 * grading then finds its build in the cache; one that failed here is compiled again there
 * and reports its own error. */
static void compile_references(char **names, int n, int json, const cl_gpu_info *gpu)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int width = cpus > 1 ? (int)cpus : 1, running = 0, next = 0;
    int pids[64];
    precompile jobs[64];
    if (n > 64)
        n = 64;
    if (!json)
        cl_cli_progress(NULL, CL_T("compiling every lab's reference (nvcc, in parallel)"));
    while (next < n || running > 0) {
        while (next < n && running < width) {
            jobs[next] = (precompile){names[next], gpu};
            cl_err err;
            if (cl_proc_fork(compile_reference, &jobs[next], &pids[running], &err) == 0)
                running++;
            next++;
        }
        if (running > 0 && cl_proc_wait(pids[--running], NULL) < 0)
            break;
    }
    cl_progress_clear();
}

static int tour_gpu(char **names, int n, int json, const cl_gpu_info *gpu)
{
    FILE *f = stdout;
    const char *B = cl_c(f, CL_BOLD), *D = cl_c(f, CL_DIM), *Z = cl_c0(f);
    cl_ceilings c;
    cl_err err;
    if (cl_ceilings_get(0, &c, json ? NULL : cl_cli_progress, NULL, &err)) {
        cl_progress_clear();
        cl_cli_error("tour", CL_T("cannot use the GPU: %s — check 'nvidia-smi' and the driver"), err.msg);
        return CL_EXIT_ENV;
    }
    cl_progress_clear();
    json_t *doc = json ? json_object() : NULL, *labs = json ? json_array() : NULL;
    if (json) {
        json_object_set_new(doc, "gpu", json_pack("{s:s, s:s, s:f, s:f, s:f, s:f}", "name", c.name, "uuid", c.uuid,
                                                  "copy_gbps", c.copy_gbps, "read_gbps", c.read_gbps, "write_gbps",
                                                  c.write_gbps, "fp16_tflops", c.fp16_tflops));
    } else {
        printf(CL_T("%s%s%s: copy bandwidth %.0f GB/s, read-only %.0f GB/s, write-only %.0f GB/s, fp16 Tensor Cores "
                    "%.0f TFLOP/s %s(cudalab device)%s\n\n"),
               B, c.name, Z, c.copy_gbps, c.read_gbps, c.write_gbps, c.fp16_tflops, D, Z);
        printf("%s\n", CL_T("Grading every lab's reference solution, as a student's submission is graded:"));
    }
    double t0 = cl_mono_s();
    compile_references(names, n, json, gpu);
    double compile_s = cl_mono_s() - t0;
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
        o.progress = json ? NULL : cl_cli_progress;
        cl_result r;
        if (cl_grade(&o, &r, &err)) {
            cl_progress_clear();
            if (json)
                json_array_append_new(labs, json_pack("{s:s, s:s, s:s}", "lab", names[i], "verdict", cl_verdict_name(CL_V_ERROR),
                                                      "message", err.msg));
            else
                printf("  %-16s %s%s%s %s\n", names[i], cl_c(f, CL_RED), CL_T("error"), Z, err.msg);
            failures++;
            continue;
        }
        cl_progress_clear();
        int ok = cl_verdict_ok(r.verdict) && r.verdict != CL_V_SLOW;
        if (json) {
            json_array_append_new(labs, cl_result_to_json(&r));
        } else {
            double worst = 0;
            const char *what = "";
            for (int k = 0; k < r.ncases; k++)
                if (r.cases[k].bench && (worst == 0 || r.cases[k].fraction < worst)) {
                    worst = r.cases[k].fraction;
                    what = r.cases[k].name;
                }
            printf("  %-16s %s", names[i], cl_c(f, ok ? CL_GREEN : CL_RED));
            cl_fput_padded(CL_T(cl_verdict_name(r.verdict)), 10, f);
            printf(CL_T("%s %2d/%-2d cases"), Z, r.passed, r.total);
            if (worst > 0)
                printf(CL_T("  slowest: %5.1f%% of the ceiling %s(%s)%s"), worst * 100, D, what, Z);
            printf("  %.0f/%.0f  %s%.1f s%s\n", r.score, r.max_score, D, r.seconds, Z);
            if (!ok)
                printf("  %s  %s%s\n", D, r.message ? r.message : "", Z);
        }
        failures += !ok;
        cl_result_free(&r);
    }
    if (json) {
        json_object_set_new(doc, "labs", labs);
        json_object_set_new(doc, "failures", json_integer(failures));
        json_object_set_new(doc, "compile_seconds", json_real(compile_s));
        json_object_set_new(doc, "seconds", json_real(cl_mono_s() - t0));
        print_json(doc);
        json_decref(doc);
    } else {
        printf(CL_T("\nYour turn: %scudalab list%s, %scudalab fetch reduce%s, then %scudalab test%s in that folder.\n"),
               B, Z, B, Z, B, Z);
    }
    return failures ? CL_EXIT_FAILED : CL_EXIT_OK;
}

static int tour_no_gpu(char **names, int n, int json)
{
    FILE *f = stdout;
    const char *B = cl_c(f, CL_BOLD), *D = cl_c(f, CL_DIM), *Y = cl_c(f, CL_YELLOW), *Z = cl_c0(f);
    json_t *doc = json ? json_object() : NULL, *labs = json ? json_array() : NULL;
    if (json) {
        json_object_set_new(doc, "gpu", json_null());
        json_object_set_new(doc, "nvcc", cl_nvcc_path() ? json_string(cl_nvcc_path()) : json_null());
    } else {
        printf(CL_T("%sNo GPU on this machine%s: solutions cannot run here, so nothing can be tested or\n"
                    "timed. What works without a GPU:\n\n"),
               Y, Z);
    }
    int bad = 0;
    if (!cl_nvcc_path()) {
        if (!json)
            printf(CL_T("  compiling solutions: %sno nvcc found%s (install the CUDA toolkit)\n"), Y, Z);
    } else {
        if (!json)
            printf(CL_T("%s1. Compiling solutions%s (nvcc, for sm_80 unless you pass --arch):\n"), B, Z);
        for (int i = 0; i < n; i++) {
            const char *kinds[2] = {"reference", "skeleton"};
            char paths[2][CL_PATH_MAX];
            snprintf(paths[0], sizeof paths[0], "%s/reference/%s.cu", cl_home_dir(), names[i]);
            snprintf(paths[1], sizeof paths[1], "%s/labs/%s/%s.cu", cl_home_dir(), names[i], names[i]);
            json_t *row = json ? json_pack("{s:s}", "lab", names[i]) : NULL;
            if (!json)
                printf("  %-16s", names[i]);
            for (int k = 0; k < 2; k++) {
                cl_grade_opts o = {0};
                o.lab = names[i];
                o.solution = paths[k];
                o.progress = json ? NULL : cl_cli_progress;
                cl_result r;
                cl_err err;
                int rc = cl_grade(&o, &r, &err);
                cl_progress_clear();
                int ok = rc == 0 && r.verdict == CL_V_CORRECT;
                bad += !ok;
                if (json)
                    json_object_set_new(row, kinds[k],
                                        json_string(ok ? "compiled" : rc ? "error" : cl_verdict_name(r.verdict)));
                else
                    printf(" %s %s%s%s", CL_T(kinds[k]), cl_c(f, ok ? CL_GREEN : CL_CYAN),
                           ok ? CL_T("compiles") : CL_T("FAILS"), Z);
                if (rc == 0)
                    cl_result_free(&r);
            }
            if (json)
                json_array_append_new(labs, row);
            else
                printf("\n");
        }
        if (bad && !json)
            printf(CL_T("  %s(a failure here is a bug in cudalab: please report it)%s\n"), D, Z);
    }
    if (json) {
        json_object_set_new(doc, "labs", labs);
        cl_tour_questions(f, doc);
        print_json(doc);
        json_decref(doc);
        return bad ? CL_EXIT_INTERNAL : CL_EXIT_OK;
    }
    printf(CL_T("\n%s2. The question bank%s (quizzes, spaced review, mock interviews):\n"), B, Z);
    cl_tour_questions(f, NULL);
    printf(CL_T("\nOn a machine with an NVIDIA GPU, %scudalab tour%s grades every lab's reference there.\n"), B, Z);
    return bad ? CL_EXIT_INTERNAL : CL_EXIT_OK;
}

int cmd_tour(int argc, char **argv)
{
    int json = 0;
    for (int i = 1; i < argc; i++)
        json |= !strcmp(argv[i], "--json");
    char **names;
    int n;
    cl_err err;
    if (cl_lab_names(cl_home_dir(), &names, &n, &err)) {
        cl_cli_error("tour", CL_T("%s — is CUDALAB_HOME the cudalab folder?"), err.msg);
        return CL_EXIT_INTERNAL;
    }
    cl_gpu_info gpu;
    cl_detect_gpu(&gpu);
    int rc = gpu.present ? tour_gpu(names, n, json, &gpu) : tour_no_gpu(names, n, json);
    cl_lab_names_free(names, n);
    return rc;
}
