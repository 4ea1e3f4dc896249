/* seedmap.h: which bank questions cover which seed-note questions (the `seeds:` key).
 *
 * docs/seed-questions.md lists every question of the seed notes as a markdown table
 * row starting with its id ("| 000:03 | ..."). Coverage checks that each row is named
 * by some question's `seeds:` (rows marked *scope:*, and rows whose topic column names
 * only labs, are covered elsewhere and skipped). Ids compare by number: "000:3" is
 * "000:03". */
#ifndef CUDALAB_Q_SEEDMAP_H
#define CUDALAB_Q_SEEDMAP_H

#include <stdio.h>

#include "questions/bank.h"

/* Reports "file:line: seed 000:05 is not covered by any question" per uncovered row, and
 * bank questions naming a seed id the list does not have. Returns the problem count. */
int cl_seed_coverage(const cl_bank *b, const char *list_path, cl_report_fn report, void *ctx);

/* Prints a markdown table: seed id -> the ids of the questions that cover it. */
void cl_seed_map_print(FILE *f, const cl_bank *b);

#endif
