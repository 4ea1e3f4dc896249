// expect: out_of_bounds
/* A 32x32 shared-memory tile that assumes rows and cols are multiples of 32: the edge
 * tiles read past the end of in and write past the end of out. On 1 x 1 it writes a whole
 * 32x32 tile into a one-element output. */
#include "cudalab_lab.h"

__global__ void transpose_tiled(const float *in, float *out, int rows, int cols)
{
    __shared__ float tile[32][33];
    const int c0 = blockIdx.x * 32, r0 = blockIdx.y * 32;
    for (int k = threadIdx.y; k < 32; k += 8)
        tile[k][threadIdx.x] = in[(size_t)(r0 + k) * cols + c0 + threadIdx.x]; /* no check */
    __syncthreads();
    for (int k = threadIdx.y; k < 32; k += 8)
        out[(size_t)(c0 + k) * rows + r0 + threadIdx.x] = tile[threadIdx.x][k]; /* no check */
}

extern "C" void transpose(const float *in, float *out, int rows, int cols, cudaStream_t stream)
{
    dim3 grid((cols + 31) / 32, (rows + 31) / 32);
    transpose_tiled<<<grid, dim3(32, 8), 0, stream>>>(in, out, rows, cols);
}
