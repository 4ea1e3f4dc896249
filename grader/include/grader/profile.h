/* profile.h: `cudalab bench --profile`: Nsight Compute (ncu) on the solution's kernels
 * for one bench case, in a separate runner process outside the timed runs, and a short
 * summary in the lab's terms: DRAM bandwidth against this GPU's ceiling, SM and Tensor
 * Core throughput, occupancy and what limits it, shared-memory bank conflicts, global
 * accesses that are not coalesced, the top stall reasons, and one sentence per finding on
 * what to try.
 *
 * ncu is run as
 *   ncu --csv --page raw --print-units base --target-processes all
 *       --kernel-name-base function --kernel-name regex:^(k1|k2)$ --launch-count N
 *       --metrics <CL_NCU_METRICS> --log-file FILE
 *       cudalab-run --lab-yaml Y --solution SO --mode bench --case NAME --quick --seed S
 * (the kernels are the solution's __global__ functions, named from its host stubs). */
#ifndef CUDALAB_PROFILE_H
#define CUDALAB_PROFILE_H

#include <jansson.h>
#include <stddef.h>

#include "err.h"

/* The metrics asked of ncu (comma-separated, as --metrics takes them). */
extern const char CL_NCU_METRICS[];

typedef struct cl_ncu_kernel {
    char name[256];
    int nmetrics;
    char **names;   /* metric names */
    double *values; /* in base units (bytes, seconds, %, counts); NAN when not a number */
} cl_ncu_kernel;

typedef struct cl_ncu_report {
    int nkernels;
    cl_ncu_kernel *kernels;
} cl_ncu_report;

/* Parses `ncu --csv --page raw` output (anything before its header line is skipped; the
 * units row converts Kbyte/Mbyte/usecond/... to base units). 0 ok, -1 with err when it is
 * not such a report. */
int cl_ncu_parse_csv(const char *text, cl_ncu_report *rep, cl_err *err);
void cl_ncu_report_free(cl_ncu_report *rep);
/* A metric of kernel k, or NAN. */
double cl_ncu_metric(const cl_ncu_kernel *k, const char *name);

typedef struct cl_profile_ctx {
    const char *lab;
    const char *bench_case;
    double required_bytes; /* bytes the lab's work must move (0: unknown) */
    double ceiling_gbps;   /* this GPU's measured copy bandwidth (0: unknown) */
    int tensor_lab;        /* the lab is meant for Tensor Cores (gemm) */
} cl_profile_ctx;

/* The summary: {"kernels": [{"name", "launches", "time_us", "dram_gbps", "dram_pct_of_ceiling",
 * "sm_pct", "tensor_pct", "occupancy": {"achieved_pct", "theoretical_pct", "limiter"},
 * "bank_conflicts": {...}, "sectors_per_request": {"load", "store"}, "stalls": [{"reason", "per_issue"}]}],
 * "findings": [{"id", "text", "try"}]}. Launches of one kernel are averaged. */
json_t *cl_profile_summarize(const cl_ncu_report *rep, const cl_profile_ctx *ctx);
/* The summary as a few lines of text. */
void cl_profile_print(const json_t *summary, FILE *f);

typedef struct cl_profile_opts {
    const char *runner;     /* cudalab-run */
    const char *lab_yaml;
    const char *solution_so;
    const char *bench_case;
    unsigned long long seed;
    int launch_count;       /* 0: 5 */
    double timeout_s;       /* 0: 600 */
} cl_profile_opts;

/* Runs ncu. 0 with rep filled; -1 with err saying what is missing and how to get it (ncu
 * not installed, no permission to read the GPU's performance counters, ...). */
int cl_profile_run(const cl_profile_opts *o, cl_ncu_report *rep, cl_err *err);

/* The kernel base names a solution .so launches (from its __device_stub__ symbols, read
 * with nm). Returns the count (0: none found), names malloc'ed in *names. */
int cl_profile_kernel_names(const char *so, char ***names, cl_err *err);
/* The base name of a kernel from its host stub's mangled symbol; 0 ok. Exposed for tests. */
int cl_profile_stub_name(const char *symbol, char *out, size_t n);

#endif
