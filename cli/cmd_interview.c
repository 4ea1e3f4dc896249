/* cmd_interview.c: `cudalab interview`: a timed mock interview with a scorecard. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_help.h"
#include "cli_util.h"
#include "commands.h"
#include "db.h"
#include "paths.h"
#include "questions/frontend.h"
#include "questions/interview.h"
#include "questions/progress.h"
#include "strbuf.h"

static void usage(FILE *f)
{
    cl_help_print_command(f, cl_command_find("interview"));
}

int cmd_interview(int argc, char **argv)
{
    static const struct option opts[] = {
        {"minutes", required_argument, NULL, 'm'},  {"track", required_argument, NULL, 't'},
        {"questions", required_argument, NULL, 'q'}, {"lab", required_argument, NULL, 'L'},
        {"no-lab", no_argument, NULL, 'X'},          {"workspace", required_argument, NULL, 'w'},
        {"lang", required_argument, NULL, 'l'},      {"seed", required_argument, NULL, 's'},
        {"answers", required_argument, NULL, 'a'},   {"no-record", no_argument, NULL, 'N'},
        {"bank", required_argument, NULL, 'b'},      {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    cl_interview_opts io_opts;
    memset(&io_opts, 0, sizeof io_opts);
    io_opts.minutes = 45;
    io_opts.with_lab = 1;
    const char *lang_flag = NULL, *seed_flag = NULL, *answers = NULL, *bank_flag = NULL;
    int record = 1, c;
    cl_err err;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'm':
            if (cl_qf_int(optarg, "--minutes", 1, 600, &io_opts.minutes, &err))
                return cl_cli_error("interview", "%s", err.msg), 2;
            break;
        case 't':
            if (cl_track_parse(optarg, &io_opts.track))
                return cl_cli_error("interview", CL_T("--track must be cuda, inference or compiler")), 2;
            break;
        case 'q':
            if (cl_qf_int(optarg, "--questions", 1, 60, &io_opts.max_questions, &err))
                return cl_cli_error("interview", "%s", err.msg), 2;
            break;
        case 'L': io_opts.lab = optarg; break;
        case 'X': io_opts.with_lab = 0; break;
        case 'w': io_opts.workspace = optarg; break;
        case 'l': lang_flag = optarg; break;
        case 's': seed_flag = optarg; break;
        case 'a': answers = optarg; break;
        case 'N': record = 0; break;
        case 'b': bank_flag = optarg; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind < argc)
        return cl_cli_error("interview", CL_T("unexpected argument '%s' — see 'cudalab interview --help'"),
                            argv[optind]), CL_EXIT_USAGE;
    if (io_opts.lab && io_opts.with_lab && cl_cli_check_lab("interview", io_opts.lab)) /* now, not at the end */
        return CL_EXIT_USAGE;
    cl_lang lang = cl_lang_current(); /* --lang is global: main has set it */
    (void)lang_flag;
    if (cl_qf_seed(seed_flag, &io_opts.seed, &err))
        return cl_cli_error("interview", "%s", err.msg), 2;
    io_opts.now = cl_qf_now();
    io_opts.home = cl_home_dir();

    char dir[4096];
    cl_qf_bank_dir(bank_flag, dir, sizeof dir);
    cl_bank bank;
    if (cl_qf_load_bank(dir, 0, stderr, &bank, &err))
        return cl_cli_error("interview", "%s", err.msg), 2;
    sqlite3 *db = NULL;
    if (record && cl_qf_open_db(&db, &err))
        cl_cli_error("interview", CL_T("progress will not be saved: %s"), err.msg);
    FILE *in;
    if (cl_qf_open_input(answers, &in, &err)) {
        cl_db_close(db);
        cl_bank_free(&bank);
        return cl_cli_error("interview", "%s", err.msg), 2;
    }
    cl_io io;
    cl_io_init(&io, in, stdout, lang, 0);
    cl_interview_result *r = calloc(1, sizeof *r);
    int rc = r ? cl_interview_run(&bank, db, &io_opts, &io, r, &err) : cl_err_set(&err, "out of memory");
    if (rc) {
        cl_cli_error("interview", "%s", err.msg);
    } else {
        cl_strbuf card;
        cl_sb_init(&card);
        cl_interview_scorecard(&bank, &io_opts, r, lang, &card);
        printf("\n%s", cl_sb_str(&card));
        if (db) {
            cl_interview_row row = {io_opts.now, io_opts.minutes, cl_track_name(io_opts.track), io_opts.seed,
                                    r->tally.asked, r->score, r->level, r->lab[0] ? r->lab : NULL,
                                    r->lab[0] ? r->lab_verdict : NULL, cl_sb_str(&card)};
            if (cl_interview_save(db, &row, &err))
                cl_cli_error("interview", "%s", err.msg);
        }
        cl_sb_free(&card);
    }
    free(r);
    cl_qf_close_input(in);
    cl_db_close(db);
    cl_bank_free(&bank);
    return rc ? 2 : 0;
}
