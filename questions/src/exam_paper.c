/* exam_paper.c: drawing an exam paper from a seed and printing it (markdown). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "questions/ask.h"
#include "questions/exam.h"
#include "questions/family.h"
#include "questions/rng.h"
#include "questions/select.h"

int cl_spec_same(const cl_exam_spec *a, const cl_exam_spec *b)
{
    return a->seed == b->seed && a->n == b->n && !strcmp(a->topics, b->topics) && a->dmin == b->dmin &&
           a->dmax == b->dmax;
}

/* The filter's topics by their titles, joined the way each language lists things. */
static void shown_topics(const cl_bank *b, const cl_filter *f, cl_arena *a, cl_qtext *out)
{
    size_t len = 1;
    for (int i = 0; i < f->ntopics; i++) {
        const cl_topic *t = cl_bank_topic(b, f->topics[i]);
        len += strlen(f->topics[i]) + 4 + (t ? strlen(cl_qtext_get(&t->title, CL_LANG_EN)) +
                                                   strlen(cl_qtext_get(&t->title, CL_LANG_ZH)) : 0);
    }
    for (int l = 0; l < 2; l++) {
        cl_lang lang = l ? CL_LANG_ZH : CL_LANG_EN;
        char *s = cl_arena_alloc(a, len);
        s[0] = '\0';
        for (int i = 0; i < f->ntopics; i++) {
            const cl_topic *t = cl_bank_topic(b, f->topics[i]);
            if (i)
                strcat(s, CL_TR(lang, "; ", "；")); /* titles may hold commas */
            strcat(s, cl_topic_display(t ? &t->title : NULL, f->topics[i], lang));
        }
        *(l ? &out->zh : &out->en) = s;
    }
}

static int paper_make(const cl_bank *b, const cl_exam_spec *spec, cl_paper *p, cl_err *err)
{
    memset(p, 0, sizeof *p);
    cl_arena_init(&p->arena);
    p->spec = *spec;
    p->fingerprint = cl_bank_fingerprint(b);
    if (spec->n < 1)
        return cl_err_set(err, "an exam needs at least one question");
    cl_filter f;
    cl_filter_init(&f);
    f.dmin = spec->dmin;
    f.dmax = spec->dmax;
    char *topics = cl_arena_strdup(&p->arena, spec->topics);
    for (char *save = NULL, *t = strtok_r(topics, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
        if (f.ntopics >= CL_FILTER_MAX)
            return cl_err_set(err, "too many topics");
        f.topics[f.ntopics++] = t;
    }
    if (cl_filter_check(&f, b, err))
        return -1;
    shown_topics(b, &f, &p->arena, &p->topics_shown);
    int *pick = malloc(sizeof(int) * (size_t)(b->nq ? b->nq : 1));
    if (!pick)
        return cl_err_set(err, "out of memory");
    int n = cl_select(b, &f, spec->seed, spec->n, NULL, pick);
    if (n < spec->n) {
        free(pick);
        return cl_err_set(err, "only %d question%s match%s; the exam asks for %d", n, n == 1 ? "" : "s",
                          n == 1 ? "es" : "", spec->n);
    }
    p->items = cl_arena_alloc(&p->arena, sizeof *p->items * (size_t)n);
    for (int i = 0; i < n; i++) {
        const cl_question *q = &b->q[pick[i]];
        uint64_t seed = cl_seed_mix(spec->seed, cl_hash_str(q->id));
        cl_question inst;
        if (cl_question_instantiate(q, seed, &p->arena, &inst, err)) {
            free(pick);
            return -1;
        }
        cl_shown_init(&p->items[i], &inst, seed);
    }
    p->n = n;
    free(pick);
    return 0;
}

int cl_paper_make(const cl_bank *b, const cl_exam_spec *spec, cl_paper *p, cl_err *err)
{
    if (paper_make(b, spec, p, err)) {
        cl_paper_free(p);
        return -1;
    }
    return 0;
}

void cl_paper_free(cl_paper *p)
{
    cl_arena_free(&p->arena);
    memset(p, 0, sizeof *p);
}

static const char *how_to_answer(const cl_question *q, cl_lang L)
{
    switch (q->type) {
    case CL_Q_SINGLE: return CL_TR(L, "one letter", "一个字母");
    case CL_Q_MULTI: return CL_TR(L, "every letter that applies", "所有正确选项的字母");
    case CL_Q_NUMERIC: return CL_TR(L, "a number", "一个数");
    case CL_Q_ORDER: return CL_TR(L, "all letters, in the right order", "按正确顺序写出全部字母");
    default: return CL_TR(L, "a short answer on one line", "一行简短回答");
    }
}

void cl_paper_print(FILE *f, const cl_paper *p, cl_lang L, int with_key)
{
    fprintf(f, CL_TR(L, "# cudalab exam — seed %" PRIu64 "%s\n\n", "# cudalab 考试 — 种子 %" PRIu64 "%s\n\n"),
            p->spec.seed, with_key ? CL_TR(L, " (answer key)", "（答案）") : "");
    fprintf(f, CL_TR(L, "%d questions · topics: %s · difficulty %d-%d · bank %016" PRIx64 "\n\n",
                     "%d 道题 · 主题：%s · 难度 %d-%d · 题库 %016" PRIx64 "\n\n"),
            p->n, p->topics_shown.en && *p->topics_shown.en ? cl_qtext_get(&p->topics_shown, L) : CL_TR(L, "all", "全部"),
            p->spec.dmin, p->spec.dmax, p->fingerprint);
    if (!with_key)
        fprintf(f, "%s\n\n", CL_TR(L, "Write your answers on the sheet (`cudalab exam --blank`): one line per "
                                      "question, `<number> <id>: <answer>`.",
                                   "请在答题纸（`cudalab exam --blank`）上作答：每题一行，`<题号> <id>: <答案>`。"));
    for (int i = 0; i < p->n; i++) {
        const cl_shown *s = &p->items[i];
        const cl_question *q = &s->q;
        fprintf(f, CL_TR(L, "## %d. `%s` (%s, difficulty %d)\n\n", "## %d. `%s`（%s，难度 %d）\n\n"), i + 1, q->id,
                cl_topic_display(&q->topic_title, q->topic, L), q->difficulty);
        fprintf(f, "%s\n\n", cl_qtext_get(&q->prompt, L));
        if (q->type == CL_Q_SINGLE || q->type == CL_Q_MULTI) {
            for (int c = 0; c < q->nchoices; c++)
                fprintf(f, "- %c) %s\n", 'a' + c, cl_qtext_get(&q->choices[c], L));
            fputc('\n', f);
        } else if (q->type == CL_Q_ORDER) {
            for (int k = 0; k < q->nitems; k++)
                fprintf(f, "- %c) %s\n", 'a' + k, cl_qtext_get(&q->items[s->perm[k]], L));
            fputc('\n', f);
        }
        fprintf(f, CL_TR(L, "*%s: %s%s%s*\n\n", "*%s：%s%s%s*\n\n"), CL_TR(L, "Answer with", "作答方式"), how_to_answer(q, L),
                q->type == CL_Q_NUMERIC && q->unit && *q->unit ? CL_TR(L, ", in ", "，单位 ") : "",
                q->type == CL_Q_NUMERIC && q->unit ? cl_unit_text(q->unit, L) : "");
        if (with_key) {
            char key[64], expected[4096];
            cl_answer_key(s, L, key, sizeof key);
            cl_expected_text(s, L, expected, sizeof expected);
            fprintf(f, "**%s** `%s` — %s\n\n", CL_TR(L, "Key:", "答案："),
                    q->type == CL_Q_SHORT ? "…" : key, expected);
            if (q->type == CL_Q_SHORT) {
                fprintf(f, CL_TR(L, "Rubric: %d of these key points: ", "评分：需命中 %d 个要点："), q->need);
                for (int g = 0; g < q->ngroups; g++) {
                    const cl_kwgroup *kg = &q->groups[g];
                    const char *label = cl_qtext_get(&kg->label, L);
                    fprintf(f, "%s", g ? CL_TR(L, ", ", "，") : "");
                    if (label && *label)
                        fprintf(f, "%s ", label);
                    fputc('[', f);
                    for (int a = 0; a < kg->nalts; a++)
                        fprintf(f, "%s%s", a ? " | " : "", kg->alts[a]);
                    if (kg->has_number)
                        fprintf(f, "%s%g ± %g%s", kg->nalts ? " | " : "", kg->number,
                                kg->tol_rel > 0 ? kg->tol_rel * 100 : kg->tol_abs, kg->tol_rel > 0 ? "%" : "");
                    fputc(']', f);
                }
                fprintf(f, "\n\n");
            }
            fprintf(f, "%s\n\n", cl_qtext_get(&q->explanation, L));
        }
    }
}
