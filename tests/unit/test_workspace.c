/* test_workspace.c: fetch, find from inside, never overwrite work, hint counter. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grader/workspace.h"
#include "paths.h"
#include "testutil.h"

static char *dir;
static void setup(void) { dir = tu_tempdir("ws"); }
static void teardown(void) { tu_rmtree(dir); free(dir); }

START_TEST(fetch_creates_the_folder)
{
    cl_workspace ws;
    cl_err err;
    ck_assert_msg(cl_workspace_fetch(TEST_SOURCE_DIR, "reduce", dir, 0, &ws, &err) == 0, "%s", err.msg);
    char p[4096];
    snprintf(p, sizeof p, "%s/reduce/reduce.cu", dir);
    ck_assert(cl_file_exists(p));
    snprintf(p, sizeof p, "%s/reduce/README.md", dir);
    ck_assert(cl_file_exists(p));
    snprintf(p, sizeof p, "%s/reduce/cudalab_lab.h", dir);
    ck_assert(cl_file_exists(p));
    snprintf(p, sizeof p, "%s/reduce/.cudalab/lab.json", dir);
    ck_assert(cl_file_exists(p));
    ck_assert_str_eq(ws.lab, "reduce");
}
END_TEST

START_TEST(never_overwrites_without_force)
{
    cl_workspace ws;
    cl_err err;
    ck_assert_int_eq(cl_workspace_fetch(TEST_SOURCE_DIR, "reduce", dir, 0, &ws, &err), 0);
    tu_write(ws.dir, "reduce.cu", "// my work\n");
    ck_assert_int_eq(cl_workspace_fetch(TEST_SOURCE_DIR, "reduce", dir, 0, &ws, &err), -1);
    ck_assert(tu_contains(err.msg, "your work is kept"));
    char *text;
    size_t n;
    ck_assert_int_eq(cl_read_file(ws.solution, 1 << 20, &text, &n, &err), 0);
    ck_assert_str_eq(text, "// my work\n");
    free(text);
    ck_assert_int_eq(cl_workspace_fetch(TEST_SOURCE_DIR, "reduce", dir, 1, &ws, &err), 0);
}
END_TEST

START_TEST(found_from_a_subfolder)
{
    cl_workspace ws, found;
    cl_err err;
    ck_assert_int_eq(cl_workspace_fetch(TEST_SOURCE_DIR, "reduce", dir, 0, &ws, &err), 0);
    char sub[4096];
    snprintf(sub, sizeof sub, "%s/notes/deeper", ws.dir);
    ck_assert_int_eq(cl_mkdirs(sub, &err), 0);
    ck_assert_int_eq(cl_workspace_find(sub, &found, &err), 0);
    ck_assert_str_eq(found.lab, "reduce");
    ck_assert_str_eq(found.solution, ws.solution);
    ck_assert_int_eq(cl_workspace_find(dir, &found, &err), 1); /* above it: none */
}
END_TEST

START_TEST(hint_counter_persists)
{
    cl_workspace ws, again;
    cl_err err;
    ck_assert_int_eq(cl_workspace_fetch(TEST_SOURCE_DIR, "reduce", dir, 0, &ws, &err), 0);
    ws.hints_shown = 3;
    ck_assert_int_eq(cl_workspace_save(&ws, &err), 0);
    ck_assert_int_eq(cl_workspace_find(ws.dir, &again, &err), 0);
    ck_assert_int_eq(again.hints_shown, 3);
}
END_TEST

START_TEST(bad_names_and_bad_metadata)
{
    cl_workspace ws;
    cl_err err;
    ck_assert_int_eq(cl_workspace_fetch(TEST_SOURCE_DIR, "../etc", dir, 0, &ws, &err), -1);
    ck_assert_int_eq(cl_workspace_fetch(TEST_SOURCE_DIR, "nosuchlab", dir, 0, &ws, &err), -1);
    ck_assert(tu_contains(err.msg, "no lab named"));
    char meta[4096];
    snprintf(meta, sizeof meta, "%s/x/.cudalab", dir);
    ck_assert_int_eq(cl_mkdirs(meta, &err), 0);
    tu_write(meta, "lab.json", "{\"lab\": \"reduce\", \"solution\": \"../../evil.cu\"}");
    snprintf(meta, sizeof meta, "%s/x", dir);
    ck_assert_int_eq(cl_workspace_find(meta, &ws, &err), -1);
    snprintf(meta, sizeof meta, "%s/x/.cudalab", dir);
    tu_write(meta, "lab.json", "{not json");
    snprintf(meta, sizeof meta, "%s/x", dir);
    ck_assert_int_eq(cl_workspace_find(meta, &ws, &err), -1);
    ck_assert(tu_contains(err.msg, "lab.json:1"));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("workspace");
    TCase *tc = tcase_create("workspace");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, fetch_creates_the_folder);
    tcase_add_test(tc, never_overwrites_without_force);
    tcase_add_test(tc, found_from_a_subfolder);
    tcase_add_test(tc, hint_counter_persists);
    tcase_add_test(tc, bad_names_and_bad_metadata);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
