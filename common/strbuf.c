/* strbuf.c: growable string buffer. Allocation failure aborts: there is no sane way
 * to report an error about a message we cannot build. */
#include "strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cl_sb_init(cl_strbuf *sb) { sb->data = NULL; sb->len = sb->cap = 0; }

void cl_sb_free(cl_strbuf *sb) { free(sb->data); cl_sb_init(sb); }

void cl_sb_clear(cl_strbuf *sb) { sb->len = 0; if (sb->data) sb->data[0] = '\0'; }

static void reserve(cl_strbuf *sb, size_t extra)
{
    size_t need = sb->len + extra + 1;
    if (need <= sb->cap)
        return;
    size_t cap = sb->cap ? sb->cap : 64;
    while (cap < need)
        cap *= 2;
    char *p = realloc(sb->data, cap);
    if (!p)
        abort();
    sb->data = p;
    sb->cap = cap;
}

void cl_sb_appendn(cl_strbuf *sb, const char *s, size_t n)
{
    reserve(sb, n);
    memcpy(sb->data + sb->len, s, n);
    sb->len += n;
    sb->data[sb->len] = '\0';
}

void cl_sb_append(cl_strbuf *sb, const char *s) { cl_sb_appendn(sb, s, strlen(s)); }

void cl_sb_printf(cl_strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    reserve(sb, (size_t)n);
    va_start(ap, fmt);
    vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    sb->len += (size_t)n;
}

const char *cl_sb_str(const cl_strbuf *sb) { return sb->data ? sb->data : ""; }

char *cl_sb_take(cl_strbuf *sb)
{
    char *s = sb->data ? sb->data : strdup("");
    cl_sb_init(sb);
    return s;
}

void cl_utf8_scrub(char *s)
{
    unsigned char *p = (unsigned char *)s;
    while (p && *p) {
        int n = *p < 0x80 ? 1 : (*p >> 5) == 0x6 ? 2 : (*p >> 4) == 0xE ? 3 : (*p >> 3) == 0x1E ? 4 : 0;
        int ok = n > 0;
        for (int k = 1; ok && k < n; k++)
            ok = (p[k] & 0xC0) == 0x80;
        if (ok && n == 2 && *p < 0xC2) ok = 0;                       /* overlong */
        if (ok && n == 3 && *p == 0xE0 && p[1] < 0xA0) ok = 0;       /* overlong */
        if (ok && n == 3 && *p == 0xED && p[1] >= 0xA0) ok = 0;      /* surrogates */
        if (ok && n == 4 && (*p > 0xF4 || (*p == 0xF0 && p[1] < 0x90) || (*p == 0xF4 && p[1] >= 0x90))) ok = 0;
        if (!ok) {
            *p++ = '?';
            continue;
        }
        p += n;
    }
}

void cl_sb_append_markup(cl_strbuf *sb, const char *text)
{
    if (!text)
        return;
    char *copy = strdup(text);
    if (!copy)
        return;
    cl_utf8_scrub(copy); /* text a solution printed may be any bytes */
    for (const char *p = copy; *p; p++) {
        unsigned char c = (unsigned char)*p;
        switch (c) {
        case '<': cl_sb_append(sb, "&lt;"); break;
        case '>': cl_sb_append(sb, "&gt;"); break;
        case '&': cl_sb_append(sb, "&amp;"); break;
        case '"': cl_sb_append(sb, "&quot;"); break;
        case '\'': cl_sb_append(sb, "&#39;"); break;
        default:
            if (c < 0x20 && c != '\n' && c != '\t' && c != '\r')
                cl_sb_append(sb, "?");
            else
                cl_sb_appendn(sb, p, 1);
        }
    }
    free(copy);
}
