/* test_bank.c: loading the bank and every lint rule, each with its file:line:col. */
#include <dirent.h>

#include "qtest.h"
#include "questions/family.h"
#include "questions/question.h"

START_TEST(loads_every_type)
{
    cl_bank b;
    qt_load_good(&b);
    ck_assert_int_eq(b.ntopics, 2);
    ck_assert_int_eq(b.nq, 10);
    ck_assert_str_eq(b.topics[0].name, "memory"); /* files load in name order */
    ck_assert_str_eq(b.topics[0].title.zh, "内存（测试用）");
    ck_assert_int_eq(b.topics[0].nquestions, 5);

    const cl_question *q = cl_bank_find(&b, "fx-mem-banks");
    ck_assert_ptr_nonnull(q);
    ck_assert_int_eq(q->type, CL_Q_SINGLE);
    ck_assert_int_eq(q->nchoices, 3);
    ck_assert_int_eq(q->answer, 1);
    ck_assert_str_eq(q->topic, "memory");
    ck_assert_int_eq(q->line, 7);
    ck_assert_int_eq(q->nseeds, 1);
    ck_assert_str_eq(q->seeds[0], "000:03");
    ck_assert_int_eq(q->ntags, 2);
    ck_assert_str_eq(q->choices[1].zh, "32");

    q = cl_bank_find(&b, "fx-mem-spaces");
    ck_assert_int_eq(q->type, CL_Q_MULTI);
    ck_assert_uint_eq(q->answer_set, 0x5u); /* choices 0 and 2 */

    q = cl_bank_find(&b, "fx-mem-float4");
    ck_assert_int_eq(q->type, CL_Q_NUMERIC);
    ck_assert_double_eq(q->number, 16);
    ck_assert_double_eq(q->tol_abs, 0);
    ck_assert_str_eq(q->unit, "bytes");

    q = cl_bank_find(&b, "fx-warp-tflops");
    ck_assert_double_eq_tol(q->tol_rel, 0.01, 1e-12);
    ck_assert_str_eq(q->unit, "");

    q = cl_bank_find(&b, "fx-warp-launch-order");
    ck_assert_int_eq(q->type, CL_Q_ORDER);
    ck_assert_int_eq(q->nitems, 4);
    ck_assert_str_eq(q->items[3].en, "copy results back");

    q = cl_bank_find(&b, "fx-warp-divergence");
    ck_assert_int_eq(q->type, CL_Q_SHORT);
    ck_assert_int_eq(q->need, 2);
    ck_assert_int_eq(q->ngroups, 3);
    ck_assert_int_eq(q->groups[0].nalts, 5);
    ck_assert_str_eq(q->groups[1].alts[1], "屏蔽");

    q = cl_bank_find(&b, "fx-mem-bank-gen");
    ck_assert_str_eq(q->family, "bank_conflict_degree");
    ck_assert_int_eq(q->difficulty, 2);
    ck_assert_int_eq(q->nrefs, 1);
    ck_assert_ptr_null(cl_bank_find(&b, "no-such-id"));
    cl_bank_free(&b);
}
END_TEST

/* Every file in bad/ lists the problems it must produce: "# expect: line:col: text". */
START_TEST(bad_fixtures_report_each_problem_at_its_line)
{
    DIR *d = opendir(Q_FIXTURES "/bad");
    ck_assert_ptr_nonnull(d);
    struct dirent *e;
    int files = 0;
    while ((e = readdir(d))) {
        if (!strstr(e->d_name, ".yaml"))
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/bad/%s", Q_FIXTURES, e->d_name);
        FILE *f = fopen(path, "r");
        ck_assert_ptr_nonnull(f);
        char line[512], expect[32][512];
        int nexp = 0;
        while (fgets(line, sizeof line, f))
            if (!strncmp(line, "# expect: ", 10) && nexp < 32) {
                line[strcspn(line, "\n")] = '\0';
                /* "12:7: text" -> "<path>:12:7: text" */
                snprintf(expect[nexp++], sizeof expect[0], "%s:%s", path, line + 10);
            }
        fclose(f);
        ck_assert_msg(nexp > 0, "%s has no expect lines", path);

        cl_bank b;
        cl_bank_init(&b);
        qt_msgs m = {0};
        int problems = cl_bank_load_file(&b, path, qt_collect, &m);
        for (int i = 0; i < nexp; i++)
            ck_assert_msg(qt_has(&m, expect[i]), "%s: expected problem not reported: %s (first: %s)",
                          path, expect[i], m.n ? m.msg[0] : "none");
        ck_assert_msg(problems == nexp && m.n == nexp, "%s: %d problems reported, %d expected (first: %s)",
                      path, m.n, nexp, m.n ? m.msg[0] : "none");
        /* a question with a problem is left out (the first 'twice' is fine, the second not) */
        int twice = 0;
        for (int i = 0; i < b.nq; i++)
            twice += !strcmp(b.q[i].id, "twice");
        ck_assert_int_le(twice, 1);
        cl_bank_free(&b);
        files++;
    }
    closedir(d);
    ck_assert_int_ge(files, 5);
}
END_TEST

START_TEST(duplicate_id_across_files_names_the_first)
{
    cl_bank b;
    qt_load_good(&b);
    qt_msgs m = {0};
    int problems = cl_bank_load_file(&b, Q_FIXTURES "/dup/extra.yaml", qt_collect, &m);
    ck_assert_int_eq(problems, 1);
    ck_assert_msg(qt_has(&m, "dup/extra.yaml:5:9: duplicate id 'fx-mem-banks' (first at "), "%s", m.msg[0]);
    ck_assert_msg(qt_has(&m, "good/memory.yaml:7)"), "%s", m.msg[0]);
    ck_assert_int_eq(b.nq, 10); /* the duplicate was left out */
    cl_bank_free(&b);
}
END_TEST

START_TEST(missing_folder_is_one_problem)
{
    cl_bank b;
    cl_bank_init(&b);
    qt_msgs m = {0};
    ck_assert_int_eq(cl_bank_load_dir(&b, Q_FIXTURES "/no-such-folder", qt_collect, &m), 1);
    ck_assert(qt_has(&m, "cannot open the question folder"));
    cl_bank_free(&b);
}
END_TEST

START_TEST(families_in_the_bank_generate_valid_questions)
{
    cl_bank b;
    qt_load_good(&b);
    qt_msgs m = {0};
    ck_assert_int_eq(cl_bank_check_families(&b, 50, qt_collect, &m), 0);
    cl_bank_free(&b);
}
END_TEST

START_TEST(question_check_catches_bad_generated_output)
{
    cl_question q;
    memset(&q, 0, sizeof q);
    q.type = CL_Q_SINGLE;
    q.difficulty = 3;
    q.prompt = (cl_qtext){"p", ""}; /* no Chinese */
    q.explanation = (cl_qtext){"e", "解"};
    q.nchoices = 2;
    q.choices[0] = (cl_qtext){"x", "甲"};
    q.choices[1] = (cl_qtext){"x", "乙"}; /* repeats choice a */
    q.answer = 2;                         /* out of range */
    qt_msgs m = {0};
    ck_assert_int_eq(cl_question_check(&q, "gen", qt_collect, &m), 3);
    ck_assert(qt_has(&m, "gen: prompt.zh is empty"));
    ck_assert(qt_has(&m, "choice b repeats choice a"));
    ck_assert(qt_has(&m, "answer 2 is out of range"));
}
END_TEST

START_TEST(fingerprint_is_stable)
{
    cl_bank a, b;
    qt_load_good(&a);
    qt_load_good(&b);
    ck_assert_uint_eq(cl_bank_fingerprint(&a), cl_bank_fingerprint(&b));
    b.q[0].answer = 0; /* another answer key: another fingerprint */
    ck_assert_uint_ne(cl_bank_fingerprint(&a), cl_bank_fingerprint(&b));
    cl_bank_free(&a);
    cl_bank_free(&b);
}
END_TEST

START_TEST(language_follows_flag_then_locale)
{
    cl_lang l;
    unsetenv("LC_ALL");
    unsetenv("LC_MESSAGES");
    setenv("LANG", "zh_CN.UTF-8", 1);
    ck_assert_int_eq(cl_lang_pick(NULL, &l), 0);
    ck_assert_int_eq(l, CL_LANG_ZH);
    ck_assert_int_eq(cl_lang_pick("en", &l), 0);
    ck_assert_int_eq(l, CL_LANG_EN);
    setenv("LC_MESSAGES", "en_US.UTF-8", 1); /* LC_MESSAGES beats LANG */
    ck_assert_int_eq(cl_lang_pick(NULL, &l), 0);
    ck_assert_int_eq(l, CL_LANG_EN);
    setenv("LC_ALL", "zh_TW.UTF-8", 1); /* LC_ALL beats both */
    ck_assert_int_eq(cl_lang_pick(NULL, &l), 0);
    ck_assert_int_eq(l, CL_LANG_ZH);
    ck_assert_int_eq(cl_lang_pick("fr", &l), -1);
    unsetenv("LC_ALL");
    unsetenv("LC_MESSAGES");
    unsetenv("LANG");
    ck_assert_int_eq(cl_lang_pick(NULL, &l), 0);
    ck_assert_int_eq(l, CL_LANG_EN);
}
END_TEST

START_TEST(every_required_family_is_registered)
{
    static const char *const names[] = {"bank_conflict_degree", "coalesced_transactions", "occupancy",
                                        "peak_tflops", "roofline_bound", "tile_smem",
                                        "divergence_efficiency", "grid_size"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        ck_assert_msg(cl_family_find(names[i]) != NULL, "family %s is missing", names[i]);
    ck_assert_ptr_null(cl_family_find("nope"));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("questions_bank");
    TCase *tc = tcase_create("bank");
    tcase_add_test(tc, loads_every_type);
    tcase_add_test(tc, bad_fixtures_report_each_problem_at_its_line);
    tcase_add_test(tc, duplicate_id_across_files_names_the_first);
    tcase_add_test(tc, missing_folder_is_one_problem);
    tcase_add_test(tc, families_in_the_bank_generate_valid_questions);
    tcase_add_test(tc, question_check_catches_bad_generated_output);
    tcase_add_test(tc, fingerprint_is_stable);
    tcase_add_test(tc, language_follows_flag_then_locale);
    tcase_add_test(tc, every_required_family_is_registered);
    suite_add_tcase(s, tc);
    return qt_run(s);
}
