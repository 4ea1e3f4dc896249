/* iou.cu: your solution to the iou lab. Read README.md first.
 *
 * out[i][j] = IoU(a[i], b[j]) for i < m, j < n; out is m x n, row-major. Boxes are
 * (x1, y1, x2, y2) as 4 consecutive floats. The formula, exactly (fp32):
 *   area  = max(0, x2 - x1) * max(0, y2 - y1)
 *   inter = max(0, min(ax2, bx2) - max(ax1, bx1)) * max(0, min(ay2, by2) - max(ay1, by1))
 *   union = (area_a + area_b) - inter
 *   iou   = union > 0 ? inter / union : 0
 *
 * This skeleton compiles and runs, but writes nothing yet: `cudalab test` reports the
 * first unwritten element (the grader fills outputs with NaN before each call).
 * Launch your kernels on `stream`; the pointers are device pointers. */
#include "cudalab_lab.h"

__global__ void iou_kernel(const float *a, int m, const float *b, int n, float *out)
{
    long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; /* one output element */
    if (e >= (long long)m * n)
        return;
    /* TODO: with i = e / n and j = e % n, box a[i] is a[4i .. 4i+3] and box b[j] is
     * b[4j .. 4j+3]; compute their IoU with the formula above and store it in out[e]. */
}

extern "C" void box_iou(const float *a, int m, const float *b, int n, float *out,
                        cudaStream_t stream)
{
    if (m <= 0 || n <= 0)
        return; /* never launch an empty grid */
    long long total = (long long)m * n;
    int threads = 256;
    unsigned blocks = (unsigned)((total + threads - 1) / threads);
    iou_kernel<<<blocks, threads, 0, stream>>>(a, m, b, n, out);
}
