/* workspace.h: a student's workspace folder for one lab (like exercism's).
 *
 *   <dir>/<lab>.cu              the skeleton, to be edited
 *   <dir>/README.md             the task
 *   <dir>/.cudalab/lab.json     {"lab": "...", "solution": "<lab>.cu", "fetched_at": ...,
 *                                "cudalab_version": "...", "hints_shown": 0}
 * Commands run inside a workspace (or any folder below it) find the lab from lab.json. */
#ifndef CUDALAB_WORKSPACE_H
#define CUDALAB_WORKSPACE_H

#include <stddef.h>

#include "err.h"

typedef struct cl_workspace {
    char dir[4096];      /* the workspace root */
    char lab[128];       /* lab name */
    char solution[4096]; /* absolute path of the solution file */
    int hints_shown;
} cl_workspace;

/* Creates <parent>/<lab>/ from labs/<lab> under home. Refuses to overwrite an existing
 * solution unless force. Fills ws. */
int cl_workspace_fetch(const char *home, const char *lab, const char *parent, int force,
                       cl_workspace *ws, cl_err *err);
/* Finds the workspace containing start (walking up). 0 found, 1 none, -1 error. */
int cl_workspace_find(const char *start, cl_workspace *ws, cl_err *err);
/* Rewrites .cudalab/lab.json with ws's fields. */
int cl_workspace_save(const cl_workspace *ws, cl_err *err);

#endif
