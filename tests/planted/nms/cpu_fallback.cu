// expect: slow
// expect-timeout: 300
/* cpu_fallback.cu: a planted bad solution to the nms lab.
 * What is wrong: nothing in the answer. It copies boxes and scores to the host, runs
 * greedy NMS on the CPU and copies the result back: correct, but it synchronises the
 * stream twice per call and works on one CPU core. Expected verdict: slow (correct, below
 * the pass tier). It is a careful CPU fallback, not a naive one: boxes sorted by x1 too,
 * each kept box tested only against the boxes whose x1 lies in its reach, so a 50000-box
 * call takes milliseconds (the each-against-every-later-box loop took 1.3 s a call, 46 s of
 * the GPU suite), and still about a hundred times slower than the pass tier asks. */
#include <stdlib.h>
#include <string.h>

#include "cudalab_lab.h"

static float *h_boxes, *h_scores;
static int *h_order, *h_keep, *h_byx, *h_rank;
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

static int by_x1(const void *x, const void *y)
{
    float a = h_boxes[4 * (size_t)*(const int *)x], b = h_boxes[4 * (size_t)*(const int *)y];
    return (a > b) - (a < b);
}

/* The first slot of the x1-sorted boxes whose x1 is >= v. */
static int first_x1_at_least(int n, float v)
{
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (h_boxes[4 * (size_t)h_byx[mid]] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

extern "C" void nms(const float *boxes, const float *scores, int n, float iou_threshold,
                    int *keep, int *num_kept, cudaStream_t stream)
{
    if (n > h_cap) {
        free(h_boxes); free(h_scores); free(h_order); free(h_keep); free(h_dead); free(h_byx); free(h_rank);
        h_boxes = (float *)malloc((size_t)n * 16);
        h_scores = (float *)malloc((size_t)n * 4);
        h_order = (int *)malloc((size_t)n * 4);
        h_keep = (int *)malloc((size_t)n * 4);
        h_dead = (char *)malloc((size_t)n);
        h_byx = (int *)malloc((size_t)n * 4);
        h_rank = (int *)malloc((size_t)n * 4);
        h_cap = n;
    }
    int k = 0;
    if (n > 0) {
        cudaMemcpyAsync(h_boxes, boxes, (size_t)n * 16, cudaMemcpyDeviceToHost, stream);
        cudaMemcpyAsync(h_scores, scores, (size_t)n * 4, cudaMemcpyDeviceToHost, stream);
        cudaStreamSynchronize(stream);
        float max_w = 0.f;
        for (int i = 0; i < n; i++) {
            h_order[i] = h_byx[i] = i;
            float w = h_boxes[4 * (size_t)i + 2] - h_boxes[4 * (size_t)i];
            max_w = w > max_w ? w : max_w;
        }
        qsort(h_order, (size_t)n, sizeof(int), by_score);
        qsort(h_byx, (size_t)n, sizeof(int), by_x1);
        for (int r = 0; r < n; r++)
            h_rank[h_order[r]] = r;
        memset(h_dead, 0, (size_t)n);
        for (int r = 0; r < n; r++) {
            int i = h_order[r];
            if (h_dead[i])
                continue;
            h_keep[k++] = i;
            const float *a = h_boxes + 4 * (size_t)i;
            if (!(a[2] > a[0])) /* no width: overlaps nothing */
                continue;
            /* a box b overlaps a along x only if b.x1 < a.x2 and b.x2 > a.x1, so b.x1 > a.x1 - max_w */
            for (int q = first_x1_at_least(n, a[0] - max_w); q < n && h_boxes[4 * (size_t)h_byx[q]] < a[2]; q++) {
                int j = h_byx[q];
                if (h_rank[j] > r && !h_dead[j] && iou_of(a, h_boxes + 4 * (size_t)j) > iou_threshold)
                    h_dead[j] = 1;
            }
        }
        if (k > 0)
            cudaMemcpyAsync(keep, h_keep, (size_t)k * 4, cudaMemcpyHostToDevice, stream);
    }
    static int h_k;
    h_k = k;
    cudaMemcpyAsync(num_kept, &h_k, sizeof(int), cudaMemcpyHostToDevice, stream);
    cudaStreamSynchronize(stream);
}
