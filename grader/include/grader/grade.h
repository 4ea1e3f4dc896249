/* grade.h: grading one solution, end to end.
 *
 * compile (cached) -> static checks (banned headers and libraries, the entry point,
 * Tensor Core instructions) -> correctness in a runner process -> optional
 * compute-sanitizer pass -> performance of the reference and the solution, each in its
 * own runner process, against this GPU's ceilings -> score. The parent never touches
 * CUDA; every way the child can fail becomes a verdict. */
#ifndef CUDALAB_GRADE_H
#define CUDALAB_GRADE_H

#include <stdint.h>

#include "err.h"
#include "grader/result.h"

typedef struct cl_grade_opts {
    const char *lab;           /* lab name */
    const char *solution;      /* the .cu file */
    int test, bench, sanitize; /* what to do (bench implies test) */
    int have_seed;
    uint64_t seed;
    const char *arch;          /* --arch; NULL: this GPU */
    int no_reference;          /* do not time the reference alongside */
    const char *runner;        /* NULL: cudalab-run next to cudalab */
    double timeout_scale;      /* course configs may scale lab timeouts; 0 = 1 */
    double timeout_s;          /* > 0: this wall-clock limit per runner instead of lab.yaml's */
    const char *const *env_set; /* extra environment for runners (CUDA_VISIBLE_DEVICES) */
    const char *const *extra_banned_headers; /* from a course config, NULL-terminated */
    const char *const *extra_banned_libs;
    int allow_prebuilt;        /* accept a .so as the solution (the CPU test suite) */
    unsigned long long max_file_bytes; /* runner limits (classroom); 0 = defaults */
    unsigned long long max_procs;
    void (*progress)(void *ctx, const char *msg);
    void *ctx;
    /* the ladder: the yardsticks (reference medians, cuBLAS on the bench shapes) measured
     * by the first grading of a run and used by the later ones; NULL: measured every time */
    struct cl_yardstick_memo *memo;
} cl_grade_opts;

typedef struct cl_yardstick_memo cl_yardstick_memo;
cl_yardstick_memo *cl_yardstick_memo_new(void);
void cl_yardstick_memo_free(cl_yardstick_memo *m);

/* Grades; returns -1 only when grading could not start (bad options). Everything that
 * goes wrong with the solution is a verdict in r. */
int cl_grade(const cl_grade_opts *o, cl_result *r, cl_err *err);

#endif
