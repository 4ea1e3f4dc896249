/* result.c: the result struct's lifetime and verdict names. */
#include "grader/result.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[] = {
    [CL_V_ERROR] = "error",           [CL_V_NO_DEVICE] = "no_device",
    [CL_V_COMPILE_ERROR] = "compile_error", [CL_V_MISSING_SYMBOL] = "missing_symbol",
    [CL_V_BANNED] = "banned",         [CL_V_CRASH] = "crash",
    [CL_V_TIMEOUT] = "timeout",       [CL_V_CUDA_ERROR] = "cuda_error",
    [CL_V_OUT_OF_BOUNDS] = "out_of_bounds", [CL_V_WRONG] = "wrong",
    [CL_V_SANITIZER] = "sanitizer",   [CL_V_OFF_STREAM] = "off_stream",
    [CL_V_CORRECT] = "correct",       [CL_V_SLOW] = "slow",
    [CL_V_PASS] = "pass",             [CL_V_GOOD] = "good",
    [CL_V_EXCELLENT] = "excellent",
};

const char *cl_verdict_name(cl_verdict v)
{
    return (unsigned)v < sizeof names / sizeof names[0] && names[v] ? names[v] : "error";
}

cl_verdict cl_verdict_from_name(const char *name)
{
    for (size_t k = 0; name && k < sizeof names / sizeof names[0]; k++)
        if (names[k] && !strcmp(names[k], name))
            return (cl_verdict)k;
    return CL_V_ERROR;
}

int cl_verdict_ok(cl_verdict v) { return v >= CL_V_CORRECT; }

void cl_result_init(cl_result *r)
{
    memset(r, 0, sizeof *r);
    r->tensor_cores = -1;
    r->limiting_case = -1;
}

void cl_result_set(cl_result *r, cl_verdict v, const char *fmt, ...)
{
    char buf[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    r->verdict = v;
    free(r->message);
    r->message = strdup(buf);
}

static void free_case(cl_case_result *c)
{
    free(c->name);
    free(c->status);
    free(c->message);
    free(c->where);
    free(c->shape);
    free(c->scaled);
    free(c->items_unit);
}

void cl_result_free(cl_result *r)
{
    free(r->message);
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
