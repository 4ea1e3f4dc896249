// hostile_sum.cuh: the honest sum the hostile reduce solutions share (a grid-stride loop, a
// shared-memory tree per block of 1024 threads, one atomicAdd per block), so each planted
// file shows only its attack. cudalab compiles a solution with its own folder on the
// include path.
#pragma once
#include "cudalab_lab.h"

__global__ void sum_kernel(const float *in, float *out, int64_t n)
{
    __shared__ float s[1024];
    float v = 0.f;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        v += in[i];
    s[threadIdx.x] = v;
    __syncthreads();
    for (int step = 512; step > 0; step >>= 1) {
        if ((int)threadIdx.x < step)
            s[threadIdx.x] += s[threadIdx.x + step];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        atomicAdd(out, s[0]);
}

// out = sum(in) on stream (out cleared first)
static inline void honest_sum(const float *in, float *out, int64_t n, cudaStream_t stream)
{
    cudaMemsetAsync(out, 0, sizeof(float), stream);
    sum_kernel<<<264, 1024, 0, stream>>>(in, out, n);
}
