/* timeparse.c: the dates a grade depends on, read completely or refused, never guessed.
 *
 *   cl_parse_time      RFC 3339 with its zone: "2026-11-20T14:22:32.365935-08:00" (Gradescope),
 *                      "2026-12-01T23:59:00Z"; fractional seconds of any length
 *   cl_parse_deadline  what a course writes: an RFC 3339 time; a local time
 *                      "2026-12-01T23:59"; or a date "2026-12-01", meaning the end of that day
 *                      (23:59:59). Local times are in the course's time zone (an IANA name,
 *                      `timezone:`); without one they are refused, not taken as UTC.
 * Impossible dates (2026-02-30, 24:00, offsets past ±23:59) are refused. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "grader/classroom.h"

typedef struct when {
    int Y, M, D, h, m, s;
    int has_time, has_zone;
    long offset; /* seconds east of UTC */
} when;

static int digits(const char **p, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        char c = (*p)[i];
        if (c < '0' || c > '9')
            return -1;
        v = v * 10 + (c - '0');
    }
    *p += n;
    *out = v;
    return 0;
}

static int days_in_month(int Y, int M)
{
    static const int d[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int leap = (Y % 4 == 0 && Y % 100 != 0) || Y % 400 == 0;
    return M == 2 && leap ? 29 : d[M - 1];
}

static int parse(const char *s, when *w)
{
    memset(w, 0, sizeof *w);
    const char *p = s;
    if (digits(&p, 4, &w->Y) || *p++ != '-' || digits(&p, 2, &w->M) || *p++ != '-' || digits(&p, 2, &w->D))
        return -1;
    if (w->M < 1 || w->M > 12 || w->D < 1 || w->D > days_in_month(w->Y, w->M))
        return -1;
    if (*p == 'T' || *p == 't' || *p == ' ') {
        p++;
        if (digits(&p, 2, &w->h) || *p++ != ':' || digits(&p, 2, &w->m))
            return -1;
        if (*p == ':') {
            p++;
            if (digits(&p, 2, &w->s))
                return -1;
            if (*p == '.' || *p == ',') { /* fractions of a second: read, then dropped */
                p++;
                if (*p < '0' || *p > '9')
                    return -1;
                while (*p >= '0' && *p <= '9')
                    p++;
            }
        }
        if (w->h > 23 || w->m > 59 || w->s > 60)
            return -1;
        if (w->s == 60) /* a leap second: the last second of its minute */
            w->s = 59;
        w->has_time = 1;
        if (*p == 'Z' || *p == 'z') {
            p++;
            w->has_zone = 1;
        } else if (*p == '+' || *p == '-') {
            int sign = *p++ == '-' ? -1 : 1, oh, om;
            if (digits(&p, 2, &oh))
                return -1;
            if (*p == ':')
                p++;
            if (digits(&p, 2, &om) || oh > 23 || om > 59)
                return -1;
            w->offset = sign * (oh * 3600L + om * 60L);
            w->has_zone = 1;
        }
    }
    return *p ? -1 : 0;
}

static struct tm tm_of(const when *w)
{
    struct tm tm = {0};
    tm.tm_year = w->Y - 1900;
    tm.tm_mon = w->M - 1;
    tm.tm_mday = w->D;
    tm.tm_hour = w->h;
    tm.tm_min = w->m;
    tm.tm_sec = w->s;
    tm.tm_isdst = -1;
    return tm;
}

static long long utc_of(const when *w)
{
    struct tm tm = tm_of(w);
    return (long long)timegm(&tm) - w->offset;
}

int cl_parse_time(const char *s, long long *out)
{
    when w;
    if (!s || parse(s, &w) || !w.has_time || !w.has_zone)
        return -1;
    *out = utc_of(&w);
    return 0;
}

int cl_timezone_valid(const char *tz)
{
    if (!tz || !*tz || tz[0] == '/' || strstr(tz, ".."))
        return 0;
    if (!strcmp(tz, "UTC"))
        return 1;
    const char *dir = getenv("TZDIR");
    char path[CL_PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir && *dir ? dir : "/usr/share/zoneinfo", tz);
    return access(path, R_OK) == 0;
}

/* The Unix time of a wall-clock time in zone tz (the process's TZ is put back). */
static long long local_to_utc(const when *w, const char *tz)
{
    char *old = getenv("TZ") ? strdup(getenv("TZ")) : NULL;
    setenv("TZ", tz, 1);
    tzset();
    struct tm tm = tm_of(w);
    long long t = (long long)mktime(&tm);
    if (old) {
        setenv("TZ", old, 1);
        free(old);
    } else {
        unsetenv("TZ");
    }
    tzset();
    return t;
}

int cl_parse_deadline(const char *s, const char *tz, long long *out, char *why, size_t n)
{
    when w;
    if (!s || parse(s, &w)) {
        snprintf(why, n, "deadline '%s' is not a date (2026-12-01), a local time (2026-12-01T23:59) or an "
                         "RFC 3339 time (2026-12-01T23:59:00-05:00); is the day in its month?", s ? s : "");
        return -1;
    }
    if (w.has_zone) {
        *out = utc_of(&w);
        return 0;
    }
    if (!tz || !*tz) {
        snprintf(why, n, "deadline '%s' names no time zone: add `timezone: America/New_York` (the course's, "
                         "an IANA name) at the top of the course config, or give an offset (%.10sT23:59:59-05:00)",
                 s, s);
        return -1;
    }
    if (!w.has_time) { /* a date: the whole of that day is on time */
        w.h = 23;
        w.m = 59;
        w.s = 59;
    }
    *out = local_to_utc(&w, tz);
    return 0;
}
