/* phases.h: where grading time goes. With CUDALAB_PHASES=FILE set, the judge and the
 * parent each append one tab-separated line per step to FILE:
 *     LAB <tab> STEP <tab> CASE or - <tab> total=MS [name=MS ...]
 * (a developer's tool, documented in docs/grading-policy.md; nothing reads it back). */
#ifndef CUDALAB_PHASES_H
#define CUDALAB_PHASES_H

/* Whether a file is named. */
int cl_phases_on(void);
/* Appends a line; parts: "name=MS ..." after the total, or NULL. */
void cl_phases_line(const char *lab, const char *step, const char *what, double total_ms, const char *parts);

#endif
