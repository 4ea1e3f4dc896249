// expect: cuda_error
// expect-message: misaligned
/* misaligned_float4.cu: a planted bad solution to the iou lab.
 * What is wrong: it writes each row with float4 stores at columns 4g, assuming every row
 * starts on a 16-byte boundary. Row i starts at out + i * n floats, which is 16-byte
 * aligned only when n % 4 == 0; otherwise the store faults ("misaligned address").
 * The partial group at the end of a row is stored element by element, correctly. */
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
    if (i >= m || j >= n)
        return;
    float4 v;
    v.x = iou_of(a + 4 * i, b + 4 * j);
    v.y = j + 1 < n ? iou_of(a + 4 * i, b + 4 * (j + 1)) : 0.f;
    v.z = j + 2 < n ? iou_of(a + 4 * i, b + 4 * (j + 2)) : 0.f;
    v.w = j + 3 < n ? iou_of(a + 4 * i, b + 4 * (j + 3)) : 0.f;
    float *dst = out + (long long)i * n + j;
    if (j + 3 < n) { /* BUG: dst is not 16-byte aligned unless n % 4 == 0 */
        *reinterpret_cast<float4 *>(dst) = v;
    } else {
        dst[0] = v.x;
        if (j + 1 < n) dst[1] = v.y;
        if (j + 2 < n) dst[2] = v.z;
    }
}

extern "C" void box_iou(const float *a, int m, const float *b, int n, float *out,
                        cudaStream_t stream)
{
    if (m <= 0 || n <= 0)
        return;
    int groups = (n + 3) / 4;
    iou_kernel<<<dim3((groups + 255) / 256, m), 256, 0, stream>>>(a, m, b, n, out);
}
