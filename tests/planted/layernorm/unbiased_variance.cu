// expect: wrong
// expect-message: rstd
/* Two-pass and numerically sound, but divides the sum of squares by n - 1 (the unbiased
 * sample variance, torch.var's default) where LayerNorm uses the biased variance (divide
 * by n, as torch.nn.functional.layer_norm). On a 7-wide row rstd is off by ~8%. */
#include <math.h>

#include "cudalab_lab.h"

__global__ void layernorm_warp(const float *x, const float *gamma, const float *beta, float *y,
                               float *mean, float *rstd, int rows, int cols, float eps)
{
    const int row = blockIdx.x * 4 + threadIdx.x / 32, lane = threadIdx.x % 32;
    if (row >= rows)
        return;
    const float *xr = x + (size_t)row * cols;
    float s = 0.f;
    for (int c = lane; c < cols; c += 32)
        s += xr[c];
    for (int o = 16; o > 0; o >>= 1)
        s += __shfl_xor_sync(0xffffffffu, s, o);
    const float mu = s / cols;
    float ss = 0.f;
    for (int c = lane; c < cols; c += 32)
        ss += (xr[c] - mu) * (xr[c] - mu);
    for (int o = 16; o > 0; o >>= 1)
        ss += __shfl_xor_sync(0xffffffffu, ss, o);
    const float r = rsqrtf(ss / (cols > 1 ? cols - 1 : 1) + eps); /* BUG: n - 1 */
    for (int c = lane; c < cols; c += 32)
        y[(size_t)row * cols + c] = (xr[c] - mu) * r * gamma[c] + beta[c];
    if (lane == 0)
        mean[row] = mu, rstd[row] = r;
}

extern "C" void layernorm(const float *x, const float *gamma, const float *beta, float *y, float *mean,
                          float *rstd, int rows, int cols, float eps, cudaStream_t stream)
{
    layernorm_warp<<<(rows + 3) / 4, 128, 0, stream>>>(x, gamma, beta, y, mean, rstd, rows, cols, eps);
}
