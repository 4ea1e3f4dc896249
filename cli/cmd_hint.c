/* cmd_hint.c: cudalab hint [LAB] [N] [--all] [--lang en|zh]: hints from lab.yaml, one at a
 * time (inside a workspace the next one each call), from gentle to specific. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "grader/labconf.h"
#include "grader/workspace.h"
#include "lang.h"
#include "paths.h"
#include "term.h"

int cmd_hint(int argc, char **argv)
{
    static const struct option opts[] = {{"all", no_argument, 0, 'a'}, {"lang", required_argument, 0, 'l'},
                                         {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int all = 0, ch;
    const char *lang_flag = NULL;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (ch == 'a') all = 1;
        else if (ch == 'l') lang_flag = optarg;
        else {
            fprintf(ch == 'h' ? stdout : stderr, "usage: cudalab hint [LAB] [N] [--all] [--lang en|zh]\n");
            return ch == 'h' ? 0 : 2;
        }
    }
    cl_lang lang;
    if (cl_lang_pick(lang_flag, &lang)) {
        fprintf(stderr, "cudalab hint: --lang is en or zh\n");
        return 2;
    }
    cl_workspace ws;
    cl_err err;
    int in_ws = cl_workspace_find(".", &ws, &err) == 0;
    const char *lab_name = optind < argc && !(argv[optind][0] >= '0' && argv[optind][0] <= '9') ? argv[optind++] : NULL;
    int want = optind < argc ? atoi(argv[optind]) : 0;
    if (!lab_name && in_ws)
        lab_name = ws.lab;
    if (!lab_name) {
        fprintf(stderr, "cudalab hint: which lab? (cudalab hint reduce, or run it inside a workspace)\n");
        return 2;
    }
    cl_lab lab;
    if (cl_lab_load(cl_home_dir(), lab_name, &lab, &err)) {
        fprintf(stderr, "cudalab hint: %s\n", err.msg);
        return 2;
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
    if (to > lab.nhints || from < 1) {
        printf("%s has %d hints%s.\n", lab.name, lab.nhints, use_ws && !want ? ", and you have seen them all" : "");
        cl_lab_free(&lab);
        return 0;
    }
    FILE *f = stdout;
    for (int i = from; i <= to; i++)
        printf("%shint %d/%d%s  %s\n", cl_c(f, CL_CYAN), i, lab.nhints, cl_c0(f),
               lang == CL_LANG_ZH ? lab.hints[i - 1].zh : lab.hints[i - 1].en);
    if (use_ws && !all && !want && to > ws.hints_shown) {
        ws.hints_shown = to;
        if (cl_workspace_save(&ws, &err))
            fprintf(stderr, "cudalab hint: %s\n", err.msg);
    }
    cl_lab_free(&lab);
    return 0;
}
