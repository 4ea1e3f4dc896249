/* test_score.c: metrics, fractions of the ceiling, tiers and points from lab.yaml. */
#include <stdlib.h>
#include <string.h>

#include "grader/labconf.h"
#include "grader/score.h"
#include "testutil.h"

static cl_lab lab;

static void setup(void)
{
    cl_err err;
    ck_assert_msg(cl_lab_load(TEST_SOURCE_DIR, "reduce", &lab, &err) == 0, "%s", err.msg);
}
static void teardown(void) { cl_lab_free(&lab); }

static void bench_case(cl_result *r, const char *name, double ms, double bytes)
{
    cl_case_result *c = &r->cases[r->ncases++];
    memset(c, 0, sizeof *c);
    c->name = strdup(name);
    c->status = strdup("pass");
    c->bench = 1;
    c->runs = 30;
    c->median_ms = ms;
    c->bytes = bytes;
}

START_TEST(tiers_from_fractions)
{
    ck_assert_str_eq(cl_tier_for(&lab, 0.95), "excellent");
    ck_assert_str_eq(cl_tier_for(&lab, 0.90), "excellent");
    ck_assert_str_eq(cl_tier_for(&lab, 0.80), "good");
    ck_assert_str_eq(cl_tier_for(&lab, 0.5), "pass");
    ck_assert_str_eq(cl_tier_for(&lab, 0.49), "slow");
}
END_TEST

START_TEST(bandwidth_fraction_and_points)
{
    cl_result r;
    cl_result_init(&r);
    r.verdict = CL_V_CORRECT;
    r.passed = r.total = 12;
    r.did_bench = 1;
    bench_case(&r, "a", 1.0, 2.7e9); /* 2700 GB/s of 3000: 90% */
    cl_score_bench(&lab, &r, 3000.0);
    ck_assert_double_eq_tol(r.cases[0].metric, 2700.0, 1e-6);
    ck_assert_double_eq_tol(r.cases[0].fraction, 0.9, 1e-9);
    ck_assert_str_eq(r.tier, "excellent");
    cl_score_total(&lab, &r);
    ck_assert_int_eq(r.verdict, CL_V_EXCELLENT);
    ck_assert_double_eq(r.score, 100);
    ck_assert_double_eq(r.max_score, 100);
    cl_result_free(&r);
}
END_TEST

START_TEST(slowest_case_decides)
{
    cl_result r;
    cl_result_init(&r);
    r.verdict = CL_V_CORRECT;
    r.passed = r.total = 3;
    r.did_bench = 1;
    bench_case(&r, "fast", 1.0, 2.9e9);
    bench_case(&r, "slow", 1.0, 1.6e9); /* 53%: pass */
    cl_score_bench(&lab, &r, 3000.0);
    ck_assert_str_eq(r.tier, "pass");
    cl_score_total(&lab, &r);
    ck_assert_int_eq(r.verdict, CL_V_PASS);
    ck_assert_double_eq(r.score, 80);
    cl_result_free(&r);
}
END_TEST

START_TEST(correctness_gates_performance)
{
    cl_result r;
    cl_result_init(&r);
    r.verdict = CL_V_WRONG;
    r.passed = 9;
    r.total = 12;
    cl_score_total(&lab, &r);
    ck_assert_double_eq_tol(r.score, 45.0, 1e-9); /* 60 x 9/12, no tier points */
    ck_assert_int_eq(r.verdict, CL_V_WRONG);
    cl_result_free(&r);
}
END_TEST

START_TEST(reference_ratio)
{
    cl_result r;
    cl_result_init(&r);
    bench_case(&r, "a", 2.0, 1e9);
    r.cases[0].ref_ms = 1.0;
    cl_score_bench(&lab, &r, 1000.0);
    ck_assert_double_eq_tol(r.cases[0].ref_ratio, 0.5, 1e-12);
    ck_assert_double_eq_tol(r.cases[0].fraction, 0.5, 1e-12);
    cl_result_free(&r);
}
END_TEST

START_TEST(throughput_against_the_reference)
{
    /* a lab graded in items/s against the reference (nms, topo_sort): a solution half as
     * fast as the reference reaches 50% */
    cl_lab t = lab;
    t.metric = CL_METRIC_THROUGHPUT;
    t.ceiling = CL_CEIL_REFERENCE;
    cl_result r;
    cl_result_init(&r);
    bench_case(&r, "a", 2.0, 0);
    r.cases[0].items = 1e6;
    r.cases[0].ref_ms = 1.0;
    cl_score_bench(&t, &r, 0);
    ck_assert_double_eq_tol(r.cases[0].metric, 5e8, 1e-3);
    ck_assert_double_eq_tol(r.cases[0].ceiling, 1e9, 1e-3);
    ck_assert_double_eq_tol(r.cases[0].fraction, 0.5, 1e-12);
    ck_assert_str_eq(r.cases[0].tier, "pass");
    /* a hundred times slower: slow */
    r.cases[0].median_ms = 100.0;
    cl_score_bench(&t, &r, 0);
    ck_assert_double_eq_tol(r.cases[0].fraction, 0.01, 1e-12);
    ck_assert_str_eq(r.cases[0].tier, "slow");
    cl_result_free(&r);
}
END_TEST

START_TEST(slow_below_pass)
{
    cl_result r;
    cl_result_init(&r);
    r.verdict = CL_V_CORRECT;
    r.passed = r.total = 1;
    r.did_bench = 1;
    bench_case(&r, "a", 1.0, 0.3e9);
    cl_score_bench(&lab, &r, 3000.0);
    cl_score_total(&lab, &r);
    ck_assert_int_eq(r.verdict, CL_V_SLOW);
    ck_assert_double_eq(r.score, 60);
    cl_result_free(&r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("score");
    TCase *tc = tcase_create("score");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, tiers_from_fractions);
    tcase_add_test(tc, bandwidth_fraction_and_points);
    tcase_add_test(tc, slowest_case_decides);
    tcase_add_test(tc, correctness_gates_performance);
    tcase_add_test(tc, reference_ratio);
    tcase_add_test(tc, throughput_against_the_reference);
    tcase_add_test(tc, slow_below_pass);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
