/* test_srs.c: FSRS-4.5 scheduling against hand-worked values, and the review deck in
 * SQLite (cards enter on wrong or hard answers, and every later answer reviews them). */
#include <math.h>

#include "db.h"
#include "qtest.h"
#include "questions/progress.h"
#include "questions/srs.h"

#define DAY 86400
#define T0 1700000000

START_TEST(forgetting_curve_and_interval)
{
    /* by definition recall is 90% after S days, and the 90% interval is S */
    ck_assert_double_eq_tol(cl_fsrs_retrievability(5, 5), 0.9, 1e-12);
    ck_assert_double_eq_tol(cl_fsrs_interval(7.3, 0.9), 7.3, 1e-9);
    ck_assert_double_eq(cl_fsrs_retrievability(0, 3), 1);
    /* a higher target retention means a shorter interval */
    ck_assert(cl_fsrs_interval(10, 0.95) < 10);
}
END_TEST

START_TEST(initial_state_per_rating)
{
    ck_assert_double_eq(cl_fsrs_init_stability(CL_AGAIN), 0.4872);
    ck_assert_double_eq(cl_fsrs_init_stability(CL_GOOD), 3.7145);
    ck_assert_double_eq(cl_fsrs_init_stability(CL_EASY), 13.8206);
    /* D0(G) = w4 - w5 (G - 3) */
    ck_assert_double_eq_tol(cl_fsrs_init_difficulty(CL_AGAIN), 7.6214, 1e-9);
    ck_assert_double_eq_tol(cl_fsrs_init_difficulty(CL_GOOD), 5.1618, 1e-9);
    ck_assert_double_eq_tol(cl_fsrs_init_difficulty(CL_EASY), 3.9320, 1e-9);
}
END_TEST

START_TEST(a_card_through_good_good_again)
{
    cl_card c;
    memset(&c, 0, sizeof c);
    /* first answer Good: S = w2, due in round(3.7145) = 4 days */
    cl_card_review(&c, CL_GOOD, T0);
    ck_assert_double_eq_tol(c.stability, 3.7145, 1e-9);
    ck_assert_double_eq_tol(c.difficulty, 5.1618, 1e-9);
    ck_assert_int_eq(c.due, T0 + 4 * DAY);
    ck_assert_int_eq(c.state, CL_CARD_REVIEW);
    /* reviewed on time (R = 0.8935): S' = 14.8081, due in 15 days; D stays at the mean */
    int64_t t1 = T0 + 4 * DAY;
    cl_card_review(&c, CL_GOOD, t1);
    ck_assert_double_eq_tol(c.stability, 14.808100506, 1e-6);
    ck_assert_double_eq_tol(c.difficulty, 5.1618, 1e-9);
    ck_assert_int_eq(c.due, t1 + 15 * DAY);
    /* forgotten 15 days later: S'f = 3.1493, D' = 6.9012, relearn in 10 minutes, a lapse */
    int64_t t2 = t1 + 15 * DAY;
    cl_card_review(&c, CL_AGAIN, t2);
    ck_assert_double_eq_tol(c.stability, 3.149321251, 1e-6);
    ck_assert_double_eq_tol(c.difficulty, 6.901155, 1e-6);
    ck_assert_int_eq(c.due, t2 + CL_FSRS_RELEARN_SECONDS);
    ck_assert_int_eq(c.lapses, 1);
    ck_assert_int_eq(c.reps, 3);
    ck_assert_int_eq(c.state, CL_CARD_LEARNING);
}
END_TEST

START_TEST(hard_and_easy_after_the_first_review)
{
    cl_card h, e;
    memset(&h, 0, sizeof h);
    cl_card_review(&h, CL_GOOD, T0);
    e = h;
    cl_card_review(&h, CL_HARD, T0 + 4 * DAY);
    cl_card_review(&e, CL_EASY, T0 + 4 * DAY);
    ck_assert_double_eq_tol(h.stability, 6.234966035, 1e-6);
    ck_assert_double_eq_tol(e.stability, 35.614148256, 1e-6);
    ck_assert_double_eq_tol(h.difficulty, 6.0314775, 1e-6);
    ck_assert_int_eq(h.due, T0 + 4 * DAY + 6 * DAY);
    ck_assert_int_eq(e.due, T0 + 4 * DAY + 36 * DAY);
    ck_assert_int_eq(h.lapses, 0);
}
END_TEST

START_TEST(a_new_card_rated_again)
{
    cl_card c;
    memset(&c, 0, sizeof c);
    cl_card_review(&c, CL_AGAIN, T0);
    ck_assert_double_eq(c.stability, 0.4872);
    ck_assert_double_eq_tol(c.difficulty, 7.6214, 1e-9);
    ck_assert_int_eq(c.due, T0 + 600);
    ck_assert_int_eq(c.lapses, 0); /* never learned: not a lapse */
}
END_TEST

START_TEST(intervals_are_capped_and_a_lapse_never_raises_stability)
{
    cl_card c;
    memset(&c, 0, sizeof c);
    int64_t t = T0;
    cl_card_review(&c, CL_EASY, t);
    for (int i = 0; i < 12; i++) {
        t = c.due;
        cl_card_review(&c, CL_EASY, t);
    }
    ck_assert_int_le(c.due - t, (int64_t)CL_FSRS_MAX_INTERVAL_DAYS * DAY);
    double s = c.stability;
    cl_card_review(&c, CL_AGAIN, c.due + 1000 * DAY); /* long overdue: R near 0 */
    ck_assert(c.stability <= s);
    ck_assert(c.stability >= 0.1);
}
END_TEST

START_TEST(ratings_from_scores)
{
    ck_assert_int_eq(cl_rating_for_score(0), CL_AGAIN);
    ck_assert_int_eq(cl_rating_for_score(0.49), CL_AGAIN);
    ck_assert_int_eq(cl_rating_for_score(0.5), CL_HARD);
    ck_assert_int_eq(cl_rating_for_score(0.75), CL_HARD);
    ck_assert_int_eq(cl_rating_for_score(1), CL_GOOD);
}
END_TEST

START_TEST(deck_in_the_database)
{
    sqlite3 *db;
    cl_err err;
    ck_assert_msg(cl_db_open(":memory:", &db, &err) == 0, "%s", err.msg);
    ck_assert_msg(cl_questions_db_init(db, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(cl_questions_db_init(db, &err), 0); /* idempotent */

    cl_question right = {.id = "q-right", .topic = "memory", .difficulty = 2};
    cl_question wrong = {.id = "q-wrong", .topic = "warps", .difficulty = 3};
    cl_question hard = {.id = "q-hard", .topic = "warps", .difficulty = 1};
    int in_deck;
    cl_attempt a = {T0, "quiz", &right, 1.0, CL_GOOD, "b", 3.5};
    ck_assert_int_eq(cl_attempt_record(db, &a, &in_deck, &err), 0);
    ck_assert_int_eq(in_deck, 0); /* right and not hard: no card */
    a = (cl_attempt){T0, "quiz", &wrong, 0.0, CL_AGAIN, "a", 2};
    ck_assert_int_eq(cl_attempt_record(db, &a, &in_deck, &err), 0);
    ck_assert_int_eq(in_deck, 1);
    a = (cl_attempt){T0 + 1, "quiz", &hard, 1.0, CL_HARD, "c", 2};
    ck_assert_int_eq(cl_attempt_record(db, &a, &in_deck, &err), 0);
    ck_assert_int_eq(in_deck, 1); /* right but rated hard */

    int total, due;
    int64_t next;
    ck_assert_int_eq(cl_cards_summary(db, T0 + 60, &total, &due, &next, &err), 0);
    ck_assert_int_eq(total, 2);
    ck_assert_int_eq(due, 0);
    ck_assert_int_eq(next, T0 + 600); /* the wrong one comes back in 10 minutes */

    cl_card *cards;
    int n;
    ck_assert_int_eq(cl_cards_due(db, T0 + 601, 0, 10, &cards, &n, &err), 0);
    ck_assert_int_eq(n, 1);
    ck_assert_str_eq(cards[0].qid, "q-wrong");
    ck_assert_str_eq(cards[0].topic, "warps");
    free(cards);
    ck_assert_int_eq(cl_cards_due(db, T0, 1, 10, &cards, &n, &err), 0);
    ck_assert_int_eq(n, 2); /* --all */
    free(cards);

    /* answering the card again (any mode) reviews it: Good moves it out by days */
    a = (cl_attempt){T0 + 700, "review", &wrong, 1.0, CL_GOOD, "b", 1};
    ck_assert_int_eq(cl_attempt_record(db, &a, &in_deck, &err), 0);
    cl_card c;
    int found;
    ck_assert_int_eq(cl_card_get(db, "q-wrong", &c, &found, &err), 0);
    ck_assert_int_eq(found, 1);
    ck_assert_int_eq(c.reps, 2);
    ck_assert_int_ge(c.due, T0 + 700 + DAY);

    /* attempts are all kept; counts per bank question feed "least seen first" */
    cl_bank b;
    cl_bank_init(&b);
    cl_question qs[3] = {right, wrong, hard};
    b.q = qs;
    b.nq = 3;
    int counts[3];
    ck_assert_int_eq(cl_attempt_counts(db, &b, counts, &err), 0);
    ck_assert_int_eq(counts[0], 1);
    ck_assert_int_eq(counts[1], 2);
    ck_assert_int_eq(counts[2], 1);
    cl_db_close(db);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("questions_srs");
    TCase *tc = tcase_create("srs");
    tcase_add_test(tc, forgetting_curve_and_interval);
    tcase_add_test(tc, initial_state_per_rating);
    tcase_add_test(tc, a_card_through_good_good_again);
    tcase_add_test(tc, hard_and_easy_after_the_first_review);
    tcase_add_test(tc, a_new_card_rated_again);
    tcase_add_test(tc, intervals_are_capped_and_a_lapse_never_raises_stability);
    tcase_add_test(tc, ratings_from_scores);
    tcase_add_test(tc, deck_in_the_database);
    suite_add_tcase(s, tc);
    return qt_run(s);
}
