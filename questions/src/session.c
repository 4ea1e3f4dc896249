/* session.c: one question asked, graded, explained, rated and recorded. */
#include "questions/session.h"

#include <string.h>

#include "questions/family.h"
#include "questions/progress.h"
#include "term.h"

void cl_tally_add(cl_session_result *r, const cl_question *q, const cl_grade *g)
{
    r->asked++;
    r->points += g->score;
    if (g->status == CL_GRADE_EMPTY || g->status == CL_GRADE_UNREADABLE) /* a piped typo is not a wrong answer */
        r->skipped++;
    else if (g->score >= 0.999)
        r->right++;
    else if (g->score > 0)
        r->partial++;
    else
        r->wrong++;
    cl_topic_tally *t = NULL;
    for (int i = 0; i < r->ntopics; i++)
        if (!strcmp(r->topics[i].topic, q->topic))
            t = &r->topics[i];
    if (!t && r->ntopics < CL_SESSION_TOPICS) {
        t = &r->topics[r->ntopics++];
        memset(t, 0, sizeof *t);
        t->topic = q->topic;
        t->title = q->topic_title;
    }
    if (t) {
        t->asked++;
        t->points += g->score;
        if (q->difficulty > t->max_difficulty)
            t->max_difficulty = q->difficulty;
    }
}

int cl_session_ask(cl_session *s, const cl_question *q, uint64_t seed, const char *header,
                   cl_asked *asked, cl_err *err)
{
    cl_arena arena;
    cl_arena_init(&arena);
    cl_question inst;
    if (cl_question_instantiate(q, seed, &arena, &inst, err)) {
        cl_arena_free(&arena);
        return -1;
    }
    cl_shown shown;
    cl_shown_init(&shown, &inst, seed);
    if (cl_ask(s->io, &shown, header, asked)) {
        cl_arena_free(&arena);
        s->result->ended_early = 1;
        return 1;
    }
    {
        char full[4096];
        cl_expected_text(&shown, s->io->lang, full, sizeof full);
        size_t max = sizeof asked->expected - 1, len = strlen(full);
        if (len > max) { /* cut at a UTF-8 character boundary */
            while (max > 0 && ((unsigned char)full[max] & 0xC0) == 0x80)
                max--;
            full[max] = '\0';
        }
        snprintf(asked->expected, sizeof asked->expected, "%s", full);
    }
    if (s->io->feedback) {
        cl_show_feedback(s->io, &shown, asked);
        cl_ask_rating(s->io, asked);
    } else {
        asked->rating = cl_rating_for_score(asked->grade.score);
    }
    cl_tally_add(s->result, q, &asked->grade);
    if (s->db && asked->grade.status != CL_GRADE_UNREADABLE) { /* nor a lapse in the review schedule */
        cl_attempt a = {s->now + (int64_t)asked->seconds, s->mode, &inst, asked->grade.score,
                        asked->rating, asked->answer, asked->seconds};
        int was_in = 0, in_deck = 0;
        cl_card c;
        cl_err e2;
        if (cl_card_get(s->db, q->id, &c, &was_in, &e2))
            was_in = 1; /* unknown: do not claim it was added */
        cl_err rec;
        if (cl_attempt_record(s->db, &a, &in_deck, &rec)) {
            /* the answer still counts; only the record is lost: say so once and go on */
            fprintf(s->io->out, "%s%s %s%s\n", cl_c(s->io->out, CL_YELLOW),
                    CL_TR(s->io->lang, "progress is no longer saved:", "进度不再保存："), rec.msg,
                    cl_c0(s->io->out));
            s->db = NULL;
        } else if (in_deck && !was_in) {
            s->result->deck_added++;
            if (s->io->feedback)
                fprintf(s->io->out, "%s%s%s\n", cl_c(s->io->out, CL_DIM),
                        CL_TR(s->io->lang, "(added to your review deck: cudalab review)",
                              "（已加入复习队列：cudalab review）"),
                        cl_c0(s->io->out));
        }
    }
    if (asked->end)
        s->result->ended_early = 1;
    cl_arena_free(&arena);
    return 0;
}
