/* strbuf.h: a growable, always NUL-terminated string buffer. */
#ifndef CUDALAB_STRBUF_H
#define CUDALAB_STRBUF_H

#include <stddef.h>

typedef struct cl_strbuf {
    char *data; /* NUL-terminated; NULL until the first append */
    size_t len;
    size_t cap;
} cl_strbuf;

void cl_sb_init(cl_strbuf *sb);
void cl_sb_free(cl_strbuf *sb);
void cl_sb_clear(cl_strbuf *sb);
void cl_sb_append(cl_strbuf *sb, const char *s);
void cl_sb_appendn(cl_strbuf *sb, const char *s, size_t n);
void cl_sb_printf(cl_strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Returns the contents ("" when empty); valid until the next append. */
const char *cl_sb_str(const cl_strbuf *sb);
/* Hands the heap string to the caller (who frees it) and resets the buffer. */
char *cl_sb_take(cl_strbuf *sb);

/* Appends text escaped for XML and HTML (& < > " '), after scrubbing invalid UTF-8 and
 * replacing the control characters XML 1.0 forbids (all but tab, newline, CR) with '?'. */
void cl_sb_append_markup(cl_strbuf *sb, const char *text);

/* Replaces every byte that is not part of valid UTF-8 with '?', in place, so text a
 * solution printed can always go into JSON and XML. */
void cl_utf8_scrub(char *s);

#endif
