/* cpu_solutions.c: fp32 CPU versions of transpose, softmax and layernorm, right and
 * deliberately wrong, for the host mode of the dev harness (mem_labs built with
 * -DMINI_HOST). They let the checkers and their tolerances be tested without a GPU:
 * each right one must pass every case of its lab.yaml, each wrong one must fail with a
 * message that says what is wrong. The arithmetic imitates what a GPU kernel does (fp32,
 * tree sums), not what a careful CPU program would. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cudalab_lab.h"

/* ---- transpose ---- */

static void transpose_ok(const float *in, float *out, int rows, int cols, void *s)
{
    for (long long i = 0; i < rows; i++)
        for (long long j = 0; j < cols; j++)
            out[j * rows + i] = in[i * cols + j];
}

/* grid sized from rows in both directions: columns >= rows never written */
static void transpose_square_only(const float *in, float *out, int rows, int cols, void *s)
{
    for (long long i = 0; i < rows; i++)
        for (long long j = 0; j < cols && j < rows; j++)
            out[j * rows + i] = in[i * cols + j];
}

/* ---- softmax ---- */

/* Pairwise (tree) sum of n floats in fp32, as a block reduction would do it. */
static float tree_sum(const float *v, long long n)
{
    if (n <= 8) {
        float s = 0.f;
        for (long long i = 0; i < n; i++)
            s += v[i];
        return s;
    }
    return tree_sum(v, n / 2) + tree_sum(v + n / 2, n - n / 2);
}

static void softmax_rows(const float *in, float *out, int rows, int cols, int use_max, int rescale_bug)
{
    float *e = malloc((size_t)cols * sizeof(float));
    for (long long r = 0; r < rows; r++) {
        const float *x = in + r * cols;
        float *y = out + r * cols;
        float m = -INFINITY;
        for (long long j = 0; j < cols; j++)
            m = fmaxf(m, x[j]);
        if (!use_max)
            m = 0.f;
        if (rescale_bug) {
            /* online softmax that updates the running max but does not rescale the sum */
            float rm = -INFINITY, s = 0.f;
            for (long long j = 0; j < cols; j++) {
                rm = fmaxf(rm, x[j]);
                s += expf(x[j] - rm);
            }
            for (long long j = 0; j < cols; j++)
                y[j] = expf(x[j] - rm) / s;
            continue;
        }
        for (long long j = 0; j < cols; j++)
            e[j] = expf(x[j] - m);
        const float inv = 1.f / tree_sum(e, cols);
        for (long long j = 0; j < cols; j++)
            y[j] = e[j] * inv;
    }
    free(e);
}

static void softmax_ok(const float *in, float *out, int rows, int cols, void *s)
{
    softmax_rows(in, out, rows, cols, 1, 0);
}
static void softmax_nomax(const float *in, float *out, int rows, int cols, void *s)
{
    softmax_rows(in, out, rows, cols, 0, 0);
}
static void softmax_norescale(const float *in, float *out, int rows, int cols, void *s)
{
    softmax_rows(in, out, rows, cols, 1, 1);
}

/* ---- layernorm ---- */

enum { LN_TWO_PASS, LN_WELFORD, LN_NAIVE, LN_NO_EPS, LN_UNBIASED, LN_PLAIN_TWO_PASS };

static void layernorm_rows(const float *x, const float *g, const float *b, float *y, float *mean,
                           float *rstd, int rows, int cols, float eps, int how)
{
    float *t = malloc((size_t)cols * sizeof(float));
    for (long long r = 0; r < rows; r++) {
        const float *xr = x + r * cols;
        float mu, var;
        if (how == LN_WELFORD) {
            float m = 0.f, m2 = 0.f;
            for (long long j = 0; j < cols; j++) {
                const float d = xr[j] - m;
                m += d / (float)(j + 1);
                m2 += d * (xr[j] - m);
            }
            mu = m, var = m2 / (float)cols;
        } else if (how == LN_NAIVE) {
            for (long long j = 0; j < cols; j++)
                t[j] = xr[j] * xr[j];
            mu = tree_sum(xr, cols) / (float)cols;
            var = tree_sum(t, cols) / (float)cols - mu * mu;
        } else {
            mu = tree_sum(xr, cols) / (float)cols;
            for (long long j = 0; j < cols; j++)
                t[j] = (xr[j] - mu) * (xr[j] - mu);
            const float sdd = tree_sum(t, cols);
            for (long long j = 0; j < cols; j++)
                t[j] = xr[j] - mu;
            const float sd = tree_sum(t, cols);
            var = how == LN_PLAIN_TWO_PASS ? sdd / (float)cols : (sdd - sd * sd / (float)cols) / (float)cols;
            if (how == LN_UNBIASED)
                var = cols > 1 ? sdd / (float)(cols - 1) : sdd;
        }
        const float rs = 1.f / sqrtf(var + (how == LN_NO_EPS ? 0.f : eps));
        for (long long j = 0; j < cols; j++)
            y[r * cols + j] = (xr[j] - mu) * rs * g[j] + b[j];
        mean[r] = mu, rstd[r] = rs;
    }
    free(t);
}

#define LN(name, how)                                                                              \
    static void name(const float *x, const float *g, const float *b, float *y, float *mean,       \
                     float *rstd, int rows, int cols, float eps, void *s)                          \
    {                                                                                              \
        layernorm_rows(x, g, b, y, mean, rstd, rows, cols, eps, how);                              \
    }
LN(layernorm_ok, LN_TWO_PASS)
LN(layernorm_welford, LN_WELFORD)
LN(layernorm_plain_two_pass, LN_PLAIN_TWO_PASS)
LN(layernorm_naive, LN_NAIVE)
LN(layernorm_no_eps, LN_NO_EPS)
LN(layernorm_unbiased, LN_UNBIASED)

const void *cpu_solution(const char *name)
{
    static const struct { const char *name; const void *fn; } table[] = {
        {"transpose_ok", (const void *)transpose_ok},
        {"transpose_square_only", (const void *)transpose_square_only},
        {"softmax_ok", (const void *)softmax_ok},
        {"softmax_nomax", (const void *)softmax_nomax},
        {"softmax_norescale", (const void *)softmax_norescale},
        {"layernorm_ok", (const void *)layernorm_ok},
        {"layernorm_welford", (const void *)layernorm_welford},
        {"layernorm_plain_two_pass", (const void *)layernorm_plain_two_pass},
        {"layernorm_naive", (const void *)layernorm_naive},
        {"layernorm_no_eps", (const void *)layernorm_no_eps},
        {"layernorm_unbiased", (const void *)layernorm_unbiased},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(table[i].name, name) == 0)
            return table[i].fn;
    return NULL;
}
