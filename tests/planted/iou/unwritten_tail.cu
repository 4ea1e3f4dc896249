// expect: wrong
// expect-message: never written
/* unwritten_tail.cu: a planted bad solution to the iou lab.
 * What is wrong: each thread computes 4 adjacent outputs of a row, and a group that would
 * run past the end of the row is skipped entirely, so when n % 4 != 0 the last n % 4
 * columns of every row are never written (they keep the grader's NaN poison).
 * Everything that is written is correct (scalar stores, so no alignment problem). */
#include "cudalab_lab.h"

__device__ float iou_of(const float *p, const float *q)
{
    float aa = fmaxf(p[2] - p[0], 0.f) * fmaxf(p[3] - p[1], 0.f);
    float ab = fmaxf(q[2] - q[0], 0.f) * fmaxf(q[3] - q[1], 0.f);
    float iw = fmaxf(fminf(p[2], q[2]) - fmaxf(p[0], q[0]), 0.f);
    float ih = fmaxf(fminf(p[3], q[3]) - fmaxf(p[1], q[1]), 0.f);
    float inter = iw * ih, uni = aa + ab - inter;
    return uni > 0.f ? inter / uni : 0.f;
}

__global__ void iou_kernel(const float *a, int m, const float *b, int n, float *out)
{
    int i = blockIdx.y, j = 4 * (blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= m || j + 3 >= n) /* BUG: drops the partial group at the end of the row */
        return;
    for (int k = 0; k < 4; k++)
        out[(long long)i * n + j + k] = iou_of(a + 4 * i, b + 4 * (j + k));
}

extern "C" void box_iou(const float *a, int m, const float *b, int n, float *out,
                        cudaStream_t stream)
{
    if (m <= 0 || n <= 0)
        return;
    int groups = (n + 3) / 4;
    iou_kernel<<<dim3((groups + 255) / 256, m), 256, 0, stream>>>(a, m, b, n, out);
}
