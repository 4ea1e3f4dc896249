/* interview_grade.h: grading the interview's coding exercise (interview_grade.c). */
#ifndef CUDALAB_Q_INTERVIEW_GRADE_H
#define CUDALAB_Q_INTERVIEW_GRADE_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdio.h>

#include "err.h"

/* Grades the workspace dir's solution as `cudalab test` does, through the grading library
 * (cl_grade; no child cudalab): verdict is the verdict's name in the one table
 * ("correct", "wrong", "compile_error", "no_device", ...), note its message and the cases
 * passed; a one-line result is printed to out. The attempt is recorded in db (may be
 * NULL: not recorded) unless nothing of the candidate's was graded. -1 (err) when dir is
 * not a workspace or grading could not start. */
int cl_iv_grade_lab(const char *dir, sqlite3 *db, FILE *out, char *verdict, size_t vn, char *note, size_t nn,
                    cl_err *err);

#endif
