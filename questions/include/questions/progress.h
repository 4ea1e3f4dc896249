/* progress.h: the questions' part of the progress database (common/db.h).
 *
 *   q_attempts    every graded answer (quiz, review, interview): what, when, score
 *   q_cards       the spaced-repetition deck: FSRS state of each question in review
 *   q_interviews  one row per mock interview, with its scorecard
 * A question enters the deck when it is answered wrong or rated hard (or only partly
 * right); from then on every answer to it, in any mode, is a review of its card. */
#ifndef CUDALAB_Q_PROGRESS_H
#define CUDALAB_Q_PROGRESS_H

#include <sqlite3.h>
#include <stdint.h>

#include "err.h"
#include "questions/bank.h"
#include "questions/srs.h"

/* Creates the tables (CREATE TABLE IF NOT EXISTS). */
int cl_questions_db_init(sqlite3 *db, cl_err *err);

typedef struct cl_attempt {
    int64_t at;
    const char *mode; /* "quiz", "review", "interview" */
    const cl_question *q;
    double score;
    cl_rating rating;
    const char *answer;
    double seconds;
} cl_attempt;

/* Records the attempt and updates the card (creating it when the rating is again or
 * hard), in one transaction. *in_deck (may be NULL) tells whether the question is now
 * in the review deck. */
int cl_attempt_record(sqlite3 *db, const cl_attempt *a, int *in_deck, cl_err *err);

/* counts[i] = attempts at bank question i. */
int cl_attempt_counts(sqlite3 *db, const cl_bank *b, int *counts, cl_err *err);

int cl_card_get(sqlite3 *db, const char *qid, cl_card *c, int *found, cl_err *err);
int cl_card_put(sqlite3 *db, const cl_card *c, cl_err *err);
/* Cards due at now (all: every card), earliest first, at most limit. Free with free(). */
int cl_cards_due(sqlite3 *db, int64_t now, int all, int limit, cl_card **cards, int *n, cl_err *err);
/* Deck size, cards due now, and the earliest due time (0 when the deck is empty). */
int cl_cards_summary(sqlite3 *db, int64_t now, int *total, int *due, int64_t *next_due, cl_err *err);

typedef struct cl_interview_row {
    int64_t started;
    int minutes;
    const char *track;
    uint64_t seed;
    int questions;
    double score;  /* 0..100 */
    int level;     /* the difficulty reached */
    const char *lab, *lab_verdict;
    const char *scorecard; /* the printed scorecard */
} cl_interview_row;
int cl_interview_save(sqlite3 *db, const cl_interview_row *row, cl_err *err);

#endif
