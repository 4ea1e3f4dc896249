/* err.h: the one error type of cudalab.
 *
 * Functions that can fail return 0 on success and -1 on failure, and fill a
 * caller-provided cl_err with a message meant for a person ("file:line: what").
 * Nothing deep inside the tool prints or exits; the CLI decides what to show. */
#ifndef CUDALAB_ERR_H
#define CUDALAB_ERR_H

#include <stdarg.h>

typedef struct cl_err {
    char msg[2048];
} cl_err;

/* Sets the message (printf-style). Returns -1 so callers can `return cl_err_set(...)`. */
int cl_err_set(cl_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int cl_err_vset(cl_err *err, const char *fmt, va_list ap);
/* Prepends "prefix: " to an existing message. Returns -1. */
int cl_err_wrap(cl_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
