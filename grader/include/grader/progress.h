/* progress.h: a learner's lab attempts in the progress database (SQLite).
 *
 * Every `cudalab submit` is kept whole (its JSON report), so `cudalab list` can show the
 * best result per lab and nothing a student did is ever overwritten. */
#ifndef CUDALAB_PROGRESS_H
#define CUDALAB_PROGRESS_H

#include <sqlite3.h>

#include "err.h"
#include "grader/result.h"

int cl_progress_init(sqlite3 *db, cl_err *err);
int cl_progress_record(sqlite3 *db, const cl_result *r, const char *mode, cl_err *err);

typedef struct cl_lab_best {
    int attempts;
    double score, max_score;
    char verdict[32];
    long long at;
} cl_lab_best;

/* 0 with best filled, 1 when the lab was never submitted, -1 on error. */
int cl_progress_best(sqlite3 *db, const char *lab, cl_lab_best *best, cl_err *err);

#endif
