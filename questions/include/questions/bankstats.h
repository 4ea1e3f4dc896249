/* bankstats.h: the shape of the bank: questions per topic, per kind and per type, as
 * `cudalab lint` reports it and docs/questions.md shows it (generated, never typed). */
#ifndef CUDALAB_Q_BANKSTATS_H
#define CUDALAB_Q_BANKSTATS_H

#include <stdio.h>

#include "questions/bank.h"

typedef struct cl_bank_stats {
    int total;
    int by_kind[CL_KIND_N];
    int generated;
} cl_bank_stats;

/* Counts over the whole bank, or over one topic (topic != NULL). */
void cl_bank_stats_count(const cl_bank *b, const char *topic, cl_bank_stats *out);
/* Share of questions that apply or analyse, 0..1. */
double cl_bank_stats_thinking(const cl_bank_stats *s);
/* A markdown table: one row per topic (questions, recall, understand, apply, analyse,
 * generated, % apply or analyse) and a total row. */
void cl_bank_stats_print(FILE *f, const cl_bank *b);

#endif
