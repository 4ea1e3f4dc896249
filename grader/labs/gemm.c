/* gemm.c: the checker of the gemm lab: C = A * B, fp16 row-major, fp32 accumulation.
 *
 * Inputs come from gen.h (generated on the device, recomputable on the CPU). After every
 * call the whole output is scanned for NaN on the GPU (outputs start as NaN, so an
 * unwritten element is caught anywhere). Then, in fp64 on the CPU:
 *   - small problems (M N K <= 2^31): every element, on all cores;
 *   - large problems: a grid of sampled rows x columns (first and last rows and columns
 *     always among them: corners and edges) against the generators, plus, in a full
 *     check, exact row and column checksums of all of C (sum_j C_ij = sum_k A_ik sum_j
 *     B_kj and its transpose) with a rigorous error bound, so a wrong row or column
 *     anywhere is found and then located element by element.
 * Tolerance per element (lab.yaml explains it):
 *     |got - ref| <= u16 |ref| + acc K u32 S_ij + 2^-24,   S_ij = sum_k |A_ik B_kj|,
 * and the relative Frobenius error over what was checked must stay below `frobenius`. */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "cudalab_lab.h"
#include "grader/checker.h"
#include "parallel.h"

#define FULL_LIMIT (1ll << 31) /* multiply-adds the CPU checks in full */
#define SAMPLE_FULL 64         /* rows x columns sampled in a full check of a large case */
#define SAMPLE_QUICK_ROWS 16   /* ... and after each timed run */
#define SAMPLE_QUICK_COLS 32

typedef enum { D_UNIFORM, D_NORMAL, D_POSITIVE } dist;

typedef struct gemm_state {
    void *A, *B, *C; /* device, fp16 */
    long long M, N, K;
    dist d;
    cl_gen ga, gb;
    uint16_t *hC;    /* the solution's output */
    float *hA, *hB;  /* inputs on the host: from the generators (small) or downloaded (large) */
    double acc, frob;
    int halved;
} gemm_state;


/* ---- setup ---- */

static int parse_dist(cl_run *run, const cl_case *c, dist *d)
{
    const char *s = cl_param_str_or(c, "dist", "uniform");
    if (!strcmp(s, "uniform")) *d = D_UNIFORM;
    else if (!strcmp(s, "normal")) *d = D_NORMAL;
    else if (!strcmp(s, "positive")) *d = D_POSITIVE;
    else return cl_errorf(run, "case '%s': unknown dist '%s' (uniform, normal, positive)", cl_case_name(c), s);
    return 0;
}

static double footprint(long long M, long long N, long long K)
{
    return 2.0 * ((double)M * K + (double)K * N + (double)M * N);
}

static int setup(cl_run *run, const cl_case *c, void *vs)
{
    gemm_state *s = vs;
    if (parse_dist(run, c, &s->d) || cl_param_i64(run, c, "m", &s->M) || cl_param_i64(run, c, "n", &s->N) ||
        cl_param_i64(run, c, "k", &s->K))
        return -1;
    if (s->M < 1 || s->N < 1 || s->K < 8 || s->K % 8)
        return cl_errorf(run, "case '%s': need m >= 1, n >= 1 and k a positive multiple of 8 (got %lld, %lld, %lld)",
                         cl_case_name(c), s->M, s->N, s->K);
    if (s->M > 1 << 30 || s->N > 1 << 30 || s->K > 1 << 30)
        return cl_errorf(run, "case '%s': dimensions must fit in an int", cl_case_name(c));
    /* a GPU too small for the case: halve M and N until A, B and C fit (the report says so) */
    while (footprint(s->M, s->N, s->K) > (double)cl_mem_budget(run) && s->M > 64 && s->N > 64) {
        s->M = (s->M + 1) / 2;
        s->N = (s->N + 1) / 2;
        s->halved = 1;
    }
    if (footprint(s->M, s->N, s->K) > (double)cl_mem_budget(run))
        return cl_errorf(run, "case '%s': %.0f MiB of matrices do not fit in this GPU's memory budget",
                         cl_case_name(c), footprint(s->M, s->N, s->K) / 1048576.0);
    s->acc = cl_tolerance(run, "accumulation", 3.0);
    s->frob = cl_tolerance(run, "frobenius", 1e-3);

    size_t mk = (size_t)s->M * s->K, kn = (size_t)s->K * s->N, mn = (size_t)s->M * s->N;
    if (!(s->A = cl_alloc_in(run, mk * 2, "A")) || !(s->B = cl_alloc_in(run, kn * 2, "B")) ||
        !(s->C = cl_alloc_out(run, mn * 2, "C")) || !(s->hC = cl_host_alloc(run, mn * 2)) ||
        !(s->hA = cl_host_alloc(run, mk * sizeof(float))) || !(s->hB = cl_host_alloc(run, kn * sizeof(float))))
        return -1;
    long long dims[3] = {s->M, s->N, s->K};
    cl_set_dims(run, 3, dims);
    cl_set_work(run, footprint(s->M, s->N, s->K), 2.0 * (double)s->M * (double)s->N * (double)s->K);
    cl_set_shape(run, "%.3g GFLOP, %.1f MiB%s", 2e-9 * (double)s->M * (double)s->N * (double)s->K,
                 footprint(s->M, s->N, s->K) / 1048576.0,
                 s->halved ? "; M and N halved to fit this GPU" : "");
    return 0;
}

static int generate(cl_run *run, void *vs, uint64_t seed)
{
    gemm_state *s = vs;
    cl_gen g = {CL_GEN_UNIFORM, seed, -1.0, 1.0};
    if (s->d == D_NORMAL) {
        g.kind = CL_GEN_NORMALISH;
        g.a = 0.0;
        g.b = 1.0;
    } else if (s->d == D_POSITIVE) {
        g.a = 0.0;
    }
    s->ga = g;
    s->gb = g;
    s->gb.seed = cl_mix64(seed ^ 0xB0B0B0B0B0B0B0B0ull); /* an independent stream for B */
    if (cl_fill(run, s->A, (size_t)s->M * s->K, CL_F16, &s->ga) ||
        cl_fill(run, s->B, (size_t)s->K * s->N, CL_F16, &s->gb))
        return -1;
    return 0;
}

static int args(cl_run *run, void *vs, cl_args *a)
{
    gemm_state *s = vs;
    cl_arg_ptr(run, a, s->A);
    cl_arg_ptr(run, a, s->B);
    cl_arg_ptr(run, a, s->C);
    cl_arg_i32(a, (int)s->M);
    cl_arg_i32(a, (int)s->N);
    cl_arg_i32(a, (int)s->K);
    return 0;
}

/* ---- helpers ---- */

static double a_at(const gemm_state *s, long long i, long long k)
{
    return cl_f16_to_f32(cl_gen_f16(&s->ga, (uint64_t)(i * s->K + k)));
}
static double b_at(const gemm_state *s, long long k, long long j)
{
    return cl_f16_to_f32(cl_gen_f16(&s->gb, (uint64_t)(k * s->N + j)));
}
static double c_at(const gemm_state *s, long long i, long long j)
{
    return cl_f16_to_f32(s->hC[i * s->N + j]);
}
/* The element bound (see the file comment). */
static double bound(const gemm_state *s, double ref, double abs_sum)
{
    return CL_U16 * fabs(ref) + s->acc * (double)s->K * CL_U32 * abs_sum + 0x1p-24;
}
/* The first element that breaks the bound, or the Frobenius sums, over a set of rows. */
typedef struct check_part {
    const gemm_state *s;
    const long long *rows, *cols; /* cols NULL: every column */
    long long nrows, ncols, row_lo, row_hi;
    double err2, ref2;
    long long bad_i, bad_j; /* -1: none */
    double bad_ref, bad_got, bad_bound;
    const float *arows; /* nrows x K of A, when rows are sampled */
    const float *bcols; /* ncols x K of B (transposed), when columns are sampled */
} check_part;

static void note_element(check_part *p, long long i, long long j, double ref, double abs_sum)
{
    double got = c_at(p->s, i, j), b = bound(p->s, ref, abs_sum), err = fabs(got - ref);
    if (!(err <= b)) {
        if (p->bad_i < 0 || i < p->bad_i || (i == p->bad_i && j < p->bad_j)) {
            p->bad_i = i;
            p->bad_j = j;
            p->bad_ref = ref;
            p->bad_got = got;
            p->bad_bound = b;
        }
        return;
    }
    p->err2 += err * err;
    p->ref2 += ref * ref;
}

/* Full check of rows [row_lo, row_hi): hA and hB hold the whole inputs. The j loop is
 * N independent sums: vectorised (CL_VECTOR_CLONES), about 3x one core's scalar rate. */
CL_VECTOR_CLONES static void *check_rows_full(void *vp)
{
    check_part *p = vp;
    const gemm_state *s = p->s;
    long long N = s->N, K = s->K;
    double *acc = calloc((size_t)N * 2, sizeof(double));
    if (!acc) return NULL; /* reported by the caller through bad_i == -2 */
    double *abs_acc = acc + N;
    for (long long i = p->row_lo; i < p->row_hi; i++) {
        memset(acc, 0, (size_t)N * 2 * sizeof(double));
        for (long long k = 0; k < K; k++) {
            double a = s->hA[i * K + k];
            const float *brow = s->hB + k * N;
            for (long long j = 0; j < N; j++) {
                double prod = a * (double)brow[j];
                acc[j] += prod;
                abs_acc[j] += fabs(prod);
            }
        }
        for (long long j = 0; j < N; j++) note_element(p, i, j, acc[j], abs_acc[j]);
    }
    free(acc);
    return NULL;
}

/* Sampled check: rows[r] x cols[c] for r in [row_lo, row_hi). */
static void *check_rows_sampled(void *vp)
{
    check_part *p = vp;
    long long K = p->s->K;
    for (long long r = p->row_lo; r < p->row_hi; r++)
        for (long long c = 0; c < p->ncols; c++) {
            const float *a = p->arows + r * K, *b = p->bcols + c * K;
            double ref = 0, abs_sum = 0;
            for (long long k = 0; k < K; k++) {
                double prod = (double)a[k] * (double)b[k];
                ref += prod;
                abs_sum += fabs(prod);
            }
            note_element(p, p->rows[r], p->cols[c], ref, abs_sum);
        }
    return NULL;
}

/* Runs a row-split check on n threads and merges: 0 pass, 1 wrong (reported). */
static int run_check(cl_run *run, gemm_state *s, check_part *tmpl, long long nrows, void *(*fn)(void *),
                     double work, const char *what)
{
    int n = cl_par_threads(work, CL_PAR_MAX);
    if (n > nrows) n = (int)(nrows > 0 ? nrows : 1);
    check_part parts[CL_PAR_MAX];
    long long chunk = (nrows + n - 1) / n;
    for (int t = 0; t < n; t++) {
        parts[t] = *tmpl;
        parts[t].row_lo = t * chunk < nrows ? t * chunk : nrows;
        parts[t].row_hi = (t + 1) * chunk < nrows ? (t + 1) * chunk : nrows;
        parts[t].bad_i = parts[t].bad_j = -1;
        parts[t].err2 = parts[t].ref2 = 0;
    }
    cl_par_run(n, fn, parts, sizeof parts[0]);
    double err2 = 0, ref2 = 0;
    check_part *bad = NULL;
    for (int t = 0; t < n; t++) {
        err2 += parts[t].err2;
        ref2 += parts[t].ref2;
        if (parts[t].bad_i >= 0 && (!bad || parts[t].bad_i < bad->bad_i ||
                                    (parts[t].bad_i == bad->bad_i && parts[t].bad_j < bad->bad_j)))
            bad = &parts[t];
    }
    if (bad) {
        char where[96];
        snprintf(where, sizeof where, "C[%lld][%lld]", bad->bad_i, bad->bad_j);
        return cl_mismatch(run, where, bad->bad_ref, bad->bad_got,
                           "%s is %.6g, expected %.6g: off by %.4g, more than fp16 output rounding plus fp32 "
                           "accumulation over K = %lld allow here (%.3g)%s",
                           where, bad->bad_got, bad->bad_ref, fabs(bad->bad_got - bad->bad_ref), s->K, bad->bad_bound,
                           fabs(bad->bad_got) < 1e-30 && fabs(bad->bad_ref) > 1e-3
                               ? "; a zero where a value belongs: part of K or an edge tile skipped?"
                               : "");
    }
    double rel = ref2 > 0 ? sqrt(err2 / ref2) : sqrt(err2);
    if (rel > s->frob)
        return cl_failf(run,
                        "every element is within its bound, but the relative Frobenius error over %s is %.3g, "
                        "above %.3g: the result is systematically less accurate than fp32 accumulation gives "
                        "(fp16 accumulators? a skipped slice of K?)",
                        what, rel, s->frob);
    return 0;
}

/* ---- the three kinds of check ---- */

/* Every element of C, after every call, where C is (on the GPU: nothing is downloaded for
 * it): the first NaN is reported. */
static int scan_nan(cl_run *run, gemm_state *s)
{
    long long e;
    if (cl_find_nan16(run, s->C, (size_t)(s->M * s->N), &e)) return -1;
    if (e < 0) return 0;
    long long i = e / s->N, j = e % s->N;
    double ref = 0;
    for (long long k = 0; k < s->K; k++) ref += a_at(s, i, k) * b_at(s, k, j);
    char where[96];
    snprintf(where, sizeof where, "C[%lld][%lld]", i, j);
    return cl_mismatch(run, where, ref, NAN,
                       "%s is NaN (expected %.6g): never written (C starts as NaN before each call), or "
                       "the sum produced one.%s",
                       where, ref, (i >= s->M - s->M % 16 || j >= s->N - s->N % 16)
                           ? " It is in the last partial row or column of tiles: are edge tiles skipped?"
                           : "");
}

/* All of A (which = 0) or all of B, as fp32, from the generator: a slice of it. */
typedef struct gen_job {
    const cl_gen *g;
    float *dst;
} gen_job;
static void gen_inputs(void *ctx, int t, long long lo, long long hi)
{
    (void)t;
    gen_job *j = ctx;
    cl_gen_f16_span(j->g, (uint64_t)lo, 1, hi - lo, j->dst + lo);
}
static void generate_host(gemm_state *s, int which)
{
    long long total = which == 0 ? s->M * s->K : s->K * s->N;
    gen_job job = {which == 0 ? &s->ga : &s->gb, which == 0 ? s->hA : s->hB};
    cl_par_for(total, (double)total * 20, CL_PAR_MAX, gen_inputs, &job);
}

static int check_full(cl_run *run, gemm_state *s)
{
    generate_host(s, 0);
    generate_host(s, 1);
    check_part t = {.s = s};
    return run_check(run, s, &t, s->M, check_rows_full, (double)s->M * s->N * s->K, "all of C");
}

/* count distinct indices in [0, n): always 0 and n-1, the rest drawn at random. */
static long long pick(long long *out, long long count, long long n, uint64_t seed)
{
    if (n <= count) {
        for (long long i = 0; i < n; i++) out[i] = i;
        return n;
    }
    out[0] = 0;
    out[1] = n - 1;
    for (long long i = 2; i < count; i++) out[i] = (long long)cl_sample_index(seed, (uint64_t)i, (uint64_t)n);
    return count;
}

/* The sampled rows of A and columns of B, from the generators: entries [lo, hi) of the
 * nr rows followed by the nc columns, each K long (about 12 ns an element, so 48 rows and
 * columns of K = 8192 are 5 ms on one core: after every timed run, it is spread). */
typedef struct gather_job {
    const gemm_state *s;
    const long long *rows, *cols;
    long long nr;
    float *arows, *bcols;
} gather_job;
static void gather_part(void *ctx, int t, long long lo, long long hi)
{
    (void)t;
    const gather_job *g = ctx;
    long long K = g->s->K;
    for (long long x = lo; x < hi; x++)
        if (x < g->nr)
            cl_gen_f16_span(&g->s->ga, (uint64_t)(g->rows[x] * K), 1, K, g->arows + x * K);
        else
            cl_gen_f16_span(&g->s->gb, (uint64_t)g->cols[x - g->nr], (uint64_t)g->s->N, K, g->bcols + (x - g->nr) * K);
}

/* fetch_rows: hC does not hold C yet; only the sampled rows are downloaded. */
static int check_sampled(cl_run *run, gemm_state *s, long long nr, long long nc, uint64_t seed, int fetch_rows)
{
    long long rows[SAMPLE_FULL], cols[SAMPLE_FULL];
    nr = pick(rows, nr, s->M, seed);
    nc = pick(cols, nc, s->N, seed ^ 0x5A5A5A5Aull);
    for (long long r = 0; fetch_rows && r < nr; r++)
        if (cl_download(run, s->hC + rows[r] * s->N, (const uint16_t *)s->C + rows[r] * s->N, (size_t)s->N * 2))
            return -1;
    float *arows = malloc((size_t)(nr + nc) * s->K * sizeof(float));
    if (!arows) return cl_errorf(run, "out of host memory for the sampled check");
    float *bcols = arows + nr * s->K;
    gather_job g = {s, rows, cols, nr, arows, bcols};
    cl_par_for(nr + nc, (double)(nr + nc) * s->K * 20, CL_PAR_MAX, gather_part, &g);
    check_part t = {.s = s, .rows = rows, .cols = cols, .nrows = nr, .ncols = nc, .arows = arows, .bcols = bcols};
    char what[64];
    snprintf(what, sizeof what, "%lld sampled elements", nr * nc);
    int rc = run_check(run, s, &t, nr, check_rows_sampled, (double)nr * nc * s->K, what);
    free(arows);
    return rc;
}

/* A row (or column) whose checksum is off: find its first element outside the bound. */
static int locate(cl_run *run, gemm_state *s, int is_row, long long idx, double got_sum, double exact_sum,
                  double tol)
{
    long long M = s->M, N = s->N, K = s->K, len = is_row ? N : M;
    for (long long e = 0; e < len; e++) {
        long long i = is_row ? idx : e, j = is_row ? e : idx;
        double ref = 0, abs_sum = 0;
        for (long long k = 0; k < K; k++) {
            double prod = (double)s->hA[i * K + k] * (double)s->hB[k * N + j];
            ref += prod;
            abs_sum += fabs(prod);
        }
        double got = c_at(s, i, j), b = bound(s, ref, abs_sum);
        if (!(fabs(got - ref) <= b)) {
            char where[96];
            snprintf(where, sizeof where, "C[%lld][%lld]", i, j);
            return cl_mismatch(run, where, ref, got,
                               "%s is %.6g, expected %.6g: off by %.4g, more than fp16 output rounding plus fp32 "
                               "accumulation over K = %lld allow here (%.3g); found through the checksum of %s %lld",
                               where, got, ref, fabs(got - ref), K, b, is_row ? "row" : "column", idx);
        }
    }
    return cl_failf(run,
                    "%s %lld of C sums to %.9g, but A times B gives %.9g there (allowed difference %.3g): every "
                    "element is within its own bound, yet the errors all lean one way",
                    is_row ? "row" : "column", idx, got_sum, exact_sum, tol);
}

/* check_sums' work, in slices on every core. Per row i of C: its sum and the exact one
 * (sum_k A_ik rowB_k), with the bound's terms; per column j the same (sum_k colA_k B_kj);
 * the sums over columns of A and of C are kept per slice and added in slice order. */
typedef struct sums_job {
    gemm_state *s;
    const uint16_t *raw;              /* A or B as downloaded (fp16), while converting */
    float *dst;
    double *part;                     /* CL_PAR_MAX slices x 2 width: partial column sums */
    long long width;                  /* K (A's columns) or N (C's columns) */
    double *rowB, *absRowB;           /* K */
    double *colA, *absColA;           /* K */
    double *got, *abs_got, *exact, *abs_exact; /* M (rows) or N (columns) */
} sums_job;

static void sums_convert(void *ctx, int t, long long lo, long long hi)
{
    (void)t;
    sums_job *j = ctx;
    for (long long e = lo; e < hi; e++) j->dst[e] = cl_f16_to_f32(j->raw[e]);
}
/* rows [lo, hi) of A: partial sums over i of A_ik and |A_ik| */
static void sums_col_a(void *ctx, int t, long long lo, long long hi)
{
    sums_job *j = ctx;
    long long K = j->s->K;
    double *col = j->part + (size_t)t * 2 * K, *abs_col = col + K;
    for (long long i = lo; i < hi; i++)
        for (long long k = 0; k < K; k++) {
            double a = j->s->hA[i * K + k];
            col[k] += a;
            abs_col[k] += fabs(a);
        }
}
/* rows [lo, hi) of B: sum over j of B_kj and |B_kj| */
static void sums_row_b(void *ctx, int t, long long lo, long long hi)
{
    (void)t;
    sums_job *j = ctx;
    long long N = j->s->N;
    for (long long k = lo; k < hi; k++) {
        double r = 0, a = 0;
        for (long long c = 0; c < N; c++) {
            double b = j->s->hB[k * N + c];
            r += b;
            a += fabs(b);
        }
        j->rowB[k] = r;
        j->absRowB[k] = a;
    }
}
/* rows [lo, hi) of C: each row's sum and exact sum; partial sums over i of C_ij, |C_ij| */
static void sums_rows_c(void *ctx, int t, long long lo, long long hi)
{
    sums_job *j = ctx;
    const gemm_state *s = j->s;
    long long N = s->N, K = s->K;
    double *col = j->part + (size_t)t * 2 * N, *abs_col = col + N;
    for (long long i = lo; i < hi; i++) {
        double got = 0, abs_got = 0, exact = 0, abs_s = 0;
        for (long long c = 0; c < N; c++) {
            double v = c_at(s, i, c);
            got += v;
            abs_got += fabs(v);
            col[c] += v;
            abs_col[c] += fabs(v);
        }
        for (long long k = 0; k < K; k++) {
            double a = s->hA[i * K + k];
            exact += a * j->rowB[k];
            abs_s += fabs(a) * j->absRowB[k];
        }
        j->got[i] = got;
        j->abs_got[i] = abs_got;
        j->exact[i] = exact;
        j->abs_exact[i] = abs_s;
    }
}
/* columns [lo, hi) of C: sum over k of colA_k B_kj (B read row by row) */
static void sums_cols_exact(void *ctx, int t, long long lo, long long hi)
{
    (void)t;
    sums_job *j = ctx;
    const gemm_state *s = j->s;
    long long N = s->N, K = s->K;
    for (long long c = lo; c < hi; c++) j->exact[c] = j->abs_exact[c] = 0;
    for (long long k = 0; k < K; k++) {
        const float *brow = s->hB + k * N;
        double ca = j->colA[k], aca = j->absColA[k];
        for (long long c = lo; c < hi; c++) {
            j->exact[c] += ca * brow[c];
            j->abs_exact[c] += aca * fabs((double)brow[c]);
        }
    }
}

/* Slices' partial sums (2 x width each) added in slice order into out (2 x width). */
static void sums_merge(const double *part, int nt, long long width, double *out)
{
    for (long long e = 0; e < 2 * width; e++) out[e] = 0;
    for (int t = 0; t < nt; t++)
        for (long long e = 0; e < 2 * width; e++) out[e] += part[(size_t)t * 2 * width + e];
}

/* A as fp32 in hA (which = 0) or B in hB, from the device copy the solution was given. */
static int download_input(cl_run *run, gemm_state *s, int which, uint16_t *tmp)
{
    size_t count = which == 0 ? (size_t)s->M * s->K : (size_t)s->K * s->N;
    if (cl_download(run, tmp, which == 0 ? s->A : s->B, count * 2)) return -1;
    sums_job j = {.s = s, .raw = tmp, .dst = which == 0 ? s->hA : s->hB};
    cl_par_for((long long)count, (double)count * 4, CL_PAR_MAX, sums_convert, &j);
    return 0;
}

/* Exact row and column checksums of all of C against the inputs (the engine has already
 * checked, by a keyed hash, that they are the generated ones). fp16 values summed in fp64
 * are exact here; the bound is the sum of the element bounds over the row or column. The
 * first row outside its bound is reported, else the first column. */
static int check_sums(cl_run *run, gemm_state *s)
{
    long long M = s->M, N = s->N, K = s->K, W = N > K ? N : K, R = M > N ? M : N;
    size_t mk = (size_t)M * K, kn = (size_t)K * N;
    uint16_t *tmp = malloc((mk > kn ? mk : kn) * 2);
    double *v = calloc((size_t)(4 * K + 2 * N + 4 * R), sizeof(double));
    double *part = calloc((size_t)CL_PAR_MAX * 2 * W, sizeof(double));
    if (!tmp || !v || !part) {
        free(tmp);
        free(v);
        free(part);
        return cl_errorf(run, "out of host memory for the checksums");
    }
    sums_job j = {.s = s, .part = part, .colA = v, .absColA = v + K, .rowB = v + 2 * K, .absRowB = v + 3 * K,
                  .got = v + 4 * K + 2 * N, .abs_got = v + 4 * K + 2 * N + R, .exact = v + 4 * K + 2 * N + 2 * R,
                  .abs_exact = v + 4 * K + 2 * N + 3 * R};
    double *colC = v + 4 * K, *absColC = colC + N; /* sum_i C_ij, sum_i |C_ij| */
    int rc = download_input(run, s, 0, tmp);
    if (!rc) rc = download_input(run, s, 1, tmp);
    free(tmp);
    if (!rc) {
        int nt = cl_par_for(M, (double)mk, CL_PAR_MAX, sums_col_a, &j);
        sums_merge(part, nt, K, j.colA); /* colA then absColA: adjacent */
        cl_par_for(K, (double)kn, CL_PAR_MAX, sums_row_b, &j);
        memset(part, 0, (size_t)CL_PAR_MAX * 2 * W * sizeof(double));
        nt = cl_par_for(M, (double)M * (N + K), CL_PAR_MAX, sums_rows_c, &j);
        sums_merge(part, nt, N, colC);
    }
    for (long long i = 0; i < M && !rc; i++) { /* rows: sum_j C_ij = sum_k A_ik rowB_k */
        double tol = (CL_U16 * j.abs_got[i] + s->acc * K * CL_U32 * j.abs_exact[i] + N * 0x1p-24) / (1 - CL_U16) +
                     1e-12 * j.abs_exact[i];
        if (!(fabs(j.got[i] - j.exact[i]) <= tol)) rc = locate(run, s, 1, i, j.got[i], j.exact[i], tol);
    }
    if (!rc) cl_par_for(N, (double)kn, CL_PAR_MAX, sums_cols_exact, &j);
    for (long long c = 0; c < N && !rc; c++) { /* columns: sum_i C_ij = sum_k colA_k B_kj */
        double tol = (CL_U16 * absColC[c] + s->acc * K * CL_U32 * j.abs_exact[c] + M * 0x1p-24) / (1 - CL_U16) +
                     1e-12 * j.abs_exact[c];
        if (!(fabs(colC[c] - j.exact[c]) <= tol)) rc = locate(run, s, 0, c, colC[c], j.exact[c], tol);
    }
    free(v);
    free(part);
    return rc;
}

/* report_all's slices of rows: each element's fp64 reference and whether it is within its
 * own bound. */
typedef struct report_job {
    const gemm_state *s;
    double *ref;       /* M x N */
    unsigned char *ok; /* M x N */
} report_job;
static void report_rows(void *ctx, int t, long long lo, long long hi)
{
    (void)t;
    report_job *p = ctx;
    const gemm_state *s = p->s;
    long long N = s->N, K = s->K;
    for (long long i = lo; i < hi; i++)
        for (long long j = 0; j < N; j++) {
            double ref = 0, abs_sum = 0;
            for (long long k = 0; k < K; k++) {
                double prod = (double)s->hA[i * K + k] * (double)s->hB[k * N + j];
                ref += prod;
                abs_sum += fabs(prod);
            }
            p->ref[i * N + j] = ref;
            p->ok[i * N + j] = fabs(c_at(s, i, j) - ref) <= bound(s, ref, abs_sum);
        }
}

/* The full report of a wrong C (mismatch.h): every element against its own bound, only
 * after a check has failed and only where the full check is affordable. The references
 * are computed on every core, then the elements go to the report in order. */
static void report_all(cl_run *run, gemm_state *s)
{
    long long M = s->M, N = s->N, K = s->K;
    cl_mm_shape shape = {"C", 2, {M, N}, {"row", "col"}};
    cl_mm_tol tol = {0, CL_U16, "fp16 output rounding + fp32 accumulation over K, per element"};
    cl_mm_acc *mm = cl_report_elements(run, &shape, &tol);
    report_job job = {s, malloc((size_t)(M * N) * sizeof(double)), malloc((size_t)(M * N))};
    if (job.ref && job.ok) {
        cl_par_for(M, (double)M * N * K, CL_PAR_MAX, report_rows, &job);
        for (long long e = 0; e < M * N; e++)
            cl_mm_add(mm, e, job.ref[e], c_at(s, e / N, e % N), job.ok[e]);
    } /* else no report: the verdict and its first element stand */
    free(job.ref);
    free(job.ok);
}

/* After every call: no NaN anywhere in C, then sampled rows x columns. A full check
 * downloads all of C and checks every element where that is affordable, else a larger
 * sample and the checksums; a failed one reports every element where it is affordable. */
static int verify(cl_run *run, void *vs, int full)
{
    gemm_state *s = vs;
    int rc = scan_nan(run, s);
    if (rc) return rc;
    uint64_t seed = cl_mix64(cl_check_seed(run) ^ (full ? 0x1111ull : 0x2222ull));
    if (!full) return check_sampled(run, s, SAMPLE_QUICK_ROWS, SAMPLE_QUICK_COLS, seed, 1);
    if (cl_download(run, s->hC, s->C, (size_t)s->M * s->N * 2)) return -1;
    int small = (double)s->M * (double)s->N * (double)s->K <= (double)FULL_LIMIT;
    if (small) {
        rc = check_full(run, s);
        if (rc == 1) report_all(run, s);
        return rc;
    }
    rc = check_sampled(run, s, SAMPLE_FULL, SAMPLE_FULL, seed, 0);
    return rc ? rc : check_sums(run, s);
}

const cl_checker cl_checker_gemm = {"gemm", sizeof(gemm_state), setup, generate, args, verify, NULL};
