/* parallel.h: how a checker spreads its CPU work (fp64 references, input generation) over
 * the machine's cores. The judge is idle while a checker verifies, and a big case's
 * reference on one core was most of the time a lab's grading took. */
#ifndef CUDALAB_LABS_PARALLEL_H
#define CUDALAB_LABS_PARALLEL_H

#include <pthread.h>
#include <stddef.h>
#include <unistd.h>

#define CL_PAR_MAX 32 /* threads at most */

/* Threads worth starting for `work` (a rough operation count): one below 1e7, else one a
 * core up to `cap` (<= CL_PAR_MAX). */
static inline int cl_par_threads(double work, int cap)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (cap > CL_PAR_MAX) cap = CL_PAR_MAX;
    if (n > cap) n = cap;
    if (n < 1 || work < 1e7) n = 1;
    return (int)n;
}

/* Runs fn(args + t * arg_size) for t = 0..n-1, on n threads (the caller's is thread 0); a
 * thread that cannot be started runs its part on the caller's. */
static inline void cl_par_run(int n, void *(*fn)(void *), void *args, size_t arg_size)
{
    pthread_t th[CL_PAR_MAX];
    int started[CL_PAR_MAX] = {0};
    if (n > CL_PAR_MAX) n = CL_PAR_MAX;
    for (int t = 1; t < n; t++)
        started[t] = pthread_create(&th[t], NULL, fn, (char *)args + (size_t)t * arg_size) == 0;
    for (int t = 1; t < n; t++)
        if (!started[t]) fn((char *)args + (size_t)t * arg_size);
    fn(args);
    for (int t = 1; t < n; t++)
        if (started[t]) pthread_join(th[t], NULL);
}

#endif
