/* family.c: looking up generators and turning a family entry into a concrete question:
 * which variant a draw uses, and the parameters kept for lint's recomputation. */
#include "questions/family.h"

#include <string.h>

#include "questions/rng.h"

const cl_family *cl_family_find(const char *name)
{
    if (!name)
        return NULL;
    for (const cl_family *const *f = cl_family_table; *f; f++)
        if (!strcmp((*f)->name, name))
            return *f;
    return NULL;
}

int cl_family_variant(const cl_question *q, uint64_t seed)
{
    if (q->nvariants <= 0)
        return q->difficulty;
    cl_rng r;
    cl_rng_seed(&r, cl_seed_mix(seed, 0x76617269616e74ULL)); /* "variant" */
    return q->variants[cl_rng_below(&r, (uint32_t)q->nvariants)];
}

void cl_gen_params(cl_question *q, int n, const double *v)
{
    if (n > CL_Q_MAX_PARAMS)
        n = CL_Q_MAX_PARAMS;
    q->nparams = n;
    memcpy(q->params, v, sizeof *v * (size_t)n);
}

int cl_question_instantiate_variant(const cl_question *q, uint64_t seed, int variant, cl_arena *a,
                                    cl_question *out, cl_err *err)
{
    *out = *q;
    if (!q->family)
        return 0;
    const cl_family *f = cl_family_find(q->family);
    if (!f)
        return cl_err_set(err, "%s:%d: unknown family '%s'", q->file ? q->file : "?", q->line,
                          q->family);
    out->seed = seed;
    out->variant = variant;
    out->difficulty = variant; /* the generator reads the variant from difficulty */
    out->kind = CL_KIND_APPLY;
    out->nparams = 0;
    if (f->generate(out, seed, a, err))
        return cl_err_wrap(err, "family %s (seed %llu, variant %d)", f->name, (unsigned long long)seed,
                           variant);
    return 0;
}

int cl_question_instantiate(const cl_question *q, uint64_t seed, cl_arena *a, cl_question *out,
                            cl_err *err)
{
    if (!q->family) {
        *out = *q;
        return 0;
    }
    return cl_question_instantiate_variant(q, seed, cl_family_variant(q, seed), a, out, err);
}
