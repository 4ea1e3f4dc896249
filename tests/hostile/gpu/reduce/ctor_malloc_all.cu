// expect: cuda_error|crash
// Class 9a (blame): a constructor that takes all the GPU memory it can get, 256 MiB at a
// time, before any case runs, so the judge's buffers for the cases cannot be made. The
// judge fixed its memory budget before the solution was loaded, so the shortfall is the
// solution's doing: cuda_error ("your process holds too much GPU memory"), never error.
#include "hostile_sum.cuh"

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

extern "C" void reduce_sum(const float *in, float *out, int64_t n, cudaStream_t stream)
{
    honest_sum(in, out, n, stream);
}
