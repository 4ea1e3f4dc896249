/* cli_profile.c: `cudalab bench --profile`: after the timed runs, ncu on the solution's
 * kernels for the slowest bench case, summarised in the lab's terms. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "cli_grade.h"
#include "grader/compile.h"
#include "grader/labconf.h"
#include "grader/profile.h"
#include "paths.h"
#include "term.h"

int cl_cli_profile(const cl_result *r, const cl_grade_opts *o, json_t **summary, cl_err *err)
{
    *summary = NULL;
    const cl_case_result *bc = NULL;
    for (int i = 0; i < r->ncases; i++)
        if (r->cases[i].bench && r->cases[i].runs && (!bc || r->cases[i].median_ms > bc->median_ms))
            bc = &r->cases[i];
    if (!bc)
        return cl_err_set(err, "no bench case was timed, so there is nothing to profile (it runs after a correct bench)");
    cl_lab lab;
    if (cl_lab_load(cl_home_dir(), r->lab, &lab, err))
        return -1;
    /* the same build the bench ran (from the cache) */
    char so[CL_PATH_MAX];
    size_t sl = strlen(o->solution);
    int rc = 0;
    if (o->allow_prebuilt && sl > 3 && !strcmp(o->solution + sl - 3, ".so")) {
        snprintf(so, sizeof so, "%s", o->solution);
    } else {
        cl_compile_opts co = {o->solution, o->arch, lab.arch_suffix, lab.nvcc_flags, 0, NULL};
        cl_compile_result cr;
        if (cl_compile(&co, &cr, err) || !cr.ok) {
            if (!cr.ok) cl_err_set(err, "the solution did not compile again for the profile");
            rc = -1;
        } else {
            snprintf(so, sizeof so, "%s", cr.so_path);
        }
        cl_compile_result_free(&cr);
    }
    if (rc == 0) {
        char runner[CL_PATH_MAX];
        snprintf(runner, sizeof runner, "%s", o->runner ? o->runner : "");
        if (!o->runner)
            snprintf(runner, sizeof runner, "%s/cudalab-run", cl_exe_dir());
        cl_profile_opts po = {runner, lab.path, so, bc->name, r->seed, 0, 0};
        cl_ncu_report rep;
        if (o->progress)
            o->progress(o->ctx, "profiling with Nsight Compute");
        if (cl_profile_run(&po, &rep, err)) {
            rc = -1;
        } else {
            cl_profile_ctx ctx = {r->lab, bc->name, bc->bytes, r->copy_gbps, lab.metric == CL_METRIC_TFLOPS};
            *summary = cl_profile_summarize(&rep, &ctx);
            cl_ncu_report_free(&rep);
        }
    }
    cl_lab_free(&lab);
    return rc;
}
