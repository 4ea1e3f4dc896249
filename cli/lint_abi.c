/* lint_abi.c: lab.yaml signatures against labs/include/cudalab_lab.h (see lint_abi.h). */
#include "lint_abi.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grader/labconf.h"

/* One spelling for both sides: the header's C aliases become the CUDA names, and
 * whitespace is dropped except between two identifier characters. */
static void normalize(const char *in, char *out, size_t n)
{
    static const char *const alias[][2] = {{"cudalab_stream", "cudaStream_t"}, {"CL_HALF", "__half"}};
    size_t o = 0;
    int pending_space = 0;
    while (*in && o + 32 < n) {
        if (isspace((unsigned char)*in)) {
            pending_space = 1;
            in++;
            continue;
        }
        int is_word = isalnum((unsigned char)*in) || *in == '_';
        if (pending_space && is_word && o > 0 && (isalnum((unsigned char)out[o - 1]) || out[o - 1] == '_'))
            out[o++] = ' ';
        pending_space = 0;
        int replaced = 0;
        for (size_t k = 0; k < sizeof alias / sizeof alias[0]; k++) {
            size_t len = strlen(alias[k][0]);
            if (!strncmp(in, alias[k][0], len) && !(isalnum((unsigned char)in[len]) || in[len] == '_') &&
                (o == 0 || !(isalnum((unsigned char)out[o - 1]) || out[o - 1] == '_'))) {
                o += (size_t)snprintf(out + o, n - o, "%s", alias[k][1]);
                in += len;
                replaced = 1;
                break;
            }
        }
        if (!replaced)
            out[o++] = *in++;
    }
    out[o] = '\0';
}

/* The declaration "<...> entry(...);" in text: start, end (after ';') and line number. */
static int find_decl(const char *text, const char *entry, const char **start, const char **end, int *line)
{
    size_t len = strlen(entry);
    for (const char *p = strstr(text, entry); p; p = strstr(p + 1, entry)) {
        int word_start = p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
        const char *q = p + len;
        while (*q == ' ')
            q++;
        if (!word_start || *q != '(')
            continue;
        const char *s = p; /* back to the start of the line: the return type */
        while (s > text && s[-1] != '\n' && s[-1] != ';' && s[-1] != '/')
            s--;
        const char *e = strchr(q, ';');
        if (!e)
            return -1;
        *start = s;
        *end = e;
        *line = 1;
        for (const char *c = text; c < p; c++)
            *line += *c == '\n';
        return 0;
    }
    return -1;
}

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc(n > 0 ? (size_t)n + 1 : 1);
    size_t got = n > 0 ? fread(buf, 1, (size_t)n, f) : 0;
    buf[got] = '\0';
    fclose(f);
    return buf;
}

int cl_lint_abi(const char *home, void (*report)(void *ctx, const char *msg), void *ctx)
{
    char **names;
    int count, problems = 0;
    cl_err err;
    if (cl_lab_names(home, &names, &count, &err))
        return 0; /* the lab lint reports an unreadable labs folder */
    char header_path[4096], msg[8192];
    snprintf(header_path, sizeof header_path, "%s/labs/include/cudalab_lab.h", home);
    char *header = read_all(header_path);
    if (!header && count > 0) {
        snprintf(msg, sizeof msg, "%s: missing: the ABI header every lab's entry point is declared in", header_path);
        report(ctx, msg);
        cl_lab_names_free(names, count);
        return 1;
    }
    for (int i = 0; i < count; i++) {
        cl_lab lab;
        if (cl_lab_load(home, names[i], &lab, &err))
            continue; /* the lab lint reports a bad lab.yaml */
        const char *s, *e;
        int line;
        if (find_decl(header, lab.entry, &s, &e, &line)) {
            snprintf(msg, sizeof msg, "%s:1: no declaration of %s, the entry point of labs/%s/lab.yaml", header_path,
                     lab.entry, lab.name);
            report(ctx, msg);
            problems++;
        } else {
            char decl[2048], want[2048], got[2048];
            snprintf(decl, sizeof decl, "%.*s", (int)(e - s), s);
            normalize(decl, got, sizeof got);
            normalize(lab.signature, want, sizeof want);
            if (strcmp(got, want)) {
                snprintf(msg, sizeof msg, "%s:%d: %s is declared as '%s', but labs/%s/lab.yaml's signature is '%s'",
                         header_path, line, lab.entry, got, lab.name, want);
                report(ctx, msg);
                problems++;
            }
        }
        cl_lab_free(&lab);
    }
    free(header);
    cl_lab_names_free(names, count);
    return problems;
}
