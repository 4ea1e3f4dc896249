// expect: cuda_error|crash
// Class 9b (blame): a constructor that calls cudaDeviceReset, destroying the context the
// solution's process set up (its buffers' mappings, its stream, its events) before the
// first case. Every failure that follows starts in the solution's process: cuda_error or
// crash, never error.
#include "hostile_sum.cuh"

__attribute__((constructor)) static void reset(void) { cudaDeviceReset(); }

extern "C" void reduce_sum(const float *in, float *out, int64_t n, cudaStream_t stream)
{
    honest_sum(in, out, n, stream);
}
