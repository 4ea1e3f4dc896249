/* transpose.cu: your solution to the transpose lab. Start here.
 *
 * in is a rows x cols fp32 matrix (row-major) on the device; write its transpose to out,
 * a cols x rows matrix: out[c * rows + r] = in[r * cols + c]. The grader allocates both
 * buffers and passes a stream: launch your kernels on it and return (no cudaMalloc, no
 * synchronisation needed). rows and cols can be anything from 1 up: 1 x N, N x 1, not
 * multiples of 32, far more than 2^31 elements in all (use 64-bit offsets).
 *
 *   cudalab test    correctness on every case of lab.yaml (fresh random inputs)
 *   cudalab bench   GB/s on 16384 x 16384 and 8192 x 32768, as a fraction of copy bandwidth
 *   cudalab hint    when stuck
 *
 * This skeleton compiles and runs but writes nothing yet: `cudalab test` reports the
 * first element still holding the NaN the grader poisoned the output with. */
#include "cudalab_lab.h"

__global__ void transpose_kernel(const float *in, float *out, int rows, int cols)
{
    /* TODO: each thread moves one (or more) elements: out[c * rows + r] = in[r * cols + c].
     * Start simple and correct, then make both the reads and the writes coalesced. */
}

extern "C" void transpose(const float *in, float *out, int rows, int cols, cudaStream_t stream)
{
    dim3 block(32, 8);
    dim3 grid((cols + 31) / 32, (rows + 31) / 32);
    transpose_kernel<<<grid, block, 0, stream>>>(in, out, rows, cols);
}
