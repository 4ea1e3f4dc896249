/* test_graph_labs.c: the topo_sort and paged_attention checkers, driven through the whole
 * engine (host-backend runner) by plain-C solutions: a right one passes every case, and
 * the mistakes of the planted GPU solutions get `wrong` with a message that says where.
 * topo_sort runs its real lab.yaml (1M-node graphs included); paged_attention a copy with
 * small cases (tests/fixtures/graph_home), since a CPU attention over the real 1 GiB cache
 * takes minutes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grader/grade.h"
#include "testutil.h"

static cl_result r;

static void grade(const char *lab, const char *solution, int bench)
{
    tu_grade_host(&r, (tu_grade){.lab = lab, .solution = solution, .bench = bench, .no_reference = 1, .timeout_s = 280});
}

static void expect(cl_verdict v, const char *needle) { tu_expect(&r, v, needle); }

static void teardown(void) { cl_result_free(&r); }

START_TEST(topo_kahn_passes_every_case)
{
    grade("topo_sort", "topo_sort_host", 0);
    expect(CL_V_CORRECT, NULL);
    ck_assert_int_eq(r.passed, r.total);
    ck_assert_int_ge(r.total, 14);
}
END_TEST

START_TEST(topo_bench_reports_the_cpu_kahn)
{
    grade("topo_sort", "topo_sort_host", 1);
    ck_assert_msg(r.verdict != CL_V_WRONG && r.verdict != CL_V_ERROR, "verdict %s: %s",
                  cl_verdict_name(r.verdict), r.message ? r.message : "");
    int found = 0;
    for (int i = 0; i < r.ncases; i++)
        found |= tu_contains(r.cases[i].shape, "CPU Kahn (1 thread)");
    ck_assert_msg(found, "no case reports the CPU Kahn time in its shape");
}
END_TEST

START_TEST(topo_bfs_order_goes_backward)
{
    grade("topo_sort", "topo_sort_host_bfs", 0);
    expect(CL_V_WRONG, "goes backward");
}
END_TEST

/* Not a permutation: found on every core, then reported from the first slot at fault. */
START_TEST(topo_repeated_node_is_wrong)
{
    grade("topo_sort", "topo_sort_host_repeat", 0);
    expect(CL_V_WRONG, "appears twice");
}
END_TEST

START_TEST(topo_not_a_node_is_wrong)
{
    grade("topo_sort", "topo_sort_host_not_a_node", 0);
    expect(CL_V_WRONG, "not a node id");
}
END_TEST

/* A cycle called acyclic: the message also names the edge the order breaks (every order of
 * a graph with a cycle breaks one; here the self-loop, the first case with a cycle). */
START_TEST(topo_missed_cycle_is_wrong)
{
    grade("topo_sort", "topo_sort_host_misses_cycle", 0);
    expect(CL_V_WRONG, "has a cycle");
    ck_assert_msg(tu_contains(r.message, "edge 0 -> 0 goes backward"), "the broken edge: %s", r.message);
}
END_TEST

/* The BFS mistake with the luckiest order inside each round: at seed 1444 no edge of the
 * small DAGs reaches back to an earlier round, so the first case it fails has a cycle; the
 * message still shows an edge going backward (gpu_topo_sort_planted_bfs_order expects it). */
START_TEST(topo_lucky_bfs_order_goes_backward_on_a_cycle)
{
    tu_grade_host(&r, (tu_grade){.lab = "topo_sort", .solution = "topo_sort_host_bfs_lucky", .seed = 1444,
                                 .no_reference = 1, .timeout_s = 280});
    expect(CL_V_WRONG, "case 'self-loop in a DAG'");
    ck_assert_msg(tu_contains(r.message, "has a cycle") && tu_contains(r.message, "goes backward"),
                  "the cycle and the broken edge: %s", r.message);
}
END_TEST

/* The timed runs after the CPU Kahn stops being timed are checked as hard as the others:
 * every edge, and the acyclic bench graph known to be acyclic. */
START_TEST(topo_timed_lie_backward_edge_is_wrong)
{
    grade("topo_sort", "topo_sort_host_lies_when_timed", 1);
    expect(CL_V_WRONG, "goes backward");
    ck_assert_msg(tu_contains(r.message, "timed run"), "caught at a timed run: %s", r.message);
}
END_TEST

START_TEST(topo_timed_false_cycle_is_wrong)
{
    grade("topo_sort", "topo_sort_host_cycle_when_timed", 1);
    expect(CL_V_WRONG, "*status = 1");
    ck_assert_msg(tu_contains(r.message, "timed run"), "caught at a timed run: %s", r.message);
}
END_TEST

START_TEST(paged_fp32_passes_every_case)
{
    grade("paged_attention", "paged_attention_host", 0);
    expect(CL_V_CORRECT, NULL);
    ck_assert_int_eq(r.passed, r.total);
}
END_TEST

START_TEST(paged_contiguous_cache_is_wrong)
{
    grade("paged_attention", "paged_attention_host_contiguous", 0);
    expect(CL_V_WRONG, "> bound");
}
END_TEST

START_TEST(paged_missing_max_is_wrong_on_large_logits)
{
    grade("paged_attention", "paged_attention_host_no_max", 0);
    expect(CL_V_WRONG, "large logits");
}
END_TEST

int main(void)
{
    setenv("CUDALAB_HOME", TEST_SOURCE_DIR "/tests/fixtures/graph_home", 1);
    Suite *s = suite_create("graph_labs");
    TCase *tc = tcase_create("graph_labs");
    tcase_set_timeout(tc, 300);
    tcase_add_checked_fixture(tc, NULL, teardown);
    tcase_add_test(tc, topo_kahn_passes_every_case);
    tcase_add_test(tc, topo_bench_reports_the_cpu_kahn);
    tcase_add_test(tc, topo_bfs_order_goes_backward);
    tcase_add_test(tc, topo_repeated_node_is_wrong);
    tcase_add_test(tc, topo_not_a_node_is_wrong);
    tcase_add_test(tc, topo_missed_cycle_is_wrong);
    tcase_add_test(tc, topo_lucky_bfs_order_goes_backward_on_a_cycle);
    tcase_add_test(tc, topo_timed_lie_backward_edge_is_wrong);
    tcase_add_test(tc, topo_timed_false_cycle_is_wrong);
    tcase_add_test(tc, paged_fp32_passes_every_case);
    tcase_add_test(tc, paged_contiguous_cache_is_wrong);
    tcase_add_test(tc, paged_missing_max_is_wrong_on_large_logits);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
