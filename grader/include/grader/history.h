/* history.h: reading a learner's attempts back from the progress database (progress.h
 * writes them): the list for `cudalab log`, one attempt with its report and source, the
 * per-case comparison of two attempts for `cudalab compare`, and each lab's best for
 * `cudalab progress`. */
#ifndef CUDALAB_HISTORY_H
#define CUDALAB_HISTORY_H

#include <jansson.h>
#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

typedef struct cl_history_row {
    long long id;
    char lab[64];
    char mode[16];     /* test, bench, submit */
    char verdict[32];
    double score, max_score;
    char tier[16];     /* "" when none */
    uint64_t seed;
    char gpu[256];
    char solution[4096];
    long long at;      /* unix time */
    char sha256[65];   /* "" for attempts recorded before sources were kept */
    int passed, total; /* correctness cases */
    json_t *report;    /* the full JSON report (cl_history_get only; NULL otherwise) */
} cl_history_row;

/* Attempts, newest first, of one lab (NULL: every lab), at most limit (<= 0: all).
 * Free *rows with free(). */
int cl_history_list(sqlite3 *db, const char *lab, int limit, cl_history_row **rows, int *n, cl_err *err);
/* One attempt with its report. 0 found, 1 no such attempt, -1 error. Free with
 * cl_history_row_free. */
int cl_history_get(sqlite3 *db, long long id, cl_history_row *row, cl_err *err);
void cl_history_row_free(cl_history_row *row);
/* The source text kept under sha256. 0 found (*text NUL-terminated, caller frees),
 * 1 not kept, -1 error. */
int cl_history_source(sqlite3 *db, const char *sha256, char **text, size_t *len, cl_err *err);
/* A row as JSON (without the report). */
json_t *cl_history_row_json(const cl_history_row *row);

/* Bench medians within this fraction of each other count as "same" in a comparison:
 * repeated runs of one solution on one GPU stay inside it. */
#define CL_COMPARE_SAME 0.05

/* a and b (from cl_history_get) case by case: {"a": row, "b": row, "cases": [{"name",
 * "kind", "a": {status, median_ms | ms}, "b": {...}, "change": "faster" | "slower" |
 * "same" | "fixed" | "broke" | "still failing" | "only in a" | "only in b",
 * "ratio": b/a median}], "source_changed": bool, "diff": unified diff or null}. */
int cl_history_compare(sqlite3 *db, const cl_history_row *a, const cl_history_row *b, json_t **out, cl_err *err);

typedef struct cl_lab_summary {
    int tests, benches, submits;
    char best_tier[16];      /* best tier of any bench or submit; "" none */
    double best_score, max_score; /* best submit; max_score 0 when none */
    char last_verdict[32];   /* the latest attempt's */
    long long last_at;       /* 0 when never tried */
} cl_lab_summary;

int cl_history_summary(sqlite3 *db, const char *lab, cl_lab_summary *s, cl_err *err);

#endif
