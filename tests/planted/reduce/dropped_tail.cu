// expect: wrong
// Sums only the first n - n % 1024 elements: the tail that does not fill a whole block is
// forgotten. Sizes like 31, 33 and 2^k + 1 catch it.
#include "cudalab_lab.h"

__global__ void partial_sums(const float *in, float *out, int64_t full)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < full)
        atomicAdd(out, in[i]);
}

extern "C" void reduce_sum(const float *in, float *out, int64_t n, cudaStream_t stream)
{
    int64_t full = n - n % 1024;
    cudaMemsetAsync(out, 0, sizeof(float), stream);
    if (full > 0)
        partial_sums<<<(unsigned)(full / 1024), 1024, 0, stream>>>(in, out, full);
}
