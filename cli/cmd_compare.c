/* cmd_compare.c: cudalab compare [A B] [--json]: two attempts from the history, case by
 * case (fixed, broke, faster, slower), and the diff of their sources. Without A and B:
 * the last two attempts of the workspace's lab. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grader/result.h"
#include "cli_history.h"
#include "cli_util.h"
#include "commands.h"
#include "db.h"
#include "grader/history.h"
#include "grader/workspace.h"
#include "term.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: cudalab compare [A B] [--json]\n"
               "  A and B are attempt numbers from 'cudalab log'. Shows per case what was fixed or\n"
               "  broken and which bench cases got faster or slower (medians within %.0f%% count as\n"
               "  the same), then the diff from A's source to B's. Without A and B: the last two\n"
               "  attempts of the lab of the workspace you are in.\n",
               CL_COMPARE_SAME * 100);
}

static int parse_id(const char *s, long long *id)
{
    char *end;
    *id = strtoll(s, &end, 10);
    if (*end || *id <= 0) {
        cl_cli_error("compare", CL_T("'%s' is not an attempt number (see 'cudalab log')"), s);
        return -1;
    }
    return 0;
}

static void side_text(json_t *side, char *out, size_t n)
{
    if (json_is_null(side) || !side) {
        snprintf(out, n, "-");
        return;
    }
    const char *status = json_string_value(json_object_get(side, "status"));
    json_t *med = json_object_get(side, "median_ms");
    if (json_is_number(med) && cl_case_passed(status))
        snprintf(out, n, "%.4g ms", json_number_value(med));
    else
        snprintf(out, n, "%s", status ? status : "?");
}

static void print_row_head(const char *tag, json_t *row)
{
    char when[32];
    cl_cli_when((long long)json_integer_value(json_object_get(row, "at")), when, sizeof when);
    json_t *sha = json_object_get(row, "source_sha256");
    printf("%s attempt %lld  %s %s  %s  %lld/%lld cases  source %.12s\n", tag,
           (long long)json_integer_value(json_object_get(row, "id")), json_string_value(json_object_get(row, "mode")),
           json_string_value(json_object_get(row, "verdict")), when,
           (long long)json_integer_value(json_object_get(row, "passed")),
           (long long)json_integer_value(json_object_get(row, "total")),
           json_is_string(sha) ? json_string_value(sha) : "(not kept)");
}

static void print_text(json_t *cmp)
{
    FILE *f = stdout;
    const char *D = cl_c(f, CL_DIM), *Z = cl_c0(f);
    print_row_head("a", json_object_get(cmp, "a"));
    print_row_head("b", json_object_get(cmp, "b"));
    printf("\n%s%-24s %-6s %-14s %-14s %s%s\n", D, "case", "kind", "a", "b", "change", Z);
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(cmp, "cases"), i, c) {
        char a[32], b[32], change[48];
        side_text(json_object_get(c, "a"), a, sizeof a);
        side_text(json_object_get(c, "b"), b, sizeof b);
        const char *ch = json_string_value(json_object_get(c, "change"));
        json_t *ratio = json_object_get(c, "ratio");
        if (json_is_number(ratio) && (!strcmp(ch, "faster") || !strcmp(ch, "slower")))
            snprintf(change, sizeof change, "%s (x%.2f)", ch,
                     !strcmp(ch, "faster") ? 1 / json_number_value(ratio) : json_number_value(ratio));
        else
            snprintf(change, sizeof change, "%s", ch);
        cl_color col = !strcmp(ch, "faster") || !strcmp(ch, "fixed")         ? CL_GREEN
                       : !strcmp(ch, "slower") || !strcmp(ch, "broke")       ? CL_RED
                       : !strcmp(ch, "still failing")                        ? CL_YELLOW
                                                                              : CL_NONE;
        printf("%-24.24s %-6s %-14s %-14s %s%s%s\n", json_string_value(json_object_get(c, "name")),
               json_string_value(json_object_get(c, "kind")), a, b, cl_c(f, col), change, Z);
    }
    printf("\n");
    if (!json_is_true(json_object_get(cmp, "source_changed")))
        printf("source: the same in both\n");
    else if (json_is_string(json_object_get(cmp, "diff")))
        fputs(json_string_value(json_object_get(cmp, "diff")), stdout);
    else
        printf("source: changed (one of them was recorded before sources were kept)\n");
}

int cmd_compare(int argc, char **argv)
{
    static const struct option opts[] = {{"json", no_argument, 0, 'j'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int json = 0, ch;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (ch == 'j') json = 1;
        else {
            usage(ch == 'h' ? stdout : stderr);
            return ch == 'h' ? 0 : 2;
        }
    }
    int nargs = argc - optind;
    if (nargs != 0 && nargs != 2) {
        usage(stderr);
        return 2;
    }
    long long ids[2];
    if (nargs == 2 && (parse_id(argv[optind], &ids[0]) || parse_id(argv[optind + 1], &ids[1])))
        return 2;
    sqlite3 *db;
    if (cl_cli_open_history("compare", &db))
        return 2;
    cl_err err;
    if (nargs == 0) {
        cl_workspace ws;
        cl_history_row *rows;
        int n;
        if (cl_workspace_find(".", &ws, &err) != 0) {
            cl_cli_error("compare", "%s", CL_T("which attempts? Give two numbers from 'cudalab log', or run it "
                                               "inside a workspace to compare its last two."));
            cl_db_close(db);
            return 2;
        }
        if (cl_history_list(db, ws.lab, 2, &rows, &n, &err)) {
            cl_cli_error("compare", CL_T("%s"), err.msg);
            cl_db_close(db);
            return 2;
        }
        if (n < 2) {
            cl_cli_error("compare", CL_T("%s has %d attempt%s; two are needed"), ws.lab, n, n == 1 ? "" : "s");
            free(rows);
            cl_db_close(db);
            return 2;
        }
        ids[0] = rows[1].id;
        ids[1] = rows[0].id;
        free(rows);
    }
    cl_history_row row[2];
    for (int k = 0; k < 2; k++) {
        int rc = cl_history_get(db, ids[k], &row[k], &err);
        if (rc) {
            if (rc > 0)
                cl_cli_error("compare", CL_T("there is no attempt %lld (see 'cudalab log')"), ids[k]);
            else
                cl_cli_error("compare", CL_T("%s"), err.msg);
            if (k) cl_history_row_free(&row[0]);
            cl_db_close(db);
            return 2;
        }
    }
    json_t *cmp;
    int rc = cl_history_compare(db, &row[0], &row[1], &cmp, &err);
    if (rc)
        cl_cli_error("compare", CL_T("%s"), err.msg);
    else if (strcmp(row[0].lab, row[1].lab))
        cl_cli_error("compare", CL_T("note: attempt %lld is %s, attempt %lld is %s"), row[0].id, row[0].lab,
                row[1].id, row[1].lab);
    if (rc == 0 && json) {
        char *s = json_dumps(cmp, JSON_INDENT(2) | JSON_SORT_KEYS);
        puts(s);
        free(s);
    } else if (rc == 0) {
        print_text(cmp);
    }
    if (rc == 0)
        json_decref(cmp);
    cl_history_row_free(&row[0]);
    cl_history_row_free(&row[1]);
    cl_db_close(db);
    return rc ? 2 : 0;
}
