/* workspace.c: fetch a lab into a student's folder, and find it again from inside. */
#include "grader/workspace.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "paths.h"

#define META_DIR ".cudalab"
#define META_FILE ".cudalab/lab.json"

static int valid_lab_name(const char *s)
{
    if (!*s || strlen(s) > 64)
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
            return 0;
    return 1;
}

int cl_workspace_save(const cl_workspace *ws, cl_err *err)
{
    char meta[CL_PATH_MAX], dir[CL_PATH_MAX];
    cl_path_join(dir, sizeof dir, ws->dir, META_DIR);
    if (cl_mkdirs(dir, err))
        return -1;
    cl_path_join(meta, sizeof meta, ws->dir, META_FILE);
    const char *base = strrchr(ws->solution, '/');
    base = base ? base + 1 : ws->solution;
    json_t *o = json_pack("{s:s, s:s, s:i, s:s, s:I}", "lab", ws->lab, "solution", base, "hints_shown",
                          ws->hints_shown, "cudalab_version", CUDALAB_VERSION, "saved_at",
                          (json_int_t)time(NULL));
    char *text = json_dumps(o, JSON_INDENT(2) | JSON_SORT_KEYS);
    json_decref(o);
    if (!text)
        return cl_err_set(err, "cannot encode %s", meta);
    int rc = cl_write_file_atomic(meta, text, strlen(text), err);
    free(text);
    return rc;
}

int cl_workspace_fetch(const char *home, const char *lab, const char *parent, int force,
                       cl_workspace *ws, cl_err *err)
{
    memset(ws, 0, sizeof *ws);
    if (!valid_lab_name(lab))
        return cl_err_set(err, "'%s' is not a lab name", lab);
    char src_dir[CL_PATH_MAX], src[CL_PATH_MAX], dst[CL_PATH_MAX], readme[CL_PATH_MAX];
    snprintf(src_dir, sizeof src_dir, "%s/labs/%s", home, lab);
    if (!cl_dir_exists(src_dir))
        return cl_err_set(err, "no lab named '%s' (try 'cudalab list')", lab);
    char abs_parent[CL_PATH_MAX];
    if (!realpath(parent, abs_parent))
        return cl_err_set(err, "%s: %s", parent, strerror(errno));
    snprintf(ws->dir, sizeof ws->dir, "%s/%s", abs_parent, lab);
    snprintf(ws->lab, sizeof ws->lab, "%s", lab);
    snprintf(ws->solution, sizeof ws->solution, "%s/%s.cu", ws->dir, lab);
    if (cl_file_exists(ws->solution) && !force)
        return cl_err_set(err, "%s already exists: your work is kept (use --force to start over)",
                          ws->solution);
    if (cl_mkdirs(ws->dir, err))
        return -1;
    snprintf(src, sizeof src, "%s/%s.cu", src_dir, lab);
    if (cl_copy_file(src, ws->solution, err))
        return -1;
    snprintf(readme, sizeof readme, "%s/README.md", src_dir);
    cl_path_join(dst, sizeof dst, ws->dir, "README.md");
    if (cl_file_exists(readme) && cl_copy_file(readme, dst, err))
        return -1;
    /* the ABI header, so the folder builds on its own: nvcc -I. */
    snprintf(src, sizeof src, "%s/labs/include/cudalab_lab.h", home);
    cl_path_join(dst, sizeof dst, ws->dir, "cudalab_lab.h");
    if (cl_copy_file(src, dst, err))
        return -1;
    return cl_workspace_save(ws, err);
}

static int load_meta(const char *dir, cl_workspace *ws, cl_err *err)
{
    char meta[CL_PATH_MAX];
    cl_path_join(meta, sizeof meta, dir, META_FILE);
    json_error_t je;
    json_t *o = json_load_file(meta, 0, &je);
    if (!o)
        return cl_err_set(err, "%s:%d: %s", meta, je.line, je.text);
    const char *lab = NULL, *sol = NULL;
    int hints = 0;
    if (json_unpack_ex(o, &je, 0, "{s:s, s:s, s?:i}", "lab", &lab, "solution", &sol, "hints_shown", &hints)) {
        json_decref(o);
        return cl_err_set(err, "%s: %s", meta, je.text);
    }
    if (!valid_lab_name(lab) || strchr(sol, '/')) {
        json_decref(o);
        return cl_err_set(err, "%s: invalid lab or solution name", meta);
    }
    memset(ws, 0, sizeof *ws);
    snprintf(ws->dir, sizeof ws->dir, "%s", dir);
    snprintf(ws->lab, sizeof ws->lab, "%s", lab);
    snprintf(ws->solution, sizeof ws->solution, "%s/%s", dir, sol);
    ws->hints_shown = hints;
    json_decref(o);
    return 0;
}

int cl_workspace_find(const char *start, cl_workspace *ws, cl_err *err)
{
    char dir[CL_PATH_MAX];
    if (!realpath(start, dir))
        return cl_err_set(err, "%s: %s", start, strerror(errno));
    for (;;) {
        char meta[CL_PATH_MAX];
        cl_path_join(meta, sizeof meta, dir, META_FILE);
        if (cl_file_exists(meta))
            return load_meta(dir, ws, err);
        char *slash = strrchr(dir, '/');
        if (!slash || slash == dir)
            return 1;
        *slash = '\0';
    }
}
