// 01_naive.cu: transpose ladder, step 1: one thread per element, straight to its place.
//
// What it does: thread k reads in[k] (row k / cols, column k % cols) and writes it to
// out[col][row]. A grid-stride loop over 64-bit indices covers any shape, including more
// than 2^31 elements.
// Why it is slow: a warp's 32 loads are one contiguous 128-byte run (coalesced), but its
// 32 stores land in 32 different rows of out: 32 separate 32-byte sectors to move 128
// useful bytes, so the writes waste most of the DRAM bandwidth.
// In a profiler: Nsight Compute's "Memory Workload Analysis" shows about 32 sectors per
// store request (the ideal is 4) and a "uncoalesced global accesses" rule firing on the
// store line in the source view.
#include <stdint.h>
#include <stdio.h>

#include "cudalab_lab.h"

__global__ void transpose_naive(const float *__restrict__ in, float *__restrict__ out, int rows, int cols)
{
    const int64_t total = (int64_t)rows * cols;
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < total; k += stride) {
        const int64_t r = k / cols, c = k % cols;
        out[c * rows + r] = in[k];
    }
}

extern "C" void transpose(const float *in, float *out, int rows, int cols, cudaStream_t stream)
{
    if (rows <= 0 || cols <= 0)
        return;
    const int64_t total = (int64_t)rows * cols;
    int64_t blocks = (total + 255) / 256;
    if (blocks > 65536 * 16)
        blocks = 65536 * 16;
    transpose_naive<<<(unsigned)blocks, 256, 0, stream>>>(in, out, rows, cols);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
        fprintf(stderr, "transpose: launch failed: %s\n", cudaGetErrorString(e));
}
