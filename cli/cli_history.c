/* cli_history.c: the progress database as the history commands open it, and times as text. */
#include "cli_history.h"

#include <stdio.h>
#include <time.h>

#include "db.h"

int cl_cli_open_history(const char *cmd, sqlite3 **db)
{
    cl_err err;
    if (cl_db_open(NULL, db, &err)) {
        fprintf(stderr, "cudalab %s: %s\n", cmd, err.msg);
        return -1;
    }
    return 0;
}

void cl_cli_when(long long at, char *out, size_t n)
{
    time_t t = (time_t)at;
    struct tm tm;
    if (!localtime_r(&t, &tm) || !strftime(out, n, "%Y-%m-%d %H:%M", &tm))
        snprintf(out, n, "%lld", at);
}
