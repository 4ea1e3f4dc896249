// expect: wrong
// expect-message: never written
/* A tiled transpose whose grid is sized with rows and cols swapped: gridDim.x (the tile
 * column) is computed from rows, gridDim.y (the tile row) from cols. The bounds checks are
 * right, so nothing goes out of bounds, and on square matrices the grid is exactly right;
 * on a 1 x 4097 or 33 x 4097 matrix most tiles are never launched and their outputs keep
 * the grader's NaN poison. */
#include "cudalab_lab.h"

__global__ void transpose_tiled(const float *in, float *out, int rows, int cols)
{
    __shared__ float tile[32][33];
    const int c0 = blockIdx.x * 32, r0 = blockIdx.y * 32;
    for (int k = threadIdx.y; k < 32; k += 8) {
        const int r = r0 + k, c = c0 + threadIdx.x;
        if (r < rows && c < cols)
            tile[k][threadIdx.x] = in[(size_t)r * cols + c];
    }
    __syncthreads();
    for (int k = threadIdx.y; k < 32; k += 8) {
        const int orow = c0 + k, ocol = r0 + threadIdx.x;
        if (orow < cols && ocol < rows)
            out[(size_t)orow * rows + ocol] = tile[threadIdx.x][k];
    }
}

extern "C" void transpose(const float *in, float *out, int rows, int cols, cudaStream_t stream)
{
    dim3 grid((rows + 31) / 32, (cols + 31) / 32); /* BUG: should be (cols.., rows..) */
    transpose_tiled<<<grid, dim3(32, 8), 0, stream>>>(in, out, rows, cols);
}
