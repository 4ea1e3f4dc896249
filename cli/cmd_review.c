/* cmd_review.c: `cudalab review`: spaced repetition over the review deck. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli_help.h"
#include "cli_util.h"
#include "cli_session.h"
#include "commands.h"
#include "db.h"
#include "questions/frontend.h"
#include "questions/progress.h"
#include "questions/review.h"
#include "term.h"

static void usage(FILE *f)
{
    cl_help_print_command(f, cl_command_find("review"));
}

/* The English plural ending; Chinese has none. */
static const char *plural(long n)
{
    return cl_lang_current() == CL_LANG_ZH || n == 1 ? "" : "s";
}

/* When a card is due, as a phrase that reads naturally in the sentence ("in 3 hours",
 * "3 小时后"): minutes under an hour, hours under two days, then days. */
static void when_text(int64_t now, int64_t due, char *buf, size_t n)
{
    int64_t s = due - now;
    long minutes = (long)((s + 59) / 60), hours = (long)((s + 1800) / 3600), days = (long)((s + 43200) / 86400);
    if (s <= 0)
        snprintf(buf, n, "%s", CL_T("now"));
    else if (minutes < 60)
        snprintf(buf, n, CL_T("in %ld minute%s"), minutes, plural(minutes));
    else if (hours < 48)
        snprintf(buf, n, CL_T("in %ld hour%s"), hours, plural(hours));
    else
        snprintf(buf, n, CL_T("in %ld days"), days);
}

typedef struct review_flags {
    cl_review_opts ro;
    const char *answers, *bank;
    int rate, status_only, json;
} review_flags;

/* Reads the command line into f. Returns -1 to go on, else the exit code. */
static int parse_flags(int argc, char **argv, review_flags *f)
{
    static const struct option opts[] = {
        {"n", required_argument, NULL, 'n'},       {"all", no_argument, NULL, 'A'},
        {"status", no_argument, NULL, 'S'},        {"lang", required_argument, NULL, 'l'},
        {"seed", required_argument, NULL, 's'},    {"answers", required_argument, NULL, 'a'},
        {"rate", no_argument, NULL, 'r'},          {"no-rate", no_argument, NULL, 'R'},
        {"bank", required_argument, NULL, 'b'},    {"help", no_argument, NULL, 'h'},
        {"json", no_argument, NULL, 'j'},          {NULL, 0, NULL, 0},
    };
    const char *seed_flag = NULL;
    int c;
    cl_err err;
    memset(f, 0, sizeof *f);
    f->ro.n = 20;
    f->rate = -1;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'n':
            if (cl_qf_int(optarg, "--n", 1, 10000, &f->ro.n, &err))
                return cl_cli_error("review", "%s", err.msg), 2;
            break;
        case 'A': f->ro.all = 1; break;
        case 'S': f->status_only = 1; break;
        case 'l': break; /* --lang is global: main has set it */
        case 's': seed_flag = optarg; break;
        case 'a': f->answers = optarg; break;
        case 'r': f->rate = 1; break;
        case 'R': f->rate = 0; break;
        case 'b': f->bank = optarg; break;
        case 'j': f->json = 1; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind < argc)
        return cl_cli_error("review", CL_T("unexpected argument '%s'"), argv[optind]), usage(stderr), 2;
    if (cl_qf_seed(seed_flag, &f->ro.seed, &err))
        return cl_cli_error("review", "%s", err.msg), 2;
    f->ro.now = cl_qf_now();
    return -1;
}

/* review --status: the deck's size and what is due; reads the database, writes nothing. */
static int show_status(sqlite3 *db, const review_flags *f)
{
    int total, due;
    int64_t next;
    cl_err err;
    if (cl_cards_summary(db, f->ro.now, &total, &due, &next, &err))
        return cl_cli_error("review", "%s", err.msg), 2;
    if (f->json) {
        cl_cli_json_print(json_pack("{s:s, s:i, s:i, s:I}", "mode", "status", "deck", total, "due", due,
                                    "next_due", (json_int_t)(total && !due ? next : 0)));
        return 0;
    }
    printf(CL_T("Review deck: %d card%s, %d due now"), total, plural(total), due);
    if (total && !due) {
        char when[64];
        when_text(f->ro.now, next, when, sizeof when);
        printf(CL_T("; the next one is due %s"), when);
    }
    putchar('\n');
    return 0;
}

/* The text summary after a review session (or why nothing was asked). */
static void print_summary(const review_flags *f, const cl_session_result *r, const cl_review_info *info)
{
    FILE *o = stdout;
    char when[64];
    when_text(f->ro.now, info->next_due, when, sizeof when);
    if (r->asked == 0 && info->missing == 0) {
        if (info->deck == 0)
            fprintf(o, "%s\n", CL_T("Your review deck is empty: questions you miss in `cudalab quiz` or `cudalab interview` land here."));
        else
            fprintf(o, CL_T("Nothing due: %d card%s in the deck, the next one is due %s (or cudalab review --all).\n"),
                    info->deck, plural(info->deck), when);
        return;
    }
    fprintf(o, "\n%s%s%s %.1f/%d (%.0f%%) · %d %s · %d %s", cl_c(o, CL_BOLD), CL_T("Reviewed:"), cl_c0(o), r->points,
            r->asked, r->asked ? 100.0 * r->points / r->asked : 0.0, r->right, CL_T("right"), r->partial + r->wrong,
            CL_T("to see again soon"));
    if (info->missing)
        fprintf(o, CL_T(" · %d no longer in the bank"), info->missing);
    if (info->next_due)
        fprintf(o, CL_T(" · next review %s"), when);
    fputc('\n', o);
}

/* Asks the due cards (stdin or --answers) and reports. */
static int run_session(sqlite3 *db, review_flags *f)
{
    char dir[4096];
    cl_err err;
    cl_qf_bank_dir(f->bank, dir, sizeof dir);
    cl_bank bank;
    if (cl_qf_load_bank(dir, 0, stderr, &bank, &err))
        return cl_cli_error("review", "%s", err.msg), 2;
    FILE *in;
    if (cl_qf_open_input(f->answers, &in, &err)) {
        cl_bank_free(&bank);
        return cl_cli_error("review", "%s", err.msg), 2;
    }
    cl_io io;
    cl_io_init(&io, in, f->json ? stderr : stdout, cl_lang_current(), f->rate); /* --json: stdout is the summary's */
    cl_session_result r;
    cl_review_info info;
    int rc = cl_review_run(&bank, db, &f->ro, &io, &r, &info, &err);
    if (rc) {
        cl_cli_error("review", "%s", err.msg);
    } else if (f->json) {
        json_t *o = cl_cli_session_json("review", f->ro.seed, &r);
        json_object_set_new(o, "deck", json_integer(info.deck));
        json_object_set_new(o, "due", json_integer(info.due));
        json_object_set_new(o, "missing", json_integer(info.missing));
        json_object_set_new(o, "next_due", json_integer(info.next_due));
        cl_cli_json_print(o);
    } else {
        print_summary(f, &r, &info);
    }
    cl_qf_close_input(in);
    cl_bank_free(&bank);
    return rc ? 2 : 0;
}

int cmd_review(int argc, char **argv)
{
    review_flags f;
    int rc = parse_flags(argc, argv, &f);
    if (rc >= 0)
        return rc;
    sqlite3 *db;
    cl_err err;
    if (cl_qf_open_db(&db, &err))
        return cl_cli_error("review", "%s", err.msg), 2;
    rc = f.status_only ? show_status(db, &f) : run_session(db, &f);
    cl_db_close(db);
    return rc;
}
