/* cmd_man.c: cudalab man: the man page (roff) generated from the command table; the build
 * writes it to build/man/cudalab.1 and cmake --install installs it. */
#include <stdio.h>

#include "cli_help.h"
#include "cli_util.h"
#include "commands.h"
#include "i18n.h"

int cmd_man(int argc, char **argv)
{
    (void)argv;
    if (argc != 1) {
        cl_cli_error("man", CL_T("man takes no arguments — cudalab man > cudalab.1"));
        return CL_EXIT_USAGE;
    }
    cl_help_man(stdout);
    return CL_EXIT_OK;
}
