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
