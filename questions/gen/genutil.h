/* genutil.h: helpers shared by the family generators (private to questions/gen). */
#ifndef CUDALAB_Q_GENUTIL_H
#define CUDALAB_Q_GENUTIL_H

#include <stdint.h>

#include "questions/arena.h"
#include "questions/families.h"
#include "questions/family.h"
#include "questions/question.h"
#include "questions/rng.h"

#define CL_NELEMS(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* A numeric answer with its tolerance (abs or rel) and unit. */
static inline void cl_gen_numeric(cl_question *q, double answer, double tol_abs, double tol_rel,
                                  const char *unit)
{
    q->type = CL_Q_NUMERIC;
    q->number = answer;
    q->tol_abs = tol_abs;
    q->tol_rel = tol_rel;
    q->unit = unit;
}

static inline int cl_gen_pick(cl_rng *r, const int *v, int n) { return v[cl_rng_below(r, (uint32_t)n)]; }

/* The generator's rng for (seed, difficulty). */
static inline void cl_gen_rng(cl_rng *r, uint64_t seed, int difficulty)
{
    cl_rng_seed(r, cl_seed_mix(seed, (uint64_t)difficulty * 0x9E37u + 1));
}

#endif
