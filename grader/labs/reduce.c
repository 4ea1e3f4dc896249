/* reduce.c: the checker of the reduce lab: *out = sum of in[0..n).
 *
 * Inputs come from gen.h (device-generated, recomputable on the CPU) except the
 * structured distributions, built on the CPU and uploaded. The reference sum and the sum
 * of magnitudes are exact enough in fp64: on the CPU (threads over the generator) up to
 * 2^26 elements, above that with the judge's fp64 kernel that sums the generator itself,
 * so the expected value never comes from memory the solution could have touched. The tolerance is the fp32 error bound of a summation whose
 * longest chain of dependent additions is at most `depth` + log2(n) (see lab.yaml). */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cudalab_lab.h"
#include "grader/checker.h"

#define CPU_REFERENCE_LIMIT (1ll << 26)

typedef enum { D_UNIFORM, D_POSITIVE, D_LARGE, D_CANCEL, D_TAIL, D_SHIFTED } dist;

typedef struct reduce_state {
    float *in, *out;
    long long n;
    dist d;
    cl_gen gen;
    float *host; /* structured inputs (cancel) live on the host too */
    float tail_value;
    double depth;
} reduce_state;


static int parse_dist(cl_run *run, const cl_case *c, dist *d)
{
    const char *s = cl_param_str_or(c, "dist", "uniform");
    if (!strcmp(s, "uniform")) *d = D_UNIFORM;
    else if (!strcmp(s, "positive")) *d = D_POSITIVE;
    else if (!strcmp(s, "large")) *d = D_LARGE;
    else if (!strcmp(s, "cancel")) *d = D_CANCEL;
    else if (!strcmp(s, "tail")) *d = D_TAIL;
    else if (!strcmp(s, "shifted")) *d = D_SHIFTED;
    else return cl_errorf(run, "case '%s': unknown dist '%s' (uniform, positive, large, cancel, tail, shifted)",
                          cl_case_name(c), s);
    return 0;
}

static int setup(cl_run *run, const cl_case *c, void *vs)
{
    reduce_state *s = vs;
    if (parse_dist(run, c, &s->d) || cl_param_size(run, c, "n", sizeof(float), 0, &s->n))
        return -1;
    if (s->n < 1)
        return cl_errorf(run, "case '%s': n must be at least 1", cl_case_name(c));
    if (s->d == D_CANCEL && s->n > CPU_REFERENCE_LIMIT)
        return cl_errorf(run, "case '%s': dist cancel is built on the CPU: n <= 2^26", cl_case_name(c));
    s->depth = cl_tolerance(run, "depth", 4096);
    if (!(s->in = cl_alloc_in(run, (size_t)s->n * sizeof(float), "in")) ||
        !(s->out = cl_alloc_out(run, sizeof(float), "out")))
        return -1;
    if (s->d == D_CANCEL && !(s->host = cl_host_alloc(run, (size_t)s->n * sizeof(float))))
        return -1;
    cl_set_work(run, (double)s->n * sizeof(float) + sizeof(float), (double)s->n);
    cl_set_shape(run, "n = %lld (%.1f MiB)", s->n, (double)s->n * 4 / 1048576.0);
    return 0;
}

static int generate(cl_run *run, void *vs, uint64_t seed)
{
    reduce_state *s = vs;
    cl_gen g = {CL_GEN_UNIFORM, seed, -1.0, 1.0};
    switch (s->d) {
    case D_POSITIVE: g.a = 1.0; g.b = 2.0; break;
    case D_LARGE: g.kind = CL_GEN_SIGNED_LOG; g.a = 90; g.b = 100; break; /* |x| in 1e27 .. 2.5e30 */
    case D_SHIFTED: {
        /* uniform in [c - 1, c + 1) with c in [1, 2) drawn from the seed: the sum moves by
         * n x (c' - c) between runs, far beyond the tolerance, so a stale or skipped answer
         * from a previous run cannot hide in it (a zero-mean sum moves only by ~sqrt(n)) */
        double c = 1.0 + (double)cl_unit24(cl_rand64(seed, 0, 99));
        g.a = c - 1.0;
        g.b = c + 1.0;
        break;
    }
    default: break;
    }
    s->gen = g;
    if (s->d == D_CANCEL) {
        /* pairs (+a, -a + d): the exact sum is the sum of the small d's, while every
         * partial sum of an unlucky order is a million times larger */
        for (long long i = 0; i < s->n; i++) {
            double a = 1e6 * (1.0 + (double)cl_unit24(cl_rand64(seed, (uint64_t)(i / 2), 0)));
            double d = (double)cl_unit24(cl_rand64(seed, (uint64_t)i, 1)) - 0.5;
            s->host[i] = (i % 2 == 0 && i + 1 < s->n) ? (float)a : (float)(i % 2 ? -a + d : d);
        }
        return cl_upload(run, s->in, s->host, (size_t)s->n * sizeof(float));
    }
    if (cl_fill(run, s->in, (size_t)s->n, CL_F32, &g))
        return -1;
    if (s->d == D_TAIL) { /* one heavy element at the very end: a dropped tail cannot hide */
        s->tail_value = 1e4f;
        return cl_upload(run, s->in + (s->n - 1), &s->tail_value, sizeof(float));
    }
    return 0;
}

static int args(cl_run *run, void *vs, cl_args *a)
{
    reduce_state *s = vs;
    cl_arg_ptr(run, a, s->in);
    cl_arg_ptr(run, a, s->out);
    cl_arg_i64(a, (int64_t)s->n);
    return 0;
}

/* ---- the CPU reference: fp64, split over threads ---- */

typedef struct part {
    const reduce_state *s;
    long long lo, hi;
    double sum, abs_sum;
} part;

static float input_at(const reduce_state *s, long long i)
{
    if (s->host)
        return s->host[i];
    if (s->d == D_TAIL && i == s->n - 1)
        return s->tail_value;
    return cl_gen_f32(&s->gen, (uint64_t)i);
}

static void *sum_part(void *vp)
{
    part *p = vp;
    double sum = 0, abs_sum = 0;
    for (long long i = p->lo; i < p->hi; i++) {
        double v = input_at(p->s, i);
        sum += v;
        abs_sum += fabs(v);
    }
    p->sum = sum;
    p->abs_sum = abs_sum;
    return NULL;
}

static void cpu_sum(const reduce_state *s, double *sum, double *abs_sum)
{
    long nt = sysconf(_SC_NPROCESSORS_ONLN);
    if (nt < 1) nt = 1;
    if (nt > 32) nt = 32;
    if (s->n < 1 << 20) nt = 1;
    part parts[32];
    pthread_t th[32];
    long long chunk = (s->n + nt - 1) / nt;
    int started[32] = {0};
    for (long t = 0; t < nt; t++) {
        long long lo = t * chunk, hi = (t + 1) * chunk;
        parts[t] = (part){s, lo < s->n ? lo : s->n, hi < s->n ? hi : s->n, 0, 0};
        if (t > 0 && pthread_create(&th[t], NULL, sum_part, &parts[t]) == 0)
            started[t] = 1;
        else if (t > 0)
            sum_part(&parts[t]);
    }
    sum_part(&parts[0]);
    *sum = *abs_sum = 0;
    for (long t = 0; t < nt; t++) {
        if (started[t])
            pthread_join(th[t], NULL);
        *sum += parts[t].sum;
        *abs_sum += parts[t].abs_sum;
    }
}

static int verify(cl_run *run, void *vs, int full)
{
    reduce_state *s = vs;
    float got;
    if (cl_download(run, &got, s->out, sizeof got))
        return -1;
    double exact, abs_sum;
    if (s->host || (full && s->n <= CPU_REFERENCE_LIMIT)) {
        cpu_sum(s, &exact, &abs_sum);
    } else { /* straight from the generator, never from memory the solution could touch */
        if (cl_gen_sum(run, (size_t)s->n, CL_F32, &s->gen, &exact, &abs_sum))
            return -1;
        if (s->d == D_TAIL) { /* the last element is the heavy one, not the generator's */
            double g = cl_gen_f32(&s->gen, (uint64_t)(s->n - 1));
            exact += (double)s->tail_value - g;
            abs_sum += fabs((double)s->tail_value) - fabs(g);
        }
    }
    double chain = fmin((double)s->n, s->depth) + ceil(log2((double)s->n)) + 1.0;
    double tol = chain * CL_U32 * abs_sum + CL_U32 * fabs(exact);
    cl_mm_shape shape = {"out", 1, {1}, {"i"}};
    cl_mm_tol mt = {tol, 0, "(dependent additions + log2 n + 1) x 2^-24 x sum|x| + 2^-24 x |expected|"};
    cl_mm_add(cl_report_elements(run, &shape, &mt), 0, exact, got, !isnan(got) && fabs((double)got - exact) <= tol);
    if (isnan(got))
        return cl_mismatch(run, "out[0]", exact, got,
                           "*out is NaN: it was never written (outputs start as NaN; work on a stream other than "
                           "the one given runs before the inputs exist), or the sum produced one");
    if (fabs((double)got - exact) > tol)
        return cl_mismatch(run, "out[0]", exact, got,
                           "the sum of %lld elements is off by %.6g; fp32 summation allows %.3g here "
                           "(%.0f dependent additions x 2^-24 x sum|x|, with sum|x| = %.6g)",
                           s->n, fabs((double)got - exact), tol, chain, abs_sum);
    return 0;
}

const cl_checker cl_checker_reduce = {"reduce", sizeof(reduce_state), setup, generate, args, verify, NULL};
