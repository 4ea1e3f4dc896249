/* bankstats.c: counting the bank by topic and kind (see bankstats.h). */
#include "questions/bankstats.h"

#include <string.h>

void cl_bank_stats_count(const cl_bank *b, const char *topic, cl_bank_stats *out)
{
    memset(out, 0, sizeof *out);
    for (int i = 0; i < b->nq; i++) {
        const cl_question *q = &b->q[i];
        if (topic && strcmp(q->topic, topic))
            continue;
        out->total++;
        if ((unsigned)q->kind < CL_KIND_N)
            out->by_kind[q->kind]++;
        out->generated += q->family != NULL;
    }
}

double cl_bank_stats_thinking(const cl_bank_stats *s)
{
    return s->total ? (double)(s->by_kind[CL_KIND_APPLY] + s->by_kind[CL_KIND_ANALYSE]) / s->total : 0;
}

static void row(FILE *f, const char *name, const cl_bank_stats *s)
{
    fprintf(f, "| %s | %d | %d | %d | %d | %d | %d | %.0f%% |\n", name, s->total, s->by_kind[CL_KIND_RECALL],
            s->by_kind[CL_KIND_UNDERSTAND], s->by_kind[CL_KIND_APPLY], s->by_kind[CL_KIND_ANALYSE], s->generated,
            100 * cl_bank_stats_thinking(s));
}

void cl_bank_stats_print(FILE *f, const cl_bank *b)
{
    fprintf(f, "| topic | questions | recall | understand | apply | analyse | generated | apply or analyse |\n"
               "|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int t = 0; t < b->ntopics; t++) {
        cl_bank_stats s;
        cl_bank_stats_count(b, b->topics[t].name, &s);
        char name[256];
        snprintf(name, sizeof name, "`%s`", b->topics[t].name);
        row(f, name, &s);
    }
    cl_bank_stats all;
    cl_bank_stats_count(b, NULL, &all);
    row(f, "**all**", &all);
}
