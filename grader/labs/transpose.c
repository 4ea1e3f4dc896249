/* transpose.c: the checker of the transpose lab.
 *
 * in is rows x cols fp32 from a gen.h generator (value of in[i][j] = element i*cols + j of
 * the stream), out must be cols x rows with out[j][i] == in[i][j] bit for bit: a transpose
 * only moves values, so the comparison is exact. The CPU recomputes any input element
 * from the generator, so the output is checked without copying the input back.
 * Work: rows * cols * 4 bytes read + the same written. */
#include <stdio.h>
#include <string.h>

#include "cudalab_lab.h"
#include "grader/checker.h"
#include "memlab.h"

typedef struct transpose_state {
    float *in, *out;
    long long rows, cols;
    cl_gen gen;    /* seed set by generate */
    double max_abs; /* 0: bit for bit */
    float *host;   /* download buffer: chunk_rows rows of out */
    float *column; /* one column of in, from the generator */
    long long chunk_rows;
} transpose_state;


static int setup(cl_run *run, const cl_case *c, void *st_)
{
    transpose_state *st = st_;
    if (ml_read_shape(run, c, 8.0, &st->rows, &st->cols) ||
        ml_read_dist(run, c, &st->gen, "uniform", -1.0, 1.0))
        return -1;
    st->max_abs = cl_tolerance(run, "max_abs", 0.0);
    const size_t bytes = (size_t)st->rows * (size_t)st->cols * sizeof(float);
    st->in = cl_alloc_in(run, bytes, "in");
    st->out = cl_alloc_out(run, bytes, "out");
    /* out has cols rows of `rows` floats */
    st->chunk_rows = ml_rows_per_chunk(st->rows, sizeof(float));
    if (st->chunk_rows > st->cols)
        st->chunk_rows = st->cols;
    st->host = cl_host_alloc(run, (size_t)st->chunk_rows * (size_t)st->rows * sizeof(float));
    st->column = cl_host_alloc(run, (size_t)st->rows * sizeof(float));
    if (!st->in || !st->out || !st->host || !st->column)
        return -1;
    cl_set_work(run, 2.0 * (double)bytes, 0.0);
    cl_set_shape(run, "%lld x %lld fp32, %.1f MiB in", st->rows, st->cols, (double)bytes / 1048576.0);
    return 0;
}

static int generate(cl_run *run, void *st_, uint64_t seed)
{
    transpose_state *st = st_;
    st->gen.seed = seed;
    return cl_fill(run, st->in, (size_t)st->rows * (size_t)st->cols, CL_F32, &st->gen);
}

static int args(cl_run *run, void *st_, cl_args *a)
{
    transpose_state *st = st_;
    cl_arg_ptr(run, a, st->in);
    cl_arg_ptr(run, a, st->out);
    cl_arg_i32(a, (int)st->rows);
    cl_arg_i32(a, (int)st->cols);
    return 0;
}

/* Out row j (column j of in), downloaded as row: 0 right; mm NULL: 1 at the first wrong
 * element, nothing reported (parallel.h); else every element into mm, the first wrong one
 * described. column: scratch for `rows` floats. */
static int check_out_row(cl_run *run, const transpose_state *st, cl_mm_acc *mm, long long j, const float *row,
                         float *column)
{
    int wrong = 0;
    const long long R = st->rows, C = st->cols;
    cl_gen_f32_span(&st->gen, (uint64_t)j, (uint64_t)C, R, column);
    for (long long i = 0; i < R; i++) {
        const float want = column[i];
        const int same = st->max_abs > 0 ? cl_close(row[i], want, st->max_abs, 0.0)
                                         : memcmp(&row[i], &want, sizeof want) == 0;
        if (!mm) {
            if (!same)
                return 1;
            continue;
        }
        cl_mm_add(mm, j * R + i, want, row[i], same);
        if (!same && !wrong) {
            char where[64];
            snprintf(where, sizeof where, "out[%lld][%lld]", j, i);
            wrong = cl_mismatch(run, where, want, row[i],
                                "out is %lld x %lld and out[j][i] must equal in[i][j] = %.9g exactly%s", C, R,
                                (double)want, ml_why(row[i]));
        }
    }
    return wrong;
}

/* Row i of the downloaded chunk, without a report (cl_par_rows_pass). */
static int row_passes(const void *st_, long long j, long long i, void *scratch)
{
    const transpose_state *st = st_;
    return check_out_row(NULL, st, NULL, j, st->host + (size_t)i * (size_t)st->rows, scratch);
}

/* Checks out rows [lo, hi) (each out row j holds column j of in), every element into mm. */
static int check_out_rows(cl_run *run, transpose_state *st, cl_mm_acc *mm, long long lo, long long hi)
{
    int wrong = 0;
    const long long R = st->rows;
    for (long long j0 = lo; j0 < hi; j0 += st->chunk_rows) {
        const long long j1 = j0 + st->chunk_rows < hi ? j0 + st->chunk_rows : hi;
        if (cl_download(run, st->host, st->out + (size_t)j0 * (size_t)R,
                        (size_t)(j1 - j0) * (size_t)R * sizeof(float)))
            return -1;
        if (cl_par_rows_pass(st, j0, j1 - j0, (double)(j1 - j0) * (double)R * 20, (size_t)R * sizeof(float),
                             row_passes)) {
            cl_mm_add_passed(mm, j0 * R, (j1 - j0) * R);
            continue;
        }
        for (long long j = j0; j < j1; j++)
            wrong |= check_out_row(run, st, mm, j, st->host + (size_t)(j - j0) * (size_t)R, st->column);
    }
    return wrong;
}

static int verify(cl_run *run, void *st_, int full)
{
    transpose_state *st = st_;
    ml_bands b;
    /* bands over out's rows (cols of them, each `rows` long) */
    ml_pick_rows(&b, st->cols, st->rows, full, cl_check_seed(run) ^ 0x7472616E73706F73ull);
    if (!full) { /* also the first out row: it holds the whole first column of in */
        b.lo[b.n] = 0, b.hi[b.n] = 1, b.n++;
    }
    /* out is cols x rows: its row j is column j of in */
    cl_mm_shape shape = {"out", 2, {st->cols, st->rows}, {"row", "col"}};
    cl_mm_tol tol = {st->max_abs, 0};
    cl_mm_acc *mm = cl_report_elements(run, &shape, &tol);
    int wrong = 0;
    for (int k = 0; k < b.n; k++) {
        int rc = check_out_rows(run, st, mm, b.lo[k], b.hi[k]);
        if (rc < 0)
            return rc;
        wrong |= rc;
    }
    return wrong;
}

const cl_checker cl_checker_transpose = {"transpose", sizeof(transpose_state), setup, generate,
                                         args, verify, NULL};
