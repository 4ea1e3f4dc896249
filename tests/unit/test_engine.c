/* test_engine.c: the whole grading pipeline (supervisor, runner, engine, checker,
 * verdicts) driven by plain-C solutions through the host-backend runner. Every way a
 * solution can misbehave must end in the right verdict, with cudalab unharmed. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grader/grade.h"
#include "paths.h"
#include "testutil.h"

static cl_result r;

static void grade(const char *lab, const char *solution, int bench, double timeout)
{
    tu_grade_host(&r, (tu_grade){.lab = lab, .solution = solution, .bench = bench, .timeout_s = timeout});
}

static void expect(cl_verdict v, const char *needle) { tu_expect(&r, v, needle); }

static void teardown(void) { cl_result_free(&r); }

START_TEST(good_passes_every_case)
{
    grade("selftest", "good", 0, 0);
    expect(CL_V_CORRECT, "all 3 correctness cases passed");
    ck_assert_int_eq(r.passed, 3);
    ck_assert_int_eq(r.total, 3);
    ck_assert_str_eq(r.gpu, "host (test backend)");
}
END_TEST

START_TEST(good_bench_runs_and_verifies_timed_runs)
{
    grade("selftest", "good", 1, 0);
    expect(CL_V_CORRECT, "no ceiling");
    cl_case_result *b = &r.cases[r.ncases - 1];
    ck_assert(b->bench);
    ck_assert_int_ge(b->runs, 20);
    ck_assert(b->median_ms > 0 && b->min_ms <= b->median_ms && b->median_ms <= b->max_ms);
    ck_assert_double_eq(b->bytes, 8.0 * 1048576);
}
END_TEST

START_TEST(wrong_names_case_index_expected_got)
{
    grade("selftest", "wrong", 0, 0);
    expect(CL_V_WRONG, "case 'n=100'");
    ck_assert_int_eq(r.passed, 1);
    cl_case_result *c = &r.cases[1];
    ck_assert_str_eq(c->where, "y[7]");
    ck_assert(c->has_values && c->got == c->expected + 1.0);
}
END_TEST

START_TEST(first_failing_case_decides)
{
    grade("selftest", "wrong_then_oob", 0, 0);
    expect(CL_V_WRONG, "case 'n=100'");
    ck_assert_str_eq(r.cases[2].status, "out_of_bounds"); /* reported, but second */
}
END_TEST

START_TEST(unwritten_output_is_caught)
{
    grade("selftest", "unwritten", 0, 0);
    expect(CL_V_WRONG, "never written");
}
END_TEST

START_TEST(hang_times_out)
{
    grade("selftest", "hang", 0, 2.0);
    expect(CL_V_TIMEOUT, "in case n=1");
    ck_assert(tu_contains(r.message, "timed out after 2 s"));
}
END_TEST

START_TEST(crash_is_a_verdict)
{
    grade("selftest", "crash", 0, 0);
    expect(CL_V_CRASH, "signal 11");
    ck_assert(tu_contains(r.message, "case 'n=1'"));
}
END_TEST

START_TEST(exit_without_verdict_fails)
{
    grade("selftest", "exit_early", 0, 0);
    expect(CL_V_CRASH, "exited with code");
}
END_TEST

START_TEST(printed_fake_verdict_is_only_output)
{
    /* what it prints is only output; what it writes to the judge's socket breaks the run */
    grade("selftest", "fake_verdict", 0, 0);
    expect(CL_V_CRASH, "broke the protocol");
    ck_assert(tu_contains(r.output, "\"status\":\"ok\""));
}
END_TEST

START_TEST(forged_verdict_line_voids_the_run)
{
    grade("selftest", "spray_fds", 0, 0);
    expect(CL_V_CRASH, "broke the protocol");
}
END_TEST

START_TEST(out_of_bounds_write)
{
    grade("selftest", "oob", 0, 0);
    expect(CL_V_OUT_OF_BOUNDS, "past the end of 'y'");
}
END_TEST

START_TEST(modified_input)
{
    grade("selftest", "modifies_input", 0, 0);
    expect(CL_V_OUT_OF_BOUNDS, "modified its input 'x'"); /* the read-only mapping faults */
}
END_TEST

START_TEST(cached_result_caught_in_timed_runs)
{
    grade("selftest", "cache", 0, 0);
    expect(CL_V_CORRECT, NULL); /* each correctness case has its own buffer */
    cl_result_free(&r);
    grade("selftest", "cache", 1, 0);
    expect(CL_V_WRONG, "timed run 1");
}
END_TEST

START_TEST(missing_symbol)
{
    grade("selftest", "misnamed", 0, 0);
    expect(CL_V_MISSING_SYMBOL, "does not define 'selftest_scale'");
}
END_TEST

START_TEST(missing_file)
{
    grade("selftest", "no_such_solution", 0, 0);
    expect(CL_V_COMPILE_ERROR, "not found");
}
END_TEST

START_TEST(chatty_output_capped_and_clean)
{
    grade("selftest", "chatty", 0, 0);
    expect(CL_V_CORRECT, NULL);
    ck_assert(r.output && strlen(r.output) < 70000);
    ck_assert(tu_contains(r.output, "more bytes of output not kept"));
}
END_TEST

START_TEST(forked_children_do_not_survive)
{
    char *dir = tu_tempdir("engine");
    char pidfile[4096];
    snprintf(pidfile, sizeof pidfile, "%s/pid", dir);
    setenv("CUDALAB_TEST_PIDFILE", pidfile, 1);
    grade("selftest", "forks", 0, 0);
    unsetenv("CUDALAB_TEST_PIDFILE");
    expect(CL_V_CORRECT, NULL);
    char *text;
    size_t n;
    cl_err err;
    ck_assert_int_eq(cl_read_file(pidfile, 100, &text, &n, &err), 0);
    pid_t pid = atoi(text);
    free(text);
    /* the solution's process may not create processes at all (seccomp); were one made, it
     * would not outlive the run */
    ck_assert_msg(pid < 0, "fork succeeded in the solution's process (child %d)", (int)pid);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(file_size_limit_stops_a_disk_filler)
{
    char *dir = tu_tempdir("engine");
    char big[4096];
    snprintf(big, sizeof big, "%s/big", dir);
    setenv("CUDALAB_TEST_BIGFILE", big, 1);
    char path[4096];
    snprintf(path, sizeof path, "%s/big_file.so", TEST_SOLUTIONS);
    cl_grade_opts o = {0};
    o.lab = "selftest";
    o.solution = path;
    o.test = 1;
    o.runner = TEST_HOST_RUNNER;
    o.allow_prebuilt = 1;
    o.max_file_bytes = 1 << 20;
    cl_err err;
    ck_assert_int_eq(cl_grade(&o, &r, &err), 0);
    unsetenv("CUDALAB_TEST_BIGFILE");
    expect(CL_V_CRASH, "signal 25");
    tu_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(seed_reproduces_inputs)
{
    grade("selftest", "wrong", 0, 0);
    double e1 = r.cases[1].expected;
    uint64_t s1 = r.seed;
    cl_result_free(&r);
    grade("selftest", "wrong", 0, 0);
    ck_assert_uint_eq(r.seed, s1);
    ck_assert(r.cases[1].expected == e1);
}
END_TEST

START_TEST(reduce_checker_accepts_a_correct_sum)
{
    grade("reduce", "reduce_host", 0, 120);
    expect(CL_V_CORRECT, NULL);
    ck_assert_int_eq(r.passed, r.total);
    ck_assert_int_ge(r.total, 12);
}
END_TEST

START_TEST(reduce_checker_accepts_serial_fp32)
{
    grade("reduce", "reduce_host_serial_float", 0, 120);
    expect(CL_V_CORRECT, NULL);
}
END_TEST

START_TEST(reduce_checker_catches_a_dropped_tail)
{
    grade("reduce", "reduce_host_dropped_tail", 0, 120);
    expect(CL_V_WRONG, "case 'n=1'");
    ck_assert(tu_contains(r.cases[0].where, "out[0]"));
}
END_TEST

/* gemm: every correctness case of labs/gemm/lab.yaml on the CPU (full fp64 checks, the
 * sampled path with row/column checksums, the tolerance) with plain-C solutions */
START_TEST(gemm_checker_accepts_fp32_accumulation)
{
    grade("gemm", "gemm_host", 0, 240);
    expect(CL_V_CORRECT, NULL);
    ck_assert_int_eq(r.passed, r.total);
    ck_assert_int_ge(r.total, 16);
}
END_TEST

START_TEST(gemm_checker_catches_b_read_column_major)
{
    grade("gemm", "gemm_host_b_colmajor", 0, 240);
    expect(CL_V_WRONG, "C[0][0]");
    ck_assert_int_eq(r.passed, 2); /* both layouts agree when N = 1: 1x1x8 and 4096x1x512 */
}
END_TEST

/* The first wrong element is in row 0, but not always C[0][0]: at seed 7550 the column-major
 * sum of C[0][0] lands within its tolerance by chance (about one seed in 6000), so the planted
 * b_col_major.cu expects "C[0][" */
START_TEST(gemm_checker_b_column_major_first_wrong_row_at_another_seed)
{
    tu_grade_host(&r, (tu_grade){.lab = "gemm", .solution = "gemm_host_b_colmajor", .seed = 7550, .timeout_s = 240});
    expect(CL_V_WRONG, "case '17x17x16': C[0][1] is");
    ck_assert_int_eq(r.passed, 2);
}
END_TEST

START_TEST(gemm_checker_catches_an_unwritten_corner)
{
    grade("gemm", "gemm_host_unwritten_corner", 0, 240);
    expect(CL_V_WRONG, "is NaN");
    ck_assert(tu_contains(r.cases[1].where, "C[16][16]")); /* 17x17x16: the first case with M, N > 1 */
}
END_TEST

START_TEST(gemm_checker_sums_find_one_bad_element)
{
    grade("gemm", "gemm_host_one_bad_element", 0, 240);
    expect(CL_V_WRONG, "C[2047][1365]"); /* 4095x4097x512, the first case checked by sums */
}
END_TEST

int main(void)
{
    /* the fixture home: the self-test lab, plus the reduce and gemm labs (symlinks) */
    setenv("CUDALAB_HOME", TEST_SOURCE_DIR "/tests/fixtures/home", 1);
    Suite *s = suite_create("engine");
    TCase *tc = tcase_create("engine");
    tcase_set_timeout(tc, 300);
    tcase_add_checked_fixture(tc, NULL, teardown);
    tcase_add_test(tc, good_passes_every_case);
    tcase_add_test(tc, good_bench_runs_and_verifies_timed_runs);
    tcase_add_test(tc, wrong_names_case_index_expected_got);
    tcase_add_test(tc, first_failing_case_decides);
    tcase_add_test(tc, unwritten_output_is_caught);
    tcase_add_test(tc, hang_times_out);
    tcase_add_test(tc, crash_is_a_verdict);
    tcase_add_test(tc, exit_without_verdict_fails);
    tcase_add_test(tc, printed_fake_verdict_is_only_output);
    tcase_add_test(tc, forged_verdict_line_voids_the_run);
    tcase_add_test(tc, out_of_bounds_write);
    tcase_add_test(tc, modified_input);
    tcase_add_test(tc, cached_result_caught_in_timed_runs);
    tcase_add_test(tc, missing_symbol);
    tcase_add_test(tc, missing_file);
    tcase_add_test(tc, chatty_output_capped_and_clean);
    tcase_add_test(tc, forked_children_do_not_survive);
    tcase_add_test(tc, file_size_limit_stops_a_disk_filler);
    tcase_add_test(tc, seed_reproduces_inputs);
    tcase_add_test(tc, reduce_checker_accepts_a_correct_sum);
    tcase_add_test(tc, reduce_checker_accepts_serial_fp32);
    tcase_add_test(tc, reduce_checker_catches_a_dropped_tail);
    tcase_add_test(tc, gemm_checker_accepts_fp32_accumulation);
    tcase_add_test(tc, gemm_checker_catches_b_read_column_major);
    tcase_add_test(tc, gemm_checker_b_column_major_first_wrong_row_at_another_seed);
    tcase_add_test(tc, gemm_checker_catches_an_unwritten_corner);
    tcase_add_test(tc, gemm_checker_sums_find_one_bad_element);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
