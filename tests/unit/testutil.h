/* testutil.h: helpers shared by the Check suites: temporary directories, running a suite,
 * grading a plain-C solution through the host-backend runner. */
#ifndef CUDALAB_TESTUTIL_H
#define CUDALAB_TESTUTIL_H

#include <check.h>
#include <stdint.h>

#include "grader/grade.h"

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

/* A plain-C test solution (TEST_SOLUTIONS/solution.so) to grade through the host-backend
 * runner: the correctness cases always, the bench on request. seed 0 means 20261122. */
typedef struct {
    const char *lab, *solution;
    int bench, no_reference;
    uint64_t seed;
    double timeout_s;
} tu_grade;
/* Grades it into *r; fails the test when grading itself fails. */
void tu_grade_host(cl_result *r, tu_grade g);
/* Fails the test unless r's verdict is v and, with needle, its message contains needle. */
void tu_expect(const cl_result *r, cl_verdict v, const char *needle);

#endif
