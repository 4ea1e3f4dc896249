/* db.c: opening the progress database with the settings every user needs. */
#include "db.h"

#include <stdio.h>
#include <stdlib.h>

#include "paths.h"

int cl_db_default_path(char *out, size_t n, cl_err *err)
{
    const char *env = getenv("CUDALAB_DB");
    if (env && *env) {
        snprintf(out, n, "%s", env);
        return 0;
    }
    char dir[CL_PATH_MAX];
    if (cl_data_dir(dir, sizeof dir, err))
        return -1;
    snprintf(out, n, "%s/progress.db", dir);
    return 0;
}

int cl_db_exec(sqlite3 *db, const char *sql, cl_err *err)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        cl_err_set(err, "database: %s", msg ? msg : sqlite3_errmsg(db));
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

int cl_db_open(const char *path, sqlite3 **db, cl_err *err)
{
    char buf[CL_PATH_MAX];
    if (!path) {
        if (cl_db_default_path(buf, sizeof buf, err))
            return -1;
        path = buf;
    }
    *db = NULL;
    if (sqlite3_open_v2(path, db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
        cl_err_set(err, "cannot open database %s: %s", path, *db ? sqlite3_errmsg(*db) : "out of memory");
        sqlite3_close(*db);
        *db = NULL;
        return -1;
    }
    sqlite3_busy_timeout(*db, 10000);
    if (cl_db_exec(*db, "PRAGMA journal_mode=WAL; PRAGMA foreign_keys=ON; PRAGMA synchronous=NORMAL;", err)) {
        int code = sqlite3_errcode(*db);
        if (code == SQLITE_NOTADB || code == SQLITE_CORRUPT)
            /* never repaired or replaced here: it may be all a learner has */
            cl_err_set(err,
                       "the database %s is damaged (%s); it was left untouched. Move it aside to "
                       "start a new one, or try to save its rows with: sqlite3 %s .recover > saved.sql",
                       path, sqlite3_errmsg(*db), path);
        else
            cl_err_wrap(err, "%s", path);
        sqlite3_close(*db);
        *db = NULL;
        return -1;
    }
    return 0;
}

void cl_db_close(sqlite3 *db)
{
    if (db)
        sqlite3_close(db);
}
