/* mini_engine.h: a small stand-in for the grading engine, used to develop and measure the
 * topo_sort and paged_attention labs on the GPU before the engine (grader/runner) landed.
 *
 * It implements the runner services of grader/checker.h (buffers with guard zones, NaN
 * poisoning, cl_fill, case parameters, verdict messages) over a backend (graph_dev.cu: CUDA)
 * and drives a checker through the same life of a case as the engine does. The numbers in
 * docs/PERFORMANCE.md for these labs were measured with it; the engine's own runner
 * (cudalab test/bench) is the tool for everything else, and tests/unit/test_graph_labs.c
 * runs the same checkers through it on the CPU. Cases come from a flat file that
 * bench/dev/cases.py writes from lab.yaml (one source of truth). */
#ifndef MINI_ENGINE_H
#define MINI_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "grader/checker.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mini_backend {
    void *(*alloc)(size_t bytes);
    void (*release)(void *dev);
    int (*upload)(void *dev, const void *host, size_t bytes);
    int (*download)(void *host, const void *dev, size_t bytes);
    int (*set)(void *dev, int byte, size_t bytes);
    int (*fill)(void *dev, size_t count, cl_dtype t, const cl_gen *g);
    size_t (*mem_free)(void);
    /* waits for the device; -1 and a message on an asynchronous error */
    int (*sync)(char *msg, size_t len);
} mini_backend;

#define MINI_MAX_PARAMS 24

struct cl_case {
    char name[128];
    int bench, runs;
    int nparams;
    char key[MINI_MAX_PARAMS][48];
    char val[MINI_MAX_PARAMS][128];
};

typedef enum { MINI_OK = 0, MINI_WRONG = 1, MINI_ERROR = -1 } mini_status;

/* Loads the cases of one lab from the flat file (cases.py's output). */
int mini_load_cases(const char *path, const char *lab, cl_case *cases, int max, int *count);
void mini_set_backend(const mini_backend *b);
void mini_set_seed(uint64_t seed);

/* One case's life, step by step (the caller times the launch). */
typedef struct cl_run mini_case_run;
mini_case_run *mini_case_open(const cl_checker *chk, const cl_case *c);
int mini_case_generate(mini_case_run *cr, uint64_t seed);  /* + poison outputs */
void mini_case_launch(mini_case_run *cr, const void *entry, void *stream);
/* After the launch: device errors, guard zones, unchanged inputs (if snap), then verify.
 * Returns MINI_OK, MINI_WRONG (message in mini_case_message) or MINI_ERROR. The verdict
 * kind is in mini_case_verdict: "ok", "wrong", "out_of_bounds", "cuda_error", "error". */
int mini_case_check(mini_case_run *cr, int full);
void mini_case_snapshot_inputs(mini_case_run *cr); /* before the launch of correctness runs */
const char *mini_case_message(const mini_case_run *cr);
const char *mini_case_verdict(const mini_case_run *cr);
const char *mini_case_shape(const mini_case_run *cr);
double mini_case_bytes(const mini_case_run *cr);
double mini_case_flops(const mini_case_run *cr);
double mini_case_items(const mini_case_run *cr);
const char *mini_case_item_unit(const mini_case_run *cr);
void mini_case_close(mini_case_run *cr);

/* The case seed of the run seed and a case name (as cl_case_seed). */
uint64_t mini_seed_of(const char *name);

#ifdef __cplusplus
}
#endif

#endif
