// expect: compile_error
// expect-message: nvcc failed
// A typo (an undeclared identifier): nvcc's message, with file and line, is shown as is.
#include "cudalab_lab.h"

__global__ void sum_kernel(const float *in, float *out, int64_t n)
{
    if (threadIdx.x == 0)
        *out = in[0] + undeclared_total;
}

extern "C" void reduce_sum(const float *in, float *out, int64_t n, cudaStream_t stream)
{
    sum_kernel<<<1, 32, 0, stream>>>(in, out, n);
}
