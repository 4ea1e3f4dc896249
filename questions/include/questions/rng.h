/* rng.h: the one random generator of the question bank (splitmix64).
 *
 * Deterministic across machines and compilers, so an exam seed gives every student the
 * same paper and a family seed gives the same numbers everywhere. Never use rand(). */
#ifndef CUDALAB_Q_RNG_H
#define CUDALAB_Q_RNG_H

#include <stdint.h>

typedef struct cl_rng {
    uint64_t state;
} cl_rng;

void cl_rng_seed(cl_rng *r, uint64_t seed);
uint64_t cl_rng_next(cl_rng *r);
/* Uniform in [0, n) (n >= 1), without modulo bias. */
uint32_t cl_rng_below(cl_rng *r, uint32_t n);
/* Uniform in [lo, hi], inclusive. */
int cl_rng_range(cl_rng *r, int lo, int hi);
/* Fisher-Yates. */
void cl_rng_shuffle(cl_rng *r, int *v, int n);
/* FNV-1a 64 of a string. */
uint64_t cl_hash_str(const char *s);
/* Combines two 64-bit values into a well-mixed seed. */
uint64_t cl_seed_mix(uint64_t a, uint64_t b);

#endif
