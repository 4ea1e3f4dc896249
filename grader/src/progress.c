/* progress.c: lab attempts in SQLite. */
#include "grader/progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db.h"
#include "grader/report.h"

int cl_progress_init(sqlite3 *db, cl_err *err)
{
    return cl_db_exec(db,
                      "CREATE TABLE IF NOT EXISTS lab_attempts ("
                      "  id INTEGER PRIMARY KEY,"
                      "  lab TEXT NOT NULL,"
                      "  mode TEXT NOT NULL,"
                      "  verdict TEXT NOT NULL,"
                      "  score REAL NOT NULL,"
                      "  max_score REAL NOT NULL,"
                      "  tier TEXT,"
                      "  seed INTEGER NOT NULL,"
                      "  gpu TEXT,"
                      "  solution TEXT,"
                      "  created_at INTEGER NOT NULL,"
                      "  report TEXT NOT NULL);"
                      "CREATE INDEX IF NOT EXISTS lab_attempts_lab ON lab_attempts(lab);",
                      err);
}

int cl_progress_record(sqlite3 *db, const cl_result *r, const char *mode, cl_err *err)
{
    if (cl_progress_init(db, err))
        return -1;
    json_t *j = cl_result_to_json(r);
    char *report = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(j);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db,
                           "INSERT INTO lab_attempts (lab, mode, verdict, score, max_score, tier, seed, gpu, "
                           "solution, created_at, report) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                           -1, &st, NULL) != SQLITE_OK) {
        free(report);
        return cl_err_set(err, "database: %s", sqlite3_errmsg(db));
    }
    sqlite3_bind_text(st, 1, r->lab, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, mode, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 3, cl_verdict_name(r->verdict), -1, SQLITE_TRANSIENT);
    sqlite3_bind_double(st, 4, r->score);
    sqlite3_bind_double(st, 5, r->max_score);
    if (r->tier) sqlite3_bind_text(st, 6, r->tier, -1, SQLITE_TRANSIENT); else sqlite3_bind_null(st, 6);
    sqlite3_bind_int64(st, 7, (sqlite3_int64)r->seed);
    sqlite3_bind_text(st, 8, r->gpu, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 9, r->solution, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 10, (sqlite3_int64)time(NULL));
    sqlite3_bind_text(st, 11, report ? report : "{}", -1, SQLITE_TRANSIENT);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : cl_err_set(err, "database: %s", sqlite3_errmsg(db));
    sqlite3_finalize(st);
    free(report);
    return rc;
}

int cl_progress_best(sqlite3 *db, const char *lab, cl_lab_best *best, cl_err *err)
{
    memset(best, 0, sizeof *best);
    if (cl_progress_init(db, err))
        return -1;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db,
                           "SELECT (SELECT COUNT(*) FROM lab_attempts WHERE lab = ?1), score, max_score, verdict, "
                           "created_at FROM lab_attempts WHERE lab = ?1 ORDER BY score DESC, created_at ASC LIMIT 1",
                           -1, &st, NULL) != SQLITE_OK)
        return cl_err_set(err, "database: %s", sqlite3_errmsg(db));
    sqlite3_bind_text(st, 1, lab, -1, SQLITE_TRANSIENT);
    int rc = 1;
    if (sqlite3_step(st) == SQLITE_ROW) {
        best->attempts = sqlite3_column_int(st, 0);
        best->score = sqlite3_column_double(st, 1);
        best->max_score = sqlite3_column_double(st, 2);
        const unsigned char *v = sqlite3_column_text(st, 3);
        snprintf(best->verdict, sizeof best->verdict, "%s", v ? (const char *)v : "");
        best->at = sqlite3_column_int64(st, 4);
        rc = 0;
    }
    sqlite3_finalize(st);
    return rc;
}
