/* test_interview.c: the interview's lab choice, tracks, theory flow (driven through
 * in-memory streams) and scorecard. */
#include <unistd.h>

#include "grader/compile.h"
#include "grader/workspace.h"
#include "paths.h"
#include "qtest.h"
#include "questions/interview.h"

static cl_lab_brief lab(const char *name, int difficulty)
{
    cl_lab_brief b;
    memset(&b, 0, sizeof b);
    snprintf(b.name, sizeof b.name, "%s", name);
    snprintf(b.title_en, sizeof b.title_en, "%s lab", name);
    b.difficulty = difficulty;
    return b;
}

START_TEST(tracks)
{
    cl_track t;
    ck_assert_int_eq(cl_track_parse("inference", &t), 0);
    ck_assert_int_eq(t, CL_TRACK_INFERENCE);
    ck_assert_str_eq(cl_track_topics(t)[0], "llm_inference");
    ck_assert_int_eq(cl_track_parse("compiler", &t), 0);
    ck_assert_str_eq(cl_track_topics(t)[0], "compilers");
    ck_assert_int_eq(cl_track_parse("rust", &t), -1);
}
END_TEST

START_TEST(lab_near_the_level_then_the_track_preference)
{
    cl_lab_brief labs[] = {lab("reduce", 2), lab("gemm", 4), lab("softmax", 3), lab("paged_attention", 4),
                           lab("mystery", 3)};
    int n = 5;
    ck_assert_str_eq(labs[cl_iv_pick_lab(labs, n, CL_TRACK_CUDA, 4, 1)].name, "gemm");
    ck_assert_str_eq(labs[cl_iv_pick_lab(labs, n, CL_TRACK_INFERENCE, 4, 1)].name, "paged_attention");
    ck_assert_str_eq(labs[cl_iv_pick_lab(labs, n, CL_TRACK_CUDA, 3, 1)].name, "softmax");
    ck_assert_str_eq(labs[cl_iv_pick_lab(labs, n, CL_TRACK_COMPILER, 3, 1)].name, "softmax");
    ck_assert_str_eq(labs[cl_iv_pick_lab(labs, n, CL_TRACK_CUDA, 1, 1)].name, "reduce");
    ck_assert_str_eq(labs[cl_iv_pick_lab(labs, n, CL_TRACK_CUDA, 5, 99)].name, "gemm");
    ck_assert_int_eq(cl_iv_pick_lab(labs, 0, CL_TRACK_CUDA, 3, 1), -1);
}
END_TEST

/* The theory part through in-memory streams: all answers "1" climb to level 5. */
START_TEST(theory_ramps_up_and_down)
{
    cl_bank b;
    cl_bank_init(&b);
    qt_msgs m = {0};
    ck_assert_int_eq(cl_bank_load_dir(&b, Q_FIXTURES "/ramp", qt_collect, &m), 0);
    for (int pass = 0; pass < 2; pass++) {
        const char *answers = pass == 0 ? "1\n1\n1\n1\n1\n1\n" : "0\n0\n0\n0\n0\n0\n0\n0\n";
        FILE *in = fmemopen((void *)answers, strlen(answers), "r");
        char *outbuf = NULL;
        size_t outlen = 0;
        FILE *out = open_memstream(&outbuf, &outlen);
        cl_io io;
        cl_io_init(&io, in, out, CL_LANG_EN, 0);
        cl_interview_opts o;
        memset(&o, 0, sizeof o);
        o.minutes = 30;
        o.track = CL_TRACK_CUDA;
        o.seed = 8;
        o.max_questions = 4;
        cl_interview_result *r = calloc(1, sizeof *r);
        cl_err err;
        ck_assert_msg(cl_interview_run(&b, NULL, &o, &io, r, &err) == 0, "%s", err.msg);
        fclose(out);
        fclose(in);
        if (pass == 0) {
            /* 2 -> 3 -> 4 -> 5, no follow-ups */
            ck_assert_int_eq(r->nitems, 4);
            for (int i = 0; i < 4; i++) {
                ck_assert_int_eq(r->items[i].q->difficulty, 2 + i);
                ck_assert_int_eq(r->items[i].follow_up, 0);
            }
            ck_assert_int_eq(r->level, 5);
            ck_assert_double_eq(r->score, 100);
        } else {
            /* every main question is weak: each brings a follow-up, easier or equal */
            ck_assert_int_eq(r->items[0].q->difficulty, 2);
            ck_assert_int_eq(r->items[1].follow_up, 1);
            ck_assert_int_le(r->items[1].q->difficulty, 2);
            ck_assert_int_eq(r->items[2].follow_up, 0);
            ck_assert_int_eq(r->items[2].q->difficulty, 1);
            ck_assert_int_eq(r->level, 1);
            ck_assert_int_eq(r->tally.asked, 8);
            ck_assert_double_eq(r->score, 0);
        }
        ck_assert_str_eq(r->lab_verdict, "none");
        /* answers are not given during the interview */
        ck_assert_ptr_null(strstr(outbuf, "Why:"));
        free(outbuf);
        free(r);
    }
    cl_bank_free(&b);
}
END_TEST

START_TEST(scorecard_names_weak_areas_and_what_to_study)
{
    cl_bank b;
    qt_load_good(&b);
    cl_interview_result *r = calloc(1, sizeof *r);
    const char *ids[] = {"fx-mem-banks", "fx-mem-float4", "fx-warp-size", "fx-warp-divergence"};
    double scores[] = {1.0, 0.0, 1.0, 1.0};
    for (int i = 0; i < 4; i++) {
        const cl_question *q = cl_bank_find(&b, ids[i]);
        r->items[r->nitems].q = q;
        r->items[r->nitems].score = scores[i];
        r->items[r->nitems].follow_up = i == 1;
        snprintf(r->items[r->nitems].expected, sizeof r->items[0].expected, "expected-%d", i);
        r->nitems++;
        cl_grade g = {.status = CL_GRADE_OK, .score = scores[i]};
        cl_tally_add(&r->tally, q, &g);
    }
    r->level = 3;
    r->score = 60;
    snprintf(r->lab_verdict, sizeof r->lab_verdict, "none");
    cl_interview_opts o;
    memset(&o, 0, sizeof o);
    o.track = CL_TRACK_CUDA;
    cl_strbuf sb;
    cl_sb_init(&sb);
    cl_interview_scorecard(&b, &o, r, CL_LANG_EN, &sb);
    const char *card = cl_sb_str(&sb);
    ck_assert_msg(strstr(card, "4 questions (1 follow-up)"), "%s", card);
    ck_assert_msg(strstr(card, "level reached 3/5 · score 60%"), "%s", card);
    ck_assert_msg(strstr(card, "Memory (fixture) #####.....  50%"), "%s", card); /* weakest first */
    ck_assert_msg(strstr(card, "Weakest areas: Memory (fixture)\n"), "%s", card); /* topics by title */
    ck_assert_msg(strstr(card, "cudalab quiz --topic memory\n"), "%s", card);        /* commands by id */
    ck_assert_msg(strstr(card, "fx-mem-float4 (Memory (fixture), difficulty 2, follow-up): 0% — answer: expected-1"), "%s", card);
    ck_assert_msg(strstr(card, "cudalab quiz --topic memory\n"), "%s", card);
    ck_assert_msg(strstr(card, "cudalab quiz --id fx-mem-float4 "), "%s", card);
    ck_assert_ptr_null(strstr(card, "fx-warp-size ("));
    cl_sb_clear(&sb);
    cl_interview_scorecard(&b, &o, r, CL_LANG_ZH, &sb);
    ck_assert_msg(strstr(cl_sb_str(&sb), "薄弱环节：内存（测试用）"), "%s", cl_sb_str(&sb));
    /* the per-topic column measured in display width: both bars start at the same column */
    ck_assert_msg(strstr(cl_sb_str(&sb), "  内存（测试用）    #####....."), "%s", cl_sb_str(&sb));
    ck_assert_msg(strstr(cl_sb_str(&sb), "  线程束（测试用） ##########"), "%s", cl_sb_str(&sb));
    cl_sb_free(&sb);
    free(r);
    cl_bank_free(&b);
}
END_TEST

/* The coding exercise is graded by the grading library in this process: there is no
 * cudalab executable beside this test to run as a child (nor a runner, so a solution that
 * compiles is "no_device": compiled, nothing to run it with). */
START_TEST(lab_graded_in_this_process)
{
    char exe[4096];
    snprintf(exe, sizeof exe, "%s/cudalab", cl_exe_dir());
    ck_assert_msg(access(exe, X_OK) != 0, "%s exists: this test needs a folder without it", exe);
    char parent[] = "/tmp/cudalab-iv-grade-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(parent));
    cl_workspace ws;
    cl_err err;
    ck_assert_int_eq(cl_workspace_fetch(cl_home_dir(), "reduce", parent, 0, &ws, &err), 0);
    char verdict[64] = "", note[1024] = "", *printed = NULL;
    size_t printed_len = 0;
    FILE *out = open_memstream(&printed, &printed_len);
    ck_assert_int_eq(cl_iv_grade_lab(ws.dir, NULL, out, verdict, sizeof verdict, note, sizeof note, &err), 0);
    fclose(out);
    if (cl_nvcc_path()) {
        ck_assert_msg(!strcmp(verdict, "no_device"), "%s: %s", verdict, note);
        ck_assert_msg(strstr(note, "no runner"), "%s", note);
    } else {
        ck_assert_msg(!strcmp(verdict, "error"), "%s: %s", verdict, note);
        ck_assert_msg(strstr(note, "nvcc"), "%s", note);
    }
    char line[1200];
    snprintf(line, sizeof line, "cudalab test: %s — %s\n", verdict, note);
    ck_assert_str_eq(printed, line);
    free(printed);
    /* a folder that is not a workspace is an error, not a verdict */
    ck_assert_int_eq(cl_iv_grade_lab(parent, NULL, stdout, verdict, sizeof verdict, note, sizeof note, &err), -1);
    ck_assert_msg(strstr(err.msg, "not a cudalab workspace"), "%s", err.msg);
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", parent);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* The scorecard suggests the interview's own lab again unless its verdict says it works
 * (a verdict name from the one table: "correct" and the tiers). */
START_TEST(scorecard_suggests_the_lab_again_unless_it_works)
{
    cl_bank b;
    qt_load_good(&b);
    cl_interview_result *r = calloc(1, sizeof *r);
    const cl_question *q = cl_bank_find(&b, "fx-warp-size");
    r->items[r->nitems].q = q;
    r->items[r->nitems++].score = 1.0;
    cl_grade g = {.status = CL_GRADE_OK, .score = 1.0};
    cl_tally_add(&r->tally, q, &g);
    snprintf(r->lab, sizeof r->lab, "reduce");
    cl_interview_opts o;
    memset(&o, 0, sizeof o);
    o.track = CL_TRACK_CUDA;
    o.home = cl_home_dir();
    const char *verdicts[] = {"correct", "excellent", "wrong", "compile_error", "not graded", "skipped"};
    const int suggested[] = {0, 0, 1, 1, 1, 1};
    for (int i = 0; i < 6; i++) {
        snprintf(r->lab_verdict, sizeof r->lab_verdict, "%s", verdicts[i]);
        cl_strbuf sb;
        cl_sb_init(&sb);
        cl_interview_scorecard(&b, &o, r, CL_LANG_EN, &sb);
        int has = strstr(cl_sb_str(&sb), "cudalab fetch reduce") != NULL;
        ck_assert_msg(has == suggested[i], "verdict %s: %s", verdicts[i], cl_sb_str(&sb));
        cl_sb_free(&sb);
    }
    free(r);
    cl_bank_free(&b);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("questions_interview");
    TCase *tc = tcase_create("interview");
    tcase_add_test(tc, tracks);
    tcase_add_test(tc, lab_near_the_level_then_the_track_preference);
    tcase_add_test(tc, theory_ramps_up_and_down);
    tcase_add_test(tc, scorecard_names_weak_areas_and_what_to_study);
    tcase_add_test(tc, scorecard_suggests_the_lab_again_unless_it_works);
    tcase_add_test(tc, lab_graded_in_this_process);
    tcase_set_timeout(tc, 300); /* nvcc compiles the lab's skeleton once */
    suite_add_tcase(s, tc);
    return qt_run(s);
}
