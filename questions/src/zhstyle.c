/* zhstyle.c: the Chinese house-style checks of zhstyle.h. */
#include "questions/zhstyle.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* Decodes the UTF-8 character at s (its length in *len); 0xFFFD on a bad byte. */
static unsigned decode(const unsigned char *s, int *len)
{
    if (s[0] < 0x80) {
        *len = 1;
        return s[0];
    }
    int n = (s[0] & 0xE0) == 0xC0 ? 2 : (s[0] & 0xF0) == 0xE0 ? 3 : (s[0] & 0xF8) == 0xF0 ? 4 : 1;
    unsigned c = n == 2 ? s[0] & 0x1F : n == 3 ? s[0] & 0x0F : s[0] & 0x07;
    for (int i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80) {
            *len = 1;
            return 0xFFFD;
        }
        c = c << 6 | (s[i] & 0x3F);
    }
    *len = n;
    return c;
}

static int is_han(unsigned c)
{
    return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF);
}

static int is_cjk_punct(unsigned c)
{
    return (c >= 0x3000 && c <= 0x303F) || (c >= 0xFF00 && c <= 0xFF0F) || (c >= 0xFF1A && c <= 0xFF20);
}

static const char *const english_units[] = {"bytes", "byte", "sectors", "sector", "blocks", "threads",
                                             "warps", "iterations", "cycles", "elements", "instructions",
                                             "lines", "stages", "tokens", "registers", NULL};

/* The n-th (0-based) character position holds a word boundary after word w? */
static int unit_at(const char *p, const char **unit)
{
    for (const char *const *u = english_units; *u; u++) {
        size_t l = strlen(*u);
        if (!strncmp(p, *u, l) && !isalnum((unsigned char)p[l]) && p[l] != '_') {
            *unit = *u;
            return 1;
        }
    }
    return 0;
}

static void note(int *count, char *msg, size_t n, const char *text, const char *at, const char *what)
{
    if ((*count)++ || !msg)
        return;
    /* context: up to 8 characters either side, cut at UTF-8 boundaries */
    const char *from = at, *to = at;
    for (int i = 0; i < 8 && from > text; i++)
        do
            from--;
        while (from > text && ((unsigned char)*from & 0xC0) == 0x80);
    for (int i = 0; i < 8 && *to; i++) {
        int len;
        decode((const unsigned char *)to, &len);
        to += len;
    }
    char ctx[160];
    size_t len = (size_t)(to - from) < sizeof ctx - 1 ? (size_t)(to - from) : sizeof ctx - 1;
    memcpy(ctx, from, len);
    ctx[len] = '\0';
    for (char *c = ctx; *c; c++)
        if (*c == '\n')
            *c = ' ';
    snprintf(msg, n, "%s: \"%s\"", what, ctx);
}

int cl_zh_style_check(const char *text, char *msg, size_t n)
{
    int count = 0, in_code = 0, line_start = 1, code_line = 0;
    unsigned prev = 0;       /* the previous character */
    unsigned before_sp = 0;  /* the character before a run of spaces */
    int spaces = 0;
    if (msg && n)
        msg[0] = '\0';
    for (const char *p = text; *p;) {
        int len;
        unsigned c = decode((const unsigned char *)p, &len);
        if (line_start)
            code_line = !strncmp(p, "    ", 4);
        line_start = c == '\n';
        if (c == '`')
            in_code = !in_code;
        if (in_code || code_line || c == '`') {
            prev = c == '`' ? 0 : c;
            spaces = 0;
            p += len;
            continue;
        }
        if (c == ' ') {
            if (!spaces)
                before_sp = prev;
            spaces++;
        } else {
            if (spaces && is_han(before_sp) && is_han(c))
                note(&count, msg, n, text, p, "a space between Chinese characters");
            if (c < 128 && c && strchr(",;:?!(", (int)c) && is_han(prev) && !(c == ':' && p[1] == ':'))
                note(&count, msg, n, text, p, "ASCII punctuation after Chinese text (use the full-width form)");
            if (is_cjk_punct(c) && c == prev && c != 0x2014 && c != 0x2026)
                note(&count, msg, n, text, p, "doubled punctuation");
            const char *unit;
            if (isalpha((int)(c < 128 ? c : 0)) && (isdigit((int)(prev < 128 ? prev : 0)) ||
                                                     (spaces && isdigit((int)(before_sp < 128 ? before_sp : 0)))) &&
                unit_at(p, &unit))
                note(&count, msg, n, text, p, "an English unit in Chinese text");
            spaces = 0;
        }
        prev = c;
        p += len;
    }
    return count;
}
