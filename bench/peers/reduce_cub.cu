// reduce_cub.cu: the reduce lab's CUB peer, cub::DeviceReduce::Sum on 2^28 fp32 values (the
// lab's bench size), bytes = 4n read + 4 written, timed like every peer (cuda_timing.cuh).
// The sum is checked against an fp64 sum of the same values.
//   nvcc -O3 -std=c++17 -arch=native -Igrader/include bench/peers/reduce_cub.cu -o build/reduce_cub
//   build/reduce_cub [log2 n]
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include <cub/device/device_reduce.cuh>

#include "cuda_timing.cuh"

__global__ void fill(float *x, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        x[i] = bench_uniform(i, 0u);
}

__global__ void sum_fp64(const float *x, size_t n, double *out)
{
    double s = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        s += x[i];
    for (int o = 16; o; o >>= 1)
        s += __shfl_xor_sync(0xffffffffu, s, o);
    if ((threadIdx.x & 31) == 0)
        atomicAdd(out, s);
}

int main(int argc, char **argv)
{
    const int lg = argc > 1 ? atoi(argv[1]) : 28;
    const size_t n = (size_t)1 << lg;
    float *x, *out;
    double *ref;
    BENCH_CK(cudaMalloc(&x, n * sizeof(float)));
    BENCH_CK(cudaMalloc(&out, sizeof(float)));
    BENCH_CK(cudaMalloc(&ref, sizeof(double)));
    BENCH_CK(cudaMemset(ref, 0, sizeof(double)));
    fill<<<1024, 256>>>(x, n);
    sum_fp64<<<1024, 256>>>(x, n, ref);
    size_t temp_bytes = 0;
    BENCH_CK(cub::DeviceReduce::Sum(nullptr, temp_bytes, x, out, (int64_t)n));
    void *temp;
    BENCH_CK(cudaMalloc(&temp, temp_bytes));
    bench_timing t = bench_time([&] { cub::DeviceReduce::Sum(temp, temp_bytes, x, out, (int64_t)n); });
    float got;
    double want;
    BENCH_CK(cudaMemcpy(&got, out, sizeof got, cudaMemcpyDeviceToHost));
    BENCH_CK(cudaMemcpy(&want, ref, sizeof want, cudaMemcpyDeviceToHost));
    // |error| within the lab's bound for a sum of n values of |x| < 1: 4096 x 2^-24 x n / 2
    if (!(std::fabs(got - want) <= 4096.0 * std::ldexp(1.0, -24) * (double)n / 2)) {
        fprintf(stderr, "reduce_cub: CUB's sum %.9g differs from the fp64 sum %.9g\n", got, want);
        return 1;
    }
    char shape[64];
    snprintf(shape, sizeof shape, "2^%d floats (%.0f MiB)", lg, n * 4.0 / 1048576);
    bench_emit("reduce", shape, "cub::DeviceReduce::Sum", t, 4.0 * n + 4, 0);
    return 0;
}
