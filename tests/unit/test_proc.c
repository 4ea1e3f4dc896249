/* test_proc.c: the supervisor: exit codes, signals, timeouts that kill the whole
 * process group, capped output, the verdict pipe, resource limits and the descriptors a
 * child inherits. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "grader/proc.h"
#include "paths.h"
#include "testutil.h"

static int run_sh(const char *script, double timeout, cl_proc_result *r)
{
    char *argv[] = {"/bin/sh", "-c", (char *)script, NULL};
    cl_proc_opts o = {0};
    o.argv = argv;
    o.timeout_s = timeout;
    o.output_cap = 1000;
    o.verdict_pipe = 1;
    cl_err err;
    return cl_proc_run(&o, r, &err);
}

START_TEST(exit_code_and_output)
{
    cl_proc_result r;
    ck_assert_int_eq(run_sh("echo hello; echo err >&2; exit 3", 10, &r), 0);
    ck_assert(r.exited && r.exit_code == 3);
    ck_assert(tu_contains(r.output, "hello") && tu_contains(r.output, "err"));
    cl_proc_result_free(&r);
}
END_TEST

START_TEST(signal_reported)
{
    cl_proc_result r;
    ck_assert_int_eq(run_sh("kill -SEGV $$", 10, &r), 0);
    ck_assert(r.signaled && r.signal == SIGSEGV);
    char how[256];
    cl_proc_describe(&r, 10, how, sizeof how);
    ck_assert(tu_contains(how, "signal 11"));
    cl_proc_result_free(&r);
}
END_TEST

START_TEST(timeout_kills_the_whole_group)
{
    char *dir = tu_tempdir("proc");
    char script[1024];
    /* a grandchild that would outlive its parent, writing its pid first */
    snprintf(script, sizeof script, "(sleep 1000 & echo $! > %s/pid; wait) & sleep 1000", dir);
    cl_proc_result r;
    ck_assert_int_eq(run_sh(script, 1.0, &r), 0);
    ck_assert(r.timed_out);
    ck_assert(r.seconds < 5);
    char path[4096], *text;
    size_t n;
    cl_err err;
    snprintf(path, sizeof path, "%s/pid", dir);
    ck_assert_int_eq(cl_read_file(path, 100, &text, &n, &err), 0);
    pid_t pid = atoi(text);
    free(text);
    ck_assert_msg(!tu_process_alive(pid), "grandchild %d survived the timeout", (int)pid);
    cl_proc_result_free(&r);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(orphans_killed_after_normal_exit)
{
    char *dir = tu_tempdir("proc");
    char script[1024];
    snprintf(script, sizeof script, "sleep 1000 & echo $! > %s/pid; exit 0", dir);
    cl_proc_result r;
    ck_assert_int_eq(run_sh(script, 10, &r), 0);
    ck_assert(r.exited && r.exit_code == 0);
    char path[4096], *text;
    size_t n;
    cl_err err;
    snprintf(path, sizeof path, "%s/pid", dir);
    ck_assert_int_eq(cl_read_file(path, 100, &text, &n, &err), 0);
    pid_t pid = atoi(text);
    free(text);
    ck_assert_msg(!tu_process_alive(pid), "background child %d survived", (int)pid);
    cl_proc_result_free(&r);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(output_is_capped)
{
    cl_proc_result r;
    ck_assert_int_eq(run_sh("yes 0123456789 | head -c 200000", 10, &r), 0);
    ck_assert_uint_eq(r.output_len, 1000);
    ck_assert_uint_eq(r.output_dropped, 199000);
    cl_proc_result_free(&r);
}
END_TEST

static int lines_seen;
static void on_line(void *ctx, const char *line)
{
    (void)ctx;
    if (!strcmp(line, "{\"a\":1}") || !strcmp(line, "{\"b\":2}"))
        lines_seen++;
}

START_TEST(verdict_pipe_and_stdin)
{
    char *argv[] = {"/bin/sh", "-c", "read nonce; echo \"{\\\"a\\\":1}\" >&$1; echo \"{\\\"b\\\":2}\" >&$1; "
                                     "echo \"got $nonce\"", "sh", "{VFD}", NULL};
    cl_proc_opts o = {0};
    o.argv = argv;
    o.timeout_s = 10;
    o.verdict_pipe = 1;
    o.stdin_data = "n0nce\n";
    o.on_line = on_line;
    lines_seen = 0;
    cl_proc_result r;
    cl_err err;
    ck_assert_int_eq(cl_proc_run(&o, &r, &err), 0);
    ck_assert_str_eq(r.verdict, "{\"a\":1}\n{\"b\":2}\n");
    ck_assert_int_eq(lines_seen, 2);
    ck_assert(tu_contains(r.output, "got n0nce"));
    cl_proc_result_free(&r);
}
END_TEST

START_TEST(file_size_limit)
{
    char *dir = tu_tempdir("proc");
    char script[1024];
    snprintf(script, sizeof script, "head -c 5000000 /dev/zero > %s/big", dir);
    char *argv[] = {"/bin/sh", "-c", script, NULL};
    cl_proc_opts o = {0};
    o.argv = argv;
    o.timeout_s = 10;
    o.max_file_bytes = 1 << 20;
    cl_proc_result r;
    cl_err err;
    ck_assert_int_eq(cl_proc_run(&o, &r, &err), 0);
    ck_assert(!(r.exited && r.exit_code == 0)); /* head got SIGXFSZ or an error */
    cl_proc_result_free(&r);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

/* Descriptors the parent holds do not reach the child: only stdin, stdout, stderr and the
 * verdict pipe are open there. One of them sits past 65536 where the limit allows (the old
 * close loop stopped at 65536). */
START_TEST(no_descriptor_leaks)
{
    struct rlimit rl;
    ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
    struct rlimit raised = rl;
    if (raised.rlim_max == RLIM_INFINITY || raised.rlim_max > 70001)
        raised.rlim_cur = 70001;
    else
        raised.rlim_cur = raised.rlim_max;
    setrlimit(RLIMIT_NOFILE, &raised);
    ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &raised), 0);
    int low = open("/dev/null", O_RDONLY);                   /* an ordinary descriptor, no CLOEXEC */
    int high = dup2(low, (int)raised.rlim_cur - 1);          /* the highest one the limit allows */
    ck_assert(low >= 3 && high > low);
    char script[256];
    snprintf(script, sizeof script, "ls /proc/self/fd | tr '\\n' ' '; test -e /proc/self/fd/%d && echo LEAK-LOW; "
             "test -e /proc/self/fd/%d && echo LEAK-HIGH; exit 0", low, high);
    cl_proc_result r;
    ck_assert_int_eq(run_sh(script, 10, &r), 0);
    ck_assert_msg(!tu_contains(r.output, "LEAK"), "a descriptor reached the child: %s (low %d, high %d)", r.output,
                  low, high);
    cl_proc_result_free(&r);
    close(low);
    close(high);
    setrlimit(RLIMIT_NOFILE, &rl);
}
END_TEST

START_TEST(missing_program)
{
    char *argv[] = {"/nonexistent/program", NULL};
    cl_proc_opts o = {0};
    o.argv = argv;
    o.timeout_s = 5;
    cl_proc_result r;
    cl_err err;
    ck_assert_int_eq(cl_proc_run(&o, &r, &err), 0);
    ck_assert(r.exited && r.exit_code == 127);
    ck_assert(tu_contains(r.output, "cannot run"));
    cl_proc_result_free(&r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("proc");
    TCase *tc = tcase_create("proc");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, exit_code_and_output);
    tcase_add_test(tc, signal_reported);
    tcase_add_test(tc, timeout_kills_the_whole_group);
    tcase_add_test(tc, orphans_killed_after_normal_exit);
    tcase_add_test(tc, output_is_capped);
    tcase_add_test(tc, verdict_pipe_and_stdin);
    tcase_add_test(tc, file_size_limit);
    tcase_add_test(tc, no_descriptor_leaks);
    tcase_add_test(tc, missing_program);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
