/* test_gen.c: the counter-based generators and fp16 conversion (bit-exact, documented). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "grader/gen.h"
#include "testutil.h"

START_TEST(deterministic_and_seeded)
{
    cl_gen a = {CL_GEN_UNIFORM, 42, -1, 1}, b = {CL_GEN_UNIFORM, 43, -1, 1};
    ck_assert(cl_gen_value(&a, 7) == cl_gen_value(&a, 7));
    ck_assert(cl_gen_value(&a, 7) != cl_gen_value(&b, 7));
    ck_assert(cl_gen_value(&a, 7) != cl_gen_value(&a, 8));
}
END_TEST

START_TEST(uniform_range_and_mean)
{
    cl_gen g = {CL_GEN_UNIFORM, 1, 2.0, 5.0};
    double sum = 0;
    for (uint64_t i = 0; i < 100000; i++) {
        double v = cl_gen_value(&g, i);
        ck_assert(v >= 2.0 && v < 5.0);
        sum += v;
    }
    ck_assert_double_eq_tol(sum / 100000, 3.5, 0.02);
}
END_TEST

START_TEST(normalish_moments)
{
    cl_gen g = {CL_GEN_NORMALISH, 9, 1.0, 2.0};
    double s = 0, s2 = 0;
    int n = 200000;
    for (int i = 0; i < n; i++) {
        double v = cl_gen_value(&g, (uint64_t)i);
        s += v;
        s2 += v * v;
    }
    double mean = s / n, var = s2 / n - mean * mean;
    ck_assert_double_eq_tol(mean, 1.0, 0.02);
    ck_assert_double_eq_tol(sqrt(var), 2.0, 0.03);
}
END_TEST

START_TEST(signed_log_magnitudes)
{
    cl_gen g = {CL_GEN_SIGNED_LOG, 3, -3, 5};
    int neg = 0;
    for (uint64_t i = 0; i < 10000; i++) {
        double v = fabs(cl_gen_value(&g, i));
        ck_assert(v >= 0.125 && v < 64.0);
        neg += cl_gen_value(&g, i) < 0;
    }
    ck_assert(neg > 4000 && neg < 6000);
}
END_TEST

START_TEST(int_range_inclusive)
{
    cl_gen g = {CL_GEN_INT, 5, -2, 2};
    int seen[5] = {0};
    for (uint64_t i = 0; i < 1000; i++) {
        double v = cl_gen_value(&g, i);
        ck_assert(v == floor(v) && v >= -2 && v <= 2);
        seen[(int)v + 2] = 1;
    }
    for (int k = 0; k < 5; k++)
        ck_assert(seen[k]);
}
END_TEST

START_TEST(half_known_values)
{
    ck_assert_uint_eq(cl_f32_to_f16(1.0f), 0x3C00);
    ck_assert_uint_eq(cl_f32_to_f16(-2.0f), 0xC000);
    ck_assert_uint_eq(cl_f32_to_f16(65504.0f), 0x7BFF);
    ck_assert_uint_eq(cl_f32_to_f16(65520.0f), 0x7C00);           /* rounds up to inf */
    ck_assert_uint_eq(cl_f32_to_f16(65519.0f), 0x7BFF);           /* rounds down */
    ck_assert_uint_eq(cl_f32_to_f16(ldexpf(1.0f, -24)), 0x0001);  /* smallest subnormal */
    ck_assert_uint_eq(cl_f32_to_f16(ldexpf(1.0f, -25)), 0x0000);  /* tie to even: zero */
    ck_assert_uint_eq(cl_f32_to_f16(ldexpf(1.0f, -14)), 0x0400);  /* smallest normal */
    ck_assert_uint_eq(cl_f32_to_f16(1.0f + ldexpf(1.0f, -11)), 0x3C00); /* tie to even */
    ck_assert_uint_eq(cl_f32_to_f16(1.0f + 3 * ldexpf(1.0f, -11)), 0x3C02);
    ck_assert_uint_eq(cl_f32_to_f16(INFINITY), 0x7C00);
    ck_assert_uint_eq(cl_f32_to_f16(NAN) & 0x7C00, 0x7C00);
    ck_assert(isnan(cl_f16_to_f32(0x7E00)));
    ck_assert(cl_f16_to_f32(0x3555) == 0.333251953125f);
    ck_assert(cl_f16_to_f32(0x0001) == ldexpf(1.0f, -24));
    ck_assert(cl_f16_to_f32(0x8000) == 0.0f && signbit(cl_f16_to_f32(0x8000)));
}
END_TEST

START_TEST(half_round_trip_all)
{
    /* every finite half converts to float and back to itself */
    for (uint32_t h = 0; h < 0x10000; h++) {
        if ((h & 0x7C00) == 0x7C00)
            continue;
        ck_assert_uint_eq(cl_f32_to_f16(cl_f16_to_f32((uint16_t)h)), h);
    }
}
END_TEST

/* The stream keys split cl_rand64 in two without changing a bit: the word as it was
 * written before the split, against cl_rand64 and the keyed value. */
static uint64_t word_as_written(uint64_t seed, uint64_t i, uint32_t k)
{
    return cl_mix64(cl_mix64(seed ^ (0xD1B54A32D192ED03ull * (uint64_t)(k + 1))) + i);
}

START_TEST(keys_keep_the_words)
{
    for (uint64_t t = 0; t < 1000; t++) {
        uint64_t seed = cl_mix64(t), i = cl_mix64(t + 77) >> (t % 40);
        for (uint32_t k = 0; k < 4; k++) {
            ck_assert_uint_eq(cl_rand64(seed, i, k), word_as_written(seed, i, k));
            ck_assert_uint_eq(cl_mix64(cl_rand_key(seed, k) + i), word_as_written(seed, i, k));
        }
    }
}
END_TEST

/* A span is the values one at a time: every kind, strides 1 and wide, fp32 and fp16. */
START_TEST(spans_are_the_values)
{
    const cl_gen gens[] = {{CL_GEN_UNIFORM, 11, -1, 1}, {CL_GEN_NORMALISH, 12, 0.5, 2.0},
                           {CL_GEN_SIGNED_LOG, 13, -4, 5}, {CL_GEN_INT, 14, -5, 9}};
    const uint64_t firsts[] = {0, 123456789}, strides[] = {1, 4099};
    float span[257];
    for (size_t g = 0; g < sizeof gens / sizeof gens[0]; g++)
        for (int f = 0; f < 2; f++)
            for (int s = 0; s < 2; s++) {
                cl_gen_f32_span(&gens[g], firsts[f], strides[s], 257, span);
                for (int e = 0; e < 257; e++) {
                    float want = cl_gen_f32(&gens[g], firsts[f] + (uint64_t)e * strides[s]);
                    ck_assert(memcmp(&span[e], &want, sizeof want) == 0);
                }
                cl_gen_f16_span(&gens[g], firsts[f], strides[s], 257, span);
                for (int e = 0; e < 257; e++) {
                    float want = cl_f16_to_f32(cl_gen_f16(&gens[g], firsts[f] + (uint64_t)e * strides[s]));
                    ck_assert(memcmp(&span[e], &want, sizeof want) == 0);
                }
            }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("gen");
    TCase *tc = tcase_create("gen");
    tcase_add_test(tc, deterministic_and_seeded);
    tcase_add_test(tc, uniform_range_and_mean);
    tcase_add_test(tc, normalish_moments);
    tcase_add_test(tc, signed_log_magnitudes);
    tcase_add_test(tc, int_range_inclusive);
    tcase_add_test(tc, half_known_values);
    tcase_add_test(tc, half_round_trip_all);
    tcase_add_test(tc, keys_keep_the_words);
    tcase_add_test(tc, spans_are_the_values);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
