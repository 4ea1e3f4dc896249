/* interview_card.c: the interview's scorecard: overall and per-topic scores, weakest
 * areas, the questions missed with their answers, and what to study next. */
#include <stdlib.h>
#include <string.h>

#include "grader/result.h"
#include "i18n.h"
#include "questions/interview.h"

#define WEAK_TOPIC 0.7 /* a topic below 70% is a weak area */

static int by_score(const void *a, const void *b)
{
    const cl_topic_tally *x = a, *y = b;
    double sx = x->asked ? x->points / x->asked : 0, sy = y->asked ? y->points / y->asked : 0;
    if (sx != sy)
        return sx < sy ? -1 : 1;
    return strcmp(x->topic, y->topic);
}

/* "memory_bandwidth" ~ "memory-bandwidth"; a lab topic matches a weak topic or tag when
 * either contains the other. */
static int loosely_matches(const char *a, const char *b)
{
    char x[128], y[128];
    size_t i;
    for (i = 0; a[i] && i + 1 < sizeof x; i++)
        x[i] = a[i] == '_' ? '-' : a[i];
    x[i] = '\0';
    for (i = 0; b[i] && i + 1 < sizeof y; i++)
        y[i] = b[i] == '_' ? '-' : b[i];
    y[i] = '\0';
    return *x && *y && (strstr(x, y) || strstr(y, x));
}

/* Copies at most max bytes of s, cut at a UTF-8 character boundary, with "…" when cut. */
static void excerpt(const char *s, size_t max, char *out, size_t n)
{
    size_t len = strlen(s);
    if (len <= max) {
        snprintf(out, n, "%s", s);
        return;
    }
    while (max > 0 && ((unsigned char)s[max] & 0xC0) == 0x80) /* a continuation byte */
        max--;
    snprintf(out, n, "%.*s…", (int)max, s);
}

#define MAX_MISSED_SHOWN 10

static void card_header(const cl_interview_opts *o, const cl_interview_result *r, cl_lang L, cl_strbuf *sb)
{
    const cl_session_result *t = &r->tally;
    int secs = (int)r->seconds, follow = 0;
    for (int i = 0; i < r->nitems; i++)
        follow += r->items[i].follow_up;
    cl_sb_printf(sb, CL_TR(L, "== Scorecard ==\nTrack %s · %d question%s (%d follow-up%s) in %d:%02d · "
                              "level reached %d/5 · score %.0f%% (weighted by difficulty)%s\n",
                           "== 评分卡 ==\n方向 %s · %d 道题%s（其中追问 %d 道%s）· 用时 %d:%02d · 达到难度 %d/5 · "
                           "得分 %.0f%%（按难度加权）%s\n"),
                 cl_track_title(o->track, L), t->asked, CL_TR(L, t->asked == 1 ? "" : "s", ""), follow,
                 CL_TR(L, follow == 1 ? "" : "s", ""), secs / 60, secs % 60, r->level, r->score,
                 r->out_of_time ? CL_TR(L, " · time ran out", " · 时间到") : "");
}

/* The score of every topic, weakest first, then the weakest areas (topics under 70%, at
 * most three), which go into weak[]; returns how many. */
static int card_topics(const cl_interview_result *r, cl_lang L, cl_strbuf *sb, const char *weak[3])
{
    const cl_session_result *t = &r->tally;
    cl_topic_tally sorted[CL_SESSION_TOPICS];
    int nt = t->ntopics;
    memcpy(sorted, t->topics, sizeof *sorted * (size_t)nt);
    qsort(sorted, (size_t)nt, sizeof *sorted, by_score);
    if (nt)
        cl_sb_append(sb, CL_TR(L, "Per topic:\n", "各主题：\n"));
    int col = 16; /* the titles' column, in display width (a Chinese character is two) */
    for (int i = 0; i < nt; i++) {
        int w = cl_text_width(cl_topic_display(&sorted[i].title, sorted[i].topic, L));
        col = w > col ? w : col;
    }
    for (int i = 0; i < nt; i++) {
        const char *name = cl_topic_display(&sorted[i].title, sorted[i].topic, L);
        double pct = sorted[i].asked ? 100.0 * sorted[i].points / sorted[i].asked : 0;
        char bar[11];
        int filled = (int)(pct / 10 + 0.5);
        for (int k = 0; k < 10; k++)
            bar[k] = k < filled ? '#' : '.';
        bar[10] = '\0';
        cl_sb_printf(sb, CL_TR(L, "  %s%*s %s %3.0f%%  %d question%s, up to difficulty %d\n",
                               "  %s%*s %s %3.0f%%  %d 道题%s，最高难度 %d\n"),
                     name, col - cl_text_width(name), "", bar, pct, sorted[i].asked, CL_TR(L, sorted[i].asked == 1 ? "" : "s", ""),
                     sorted[i].max_difficulty);
    }

    const char *weak_name[3]; /* titles, for reading; weak[] keeps the ids, for commands */
    int nweak = 0;
    for (int i = 0; i < nt && nweak < 3; i++)
        if (sorted[i].asked && sorted[i].points / sorted[i].asked < WEAK_TOPIC) {
            weak_name[nweak] = cl_topic_display(&sorted[i].title, sorted[i].topic, L);
            weak[nweak++] = sorted[i].topic; /* the bank's string: it outlives sorted */
        }
    if (nweak) {
        cl_sb_append(sb, CL_TR(L, "Weakest areas:", "薄弱环节："));
        for (int i = 0; i < nweak; i++)
            cl_sb_printf(sb, "%s%s", i ? CL_TR(L, ", ", "、") : CL_TR(L, " ", ""), weak_name[i]);
        cl_sb_append(sb, "\n");
    } else if (t->asked) {
        cl_sb_append(sb, CL_TR(L, "No weak area: every topic scored 70% or more.\n",
                               "没有薄弱环节：每个主题都在 70% 以上。\n"));
    }
    return nweak;
}

/* Every question not fully right, with its answer (the first MAX_MISSED_SHOWN); returns
 * how many there were. */
static int card_missed(const cl_interview_result *r, cl_lang L, cl_strbuf *sb)
{
    int nmissed = 0;
    for (int i = 0; i < r->nitems; i++)
        if (r->items[i].score < 0.999) {
            if (!nmissed++)
                cl_sb_append(sb, CL_TR(L, "To go over:\n", "需要复习：\n"));
            if (nmissed > MAX_MISSED_SHOWN)
                continue;
            char ans[256];
            excerpt(r->items[i].expected, 160, ans, sizeof ans);
            cl_sb_printf(sb, CL_TR(L, "  %s (%s, %s %d%s): %.0f%% — %s %s\n", "  %s（%s，%s %d%s）：%.0f%% — %s%s\n"),
                         r->items[i].q->id,
                         cl_topic_display(&r->items[i].q->topic_title, r->items[i].q->topic, L),
                         CL_TR(L, "difficulty", "难度"), r->items[i].q->difficulty,
                         r->items[i].follow_up ? CL_TR(L, ", follow-up", "，追问") : "", r->items[i].score * 100,
                         CL_TR(L, "answer:", "答案："), ans);
        }
    if (nmissed > MAX_MISSED_SHOWN)
        cl_sb_printf(sb, CL_TR(L, "  ... and %d more (all in `cudalab review`)\n", "  ……还有 %d 道（都在 `cudalab review` 中）\n"),
                     nmissed - MAX_MISSED_SHOWN);
    return nmissed;
}

/* Does lab l teach a weak topic, the tag of a weak answer, or is it the lab just failed? */
static int lab_fits(const cl_lab_brief *lab, const cl_interview_result *r, const char *const *weak, int nweak)
{
    int hit = 0;
    for (int k = 0; k < lab->ntopics && !hit; k++) {
        for (int w = 0; w < nweak && !hit; w++)
            hit = loosely_matches(lab->topics[k], weak[w]);
        for (int i = 0; i < r->nitems && !hit; i++)
            if (r->items[i].score < CL_WEAK)
                for (int g = 0; g < r->items[i].q->ntags && !hit; g++)
                    hit = loosely_matches(lab->topics[k], r->items[i].q->tags[g]);
    }
    /* the interview's own lab again, unless it worked */
    return hit || (!strcmp(lab->name, r->lab) && !cl_verdict_ok(cl_verdict_from_name(r->lab_verdict)));
}

/* Quizzes on the weak topics and missed questions, and up to three labs that fit. */
static void card_study_next(const cl_interview_opts *o, const cl_interview_result *r, cl_lang L, cl_strbuf *sb,
                            const char *const *weak, int nweak, int nmissed)
{
    cl_sb_append(sb, CL_TR(L, "Study next:\n", "接下来学习：\n"));
    if (nweak) {
        cl_sb_append(sb, "  cudalab quiz --topic ");
        for (int i = 0; i < nweak; i++)
            cl_sb_printf(sb, "%s%s", i ? "," : "", weak[i]);
        cl_sb_append(sb, "\n");
    }
    if (nmissed) {
        cl_sb_append(sb, "  cudalab quiz --id ");
        int k = 0;
        for (int i = 0; i < r->nitems && k < 8; i++)
            if (r->items[i].score < 0.999)
                cl_sb_printf(sb, "%s%s", k++ ? "," : "", r->items[i].q->id);
        cl_sb_append(sb, CL_TR(L, "   (the questions missed; also in `cudalab review`)\n",
                               "   （答错的题；也已加入 `cudalab review`）\n"));
    }
    cl_lab_brief *labs = NULL;
    int nlabs = 0, shown = 0;
    cl_err err;
    if (o->home && cl_iv_list_labs(o->home, &labs, &nlabs, &err) == 0)
        for (int l = 0; l < nlabs && shown < 3; l++)
            if (lab_fits(&labs[l], r, weak, nweak)) {
                cl_sb_printf(sb, "  cudalab fetch %-14s %s (%s %d)\n", labs[l].name,
                             L == CL_LANG_ZH ? labs[l].title_zh : labs[l].title_en, CL_TR(L, "difficulty", "难度"),
                             labs[l].difficulty);
                shown++;
            }
    free(labs);
    if (!nweak && !nmissed && !shown)
        cl_sb_append(sb, CL_TR(L, "  a harder interview: cudalab interview --track inference\n",
                               "  更难的面试：cudalab interview --track inference\n"));
}

static void card_lab(const cl_interview_opts *o, const cl_interview_result *r, cl_lang L, cl_strbuf *sb)
{
    if (r->lab[0]) {
        cl_sb_printf(sb, CL_TR(L, "Coding exercise: %s (%s, difficulty %d) in %s\n  verdict: %s%s%s\n",
                               "编程题：%s（%s，难度 %d），目录 %s\n  结果：%s%s%s\n"),
                     r->lab, r->lab_title, r->lab_difficulty, r->workspace, r->lab_verdict,
                     r->lab_note[0] ? " — " : "", r->lab_note);
    } else if (o->with_lab && r->lab_note[0]) {
        cl_sb_printf(sb, CL_TR(L, "Coding exercise: none (%s)\n", "编程题：无（%s）\n"), r->lab_note);
    }
}

void cl_interview_scorecard(const cl_bank *b, const cl_interview_opts *o, const cl_interview_result *r,
                            cl_lang L, cl_strbuf *sb)
{
    (void)b;
    const char *weak[3];
    card_header(o, r, L, sb);
    int nweak = card_topics(r, L, sb, weak);
    int nmissed = card_missed(r, L, sb);
    card_study_next(o, r, L, sb, weak, nweak, nmissed);
    card_lab(o, r, L, sb);
}
