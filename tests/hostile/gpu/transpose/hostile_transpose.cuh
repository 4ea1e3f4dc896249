// hostile_transpose.cuh: the honest (naive) transpose the hostile transpose solutions
// share, so each planted file shows only its attack.
#pragma once
#include "cudalab_lab.h"

__global__ void transpose_kernel(const float *in, float *out, int rows, int cols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols)
        out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}

static inline void honest_transpose(const float *in, float *out, int rows, int cols, cudaStream_t stream)
{
    dim3 b(32, 8), g((cols + 31) / 32, (rows + 7) / 8);
    transpose_kernel<<<g, b, 0, stream>>>(in, out, rows, cols);
}
