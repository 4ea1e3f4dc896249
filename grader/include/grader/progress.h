/* progress.h: a learner's lab attempts in the progress database (SQLite).
 *
 * Every `cudalab test`, `bench` and `submit` is kept whole (its JSON report: verdict,
 * per-case figures, seed), with the SHA-256 of the source graded and the source itself
 * (table lab_sources, one row per distinct content), so `cudalab log` and `compare` can
 * show it again and nothing a student did is ever overwritten. `cudalab list` shows the
 * best submit per lab. history.h reads it back. */
#ifndef CUDALAB_PROGRESS_H
#define CUDALAB_PROGRESS_H

#include <sqlite3.h>
#include <stddef.h>

#include "err.h"
#include "grader/result.h"

/* Creates the tables, or brings an older database up to date (keeping its rows). */
int cl_progress_init(sqlite3 *db, cl_err *err);
int cl_progress_record(sqlite3 *db, const cl_result *r, const char *mode, cl_err *err);
/* Records r (mode: test, bench, submit) with the source text that was graded (NULL: none
 * known); *id (may be NULL) gets the attempt's number. */
int cl_progress_record_source(sqlite3 *db, const cl_result *r, const char *mode, const char *source, size_t source_len,
                              long long *id, cl_err *err);

typedef struct cl_lab_best {
    int attempts;
    double score, max_score;
    char verdict[32];
    long long at;
} cl_lab_best;

/* 0 with best filled, 1 when the lab was never submitted, -1 on error. */
int cl_progress_best(sqlite3 *db, const char *lab, cl_lab_best *best, cl_err *err);

#endif
