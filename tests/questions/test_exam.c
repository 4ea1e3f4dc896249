/* test_exam.c: exam papers are the same for the same seed; sheets round-trip and are
 * graded offline into CSV; the topic-balanced selection. */
#include <unistd.h>

#include "qtest.h"
#include "questions/exam.h"
#include "questions/select.h"

static cl_exam_spec spec_of(uint64_t seed, int n)
{
    cl_exam_spec s;
    memset(&s, 0, sizeof s);
    s.seed = seed;
    s.n = n;
    s.dmin = 1;
    s.dmax = 5;
    return s;
}

static void tmp_path(char *out, size_t n, const char *name)
{
    const char *dir = getenv("TMPDIR");
    snprintf(out, n, "%s/cl-exam-%d-%s", dir && *dir ? dir : "/tmp", (int)getpid(), name);
}

START_TEST(same_seed_same_paper)
{
    cl_bank b1, b2;
    qt_load_good(&b1);
    qt_load_good(&b2); /* an independent load: nothing may depend on addresses */
    cl_exam_spec s = spec_of(42, 8);
    cl_paper p1, p2, p3;
    cl_err err;
    ck_assert_msg(cl_paper_make(&b1, &s, &p1, &err) == 0, "%s", err.msg);
    ck_assert_msg(cl_paper_make(&b2, &s, &p2, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(p1.n, 8);
    ck_assert_int_eq(p2.n, 8);
    for (int i = 0; i < p1.n; i++) {
        ck_assert_str_eq(p1.items[i].q.id, p2.items[i].q.id);
        ck_assert_str_eq(p1.items[i].q.prompt.en, p2.items[i].q.prompt.en); /* generated numbers too */
        char k1[64], k2[64];
        cl_answer_key(&p1.items[i], CL_LANG_EN, k1, sizeof k1);
        cl_answer_key(&p2.items[i], CL_LANG_EN, k2, sizeof k2);
        ck_assert_str_eq(k1, k2); /* order items shuffled the same way */
    }
    /* another seed: another paper (order or content) */
    s.seed = 43;
    ck_assert_int_eq(cl_paper_make(&b1, &s, &p3, &err), 0);
    int same = 1;
    for (int i = 0; i < p1.n; i++)
        same &= !strcmp(p1.items[i].q.id, p3.items[i].q.id) && !strcmp(p1.items[i].q.prompt.en, p3.items[i].q.prompt.en);
    ck_assert(!same);
    cl_paper_free(&p1);
    cl_paper_free(&p2);
    cl_paper_free(&p3);
    cl_bank_free(&b1);
    cl_bank_free(&b2);
}
END_TEST

START_TEST(paper_errors)
{
    cl_bank b;
    qt_load_good(&b);
    cl_paper p;
    cl_err err;
    cl_exam_spec s = spec_of(1, 11); /* the fixture bank has 10 */
    ck_assert_int_eq(cl_paper_make(&b, &s, &p, &err), -1);
    ck_assert(strstr(err.msg, "only 10 questions match"));
    s = spec_of(1, 2);
    snprintf(s.topics, sizeof s.topics, "memory,nope");
    ck_assert_int_eq(cl_paper_make(&b, &s, &p, &err), -1);
    ck_assert(strstr(err.msg, "no topic 'nope'"));
    cl_bank_free(&b);
}
END_TEST

START_TEST(sheet_round_trip_and_grading)
{
    cl_bank b;
    qt_load_good(&b);
    cl_exam_spec s = spec_of(7, 10);
    cl_paper p;
    cl_err err;
    ck_assert_int_eq(cl_paper_make(&b, &s, &p, &err), 0);
    /* answer every question right from its key, except #2 (blank) and #3 (wrong) */
    char *answers[10];
    char keys[10][512];
    for (int i = 0; i < p.n; i++) {
        cl_answer_key(&p.items[i], CL_LANG_EN, keys[i], sizeof keys[i]);
        answers[i] = keys[i];
    }
    answers[1] = NULL;
    answers[2] = "definitely, not, right";
    char path[512];
    tmp_path(path, sizeof path, "sheet.txt");
    ck_assert_msg(cl_sheet_write(path, &p, "Ada, \"the\" student", answers, &err) == 0, "%s", err.msg);

    cl_answer_sheet sh;
    ck_assert_msg(cl_sheet_read(path, &sh, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(sh.spec.seed, 7);
    ck_assert_int_eq(sh.spec.n, 10);
    ck_assert_str_eq(sh.student, "Ada, \"the\" student");
    ck_assert_uint_eq(sh.fingerprint, cl_bank_fingerprint(&b));
    ck_assert_int_eq(sh.nrows, 10);
    ck_assert_str_eq(sh.rows[1].answer, "");
    ck_assert(cl_spec_same(&sh.spec, &s));

    cl_paper p2;
    ck_assert_int_eq(cl_paper_make(&b, &sh.spec, &p2, &err), 0);
    double scores[10];
    ck_assert_msg(cl_sheet_grade(&p2, &sh, scores, &err) == 0, "%s", err.msg);
    for (int i = 0; i < 10; i++) {
        /* a short answer's key is its model answer, which hits every keyword group */
        double want = i == 1 || i == 2 ? 0 : 1;
        ck_assert_msg(scores[i] == want, "question %d (%s): %g", i + 1, p2.items[i].q.id, scores[i]);
    }

    /* CSV: wide (one row) and long (one row a question) */
    char csvpath[512];
    tmp_path(csvpath, sizeof csvpath, "grades.csv");
    FILE *f = fopen(csvpath, "w");
    const cl_paper *pp[1] = {&p2};
    double *sc[1] = {scores};
    ck_assert_int_eq(cl_exam_write_csv(f, pp, &sh, 1, sc, 0, &err), 0);
    fclose(f);
    char line[4096];
    f = fopen(csvpath, "r");
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    ck_assert(!strncmp(line, "student,file,seed,score,max,percent,1:", 38));
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    ck_assert_msg(!strncmp(line, "\"Ada, \"\"the\"\" student\",", 23), "%s", line);
    ck_assert_msg(strstr(line, ",7,8,10,80.0,1,0,0,1,"), "%s", line);
    fclose(f);
    f = fopen(csvpath, "w");
    ck_assert_int_eq(cl_exam_write_csv(f, pp, &sh, 1, sc, 1, &err), 0);
    fclose(f);
    f = fopen(csvpath, "r");
    int rows = 0;
    while (fgets(line, sizeof line, f))
        rows++;
    fclose(f);
    ck_assert_int_eq(rows, 1 + 10);

    unlink(path);
    unlink(csvpath);
    cl_sheet_free(&sh);
    cl_paper_free(&p);
    cl_paper_free(&p2);
    cl_bank_free(&b);
}
END_TEST

static int read_sheet_text(const char *text, cl_answer_sheet *sh, cl_err *err)
{
    char path[512];
    tmp_path(path, sizeof path, "bad.txt");
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    int rc = cl_sheet_read(path, sh, err);
    unlink(path);
    return rc;
}

START_TEST(bad_sheets_name_their_line)
{
    cl_answer_sheet sh;
    cl_err err;
    ck_assert_int_eq(read_sheet_text("cudalab-exam: 1\nseed: 1\nn: 2\n1 a: x\n1 b: y\n", &sh, &err), -1);
    ck_assert_msg(strstr(err.msg, ":5: question 1 is answered twice (first at line 4)"), "%s", err.msg);
    ck_assert_int_eq(read_sheet_text("cudalab-exam: 1\nseed: x\n", &sh, &err), -1);
    ck_assert_msg(strstr(err.msg, ":2: seed must be"), "%s", err.msg);
    ck_assert_int_eq(read_sheet_text("cudalab-exam: 1\nseed: 1\nn: 2\ncolour: red\n", &sh, &err), -1);
    ck_assert_msg(strstr(err.msg, ":4: unknown header 'colour'"), "%s", err.msg);
    ck_assert_int_eq(read_sheet_text("cudalab-exam: 1\nseed: 1\nn: 2\n3 a: x\n", &sh, &err), -1);
    ck_assert_msg(strstr(err.msg, ":4: question 3, but the paper has 2"), "%s", err.msg);
    ck_assert_int_eq(read_sheet_text("hello\n", &sh, &err), -1);
    ck_assert_msg(strstr(err.msg, ":1: expected"), "%s", err.msg);
    ck_assert_int_eq(read_sheet_text("# nothing\n", &sh, &err), -1);
    ck_assert_msg(strstr(err.msg, "not a cudalab answer sheet"), "%s", err.msg);
}
END_TEST

START_TEST(a_sheet_from_another_bank_is_refused)
{
    cl_bank b;
    qt_load_good(&b);
    cl_exam_spec s = spec_of(3, 2);
    cl_paper p;
    cl_err err;
    ck_assert_int_eq(cl_paper_make(&b, &s, &p, &err), 0);
    cl_answer_sheet sh;
    ck_assert_int_eq(read_sheet_text("cudalab-exam: 1\nseed: 3\nn: 2\n1 some-other-id: b\n", &sh, &err), 0);
    double scores[2];
    ck_assert_int_eq(cl_sheet_grade(&p, &sh, scores, &err), -1);
    ck_assert_msg(strstr(err.msg, ":4: question 1 of this paper is"), "%s", err.msg);
    cl_sheet_free(&sh);
    cl_paper_free(&p);
    cl_bank_free(&b);
}
END_TEST

START_TEST(selection_takes_turns_over_topics_and_honours_priority)
{
    cl_bank b;
    qt_load_good(&b);
    cl_filter f;
    cl_filter_init(&f);
    int pick[16];
    int n = cl_select(&b, &f, 5, 4, NULL, pick);
    ck_assert_int_eq(n, 4);
    int mem = 0;
    for (int i = 0; i < n; i++)
        mem += !strcmp(b.q[pick[i]].topic, "memory");
    ck_assert_int_eq(mem, 2); /* two topics take turns */

    /* priority: the least-seen questions first */
    int prio[16] = {0};
    for (int i = 0; i < b.nq; i++)
        prio[i] = strcmp(b.q[i].id, "fx-mem-float4") ? 5 : 0;
    cl_filter_add_topics(&f, "memory");
    n = cl_select(&b, &f, 99, 1, prio, pick);
    ck_assert_int_eq(n, 1);
    ck_assert_str_eq(b.q[pick[0]].id, "fx-mem-float4");

    /* difficulty and ids */
    cl_filter_free(&f);
    cl_filter_init(&f);
    f.dmin = f.dmax = 3;
    n = cl_select(&b, &f, 1, 16, NULL, pick);
    for (int i = 0; i < n; i++)
        ck_assert_int_eq(b.q[pick[i]].difficulty, 3);
    ck_assert_int_eq(n, 3);
    cl_filter_init(&f);
    cl_filter_add_ids(&f, "fx-warp-size,fx-mem-banks");
    n = cl_select(&b, &f, 1, 16, NULL, pick);
    ck_assert_int_eq(n, 2);
    ck_assert_str_eq(b.q[pick[0]].id, "fx-warp-size"); /* explicit ids keep their order */
    cl_filter_free(&f);
    cl_err err;
    int lo, hi;
    ck_assert_int_eq(cl_parse_difficulty("2-4", &lo, &hi, &err), 0);
    ck_assert_int_eq(lo * 10 + hi, 24);
    ck_assert_int_eq(cl_parse_difficulty("4-2", &lo, &hi, &err), -1);
    ck_assert_int_eq(cl_parse_difficulty("6", &lo, &hi, &err), -1);
    cl_bank_free(&b);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("questions_exam");
    TCase *tc = tcase_create("exam");
    tcase_add_test(tc, same_seed_same_paper);
    tcase_add_test(tc, paper_errors);
    tcase_add_test(tc, sheet_round_trip_and_grading);
    tcase_add_test(tc, bad_sheets_name_their_line);
    tcase_add_test(tc, a_sheet_from_another_bank_is_refused);
    tcase_add_test(tc, selection_takes_turns_over_topics_and_honours_priority);
    suite_add_tcase(s, tc);
    return qt_run(s);
}
