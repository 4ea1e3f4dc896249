// expect: slow
/* Correct, and slow on short rows: one 1024-thread block per row whatever the width, and
 * three passes over global memory (max, sum, write) with a shared-memory tree reduction
 * after each of the first two. On a 1024-wide row every thread loads a single float per
 * pass; at most two such blocks fit on an SM, so only ~8 KB are in flight per SM where
 * tens of KB are needed to cover DRAM latency, and each row pays two block-wide
 * reductions of 10 barriers each. */
#include <math.h>

#include "cudalab_lab.h"

#define THREADS 1024

__global__ void softmax_block(const float *in, float *out, int cols)
{
    __shared__ float red[THREADS];
    const float *x = in + (size_t)blockIdx.x * cols;
    float *y = out + (size_t)blockIdx.x * cols;
    const int t = threadIdx.x;

    float m = -INFINITY;
    for (int c = t; c < cols; c += THREADS)
        m = fmaxf(m, x[c]);
    red[t] = m;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (t < s)
            red[t] = fmaxf(red[t], red[t + s]);
        __syncthreads();
    }
    m = red[0];
    __syncthreads();

    float sum = 0.f;
    for (int c = t; c < cols; c += THREADS)
        sum += expf(x[c] - m);
    red[t] = sum;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (t < s)
            red[t] += red[t + s];
        __syncthreads();
    }
    sum = red[0];

    for (int c = t; c < cols; c += THREADS)
        y[c] = expf(x[c] - m) / sum;
}

extern "C" void softmax(const float *in, float *out, int rows, int cols, cudaStream_t stream)
{
    softmax_block<<<rows, THREADS, 0, stream>>>(in, out, cols);
}
