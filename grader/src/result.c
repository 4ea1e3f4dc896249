/* result.c: the one table of verdicts, the judge's words for cases and runs, and the
 * result struct's lifetime. */
#include "grader/result.h"

#include "i18n.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The one table of verdicts: every part of cudalab (the judge's case statuses, grading,
 * reports, the CLI's exit codes) reads it. */
static const cl_verdict_info table[] = {
    [CL_V_ERROR] = {"error", CL_FAULT_CUDALAB, 4, "cudalab could not grade it (not your fault; it is regraded)"},
    [CL_V_NO_DEVICE] = {"no_device", CL_FAULT_ENVIRONMENT, 3, "compiled; there is no GPU here to run it"},
    [CL_V_COMPILE_ERROR] = {"compile_error", CL_FAULT_SOLUTION, 1, "nvcc could not compile it"},
    [CL_V_MISSING_SYMBOL] = {"missing_symbol", CL_FAULT_SOLUTION, 1, "the entry point is not exported"},
    [CL_V_BANNED] = {"banned", CL_FAULT_SOLUTION, 1, "it uses a header or library this lab does not allow"},
    [CL_V_CRASH] = {"crash", CL_FAULT_SOLUTION, 1, "its process died, exited or broke the protocol"},
    [CL_V_TIMEOUT] = {"timeout", CL_FAULT_SOLUTION, 1, "it did not finish in time"},
    [CL_V_CUDA_ERROR] = {"cuda_error", CL_FAULT_SOLUTION, 1, "a CUDA error while its code ran"},
    [CL_V_OUT_OF_BOUNDS] = {"out_of_bounds", CL_FAULT_SOLUTION, 1, "it wrote outside its outputs or into its inputs"},
    [CL_V_WRONG] = {"wrong", CL_FAULT_SOLUTION, 1, "an output is wrong"},
    [CL_V_SANITIZER] = {"sanitizer", CL_FAULT_SOLUTION, 1, "compute-sanitizer found errors"},
    [CL_V_OFF_STREAM] = {"off_stream", CL_FAULT_SOLUTION, 1, "GPU work outside the call, or a clock that disagrees"},
    [CL_V_CORRECT] = {"correct", CL_FAULT_NONE, 0, "every correctness case passed"},
    [CL_V_SLOW] = {"slow", CL_FAULT_SOLUTION, 1, "correct, below the pass tier"},
    [CL_V_PASS] = {"pass", CL_FAULT_NONE, 0, "correct, pass tier"},
    [CL_V_GOOD] = {"good", CL_FAULT_NONE, 0, "correct, good tier"},
    [CL_V_EXCELLENT] = {"excellent", CL_FAULT_NONE, 0, "correct, excellent tier"},
};

const cl_verdict_info *cl_verdict_info_of(cl_verdict v)
{
    return (unsigned)v < sizeof table / sizeof table[0] && table[v].name ? &table[v] : &table[CL_V_ERROR];
}

const char *cl_verdict_name(cl_verdict v) { return cl_verdict_info_of(v)->name; }

cl_verdict cl_verdict_from_name(const char *name)
{
    for (size_t k = 0; name && k < sizeof table / sizeof table[0]; k++)
        if (table[k].name && !strcmp(table[k].name, name))
            return (cl_verdict)k;
    return CL_V_ERROR;
}

int cl_verdict_is(const char *name, cl_verdict v) { return name && !strcmp(name, cl_verdict_name(v)); }

cl_verdict cl_verdict_of_case(const char *status)
{
    if (!status)
        return CL_V_ERROR;
    if (cl_case_passed(status))
        return CL_V_CORRECT;
    cl_verdict v = cl_verdict_from_name(status);
    return v > CL_V_NO_DEVICE && v < CL_V_CORRECT ? v : CL_V_ERROR;
}

int cl_verdict_ok(cl_verdict v) { return v >= CL_V_CORRECT; }

/* ---- the judge's words for a case and for how its run ended ---- */

static const char case_pass[] = "pass", case_not_run[] = "not_run";

const char *cl_case_status_name(cl_verdict v) { return v == CL_V_CORRECT ? case_pass : cl_verdict_name(v); }

const char *cl_case_not_run_name(void) { return case_not_run; }

int cl_case_passed(const char *status) { return status && !strcmp(status, case_pass); }

int cl_case_not_run(const char *status) { return status && !strcmp(status, case_not_run); }

static const char *const run_status[] = {
    [CL_RUN_OK] = "ok",
    [CL_RUN_SOLUTION_LOST] = "solution_lost",
    [CL_RUN_DEVICE_LOST] = "device_lost",
    [CL_RUN_LOAD_ERROR] = "load_error",
    [CL_RUN_MISSING_SYMBOL] = NULL, /* these three are spelled as their verdicts */
    [CL_RUN_JUDGE_ERROR] = NULL,
    [CL_RUN_NO_DEVICE] = NULL,
    [CL_RUN_UNKNOWN] = "?",
};

const char *cl_run_status_name(cl_run_status s)
{
    switch (s) {
    case CL_RUN_MISSING_SYMBOL: return cl_verdict_name(CL_V_MISSING_SYMBOL);
    case CL_RUN_JUDGE_ERROR: return cl_verdict_name(CL_V_ERROR);
    case CL_RUN_NO_DEVICE: return cl_verdict_name(CL_V_NO_DEVICE);
    default: return (unsigned)s < CL_RUN_UNKNOWN ? run_status[s] : run_status[CL_RUN_UNKNOWN];
    }
}

cl_run_status cl_run_status_of(const char *name)
{
    for (int s = CL_RUN_OK; name && s < CL_RUN_UNKNOWN; s++)
        if (!strcmp(cl_run_status_name((cl_run_status)s), name))
            return (cl_run_status)s;
    return CL_RUN_UNKNOWN;
}

int cl_verdict_graded(cl_verdict v)
{
    cl_fault f = cl_verdict_info_of(v)->fault;
    return f == CL_FAULT_NONE || f == CL_FAULT_SOLUTION;
}

void cl_result_init(cl_result *r)
{
    memset(r, 0, sizeof *r);
    r->tensor_cores = -1;
    r->limiting_case = -1;
}

void cl_result_set2(cl_result *r, cl_verdict v, const char *en, const char *tr)
{
    r->verdict = v;
    free(r->message);
    free(r->message_tr);
    r->message = strdup(en ? en : "");
    r->message_tr = tr && strcmp(tr, r->message) ? strdup(tr) : NULL;
}

void cl_result_set(cl_result *r, cl_verdict v, const char *fmt, ...)
{
    char en[4096], tr[4096];
    const char *tfmt = cl_tr(fmt);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(en, sizeof en, fmt, ap);
    va_end(ap);
    tr[0] = '\0';
    if (tfmt != fmt) {
        va_start(ap, fmt);
        vsnprintf(tr, sizeof tr, tfmt, ap);
        va_end(ap);
    }
    cl_result_set2(r, v, en, tfmt != fmt ? tr : NULL);
}

const char *cl_result_message(const cl_result *r) { return r->message_tr ? r->message_tr : r->message; }

const char *cl_result_title(const cl_result *r)
{
    return cl_lang_current() == CL_LANG_ZH && r->title_zh[0] ? r->title_zh : r->title;
}

static void free_case(cl_case_result *c)
{
    free(c->name);
    free(c->status);
    free(c->message);
    free(c->where);
    free(c->mismatch);
    free(c->shape);
    free(c->scaled);
    free(c->items_unit);
    free(c->off_stream_why);
}

void cl_case_result_clear(cl_case_result *c)
{
    free_case(c);
    memset(c, 0, sizeof *c);
}

void cl_result_free(cl_result *r)
{
    free(r->message);
    free(r->message_tr);
    free(r->detail);
    free(r->compile_log);
    for (int i = 0; i < r->ncases; i++)
        free_case(&r->cases[i]);
    free(r->output);
    for (int i = 0; i < r->nlibs; i++)
        free(r->libs[i]);
    free(r->sanitizer);
    memset(r, 0, sizeof *r);
}
