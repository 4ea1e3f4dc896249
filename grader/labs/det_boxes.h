/* det_boxes.h: box geometry shared by the iou and nms checkers (and their CPU tests).
 *
 * - det_iou_f32: THE IoU of both labs, in fp32, in the order the lab READMEs define:
 *     area  = max(0, x2 - x1) * max(0, y2 - y1)
 *     inter = max(0, min(ax2, bx2) - max(ax1, bx1)) * max(0, min(ay2, by2) - max(ay1, by1))
 *     union = (area_a + area_b) - inter
 *     iou   = union > 0 ? inter / union : 0
 * - Exact arithmetic on integer-valued boxes (the nms lab's inputs): inter and union are
 *   integers below 2^24, so they are exact in fp32 and the only rounding any solution
 *   makes is its final division (or multiplication by the threshold). det_clean moves
 *   boxes until no overlapping pair has an IoU within a relative margin of the threshold,
 *   so that every reasonable fp32 formulation takes the same suppression decisions.
 * - A uniform grid over boxes, and greedy NMS on the CPU that only tests neighbours; the
 *   test of an answer against the greedy rule, box by box on every core (det_nms_is_greedy).
 * - det_clean spreads its pair tests over the cores (parallel.h): the nms lab cleans a
 *   fresh 50000-box input before every timed run.
 *
 * Plain C11, header only: every function is static inline. */
#ifndef CUDALAB_DET_BOXES_H
#define CUDALAB_DET_BOXES_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parallel.h"

typedef struct det_box {
    float x1, y1, x2, y2;
} det_box;

/* ---- the canonical fp32 IoU ---- */

static inline float det_pos(float v) { return v > 0.0f ? v : 0.0f; }
static inline float det_minf(float a, float b) { return a < b ? a : b; }
static inline float det_maxf(float a, float b) { return a > b ? a : b; }

static inline float det_area_f32(det_box b)
{
    float w = det_pos(b.x2 - b.x1);
    float h = det_pos(b.y2 - b.y1);
    return w * h;
}

/* The overlap's width and height before clamping: negative where the boxes are apart on
 * that axis. */
static inline void det_overlap_f32(det_box a, det_box b, float *w, float *h)
{
    *w = det_minf(a.x2, b.x2) - det_maxf(a.x1, b.x1);
    *h = det_minf(a.y2, b.y2) - det_maxf(a.y1, b.y1);
}

static inline float det_iou_f32(det_box a, det_box b)
{
    float aa = det_area_f32(a), ab = det_area_f32(b), ow, oh;
    det_overlap_f32(a, b, &ow, &oh);
    float inter = det_pos(ow) * det_pos(oh);
    float uni = (aa + ab) - inter;
    return uni > 0.0f ? inter / uni : 0.0f;
}

/* ---- exact arithmetic on integer-valued boxes ---- */

static inline int64_t det_len_i64(float lo, float hi)
{
    int64_t d = (int64_t)hi - (int64_t)lo;
    return d > 0 ? d : 0;
}

static inline int64_t det_area_i64(det_box b)
{
    return det_len_i64(b.x1, b.x2) * det_len_i64(b.y1, b.y2);
}

/* Intersection and union areas of two integer-valued boxes, exactly. */
static inline void det_inter_union(det_box a, det_box b, int64_t *inter, int64_t *uni)
{
    int64_t iw = det_len_i64(det_maxf(a.x1, b.x1), det_minf(a.x2, b.x2));
    int64_t ih = det_len_i64(det_maxf(a.y1, b.y1), det_minf(a.y2, b.y2));
    *inter = iw * ih;
    *uni = det_area_i64(a) + det_area_i64(b) - *inter;
}

/* Greedy NMS's test, exactly: IoU > t, i.e. union > 0 and inter > t * union. With
 * inter, union < 2^24 and t a float (24-bit significand) the product is exact in double. */
static inline int det_suppresses(int64_t inter, int64_t uni, float t)
{
    if (uni <= 0)
        return 0.0 > (double)t;
    return (double)inter > (double)t * (double)uni;
}

/* A pair whose IoU lies strictly between 0 and 1 and within rel_margin * t of t: fp32
 * rounding could flip its decision in some correct solution. An IoU of exactly 0 or 1
 * is computed exactly by every formulation, so it is never ambiguous. */
static inline int det_ambiguous(int64_t inter, int64_t uni, float t, double rel_margin)
{
    if (inter <= 0 || inter >= uni)
        return 0;
    double d = (double)inter - (double)t * (double)uni;
    return fabs(d) <= rel_margin * (double)t * (double)uni;
}

/* A box of positive area (the only kind that can overlap another). */
static inline int det_solid(det_box b) { return b.x2 > b.x1 && b.y2 > b.y1; }

/* ---- a uniform grid over solid boxes, keyed by their (x1, y1) corner ----
 * A solid box j overlaps box i only if x1_j lies in (x1_i - ext, x2_i), where ext is the
 * largest side of any box (and likewise in y), so i's partners lie in the cells that
 * range covers. Cells are a quarter of ext wide: a box visits about (4 + its side / cell)^2
 * cells holding few boxes each, rather than 3 x 3 crowded ones. */

#define DET_GRID_MAX 512  /* cells per side at most: start[] needs DET_GRID_MAX^2 + 1 ints */
#define DET_NEAR_MAX 144  /* cells one box may visit: at most 12 per axis */

typedef struct det_grid {
    int side;    /* cells per side */
    double lo;   /* smallest coordinate covered */
    double cell; /* cell width */
    double ext;  /* the largest side of a solid box */
    int *start;  /* side*side + 1 offsets into items (caller's memory) */
    int *items;  /* n box indices (caller's memory) */
} det_grid;

static inline int det_grid_cell(const det_grid *g, double v)
{
    double c = (v - g->lo) / g->cell;
    return c < 0 ? 0 : (c >= g->side ? g->side - 1 : (int)c);
}

/* Builds the grid over the solid boxes among b[0..n). start and items as above. */
static inline void det_grid_build(det_grid *g, const det_box *b, int n, int *start, int *items)
{
    double lo = 0, hi = 1, ext = 1;
    int first = 1;
    for (int i = 0; i < n; i++) {
        if (!det_solid(b[i]))
            continue;
        double w = (double)b[i].x2 - b[i].x1, h = (double)b[i].y2 - b[i].y1;
        double l = b[i].x1 < b[i].y1 ? b[i].x1 : b[i].y1;
        double u = b[i].x2 > b[i].y2 ? b[i].x2 : b[i].y2;
        if (first || l < lo) lo = l;
        if (first || u > hi) hi = u;
        if (w > ext) ext = w;
        if (h > ext) ext = h;
        first = 0;
    }
    double span = hi - lo + 1, cell = ext / 4;
    if (span / cell > DET_GRID_MAX - 1)
        cell = span / (DET_GRID_MAX - 1);
    g->side = (int)(span / cell) + 1;
    if (g->side > DET_GRID_MAX)
        g->side = DET_GRID_MAX;
    g->lo = lo;
    g->cell = cell;
    g->ext = ext;
    g->start = start;
    g->items = items;
    int cells = g->side * g->side;
    for (int c = 0; c <= cells; c++)
        start[c] = 0;
    for (int i = 0; i < n; i++)
        if (det_solid(b[i]))
            start[det_grid_cell(g, b[i].y1) * g->side + det_grid_cell(g, b[i].x1) + 1]++;
    for (int c = 0; c < cells; c++)
        start[c + 1] += start[c];
    /* counting sort; start[c] is advanced while filling and shifted back afterwards */
    for (int i = 0; i < n; i++)
        if (det_solid(b[i])) {
            int c = det_grid_cell(g, b[i].y1) * g->side + det_grid_cell(g, b[i].x1);
            items[start[c]++] = i;
        }
    for (int c = cells; c > 0; c--)
        start[c] = start[c - 1];
    start[0] = 0;
}

/* The cells x0..x1 of rows y0..y1 as ranges [lo, hi) of g->items; their number. */
static inline int det_grid_block(const det_grid *g, int x0, int x1, int y0, int y1, int lo[DET_NEAR_MAX],
                                 int hi[DET_NEAR_MAX])
{
    int k = 0;
    for (int y = y0; y <= y1; y++)
        for (int x = x0; x <= x1; x++) {
            int c = y * g->side + x;
            lo[k] = g->start[c];
            hi[k] = g->start[c + 1];
            k++;
        }
    return k;
}

/* The cells that may hold a partner of box (see above), as ranges [lo, hi) of g->items.
 * Returns the number of ranges (at most DET_NEAR_MAX). */
static inline int det_grid_near(const det_grid *g, det_box box, int lo[DET_NEAR_MAX],
                                int hi[DET_NEAR_MAX])
{
    return det_grid_block(g, det_grid_cell(g, box.x1 - g->ext), det_grid_cell(g, box.x2),
                          det_grid_cell(g, box.y1 - g->ext), det_grid_cell(g, box.y2), lo, hi);
}

/* As det_grid_near, for the partners whose x1 is at least box's own: the cells from
 * box.x1 to box.x2 across (a partner's x1 lies in [box.x1, box.x2)), the same rows. Visiting
 * every box's window this way meets each overlapping pair once, from its left box, in a
 * window narrower by the largest side. */
static inline int det_grid_near_right(const det_grid *g, det_box box, int lo[DET_NEAR_MAX],
                                      int hi[DET_NEAR_MAX])
{
    return det_grid_block(g, det_grid_cell(g, box.x1), det_grid_cell(g, box.x2),
                          det_grid_cell(g, box.y1 - g->ext), det_grid_cell(g, box.y2), lo, hi);
}

/* Boxes whose interiors overlap (a quick test before the exact arithmetic). */
static inline int det_overlap(det_box a, det_box b)
{
    return a.x1 < b.x2 && b.x1 < a.x2 && a.y1 < b.y2 && b.y1 < a.y2;
}

/* A det_clean pass: the boxes todo[lo, hi) of each slice are tested against their
 * neighbours on the boxes as they were at the start of the pass (read only), and the later
 * box of each ambiguous pair is listed in the slice's found[t] (grown as needed). */
typedef struct det_clean_pass {
    const det_box *b;
    const det_box *cell_boxes; /* b[g->items[k]] at k: the neighbours read in order, not gathered */
    const det_grid *g;
    const int *todo;
    int pass;
    float t;
    double rel_margin;
    int *found[CL_PAR_MAX], nfound[CL_PAR_MAX], cap[CL_PAR_MAX], oom[CL_PAR_MAX];
} det_clean_pass;

static void det_clean_scan(void *ctx, int th, long long lo_q, long long hi_q)
{
    det_clean_pass *p = (det_clean_pass *)ctx;
    const det_box *b = p->b, *cb = p->cell_boxes;
    const int *items = p->g->items;
    p->nfound[th] = 0;
    p->oom[th] = 0;
    for (long long q = lo_q; q < hi_q; q++) {
        int d = p->todo[q];
        const det_box bd = b[d];
        /* pass 0 visits every pair once, from its left box (the lower index on equal x1);
         * later passes visit the pairs of changed boxes from the changed side, whole windows */
        int lo[DET_NEAR_MAX], hi[DET_NEAR_MAX];
        int cells = p->pass == 0 ? det_grid_near_right(p->g, bd, lo, hi) : det_grid_near(p->g, bd, lo, hi);
        for (int c = 0; c < cells; c++)
            for (int k = lo[c]; k < hi[c]; k++) {
                if (!det_overlap(bd, cb[k]))
                    continue;
                int e = items[k];
                if (e == d || (p->pass == 0 && (cb[k].x1 < bd.x1 || (cb[k].x1 == bd.x1 && e < d))))
                    continue;
                int i = d < e ? d : e, j = d < e ? e : d;
                int64_t inter, uni;
                det_inter_union(b[i], b[j], &inter, &uni);
                if (!det_ambiguous(inter, uni, p->t, p->rel_margin))
                    continue;
                if (p->nfound[th] == p->cap[th]) {
                    int cap = p->cap[th] ? 2 * p->cap[th] : 256;
                    int *f = (int *)realloc(p->found[th], (size_t)cap * sizeof(int));
                    if (!f) {
                        p->oom[th] = 1;
                        return;
                    }
                    p->found[th] = f;
                    p->cap[th] = cap;
                }
                p->found[th][p->nfound[th]++] = j;
            }
    }
}

/* Adjusts boxes of b[0..n) (integer-valued, inside [0, canvas]) until no overlapping pair
 * is ambiguous for threshold t. Each pass finds the ambiguous pairs on the boxes as they
 * are (on every core, each thread a slice of the boxes to test), then widens the later
 * box of each by one unit (or narrows it, at the canvas edge), once per pass, which also
 * changes the IoU of a nested pair. The first pass tests every overlapping pair, later
 * passes only the pairs of the boxes changed in the pass before. The result does not
 * depend on the number of threads. Returns the number of adjustments, or -1 when 64
 * passes did not settle it (or memory ran out). */
static inline int det_clean(det_box *b, int n, float t, double rel_margin, int canvas,
                            int *start, int *items)
{
    size_t un = (size_t)(n > 0 ? n : 1);
    int *todo = (int *)malloc(un * 2 * sizeof(int));
    unsigned char *mark = (unsigned char *)calloc(un, 1);
    det_box *cell_boxes = (det_box *)malloc(un * sizeof(det_box));
    if (!todo || !mark || !cell_boxes) {
        free(todo);
        free(mark);
        free(cell_boxes);
        return -1;
    }
    det_clean_pass scan;
    memset(&scan, 0, sizeof scan);
    scan.b = b;
    scan.t = t;
    scan.rel_margin = rel_margin;
    int *next = todo + un, ntodo = 0, moved = 0, rc = -1;
    for (int i = 0; i < n; i++)
        if (det_solid(b[i]))
            todo[ntodo++] = i;
    for (int pass = 0; pass < 64; pass++) {
        det_grid g;
        det_grid_build(&g, b, n, start, items);
        for (int k = 0; k < g.start[g.side * g.side]; k++)
            cell_boxes[k] = b[items[k]];
        scan.cell_boxes = cell_boxes;
        scan.g = &g;
        scan.todo = todo;
        scan.pass = pass;
        int nt = cl_par_for(ntodo, (double)ntodo * 400, CL_PAR_MAX, det_clean_scan, &scan), oom = 0;
        int nnext = 0;
        for (int th = 0; th < nt; th++) {
            oom |= scan.oom[th];
            for (int q = 0; q < scan.nfound[th]; q++) {
                int j = scan.found[th][q];
                if (mark[j])
                    continue;
                mark[j] = 1;
                next[nnext++] = j;
                if (b[j].x2 + 1.0f <= (float)canvas)
                    b[j].x2 += 1.0f;
                else
                    b[j].x1 += 1.0f;
                moved++;
            }
        }
        if (oom)
            break;
        if (nnext == 0) {
            rc = moved;
            break;
        }
        for (int q = 0; q < nnext; q++)
            mark[next[q]] = 0;
        int *swap = todo;
        todo = next;
        next = swap;
        ntodo = nnext;
    }
    for (int th = 0; th < CL_PAR_MAX; th++)
        free(scan.found[th]);
    free(todo < next ? todo : next);
    free(mark);
    free(cell_boxes);
    return rc;
}

/* ---- checking a keep list without running greedy NMS ----
 * A keep list is greedy NMS's exactly when it lists distinct boxes in visiting order (rank)
 * and every box j is listed if and only if no listed box ranked above j has IoU > t with
 * it: by induction over the ranks, greedy's list is the only one that meets both. The
 * second part asks one question per box, answered on every core against a grid of the
 * listed boxes, where the greedy pass is serial. */
typedef struct det_greedy_scan {
    const det_box *b;
    const int *rank;
    float t;
    det_grid g;                  /* over kb[0..k) */
    const det_box *kb;           /* the listed boxes, in list order */
    const int *krank;            /* their ranks */
    const unsigned char *listed; /* by box */
    int bad[CL_PAR_MAX];
} det_greedy_scan;

static void det_greedy_part(void *ctx, int th, long long lo, long long hi)
{
    det_greedy_scan *p = (det_greedy_scan *)ctx;
    int bad = 0;
    for (long long j = lo; j < hi && !bad; j++) {
        const det_box bj = p->b[j];
        int suppressed = 0;
        if (det_solid(bj)) {
            int rj = p->rank[j];
            int cl[DET_NEAR_MAX], ch[DET_NEAR_MAX], cells = det_grid_near(&p->g, bj, cl, ch);
            for (int c = 0; c < cells && !suppressed; c++)
                for (int q = cl[c]; q < ch[c]; q++) {
                    int i = p->g.items[q];
                    if (p->krank[i] >= rj || !det_overlap(p->kb[i], bj))
                        continue;
                    int64_t inter, uni;
                    det_inter_union(p->kb[i], bj, &inter, &uni);
                    if (det_suppresses(inter, uni, p->t)) {
                        suppressed = 1;
                        break;
                    }
                }
        }
        bad = p->listed[j] == suppressed; /* listed exactly when not suppressed */
    }
    p->bad[th] = bad;
}

/* 1 when list[0..k) is greedy NMS's keep list for boxes b[0..n), threshold t and visiting
 * order rank (det_rank's), else 0. Scratch: kb and krank of k entries, listed of n bytes,
 * start/items: grid memory as for det_grid_build. */
static inline int det_nms_is_greedy(const det_box *b, int n, float t, const int *rank, const int *list, int k,
                                    det_box *kb, int *krank, unsigned char *listed, int *start, int *items)
{
    if (k < 0 || k > n)
        return 0;
    memset(listed, 0, (size_t)n);
    for (int p = 0; p < k; p++) {
        int i = list[p];
        if (i < 0 || i >= n || listed[i] || (p > 0 && rank[i] <= krank[p - 1]))
            return 0; /* not a box, listed twice, or out of visiting order */
        listed[i] = 1;
        kb[p] = b[i];
        krank[p] = rank[i];
    }
    det_greedy_scan scan;
    memset(&scan, 0, sizeof scan);
    scan.b = b;
    scan.rank = rank;
    scan.t = t;
    scan.kb = kb;
    scan.krank = krank;
    scan.listed = listed;
    det_grid_build(&scan.g, kb, k, start, items);
    int nt = cl_par_for(n, (double)n * 100, CL_PAR_MAX, det_greedy_part, &scan);
    for (int th = 0; th < nt; th++)
        if (scan.bad[th])
            return 0;
    return 1;
}

/* ---- greedy NMS on the CPU ---- */

/* A score as a 32-bit key whose ascending order is the scores' descending order, with
 * -0.0 and +0.0 equal (a tie). */
static inline uint32_t det_desc_key(float f)
{
    if (f == 0.0f)
        f = 0.0f;
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    u = (u & 0x80000000u) ? ~u : (u | 0x80000000u); /* ascending with the float */
    return ~u;
}

/* order[r] = the box of rank r (descending score, ties by ascending index); rank[i] = the
 * rank of box i. tmp: 2n words of scratch (the keys, and a second index array). A stable
 * LSD radix sort, three 11-bit passes from index order (so equal scores stay in index
 * order): linear, where qsort's comparisons were most of a bench run's input set-up after
 * the CPU NMS. */
static inline void det_rank(const float *scores, int n, uint32_t *tmp, int *order, int *rank)
{
    uint32_t *key = tmp;
    int *other = (int *)(tmp + n), *src = order, *dst = other;
    for (int i = 0; i < n; i++) {
        key[i] = det_desc_key(scores[i]);
        order[i] = i;
    }
    for (int shift = 0; shift < 32; shift += 11) {
        int count[2049] = {0};
        for (int i = 0; i < n; i++)
            count[((key[src[i]] >> shift) & 2047u) + 1]++;
        for (int d = 0; d < 2048; d++)
            count[d + 1] += count[d];
        for (int i = 0; i < n; i++)
            dst[count[(key[src[i]] >> shift) & 2047u]++] = src[i];
        int *t = src;
        src = dst;
        dst = t;
    }
    if (src != order)
        memcpy(order, src, (size_t)n * sizeof(int));
    for (int r = 0; r < n; r++)
        rank[order[r]] = r;
}

/* Greedy NMS with threshold t >= 0 over integer-valued boxes: visits boxes by rank,
 * keeps each one no kept box suppressed, and suppresses its lower-ranked neighbours with
 * IoU > t. Writes keep[0..k) and suppressor[i] (the kept box that removed box i, or -1).
 * Returns k, or -1 when memory ran out. start/items: grid memory as for det_grid_build.
 * The neighbours' boxes and ranks are copied into grid order first, so the scan reads
 * them in order instead of gathering them from all over b and rank. */
static inline int det_nms_cpu(const det_box *b, int n, float t, const int *order,
                              const int *rank, int *suppressor, int *keep, int *start,
                              int *items)
{
    det_grid g;
    det_grid_build(&g, b, n, start, items);
    int m = g.start[g.side * g.side];
    det_box *cell_boxes = (det_box *)malloc((size_t)(m > 0 ? m : 1) * sizeof(det_box));
    int *cell_rank = (int *)malloc((size_t)(m > 0 ? m : 1) * sizeof(int));
    if (!cell_boxes || !cell_rank) {
        free(cell_boxes);
        free(cell_rank);
        return -1;
    }
    for (int q = 0; q < m; q++) {
        cell_boxes[q] = b[items[q]];
        cell_rank[q] = rank[items[q]];
    }
    for (int i = 0; i < n; i++)
        suppressor[i] = -1;
    int k = 0;
    for (int r = 0; r < n; r++) {
        int i = order[r];
        if (suppressor[i] >= 0)
            continue;
        keep[k++] = i;
        const det_box bi = b[i];
        if (!det_solid(bi))
            continue;
        int lo[DET_NEAR_MAX], hi[DET_NEAR_MAX], cells = det_grid_near(&g, bi, lo, hi);
        for (int c = 0; c < cells; c++)
            for (int q = lo[c]; q < hi[c]; q++) {
                if (cell_rank[q] <= r || !det_overlap(bi, cell_boxes[q]))
                    continue;
                int j = items[q];
                if (suppressor[j] >= 0)
                    continue;
                int64_t inter, uni;
                det_inter_union(bi, cell_boxes[q], &inter, &uni);
                if (det_suppresses(inter, uni, t))
                    suppressor[j] = i;
            }
    }
    free(cell_boxes);
    free(cell_rank);
    return k;
}

#endif
