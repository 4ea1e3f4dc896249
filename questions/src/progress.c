/* progress.c: attempts, the FSRS deck and interview records in SQLite. */
#include "questions/progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"

int cl_questions_db_init(sqlite3 *db, cl_err *err)
{
    return cl_db_exec(db,
        "CREATE TABLE IF NOT EXISTS q_attempts("
        "  id INTEGER PRIMARY KEY,"
        "  at INTEGER NOT NULL,"
        "  mode TEXT NOT NULL,"
        "  qid TEXT NOT NULL,"
        "  topic TEXT NOT NULL,"
        "  family_seed INTEGER,"
        "  difficulty INTEGER NOT NULL,"
        "  score REAL NOT NULL,"
        "  rating INTEGER NOT NULL,"
        "  answer TEXT NOT NULL,"
        "  seconds REAL);"
        "CREATE INDEX IF NOT EXISTS q_attempts_qid ON q_attempts(qid);"
        "CREATE TABLE IF NOT EXISTS q_cards("
        "  qid TEXT PRIMARY KEY,"
        "  topic TEXT NOT NULL,"
        "  stability REAL NOT NULL,"
        "  difficulty REAL NOT NULL,"
        "  due INTEGER NOT NULL,"
        "  last_review INTEGER NOT NULL,"
        "  reps INTEGER NOT NULL,"
        "  lapses INTEGER NOT NULL,"
        "  state INTEGER NOT NULL);"
        "CREATE INDEX IF NOT EXISTS q_cards_due ON q_cards(due);"
        "CREATE TABLE IF NOT EXISTS q_interviews("
        "  id INTEGER PRIMARY KEY,"
        "  started INTEGER NOT NULL,"
        "  minutes INTEGER NOT NULL,"
        "  track TEXT NOT NULL,"
        "  seed INTEGER NOT NULL,"
        "  questions INTEGER NOT NULL,"
        "  score REAL NOT NULL,"
        "  level INTEGER NOT NULL,"
        "  lab TEXT,"
        "  lab_verdict TEXT,"
        "  scorecard TEXT NOT NULL);",
        err);
}

static int sql_fail(sqlite3 *db, sqlite3_stmt *st, cl_err *err, const char *what)
{
    cl_err_set(err, "database (%s): %s", what, sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return -1;
}

static void row_to_card(sqlite3_stmt *st, cl_card *c)
{
    memset(c, 0, sizeof *c);
    snprintf(c->qid, sizeof c->qid, "%s", (const char *)sqlite3_column_text(st, 0));
    snprintf(c->topic, sizeof c->topic, "%s", (const char *)sqlite3_column_text(st, 1));
    c->stability = sqlite3_column_double(st, 2);
    c->difficulty = sqlite3_column_double(st, 3);
    c->due = sqlite3_column_int64(st, 4);
    c->last_review = sqlite3_column_int64(st, 5);
    c->reps = sqlite3_column_int(st, 6);
    c->lapses = sqlite3_column_int(st, 7);
    c->state = (cl_card_state)sqlite3_column_int(st, 8);
}

#define CARD_COLS "qid, topic, stability, difficulty, due, last_review, reps, lapses, state"

int cl_card_get(sqlite3 *db, const char *qid, cl_card *c, int *found, cl_err *err)
{
    sqlite3_stmt *st = NULL;
    *found = 0;
    if (sqlite3_prepare_v2(db, "SELECT " CARD_COLS " FROM q_cards WHERE qid = ?", -1, &st, NULL))
        return sql_fail(db, st, err, "read card");
    sqlite3_bind_text(st, 1, qid, -1, SQLITE_TRANSIENT);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        row_to_card(st, c);
        *found = 1;
    } else if (rc != SQLITE_DONE) {
        return sql_fail(db, st, err, "read card");
    }
    sqlite3_finalize(st);
    return 0;
}

int cl_card_put(sqlite3 *db, const cl_card *c, cl_err *err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO q_cards(" CARD_COLS ") VALUES (?,?,?,?,?,?,?,?,?)",
                           -1, &st, NULL))
        return sql_fail(db, st, err, "write card");
    sqlite3_bind_text(st, 1, c->qid, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, c->topic, -1, SQLITE_TRANSIENT);
    sqlite3_bind_double(st, 3, c->stability);
    sqlite3_bind_double(st, 4, c->difficulty);
    sqlite3_bind_int64(st, 5, c->due);
    sqlite3_bind_int64(st, 6, c->last_review);
    sqlite3_bind_int(st, 7, c->reps);
    sqlite3_bind_int(st, 8, c->lapses);
    sqlite3_bind_int(st, 9, (int)c->state);
    if (sqlite3_step(st) != SQLITE_DONE)
        return sql_fail(db, st, err, "write card");
    sqlite3_finalize(st);
    return 0;
}

static int add_attempt(sqlite3 *db, const cl_attempt *a, cl_err *err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db,
                           "INSERT INTO q_attempts(at, mode, qid, topic, family_seed, difficulty, score,"
                           " rating, answer, seconds) VALUES (?,?,?,?,?,?,?,?,?,?)",
                           -1, &st, NULL))
        return sql_fail(db, st, err, "record attempt");
    sqlite3_bind_int64(st, 1, a->at);
    sqlite3_bind_text(st, 2, a->mode, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, a->q->id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, a->q->topic, -1, SQLITE_STATIC);
    if (a->q->family)
        sqlite3_bind_int64(st, 5, (sqlite3_int64)a->q->seed);
    else
        sqlite3_bind_null(st, 5);
    sqlite3_bind_int(st, 6, a->q->difficulty);
    sqlite3_bind_double(st, 7, a->score);
    sqlite3_bind_int(st, 8, (int)a->rating);
    sqlite3_bind_text(st, 9, a->answer ? a->answer : "", -1, SQLITE_STATIC);
    sqlite3_bind_double(st, 10, a->seconds);
    if (sqlite3_step(st) != SQLITE_DONE)
        return sql_fail(db, st, err, "record attempt");
    sqlite3_finalize(st);
    return 0;
}

int cl_attempt_record(sqlite3 *db, const cl_attempt *a, int *in_deck, cl_err *err)
{
    if (cl_db_exec(db, "BEGIN IMMEDIATE", err))
        return -1;
    cl_card c;
    int found = 0;
    if (add_attempt(db, a, err) || cl_card_get(db, a->q->id, &c, &found, err))
        goto fail;
    if (!found && a->rating <= CL_HARD) {
        memset(&c, 0, sizeof c);
        snprintf(c.qid, sizeof c.qid, "%s", a->q->id);
        snprintf(c.topic, sizeof c.topic, "%s", a->q->topic);
        found = 1;
    }
    if (found) {
        cl_card_review(&c, a->rating, a->at);
        if (cl_card_put(db, &c, err))
            goto fail;
    }
    if (cl_db_exec(db, "COMMIT", err))
        goto fail;
    if (in_deck)
        *in_deck = found;
    return 0;
fail:
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    return -1;
}

int cl_attempt_counts(sqlite3 *db, const cl_bank *b, int *counts, cl_err *err)
{
    memset(counts, 0, sizeof(int) * (size_t)b->nq);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT qid, COUNT(*) FROM q_attempts GROUP BY qid", -1, &st, NULL))
        return sql_fail(db, st, err, "count attempts");
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *qid = (const char *)sqlite3_column_text(st, 0);
        const cl_question *q = cl_bank_find(b, qid);
        if (q)
            counts[q - b->q] = sqlite3_column_int(st, 1);
    }
    if (rc != SQLITE_DONE)
        return sql_fail(db, st, err, "count attempts");
    sqlite3_finalize(st);
    return 0;
}

int cl_cards_due(sqlite3 *db, int64_t now, int all, int limit, cl_card **cards, int *n, cl_err *err)
{
    *cards = NULL;
    *n = 0;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db,
                           all ? "SELECT " CARD_COLS " FROM q_cards ORDER BY due, qid LIMIT ?2"
                               : "SELECT " CARD_COLS " FROM q_cards WHERE due <= ?1 ORDER BY due, qid LIMIT ?2",
                           -1, &st, NULL))
        return sql_fail(db, st, err, "read due cards");
    if (!all)
        sqlite3_bind_int64(st, 1, now);
    sqlite3_bind_int(st, 2, limit);
    int cap = 0, rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == cap) {
            cap = cap ? cap * 2 : 16;
            cl_card *nc = realloc(*cards, sizeof **cards * (size_t)cap);
            if (!nc) {
                free(*cards);
                *cards = NULL;
                sqlite3_finalize(st);
                return cl_err_set(err, "out of memory");
            }
            *cards = nc;
        }
        row_to_card(st, &(*cards)[(*n)++]);
    }
    if (rc != SQLITE_DONE) {
        free(*cards);
        *cards = NULL;
        *n = 0;
        return sql_fail(db, st, err, "read due cards");
    }
    sqlite3_finalize(st);
    return 0;
}

int cl_cards_summary(sqlite3 *db, int64_t now, int *total, int *due, int64_t *next_due, cl_err *err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT COUNT(*), COALESCE(SUM(due <= ?1), 0), COALESCE(MIN(due), 0) FROM q_cards",
                           -1, &st, NULL))
        return sql_fail(db, st, err, "summarise deck");
    sqlite3_bind_int64(st, 1, now);
    if (sqlite3_step(st) != SQLITE_ROW)
        return sql_fail(db, st, err, "summarise deck");
    *total = sqlite3_column_int(st, 0);
    *due = sqlite3_column_int(st, 1);
    *next_due = sqlite3_column_int64(st, 2);
    sqlite3_finalize(st);
    return 0;
}

int cl_interview_save(sqlite3 *db, const cl_interview_row *r, cl_err *err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db,
                           "INSERT INTO q_interviews(started, minutes, track, seed, questions, score, level,"
                           " lab, lab_verdict, scorecard) VALUES (?,?,?,?,?,?,?,?,?,?)",
                           -1, &st, NULL))
        return sql_fail(db, st, err, "record interview");
    sqlite3_bind_int64(st, 1, r->started);
    sqlite3_bind_int(st, 2, r->minutes);
    sqlite3_bind_text(st, 3, r->track, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 4, (sqlite3_int64)r->seed);
    sqlite3_bind_int(st, 5, r->questions);
    sqlite3_bind_double(st, 6, r->score);
    sqlite3_bind_int(st, 7, r->level);
    if (r->lab)
        sqlite3_bind_text(st, 8, r->lab, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, 8);
    if (r->lab_verdict)
        sqlite3_bind_text(st, 9, r->lab_verdict, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, 9);
    sqlite3_bind_text(st, 10, r->scorecard ? r->scorecard : "", -1, SQLITE_STATIC);
    if (sqlite3_step(st) != SQLITE_DONE)
        return sql_fail(db, st, err, "record interview");
    sqlite3_finalize(st);
    return 0;
}
