// expect: wrong
// expect-message: never written
// A reasonable WMMA kernel (64x64 block tiles, 4 warps, shared-memory staging, K edges
// zero-filled) that launches blocks only for the full 64x64 tiles of C: rows and columns
// past the last multiple of 64 are never written and keep the NaN the grader put there.
// Square power-of-two benchmarks would hide the bug; 1x1x8 shows it at once.
#include <mma.h>

#include "cudalab_lab.h"

using namespace nvcuda;

#define BT 64
#define BK 32

__global__ void gemm_wmma_full_tiles(const __half *A, const __half *B, __half *C, int M, int N, int K)
{
    __shared__ __align__(32) __half sA[BT][BK + 8];
    __shared__ __align__(32) __half sB[BK][BT + 8];
    __shared__ __align__(32) float sC[BT][BT + 4];
    const int tid = threadIdx.x, warp = tid / 32, wm = warp / 2, wn = warp % 2;
    const int m0 = blockIdx.y * BT, n0 = blockIdx.x * BT;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][2];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            wmma::fill_fragment(acc[i][j], 0.0f);
    const __half zero = __float2half(0.0f);
    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int e = tid; e < BT * BK; e += 128) { /* rows and columns are all inside: full tiles only */
            int r = e / BK, k = e % BK;
            sA[r][k] = k0 + k < K ? A[(size_t)(m0 + r) * K + k0 + k] : zero;
        }
        for (int e = tid; e < BK * BT; e += 128) {
            int k = e / BT, n = e % BT;
            sB[k][n] = k0 + k < K ? B[(size_t)(k0 + k) * N + n0 + n] : zero;
        }
        __syncthreads();
        for (int kk = 0; kk < BK; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a[2];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b[2];
            for (int i = 0; i < 2; i++)
                wmma::load_matrix_sync(a[i], &sA[wm * 32 + i * 16][kk], BK + 8);
            for (int j = 0; j < 2; j++)
                wmma::load_matrix_sync(b[j], &sB[kk][wn * 32 + j * 16], BT + 8);
            for (int i = 0; i < 2; i++)
                for (int j = 0; j < 2; j++)
                    wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            wmma::store_matrix_sync(&sC[wm * 32 + i * 16][wn * 32 + j * 16], acc[i][j], BT + 4, wmma::mem_row_major);
    __syncthreads();
    for (int e = tid; e < BT * BT; e += 128)
        C[(size_t)(m0 + e / BT) * N + n0 + e % BT] = __float2half_rn(sC[e / BT][e % BT]);
}

extern "C" void gemm_f16(const __half *A, const __half *B, __half *C, int M, int N, int K, cudaStream_t stream)
{
    dim3 grid(N / BT, M / BT); /* the bug: rounds down, the partial tiles get no block */
    if (grid.x && grid.y)
        gemm_wmma_full_tiles<<<grid, 128, 0, stream>>>(A, B, C, M, N, K);
}
