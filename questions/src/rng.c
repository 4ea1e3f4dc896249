/* rng.c: splitmix64, bias-free bounded draws, shuffles and string hashing. */
#include "questions/rng.h"

void cl_rng_seed(cl_rng *r, uint64_t seed) { r->state = seed; }

uint64_t cl_rng_next(cl_rng *r)
{
    uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

uint32_t cl_rng_below(cl_rng *r, uint32_t n)
{
    if (n <= 1)
        return 0;
    /* Lemire's multiply-shift with rejection of the biased low range. */
    uint64_t m = (uint64_t)(uint32_t)(cl_rng_next(r) >> 32) * n;
    uint32_t low = (uint32_t)m;
    if (low < n) {
        uint32_t threshold = (uint32_t)(-n) % n;
        while (low < threshold) {
            m = (uint64_t)(uint32_t)(cl_rng_next(r) >> 32) * n;
            low = (uint32_t)m;
        }
    }
    return (uint32_t)(m >> 32);
}

int cl_rng_range(cl_rng *r, int lo, int hi)
{
    if (hi <= lo)
        return lo;
    return lo + (int)cl_rng_below(r, (uint32_t)(hi - lo + 1));
}

void cl_rng_shuffle(cl_rng *r, int *v, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = (int)cl_rng_below(r, (uint32_t)i + 1);
        int t = v[i];
        v[i] = v[j];
        v[j] = t;
    }
}

uint64_t cl_hash_str(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; s && *s; s++) {
        h ^= (unsigned char)*s;
        h *= 0x100000001b3ull;
    }
    return h;
}

uint64_t cl_seed_mix(uint64_t a, uint64_t b)
{
    cl_rng r;
    cl_rng_seed(&r, a ^ (b * 0xD1B54A32D192ED03ull));
    return cl_rng_next(&r);
}
