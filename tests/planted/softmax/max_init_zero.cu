// expect: wrong
/* A correct-looking warp-per-row softmax whose running max starts at 0 instead of -inf.
 * Rows whose entries are all far below 0 (values near -1e4) then compute exp(x - 0) = 0
 * for every entry: the sum is 0 and the outputs 0 / 0 = NaN. Rows with a positive entry
 * are right. */
#include "cudalab_lab.h"

__global__ void softmax_warp(const float *in, float *out, int rows, int cols)
{
    const int row = blockIdx.x * 4 + threadIdx.x / 32, lane = threadIdx.x % 32;
    if (row >= rows)
        return;
    const float *x = in + (size_t)row * cols;
    float *y = out + (size_t)row * cols;
    float m = 0.f; /* BUG: should be -INFINITY */
    for (int c = lane; c < cols; c += 32)
        m = fmaxf(m, x[c]);
    for (int o = 16; o > 0; o >>= 1)
        m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
    float s = 0.f;
    for (int c = lane; c < cols; c += 32)
        s += __expf(x[c] - m);
    for (int o = 16; o > 0; o >>= 1)
        s += __shfl_xor_sync(0xffffffffu, s, o);
    for (int c = lane; c < cols; c += 32)
        y[c] = __expf(x[c] - m) / s;
}

extern "C" void softmax(const float *in, float *out, int rows, int cols, cudaStream_t stream)
{
    softmax_warp<<<(rows + 3) / 4, 128, 0, stream>>>(in, out, rows, cols);
}
