/* ladder_steps.h: a lab's ladder - the complete solutions in labs/<lab>/ladder/NN_<step>.cu,
 * from the plainest correct kernel to the reference's techniques. The files are the only
 * list: `cudalab ladder`, `cudalab hint` and the GPU suite all read the folder. */
#ifndef CUDALAB_LADDER_STEPS_H
#define CUDALAB_LADDER_STEPS_H

#include <stddef.h>
#include <stdio.h>

#include "err.h"

typedef struct cl_ladder {
    int n;
    char **paths; /* absolute .cu paths, in step order (by file name) */
    char **names; /* "01_naive" */
} cl_ladder;

/* Lists labs/<lab>/ladder/[0-9]*.cu under home. A lab without a ladder folder gets n = 0
 * and returns 0; -1 only when the folder cannot be read. */
int cl_ladder_load(const char *home, const char *lab, cl_ladder *l, cl_err *err);
void cl_ladder_free(cl_ladder *l);

/* Where `cudalab ladder LAB` keeps its last run's JSON (under the cache directory). */
int cl_ladder_cache_path(const char *lab, char *out, size_t n);
/* One line for `cudalab hint`: the step after the one the student's best measured
 * fraction matches (from the progress database and the cached ladder run); nothing when
 * the lab has no ladder. zh: print in Chinese. */
void cl_ladder_hint(const char *home, const char *lab, int zh, FILE *f);

#endif
