/* cmd_hint.c: cudalab hint [LAB] [N] [--all] [--json]: hints from lab.yaml, one at a time
 * (inside a workspace the next one each call), from gentle to specific, in the language of
 * the run (--lang, CUDALAB_LANG, the locale). */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "commands.h"
#include "grader/labconf.h"
#include "grader/workspace.h"
#include "ladder_steps.h"
#include "paths.h"
#include "questions/question.h"
#include "term.h"

int cmd_hint(int argc, char **argv)
{
    static const struct option opts[] = {{"all", no_argument, 0, 'a'}, {"json", no_argument, 0, 'j'}, {0, 0, 0, 0}};
    int all = 0, json = 0, ch;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (ch == 'a') all = 1;
        else if (ch == 'j') json = 1;
        else return CL_EXIT_USAGE;
    }
    cl_lang lang = cl_lang_current();
    cl_workspace ws;
    cl_err err;
    int in_ws = cl_workspace_find(".", &ws, &err) == 0;
    const char *lab_name = optind < argc && !(argv[optind][0] >= '0' && argv[optind][0] <= '9') ? argv[optind++] : NULL;
    int want = 0;
    if (optind < argc) {
        char *end;
        want = (int)strtol(argv[optind], &end, 10);
        if (*end || want < 1) {
            cl_cli_error("hint", CL_T("'%s' is not a hint number — cudalab hint [LAB] [N], N from 1"), argv[optind]);
            return CL_EXIT_USAGE;
        }
        optind++;
    }
    if (optind < argc) {
        cl_cli_error("hint", CL_T("unexpected argument '%s' — cudalab hint [LAB] [N]"), argv[optind]);
        return CL_EXIT_USAGE;
    }
    if (!lab_name && in_ws)
        lab_name = ws.lab;
    if (!lab_name) {
        cl_cli_error("hint", CL_T("which lab? — cudalab hint reduce, or run it inside a workspace"));
        return CL_EXIT_USAGE;
    }
    if (cl_cli_check_lab("hint", lab_name))
        return CL_EXIT_USAGE;
    cl_lab lab;
    if (cl_lab_load(cl_home_dir(), lab_name, &lab, &err)) {
        cl_cli_error("hint", CL_T("%s — cudalab lint says more"), err.msg);
        return CL_EXIT_INTERNAL;
    }
    int use_ws = in_ws && !strcmp(ws.lab, lab.name);
    int from = 1, to;
    if (all) {
        to = lab.nhints;
    } else if (want > 0) {
        from = to = want;
    } else {
        to = (use_ws ? ws.hints_shown : 0) + 1;
        from = to;
    }
    int none = to > lab.nhints || from < 1;
    if (json) {
        json_t *hints = json_array();
        for (int i = from; !none && i <= to; i++)
            json_array_append_new(hints, json_pack("{s:i, s:s, s:s?}", "n", i, "text",
                                                   lang == CL_LANG_ZH && lab.hints[i - 1].zh ? lab.hints[i - 1].zh
                                                                                             : lab.hints[i - 1].en,
                                                   "lang", cl_lang_code(lang)));
        json_t *o = json_pack("{s:s, s:i, s:o}", "lab", lab.name, "total", lab.nhints, "hints", hints);
        char *s = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        puts(s);
        free(s);
        json_decref(o);
    } else if (none) {
        if (use_ws && !want)
            printf(CL_T("%s has %d hints, and you have seen them all (cudalab hint --all shows them again).\n"),
                   lab.name, lab.nhints);
        else
            printf(CL_T("%s has %d hints.\n"), lab.name, lab.nhints);
    } else {
        FILE *f = stdout;
        for (int i = from; i <= to; i++)
            printf(CL_T("%shint %d/%d%s  %s\n"), cl_c(f, CL_CYAN), i, lab.nhints, cl_c0(f),
                   lang == CL_LANG_ZH && lab.hints[i - 1].zh ? lab.hints[i - 1].zh : lab.hints[i - 1].en);
    }
    if (!none && use_ws && !all && !want && to > ws.hints_shown) {
        ws.hints_shown = to;
        if (cl_workspace_save(&ws, &err))
            cl_cli_warn("hint", CL_T("which hints you have seen was not saved: %s"), err.msg);
    }
    if (!json)
        cl_ladder_hint(cl_home_dir(), lab.name, lang == CL_LANG_ZH, stdout);
    cl_lab_free(&lab);
    return CL_EXIT_OK;
}
