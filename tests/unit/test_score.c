/* test_score.c: metrics, fractions of the ceiling, tiers and points from lab.yaml, and
 * where well-known kernels land (docs/grading-policy.md, "Score"). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "grader/labconf.h"
#include "grader/report.h"
#include "grader/score.h"
#include "testutil.h"

static cl_lab lab; /* reduce: bandwidth against the read-only ceiling, geometric mean */

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

/* A correct result whose bench cases reached the given fractions of a 1000 GB/s ceiling
 * (whichever bandwidth the lab names), scored by lab l. */
static void graded(const cl_lab *l, cl_result *r, const double *fractions, int n)
{
    cl_result_init(r);
    r->verdict = CL_V_CORRECT;
    r->passed = r->total = 5;
    r->did_bench = 1;
    r->copy_gbps = r->read_gbps = r->write_gbps = 1000.0;
    for (int i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "case %d", i);
        bench_case(r, name, 1.0, fractions[i] * 1e9); /* 1 ms: GB/s = fraction x 1000 */
        if (l->ceiling == CL_CEIL_CUBLAS)
            r->cases[i].flops = fractions[i] * 1e9, r->cases[i].ceiling = 1.0; /* TFLOP/s */
    }
    cl_score_bench(l, r);
    cl_score_total(l, r);
}

static void load(const char *name, cl_lab *l)
{
    cl_err err;
    ck_assert_msg(cl_lab_load(TEST_SOURCE_DIR, name, l, &err) == 0, "%s", err.msg);
}

START_TEST(tiers_from_fractions)
{
    ck_assert_str_eq(cl_tier_for(&lab, 0.95), "excellent");
    ck_assert_str_eq(cl_tier_for(&lab, lab.tier_excellent), "excellent");
    ck_assert_str_eq(cl_tier_for(&lab, lab.tier_excellent - 0.01), "good");
    ck_assert_str_eq(cl_tier_for(&lab, lab.tier_pass), "pass");
    ck_assert_str_eq(cl_tier_for(&lab, lab.tier_pass - 0.01), "slow");
}
END_TEST

START_TEST(the_lab_names_its_ceiling)
{
    /* reduce only reads: divided by the read-only bandwidth, not the copy bandwidth */
    ck_assert_int_eq(lab.ceiling, CL_CEIL_READ);
    cl_result r;
    cl_result_init(&r);
    r.copy_gbps = 3000.0;
    r.read_gbps = 3200.0;
    r.write_gbps = 2900.0;
    bench_case(&r, "a", 1.0, 2.88e9); /* 2880 GB/s of 3200: 90% */
    cl_score_bench(&lab, &r);
    ck_assert_double_eq_tol(r.cases[0].metric, 2880.0, 1e-6);
    ck_assert_double_eq_tol(r.cases[0].ceiling, 3200.0, 1e-9);
    ck_assert_double_eq_tol(r.cases[0].fraction, 0.9, 1e-9);
    cl_lab w = lab;
    w.ceiling = CL_CEIL_WRITE;
    cl_score_bench(&w, &r);
    ck_assert_double_eq_tol(r.cases[0].ceiling, 2900.0, 1e-9);
    w.ceiling = CL_CEIL_COPY;
    cl_score_bench(&w, &r);
    ck_assert_double_eq_tol(r.cases[0].ceiling, 3000.0, 1e-9);
    /* a report re-scored without the figure keeps the ceiling it was graded with */
    r.read_gbps = 0;
    cl_score_bench(&lab, &r);
    ck_assert_double_eq_tol(r.cases[0].ceiling, 3000.0, 1e-9);
    cl_result_free(&r);
}
END_TEST

START_TEST(full_points_at_excellent)
{
    cl_result r;
    double f[] = {0.95};
    graded(&lab, &r, f, 1);
    ck_assert_str_eq(r.tier, "excellent");
    ck_assert_int_eq(r.verdict, CL_V_EXCELLENT);
    ck_assert_double_eq(r.score, 100);
    ck_assert_double_eq(r.max_score, 100);
    ck_assert_int_eq(r.limiting_case, -1); /* nothing holds it down */
    cl_result_free(&r);
}
END_TEST

START_TEST(points_interpolate_between_thresholds)
{
    /* exactly at each threshold: that tier's points; halfway: halfway */
    ck_assert_double_eq_tol(cl_perf_points(&lab, lab.tier_pass), lab.w_pass, 1e-9);
    ck_assert_double_eq_tol(cl_perf_points(&lab, lab.tier_good), lab.w_good, 1e-9);
    ck_assert_double_eq_tol(cl_perf_points(&lab, lab.tier_excellent), lab.w_excellent, 1e-9);
    ck_assert_double_eq_tol(cl_perf_points(&lab, 2.0), lab.w_excellent, 1e-9);
    ck_assert_double_eq_tol(cl_perf_points(&lab, (lab.tier_pass + lab.tier_good) / 2),
                            (lab.w_pass + lab.w_good) / 2, 1e-9);
    ck_assert_double_eq_tol(cl_perf_points(&lab, lab.tier_pass / 2), lab.w_pass / 2, 1e-9);
    ck_assert_double_eq(cl_perf_points(&lab, 0), 0);
    /* strictly increasing below excellent: two kernels at different speeds never tie */
    double prev = -1;
    for (double f = 0.001; f < lab.tier_excellent; f += 0.001) {
        double p = cl_perf_points(&lab, f);
        ck_assert_msg(p > prev, "points at %.3f (%.4f) not above points at %.3f (%.4f)", f, p, f - 0.001, prev);
        prev = p;
    }
    /* equal thresholds (a course config may set pass = good) */
    cl_lab t = lab;
    t.tier_good = t.tier_pass;
    ck_assert_double_eq_tol(cl_perf_points(&t, t.tier_pass), t.w_good, 1e-9);
}
END_TEST

START_TEST(geometric_mean_and_the_case_that_holds_it_down)
{
    cl_result r;
    double f[] = {0.95, 0.30}; /* one excellent case, one slow one */
    graded(&lab, &r, f, 2);
    /* capped at the excellent threshold: the fast case cannot buy back the slow one */
    double want = sqrt(lab.tier_excellent * 0.30);
    ck_assert_double_eq_tol(r.perf_fraction, want, 1e-9);
    ck_assert_str_eq(r.tier, cl_tier_for(&lab, want));
    ck_assert_int_eq(r.limiting_case, 1);
    ck_assert_str_eq(r.cases[0].tier, "excellent");
    ck_assert_str_eq(r.cases[1].tier, "slow");
    ck_assert_double_eq_tol(r.score, 60 + round(cl_perf_points(&lab, want) * 10) / 10, 1e-9);
    cl_result_free(&r);
    /* score.aggregate: slowest takes the slowest case alone */
    cl_lab s = lab;
    s.aggregate = CL_AGG_SLOWEST;
    graded(&s, &r, f, 2);
    ck_assert_double_eq_tol(r.perf_fraction, 0.30, 1e-9);
    ck_assert_str_eq(r.tier, "slow");
    ck_assert_int_eq(r.verdict, CL_V_SLOW);
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
    ck_assert_double_eq_tol(r.score, 45.0, 1e-9); /* 60 x 9/12, no performance points */
    ck_assert_int_eq(r.verdict, CL_V_WRONG);
    cl_result_free(&r);
}
END_TEST

START_TEST(reference_ratio)
{
    cl_result r;
    cl_result_init(&r);
    r.read_gbps = 1000.0;
    bench_case(&r, "a", 2.0, 1e9);
    r.cases[0].ref_ms = 1.0;
    cl_score_bench(&lab, &r);
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
    cl_score_bench(&t, &r);
    ck_assert_double_eq_tol(r.cases[0].metric, 5e8, 1e-3);
    ck_assert_double_eq_tol(r.cases[0].ceiling, 1e9, 1e-3);
    ck_assert_double_eq_tol(r.cases[0].fraction, 0.5, 1e-12);
    ck_assert_str_eq(r.cases[0].tier, cl_tier_for(&t, 0.5));
    /* a hundred times slower: slow */
    r.cases[0].median_ms = 100.0;
    cl_score_bench(&t, &r);
    ck_assert_double_eq_tol(r.cases[0].fraction, 0.01, 1e-12);
    ck_assert_str_eq(r.cases[0].tier, "slow");
    cl_result_free(&r);
}
END_TEST

START_TEST(slow_kernels_are_told_apart)
{
    /* below pass every correct kernel used to score 60; now a faster one scores more */
    cl_result a, b;
    double fa[] = {0.007}, fb[] = {0.40};
    graded(&lab, &a, fa, 1);
    graded(&lab, &b, fb, 1);
    ck_assert_int_eq(a.verdict, CL_V_SLOW);
    ck_assert_int_eq(b.verdict, CL_V_SLOW);
    ck_assert_double_lt(a.score, 61);
    ck_assert_double_gt(b.score, a.score + 10);
    ck_assert_double_lt(b.score, 60 + lab.w_pass);
    cl_result_free(&a);
    cl_result_free(&b);
}
END_TEST

/* ---- well-known kernels, at fractions measured on an H100 (docs/PERFORMANCE.md and
 * docs/gemm-ladder.md; one public figure for the textbook transpose), graded by the labs'
 * own lab.yaml: each lands where someone who knows these kernels would put it ---- */

static const char *lands(const char *labname, const double *f, int n, double *score, int *limiting)
{
    cl_lab l;
    load(labname, &l);
    cl_result r;
    graded(&l, &r, f, n);
    static char tier[16];
    snprintf(tier, sizeof tier, "%s", r.tier ? r.tier : "-");
    *score = r.score;
    *limiting = r.limiting_case;
    cl_result_free(&r);
    cl_lab_free(&l);
    return tier;
}

START_TEST(softmax_kernels)
{
    double s_ref, s_torch, s_block, s_thread;
    int lim;
    /* the reference: 99.5 / 99.9 / 95.4% of copy at widths 1024 / 4096 / 32768 */
    double ref[] = {0.995, 0.999, 0.954};
    ck_assert_str_eq(lands("softmax", ref, 3, &s_ref, &lim), "excellent");
    ck_assert_double_eq(s_ref, 100);
    /* torch.softmax (a warp per row up to 1024, a block per row above): 92.5 / 75.9 / 51.5% */
    double torch[] = {0.925, 0.759, 0.515};
    ck_assert_str_eq(lands("softmax", torch, 3, &s_torch, &lim), "good");
    ck_assert_int_eq(lim, 2); /* the 32768-wide rows hold it down */
    /* a block per row with few bytes in flight (planted block_per_row_slow): 20.6 / 61 / 67% */
    double block[] = {0.206, 0.61, 0.67};
    ck_assert_str_eq(lands("softmax", block, 3, &s_block, &lim), "slow");
    ck_assert_int_eq(lim, 0);
    /* one thread per row: 0.7% of copy */
    double thread[] = {0.007, 0.007, 0.007};
    ck_assert_str_eq(lands("softmax", thread, 3, &s_thread, &lim), "slow");
    ck_assert(s_ref > s_torch && s_torch > s_block && s_block > s_thread + 10);
    ck_assert_double_lt(s_thread, 61);
}
END_TEST

START_TEST(layernorm_kernels)
{
    double s_ref, s_welford, s_split;
    int lim;
    /* the reference: 98.2 / 98.0 / 94.2% of copy (run 8, docs/PERFORMANCE.md) */
    double ref[] = {0.982, 0.980, 0.942};
    ck_assert_str_eq(lands("layernorm", ref, 3, &s_ref, &lim), "excellent");
    /* F.layer_norm, PyTorch's Welford kernel: 78.7 / 64.7 / 49.1%: a production kernel that
     * leaves half the bandwidth at wide rows: above pass, not yet good */
    double welford[] = {0.787, 0.647, 0.491};
    ck_assert_str_eq(lands("layernorm", welford, 3, &s_welford, &lim), "pass");
    ck_assert_int_eq(lim, 2);
    ck_assert_double_gt(s_welford, 85);
    /* the first reference, whose 32768 path split rows over blocks: 91.6 / 91.6 / 54.8% */
    double split[] = {0.916, 0.916, 0.548};
    ck_assert_str_eq(lands("layernorm", split, 3, &s_split, &lim), "good");
    ck_assert(s_ref > s_split && s_split > s_welford);
}
END_TEST

START_TEST(transpose_kernels)
{
    double s_ref, s_tile, s_naive;
    int lim;
    double ref[] = {0.954, 0.951};
    ck_assert_str_eq(lands("transpose", ref, 2, &s_ref, &lim), "excellent");
    /* the textbook 32 x 33 shared-memory tile: about 86% of copy (public A100 figure) */
    double tile[] = {0.86, 0.86};
    const char *t = lands("transpose", tile, 2, &s_tile, &lim);
    ck_assert_msg(!strcmp(t, "good") || !strcmp(t, "excellent"), "tiled transpose: %s", t);
    /* writes along columns (planted uncoalesced_write): 13.6 / 11.8% */
    double naive[] = {0.136, 0.118};
    ck_assert_str_eq(lands("transpose", naive, 2, &s_naive, &lim), "slow");
    ck_assert_int_eq(lim, 1);
    ck_assert(s_ref >= s_tile && s_tile > s_naive);
}
END_TEST

START_TEST(gemm_ladder)
{
    /* fractions of cuBLAS at 4096^3, 8192^3, 8192^2 x 2048 (docs/gemm-ladder.md) */
    static const struct {
        const char *rung, *tier;
        double f[3];
    } rungs[] = {
        {"WMMA", "slow", {0.071, 0.071, 0.071}},
        {"mma.sync + ldmatrix", "pass", {0.296, 0.309, 0.299}},
        {"cp.async", "pass", {0.398, 0.385, 0.392}},
        {"wgmma + TMA", "good", {0.850, 0.716, 0.771}},
        {"reference", "excellent", {0.990, 1.048, 1.016}},
    };
    double prev = 0;
    for (size_t i = 0; i < sizeof rungs / sizeof rungs[0]; i++) {
        double s;
        int lim;
        const char *t = lands("gemm", rungs[i].f, 3, &s, &lim);
        ck_assert_msg(!strcmp(t, rungs[i].tier), "%s: %s, want %s", rungs[i].rung, t, rungs[i].tier);
        ck_assert_msg(s > prev, "%s scores %.1f, not above the rung before (%.1f)", rungs[i].rung, s, prev);
        prev = s;
    }
}
END_TEST

/* reduce's lab graded with these fractions on a "Test GPU" of 1000 GB/s, and its text
 * report (the caller frees it) */
static char *graded_report(cl_result *r, const double *fractions, int n)
{
    graded(&lab, r, fractions, n);
    snprintf(r->gpu, sizeof r->gpu, "Test GPU");
    r->read_gbps = 1000.0;
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    cl_report_text(r, mem, 0);
    fclose(mem);
    return text;
}

/* Every case past the excellent tier: the aggregate is the cap, and the report says so
 * rather than leaving 80% next to cases at 97-98%. */
START_TEST(the_report_says_when_the_aggregate_is_the_cap)
{
    cl_result r;
    double f[] = {0.98, 0.97};
    char *text = graded_report(&r, f, 2);
    ck_assert_msg(strstr(text, "98.0%") && strstr(text, "97.0%"), "%s", text);
    ck_assert_msg(strstr(text, "(each case counted up to the excellent tier) -> "), "%s", text);
    free(text);
}
END_TEST

START_TEST(the_report_names_the_case_that_holds_it_down)
{
    cl_result r;
    double f[] = {0.95, 0.30};
    /* text: every case's fraction and tier, the aggregate, the points, the limiting case */
    char *text = graded_report(&r, f, 2);
    ck_assert_msg(strstr(text, "read-only bandwidth 1000 GB/s"), "%s", text);
    ck_assert_msg(strstr(text, "95.0%") && strstr(text, "30.0%") && strstr(text, "slow"), "%s", text);
    ck_assert_msg(strstr(text, "geometric mean"), "%s", text);
    ck_assert_msg(strstr(text, "held down by 'case 1' (30.0%, slow)"), "%s", text);
    ck_assert_msg(!strstr(text, "counted up to"), "nothing was capped: %s", text);
    free(text);
    /* JSON, and back (the classroom keeps reports as JSON) */
    json_t *j = cl_result_to_json(&r);
    json_t *perf = json_object_get(j, "performance");
    ck_assert_str_eq(json_string_value(json_object_get(perf, "limited_by")), "case 1");
    ck_assert_str_eq(json_string_value(json_object_get(perf, "ceiling")), "read-only bandwidth");
    ck_assert_str_eq(json_string_value(json_object_get(perf, "aggregate")), "geomean");
    ck_assert_double_eq_tol(json_number_value(json_object_get(perf, "fraction")), r.perf_fraction, 1e-12);
    ck_assert_double_eq_tol(json_number_value(json_object_get(perf, "points")), r.perf_points, 1e-12);
    cl_result back;
    cl_result_from_json(j, &back);
    ck_assert_int_eq(back.limiting_case, 1);
    ck_assert_int_eq(back.ceiling, CL_CEIL_READ);
    ck_assert_double_eq_tol(back.read_gbps, 1000.0, 1e-9);
    /* re-scored from the report (a course's weights): the same fraction */
    cl_score_bench(&lab, &back);
    ck_assert_double_eq_tol(back.perf_fraction, r.perf_fraction, 1e-12);
    json_decref(j);
    cl_result_free(&back);
    cl_result_free(&r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("score");
    TCase *tc = tcase_create("score");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, tiers_from_fractions);
    tcase_add_test(tc, the_lab_names_its_ceiling);
    tcase_add_test(tc, full_points_at_excellent);
    tcase_add_test(tc, points_interpolate_between_thresholds);
    tcase_add_test(tc, geometric_mean_and_the_case_that_holds_it_down);
    tcase_add_test(tc, correctness_gates_performance);
    tcase_add_test(tc, reference_ratio);
    tcase_add_test(tc, throughput_against_the_reference);
    tcase_add_test(tc, slow_kernels_are_told_apart);
    tcase_add_test(tc, softmax_kernels);
    tcase_add_test(tc, layernorm_kernels);
    tcase_add_test(tc, transpose_kernels);
    tcase_add_test(tc, gemm_ladder);
    tcase_add_test(tc, the_report_names_the_case_that_holds_it_down);
    tcase_add_test(tc, the_report_says_when_the_aggregate_is_the_cap);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
