/* compare.c: the comparison helpers checkers share (checker.h). */
#include <math.h>

#include "grader/checker.h"

int cl_close(double got, double expected, double abs_tol, double rel_tol)
{
    if (isnan(got) || isnan(expected))
        return 0;
    if (isinf(expected) || isinf(got))
        return got == expected;
    return fabs(got - expected) <= abs_tol + rel_tol * fabs(expected);
}

uint64_t cl_sample_index(uint64_t seed, uint64_t k, uint64_t n)
{
    return n ? cl_rand64(seed, k, 7) % n : 0;
}
