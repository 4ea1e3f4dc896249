// 02_smem_tile.cu: transpose ladder, step 2: stage a 32x32 tile in shared memory so both
// the reads and the writes are coalesced.
//
// What changed: a block of 256 threads owns a 32x32 tile. It reads the tile along rows of
// in (a warp reads 32 consecutive floats), waits at a barrier, and writes it along rows of
// out, reading shared memory by columns: only the shared-memory access is "transposed".
// Partial tiles at the right and bottom edges are guarded on both sides; the grid is 1-D
// (tile index = tile row x tiles per row + tile column) because gridDim.y stops at 65535.
// Why it is faster: every global access is now a full 128-byte line per warp, so DRAM
// moves only useful bytes in both directions.
// What is still wrong: tile[tx][ty] read by a warp walks down a column of a 32x32 float
// array: a stride of 32 words, so all 32 lanes hit the same bank - a 32-way conflict that
// replays the access 32 times.
// In a profiler: "Shared Memory" table shows ~32-way bank conflicts on the load
// (l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld); stalls move to "MIO throttle".
#include <stdint.h>
#include <stdio.h>

#include "cudalab_lab.h"

#define TILE 32
#define THREADS 256

__global__ void __launch_bounds__(THREADS)
    transpose_smem(const float *__restrict__ in, float *__restrict__ out, int rows, int cols, int tiles_c)
{
    __shared__ float tile[TILE][TILE];
    const int r0 = (int)(blockIdx.x / tiles_c) * TILE;
    const int c0 = (int)(blockIdx.x % tiles_c) * TILE;
    const int tx = threadIdx.x & 31, ty = threadIdx.x >> 5; // ty: 0..7

    for (int k = 0; k < TILE; k += 8) {
        const int r = r0 + ty + k, c = c0 + tx;
        if (r < rows && c < cols)
            tile[ty + k][tx] = in[(size_t)r * cols + c];
    }
    __syncthreads();
    for (int k = 0; k < TILE; k += 8) {
        const int orow = c0 + ty + k, ocol = r0 + tx; // out is cols x rows
        if (orow < cols && ocol < rows)
            out[(size_t)orow * rows + ocol] = tile[tx][ty + k];
    }
}

extern "C" void transpose(const float *in, float *out, int rows, int cols, cudaStream_t stream)
{
    if (rows <= 0 || cols <= 0)
        return;
    const int tiles_c = (cols + TILE - 1) / TILE;
    const long long tiles = (long long)tiles_c * ((rows + TILE - 1) / TILE);
    transpose_smem<<<(unsigned)tiles, THREADS, 0, stream>>>(in, out, rows, cols, tiles_c);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
        fprintf(stderr, "transpose: launch failed: %s\n", cudaGetErrorString(e));
}
