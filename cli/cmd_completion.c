/* cmd_completion.c: cudalab completion bash|zsh|fish: the completion script, generated from
 * the command table (cmake --install puts all three where the shells look). */
#include <stdio.h>

#include "cli_help.h"
#include "cli_util.h"
#include "commands.h"
#include "i18n.h"

int cmd_completion(int argc, char **argv)
{
    if (argc != 2 || cl_help_completion(stdout, argv[1])) {
        cl_cli_error("completion", CL_T("which shell? — cudalab completion bash, zsh or fish"));
        return CL_EXIT_USAGE;
    }
    return CL_EXIT_OK;
}
