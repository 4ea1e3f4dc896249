// expect: off_stream|wrong
// Class 2 on the GPU (work after returning): half the sum on the given stream; the other
// half on a private stream, behind a kernel that waits 2 ms, so it lands after the call
// has "finished" on the given stream. Either the judge's snapshot misses it (wrong) or the
// judge's bracket and sentinel see the late work (off_stream); never a grade.
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

__global__ void wait_ns(long long ns)
{
    long long t0 = clock64();
    while (clock64() - t0 < ns * 2) { } /* about 2 GHz */
}

extern "C" void reduce_sum(const float *in, float *out, int64_t n, cudaStream_t stream)
{
    static cudaStream_t mine;
    if (!mine)
        cudaStreamCreateWithFlags(&mine, cudaStreamNonBlocking);
    cudaMemsetAsync(out, 0, sizeof(float), stream);
    int64_t half = n / 2;
    sum_kernel<<<264, 1024, 0, stream>>>(in, out, half);
    cudaEvent_t e;
    cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
    cudaEventRecord(e, stream); /* after the memset: the late half must not be cleared */
    cudaStreamWaitEvent(mine, e, 0);
    wait_ns<<<1, 1, 0, mine>>>(2000000);
    sum_kernel<<<264, 1024, 0, mine>>>(in + half, out, n - half);
    cudaEventDestroy(e);
}
