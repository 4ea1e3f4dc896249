// expect: wrong
// expect-message: clamp
/* no_clamp.cu: a planted bad solution to the iou lab.
 * What is wrong: the overlap width and height are not clamped at 0. For boxes apart on
 * one axis the "intersection" is negative (a negative IoU); apart on both axes it is a
 * product of two negatives, a positive area that does not exist.
 * Otherwise one thread per element, correct. */
#include "cudalab_lab.h"

__global__ void iou_kernel(const float *a, int m, const float *b, int n, float *out)
{
    long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= (long long)m * n)
        return;
    const float *p = a + 4 * (e / n), *q = b + 4 * (e % n);
    float aa = fmaxf(p[2] - p[0], 0.f) * fmaxf(p[3] - p[1], 0.f);
    float ab = fmaxf(q[2] - q[0], 0.f) * fmaxf(q[3] - q[1], 0.f);
    float iw = fminf(p[2], q[2]) - fmaxf(p[0], q[0]); /* BUG: no fmaxf(..., 0) */
    float ih = fminf(p[3], q[3]) - fmaxf(p[1], q[1]); /* BUG: no fmaxf(..., 0) */
    float inter = iw * ih, uni = aa + ab - inter;
    out[e] = uni > 0.f ? inter / uni : 0.f;
}

extern "C" void box_iou(const float *a, int m, const float *b, int n, float *out,
                        cudaStream_t stream)
{
    if (m <= 0 || n <= 0)
        return;
    long long total = (long long)m * n;
    iou_kernel<<<(unsigned)((total + 255) / 256), 256, 0, stream>>>(a, m, b, n, out);
}
