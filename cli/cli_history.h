/* cli_history.h: what log, compare, progress and watch share: opening the progress
 * database with the one message for a damaged one, and the attempt time as text. */
#ifndef CUDALAB_CLI_HISTORY_H
#define CUDALAB_CLI_HISTORY_H

#include <sqlite3.h>
#include <stddef.h>

/* Opens the progress database; prints "cudalab CMD: ..." and returns -1 when it cannot
 * (a damaged file is named and left as it is). */
int cl_cli_open_history(const char *cmd, sqlite3 **db);
/* "2026-11-25 17:50" in local time. */
void cl_cli_when(long long at, char *out, size_t n);

#endif
