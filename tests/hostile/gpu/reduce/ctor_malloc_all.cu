// expect: cuda_error|crash
// Class 9a (blame): a constructor that takes all the GPU memory it can get, 256 MiB at a
// time, before any case runs, so the judge's buffers for the cases cannot be made. The
// judge fixed its memory budget before the solution was loaded, so the shortfall is the
// solution's doing: cuda_error ("your process holds too much GPU memory"), never error.
#include "cudalab_lab.h"

__attribute__((constructor)) static void hog(void)
{
    void *p;
    size_t chunk = (size_t)256 << 20;
    while (chunk >= ((size_t)1 << 20)) {
        if (cudaMalloc(&p, chunk) != cudaSuccess) {
            cudaGetLastError();
            chunk /= 2;
        }
    }
}

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
