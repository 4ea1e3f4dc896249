// expect: cuda_error|crash
// Class 9b (blame): a constructor that calls cudaDeviceReset, destroying the context the
// solution's process set up (its buffers' mappings, its stream, its events) before the
// first case. Every failure that follows starts in the solution's process: cuda_error or
// crash, never error.
#include "cudalab_lab.h"

__attribute__((constructor)) static void reset(void) { cudaDeviceReset(); }

__global__ void sum_kernel(const float *in, float *out, int64_t n)
{
    float v = 0.f;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        v += in[i];
    atomicAdd(out, v);
}

extern "C" void reduce_sum(const float *in, float *out, int64_t n, cudaStream_t stream)
{
    cudaMemsetAsync(out, 0, sizeof(float), stream);
    sum_kernel<<<264, 256, 0, stream>>>(in, out, n);
}
