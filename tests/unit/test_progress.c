/* test_progress.c: attempts recorded in SQLite, the best one found again. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "grader/progress.h"
#include "testutil.h"

START_TEST(record_and_best)
{
    char *dir = tu_tempdir("progress");
    char path[4096];
    snprintf(path, sizeof path, "%s/progress.db", dir);
    sqlite3 *db;
    cl_err err;
    ck_assert_msg(cl_db_open(path, &db, &err) == 0, "%s", err.msg);
    cl_lab_best best;
    ck_assert_int_eq(cl_progress_best(db, "reduce", &best, &err), 1);
    cl_result r;
    cl_result_init(&r);
    snprintf(r.lab, sizeof r.lab, "reduce");
    r.max_score = 100;
    r.score = 45;
    r.verdict = CL_V_WRONG;
    ck_assert_int_eq(cl_progress_record(db, &r, "submit", &err), 0);
    r.score = 90;
    r.verdict = CL_V_GOOD;
    ck_assert_int_eq(cl_progress_record(db, &r, "submit", &err), 0);
    r.score = 70;
    r.verdict = CL_V_SLOW;
    ck_assert_int_eq(cl_progress_record(db, &r, "submit", &err), 0);
    ck_assert_int_eq(cl_progress_best(db, "reduce", &best, &err), 0);
    ck_assert_int_eq(best.attempts, 3);
    ck_assert_double_eq(best.score, 90);
    ck_assert_str_eq(best.verdict, "good");
    cl_result_free(&r);
    cl_db_close(db);
    /* reopening keeps everything */
    ck_assert_int_eq(cl_db_open(path, &db, &err), 0);
    ck_assert_int_eq(cl_progress_best(db, "reduce", &best, &err), 0);
    ck_assert_int_eq(best.attempts, 3);
    cl_db_close(db);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("progress");
    TCase *tc = tcase_create("progress");
    tcase_add_test(tc, record_and_best);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
