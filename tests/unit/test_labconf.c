/* test_labconf.c: lab.yaml parsing, and every schema error naming its file and line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grader/labconf.h"
#include "paths.h"
#include "testutil.h"

static const char *GOOD =
    "name: demo\n"
    "title: {en: Demo, zh: 演示}\n"
    "difficulty: 3\n"
    "topics: [a, b]\n"
    "entry: demo_fn\n"
    "signature: \"void demo_fn(float *x)\"\n"
    "metric: bandwidth\n"
    "ceiling: copy\n"
    "timeout: {test: 5, bench: 7}\n"
    "banned: {headers: [cublas_v2.h], libraries: [cublas]}\n"
    "tolerance:\n"
    "  rel: {value: 1e-5, why: \"fp32 rounding of a few operations\"}\n"
    "cases:\n"
    "  - {name: small, n: 1, dist: uniform}\n"
    "  - {name: big, n: max, sanitize: false}\n"
    "bench:\n"
    "  - {name: b, n: 2^20, runs: 25}\n"
    "tiers: {pass: 0.5, good: 0.75, excellent: 0.9}\n"
    "score: {correctness: 60, pass: 20, good: 30, excellent: 40}\n"
    "hints:\n"
    "  - {en: one, zh: 一}\n";

static char *dir;

static void setup(void) { dir = tu_tempdir("labconf"); }
static void teardown(void) { tu_rmtree(dir); free(dir); }

/* Loads text with one line replaced (or appended); returns rc and fills err. */
static int load_variant(const char *from, const char *to, cl_err *err)
{
    char text[4096];
    const char *p = strstr(GOOD, from);
    ck_assert_msg(p != NULL, "fixture lacks '%s'", from);
    snprintf(text, sizeof text, "%.*s%s%s", (int)(p - GOOD), GOOD, to, p + strlen(from));
    const char *path = tu_write(dir, "lab.yaml", text);
    cl_lab lab;
    int rc = cl_lab_load_file(path, &lab, err);
    if (rc == 0)
        cl_lab_free(&lab);
    return rc;
}

START_TEST(parses_everything)
{
    cl_lab lab;
    cl_err err;
    const char *path = tu_write(dir, "lab.yaml", GOOD);
    ck_assert_msg(cl_lab_load_file(path, &lab, &err) == 0, "%s", err.msg);
    ck_assert_str_eq(lab.name, "demo");
    ck_assert_str_eq(lab.title.zh, "演示");
    ck_assert_int_eq(lab.difficulty, 3);
    ck_assert_int_eq(lab.ntopics, 2);
    ck_assert_int_eq(lab.metric, CL_METRIC_BANDWIDTH);
    ck_assert_int_eq(lab.ceiling, CL_CEIL_COPY);
    ck_assert_double_eq(lab.timeout_bench_s, 7);
    ck_assert_int_eq(lab.nbanned_libs, 1);
    ck_assert_int_eq(lab.ncases, 3);
    ck_assert_int_eq(lab.cases[0].bench, 0);
    ck_assert_int_eq(lab.cases[0].sanitize, CL_SAN_ALL);
    ck_assert_int_eq(lab.cases[1].sanitize, 0);
    ck_assert_str_eq(cl_case_param(&lab.cases[1], "n"), "max");
    ck_assert_int_eq(lab.cases[2].bench, 1);
    ck_assert_int_eq(lab.cases[2].runs, 25);
    ck_assert_int_eq(lab.cases[2].line, 17);
    ck_assert_double_eq_tol(cl_lab_tol(&lab, "rel")->value, 1e-5, 1e-12);
    ck_assert_double_eq(cl_lab_max_score(&lab), 100);
    ck_assert_int_eq(lab.nhints, 1);
    cl_lab_free(&lab);
}
END_TEST

#define EXPECT_ERROR(from, to, needle)                                                        \
    do {                                                                                      \
        cl_err err;                                                                           \
        ck_assert_int_eq(load_variant(from, to, &err), -1);                                   \
        ck_assert_msg(tu_contains(err.msg, needle), "wanted '%s' in: %s", needle, err.msg);    \
        ck_assert_msg(tu_contains(err.msg, "lab.yaml:"), "no file:line in: %s", err.msg);      \
    } while (0)

START_TEST(unknown_key_names_its_line)
{
    EXPECT_ERROR("difficulty: 3\n", "difficulty: 3\ndifficuly: 4\n", "lab.yaml:4:1: unknown key 'difficuly'");
}
END_TEST

START_TEST(missing_key)
{
    EXPECT_ERROR("entry: demo_fn\n", "", "missing key 'entry'");
}
END_TEST

START_TEST(difficulty_range)
{
    EXPECT_ERROR("difficulty: 3", "difficulty: 9", "lab.yaml:3:13: difficulty must be 1..5");
}
END_TEST

START_TEST(tolerance_needs_why)
{
    EXPECT_ERROR("why: \"fp32 rounding of a few operations\"", "because: x", "unknown key 'because'");
    EXPECT_ERROR(", why: \"fp32 rounding of a few operations\"", "", "needs a 'why'");
}
END_TEST

START_TEST(duplicate_case)
{
    EXPECT_ERROR("name: big,", "name: small,", "lab.yaml:15:5: duplicate case name 'small' (first at line 14)");
}
END_TEST

/* "sanitize": true (every tool), false, or the one tool a case is run under */
START_TEST(sanitize_true_false_or_one_tool)
{
    char text[4096];
    const char *p = strstr(GOOD, "sanitize: false");
    snprintf(text, sizeof text, "%.*ssanitize: memcheck%s", (int)(p - GOOD), GOOD, p + strlen("sanitize: false"));
    cl_lab lab;
    cl_err err;
    ck_assert_msg(cl_lab_load_file(tu_write(dir, "lab.yaml", text), &lab, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(lab.cases[1].sanitize, cl_sanitize_bit("memcheck"));
    ck_assert_int_eq(cl_sanitize_bit("memcheck") & cl_sanitize_bit("racecheck"), 0);
    ck_assert_int_eq(cl_sanitize_bit("memcheck") | cl_sanitize_bit("racecheck"), CL_SAN_ALL);
    ck_assert_int_eq(cl_sanitize_bit("initcheck"), 0);
    ck_assert_int_eq(lab.cases[2].sanitize, 0); /* bench cases never run under the sanitizer */
    cl_lab_free(&lab);
    EXPECT_ERROR("sanitize: false", "sanitize: maybe",
                 "lab.yaml:15:35: sanitize must be true, false or one compute-sanitizer tool (memcheck, racecheck)");
}
END_TEST

START_TEST(runs_at_least_20)
{
    EXPECT_ERROR("runs: 25", "runs: 5", "runs must be between 20 and 10000");
}
END_TEST

START_TEST(bad_metric_and_ceiling)
{
    EXPECT_ERROR("metric: bandwidth", "metric: speed", "lab.yaml:7:9: metric must be");
    EXPECT_ERROR("ceiling: copy", "ceiling: cublas", "ceiling 'cublas' goes with metric 'tflops'");
}
END_TEST

START_TEST(bandwidth_ceilings_and_aggregate)
{
    /* read and write name the device's read-only and write-only bandwidth; bandwidth only */
    cl_err err;
    cl_lab lab;
    static const struct { const char *text; int ceiling; } ok[] = {
        {"ceiling: read", CL_CEIL_READ}, {"ceiling: write", CL_CEIL_WRITE}, {"ceiling: copy", CL_CEIL_COPY}};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        ck_assert_int_eq(load_variant("ceiling: copy", ok[i].text, &err), 0);
        char path[1100];
        snprintf(path, sizeof path, "%s/lab.yaml", dir);
        ck_assert_msg(cl_lab_load_file(path, &lab, &err) == 0, "%s", err.msg);
        ck_assert_int_eq(lab.ceiling, ok[i].ceiling);
        ck_assert_int_eq(lab.aggregate, CL_AGG_GEOMEAN); /* the default */
        cl_lab_free(&lab);
    }
    EXPECT_ERROR("ceiling: copy", "ceiling: disk", "ceiling must be copy, read, write, cublas or reference");
    EXPECT_ERROR("metric: bandwidth\nceiling: copy", "metric: tflops\nceiling: read",
                 "ceiling 'read' goes with metric 'bandwidth'");
    /* score.aggregate: geomean or slowest */
    ck_assert_int_eq(load_variant("excellent: 40}", "excellent: 40, aggregate: slowest}", &err), 0);
    char path[1100];
    snprintf(path, sizeof path, "%s/lab.yaml", dir);
    ck_assert_msg(cl_lab_load_file(path, &lab, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(lab.aggregate, CL_AGG_SLOWEST);
    cl_lab_free(&lab);
    EXPECT_ERROR("excellent: 40}", "excellent: 40, aggregate: median}",
                 "lab.yaml:19:72: score.aggregate must be geomean or slowest, not 'median'");
}
END_TEST

START_TEST(tiers_ordered)
{
    EXPECT_ERROR("good: 0.75", "good: 0.95", "tiers must satisfy");
}
END_TEST

START_TEST(bilingual_text)
{
    EXPECT_ERROR("zh: 演示}", "zh: \"\"}", "must both be non-empty");
    EXPECT_ERROR("{en: one, zh: 一}", "{en: one}", "missing key 'zh'");
}
END_TEST

START_TEST(yaml_syntax_error_has_line)
{
    EXPECT_ERROR("topics: [a, b]\n", "topics: [a, b\n", "YAML syntax error");
}
END_TEST

START_TEST(signature_mentions_entry)
{
    EXPECT_ERROR("void demo_fn(float *x)", "void other(float *x)", "does not mention the entry point");
}
END_TEST

START_TEST(real_labs_load)
{
    char **names;
    int n;
    cl_err err;
    ck_assert_int_eq(cl_lab_names(TEST_SOURCE_DIR, &names, &n, &err), 0);
    ck_assert_int_ge(n, 1);
    for (int i = 0; i < n; i++) {
        cl_lab lab;
        ck_assert_msg(cl_lab_load(TEST_SOURCE_DIR, names[i], &lab, &err) == 0, "%s", err.msg);
        cl_lab_free(&lab);
    }
    cl_lab_names_free(names, n);
}
END_TEST

static void count_problem(void *ctx, const char *msg)
{
    (void)msg;
    (*(int *)ctx)++;
}

START_TEST(lint_finds_missing_parts)
{
    /* a home with one lab that has only lab.yaml */
    char path[4096];
    snprintf(path, sizeof path, "%s/labs/demo", dir);
    cl_err err;
    ck_assert_int_eq(cl_mkdirs(path, &err), 0);
    tu_write(path, "lab.yaml", GOOD);
    snprintf(path, sizeof path, "%s/grader/labs", dir);
    ck_assert_int_eq(cl_mkdirs(path, &err), 0);
    int count = 0;
    int problems = cl_lab_lint_all(dir, count_problem, &count);
    ck_assert_int_eq(problems, 4); /* skeleton, README, reference, checker */
    ck_assert_int_eq(count, 4);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("labconf");
    TCase *tc = tcase_create("lab.yaml");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, parses_everything);
    tcase_add_test(tc, unknown_key_names_its_line);
    tcase_add_test(tc, missing_key);
    tcase_add_test(tc, sanitize_true_false_or_one_tool);
    tcase_add_test(tc, difficulty_range);
    tcase_add_test(tc, tolerance_needs_why);
    tcase_add_test(tc, duplicate_case);
    tcase_add_test(tc, runs_at_least_20);
    tcase_add_test(tc, bad_metric_and_ceiling);
    tcase_add_test(tc, bandwidth_ceilings_and_aggregate);
    tcase_add_test(tc, tiers_ordered);
    tcase_add_test(tc, bilingual_text);
    tcase_add_test(tc, yaml_syntax_error_has_line);
    tcase_add_test(tc, signature_mentions_entry);
    tcase_add_test(tc, real_labs_load);
    tcase_add_test(tc, lint_finds_missing_parts);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
