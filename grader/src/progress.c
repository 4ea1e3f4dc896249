/* progress.c: lab attempts in SQLite: the schema (and its migrations), recording an
 * attempt with its source, and the best submit per lab. Reading the history back is
 * history.c's job. */
#include "grader/progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db.h"
#include "grader/classroom.h"
#include "grader/report.h"

/* 1 when table has column, 0 when not, -1 on error. */
static int has_column(sqlite3 *db, const char *table, const char *column, cl_err *err)
{
    char sql[128];
    snprintf(sql, sizeof sql, "PRAGMA table_info(%s)", table);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return cl_err_set(err, "database: %s", sqlite3_errmsg(db));
    int found = 0, rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const unsigned char *name = sqlite3_column_text(st, 1);
        if (name && !strcmp((const char *)name, column))
            found = 1;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return cl_err_set(err, "database: %s", sqlite3_errmsg(db));
    return found;
}

int cl_progress_init(sqlite3 *db, cl_err *err)
{
    /* Version 1 (before the history) had lab_attempts without source_sha256; databases
     * made then gain the column here, and their rows keep everything they had. Readers
     * of an up-to-date database take no write lock. */
    if (has_column(db, "lab_attempts", "source_sha256", err) == 1 && has_column(db, "lab_sources", "text", err) == 1)
        return 0;
    if (cl_db_exec(db, "BEGIN IMMEDIATE", err))
        return -1;
    int rc = cl_db_exec(db,
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
                        "  report TEXT NOT NULL,"
                        "  source_sha256 TEXT);"
                        "CREATE INDEX IF NOT EXISTS lab_attempts_lab ON lab_attempts(lab);"
                        /* each distinct source once, by content */
                        "CREATE TABLE IF NOT EXISTS lab_sources ("
                        "  sha256 TEXT PRIMARY KEY,"
                        "  bytes INTEGER NOT NULL,"
                        "  text BLOB NOT NULL);",
                        err);
    if (rc == 0) {
        int has = has_column(db, "lab_attempts", "source_sha256", err);
        if (has < 0)
            rc = -1;
        else if (!has)
            rc = cl_db_exec(db, "ALTER TABLE lab_attempts ADD COLUMN source_sha256 TEXT", err);
    }
    if (rc) {
        cl_err keep = *err;
        cl_db_exec(db, "ROLLBACK", err);
        *err = keep;
        return -1;
    }
    return cl_db_exec(db, "COMMIT", err);
}

static int store_source(sqlite3 *db, const char *text, size_t len, const char *sha, cl_err *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "INSERT OR IGNORE INTO lab_sources (sha256, bytes, text) VALUES (?,?,?)", -1, &st,
                           NULL) != SQLITE_OK)
        return cl_err_set(err, "database: %s", sqlite3_errmsg(db));
    sqlite3_bind_text(st, 1, sha, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 2, (sqlite3_int64)len);
    sqlite3_bind_blob(st, 3, text, (int)len, SQLITE_TRANSIENT);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : cl_err_set(err, "database: %s", sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return rc;
}

int cl_progress_record_source(sqlite3 *db, const cl_result *r, const char *mode, const char *source, size_t source_len,
                              long long *id, cl_err *err)
{
    if (cl_progress_init(db, err))
        return -1;
    char sha[CL_SHA256_HEX] = "";
    if (source)
        cl_sha256_hex(source, source_len, sha);
    json_t *j = cl_result_to_json(r);
    char *report = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(j);
    /* the source and its attempt together, or neither */
    if (cl_db_exec(db, "BEGIN IMMEDIATE", err)) {
        free(report);
        return -1;
    }
    int rc = source ? store_source(db, source, source_len, sha, err) : 0;
    sqlite3_stmt *st = NULL;
    if (rc == 0 && sqlite3_prepare_v2(db,
                                      "INSERT INTO lab_attempts (lab, mode, verdict, score, max_score, tier, seed, gpu, "
                                      "solution, created_at, report, source_sha256) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                                      -1, &st, NULL) != SQLITE_OK)
        rc = cl_err_set(err, "database: %s", sqlite3_errmsg(db));
    if (rc == 0) {
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
        if (source) sqlite3_bind_text(st, 12, sha, -1, SQLITE_TRANSIENT); else sqlite3_bind_null(st, 12);
        if (sqlite3_step(st) != SQLITE_DONE)
            rc = cl_err_set(err, "database: %s", sqlite3_errmsg(db));
        else if (id)
            *id = (long long)sqlite3_last_insert_rowid(db);
    }
    sqlite3_finalize(st);
    free(report);
    if (rc) {
        cl_err keep = *err;
        cl_db_exec(db, "ROLLBACK", err);
        *err = keep;
        return -1;
    }
    return cl_db_exec(db, "COMMIT", err);
}

int cl_progress_record(sqlite3 *db, const cl_result *r, const char *mode, cl_err *err)
{
    return cl_progress_record_source(db, r, mode, NULL, 0, NULL, err);
}

int cl_progress_best(sqlite3 *db, const char *lab, cl_lab_best *best, cl_err *err)
{
    memset(best, 0, sizeof *best);
    if (cl_progress_init(db, err))
        return -1;
    sqlite3_stmt *st;
    /* submits only: a test or a bench is practice, a submit is the scored attempt */
    if (sqlite3_prepare_v2(db,
                           "SELECT (SELECT COUNT(*) FROM lab_attempts WHERE lab = ?1 AND mode = 'submit'), score, "
                           "max_score, verdict, created_at FROM lab_attempts WHERE lab = ?1 AND mode = 'submit' "
                           "ORDER BY score DESC, created_at ASC LIMIT 1",
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
