// expect: wrong
// expect-message: timed run
// Correct the first time it sees a buffer, then returns the remembered answer whenever it
// is called again with the same pointer and size, skipping the work. Correctness cases
// pass (each has its own buffer), but the grader regenerates the inputs before every
// timed run and verifies every timed run's output: the stale answer is caught.
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
    static const float *last_in = nullptr;
    static int64_t last_n = -1;
    static float cached = 0.f;
    if (in == last_in && n == last_n) { // "nothing changed": replay the old answer
        cudaMemcpyAsync(out, &cached, sizeof cached, cudaMemcpyHostToDevice, stream);
        return;
    }
    cudaMemsetAsync(out, 0, sizeof(float), stream);
    sum_kernel<<<264, 1024, 0, stream>>>(in, out, n);
    cudaMemcpyAsync(&cached, out, sizeof cached, cudaMemcpyDeviceToHost, stream);
    cudaStreamSynchronize(stream);
    last_in = in;
    last_n = n;
}
