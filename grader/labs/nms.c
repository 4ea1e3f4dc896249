/* nms.c: the checker of the nms lab (greedy non-maximum suppression, exact).
 *
 * Inputs are built on the CPU and uploaded: n boxes with integer coordinates in
 * [0, canvas] (canvas <= 2048, so every area, intersection and union is an integer below
 * 2^24 and exact in fp32) and n scores. Before upload, det_clean adjusts boxes until no
 * overlapping pair has an IoU within margin * t of the threshold t (margin: the tolerance
 * of lab.yaml, 1e-5); an IoU of exactly 0 or exactly 1 is allowed, since every
 * formulation computes those exactly. So the only rounding a solution makes, in its
 * division or in t * union, cannot flip a decision, and the keep list must be greedy's
 * exactly, order included. Each pair is decided exactly (det_suppresses). An answer is
 * tested against the greedy rule on every core (det_nms_is_greedy); the serial greedy pass
 * (det_nms_cpu) runs only for one that fails, so the report names the first difference.
 *
 * Case parameters (lab.yaml):
 *   n        boxes (0 allowed; scaled down when the O(n^2 / 8) bitmask would not fit)
 *   t        IoU threshold in [0, 1]
 *   dist     random | clusters | identical | disjoint | degenerate
 *   scores   uniform | ties (4 levels) | equal | signed (uniform in [-1, 1))
 *   canvas   coordinate range (default 2048), cluster (boxes per object, default 16),
 *            size (largest object side, default 96) */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cudalab_lab.h"
#include "det_boxes.h"
#include "grader/checker.h"

typedef struct nms_state {
    int n, canvas, cluster, size;
    float t;
    double margin; /* every overlapping pair's IoU is at least margin * t away from t */
    const char *dist, *scores_kind;
    /* device */
    float *d_boxes, *d_scores;
    int *d_keep, *d_num_kept;
    /* host: inputs and the expected answer */
    det_box *boxes;
    float *scores;
    uint32_t *tmp;     /* det_rank's scratch: 2n words */
    int *order, *rank, *suppressor, *keep, *got, *start, *items;
    int num_kept;
    int have_expected; /* keep, suppressor and num_kept are this input's (made when needed) */
    /* the check of an answer (det_nms_is_greedy's scratch) */
    det_box *kb;
    int *krank;
    unsigned char *listed;
} nms_state;

static const char *dists[] = {"random", "clusters", "identical", "disjoint", "degenerate", NULL};
static const char *score_kinds[] = {"uniform", "ties", "equal", "signed", NULL};

static int one_of(const char *v, const char **allowed)
{
    for (int i = 0; allowed[i]; i++)
        if (!strcmp(v, allowed[i]))
            return 1;
    return 0;
}

/* Device bytes of one call at size n: inputs, outputs, and the reference's scratch
 * (the n x ceil(n/64) bitmask dominates). */
static double nms_footprint(double n)
{
    double words = ceil(n / 64.0);
    return n * (16 + 4 + 4) + n * words * 8 + n * (4 + 4 + 4 + 16 + 4) + 64.0 * 1024 * 1024;
}

static int setup(cl_run *run, const cl_case *c, void *st)
{
    nms_state *s = st;
    long long n, canvas, cluster, size;
    double t;
    if (cl_param_i64(run, c, "n", &n) || cl_param_f64(run, c, "t", &t) ||
        cl_param_i64_or(run, c, "canvas", 2048, &canvas) ||
        cl_param_i64_or(run, c, "cluster", 16, &cluster) ||
        cl_param_i64_or(run, c, "size", 96, &size))
        return -1;
    s->dist = cl_param_str_or(c, "dist", "clusters");
    s->scores_kind = cl_param_str_or(c, "scores", "uniform");
    if (n < 0 || n > 2000000)
        return cl_errorf(run, "case '%s': n = %lld is outside [0, 2000000]", cl_case_name(c), n);
    if (!(t >= 0.0 && t <= 1.0))
        return cl_errorf(run, "case '%s': t = %g is outside [0, 1]", cl_case_name(c), t);
    if (canvas < 16 || canvas > 2048)
        return cl_errorf(run, "case '%s': canvas = %lld is outside [16, 2048] (areas must stay "
                         "below 2^24 to be exact in fp32)", cl_case_name(c), canvas);
    if (size < 2 || size * 2 > canvas || cluster < 1)
        return cl_errorf(run, "case '%s': need 2 <= size <= canvas / 2 and cluster >= 1",
                         cl_case_name(c));
    if (!one_of(s->dist, dists))
        return cl_errorf(run, "case '%s': unknown dist '%s' (random, clusters, identical, "
                         "disjoint, degenerate)", cl_case_name(c), s->dist);
    if (!one_of(s->scores_kind, score_kinds))
        return cl_errorf(run, "case '%s': unknown scores '%s' (uniform, ties, equal, signed)",
                         cl_case_name(c), s->scores_kind);
    const char *note = "";
    double budget = (double)cl_mem_budget(run);
    while (n > 64 && nms_footprint((double)n) > budget) {
        n /= 2;
        note = " (halved to fit this GPU's memory)";
    }
    if (!strcmp(s->dist, "disjoint")) {
        long long side = (long long)ceil(sqrt((double)(n > 0 ? n : 1)));
        if (canvas / side < 2)
            return cl_errorf(run, "case '%s': %lld disjoint boxes do not fit a %lld canvas",
                             cl_case_name(c), n, canvas);
    }
    s->n = (int)n;
    s->t = (float)t;
    s->canvas = (int)canvas;
    s->cluster = (int)cluster;
    s->size = (int)size;
    s->margin = cl_tolerance(run, "margin", 1e-5);

    size_t un = (size_t)(n > 0 ? n : 1);
    s->d_boxes = cl_alloc_in(run, un * 4 * sizeof(float), "boxes");
    s->d_scores = cl_alloc_in(run, un * sizeof(float), "scores");
    s->d_keep = cl_alloc_out(run, un * sizeof(int), "keep");
    s->d_num_kept = cl_alloc_out(run, sizeof(int), "num_kept");
    s->boxes = cl_host_alloc(run, un * sizeof(det_box));
    s->scores = cl_host_alloc(run, un * sizeof(float));
    s->tmp = cl_host_alloc(run, 2 * un * sizeof(uint32_t));
    s->order = cl_host_alloc(run, un * sizeof(int));
    s->rank = cl_host_alloc(run, un * sizeof(int));
    s->suppressor = cl_host_alloc(run, un * sizeof(int));
    s->keep = cl_host_alloc(run, un * sizeof(int));
    s->got = cl_host_alloc(run, un * sizeof(int));
    s->items = cl_host_alloc(run, un * sizeof(int));
    s->start = cl_host_alloc(run, ((size_t)DET_GRID_MAX * DET_GRID_MAX + 1) * sizeof(int));
    s->kb = cl_host_alloc(run, un * sizeof(det_box));
    s->krank = cl_host_alloc(run, un * sizeof(int));
    s->listed = cl_host_alloc(run, un);
    if (!s->d_boxes || !s->d_scores || !s->d_keep || !s->d_num_kept || !s->boxes ||
        !s->scores || !s->tmp || !s->order || !s->rank || !s->suppressor || !s->keep ||
        !s->got || !s->items || !s->start || !s->kb || !s->krank || !s->listed)
        return cl_errorf(run, "nms: out of memory for n = %d", s->n);
    cl_set_items(run, (double)n, "boxes");
    cl_set_work(run, (double)n * 20 + 4, 0);
    cl_set_shape(run, "%lld boxes, %s, scores %s, t = %g%s", n, s->dist, s->scores_kind, t, note);
    return 0;
}

/* ---- input generation (CPU, from the seed) ---- */

static double unit(uint64_t seed, uint64_t i, uint32_t k) { return cl_unit24(cl_rand64(seed, i, k)); }

/* An integer in [lo, hi]. */
static int irand(uint64_t seed, uint64_t i, uint32_t k, int lo, int hi)
{
    return lo + (int)(cl_rand64(seed, i, k) % (uint64_t)(hi - lo + 1));
}

static det_box make_box(int x1, int y1, int x2, int y2)
{
    det_box b = {(float)x1, (float)y1, (float)x2, (float)y2};
    return b;
}

static int clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

/* Detector-like output: objects of side [8, size], each seen by about `cluster` boxes that
 * jitter its edges by up to 15% of its size. */
static det_box cluster_box(const nms_state *s, uint64_t seed, int i)
{
    int objects = s->n / s->cluster > 0 ? s->n / s->cluster : 1;
    int k = (int)(cl_rand64(seed, (uint64_t)i, 0) % (uint64_t)objects);
    uint64_t os = seed ^ 0x5bd1e995ull; /* the object's own stream */
    int w = irand(os, (uint64_t)k, 0, 8, s->size), h = irand(os, (uint64_t)k, 1, 8, s->size);
    int cx = irand(os, (uint64_t)k, 2, w / 2, s->canvas - w / 2);
    int cy = irand(os, (uint64_t)k, 3, h / 2, s->canvas - h / 2);
    int jx = w * 15 / 100 + 1, jy = h * 15 / 100 + 1;
    int x1 = cx - w / 2 + irand(seed, (uint64_t)i, 1, -jx, jx);
    int y1 = cy - h / 2 + irand(seed, (uint64_t)i, 2, -jy, jy);
    int x2 = cx + w / 2 + irand(seed, (uint64_t)i, 3, -jx, jx);
    int y2 = cy + h / 2 + irand(seed, (uint64_t)i, 4, -jy, jy);
    x1 = clampi(x1, 0, s->canvas - 2);
    y1 = clampi(y1, 0, s->canvas - 2);
    x2 = clampi(x2, x1 + 1, s->canvas - 1);
    y2 = clampi(y2, y1 + 1, s->canvas - 1);
    return make_box(x1, y1, x2, y2);
}

static void gen_boxes(nms_state *s, uint64_t seed)
{
    int n = s->n;
    if (!strcmp(s->dist, "random")) {
        for (int i = 0; i < n; i++) {
            int w = irand(seed, (uint64_t)i, 0, 4, s->size), h = irand(seed, (uint64_t)i, 1, 4, s->size);
            int x1 = irand(seed, (uint64_t)i, 2, 0, s->canvas - 1 - w);
            int y1 = irand(seed, (uint64_t)i, 3, 0, s->canvas - 1 - h);
            s->boxes[i] = make_box(x1, y1, x1 + w, y1 + h);
        }
    } else if (!strcmp(s->dist, "identical")) {
        for (int i = 0; i < n; i++)
            s->boxes[i] = make_box(100, 120, 300, 250);
    } else if (!strcmp(s->dist, "disjoint")) {
        /* a grid of cells in shuffled order; half the boxes fill their cell (and touch
         * their neighbours: IoU exactly 0), the others are shrunk by one unit */
        int side = (int)ceil(sqrt((double)n)), cell = s->canvas / side;
        int *perm = s->order; /* scratch until det_rank */
        for (int i = 0; i < n; i++)
            perm[i] = i;
        for (int i = n - 1; i > 0; i--) {
            int j = (int)(cl_rand64(seed, (uint64_t)i, 5) % (uint64_t)(i + 1));
            int tmp = perm[i];
            perm[i] = perm[j];
            perm[j] = tmp;
        }
        for (int i = 0; i < n; i++) {
            int x1 = (perm[i] % side) * cell, y1 = (perm[i] / side) * cell;
            int x2 = x1 + cell, y2 = y1 + cell;
            if (cl_rand64(seed, (uint64_t)i, 6) & 1) {
                x1 += 1;
                y2 -= 1;
            }
            s->boxes[i] = make_box(x1, y1, x2, y2);
        }
    } else { /* clusters, degenerate */
        for (int i = 0; i < n; i++)
            s->boxes[i] = cluster_box(s, seed, i);
        if (!strcmp(s->dist, "degenerate"))
            for (int i = 0; i < n; i++) {
                det_box *b = &s->boxes[i];
                switch (cl_rand64(seed, (uint64_t)i, 7) % 8) {
                case 0: b->x2 = b->x1; break;               /* zero width */
                case 1: b->y2 = b->y1; break;               /* zero height */
                case 2: { float v = b->x1; b->x1 = b->x2; b->x2 = v; /* inverted on both axes */
                          v = b->y1; b->y1 = b->y2; b->y2 = v; break; }
                case 3: b->x2 = b->x1 - 1; break;           /* inverted on x */
                default: break;
                }
            }
    }
}

static void gen_scores(nms_state *s, uint64_t seed)
{
    for (int i = 0; i < s->n; i++) {
        double u = unit(seed, (uint64_t)i, 8);
        switch (s->scores_kind[0]) {
        case 't': s->scores[i] = (float)(cl_rand64(seed, (uint64_t)i, 9) % 4) * 0.25f; break;
        case 'e': s->scores[i] = 0.5f; break;
        case 's': s->scores[i] = (float)(2.0 * u - 1.0); break;
        default: s->scores[i] = (float)u; break;
        }
    }
}

static int generate(cl_run *run, void *st, uint64_t seed)
{
    nms_state *s = st;
    if (s->n == 0) {
        s->num_kept = 0;
        s->have_expected = 1;
        return 0;
    }
    gen_boxes(s, seed);
    gen_scores(s, seed ^ 0x2545F4914F6CDD1Dull);
    if (det_clean(s->boxes, s->n, s->t, s->margin, s->canvas, s->start, s->items) < 0)
        return cl_errorf(run, "nms: could not move every IoU away from t = %g (seed %llu)",
                         (double)s->t, (unsigned long long)seed);
    det_rank(s->scores, s->n, s->tmp, s->order, s->rank);
    s->have_expected = 0; /* greedy NMS on the CPU only for an answer that fails the check */
    if (cl_upload(run, s->d_boxes, s->boxes, (size_t)s->n * sizeof(det_box)) ||
        cl_upload(run, s->d_scores, s->scores, (size_t)s->n * sizeof(float)))
        return -1;
    return 0;
}


static int args(cl_run *run, void *st, cl_args *a)
{
    nms_state *s = st;
    cl_arg_ptr(run, a, s->d_boxes);
    cl_arg_ptr(run, a, s->d_scores);
    cl_arg_i32(a, s->n);
    cl_arg_f32(a, s->t);
    cl_arg_ptr(run, a, s->d_keep);
    cl_arg_ptr(run, a, s->d_num_kept);
    return 0;
}

/* ---- verification ---- */

static double iou_of(const nms_state *s, int i, int j)
{
    return (double)det_iou_f32(s->boxes[i], s->boxes[j]);
}

/* The highest IoU of box j with a kept box ranked above it (-1: none ranked above). */
static double max_iou_with_kept_above(const nms_state *s, int j, int *which)
{
    double best = -1;
    *which = -1;
    for (int k = 0; k < s->num_kept && s->rank[s->keep[k]] < s->rank[j]; k++) {
        double v = iou_of(s, s->keep[k], j);
        if (v > best) {
            best = v;
            *which = s->keep[k];
        }
    }
    return best;
}

/* Why box exp must be kept: its largest IoU with a higher-ranked kept box, in words. */
static void why_kept(const nms_state *s, int exp, char *buf, size_t cap)
{
    int which;
    double m = max_iou_with_kept_above(s, exp, &which);
    if (which < 0)
        snprintf(buf, cap, "no kept box ranks above it");
    else
        snprintf(buf, cap, "its largest IoU with a higher-ranked kept box is %.6f (box %d)%s", m,
                 which, m == (double)s->t ? ", equal to t: suppression needs IoU > t, strictly" : "");
}

/* Explains the first difference between the expected keep list and the solution's. */
static int explain(cl_run *run, const nms_state *s, int pos, int got_k)
{
    char where[64], why[192];
    snprintf(where, sizeof where, "keep[%d]", pos);
    int exp = pos < s->num_kept ? s->keep[pos] : -1;
    int got = pos < got_k ? s->got[pos] : -1;
    if (pos >= got_k) { /* the solution's list ends early */
        why_kept(s, exp, why, sizeof why);
        return cl_mismatch(run, "num_kept", s->num_kept, got_k,
                           "the first %d kept boxes are right; box %d (score %.9g) must follow "
                           "them: %s", pos, exp, (double)s->scores[exp], why);
    }
    if (got < 0 || got >= s->n)
        return cl_mismatch(run, where, exp, got, "not a box index (n = %d)%s", s->n,
                           got == -1 ? "; -1 is the poison value: never written" : "");
    for (int q = 0; q < pos; q++)
        if (s->got[q] == got)
            return cl_mismatch(run, where, exp, got, "box %d is already kept at keep[%d]", got, q);
    if (exp >= 0 && s->rank[got] > s->rank[exp] && s->scores[got] == s->scores[exp]) {
        char then[96] = "";
        if (s->suppressor[got] == exp)
            snprintf(then, sizeof then, ", and then suppresses box %d", got);
        return cl_mismatch(run, where, exp, got,
                           "boxes %d and %d have the same score (%.9g) and ties go to the lower "
                           "index: box %d is visited first%s", exp, got, (double)s->scores[exp],
                           exp, then);
    }
    if (s->suppressor[got] >= 0) {
        int sup = s->suppressor[got];
        return cl_mismatch(run, exp < 0 ? "num_kept" : where, exp < 0 ? s->num_kept : exp,
                           exp < 0 ? got_k : got,
                           "box %d (score %.9g) must be suppressed by kept box %d (score %.9g): "
                           "IoU %.6f > t = %g", got, (double)s->scores[got], sup,
                           (double)s->scores[sup], iou_of(s, sup, got), (double)s->t);
    }
    if (exp >= 0 && s->rank[got] > s->rank[exp]) {
        why_kept(s, exp, why, sizeof why);
        return cl_mismatch(run, where, exp, got, "box %d (score %.9g) is missing here: %s", exp,
                           (double)s->scores[exp], why);
    }
    /* cannot happen with a consistent expected list; say what we see */
    return cl_mismatch(run, where, exp, got,
                       "expected box %d, got box %d (score %.9g); kept boxes go in descending "
                       "score order, ties by lower index", exp, got, (double)s->scores[got]);
}

/* The first difference in words, and the greedy rule the whole list breaks with its
 * smallest counterexample (mismatch.h). */
static int explain_and_report(cl_run *run, const nms_state *s, int pos, int got_k)
{
    int rc = explain(run, s, pos, got_k);
    cl_mm_rule rule;
    cl_mismatch_nms(s->n, (const float *)s->boxes, s->scores, s->t, s->got, got_k, &rule);
    cl_report_rule(run, &rule);
    return rc;
}

/* Greedy NMS on the CPU, once per input: the expected list a report compares with. */
static int expected(cl_run *run, nms_state *s)
{
    if (s->have_expected)
        return 0;
    s->num_kept = det_nms_cpu(s->boxes, s->n, s->t, s->order, s->rank, s->suppressor, s->keep,
                              s->start, s->items);
    if (s->num_kept < 0)
        return cl_errorf(run, "nms: out of memory for the CPU reference (%d boxes)", s->n);
    s->have_expected = 1;
    return 0;
}

/* An answer is right when it is greedy NMS's list (det_nms_is_greedy, on every core); one
 * that is not is compared with the list the serial greedy pass makes, for the report. */
static int verify(cl_run *run, void *st, int full)
{
    nms_state *s = st;
    int got_k = -2;
    if (cl_download(run, &got_k, s->d_num_kept, sizeof(int)))
        return -1;
    if (s->n == 0) {
        int k0;
        if (got_k != 0)
            return cl_mismatch(run, "num_kept", 0, got_k, "n = 0: nothing to keep%s",
                               got_k == -1 ? " (-1 is the poison value: never written)" : "");
        if (cl_download(run, &k0, s->d_keep, sizeof(int)))
            return -1;
        if (k0 != -1)
            return cl_failf(run, "n = 0: keep has room for no element, but keep[0] was written (%d)", k0);
        return 0;
    }
    if (got_k < 0 || got_k > s->n)
        return expected(run, s) ? -1
                                : cl_mismatch(run, "num_kept", s->num_kept, got_k, "must be in [0, n = %d]%s", s->n,
                                              got_k == -1 ? " (-1 is the poison value: never written)" : "");
    if (got_k > 0 && cl_download(run, s->got, s->d_keep, (size_t)got_k * sizeof(int)))
        return -1;
    if (det_nms_is_greedy(s->boxes, s->n, s->t, s->rank, s->got, got_k, s->kb, s->krank, s->listed, s->start,
                          s->items))
        return 0;
    if (expected(run, s))
        return -1;
    int common = got_k < s->num_kept ? got_k : s->num_kept;
    for (int p = 0; p < common; p++)
        if (s->got[p] != s->keep[p])
            return explain_and_report(run, s, p, got_k);
    if (got_k != s->num_kept)
        return explain_and_report(run, s, common, got_k);
    (void)full; /* the answer is exact and cheap to compare: full and quick checks agree */
    return 0;
}

const cl_checker cl_checker_nms = {"nms", sizeof(nms_state), setup, generate, args, verify, NULL};
