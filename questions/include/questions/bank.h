/* bank.h: loading and validating the question bank (questions/<topic>.yaml).
 *
 * The loader is also the linter: every rule of docs/question-format.md is checked while
 * reading, each problem is reported as "file:line:col: message" through a callback, and
 * a question with a problem is left out (the rest of the bank still loads). */
#ifndef CUDALAB_Q_BANK_H
#define CUDALAB_Q_BANK_H

#include <stdint.h>

#include "questions/arena.h"
#include "questions/question.h"

/* Receives one problem, already formatted "file:line:col: message". */
typedef void (*cl_report_fn)(void *ctx, const char *msg);

typedef struct cl_topic {
    const char *name;
    cl_qtext title;
    const char *file;
    int nquestions;
} cl_topic;

typedef struct cl_seen_id cl_seen_id;

typedef struct cl_bank {
    cl_arena arena;
    int ntopics, topics_cap;
    cl_topic *topics;
    int nq, q_cap;
    cl_question *q;
    int nseen, seen_cap; /* every id read, valid or not, for duplicate detection */
    cl_seen_id *seen;
} cl_bank;

void cl_bank_init(cl_bank *b);
void cl_bank_free(cl_bank *b);

/* Loads one topic file. Returns the number of problems found (0 = clean). */
int cl_bank_load_file(cl_bank *b, const char *path, cl_report_fn report, void *ctx);
/* Loads every *.yaml of dir, in name order. A missing or empty dir is one problem. */
int cl_bank_load_dir(cl_bank *b, const char *dir, cl_report_fn report, void *ctx);
/* Draws `samples` instances of every family entry and checks each like a static
 * question (both languages, answer consistent with choices, finite numbers). */
int cl_bank_check_families(const cl_bank *b, int samples, cl_report_fn report, void *ctx);

const cl_question *cl_bank_find(const cl_bank *b, const char *id);
const cl_topic *cl_bank_topic(const cl_bank *b, const char *name);
/* A hash of every question's id and answer key: two banks with the same fingerprint
 * give the same exam paper for the same seed. */
uint64_t cl_bank_fingerprint(const cl_bank *b);

/* Checks a concrete question (a generator's output) against the format's rules.
 * Returns the number of problems; each is reported as "<what>: message". */
int cl_question_check(const cl_question *q, const char *what, cl_report_fn report, void *ctx);

/* The Chinese house style (zhstyle.h) of every zh text of a question, and of every static
 * question of a bank (generated ones are checked by cl_bank_check_families). */
int cl_question_check_style(const cl_question *q, const char *what, cl_report_fn report, void *ctx);
int cl_bank_check_style(const cl_bank *b, cl_report_fn report, void *ctx);

#endif
