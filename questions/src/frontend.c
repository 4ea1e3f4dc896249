/* frontend.c: bank, database, seed, clock and input set-up for the question commands. */
#include "questions/frontend.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "db.h"
#include "paths.h"
#include "questions/progress.h"
#include "questions/rng.h"

void cl_qf_bank_dir(const char *flag, char *out, size_t n)
{
    if (flag && *flag)
        snprintf(out, n, "%s", flag);
    else
        snprintf(out, n, "%s/questions", cl_home_dir());
}

typedef struct warn_ctx {
    FILE *f;
    int count;
} warn_ctx;

static void warn_report(void *ctx, const char *msg)
{
    warn_ctx *w = ctx;
    if (w->f && w->count < 20)
        fprintf(w->f, "warning: %s\n", msg);
    w->count++;
}

int cl_qf_load_bank(const char *dir, int strict, FILE *warn, cl_bank *b, cl_err *err)
{
    cl_bank_init(b);
    warn_ctx w = {warn, 0};
    int problems = cl_bank_load_dir(b, dir, warn_report, &w);
    if (problems && warn) {
        if (w.count > 20)
            fprintf(warn, "warning: ... and %d more\n", w.count - 20);
        fprintf(warn, "warning: %d problem%s in the question bank (those questions are left out; "
                      "`cudalab lint` lists them)\n", problems, problems == 1 ? "" : "s");
    }
    if (problems && strict) {
        cl_bank_free(b);
        return cl_err_set(err, "the question bank under %s has %d problem%s: fix them first "
                               "(`cudalab lint`)", dir, problems, problems == 1 ? "" : "s");
    }
    if (b->nq == 0) {
        cl_bank_free(b);
        return cl_err_set(err, "no usable questions under %s", dir);
    }
    return 0;
}

int cl_qf_open_db(sqlite3 **db, cl_err *err)
{
    if (cl_db_open(NULL, db, err))
        return -1;
    if (cl_questions_db_init(*db, err)) {
        cl_db_close(*db);
        *db = NULL;
        return -1;
    }
    return 0;
}

int64_t cl_qf_now(void)
{
    const char *s = getenv("CUDALAB_NOW");
    if (s && *s) {
        char *end;
        long long v = strtoll(s, &end, 10);
        if (!*end && v > 0)
            return v;
    }
    return (int64_t)time(NULL);
}

int cl_qf_seed(const char *flag, uint64_t *seed, cl_err *err)
{
    if (flag) {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(flag, &end, 10);
        if (errno || !*flag || *end || *flag == '-')
            return cl_err_set(err, "--seed must be a non-negative integer, not '%s'", flag);
        *seed = v;
        return 0;
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    *seed = cl_seed_mix((uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec, (uint64_t)getpid()) % 1000000000ull;
    return 0;
}

int cl_qf_open_input(const char *path, FILE **in, cl_err *err)
{
    if (!path || !strcmp(path, "-")) {
        *in = stdin;
        return 0;
    }
    *in = fopen(path, "r");
    if (!*in)
        return cl_err_set(err, "cannot open %s: %s", path, strerror(errno));
    return 0;
}

void cl_qf_close_input(FILE *in)
{
    if (in && in != stdin)
        fclose(in);
}

int cl_qf_int(const char *s, const char *what, int lo, int hi, int *out, cl_err *err)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || !*s || *end || v < lo || v > hi)
        return cl_err_set(err, "%s must be an integer from %d to %d, not '%s'", what, lo, hi, s);
    *out = (int)v;
    return 0;
}
