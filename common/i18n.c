/* i18n.c: the English/Chinese message catalogue, display width and full-width input.
 *
 * One table, keyed by the English text. Keep the Chinese concise, with full-width
 * punctuation (，：；（）) inside Chinese sentences and ASCII around commands and paths. */
#include "i18n.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

typedef struct cl_msg {
    const char *en, *zh;
} cl_msg;

static const cl_msg catalogue[] = {
#include "i18n_catalogue.inc"
};

const char *cl_tr_lang(cl_lang lang, const char *en)
{
    if (lang != CL_LANG_ZH || !en)
        return en;
    for (size_t i = 0; i < sizeof catalogue / sizeof catalogue[0]; i++)
        if (!strcmp(catalogue[i].en, en))
            return catalogue[i].zh;
    return en;
}

const char *cl_tr(const char *en) { return cl_tr_lang(cl_lang_current(), en); }

/* One character of s: its display width and its length in bytes (invalid bytes: 1, 1). */
static int char_width(const char *s, size_t *len)
{
    mbstate_t st;
    memset(&st, 0, sizeof st);
    wchar_t wc;
    size_t n = mbrtowc(&wc, s, MB_CUR_MAX, &st);
    if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
        *len = 1;
        return 1;
    }
    *len = n;
    int w = wcwidth(wc);
    return w < 0 ? 1 : w;
}

int cl_text_width(const char *s)
{
    int w = 0;
    size_t len;
    for (; *s; s += len)
        w += char_width(s, &len);
    return w;
}

void cl_fput_padded(const char *s, int width, void *file)
{
    FILE *f = file;
    int total = cl_text_width(s), w = 0;
    size_t len;
    if (total <= width) {
        fputs(s, f);
        fprintf(f, "%*s", width - total, "");
        return;
    }
    const char *p = s;
    for (; *p; p += len) {
        int cw = char_width(p, &len);
        if (w + cw > width - 1)
            break;
        fwrite(p, 1, len, f);
        w += cw;
    }
    fputs("…", f); /* one column */
    fprintf(f, "%*s", width - w - 1, "");
}

void cl_ascii_fold(char *s)
{
    /* a trailing 。 or ， (and spaces) from an input method */
    for (;;) {
        size_t n = strlen(s);
        while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
            s[--n] = '\0';
        if (n >= 3 && (!strcmp(s + n - 3, "\xe3\x80\x82") || !strcmp(s + n - 3, "\xef\xbc\x8c")))
            s[n - 3] = '\0';
        else
            break;
    }
    char *out = s;
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        /* U+FF01..U+FF5E (EF BC 81 .. EF BD 9E) -> U+0021..U+007E; U+3000 -> ' ' */
        if (p[0] == 0xEF && (p[1] == 0xBC || p[1] == 0xBD) && p[2] >= 0x80 && p[2] <= 0xBF) {
            unsigned cp = 0xF000 | ((unsigned)(p[1] & 0x3F) << 6) | (p[2] & 0x3F);
            if (cp >= 0xFF01 && cp <= 0xFF5E) {
                *out++ = (char)(cp - 0xFEE0);
                p += 3;
                continue;
            }
        }
        if (p[0] == 0xE3 && p[1] == 0x80 && p[2] == 0x80) {
            *out++ = ' ';
            p += 3;
            continue;
        }
        *out++ = (char)*p++;
    }
    *out = '\0';
}
