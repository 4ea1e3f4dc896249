/* ladder_hint.c: where a student stands on the lab's ladder (see ladder_steps.h).
 *
 * The student's best measured fraction of the ceiling (the slowest bench case of each
 * recorded attempt, best attempt) is compared with the fractions `cudalab ladder` measured
 * on this machine (cached per lab); the hint names the first step faster than the student. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "db.h"
#include "grader/progress.h"
#include "ladder_steps.h"
#include "paths.h"
#include "term.h"

int cl_ladder_cache_path(const char *lab, char *out, size_t n)
{
    char dir[4096];
    cl_err err;
    if (cl_cache_dir(dir, sizeof dir, &err))
        return -1;
    snprintf(out, n, "%s/ladder/%s.json", dir, lab);
    return 0;
}

/* The slowest bench case's fraction in one attempt's JSON report; 0 when not timed. */
static double slowest_fraction(const char *report)
{
    json_t *j = json_loads(report, 0, NULL), *c;
    size_t i;
    double worst = 0;
    json_array_foreach(json_object_get(j, "cases"), i, c) {
        const char *kind = json_string_value(json_object_get(c, "kind"));
        double f = json_number_value(json_object_get(json_object_get(c, "bench"), "fraction"));
        if (kind && !strcmp(kind, "bench") && f > 0 && (worst == 0 || f < worst))
            worst = f;
    }
    json_decref(j);
    return worst;
}

/* The best of the student's attempts at lab; 0 when none was timed. */
static double student_best(const char *lab)
{
    sqlite3 *db;
    cl_err err;
    if (cl_db_open(NULL, &db, &err))
        return 0;
    double best = 0;
    sqlite3_stmt *st;
    if (cl_progress_init(db, &err) == 0 &&
        sqlite3_prepare_v2(db, "SELECT report FROM lab_attempts WHERE lab = ?", -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, lab, -1, SQLITE_STATIC);
        while (sqlite3_step(st) == SQLITE_ROW) {
            const char *report = (const char *)sqlite3_column_text(st, 0);
            double f = report ? slowest_fraction(report) : 0;
            if (f > best)
                best = f;
        }
        sqlite3_finalize(st);
    }
    cl_db_close(db);
    return best;
}

void cl_ladder_hint(const char *home, const char *lab, int zh, FILE *f)
{
    cl_ladder l;
    cl_err err;
    if (cl_ladder_load(home, lab, &l, &err) || l.n == 0)
        return;
    const char *C = cl_c(f, CL_CYAN), *Z = cl_c0(f);
    double mine = student_best(lab);
    char path[4096];
    json_t *cache = cl_ladder_cache_path(lab, path, sizeof path) == 0 ? json_load_file(path, 0, NULL) : NULL;
    json_t *steps = json_object_get(cache, "steps");
    if (mine <= 0) {
        fprintf(f, zh ? "%s阶梯%s  还没有计时的提交（cudalab submit）；阶梯从 labs/%s/ladder/%s.cu 开始\n"
                      : "%sladder%s  no timed submission yet (cudalab submit); the ladder starts at labs/%s/ladder/%s.cu\n",
                C, Z, lab, l.names[0]);
    } else if (json_array_size(steps) != (size_t)l.n) {
        fprintf(f, zh ? "%s阶梯%s  你的最好成绩是上限的 %.0f%%；运行 cudalab ladder %s，在本机测出 %d 级阶梯，提示就能指出下一级\n"
                      : "%sladder%s  your best run reaches %.0f%% of the ceiling; run cudalab ladder %s to time its %d steps "
                        "here, and the hint will name the next one\n",
                C, Z, mine * 100, lab, l.n);
    } else {
        int matched = -1; /* the last step no faster than the student */
        for (int i = 0; i < l.n; i++) {
            double frac = json_number_value(json_object_get(json_array_get(steps, i), "fraction"));
            if (frac > 0 && frac <= mine)
                matched = i;
        }
        int next = matched + 1;
        if (next >= l.n)
            fprintf(f, zh ? "%s阶梯%s  你的 %.0f%% 已达到最后一级 %s；下一步对照 reference/%s.cu\n"
                          : "%sladder%s  your %.0f%% matches the last step, %s; compare with reference/%s.cu next\n",
                    C, Z, mine * 100, l.names[l.n - 1], lab);
        else if (matched < 0)
            fprintf(f, zh ? "%s阶梯%s  你的 %.0f%% 低于第一级；读 labs/%s/ladder/%s.cu\n"
                          : "%sladder%s  your %.0f%% is below the first step; read labs/%s/ladder/%s.cu\n",
                    C, Z, mine * 100, lab, l.names[0]);
        else
            fprintf(f, zh ? "%s阶梯%s  你的 %.0f%% 相当于 %s；下一级：labs/%s/ladder/%s.cu\n"
                          : "%sladder%s  your %.0f%% matches %s; next: labs/%s/ladder/%s.cu\n",
                    C, Z, mine * 100, l.names[matched], lab, l.names[next]);
    }
    json_decref(cache);
    cl_ladder_free(&l);
}
