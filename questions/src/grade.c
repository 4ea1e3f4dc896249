/* grade.c: answer parsing and scoring for single, multi, numeric, order and short. */
#include "questions/grade.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "questions/rng.h"

void cl_shown_init(cl_shown *s, const cl_question *q, uint64_t seed)
{
    memset(s, 0, sizeof *s);
    s->q = *q;
    int n = q->type == CL_Q_ORDER ? q->nitems : 0;
    for (int i = 0; i < CL_Q_MAX_ITEMS; i++)
        s->perm[i] = i;
    if (n < 2)
        return;
    cl_rng r;
    cl_rng_seed(&r, cl_seed_mix(seed, cl_hash_str(q->id)));
    cl_rng_shuffle(&r, s->perm, n);
    int identity = 1;
    for (int i = 0; i < n; i++)
        identity &= s->perm[i] == i;
    if (identity) { /* rotate by one: still a fair shuffle of the positions, never "abc..." */
        for (int i = 0; i < n; i++)
            s->perm[i] = (i + 1) % n;
    }
}

int cl_lis_length(const int *v, int n)
{
    int best = 0, len[CL_Q_MAX_ITEMS > 64 ? CL_Q_MAX_ITEMS : 64];
    if (n > 64)
        n = 64;
    for (int i = 0; i < n; i++) {
        len[i] = 1;
        for (int j = 0; j < i; j++)
            if (v[j] < v[i] && len[j] + 1 > len[i])
                len[i] = len[j] + 1;
        if (len[i] > best)
            best = len[i];
    }
    return best;
}

void cl_normalize_text(const char *in, char *out, size_t n)
{
    size_t o = 0;
    int space = 1; /* drop leading whitespace */
    for (; *in && o + 1 < n; in++) {
        unsigned char c = (unsigned char)*in;
        if (c == '-' || c == '_' || isspace(c)) {
            if (!space)
                out[o++] = ' ';
            space = 1;
            continue;
        }
        out[o++] = (char)(c < 128 ? tolower(c) : c);
        space = 0;
    }
    while (o > 0 && out[o - 1] == ' ')
        o--;
    out[o] = '\0';
}

static int is_blank_text(const char *s)
{
    for (; *s; s++)
        if (!isspace((unsigned char)*s))
            return 0;
    return 1;
}

/* Separators between letters or numbers: space, comma, semicolon, '/', and the Chinese
 * comma and enumeration comma (UTF-8). Returns the separator's length, 0 if none. */
static int separator_len(const char *p)
{
    if (*p == ' ' || *p == '\t' || *p == ',' || *p == ';' || *p == '/')
        return 1;
    if (!strncmp(p, "\xEF\xBC\x8C", 3) || !strncmp(p, "\xE3\x80\x81", 3))
        return 3;
    return 0;
}

/* Reads a list of choice picks: letters ("ac", "a c", "A,C") or 1-based numbers ("1 3").
 * Appends 0-based indices to out (in order, repeats kept). Returns the count or -1. */
static int read_picks(const char *text, int nchoices, int *out, int max, char *msg, size_t msgn,
                      cl_lang lang)
{
    int n = 0;
    const char *p = text;
    char last = (char)('a' + nchoices - 1);
    while (*p) {
        int sl = separator_len(p);
        if (sl) {
            p += sl;
            continue;
        }
        int idx;
        if (isdigit((unsigned char)*p)) {
            char *end;
            long v = strtol(p, &end, 10);
            p = end;
            if (v < 1 || v > nchoices) {
                snprintf(msg, msgn, CL_TR(lang, "%ld is not a choice (1..%d or a..%c)", "%ld 不是选项（1..%d 或 a..%c）"),
                         v, nchoices, last);
                return -1;
            }
            idx = (int)v - 1;
        } else if (isalpha((unsigned char)*p)) {
            idx = tolower((unsigned char)*p) - 'a';
            if (idx < 0 || idx >= nchoices) {
                snprintf(msg, msgn, CL_TR(lang, "'%c' is not a choice (a..%c)", "“%c” 不是选项（a..%c）"), *p, last);
                return -1;
            }
            p++;
            if (*p == ')' || *p == '.')
                p++;
        } else {
            snprintf(msg, msgn, CL_TR(lang, "answer with letters, e.g. a or ac", "请用字母作答，例如 a 或 ac"));
            return -1;
        }
        if (n >= max) {
            snprintf(msg, msgn, CL_TR(lang, "too many letters", "字母太多"));
            return -1;
        }
        out[n++] = idx;
    }
    return n;
}

/* Reads the first number of text; "1,024" and "1_024" are read as 1024; the rest (a
 * unit, a '%') is ignored. Returns 0 or -1. */
static int read_number(const char *text, double *out)
{
    char buf[128];
    size_t o = 0;
    const char *p = text;
    while (isspace((unsigned char)*p))
        p++;
    for (; *p && o + 1 < sizeof buf; p++) {
        if ((*p == ',' || *p == '_') && o > 0 && isdigit((unsigned char)buf[o - 1]) &&
            isdigit((unsigned char)p[1]))
            continue; /* thousands separator */
        if (isdigit((unsigned char)*p) || strchr("+-.eE", *p))
            buf[o++] = *p;
        else
            break;
    }
    buf[o] = '\0';
    if (!o)
        return -1;
    char *end;
    errno = 0;
    double v = strtod(buf, &end);
    if (end == buf || errno == ERANGE || !isfinite(v))
        return -1;
    /* "12e" or "3-4": strtod stops early; accept only if what follows is not more digits */
    *out = v;
    return 0;
}

static void grade_single(const cl_shown *s, const char *text, cl_lang lang, cl_grade *g)
{
    int picks[16];
    int n = read_picks(text, s->q.nchoices, picks, 16, g->message, sizeof g->message, lang);
    if (n < 0) {
        g->status = CL_GRADE_UNREADABLE;
        return;
    }
    if (n != 1) {
        g->status = CL_GRADE_UNREADABLE;
        snprintf(g->message, sizeof g->message,
                 CL_TR(lang, "pick exactly one choice", "只能选一个选项"));
        return;
    }
    g->picked = 1u << picks[0];
    g->score = picks[0] == s->q.answer ? 1.0 : 0.0;
}

static void grade_multi(const cl_shown *s, const char *text, cl_lang lang, cl_grade *g)
{
    int picks[32];
    int n = read_picks(text, s->q.nchoices, picks, 32, g->message, sizeof g->message, lang);
    if (n < 0) {
        g->status = CL_GRADE_UNREADABLE;
        return;
    }
    for (int i = 0; i < n; i++)
        g->picked |= 1u << picks[i];
    int right = __builtin_popcount(g->picked & s->q.answer_set);
    int wrong = __builtin_popcount(g->picked & ~s->q.answer_set);
    int total = __builtin_popcount(s->q.answer_set);
    double score = total ? (double)(right - wrong) / total : 0.0;
    g->score = g->picked == s->q.answer_set ? 1.0 : (score > 0 ? score : 0.0);
}

static void grade_numeric(const cl_shown *s, const char *text, cl_lang lang, cl_grade *g)
{
    if (read_number(text, &g->given)) {
        g->status = CL_GRADE_UNREADABLE;
        snprintf(g->message, sizeof g->message,
                 CL_TR(lang, "answer with a number, e.g. 42 or 1.5e3", "请输入一个数，例如 42 或 1.5e3"));
        return;
    }
    /* a count in billions may be answered in the Chinese unit 亿 (10^8): "64.4 亿" = 6.44 */
    if (s->q.unit && !strcmp(s->q.unit, "billion") && strstr(text, "\xE4\xBA\xBF") &&
        !strstr(text, "\xE5\x8D\x81\xE4\xBA\xBF"))
        g->given /= 10;
    double diff = fabs(g->given - s->q.number);
    double tol = s->q.tol_rel > 0 ? s->q.tol_rel * fabs(s->q.number) : s->q.tol_abs;
    /* a hair of slack so that an exact decimal answer is not lost to binary rounding */
    tol += 1e-9 * fabs(s->q.number);
    g->score = diff <= tol ? 1.0 : 0.0;
}

static void grade_order(const cl_shown *s, const char *text, cl_lang lang, cl_grade *g)
{
    int n = s->q.nitems, picks[32];
    int k = read_picks(text, n, picks, 32, g->message, sizeof g->message, lang);
    if (k < 0) {
        g->status = CL_GRADE_UNREADABLE;
        return;
    }
    unsigned seen = 0;
    for (int i = 0; i < k; i++) {
        if (seen & (1u << picks[i])) {
            g->status = CL_GRADE_UNREADABLE;
            snprintf(g->message, sizeof g->message,
                     CL_TR(lang, "'%c' appears twice: give each letter once", "“%c” 出现了两次：每个字母只写一次"),
                     'a' + picks[i]);
            return;
        }
        seen |= 1u << picks[i];
    }
    if (k != n) {
        g->status = CL_GRADE_UNREADABLE;
        snprintf(g->message, sizeof g->message,
                 CL_TR(lang, "give all %d letters in order, e.g. %s", "请按顺序写出全部 %d 个字母，例如 %s"), n,
                 n == 3 ? "cab" : n == 4 ? "cabd" : "cabde...");
        return;
    }
    g->norder = n;
    for (int i = 0; i < n; i++)
        g->order[i] = s->perm[picks[i]];
    int lis = cl_lis_length(g->order, n);
    g->score = (double)lis / n;
}

/* Does text hold a number within the point's tolerance? Every number of the text counts
 * ("64.4", "1,024", "3e5"); a number glued to letters ("sm_80") counts too. */
static int has_close_number(const char *text, const cl_kwgroup *grp)
{
    double tol = grp->tol_rel > 0 ? grp->tol_rel * fabs(grp->number) : grp->tol_abs;
    tol += 1e-9 * fabs(grp->number);
    for (const char *p = text; *p; p++) {
        if (!isdigit((unsigned char)*p) || (p > text && (isdigit((unsigned char)p[-1]) || p[-1] == '.' ||
                                                         p[-1] == ',')))
            continue;
        const char *start = p > text && p[-1] == '-' ? p - 1 : p;
        double v;
        if (read_number(start, &v) == 0 && fabs(v - grp->number) <= tol)
            return 1;
    }
    return 0;
}

/* Equivalent wordings. A Chinese learner writes the textbook terms (线程束, 核函数,
 * 存储体冲突, 页锁定内存, 掉点 ...) where the bank writes warp, kernel, bank 冲突, 锁页内存,
 * 精度下降; an English speaker writes the English. Both the answer and each rubric
 * alternative are rewritten to one canonical wording before a second comparison, so a
 * rubric listing [warp divergence, 发散] accepts 线程束分化 without every question
 * repeating the synonyms. Longer entries come first so 线程束分化 is not read as 线程束. */
static const struct {
    const char *from, *to;
} term_table[] = {
    {"线程束分化", " warp divergence "},
    {"线程束发散", " warp divergence "},
    {"线程束", " warp "},
    {"分化", " divergence "},
    {"发散", " divergence "},
    {"分歧", " divergence "},
    {"核函数", " kernel "},
    {"存储体冲突", " bank conflict "},
    {"bank 冲突", " bank conflict "},
    {"bank冲突", " bank conflict "},
    {"存储体", " bank "},
    {"页锁定内存", " pinned memory "},
    {"锁页内存", " pinned memory "},
    {"固定内存", " pinned memory "},
    {"page locked memory", " pinned memory "},
    {"page locked", " pinned "},
    {"锁页", " pinned "},
    {"页锁定", " pinned "},
    {"掉点", " accuracy drop "},
    {"精度下降", " accuracy drop "},
    {"精度损失", " accuracy drop "},
    {"竞态条件", " race "},
    {"竞态", " race "},
    {"数据竞争", " race "},
    {"race condition", " race "},
    {"data race", " race "},
    {"线程块", " block "},
};

/* cl_normalize_text(in), then every term_table entry rewritten, then normalised again
 * (the padding spaces collapse). out has room for n bytes; the result is cut, never
 * overrun, when the rewriting makes the text longer than that. */
void cl_canonical_terms(const char *in, char *out, size_t n)
{
    size_t cap = strlen(in) + 1;
    char *norm = malloc(cap);
    char *wide = malloc(4 * cap + 64);
    if (!norm || !wide) {
        free(norm);
        free(wide);
        cl_normalize_text(in, out, n);
        return;
    }
    cl_normalize_text(in, norm, cap);
    size_t o = 0;
    for (const char *p = norm; *p;) {
        size_t k = 0, nt = sizeof term_table / sizeof term_table[0];
        while (k < nt && strncmp(p, term_table[k].from, strlen(term_table[k].from)))
            k++;
        if (k < nt) {
            size_t tl = strlen(term_table[k].to);
            memcpy(wide + o, term_table[k].to, tl);
            o += tl;
            p += strlen(term_table[k].from);
        } else {
            wide[o++] = *p++;
        }
    }
    wide[o] = '\0';
    cl_normalize_text(wide, out, n);
    free(norm);
    free(wide);
}

static void grade_short(const cl_shown *s, const char *text, cl_grade *g)
{
    size_t cap = strlen(text) + 1;
    char *norm = malloc(cap);
    char *canon = malloc(4 * cap + 64);
    if (!norm || !canon) {
        free(norm);
        free(canon);
        return;
    }
    cl_normalize_text(text, norm, cap);
    cl_canonical_terms(text, canon, 4 * cap + 64);
    for (int i = 0; i < s->q.ngroups; i++) {
        const cl_kwgroup *grp = &s->q.groups[i];
        int hit = grp->has_number && has_close_number(text, grp);
        for (int j = 0; j < grp->nalts && !hit; j++) {
            char kw[512], ckw[1024];
            cl_normalize_text(grp->alts[j], kw, sizeof kw);
            cl_canonical_terms(grp->alts[j], ckw, sizeof ckw);
            hit = (*kw && strstr(norm, kw)) || (*ckw && strstr(canon, ckw));
        }
        if (hit) {
            g->matched |= 1u << (i < 31 ? i : 31);
            g->nmatched++;
        }
    }
    free(norm);
    free(canon);
    int need = s->q.need > 0 ? s->q.need : 1;
    g->score = g->nmatched >= need ? 1.0 : (double)g->nmatched / need;
}

void cl_grade_answer(const cl_shown *s, const char *text, cl_lang lang, cl_grade *g)
{
    memset(g, 0, sizeof *g);
    if (!text || is_blank_text(text)) {
        g->status = CL_GRADE_EMPTY;
        return;
    }
    switch (s->q.type) {
    case CL_Q_SINGLE: grade_single(s, text, lang, g); break;
    case CL_Q_MULTI: grade_multi(s, text, lang, g); break;
    case CL_Q_NUMERIC: grade_numeric(s, text, lang, g); break;
    case CL_Q_ORDER: grade_order(s, text, lang, g); break;
    case CL_Q_SHORT: grade_short(s, text, g); break;
    default:
        g->status = CL_GRADE_UNREADABLE;
        snprintf(g->message, sizeof g->message, "unknown question type");
    }
    if (g->status != CL_GRADE_OK)
        g->score = 0;
}

static void fmt_number(double v, char *out, size_t n)
{
    if (v == floor(v) && fabs(v) < 1e15)
        snprintf(out, n, "%.0f", v);
    else
        snprintf(out, n, "%.6g", v);
}

void cl_answer_key(const cl_shown *s, cl_lang lang, char *out, size_t n)
{
    const cl_question *q = &s->q;
    out[0] = '\0';
    switch (q->type) {
    case CL_Q_SINGLE:
        snprintf(out, n, "%c", 'a' + q->answer);
        break;
    case CL_Q_MULTI: {
        size_t o = 0;
        for (int i = 0; i < q->nchoices && o + 1 < n; i++)
            if (q->answer_set & (1u << i))
                out[o++] = (char)('a' + i);
        out[o] = '\0';
        break;
    }
    case CL_Q_NUMERIC:
        fmt_number(q->number, out, n);
        break;
    case CL_Q_ORDER: {
        /* item i is shown at the letter k with perm[k] == i */
        size_t o = 0;
        for (int i = 0; i < q->nitems && o + 1 < n; i++)
            for (int k = 0; k < q->nitems; k++)
                if (s->perm[k] == i)
                    out[o++] = (char)('a' + k);
        out[o] = '\0';
        break;
    }
    case CL_Q_SHORT:
        snprintf(out, n, "%s", cl_qtext_get(&q->model_answer, lang));
        break;
    default:
        break;
    }
}
