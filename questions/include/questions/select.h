/* select.h: choosing questions: filters (topic, difficulty, ids) and a seeded pick that
 * spreads over topics.
 *
 * The pick is deterministic for a seed and a bank: candidates are sorted by id, each
 * topic's questions are shuffled with the seed (then ordered by an optional priority,
 * e.g. "seen fewest times first"), and topics take turns, so ten questions from five
 * topics are two from each rather than ten from the first. Explicit ids come in the
 * order given. */
#ifndef CUDALAB_Q_SELECT_H
#define CUDALAB_Q_SELECT_H

#include <stdint.h>

#include "err.h"
#include "questions/bank.h"

#define CL_FILTER_MAX 64

typedef struct cl_filter {
    int ntopics;
    const char *topics[CL_FILTER_MAX]; /* none = every topic */
    int nids;
    const char *ids[CL_FILTER_MAX];    /* explicit questions: when given, the others are ignored */
    int dmin, dmax;                    /* 1..5 */
    int nowned;
    char *owned[CL_FILTER_MAX];        /* copies made by cl_filter_add_*, freed by cl_filter_free */
} cl_filter;

void cl_filter_init(cl_filter *f);
void cl_filter_free(cl_filter *f);
/* Adds "memory" or "memory,warps" to the topics (or the ids); the filter keeps a copy.
 * -1 when full. */
int cl_filter_add_topics(cl_filter *f, const char *csv);
int cl_filter_add_ids(cl_filter *f, const char *csv);
/* Parses "3" or "2-4" into [dmin, dmax]. */
int cl_parse_difficulty(const char *s, int *dmin, int *dmax, cl_err *err);
/* Checks that every topic and id named in f exists in b (a typo is an error). */
int cl_filter_check(const cl_filter *f, const cl_bank *b, cl_err *err);
int cl_filter_match(const cl_filter *f, const cl_question *q);

/* Picks up to n questions (indices into b->q, written to out). priority may be NULL;
 * otherwise lower priority[i] goes first within a topic. Returns the count. */
int cl_select(const cl_bank *b, const cl_filter *f, uint64_t seed, int n, const int *priority,
              int *out);

#endif
