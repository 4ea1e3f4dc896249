// expect: off_stream|wrong
// A correct, fast reduction launched on a stream of its own instead of the one it is
// given, without waiting for it. Timing with events on the given stream would see almost
// nothing. The call is made before the judge writes the inputs (the given stream waits for
// the judge's go): on the H100 this stream's kernel ran first, the judge then wrote the
// inputs and poisoned the outputs, and the sum was never there (wrong, with a message
// naming the other stream). Work still running after the given stream is done is
// off_stream. Never a grade.
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

extern "C" void reduce_sum(const float *in, float *out, int64_t n, cudaStream_t stream)
{
    static cudaStream_t mine = nullptr;
    if (!mine)
        cudaStreamCreateWithFlags(&mine, cudaStreamNonBlocking);
    cudaMemsetAsync(out, 0, sizeof(float), mine);
    sum_kernel<<<264, 1024, 0, mine>>>(in, out, n);
}
