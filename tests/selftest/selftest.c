/* selftest.c: the checker of the engine's self-test lab (CPU test suite only).
 * y = a * x: exact, so every element is compared bit for bit; after timed runs a random
 * sample of 64 elements is checked. */
#include <math.h>
#include <stdio.h>

#include "grader/checker.h"

typedef struct st {
    float *x, *y;
    long long n;
    double a;
    cl_gen g;
    uint64_t seed;
} st;


static int setup(cl_run *run, const cl_case *c, void *vs)
{
    st *s = vs;
    if (cl_param_size(run, c, "n", 8, 0, &s->n) || cl_param_f64_or(run, c, "a", 2.5, &s->a))
        return -1;
    if (!(s->x = cl_alloc_in(run, (size_t)s->n * 4, "x")) || !(s->y = cl_alloc_out(run, (size_t)s->n * 4, "y")))
        return -1;
    cl_set_work(run, 8.0 * (double)s->n, (double)s->n);
    cl_set_shape(run, "n = %lld", s->n);
    return 0;
}

static int generate(cl_run *run, void *vs, uint64_t seed)
{
    st *s = vs;
    s->g = (cl_gen){CL_GEN_UNIFORM, seed, -4.0, 4.0};
    s->seed = seed;
    return cl_fill(run, s->x, (size_t)s->n, CL_F32, &s->g);
}

static int args(cl_run *run, void *vs, cl_args *a)
{
    st *s = vs;
    cl_arg_ptr(run, a, s->x);
    cl_arg_ptr(run, a, s->y);
    cl_arg_i32(a, (int)s->n);
    cl_arg_f32(a, (float)s->a);
    return 0;
}

static int check_at(cl_run *run, st *s, const float *y, long long i)
{
    float want = (float)s->a * cl_gen_f32(&s->g, (uint64_t)i);
    if (y[i] == want)
        return 0;
    char where[64];
    snprintf(where, sizeof where, "y[%lld]", i);
    return cl_mismatch(run, where, want, y[i], isnan(y[i]) ? "y[%lld] was never written" : "y[%lld] is wrong", i);
}

static int verify(cl_run *run, void *vs, int full)
{
    st *s = vs;
    float *y = cl_host_alloc(run, (size_t)s->n * 4);
    if (!y || cl_download(run, y, s->y, (size_t)s->n * 4))
        return -1;
    if (full) {
        for (long long i = 0; i < s->n; i++)
            if (check_at(run, s, y, i))
                return 1;
        return 0;
    }
    for (uint64_t k = 0; k < 64; k++)
        if (check_at(run, s, y, (long long)cl_sample_index(cl_check_seed(run), k, (uint64_t)s->n)))
            return 1;
    return 0;
}

const cl_checker cl_checker_selftest = {"selftest", sizeof(st), setup, generate, args, verify, NULL};
