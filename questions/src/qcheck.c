/* qcheck.c: checks a concrete question (what a generator produced) against the
 * format's rules, and samples every family entry of a bank through that check. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bank_internal.h"
#include "questions/family.h"
#include "questions/rng.h"

/* ---- checking a concrete (generated) question ------------------------------------------ */

typedef struct checker {
    const char *what;
    cl_report_fn report;
    void *ctx;
    int problems;
} checker;

static void cproblem(checker *C, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void cproblem(checker *C, const char *fmt, ...)
{
    char msg[1536];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cl_report_plain(C->report, C->ctx, "%s: %s", C->what, msg);
    C->problems++;
}

static void check_text(checker *C, const cl_qtext *t, const char *what)
{
    if (!t->en || cl_is_blank(t->en))
        cproblem(C, "%s.en is empty", what);
    if (!t->zh || cl_is_blank(t->zh))
        cproblem(C, "%s.zh is empty", what);
}

int cl_question_check(const cl_question *q, const char *what, cl_report_fn report, void *ctx)
{
    checker C = {what, report, ctx, 0};
    if ((unsigned)q->type >= CL_Q_NTYPES)
        cproblem(&C, "type %d is not a question type", (int)q->type);
    if (q->difficulty < 1 || q->difficulty > 5)
        cproblem(&C, "difficulty %d is not 1..5", q->difficulty);
    check_text(&C, &q->prompt, "prompt");
    check_text(&C, &q->explanation, "explanation");
    char w[32];
    switch (q->type) {
    case CL_Q_SINGLE:
    case CL_Q_MULTI:
        if (q->nchoices < 2 || q->nchoices > CL_Q_MAX_CHOICES)
            cproblem(&C, "%d choices (2..%d allowed)", q->nchoices, CL_Q_MAX_CHOICES);
        for (int i = 0; i < q->nchoices && i < CL_Q_MAX_CHOICES; i++) {
            snprintf(w, sizeof w, "choice %c", 'a' + i);
            check_text(&C, &q->choices[i], w);
            for (int j = 0; j < i; j++)
                if (q->choices[i].en && q->choices[j].en && !strcmp(q->choices[i].en, q->choices[j].en))
                    cproblem(&C, "choice %c repeats choice %c ('%s')", 'a' + i, 'a' + j, q->choices[i].en);
        }
        if (q->type == CL_Q_SINGLE && (q->answer < 0 || q->answer >= q->nchoices))
            cproblem(&C, "answer %d is out of range", q->answer);
        if (q->type == CL_Q_MULTI &&
            (q->answer_set == 0 || (q->nchoices < 32 && (q->answer_set >> q->nchoices))))
            cproblem(&C, "answer set 0x%x does not fit %d choices", q->answer_set, q->nchoices);
        break;
    case CL_Q_NUMERIC:
        if (!isfinite(q->number))
            cproblem(&C, "the answer is not a finite number");
        if (!(q->tol_abs >= 0) || !(q->tol_rel >= 0) || (q->tol_abs > 0 && q->tol_rel > 0))
            cproblem(&C, "tolerance must be one of abs or rel, >= 0");
        if (!q->unit)
            cproblem(&C, "no unit (use \"\" for none)");
        break;
    case CL_Q_ORDER:
        if (q->nitems < CL_Q_MIN_ITEMS || q->nitems > CL_Q_MAX_ITEMS)
            cproblem(&C, "%d items (%d..%d allowed)", q->nitems, CL_Q_MIN_ITEMS, CL_Q_MAX_ITEMS);
        for (int i = 0; i < q->nitems && i < CL_Q_MAX_ITEMS; i++) {
            snprintf(w, sizeof w, "item %d", i + 1);
            check_text(&C, &q->items[i], w);
        }
        break;
    case CL_Q_SHORT:
        check_text(&C, &q->model_answer, "model_answer");
        if (q->ngroups < 1 || q->need < 1 || q->need > q->ngroups)
            cproblem(&C, "rubric needs 1 <= need (%d) <= groups (%d)", q->need, q->ngroups);
        for (int i = 0; i < q->ngroups; i++)
            if (q->groups[i].nalts < 1)
                cproblem(&C, "keyword group %d is empty", i + 1);
        break;
    default:
        break;
    }
    return C.problems;
}

int cl_bank_check_families(const cl_bank *b, int samples, cl_report_fn report, void *ctx)
{
    int problems = 0;
    for (int i = 0; i < b->nq; i++) {
        const cl_question *q = &b->q[i];
        if (!q->family)
            continue;
        int mine = 0;
        for (int s = 0; s < samples && !mine; s++) {
            cl_arena a;
            cl_arena_init(&a);
            cl_question inst;
            cl_err err;
            uint64_t seed = cl_seed_mix(cl_hash_str(q->id), (uint64_t)s);
            char what[512];
            snprintf(what, sizeof what, "%s:%d: family '%s' (seed %llu)", q->file, q->line, q->family,
                     (unsigned long long)seed);
            if (cl_question_instantiate(q, seed, &a, &inst, &err)) {
                cl_report_plain(report, ctx, "%s: %s", what, err.msg);
                mine++;
            } else {
                mine += cl_question_check(&inst, what, report, ctx);
            }
            cl_arena_free(&a); /* one broken sample says enough: the loop stops */
        }
        problems += mine;
    }
    return problems;
}
