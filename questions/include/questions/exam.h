/* exam.h: classroom exams: the same paper for the same seed, answers on a plain-text
 * sheet, graded offline into CSV.
 *
 * A paper is fixed by its spec (seed, number of questions, topics, difficulty) and the
 * bank: the pick (select.h), the numbers of generated questions and the shuffle of
 * order items all come from the seed. The answer sheet repeats the spec in its header,
 * so grading rebuilds the paper from the sheet alone:
 *
 *   # cudalab exam answers: one line per question, "<number> <id>: <answer>"
 *   cudalab-exam: 1
 *   seed: 42
 *   n: 20
 *   topics: all
 *   difficulty: 1-5
 *   bank: 9c0e54f1a2b3c4d5
 *   student: alice
 *   1 mem-bank-basics: b
 *   2 gen-occupancy-a100: 50
 */
#ifndef CUDALAB_Q_EXAM_H
#define CUDALAB_Q_EXAM_H

#include <stdint.h>
#include <stdio.h>

#include "err.h"
#include "questions/arena.h"
#include "questions/ask.h"
#include "questions/bank.h"
#include "questions/grade.h"

typedef struct cl_exam_spec {
    uint64_t seed;
    int n;
    char topics[512]; /* comma-separated; "" = every topic */
    int dmin, dmax;
} cl_exam_spec;

typedef struct cl_paper {
    cl_exam_spec spec;
    int n;
    cl_shown *items;
    uint64_t fingerprint;
    cl_qtext topics_shown; /* the spec's topics by title, "; "-separated (titles hold commas); "" = all */
    cl_arena arena;
} cl_paper;

/* Draws the paper of spec from b. Fails when fewer than spec->n questions match. */
int cl_paper_make(const cl_bank *b, const cl_exam_spec *spec, cl_paper *p, cl_err *err);
void cl_paper_free(cl_paper *p);
/* Markdown; with_key adds each answer and its explanation (the instructor's copy). */
void cl_paper_print(FILE *f, const cl_paper *p, cl_lang lang, int with_key);
int cl_spec_same(const cl_exam_spec *a, const cl_exam_spec *b);

typedef struct cl_sheet_row {
    int number;  /* 1-based position on the paper */
    char id[128];
    char *answer; /* "" when unanswered */
    int line;
} cl_sheet_row;

typedef struct cl_answer_sheet {
    char path[4096];
    cl_exam_spec spec;
    char student[256];
    uint64_t fingerprint;
    int nrows;
    cl_sheet_row *rows;
} cl_answer_sheet;

/* Writes the sheet for p with the given answers (answers[i] may be NULL: blank). */
int cl_sheet_write(const char *path, const cl_paper *p, const char *student,
                   char *const *answers, cl_err *err);
/* Reads a sheet; every error names path:line. */
int cl_sheet_read(const char *path, cl_answer_sheet *s, cl_err *err);
void cl_sheet_free(cl_answer_sheet *s);

/* Sits the exam: every question in turn, no feedback; the sheet at path is rewritten
 * after each answer, so an interrupted exam keeps what was answered. When path already
 * holds a sheet of this paper for this student, the exam resumes: its answers are kept
 * and only the unanswered questions are asked. A sheet of another paper or student is
 * never overwritten (an error). *answered = answers on the sheet at the end. */
int cl_exam_take(const cl_paper *p, cl_io *io, const char *student, const char *path,
                 int *answered, cl_err *err);

/* Scores a sheet against its paper: scores[i] for paper question i (0 unanswered).
 * Fails when the sheet names another question at some number (another bank). */
int cl_sheet_grade(const cl_paper *p, const cl_answer_sheet *s, double *scores, cl_err *err);

/* Writes the gradebook. Wide: one row per sheet, a column per question (all sheets
 * must share one paper). Long: one row per sheet and question, with the answer given
 * and the answer expected. papers[i] is sheet i's paper; scores holds nsheets rows of
 * that paper's n scores. */
int cl_exam_write_csv(FILE *f, const cl_paper *const *papers, const cl_answer_sheet *sheets,
                      int nsheets, double *const *scores, int long_format, cl_err *err);

/* Grades answer sheets (files) against their papers drawn from b and writes the
 * gradebook to out. A sheet that cannot be read or graded is reported to warn (with its
 * file:line) and left out; so is a changed bank fingerprint (a warning only). Returns the
 * number of sheets left out, or -1 with err when no gradebook could be written. */
int cl_exam_gradebook(const cl_bank *b, char *const *files, int nfiles, FILE *out, int long_format,
                      FILE *warn, int *graded, cl_err *err);

/* Writes s as one RFC 4180 CSV field. */
void cl_csv_field(FILE *f, const char *s);

#endif
