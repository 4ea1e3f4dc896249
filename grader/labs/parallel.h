/* parallel.h: how a checker spreads its CPU work (fp64 references, input generation) over
 * the machine's cores: cl_par_run for parts of the caller's own making, cl_par_for for a
 * range cut into equal slices, cl_par_rows_pass for a chunk of output rows checked first
 * without a report. The judge is idle while a checker verifies, and a big case's
 * reference on one core was most of the time a lab's grading took. */
#ifndef CUDALAB_LABS_PARALLEL_H
#define CUDALAB_LABS_PARALLEL_H

#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CL_PAR_MAX 32 /* threads at most */

/* For a checker's hottest loop (an fp64 reference over rows): the function is built twice,
 * for AVX2 and for any x86-64, and the loader picks the one this CPU runs (GCC and Clang's
 * target_clones). The judge is built on one machine and run on another, so -march cannot
 * say which. Only loops whose lanes are independent sums are worth it: the results are the
 * same bits either way (no reduction is reordered, no FMA contracted). */
#if defined(__x86_64__) && defined(__GNUC__) && defined(__ELF__)
#define CL_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define CL_VECTOR_CLONES
#endif

/* Threads worth starting for `work` (a rough operation count, about a nanosecond each):
 * one below 1e6 (a millisecond: starting 16 threads costs a few hundredths of that), else
 * one a core up to `cap` (<= CL_PAR_MAX). */
static inline int cl_par_threads(double work, int cap)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (cap > CL_PAR_MAX) cap = CL_PAR_MAX;
    if (n > cap) n = cap;
    if (n < 1 || work < 1e6) n = 1;
    return (int)n;
}

/* Runs fn(args + t * arg_size) for t = 0..n-1, on n threads (the caller's is thread 0); a
 * thread that cannot be started runs its part on the caller's. */
static inline void cl_par_run(int n, void *(*fn)(void *), void *args, size_t arg_size)
{
    pthread_t th[CL_PAR_MAX];
    int started[CL_PAR_MAX] = {0};
    if (n > CL_PAR_MAX) n = CL_PAR_MAX;
    for (int t = 1; t < n; t++)
        started[t] = pthread_create(&th[t], NULL, fn, (char *)args + (size_t)t * arg_size) == 0;
    for (int t = 1; t < n; t++)
        if (!started[t]) fn((char *)args + (size_t)t * arg_size);
    fn(args);
    for (int t = 1; t < n; t++)
        if (started[t]) pthread_join(th[t], NULL);
}

/* fn(ctx, t, lo, hi) over [0, n) cut into equal slices, slice t on thread t, on as many
 * threads as `work` is worth (cl_par_threads). Returns the number of slices: a caller keeps
 * what each slice found in arrays of CL_PAR_MAX, indexed by t, and reads them in order. */
typedef void (*cl_par_range_fn)(void *ctx, int t, long long lo, long long hi);

typedef struct cl_par_slice {
    cl_par_range_fn fn;
    void *ctx;
    int t;
    long long lo, hi;
} cl_par_slice;

static inline void *cl_par_slice_run(void *v)
{
    cl_par_slice *s = (cl_par_slice *)v;
    s->fn(s->ctx, s->t, s->lo, s->hi);
    return NULL;
}

static inline int cl_par_for(long long n, double work, int cap, cl_par_range_fn fn, void *ctx)
{
    int nt = cl_par_threads(work, cap);
    cl_par_slice slices[CL_PAR_MAX];
    long long chunk = (n + nt - 1) / nt;
    for (int t = 0; t < nt; t++) {
        long long lo = t * chunk, hi = lo + chunk;
        slices[t] = (cl_par_slice){fn, ctx, t, lo < n ? lo : n, hi < n ? hi : n};
    }
    cl_par_run(nt, cl_par_slice_run, slices, sizeof slices[0]);
    return nt;
}

/* ---- a downloaded chunk of rows, checked on every core ----
 * A checker's row check with two modes: with a report (every element added to it, the first
 * wrong one described) and without (1 at the first wrong element, nothing written but its
 * own scratch, so any thread may run it). cl_par_rows_pass runs the second, fails(ctx,
 * first + i, i, scratch) for i in [0, n), each thread with scratch_bytes of its own. Only a
 * chunk where a row fails is checked again, one row at a time, with the report: the report
 * is what it was on one core, and a right chunk costs a core's share. */
typedef int (*cl_par_row_fn)(const void *ctx, long long row, long long i, void *scratch);
typedef struct cl_par_pass_job {
    const void *ctx;
    long long first;
    cl_par_row_fn fails;
    size_t scratch_bytes;
    int bad[CL_PAR_MAX];
} cl_par_pass_job;

static inline void cl_par_pass_part(void *v, int t, long long lo, long long hi)
{
    cl_par_pass_job *j = (cl_par_pass_job *)v;
    j->bad[t] = 0;
    if (lo >= hi)
        return;
    void *scratch = malloc(j->scratch_bytes ? j->scratch_bytes : 1);
    if (!scratch) { /* the caller's own check, with its own buffers, decides */
        j->bad[t] = 1;
        return;
    }
    for (long long i = lo; i < hi && !j->bad[t]; i++)
        j->bad[t] = j->fails(j->ctx, j->first + i, i, scratch) != 0;
    free(scratch);
}

/* 1: every row passes; 0: one does not (or a thread found no memory for its scratch): check
 * the chunk again with the report. work: cl_par_for's operation count for the chunk. */
static inline int cl_par_rows_pass(const void *ctx, long long first, long long n, double work, size_t scratch_bytes,
                                   cl_par_row_fn fails)
{
    cl_par_pass_job j;
    memset(&j, 0, sizeof j);
    j.ctx = ctx, j.first = first, j.fails = fails, j.scratch_bytes = scratch_bytes;
    int nt = cl_par_for(n, work, CL_PAR_MAX, cl_par_pass_part, &j);
    for (int t = 0; t < nt; t++)
        if (j.bad[t])
            return 0;
    return 1;
}

#endif
