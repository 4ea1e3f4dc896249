/* cmd_fetch.c: cudalab fetch LAB [--dir PARENT] [--force] [--json]: a workspace for a lab. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "commands.h"
#include "grader/workspace.h"
#include "paths.h"
#include "term.h"

int cmd_fetch(int argc, char **argv)
{
    static const struct option opts[] = {{"dir", required_argument, 0, 'd'}, {"force", no_argument, 0, 'f'},
                                         {"json", no_argument, 0, 'j'}, {0, 0, 0, 0}};
    const char *parent = ".";
    int force = 0, json = 0, ch;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (ch == 'd') parent = optarg;
        else if (ch == 'f') force = 1;
        else if (ch == 'j') json = 1;
        else return CL_EXIT_USAGE;
    }
    if (optind != argc - 1) {
        cl_cli_error("fetch", CL_T("which lab? — cudalab fetch LAB ('cudalab list' shows the labs)"));
        return CL_EXIT_USAGE;
    }
    if (cl_cli_check_lab("fetch", argv[optind]))
        return CL_EXIT_USAGE;
    cl_workspace ws;
    cl_err err;
    if (cl_mkdirs(parent, &err) || cl_workspace_fetch(cl_home_dir(), argv[optind], parent, force, &ws, &err)) {
        cl_cli_error("fetch", "%s", err.msg);
        return CL_EXIT_FAILED;
    }
    if (json) {
        char dir[CL_PATH_MAX + 16];
        snprintf(dir, sizeof dir, "%s/README.md", ws.dir);
        json_t *o = json_pack("{s:s, s:s, s:s, s:s}", "lab", ws.lab, "dir", ws.dir, "solution", ws.solution, "readme",
                              dir);
        char *s = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        puts(s);
        free(s);
        json_decref(o);
        return CL_EXIT_OK;
    }
    FILE *f = stdout;
    char q[2 * CL_PATH_MAX];
    printf(CL_T("%s%s%s is ready in %s\n"), cl_c(f, CL_BOLD), ws.lab, cl_c0(f), ws.dir);
    printf(CL_T("  edit      %s\n"), ws.solution);
    printf(CL_T("  read      %s/README.md\n"), ws.dir);
    printf(CL_T("  then      cd %s && cudalab test     (cudalab hint when stuck; cudalab submit when done)\n"),
           cl_cli_shell_quote(ws.dir, q, sizeof q));
    return CL_EXIT_OK;
}
