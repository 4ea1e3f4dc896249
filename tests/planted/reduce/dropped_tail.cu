// expect: wrong
// Sums only the first n - n % 1024 elements: the tail that does not fill a whole block is
// forgotten. Sizes like 31, 33 and 2^k + 1 catch it. (Each block of 1024 sums its elements
// in shared memory and adds them in with one atomic, so the largest case stays fast.)
#include "cudalab_lab.h"

__global__ void partial_sums(const float *in, float *out, int64_t full)
{
    __shared__ float s[1024];
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < full ? in[i] : 0.f;
    __syncthreads();
    for (int step = 512; step > 0; step >>= 1) {
        if ((int)threadIdx.x < step)
            s[threadIdx.x] += s[threadIdx.x + step];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        atomicAdd(out, s[0]);
}

extern "C" void reduce_sum(const float *in, float *out, int64_t n, cudaStream_t stream)
{
    int64_t full = n - n % 1024;
    cudaMemsetAsync(out, 0, sizeof(float), stream);
    if (full > 0)
        partial_sums<<<(unsigned)(full / 1024), 1024, 0, stream>>>(in, out, full);
}
