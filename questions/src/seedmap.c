/* seedmap.c: seed-note coverage of the bank, and the seed -> question map. */
#include "questions/seedmap.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "bank_internal.h"
#include "paths.h"

/* "000:03" -> 3000003 style key; -1 when s does not start with an id. */
static long seed_key(const char *s)
{
    char *end;
    if (!isdigit((unsigned char)s[0]))
        return -1;
    long file = strtol(s, &end, 10);
    if (end - s != 3 || *end != ':' || !isdigit((unsigned char)end[1]))
        return -1;
    long q = strtol(end + 1, &end, 10);
    return file * 100000 + q;
}

static int covered(const cl_bank *b, long key)
{
    for (int i = 0; i < b->nq; i++)
        for (int k = 0; k < b->q[i].nseeds; k++)
            if (seed_key(b->q[i].seeds[k]) == key)
                return 1;
    return 0;
}

/* The n-th '|'-separated cell of a table row (0 = the first after the leading '|'). */
static void cell(const char *row, int n, char *out, size_t cap)
{
    const char *p = strchr(row, '|');
    for (int i = 0; p && i < n; i++)
        p = strchr(p + 1, '|');
    out[0] = '\0';
    if (!p)
        return;
    p++;
    const char *e = strchr(p, '|');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    while (len && isspace((unsigned char)*p))
        p++, len--;
    while (len && isspace((unsigned char)p[len - 1]))
        len--;
    if (len >= cap)
        len = cap - 1;
    memcpy(out, p, len);
    out[len] = '\0';
}

static int only_labs(const char *topics)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", topics);
    int any = 0;
    for (char *save = NULL, *t = strtok_r(buf, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
        while (*t == '`')
            t++;
        if (strncmp(t, "lab:", 4))
            return 0;
        any = 1;
    }
    return any;
}

int cl_seed_coverage(const cl_bank *b, const char *list_path, cl_report_fn report, void *ctx)
{
    char *text;
    size_t len;
    cl_err err;
    if (cl_read_file(list_path, 8u << 20, &text, &len, &err)) {
        cl_report_plain(report, ctx, "%s", err.msg);
        return 1;
    }
    int problems = 0, line = 0, nkeys = 0, cap = 0;
    long *keys = NULL;
    for (char *p = text; *p;) {
        line++;
        char *nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        char id[64], topics[512];
        cell(p, 0, id, sizeof id);
        long key = p[0] == '|' ? seed_key(id) : -1;
        if (key >= 0) {
            keys = cl_grow(keys, &cap, nkeys + 1, sizeof *keys);
            keys[nkeys++] = key;
            cell(p, 3, topics, sizeof topics);
            if (!strstr(p, "*scope:*") && !only_labs(topics) && !covered(b, key)) {
                cl_report_plain(report, ctx, "%s:%d: seed %s is not covered by any question (add it to "
                                             "a question's seeds:)", list_path, line, id);
                problems++;
            }
        }
        p = nl ? nl + 1 : p + strlen(p);
    }
    free(text);
    for (int i = 0; i < b->nq; i++)
        for (int k = 0; k < b->q[i].nseeds; k++) {
            long key = seed_key(b->q[i].seeds[k]);
            int known = 0;
            for (int j = 0; j < nkeys && !known; j++)
                known = keys[j] == key;
            if (!known) {
                cl_report_plain(report, ctx, "%s:%d: question '%s' names seed %s, which %s does not list",
                                b->q[i].file, b->q[i].line, b->q[i].id, b->q[i].seeds[k], list_path);
                problems++;
            }
        }
    free(keys);
    return problems;
}

typedef struct pair {
    long key;
    const char *seed;
    const char *id;
} pair;

static int by_key(const void *a, const void *b)
{
    const pair *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return strcmp(x->id, y->id);
}

void cl_seed_map_print(FILE *f, const cl_bank *b)
{
    int n = 0, cap = 0;
    pair *v = NULL;
    for (int i = 0; i < b->nq; i++)
        for (int k = 0; k < b->q[i].nseeds; k++) {
            v = cl_grow(v, &cap, n + 1, sizeof *v);
            v[n++] = (pair){seed_key(b->q[i].seeds[k]), b->q[i].seeds[k], b->q[i].id};
        }
    if (n)
        qsort(v, (size_t)n, sizeof *v, by_key);
    fprintf(f, "| seed | questions |\n|---|---|\n");
    for (int i = 0; i < n;) {
        int j = i;
        fprintf(f, "| %03ld:%02ld |", v[i].key / 100000, v[i].key % 100000);
        for (; j < n && v[j].key == v[i].key; j++)
            fprintf(f, "%s `%s`", j > i ? "," : "", v[j].id);
        fprintf(f, " |\n");
        i = j;
    }
    free(v);
}
