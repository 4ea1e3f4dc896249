// 01_block_tree_atomic.cu: reduce ladder, step 1: one element per thread, a shared-memory
// tree per block, one atomicAdd per block.
//
// What it does: n / 256 blocks; each thread loads one float into shared memory, the block
// halves the active threads each step (__syncthreads() between steps) until thread 0 holds
// the block's sum, and thread 0 adds it into a double in scratch memory (zeroed first with
// cudaMemsetAsync on the same stream); a one-thread kernel rounds it into *out. Correct for
// every n >= 1 (the last block pads with zeros) and n > 2^31 (64-bit indices, a 1-D grid of
// up to 2^31 - 1 blocks). Why a double: for 2^28 floats that is a million atomics into one
// running total, each rounded at the total's magnitude; in fp32 the H100 came out 4x past
// what fp32 summation of this depth is allowed (the grader's bound).
// Why it is slow: every thread issues a single 4-byte load and then spends its life in
// eight barriers; a block retires long before memory latency is hidden, so too few bytes
// are in flight. The n / 256 atomics on one address serialise in L2.
// In a profiler: Nsight Compute's "Memory Workload Analysis" shows DRAM throughput far
// below peak; "Warp State Statistics" is dominated by barrier and long-scoreboard stalls.
#include <stdint.h>
#include <stdio.h>

#include "cudalab_lab.h"

#define THREADS 256

__global__ void reduce_block_tree(const float *__restrict__ in, double *total, int64_t n)
{
    __shared__ float buf[THREADS];
    const int64_t i = (int64_t)blockIdx.x * THREADS + threadIdx.x;
    buf[threadIdx.x] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s)
            buf[threadIdx.x] += buf[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        atomicAdd(total, (double)buf[0]);
}

__global__ void round_total(const double *total, float *out) { *out = (float)*total; }

extern "C" void reduce_sum(const float *in, float *out, int64_t n, cudaStream_t stream)
{
    const int64_t blocks = (n + THREADS - 1) / THREADS;
    double *total = (double *)cudalab_scratch(sizeof(double));
    if (!total) {
        fprintf(stderr, "reduce_sum: no scratch memory\n");
        return;
    }
    cudaMemsetAsync(total, 0, sizeof(double), stream);
    reduce_block_tree<<<(unsigned)blocks, THREADS, 0, stream>>>(in, total, n);
    round_total<<<1, 1, 0, stream>>>(total, out);
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess)
        fprintf(stderr, "reduce_sum: launch failed: %s\n", cudaGetErrorString(err));
}
