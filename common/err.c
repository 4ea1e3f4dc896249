/* err.c: formatting of cl_err messages. */
#include "err.h"

#include <stdio.h>
#include <string.h>

int cl_err_vset(cl_err *err, const char *fmt, va_list ap)
{
    if (err)
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    return -1;
}

int cl_err_set(cl_err *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cl_err_vset(err, fmt, ap);
    va_end(ap);
    return -1;
}

int cl_err_wrap(cl_err *err, const char *fmt, ...)
{
    if (!err)
        return -1;
    char prefix[512], old[sizeof err->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    memcpy(old, err->msg, sizeof old);
    snprintf(err->msg, sizeof err->msg, "%s: %s", prefix, old);
    return -1;
}
