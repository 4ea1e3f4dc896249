/* select.c: filtering the bank and the seeded, topic-balanced pick. */
#include "questions/select.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "questions/rng.h"

void cl_filter_init(cl_filter *f)
{
    memset(f, 0, sizeof *f);
    f->dmin = 1;
    f->dmax = 5;
}

void cl_filter_free(cl_filter *f)
{
    for (int i = 0; i < f->nowned; i++)
        free(f->owned[i]);
    f->nowned = 0;
}

static int add_list(cl_filter *f, const char **list, int *n, const char *csv)
{
    if (f->nowned >= CL_FILTER_MAX)
        return -1;
    char *copy = strdup(csv);
    if (!copy)
        return -1;
    f->owned[f->nowned++] = copy;
    for (char *save = NULL, *tok = strtok_r(copy, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
        if (*n >= CL_FILTER_MAX)
            return -1;
        list[(*n)++] = tok;
    }
    return 0;
}

int cl_filter_add_topics(cl_filter *f, const char *csv) { return add_list(f, f->topics, &f->ntopics, csv); }
int cl_filter_add_ids(cl_filter *f, const char *csv) { return add_list(f, f->ids, &f->nids, csv); }

int cl_parse_difficulty(const char *s, int *dmin, int *dmax, cl_err *err)
{
    int a, b;
    char extra;
    if (sscanf(s, "%d-%d%c", &a, &b, &extra) == 2) {
        /* range */
    } else if (sscanf(s, "%d%c", &a, &extra) == 1) {
        b = a;
    } else {
        return cl_err_set(err, "difficulty '%s' must be 1..5 or a range like 2-4", s);
    }
    if (a < 1 || b > 5 || a > b)
        return cl_err_set(err, "difficulty '%s' must be 1..5 or a range like 2-4", s);
    *dmin = a;
    *dmax = b;
    return 0;
}

int cl_filter_check(const cl_filter *f, const cl_bank *b, cl_err *err)
{
    for (int i = 0; i < f->ntopics; i++)
        if (!cl_bank_topic(b, f->topics[i])) {
            char known[1024] = "";
            for (int t = 0; t < b->ntopics; t++) {
                strncat(known, b->topics[t].name, sizeof known - strlen(known) - 3);
                if (t + 1 < b->ntopics)
                    strncat(known, ", ", sizeof known - strlen(known) - 1);
            }
            return cl_err_set(err, "no topic '%s' (topics: %s)", f->topics[i], known);
        }
    for (int i = 0; i < f->nids; i++)
        if (!cl_bank_find(b, f->ids[i]))
            return cl_err_set(err, "no question with id '%s'", f->ids[i]);
    return 0;
}

int cl_filter_match(const cl_filter *f, const cl_question *q)
{
    if (f->nids) {
        for (int i = 0; i < f->nids; i++)
            if (!strcmp(f->ids[i], q->id))
                return 1;
        return 0;
    }
    if (q->difficulty < f->dmin || q->difficulty > f->dmax)
        return 0;
    if (!f->ntopics)
        return 1;
    for (int i = 0; i < f->ntopics; i++)
        if (!strcmp(f->topics[i], q->topic))
            return 1;
    return 0;
}

typedef struct cand {
    int index;    /* into the bank */
    int priority;
    int shuffled; /* position after the seeded shuffle */
} cand;

static const cl_bank *g_sort_bank;

static int by_id(const void *a, const void *b)
{
    return strcmp(g_sort_bank->q[*(const int *)a].id, g_sort_bank->q[*(const int *)b].id);
}

static int by_priority(const void *a, const void *b)
{
    const cand *x = a, *y = b;
    if (x->priority != y->priority)
        return x->priority < y->priority ? -1 : 1;
    return x->shuffled - y->shuffled;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int cl_select(const cl_bank *b, const cl_filter *f, uint64_t seed, int n, const int *priority, int *out)
{
    if (n <= 0 || b->nq == 0)
        return 0;
    if (f->nids) { /* explicit questions: in the order given */
        int got = 0;
        for (int i = 0; i < f->nids && got < n; i++) {
            const cl_question *q = cl_bank_find(b, f->ids[i]);
            int dup = 0;
            for (int j = 0; q && j < got; j++)
                dup |= out[j] == (int)(q - b->q);
            if (q && !dup)
                out[got++] = (int)(q - b->q);
        }
        return got;
    }
    int *all = malloc(sizeof(int) * (size_t)b->nq);
    const char **topics = malloc(sizeof(char *) * (size_t)(b->ntopics + 1));
    cand *c = malloc(sizeof(cand) * (size_t)b->nq);
    int *start = calloc((size_t)b->ntopics + 1, sizeof(int));
    int *len = calloc((size_t)b->ntopics + 1, sizeof(int));
    int *order = malloc(sizeof(int) * (size_t)(b->ntopics + 1));
    if (!all || !topics || !c || !start || !len || !order) {
        free(all), free(topics), free(c), free(start), free(len), free(order);
        return 0;
    }
    int m = 0;
    for (int i = 0; i < b->nq; i++)
        if (cl_filter_match(f, &b->q[i]))
            all[m++] = i;
    g_sort_bank = b;
    qsort(all, (size_t)m, sizeof *all, by_id);

    int nt = 0;
    for (int i = 0; i < b->ntopics; i++)
        topics[nt++] = b->topics[i].name;
    qsort(topics, (size_t)nt, sizeof *topics, by_name);

    cl_rng r;
    cl_rng_seed(&r, seed);
    /* group candidates by topic, each group shuffled, then ordered by priority */
    int k = 0;
    for (int t = 0; t < nt; t++) {
        start[t] = k;
        for (int i = 0; i < m; i++)
            if (!strcmp(b->q[all[i]].topic, topics[t])) {
                c[k].index = all[i];
                c[k].priority = priority ? priority[all[i]] : 0;
                k++;
            }
        len[t] = k - start[t];
        int *pos = malloc(sizeof(int) * (size_t)(len[t] ? len[t] : 1));
        for (int i = 0; i < len[t]; i++)
            pos[i] = i;
        cl_rng_shuffle(&r, pos, len[t]);
        for (int i = 0; i < len[t]; i++)
            c[start[t] + i].shuffled = pos[i];
        free(pos);
        qsort(c + start[t], (size_t)len[t], sizeof *c, by_priority);
    }
    /* topics take turns, in a seeded order */
    for (int t = 0; t < nt; t++)
        order[t] = t;
    cl_rng_shuffle(&r, order, nt);
    int got = 0;
    for (int round = 0; got < n; round++) {
        int any = 0;
        for (int j = 0; j < nt && got < n; j++) {
            int t = order[j];
            if (round < len[t]) {
                out[got++] = c[start[t] + round].index;
                any = 1;
            }
        }
        if (!any)
            break;
    }
    free(all), free(topics), free(c), free(start), free(len), free(order);
    return got;
}
