/* 03_register_tiling.cu: gemm ladder, step 3: register tiling (the classic SGEMM shape).
 *
 * 256 threads compute a 128x128 tile; each thread owns an 8x8 block of C in registers.
 * Per 8-wide K slice the block stages A (stored transposed, k-major) and B in shared
 * memory as fp32; each thread then loads 8 values of A and 8 of B (float4 reads) and
 * does 64 FMAs: 16 shared loads per 64 FMAs instead of 2 per 1. This is as far as plain
 * CUDA cores go (H100: ~60 TFLOP/s fp32 peak on paper); everything after this uses the
 * Tensor Cores. Edges: zero-filled loads, predicated stores. */
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "cudalab_lab.h"

#define BM 128
#define BN 128
#define BK 8
#define TM 8
#define TN 8

__global__ void __launch_bounds__(256) gemm_regtile(const __half *__restrict__ A, const __half *__restrict__ B,
                                                    __half *__restrict__ C, int M, int N, int K)
{
    __shared__ __align__(16) float sA[BK][BM]; /* transposed: sA[k][m] */
    __shared__ __align__(16) float sB[BK][BN];
    const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    float acc[TM][TN] = {};
    for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
        for (int i = 0; i < 4; i++) { /* 1024 elements of each tile, 4 per thread */
            int e = tid + i * 256;
            int am = e / BK, ak = e % BK; /* A: row-major, k fastest */
            int gm = m0 + am, gk = k0 + ak;
            sA[ak][am] = (gm < M && gk < K) ? __half2float(A[(size_t)gm * K + gk]) : 0.0f;
            int bk = e / BN, bn = e % BN; /* B: n fastest (coalesced) */
            int gk2 = k0 + bk, gn = n0 + bn;
            sB[bk][bn] = (gk2 < K && gn < N) ? __half2float(B[(size_t)gk2 * N + gn]) : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; k++) {
            float a[TM], b[TN];
            *reinterpret_cast<float4 *>(&a[0]) = *reinterpret_cast<const float4 *>(&sA[k][ty * TM]);
            *reinterpret_cast<float4 *>(&a[4]) = *reinterpret_cast<const float4 *>(&sA[k][ty * TM + 4]);
            *reinterpret_cast<float4 *>(&b[0]) = *reinterpret_cast<const float4 *>(&sB[k][tx * TN]);
            *reinterpret_cast<float4 *>(&b[4]) = *reinterpret_cast<const float4 *>(&sB[k][tx * TN + 4]);
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++) acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; i++) {
        int row = m0 + ty * TM + i;
        if (row >= M) continue;
#pragma unroll
        for (int j = 0; j < TN; j++) {
            int col = n0 + tx * TN + j;
            if (col < N) C[(size_t)row * N + col] = __float2half_rn(acc[i][j]);
        }
    }
}

extern "C" void gemm_f16(const __half *A, const __half *B, __half *C, int M, int N, int K, cudaStream_t stream)
{
    if (M <= 0 || N <= 0) return;
    dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
    gemm_regtile<<<grid, 256, 0, stream>>>(A, B, C, M, N, K);
}
