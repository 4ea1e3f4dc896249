/* softmax.c: the checker of the softmax lab.
 *
 * Inputs: a rows x cols fp32 matrix from a gen.h generator (case keys dist, a, b). With
 * neginf_every: K, every K-th row (rows 0, K, 2K, ...) is built on the CPU and uploaded:
 * each of its entries is -inf with probability neginf_frac (default 0.5), except one
 * finite entry at a random column, so no row is all -inf (such a row has no softmax).
 * Reference: fp64 on the CPU, m = max, out = exp(x - m) / sum exp(x - m). Checks, per
 * row: every element within abs + rel * |ref| (tolerances `abs`, `rel` in lab.yaml), then
 * the row sum within `row_sum` of 1.
 * Work: rows * cols * 4 bytes read + the same written. */
#include <math.h>
#include <stdio.h>

#include "cudalab_lab.h"
#include "grader/checker.h"
#include "memlab.h"

typedef struct softmax_state {
    float *in, *out;
    long long rows, cols;
    cl_gen gen;           /* seed set by generate */
    long long neginf_every;
    double neginf_frac;
    double tol_abs, tol_rel, tol_sum;
    float *host_out;      /* chunk_rows rows of out */
    float *host_in;       /* one row of in */
    double *host_e;       /* one row of exp(x - m) */
    long long chunk_rows;
} softmax_state;


static int setup(cl_run *run, const cl_case *c, void *st_)
{
    softmax_state *st = st_;
    if (ml_read_shape(run, c, 8.0, &st->rows, &st->cols) ||
        ml_read_dist(run, c, &st->gen, "uniform", -4.0, 4.0) ||
        cl_param_i64_or(run, c, "neginf_every", 0, &st->neginf_every) ||
        cl_param_f64_or(run, c, "neginf_frac", 0.5, &st->neginf_frac))
        return -1;
    if (st->neginf_every < 0 || st->neginf_frac < 0 || st->neginf_frac > 1)
        return cl_errorf(run, "case %s: neginf_every >= 0 and 0 <= neginf_frac <= 1", cl_case_name(c));
    st->tol_abs = cl_tolerance(run, "abs", 1e-30);
    st->tol_rel = cl_tolerance(run, "rel", 1e-4);
    st->tol_sum = cl_tolerance(run, "row_sum", 1e-4);
    const size_t n = (size_t)st->rows * (size_t)st->cols;
    st->in = cl_alloc_in(run, n * sizeof(float), "in");
    st->out = cl_alloc_out(run, n * sizeof(float), "out");
    st->chunk_rows = ml_rows_per_chunk(st->cols, sizeof(float));
    if (st->chunk_rows > st->rows)
        st->chunk_rows = st->rows;
    st->host_out = cl_host_alloc(run, (size_t)st->chunk_rows * (size_t)st->cols * sizeof(float));
    st->host_in = cl_host_alloc(run, (size_t)st->cols * sizeof(float));
    st->host_e = cl_host_alloc(run, (size_t)st->cols * sizeof(double));
    if (!st->in || !st->out || !st->host_out || !st->host_in || !st->host_e)
        return -1;
    cl_set_work(run, 2.0 * (double)n * sizeof(float), 5.0 * (double)n);
    cl_set_shape(run, "%lld x %lld fp32%s", st->rows, st->cols,
                 st->neginf_every ? ", rows with -inf" : "");
    return 0;
}

static int is_neginf_row(const softmax_state *st, long long r)
{
    return st->neginf_every > 0 && r % st->neginf_every == 0;
}

/* Row r of the input, as the CPU sees it (the same bits the device holds). */
static void input_row(const softmax_state *st, long long r, float *x)
{
    const long long C = st->cols;
    cl_gen_f32_span(&st->gen, (uint64_t)r * (uint64_t)C, 1, C, x);
    if (!is_neginf_row(st, r))
        return;
    const uint64_t rs = cl_mix64(st->gen.seed ^ 0x6E6567696E66ull ^ (uint64_t)r);
    const uint64_t keep = cl_sample_index(rs, 0, (uint64_t)C); /* the one surely finite entry */
    const uint64_t thresh = (uint64_t)(st->neginf_frac * 16777216.0);
    for (long long j = 0; j < C; j++)
        if ((uint64_t)j != keep && (cl_rand64(rs, (uint64_t)j, 1) >> 40) < thresh)
            x[j] = -INFINITY;
}

static int generate(cl_run *run, void *st_, uint64_t seed)
{
    softmax_state *st = st_;
    st->gen.seed = seed;
    if (cl_fill(run, st->in, (size_t)st->rows * (size_t)st->cols, CL_F32, &st->gen))
        return -1;
    for (long long r = 0; st->neginf_every > 0 && r < st->rows; r += st->neginf_every) {
        input_row(st, r, st->host_in);
        if (cl_upload(run, st->in + (size_t)r * (size_t)st->cols, st->host_in,
                      (size_t)st->cols * sizeof(float)))
            return -1;
    }
    return 0;
}

static int args(cl_run *run, void *st_, cl_args *a)
{
    softmax_state *st = st_;
    cl_arg_ptr(run, a, st->in);
    cl_arg_ptr(run, a, st->out);
    cl_arg_i32(a, (int)st->rows);
    cl_arg_i32(a, (int)st->cols);
    return 0;
}

/* Compares one row of out (got) with the fp64 reference; x and e are a row of scratch
 * (float and double). mm NULL: no report, 1 at the first wrong element (parallel.h). */
static int check_row(cl_run *run, const softmax_state *st, cl_mm_acc *mm, long long r, const float *got, float *x,
                     double *e)
{
    int wrong = 0;
    const long long C = st->cols;
    input_row(st, r, x);
    double m = -INFINITY, s = 0.0;
    for (long long j = 0; j < C; j++)
        m = x[j] > m ? x[j] : m;
    for (long long j = 0; j < C; j++)
        s += (e[j] = exp((double)x[j] - m));
    double sum_got = 0.0;
    for (long long j = 0; j < C; j++) {
        const double want = e[j] / s;
        const int ok = cl_close(got[j], want, st->tol_abs, st->tol_rel);
        if (!mm && !ok)
            return 1;
        if (mm)
            cl_mm_add(mm, r * C + j, want, got[j], ok);
        if (!ok && !wrong) {
            char where[64];
            snprintf(where, sizeof where, "out[%lld][%lld]", r, j);
            wrong = cl_mismatch(run, where, want, got[j],
                               "x = %.9g, row max = %.9g%s; allowed error %.3g + %.3g * |expected|%s",
                               (double)x[j], m, is_neginf_row(st, r) ? " (a row with -inf entries)" : "",
                               st->tol_abs, st->tol_rel, ml_why(got[j]));
        }
        sum_got += got[j];
    }
    if (wrong)
        return wrong;
    if (!(fabs(sum_got - 1.0) <= st->tol_sum))
        return mm ? cl_failf(run, "row %lld of out sums to %.9g, not 1 (allowed error %.3g)", r, sum_got,
                             st->tol_sum)
                  : 1;
    return 0;
}

/* Row i of the downloaded chunk, without a report (cl_par_rows_pass). */
static int row_passes(const void *st_, long long r, long long i, void *scratch)
{
    const softmax_state *st = st_;
    const long long C = st->cols;
    return check_row(NULL, st, NULL, r, st->host_out + (size_t)i * (size_t)C, (float *)((double *)scratch + C),
                     (double *)scratch);
}

static int verify(cl_run *run, void *st_, int full)
{
    softmax_state *st = st_;
    const long long C = st->cols;
    ml_bands b;
    ml_pick_rows(&b, st->rows, C, full, cl_check_seed(run) ^ 0x736F66746D6178ull);
    cl_mm_shape shape = {"out", 2, {st->rows, C}, {"row", "col"}};
    cl_mm_tol tol = {st->tol_abs, st->tol_rel};
    cl_mm_acc *mm = cl_report_elements(run, &shape, &tol);
    int wrong = 0;
    for (int k = 0; k < b.n; k++)
        for (long long r0 = b.lo[k]; r0 < b.hi[k]; r0 += st->chunk_rows) {
            const long long r1 = r0 + st->chunk_rows < b.hi[k] ? r0 + st->chunk_rows : b.hi[k];
            if (cl_download(run, st->host_out, st->out + (size_t)r0 * (size_t)C,
                            (size_t)(r1 - r0) * (size_t)C * sizeof(float)))
                return -1;
            if (cl_par_rows_pass(st, r0, r1 - r0, (double)(r1 - r0) * (double)C * 20, (size_t)C * 12,
                                 row_passes)) {
                cl_mm_add_passed(mm, r0 * C, (r1 - r0) * C);
                continue;
            }
            for (long long r = r0; r < r1; r++) {
                int rc = check_row(run, st, mm, r, st->host_out + (size_t)(r - r0) * (size_t)C, st->host_in,
                                   st->host_e);
                if (rc < 0)
                    return rc;
                wrong |= rc;
            }
        }
    return wrong;
}

const cl_checker cl_checker_softmax = {"softmax", sizeof(softmax_state), setup, generate, args,
                                       verify, NULL};
