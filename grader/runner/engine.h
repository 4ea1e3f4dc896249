/* engine.h: the judge's case loop, as runner_main.c drives it.
 *
 * The engine owns everything a checker must not have to think about: shared buffers and
 * their guard zones, poisoning, input hashes, the calls through the solution's process,
 * the clock of record and its bound, snapshots, L2 flushing, repetition until the spread
 * is narrow, and the verdict lines. */
#ifndef CUDALAB_ENGINE_H
#define CUDALAB_ENGINE_H

#include <stdint.h>

#include "backend.h"
#include "link.h"
#include "grader/checker.h"
#include "grader/labconf.h"
#include "verdict.h"

typedef struct cl_engine_opts {
    const cl_lab *lab;
    const cl_checker *checker;
    cl_link *link;      /* the solution's process, started; the engine has it load the solution */
    size_t budget;      /* bytes of device memory a case may use, fixed before the exec started */
    uint64_t seed;
    int do_tests, do_bench;
    int sanitize_tools; /* sanitizer runs (--quick): the tool's bit (CL_SAN_*), only the cases marked
                         * for it; 0: every case */
    int plan;           /* only size the bench cases and report their dimensions (no solution) */
    const char **only;  /* case names to run (NULL-terminated), or NULL for all */
    void (*after_load)(void *ctx); /* called once the solution is loaded (the libraries' baseline) */
    void (*after_call)(void *ctx); /* called after every call (libraries loaded since) */
    void *ctx;
    void (*before_load)(void *ctx); /* called just before the solution is loaded */
} cl_engine_opts;

typedef enum cl_engine_rc {
    CL_ENGINE_OK = 0,
    CL_ENGINE_SOLUTION_LOST,  /* the solution's process ended: the rest of the cases were not run */
    CL_ENGINE_DEVICE_LOST,    /* the GPU became unusable */
    CL_ENGINE_LOAD_ERROR,     /* dlopen failed */
    CL_ENGINE_MISSING_SYMBOL, /* no entry point */
    CL_ENGINE_JUDGE_ERROR,    /* the judge failed before the solution was loaded */
} cl_engine_rc;

typedef struct cl_engine_outcome {
    char message[1024];
} cl_engine_outcome;

/* Calibrates, loads the solution, runs the selected cases, writing one verdict line per
 * case. Returns a cl_engine_rc; out->message says why for anything but OK. */
int cl_engine_run(const cl_engine_opts *o, const be_device *dev, cl_verdict_out *vo, cl_engine_outcome *out);

#endif
