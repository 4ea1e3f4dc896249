/* class_job.c: what every way of grading a class shares (local workers in class_run.c,
 * Slurm in slurm.c): a job from a submission, progress events, recording a result. */
#include <stdio.h>
#include <string.h>

#include "grader/result.h"
#include "class_internal.h"

void cl_class_event(cl_class_run *r, const char *kind, const char *student, const char *detail)
{
    if (r->o->event)
        r->o->event(r->o->ctx, kind, student, detail, r->done, r->total);
}

void cl_class_fill_job(cl_class_run *r, cl_class_job *job, const cl_submission *s, const char *gpu)
{
    memset(job, 0, sizeof *job);
    job->lab = r->o->lab;
    job->course = &r->course;
    job->rules = r->rules;
    job->sub = s;
    job->seed = cl_student_seed(r->course.secret, r->course.secret_len, r->o->lab, s->student, s->sha256);
    job->runner = r->o->runner;
    job->allow_prebuilt = r->o->allow_prebuilt;
    job->timeout_s = r->o->timeout_s;
    job->arch = r->o->arch;
    job->no_reference = r->o->no_reference;
    job->gpu = gpu;
}

/* Records a finished grading; returns 0 recorded, 1 it was there already, -1 error. */
int cl_class_record(cl_class_run *r, const cl_submission *s, json_t *res, cl_err *err)
{
    json_object_set_new(res, "config_hash", json_string(r->config_hash));
    int rc = cl_gradebook_record(r->db, r->run_id, s, &r->course, &r->rules, res, err);
    const char *v = json_string_value(json_object_get(json_object_get(res, "result"), "verdict"));
    cl_grade_row row; /* the score as the reports will show it: after the late penalty */
    cl_grade_row_from_result(&row, s, &r->rules, &r->course, res);
    char detail[160];
    if (cl_grade_row_scored(&row))
        snprintf(detail, sizeof detail, "%s %.1f", v ? v : cl_verdict_name(CL_V_ERROR), row.score);
    else
        snprintf(detail, sizeof detail, "%s -", v ? v : cl_verdict_name(CL_V_ERROR));
    cl_grade_row_free(&row);
    if (rc == 0)
        r->done++;
    cl_class_event(r, rc == 0 ? "done" : rc > 0 ? "dup" : "error", s->student, rc < 0 ? err->msg : detail);
    return rc;
}
