/* testutil.c: see testutil.h. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "paths.h"

char *tu_tempdir(const char *tag)
{
    const char *base = getenv("TMPDIR");
    char tmpl[CL_PATH_MAX];
    snprintf(tmpl, sizeof tmpl, "%s/cudalab-%s-XXXXXX", base && *base ? base : "/tmp", tag);
    char *d = mkdtemp(tmpl);
    return d ? strdup(d) : NULL;
}

void tu_rmtree(const char *dir)
{
    cl_err err;
    if (dir)
        cl_rmtree(dir, &err);
}

const char *tu_write(const char *dir, const char *name, const char *text)
{
    static char path[CL_PATH_MAX];
    cl_path_join(path, sizeof path, dir, name);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    return path;
}

int tu_run(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

int tu_contains(const char *haystack, const char *needle)
{
    return haystack && needle && strstr(haystack, needle) != NULL;
}

static int alive_now(int pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *close = strrchr(buf, ')'); /* the state follows the command name */
    return close && close[1] == ' ' && close[2] != 'Z' && close[2] != 'X';
}

int tu_process_alive(int pid)
{
    for (int i = 0; i < 40; i++) {
        if (!alive_now(pid))
            return 0;
        usleep(50000);
    }
    return 1;
}

void tu_grade_host(cl_result *r, tu_grade g)
{
    char path[CL_PATH_MAX];
    snprintf(path, sizeof path, "%s/%s.so", TEST_SOLUTIONS, g.solution);
    cl_grade_opts o = {0};
    o.lab = g.lab;
    o.solution = path;
    o.test = 1;
    o.bench = g.bench;
    o.no_reference = g.no_reference;
    o.runner = TEST_HOST_RUNNER;
    o.allow_prebuilt = 1;
    o.have_seed = 1;
    o.seed = g.seed ? g.seed : 20261122;
    o.timeout_s = g.timeout_s;
    cl_err err;
    ck_assert_msg(cl_grade(&o, r, &err) == 0, "cl_grade: %s", err.msg);
}

void tu_expect(const cl_result *r, cl_verdict v, const char *needle)
{
    ck_assert_msg(r->verdict == v, "verdict %s (wanted %s): %s", cl_verdict_name(r->verdict), cl_verdict_name(v),
                  r->message ? r->message : "");
    if (needle)
        ck_assert_msg(tu_contains(r->message, needle), "wanted '%s' in: %s", needle, r->message);
}
