/* cmd_lint.c: `cudalab lint`: validate the question bank and the labs; prints one
 * "file:line:col: message" per problem and exits 1 when there is any. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli_help.h"
#include "cli_util.h"
#include "commands.h"
#include "grader/labconf.h"
#include "lint_abi.h"
#include "paths.h"
#include "questions/bank.h"
#include "questions/bankstats.h"
#include "questions/family.h"
#include "questions/frontend.h"
#include "questions/seedmap.h"
#include "questions/zhstyle.h"

static void usage(FILE *f)
{
    cl_help_print_command(f, cl_command_find("lint"));
}

typedef struct lint_ctx {
    int problems;
    int unreadable; /* files that did not parse: what they hold is unknown */
} lint_ctx;

static void report(void *ctx, const char *msg)
{
    ((lint_ctx *)ctx)->problems++;
    if (strstr(msg, "YAML syntax error") || strstr(msg, "cannot open") || strstr(msg, "cannot read"))
        ((lint_ctx *)ctx)->unreadable++;
    /* "file:line:col: YAML syntax error: <libyaml's words>": the fixed words in the user's language */
    static const char syntax[] = ": YAML syntax error: ";
    const char *at = strstr(msg, syntax);
    if (at)
        printf("%.*s%s%s\n", (int)(at - msg), msg, CL_T(": YAML syntax error: "), at + strlen(syntax));
    else
        printf("%s\n", msg);
}

int cmd_lint(int argc, char **argv)
{
    static const struct option opts[] = {
        {"questions-only", no_argument, NULL, 'Q'}, {"labs-only", no_argument, NULL, 'L'},
        {"bank", required_argument, NULL, 'b'},     {"seeds", required_argument, NULL, 's'},
        {"samples", required_argument, NULL, 'n'},  {"seed-map", no_argument, NULL, 'M'},
        {"no-seeds", no_argument, NULL, 'S'},     {"stats", no_argument, NULL, 'T'},
        {"help", no_argument, NULL, 'h'},           {NULL, 0, NULL, 0},
    };
    int questions = 1, labs = 1, samples = 25, seed_map = 0, no_seeds = 0, stats = 0, c;
    const char *bank_flag = NULL, *seeds = NULL;
    cl_err err;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'Q': labs = 0; break;
        case 'L': questions = 0; break;
        case 'b': bank_flag = optarg; break;
        case 's': seeds = optarg; break;
        case 'n':
            if (cl_qf_int(optarg, "--samples", 1, 10000, &samples, &err))
                return cl_cli_error("lint", "%s", err.msg), 2;
            break;
        case 'M': seed_map = 1; break;
        case 'S': no_seeds = 1; break;
        case 'T': stats = 1; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (!questions && !labs)
        return cl_cli_error("lint", CL_T("--questions-only and --labs-only exclude each other")), 2;
    int files = argc - optind;
    if (files)
        labs = 0; /* explicit question files: lint just those */

    lint_ctx ctx = {0};
    cl_bank bank;
    cl_bank_init(&bank);
    char dir[4096];
    cl_qf_bank_dir(bank_flag, dir, sizeof dir);
    if (questions) {
        if (files)
            for (int i = optind; i < argc; i++)
                cl_bank_load_file(&bank, argv[i], report, &ctx);
        else
            cl_bank_load_dir(&bank, dir, report, &ctx);
        if (seed_map) {
            cl_seed_map_print(stdout, &bank);
            cl_bank_free(&bank);
            return 0;
        }
        cl_bank_check_families(&bank, samples, report, &ctx);
        cl_bank_check_style(&bank, report, &ctx);
        char seed_list[4096];
        if (!seeds && !no_seeds && !files && !bank_flag) { /* the installed bank: its own seed list */
            snprintf(seed_list, sizeof seed_list, "%s/docs/seed-questions.md", cl_home_dir());
            if (cl_file_exists(seed_list))
                seeds = seed_list;
        }
        if (ctx.unreadable && seeds && !no_seeds) { /* one syntax error is one problem, not one per lost seed */
            cl_cli_warn("lint", CL_T("seed coverage not checked: a question file could not be read — fix the "
                                     "error above, then lint again"));
            seeds = NULL;
            no_seeds = 1;
        }
        if (seeds && !no_seeds && bank.nq) /* with no bank at all, coverage is only noise */
            cl_seed_coverage(&bank, seeds, report, &ctx);
    }
    int lab_problems = 0;
    if (labs) {
        lint_ctx lctx = {0};
        cl_lab_lint_all(cl_home_dir(), report, &lctx);
        cl_lint_abi(cl_home_dir(), report, &lctx); /* lab.yaml signatures = cudalab_lab.h */
        cl_labs_check_zh_style(cl_home_dir(), report, &lctx);
        lab_problems = lctx.problems;
        ctx.problems += lctx.problems;
    }
    int families = 0;
    for (int i = 0; i < bank.nq; i++)
        families += bank.q[i].family != NULL;
    if (questions && stats)
        cl_bank_stats_print(stdout, &bank);
    if (questions && bank.nq) {
        cl_bank_stats all;
        cl_bank_stats_count(&bank, NULL, &all);
        cl_cli_error("lint", CL_T("kinds: %d recall, %d understand, %d apply, %d analyse (%.0f%% apply or analyse)"),
                all.by_kind[CL_KIND_RECALL], all.by_kind[CL_KIND_UNDERSTAND], all.by_kind[CL_KIND_APPLY],
                all.by_kind[CL_KIND_ANALYSE], 100 * cl_bank_stats_thinking(&all));
    }
    if (ctx.problems)
        cl_cli_error("lint", CL_T("%d problem%s%s"), ctx.problems, ctx.problems == 1 ? "" : "s",
                lab_problems ? " (questions and labs)" : "");
    else if (!questions)
        cl_cli_error("lint", CL_T("ok: labs"));
    else
        cl_cli_error("lint", CL_T("ok: %d question%s (%d generated) in %d topic file%s%s"), bank.nq,
                bank.nq == 1 ? "" : "s", families, bank.ntopics, bank.ntopics == 1 ? "" : "s",
                labs ? ", labs ok" : "");
    cl_bank_free(&bank);
    return ctx.problems ? 1 : 0;
}
