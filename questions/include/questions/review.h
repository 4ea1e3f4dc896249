/* review.h: spaced review of the deck (srs.h): the cards due now, earliest first. A
 * generated question comes back with new numbers each time: the skill is reviewed, not
 * the memorised answer. */
#ifndef CUDALAB_Q_REVIEW_H
#define CUDALAB_Q_REVIEW_H

#include <sqlite3.h>
#include <stdint.h>

#include "err.h"
#include "questions/ask.h"
#include "questions/session.h"

typedef struct cl_review_opts {
    int n;        /* at most this many cards */
    int all;      /* every card, due or not (cramming before an interview) */
    int64_t now;  /* unix seconds */
    uint64_t seed;
} cl_review_opts;

typedef struct cl_review_info {
    int deck;       /* cards in the deck before the session */
    int due;        /* due before the session */
    int missing;    /* cards whose question is no longer in the bank (skipped) */
    int64_t next_due; /* after the session: the earliest due time, 0 when the deck is empty */
} cl_review_info;

int cl_review_run(const cl_bank *b, sqlite3 *db, const cl_review_opts *o, cl_io *io,
                  cl_session_result *r, cl_review_info *info, cl_err *err);

#endif
