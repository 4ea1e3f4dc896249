/* gradebook.c: the class's results in SQLite (the tables: gradebook_schema.c).
 *
 * One row per (student, lab, submission hash, config hash): the key of a grading. A row is
 * written in one transaction and never replaced, so a run killed at any moment leaves
 * every finished grading recorded once and nothing half-written, and a rerun grades only
 * the keys without a row. A row without a score is not final and is graded again by the
 * next run, its row then replaced: `error` (cudalab could not grade: not the student's
 * fault) and `no_device` (no GPU where it ran) hold no grade, so their score is NULL,
 * never 0. The whole result JSON is kept, so every report can be rebuilt from the
 * gradebook alone. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "grader/result.h"
#include "db.h"
#include "grader/classroom.h"

static int prepare(sqlite3 *db, const char *sql, sqlite3_stmt **st, cl_err *err)
{
    if (sqlite3_prepare_v2(db, sql, -1, st, NULL) != SQLITE_OK)
        return cl_err_set(err, "gradebook: %s", sqlite3_errmsg(db));
    return 0;
}

/* prepare() for a statement whose first four parameters are a result's key. */
static int prepare_keyed(sqlite3 *db, const char *sql, const char *student, const char *lab, const char *sha256,
                         const char *config_hash, sqlite3_stmt **st, cl_err *err)
{
    if (prepare(db, sql, st, err))
        return -1;
    sqlite3_bind_text(*st, 1, student, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(*st, 2, lab, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(*st, 3, sha256, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(*st, 4, config_hash, -1, SQLITE_TRANSIENT);
    return 0;
}

int cl_gradebook_has(sqlite3 *db, const char *student, const char *lab, const char *sha256, const char *config_hash,
                     cl_err *err)
{
    sqlite3_stmt *st;
    if (prepare_keyed(db,
                      "SELECT 1 FROM results WHERE student=? AND lab=? AND sha256=? AND config_hash=? "
                      "AND score IS NOT NULL",
                      student, lab, sha256, config_hash, &st, err))
        return -1;
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc == SQLITE_ROW)
        return 1;
    if (rc == SQLITE_DONE)
        return 0;
    return cl_err_set(err, "gradebook: %s", sqlite3_errmsg(db));
}

/* ---- a result JSON -> the row's numbers ---- */

static double jnum(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : 0;
}

static const char *jstr(json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

static void metric_of(json_t *rep, cl_grade_row *row)
{
    const char *metric = jstr(rep, "metric");
    json_t *cases = json_object_get(rep, "cases"), *c, *pick = NULL, *first = NULL;
    size_t i;
    double worst = INFINITY;
    json_array_foreach(cases, i, c) { /* the slowest case holds the score down: show that one */
        json_t *b = json_object_get(c, "bench");
        if (!b || jnum(b, "median_ms") <= 0)
            continue;
        double f = jnum(b, "fraction");
        if (!first)
            first = b;
        if (f > 0 && f < worst) {
            worst = f;
            pick = b;
        }
    }
    if (!pick)
        pick = first;
    if (!pick)
        return;
    row->metric = jnum(pick, "metric");
    row->fraction = jnum(pick, "fraction");
    if (!strcmp(metric, "bandwidth"))
        snprintf(row->metric_unit, sizeof row->metric_unit, "GB/s");
    else if (!strcmp(metric, "tflops"))
        snprintf(row->metric_unit, sizeof row->metric_unit, "TFLOP/s");
    else if (!strcmp(metric, "throughput"))
        snprintf(row->metric_unit, sizeof row->metric_unit, "%s/s",
                 *jstr(pick, "items_unit") ? jstr(pick, "items_unit") : "items");
    else
        snprintf(row->metric_unit, sizeof row->metric_unit, "ms");
}

void cl_grade_row_from_result(cl_grade_row *row, const cl_submission *s, const cl_course_rules *rules,
                              const cl_course *c, json_t *result)
{
    memset(row, 0, sizeof *row);
    json_t *rep = json_object_get(result, "result");
    snprintf(row->student, sizeof row->student, "%s", s->student);
    snprintf(row->name, sizeof row->name, "%s", s->name);
    snprintf(row->email, sizeof row->email, "%s", s->email);
    snprintf(row->sha256, sizeof row->sha256, "%s", s->sha256);
    snprintf(row->submission, sizeof row->submission, "%s", s->entry);
    row->submitted_at = s->submitted_at;
    row->in_roster = s->in_roster;
    snprintf(row->lab, sizeof row->lab, "%s", jstr(rep, "lab"));
    snprintf(row->verdict, sizeof row->verdict, "%s", *jstr(rep, "verdict") ? jstr(rep, "verdict") : cl_verdict_name(CL_V_ERROR));
    snprintf(row->tier, sizeof row->tier, "%s", jstr(rep, "tier"));
    row->message = strdup(jstr(rep, "message"));
    row->has_score = cl_verdict_graded(cl_verdict_from_name(row->verdict));
    row->raw_score = row->has_score ? jnum(rep, "score") : 0;
    row->max_score = jnum(rep, "max_score");
    row->seed = (uint64_t)json_integer_value(json_object_get(rep, "seed"));
    snprintf(row->gpu, sizeof row->gpu, "%s", jstr(json_object_get(rep, "device"), "name"));
    row->seconds = jnum(rep, "seconds");
    row->graded_at = (long long)time(NULL);
    metric_of(rep, row);
    cl_grade_row_late(row, s->submitted_at, rules, c);
    row->report = json_incref(rep);
}

void cl_grade_row_late(cl_grade_row *row, long long submitted_at, const cl_course_rules *rules, const cl_course *c)
{
    row->submitted_at = submitted_at;
    row->late_days = 0;
    row->penalty = 0;
    /* lateness: whole days started after the deadline */
    if (rules && rules->have_deadline && submitted_at > rules->deadline) {
        long long late = submitted_at - rules->deadline;
        row->late_days = (int)((late + 86399) / 86400);
        row->penalty = c ? row->late_days * c->late_penalty_per_day : 0;
        if (c && c->late_max_days >= 0 && row->late_days > c->late_max_days)
            row->penalty = 1;
        if (row->penalty > 1)
            row->penalty = 1;
    }
    row->score = row->raw_score * (1 - row->penalty);
}

int cl_grade_row_scored(const cl_grade_row *row) { return row->has_score; }

/* Binds a score, or NULL for a row that holds no grade. */
static void bind_score(sqlite3_stmt *st, int k, const cl_grade_row *row, double v)
{
    if (row->has_score)
        sqlite3_bind_double(st, k, v);
    else
        sqlite3_bind_null(st, k);
}

int cl_gradebook_update_late(sqlite3 *db, const cl_grade_row *row, cl_err *err)
{
    sqlite3_stmt *st;
    if (prepare_keyed(db,
                      "UPDATE results SET submitted_at=?5, late_days=?6, penalty=?7, score=?8 WHERE student=?1 AND "
                      "lab=?2 AND sha256=?3 AND config_hash=?4",
                      row->student, row->lab, row->sha256, row->config_hash, &st, err))
        return -1;
    sqlite3_bind_int64(st, 5, row->submitted_at);
    sqlite3_bind_int(st, 6, row->late_days);
    sqlite3_bind_double(st, 7, row->penalty);
    bind_score(st, 8, row, row->score);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : cl_err_set(err, "gradebook: %s", sqlite3_errmsg(db));
}

void cl_grade_row_free(cl_grade_row *row)
{
    free(row->message);
    json_decref(row->report);
    row->message = NULL;
    row->report = NULL;
}

int cl_gradebook_record(sqlite3 *db, long long run_id, const cl_submission *s, const cl_course *c,
                        const cl_course_rules *rules, json_t *result, cl_err *err)
{
    cl_grade_row row;
    cl_grade_row_from_result(&row, s, rules, c, result);
    char *report = json_dumps(row.report, JSON_COMPACT | JSON_SORT_KEYS);
    const char *config_hash = json_string_value(json_object_get(result, "config_hash"));
    int rc = -1;
    sqlite3_stmt *st = NULL;
    if (!report || !config_hash) {
        cl_err_set(err, "gradebook: a result without its report or config hash");
        goto done;
    }
    if (cl_db_exec(db, "BEGIN IMMEDIATE", err))
        goto done;
    int has = cl_gradebook_has(db, s->student, row.lab, s->sha256, config_hash, err);
    if (has != 0) {
        cl_err e2;
        cl_db_exec(db, "ROLLBACK", &e2);
        rc = has < 0 ? -1 : 1;
        goto done;
    }
    /* a result that was not final (no score: error, no_device) makes way for this one */
    if (prepare(db, "DELETE FROM results WHERE student=? AND lab=? AND sha256=? AND config_hash=?", &st, err)) {
        cl_err e2;
        cl_db_exec(db, "ROLLBACK", &e2);
        goto done;
    }
    sqlite3_bind_text(st, 1, s->student, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, row.lab, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 3, s->sha256, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 4, config_hash, -1, SQLITE_TRANSIENT);
    int del = sqlite3_step(st);
    sqlite3_finalize(st);
    st = NULL;
    if (del != SQLITE_DONE) {
        cl_err_set(err, "gradebook: %s", sqlite3_errmsg(db));
        cl_err e2;
        cl_db_exec(db, "ROLLBACK", &e2);
        goto done;
    }
    if (prepare(db,
                "INSERT INTO results (student, lab, sha256, config_hash, run_id, name, email, submission, "
                "submitted_at, verdict, raw_score, score, max_score, late_days, penalty, tier, seed, gpu, graded_at, "
                "seconds, metric, fraction, metric_unit, message, report) "
                "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                &st, err)) {
        cl_db_exec(db, "ROLLBACK", err);
        goto done;
    }
    int k = 1;
    sqlite3_bind_text(st, k++, s->student, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, k++, row.lab, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, k++, s->sha256, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, k++, config_hash, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, k++, run_id);
    sqlite3_bind_text(st, k++, s->name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, k++, s->email, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, k++, s->entry, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, k++, s->submitted_at);
    sqlite3_bind_text(st, k++, row.verdict, -1, SQLITE_TRANSIENT);
    bind_score(st, k++, &row, row.raw_score);
    bind_score(st, k++, &row, row.score);
    sqlite3_bind_double(st, k++, row.max_score);
    sqlite3_bind_int(st, k++, row.late_days);
    sqlite3_bind_double(st, k++, row.penalty);
    if (row.tier[0]) sqlite3_bind_text(st, k++, row.tier, -1, SQLITE_TRANSIENT); else sqlite3_bind_null(st, k++);
    sqlite3_bind_int64(st, k++, (sqlite3_int64)row.seed);
    sqlite3_bind_text(st, k++, row.gpu, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, k++, row.graded_at);
    sqlite3_bind_double(st, k++, row.seconds);
    sqlite3_bind_double(st, k++, row.metric);
    sqlite3_bind_double(st, k++, row.fraction);
    sqlite3_bind_text(st, k++, row.metric_unit, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, k++, row.message ? row.message : "", -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, k++, report, -1, SQLITE_TRANSIENT);
    if (sqlite3_step(st) != SQLITE_DONE) {
        cl_err_set(err, "gradebook: %s", sqlite3_errmsg(db));
        cl_err e2;
        cl_db_exec(db, "ROLLBACK", &e2);
        goto done;
    }
    if (cl_db_exec(db, "COMMIT", err))
        goto done;
    rc = 0;
done:
    sqlite3_finalize(st);
    free(report);
    cl_grade_row_free(&row);
    return rc;
}

int cl_gradebook_get(sqlite3 *db, const char *student, const char *lab, const char *sha256, const char *config_hash,
                     cl_grade_row *row, cl_err *err)
{
    memset(row, 0, sizeof *row);
    sqlite3_stmt *st;
    if (prepare_keyed(db,
                      "SELECT name, email, submission, submitted_at, verdict, raw_score, score, max_score, "
                      "late_days, penalty, tier, seed, gpu, graded_at, seconds, metric, fraction, metric_unit, "
                      "message, report FROM results WHERE student=? AND lab=? AND sha256=? AND config_hash=?",
                      student, lab, sha256, config_hash, &st, err))
        return -1;
    int rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        sqlite3_finalize(st);
        return rc == SQLITE_DONE ? 1 : cl_err_set(err, "gradebook: %s", sqlite3_errmsg(db));
    }
#define COL(i) ((const char *)(sqlite3_column_text(st, (i)) ? (const char *)sqlite3_column_text(st, (i)) : ""))
    snprintf(row->student, sizeof row->student, "%s", student);
    snprintf(row->lab, sizeof row->lab, "%s", lab);
    snprintf(row->sha256, sizeof row->sha256, "%s", sha256);
    snprintf(row->config_hash, sizeof row->config_hash, "%s", config_hash);
    snprintf(row->name, sizeof row->name, "%s", COL(0));
    snprintf(row->email, sizeof row->email, "%s", COL(1));
    snprintf(row->submission, sizeof row->submission, "%s", COL(2));
    row->submitted_at = sqlite3_column_int64(st, 3);
    snprintf(row->verdict, sizeof row->verdict, "%s", COL(4));
    row->has_score = sqlite3_column_type(st, 6) != SQLITE_NULL;
    row->raw_score = sqlite3_column_double(st, 5);
    row->score = sqlite3_column_double(st, 6);
    row->max_score = sqlite3_column_double(st, 7);
    row->late_days = sqlite3_column_int(st, 8);
    row->penalty = sqlite3_column_double(st, 9);
    snprintf(row->tier, sizeof row->tier, "%s", COL(10));
    row->seed = (uint64_t)sqlite3_column_int64(st, 11);
    snprintf(row->gpu, sizeof row->gpu, "%s", COL(12));
    row->graded_at = sqlite3_column_int64(st, 13);
    row->seconds = sqlite3_column_double(st, 14);
    row->metric = sqlite3_column_double(st, 15);
    row->fraction = sqlite3_column_double(st, 16);
    snprintf(row->metric_unit, sizeof row->metric_unit, "%s", COL(17));
    row->message = strdup(COL(18));
    row->report = json_loads(COL(19), 0, NULL);
#undef COL
    sqlite3_finalize(st);
    return 0;
}

long long cl_gradebook_run_begin(sqlite3 *db, const char *lab, const char *mode, cl_err *err)
{
    sqlite3_stmt *st;
    if (prepare(db, "INSERT INTO runs (lab, mode, host, started_at) VALUES (?,?,?,?)", &st, err))
        return -1;
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    sqlite3_bind_text(st, 1, lab, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, mode, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 3, host, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 4, (sqlite3_int64)time(NULL));
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return cl_err_set(err, "gradebook: %s", sqlite3_errmsg(db));
    return (long long)sqlite3_last_insert_rowid(db);
}

int cl_gradebook_run_end(sqlite3 *db, long long run_id, int graded, int skipped, const char *slurm_job, cl_err *err)
{
    sqlite3_stmt *st;
    if (prepare(db, "UPDATE runs SET finished_at=?, graded=?, skipped=?, slurm_job=? WHERE id=?", &st, err))
        return -1;
    sqlite3_bind_int64(st, 1, (sqlite3_int64)time(NULL));
    sqlite3_bind_int(st, 2, graded);
    sqlite3_bind_int(st, 3, skipped);
    if (slurm_job && *slurm_job) sqlite3_bind_text(st, 4, slurm_job, -1, SQLITE_TRANSIENT); else sqlite3_bind_null(st, 4);
    sqlite3_bind_int64(st, 5, run_id);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : cl_err_set(err, "gradebook: %s", sqlite3_errmsg(db));
}

int cl_gradebook_count(sqlite3 *db, const char *lab, int *rows, cl_err *err)
{
    sqlite3_stmt *st;
    if (prepare(db, "SELECT COUNT(*) FROM results WHERE lab=?", &st, err))
        return -1;
    sqlite3_bind_text(st, 1, lab, -1, SQLITE_TRANSIENT);
    int rc = sqlite3_step(st);
    *rows = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 0 : cl_err_set(err, "gradebook: %s", sqlite3_errmsg(db));
}
