/* gen.h: counter-based random inputs, bit-identical on the CPU and the GPU.
 *
 * value(i) depends only on (seed, i), so inputs are generated on the device at memory
 * speed and any element can be recomputed on the CPU for the reference without copying
 * the input back. Only integer arithmetic and exactly-rounded conversions are used, so
 * host and device agree bit for bit (no libm, no FMA contraction).
 *
 * This header is C and CUDA C++: include it from checkers and from .cu files. */
#ifndef CUDALAB_GEN_H
#define CUDALAB_GEN_H

#include <stdint.h>

#if defined(__CUDACC__)
#define CL_HD __host__ __device__ __forceinline__
#else
#define CL_HD static inline
#endif

typedef enum cl_gen_kind {
    CL_GEN_UNIFORM = 0, /* uniform in [a, b) */
    CL_GEN_NORMALISH,   /* mean a, standard deviation b: Irwin-Hall sum of 4 uniforms */
    CL_GEN_SIGNED_LOG,  /* random sign, |x| = 2^e with e uniform in [a, b] (integer a, b) */
    CL_GEN_INT,         /* integer uniform in [a, b] (stored as the dtype's value) */
} cl_gen_kind;

typedef enum cl_dtype { CL_F32 = 0, CL_F16, CL_I32, CL_F64 } cl_dtype;

typedef struct cl_gen {
    int kind;      /* cl_gen_kind */
    uint64_t seed;
    double a, b;
} cl_gen;

/* splitmix64 finaliser: a well-mixed 64-bit hash of x. */
CL_HD uint64_t cl_mix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/* The per-(seed, k) half of cl_rand64: a loop over i computes it once (see cl_gen_keys). */
CL_HD uint64_t cl_rand_key(uint64_t seed, uint32_t k)
{
    return cl_mix64(seed ^ (0xD1B54A32D192ED03ull * (uint64_t)(k + 1)));
}

/* The k-th random 64-bit word of stream (seed, i). */
CL_HD uint64_t cl_rand64(uint64_t seed, uint64_t i, uint32_t k) { return cl_mix64(cl_rand_key(seed, k) + i); }

/* Uniform in [0, 1) with 24 random bits: exact in float and in double. */
CL_HD float cl_unit24(uint64_t r) { return (float)(uint32_t)(r >> 40) * (1.0f / 16777216.0f); }

/* A generator's stream keys (cl_rand_key of its seed for each word a value draws): with
 * them a value costs half the hashing, which is what a CPU reference that regenerates its
 * inputs spends its time on. Written at constant indices, so that on the device they stay
 * in registers (a loop to a count known only at run time put them on the stack). */
#define CL_GEN_KEYS 4
CL_HD void cl_gen_keys(const cl_gen *g, uint64_t key[CL_GEN_KEYS])
{
    key[0] = cl_rand_key(g->seed, 0);
    key[1] = key[2] = key[3] = 0; /* the words this kind does not draw */
    if (g->kind == CL_GEN_NORMALISH || g->kind == CL_GEN_SIGNED_LOG)
        key[1] = cl_rand_key(g->seed, 1);
    if (g->kind == CL_GEN_NORMALISH) {
        key[2] = cl_rand_key(g->seed, 2);
        key[3] = cl_rand_key(g->seed, 3);
    }
}

/* The value at index i, as double, given the keys. Every arithmetic step is exact or
 * exactly rounded once in double, so host and device give the same bits. */
CL_HD double cl_gen_value_keyed(const cl_gen *g, const uint64_t key[CL_GEN_KEYS], uint64_t i)
{
    switch (g->kind) {
    case CL_GEN_NORMALISH: {
        /* sum of 4 U(0,1): mean 2, variance 1/3; scaled to unit variance. The sum of
         * four 24-bit fractions is exact in double; one multiply-add rounds. */
        double s = 0.0;
        for (uint32_t k = 0; k < 4; k++)
            s += (double)cl_unit24(cl_mix64(key[k] + i));
        double z = (s - 2.0) * 1.7320508075688772; /* sqrt(3) */
        return g->a + g->b * z;
    }
    case CL_GEN_SIGNED_LOG: {
        uint64_t r = cl_mix64(key[0] + i);
        int lo = (int)g->a, hi = (int)g->b;
        int e = lo + (int)((r >> 32) % (uint64_t)(hi - lo + 1));
        double m = 1.0 + (double)cl_unit24(cl_mix64(key[1] + i)); /* [1, 2) */
        double p = 1.0;                                            /* exact 2^e */
        if (e >= 0)
            for (int k = 0; k < e; k++) p *= 2.0;
        else
            for (int k = 0; k < -e; k++) p *= 0.5;
        return (r & 1) ? -m * p : m * p;
    }
    case CL_GEN_INT: {
        int64_t lo = (int64_t)g->a, hi = (int64_t)g->b;
        uint64_t span = (uint64_t)(hi - lo) + 1;
        return (double)(lo + (int64_t)(cl_mix64(key[0] + i) % span));
    }
    case CL_GEN_UNIFORM:
    default:
        return g->a + (g->b - g->a) * (double)cl_unit24(cl_mix64(key[0] + i));
    }
}

/* The value at index i, as double. */
CL_HD double cl_gen_value(const cl_gen *g, uint64_t i)
{
    uint64_t key[CL_GEN_KEYS];
    cl_gen_keys(g, key);
    return cl_gen_value_keyed(g, key, i);
}

/* The value as float (the double rounded once to nearest). */
CL_HD float cl_gen_f32(const cl_gen *g, uint64_t i) { return (float)cl_gen_value(g, i); }

/* IEEE binary16 <-> float, round to nearest even, without any CUDA header. */
CL_HD uint16_t cl_f32_to_f16(float f)
{
    union { float f; uint32_t u; } v = {f};
    uint32_t x = v.u, sign = (x >> 16) & 0x8000u;
    uint32_t mag = x & 0x7FFFFFFFu;
    if (mag >= 0x7F800000u) /* inf or nan */
        return (uint16_t)(sign | (mag > 0x7F800000u ? 0x7E00u : 0x7C00u));
    if (mag >= 0x477FF000u) /* rounds to >= 65520: overflow */
        return (uint16_t)(sign | 0x7C00u);
    if (mag < 0x38800000u) { /* below 2^-14: subnormal half or zero */
        if (mag < 0x33000000u)
            return (uint16_t)sign; /* < 2^-25 rounds to zero */
        uint32_t e = mag >> 23, m = (mag & 0x7FFFFFu) | 0x800000u;
        uint32_t shift = 126u - e; /* 14..24 */
        uint32_t h = m >> shift, rem = m & ((1u << shift) - 1u), half = 1u << (shift - 1u);
        if (rem > half || (rem == half && (h & 1u)))
            h++;
        return (uint16_t)(sign | h);
    }
    uint32_t h = ((mag >> 13) - (112u << 10));
    uint32_t rem = mag & 0x1FFFu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u)))
        h++;
    return (uint16_t)(sign | h);
}

CL_HD float cl_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1Fu, m = h & 0x3FFu, u;
    if (e == 0x1Fu) {
        u = sign | 0x7F800000u | (m << 13);
    } else if (e == 0) {
        if (m == 0) {
            u = sign;
        } else { /* subnormal: normalise */
            e = 113;
            while (!(m & 0x400u)) { m <<= 1; e--; }
            u = sign | (e << 23) | ((m & 0x3FFu) << 13);
        }
    } else {
        u = sign | ((e + 112u) << 23) | (m << 13);
    }
    union { uint32_t u; float f; } v = {u};
    return v.f;
}

/* Whether an fp16 bit pattern is a NaN (exponent all ones, mantissa not zero). */
CL_HD int cl_f16_is_nan(uint16_t h) { return (h & 0x7C00u) == 0x7C00u && (h & 0x03FFu); }

/* The value as the nearest fp16 bit pattern (rounded once from float). */
CL_HD uint16_t cl_gen_f16(const cl_gen *g, uint64_t i) { return cl_f32_to_f16(cl_gen_f32(g, i)); }

/* n values, at indices first, first + stride, ..., into out: as cl_gen_f32 gives them
 * (f32_span) or as the fp16 value, widened (f16_span). The keys are made once, so the loop
 * is half the hashing of one cl_gen_value a value. */
CL_HD void cl_gen_f32_span(const cl_gen *g, uint64_t first, uint64_t stride, long long n, float *out)
{
    uint64_t key[CL_GEN_KEYS];
    cl_gen_keys(g, key);
    for (long long e = 0; e < n; e++)
        out[e] = (float)cl_gen_value_keyed(g, key, first + (uint64_t)e * stride);
}
CL_HD void cl_gen_f16_span(const cl_gen *g, uint64_t first, uint64_t stride, long long n, float *out)
{
    uint64_t key[CL_GEN_KEYS];
    cl_gen_keys(g, key);
    for (long long e = 0; e < n; e++)
        out[e] = cl_f16_to_f32(cl_f32_to_f16((float)cl_gen_value_keyed(g, key, first + (uint64_t)e * stride)));
}

#endif
