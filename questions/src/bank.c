/* bank.c: the bank as a whole: loading a folder of topic files, lookups, and the
 * fingerprint that ties an exam paper to the bank it was drawn from. */
#include <ctype.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bank_internal.h"
#include "questions/rng.h"

void cl_report_plain(cl_report_fn report, void *ctx, const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (report)
        report(ctx, msg);
}

int cl_is_blank(const char *s)
{
    for (; s && *s; s++)
        if (!isspace((unsigned char)*s))
            return 0;
    return 1;
}

void cl_bank_init(cl_bank *b)
{
    memset(b, 0, sizeof *b);
    cl_arena_init(&b->arena);
}

void cl_bank_free(cl_bank *b)
{
    cl_arena_free(&b->arena);
    free(b->topics);
    free(b->q);
    free(b->seen);
    memset(b, 0, sizeof *b);
}

void *cl_grow(void *p, int *cap, int need, size_t elem)
{
    if (need <= *cap)
        return p;
    int nc = *cap ? *cap * 2 : 64;
    while (nc < need)
        nc *= 2;
    void *np = realloc(p, (size_t)nc * elem);
    if (!np) {
        fputs("cudalab: out of memory\n", stderr);
        abort();
    }
    *cap = nc;
    return np;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int cl_bank_load_dir(cl_bank *b, const char *dir, cl_report_fn report, void *ctx)
{
    DIR *d = opendir(dir);
    if (!d) {
        cl_report_plain(report, ctx, "%s: cannot open the question folder", dir);
        return 1;
    }
    char **names = NULL;
    int n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (e->d_name[0] == '.' || len < 6 || strcmp(e->d_name + len - 5, ".yaml"))
            continue;
        names = cl_grow(names, &cap, n + 1, sizeof *names);
        names[n++] = strdup(e->d_name);
    }
    closedir(d);
    int problems = 0;
    if (n == 0) {
        cl_report_plain(report, ctx, "%s: no <topic>.yaml files", dir);
        problems = 1;
    }
    if (n)
        qsort(names, (size_t)n, sizeof *names, cmp_str);
    for (int i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        problems += cl_bank_load_file(b, path, report, ctx);
        free(names[i]);
    }
    free(names);
    return problems;
}

/* ---- lookups ----------------------------------------------------------------------- */

const cl_question *cl_bank_find(const cl_bank *b, const char *id)
{
    for (int i = 0; i < b->nq; i++)
        if (!strcmp(b->q[i].id, id))
            return &b->q[i];
    return NULL;
}

const cl_topic *cl_bank_topic(const cl_bank *b, const char *name)
{
    for (int i = 0; i < b->ntopics; i++)
        if (!strcmp(b->topics[i].name, name))
            return &b->topics[i];
    return NULL;
}

static uint64_t hash_more(uint64_t h, const char *s)
{
    return cl_seed_mix(h, cl_hash_str(s ? s : ""));
}

uint64_t cl_bank_fingerprint(const cl_bank *b)
{
    /* order-independent over questions: sum of per-question hashes */
    uint64_t total = 0;
    for (int i = 0; i < b->nq; i++) {
        const cl_question *q = &b->q[i];
        char buf[128];
        uint64_t h = hash_more(0, q->id);
        h = hash_more(h, q->topic);
        h = hash_more(h, q->family ? q->family : cl_qtype_name(q->type));
        snprintf(buf, sizeof buf, "%d/%d/%u/%.17g/%d/%d", q->difficulty, q->answer, q->answer_set,
                 q->number, q->nchoices, q->nitems);
        h = hash_more(h, buf);
        total += h;
    }
    return total;
}

