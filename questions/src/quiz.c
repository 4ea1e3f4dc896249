/* quiz.c: the practice loop. */
#include "questions/quiz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "questions/progress.h"
#include "questions/rng.h"

int cl_quiz_run(const cl_bank *b, sqlite3 *db, const cl_quiz_opts *o, cl_io *io,
                cl_session_result *r, cl_err *err)
{
    memset(r, 0, sizeof *r);
    if (cl_filter_check(&o->filter, b, err))
        return -1;
    int *priority = NULL, *pick = malloc(sizeof(int) * (size_t)(b->nq ? b->nq : 1));
    if (!pick)
        return cl_err_set(err, "out of memory");
    if (db) {
        priority = malloc(sizeof(int) * (size_t)(b->nq ? b->nq : 1));
        if (!priority || cl_attempt_counts(db, b, priority, err)) {
            free(priority);
            free(pick);
            return priority ? -1 : cl_err_set(err, "out of memory");
        }
    }
    int n = cl_select(b, &o->filter, o->seed, o->n, priority, pick);
    free(priority);
    if (n == 0) {
        free(pick);
        return cl_err_set(err, "no question matches (check --topic and --difficulty)");
    }
    cl_session s = {b, db, io, "quiz", o->now, r};
    int rc = 0;
    for (int i = 0; i < n; i++) {
        const cl_question *q = &b->q[pick[i]];
        char header[256];
        snprintf(header, sizeof header, CL_TR(io->lang, "[%d/%d] %s · difficulty %d · %s",
                                                      "[%d/%d] %s · 难度 %d · %s"),
                 i + 1, n, cl_topic_display(&q->topic_title, q->topic, io->lang), q->difficulty, q->id);
        cl_asked a;
        rc = cl_session_ask(&s, q, cl_seed_mix(o->seed, cl_hash_str(q->id)), header, &a, err);
        if (rc != 0 || r->ended_early)
            break;
    }
    free(pick);
    return rc < 0 ? -1 : 0;
}
