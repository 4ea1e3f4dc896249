/* test_grade.c: answer parsing and scoring for every question type. */
#include "qtest.h"
#include "questions/grade.h"

static cl_question base(cl_qtype type)
{
    cl_question q;
    memset(&q, 0, sizeof q);
    q.id = "t";
    q.topic = "memory";
    q.type = type;
    q.difficulty = 2;
    q.prompt = (cl_qtext){"p", "题"};
    q.explanation = (cl_qtext){"e", "解"};
    return q;
}

static double score(const cl_shown *s, const char *answer, cl_grade_status want)
{
    cl_grade g;
    cl_grade_answer(s, answer, CL_LANG_EN, &g);
    ck_assert_msg(g.status == want, "'%s': status %d, wanted %d (%s)", answer, g.status, want, g.message);
    return g.score;
}

START_TEST(single_takes_a_letter_or_a_number)
{
    cl_question q = base(CL_Q_SINGLE);
    q.nchoices = 4;
    for (int i = 0; i < 4; i++)
        q.choices[i] = (cl_qtext){"c", "选"};
    q.answer = 1;
    cl_shown s;
    cl_shown_init(&s, &q, 1);
    ck_assert_double_eq(score(&s, "b", CL_GRADE_OK), 1);
    ck_assert_double_eq(score(&s, "B", CL_GRADE_OK), 1);
    ck_assert_double_eq(score(&s, " b) ", CL_GRADE_OK), 1);
    ck_assert_double_eq(score(&s, "2", CL_GRADE_OK), 1);
    ck_assert_double_eq(score(&s, "c", CL_GRADE_OK), 0);
    ck_assert_double_eq(score(&s, "", CL_GRADE_EMPTY), 0);
    ck_assert_double_eq(score(&s, "   ", CL_GRADE_EMPTY), 0);
    score(&s, "e", CL_GRADE_UNREADABLE);  /* only a..d */
    score(&s, "5", CL_GRADE_UNREADABLE);
    score(&s, "ab", CL_GRADE_UNREADABLE); /* one choice only */
    score(&s, "?", CL_GRADE_UNREADABLE);
    char key[8];
    cl_answer_key(&s, CL_LANG_EN, key, sizeof key);
    ck_assert_str_eq(key, "b");
}
END_TEST

START_TEST(multi_gives_partial_credit)
{
    cl_question q = base(CL_Q_MULTI);
    q.nchoices = 4;
    for (int i = 0; i < 4; i++)
        q.choices[i] = (cl_qtext){"c", "选"};
    q.answer_set = 0x5; /* a and c */
    cl_shown s;
    cl_shown_init(&s, &q, 1);
    ck_assert_double_eq(score(&s, "ac", CL_GRADE_OK), 1);
    ck_assert_double_eq(score(&s, "ca", CL_GRADE_OK), 1);
    ck_assert_double_eq(score(&s, "a, c", CL_GRADE_OK), 1);
    ck_assert_double_eq(score(&s, "1 3", CL_GRADE_OK), 1);
    ck_assert_double_eq(score(&s, "a，c", CL_GRADE_OK), 1); /* Chinese comma */
    ck_assert_double_eq(score(&s, "a", CL_GRADE_OK), 0.5);   /* (1 right - 0 wrong) / 2 */
    ck_assert_double_eq(score(&s, "abc", CL_GRADE_OK), 0.5); /* (2 - 1) / 2 */
    ck_assert_double_eq(score(&s, "abcd", CL_GRADE_OK), 0);  /* (2 - 2) / 2 */
    ck_assert_double_eq(score(&s, "bd", CL_GRADE_OK), 0);    /* floored at 0 */
    score(&s, "ax", CL_GRADE_UNREADABLE);
    char key[8];
    cl_answer_key(&s, CL_LANG_EN, key, sizeof key);
    ck_assert_str_eq(key, "ac");
}
END_TEST

START_TEST(numeric_uses_the_tolerance_and_ignores_the_unit)
{
    cl_question q = base(CL_Q_NUMERIC);
    q.number = 1024;
    q.unit = "bytes";
    cl_shown s;
    cl_shown_init(&s, &q, 1);
    ck_assert_double_eq(score(&s, "1024", CL_GRADE_OK), 1);
    ck_assert_double_eq(score(&s, "1024 bytes", CL_GRADE_OK), 1);
    ck_assert_double_eq(score(&s, "1,024", CL_GRADE_OK), 1);
    ck_assert_double_eq(score(&s, "1024.0", CL_GRADE_OK), 1);
    ck_assert_double_eq(score(&s, "1.024e3", CL_GRADE_OK), 1);
    ck_assert_double_eq(score(&s, "1023", CL_GRADE_OK), 0); /* abs 0: exact */
    score(&s, "bytes", CL_GRADE_UNREADABLE);

    q.number = 312;
    q.tol_rel = 0.01;
    q.unit = "TFLOP/s";
    cl_shown_init(&s, &q, 1);
    ck_assert_double_eq(score(&s, "310", CL_GRADE_OK), 1);  /* 0.64% off */
    ck_assert_double_eq(score(&s, "315 TFLOP/s", CL_GRADE_OK), 1);
    ck_assert_double_eq(score(&s, "300", CL_GRADE_OK), 0);  /* 3.8% off */

    q.number = 52.68;
    q.tol_rel = 0;
    q.tol_abs = 0.5;
    q.unit = "%";
    cl_shown_init(&s, &q, 1);
    ck_assert_double_eq(score(&s, "53%", CL_GRADE_OK), 1);
    ck_assert_double_eq(score(&s, "52.2", CL_GRADE_OK), 1);
    ck_assert_double_eq(score(&s, "52.1", CL_GRADE_OK), 0);
    ck_assert_double_eq(score(&s, "-52.68", CL_GRADE_OK), 0);
}
END_TEST

START_TEST(order_is_shuffled_and_scored_by_longest_ordered_run)
{
    cl_question q = base(CL_Q_ORDER);
    q.nitems = 4;
    for (int i = 0; i < 4; i++)
        q.items[i] = (cl_qtext){"i", "项"};
    q.items[0].en = "first";
    q.items[1].en = "second";
    q.items[2].en = "third";
    q.items[3].en = "fourth";
    cl_shown s;
    cl_shown_init(&s, &q, 1);
    /* fix the shuffle by hand: letter a shows item 2, b item 0, c item 3, d item 1 */
    int perm[4] = {2, 0, 3, 1};
    memcpy(s.perm, perm, sizeof perm);
    ck_assert_double_eq(score(&s, "bdac", CL_GRADE_OK), 1);      /* items 0 1 2 3 */
    ck_assert_double_eq(score(&s, "b d a c", CL_GRADE_OK), 1);
    ck_assert_double_eq(score(&s, "abcd", CL_GRADE_OK), 0.5);    /* items 2 0 3 1: run of 2 */
    ck_assert_double_eq(score(&s, "bdca", CL_GRADE_OK), 0.75);   /* items 0 1 3 2: run of 3 */
    ck_assert_double_eq(score(&s, "cadb", CL_GRADE_OK), 0.25);   /* items 3 2 1 0 */
    score(&s, "bda", CL_GRADE_UNREADABLE);   /* all four are needed */
    score(&s, "bdaa", CL_GRADE_UNREADABLE);  /* a repeated letter */
    score(&s, "bdae", CL_GRADE_UNREADABLE);  /* no item e */
    char key[8];
    cl_answer_key(&s, CL_LANG_EN, key, sizeof key);
    ck_assert_str_eq(key, "bdac");
}
END_TEST

START_TEST(order_shuffle_is_never_the_identity_and_depends_on_the_seed)
{
    cl_question q = base(CL_Q_ORDER);
    q.nitems = 3;
    int differs = 0;
    cl_shown first;
    cl_shown_init(&first, &q, 0);
    for (uint64_t seed = 0; seed < 2000; seed++) {
        cl_shown s;
        cl_shown_init(&s, &q, seed);
        ck_assert(!(s.perm[0] == 0 && s.perm[1] == 1 && s.perm[2] == 2));
        int seen = 0;
        for (int i = 0; i < 3; i++)
            seen |= 1 << s.perm[i];
        ck_assert_int_eq(seen, 7); /* a permutation */
        differs |= memcmp(s.perm, first.perm, sizeof s.perm) != 0;
        cl_shown again;
        cl_shown_init(&again, &q, seed);
        ck_assert_int_eq(memcmp(s.perm, again.perm, sizeof s.perm), 0);
    }
    ck_assert(differs);
}
END_TEST

START_TEST(short_answers_match_keyword_groups)
{
    cl_question q = base(CL_Q_SHORT);
    static const char *g0[] = {"both paths", "one after the other", "先后"};
    static const char *g1[] = {"mask", "屏蔽"};
    static const char *g2[] = {"reconverge", "汇合"};
    cl_kwgroup groups[3] = {{3, g0}, {2, g1}, {1, g2}};
    q.groups = groups;
    q.ngroups = 3;
    q.need = 2;
    q.model_answer = (cl_qtext){"model", "参考"};
    cl_shown s;
    cl_shown_init(&s, &q, 1);
    ck_assert_double_eq(score(&s, "It runs both paths with inactive lanes MASKED", CL_GRADE_OK), 1);
    ck_assert_double_eq(score(&s, "lanes are masked", CL_GRADE_OK), 0.5);
    ck_assert_double_eq(score(&s, "warp 先后执行两条路径，未激活的线程被屏蔽", CL_GRADE_OK), 1);
    ck_assert_double_eq(score(&s, "both-paths then they re-converge... no: reconverge", CL_GRADE_OK), 1);
    ck_assert_double_eq(score(&s, "no idea", CL_GRADE_OK), 0);
    cl_grade g;
    cl_grade_answer(&s, "mask and reconverge", CL_LANG_EN, &g);
    ck_assert_int_eq(g.nmatched, 2);
    ck_assert_uint_eq(g.matched, 0x6u);
}
END_TEST

START_TEST(normalisation_and_lis)
{
    char out[64];
    cl_normalize_text("  Bank-Conflict\t_free  ", out, sizeof out);
    ck_assert_str_eq(out, "bank conflict free");
    cl_normalize_text("共享内存 Bank", out, sizeof out);
    ck_assert_str_eq(out, "共享内存 bank");
    int a[] = {2, 0, 3, 1}, b[] = {0, 1, 2, 3}, c[] = {3, 2, 1, 0};
    ck_assert_int_eq(cl_lis_length(a, 4), 2);
    ck_assert_int_eq(cl_lis_length(b, 4), 4);
    ck_assert_int_eq(cl_lis_length(c, 4), 1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("questions_grade");
    TCase *tc = tcase_create("grade");
    tcase_add_test(tc, single_takes_a_letter_or_a_number);
    tcase_add_test(tc, multi_gives_partial_credit);
    tcase_add_test(tc, numeric_uses_the_tolerance_and_ignores_the_unit);
    tcase_add_test(tc, order_is_shuffled_and_scored_by_longest_ordered_run);
    tcase_add_test(tc, order_shuffle_is_never_the_identity_and_depends_on_the_seed);
    tcase_add_test(tc, short_answers_match_keyword_groups);
    tcase_add_test(tc, normalisation_and_lis);
    suite_add_tcase(s, tc);
    return qt_run(s);
}
