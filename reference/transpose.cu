/* reference/transpose.cu: out = in^T for a rows x cols fp32 matrix, at copy bandwidth.
 *
 * A transpose does no arithmetic: every element is read once and written once, so it is
 * as fast as a copy exactly when both the reads and the writes are coalesced. Reading
 * along a row of `in` is coalesced; writing each element straight to its transposed
 * place is not (a warp's 32 stores land in 32 different rows of `out`: 32 sectors for
 * 128 useful bytes). So each block stages a tile in shared memory: it reads the tile
 * along rows of `in`, and writes it along rows of `out`; only the shared-memory access
 * is "transposed", and shared memory does not care about stride if banks are spread.
 *
 * Two kernels:
 *  - tile_vec4 (rows and cols multiples of 4, 16-byte aligned pointers; the fast path).
 *    A tile is TR rows x 64 cols, 256 threads. Each thread reads 4x4 blocks as four
 *    16-byte loads (a half-warp covers 256 contiguous bytes of a row), transposes each
 *    block in registers, and stores its four columns as float4 into shared memory. After
 *    the barrier each thread reads float4 runs of the transposed tile and writes them to
 *    `out` with 16-byte stores (again 256 contiguous bytes per half-warp). 16-byte
 *    accesses halve the instructions and keep more bytes in flight per thread, which is
 *    what it takes to get near the copy bandwidth.
 *    Banks: shared memory serves a 16-byte access in quarter-warps (8 lanes = 128 bytes =
 *    all 32 banks). The 8 lanes of a quarter-warp store to 8 different tile rows, whose
 *    float4 slots would fall in the same bank group; padding a row by one word would break
 *    16-byte alignment, so the float4 column index is XOR-swizzled with (row / 4) % 8,
 *    which sends those 8 lanes to 8 different bank groups in both phases.
 *  - tile32 (any shape, any alignment): the classic 32x32 tile, 256 threads, 4 elements
 *    each, in a 32x33 shared array: reading a column of a 32x32 array hits one bank 32
 *    times (stride 32 words); the padding column makes the stride 33 words, so the 32
 *    lanes hit 32 different banks.
 * Both use a 1-D grid of tiles (gridDim.y would cap a tall matrix at 65535 tiles) and
 * 64-bit offsets (a matrix may have more than 2^31 elements).
 *
 * Cache hints: plain loads and stores. Each byte is touched once, so the streaming hints
 * (__ldcs/__stcs, evict-first) look like the natural choice, and an earlier version used
 * them; measured, plain ld/st is 1% faster on an H100 (a likely reason: write-back
 * lines stay in L2 until the neighbouring tiles have filled them, so DRAM sees longer
 * runs; evict-first lines leave sooner). The const __restrict__ input lets the compiler
 * use the read-only (non-coherent) load path.
 * Measured (H100, variant harness, 2026-11-26; % of cudaMemcpy D2D's 3037 GB/s, bytes
 * read + written): streaming hints 95.3% (16384 x 16384) / 94.7% (8192 x 32768); plain
 * ld/st 96.3% / 96.1%. For scale, a grid-stride copy kernel of the same bytes reaches
 * 93.7%, and a copy that issues 4 to 16 float4 loads per thread before any store 98%.
 * Larger tiles (128x64, 64x128) run at the same speed; 256x32, 128x32, 32x128, banded
 * raster orders and persistent CTAs were all slower.
 * Tile order: the fast path hands out tiles in column-major order (consecutive blocks walk
 * down a column of tiles of `in`). The blocks resident at one time then write a few whole
 * rows of `out` (long runs of DRAM pages) and read short runs of many rows of `in`: reads
 * tolerate scattered pages better than writes. Measured in round 3 (same harness, one
 * process): row-major 96.3% / 96.2%, column-major 97.0% / 97.2%. More blocks per SM
 * (launch bounds for 8), 128x128 tiles with 512-1024 threads, L2 256-byte load hints,
 * evict-first and write-through stores were all slower (91-96%).
 *
 * Which path runs where: one path on every GPU from sm_75 on (no architecture-specific
 * instructions). */
#include <cstdint>
#include <cstdio>

#include "cudalab_lab.h"

#define VEC_TILE_COLS 64
#ifndef VEC_TILE_ROWS
#define VEC_TILE_ROWS 64 /* 64 or 128: rows of a tile in the fast path */
#endif
#define THREADS 256

/* Fast path: a VEC_TILE_ROWS x 64 tile, each thread moves (TR/64) 4x4 blocks. */
template <int TR>
__global__ void __launch_bounds__(THREADS)
    transpose_tile_vec4(const float *__restrict__ in, float *__restrict__ out, int rows, int cols,
                        int tiles_r)
{
    constexpr int RG = TR / 4;        /* float4 groups along the tile's rows */
    constexpr int BLOCKS = TR / 64;   /* 4x4 blocks per thread */
    /* tile[c][g ^ swz(c)] holds in[r0 + 4g .. r0 + 4g + 3][c0 + c]: a row of the output */
    __shared__ float4 tile[VEC_TILE_COLS][RG];

    /* tiles in column-major order: consecutive blocks walk down a column of tiles */
    const int r0 = (int)(blockIdx.x % tiles_r) * TR;
    const int c0 = (int)(blockIdx.x / tiles_r) * VEC_TILE_COLS;
    const int cb = threadIdx.x & 15; /* column group: 16 per tile row */
    const int c = c0 + 4 * cb;
    const int swz = cb & 7; /* = (tile row >> 2) & 7 for tile rows 4cb .. 4cb+3 */

#pragma unroll
    for (int b = 0; b < BLOCKS; b++) {
        const int g = (threadIdx.x >> 4) + 16 * b; /* row group within the tile */
        float4 v[4];
#pragma unroll
        for (int k = 0; k < 4; k++) {
            const int r = r0 + 4 * g + k;
            v[k] = (r < rows && c < cols)
                       ? *reinterpret_cast<const float4 *>(in + (size_t)r * cols + c)
                       : make_float4(0.f, 0.f, 0.f, 0.f);
        }
        /* column j of the 4x4 block is out row c0 + 4cb + j, out cols r0 + 4g .. +3 */
        tile[4 * cb + 0][g ^ swz] = make_float4(v[0].x, v[1].x, v[2].x, v[3].x);
        tile[4 * cb + 1][g ^ swz] = make_float4(v[0].y, v[1].y, v[2].y, v[3].y);
        tile[4 * cb + 2][g ^ swz] = make_float4(v[0].z, v[1].z, v[2].z, v[3].z);
        tile[4 * cb + 3][g ^ swz] = make_float4(v[0].w, v[1].w, v[2].w, v[3].w);
    }
    __syncthreads();

#pragma unroll
    for (int i = 0; i < VEC_TILE_COLS * RG / THREADS; i++) {
        const int idx = i * THREADS + threadIdx.x;
        const int tc = idx / RG, g = idx % RG; /* tile row (= out row), float4 column */
        const int orow = c0 + tc, ocol = r0 + 4 * g;
        if (orow < cols && ocol < rows)
            *reinterpret_cast<float4 *>(out + (size_t)orow * rows + ocol) =
                tile[tc][g ^ ((tc >> 2) & 7)];
    }
}

/* General path: 32x32 tile, padded against bank conflicts. */
__global__ void __launch_bounds__(THREADS)
    transpose_tile32(const float *__restrict__ in, float *__restrict__ out, int rows, int cols,
                     int tiles_c)
{
    __shared__ float tile[32][33];
    const int r0 = (int)(blockIdx.x / tiles_c) * 32;
    const int c0 = (int)(blockIdx.x % tiles_c) * 32;
    const int tx = threadIdx.x & 31, ty = threadIdx.x >> 5; /* ty: 0..7 */

#pragma unroll
    for (int k = 0; k < 32; k += 8) {
        const int r = r0 + ty + k, c = c0 + tx;
        if (r < rows && c < cols)
            tile[ty + k][tx] = in[(size_t)r * cols + c];
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < 32; k += 8) {
        const int orow = c0 + ty + k, ocol = r0 + tx; /* out is cols x rows */
        if (orow < cols && ocol < rows)
            out[(size_t)orow * rows + ocol] = tile[tx][ty + k];
    }
}

static int aligned16(const void *p) { return ((uintptr_t)p & 15u) == 0; }

extern "C" void transpose(const float *in, float *out, int rows, int cols, cudaStream_t stream)
{
    if (rows <= 0 || cols <= 0)
        return;
    if (rows % 4 == 0 && cols % 4 == 0 && aligned16(in) && aligned16(out)) {
        const int tiles_r = (rows + VEC_TILE_ROWS - 1) / VEC_TILE_ROWS;
        const long long tiles = (long long)tiles_r * ((cols + VEC_TILE_COLS - 1) / VEC_TILE_COLS);
        transpose_tile_vec4<VEC_TILE_ROWS>
            <<<(unsigned)tiles, THREADS, 0, stream>>>(in, out, rows, cols, tiles_r);
    } else {
        const int tiles_c = (cols + 31) / 32;
        const long long tiles = (long long)tiles_c * ((rows + 31) / 32);
        transpose_tile32<<<(unsigned)tiles, THREADS, 0, stream>>>(in, out, rows, cols, tiles_c);
    }
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
        fprintf(stderr, "transpose: launch failed: %s\n", cudaGetErrorString(e));
}
