/* cmd_help.c: cudalab help [COMMAND] [--json]: the command table, for people or programs. */
#include <stdio.h>
#include <string.h>

#include "cli_help.h"
#include "cli_util.h"
#include "commands.h"
#include "i18n.h"

int cmd_help(int argc, char **argv)
{
    int json = 0;
    const char *name = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json"))
            json = 1;
        else if (!name)
            name = argv[i];
        else
            return cl_cli_error("help", CL_T("one command at a time — cudalab help <command>")), CL_EXIT_USAGE;
    }
    if (!name) {
        if (json)
            cl_help_print_json(stdout);
        else
            cl_help_print_main(stdout);
        return CL_EXIT_OK;
    }
    const cl_command *c = cl_command_find(name);
    if (!c) {
        const char *near = cl_help_near_command(name);
        if (near)
            cl_cli_error("help", CL_T("unknown command '%s' — did you mean 'cudalab %s'?"), name, near);
        else
            cl_cli_error("help", CL_T("unknown command '%s' — 'cudalab help' lists the commands"), name);
        return CL_EXIT_USAGE;
    }
    cl_help_print_command(stdout, c);
    return CL_EXIT_OK;
}
