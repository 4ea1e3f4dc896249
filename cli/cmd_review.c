/* cmd_review.c: `cudalab review`: spaced repetition over the review deck. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli_help.h"
#include "cli_util.h"
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
        fprintf(o, "%s", CL_TR(lang, "now", "现在"));
    else if (h < 1)
        fprintf(o, CL_TR(lang, "in %.0f minutes", "%.0f 分钟后"), h * 60);
    else if (h < 48)
        fprintf(o, CL_TR(lang, "in %.0f hours", "%.0f 小时后"), h);
    else
        fprintf(o, CL_TR(lang, "in %.0f days", "%.0f 天后"), h / 24);
}

int cmd_review(int argc, char **argv)
{
    static const struct option opts[] = {
        {"n", required_argument, NULL, 'n'},       {"all", no_argument, NULL, 'A'},
        {"status", no_argument, NULL, 'S'},        {"lang", required_argument, NULL, 'l'},
        {"seed", required_argument, NULL, 's'},    {"answers", required_argument, NULL, 'a'},
        {"rate", no_argument, NULL, 'r'},          {"no-rate", no_argument, NULL, 'R'},
        {"bank", required_argument, NULL, 'b'},    {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    cl_review_opts ro = {20, 0, 0, 0};
    const char *lang_flag = NULL, *seed_flag = NULL, *answers = NULL, *bank_flag = NULL;
    int rate = -1, status_only = 0, c;
    cl_err err;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'n':
            if (cl_qf_int(optarg, "--n", 1, 10000, &ro.n, &err))
                return fprintf(stderr, "cudalab review: %s\n", err.msg), 2;
            break;
        case 'A': ro.all = 1; break;
        case 'S': status_only = 1; break;
        case 'l': lang_flag = optarg; break;
        case 's': seed_flag = optarg; break;
        case 'a': answers = optarg; break;
        case 'r': rate = 1; break;
        case 'R': rate = 0; break;
        case 'b': bank_flag = optarg; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind < argc)
        return fprintf(stderr, "cudalab review: unexpected argument '%s'\n", argv[optind]), usage(stderr), 2;
    cl_lang lang;
    if (cl_lang_pick(lang_flag, &lang))
        return fprintf(stderr, "cudalab review: --lang must be en or zh\n"), 2;
    if (cl_qf_seed(seed_flag, &ro.seed, &err))
        return fprintf(stderr, "cudalab review: %s\n", err.msg), 2;
    ro.now = cl_qf_now();

    sqlite3 *db;
    if (cl_qf_open_db(&db, &err))
        return fprintf(stderr, "cudalab review: %s\n", err.msg), 2;
    FILE *o = stdout;
    if (status_only) {
        int total, due;
        int64_t next;
        if (cl_cards_summary(db, ro.now, &total, &due, &next, &err)) {
            cl_db_close(db);
            return fprintf(stderr, "cudalab review: %s\n", err.msg), 2;
        }
        fprintf(o, CL_TR(lang, "Review deck: %d card%s, %d due now", "复习队列：%d 张卡片%s，现在到期 %d 张"), total,
                CL_TR(lang, total == 1 ? "" : "s", ""), due);
        if (total && !due) {
            fprintf(o, CL_TR(lang, "; next ", "；下一张"));
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
        return fprintf(stderr, "cudalab review: %s\n", err.msg), 2;
    }
    FILE *in;
    if (cl_qf_open_input(answers, &in, &err)) {
        cl_db_close(db);
        cl_bank_free(&bank);
        return fprintf(stderr, "cudalab review: %s\n", err.msg), 2;
    }
    cl_io io;
    cl_io_init(&io, in, stdout, lang, rate);
    cl_session_result r;
    cl_review_info info;
    int rc = cl_review_run(&bank, db, &ro, &io, &r, &info, &err);
    if (rc) {
        fprintf(stderr, "cudalab review: %s\n", err.msg);
    } else if (r.asked == 0 && info.missing == 0) {
        if (info.deck == 0)
            fprintf(o, "%s\n", CL_TR(lang, "Your review deck is empty: questions you miss in `cudalab quiz` "
                                           "or `cudalab interview` land here.",
                                     "复习队列为空：在 `cudalab quiz` 或 `cudalab interview` 中答错的题会进入这里。"));
        else {
            fprintf(o, CL_TR(lang, "Nothing due: %d card%s in the deck, the next one ",
                             "没有到期的卡片：队列中共 %d 张%s，下一张"),
                    info.deck, CL_TR(lang, info.deck == 1 ? "" : "s", ""));
            print_when(o, lang, ro.now, info.next_due);
            fprintf(o, CL_TR(lang, " (or cudalab review --all).\n", "（或 cudalab review --all）。\n"));
        }
    } else {
        fprintf(o, "\n%s%s%s %.1f/%d (%.0f%%) · %d %s · %d %s",
                cl_c(o, CL_BOLD), CL_TR(lang, "Reviewed:", "已复习："), cl_c0(o), r.points, r.asked,
                r.asked ? 100.0 * r.points / r.asked : 0.0, r.right, CL_TR(lang, "right", "正确"),
                r.partial + r.wrong, CL_TR(lang, "to see again soon", "将很快再次出现"));
        if (info.missing)
            fprintf(o, CL_TR(lang, " · %d no longer in the bank", " · %d 道已不在题库中"), info.missing);
        if (info.next_due) {
            fprintf(o, CL_TR(lang, " · next review ", " · 下次复习"));
            print_when(o, lang, ro.now, info.next_due);
        }
        fputc('\n', o);
    }
    cl_qf_close_input(in);
    cl_db_close(db);
    cl_bank_free(&bank);
    return rc ? 2 : 0;
}
