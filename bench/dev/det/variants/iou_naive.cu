/* iou_naive.cu: one thread per output element, scalar loads and stores; correct. For
 * calibrating the iou lab's tiers: what the first correct version reaches. */
#include "cudalab_lab.h"

__global__ void iou_kernel(const float *a, int m, const float *b, int n, float *out)
{
    long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= (long long)m * n)
        return;
    const float *p = a + 4 * (e / n), *q = b + 4 * (e % n);
    float aa = fmaxf(p[2] - p[0], 0.f) * fmaxf(p[3] - p[1], 0.f);
    float ab = fmaxf(q[2] - q[0], 0.f) * fmaxf(q[3] - q[1], 0.f);
    float iw = fmaxf(fminf(p[2], q[2]) - fmaxf(p[0], q[0]), 0.f);
    float ih = fmaxf(fminf(p[3], q[3]) - fmaxf(p[1], q[1]), 0.f);
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
