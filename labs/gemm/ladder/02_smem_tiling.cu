/* 02_smem_tiling.cu: gemm ladder, step 2: shared-memory tiling.
 *
 * A 32x32 block of threads computes a 32x32 tile of C. For each 32-wide slice of K the
 * block stages a 32x32 tile of A and of B in shared memory (one element per thread,
 * coalesced, zero past the edges), then every thread reads 32 pairs from shared memory.
 * Each global element is now loaded once per block instead of once per thread: global
 * traffic drops 32x, and shared-memory bandwidth becomes the limit (2 shared loads per
 * FMA). sA is read as a broadcast (same row across the warp), sB along a row: no bank
 * conflicts. Still fp32 FMAs, no Tensor Cores. */
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "cudalab_lab.h"

#define TILE 32

__global__ void gemm_smem(const __half *__restrict__ A, const __half *__restrict__ B, __half *__restrict__ C, int M,
                          int N, int K)
{
    __shared__ float sA[TILE][TILE], sB[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TILE) {
        sA[ty][tx] = (row < M && k0 + tx < K) ? __half2float(A[(size_t)row * K + k0 + tx]) : 0.0f;
        sB[ty][tx] = (k0 + ty < K && col < N) ? __half2float(B[(size_t)(k0 + ty) * N + col]) : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; k++) acc += sA[ty][k] * sB[k][tx];
        __syncthreads();
    }
    if (row < M && col < N) C[(size_t)row * N + col] = __float2half_rn(acc);
}

extern "C" void gemm_f16(const __half *A, const __half *B, __half *C, int M, int N, int K, cudaStream_t stream)
{
    if (M <= 0 || N <= 0) return;
    dim3 block(TILE, TILE), grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
    gemm_smem<<<grid, block, 0, stream>>>(A, B, C, M, N, K);
}
