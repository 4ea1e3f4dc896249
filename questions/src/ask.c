/* ask.c: terminal and scripted question/answer I/O with feedback. */
#include "questions/ask.h"

#include <math.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "i18n.h" /* cl_ascii_fold */
#include "term.h"

void cl_io_init(cl_io *io, FILE *in, FILE *out, cl_lang lang, int rate)
{
    memset(io, 0, sizeof *io);
    io->in = in;
    io->out = out;
    io->lang = lang;
    io->interactive = isatty(fileno(in));
    io->rate = rate < 0 ? io->interactive : rate;
    io->feedback = 1;
}

int cl_io_read_line(cl_io *io, char *buf, size_t n)
{
    fflush(io->out);
    if (!fgets(buf, (int)n, io->in))
        return -1;
    size_t len = strlen(buf);
    if (len && buf[len - 1] != '\n' && len + 1 == n) {
        /* longer than the buffer: keep the start, drop the rest of the line */
        int c;
        while ((c = fgetc(io->in)) != EOF && c != '\n')
            ;
    }
    while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
        buf[--len] = '\0';
    cl_ascii_fold(buf); /* ｂ, ４, ：q and a trailing 。 from a Chinese input method */
    if (!io->interactive) /* a script: echo what was read, so the transcript reads well */
        fprintf(io->out, "%s\n", buf);
    return 0;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void fmt_number(double v, char *out, size_t n)
{
    if (v == floor(v) && fabs(v) < 1e15)
        snprintf(out, n, "%.0f", v);
    else
        snprintf(out, n, "%.4g", v);
}

void cl_show_question(const cl_io *io, const cl_shown *s, const char *header)
{
    FILE *o = io->out;
    const cl_question *q = &s->q;
    cl_lang L = io->lang;
    fprintf(o, "\n%s%s%s\n", cl_c(o, CL_BOLD), header ? header : "", cl_c0(o));
    fprintf(o, "%s\n", cl_qtext_get(&q->prompt, L));
    switch (q->type) {
    case CL_Q_SINGLE:
    case CL_Q_MULTI:
        for (int i = 0; i < q->nchoices; i++)
            fprintf(o, "  %s%c)%s %s\n", cl_c(o, CL_CYAN), 'a' + i, cl_c0(o), cl_qtext_get(&q->choices[i], L));
        break;
    case CL_Q_ORDER:
        for (int k = 0; k < q->nitems; k++)
            fprintf(o, "  %s%c)%s %s\n", cl_c(o, CL_CYAN), 'a' + k, cl_c0(o),
                    cl_qtext_get(&q->items[s->perm[k]], L));
        break;
    default:
        break;
    }
}

static void prompt_hint(const cl_io *io, const cl_shown *s)
{
    FILE *o = io->out;
    const cl_question *q = &s->q;
    cl_lang L = io->lang;
    char last = (char)('a' + (q->type == CL_Q_ORDER ? q->nitems : q->nchoices) - 1);
    fputs(cl_c(o, CL_DIM), o);
    switch (q->type) {
    case CL_Q_SINGLE: fprintf(o, CL_TR(L, "one letter (a-%c)", "一个字母（a-%c）"), last); break;
    case CL_Q_MULTI: fprintf(o, CL_TR(L, "every letter that applies, e.g. ac", "所有正确选项的字母，例如 ac")); break;
    case CL_Q_NUMERIC:
        if (q->unit && *q->unit)
            fprintf(o, CL_TR(L, "a number, in %s", "一个数，单位：%s"), cl_unit_text(q->unit, L));
        else
            fprintf(o, CL_TR(L, "a number", "一个数"));
        break;
    case CL_Q_ORDER: fprintf(o, CL_TR(L, "all letters in the right order, e.g. cab", "按正确顺序写出全部字母，例如 cab")); break;
    case CL_Q_SHORT: fprintf(o, CL_TR(L, "a short answer on one line", "一行简短回答")); break;
    default: break;
    }
    fprintf(o, CL_TR(L, "; Enter skips, :q stops", "；直接回车跳过，:q 结束"));
    fprintf(o, "%s\n%s> %s", cl_c0(o), cl_c(o, CL_BOLD), cl_c0(o));
}

int cl_ask(cl_io *io, const cl_shown *s, const char *header, cl_asked *out)
{
    memset(out, 0, sizeof *out);
    cl_show_question(io, s, header);
    double t0 = now_seconds();
    for (;;) {
        prompt_hint(io, s);
        if (cl_io_read_line(io, out->answer, sizeof out->answer)) {
            fputc('\n', io->out);
            out->end = 1;
            return 1;
        }
        if (!strcmp(out->answer, ":q") || !strcmp(out->answer, ":quit")) {
            out->end = 1;
            return 1;
        }
        cl_grade_answer(s, out->answer, io->lang, &out->grade);
        if (out->grade.status == CL_GRADE_UNREADABLE && io->interactive) {
            fprintf(io->out, "%s%s%s\n", cl_c(io->out, CL_YELLOW), out->grade.message, cl_c0(io->out));
            continue;
        }
        break;
    }
    out->seconds = now_seconds() - t0;
    out->rating = cl_rating_for_score(out->grade.score);
    return 0;
}

void cl_expected_text(const cl_shown *s, cl_lang L, char *out, size_t n)
{
    const cl_question *q = &s->q;
    size_t o = 0;
    out[0] = '\0';
    switch (q->type) {
    case CL_Q_SINGLE:
        snprintf(out, n, "%c) %s", 'a' + q->answer, cl_qtext_get(&q->choices[q->answer], L));
        break;
    case CL_Q_MULTI:
        for (int i = 0; i < q->nchoices; i++)
            if (q->answer_set & (1u << i))
                o += (size_t)snprintf(out + o, o < n ? n - o : 0, "%s%c) %s", o ? CL_TR(L, "; ", "；") : "", 'a' + i,
                                      cl_qtext_get(&q->choices[i], L));
        break;
    case CL_Q_NUMERIC: {
        char num[64], tol[64] = "";
        fmt_number(q->number, num, sizeof num);
        if (q->tol_rel > 0)
            snprintf(tol, sizeof tol, " (±%g%%)", q->tol_rel * 100);
        else if (q->tol_abs > 0)
            snprintf(tol, sizeof tol, " (±%g)", q->tol_abs);
        snprintf(out, n, "%s%s%s%s", num, q->unit && *q->unit ? " " : "", cl_unit_text(q->unit, L), tol);
        break;
    }
    case CL_Q_ORDER: {
        char key[16];
        cl_answer_key(s, L, key, sizeof key);
        o += (size_t)snprintf(out, n, "%s:", key);
        for (int i = 0; i < q->nitems; i++)
            o += (size_t)snprintf(out + o, o < n ? n - o : 0, " %s%d. %s", i ? "→ " : "", i + 1,
                                  cl_qtext_get(&q->items[i], L));
        break;
    }
    case CL_Q_SHORT:
        snprintf(out, n, "%s", cl_qtext_get(&q->model_answer, L));
        break;
    default:
        break;
    }
}

/* A key point as feedback names it: its label in lang, else its first alternative in
 * lang's script (a Chinese alternative for a Chinese reader), else the first one. */
static const char *point_name(const cl_kwgroup *g, cl_lang L)
{
    const char *label = cl_qtext_get(&g->label, L);
    if (label && *label)
        return label;
    for (int j = 0; j < g->nalts; j++) {
        int wide = 0;
        for (const unsigned char *p = (const unsigned char *)g->alts[j]; *p; p++)
            wide |= *p >= 0x80;
        if ((L == CL_LANG_ZH) == (wide != 0))
            return g->alts[j];
    }
    return g->nalts ? g->alts[0] : "?";
}

static void show_short_detail(const cl_io *io, const cl_shown *s, const cl_grade *g)
{
    FILE *o = io->out;
    cl_lang L = io->lang;
    const cl_question *q = &s->q;
    fprintf(o, CL_TR(L, "Key points found: %d of the %d needed", "命中要点：%d 个（需要 %d 个）"), g->nmatched, q->need);
    int first = 1;
    for (int i = 0; i < q->ngroups; i++)
        if (g->matched & (1u << (i < 31 ? i : 31))) {
            fprintf(o, "%s%s", first ? CL_TR(L, " (", "（") : CL_TR(L, ", ", "、"), point_name(&q->groups[i], L));
            first = 0;
        }
    fprintf(o, "%s", first ? "" : CL_TR(L, ")", "）"));
    first = 1;
    for (int i = 0; i < q->ngroups; i++)
        if (!(g->matched & (1u << (i < 31 ? i : 31)))) {
            fprintf(o, "%s%s", first ? CL_TR(L, "; missing: ", "；缺少：") : CL_TR(L, ", ", "、"),
                    point_name(&q->groups[i], L));
            first = 0;
        }
    fputc('\n', o);
}

void cl_show_feedback(const cl_io *io, const cl_shown *s, const cl_asked *a)
{
    FILE *o = io->out;
    cl_lang L = io->lang;
    const cl_grade *g = &a->grade;
    char expected[4096];
    cl_expected_text(s, L, expected, sizeof expected);
    if (g->status == CL_GRADE_EMPTY) {
        fprintf(o, "%s– %s%s\n", cl_c(o, CL_YELLOW), CL_TR(L, "Skipped.", "已跳过。"), cl_c0(o));
    } else if (g->status == CL_GRADE_UNREADABLE) {
        fprintf(o, CL_TR(L, "%s✗ %s '%s': %s%s\n", "%s✗ %s「%s」：%s%s\n"), cl_c(o, CL_RED), CL_TR(L, "Could not read", "无法识别"),
                a->answer, g->message, cl_c0(o));
    } else if (g->score >= 0.999) {
        fprintf(o, "%s✓ %s%s\n", cl_c(o, CL_GREEN), CL_TR(L, "Right.", "正确。"), cl_c0(o));
    } else if (g->score > 0) {
        fprintf(o, CL_TR(L, "%s◐ Partly right (%.0f%%).%s\n", "%s◐ 部分正确（%.0f%%）。%s\n"), cl_c(o, CL_YELLOW),
                g->score * 100, cl_c0(o));
    } else {
        fprintf(o, "%s✗ %s%s\n", cl_c(o, CL_RED), CL_TR(L, "Wrong.", "错误。"), cl_c0(o));
    }
    if (s->q.type == CL_Q_SHORT && g->status == CL_GRADE_OK)
        show_short_detail(io, s, g);
    if (g->score < 0.999 || s->q.type == CL_Q_SHORT)
        fprintf(o, CL_TR(L, "%s%s%s %s\n", "%s%s%s%s\n"), cl_c(o, CL_BOLD),
                s->q.type == CL_Q_SHORT ? CL_TR(L, "Model answer:", "参考答案：") : CL_TR(L, "Answer:", "答案："),
                cl_c0(o), expected);
    fprintf(o, CL_TR(L, "%s%s%s %s\n", "%s%s%s%s\n"), cl_c(o, CL_BOLD), CL_TR(L, "Why:", "解析："), cl_c0(o),
            cl_qtext_get(&s->q.explanation, L));
    if (s->q.nrefs) {
        fprintf(o, "%s%s", cl_c(o, CL_DIM), CL_TR(L, "See:", "参考："));
        for (int i = 0; i < s->q.nrefs; i++)
            fprintf(o, " %s", s->q.refs[i]);
        fprintf(o, "%s\n", cl_c0(o));
    }
}

void cl_ask_rating(cl_io *io, cl_asked *a)
{
    a->rating = cl_rating_for_score(a->grade.score);
    if (!io->rate || a->grade.score < 0.999)
        return;
    FILE *o = io->out;
    fprintf(o, "%s%s%s\n%s> %s", cl_c(o, CL_DIM),
            CL_TR(io->lang, "How did it feel? Enter = good, h = hard (review it again soon), e = easy",
                  "感觉如何？回车 = 正常，h = 困难（稍后再复习），e = 容易"),
            cl_c0(o), cl_c(o, CL_BOLD), cl_c0(o));
    char line[64];
    if (cl_io_read_line(io, line, sizeof line)) {
        fputc('\n', o);
        a->end = 1;
        return;
    }
    if (line[0] == 'h' || line[0] == 'H')
        a->rating = CL_HARD;
    else if (line[0] == 'e' || line[0] == 'E')
        a->rating = CL_EASY;
    else if (line[0] == 'a' || line[0] == 'A')
        a->rating = CL_AGAIN;
    else if (!strcmp(line, ":q"))
        a->end = 1;
}
