// expect: wrong
// expect-message: NaN
/* A warp per row, 16-byte loads, everything fast, except that it computes exp(x) instead
 * of exp(x - max). exp(89) already overflows fp32: on rows with values near 1e4 the sum
 * is inf and the outputs inf / inf = NaN or 0. Passes the small-valued cases. */
#include "cudalab_lab.h"

__global__ void softmax_warp(const float *in, float *out, int rows, int cols)
{
    const int row = blockIdx.x * 4 + threadIdx.x / 32, lane = threadIdx.x % 32;
    if (row >= rows)
        return;
    const float *x = in + (size_t)row * cols;
    float *y = out + (size_t)row * cols;
    float s = 0.f;
    for (int c = lane; c < cols; c += 32)
        s += __expf(x[c]); /* BUG: no max subtracted */
    for (int o = 16; o > 0; o >>= 1)
        s += __shfl_xor_sync(0xffffffffu, s, o);
    for (int c = lane; c < cols; c += 32)
        y[c] = __expf(x[c]) / s;
}

extern "C" void softmax(const float *in, float *out, int rows, int cols, cudaStream_t stream)
{
    softmax_warp<<<(rows + 3) / 4, 128, 0, stream>>>(in, out, rows, cols);
}
