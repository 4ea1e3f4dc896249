// expect: wrong
/* Online softmax that keeps a running max but forgets to rescale the running sum when the
 * max grows: s += exp(x - m_new) without s *= exp(m_old - m_new) first. The terms summed
 * before the max changed are too large, so the sum is wrong on any row whose max is not
 * its first element. A warp per row; each lane keeps its own (m, s) and the lanes merge
 * them correctly, so only the per-lane update is wrong. */
#include <math.h>

#include "cudalab_lab.h"

__global__ void softmax_online(const float *in, float *out, int rows, int cols)
{
    const int row = blockIdx.x * 4 + threadIdx.x / 32, lane = threadIdx.x % 32;
    if (row >= rows)
        return;
    const float *x = in + (size_t)row * cols;
    float *y = out + (size_t)row * cols;
    float m = -INFINITY, s = 0.f;
    for (int c = lane; c < cols; c += 32) {
        m = fmaxf(m, x[c]);
        if (m > -INFINITY)
            s += __expf(x[c] - m); /* BUG: s was summed against the old max */
    }
    for (int o = 16; o > 0; o >>= 1) {
        const float m2 = __shfl_xor_sync(0xffffffffu, m, o), s2 = __shfl_xor_sync(0xffffffffu, s, o);
        const float mm = fmaxf(m, m2);
        s = (mm == -INFINITY) ? 0.f : s * __expf(m - mm) + s2 * __expf(m2 - mm);
        m = mm;
    }
    for (int c = lane; c < cols; c += 32)
        y[c] = __expf(x[c] - m) / s;
}

extern "C" void softmax(const float *in, float *out, int rows, int cols, cudaStream_t stream)
{
    softmax_online<<<(rows + 3) / 4, 128, 0, stream>>>(in, out, rows, cols);
}
