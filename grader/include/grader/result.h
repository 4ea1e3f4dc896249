/* result.h: what grading a solution produced, for every report to read.
 *
 * The flow is one way: lab.yaml -> checker config -> runner -> cl_result -> emitters
 * (terminal text, JSON, JUnit XML, the progress database, the classroom gradebook). */
#ifndef CUDALAB_RESULT_H
#define CUDALAB_RESULT_H

#include <stdint.h>

#include "grader/labconf.h"

/* The one-word outcome, in the order a student should fix them. */
typedef enum cl_verdict {
    CL_V_ERROR = 0,      /* cudalab could not grade (environment, checker): not the student's fault */
    CL_V_NO_DEVICE,      /* compiled; no GPU to run it */
    CL_V_COMPILE_ERROR,
    CL_V_MISSING_SYMBOL,
    CL_V_BANNED,
    CL_V_CRASH,          /* signal, or ended without a verdict */
    CL_V_TIMEOUT,
    CL_V_CUDA_ERROR,
    CL_V_OUT_OF_BOUNDS,
    CL_V_WRONG,
    CL_V_SANITIZER,      /* compute-sanitizer found errors */
    CL_V_OFF_STREAM,     /* work launched outside the given stream */
    CL_V_CORRECT,        /* correctness only (cudalab test): every case passed */
    CL_V_SLOW,           /* correct, below the pass tier */
    CL_V_PASS,
    CL_V_GOOD,
    CL_V_EXCELLENT,
} cl_verdict;

/* Whose fault a verdict is: nobody's, the solution's, cudalab's, or the machine's. */
typedef enum cl_fault { CL_FAULT_NONE, CL_FAULT_SOLUTION, CL_FAULT_CUDALAB, CL_FAULT_ENVIRONMENT } cl_fault;

typedef struct cl_verdict_info {
    const char *name;    /* the one spelling, in every report */
    cl_fault fault;
    int exit_code;       /* of cudalab test/bench/submit: 0 ok, 1 the solution, 3 environment, 4 cudalab */
    const char *meaning; /* one line */
} cl_verdict_info;

const cl_verdict_info *cl_verdict_info_of(cl_verdict v);
const char *cl_verdict_name(cl_verdict v);
/* The verdict named name; CL_V_ERROR for an unknown or NULL name. */
cl_verdict cl_verdict_from_name(const char *name);
/* 1 when name is v's name (a report's or gradebook's verdict word compared with the table). */
int cl_verdict_is(const char *name, cl_verdict v);
/* The verdict a judge case status stands for ("pass" -> correct, "wrong", "out_of_bounds",
 * "cuda_error", "crash", "timeout", "error"); unknown statuses are errors. */
cl_verdict cl_verdict_of_case(const char *status);
/* 1 for verdicts meaning "works" (correct and better). */
int cl_verdict_ok(cl_verdict v);
/* 1 for verdicts that are a grade of the solution (its fault or nobody's); 0 for those that
 * hold none (cudalab's fault, or the machine's: no score, never a 0). */
int cl_verdict_graded(cl_verdict v);

/* A case's status on the judge's verdict channel: the name of the verdict it stands for
 * ("wrong", "out_of_bounds", "cuda_error", "crash", "timeout", "error"), except "pass" for
 * a case that passed (CL_V_CORRECT) and "not_run" for one the judge never ran. */
const char *cl_case_status_name(cl_verdict v);
const char *cl_case_not_run_name(void);
int cl_case_passed(const char *status);
int cl_case_not_run(const char *status);

/* How a judge's run ended (its "done" line). Where a verdict fits, the status is spelled
 * as that verdict ("missing_symbol", "no_device", "error"). */
typedef enum cl_run_status {
    CL_RUN_OK = 0,
    CL_RUN_SOLUTION_LOST,  /* the solution's process ended: the rest of the cases were not run */
    CL_RUN_DEVICE_LOST,    /* the GPU became unusable */
    CL_RUN_LOAD_ERROR,     /* the solution could not be loaded */
    CL_RUN_MISSING_SYMBOL, /* no entry point */
    CL_RUN_JUDGE_ERROR,    /* the judge failed with no student code running */
    CL_RUN_NO_DEVICE,      /* no GPU for the judge */
    CL_RUN_UNKNOWN,        /* a status no judge sends */
} cl_run_status;

const char *cl_run_status_name(cl_run_status s);
cl_run_status cl_run_status_of(const char *name);

typedef struct cl_case_result {
    char *name;
    int bench;
    char *status; /* cl_case_status_name: pass, wrong, out_of_bounds, cuda_error, error, not_run, crash, timeout */
    char *message;
    char *where;
    int has_values;
    double expected, got;
    char *mismatch; /* wrong: the full report (mismatch.h) as compact JSON text, or NULL */
    char *shape, *scaled;
    double ms;
    /* bench */
    int runs, batches, off_stream;
    char *off_stream_why;
    double median_ms, min_ms, max_ms, p10_ms, p90_ms;
    /* the clock of record: the solution's own event median, the judge's bracket median, the
     * bracket's calibrated overhead, runs timed by the bound, runs voided by a sentinel */
    double event_median_ms, bracket_median_ms, clock_offset_ms;
    int off_stream_runs, voided_runs;
    double bytes, flops, items;
    char *items_unit;
    int ndims;
    long long dims[4];
    /* derived by the grader */
    double metric;      /* GB/s, TFLOP/s, items/s, or ms */
    double ceiling;     /* same unit as metric; 0 = unknown */
    double fraction;    /* metric / ceiling (time: ceiling / metric) */
    double ref_ms;      /* the reference timed in the same run (0 = not timed) */
    double ref_ratio;   /* ref_ms / median_ms: > 1 means faster than the reference */
    const char *tier;   /* "excellent", "good", "pass", "slow" */
} cl_case_result;

typedef struct cl_result {
    char lab[64];
    char title[256];
    char title_zh[256];   /* the lab's Chinese title ("" when it has none) */
    int metric;           /* the lab's cl_metric, for formatting */
    char solution[4096];
    uint64_t seed;
    int did_test, did_bench, did_sanitize;
    cl_verdict verdict;
    char *message;        /* the one line that explains the verdict, in English (JSON, gradebook) */
    char *message_tr;     /* the same in the user's language, or NULL when that is English */
    char *detail;         /* more: compiler log, output excerpt, sanitizer report */
    /* compile */
    int compiled, compile_cached;
    double compile_s;
    double test_s, bench_s; /* wall seconds of the correctness run and of the bench stage (yardsticks included) */
    char arch[32];
    char *compile_log;
    int tensor_cores;     /* -1 not checked, 0 none found, 1 HMMA/HGMMA present */
    /* device */
    char gpu[256];
    char gpu_uuid[64];
    double copy_gbps, fp16_tflops;
    double read_gbps, write_gbps; /* read-only and write-only bandwidth (0: not measured) */
    /* cases */
    int ncases;
    cl_case_result cases[CL_MAX_CASES];
    int passed, total;   /* correctness cases */
    /* the run */
    char *output;         /* what the solution printed (capped) */
    int nlibs;
    char *libs[32];       /* libraries the solution loaded */
    char *sanitizer;      /* compute-sanitizer findings, if run */
    const char *tier;     /* overall tier (of perf_fraction), or NULL */
    double perf_fraction; /* the bench cases' fractions, each capped at the excellent tier,
                             aggregated as lab.yaml says (geometric mean or the slowest) */
    double perf_points;   /* the performance points it earned (0 until cl_score_total) */
    int limiting_case;    /* index of the bench case that holds the score down, -1: none */
    int ceiling;          /* the lab's cl_ceiling, for formatting (set by cl_score_bench) */
    int aggregate;        /* the lab's cl_aggregate, for formatting */
    double score, max_score;
    double seconds;       /* wall time of the whole grading */
} cl_result;

void cl_result_init(cl_result *r);
void cl_result_free(cl_result *r);
/* Frees one case's strings and zeroes it. */
void cl_case_result_clear(cl_case_result *c);
/* Sets verdict and message (printf-style): fmt's English into message, and its catalogue
 * translation (cl_tr) into message_tr. fmt is a literal (tests/cli/check_catalogue.py reads
 * the formats of every cl_result_set call in grader/src). */
void cl_result_set(cl_result *r, cl_verdict v, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Sets verdict and message from a text already in both languages (tr NULL: the same). */
void cl_result_set2(cl_result *r, cl_verdict v, const char *en, const char *tr);
/* The message to show the user: message_tr, else message. */
const char *cl_result_message(const cl_result *r);
/* The lab's title to show the user: title_zh in Chinese, else title. */
const char *cl_result_title(const cl_result *r);

#endif
