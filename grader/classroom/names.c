/* names.c: student ids from the names people and LMSs give (José, 张伟, ALICE).
 *
 * An id keeps the name's letters, digits and combining marks of every script, in Unicode
 * NFC (macOS writes names decomposed, spreadsheets composed: both give one id), plus
 * ASCII "._@+-". Anything else (spaces, quotes, slashes, control and bidi characters,
 * bytes that are not UTF-8) becomes '_'. An id never starts with '.', and is at most
 * CL_ID_MAX_BYTES long, cut between characters: safe as a file name and in a report.
 * Ids are compared by their key: NFC with case folded (ALICE = alice, STRASSE = straße). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "grader/classroom.h"

#define CL_ID_MAX_BYTES 100

static int ascii_ok(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
           c == '-' || c == '@' || c == '+';
}

static int keep_codepoint(utf8proc_int32_t c)
{
    if (c < 0x80)
        return ascii_ok((int)c);
    switch (utf8proc_category(c)) {
    case UTF8PROC_CATEGORY_LU: case UTF8PROC_CATEGORY_LL: case UTF8PROC_CATEGORY_LT:
    case UTF8PROC_CATEGORY_LM: case UTF8PROC_CATEGORY_LO:
    case UTF8PROC_CATEGORY_MN: case UTF8PROC_CATEGORY_MC:
    case UTF8PROC_CATEGORY_ND: case UTF8PROC_CATEGORY_NL: case UTF8PROC_CATEGORY_NO:
        return 1;
    default:
        return 0;
    }
}

/* s as NFC UTF-8 (malloc'd) with extra options; bytes that are not UTF-8 become '_'
 * first. NULL only when out of memory. */
static char *normalize(const char *s, utf8proc_option_t extra, int *replaced)
{
    size_t len = strlen(s);
    char *clean = malloc(len + 1);
    if (!clean)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < len;) {
        utf8proc_int32_t c;
        utf8proc_ssize_t got = utf8proc_iterate((const utf8proc_uint8_t *)s + i, (utf8proc_ssize_t)(len - i), &c);
        if (got <= 0) {
            clean[k++] = '_';
            i++;
            if (replaced)
                *replaced = 1;
            continue;
        }
        memcpy(clean + k, s + i, (size_t)got);
        k += (size_t)got;
        i += (size_t)got;
    }
    clean[k] = '\0';
    utf8proc_uint8_t *out = NULL;
    utf8proc_ssize_t n = utf8proc_map((const utf8proc_uint8_t *)clean, (utf8proc_ssize_t)k, &out,
                                      UTF8PROC_STABLE | UTF8PROC_COMPOSE | extra);
    if (n < 0) { /* cannot happen on valid UTF-8; keep the cleaned bytes */
        free(out);
        return clean;
    }
    free(clean);
    return (char *)out;
}

int cl_student_id(const char *name, char *out, size_t n)
{
    if (n > CL_ID_MAX_BYTES + 1)
        n = CL_ID_MAX_BYTES + 1;
    int changed = 0;
    char *nfc = normalize(name, 0, &changed);
    const char *s = nfc ? nfc : "";
    size_t len = strlen(s), k = 0;
    for (size_t i = 0; i < len;) {
        utf8proc_int32_t c;
        utf8proc_ssize_t got = utf8proc_iterate((const utf8proc_uint8_t *)s + i, (utf8proc_ssize_t)(len - i), &c);
        if (got <= 0)
            got = 1, c = -1;
        int ok = c >= 0 && keep_codepoint(c);
        size_t w = ok ? (size_t)got : 1;
        i += (size_t)got;
        if (k == 0 && c == '.') { /* never a hidden file */
            changed = 1;
            continue;
        }
        if (k + w + 1 > n) { /* too long: cut between characters */
            changed = 1;
            break;
        }
        if (ok)
            memcpy(out + k, s + i - (size_t)got, w);
        else
            out[k] = '_';
        k += w;
        changed |= !ok;
    }
    out[k] = '\0';
    free(nfc);
    if (!k) {
        snprintf(out, n, "_");
        changed = 1;
    }
    return changed;
}

void cl_student_key(const char *id, char *out, size_t n)
{
    char *key = normalize(id, UTF8PROC_CASEFOLD, NULL);
    snprintf(out, n, "%s", key ? key : id);
    free(key);
}
