/* driver_keep.h: the CUDA driver kept initialised while cudalab grades (driver_keep.c). */
#ifndef CUDALAB_DRIVER_KEEP_H
#define CUDALAB_DRIVER_KEEP_H

/* Starts `cudalab-probe --hold` beside this process, once per process; it ends when this
 * process does. Best effort: when it cannot start, grading is only slower. */
void cl_driver_keep(void);

#endif
