/* history.c: the progress database read back: attempt lists, one attempt, the source
 * kept by content hash, two attempts compared case by case (with a source diff), and a
 * lab's best. */
#include "grader/result.h"
#include "grader/history.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grader/proc.h"
#include "grader/progress.h"
#include "paths.h"

#define ROW_COLUMNS "id, lab, mode, verdict, score, max_score, tier, seed, gpu, solution, created_at, source_sha256, report"

static void copy_col(sqlite3_stmt *st, int i, char *out, size_t n)
{
    const unsigned char *v = sqlite3_column_text(st, i);
    snprintf(out, n, "%s", v ? (const char *)v : "");
}

/* Fills row from a statement selecting ROW_COLUMNS; keeps the parsed report when asked. */
static void read_row(sqlite3_stmt *st, cl_history_row *row, int keep_report)
{
    memset(row, 0, sizeof *row);
    row->id = sqlite3_column_int64(st, 0);
    copy_col(st, 1, row->lab, sizeof row->lab);
    copy_col(st, 2, row->mode, sizeof row->mode);
    copy_col(st, 3, row->verdict, sizeof row->verdict);
    row->score = sqlite3_column_double(st, 4);
    row->max_score = sqlite3_column_double(st, 5);
    copy_col(st, 6, row->tier, sizeof row->tier);
    row->seed = (uint64_t)sqlite3_column_int64(st, 7);
    copy_col(st, 8, row->gpu, sizeof row->gpu);
    copy_col(st, 9, row->solution, sizeof row->solution);
    row->at = sqlite3_column_int64(st, 10);
    copy_col(st, 11, row->sha256, sizeof row->sha256);
    const char *report = (const char *)sqlite3_column_text(st, 12);
    json_t *j = report ? json_loads(report, 0, NULL) : NULL;
    row->passed = (int)json_integer_value(json_object_get(j, "passed"));
    row->total = (int)json_integer_value(json_object_get(j, "total"));
    if (keep_report)
        row->report = j;
    else
        json_decref(j);
}

int cl_history_list(sqlite3 *db, const char *lab, int limit, cl_history_row **rows, int *n, cl_err *err)
{
    *rows = NULL;
    *n = 0;
    if (cl_progress_init(db, err))
        return -1;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db,
                           "SELECT " ROW_COLUMNS " FROM lab_attempts WHERE ?1 IS NULL OR lab = ?1 "
                           "ORDER BY id DESC LIMIT ?2",
                           -1, &st, NULL) != SQLITE_OK)
        return cl_err_set(err, "database: %s", sqlite3_errmsg(db));
    if (lab) sqlite3_bind_text(st, 1, lab, -1, SQLITE_TRANSIENT); else sqlite3_bind_null(st, 1);
    sqlite3_bind_int64(st, 2, limit > 0 ? limit : -1);
    int cap = 0, rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == cap) {
            cap = cap ? 2 * cap : 32;
            cl_history_row *grown = realloc(*rows, (size_t)cap * sizeof **rows);
            if (!grown) {
                sqlite3_finalize(st);
                return cl_err_set(err, "out of memory");
            }
            *rows = grown;
        }
        read_row(st, &(*rows)[(*n)++], 0);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return cl_err_set(err, "database: %s", sqlite3_errmsg(db));
    return 0;
}

int cl_history_get(sqlite3 *db, long long id, cl_history_row *row, cl_err *err)
{
    memset(row, 0, sizeof *row);
    if (cl_progress_init(db, err))
        return -1;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT " ROW_COLUMNS " FROM lab_attempts WHERE id = ?", -1, &st, NULL) != SQLITE_OK)
        return cl_err_set(err, "database: %s", sqlite3_errmsg(db));
    sqlite3_bind_int64(st, 1, id);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        read_row(st, row, 1);
    sqlite3_finalize(st);
    if (rc == SQLITE_ROW)
        return 0;
    if (rc == SQLITE_DONE)
        return 1;
    return cl_err_set(err, "database: %s", sqlite3_errmsg(db));
}

void cl_history_row_free(cl_history_row *row)
{
    json_decref(row->report);
    row->report = NULL;
}

int cl_history_source(sqlite3 *db, const char *sha256, char **text, size_t *len, cl_err *err)
{
    *text = NULL;
    *len = 0;
    if (!sha256 || !*sha256)
        return 1;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT text FROM lab_sources WHERE sha256 = ?", -1, &st, NULL) != SQLITE_OK)
        return cl_err_set(err, "database: %s", sqlite3_errmsg(db));
    sqlite3_bind_text(st, 1, sha256, -1, SQLITE_TRANSIENT);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        int n = sqlite3_column_bytes(st, 0);
        *text = malloc((size_t)n + 1);
        if (*text) {
            memcpy(*text, sqlite3_column_blob(st, 0), (size_t)n);
            (*text)[n] = '\0';
            *len = (size_t)n;
        }
    }
    sqlite3_finalize(st);
    if (rc == SQLITE_ROW)
        return *text ? 0 : cl_err_set(err, "out of memory");
    if (rc == SQLITE_DONE)
        return 1;
    return cl_err_set(err, "database: %s", sqlite3_errmsg(db));
}

json_t *cl_history_row_json(const cl_history_row *r)
{
    json_t *o = json_pack("{s:I, s:s, s:s, s:s, s:f, s:f, s:I, s:s, s:s, s:I, s:i, s:i}", "id", (json_int_t)r->id,
                          "lab", r->lab, "mode", r->mode, "verdict", r->verdict, "score", r->score, "max_score",
                          r->max_score, "seed", (json_int_t)r->seed, "gpu", r->gpu, "solution", r->solution, "at",
                          (json_int_t)r->at, "passed", r->passed, "total", r->total);
    json_object_set_new(o, "tier", r->tier[0] ? json_string(r->tier) : json_null());
    json_object_set_new(o, "source_sha256", r->sha256[0] ? json_string(r->sha256) : json_null());
    return o;
}

/* ---- compare ---- */

static json_t *find_case(json_t *report, const char *name, const char *kind)
{
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(report, "cases"), i, c) {
        const char *n = json_string_value(json_object_get(c, "name"));
        const char *k = json_string_value(json_object_get(c, "kind"));
        if (n && k && !strcmp(n, name) && !strcmp(k, kind))
            return c;
    }
    return NULL;
}

static double case_median(json_t *c)
{
    json_t *m = json_object_get(json_object_get(c, "bench"), "median_ms");
    return json_is_number(m) ? json_number_value(m) : 0;
}

static json_t *case_side(json_t *c)
{
    json_t *o = json_object();
    json_object_set(o, "status", json_object_get(c, "status"));
    double med = case_median(c);
    if (med > 0)
        json_object_set_new(o, "median_ms", json_real(med));
    else if (json_is_number(json_object_get(c, "ms")))
        json_object_set(o, "ms", json_object_get(c, "ms"));
    if (json_object_get(c, "message"))
        json_object_set(o, "message", json_object_get(c, "message"));
    return o;
}

static const char *case_change(json_t *ca, json_t *cb, double *ratio)
{
    *ratio = 0;
    if (!ca) return "only in b";
    if (!cb) return "only in a";
    const char *sa = json_string_value(json_object_get(ca, "status"));
    const char *sb = json_string_value(json_object_get(cb, "status"));
    int pa = cl_case_passed(sa), pb = cl_case_passed(sb);
    if (pa && !pb) return "broke";
    if (!pa && pb) return "fixed";
    if (!pa && !pb) return "still failing";
    double ma = case_median(ca), mb = case_median(cb);
    if (ma > 0 && mb > 0) {
        *ratio = mb / ma;
        if (fabs(*ratio - 1) < CL_COMPARE_SAME)
            return "same";
        return *ratio < 1 ? "faster" : "slower";
    }
    return "same";
}

/* diff -u of two sources, through the one process API. */
static int source_diff(const char *ta, size_t la, const char *tb, size_t lb, const char *label_a, const char *label_b, char **out,
                       cl_err *err)
{
    *out = NULL;
    char dir[] = "/tmp/cudalab-compare-XXXXXX";
    if (!mkdtemp(dir))
        return cl_err_set(err, "cannot make a temporary folder for the diff");
    char fa[CL_PATH_MAX], fb[CL_PATH_MAX];
    snprintf(fa, sizeof fa, "%s/a", dir);
    snprintf(fb, sizeof fb, "%s/b", dir);
    int rc = -1;
    if (cl_write_file_atomic(fa, ta, la, err) == 0 && cl_write_file_atomic(fb, tb, lb, err) == 0) {
        char *argv[] = {"diff", "-u", "--label", (char *)label_a, "--label", (char *)label_b, fa, fb, NULL};
        int r = cl_proc_capture(argv, 30, 1 << 20, out, err);
        rc = r < 0 ? -1 : 0; /* diff exits 1 when the files differ */
        if (r < 0)
            cl_err_wrap(err, "diff (diffutils)");
    }
    cl_err ignore;
    cl_rmtree(dir, &ignore);
    return rc;
}

int cl_history_compare(sqlite3 *db, const cl_history_row *a, const cl_history_row *b, json_t **out, cl_err *err)
{
    json_t *o = json_object();
    json_object_set_new(o, "a", cl_history_row_json(a));
    json_object_set_new(o, "b", cl_history_row_json(b));
    json_t *cases = json_array();
    /* a's cases in order, then those only b has */
    for (int pass = 0; pass < 2; pass++) {
        json_t *from = pass ? b->report : a->report, *other = pass ? a->report : b->report;
        size_t i;
        json_t *c;
        json_array_foreach(json_object_get(from, "cases"), i, c) {
            const char *name = json_string_value(json_object_get(c, "name"));
            const char *kind = json_string_value(json_object_get(c, "kind"));
            if (!name || !kind)
                continue;
            json_t *match = find_case(other, name, kind);
            if (pass && match)
                continue;
            json_t *ca = pass ? NULL : c, *cb = pass ? c : match;
            double ratio;
            json_t *e = json_pack("{s:s, s:s, s:s}", "name", name, "kind", kind, "change", case_change(ca, cb, &ratio));
            json_object_set_new(e, "a", ca ? case_side(ca) : json_null());
            json_object_set_new(e, "b", cb ? case_side(cb) : json_null());
            if (ratio > 0)
                json_object_set_new(e, "ratio", json_real(ratio));
            json_array_append_new(cases, e);
        }
    }
    json_object_set_new(o, "cases", cases);
    int changed = strcmp(a->sha256, b->sha256) != 0;
    json_object_set_new(o, "source_changed", json_boolean(changed));
    json_t *diff = json_null();
    if (changed && a->sha256[0] && b->sha256[0]) {
        char *ta, *tb;
        size_t la, lb;
        int ra = cl_history_source(db, a->sha256, &ta, &la, err);
        int rb = ra < 0 ? -1 : cl_history_source(db, b->sha256, &tb, &lb, err);
        if (ra < 0 || rb < 0) {
            if (ra == 0) free(ta);
            json_decref(o);
            return -1;
        }
        if (ra == 0 && rb == 0) {
            char la_[96], lb_[96], *d;
            snprintf(la_, sizeof la_, "attempt %lld (%.12s)", a->id, a->sha256);
            snprintf(lb_, sizeof lb_, "attempt %lld (%.12s)", b->id, b->sha256);
            if (source_diff(ta, la, tb, lb, la_, lb_, &d, err) == 0) {
                json_decref(diff);
                diff = json_string(d ? d : "");
            }
            free(d);
        }
        free(ta);
        free(tb);
    }
    json_object_set_new(o, "diff", diff);
    *out = o;
    return 0;
}

/* ---- a lab's best ---- */

/* slow 1, pass 2, good 3, excellent 4; 0 for no tier */
static int tier_rank(const char *t)
{
    cl_verdict v = cl_verdict_from_name(t);
    return v >= CL_V_SLOW && cl_verdict_is(t, v) ? (int)(v - CL_V_SLOW) + 1 : 0;
}

int cl_history_summary(sqlite3 *db, const char *lab, cl_lab_summary *s, cl_err *err)
{
    memset(s, 0, sizeof *s);
    cl_history_row *rows;
    int n;
    if (cl_history_list(db, lab, 0, &rows, &n, err))
        return -1;
    for (int i = 0; i < n; i++) {
        const cl_history_row *r = &rows[i];
        if (!strcmp(r->mode, "test")) s->tests++;
        else if (!strcmp(r->mode, "bench")) s->benches++;
        else if (!strcmp(r->mode, "submit")) s->submits++;
        if (i == 0) {
            snprintf(s->last_verdict, sizeof s->last_verdict, "%s", r->verdict);
            s->last_at = r->at;
        }
        if (tier_rank(r->tier) > tier_rank(s->best_tier))
            snprintf(s->best_tier, sizeof s->best_tier, "%s", r->tier);
        if (!strcmp(r->mode, "submit") && (s->max_score == 0 || r->score > s->best_score)) {
            s->best_score = r->score;
            s->max_score = r->max_score;
        }
    }
    free(rows);
    return 0;
}
