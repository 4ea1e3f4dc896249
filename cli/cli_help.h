/* cli_help.h: everything generated from the command table: help texts, did-you-mean,
 * shell completion scripts (bash, zsh, fish) and the man page. */
#ifndef CUDALAB_CLI_HELP_H
#define CUDALAB_CLI_HELP_H

#include <stdio.h>

#include "commands.h"

void cl_help_print_main(FILE *f);
void cl_help_print_command(FILE *f, const cl_command *c);
/* The whole table as JSON (cudalab help --json): commands, their flags, exit codes. */
void cl_help_print_json(FILE *f);
/* The closest command or flag name within a small edit distance, or NULL. */
const char *cl_help_near_command(const char *name);
const char *cl_help_near_flag(const cl_command *c, const char *name);
/* The closest of names[0..n) to name, or NULL when none is close. */
const char *cl_help_nearest(const char *name, const char *const *names, int n);
int cl_help_completion(FILE *f, const char *shell);
void cl_help_man(FILE *f);

#endif
