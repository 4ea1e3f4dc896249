/* mismatch_rules.c: answers with more than one right form (topo_sort, nms): the rule the
 * answer breaks, and the smallest counterexample. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grader/mismatch.h"
#include "i18n.h"

void cl_mm_rule_free(cl_mm_rule *r)
{
    json_decref(r->example);
    r->example = NULL;
}

json_t *cl_mm_rule_json(const cl_mm_rule *r)
{
    json_t *o = json_pack("{s:s, s:b, s:s, s:s}", "kind", "rule", "broken", r->broken, "rule", r->rule, "text", r->text);
    cl_mm_set_format(o, r->fmt, r->args);
    if (r->example)
        json_object_set(o, "example", r->example);
    return o;
}

static int broken(cl_mm_rule *r, const char *rule, json_t *example, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int broken(cl_mm_rule *r, const char *rule, json_t *example, const char *fmt, ...)
{
    r->broken = 1;
    snprintf(r->rule, sizeof r->rule, "%s", rule);
    r->fmt = fmt;
    va_list ap;
    va_start(ap, fmt);
    cl_mm_vformat(r->text, sizeof r->text, r->args, sizeof r->args, fmt, ap);
    va_end(ap);
    r->example = example;
    return 1;
}

/* ---- topo_sort ---- */

int cl_mismatch_topo(int n, const int *row_ptr, const int *col, int has_cycle, const int *order, int status,
                     cl_mm_rule *r)
{
    memset(r, 0, sizeof *r);
    if (has_cycle && status != 1)
        return broken(r, CL_N("cycle not reported"), json_pack("{s:i}", "status", status),
                      CL_N("the graph has a cycle, but status is %d, not 1: a node whose in-degree never reaches 0 means a "
                      "cycle (fewer than n nodes were output)"), status);
    if (!has_cycle && status == 1)
        return broken(r, CL_N("cycle reported"), json_pack("{s:i}", "status", status),
                      CL_N("status is 1 (cycle) but the graph is acyclic: count every node that reaches in-degree 0, "
                      "including those of disconnected parts"));
    if (has_cycle)
        return 0;
    int *pos = malloc((size_t)(n > 0 ? n : 1) * sizeof *pos);
    for (int v = 0; v < n; v++) pos[v] = -1;
    /* a permutation of 0..n-1: the first out-of-range or repeated entry */
    for (int i = 0; i < n; i++) {
        int v = order[i];
        if (v < 0 || v >= n) {
            free(pos);
            return broken(r, CL_N("permutation"), json_pack("{s:i, s:i}", "position", i, "value", v),
                          CL_N("order[%d] = %d is not a node (0..%d): the order must list every node exactly once"), i, v,
                          n - 1);
        }
        if (pos[v] >= 0) {
            int first = pos[v];
            free(pos);
            return broken(r, CL_N("permutation"), json_pack("{s:i, s:[i,i]}", "node", v, "positions", first, i),
                          CL_N("node %d appears twice (order[%d] and order[%d]), so another node is missing"), v, first, i);
        }
        pos[v] = i;
    }
    /* every edge u -> v with u before v: the violated edge with the smallest u, then v */
    int bu = -1, bv = -1;
    for (int u = 0; u < n && bu < 0; u++)
        for (int e = row_ptr[u]; e < row_ptr[u + 1]; e++) {
            int v = col[e];
            if (v >= 0 && v < n && pos[v] < pos[u] && (bv < 0 || v < bv)) {
                bu = u;
                bv = v;
            }
        }
    int rc = 0;
    if (bu >= 0)
        rc = broken(r, CL_N("edge order"),
                    json_pack("{s:[i,i], s:{s:i, s:i}}", "edge", bu, bv, "positions", "u", pos[bu], "v", pos[bv]),
                    CL_N("edge %d -> %d, but %d comes at position %d and %d only at %d: a node may be output only after "
                    "all its predecessors (smallest counterexample: the two nodes %d and %d with that edge)"),
                    bu, bv, bv, pos[bv], bu, pos[bu], bu, bv);
    free(pos);
    return rc;
}

/* ---- nms ---- */

static double iou(const float *a, const float *b)
{
    double ix = fmin(a[2], b[2]) - fmax(a[0], b[0]), iy = fmin(a[3], b[3]) - fmax(a[1], b[1]);
    double inter = ix > 0 && iy > 0 ? ix * iy : 0;
    double area_a = fmax(0.0, (double)a[2] - a[0]) * fmax(0.0, (double)a[3] - a[1]);
    double area_b = fmax(0.0, (double)b[2] - b[0]) * fmax(0.0, (double)b[3] - b[1]);
    double uni = area_a + area_b - inter;
    return uni > 0 ? inter / uni : 0;
}

static int before(const float *scores, int i, int j) /* i ranks before j */
{
    return scores[i] > scores[j] || (scores[i] == scores[j] && i < j);
}

static json_t *box_json(const float *boxes, const float *scores, int i)
{
    const float *b = boxes + 4 * (size_t)i;
    return json_pack("{s:i, s:[f,f,f,f], s:f}", "index", i, "box", b[0], b[1], b[2], b[3], "score", scores[i]);
}

int cl_mismatch_nms(int n, const float *boxes, const float *scores, float thr, const int *keep, int num_kept,
                    cl_mm_rule *r)
{
    memset(r, 0, sizeof *r);
    char *kept = calloc((size_t)(n > 0 ? n : 1), 1);
    int rc = 0;
    for (int k = 0; k < num_kept && !rc; k++) {
        int i = keep[k];
        if (i < 0 || i >= n)
            rc = broken(r, CL_N("index"), json_pack("{s:i, s:i}", "position", k, "value", i),
                        CL_N("keep[%d] = %d is not a box index (0..%d)"), k, i, n - 1);
        else if (kept[i])
            rc = broken(r, CL_N("index"), json_pack("{s:i}", "box", i), CL_N("box %d is kept twice"), i);
        else if (k > 0 && !before(scores, keep[k - 1], i))
            rc = broken(r, CL_N("order"), json_array(), CL_N("keep[%d] = %d (score %.6g) comes after keep[%d] = %d (score %.6g): kept "
                        "boxes go by descending score, ties by lower index"), k, i, scores[i], k - 1, keep[k - 1],
                        scores[keep[k - 1]]);
        else
            kept[i] = 1;
    }
    /* kept but suppressed: a kept box overlapping a higher-ranked kept box above the threshold */
    for (int k = 0; k < num_kept && !rc; k++)
        for (int l = 0; l < k && !rc; l++) {
            double v = iou(boxes + 4 * (size_t)keep[l], boxes + 4 * (size_t)keep[k]);
            if (v > thr)
                rc = broken(r, CL_N("kept a suppressed box"),
                            json_pack("{s:o, s:o, s:f, s:f}", "kept_first", box_json(boxes, scores, keep[l]), "kept_later",
                                      box_json(boxes, scores, keep[k]), "iou", v, "threshold", thr),
                            CL_N("box %d was kept though kept box %d (higher score) overlaps it with IoU %.4f > %.4g"), keep[k],
                            keep[l], v, thr);
        }
    /* dropped but not suppressed: the highest-ranked such box is the smallest counterexample */
    if (!rc) {
        int best = -1;
        for (int j = 0; j < n; j++) {
            if (kept[j]) continue;
            int suppressed = 0;
            for (int k = 0; k < num_kept && !suppressed; k++)
                suppressed = before(scores, keep[k], j) && iou(boxes + 4 * (size_t)keep[k], boxes + 4 * (size_t)j) > thr;
            if (!suppressed && (best < 0 || before(scores, j, best)))
                best = j;
        }
        if (best >= 0) {
            /* its closest higher-ranked kept box, for the picture */
            int near = -1;
            double nv = -1;
            for (int k = 0; k < num_kept; k++) {
                double v = iou(boxes + 4 * (size_t)keep[k], boxes + 4 * (size_t)best);
                if (before(scores, keep[k], best) && v > nv) { nv = v; near = keep[k]; }
            }
            json_t *ex = json_pack("{s:o, s:f}", "dropped", box_json(boxes, scores, best), "threshold", thr);
            if (near >= 0) {
                json_object_set_new(ex, "nearest_kept", box_json(boxes, scores, near));
                json_object_set_new(ex, "iou", json_real(nv));
                rc = broken(r, CL_N("dropped a box"), ex,
                            CL_N("box %d (score %.6g) was dropped, but no higher-scoring kept box overlaps it above %.4g "
                            "(the closest, box %d, has IoU %.4f): only a kept box suppresses"), best, scores[best], thr,
                            near, nv);
            } else {
                rc = broken(r, CL_N("dropped a box"), ex,
                            CL_N("box %d (score %.6g) was dropped, but no higher-scoring box was kept at all"), best,
                            scores[best]);
            }
        }
    }
    free(kept);
    return rc;
}
