/* interview.h: a timed mock interview: theory questions that ramp in difficulty, a
 * follow-up after each weak answer, one coding lab, and a scorecard.
 *
 * Flow (docs/questions.md): the track's topics take turns; the first question is at
 * difficulty 2; a strong answer (score >= 0.8) raises the level by one, a weak one
 * (< 0.5) lowers it by one and triggers a follow-up on the same tags. The theory part
 * ends when its share of the time is used or after its question budget; then a lab
 * near the level reached is fetched into a workspace and graded with `cudalab test`
 * when a GPU is present. */
#ifndef CUDALAB_Q_INTERVIEW_H
#define CUDALAB_Q_INTERVIEW_H

#include <sqlite3.h>
#include <stdint.h>

#include "err.h"
#include "questions/ask.h"
#include "questions/bank.h"
#include "questions/session.h"
#include "strbuf.h"

typedef enum { CL_TRACK_CUDA = 0, CL_TRACK_INFERENCE, CL_TRACK_COMPILER, CL_NTRACKS } cl_track;

int cl_track_parse(const char *name, cl_track *out);
const char *cl_track_name(cl_track t);
/* The track as a person reads it, in lang ("LLM inference" / "大模型推理"). */
const char *cl_track_title(cl_track t, cl_lang lang);
/* The question topics of a track, most central first (NULL-terminated). */
const char *const *cl_track_topics(cl_track t);
/* Lab names a track prefers, in order (NULL-terminated). */
const char *const *cl_track_labs(cl_track t);

#define CL_STRONG 0.8
#define CL_WEAK 0.5
#define CL_IV_MAX_ITEMS 64

typedef struct cl_interview_opts {
    int minutes;           /* the whole interview */
    cl_track track;
    uint64_t seed;
    int64_t now;
    int max_questions;     /* main questions (follow-ups come on top); 0 = from minutes */
    int with_lab;          /* end with a coding lab */
    const char *home;      /* where labs/ lives */
    const char *lab;       /* a lab to use instead of picking one, or NULL */
    const char *workspace; /* folder to fetch the lab into; NULL = ./cudalab-interview-<time> */
} cl_interview_opts;

typedef struct cl_iv_item {
    const cl_question *q;
    double score;
    int follow_up;
    int level;            /* the level when it was asked */
    char expected[512];
} cl_iv_item;

typedef struct cl_interview_result {
    cl_session_result tally;
    int nitems;
    cl_iv_item items[CL_IV_MAX_ITEMS];
    int level;             /* the difficulty reached */
    double score;          /* 0..100, weighted by difficulty */
    double seconds;        /* theory part */
    int out_of_time;
    /* the coding lab */
    char lab[128];
    char lab_title[256];
    int lab_difficulty;
    char workspace[4096];
    char lab_verdict[64]; /* "pass", "fail", "not graded", "skipped", "none" */
    char lab_note[1024];
} cl_interview_result;

int cl_interview_run(const cl_bank *b, sqlite3 *db, const cl_interview_opts *o, cl_io *io,
                     cl_interview_result *r, cl_err *err);

/* The scorecard: overall and per-topic scores, weakest areas, what to study next
 * (questions, quiz commands and labs on the weak topics). */
void cl_interview_scorecard(const cl_bank *b, const cl_interview_opts *o, const cl_interview_result *r,
                            cl_lang lang, cl_strbuf *out);

/* ---- the coding part (interview_lab.c) ---- */

typedef struct cl_lab_brief {
    char name[64];
    char title_en[256], title_zh[256];
    int difficulty;
    int ntopics;
    char topics[8][64];
} cl_lab_brief;

/* Every lab under home with its difficulty and topics. Free *labs with free(). */
int cl_iv_list_labs(const char *home, cl_lab_brief **labs, int *n, cl_err *err);
/* The lab for a track at a level: the track's preferred labs first, then the nearest
 * difficulty. -1 when there is none. */
int cl_iv_pick_lab(const cl_lab_brief *labs, int n, cl_track t, int level, uint64_t seed);
/* Is a GPU present? `nvidia-smi -L` succeeds. CUDALAB_GPU=0 says no without asking. */
int cl_gpu_present(void);
/* Runs `cudalab test --json` in dir (the executable from cl_exe_dir()) as a child
 * process: verdict is the report's ("pass", "wrong", "compile_error", "no_device", ...),
 * note its message and cases passed; without a report, the exit status decides. The
 * child's progress and errors go to stderr; a one-line result is printed to out. */
int cl_iv_grade_lab(const char *dir, FILE *out, char *verdict, size_t vn, char *note, size_t nn,
                    cl_err *err);

#endif
