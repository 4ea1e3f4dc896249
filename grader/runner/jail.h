/* jail.h: what the solution's process may no longer do once the solution is loaded. */
#ifndef CUDALAB_JAIL_H
#define CUDALAB_JAIL_H

#include <stddef.h>

typedef struct cl_jail_opts {
    int allow_sockets; /* compute-sanitizer's injected library talks to its front end */
    const char *const *writable; /* folders the process may still write beneath (NULL-terminated) */
    const char *const *hidden;   /* device nodes under /dev it may not open for writing nor, where
                                    Landlock has ABI 5, ioctl: the other GPUs of a class run */
} cl_jail_opts;

/* no_new_privs, then Landlock (writes only beneath the writable folders, and none to the
 * hidden devices; skipped with a note where the kernel has none), then a seccomp filter: no new processes, no signals or
 * inspection of other processes, no namespaces, mounts, keys or (unless allowed) sockets,
 * no prctl that would hide the process or outlive its parent. 0, or -1 with err. note gets
 * what could not be applied (empty when everything was). */
int cl_jail_enter(const cl_jail_opts *o, char *note, size_t noten, char *err, size_t errn);

#endif
