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
    suite_add_tcase(s, tc);
    return tu_run(s);
}
