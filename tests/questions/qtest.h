/* qtest.h: helpers shared by the question-engine Check suites. */
#ifndef CUDALAB_QTEST_H
#define CUDALAB_QTEST_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "questions/bank.h"

#ifndef Q_FIXTURES
#error "Q_FIXTURES must point at tests/fixtures/questions"
#endif

/* Collects reported problems. */
typedef struct qt_msgs {
    int n;
    char msg[64][1024];
} qt_msgs;

static inline void qt_collect(void *ctx, const char *m)
{
    qt_msgs *v = ctx;
    if (v->n < 64)
        snprintf(v->msg[v->n], sizeof v->msg[0], "%s", m);
    v->n++;
}

static inline int qt_has(const qt_msgs *v, const char *needle)
{
    for (int i = 0; i < v->n && i < 64; i++)
        if (strstr(v->msg[i], needle))
            return 1;
    return 0;
}

/* Loads a fixture folder that must be clean. */
static inline void qt_load_good(cl_bank *b)
{
    qt_msgs m = {0};
    cl_bank_init(b);
    int problems = cl_bank_load_dir(b, Q_FIXTURES "/good", qt_collect, &m);
    ck_assert_msg(problems == 0, "good fixtures report: %s", m.n ? m.msg[0] : "?");
}

static inline int qt_run(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
