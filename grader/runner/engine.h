/* engine.h: the runner's case loop, as runner_main.c drives it.
 *
 * The engine owns everything a checker must not have to think about: guard zones,
 * poisoning, input-modification checks, timing with events and device-wide sync, L2
 * flushing, repetition until the spread is narrow, and the verdict lines. */
#ifndef CUDALAB_ENGINE_H
#define CUDALAB_ENGINE_H

#include <stdint.h>

#include "backend.h"
#include "grader/checker.h"
#include "grader/labconf.h"
#include "verdict.h"

typedef struct cl_engine_opts {
    const cl_lab *lab;
    const cl_checker *checker;
    const void *entry; /* the solution's entry point */
    uint64_t seed;
    int do_tests, do_bench;
    int quick;          /* sanitizer runs: correctness cases marked sanitize only */
    const char **only;  /* case names to run (NULL-terminated), or NULL for all */
} cl_engine_opts;

/* Runs the selected cases, writing one verdict line per case. Returns 0 when the run
 * completed (whatever the cases' outcomes), -1 when the device became unusable. */
int cl_engine_run(const cl_engine_opts *o, const be_device *dev, cl_verdict_out *vo);

/* Called after each call of the solution, so library loads are noticed promptly. */
extern void (*cl_engine_after_call)(void);

#endif
