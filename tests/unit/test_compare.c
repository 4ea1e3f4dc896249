/* test_compare.c: tolerance arithmetic (cl_close) and sampling. */
#include <math.h>

#include "grader/checker.h"
#include "testutil.h"

START_TEST(close_abs_and_rel)
{
    ck_assert(cl_close(1.0, 1.0, 0, 0));
    ck_assert(cl_close(1.0 + 1e-7, 1.0, 0, 1e-6));
    ck_assert(!cl_close(1.0 + 1e-5, 1.0, 0, 1e-6));
    ck_assert(cl_close(1e-9, 0.0, 1e-8, 0));
    ck_assert(!cl_close(1e-7, 0.0, 1e-8, 0.5)); /* rel of 0 is 0 */
    ck_assert(cl_close(-100.5, -100.0, 0, 0.01));
}
END_TEST

START_TEST(nan_never_close_inf_only_to_itself)
{
    ck_assert(!cl_close(NAN, NAN, 1e300, 1e300));
    ck_assert(!cl_close(NAN, 1.0, 1e300, 1e300));
    ck_assert(!cl_close(1.0, NAN, 1e300, 1e300));
    ck_assert(cl_close(INFINITY, INFINITY, 0, 0));
    ck_assert(!cl_close(-INFINITY, INFINITY, 1e300, 1e300));
    ck_assert(!cl_close(1e308, INFINITY, 1e300, 1e300));
}
END_TEST

START_TEST(unit_roundoffs)
{
    ck_assert(CL_U32 == ldexp(1.0, -24));
    ck_assert(CL_U16 == ldexp(1.0, -11));
}
END_TEST

START_TEST(sample_index_in_range_and_spread)
{
    int hits[10] = {0};
    for (uint64_t k = 0; k < 10000; k++) {
        uint64_t i = cl_sample_index(77, k, 10);
        ck_assert(i < 10);
        hits[i]++;
    }
    for (int b = 0; b < 10; b++)
        ck_assert(hits[b] > 800 && hits[b] < 1200);
    ck_assert_uint_eq(cl_sample_index(1, 1, 0), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("compare");
    TCase *tc = tcase_create("compare");
    tcase_add_test(tc, close_abs_and_rel);
    tcase_add_test(tc, nan_never_close_inf_only_to_itself);
    tcase_add_test(tc, unit_roundoffs);
    tcase_add_test(tc, sample_index_in_range_and_spread);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
