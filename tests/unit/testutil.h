/* testutil.h: helpers shared by the Check suites: temporary directories, running a suite. */
#ifndef CUDALAB_TESTUTIL_H
#define CUDALAB_TESTUTIL_H

#include <check.h>

/* A fresh directory under $TMPDIR (removed by tu_rmtree). */
char *tu_tempdir(const char *tag);
void tu_rmtree(const char *dir);
/* Writes text to dir/name; returns the path (static buffer). */
const char *tu_write(const char *dir, const char *name, const char *text);
/* Runs one suite with CK_NORMAL output; returns the process exit status. */
int tu_run(Suite *s);
/* 1 while pid is a live process (a zombie waiting to be reaped counts as gone); waits up
 * to two seconds for it to go. */
int tu_process_alive(int pid);
/* 1 if haystack contains needle (NULL-safe). */
int tu_contains(const char *haystack, const char *needle);

#endif
