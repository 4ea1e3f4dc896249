/* softmax.cu: your solution to the softmax lab. Start here.
 *
 * in is a rows x cols fp32 matrix (row-major) on the device. Write the softmax of each
 * row to out (same shape): out[r][c] = exp(x[r][c] - m) / sum_c' exp(x[r][c'] - m), where
 * m is the row's max. Inputs reach +-1e4 (and +-1e30), and some rows hold -inf entries
 * (their output is 0; no row is all -inf). Widths range from 1 to millions of columns.
 * Launch your kernels on `stream` and return; scratch memory, if you need it, comes from
 * cudalab_scratch(bytes), never from cudaMalloc.
 *
 *   cudalab test    correctness on every case of lab.yaml (fresh random inputs)
 *   cudalab bench   GB/s at widths 1024, 4096 and 32768, as a fraction of copy bandwidth
 *   cudalab hint    when stuck
 *
 * This skeleton compiles and runs but writes nothing yet: `cudalab test` reports the
 * first element still holding the NaN the grader poisoned the output with. */
#include "cudalab_lab.h"

__global__ void softmax_kernel(const float *in, float *out, int rows, int cols)
{
    /* TODO: one row per thread works (slowly) for a start: find the max, sum exp(x - max),
     * write exp(x - max) / sum. Then give each row a warp or a block. */
}

extern "C" void softmax(const float *in, float *out, int rows, int cols, cudaStream_t stream)
{
    softmax_kernel<<<(rows + 255) / 256, 256, 0, stream>>>(in, out, rows, cols);
}
