/* ladder_steps.c: list a lab's ladder steps from its ladder/ folder (see ladder_steps.h). */
#include "ladder_steps.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int is_step(const char *name)
{
    size_t len = strlen(name);
    return len > 3 && name[0] >= '0' && name[0] <= '9' && !strcmp(name + len - 3, ".cu");
}

int cl_ladder_load(const char *home, const char *lab, cl_ladder *l, cl_err *err)
{
    memset(l, 0, sizeof *l);
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/labs/%s/ladder", home, lab);
    DIR *d = opendir(dir);
    if (!d) {
        if (errno == ENOENT)
            return 0;
        cl_err_set(err, "cannot read %s: %s", dir, strerror(errno));
        return -1;
    }
    int cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!is_step(e->d_name))
            continue;
        if (l->n == cap) {
            cap = cap ? cap * 2 : 8;
            l->names = realloc(l->names, cap * sizeof *l->names);
        }
        l->names[l->n++] = strdup(e->d_name);
    }
    closedir(d);
    if (l->n)
        qsort(l->names, l->n, sizeof *l->names, by_name);
    l->paths = calloc(l->n ? l->n : 1, sizeof *l->paths);
    for (int i = 0; i < l->n; i++) {
        size_t len = strlen(dir) + strlen(l->names[i]) + 2;
        l->paths[i] = malloc(len);
        snprintf(l->paths[i], len, "%s/%s", dir, l->names[i]);
        l->names[i][strlen(l->names[i]) - 3] = '\0'; /* drop ".cu" */
    }
    return 0;
}

void cl_ladder_free(cl_ladder *l)
{
    for (int i = 0; i < l->n; i++) {
        free(l->paths[i]);
        free(l->names[i]);
    }
    free(l->paths);
    free(l->names);
    memset(l, 0, sizeof *l);
}
