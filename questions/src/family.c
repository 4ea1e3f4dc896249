/* family.c: looking up generators and turning a family entry into a concrete question. */
#include "questions/family.h"

#include <string.h>

const cl_family *cl_family_find(const char *name)
{
    if (!name)
        return NULL;
    for (const cl_family *const *f = cl_family_table; *f; f++)
        if (!strcmp((*f)->name, name))
            return *f;
    return NULL;
}

int cl_question_instantiate(const cl_question *q, uint64_t seed, cl_arena *a, cl_question *out,
                            cl_err *err)
{
    *out = *q;
    if (!q->family)
        return 0;
    const cl_family *f = cl_family_find(q->family);
    if (!f)
        return cl_err_set(err, "%s:%d: unknown family '%s'", q->file ? q->file : "?", q->line,
                          q->family);
    out->seed = seed;
    if (f->generate(out, seed, a, err))
        return cl_err_wrap(err, "family %s (seed %llu)", f->name, (unsigned long long)seed);
    return 0;
}
