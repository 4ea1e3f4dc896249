// expect: slow
/* cpu_fallback.cu: a planted bad solution to the iou lab.
 * What is wrong: nothing in the answer. It copies both box sets to the host, computes the
 * m x n matrix on one CPU core and copies it back: correct, but the output crosses PCIe
 * and the arithmetic runs on one core. Expected verdict: slow (correct, below the pass
 * tier). */
#include <stdlib.h>

#include "cudalab_lab.h"

static float *h_a, *h_b, *h_out;
static size_t cap_a, cap_b, cap_out;

static float *grow(float *p, size_t *cap, size_t need)
{
    if (need <= *cap)
        return p;
    free(p);
    *cap = need;
    return (float *)malloc(need);
}

extern "C" void box_iou(const float *a, int m, const float *b, int n, float *out,
                        cudaStream_t stream)
{
    if (m <= 0 || n <= 0)
        return;
    h_a = grow(h_a, &cap_a, (size_t)m * 16);
    h_b = grow(h_b, &cap_b, (size_t)n * 16);
    h_out = grow(h_out, &cap_out, (size_t)m * n * 4);
    cudaMemcpyAsync(h_a, a, (size_t)m * 16, cudaMemcpyDeviceToHost, stream);
    cudaMemcpyAsync(h_b, b, (size_t)n * 16, cudaMemcpyDeviceToHost, stream);
    cudaStreamSynchronize(stream);
    for (int i = 0; i < m; i++) {
        const float *p = h_a + 4 * (size_t)i;
        float aa = fmaxf(p[2] - p[0], 0.f) * fmaxf(p[3] - p[1], 0.f);
        for (int j = 0; j < n; j++) {
            const float *q = h_b + 4 * (size_t)j;
            float ab = fmaxf(q[2] - q[0], 0.f) * fmaxf(q[3] - q[1], 0.f);
            float iw = fmaxf(fminf(p[2], q[2]) - fmaxf(p[0], q[0]), 0.f);
            float ih = fmaxf(fminf(p[3], q[3]) - fmaxf(p[1], q[1]), 0.f);
            float inter = iw * ih, uni = aa + ab - inter;
            h_out[(size_t)i * n + j] = uni > 0.f ? inter / uni : 0.f;
        }
    }
    cudaMemcpyAsync(out, h_out, (size_t)m * n * 4, cudaMemcpyHostToDevice, stream);
    cudaStreamSynchronize(stream);
}
