/* grade.h: reading a person's answer and scoring it, for every question type.
 *
 * Answers are typed the way docs/question-format.md says: single "b" or "2"; multi
 * "ac", "a,c" or "1 3"; order the letters in the chosen order ("cabd"); numeric a
 * number (a trailing unit is ignored); short free text. A score is in [0, 1]. */
#ifndef CUDALAB_Q_GRADE_H
#define CUDALAB_Q_GRADE_H

#include <stddef.h>
#include <stdint.h>

#include "questions/question.h"

/* A concrete question as it was shown: order items are presented shuffled. */
typedef struct cl_shown {
    cl_question q;
    int perm[CL_Q_MAX_ITEMS]; /* order: letter k shows item perm[k] */
} cl_shown;

/* Prepares s for showing q; the shuffle of order items comes from seed (never the
 * identity, so the answer is never "abcd"). q's strings must outlive s. */
void cl_shown_init(cl_shown *s, const cl_question *q, uint64_t seed);

typedef enum {
    CL_GRADE_OK = 0,     /* graded: score is meaningful */
    CL_GRADE_EMPTY,      /* nothing given (skipped): score 0 */
    CL_GRADE_UNREADABLE, /* could not be read as an answer of this type: score 0, see message */
} cl_grade_status;

typedef struct cl_grade {
    cl_grade_status status;
    double score;      /* 0..1; 1 = fully right */
    char message[256]; /* why an answer was unreadable */
    unsigned picked;   /* single/multi: bit i = choice i picked */
    double given;      /* numeric: the number read */
    int norder;        /* order: how many items given */
    int order[CL_Q_MAX_ITEMS]; /* order: item indices, in the order given */
    unsigned matched;  /* short: bit i = keyword group i matched */
    int nmatched;
} cl_grade;

/* Grades text (one line, no newline) against s. Messages follow lang. */
void cl_grade_answer(const cl_shown *s, const char *text, cl_lang lang, cl_grade *g);

/* The right answer, typed the way a person would ("b", "ac", "cabd", "32"): what the
 * exam key prints and what feedback says. Short answers give the model answer. */
void cl_answer_key(const cl_shown *s, cl_lang lang, char *out, size_t n);

/* Lower-cases ASCII, turns '-' and '_' into spaces and collapses whitespace: the form
 * in which short answers and keywords are compared. */
void cl_normalize_text(const char *in, char *out, size_t n);
/* cl_normalize_text, then the textbook Chinese terms and their bank or English equivalents
 * (线程束 / warp, 核函数 / kernel, 存储体冲突 / bank 冲突, 页锁定内存 / 锁页内存, 掉点 ...)
 * rewritten to one wording: what short answers are also compared on. */
void cl_canonical_terms(const char *in, char *out, size_t n);

/* Longest strictly increasing subsequence of v (order partial credit). */
int cl_lis_length(const int *v, int n);

#endif
