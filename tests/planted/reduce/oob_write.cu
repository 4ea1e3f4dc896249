// expect: out_of_bounds
// Computes the right sum, then also writes out[1], one element past the output: the
// guard zone after `out` catches it. (Every block sums a grid-stride slice and adds it in
// with one atomic, so the largest case takes milliseconds, not a one-block crawl.)
#include "cudalab_lab.h"

__global__ void sum_then_overrun(const float *in, float *out, int64_t n)
{
    __shared__ float s[256];
    float v = 0.f;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        v += in[i];
    s[threadIdx.x] = v;
    __syncthreads();
    for (int step = 128; step > 0; step >>= 1) {
        if ((int)threadIdx.x < step)
            s[threadIdx.x] += s[threadIdx.x + step];
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        atomicAdd(&out[0], s[0]);
        if (blockIdx.x == 0)
            out[1] = s[0]; // one past the end
    }
}

extern "C" void reduce_sum(const float *in, float *out, int64_t n, cudaStream_t stream)
{
    cudaMemsetAsync(out, 0, sizeof(float), stream);
    sum_then_overrun<<<1024, 256, 0, stream>>>(in, out, n);
}
