/* 01_naive.cu: gemm ladder, step 1: one thread per output element.
 *
 * Each thread walks K for its (row, col): 2K global loads for 2K flops, fp32 FMAs, no
 * Tensor Cores. threadIdx.x runs along N, so a warp's B loads are one coalesced 64-byte
 * row segment and its A loads are a broadcast of one element; the caches hide part of
 * the re-reads, but arithmetic intensity is about 1 flop per byte moved from L1/L2.
 * Correct for every shape (one bounds check). */
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "cudalab_lab.h"

__global__ void gemm_naive(const __half *__restrict__ A, const __half *__restrict__ B, __half *__restrict__ C,
                           int M, int N, int K)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; k++) acc += __half2float(A[(size_t)row * K + k]) * __half2float(B[(size_t)k * N + col]);
    C[(size_t)row * N + col] = __float2half_rn(acc);
}

extern "C" void gemm_f16(const __half *A, const __half *B, __half *C, int M, int N, int K, cudaStream_t stream)
{
    if (M <= 0 || N <= 0) return;
    dim3 block(32, 8), grid((N + 31) / 32, (M + 7) / 8);
    gemm_naive<<<grid, block, 0, stream>>>(A, B, C, M, N, K);
}
