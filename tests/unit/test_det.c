/* test_det.c: CPU tests of the iou and nms labs: the exactness argument and the checkers.
 *
 * - The canonical fp32 IoU on the special cases the READMEs promise (identical = 1,
 *   touching = 0, zero-area pairs = 0, not NaN).
 * - The nms premise: after det_clean, the exact integer decision (inter > t * union) agrees
 *   with the fp32 formula computed three ways (IEEE division, reciprocal-multiply, and
 *   inter > t * union in fp32), and grid-based det_nms_cpu equals brute-force greedy NMS.
 * - The real engine and checkers, through the host-backend runner, on every correctness
 *   case of labs/iou/lab.yaml and labs/nms/lab.yaml, with CPU solutions
 *   (tests/fixtures/det_host.h): the correct ones pass, the planted bugs (no clamp, 0/0,
 *   an unwritten tail, >=, reversed ties) get `wrong` with a message that says why. A C
 *   port of reference/nms.cu's bitmask + chunked scan must pass too: it checks the
 *   reference's algorithm away from the GPU. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "det_boxes.h"
#include "grader/gen.h"
#include "grader/grade.h"
#include "testutil.h"

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

/* det_nms_is_greedy, the checker's test of an answer, on the greedy list (yes) and on lists
 * one step away from it (no): a kept box dropped, a suppressed box added at its place, two
 * neighbours swapped, a box twice, an index out of range, every box. */
static void check_greedy_test(const det_box *b, int n, float t, const int *order, const int *rank, const int *sup,
                              const int *keep, int k, int *start, int *items)
{
    static det_box kb[2000];
    static int krank[2000], list[2001];
    static unsigned char listed[2000];
    ck_assert(n <= 2000);
#define GREEDY(l, m) det_nms_is_greedy(b, n, t, rank, l, m, kb, krank, listed, start, items)
    ck_assert_int_eq(GREEDY(keep, k), 1);
    for (int drop = 0; drop < k; drop += 1 + k / 7) { /* a kept box missing */
        int m = 0;
        for (int p = 0; p < k; p++)
            if (p != drop)
                list[m++] = keep[p];
        ck_assert_int_eq(GREEDY(list, m), 0);
    }
    int added = 0;
    for (int r = 0; r < n && added < 8; r++) { /* a suppressed box listed where its rank puts it */
        int j = order[r];
        if (sup[j] < 0)
            continue;
        int m = 0, put = 0;
        for (int p = 0; p < k; p++) {
            if (!put && rank[keep[p]] > r) {
                list[m++] = j;
                put = 1;
            }
            list[m++] = keep[p];
        }
        if (!put)
            list[m++] = j;
        ck_assert_int_eq(GREEDY(list, m), 0);
        added++;
    }
    if (k >= 2) {
        memcpy(list, keep, (size_t)k * sizeof(int));
        int x = list[0];
        list[0] = list[1];
        list[1] = x;
        ck_assert_int_eq(GREEDY(list, k), 0); /* out of visiting order */
        memcpy(list, keep, (size_t)k * sizeof(int));
        list[1] = list[0];
        ck_assert_int_eq(GREEDY(list, k), 0); /* a box twice */
    }
    if (k >= 1) {
        memcpy(list, keep, (size_t)k * sizeof(int));
        list[k - 1] = n;
        ck_assert_int_eq(GREEDY(list, k), 0); /* not a box */
    }
    if (k < n) { /* every box, in visiting order: something was suppressed */
        ck_assert_int_eq(GREEDY(order, n), 0);
    }
#undef GREEDY
}

/* Random integer boxes, some clustered; after det_clean every formulation agrees with
 * the exact decision, and grid NMS equals brute-force NMS. */
START_TEST(test_clean_makes_decisions_exact)
{
    const float ts[] = {0.0f, 0.3f, 0.5f, 0.7f, 1.0f};
    enum { N = 1500 };
    static det_box b[N];
    static float scores[N];
    static int start[DET_GRID_MAX * DET_GRID_MAX + 1], items[N], order[N], rank[N], sup[N], keep[N], keep2[N];
    static uint32_t tmp[2 * N];
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
        check_greedy_test(b, N, t, order, rank, sup, keep, k, start, items);
    }
}
END_TEST

/* ------------------------------------------------------------ tests: the checkers */

static cl_result r;

static void grade(const char *lab, const char *solution)
{
    tu_grade_host(&r, (tu_grade){.lab = lab, .solution = solution, .timeout_s = 280});
}

static void expect(cl_verdict v, const char *needle) { tu_expect(&r, v, needle); }

static void teardown(void) { cl_result_free(&r); }

START_TEST(iou_correct_passes_every_case)
{
    grade("iou", "det_iou_host");
    expect(CL_V_CORRECT, NULL);
    ck_assert_int_eq(r.passed, r.total);
    ck_assert_int_ge(r.total, 14);
}
END_TEST

START_TEST(iou_no_clamp_is_wrong)
{
    grade("iou", "det_iou_host_no_clamp");
    expect(CL_V_WRONG, "must clamp to 0");
}
END_TEST

/* At this seed the first wrong pair is two flat boxes that are also apart on one axis: the
 * message must still name the clamp (it said "both boxes have zero area" before). */
START_TEST(iou_no_clamp_flat_and_apart_names_the_clamp)
{
    tu_grade_host(&r, (tu_grade){.lab = "iou", .solution = "det_iou_host_no_clamp", .seed = 35008154138241ull,
                                 .timeout_s = 280});
    expect(CL_V_WRONG, "must clamp to 0");
    ck_assert(!tu_contains(r.message, "both boxes have zero area"));
}
END_TEST

START_TEST(iou_zero_over_zero_is_wrong)
{
    grade("iou", "det_iou_host_nan");
    expect(CL_V_WRONG, "NaN");
}
END_TEST

START_TEST(iou_unwritten_tail_is_wrong)
{
    grade("iou", "det_iou_host_tail");
    expect(CL_V_WRONG, "never written");
}
END_TEST

START_TEST(nms_greedy_passes_every_case)
{
    grade("nms", "det_nms_host");
    expect(CL_V_CORRECT, NULL);
    ck_assert_int_eq(r.passed, r.total);
    ck_assert_int_ge(r.total, 20);
}
END_TEST

START_TEST(nms_reference_algorithm_passes_every_case)
{
    grade("nms", "det_nms_host_bitmask");
    expect(CL_V_CORRECT, NULL);
    ck_assert_int_eq(r.passed, r.total);
}
END_TEST

START_TEST(nms_ge_is_wrong)
{
    grade("nms", "det_nms_host_ge");
    expect(CL_V_WRONG, "strictly");
}
END_TEST

START_TEST(nms_wrong_ties_is_wrong)
{
    grade("nms", "det_nms_host_ties");
    expect(CL_V_WRONG, "ties go to the lower index");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("det");
    TCase *geo = tcase_create("geometry");
    tcase_add_test(geo, test_iou_special_cases);
    tcase_add_test(geo, test_clean_makes_decisions_exact);
    suite_add_tcase(s, geo);
    TCase *eng = tcase_create("checkers");
    tcase_set_timeout(eng, 300);
    tcase_add_checked_fixture(eng, NULL, teardown);
    tcase_add_test(eng, iou_correct_passes_every_case);
    tcase_add_test(eng, iou_no_clamp_is_wrong);
    tcase_add_test(eng, iou_no_clamp_flat_and_apart_names_the_clamp);
    tcase_add_test(eng, iou_zero_over_zero_is_wrong);
    tcase_add_test(eng, iou_unwritten_tail_is_wrong);
    tcase_add_test(eng, nms_greedy_passes_every_case);
    tcase_add_test(eng, nms_reference_algorithm_passes_every_case);
    tcase_add_test(eng, nms_ge_is_wrong);
    tcase_add_test(eng, nms_wrong_ties_is_wrong);
    suite_add_tcase(s, eng);
    return tu_run(s);
}
