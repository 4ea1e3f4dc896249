/* test_mismatch.c: the full mismatch report (counts, first ten, largest, pattern guesses,
 * JSON) and the rule checks of topo_sort and nms. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grader/mismatch.h"
#include "testutil.h"

static const cl_mm_tol TOL = {1e-5, 1e-5};

/* what the judge writes into outputs before a call: every byte 0xFF */
static float poison(void)
{
    float f;
    memset(&f, CL_POISON_BYTE, sizeof f);
    return f;
}

static float *filled(long long n)
{
    float *a = malloc((size_t)n * sizeof *a);
    for (long long i = 0; i < n; i++) a[i] = (float)(1 + (i * 7919) % 1000) / 100.0f;
    return a;
}

START_TEST(equal_passes)
{
    float *e = filled(100), *g = filled(100);
    g[5] *= 1.000001f; /* within the relative tolerance */
    cl_mm_shape s = {"y", 1, {100}, {NULL}};
    cl_mm_report r;
    ck_assert_int_eq(cl_mismatch_f32(e, g, &s, &TOL, &r), 0);
    ck_assert_int_eq(r.total, 100);
    ck_assert_str_eq(r.pattern_id, "");
    free(e); free(g);
}
END_TEST

START_TEST(partial_tile)
{
    cl_mm_shape s = {"out", 2, {40, 100}, {"row", "col"}};
    float *e = filled(4000), *g = filled(4000);
    for (int row = 0; row < 40; row++)
        for (int col = 96; col < 100; col++) g[row * 100 + col] += 1;
    cl_mm_report r;
    ck_assert_int_eq(cl_mismatch_f32(e, g, &s, &TOL, &r), 160);
    ck_assert_str_eq(r.pattern_id, "partial_tile");
    ck_assert_msg(strstr(r.pattern, "col >= 96") && strstr(r.pattern, "multiple of 32"), "%s", r.pattern);
    ck_assert_int_eq(r.nfirst, 10);
    ck_assert_int_eq(r.first[0].coord[0], 0);
    ck_assert_int_eq(r.first[0].coord[1], 96);
    ck_assert_int_eq(r.first[4].coord[0], 1); /* row 1, col 96 */
    ck_assert_double_eq_tol(r.first[0].abs_err, 1.0, 1e-5);
    free(e); free(g);
}
END_TEST

START_TEST(unwritten_tail_and_text)
{
    cl_mm_shape s = {"y", 1, {1000}, {NULL}};
    float *e = filled(1000), *g = filled(1000);
    for (int i = 900; i < 1000; i++) g[i] = NAN; /* computed NaNs: not the poison */
    cl_mm_report r;
    ck_assert_int_eq(cl_mismatch_f32(e, g, &s, &TOL, &r), 100);
    ck_assert_msg(strcmp(r.pattern_id, "unwritten_tail") != 0, "a computed NaN read as never written: %s", r.pattern);
    for (int i = 900; i < 1000; i++) g[i] = poison();
    ck_assert_int_eq(cl_mismatch_f32(e, g, &s, &TOL, &r), 100);
    ck_assert_int_eq(r.nonfinite, 100);
    /* 1000 is a multiple of 8 and of none larger that leaves a full part: the tail guess */
    ck_assert_msg(!strcmp(r.pattern_id, "unwritten_tail") || !strcmp(r.pattern_id, "partial_tile"), "%s", r.pattern);
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    cl_mismatch_text(&r, &s, f);
    fclose(f);
    ck_assert_msg(strstr(out, "100 of 1000 elements wrong") && strstr(out, "y[i 900]") && strstr(out, "... and 90 more"),
                  "%s", out);
    ck_assert_msg(strstr(out, "largest error at y[i 900]"), "%s", out);
    free(out);
    /* a tail that is no tile: 997 elements, the last 5 NaN */
    s.dims[0] = 997;
    for (int i = 0; i < 997; i++) g[i] = i >= 992 ? poison() : e[i];
    ck_assert_int_eq(cl_mismatch_f32(e, g, &s, &TOL, &r), 5);
    ck_assert_msg(!strcmp(r.pattern_id, "partial_tile") && strstr(r.pattern, "i >= 992"), "%s", r.pattern);
    free(e); free(g);
}
END_TEST

START_TEST(scattered_nan)
{
    cl_mm_shape s = {"out", 2, {8, 8}, {"row", "col"}};
    float *e = filled(64), *g = filled(64);
    g[3] = NAN; g[20] = INFINITY; g[41] = NAN;
    cl_mm_report r;
    ck_assert_int_eq(cl_mismatch_f32(e, g, &s, &TOL, &r), 3);
    ck_assert_str_eq(r.pattern_id, "nonfinite");
    ck_assert_msg(strstr(r.pattern, "exp() overflow"), "%s", r.pattern);
    ck_assert_int_eq(r.worst.index, 3); /* a non-finite error is the largest; the first of them */
    free(e); free(g);
}
END_TEST

START_TEST(factors_offsets_zeros_transposed)
{
    cl_mm_shape s = {"out", 2, {4, 8}, {"row", "col"}};
    float *e = filled(32), *g = malloc(32 * sizeof *g);
    cl_mm_report r;
    for (int i = 0; i < 32; i++) g[i] = 2 * e[i];
    cl_mismatch_f32(e, g, &s, &TOL, &r);
    ck_assert_str_eq(r.pattern_id, "one_factor");
    ck_assert_msg(strstr(r.pattern, "got = 2 x expected"), "%s", r.pattern);
    for (int i = 0; i < 32; i++) g[i] = e[i] + 0.5f;
    cl_mismatch_f32(e, g, &s, &TOL, &r);
    ck_assert_str_eq(r.pattern_id, "one_offset");
    for (int i = 0; i < 32; i++) g[i] = e[i] * (i / 8 == 1 ? 1.5f : i / 8 == 3 ? 0.25f : 1.0f);
    ck_assert_int_eq(cl_mismatch_f32(e, g, &s, &TOL, &r), 16);
    ck_assert_str_eq(r.pattern_id, "row_factor");
    ck_assert_msg(strstr(r.pattern, "each wrong row"), "%s", r.pattern);
    for (int i = 0; i < 32; i++) g[i] = i % 3 ? e[i] : 0;
    cl_mismatch_f32(e, g, &s, &TOL, &r);
    ck_assert_str_eq(r.pattern_id, "zeros");
    /* square: the transpose */
    cl_mm_shape sq = {"out", 2, {5, 5}, {"row", "col"}};
    for (int i = 0; i < 25; i++) g[i] = e[(i % 5) * 5 + i / 5];
    ck_assert_int_gt(cl_mismatch_f32(e, g, &sq, &TOL, &r), 0);
    ck_assert_str_eq(r.pattern_id, "transposed");
    /* noise: no guess */
    for (int i = 0; i < 32; i++) g[i] = e[i] + (float)((i * 37) % 11) * 0.01f;
    cl_mismatch_f32(e, g, &s, &TOL, &r);
    ck_assert_msg(!strcmp(r.pattern_id, ""), "%s", r.pattern);
    free(e); free(g);
}
END_TEST

START_TEST(json_and_f16)
{
    cl_mm_shape s = {"C", 2, {2, 3}, {"row", "col"}};
    uint16_t e[6] = {0x3C00, 0x4000, 0x4200, 0x3C00, 0x3C00, 0x3C00}; /* 1, 2, 3, 1, 1, 1 */
    uint16_t g[6] = {0x3C00, 0x4000, 0x4200, 0x3C00, 0x4000, 0x7E00}; /* ..., 2, NaN */
    cl_mm_tol t = {0, 1e-3};
    cl_mm_report r;
    ck_assert_int_eq(cl_mismatch_f16(e, g, &s, &t, &r), 2);
    json_t *j = cl_mismatch_json(&r, &s);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "wrong")), 2);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "total")), 6);
    json_t *f0 = json_array_get(json_object_get(j, "first"), 0);
    ck_assert_str_eq(json_string_value(json_object_get(f0, "where")), "C[row 1, col 1]");
    ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(f0, "position"), "col")), 1);
    ck_assert_double_eq(json_real_value(json_object_get(f0, "got")), 2.0);
    json_t *f1 = json_array_get(json_object_get(j, "first"), 1);
    ck_assert_str_eq(json_string_value(json_object_get(f1, "got")), "nan");
    ck_assert_str_eq(json_string_value(json_object_get(json_object_get(j, "largest"), "where")), "C[row 1, col 2]");
    json_decref(j);
}
END_TEST

START_TEST(topo_rules)
{
    /* 0 -> 1, 1 -> 2, 0 -> 3 */
    int row_ptr[] = {0, 2, 3, 3, 3}, col[] = {1, 3, 2};
    cl_mm_rule r;
    int good[] = {0, 1, 3, 2};
    ck_assert_int_eq(cl_mismatch_topo(4, row_ptr, col, 0, good, 0, &r), 0);
    int bad[] = {0, 2, 1, 3};
    ck_assert_int_eq(cl_mismatch_topo(4, row_ptr, col, 0, bad, 0, &r), 1);
    ck_assert_str_eq(r.rule, "edge order");
    ck_assert_msg(strstr(r.text, "edge 1 -> 2"), "%s", r.text);
    json_t *j = cl_mm_rule_json(&r);
    ck_assert_int_eq(json_integer_value(json_array_get(json_object_get(json_object_get(j, "example"), "edge"), 1)), 2);
    json_decref(j);
    cl_mm_rule_free(&r);
    int dup[] = {0, 1, 1, 2};
    ck_assert_int_eq(cl_mismatch_topo(4, row_ptr, col, 0, dup, 0, &r), 1);
    ck_assert_str_eq(r.rule, "permutation");
    ck_assert_msg(strstr(r.text, "node 1 appears twice"), "%s", r.text);
    cl_mm_rule_free(&r);
    ck_assert_int_eq(cl_mismatch_topo(4, row_ptr, col, 0, good, 1, &r), 1);
    ck_assert_str_eq(r.rule, "cycle reported");
    cl_mm_rule_free(&r);
    ck_assert_int_eq(cl_mismatch_topo(4, row_ptr, col, 1, good, 0, &r), 1);
    ck_assert_str_eq(r.rule, "cycle not reported");
    cl_mm_rule_free(&r);
}
END_TEST

START_TEST(nms_rules)
{
    float boxes[] = {0, 0, 10, 10, 1, 1, 11, 11, 20, 20, 30, 30};
    float scores[] = {0.9f, 0.8f, 0.7f};
    cl_mm_rule r;
    int good[] = {0, 2};
    ck_assert_int_eq(cl_mismatch_nms(3, boxes, scores, 0.5f, good, 2, &r), 0);
    int extra[] = {0, 1, 2};
    ck_assert_int_eq(cl_mismatch_nms(3, boxes, scores, 0.5f, extra, 3, &r), 1);
    ck_assert_str_eq(r.rule, "kept a suppressed box");
    ck_assert_msg(strstr(r.text, "box 1 was kept though kept box 0") && strstr(r.text, "IoU 0.6807"), "%s", r.text);
    cl_mm_rule_free(&r);
    int missing[] = {0};
    ck_assert_int_eq(cl_mismatch_nms(3, boxes, scores, 0.5f, missing, 1, &r), 1);
    ck_assert_str_eq(r.rule, "dropped a box");
    ck_assert_msg(strstr(r.text, "box 2 (score 0.7) was dropped"), "%s", r.text);
    cl_mm_rule_free(&r);
    int order[] = {2, 0};
    ck_assert_int_eq(cl_mismatch_nms(3, boxes, scores, 0.5f, order, 2, &r), 1);
    ck_assert_str_eq(r.rule, "order");
    cl_mm_rule_free(&r);
    int oob[] = {0, 7};
    ck_assert_int_eq(cl_mismatch_nms(3, boxes, scores, 0.5f, oob, 2, &r), 1);
    ck_assert_str_eq(r.rule, "index");
    cl_mm_rule_free(&r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("mismatch");
    TCase *tc = tcase_create("mismatch");
    tcase_add_test(tc, equal_passes);
    tcase_add_test(tc, partial_tile);
    tcase_add_test(tc, unwritten_tail_and_text);
    tcase_add_test(tc, scattered_nan);
    tcase_add_test(tc, factors_offsets_zeros_transposed);
    tcase_add_test(tc, json_and_f16);
    tcase_add_test(tc, topo_rules);
    tcase_add_test(tc, nms_rules);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
