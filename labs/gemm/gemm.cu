/* gemm.cu: your starting point for the gemm lab.
 *
 *   C = A * B      A: M x K, B: K x N, C: M x N, all row-major fp16 (__half),
 *                  accumulate in fp32 on Tensor Cores; K is a multiple of 8.
 *
 * This compiles and runs, and shows the WMMA API: one warp computes one 16 x 16 tile of C
 * as a sum of 16 x 16 x 16 products (wmma::mma_sync: HMMA instructions), with tiles of A
 * and B staged in shared memory. It is WRONG on purpose: work through the TODOs.
 *
 *   cudalab test            correctness on small and awkward shapes, then big ones
 *   cudalab bench           TFLOP/s, as a fraction of cuBLAS on the same shapes
 *   cudalab hint            one hint at a time
 *
 * Rules: no cuBLAS, cuBLASLt or other GEMM libraries (checked when the file is built and
 * while it runs). Launch on `stream`. */
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include "cudalab_lab.h"

using namespace nvcuda;

#define WARPS 4 /* a block is 2 x 2 warps: a 32 x 32 tile of C */

__global__ void gemm_wmma(const __half *A, const __half *B, __half *C, int M, int N, int K)
{
    __shared__ __align__(32) __half sA[WARPS][16 * 16];
    __shared__ __align__(32) __half sB[WARPS][16 * 16];
    __shared__ __align__(32) float sC[WARPS][16 * 16];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int row0 = (blockIdx.y * 2 + warp / 2) * 16; /* this warp's tile of C */
    const int col0 = (blockIdx.x * 2 + warp % 2) * 16;

    /* TODO 2: tiles that cross the bottom or right edge (M or N not a multiple of 16) are
     * skipped, so part of C is never written. Handle them: zero-fill what you load past the
     * edges and store only the elements with row < M and col < N. */
    if (row0 + 16 > M || col0 + 16 > N) return;

    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);

    /* TODO 1: this does only the first 16 columns of A (rows of B). Loop k0 over all of K
     * in steps of 16 (K is a multiple of 8: zero-fill past K in the last step). */
    const int k0 = 0;
    for (int e = lane; e < 16 * 16; e += 32) { /* stage one 16x16 tile of A and one of B */
        int r = e / 16, c = e % 16;
        sA[warp][e] = k0 + c < K ? A[(size_t)(row0 + r) * K + k0 + c] : __float2half(0.0f);
        sB[warp][e] = k0 + r < K ? B[(size_t)(k0 + r) * N + col0 + c] : __float2half(0.0f);
    }
    __syncwarp();
    wmma::load_matrix_sync(a, sA[warp], 16);
    wmma::load_matrix_sync(b, sB[warp], 16);
    wmma::mma_sync(acc, a, b, acc);

    /* accumulators -> shared (fp32) -> C (fp16) */
    wmma::store_matrix_sync(sC[warp], acc, 16, wmma::mem_row_major);
    __syncwarp();
    for (int e = lane; e < 16 * 16; e += 32)
        C[(size_t)(row0 + e / 16) * N + col0 + e % 16] = __float2half_rn(sC[warp][e]);

    /* TODO 3 (speed, once it is right): each warp reloads everything it uses. Share tiles
     * across the block, give each warp several fragments, load 16 bytes at a time, and
     * overlap loads with math (cudalab hint). */
}

extern "C" void gemm_f16(const __half *A, const __half *B, __half *C, int M, int N, int K, cudaStream_t stream)
{
    dim3 grid(N / 32 + (N % 32 >= 16), M / 32 + (M % 32 >= 16)); /* blocks holding a full 16x16 tile */
    if (grid.x == 0 || grid.y == 0) return; /* TODO 2 again: no full tile, nothing computed */
    gemm_wmma<<<grid, 32 * WARPS, 0, stream>>>(A, B, C, M, N, K);
}
