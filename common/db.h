/* db.h: the SQLite progress database ($XDG_DATA_HOME/cudalab/progress.db).
 *
 * One file holds everything a learner has done: lab attempts (grader side) and quiz,
 * review and interview state (questions side). Each part creates its own tables with
 * CREATE TABLE IF NOT EXISTS in its own *_db_init(); this module only opens the file,
 * sets WAL and a busy timeout, and runs statements. */
#ifndef CUDALAB_DB_H
#define CUDALAB_DB_H

#include <stddef.h>
#include <sqlite3.h>

#include "err.h"

/* Opens (creating) the progress database. path NULL = the default location;
 * CUDALAB_DB overrides it (tests use that). */
int cl_db_open(const char *path, sqlite3 **db, cl_err *err);
void cl_db_close(sqlite3 *db);
/* Runs one or more statements without results. */
int cl_db_exec(sqlite3 *db, const char *sql, cl_err *err);
/* The default path, for messages. */
int cl_db_default_path(char *out, size_t n, cl_err *err);

#endif
