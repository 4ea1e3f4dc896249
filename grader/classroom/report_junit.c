/* report_junit.c: the class as JUnit XML (one <testsuite> per student), through the
 * engine's own emitter, and cl_result_from_json, which rebuilds a result from the JSON
 * the gradebook keeps. */
#include <stdlib.h>
#include <string.h>

#include "grader/classroom.h"
#include "grader/report.h"

static char *dup_str(json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? strdup(s) : NULL;
}

static double num(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : 0;
}

void cl_result_from_json(json_t *j, cl_result *r)
{
    cl_result_init(r);
    if (!j)
        return;
    const char *s;
    if ((s = json_string_value(json_object_get(j, "lab"))))
        snprintf(r->lab, sizeof r->lab, "%s", s);
    if ((s = json_string_value(json_object_get(j, "title"))))
        snprintf(r->title, sizeof r->title, "%s", s);
    if ((s = json_string_value(json_object_get(j, "solution"))))
        snprintf(r->solution, sizeof r->solution, "%s", s);
    const char *metric = json_string_value(json_object_get(j, "metric"));
    r->metric = metric && !strcmp(metric, "tflops") ? CL_METRIC_TFLOPS
                : metric && !strcmp(metric, "throughput") ? CL_METRIC_THROUGHPUT
                : metric && !strcmp(metric, "time") ? CL_METRIC_TIME
                                                    : CL_METRIC_BANDWIDTH;
    r->seed = (uint64_t)json_integer_value(json_object_get(j, "seed"));
    const char *v = json_string_value(json_object_get(j, "verdict"));
    r->verdict = CL_V_ERROR;
    for (int k = 0; v && k <= CL_V_EXCELLENT; k++)
        if (!strcmp(cl_verdict_name((cl_verdict)k), v))
            r->verdict = (cl_verdict)k;
    r->message = dup_str(j, "message");
    r->detail = dup_str(j, "detail");
    r->score = num(j, "score");
    r->max_score = num(j, "max_score");
    r->passed = (int)json_integer_value(json_object_get(j, "passed"));
    r->total = (int)json_integer_value(json_object_get(j, "total"));
    json_t *comp = json_object_get(j, "compile");
    r->compiled = json_is_true(json_object_get(comp, "ok"));
    r->compile_s = num(comp, "seconds");
    r->compile_log = dup_str(comp, "log");
    if ((s = json_string_value(json_object_get(comp, "arch"))))
        snprintf(r->arch, sizeof r->arch, "%s", s);
    json_t *dev = json_object_get(j, "device");
    if ((s = json_string_value(json_object_get(dev, "name"))))
        snprintf(r->gpu, sizeof r->gpu, "%s", s);
    r->copy_gbps = num(dev, "copy_gbps");
    r->fp16_tflops = num(dev, "fp16_tflops");
    r->output = dup_str(j, "output");
    r->sanitizer = dup_str(j, "sanitizer");
    r->seconds = num(j, "seconds");
    static const char *const tiers[] = {"excellent", "good", "pass", "slow", NULL};
    const char *tier = json_string_value(json_object_get(j, "tier"));
    for (int k = 0; tier && tiers[k]; k++)
        if (!strcmp(tier, tiers[k]))
            r->tier = tiers[k];
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(j, "cases"), i, c) {
        if (r->ncases >= CL_MAX_CASES)
            break;
        cl_case_result *cr = &r->cases[r->ncases++];
        memset(cr, 0, sizeof *cr);
        cr->name = dup_str(c, "name");
        const char *kind = json_string_value(json_object_get(c, "kind"));
        cr->bench = kind && !strcmp(kind, "bench");
        cr->status = dup_str(c, "status");
        cr->message = dup_str(c, "message");
        cr->where = dup_str(c, "where");
        cr->has_values = json_object_get(c, "expected") != NULL;
        cr->expected = num(c, "expected");
        cr->got = num(c, "got");
        cr->shape = dup_str(c, "shape");
        cr->ms = num(c, "ms");
        json_t *b = json_object_get(c, "bench");
        if (b) {
            cr->runs = (int)json_integer_value(json_object_get(b, "runs"));
            cr->median_ms = num(b, "median_ms");
            cr->min_ms = num(b, "min_ms");
            cr->max_ms = num(b, "max_ms");
            cr->bytes = num(b, "bytes");
            cr->flops = num(b, "flops");
            cr->metric = num(b, "metric");
            cr->ceiling = num(b, "ceiling");
            cr->fraction = num(b, "fraction");
            const char *t = json_string_value(json_object_get(b, "tier"));
            for (int k = 0; t && tiers[k]; k++)
                if (!strcmp(t, tiers[k]))
                    cr->tier = tiers[k];
        }
    }
}

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
        } else { /* nothing submitted, or not graded */
            cl_result_init(&rs[i]);
            snprintf(rs[i].lab, sizeof rs[i].lab, "%s", row->lab);
            cl_result_set(&rs[i], CL_V_ERROR, "%s", row->message ? row->message : row->verdict);
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
