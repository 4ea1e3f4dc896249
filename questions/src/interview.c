/* interview.c: the mock interview's theory part (ramping, follow-ups, timing) and the
 * hand-over to the coding lab. */
#include "grader/result.h"
#include "questions/interview.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "grader/workspace.h"
#include "paths.h"
#include "questions/progress.h"
#include "questions/rng.h"
#include "term.h"

static double mono_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

typedef struct iv_state {
    const cl_bank *b;
    unsigned char *asked; /* per bank question */
    int *rank;            /* seeded tie-break per bank question */
} iv_state;

/* The unasked question of topic closest to level (exact, then easier, then harder). */
static const cl_question *pick_main(iv_state *st, const char *topic, int level)
{
    const cl_question *best = NULL;
    int best_key = 0;
    for (int i = 0; i < st->b->nq; i++) {
        const cl_question *q = &st->b->q[i];
        if (st->asked[i] || strcmp(q->topic, topic))
            continue;
        int dist = q->difficulty - level;
        int key = (dist < 0 ? -dist * 2 - 1 : dist * 2) * 100000 + st->rank[i];
        if (!best || key < best_key) {
            best = q;
            best_key = key;
        }
    }
    return best;
}

/* A follow-up to a weak answer: unasked, sharing tags (or the topic), no harder. */
static const cl_question *pick_follow_up(iv_state *st, const cl_question *weak)
{
    const cl_question *best = NULL;
    int best_key = 0;
    for (int i = 0; i < st->b->nq; i++) {
        const cl_question *q = &st->b->q[i];
        if (st->asked[i] || q->difficulty > weak->difficulty)
            continue;
        int shared = cl_question_shared_tags(q, weak), same_topic = !strcmp(q->topic, weak->topic);
        if (!shared && !same_topic)
            continue;
        int target = weak->difficulty - 1 < 1 ? 1 : weak->difficulty - 1;
        int dist = abs(q->difficulty - target);
        /* higher is better: shared tags first, then the same topic, then closeness */
        int key = shared * 1000 + same_topic * 100 - dist * 10;
        if (!best || key > best_key || (key == best_key && st->rank[i] < st->rank[best - st->b->q])) {
            best = q;
            best_key = key;
        }
    }
    return best;
}

static void fmt_left(double seconds, char *out, size_t n)
{
    if (seconds < 0)
        seconds = 0;
    int s = (int)seconds;
    snprintf(out, n, "%d:%02d", s / 60, s % 60);
}

static void verdict_line(cl_io *io, double score)
{
    FILE *o = io->out;
    if (score >= CL_STRONG)
        fprintf(o, "%s✓ %s%s\n", cl_c(o, CL_GREEN), CL_TR(io->lang, "Strong answer.", "回答得很好。"), cl_c0(o));
    else if (score >= CL_WEAK)
        fprintf(o, "%s◐ %s%s\n", cl_c(o, CL_YELLOW), CL_TR(io->lang, "Partly there.", "部分正确。"), cl_c0(o));
    else
        fprintf(o, "%s✗ %s%s\n", cl_c(o, CL_RED), CL_TR(io->lang, "Weak answer.", "回答较弱。"),
                cl_c0(o));
}

static int ask_item(cl_session *s, iv_state *st, const cl_interview_opts *o, cl_interview_result *r,
                    const cl_question *q, int follow_up, int level, double left, cl_err *err)
{
    char header[512], tleft[32];
    fmt_left(left, tleft, sizeof tleft);
    int main_no = 0;
    for (int i = 0; i < r->nitems; i++)
        main_no += !r->items[i].follow_up;
    if (follow_up)
        snprintf(header, sizeof header, CL_TR(s->io->lang, "[follow-up · %s left] %s · difficulty %d · %s",
                                                         "[追问 · 剩余 %s] %s · 难度 %d · %s"),
                 tleft, cl_topic_display(&q->topic_title, q->topic, s->io->lang), q->difficulty, q->id);
    else
        snprintf(header, sizeof header, CL_TR(s->io->lang, "[Q%d · %s left] %s · difficulty %d · %s",
                                                         "[第 %d 题 · 剩余 %s] %s · 难度 %d · %s"),
                 main_no + 1, tleft, cl_topic_display(&q->topic_title, q->topic, s->io->lang), q->difficulty, q->id);
    st->asked[q - st->b->q] = 1;
    cl_asked a;
    int rc = cl_session_ask(s, q, cl_seed_mix(o->seed, cl_hash_str(q->id)), header, &a, err);
    if (rc)
        return rc;
    verdict_line(s->io, a.grade.score);
    if (r->nitems < CL_IV_MAX_ITEMS) {
        cl_iv_item *it = &r->items[r->nitems++];
        it->q = q;
        it->score = a.grade.score;
        it->follow_up = follow_up;
        it->level = level;
        snprintf(it->expected, sizeof it->expected, "%s", a.expected);
    }
    return s->result->ended_early ? 1 : 0;
}

static int theory(const cl_bank *b, sqlite3 *db, const cl_interview_opts *o, cl_io *io,
                  cl_interview_result *r, double budget_s, int max_main, cl_err *err)
{
    iv_state st = {b, calloc((size_t)b->nq + 1, 1), malloc(sizeof(int) * ((size_t)b->nq + 1))};
    if (!st.asked || !st.rank) {
        free(st.asked);
        free(st.rank);
        return cl_err_set(err, "out of memory");
    }
    cl_rng rng;
    cl_rng_seed(&rng, o->seed);
    for (int i = 0; i < b->nq; i++)
        st.rank[i] = i;
    cl_rng_shuffle(&rng, st.rank, b->nq);

    /* the track's topics that the bank has, in a seeded rotation; all topics if none */
    const char *topics[CL_SESSION_TOPICS];
    int nt = 0;
    for (const char *const *t = cl_track_topics(o->track); *t && nt < CL_SESSION_TOPICS; t++)
        if (cl_bank_topic(b, *t) && cl_bank_topic(b, *t)->nquestions)
            topics[nt++] = *t;
    if (nt == 0)
        for (int i = 0; i < b->ntopics && nt < CL_SESSION_TOPICS; i++)
            if (b->topics[i].nquestions)
                topics[nt++] = b->topics[i].name;
    int start = nt ? (int)cl_rng_below(&rng, (uint32_t)nt) : 0;

    cl_session s = {b, db, io, "interview", o->now, &r->tally};
    double t0 = mono_now();
    int level = 2, asked_main = 0, turn = 0, misses = 0, rc = 0;
    while (asked_main < max_main && nt > 0) {
        double left = budget_s - (mono_now() - t0);
        if (left <= 0) {
            r->out_of_time = 1;
            break;
        }
        const cl_question *q = pick_main(&st, topics[(start + turn++) % nt], level);
        if (!q) {
            if (++misses >= nt)
                break; /* every topic is used up */
            continue;
        }
        misses = 0;
        rc = ask_item(&s, &st, o, r, q, 0, level, left, err);
        if (rc)
            break;
        asked_main++;
        double score = r->items[r->nitems - 1].score;
        if (score >= CL_STRONG) {
            if (level < 5)
                level++;
        } else if (score < CL_WEAK) {
            const cl_question *f = pick_follow_up(&st, q);
            left = budget_s - (mono_now() - t0);
            if (f && left > 0) {
                rc = ask_item(&s, &st, o, r, f, 1, level, left, err);
                if (rc)
                    break;
            }
            if (level > 1)
                level--;
        }
    }
    r->level = level;
    r->seconds = mono_now() - t0;
    free(st.asked);
    free(st.rank);
    return rc < 0 ? -1 : 0;
}

static void coding_part(sqlite3 *db, const cl_interview_opts *o, cl_io *io, cl_interview_result *r,
                        double minutes_left)
{
    FILE *out = io->out;
    cl_lang L = io->lang;
    cl_err err;
    cl_lab_brief *labs = NULL;
    int n = 0;
    snprintf(r->lab_verdict, sizeof r->lab_verdict, "none");
    int listed = cl_iv_list_labs(o->home, &labs, &n, &err);
    if (listed || n == 0) {
        if (listed)
            snprintf(r->lab_note, sizeof r->lab_note, "%.1000s", err.msg);
        else
            snprintf(r->lab_note, sizeof r->lab_note, "no labs under %s/labs", o->home);
        fprintf(out, "\n%s%s %s%s\n", cl_c(out, CL_YELLOW), CL_TR(L, "No coding exercise:", "没有编程题："),
                r->lab_note, cl_c0(out));
        free(labs);
        return;
    }
    int k = -1;
    if (o->lab) {
        for (int i = 0; i < n; i++)
            if (!strcmp(labs[i].name, o->lab))
                k = i;
        if (k < 0) {
            snprintf(r->lab_note, sizeof r->lab_note, "no lab named '%s'", o->lab);
            fprintf(out, "\n%s%s%s\n", cl_c(out, CL_YELLOW), r->lab_note, cl_c0(out));
            free(labs);
            return;
        }
    } else {
        k = cl_iv_pick_lab(labs, n, o->track, r->level, o->seed);
    }
    const cl_lab_brief *lab = &labs[k];
    snprintf(r->lab, sizeof r->lab, "%s", lab->name);
    snprintf(r->lab_title, sizeof r->lab_title, "%s", L == CL_LANG_ZH && lab->title_zh[0] ? lab->title_zh : lab->title_en);
    r->lab_difficulty = lab->difficulty;

    char parent[CL_PATH_MAX];
    if (o->workspace) {
        snprintf(parent, sizeof parent, "%s", o->workspace);
    } else {
        time_t t = (time_t)o->now;
        struct tm tm;
        localtime_r(&t, &tm);
        char stamp[32];
        strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
        snprintf(parent, sizeof parent, "cudalab-interview-%s", stamp);
    }
    cl_workspace ws;
    if (cl_mkdirs(parent, &err) || cl_workspace_fetch(o->home, lab->name, parent, 0, &ws, &err)) {
        snprintf(r->lab_verdict, sizeof r->lab_verdict, "none");
        snprintf(r->lab_note, sizeof r->lab_note, "could not fetch %s: %.900s", lab->name, err.msg);
        fprintf(out, "\n%s%s%s\n", cl_c(out, CL_RED), r->lab_note, cl_c0(out));
        free(labs);
        return;
    }
    snprintf(r->workspace, sizeof r->workspace, "%s", ws.dir);
    fprintf(out, "\n%s%s%s %s — %s (%s %d)\n", cl_c(out, CL_BOLD), CL_TR(L, "Coding exercise:", "编程题："),
            cl_c0(out), r->lab_title, lab->name, CL_TR(L, "difficulty", "难度"), lab->difficulty);
    fprintf(out, CL_TR(L, "Workspace: %s (edit %s; the README there states the task)\n",
                       "工作目录：%s（编辑 %s；题目见其中的 README）\n"),
            ws.dir, ws.solution);
    fprintf(out, CL_TR(L, "About %.0f minutes are left. Press Enter when you are done to grade it, or type skip.\n",
                       "大约还剩 %.0f 分钟。完成后按回车评分，或输入 skip 跳过。\n"),
            minutes_left > 0 ? minutes_left : 0);
    fprintf(out, "%s> %s", cl_c(out, CL_BOLD), cl_c0(out));
    char line[256];
    if (cl_io_read_line(io, line, sizeof line) || !strcmp(line, "skip") || !strcmp(line, ":q")) {
        snprintf(r->lab_verdict, sizeof r->lab_verdict, "skipped");
        snprintf(r->lab_note, sizeof r->lab_note, CL_TR(L, "grade it later: cd %s && cudalab test",
                                                        "稍后评分：cd %s && cudalab test"), ws.dir);
        free(labs);
        return;
    }
    if (!cl_gpu_present()) {
        snprintf(r->lab_verdict, sizeof r->lab_verdict, "not graded");
        snprintf(r->lab_note, sizeof r->lab_note,
                 CL_TR(L, "grading needs a GPU and none was found; on a machine with one: cd %s && "
                          "cudalab test",
                       "评分需要 GPU，但这台机器上没有；请在有 GPU 的机器上运行：cd %s && cudalab test"),
                 ws.dir);
        fprintf(out, "%s%s%s\n", cl_c(out, CL_YELLOW), r->lab_note, cl_c0(out));
        free(labs);
        return;
    }
    if (cl_iv_grade_lab(ws.dir, db, out, r->lab_verdict, sizeof r->lab_verdict, r->lab_note,
                        sizeof r->lab_note, &err)) {
        snprintf(r->lab_verdict, sizeof r->lab_verdict, "%s", cl_verdict_name(CL_V_ERROR));
        snprintf(r->lab_note, sizeof r->lab_note, "%.1000s", err.msg);
    }
    free(labs);
}

int cl_interview_run(const cl_bank *b, sqlite3 *db, const cl_interview_opts *o, cl_io *io,
                     cl_interview_result *r, cl_err *err)
{
    memset(r, 0, sizeof *r);
    if (o->minutes < 1)
        return cl_err_set(err, "an interview needs at least one minute");
    double total_s = o->minutes * 60.0;
    double theory_s = o->with_lab ? total_s * 0.6 : total_s;
    int max_main = o->max_questions;
    if (max_main <= 0) {
        max_main = (int)(theory_s / 150.0 + 0.5); /* about 2.5 minutes a question */
        max_main = max_main < 3 ? 3 : max_main > 30 ? 30 : max_main;
    }
    io->feedback = 0; /* no answers during an interview: they come in the scorecard */
    FILE *out = io->out;
    fprintf(out, CL_TR(io->lang,
                       "%sMock interview%s · track %s · %d minutes · up to %d questions%s.\n"
                       "Questions start at difficulty 2: a strong answer raises the level, a weak one "
                       "lowers it and brings a follow-up. Answers are discussed in the scorecard.\n",
                       "%s模拟面试%s · 方向 %s · %d 分钟 · 最多 %d 道题%s。\n"
                       "从难度 2 开始：答得好就升一级，答得弱就降一级并追问一题。答案在最后的评分卡中讲解。\n"),
            cl_c(out, CL_BOLD), cl_c0(out), cl_track_title(o->track, io->lang), o->minutes, max_main,
            o->with_lab ? CL_TR(io->lang, ", then a coding exercise", "，之后是一道编程题") : "");
    if (theory(b, db, o, io, r, theory_s, max_main, err))
        return -1;
    double wsum = 0, dsum = 0;
    for (int i = 0; i < r->nitems; i++) {
        wsum += r->items[i].score * r->items[i].q->difficulty;
        dsum += r->items[i].q->difficulty;
    }
    r->score = dsum > 0 ? 100.0 * wsum / dsum : 0;
    if (o->with_lab && !r->tally.ended_early)
        coding_part(db, o, io, r, (total_s - r->seconds) / 60.0);
    else
        snprintf(r->lab_verdict, sizeof r->lab_verdict, "none");
    return 0;
}
