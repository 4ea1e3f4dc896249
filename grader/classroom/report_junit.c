/* report_junit.c: the class as JUnit XML (one <testsuite> per student), through the
 * engine's own emitter, from the results the gradebook keeps as JSON. */
#include <stdlib.h>
#include <string.h>

#include "grader/classroom.h"
#include "grader/report.h"

int cl_class_junit(const cl_class_report *rep, const char *path, cl_err *err)
{
    int n = rep->nrows;
    cl_result *rs = calloc((size_t)(n ? n : 1), sizeof *rs);
    const cl_result **ptrs = calloc((size_t)(n ? n : 1), sizeof *ptrs);
    const char **names = calloc((size_t)(n ? n : 1), sizeof *names);
    if (!rs || !ptrs || !names) {
        free(rs);
        free(ptrs);
        free(names);
        return cl_err_set(err, "out of memory");
    }
    for (int i = 0; i < n; i++) {
        const cl_grade_row *row = &rep->rows[i];
        if (row->report) {
            cl_result_from_json(row->report, &rs[i]);
        } else { /* nothing submitted (no compile test passes), or not graded */
            cl_result_init(&rs[i]);
            snprintf(rs[i].lab, sizeof rs[i].lab, "%s", row->lab);
            cl_result_set(&rs[i], row->missing ? CL_V_COMPILE_ERROR : CL_V_ERROR, "%s",
                          row->message ? row->message : row->verdict);
            rs[i].max_score = row->max_score;
        }
        rs[i].score = row->score; /* after the late penalty */
        ptrs[i] = &rs[i];
        names[i] = row->student;
    }
    int rc = cl_report_junit(ptrs, names, n, path, err);
    for (int i = 0; i < n; i++)
        cl_result_free(&rs[i]);
    free(rs);
    free(ptrs);
    free(names);
    return rc;
}
