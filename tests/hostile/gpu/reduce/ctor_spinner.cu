// expect: off_stream|timeout|wrong|crash
// expect-timeout: 20
// Class 8 on the GPU (a process spinning the GPU while the yardsticks are measured): a
// constructor starts a kernel that never ends on a private stream, so the GPU is busy for
// the rest of the run. The judge's yardsticks and calibration come before the solution is
// loaded; its sentinel sees the foreign context in every timed run; the solution's
// process is killed at the end of the run. On the H100 the exec could not even load the
// solution's kernels behind the spinner (crash, the solution's fault). Never a grade.
#include "hostile_sum.cuh"

__global__ void spin(volatile int *flag)
{
    while (*flag == 0) { }
}

__attribute__((constructor)) static void start(void)
{
    int *flag;
    cudaStream_t s;
    if (cudaMalloc(&flag, sizeof(int)) == cudaSuccess && cudaMemset(flag, 0, sizeof(int)) == cudaSuccess &&
        cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess)
        spin<<<132, 1024, 0, s>>>(flag);
}

extern "C" void reduce_sum(const float *in, float *out, int64_t n, cudaStream_t stream)
{
    honest_sum(in, out, n, stream);
}
