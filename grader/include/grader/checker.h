/* checker.h: what one lab's checker (grader/labs/<lab>.c) implements, and the runner
 * services it may use.
 *
 * A checker knows one lab: how to size a case, generate its inputs, describe the call of the
 * solution's entry point, and verify the outputs against a CPU reference. Everything else
 * (guard zones, NaN poisoning, the call itself in the solution's own process, timing, L2
 * flushing, repetition, the verdict) is the engine's. A checker runs in the judge and never
 * calls student code: it says which arguments the call takes (args), and the solution's
 * process rebuilds them against its own mappings of the same buffers.
 *
 * Life of a case, as the engine drives it:
 *   setup(case)                      read params, size to free memory, allocate, set work
 *   correctness case:  generate(seed) -> poison -> call -> snapshot -> guards, inputs
 *                      -> verify(full)
 *   bench case:        generate(seed0) -> warm-up call -> verify(full)
 *                      then for each timed run r: generate(secret seed) -> poison -> flush L2
 *                      -> [timed: call] -> snapshot -> guards, inputs -> verify(quick)
 *   verify reads the outputs' snapshot; sampled checks take their positions from
 *   cl_check_seed(), drawn after the call.
 *   teardown                         (buffers and cl_host_alloc memory are freed for you)
 *
 * Checkers are plain C: they touch device memory only through the services below, so
 * the same checker runs against the CUDA backend (cudalab-run) and the host backend
 * used by the CPU test suite. */
#ifndef CUDALAB_CHECKER_H
#define CUDALAB_CHECKER_H

#include <stddef.h>
#include <stdint.h>

#include "grader/gen.h"
#include "grader/mismatch.h"

typedef struct cl_run cl_run;   /* the runner's state: one lab, one process */
typedef struct cl_case cl_case; /* one case of lab.yaml (correctness or bench) */
typedef struct cl_args cl_args; /* one call's arguments, as data (runner/callargs.h) */

typedef struct cl_checker {
    const char *lab;   /* the lab's name, as in labs/<lab>/ */
    size_t state_size; /* bytes of per-case state the engine zero-allocates */
    /* Read params, size the problem, allocate buffers, declare the work. 0 or -1. */
    int (*setup)(cl_run *run, const cl_case *c, void *state);
    /* Write fresh inputs derived from seed into the input buffers. 0 or -1. */
    int (*generate)(cl_run *run, void *state, uint64_t seed);
    /* Describe the call of the entry point, argument by argument (the stream is added
     * last). 0 or -1. */
    int (*args)(cl_run *run, void *state, cl_args *a);
    /* Check the outputs. full = 1: everything the CPU can afford (correctness cases and
     * the bench warm-up); full = 0: a cheaper check after each timed run (e.g. a random
     * sample of elements). Returns 0 pass, 1 wrong (after cl_mismatch/cl_failf), -1 error. */
    int (*verify)(cl_run *run, void *state, int full);
    /* Optional: free what setup kept outside the engine's allocators. */
    void (*teardown)(cl_run *run, void *state);
} cl_checker;

/* ---- case parameters (from lab.yaml; errors name the file and line) ---- */

const char *cl_case_name(const cl_case *c);
int cl_case_is_bench(const cl_case *c);
/* The case's base seed: from the run seed and the case name. */
uint64_t cl_case_seed(const cl_case *c);
/* Presence, and typed reads. A missing key with no default, or a wrong type, is an
 * error that names lab.yaml:line. */
int cl_param_has(const cl_case *c, const char *key);
int cl_param_i64(cl_run *run, const cl_case *c, const char *key, long long *out);
int cl_param_i64_or(cl_run *run, const cl_case *c, const char *key, long long dflt, long long *out);
int cl_param_f64(cl_run *run, const cl_case *c, const char *key, double *out);
int cl_param_f64_or(cl_run *run, const cl_case *c, const char *key, double dflt, double *out);
const char *cl_param_str_or(const cl_case *c, const char *key, const char *dflt);
/* A size that may be "max": the largest count whose footprint (fixed + count * per_unit
 * bytes) fits in the memory budget; a number too large for this GPU is halved until it
 * fits (the report says so). *out >= 1 on success. */
int cl_param_size(cl_run *run, const cl_case *c, const char *key, double per_unit_bytes,
                  double fixed_bytes, long long *out);
/* A tolerance from lab.yaml's tolerance map (value of entry `key`). */
double cl_tolerance(cl_run *run, const char *key, double dflt);

/* Bytes of device memory a case may use (a fraction of what is free). */
size_t cl_mem_budget(cl_run *run);

/* ---- device buffers (freed after the case) ---- */

/* Inputs are guarded (an overrun of the solution's writes is caught) and checked for
 * modification after correctness cases. Outputs are also poisoned with 0xFF bytes before
 * every call (NaN as fp32/fp16, -1 as int32), so an unwritten element is caught. */
void *cl_alloc_in(cl_run *run, size_t bytes, const char *name);
void *cl_alloc_out(cl_run *run, size_t bytes, const char *name);
/* Unguarded device memory for the checker's own use. */
void *cl_alloc_dev(cl_run *run, size_t bytes);
/* Host memory freed after the case. */
void *cl_host_alloc(cl_run *run, size_t bytes);

int cl_upload(cl_run *run, void *dev, const void *host, size_t bytes);
int cl_download(cl_run *run, void *host, const void *dev, size_t bytes);
/* Fills count elements of type t at dev with generator g (runs on the device). */
int cl_fill(cl_run *run, void *dev, size_t count, cl_dtype t, const cl_gen *g);

/* The index of the first fp16 NaN among count elements at dev (an output: its snapshot),
 * or -1 in *first: scanned where the data is (on the GPU), so a checker that samples an
 * output need not download all of it to know every element was written. */
int cl_find_nan16(cl_run *run, const void *dev, size_t count, long long *first);

/* fp64 sum and sum of magnitudes of count elements straight from generator g: a reference
 * value no solution can have touched. */
int cl_gen_sum(cl_run *run, size_t count, cl_dtype t, const cl_gen *g, double *sum, double *abs_sum);
/* A secret seed drawn after the last call, for where sampled checks look. */
uint64_t cl_check_seed(const cl_run *run);

/* ---- the call's arguments, in the order of the entry point's parameters ---- */

/* A pointer into a buffer from cl_alloc_in/cl_alloc_out (NULL passes as NULL). */
void cl_arg_ptr(cl_run *run, cl_args *a, const void *dev);
void cl_arg_i32(cl_args *a, int32_t v);
void cl_arg_i64(cl_args *a, int64_t v);
void cl_arg_f32(cl_args *a, float v);
/* A pointer to a struct of plain bytes (copied); its pointer fields are declared with
 * cl_arg_blob_ptr (offset in the struct, device pointer of the judge's). One a call. */
void cl_arg_blob(cl_args *a, const void *host, size_t bytes);
void cl_arg_blob_ptr(cl_run *run, cl_args *a, size_t at, const void *dev);

/* ---- work, for the performance metric ---- */

/* Bytes that must move through device memory (each input read once, each output written
 * once) and floating-point operations of one call. */
void cl_set_work(cl_run *run, double bytes, double flops);
/* Items processed per call (e.g. edges for topo_sort) and their unit, for throughput. */
void cl_set_items(cl_run *run, double items, const char *unit);
/* The problem's dimensions (e.g. M, N, K), for ceilings measured per shape (cuBLAS). */
void cl_set_dims(cl_run *run, int ndims, const long long *dims);
/* Free text shown with the case (e.g. "16384 x 16384, 1.0 GiB"). */
void cl_set_shape(cl_run *run, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- verdicts ---- */

/* A wrong element: where ("out[17]", "row 3, col 40"), expected and got. Returns 1. */
int cl_mismatch(cl_run *run, const char *where, double expected, double got, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Any other wrong answer, in words. Returns 1. */
int cl_failf(cl_run *run, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* 1 once cl_mismatch or cl_failf has recorded this check's failure. */
int cl_run_failed(const cl_run *run);
/* An error of the checker or of the environment (not the student's fault). Returns -1. */
int cl_errorf(cl_run *run, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- the full report of a wrong case (mismatch.h), sent with the verdict ---- */

/* Starts the report of one output array, in the lab's terms (names of its dimensions) and
 * with the tolerance the checker applies. Feed every element compared to the returned
 * accumulator with cl_mm_add, passing the checker's own judgement; keep comparing after the
 * first wrong one (cl_mismatch keeps the first for the one-line message). The engine
 * finishes the report and sends it with a `wrong` case. One report a verify; a later call
 * starts over. */
cl_mm_acc *cl_report_elements(cl_run *run, const cl_mm_shape *shape, const cl_mm_tol *tol);
/* For outputs with more than one right form: the rule broken, from cl_mismatch_topo or
 * cl_mismatch_nms (the first broken one is kept; r's example is released either way). */
void cl_report_rule(cl_run *run, cl_mm_rule *r);

/* ---- helpers for comparisons ---- */

/* |got - expected| <= abs_tol + rel_tol * |expected|, with NaN never close and an
 * infinity close only to the same infinity. */
int cl_close(double got, double expected, double abs_tol, double rel_tol);
/* Unit roundoff of fp32 (2^-24) and fp16 (2^-11). */
#define CL_U32 5.9604644775390625e-08
#define CL_U16 4.8828125e-04
/* Uniform random integer in [0, n) from a 64-bit seed and a counter (for sampling). */
uint64_t cl_sample_index(uint64_t seed, uint64_t k, uint64_t n);

#endif
