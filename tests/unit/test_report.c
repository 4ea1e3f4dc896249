/* test_report.c: the JSON and JUnit emitters, including hostile text from solutions. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "grader/report.h"
#include "paths.h"
#include "testutil.h"

static void sample(cl_result *r)
{
    cl_result_init(r);
    snprintf(r->lab, sizeof r->lab, "reduce");
    snprintf(r->title, sizeof r->title, "Sum");
    r->seed = 1234;
    r->did_test = 1;
    r->compiled = 1;
    snprintf(r->arch, sizeof r->arch, "sm_90");
    r->ncases = 2;
    r->cases[0].name = strdup("n=33 <&>");
    r->cases[0].status = strdup("wrong");
    r->cases[0].message = strdup("off by \"a lot\"");
    r->cases[0].where = strdup("out[0]");
    r->cases[0].has_values = 1;
    r->cases[0].expected = 2.5;
    r->cases[0].got = 3.5;
    r->cases[1].name = strdup("2^28");
    r->cases[1].bench = 1;
    r->cases[1].status = strdup("pass");
    r->cases[1].runs = 30;
    r->cases[1].median_ms = 0.4;
    r->cases[1].bytes = 1073741828.0;
    r->cases[1].fraction = 0.91;
    r->cases[1].tier = "excellent";
    r->cases[1].ref_ms = 0.5;
    r->cases[1].ref_ratio = 1.25;
    r->cases[1].p90_ms = 0.41;
    r->cases[1].event_median_ms = 0.399;
    r->cases[1].bracket_median_ms = 0.87;
    r->cases[1].clock_offset_ms = 0.47;
    r->cases[1].off_stream_runs = 2;
    r->cases[1].voided_runs = 1;
    r->passed = 0;
    r->total = 1;
    /* a solution's output: invalid UTF-8 and control characters */
    r->output = strdup("bad \xff\xfe bytes \x01\x02 and <xml> & \"quotes\"\n");
    cl_result_set(r, CL_V_WRONG, "case 'n=33 <&>': off by \"a lot\"");
    r->score = 0;
    r->max_score = 100;
}

START_TEST(json_has_every_field)
{
    cl_result r;
    sample(&r);
    json_t *j = cl_result_to_json(&r);
    ck_assert_str_eq(json_string_value(json_object_get(j, "verdict")), "wrong");
    ck_assert_int_eq(json_integer_value(json_object_get(j, "seed")), 1234);
    json_t *cases = json_object_get(j, "cases");
    ck_assert_int_eq(json_array_size(cases), 2);
    json_t *c0 = json_array_get(cases, 0);
    ck_assert_str_eq(json_string_value(json_object_get(c0, "where")), "out[0]");
    ck_assert(json_number_value(json_object_get(c0, "expected")) == 2.5);
    json_t *b = json_object_get(json_array_get(cases, 1), "bench");
    ck_assert_str_eq(json_string_value(json_object_get(b, "tier")), "excellent");
    /* invalid UTF-8 was scrubbed, not dropped */
    const char *out = json_string_value(json_object_get(j, "output"));
    ck_assert_ptr_nonnull(out);
    ck_assert(tu_contains(out, "bad ?? bytes"));
    char *text = json_dumps(j, 0);
    ck_assert_ptr_nonnull(text);
    json_error_t je;
    json_t *back = json_loads(text, 0, &je);
    ck_assert_ptr_nonnull(back);
    json_decref(back);
    free(text);
    json_decref(j);
    cl_result_free(&r);
}
END_TEST

START_TEST(junit_well_formed_and_escaped)
{
    cl_result r;
    sample(&r);
    char *dir = tu_tempdir("junit");
    char path[4096];
    snprintf(path, sizeof path, "%s/report.xml", dir);
    cl_err err;
    const cl_result *rs[] = {&r};
    ck_assert_msg(cl_report_junit(rs, NULL, 1, path, &err) == 0, "%s", err.msg);
    char *xml;
    size_t n;
    ck_assert_int_eq(cl_read_file(path, 1 << 20, &xml, &n, &err), 0);
    ck_assert(tu_contains(xml, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"));
    ck_assert(tu_contains(xml, "tests=\"4\" failures=\"2\"")); /* compile, case, bench, verdict */
    ck_assert(tu_contains(xml, "name=\"test n=33 &lt;&amp;&gt;\""));
    ck_assert(tu_contains(xml, "off by &quot;a lot&quot;"));
    ck_assert(tu_contains(xml, "&lt;xml&gt; &amp; &quot;quotes&quot;"));
    ck_assert(!tu_contains(xml, "\x01"));
    ck_assert(!tu_contains(xml, "\xff"));
    /* four testcases (compile, the case, the bench case, the verdict), two failing */
    int open = 0, failures = 0;
    for (const char *p = xml; (p = strstr(p, "<testcase ")); p++) open++;
    for (const char *p = xml; (p = strstr(p, "<failure ")); p++) failures++;
    ck_assert_int_eq(open, 4);
    ck_assert_int_eq(failures, 2);
    ck_assert(tu_contains(xml, "</testsuite>\n</testsuites>\n"));
    free(xml);
    tu_rmtree(dir);
    free(dir);
    cl_result_free(&r);
}
END_TEST

START_TEST(text_report_names_the_failure)
{
    cl_result r;
    sample(&r);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cl_report_text(&r, f, 0);
    fclose(f);
    ck_assert(tu_contains(buf, "0/1 cases passed"));
    ck_assert(tu_contains(buf, "at out[0]: expected 2.5, got 3.5"));
    ck_assert(tu_contains(buf, "WRONG"));
    ck_assert(tu_contains(buf, "--seed 1234"));
    ck_assert(!tu_contains(buf, "\033[")); /* not a terminal: no colour */
    free(buf);
    cl_result_free(&r);
}
END_TEST

START_TEST(json_round_trip)
{
    cl_result r, back;
    sample(&r);
    json_t *j = cl_result_to_json(&r);
    cl_result_from_json(j, &back);
    ck_assert_str_eq(back.lab, "reduce");
    ck_assert_int_eq(back.verdict, CL_V_WRONG);
    ck_assert_uint_eq(back.seed, 1234);
    ck_assert_int_eq(back.ncases, 2);
    ck_assert_str_eq(back.cases[0].where, "out[0]");
    ck_assert(back.cases[0].has_values && back.cases[0].expected == 2.5 && back.cases[0].got == 3.5);
    ck_assert(back.cases[1].bench && back.cases[1].median_ms == 0.4);
    ck_assert_str_eq(back.cases[1].tier, "excellent");
    ck_assert(back.cases[1].ref_ms == 0.5 && back.cases[1].ref_ratio == 1.25 && back.cases[1].p90_ms == 0.41);
    /* the clock of record travels with the report (what the judge's bound did) */
    ck_assert(back.cases[1].event_median_ms == 0.399 && back.cases[1].bracket_median_ms == 0.87 &&
              back.cases[1].clock_offset_ms == 0.47);
    ck_assert_int_eq(back.cases[1].off_stream_runs, 2);
    ck_assert_int_eq(back.cases[1].voided_runs, 1);
    ck_assert_str_eq(back.message, r.message);
    json_decref(j);
    cl_result_free(&back);
    cl_result_free(&r);
}
END_TEST

START_TEST(verdict_names)
{
    ck_assert_int_eq(cl_verdict_from_name("off_stream"), CL_V_OFF_STREAM);
    ck_assert_int_eq(cl_verdict_from_name("nonsense"), CL_V_ERROR);
    ck_assert_int_eq(cl_verdict_from_name(NULL), CL_V_ERROR);
    ck_assert_str_eq(cl_verdict_name(CL_V_OUT_OF_BOUNDS), "out_of_bounds");
    ck_assert_str_eq(cl_verdict_name(CL_V_EXCELLENT), "excellent");
    ck_assert(cl_verdict_ok(CL_V_SLOW));
    ck_assert(!cl_verdict_ok(CL_V_WRONG));
    ck_assert_str_eq(cl_verdict_name((cl_verdict)999), "error");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("report");
    TCase *tc = tcase_create("report");
    tcase_add_test(tc, json_has_every_field);
    tcase_add_test(tc, junit_well_formed_and_escaped);
    tcase_add_test(tc, text_report_names_the_failure);
    tcase_add_test(tc, json_round_trip);
    tcase_add_test(tc, verdict_names);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
