/* cmd_progress.c: cudalab progress [--json]: every lab's best tier and score, how often it
 * was tested, benched and submitted, and the question review queue. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_history.h"
#include "cli_util.h"
#include "commands.h"
#include "db.h"
#include "grader/history.h"
#include "grader/labconf.h"
#include "paths.h"
#include "questions/frontend.h"
#include "questions/progress.h"
#include "term.h"

/* Reads the command line (--json into *json). Returns -1 to go on, else the exit code. */
static int parse_flags(int argc, char **argv, int *json)
{
    static const struct option opts[] = {{"json", no_argument, 0, 'j'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int ch;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (ch == 'j') *json = 1;
        else {
            fprintf(ch == 'h' ? stdout : stderr,
                    "usage: cudalab progress [--json]\n"
                    "  Every lab's best tier (any bench or submit), best submitted score, attempts,\n"
                    "  and the question review queue ('cudalab review').\n");
            return ch == 'h' ? 0 : 2;
        }
    }
    if (optind != argc) {
        fprintf(stderr, "usage: cudalab progress [--json]\n");
        return 2;
    }
    return -1;
}

/* The column titles, padded by display width so that Chinese ones line up. */
static void print_head(FILE *f)
{
    const char *const head[] = {CL_T("lab"),   CL_T("best tier"), CL_T("score"), CL_T("tests"),
                                CL_T("bench"), CL_T("submit"),    CL_T("last")};
    static const int width[] = {16, 10, 9, 5, 5, 6, 0};
    fputs(cl_c(f, CL_DIM), f);
    for (int k = 0; k < 7; k++) {
        cl_fput_padded(head[k], width[k] ? width[k] : cl_text_width(head[k]), f);
        fputs(k == 5 ? "  " : k < 6 ? " " : "", f);
    }
    printf("%s\n", cl_c0(f));
}

static json_t *lab_json(const char *name, const cl_lab_summary *s)
{
    json_t *o = json_pack("{s:s, s:i, s:i, s:i}", "lab", name, "tests", s->tests, "benches", s->benches,
                          "submits", s->submits);
    json_object_set_new(o, "best_tier", s->best_tier[0] ? json_string(s->best_tier) : json_null());
    json_object_set_new(o, "best_score", s->max_score > 0 ? json_real(s->best_score) : json_null());
    json_object_set_new(o, "max_score", s->max_score > 0 ? json_real(s->max_score) : json_null());
    json_object_set_new(o, "last_verdict", s->last_at ? json_string(s->last_verdict) : json_null());
    json_object_set_new(o, "last_at", s->last_at ? json_integer(s->last_at) : json_null());
    return o;
}

static void print_lab_row(FILE *f, const char *name, const cl_lab_summary *s)
{
    char score[24] = "-", last[64] = "-";
    if (s->max_score > 0)
        snprintf(score, sizeof score, "%.0f/%.0f", s->best_score, s->max_score);
    if (s->last_at) {
        char when[32];
        cl_cli_when(s->last_at, when, sizeof when);
        snprintf(last, sizeof last, "%s %s", cl_tr(s->last_verdict), when);
    }
    cl_color col = !strcmp(s->best_tier, "excellent") || !strcmp(s->best_tier, "good") ? CL_GREEN
                   : s->best_tier[0]                                                  ? CL_YELLOW
                                                                                      : CL_NONE;
    printf("%-16s %s", name, cl_c(f, col));
    cl_fput_padded(s->best_tier[0] ? cl_tr(s->best_tier) : "-", 10, f);
    printf("%s %-9s %5d %5d %6d  %s\n", cl_c0(f), score, s->tests, s->benches, s->submits, last);
}

/* One row (or, with json, one object appended to labs) per lab; *started counts the labs
 * with any attempt. 0, or 2 once the error is printed. */
static int report_labs(sqlite3 *db, char **names, int n, int json, json_t *labs, int *started)
{
    FILE *f = stdout;
    if (!json)
        print_head(f);
    cl_err err;
    for (int i = 0; i < n; i++) {
        cl_lab_summary s;
        if (cl_history_summary(db, names[i], &s, &err)) {
            cl_cli_error("progress", CL_T("%s"), err.msg);
            return 2;
        }
        *started += s.last_at != 0;
        if (json)
            json_array_append_new(labs, lab_json(names[i], &s));
        else
            print_lab_row(f, names[i], &s);
    }
    return 0;
}

/* The closing lines: how many labs were started, and the review queue. */
static void print_summary(int started, int n, int total, int due, int64_t next)
{
    const char *cards = cl_lang_current() == CL_LANG_ZH || total == 1 ? "" : "s";
    printf(CL_T("\n%d of %d labs started. "), started, n);
    if (!total)
        printf("%s\n", CL_T("Review queue: empty (questions you miss in 'cudalab quiz' come back here)."));
    else if (due) {
        printf(CL_T("Review queue: %d card%s, %d due now: 'cudalab review'.\n"), total, cards, due);
    } else {
        char when[32];
        cl_cli_when(next, when, sizeof when);
        printf(CL_T("Review queue: %d card%s, none due; the next on %s.\n"), total, cards, when);
    }
}

/* The whole report as one JSON document (takes labs). */
static void print_json(json_t *labs, int total, int due, int64_t next)
{
    json_t *o = json_pack("{s:o, s:{s:i, s:i}}", "labs", labs, "review", "cards", total, "due", due);
    json_object_set_new(json_object_get(o, "review"), "next_due", total ? json_integer(next) : json_null());
    char *txt = json_dumps(o, JSON_INDENT(2) | JSON_SORT_KEYS);
    puts(txt);
    free(txt);
    json_decref(o);
}

int cmd_progress(int argc, char **argv)
{
    int json = 0;
    int prc = parse_flags(argc, argv, &json);
    if (prc >= 0)
        return prc;
    char **names;
    int n;
    cl_err err;
    if (cl_lab_names(cl_home_dir(), &names, &n, &err)) {
        cl_cli_error("progress", CL_T("%s"), err.msg);
        return 2;
    }
    sqlite3 *db;
    if (cl_cli_open_history("progress", &db)) {
        cl_lab_names_free(names, n);
        return 2;
    }
    json_t *labs = json_array();
    int started = 0;
    int rc = report_labs(db, names, n, json, labs, &started);
    /* the question side: the spaced-review deck */
    int total = 0, due = 0;
    int64_t next = 0, now = cl_qf_now();
    if (rc == 0 && (cl_questions_db_init(db, &err) || cl_cards_summary(db, now, &total, &due, &next, &err))) {
        cl_cli_error("progress", CL_T("%s"), err.msg);
        rc = 2;
    }
    if (rc == 0 && json) {
        print_json(labs, total, due, next);
        labs = NULL;
    } else if (rc == 0) {
        print_summary(started, n, total, due, next);
    }
    json_decref(labs);
    cl_db_close(db);
    cl_lab_names_free(names, n);
    return rc;
}
