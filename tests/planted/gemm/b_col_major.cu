// expect: wrong
// expect-message: C[0][
// A WMMA kernel that takes B as column-major (element (k, n) at B[n * K + k]) while the ABI
// says row-major (B[k * N + n]): the classic layout mix-up, e.g. from a cuBLAS habit. It
// stays inside B's buffer and writes every element, so only the values are wrong: the
// first row the checker looks at already differs (1x1x8 passes: with N = 1 both layouts
// agree; 17x17x16 fails). Its first element, C[0][0], is the one reported on all but about
// one seed in 6000: there the wrong sum lands within C[0][0]'s tolerance by chance (seed
// 7550: C[0][1] is reported).
#include <mma.h>

#include "cudalab_lab.h"

using namespace nvcuda;

__global__ void gemm_wmma_bt(const __half *A, const __half *B, __half *C, int M, int N, int K)
{
    __shared__ __align__(32) __half sA[16 * 16], sB[16 * 16];
    __shared__ __align__(32) float sC[16 * 16];
    const int row0 = blockIdx.y * 16, col0 = blockIdx.x * 16, lane = threadIdx.x;
    const __half zero = __float2half(0.0f);
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k0 = 0; k0 < K; k0 += 16) {
        for (int e = lane; e < 256; e += 32) {
            int r = e / 16, c = e % 16;
            sA[e] = (row0 + r < M && k0 + c < K) ? A[(size_t)(row0 + r) * K + k0 + c] : zero;
            /* the bug: B indexed as if it were stored column by column */
            sB[e] = (k0 + r < K && col0 + c < N) ? B[(size_t)(col0 + c) * K + k0 + r] : zero;
        }
        __syncwarp();
        wmma::load_matrix_sync(a, sA, 16);
        wmma::load_matrix_sync(b, sB, 16);
        wmma::mma_sync(acc, a, b, acc);
        __syncwarp();
    }
    wmma::store_matrix_sync(sC, acc, 16, wmma::mem_row_major);
    __syncwarp();
    for (int e = lane; e < 256; e += 32) {
        int r = row0 + e / 16, c = col0 + e % 16;
        if (r < M && c < N)
            C[(size_t)r * N + c] = __float2half_rn(sC[e]);
    }
}

extern "C" void gemm_f16(const __half *A, const __half *B, __half *C, int M, int N, int K, cudaStream_t stream)
{
    dim3 grid((N + 15) / 16, (M + 15) / 16);
    gemm_wmma_bt<<<grid, 32, 0, stream>>>(A, B, C, M, N, K);
}
