/* review.c: the spaced-review loop over due cards. */
#include "questions/review.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "questions/progress.h"
#include "questions/rng.h"
#include "term.h"

int cl_review_run(const cl_bank *b, sqlite3 *db, const cl_review_opts *o, cl_io *io,
                  cl_session_result *r, cl_review_info *info, cl_err *err)
{
    memset(r, 0, sizeof *r);
    memset(info, 0, sizeof *info);
    int64_t next;
    if (cl_cards_summary(db, o->now, &info->deck, &info->due, &next, err))
        return -1;
    cl_card *cards;
    int n;
    if (cl_cards_due(db, o->now, o->all, o->n, &cards, &n, err))
        return -1;
    cl_session s = {b, db, io, "review", o->now, r};
    int rc = 0;
    for (int i = 0; i < n; i++) {
        const cl_question *q = cl_bank_find(b, cards[i].qid);
        if (!q) {
            info->missing++;
            fprintf(io->out, "%s%s '%s'%s\n", cl_c(io->out, CL_DIM),
                    CL_TR(io->lang, "skipped: no longer in the bank:", "跳过：题库中已没有"), cards[i].qid,
                    cl_c0(io->out));
            continue;
        }
        char header[256];
        snprintf(header, sizeof header,
                 CL_TR(io->lang, "[%d/%d] review · %s · %s (seen %d×, %d lapse%s)",
                       "[%d/%d] 复习 · %s · %s（已复习 %d 次，遗忘 %d 次%s）"),
                 i + 1, n, cl_topic_display(&q->topic_title, q->topic, io->lang), q->id, cards[i].reps, cards[i].lapses,
                 CL_TR(io->lang, cards[i].lapses == 1 ? "" : "s", ""));
        /* a new draw every review: mix in the review count */
        uint64_t seed = cl_seed_mix(cl_seed_mix(o->seed, cl_hash_str(q->id)), (uint64_t)cards[i].reps);
        cl_asked a;
        rc = cl_session_ask(&s, q, seed, header, &a, err);
        if (rc != 0 || r->ended_early)
            break;
    }
    free(cards);
    if (rc < 0)
        return -1;
    int total, due;
    if (cl_cards_summary(db, o->now, &total, &due, &info->next_due, err))
        return -1;
    return 0;
}
