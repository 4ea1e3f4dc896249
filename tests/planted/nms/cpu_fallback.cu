// expect: slow
// expect-timeout: 300
/* cpu_fallback.cu: a planted bad solution to the nms lab.
 * What is wrong: nothing in the answer. It copies boxes and scores to the host, runs
 * greedy NMS on the CPU (sort, then each kept box against every later box) and copies the
 * result back: correct, but it synchronises the stream twice per call and does O(n * kept)
 * work on one CPU core. Expected verdict: slow (correct, below the pass tier). */
#include <stdlib.h>
#include <string.h>

#include "cudalab_lab.h"

static float *h_boxes, *h_scores;
static int *h_order, *h_keep;
static char *h_dead;
static int h_cap;

static inline float pos(float v) { return v > 0.f ? v : 0.f; }
static inline float lo(float a, float b) { return a < b ? a : b; }
static inline float hi(float a, float b) { return a > b ? a : b; }

static float iou_of(const float *a, const float *b)
{
    float iw = lo(a[2], b[2]) - hi(a[0], b[0]);
    if (!(iw > 0.f)) /* the common case: no overlap along x */
        return 0.f;
    float ih = pos(lo(a[3], b[3]) - hi(a[1], b[1]));
    float aa = pos(a[2] - a[0]) * pos(a[3] - a[1]);
    float ab = pos(b[2] - b[0]) * pos(b[3] - b[1]);
    float inter = iw * ih, uni = aa + ab - inter;
    return uni > 0.f ? inter / uni : 0.f;
}

static int by_score(const void *x, const void *y)
{
    int i = *(const int *)x, j = *(const int *)y;
    if (h_scores[i] != h_scores[j])
        return h_scores[i] > h_scores[j] ? -1 : 1;
    return (i > j) - (i < j);
}

extern "C" void nms(const float *boxes, const float *scores, int n, float iou_threshold,
                    int *keep, int *num_kept, cudaStream_t stream)
{
    if (n > h_cap) {
        free(h_boxes); free(h_scores); free(h_order); free(h_keep); free(h_dead);
        h_boxes = (float *)malloc((size_t)n * 16);
        h_scores = (float *)malloc((size_t)n * 4);
        h_order = (int *)malloc((size_t)n * 4);
        h_keep = (int *)malloc((size_t)n * 4);
        h_dead = (char *)malloc((size_t)n);
        h_cap = n;
    }
    int k = 0;
    if (n > 0) {
        cudaMemcpyAsync(h_boxes, boxes, (size_t)n * 16, cudaMemcpyDeviceToHost, stream);
        cudaMemcpyAsync(h_scores, scores, (size_t)n * 4, cudaMemcpyDeviceToHost, stream);
        cudaStreamSynchronize(stream);
        for (int i = 0; i < n; i++)
            h_order[i] = i;
        qsort(h_order, (size_t)n, sizeof(int), by_score);
        memset(h_dead, 0, (size_t)n);
        for (int r = 0; r < n; r++) {
            if (h_dead[r])
                continue;
            h_keep[k++] = h_order[r];
            const float *a = h_boxes + 4 * (size_t)h_order[r];
            for (int q = r + 1; q < n; q++)
                if (!h_dead[q] && iou_of(a, h_boxes + 4 * (size_t)h_order[q]) > iou_threshold)
                    h_dead[q] = 1;
        }
        if (k > 0)
            cudaMemcpyAsync(keep, h_keep, (size_t)k * 4, cudaMemcpyHostToDevice, stream);
    }
    static int h_k;
    h_k = k;
    cudaMemcpyAsync(num_kept, &h_k, sizeof(int), cudaMemcpyHostToDevice, stream);
    cudaStreamSynchronize(stream);
}
