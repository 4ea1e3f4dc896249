/* qcheck.c: checks a concrete question (what a generator produced) against the
 * format's rules, and samples every family entry of a bank through that check. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bank_internal.h"
#include "questions/family.h"
#include "questions/rng.h"
#include "questions/zhstyle.h"

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

static void style_text(checker *C, const cl_qtext *t, const char *what)
{
    char msg[512];
    if (t->zh && cl_zh_style_check(t->zh, msg, sizeof msg))
        cproblem(C, "%s.zh: %s", what, msg);
}

int cl_question_check_style(const cl_question *q, const char *what, cl_report_fn report, void *ctx)
{
    checker C = {what, report, ctx, 0};
    char w[32];
    style_text(&C, &q->prompt, "prompt");
    style_text(&C, &q->explanation, "explanation");
    for (int i = 0; i < q->nchoices && i < CL_Q_MAX_CHOICES; i++) {
        snprintf(w, sizeof w, "choice %c", 'a' + i);
        style_text(&C, &q->choices[i], w);
    }
    for (int i = 0; i < q->nitems && i < CL_Q_MAX_ITEMS; i++) {
        snprintf(w, sizeof w, "item %d", i + 1);
        style_text(&C, &q->items[i], w);
    }
    if (q->type == CL_Q_SHORT)
        style_text(&C, &q->model_answer, "model_answer");
    return C.problems;
}

int cl_bank_check_style(const cl_bank *b, cl_report_fn report, void *ctx)
{
    int problems = 0;
    for (int i = 0; i < b->nq; i++) {
        if (b->q[i].family)
            continue; /* generated questions are checked on every draw */
        char what[512];
        snprintf(what, sizeof what, "%s:%d: question '%s'", b->q[i].file, b->q[i].line, b->q[i].id);
        problems += cl_question_check_style(&b->q[i], what, report, ctx);
    }
    return problems;
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

/* Draws one instance of variant v (0: the entry's own pick) and checks it: the format's
 * rules, then the family's recomputation of the answer from the drawn parameters. */
static int check_draw(const cl_question *q, const cl_family *f, uint64_t seed, int v, cl_report_fn report,
                      void *ctx)
{
    cl_arena a;
    cl_arena_init(&a);
    cl_question inst;
    cl_err err;
    char what[512];
    int problems = 0;
    if (!v)
        v = cl_family_variant(q, seed);
    snprintf(what, sizeof what, "%s:%d: family '%s' (variant %d, seed %llu)", q->file, q->line, q->family,
             v, (unsigned long long)seed);
    if (cl_question_instantiate_variant(q, seed, v, &a, &inst, &err)) {
        cl_report_plain(report, ctx, "%s: %s", what, err.msg);
        problems++;
    } else {
        problems += cl_question_check(&inst, what, report, ctx);
        problems += cl_question_check_style(&inst, what, report, ctx);
        double expect;
        if (!problems && f->recompute) {
            if (f->recompute(&inst, &expect)) {
                cl_report_plain(report, ctx, "%s: the recomputation cannot read the parameters", what);
                problems++;
            } else if (inst.type == CL_Q_SINGLE && (int)expect != inst.answer) {
                cl_report_plain(report, ctx, "%s: answer is choice %c, recomputed %c", what, 'a' + inst.answer,
                                'a' + (int)expect);
                problems++;
            } else if (inst.type == CL_Q_NUMERIC &&
                       fabs(expect - inst.number) > 1e-6 * (fabs(expect) > 1 ? fabs(expect) : 1)) {
                cl_report_plain(report, ctx, "%s: answer %.10g, recomputed %.10g", what, inst.number, expect);
                problems++;
            }
        }
    }
    cl_arena_free(&a);
    return problems;
}

int cl_bank_check_families(const cl_bank *b, int samples, cl_report_fn report, void *ctx)
{
    int problems = 0;
    for (int i = 0; i < b->nq; i++) {
        const cl_question *q = &b->q[i];
        const cl_family *f = q->family ? cl_family_find(q->family) : NULL;
        if (!f)
            continue;
        int mine = 0;
        /* every declared variant `samples` times, then random draws as a student gets them */
        int nv = q->nvariants ? q->nvariants : 1;
        for (int k = 0; k < nv && !mine; k++)
            for (int s = 0; s < samples && !mine; s++) {
                int v = q->nvariants ? q->variants[k] : q->difficulty;
                mine += check_draw(q, f, cl_seed_mix(cl_hash_str(q->id), (uint64_t)(s * 8 + v)), v, report, ctx);
            }
        for (int s = 0; s < samples * 8 && !mine; s++) /* one broken draw says enough */
            mine += check_draw(q, f, cl_seed_mix(cl_hash_str(q->id) ^ 0x5eedULL, (uint64_t)s), 0, report, ctx);
        problems += mine;
    }
    return problems;
}
