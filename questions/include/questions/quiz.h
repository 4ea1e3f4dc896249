/* quiz.h: practice mode: N questions (topic, difficulty or ids chosen), immediate
 * feedback with the explanation, everything recorded; wrong or hard answers enter the
 * review deck. Questions seen fewer times come first. */
#ifndef CUDALAB_Q_QUIZ_H
#define CUDALAB_Q_QUIZ_H

#include <sqlite3.h>
#include <stdint.h>

#include "err.h"
#include "questions/ask.h"
#include "questions/select.h"
#include "questions/session.h"

typedef struct cl_quiz_opts {
    cl_filter filter;
    int n;         /* how many questions */
    uint64_t seed; /* the pick, the family draws and the order shuffles */
    int64_t now;   /* unix seconds, for the records */
} cl_quiz_opts;

/* db may be NULL (nothing recorded). Fails when no question matches the filter. */
int cl_quiz_run(const cl_bank *b, sqlite3 *db, const cl_quiz_opts *o, cl_io *io,
                cl_session_result *r, cl_err *err);

#endif
