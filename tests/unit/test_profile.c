/* test_profile.c: the `bench --profile` summary on a recorded-format ncu raw CSV
 * (tests/fixtures/ncu), unit conversion, and kernel names from host-stub symbols. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grader/profile.h"
#include "paths.h"
#include "testutil.h"

static char *fixture(void)
{
    char *text;
    size_t len;
    cl_err err;
    ck_assert_msg(cl_read_file(TEST_SOURCE_DIR "/tests/fixtures/ncu/transpose_naive_h100.csv", 1 << 20, &text, &len,
                               &err) == 0, "%s", err.msg);
    return text;
}

static int has_finding(json_t *s, const char *id)
{
    size_t i;
    json_t *f;
    json_array_foreach(json_object_get(s, "findings"), i, f)
        if (!strcmp(json_string_value(json_object_get(f, "id")), id))
            return 1;
    return 0;
}

START_TEST(parse_fixture)
{
    char *text = fixture();
    cl_ncu_report rep;
    cl_err err;
    ck_assert_msg(cl_ncu_parse_csv(text, &rep, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(rep.nkernels, 3);
    ck_assert_str_eq(rep.kernels[0].name, "transpose_naive");
    ck_assert_double_eq_tol(cl_ncu_metric(&rep.kernels[0], "dram__bytes_read.sum"), 268501760.0, 0.5);
    ck_assert_double_eq_tol(cl_ncu_metric(&rep.kernels[1], "gpu__time_duration.sum"), 0.00041398, 1e-12);
    ck_assert(isnan(cl_ncu_metric(&rep.kernels[0], "no__such.metric")));
    cl_ncu_report_free(&rep);
    free(text);
}
END_TEST

START_TEST(summary_in_lab_terms)
{
    char *text = fixture();
    cl_ncu_report rep;
    cl_err err;
    ck_assert_int_eq(cl_ncu_parse_csv(text, &rep, &err), 0);
    cl_profile_ctx ctx = {"transpose", "8192x8192", 2.0 * 8192 * 8192 * 4, 2950.0, 0};
    json_t *s = cl_profile_summarize(&rep, &ctx);
    json_t *k = json_array_get(json_object_get(s, "kernels"), 0);
    ck_assert_int_eq(json_array_size(json_object_get(s, "kernels")), 1); /* three launches, one kernel */
    ck_assert_int_eq(json_integer_value(json_object_get(k, "launches")), 3);
    ck_assert_double_eq_tol(json_real_value(json_object_get(k, "dram_gbps")), 1307.15, 0.5);
    ck_assert_double_eq_tol(json_real_value(json_object_get(k, "dram_fraction_of_ceiling")), 1307.15 / 2950, 0.001);
    ck_assert_double_eq_tol(json_real_value(json_object_get(k, "time_us")), 412.06, 0.01);
    json_t *spr = json_object_get(k, "sectors_per_request");
    ck_assert_double_eq_tol(json_real_value(json_object_get(spr, "load")), 4.0, 1e-9);
    ck_assert_double_eq_tol(json_real_value(json_object_get(spr, "store")), 32.0, 1e-9);
    json_t *occ = json_object_get(k, "occupancy");
    ck_assert_str_eq(json_string_value(json_object_get(occ, "limiter")), "warps (block size)");
    json_t *st = json_object_get(k, "stalls");
    ck_assert_int_eq(json_array_size(st), 3);
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(st, 0), "reason")), "long_scoreboard");
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(st, 1), "reason")), "lg_throttle");
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(st, 2), "reason")), "drain");
    /* what it says: latency-bound, strided stores, waiting on memory; not what is absent */
    ck_assert(has_finding(s, "latency_bound"));
    ck_assert(has_finding(s, "uncoalesced_stores"));
    ck_assert(has_finding(s, "top_stall"));
    ck_assert(!has_finding(s, "uncoalesced_loads"));
    ck_assert(!has_finding(s, "bank_conflicts"));
    ck_assert(!has_finding(s, "extra_traffic"));
    ck_assert(!has_finding(s, "bandwidth_near_ceiling"));
    ck_assert(!has_finding(s, "tensor_idle"));
    /* the text names the numbers */
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    cl_profile_print(s, f);
    fclose(f);
    ck_assert_msg(strstr(out, "DRAM 1307 GB/s (44% of ceiling)") && strstr(out, "32.0 sectors per global store"),
                  "%s", out);
    ck_assert_msg(strstr(out, "top stalls long_scoreboard 18.2"), "%s", out);
    free(out);
    /* a lab that must move half the bytes: the extra traffic is named */
    ctx.required_bytes /= 2;
    json_decref(s);
    s = cl_profile_summarize(&rep, &ctx);
    ck_assert(has_finding(s, "extra_traffic"));
    json_decref(s);
    cl_ncu_report_free(&rep);
    free(text);
}
END_TEST

START_TEST(units_and_errors)
{
    const char *csv = "\"ID\",\"Kernel Name\",\"dram__bytes_read.sum\",\"gpu__time_duration.sum\",\"dram__bytes.sum.per_second\"\n"
                      "\"\",\"\",\"Kbyte\",\"usecond\",\"Gbyte/second\"\n"
                      "\"0\",\"k\",\"1,024\",\"2.5\",\"3\"\n";
    cl_ncu_report rep;
    cl_err err;
    ck_assert_msg(cl_ncu_parse_csv(csv, &rep, &err) == 0, "%s", err.msg);
    ck_assert_double_eq_tol(cl_ncu_metric(&rep.kernels[0], "dram__bytes_read.sum"), 1024e3, 1e-6);
    ck_assert_double_eq_tol(cl_ncu_metric(&rep.kernels[0], "gpu__time_duration.sum"), 2.5e-6, 1e-15);
    ck_assert_double_eq_tol(cl_ncu_metric(&rep.kernels[0], "dram__bytes.sum.per_second"), 3e9, 1e-3);
    cl_ncu_report_free(&rep);
    ck_assert_int_eq(cl_ncu_parse_csv("==ERROR== ERR_NVGPUCTRPERM\n", &rep, &err), -1);
    ck_assert(strstr(err.msg, "not an ncu raw CSV"));
    ck_assert_int_eq(cl_ncu_parse_csv("\"ID\",\"Kernel Name\",\"a__b\"\n\"\",\"\",\"\"\n", &rep, &err), -1);
    ck_assert(strstr(err.msg, "no kernel"));
}
END_TEST

START_TEST(kernel_names_from_stubs)
{
    char n[256];
    ck_assert_int_eq(cl_profile_stub_name("_Z87__device_stub__ZN41_GLOBAL__N__b3e3d36c_9_reduce_cu_9613749713reduce_"
                                          "kernelEPKflPfPjS2_PKflPfPjS1_", n, sizeof n), 0);
    ck_assert_str_eq(n, "reduce_kernel");
    ck_assert_int_eq(cl_profile_stub_name("_Z30__device_stub__Z9my_kernelPfS_PfS_", n, sizeof n), 0);
    ck_assert_str_eq(n, "my_kernel");
    ck_assert_int_eq(cl_profile_stub_name("_Z40__device_stub__Z6tile_kILi128EEvPKfPfPKfPf", n, sizeof n), 0);
    ck_assert_str_eq(n, "tile_k");
    /* a template kernel's stub inlined away: nm shows only its statics */
    ck_assert_int_eq(cl_profile_stub_name("_ZZL53__device_stub__Z19transpose_tile_vec4ILi64EEvPKfPfiiiPKfPfiiiE8__handle",
                                          n, sizeof n), 0);
    ck_assert_str_eq(n, "transpose_tile_vec4");
    ck_assert_int_eq(cl_profile_stub_name("_Z3fooi", n, sizeof n), -1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("profile");
    TCase *tc = tcase_create("profile");
    tcase_add_test(tc, parse_fixture);
    tcase_add_test(tc, summary_in_lab_terms);
    tcase_add_test(tc, units_and_errors);
    tcase_add_test(tc, kernel_names_from_stubs);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
