/* session.h: what quiz, review and interview share: asking one bank question (make it
 * concrete, show it, grade it, give feedback, take a rating, record it) and the tally.
 *
 * The modes themselves (quiz.h, review.h, interview.h) only decide which question
 * comes next. */
#ifndef CUDALAB_Q_SESSION_H
#define CUDALAB_Q_SESSION_H

#include <sqlite3.h>
#include <stdint.h>

#include "err.h"
#include "questions/ask.h"
#include "questions/bank.h"

#define CL_SESSION_TOPICS 64

typedef struct cl_topic_tally {
    const char *topic;
    cl_qtext title; /* the topic's title (cl_topic_display shows it) */
    int asked;
    double points; /* sum of scores */
    int max_difficulty;
} cl_topic_tally;

typedef struct cl_session_result {
    int asked, right, partial, wrong, skipped;
    double points;   /* sum of scores (0..asked) */
    int deck_added;  /* questions that entered the review deck */
    int ended_early; /* stopped by :q or end of input */
    int ntopics;
    cl_topic_tally topics[CL_SESSION_TOPICS];
} cl_session_result;

typedef struct cl_session {
    const cl_bank *bank;
    sqlite3 *db;      /* NULL: record nothing */
    cl_io *io;
    const char *mode; /* "quiz", "review", "interview" */
    int64_t now;      /* unix seconds of the session's start (records use it plus elapsed) */
    cl_session_result *result;
} cl_session;

/* Asks q (a family entry is drawn with seed), shows feedback when io->feedback, records
 * the attempt (if the database write fails, says so and stops recording: s->db = NULL).
 * Returns 0 asked, 1 the session should end (nothing counted), -1 error. */
int cl_session_ask(cl_session *s, const cl_question *q, uint64_t seed, const char *header,
                   cl_asked *asked, cl_err *err);

/* Adds one graded answer to the tally. */
void cl_tally_add(cl_session_result *r, const cl_question *q, const cl_grade *g);

#endif
