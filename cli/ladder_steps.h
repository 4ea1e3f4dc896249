/* ladder_steps.h: a lab's ladder - the complete solutions in labs/<lab>/ladder/NN_<step>.cu,
 * from the plainest correct kernel to the reference's techniques. The files are the only
 * list: `cudalab ladder`, `cudalab hint` and the GPU suite all read the folder. */
#ifndef CUDALAB_LADDER_STEPS_H
#define CUDALAB_LADDER_STEPS_H

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

#endif
