/* iou.c: the checker of the iou lab (pairwise IoU of two box sets, m x n output).
 *
 * Inputs are built on the CPU and uploaded (m + n boxes are small next to the m x n
 * output). The CPU reference is det_iou_f32, the fp32 formula the README defines; a
 * solution may round differently (FMA contraction, reciprocal-multiply, __fdividef), so
 * values are compared with the relative tolerance `rel` of lab.yaml. An expected 0 must
 * be exactly 0: the sign of every subtraction is exact in floating point, so a clamped
 * overlap is 0 in any formulation.
 *
 * Case parameters (lab.yaml): m, n (>= 1; the output is scaled down by halving m when it
 * would not fit), dist: mixed | zero_area | touching | nested | identical | disjoint. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cudalab_lab.h"
#include "det_boxes.h"
#include "grader/checker.h"

#define IOU_CHUNK_BYTES (32u << 20) /* host buffer for downloading rows */
#define IOU_SAMPLE_ROWS 3
#define IOU_SAMPLE_ELEMS 256

typedef struct iou_state {
    int m, n;
    const char *dist;
    double rel;
    float *d_a, *d_b, *d_out;
    det_box *a, *b;
    float *rows; /* download buffer: rows_cap rows */
    int rows_cap;
    uint64_t seed;
    cl_mm_acc *mm; /* this verify's report (cl_report_elements) */
} iou_state;

static const char *dists[] = {"mixed", "zero_area", "touching", "nested", "identical", "disjoint", NULL};

static int setup(cl_run *run, const cl_case *c, void *st)
{
    iou_state *s = st;
    long long m, n;
    if (cl_param_i64(run, c, "m", &m) || cl_param_i64(run, c, "n", &n))
        return -1;
    s->dist = cl_param_str_or(c, "dist", "mixed");
    int known = 0;
    for (int i = 0; dists[i]; i++)
        known |= !strcmp(s->dist, dists[i]);
    if (!known)
        return cl_errorf(run, "case '%s': unknown dist '%s' (mixed, zero_area, touching, nested, "
                         "identical, disjoint)", cl_case_name(c), s->dist);
    if (m < 1 || n < 1 || m > 1000000000LL || n > 1000000000LL)
        return cl_errorf(run, "case '%s': m and n must be in [1, 1e9]", cl_case_name(c));
    if (!strcmp(s->dist, "identical") && m != n)
        return cl_errorf(run, "case '%s': dist identical needs m == n", cl_case_name(c));
    const char *note = "";
    double budget = (double)cl_mem_budget(run);
    while (m > 1 && (double)m * (double)n * 4 + (double)(m + n) * 16 > budget) {
        m /= 2;
        note = " (m halved to fit this GPU's memory)";
        if (!strcmp(s->dist, "identical"))
            n = m;
    }
    s->m = (int)m;
    s->n = (int)n;
    s->rel = cl_tolerance(run, "rel", 4e-6);
    s->d_a = cl_alloc_in(run, (size_t)m * 16, "a");
    s->d_b = cl_alloc_in(run, (size_t)n * 16, "b");
    s->d_out = cl_alloc_out(run, (size_t)m * (size_t)n * 4, "out");
    s->a = cl_host_alloc(run, (size_t)m * sizeof(det_box));
    s->b = cl_host_alloc(run, (size_t)n * sizeof(det_box));
    size_t cap = IOU_CHUNK_BYTES / ((size_t)n * 4);
    s->rows_cap = cap < 1 ? 1 : (cap > (size_t)m ? (int)m : (int)cap);
    s->rows = cl_host_alloc(run, (size_t)s->rows_cap * (size_t)n * 4);
    if (!s->d_a || !s->d_b || !s->d_out || !s->a || !s->b || !s->rows)
        return cl_errorf(run, "iou: out of memory for %lld x %lld", m, n);
    double out_bytes = (double)m * (double)n * 4;
    cl_set_work(run, out_bytes + (double)(m + n) * 16, (double)m * (double)n * 12);
    cl_set_shape(run, "%lld x %lld, %s, output %.0f MB%s", m, n, s->dist, out_bytes / 1e6, note);
    return 0;
}

/* ---- input generation ---- */

#define CANVAS 256.0 /* centres in [-CANVAS, CANVAS), sides in [1, 128): plenty of overlap */

static double unit(uint64_t seed, uint64_t i, uint32_t k) { return cl_unit24(cl_rand64(seed, i, k)); }

static det_box random_box(uint64_t seed, uint64_t i)
{
    double cx = (2 * unit(seed, i, 0) - 1) * CANVAS, cy = (2 * unit(seed, i, 1) - 1) * CANVAS;
    double w = 1 + 127 * unit(seed, i, 2), h = 1 + 127 * unit(seed, i, 3);
    det_box b = {(float)(cx - w / 2), (float)(cy - h / 2), (float)(cx + w / 2), (float)(cy + h / 2)};
    return b;
}

static det_box degenerate_box(uint64_t seed, uint64_t i, int kind)
{
    det_box b = random_box(seed, i);
    switch (kind % 3) {
    case 0: b.x2 = b.x1; break;                             /* zero width */
    case 1: b.y2 = b.y1; break;                             /* zero height */
    default: { float v = b.x1; b.x1 = b.x2; b.x2 = v; }     /* inverted */
    }
    return b;
}

/* A box of set b built from box p of set a: a copy, nested inside it, or touching it. */
static det_box related_box(det_box p, uint64_t seed, uint64_t i, int kind)
{
    det_box b = p;
    float w = p.x2 - p.x1, h = p.y2 - p.y1;
    double u = unit(seed, i, 5), v = unit(seed, i, 6);
    switch (kind) {
    case 0: break; /* identical: IoU exactly 1 */
    case 1:        /* nested: IoU = area_b / area_a */
        b.x1 = p.x1 + (float)(0.25 * u) * w;
        b.y1 = p.y1 + (float)(0.25 * v) * h;
        b.x2 = p.x2 - (float)(0.25 * v) * w;
        b.y2 = p.y2 - (float)(0.25 * u) * h;
        break;
    case 2: /* shares p's right edge: IoU exactly 0 */
        b.x1 = p.x2;
        b.x2 = p.x2 + 1 + (float)(50 * u);
        break;
    default: /* shares p's top-left corner point only */
        b.x2 = p.x1;
        b.y2 = p.y1;
        b.x1 = p.x1 - 1 - (float)(50 * u);
        b.y1 = p.y1 - 1 - (float)(50 * v);
        break;
    }
    return b;
}

static int generate(cl_run *run, void *st, uint64_t seed)
{
    iou_state *s = st;
    uint64_t sa = seed, sb = seed ^ 0x9E3779B97F4A7C15ull;
    s->seed = seed;
    for (int i = 0; i < s->m; i++) {
        uint64_t r = cl_rand64(sa, (uint64_t)i, 7);
        int kind = (int)(r % 16);
        if (!strcmp(s->dist, "zero_area"))
            s->a[i] = degenerate_box(sa, (uint64_t)i, kind);
        else if (!strcmp(s->dist, "disjoint")) {
            s->a[i] = random_box(sa, (uint64_t)i);
            s->a[i].x1 -= 2 * (float)CANVAS; /* every a box lies left of x = -CANVAS + 64 */
            s->a[i].x2 -= 2 * (float)CANVAS;
        } else if (!strcmp(s->dist, "mixed") && kind < 2)
            s->a[i] = degenerate_box(sa, (uint64_t)i, kind);
        else
            s->a[i] = random_box(sa, (uint64_t)i);
    }
    for (int j = 0; j < s->n; j++) {
        uint64_t r = cl_rand64(sb, (uint64_t)j, 7);
        int kind = (int)(r % 16);
        det_box p = s->a[(r >> 8) % (uint64_t)s->m];
        if (!strcmp(s->dist, "identical"))
            s->b[j] = s->a[j];
        else if (!strcmp(s->dist, "zero_area"))
            s->b[j] = degenerate_box(sb, (uint64_t)j, kind);
        else if (!strcmp(s->dist, "touching"))
            s->b[j] = related_box(p, sb, (uint64_t)j, 2 + (kind & 1));
        else if (!strcmp(s->dist, "nested"))
            s->b[j] = related_box(p, sb, (uint64_t)j, 1);
        else if (!strcmp(s->dist, "disjoint")) {
            s->b[j] = random_box(sb, (uint64_t)j);
            s->b[j].x1 += 2 * (float)CANVAS; /* every b box lies right of x = CANVAS - 64 */
            s->b[j].x2 += 2 * (float)CANVAS;
        } else if (kind < 3)
            s->b[j] = degenerate_box(sb, (uint64_t)j, kind);
        else if (kind < 7)
            s->b[j] = related_box(p, sb, (uint64_t)j, kind - 3);
        else
            s->b[j] = random_box(sb, (uint64_t)j);
    }
    if (cl_upload(run, s->d_a, s->a, (size_t)s->m * 16) ||
        cl_upload(run, s->d_b, s->b, (size_t)s->n * 16))
        return -1;
    return 0;
}


static int args(cl_run *run, void *st, cl_args *a)
{
    iou_state *s = st;
    cl_arg_ptr(run, a, s->d_a);
    cl_arg_i32(a, s->m);
    cl_arg_ptr(run, a, s->d_b);
    cl_arg_i32(a, s->n);
    cl_arg_ptr(run, a, s->d_out);
    return 0;
}

/* ---- verification ---- */

/* The lab's rule for one element: an IoU of exactly 0 must be 0; else within rel. */
static int iou_ok(const iou_state *s, float exp, float got)
{
    return exp == 0.0f ? got == 0.0f : cl_close(got, exp, 0.0, s->rel);
}

static int check_one(cl_run *run, const iou_state *s, int i, int j, float got)
{
    float exp = det_iou_f32(s->a[i], s->b[j]);
    int ok = iou_ok(s, exp, got);
    cl_mm_add(s->mm, (long long)i * s->n + j, exp, got, ok);
    if (ok)
        return 0;
    if (cl_run_failed(run))
        return 1; /* the message is the first wrong element's; the report counts the rest */
    char where[64];
    snprintf(where, sizeof where, "out[%d][%d]", i, j);
    const det_box *a = &s->a[i], *b = &s->b[j];
    const char *why = "";
    float ow, oh;
    det_overlap_f32(*a, *b, &ow, &oh);
    if (isnan(got))
        why = " (NaN: never written, or 0/0 when both areas are zero)";
    else if (exp == 0.0f && (ow < 0.0f || oh < 0.0f)) /* apart: the likelier bug, even for two flat boxes */
        why = " (the boxes do not overlap: a negative width or height must clamp to 0)";
    else if (exp == 0.0f && !det_solid(*a) && !det_solid(*b))
        why = " (both boxes have zero area: the union is 0 and IoU is defined as 0)";
    else if (exp == 0.0f)
        why = " (the overlap has zero area: IoU is 0)";
    return cl_mismatch(run, where, exp, got,
                       "a[%d] = (%.9g, %.9g, %.9g, %.9g), b[%d] = (%.9g, %.9g, %.9g, %.9g)%s; "
                       "tolerance %.1e relative",
                       i, (double)a->x1, (double)a->y1, (double)a->x2, (double)a->y2, j,
                       (double)b->x1, (double)b->y1, (double)b->x2, (double)b->y2, why, s->rel);
}

/* Row r of a, downloaded as row i of the block, with no report: 1 at the first wrong
 * element (cl_par_rows_pass). */
static int row_fails(const void *ctx, long long r, long long i, void *scratch)
{
    (void)scratch;
    const iou_state *s = ctx;
    const float *got = s->rows + (size_t)i * (size_t)s->n;
    for (int j = 0; j < s->n; j++)
        if (!iou_ok(s, det_iou_f32(s->a[r], s->b[j]), got[j]))
            return 1;
    return 0;
}

/* Downloads rows [r0, r0 + count) and checks every element: first on every core, then,
 * only where something is wrong, once more element by element for the report. */
static int check_rows(cl_run *run, iou_state *s, int r0, int count)
{
    size_t n = (size_t)s->n;
    if (cl_download(run, s->rows, s->d_out + (size_t)r0 * n, (size_t)count * n * 4))
        return -1;
    if (cl_par_rows_pass(s, r0, count, (double)count * (double)n * 8, 0, row_fails)) {
        cl_mm_add_passed(s->mm, (long long)r0 * s->n, (long long)count * s->n);
        return 0;
    }
    int bad = 0;
    for (int r = 0; r < count; r++)
        for (int j = 0; j < s->n; j++)
            bad |= check_one(run, s, r0 + r, j, s->rows[(size_t)r * n + (size_t)j]);
    return bad;
}

static int verify(cl_run *run, void *st, int full)
{
    iou_state *s = st;
    cl_mm_shape shape = {"out", 2, {s->m, s->n}, {"box a", "box b"}};
    cl_mm_tol tol = {0, s->rel, NULL};
    s->mm = cl_report_elements(run, &shape, &tol);
    if (full) {
        int bad = 0;
        for (int r0 = 0; r0 < s->m; r0 += s->rows_cap) {
            int count = s->m - r0 < s->rows_cap ? s->m - r0 : s->rows_cap;
            int rc = check_rows(run, s, r0, count);
            if (rc < 0)
                return rc;
            bad |= rc;
        }
        return bad;
    }
    /* quick: the first and last rows, a few random rows, a few random elements */
    int bad = check_rows(run, s, 0, 1);
    if (!bad && s->m > 1)
        bad = check_rows(run, s, s->m - 1, 1);
    for (int k = 0; !bad && k < IOU_SAMPLE_ROWS; k++)
        bad = check_rows(run, s, (int)cl_sample_index(cl_check_seed(run), (uint64_t)k, (uint64_t)s->m), 1);
    for (int k = 0; !bad && k < IOU_SAMPLE_ELEMS; k++) {
        uint64_t e = cl_sample_index(cl_check_seed(run) ^ 1, (uint64_t)k, (uint64_t)s->m * (uint64_t)s->n);
        float got;
        if (cl_download(run, &got, s->d_out + e, 4))
            return -1;
        bad = check_one(run, s, (int)(e / (uint64_t)s->n), (int)(e % (uint64_t)s->n), got);
    }
    return bad;
}

const cl_checker cl_checker_iou = {"iou", sizeof(iou_state), setup, generate, args, verify, NULL};
