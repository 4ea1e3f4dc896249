// expect: slow
/* The textbook first attempt: one thread per element, consecutive threads take consecutive
 * columns of a row. The reads are coalesced (a warp reads 128 contiguous bytes), but the
 * writes go to out[c * rows + r]: a warp's 32 stores land in 32 different rows of out,
 * 32 separate 32-byte sectors for 128 useful bytes. Correct on every shape, far below the
 * copy bandwidth. */
#include "cudalab_lab.h"

__global__ void transpose_naive(const float *in, float *out, int rows, int cols)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols)
        return;
    for (int r = blockIdx.y; r < rows; r += gridDim.y)
        out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}

extern "C" void transpose(const float *in, float *out, int rows, int cols, cudaStream_t stream)
{
    dim3 grid((cols + 255) / 256, rows < 65535 ? rows : 65535);
    transpose_naive<<<grid, 256, 0, stream>>>(in, out, rows, cols);
}
