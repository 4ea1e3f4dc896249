/* cmd_log.c: cudalab log [LAB] [--limit N] [--json]: every test, bench and submit kept in
 * the progress database, newest first (inside a workspace: that lab's). */
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
    fprintf(f, "usage: cudalab log [LAB] [--limit N] [--json]\n"
               "  Every test, bench and submit, newest first: verdict, cases passed, tier, score,\n"
               "  seed and the hash of the source graded. LAB defaults to the workspace you are in;\n"
               "  outside one, every lab. 'cudalab compare A B' compares two attempts.\n");
}

int cmd_log(int argc, char **argv)
{
    static const struct option opts[] = {{"json", no_argument, 0, 'j'}, {"limit", required_argument, 0, 'n'},
                                         {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int json = 0, limit = 0, ch;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "hn:", opts, NULL)) != -1) {
        if (ch == 'j') json = 1;
        else if (ch == 'n') {
            char *end;
            limit = (int)strtol(optarg, &end, 10);
            if (*end || limit <= 0) {
                cl_cli_error("log", CL_T("--limit wants a number > 0, not '%s'"), optarg);
                return 2;
            }
        } else {
            usage(ch == 'h' ? stdout : stderr);
            return ch == 'h' ? 0 : 2;
        }
    }
    if (argc - optind > 1) {
        usage(stderr);
        return 2;
    }
    const char *lab = optind < argc ? argv[optind] : NULL;
    cl_workspace ws;
    cl_err err;
    if (!lab && cl_workspace_find(".", &ws, &err) == 0)
        lab = ws.lab;
    sqlite3 *db;
    if (cl_cli_open_history("log", &db))
        return 2;
    cl_history_row *rows;
    int n;
    if (cl_history_list(db, lab, limit, &rows, &n, &err)) {
        cl_cli_error("log", CL_T("%s"), err.msg);
        cl_db_close(db);
        return 2;
    }
    if (json) {
        json_t *arr = json_array();
        for (int i = 0; i < n; i++)
            json_array_append_new(arr, cl_history_row_json(&rows[i]));
        char *s = json_dumps(arr, JSON_INDENT(2) | JSON_SORT_KEYS);
        puts(s);
        free(s);
        json_decref(arr);
    } else if (n == 0) {
        if (lab)
            printf(CL_T("no attempts at %s yet: 'cudalab test' in a workspace records one.\n"), lab);
        else
            printf("%s\n", CL_T("no attempts yet: 'cudalab test' in a workspace records one."));
    } else {
        FILE *f = stdout;
        const char *D = cl_c(f, CL_DIM), *Z = cl_c0(f);
        printf("%s%5s  %-16s  %-6s  %-16s  %-13s  %5s  %-9s  %9s  %-16s  %s%s\n", D, "id", "when", "mode", "lab",
               "verdict", "cases", "tier", "score", "seed", "source", Z);
        for (int i = 0; i < n; i++) {
            const cl_history_row *r = &rows[i];
            char when[32], cases[16], score[24];
            cl_cli_when(r->at, when, sizeof when);
            snprintf(cases, sizeof cases, "%d/%d", r->passed, r->total);
            snprintf(score, sizeof score, "%.0f/%.0f", r->score, r->max_score);
            cl_verdict v = cl_verdict_from_name(r->verdict);
            int ok = cl_verdict_ok(v) && v != CL_V_SLOW;
            printf("%5lld  %-16s  %-6s  %-16.16s  %s%-13s%s  %5s  %-9s  %9s  %-16llu  %.12s\n", r->id, when, r->mode,
                   r->lab, cl_c(f, ok ? CL_GREEN : CL_RED), r->verdict, Z, cases, r->tier[0] ? r->tier : "-",
                   score, (unsigned long long)r->seed, r->sha256[0] ? r->sha256 : "-");
        }
    }
    free(rows);
    cl_db_close(db);
    return 0;
}
