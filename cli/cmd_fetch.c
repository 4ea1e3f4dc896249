/* cmd_fetch.c: cudalab fetch LAB [--dir PARENT] [--force]: a workspace for a lab. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "grader/workspace.h"
#include "paths.h"
#include "term.h"

int cmd_fetch(int argc, char **argv)
{
    static const struct option opts[] = {{"dir", required_argument, 0, 'd'}, {"force", no_argument, 0, 'f'},
                                         {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    const char *parent = ".";
    int force = 0, ch;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (ch == 'd') parent = optarg;
        else if (ch == 'f') force = 1;
        else {
            fprintf(ch == 'h' ? stdout : stderr,
                    "usage: cudalab fetch LAB [--dir PARENT] [--force]\n"
                    "  Creates PARENT/LAB/ with the skeleton, the README and the lab header.\n"
                    "  An existing solution is never overwritten without --force.\n");
            return ch == 'h' ? 0 : 2;
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "usage: cudalab fetch LAB [--dir PARENT] [--force]   (see 'cudalab list')\n");
        return 2;
    }
    cl_workspace ws;
    cl_err err;
    if (cl_workspace_fetch(cl_home_dir(), argv[optind], parent, force, &ws, &err)) {
        fprintf(stderr, "cudalab fetch: %s\n", err.msg);
        return 1;
    }
    FILE *f = stdout;
    printf("%s%s%s is ready in %s\n", cl_c(f, CL_BOLD), ws.lab, cl_c0(f), ws.dir);
    printf("  edit      %s\n", ws.solution);
    printf("  read      %s/README.md\n", ws.dir);
    printf("  then      cd %s && cudalab test     (cudalab hint when stuck; cudalab submit when done)\n", ws.dir);
    return 0;
}
