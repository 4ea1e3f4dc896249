/* cli_session.h: the --json summary of a question session (quiz, review): one JSON object
 * on stdout, while the questions and feedback go to stderr. Stable fields: docs/cli.md. */
#ifndef CUDALAB_CLI_SESSION_H
#define CUDALAB_CLI_SESSION_H

#include <jansson.h>
#include <stdint.h>

#include "questions/session.h"

/* A new object: mode, seed, asked, right, partial, wrong, skipped, points, percent,
 * ended_early, deck_added, topics[]. The caller may add fields, then prints it. */
json_t *cl_cli_session_json(const char *mode, uint64_t seed, const cl_session_result *r);
/* Prints o (indented) on stdout and frees it. */
void cl_cli_json_print(json_t *o);

#endif
