/* 04_wmma.cu: gemm ladder, step 4: Tensor Cores through the WMMA API.
 *
 * 4 warps compute a 64x64 tile; each warp owns 32x32 = 2x2 WMMA fragments of 16x16 with
 * fp32 accumulators (wmma::fragment<accumulator, 16, 16, 16, float>). Per 32-wide K slice
 * the block stages A (64x32) and B (32x64) in shared memory with 8 halves of padding per
 * row (so fragment loads do not all hit the same banks), zero-filled past the edges; each
 * warp then does load_matrix_sync + mma_sync (HMMA in SASS). The accumulators go through
 * shared memory (store_matrix_sync) so the write to C can be predicated element by element:
 * any M and N work. Loads are plain 2-byte loads: the next rungs fix the feeding. */
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include "cudalab_lab.h"

using namespace nvcuda;

#define BM 64
#define BN 64
#define BK 32
#define PAD 8

__global__ void __launch_bounds__(128) gemm_wmma(const __half *__restrict__ A, const __half *__restrict__ B,
                                                 __half *__restrict__ C, int M, int N, int K)
{
    __shared__ __align__(32) __half sA[BM][BK + PAD];
    __shared__ __align__(32) __half sB[BK][BN + PAD];
    __shared__ __align__(32) float sC[BM][BN + 4];
    const int tid = threadIdx.x, warp = tid / 32, wm = warp / 2, wn = warp % 2;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][2];
#pragma unroll
    for (int i = 0; i < 2; i++)
#pragma unroll
        for (int j = 0; j < 2; j++) wmma::fill_fragment(acc[i][j], 0.0f);

    const __half zero = __float2half(0.0f);
    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int e = tid; e < BM * BK; e += 128) {
            int r = e / BK, k = e % BK, gm = m0 + r, gk = k0 + k;
            sA[r][k] = (gm < M && gk < K) ? A[(size_t)gm * K + gk] : zero;
        }
        for (int e = tid; e < BK * BN; e += 128) {
            int k = e / BN, n = e % BN, gk = k0 + k, gn = n0 + n;
            sB[k][n] = (gk < K && gn < N) ? B[(size_t)gk * N + gn] : zero;
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a[2];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b[2];
#pragma unroll
            for (int i = 0; i < 2; i++) wmma::load_matrix_sync(a[i], &sA[wm * 32 + i * 16][kk], BK + PAD);
#pragma unroll
            for (int j = 0; j < 2; j++) wmma::load_matrix_sync(b[j], &sB[kk][wn * 32 + j * 16], BN + PAD);
#pragma unroll
            for (int i = 0; i < 2; i++)
#pragma unroll
                for (int j = 0; j < 2; j++) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 2; i++)
#pragma unroll
        for (int j = 0; j < 2; j++)
            wmma::store_matrix_sync(&sC[wm * 32 + i * 16][wn * 32 + j * 16], acc[i][j], BN + 4, wmma::mem_row_major);
    __syncthreads();
    for (int e = tid; e < BM * BN; e += 128) {
        int r = e / BN, n = e % BN, gm = m0 + r, gn = n0 + n;
        if (gm < M && gn < N) C[(size_t)gm * N + gn] = __float2half_rn(sC[r][n]);
    }
}

extern "C" void gemm_f16(const __half *A, const __half *B, __half *C, int M, int N, int K, cudaStream_t stream)
{
    if (M <= 0 || N <= 0) return;
    dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
    gemm_wmma<<<grid, 128, 0, stream>>>(A, B, C, M, N, K);
}
