/* memlab.h: helpers shared by the row-wise memory-bound checkers (transpose, softmax,
 * layernorm): the input distribution named in a case, which rows a verification looks at,
 * and how a wrong value is described. Header-only (static), so the build's one-checker-
 * per-.c rule is kept. */
#ifndef CUDALAB_MEMLAB_H
#define CUDALAB_MEMLAB_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "grader/checker.h"
#include "parallel.h"

/* Elements a full verification recomputes at most (the CPU reference is fp64; 2^24
 * elements take well under a second); larger outputs are checked on bands of rows. */
#define ML_FULL_ELEMS (1LL << 24)
/* Rows a quick verification (after each timed run) recomputes, chosen at random. */
#define ML_QUICK_ROWS 4

/* The case's input distribution: dist = uniform (a, b) | normal (mean a, sd b) |
 * signed_log (|x| = m * 2^e, e in [a, b]). Defaults are given by the caller. */
static int ml_read_dist(cl_run *run, const cl_case *c, cl_gen *g, const char *dist, double a, double b)
{
    dist = cl_param_str_or(c, "dist", dist);
    memset(g, 0, sizeof *g);
    if (strcmp(dist, "uniform") == 0)
        g->kind = CL_GEN_UNIFORM;
    else if (strcmp(dist, "normal") == 0)
        g->kind = CL_GEN_NORMALISH;
    else if (strcmp(dist, "signed_log") == 0)
        g->kind = CL_GEN_SIGNED_LOG;
    else
        return cl_errorf(run, "case %s: unknown dist '%s' (uniform, normal, signed_log)",
                         cl_case_name(c), dist);
    if (cl_param_f64_or(run, c, "a", a, &g->a) || cl_param_f64_or(run, c, "b", b, &g->b))
        return -1;
    if (g->kind == CL_GEN_SIGNED_LOG && (g->a != floor(g->a) || g->b != floor(g->b) || g->a > g->b ||
                                         g->a < -126 || g->b > 127))
        return cl_errorf(run, "case %s: signed_log needs integer exponents -126 <= a <= b <= 127",
                         cl_case_name(c));
    return 0;
}

/* rows x cols from the case; rows may be "max" (the largest that fits, given per_row
 * bytes of device memory per row). Both must fit the ABI's int. */
static int ml_read_shape(cl_run *run, const cl_case *c, double bytes_per_elem, long long *rows,
                         long long *cols)
{
    if (cl_param_i64(run, c, "cols", cols))
        return -1;
    if (*cols < 1 || *cols > 2147483647LL)
        return cl_errorf(run, "case %s: cols = %lld is not in 1..2^31-1", cl_case_name(c), *cols);
    if (cl_param_size(run, c, "rows", bytes_per_elem * (double)*cols, 0.0, rows))
        return -1;
    if (*rows > 2147483647LL)
        *rows = 2147483647LL;
    return 0;
}

/* A value as the message shows it: the NaN poison means "never written". */
static const char *ml_why(double got)
{
    if (isnan(got))
        return " (NaN: never written, or computed as NaN)";
    if (isinf(got))
        return " (infinite)";
    return "";
}

/* The rows a verification checks, as at most ML_BANDS bands [lo, hi). full: every row
 * while rows x cols <= ML_FULL_ELEMS, else evenly spread bands of that many elements in
 * all, always including the first and the last row. quick: ML_QUICK_ROWS random rows and
 * the last row. */
#define ML_BANDS 12
typedef struct ml_bands {
    int n;
    long long lo[ML_BANDS], hi[ML_BANDS];
} ml_bands;

static void ml_pick_rows(ml_bands *b, long long rows, long long cols, int full, uint64_t seed)
{
    b->n = 0;
    if (full && rows * cols <= ML_FULL_ELEMS) {
        b->lo[0] = 0, b->hi[0] = rows, b->n = 1;
        return;
    }
    if (full) {
        const int nb = 8;
        long long per = ML_FULL_ELEMS / nb / cols;
        if (per < 1)
            per = 1;
        /* the first and last rows always (tail tiles), the others where the seed (drawn
         * after the call) says */
        long long span = (rows - per) / (nb - 1);
        for (int k = 0; k < nb; k++) {
            long long lo = k == nb - 1 ? rows - per
                                       : span * k + (k ? (long long)cl_sample_index(seed, (uint64_t)k, (uint64_t)span + 1) : 0);
            if (lo > rows - per)
                lo = rows - per;
            b->lo[b->n] = lo, b->hi[b->n] = lo + per, b->n++;
        }
        return;
    }
    for (int k = 0; k < ML_QUICK_ROWS; k++) {
        long long r = (long long)cl_sample_index(seed, (uint64_t)k, (uint64_t)rows);
        b->lo[b->n] = r, b->hi[b->n] = r + 1, b->n++;
    }
    b->lo[b->n] = rows - 1, b->hi[b->n] = rows, b->n++;
}

/* Rows per download: about 16 MiB of host memory at a time, at least one row. */
static long long ml_rows_per_chunk(long long cols, double bytes_per_row_elem)
{
    long long r = (long long)((16.0 * 1024 * 1024) / (bytes_per_row_elem * (double)cols));
    return r < 1 ? 1 : r;
}

#endif
