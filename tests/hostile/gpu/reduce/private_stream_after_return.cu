// expect: off_stream|wrong
// Class 2 on the GPU (work after returning): half the sum on the given stream; the other
// half on a private stream, behind a kernel that waits 2 ms, so it lands after the call
// has "finished" on the given stream. Either the judge's snapshot misses it (wrong) or the
// judge's bracket and sentinel see the late work (off_stream); never a grade.
#include "hostile_sum.cuh"

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
