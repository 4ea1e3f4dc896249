/* layernorm.cu: your solution to the layernorm lab. Start here.
 *
 * x is a rows x cols fp32 matrix (row-major) on the device; gamma and beta have cols
 * entries. For each row r write
 *   mean[r] = sum_c x[r][c] / cols
 *   var     = sum_c (x[r][c] - mean[r])^2 / cols          (biased, as PyTorch)
 *   rstd[r] = 1 / sqrt(var + eps)
 *   y[r][c] = (x[r][c] - mean[r]) * rstd[r] * gamma[c] + beta[c]
 * Some rows are constant (var = 0) and some sit near 1e4 with small noise, where
 * E[x^2] - E[x]^2 in fp32 is rounding noise. Launch your kernels on `stream` and return;
 * scratch memory, if you need it, comes from cudalab_scratch(bytes).
 *
 *   cudalab test    correctness on every case of lab.yaml (fresh random inputs)
 *   cudalab bench   GB/s at widths 1024, 4096 and 32768, as a fraction of copy bandwidth
 *   cudalab hint    when stuck
 *
 * This skeleton compiles and runs but writes nothing yet: `cudalab test` reports the
 * first element still holding the NaN the grader poisoned the output with. */
#include "cudalab_lab.h"

__global__ void layernorm_kernel(const float *x, const float *gamma, const float *beta, float *y,
                                 float *mean, float *rstd, int rows, int cols, float eps)
{
    /* TODO: one row per thread works (slowly) for a start: mean, then variance, then y.
     * Then give each row a warp or a block, and keep the row in registers. */
}

extern "C" void layernorm(const float *x, const float *gamma, const float *beta, float *y, float *mean,
                          float *rstd, int rows, int cols, float eps, cudaStream_t stream)
{
    layernorm_kernel<<<(rows + 255) / 256, 256, 0, stream>>>(x, gamma, beta, y, mean, rstd, rows,
                                                             cols, eps);
}
