/* driver_keep.c: keeps the CUDA driver initialised while cudalab grades.
 *
 * Every judge and every solution process initialises CUDA afresh, and a grading starts
 * three to five of them. While some other process has the driver initialised, a judge run
 * (the judge's process and the solution's) starts about 0.2 s sooner on an H100, with
 * persistence mode on (docs/PERFORMANCE.md): the driver's own per-process set-up, not the
 * GPU waking. So from the first grading on, `cudalab-probe --hold` runs beside cudalab: it
 * calls cuInit (through cudaGetDeviceCount) and creates no context (nvidia-smi lists no
 * process for it; 4 MiB of device memory show as used), and nothing of it runs on the GPU,
 * so it changes no timing. It waits for its descriptor 3 to reach end of file. This process holds the write end of
 * that pipe, close-on-exec so no judge or solution inherits it: when cudalab exits, however
 * it exits, the keeper does too. cudalab itself still never initialises CUDA (DESIGN.md).
 * CUDALAB_DRIVER_KEEP=0 turns it off (docs/grading-policy.md). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grader/driver_keep.h"
#include "grader/proc.h"
#include "paths.h"

void cl_driver_keep(void)
{
    static int started;
    if (started)
        return;
    started = 1;
    const char *off = getenv("CUDALAB_DRIVER_KEEP");
    if (off && !strcmp(off, "0"))
        return;
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0)
        return;
    char probe[4096];
    snprintf(probe, sizeof probe, "%s/cudalab-probe", cl_exe_dir());
    char *argv[] = {probe, "--hold", NULL};
    int pid;
    cl_err err;
    if (cl_proc_spawn(argv, NULL, p[0], &pid, &err) != 0)
        close(p[1]);
    close(p[0]);
    /* p[1] stays open until this process ends */
}
