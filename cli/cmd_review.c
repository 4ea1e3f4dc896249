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

static void print_when(FILE *o, cl_lang lang, int64_t now, int64_t due)
{
    double h = (double)(due - now) / 3600.0;
    if (due <= now)
        fprintf(o, "%s", cl_tr_lang(lang, "now"));
    else if (h < 1)
        fprintf(o, cl_tr_lang(lang, "in %.0f minutes"), h * 60);
    else if (h < 48)
        fprintf(o, cl_tr_lang(lang, "in %.0f hours"), h);
    else
        fprintf(o, cl_tr_lang(lang, "in %.0f days"), h / 24);
}

int cmd_review(int argc, char **argv)
{
    static const struct option opts[] = {
        {"n", required_argument, NULL, 'n'},       {"all", no_argument, NULL, 'A'},
        {"status", no_argument, NULL, 'S'},        {"lang", required_argument, NULL, 'l'},
        {"seed", required_argument, NULL, 's'},    {"answers", required_argument, NULL, 'a'},
        {"rate", no_argument, NULL, 'r'},          {"no-rate", no_argument, NULL, 'R'},
        {"bank", required_argument, NULL, 'b'},    {"help", no_argument, NULL, 'h'},
        {"json", no_argument, NULL, 'j'},          {NULL, 0, NULL, 0},
    };
    cl_review_opts ro = {20, 0, 0, 0};
    const char *lang_flag = NULL, *seed_flag = NULL, *answers = NULL, *bank_flag = NULL;
    int rate = -1, status_only = 0, json = 0, c;
    cl_err err;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'n':
            if (cl_qf_int(optarg, "--n", 1, 10000, &ro.n, &err))
                return cl_cli_error("review", "%s", err.msg), 2;
            break;
        case 'A': ro.all = 1; break;
        case 'S': status_only = 1; break;
        case 'l': lang_flag = optarg; break;
        case 's': seed_flag = optarg; break;
        case 'a': answers = optarg; break;
        case 'r': rate = 1; break;
        case 'R': rate = 0; break;
        case 'b': bank_flag = optarg; break;
        case 'j': json = 1; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    (void)lang_flag; /* --lang is global: main has set it */
    if (optind < argc)
        return cl_cli_error("review", CL_T("unexpected argument '%s'"), argv[optind]), usage(stderr), 2;
    cl_lang lang = cl_lang_current();
    if (cl_qf_seed(seed_flag, &ro.seed, &err))
        return cl_cli_error("review", "%s", err.msg), 2;
    ro.now = cl_qf_now();

    sqlite3 *db;
    if (cl_qf_open_db(&db, &err))
        return cl_cli_error("review", "%s", err.msg), 2;
    FILE *o = stdout;
    if (status_only) {
        int total, due;
        int64_t next;
        if (cl_cards_summary(db, ro.now, &total, &due, &next, &err)) {
            cl_db_close(db);
            return cl_cli_error("review", "%s", err.msg), 2;
        }
        if (json) {
            cl_cli_json_print(json_pack("{s:s, s:i, s:i, s:I}", "mode", "status", "deck", total, "due", due,
                                        "next_due", (json_int_t)(total && !due ? next : 0)));
            cl_db_close(db);
            return 0;
        }
        fprintf(o, cl_tr_lang(lang, "Review deck: %d card%s, %d due now"), total,
                CL_TR(lang, total == 1 ? "" : "s", ""), due);
        if (total && !due) {
            fprintf(o, cl_tr_lang(lang, "; next "));
            print_when(o, lang, ro.now, next);
        }
        fputc('\n', o);
        cl_db_close(db);
        return 0;
    }
    char dir[4096];
    cl_qf_bank_dir(bank_flag, dir, sizeof dir);
    cl_bank bank;
    if (cl_qf_load_bank(dir, 0, stderr, &bank, &err)) {
        cl_db_close(db);
        return cl_cli_error("review", "%s", err.msg), 2;
    }
    FILE *in;
    if (cl_qf_open_input(answers, &in, &err)) {
        cl_db_close(db);
        cl_bank_free(&bank);
        return cl_cli_error("review", "%s", err.msg), 2;
    }
    cl_io io;
    cl_io_init(&io, in, json ? stderr : stdout, lang, rate); /* --json: stdout is the summary's */
    cl_session_result r;
    cl_review_info info;
    int rc = cl_review_run(&bank, db, &ro, &io, &r, &info, &err);
    if (rc) {
        cl_cli_error("review", "%s", err.msg);
    } else if (json) {
        json_t *o = cl_cli_session_json("review", ro.seed, &r);
        json_object_set_new(o, "deck", json_integer(info.deck));
        json_object_set_new(o, "due", json_integer(info.due));
        json_object_set_new(o, "missing", json_integer(info.missing));
        json_object_set_new(o, "next_due", json_integer(info.next_due));
        cl_cli_json_print(o);
    } else if (r.asked == 0 && info.missing == 0) {
        if (info.deck == 0)
            fprintf(o, "%s\n", cl_tr_lang(lang, "Your review deck is empty: questions you miss in `cudalab quiz` or `cudalab interview` land here."));
        else {
            fprintf(o, cl_tr_lang(lang, "Nothing due: %d card%s in the deck, the next one "),
                    info.deck, CL_TR(lang, info.deck == 1 ? "" : "s", ""));
            print_when(o, lang, ro.now, info.next_due);
            fprintf(o, cl_tr_lang(lang, " (or cudalab review --all).\n"));
        }
    } else {
        fprintf(o, "\n%s%s%s %.1f/%d (%.0f%%) · %d %s · %d %s",
                cl_c(o, CL_BOLD), cl_tr_lang(lang, "Reviewed:"), cl_c0(o), r.points, r.asked,
                r.asked ? 100.0 * r.points / r.asked : 0.0, r.right, cl_tr_lang(lang, "right"),
                r.partial + r.wrong, cl_tr_lang(lang, "to see again soon"));
        if (info.missing)
            fprintf(o, cl_tr_lang(lang, " · %d no longer in the bank"), info.missing);
        if (info.next_due) {
            fprintf(o, cl_tr_lang(lang, " · next review "));
            print_when(o, lang, ro.now, info.next_due);
        }
        fputc('\n', o);
    }
    cl_qf_close_input(in);
    cl_db_close(db);
    cl_bank_free(&bank);
    return rc ? 2 : 0;
}
