/* test_hostile.c: the hostile-solution suite (issue 14, INTEGRITY.md section 8). Each test
 * grades a planted selftest solution written as an attacker who has read the grader's source
 * (tests/hostile/fixtures/h_*.c) through the host-backend judge, next to an honest twin, and
 * asserts the verdict a fair grader gives: never correct for a cheat that gained anything,
 * correct for the twin. Fixtures report what they saw on stdout ("ESCAPE fork: refused");
 * the tests read it in r.output. The GPU classes live in tests/hostile/gpu (label gpu). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "grader/grade.h"
#include "paths.h"
#include "testutil.h"

static cl_result r;
static cl_result twin;

static void teardown(void)
{
    cl_result_free(&r);
    cl_result_free(&twin);
}

static void grade(cl_result *out, const char *solution, int bench)
{
    tu_grade_host(out, (tu_grade){.lab = "selftest", .solution = solution, .bench = bench, .timeout_s = 60});
}

/* with libresolv banned, as a course config would ban it */
static void grade_banned(cl_result *out, const char *solution)
{
    static const char *const banned[] = {"resolv", NULL};
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.so", TEST_SOLUTIONS, solution);
    cl_grade_opts o = {0};
    o.lab = "selftest";
    o.solution = path;
    o.test = 1;
    o.runner = TEST_HOST_RUNNER;
    o.allow_prebuilt = 1;
    o.have_seed = 1;
    o.seed = 20261122;
    o.timeout_s = 60;
    o.extra_banned_libs = banned;
    cl_err err;
    ck_assert_msg(cl_grade(&o, out, &err) == 0, "cl_grade: %s", err.msg);
}

static void expect_out(const char *needle)
{
    ck_assert_msg(tu_contains(r.output, needle), "wanted '%s' in the solution's output:\n%s", needle,
                  r.output ? r.output : "(none)");
}

static void expect_not_out(const char *needle)
{
    ck_assert_msg(!tu_contains(r.output, needle), "'%s' in the solution's output:\n%s", needle, r.output);
}

static void twin_correct(int bench, const char *solution)
{
    grade(&twin, solution, bench);
    tu_expect(&twin, CL_V_CORRECT, NULL);
}

static const char *vname(const cl_result *x) { return cl_verdict_name(x->verdict); }

/* ---- class 1: a forged verdict ---- */

START_TEST(class1_forged_verdict_is_a_crash)
{
    grade(&r, "h_forge_verdict", 0);
    tu_expect(&r, CL_V_CRASH, NULL);
    expect_out("FORGE own descriptors beyond 0-3: 0");
    /* neither the judge's memory nor cudalab's, where the nonce lives, can be read, and no
     * descriptor of theirs (the verdict pipe) can be opened for writing; their environments
     * may be readable but hold no secret (class 4 looks for the seed there) */
    expect_out("FORGE judge mem: denied");
    expect_out("FORGE cudalab mem: denied");
    expect_not_out("OPENED FOR WRITING");
    twin_correct(0, "good");
}
END_TEST

/* ---- class 2: work after the clock stops, patching the judge ---- */

START_TEST(class2_judge_symbols_are_not_in_the_solutions_process)
{
    grade(&r, "h_patch_judge", 0);
    tu_expect(&r, CL_V_WRONG, NULL);
    expect_out("PATCH cl_engine_after_call: not in this process");
    expect_out("PATCH cl_checker_selftest: not in this process");
    expect_out("PATCH cl_mismatch: not in this process");
    expect_out("PATCH cl_verdict_emit: not in this process");
    expect_not_out("FOUND");
    twin_correct(0, "good");
}
END_TEST

START_TEST(class2_work_after_returning_is_not_seen)
{
    grade(&r, "h_late_thread", 0);
    expect_out("LATE thread started");
    /* checked before the late write (wrong), or after it, on a loaded machine: then the judge
     * sees the outputs changed since its snapshot (off_stream); never a grade */
    ck_assert_msg(r.verdict == CL_V_WRONG || r.verdict == CL_V_OFF_STREAM, "verdict %s: %s", vname(&r), r.message);
    ck_assert(tu_contains(r.message, r.verdict == CL_V_WRONG ? "never written" : "still being written"));
}
END_TEST

/* ---- class 3: rewriting inputs in bench runs ---- */

START_TEST(class3_bench_write_to_input_faults)
{
    grade(&r, "h_bench_write_input", 1);
    tu_expect(&r, CL_V_OUT_OF_BOUNDS, "modified its input 'x'");
    twin_correct(1, "good");
}
END_TEST

START_TEST(class3_input_made_writable_is_caught_by_the_hash)
{
    grade(&r, "h_bench_mprotect_input", 1);
    expect_out("MPROTECT input made writable"); /* the mapping can be made writable again ... */
    tu_expect(&r, CL_V_OUT_OF_BOUNDS, "modified its input 'x'"); /* ... but the hash sees it */
}
END_TEST

/* ---- class 4: the seed ---- */

START_TEST(class4_no_seed_to_find_and_sampling_is_caught)
{
    grade(&r, "h_seed_hunt", 1);
    expect_out("SEED none found");
    expect_not_out("SEED FOUND");
    tu_expect(&r, CL_V_WRONG, "timed run 1");
}
END_TEST

/* ---- class 5: banned libraries behind the loader's back ---- */

START_TEST(class5_twin_with_the_ban_is_correct)
{
    grade_banned(&twin, "good");
    tu_expect(&twin, CL_V_CORRECT, NULL);
}
END_TEST

START_TEST(class5_unlinked_from_the_link_map)
{
    grade_banned(&r, "h_hidden_lib");
    expect_out("HIDE libresolv loaded and unlinked");
    tu_expect(&r, CL_V_BANNED, "libresolv");
}
END_TEST

START_TEST(class5_loaded_by_a_constructor)
{
    grade_banned(&r, "h_ctor_lib");
    expect_out("CTORLIB libresolv loaded from a constructor");
    tu_expect(&r, CL_V_BANNED, "libresolv");
}
END_TEST

START_TEST(class5_mapped_by_hand)
{
    grade_banned(&r, "h_mmap_lib");
    expect_out("MMAP libresolv mapped by hand");
    tu_expect(&r, CL_V_BANNED, "libresolv");
}
END_TEST

START_TEST(class5_copied_into_a_memory_file)
{
    grade_banned(&r, "h_memfd_lib");
    if (tu_contains(r.output, "MEMFD libresolv NOT loaded"))
        tu_expect(&r, CL_V_CORRECT, NULL); /* could not even make the copy: nothing gained */
    else
        ck_assert_msg(r.verdict == CL_V_BANNED, "a banned library loaded from a memory file got %s: %s", vname(&r),
                      r.message);
    if (r.verdict == CL_V_BANNED)
        ck_assert(tu_contains(r.message, "a file it could have made itself"));
}
END_TEST

START_TEST(class5_copied_under_another_name)
{
    grade_banned(&r, "h_renamed_lib");
    if (tu_contains(r.output, "RENAMED libresolv NOT loaded"))
        tu_expect(&r, CL_V_CORRECT, NULL);
    else
        ck_assert_msg(r.verdict == CL_V_BANNED, "a banned library loaded from a renamed copy got %s: %s", vname(&r),
                      r.message);
    if (r.verdict == CL_V_BANNED)
        ck_assert(tu_contains(r.message, "a file it could have made itself"));
}
END_TEST

START_TEST(class5_module_loader_is_banned_where_libraries_are)
{
    grade_banned(&r, "h_cubin_loader");
    tu_expect(&r, CL_V_BANNED, "loads GPU code at run time (cuModuleLoadData)");
    grade(&twin, "h_cubin_loader", 0); /* nothing banned: the same library is fine */
    tu_expect(&twin, CL_V_CORRECT, NULL);
}
END_TEST

/* ---- class 6: patching the timer ---- */

START_TEST(class6_patched_clock_is_off_stream)
{
    grade(&twin, "h_slow_honest", 1);
    tu_expect(&twin, CL_V_CORRECT, NULL);
    grade(&r, "h_patch_clock", 1);
    expect_out("CLOCK libc clock_gettime patched to run at 0.3x");
    tu_expect(&r, CL_V_OFF_STREAM, "disagrees with the judge's clock");
    /* the time on record is the judge's: no faster than the honest twin's (a loaded CI
     * machine: within 20%) */
    const cl_case_result *c = &r.cases[r.ncases - 1], *h = &twin.cases[twin.ncases - 1];
    ck_assert(c->bench && h->bench);
    ck_assert_msg(c->median_ms >= 0.8 * h->median_ms, "patched %.1f ms on record, honest %.1f ms", c->median_ms,
                  h->median_ms);
}
END_TEST

/* Half the runs forged: the case's median alone would sit between the forged and the honest
 * runs; each forged run is timed by the judge's bound instead, so nothing is gained. */
START_TEST(class6_half_the_runs_patched_gain_nothing)
{
    grade(&twin, "h_slow_honest", 1);
    tu_expect(&twin, CL_V_CORRECT, NULL);
    grade(&r, "h_patch_clock_half", 1);
    expect_out("CLOCK libc clock_gettime patched to run at 0.3x");
    ck_assert_msg(r.verdict == CL_V_CORRECT || r.verdict == CL_V_OFF_STREAM, "got %s: %s", vname(&r), r.message);
    const cl_case_result *c = &r.cases[r.ncases - 1], *h = &twin.cases[twin.ncases - 1];
    ck_assert(c->bench && h->bench);
    ck_assert_msg(c->median_ms >= 0.8 * h->median_ms, "half patched %.1f ms on record, honest %.1f ms",
                  c->median_ms, h->median_ms);
    ck_assert_msg(c->off_stream_runs > 0, "no run was timed by the judge's bound");
}
END_TEST

/* ---- class 7: work before the start ---- */

START_TEST(class7_work_before_the_start_is_not_a_grade)
{
    grade(&r, "h_pre_start_thread", 1);
    expect_out("EARLY watcher started");
    ck_assert_msg(r.verdict == CL_V_WRONG || r.verdict == CL_V_OFF_STREAM, "work before the start got %s: %s",
                  vname(&r), r.message);
}
END_TEST

/* ---- class 8: leaving a process behind ---- */

START_TEST(class8_no_process_can_be_made_or_signalled)
{
    char *dir = tu_tempdir("hostile");
    char pidfile[4096];
    snprintf(pidfile, sizeof pidfile, "%s/pids", dir);
    setenv("CUDALAB_TEST_PIDFILE", pidfile, 1);
    grade(&r, "h_escape", 0);
    unsetenv("CUDALAB_TEST_PIDFILE");
    tu_expect(&r, CL_V_CORRECT, NULL);
    const char *what[] = {"fork", "vfork", "posix_spawn", "clone", "setsid", "setpgid", "kill(0)", "kill(-1)",
                          "kill(ppid)", "pdeathsig reset", "subreaper", "dumpable 0", "unshare"};
    for (size_t i = 0; i < sizeof what / sizeof what[0]; i++) {
        char want[64];
        snprintf(want, sizeof want, "ESCAPE %s: refused", what[i]);
        expect_out(want);
    }
    expect_not_out("SUCCEEDED");
    expect_out("ESCAPE capabilities: none"); /* even when the tests run as root */
    /* and were any child made, it is gone */
    FILE *f = fopen(pidfile, "r");
    int pid;
    while (f && fscanf(f, "%d", &pid) == 1)
        ck_assert_msg(!tu_process_alive(pid), "process %d outlived the run", pid);
    if (f)
        fclose(f);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

/* ---- class 9: blame ---- */

START_TEST(class9_constructor_exit_is_the_solutions_crash)
{
    grade(&r, "h_ctor_exit", 0);
    tu_expect(&r, CL_V_CRASH, NULL);
}
END_TEST

START_TEST(class9_constructor_cannot_kill_the_judge)
{
    grade(&r, "h_ctor_kill_parent", 0);
    expect_out("CTOR kill parent: refused");
    expect_out("CTOR kill group: refused");
    tu_expect(&r, CL_V_CRASH, NULL);
}
END_TEST

START_TEST(class9_forged_jail_failure_is_the_solutions_crash)
{
    grade(&r, "h_ctor_forge_jail", 0);
    expect_out("CTOR forged a jail failure: sent");
    ck_assert_msg(r.verdict != CL_V_ERROR, "a constructor's forged jail failure read as cudalab's error: %s",
                  r.message);
    tu_expect(&r, CL_V_CRASH, NULL);
}
END_TEST

START_TEST(class9_sabotaged_mappings_are_the_solutions_fault)
{
    grade(&r, "h_map_sabotage", 0);
    expect_out("SABOTAGE address space capped");
    ck_assert_msg(r.verdict == CL_V_CRASH || r.verdict == CL_V_CUDA_ERROR,
                  "a solution that broke its own process's mappings got %s: %s", vname(&r), r.message);
    ck_assert(tu_contains(r.message, "solution"));
}
END_TEST

/* The Landlock ABI the fixture saw in its jail (its line "TAG abi N"): rights newer than
 * the kernel's are not asserted. */
static int reported_abi(const char *tag)
{
    const char *abi = r.output ? strstr(r.output, tag) : NULL;
    ck_assert_msg(abi, "the fixture did not report the Landlock ABI:\n%s", r.output ? r.output : "(none)");
    return atoi(abi + strlen(tag));
}

/* ---- a class run: another worker's GPU ---- */

START_TEST(class8_another_workers_gpu_cannot_be_opened)
{
    setenv("CUDALAB_TEST_FOREIGN_DEVICE", "/dev/full", 1);
    grade(&r, "h_other_gpu", 0);
    unsetenv("CUDALAB_TEST_FOREIGN_DEVICE");
    tu_expect(&r, CL_V_CORRECT, NULL);
    expect_out("FOREIGN control: OPENED");
    int abi = reported_abi("FOREIGN abi ");
    if (abi >= 1) /* (without Landlock the exec says so in a note, and nothing is hidden) */
        expect_out("FOREIGN rw: refused");
    if (abi >= 5)
        expect_out("FOREIGN ioctl: refused");
}
END_TEST

/* ---- the self-study caches ---- */

START_TEST(caches_cannot_be_written)
{
    char *dir = tu_tempdir("hostile-cache");
    /* the cache folder lives outside the folders the solution may write (not under $TMPDIR
     * or /tmp): beside the build's own test state, as ~/.cache is beside nothing writable */
    char cache[4096];
    snprintf(cache, sizeof cache, "%s/test-state/hostile-cache", TEST_BINARY_DIR);
    /* a checkout under /tmp or /var/tmp (where the solution may write): use the home folder */
    const char *home = getenv("HOME");
    if ((!strncmp(TEST_BINARY_DIR, "/tmp/", 5) || !strncmp(TEST_BINARY_DIR, "/var/tmp/", 9)) && home && *home &&
        strncmp(home, "/tmp", 4))
        snprintf(cache, sizeof cache, "%s/.cache/cudalab-hostile-cache-%d", home, (int)getpid());
    cl_err err;
    ck_assert_int_eq(cl_mkdirs(cache, &err), 0);
    tu_write(cache, "device-HOST-0.json", "{\"copy_gbps\": 100}\n");
    tu_write(cache, "reference-selftest.so", "reference");
    setenv("CUDALAB_TEST_CACHE", cache, 1);
    grade(&r, "h_cache_writer", 0);
    unsetenv("CUDALAB_TEST_CACHE");
    tu_expect(&r, CL_V_CORRECT, NULL);
    expect_out("CACHE device-HOST-0.json: refused");
    expect_out("CACHE device-forged.json: refused");
    expect_out("CACHE reference-selftest.so: refused");
    expect_out("CACHE reference-selftest.so.sass: refused");
    expect_out("CACHE unlink: refused");
    expect_not_out("WRITTEN");
    if (reported_abi("CACHE abi ") >= 3)
        expect_out("CACHE truncate: refused");
    char path[4096], *text;
    size_t n;
    snprintf(path, sizeof path, "%s/device-HOST-0.json", cache);
    ck_assert_int_eq(cl_read_file(path, 1000, &text, &n, &err), 0);
    ck_assert_str_eq(text, "{\"copy_gbps\": 100}\n");
    free(text);
    struct stat st;
    snprintf(path, sizeof path, "%s/device-forged.json", cache);
    ck_assert_int_ne(stat(path, &st), 0);
    snprintf(path, sizeof path, "%s/reference-selftest.so.sass", cache);
    ck_assert_int_ne(stat(path, &st), 0);
    cl_rmtree(cache, &err);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

int main(void)
{
    setenv("CUDALAB_HOME", TEST_SOURCE_DIR "/tests/fixtures/home", 1);
    Suite *s = suite_create("hostile");
    TCase *tc = tcase_create("hostile");
    tcase_set_timeout(tc, 300);
    tcase_add_checked_fixture(tc, NULL, teardown);
    tcase_add_test(tc, class1_forged_verdict_is_a_crash);
    tcase_add_test(tc, class2_judge_symbols_are_not_in_the_solutions_process);
    tcase_add_test(tc, class2_work_after_returning_is_not_seen);
    tcase_add_test(tc, class3_bench_write_to_input_faults);
    tcase_add_test(tc, class3_input_made_writable_is_caught_by_the_hash);
    tcase_add_test(tc, class4_no_seed_to_find_and_sampling_is_caught);
    tcase_add_test(tc, class5_twin_with_the_ban_is_correct);
    tcase_add_test(tc, class5_unlinked_from_the_link_map);
    tcase_add_test(tc, class5_loaded_by_a_constructor);
    tcase_add_test(tc, class5_mapped_by_hand);
    tcase_add_test(tc, class5_copied_into_a_memory_file);
    tcase_add_test(tc, class5_copied_under_another_name);
    tcase_add_test(tc, class5_module_loader_is_banned_where_libraries_are);
    tcase_add_test(tc, class6_patched_clock_is_off_stream);
    tcase_add_test(tc, class6_half_the_runs_patched_gain_nothing);
    tcase_add_test(tc, class7_work_before_the_start_is_not_a_grade);
    tcase_add_test(tc, class8_no_process_can_be_made_or_signalled);
    tcase_add_test(tc, class8_another_workers_gpu_cannot_be_opened);
    tcase_add_test(tc, class9_constructor_exit_is_the_solutions_crash);
    tcase_add_test(tc, class9_constructor_cannot_kill_the_judge);
    tcase_add_test(tc, class9_forged_jail_failure_is_the_solutions_crash);
    tcase_add_test(tc, class9_sabotaged_mappings_are_the_solutions_fault);
    tcase_add_test(tc, caches_cannot_be_written);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
