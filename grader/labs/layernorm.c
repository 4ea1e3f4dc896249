/* layernorm.c: the checker of the layernorm lab.
 *
 * Inputs: x (rows x cols) from a gen.h generator (case keys dist, a, b); gamma uniform in
 * [0.5, 1.5), beta uniform in [-0.5, 0.5). Special rows, each filled on the device by its
 * own generator so the CPU can recompute it:
 *   const_every: K   rows 0, K, 2K, ... are constant (a value in [-1, 1)): variance 0,
 *                    rstd must be 1/sqrt(eps) and y = beta;
 *   offset_every: K  rows 1, K+1, ... are offset + uniform noise in [-1, 1) (offset
 *                    default 1e4): E[x^2] - E[x]^2 in fp32 is rounding noise there.
 * Reference: fp64 two-pass on the CPU. Checks, per row (tolerances in lab.yaml; A is the
 * row's mean |x|, the scale of the rounding error of any fp32 sum of the row):
 *   mean:  |got - mean| <= t_mean * A
 *   rstd:  |got - rstd| <= (t_rstd + t_cond * A / sqrt(var + eps)) * rstd
 *          A / sd is the condition number of the variance: a one-pass method (Welford)
 *          loses about that many ulps, E[x^2] - E[x]^2 about its square;
 *   y:     |got - y|    <= t_y * (|y| + |gamma| * rstd * A + |beta|)
 * Work: x read and y written (rows * cols * 4 bytes each), gamma and beta read, mean and
 * rstd written. */
#include <math.h>
#include <stdio.h>

#include "cudalab_lab.h"
#include "grader/checker.h"
#include "memlab.h"

typedef struct layernorm_state {
    float *x, *gamma, *beta, *y, *mean, *rstd;
    long long rows, cols;
    float eps;
    cl_gen gen, gen_gamma, gen_beta; /* seeds set by generate */
    long long const_every, offset_every;
    double offset;
    double t_mean, t_rstd, t_cond, t_y;
    float *host_y, *host_mean, *host_rstd; /* chunk_rows rows */
    float *host_x, *host_gamma, *host_beta;
    long long chunk_rows;
} layernorm_state;


enum { ROW_PLAIN, ROW_CONST, ROW_OFFSET };

static int setup(cl_run *run, const cl_case *c, void *st_)
{
    layernorm_state *st = st_;
    double eps;
    if (ml_read_shape(run, c, 8.0, &st->rows, &st->cols) ||
        ml_read_dist(run, c, &st->gen, "normal", 0.0, 1.0) ||
        cl_param_f64_or(run, c, "eps", 1e-5, &eps) ||
        cl_param_i64_or(run, c, "const_every", 0, &st->const_every) ||
        cl_param_i64_or(run, c, "offset_every", 0, &st->offset_every) ||
        cl_param_f64_or(run, c, "offset", 1e4, &st->offset))
        return -1;
    if (!(eps > 0) || st->const_every < 0 || st->offset_every < 0)
        return cl_errorf(run, "case %s: eps > 0, const_every >= 0 and offset_every >= 0",
                         cl_case_name(c));
    st->eps = (float)eps;
    st->t_mean = cl_tolerance(run, "mean", 1e-5);
    st->t_rstd = cl_tolerance(run, "rstd", 1e-5);
    st->t_cond = cl_tolerance(run, "rstd_cond", 1e-6);
    st->t_y = cl_tolerance(run, "y", 1e-5);
    st->gen_gamma = (cl_gen){CL_GEN_UNIFORM, 0, 0.5, 1.5};
    st->gen_beta = (cl_gen){CL_GEN_UNIFORM, 0, -0.5, 0.5};

    const long long R = st->rows, C = st->cols;
    const size_t n = (size_t)R * (size_t)C;
    st->x = cl_alloc_in(run, n * sizeof(float), "x");
    st->gamma = cl_alloc_in(run, (size_t)C * sizeof(float), "gamma");
    st->beta = cl_alloc_in(run, (size_t)C * sizeof(float), "beta");
    st->y = cl_alloc_out(run, n * sizeof(float), "y");
    st->mean = cl_alloc_out(run, (size_t)R * sizeof(float), "mean");
    st->rstd = cl_alloc_out(run, (size_t)R * sizeof(float), "rstd");
    st->chunk_rows = ml_rows_per_chunk(C, sizeof(float));
    if (st->chunk_rows > R)
        st->chunk_rows = R;
    st->host_y = cl_host_alloc(run, (size_t)st->chunk_rows * (size_t)C * sizeof(float));
    st->host_mean = cl_host_alloc(run, (size_t)st->chunk_rows * sizeof(float));
    st->host_rstd = cl_host_alloc(run, (size_t)st->chunk_rows * sizeof(float));
    st->host_x = cl_host_alloc(run, (size_t)C * sizeof(float));
    st->host_gamma = cl_host_alloc(run, (size_t)C * sizeof(float));
    st->host_beta = cl_host_alloc(run, (size_t)C * sizeof(float));
    if (!st->x || !st->gamma || !st->beta || !st->y || !st->mean || !st->rstd || !st->host_y ||
        !st->host_mean || !st->host_rstd || !st->host_x || !st->host_gamma || !st->host_beta)
        return -1;
    cl_set_work(run, (2.0 * (double)n + 2.0 * (double)C + 2.0 * (double)R) * sizeof(float),
                8.0 * (double)n);
    cl_set_shape(run, "%lld x %lld fp32%s%s", R, C, st->const_every ? ", constant rows" : "",
                 st->offset_every ? ", offset rows" : "");
    return 0;
}

static int row_kind(const layernorm_state *st, long long r)
{
    if (st->const_every > 0 && r % st->const_every == 0)
        return ROW_CONST;
    if (st->offset_every > 0 && r % st->offset_every == 1 % st->offset_every)
        return ROW_OFFSET;
    return ROW_PLAIN;
}

/* The generator of a special row (element index = column). */
static cl_gen row_gen(const layernorm_state *st, long long r, int kind)
{
    const uint64_t rs = cl_mix64(st->gen.seed ^ 0x6C6E726F77ull ^ (uint64_t)r);
    cl_gen g = {CL_GEN_UNIFORM, rs, 0.0, 0.0};
    if (kind == ROW_CONST) { /* a + (b - a) * u with a == b: exactly the float value */
        g.a = g.b = (double)(float)(2.0 * (double)cl_unit24(cl_rand64(rs, 0, 7)) - 1.0);
    } else {
        g.a = st->offset - 1.0, g.b = st->offset + 1.0;
    }
    return g;
}

static void input_row(const layernorm_state *st, long long r, float *x)
{
    const long long C = st->cols;
    const int kind = row_kind(st, r);
    if (kind == ROW_PLAIN) {
        cl_gen_f32_span(&st->gen, (uint64_t)r * (uint64_t)C, 1, C, x);
    } else {
        const cl_gen g = row_gen(st, r, kind);
        cl_gen_f32_span(&g, 0, 1, C, x);
    }
}

static int generate(cl_run *run, void *st_, uint64_t seed)
{
    layernorm_state *st = st_;
    const long long R = st->rows, C = st->cols;
    st->gen.seed = seed;
    st->gen_gamma.seed = cl_mix64(seed ^ 0x67616D6D61ull);
    st->gen_beta.seed = cl_mix64(seed ^ 0x62657461ull);
    if (cl_fill(run, st->x, (size_t)R * (size_t)C, CL_F32, &st->gen) ||
        cl_fill(run, st->gamma, (size_t)C, CL_F32, &st->gen_gamma) ||
        cl_fill(run, st->beta, (size_t)C, CL_F32, &st->gen_beta))
        return -1;
    for (long long r = 0; r < R; r++) {
        const int kind = row_kind(st, r);
        if (kind == ROW_PLAIN)
            continue;
        const cl_gen g = row_gen(st, r, kind);
        if (cl_fill(run, st->x + (size_t)r * (size_t)C, (size_t)C, CL_F32, &g))
            return -1;
    }
    /* gamma and beta stay the same for every row: computed once per verification */
    for (long long j = 0; j < C; j++) {
        st->host_gamma[j] = cl_gen_f32(&st->gen_gamma, (uint64_t)j);
        st->host_beta[j] = cl_gen_f32(&st->gen_beta, (uint64_t)j);
    }
    return 0;
}

static int args(cl_run *run, void *st_, cl_args *a)
{
    layernorm_state *st = st_;
    cl_arg_ptr(run, a, st->x);
    cl_arg_ptr(run, a, st->gamma);
    cl_arg_ptr(run, a, st->beta);
    cl_arg_ptr(run, a, st->y);
    cl_arg_ptr(run, a, st->mean);
    cl_arg_ptr(run, a, st->rstd);
    cl_arg_i32(a, (int)st->rows);
    cl_arg_i32(a, (int)st->cols);
    cl_arg_f32(a, st->eps);
    return 0;
}

static const char *kind_name(int kind)
{
    return kind == ROW_CONST ? " (a constant row: variance 0)"
           : kind == ROW_OFFSET ? " (an offset row: large mean, small variance)"
                                : "";
}

/* The three outputs' reports: y, then mean and rstd (per row). */
typedef struct ln_reports {
    cl_mm_acc *y;
    cl_mm_acc mean, rstd;
} ln_reports;

/* One row against the fp64 reference; x: a row of scratch. rp NULL: no report, 1 at the
 * first wrong value (parallel.h). */
static int check_row(cl_run *run, const layernorm_state *st, ln_reports *rp, long long r, const float *y,
                     float mean_got, float rstd_got, float *x)
{
    const long long C = st->cols;
    const int kind = row_kind(st, r);
    input_row(st, r, x);
    double s = 0.0, sa = 0.0, sdd = 0.0;
    for (long long j = 0; j < C; j++)
        s += x[j], sa += fabs((double)x[j]);
    const double mean = s / (double)C, A = sa / (double)C;
    for (long long j = 0; j < C; j++)
        sdd += ((double)x[j] - mean) * ((double)x[j] - mean);
    const double var = sdd / (double)C, rstd = 1.0 / sqrt(var + (double)st->eps);
    char where[64];
    int wrong = 0;

    const int mean_ok = fabs((double)mean_got - mean) <= st->t_mean * A;
    const double rel = st->t_rstd + st->t_cond * A / sqrt(var + (double)st->eps);
    const int rstd_ok = fabs((double)rstd_got - rstd) <= rel * rstd;
    if (!rp && (!mean_ok || !rstd_ok))
        return 1;
    if (rp)
        cl_mm_add(&rp->mean, r, mean, mean_got, mean_ok);
    if (!mean_ok) {
        snprintf(where, sizeof where, "mean[%lld]", r);
        wrong = cl_mismatch(run, where, mean, mean_got, "allowed error %.3g x mean|x| = %.3g%s%s",
                            st->t_mean, st->t_mean * A, kind_name(kind), ml_why(mean_got));
    }
    if (rp)
        cl_mm_add(&rp->rstd, r, rstd, rstd_got, rstd_ok);
    if (!rstd_ok) {
        snprintf(where, sizeof where, "rstd[%lld]", r);
        wrong = cl_mismatch(run, where, rstd, rstd_got,
                            "rstd = 1/sqrt(var + eps), var = %.9g (biased), eps = %.3g; allowed "
                            "relative error %.3g%s%s",
                            var, (double)st->eps, rel, kind_name(kind), ml_why(rstd_got));
    }
    for (long long j = 0; j < C; j++) {
        const double g = st->host_gamma[j], b = st->host_beta[j];
        const double want = ((double)x[j] - mean) * rstd * g + b;
        const double tol = st->t_y * (fabs(want) + fabs(g) * rstd * A + fabs(b));
        const int ok = fabs((double)y[j] - want) <= tol;
        if (!rp) {
            if (!ok)
                return 1;
            continue;
        }
        cl_mm_add(rp->y, r * C + j, want, y[j], ok);
        if (!ok) {
            snprintf(where, sizeof where, "y[%lld][%lld]", r, j);
            wrong = cl_mismatch(run, where, want, y[j],
                                "x = %.9g, mean = %.9g, rstd = %.9g, gamma = %.9g, beta = %.9g; "
                                "allowed error %.3g%s%s",
                                (double)x[j], mean, rstd, g, b, tol, kind_name(kind), ml_why(y[j]));
        }
    }
    return wrong;
}

/* Row i of the downloaded chunk, without a report (cl_par_rows_pass). */
static int row_passes(const void *st_, long long r, long long i, void *scratch)
{
    const layernorm_state *st = st_;
    return check_row(NULL, st, NULL, r, st->host_y + (size_t)i * (size_t)st->cols, st->host_mean[i],
                     st->host_rstd[i], scratch);
}

static int verify(cl_run *run, void *st_, int full)
{
    layernorm_state *st = st_;
    const long long C = st->cols;
    ml_bands b;
    ml_pick_rows(&b, st->rows, C, full, cl_check_seed(run) ^ 0x6C6179657273ull);
    ln_reports rp;
    cl_mm_shape ys = {"y", 2, {st->rows, C}, {"row", "col"}}, ms = {"mean", 1, {st->rows}, {"row"}},
                rs = {"rstd", 1, {st->rows}, {"row"}};
    cl_mm_tol yt = {0, st->t_y, "t_y x (|expected| + |gamma| x rstd x mean|x| + |beta|), t_y from lab.yaml"},
              mt = {0, st->t_mean, "t_mean x mean|x| of the row"},
              rt = {0, st->t_rstd, "(t_rstd + t_cond x mean|x| x rstd) x |expected|"};
    rp.y = cl_report_elements(run, &ys, &yt);
    cl_mm_begin(&rp.mean, &ms, &mt);
    cl_mm_begin(&rp.rstd, &rs, &rt);
    int wrong = 0;
    for (int k = 0; k < b.n; k++)
        for (long long r0 = b.lo[k]; r0 < b.hi[k]; r0 += st->chunk_rows) {
            const long long r1 = r0 + st->chunk_rows < b.hi[k] ? r0 + st->chunk_rows : b.hi[k];
            const size_t nr = (size_t)(r1 - r0);
            if (cl_download(run, st->host_y, st->y + (size_t)r0 * (size_t)C, nr * (size_t)C * sizeof(float)) ||
                cl_download(run, st->host_mean, st->mean + r0, nr * sizeof(float)) ||
                cl_download(run, st->host_rstd, st->rstd + r0, nr * sizeof(float)))
                return -1;
            if (cl_par_rows_pass(st, r0, (long long)nr, (double)nr * (double)C * 20, (size_t)C * sizeof(float),
                                 row_passes)) {
                cl_mm_add_passed(rp.y, r0 * C, (long long)nr * C);
                cl_mm_add_passed(&rp.mean, r0, (long long)nr);
                cl_mm_add_passed(&rp.rstd, r0, (long long)nr);
                continue;
            }
            for (long long r = r0; r < r1; r++) {
                const size_t i = (size_t)(r - r0);
                wrong |= check_row(run, st, &rp, r, st->host_y + i * (size_t)C, st->host_mean[i],
                                   st->host_rstd[i], st->host_x);
            }
        }
    /* the report is y's; where y is right, the statistic that is wrong */
    if (!rp.y->rep.wrong && rp.mean.rep.wrong)
        *rp.y = rp.mean;
    else if (!rp.y->rep.wrong && rp.rstd.rep.wrong)
        *rp.y = rp.rstd;
    return wrong;
}

const cl_checker cl_checker_layernorm = {"layernorm", sizeof(layernorm_state), setup, generate,
                                         args, verify, NULL};
