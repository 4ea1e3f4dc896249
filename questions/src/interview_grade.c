/* interview_grade.c: grading the interview's coding exercise in this process, through the
 * grading library (cl_grade, as `cudalab test` does). A file of its own: grader/grade.h's
 * cl_grade (a function) and questions/grade.h's cl_grade (an answer's grade) cannot meet
 * in one translation unit. */
#include "questions/interview_grade.h"

#include <stdlib.h>
#include <string.h>

#include "grader/grade.h"
#include "grader/progress.h"
#include "grader/workspace.h"
#include "paths.h"

/* "3/8 cases passed; case 'n=33': ..." or the verdict's message alone. */
static void grade_note(const cl_result *r, char *note, size_t nn)
{
    const char *msg = r->message ? r->message : "";
    if (r->total > 0)
        snprintf(note, nn, "%d/%d cases passed%s%.900s", r->passed, r->total, *msg ? "; " : "", msg);
    else
        snprintf(note, nn, "%.1000s", msg);
}

/* The attempt goes to the progress database as `cudalab test` would record it (not when
 * nothing of the candidate's was graded). */
static void record_attempt(sqlite3 *db, const cl_result *r, const char *solution)
{
    if (!db || r->verdict == CL_V_ERROR || r->verdict == CL_V_NO_DEVICE)
        return;
    char *source = NULL;
    size_t len = 0;
    cl_err err;
    if (cl_read_file(solution, 4u << 20, &source, &len, &err))
        source = NULL;
    if (cl_progress_record_source(db, r, "test", source, len, NULL, &err))
        fprintf(stderr, "cudalab interview: the lab's result was not recorded: %s\n", err.msg);
    free(source);
}

int cl_iv_grade_lab(const char *dir, sqlite3 *db, FILE *out, char *verdict, size_t vn, char *note, size_t nn,
                    cl_err *err)
{
    cl_workspace ws;
    int found = cl_workspace_find(dir, &ws, err);
    if (found)
        return found < 0 ? -1 : cl_err_set(err, "%s is not a cudalab workspace", dir);
    cl_grade_opts o = {0};
    o.lab = ws.lab;
    o.solution = ws.solution;
    o.test = 1;
    cl_result r;
    if (cl_grade(&o, &r, err))
        return -1;
    record_attempt(db, &r, ws.solution);
    snprintf(verdict, vn, "%s", cl_verdict_name(r.verdict));
    grade_note(&r, note, nn);
    cl_result_free(&r);
    fprintf(out, "cudalab test: %s%s%s\n", verdict, *note ? " — " : "", note);
    return 0;
}
