// expect: slow
// expect-timeout: 300
/* cpu_fallback.cu: a planted bad solution to the nms lab.
 * What is wrong: nothing in the answer. It copies boxes and scores to the host, runs
 * greedy NMS on the CPU and copies the result back: correct, but it synchronises the
 * stream twice per call and works on one CPU core. Expected verdict: slow (correct, below
 * the pass tier). It is a careful CPU fallback, not a naive one: the boxes are bucketed in
 * a grid of cells as wide as the largest box, and each kept box is tested only against the
 * boxes whose corner lies in the cells it can reach, so a 50000-box call takes milliseconds
 * (the each-against-every-later-box loop took 1.3 s a call, 46 s of the GPU suite), and is
 * still far below what the pass tier asks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cudalab_lab.h"

static float *h_boxes, *h_scores;
static int *h_order, *h_keep, *h_rank, *h_cell_start, *h_cell_items;
static char *h_dead;
static int h_cap, h_cells_cap;

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

/* Only a box with width and height overlaps anything (IoU 0 otherwise, never above t). */
static inline int solid(const float *b) { return b[2] > b[0] && b[3] > b[1]; }

/* The grid: side x side cells of width `cell` from `origin`, each solid box in the cell of
 * its (x1, y1) corner. A box b overlaps a only if b.x1 lies in (a.x1 - cell, a.x2), cell
 * being at least the widest and tallest box, and likewise in y. */
static int g_side;
static float g_origin, g_cell;
static inline int cell_of(float v)
{
    int c = (int)floorf((v - g_origin) / g_cell);
    return c < 0 ? 0 : (c >= g_side ? g_side - 1 : c);
}

static int build_grid(int n)
{
    float mn = 0.f, mx = 1.f, ext = 1.f;
    int first = 1;
    for (int i = 0; i < n; i++) {
        const float *b = h_boxes + 4 * (size_t)i;
        if (!solid(b))
            continue;
        mn = first ? lo(b[0], b[1]) : lo(mn, lo(b[0], b[1]));
        mx = first ? hi(b[2], b[3]) : hi(mx, hi(b[2], b[3]));
        ext = hi(ext, hi(b[2] - b[0], b[3] - b[1]));
        first = 0;
    }
    g_origin = mn;
    g_cell = ext;
    g_side = (int)ceilf((mx - mn) / ext) + 1;
    if (g_side > 1024) { /* a few huge boxes among small ones: coarser cells, still correct */
        g_side = 1024;
        g_cell = (mx - mn) / 1023.f;
        g_cell = hi(g_cell, ext);
    }
    int cells = g_side * g_side;
    if (cells + 1 > h_cells_cap) {
        free(h_cell_start);
        h_cell_start = (int *)malloc((size_t)(cells + 1) * sizeof(int));
        h_cells_cap = cells + 1;
    }
    memset(h_cell_start, 0, (size_t)(cells + 1) * sizeof(int));
    for (int i = 0; i < n; i++) {
        const float *b = h_boxes + 4 * (size_t)i;
        if (solid(b))
            h_cell_start[cell_of(b[1]) * g_side + cell_of(b[0]) + 1]++;
    }
    for (int c = 0; c < cells; c++)
        h_cell_start[c + 1] += h_cell_start[c];
    for (int i = 0; i < n; i++) { /* counting sort; the starts are shifted back after */
        const float *b = h_boxes + 4 * (size_t)i;
        if (solid(b))
            h_cell_items[h_cell_start[cell_of(b[1]) * g_side + cell_of(b[0])]++] = i;
    }
    for (int c = cells; c > 0; c--)
        h_cell_start[c] = h_cell_start[c - 1];
    h_cell_start[0] = 0;
    return 0;
}

extern "C" void nms(const float *boxes, const float *scores, int n, float iou_threshold,
                    int *keep, int *num_kept, cudaStream_t stream)
{
    if (n > h_cap) {
        free(h_boxes); free(h_scores); free(h_order); free(h_keep); free(h_dead); free(h_rank); free(h_cell_items);
        h_boxes = (float *)malloc((size_t)n * 16);
        h_scores = (float *)malloc((size_t)n * 4);
        h_order = (int *)malloc((size_t)n * 4);
        h_keep = (int *)malloc((size_t)n * 4);
        h_dead = (char *)malloc((size_t)n);
        h_rank = (int *)malloc((size_t)n * 4);
        h_cell_items = (int *)malloc((size_t)n * 4);
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
        for (int r = 0; r < n; r++)
            h_rank[h_order[r]] = r;
        build_grid(n);
        memset(h_dead, 0, (size_t)n);
        for (int r = 0; r < n; r++) {
            int i = h_order[r];
            if (h_dead[i])
                continue;
            h_keep[k++] = i;
            const float *a = h_boxes + 4 * (size_t)i;
            if (!solid(a))
                continue;
            int x0 = cell_of(a[0] - g_cell), x1 = cell_of(a[2]), y0 = cell_of(a[1] - g_cell), y1 = cell_of(a[3]);
            for (int y = y0; y <= y1; y++)
                for (int c = y * g_side + x0; c <= y * g_side + x1; c++)
                    for (int q = h_cell_start[c]; q < h_cell_start[c + 1]; q++) {
                        int j = h_cell_items[q];
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
