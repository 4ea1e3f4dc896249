/* test_det.c: CPU tests of the iou and nms labs' checkers and of their exactness argument.
 *
 * - The canonical fp32 IoU on the special cases the READMEs promise (identical = 1,
 *   touching = 0, zero-area pairs = 0, not NaN).
 * - The nms premise: after det_clean, the exact integer decision (inter > t * union) agrees
 *   with the fp32 formula computed three ways (IEEE division, reciprocal-multiply,
 *   inter > t * union in fp32), and grid-based det_nms_cpu equals brute-force greedy NMS.
 * - The real checkers (grader/labs/iou.c, nms.c) driven through a minimal host backend of
 *   checker.h (device memory = host memory, poisoned like the engine does) against CPU
 *   "solutions": correct ones pass every case; planted bugs (no clamp, 0/0, >=, reversed
 *   ties, a skipped tail) are reported as wrong, with a useful message. A C port of the
 *   reference's bitmask + 64-box chunked scan must pass too, which checks the algorithm
 *   of reference/nms.cu away from the GPU. */
#include <check.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudalab_lab.h"
#include "det_boxes.h"
#include "grader/checker.h"

extern const cl_checker cl_checker_iou, cl_checker_nms;

/* ------------------------------------------------------------ a minimal host backend */

#define MAX_PARAMS 12
#define MAX_BUFS 64

struct cl_case {
    const char *name;
    const char *keys[MAX_PARAMS];
    const char *values[MAX_PARAMS];
};

struct cl_run {
    void *bufs[MAX_BUFS];
    size_t out_bytes[MAX_BUFS]; /* > 0: an output buffer, poisoned before each launch */
    int nbufs;
    char msg[2048];
    int failed;
    size_t budget;
};

const char *cl_case_name(const cl_case *c) { return c->name; }
int cl_case_is_bench(const cl_case *c) { return 0; }
uint64_t cl_case_seed(const cl_case *c)
{
    uint64_t h = 1469598103934665603ull;
    for (const char *p = c->name; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
    return cl_mix64(h);
}

static const char *param(const cl_case *c, const char *key)
{
    for (int i = 0; i < MAX_PARAMS && c->keys[i]; i++)
        if (!strcmp(c->keys[i], key))
            return c->values[i];
    return NULL;
}

int cl_param_has(const cl_case *c, const char *key) { return param(c, key) != NULL; }
int cl_param_f64_or(cl_run *run, const cl_case *c, const char *key, double dflt, double *out)
{
    const char *v = param(c, key);
    *out = v ? strtod(v, NULL) : dflt;
    return 0;
}
int cl_param_f64(cl_run *run, const cl_case *c, const char *key, double *out)
{
    if (!param(c, key))
        return cl_errorf(run, "missing %s", key);
    return cl_param_f64_or(run, c, key, 0, out);
}
int cl_param_i64_or(cl_run *run, const cl_case *c, const char *key, long long dflt, long long *out)
{
    const char *v = param(c, key);
    *out = v ? strtoll(v, NULL, 10) : dflt;
    return 0;
}
int cl_param_i64(cl_run *run, const cl_case *c, const char *key, long long *out)
{
    if (!param(c, key))
        return cl_errorf(run, "missing %s", key);
    return cl_param_i64_or(run, c, key, 0, out);
}
const char *cl_param_str_or(const cl_case *c, const char *key, const char *dflt)
{
    const char *v = param(c, key);
    return v ? v : dflt;
}
double cl_tolerance(cl_run *run, const char *key, double dflt) { return dflt; }
size_t cl_mem_budget(cl_run *run) { return run->budget; }

static void *track(cl_run *run, void *p, size_t out_bytes)
{
    if (p && run->nbufs < MAX_BUFS) {
        run->out_bytes[run->nbufs] = out_bytes;
        run->bufs[run->nbufs++] = p;
    }
    return p;
}
void *cl_alloc_in(cl_run *run, size_t bytes, const char *name) { return track(run, calloc(1, bytes), 0); }
void *cl_alloc_out(cl_run *run, size_t bytes, const char *name) { return track(run, calloc(1, bytes), bytes); }
void *cl_alloc_dev(cl_run *run, size_t bytes) { return track(run, calloc(1, bytes), 0); }
void *cl_host_alloc(cl_run *run, size_t bytes) { return track(run, calloc(1, bytes ? bytes : 1), 0); }
int cl_upload(cl_run *run, void *dev, const void *host, size_t bytes) { memcpy(dev, host, bytes); return 0; }
int cl_download(cl_run *run, void *host, const void *dev, size_t bytes) { memcpy(host, dev, bytes); return 0; }
int cl_fill(cl_run *run, void *dev, size_t count, cl_dtype t, const cl_gen *g) { return -1; }
void cl_set_work(cl_run *run, double bytes, double flops) {}
void cl_set_items(cl_run *run, double items, const char *unit) {}
void cl_set_shape(cl_run *run, const char *fmt, ...) {}

int cl_mismatch(cl_run *run, const char *where, double expected, double got, const char *fmt, ...)
{
    if (!run->msg[0]) {
        int k = snprintf(run->msg, sizeof run->msg, "%s: expected %.9g, got %.9g: ", where, expected, got);
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(run->msg + k, sizeof run->msg - (size_t)k, fmt, ap);
        va_end(ap);
    }
    run->failed = 1;
    return 1;
}
int cl_failf(cl_run *run, const char *fmt, ...)
{
    if (!run->msg[0]) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(run->msg, sizeof run->msg, fmt, ap);
        va_end(ap);
    }
    run->failed = 1;
    return 1;
}
int cl_errorf(cl_run *run, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(run->msg, sizeof run->msg, fmt, ap);
    va_end(ap);
    return -1;
}
int cl_close(double got, double expected, double abs_tol, double rel_tol)
{
    if (isnan(got) || isnan(expected))
        return 0;
    return fabs(got - expected) <= abs_tol + rel_tol * fabs(expected);
}
uint64_t cl_sample_index(uint64_t seed, uint64_t k, uint64_t n) { return cl_rand64(seed, k, 0) % n; }

void *cudalab_scratch(size_t bytes)
{
    static void *p;
    static size_t have;
    if (bytes > have) {
        free(p);
        p = malloc(bytes);
        have = p ? bytes : 0;
    }
    return p;
}

/* Runs one case the way the engine does (setup, generate, poison, launch, verify).
 * Returns the verify result (0 pass, 1 wrong, -1 error); the message is in run->msg. */
static int run_case(const cl_checker *ck, const cl_case *c, const void *entry, cl_run *run)
{
    memset(run, 0, sizeof *run);
    run->budget = (size_t)8 << 30;
    void *st = calloc(1, ck->state_size);
    int rc = ck->setup(run, c, st);
    if (!rc)
        rc = ck->generate(run, st, cl_case_seed(c));
    if (!rc) {
        /* poison every output like the engine: 0xFF bytes (NaN as fp32, -1 as int32) */
        for (int i = 0; i < run->nbufs; i++)
            if (run->out_bytes[i])
                memset(run->bufs[i], 0xFF, run->out_bytes[i]);
        ck->launch(st, entry, NULL);
        rc = ck->verify(run, st, 1);
    }
    for (int i = 0; i < run->nbufs; i++)
        free(run->bufs[i]);
    free(st);
    return rc;
}

/* ------------------------------------------------------------ CPU solutions: iou */

static int iou_variant; /* 0 correct, 1 no clamp, 2 no 0/0 guard, 3 skips the last column */

static void cpu_box_iou(const float *a, int m, const float *b, int n, float *out, cudalab_stream s)
{
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            const float *p = a + 4 * i, *q = b + 4 * j;
            float aa = fmaxf(p[2] - p[0], 0) * fmaxf(p[3] - p[1], 0);
            float ab = fmaxf(q[2] - q[0], 0) * fmaxf(q[3] - q[1], 0);
            float iw = fminf(p[2], q[2]) - fmaxf(p[0], q[0]);
            float ih = fminf(p[3], q[3]) - fmaxf(p[1], q[1]);
            if (iou_variant != 1) {
                iw = fmaxf(iw, 0);
                ih = fmaxf(ih, 0);
            }
            float inter = iw * ih, uni = aa + ab - inter;
            float v = (iou_variant == 2 || uni > 0) ? inter * (1.0f / uni) : 0.0f;
            if (iou_variant == 3 && j == n - 1 && n % 4)
                continue;
            out[(size_t)i * n + j] = v;
        }
}

/* ------------------------------------------------------------ CPU solutions: nms */

static int nms_variant; /* 0 correct, 1 uses >=, 2 ties by higher index */

static float iou4(const float *p, const float *q)
{
    det_box a = {p[0], p[1], p[2], p[3]}, b = {q[0], q[1], q[2], q[3]};
    return det_iou_f32(a, b);
}

static const float *g_scores;
static int cmp_rank(const void *x, const void *y)
{
    int i = *(const int *)x, j = *(const int *)y;
    if (g_scores[i] != g_scores[j])
        return g_scores[i] > g_scores[j] ? -1 : 1;
    return nms_variant == 2 ? (j > i) - (j < i) : (i > j) - (i < j);
}

static void cpu_nms(const float *boxes, const float *scores, int n, float t, int *keep,
                    int *num_kept, cudalab_stream s)
{
    int *order = malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
    char *dead = calloc((size_t)(n > 0 ? n : 1), 1);
    for (int i = 0; i < n; i++)
        order[i] = i;
    g_scores = scores;
    qsort(order, (size_t)n, sizeof(int), cmp_rank);
    int k = 0;
    for (int r = 0; r < n; r++) {
        int i = order[r];
        if (dead[r])
            continue;
        keep[k++] = i;
        for (int q = r + 1; q < n; q++) {
            float v = iou4(boxes + 4 * i, boxes + 4 * order[q]);
            if (nms_variant == 1 ? v >= t : v > t)
                dead[q] = 1;
        }
    }
    *num_kept = k;
    free(order);
    free(dead);
}

/* The reference's algorithm in C: bitmask over sorted boxes (upper triangle), then the
 * chunked scan: resolve 64 boxes with the diagonal word (visiting only survivors), OR
 * the kept rows into the removed words to the right. */
static void cpu_nms_bitmask(const float *boxes, const float *scores, int n, float t, int *keep,
                            int *num_kept, cudalab_stream s)
{
    if (n == 0) {
        *num_kept = 0;
        return;
    }
    int words = (n + 63) / 64;
    int *order = malloc((size_t)n * sizeof(int));
    uint64_t *mask = calloc((size_t)n * words, 8), *removed = calloc((size_t)words, 8);
    for (int i = 0; i < n; i++)
        order[i] = i;
    g_scores = scores;
    nms_variant = 0;
    qsort(order, (size_t)n, sizeof(int), cmp_rank);
    for (int r = 0; r < n; r++)
        for (int c = r + 1; c < n; c++)
            if (iou4(boxes + 4 * order[r], boxes + 4 * order[c]) > t)
                mask[(size_t)r * words + c / 64] |= 1ull << (c % 64);
    int total = 0;
    for (int c = 0; c < words; c++) {
        int rows = n - 64 * c < 64 ? n - 64 * c : 64;
        uint64_t valid = rows == 64 ? ~0ull : ((1ull << rows) - 1);
        uint64_t dead = removed[c], alive = valid & ~dead, kept = 0;
        while (alive) {
            int k = __builtin_ctzll(alive);
            kept |= 1ull << k;
            dead |= mask[(size_t)(64 * c + k) * words + c];
            alive = valid & ~dead & ~((2ull << k) - 1);
        }
        for (int k = 0; k < 64; k++)
            if ((kept >> k) & 1) {
                keep[total++] = order[64 * c + k];
                for (int w = c + 1; w < words; w++)
                    removed[w] |= mask[(size_t)(64 * c + k) * words + w];
            }
    }
    *num_kept = total;
    free(order);
    free(mask);
    free(removed);
}

/* ------------------------------------------------------------ tests: geometry */

START_TEST(test_iou_special_cases)
{
    det_box a = {1.5f, 2.25f, 10.75f, 7.0f};
    ck_assert(det_iou_f32(a, a) == 1.0f);
    det_box touch = {10.75f, 2.25f, 20.0f, 7.0f}, corner = {10.75f, 7.0f, 12.0f, 9.0f};
    ck_assert(det_iou_f32(a, touch) == 0.0f);
    ck_assert(det_iou_f32(a, corner) == 0.0f);
    det_box z1 = {3, 3, 3, 9}, z2 = {3, 3, 3, 9}, inv = {9, 9, 3, 3};
    ck_assert(det_iou_f32(z1, z2) == 0.0f); /* 0/0 is defined as 0 */
    ck_assert(det_iou_f32(inv, inv) == 0.0f);
    ck_assert(det_iou_f32(a, inv) == 0.0f);
    det_box outer = {0, 0, 4, 4}, inner = {1, 1, 3, 3};
    ck_assert(det_iou_f32(outer, inner) == 0.25f);
    det_box far = {100, 100, 101, 101};
    ck_assert(det_iou_f32(outer, far) == 0.0f); /* both overlaps negative: clamped */
}
END_TEST

/* Random integer boxes, some clustered; after det_clean every formulation agrees with
 * the exact decision, and grid NMS equals brute-force NMS. */
START_TEST(test_clean_makes_decisions_exact)
{
    const float ts[] = {0.0f, 0.3f, 0.5f, 0.7f, 1.0f};
    enum { N = 1500 };
    static det_box b[N];
    static float scores[N];
    static int start[DET_GRID_MAX * DET_GRID_MAX + 1], items[N], order[N], rank[N], sup[N], keep[N], keep2[N];
    static det_scored tmp[N];
    for (int ti = 0; ti < 5; ti++) {
        float t = ts[ti];
        for (int i = 0; i < N; i++) {
            uint64_t r = cl_rand64(77 + ti, (uint64_t)i, 0);
            int cx = (int)(r % 300), cy = (int)((r >> 16) % 300);
            int w = 4 + (int)((r >> 32) % 40), h = 4 + (int)((r >> 48) % 40);
            if (i % 5 == 0) { /* exact fractions: many IoUs exactly t for t = 0.5 */
                cx = 50;
                cy = 50;
                w = (i % 10 == 0) ? 20 : 10;
                h = 20;
            }
            det_box bx = {(float)cx, (float)cy, (float)(cx + w), (float)(cy + h)};
            b[i] = bx;
            scores[i] = (float)(cl_rand64(99, (uint64_t)i, 1) % 7);
        }
        ck_assert_int_ge(det_clean(b, N, t, 1e-5, 400, start, items), 0);
        int disagree = 0;
        for (int i = 0; i < N; i++)
            for (int j = i + 1; j < N; j++) {
                int64_t inter, uni;
                det_inter_union(b[i], b[j], &inter, &uni);
                int exact = det_suppresses(inter, uni, t);
                float fi = (float)inter, fu = (float)uni; /* exact: below 2^24 */
                int by_div = det_iou_f32(b[i], b[j]) > t;
                int by_rcp = (fu > 0 ? fi * (1.0f / fu) : 0.0f) > t;
                int by_mul = fu > 0 && fi > t * fu;
                disagree += (by_div != exact) + (by_rcp != exact) + (by_mul != exact);
            }
        ck_assert_int_eq(disagree, 0);
        det_rank(scores, N, tmp, order, rank);
        int k = det_nms_cpu(b, N, t, order, rank, sup, keep, start, items);
        int k2 = 0;
        static char dead[N];
        memset(dead, 0, sizeof dead);
        for (int r = 0; r < N; r++) {
            if (dead[r])
                continue;
            keep2[k2++] = order[r];
            for (int q = r + 1; q < N; q++)
                if (det_iou_f32(b[order[r]], b[order[q]]) > t)
                    dead[q] = 1;
        }
        ck_assert_int_eq(k, k2);
        ck_assert_int_eq(memcmp(keep, keep2, (size_t)k * sizeof(int)), 0);
    }
}
END_TEST

/* ------------------------------------------------------------ tests: the checkers */

static const cl_case iou_cases[] = {
    {"1x1", {"m", "n", "dist"}, {"1", "1", "mixed"}},
    {"7x4097", {"m", "n", "dist"}, {"7", "4097", "mixed"}},
    {"33x1026", {"m", "n", "dist"}, {"33", "1026", "mixed"}},
    {"17x3", {"m", "n", "dist"}, {"17", "3", "mixed"}},
    {"zero", {"m", "n", "dist"}, {"64", "100", "zero_area"}},
    {"touching", {"m", "n", "dist"}, {"128", "1000", "touching"}},
    {"nested", {"m", "n", "dist"}, {"128", "1000", "nested"}},
    {"identical", {"m", "n", "dist"}, {"500", "500", "identical"}},
    {"disjoint", {"m", "n", "dist"}, {"100", "3000", "disjoint"}},
};
#define N_IOU (int)(sizeof iou_cases / sizeof iou_cases[0])

START_TEST(test_iou_checker_passes_correct)
{
    cl_run run;
    iou_variant = 0;
    for (int i = 0; i < N_IOU; i++)
        ck_assert_msg(run_case(&cl_checker_iou, &iou_cases[i], (const void *)cpu_box_iou, &run) == 0,
                      "%s: %s", iou_cases[i].name, run.msg);
}
END_TEST

static int iou_failures(int variant, const void *fn, char *first, size_t cap)
{
    cl_run run;
    int bad = 0;
    iou_variant = variant;
    first[0] = 0;
    for (int i = 0; i < N_IOU; i++) {
        int rc = run_case(&cl_checker_iou, &iou_cases[i], fn, &run);
        ck_assert_int_ge(rc, 0);
        if (rc == 1 && !bad++)
            snprintf(first, cap, "%s", run.msg);
    }
    iou_variant = 0;
    return bad;
}

START_TEST(test_iou_checker_catches_bugs)
{
    char msg[2048];
    ck_assert_int_gt(iou_failures(1, (const void *)cpu_box_iou, msg, sizeof msg), 0);
    ck_assert_msg(strstr(msg, "clamp") != NULL, "no-clamp message: %s", msg);
    ck_assert_int_gt(iou_failures(2, (const void *)cpu_box_iou, msg, sizeof msg), 0);
    ck_assert_msg(strstr(msg, "NaN") != NULL, "0/0 message: %s", msg);
    ck_assert_int_gt(iou_failures(3, (const void *)cpu_box_iou, msg, sizeof msg), 0);
    ck_assert_msg(strstr(msg, "never written") != NULL, "tail message: %s", msg);
}
END_TEST

static const cl_case nms_cases[] = {
    {"n0", {"n", "t", "dist"}, {"0", "0.5", "random"}},
    {"n1", {"n", "t", "dist"}, {"1", "0.5", "random"}},
    {"ident", {"n", "t", "dist", "scores"}, {"300", "0.5", "identical", "equal"}},
    {"ident1", {"n", "t", "dist", "scores"}, {"300", "1.0", "identical", "ties"}},
    {"disj0", {"n", "t", "dist", "scores"}, {"2000", "0.0", "disjoint", "ties"}},
    {"clus0", {"n", "t", "dist", "scores"}, {"1500", "0.0", "clusters", "uniform"}},
    {"clus1", {"n", "t", "dist", "scores"}, {"1500", "1.0", "clusters", "uniform"}},
    {"ties", {"n", "t", "dist", "scores"}, {"3000", "0.5", "clusters", "ties"}},
    {"n65", {"n", "t", "dist", "scores", "cluster"}, {"65", "0.3", "clusters", "ties", "8"}},
    {"n129", {"n", "t", "dist", "scores", "cluster"}, {"129", "0.4", "clusters", "uniform", "4"}},
    {"rand", {"n", "t", "dist", "scores"}, {"2049", "0.7", "random", "uniform"}},
    {"signed", {"n", "t", "dist", "scores"}, {"2000", "0.45", "clusters", "signed"}},
    {"degen", {"n", "t", "dist", "scores"}, {"2000", "0.3", "degenerate", "uniform"}},
    {"dense", {"n", "t", "dist", "scores", "cluster"}, {"4000", "0.5", "clusters", "uniform", "64"}},
};
#define N_NMS (int)(sizeof nms_cases / sizeof nms_cases[0])

START_TEST(test_nms_checker_passes_correct)
{
    cl_run run;
    nms_variant = 0;
    for (int i = 0; i < N_NMS; i++) {
        ck_assert_msg(run_case(&cl_checker_nms, &nms_cases[i], (const void *)cpu_nms, &run) == 0,
                      "greedy, %s: %s", nms_cases[i].name, run.msg);
        ck_assert_msg(run_case(&cl_checker_nms, &nms_cases[i], (const void *)cpu_nms_bitmask, &run) == 0,
                      "bitmask, %s: %s", nms_cases[i].name, run.msg);
    }
}
END_TEST

static int nms_failures(int variant, char *first, size_t cap)
{
    cl_run run;
    int bad = 0;
    first[0] = 0;
    for (int i = 0; i < N_NMS; i++) {
        nms_variant = variant;
        int rc = run_case(&cl_checker_nms, &nms_cases[i], (const void *)cpu_nms, &run);
        ck_assert_int_ge(rc, 0);
        if (rc == 1 && !bad++)
            snprintf(first, cap, "%s", run.msg);
    }
    nms_variant = 0;
    return bad;
}

START_TEST(test_nms_checker_catches_bugs)
{
    char msg[2048];
    ck_assert_int_gt(nms_failures(1, msg, sizeof msg), 0);
    ck_assert_msg(strstr(msg, "suppressed") != NULL || strstr(msg, "missing") != NULL, ">= message: %s", msg);
    ck_assert_int_gt(nms_failures(2, msg, sizeof msg), 0);
    ck_assert_msg(strstr(msg, "lower index") != NULL, "tie message: %s", msg);
}
END_TEST

START_TEST(test_nms_checker_same_seed_same_input)
{
    /* generate is a pure function of the seed: two setups give the same expected list */
    cl_run r1, r2;
    nms_variant = 0;
    ck_assert_int_eq(run_case(&cl_checker_nms, &nms_cases[7], (const void *)cpu_nms, &r1), 0);
    ck_assert_int_eq(run_case(&cl_checker_nms, &nms_cases[7], (const void *)cpu_nms, &r2), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("det");
    TCase *tc = tcase_create("det");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_iou_special_cases);
    tcase_add_test(tc, test_clean_makes_decisions_exact);
    tcase_add_test(tc, test_iou_checker_passes_correct);
    tcase_add_test(tc, test_iou_checker_catches_bugs);
    tcase_add_test(tc, test_nms_checker_passes_correct);
    tcase_add_test(tc, test_nms_checker_catches_bugs);
    tcase_add_test(tc, test_nms_checker_same_seed_same_input);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
