/* test_memlabs.c: the transpose, softmax and layernorm checkers, driven through the whole
 * engine by plain-C solutions on the host-backend runner. A right fp32 solution must pass
 * every correctness case of the lab's lab.yaml, with the tolerances there; the classic
 * mistakes (a grid sized from the wrong dimension, no max subtraction, E[x^2] - E[x]^2)
 * must get `wrong` with a message that says where and why. */
#include <stdio.h>
#include <string.h>

#include "grader/grade.h"
#include "testutil.h"

static cl_result r;

static void grade(const char *lab, const char *solution, uint64_t seed)
{
    tu_grade_host(&r, (tu_grade){.lab = lab, .solution = solution, .seed = seed, .timeout_s = 240});
}

static void expect(cl_verdict v, const char *needle) { tu_expect(&r, v, needle); }

static void teardown(void) { cl_result_free(&r); }

/* Two seeds per right solution: the tolerances hold on fresh inputs, not one lucky draw. */
static const uint64_t seeds[] = {20261122, 7};

START_TEST(transpose_exact_passes)
{
    grade("transpose", "transpose_host", seeds[_i]);
    expect(CL_V_CORRECT, NULL);
    ck_assert_int_eq(r.passed, r.total);
    ck_assert_int_ge(r.total, 16);
}
END_TEST

START_TEST(transpose_square_only_is_wrong)
{
    grade("transpose", "transpose_host_square_only", seeds[0]);
    expect(CL_V_WRONG, "case '1 x 4097 (a row)'");
    ck_assert(tu_contains(r.message, "never written"));
}
END_TEST

START_TEST(softmax_fp32_passes)
{
    grade("softmax", "softmax_host", seeds[_i]);
    expect(CL_V_CORRECT, NULL);
    ck_assert_int_eq(r.passed, r.total);
}
END_TEST

START_TEST(softmax_without_max_is_wrong)
{
    grade("softmax", "softmax_host_nomax", seeds[0]);
    expect(CL_V_WRONG, "+-1e4");
}
END_TEST

START_TEST(layernorm_two_pass_passes)
{
    grade("layernorm", "layernorm_host", seeds[_i]);
    expect(CL_V_CORRECT, NULL);
    ck_assert_int_eq(r.passed, r.total);
}
END_TEST

START_TEST(layernorm_welford_passes)
{
    grade("layernorm", "layernorm_host_welford", seeds[_i]);
    expect(CL_V_CORRECT, NULL);
}
END_TEST

START_TEST(layernorm_naive_variance_is_wrong)
{
    grade("layernorm", "layernorm_host_naive", seeds[0]);
    expect(CL_V_WRONG, "rstd = 1/sqrt(var + eps)");
    ck_assert(tu_contains(r.cases[r.passed].where, "rstd["));
}
END_TEST

int main(void)
{
    setenv("CUDALAB_HOME", TEST_SOURCE_DIR "/tests/fixtures/home", 1);
    Suite *s = suite_create("memlabs");
    TCase *tc = tcase_create("memlabs");
    tcase_set_timeout(tc, 300);
    tcase_add_checked_fixture(tc, NULL, teardown);
    tcase_add_loop_test(tc, transpose_exact_passes, 0, 2);
    tcase_add_test(tc, transpose_square_only_is_wrong);
    tcase_add_loop_test(tc, softmax_fp32_passes, 0, 2);
    tcase_add_test(tc, softmax_without_max_is_wrong);
    tcase_add_loop_test(tc, layernorm_two_pass_passes, 0, 2);
    tcase_add_loop_test(tc, layernorm_welford_passes, 0, 2);
    tcase_add_test(tc, layernorm_naive_variance_is_wrong);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
