// 01_block_three_pass.cu: layernorm ladder, step 1: a block per row, three passes over x.
//
// What it does: 256 threads share a row (thread t reads columns t, t + 256, ...: every
// warp load is coalesced). Pass 1 sums x for the mean. Pass 2 sums d = x - mean and d^2:
// var = (sum d^2 - (sum d)^2 / n) / n, the corrected two-pass form - never
// E[x^2] - E[x]^2, which for a row near 1e4 is the difference of two numbers whose ulp is
// 8 (rounding noise, even negative). The correction term removes the mean's own rounding
// error, so a constant row gets var = 0 and rstd = 1 / sqrt(eps); the mean itself is
// corrected the same way (mean + sum d / n): summed naively, 2^20 equal values round in the
// same direction every time, and the mean drifts past what the checker allows. Pass 3 writes
// y = (x - mean) * rstd * gamma + beta. Thread 0 writes mean[r] and rstd[r].
// Why it is slow: x is read three times (the passes that re-read a row hit L2 only while
// it is still there), and short rows leave most of the 256 threads idle between barriers.
// In a profiler: "dram__bytes_read" is two to three times "dram__bytes_write"; warp
// stalls show barrier waits at every block reduction.
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "cudalab_lab.h"

#define THREADS 256

// Block-wide sums of (a, b); every thread gets them. slots: this call site's own.
__device__ __forceinline__ float2 block_sum2(float a, float b, float2 *slots)
{
    for (int o = 16; o > 0; o >>= 1) {
        a += __shfl_xor_sync(0xffffffffu, a, o);
        b += __shfl_xor_sync(0xffffffffu, b, o);
    }
    if ((threadIdx.x & 31) == 0)
        slots[threadIdx.x >> 5] = make_float2(a, b);
    __syncthreads();
    float2 t = slots[0];
    for (int w = 1; w < THREADS / 32; w++) {
        t.x += slots[w].x;
        t.y += slots[w].y;
    }
    return t;
}

__global__ void __launch_bounds__(THREADS)
    layernorm_three_pass(const float *__restrict__ x, const float *__restrict__ gamma, const float *__restrict__ beta,
                         float *__restrict__ y, float *__restrict__ mean_out, float *__restrict__ rstd_out, int cols,
                         float eps)
{
    __shared__ float2 slots_mean[THREADS / 32], slots_var[THREADS / 32];
    const size_t row = blockIdx.x;
    const float *xr = x + row * cols;
    float *yr = y + row * cols;

    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += THREADS)
        s += xr[c];
    const float mean0 = block_sum2(s, 0.0f, slots_mean).x / cols; // rounded: corrected below

    float sd = 0.0f, sd2 = 0.0f;
    for (int c = threadIdx.x; c < cols; c += THREADS) {
        const float d = xr[c] - mean0;
        sd += d;
        sd2 += d * d;
    }
    const float2 t = block_sum2(sd, sd2, slots_var);
    const float mean = mean0 + t.x / cols; // minus mean0's own rounding error
    const float var = fmaxf((t.y - t.x * t.x / cols) / cols, 0.0f);
    const float rstd = 1.0f / sqrtf(var + eps);

    for (int c = threadIdx.x; c < cols; c += THREADS)
        yr[c] = (xr[c] - mean) * rstd * gamma[c] + beta[c];
    if (threadIdx.x == 0) {
        mean_out[row] = mean;
        rstd_out[row] = rstd;
    }
}

extern "C" void layernorm(const float *x, const float *gamma, const float *beta, float *y, float *mean, float *rstd,
                          int rows, int cols, float eps, cudaStream_t stream)
{
    if (rows <= 0 || cols <= 0)
        return;
    layernorm_three_pass<<<rows, THREADS, 0, stream>>>(x, gamma, beta, y, mean, rstd, cols, eps);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
        fprintf(stderr, "layernorm: launch failed: %s\n", cudaGetErrorString(e));
}
