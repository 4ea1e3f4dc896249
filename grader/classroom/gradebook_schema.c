/* gradebook_schema.c: the gradebook's tables, and bringing an older gradebook to them.
 *
 * A result that holds no grade (cudalab could not grade it, or there was no GPU where it
 * ran) has no score: raw_score and score are NULL, never 0. Gradebooks made before that
 * declared both NOT NULL and stored 0; opening one rebuilds its results table once, in one
 * transaction (a kill at any moment leaves the old table whole), with those scores made
 * NULL. A damaged gradebook is reported and left exactly as it is. */
#include <stdio.h>
#include <string.h>

#include "db.h"
#include "grader/classroom.h"

#define RESULTS_COLUMNS                                                                                                \
    "("                                                                                                                \
    "  student TEXT NOT NULL,"                                                                                         \
    "  lab TEXT NOT NULL,"                                                                                             \
    "  sha256 TEXT NOT NULL,"                                                                                          \
    "  config_hash TEXT NOT NULL,"                                                                                     \
    "  run_id INTEGER REFERENCES runs(id),"                                                                            \
    "  name TEXT, email TEXT,"                                                                                         \
    "  submission TEXT,"                                                                                               \
    "  submitted_at INTEGER,"                                                                                          \
    "  verdict TEXT NOT NULL,"                                                                                         \
    "  raw_score REAL," /* NULL: not graded */                                                                         \
    "  score REAL,"                                                                                                    \
    "  max_score REAL NOT NULL,"                                                                                       \
    "  late_days INTEGER NOT NULL DEFAULT 0,"                                                                          \
    "  penalty REAL NOT NULL DEFAULT 0,"                                                                               \
    "  tier TEXT,"                                                                                                     \
    "  seed INTEGER,"                                                                                                  \
    "  gpu TEXT,"                                                                                                      \
    "  graded_at INTEGER NOT NULL,"                                                                                    \
    "  seconds REAL,"                                                                                                  \
    "  metric REAL, fraction REAL, metric_unit TEXT,"                                                                  \
    "  message TEXT,"                                                                                                  \
    "  report TEXT NOT NULL,"                                                                                          \
    "  PRIMARY KEY (student, lab, sha256, config_hash))"

#define RESULTS_NAMES                                                                                                  \
    "student, lab, sha256, config_hash, run_id, name, email, submission, submitted_at, verdict, raw_score, score, "    \
    "max_score, late_days, penalty, tier, seed, gpu, graded_at, seconds, metric, fraction, metric_unit, message, "     \
    "report"

static const char *const schema =
    "CREATE TABLE IF NOT EXISTS runs ("
    "  id INTEGER PRIMARY KEY,"
    "  lab TEXT NOT NULL,"
    "  mode TEXT NOT NULL,"
    "  host TEXT,"
    "  started_at INTEGER NOT NULL,"
    "  finished_at INTEGER,"
    "  graded INTEGER,"
    "  skipped INTEGER,"
    "  slurm_job TEXT);"
    "CREATE TABLE IF NOT EXISTS results " RESULTS_COLUMNS ";"
    "CREATE INDEX IF NOT EXISTS results_lab ON results(lab, student);";

/* 1 when results.score is declared NOT NULL (a gradebook from before), 0 when not or when
 * there is no results table yet, -1 on error. */
static int score_not_null(sqlite3 *db, cl_err *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "PRAGMA table_info(results)", -1, &st, NULL) != SQLITE_OK)
        return cl_err_set(err, "gradebook: %s", sqlite3_errmsg(db));
    int found = 0, rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const unsigned char *name = sqlite3_column_text(st, 1);
        if (name && !strcmp((const char *)name, "score"))
            found = sqlite3_column_int(st, 3) != 0;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return cl_err_set(err, "gradebook: %s", sqlite3_errmsg(db));
    return found;
}

/* "'error', 'no_device'": the verdicts that hold no grade, from the one table of verdicts. */
static void ungraded_list(char *out, size_t n)
{
    size_t used = 0;
    out[0] = '\0';
    for (int v = 0; v <= CL_V_EXCELLENT; v++)
        if (!cl_verdict_graded((cl_verdict)v) && used < n)
            used += (size_t)snprintf(out + used, n - used, "%s'%s'", used ? ", " : "", cl_verdict_name((cl_verdict)v));
}

/* "ok", or what PRAGMA quick_check found wrong (in msg). */
static int quick_check(sqlite3 *db, char *msg, size_t n)
{
    sqlite3_stmt *st;
    snprintf(msg, n, "%s", "unreadable");
    if (sqlite3_prepare_v2(db, "PRAGMA quick_check(1)", -1, &st, NULL) != SQLITE_OK) {
        snprintf(msg, n, "%s", sqlite3_errmsg(db));
        return -1;
    }
    int ok = -1;
    if (sqlite3_step(st) == SQLITE_ROW) {
        const char *t = (const char *)sqlite3_column_text(st, 0);
        snprintf(msg, n, "%s", t ? t : "unreadable");
        ok = t && !strcmp(t, "ok") ? 0 : -1;
    } else {
        snprintf(msg, n, "%s", sqlite3_errmsg(db));
    }
    sqlite3_finalize(st);
    return ok;
}

static int damaged(const char *path, const char *why, cl_err *err)
{
    return cl_err_set(err,
                      "the gradebook %s is damaged (%s); it was left untouched. Move it aside to start a new one "
                      "(every submission is graded again), or try to save its rows with: sqlite3 %s .recover > "
                      "saved.sql",
                      path, why, path);
}

/* The results table of an older gradebook, rebuilt with nullable scores in one transaction. */
static int migrate_scores(sqlite3 *db, const char *path, cl_err *err)
{
    char why[512];
    if (quick_check(db, why, sizeof why))
        return damaged(path, why, err);
    char ungraded[256], sql[2048];
    ungraded_list(ungraded, sizeof ungraded);
    snprintf(sql, sizeof sql,
             "CREATE TABLE results_nullable " RESULTS_COLUMNS ";"
             "INSERT INTO results_nullable (" RESULTS_NAMES ") SELECT student, lab, sha256, config_hash, run_id, "
             "name, email, submission, submitted_at, verdict, "
             "CASE WHEN verdict IN (%s) THEN NULL ELSE raw_score END, "
             "CASE WHEN verdict IN (%s) THEN NULL ELSE score END, "
             "max_score, late_days, penalty, tier, seed, gpu, graded_at, seconds, metric, fraction, metric_unit, "
             "message, report FROM results;"
             "DROP TABLE results;"
             "ALTER TABLE results_nullable RENAME TO results;"
             "CREATE INDEX IF NOT EXISTS results_lab ON results(lab, student);",
             ungraded, ungraded);
    if (cl_db_exec(db, "BEGIN IMMEDIATE", err))
        return -1;
    int again = score_not_null(db, err); /* another process may have migrated it meanwhile */
    if (again < 0 || (again == 1 && cl_db_exec(db, sql, err))) {
        cl_err keep = *err;
        cl_db_exec(db, "ROLLBACK", err);
        *err = keep;
        return cl_err_wrap(err, "gradebook %s: not brought to the current schema, left as it was", path);
    }
    return cl_db_exec(db, "COMMIT", err);
}

int cl_gradebook_open(const char *path, sqlite3 **db, cl_err *err)
{
    if (cl_db_open(path, db, err))
        return -1;
    int old = 0;
    /* FULL: a result that was reported recorded survives a power cut too */
    int rc = cl_db_exec(*db, "PRAGMA synchronous=FULL;", err);
    if (rc == 0 && (old = score_not_null(*db, err)) < 0)
        rc = -1;
    if (rc == 0 && old && migrate_scores(*db, path, err))
        rc = -2; /* said already */
    if (rc == 0)
        rc = cl_db_exec(*db, schema, err);
    if (rc) {
        int code = sqlite3_extended_errcode(*db) & 0xff;
        if (code == SQLITE_CORRUPT || code == SQLITE_NOTADB)
            damaged(path, sqlite3_errmsg(*db), err);
        else if (rc == -1)
            cl_err_wrap(err, "gradebook %s", path);
        cl_db_close(*db);
        *db = NULL;
        return -1;
    }
    return 0;
}
