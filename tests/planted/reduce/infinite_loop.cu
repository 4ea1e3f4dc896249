// expect: timeout
// A kernel that never finishes (a loop whose exit condition can never become true).
// The grader kills the whole runner process group at the lab's wall-clock timeout.
#include "cudalab_lab.h"

__global__ void spin(float *out, int64_t n)
{
    volatile int64_t k = n;
    while (k >= 0)
        k = k | 1; // always >= 0
    *out = 0.f;
}

extern "C" void reduce_sum(const float *in, float *out, int64_t n, cudaStream_t stream)
{
    spin<<<1, 1, 0, stream>>>(out, n);
}
