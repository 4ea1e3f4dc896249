// expect: wrong
// expect-message: rstd
/* A warp per row that computes the variance in one pass as E[x^2] - E[x]^2 in fp32.
 * Fast, and right on rows of N(0, 1) data; on a row of 1e4 + noise in [-1, 1), E[x^2] is
 * 1e8, where fp32 steps by 8: the difference of the two ~1e8 terms is rounding noise
 * (often negative, so rstd is NaN). */
#include <math.h>

#include "cudalab_lab.h"

__global__ void layernorm_warp(const float *x, const float *gamma, const float *beta, float *y,
                               float *mean, float *rstd, int rows, int cols, float eps)
{
    const int row = blockIdx.x * 4 + threadIdx.x / 32, lane = threadIdx.x % 32;
    if (row >= rows)
        return;
    const float *xr = x + (size_t)row * cols;
    float s = 0.f, ss = 0.f;
    for (int c = lane; c < cols; c += 32) {
        s += xr[c];
        ss += xr[c] * xr[c];
    }
    for (int o = 16; o > 0; o >>= 1) {
        s += __shfl_xor_sync(0xffffffffu, s, o);
        ss += __shfl_xor_sync(0xffffffffu, ss, o);
    }
    const float mu = s / cols;
    const float var = ss / cols - mu * mu; /* BUG: catastrophic cancellation */
    const float r = rsqrtf(var + eps);
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
