/* labconf.h: a lab's lab.yaml, parsed and validated.
 *
 * lab.yaml is the one source of truth for a lab's metadata: title, difficulty, topics,
 * entry point, cases, tolerances (each with its justification), tiers, score weights,
 * hints and limits. Both the parent (cudalab) and the runner (cudalab-run) read it
 * through this module, so they cannot disagree. Every error names file:line:column. */
#ifndef CUDALAB_LABCONF_H
#define CUDALAB_LABCONF_H

#include <stddef.h>

#include "err.h"
#include "yamlutil.h"

#define CL_MAX_CASES 64
#define CL_MAX_PARAMS 16
#define CL_MAX_HINTS 8
#define CL_MAX_TOPICS 8
#define CL_MAX_TOLS 8
#define CL_MAX_BANNED 16

typedef struct cl_text {
    char *en;
    char *zh;
} cl_text;

typedef struct cl_param {
    char *key;
    char *value; /* the scalar as written ("2^28", "max", "uniform") */
    int line;
} cl_param;

typedef struct cl_case_conf {
    char *name;
    int bench;     /* 0: correctness case, 1: bench case */
    int runs;      /* bench: timed runs (>= 20) */
    int sanitize;  /* --sanitize runs it under these tools: bits of cl_sanitize_tools (cases: all) */
    int line;
    int nparams;
    cl_param params[CL_MAX_PARAMS];
} cl_case_conf;

/* The compute-sanitizer tools `cudalab test --sanitize` runs, in order; a case's "sanitize"
 * is true (all of them), false (none) or one tool's name, bit 1 << i here. A case too slow
 * for racecheck (which watches every shared-memory access) can stay under memcheck. */
#define CL_SAN_TOOLS 2
#define CL_SAN_ALL ((1 << CL_SAN_TOOLS) - 1)
extern const char *const cl_sanitize_tools[CL_SAN_TOOLS];
int cl_sanitize_bit(const char *tool); /* 1 << i for cl_sanitize_tools[i], 0 for any other name */

typedef struct cl_tol_conf {
    char *key;
    double value;
    char *why;
    int line;
} cl_tol_conf;

typedef enum { CL_METRIC_BANDWIDTH, CL_METRIC_TFLOPS, CL_METRIC_THROUGHPUT, CL_METRIC_TIME } cl_metric;
/* What a bench case's metric is divided by: this GPU's copy (bytes read + written),
 * read-only or write-only bandwidth; cuBLAS on the same shape; or the reference. */
typedef enum { CL_CEIL_COPY, CL_CEIL_CUBLAS, CL_CEIL_REFERENCE, CL_CEIL_READ, CL_CEIL_WRITE } cl_ceiling;
/* How the bench cases' fractions become one (docs/grading-policy.md, "Score"). */
typedef enum { CL_AGG_GEOMEAN, CL_AGG_SLOWEST } cl_aggregate;

typedef struct cl_lab {
    char dir[1024];  /* labs/<name> */
    char path[1100]; /* labs/<name>/lab.yaml */
    char *name;
    cl_text title;
    int difficulty;
    int ntopics;
    char *topics[CL_MAX_TOPICS];
    char *entry;     /* the extern "C" symbol a solution must export */
    char *signature; /* shown to the student */
    cl_metric metric;
    cl_ceiling ceiling;
    double timeout_test_s, timeout_bench_s;
    char *arch_suffix;   /* "a" builds sm_90a instead of sm_90 on Hopper */
    char *nvcc_flags;    /* extra flags for solutions, space separated */
    int nbanned_headers, nbanned_libs;
    char *banned_headers[CL_MAX_BANNED];
    char *banned_libs[CL_MAX_BANNED]; /* library stems: "cublas" bans libcublas.so* */
    int ntols;
    cl_tol_conf tols[CL_MAX_TOLS];
    int ncases;
    cl_case_conf cases[CL_MAX_CASES]; /* correctness cases first, then bench cases */
    double tier_pass, tier_good, tier_excellent; /* fractions of the ceiling */
    double w_correct, w_pass, w_good, w_excellent; /* score weights; max = correct + excellent */
    cl_aggregate aggregate;                        /* score.aggregate: geomean (default) or slowest */
    int nhints;
    cl_text hints[CL_MAX_HINTS];
} cl_lab;

/* Loads labs/<name>/lab.yaml under home. */
int cl_lab_load(const char *home, const char *name, cl_lab *lab, cl_err *err);
/* Loads a lab.yaml at an explicit path (lint, tests). */
int cl_lab_load_file(const char *path, cl_lab *lab, cl_err *err);
void cl_lab_free(cl_lab *lab);

/* The lab names under home/labs (folders with a lab.yaml), sorted. Free with
 * cl_lab_names_free. */
int cl_lab_names(const char *home, char ***names, int *count, cl_err *err);
void cl_lab_names_free(char **names, int count);

const cl_tol_conf *cl_lab_tol(const cl_lab *lab, const char *key);
const char *cl_case_param(const cl_case_conf *c, const char *key);
const char *cl_metric_name(cl_metric m);
const char *cl_ceiling_name(cl_ceiling c);
/* 1 for the ceilings measured by the device probe in GB/s (copy, read, write). */
int cl_ceiling_is_bandwidth(cl_ceiling c);
/* Max score of a lab: correctness + excellent tier. */
double cl_lab_max_score(const cl_lab *lab);

/* Lints every lab under home: lab.yaml schema and the five parts (skeleton, README,
 * lab.yaml, reference, checker). Calls report(ctx, "file:line: message") per problem;
 * returns the number of problems. */
int cl_lab_lint_all(const char *home, void (*report)(void *ctx, const char *msg), void *ctx);

#endif
