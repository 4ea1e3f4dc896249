/* bank_internal.h: helpers shared by the bank's source files (not a public API). */
#ifndef CUDALAB_Q_BANK_INTERNAL_H
#define CUDALAB_Q_BANK_INTERNAL_H

#include <stddef.h>

#include "questions/bank.h"

struct cl_seen_id {
    const char *id;
    const char *file;
    int line;
};

/* Grows a malloc'd array to hold need elements (doubling); aborts when memory is out. */
void *cl_grow(void *p, int *cap, int need, size_t elem);
/* Formats a message and hands it to report (if any). */
void cl_report_plain(cl_report_fn report, void *ctx, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int cl_is_blank(const char *s);

#endif
