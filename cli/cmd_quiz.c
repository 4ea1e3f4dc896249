/* cmd_quiz.c: `cudalab quiz`: practice questions with immediate feedback. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli_help.h"
#include "cli_util.h"
#include "cli_session.h"
#include "commands.h"
#include "db.h"
#include "questions/frontend.h"
#include "questions/quiz.h"
#include "term.h"

static void usage(FILE *f)
{
    cl_help_print_command(f, cl_command_find("quiz"));
}

typedef struct quiz_args {
    cl_quiz_opts qo;
    const char *lang_flag, *seed_flag, *answers, *bank_flag;
    int rate, record, json;
} quiz_args;

/* 0: run; 1: done (help); 2: usage error. */
static int parse_args(int argc, char **argv, quiz_args *a)
{
    static const struct option opts[] = {
        {"topic", required_argument, NULL, 't'},   {"n", required_argument, NULL, 'n'},
        {"difficulty", required_argument, NULL, 'd'}, {"id", required_argument, NULL, 'i'},
        {"lang", required_argument, NULL, 'l'},    {"seed", required_argument, NULL, 's'},
        {"answers", required_argument, NULL, 'a'}, {"rate", no_argument, NULL, 'r'},
        {"no-rate", no_argument, NULL, 'R'},       {"no-record", no_argument, NULL, 'N'},
        {"bank", required_argument, NULL, 'b'},    {"help", no_argument, NULL, 'h'},
        {"json", no_argument, NULL, 'j'},          {NULL, 0, NULL, 0},
    };
    cl_err err;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 't':
            if (cl_filter_add_topics(&a->qo.filter, optarg))
                return cl_cli_error("quiz", CL_T("too many topics")), 2;
            break;
        case 'i':
            if (cl_filter_add_ids(&a->qo.filter, optarg))
                return cl_cli_error("quiz", CL_T("too many ids")), 2;
            break;
        case 'n':
            if (cl_qf_int(optarg, "--n", 1, 1000, &a->qo.n, &err))
                return cl_cli_error("quiz", "%s", err.msg), 2;
            break;
        case 'd':
            if (cl_parse_difficulty(optarg, &a->qo.filter.dmin, &a->qo.filter.dmax, &err))
                return cl_cli_error("quiz", "%s", err.msg), 2;
            break;
        case 'l': a->lang_flag = optarg; break;
        case 's': a->seed_flag = optarg; break;
        case 'a': a->answers = optarg; break;
        case 'r': a->rate = 1; break;
        case 'R': a->rate = 0; break;
        case 'N': a->record = 0; break;
        case 'b': a->bank_flag = optarg; break;
        case 'j': a->json = 1; break;
        case 'h': usage(stdout); return 1;
        default: usage(stderr); return 2;
        }
    }
    if (optind < argc)
        return cl_cli_error("quiz", CL_T("unexpected argument '%s'"), argv[optind]), usage(stderr), 2;
    if (cl_qf_seed(a->seed_flag, &a->qo.seed, &err))
        return cl_cli_error("quiz", "%s", err.msg), 2;
    if (a->qo.filter.nids && a->qo.n < a->qo.filter.nids)
        a->qo.n = a->qo.filter.nids;
    a->qo.now = cl_qf_now();
    return 0;
}

static int run(quiz_args *a)
{
    cl_err err;
    cl_lang lang = cl_lang_current();
    char dir[4096];
    cl_qf_bank_dir(a->bank_flag, dir, sizeof dir);
    cl_bank bank;
    if (cl_qf_load_bank(dir, 0, stderr, &bank, &err))
        return cl_cli_error("quiz", "%s", err.msg), 2;
    /* a mistyped topic: the nearest one, before anything is asked */
    for (int i = 0; i < a->qo.filter.ntopics; i++) {
        const char *names[256];
        int n = 0, found = 0;
        for (int k = 0; k < bank.ntopics && n < 256; k++) {
            names[n++] = bank.topics[k].name;
            found |= !strcmp(bank.topics[k].name, a->qo.filter.topics[i]);
        }
        const char *near = found ? NULL : cl_help_nearest(a->qo.filter.topics[i], names, n);
        if (near) {
            cl_cli_error("quiz", CL_T("no topic '%s' — did you mean %s?"), a->qo.filter.topics[i], near);
            cl_bank_free(&bank);
            return CL_EXIT_USAGE;
        }
    }
    sqlite3 *db = NULL;
    if (a->record && cl_qf_open_db(&db, &err))
        cl_cli_error("quiz", CL_T("progress will not be saved: %s"), err.msg);
    FILE *in;
    if (cl_qf_open_input(a->answers, &in, &err)) {
        cl_db_close(db);
        cl_bank_free(&bank);
        return cl_cli_error("quiz", "%s", err.msg), 2;
    }
    cl_io io;
    cl_io_init(&io, in, a->json ? stderr : stdout, lang, a->rate); /* --json: stdout is the summary's */
    cl_session_result r;
    int rc = cl_quiz_run(&bank, db, &a->qo, &io, &r, &err);
    if (rc) {
        cl_cli_error("quiz", "%s", err.msg);
    } else if (a->json) {
        cl_cli_json_print(cl_cli_session_json("quiz", a->qo.seed, &r));
    } else {
        FILE *o = stdout;
        fprintf(o, lang == CL_LANG_ZH ? "\n%s%s%s%.1f/%d（%.0f%%）· %d %s · %d %s · %d %s · %d %s · seed %llu\n"
                                      : "\n%s%s%s %.1f/%d (%.0f%%) · %d %s · %d %s · %d %s · %d %s · seed %llu\n",
                cl_c(o, CL_BOLD), cl_tr_lang(lang, "Score:"), cl_c0(o), r.points, r.asked,
                r.asked ? 100.0 * r.points / r.asked : 0.0, r.right, cl_tr_lang(lang, "right"), r.partial,
                cl_tr_lang(lang, "partly"), r.wrong, cl_tr_lang(lang, "wrong"), r.skipped,
                cl_tr_lang(lang, "skipped"), (unsigned long long)a->qo.seed);
        if (r.deck_added)
            fprintf(o, cl_tr_lang(lang, "%d question%s added to your review deck: cudalab review\n"),
                    r.deck_added, CL_TR(lang, r.deck_added == 1 ? "" : "s", ""));
    }
    cl_qf_close_input(in);
    cl_db_close(db);
    cl_bank_free(&bank);
    return rc ? 2 : 0;
}

int cmd_quiz(int argc, char **argv)
{
    quiz_args a;
    memset(&a, 0, sizeof a);
    cl_filter_init(&a.qo.filter);
    a.qo.n = 10;
    a.rate = -1;
    a.record = 1;
    int rc = parse_args(argc, argv, &a);
    if (rc == 0)
        rc = run(&a);
    else if (rc == 1)
        rc = 0;
    cl_filter_free(&a.qo.filter);
    return rc;
}
