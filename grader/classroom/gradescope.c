/* gradescope.c: `cudalab gradescope`, inside Gradescope's autograder container.
 *
 * Reads the submission (/autograder/submission) and its metadata, grades it exactly as
 * `cudalab grade` would (stage, sandbox, course rules, per-student seed), and writes
 * /autograder/results/results.json in Gradescope's format: score, execution_time, output,
 * tests[] (one per correctness case, one for performance, one for a late penalty; each
 * with score, max_score, status, output, visibility) and leaderboard[]. The seed is not
 * shown to the student: it would let them precompute answers. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "grader/result.h"
#include "class_internal.h"
#include "strbuf.h"

static json_t *test(const char *name, double score, double max, int passed, const char *output, const char *vis)
{
    json_t *t = json_object();
    json_object_set_new(t, "name", json_string(name));
    json_object_set_new(t, "score", json_real(score));
    json_object_set_new(t, "max_score", json_real(max));
    json_object_set_new(t, "status", json_string(passed ? "passed" : "failed"));
    if (output && *output)
        json_object_set_new(t, "output", json_string(output));
    json_object_set_new(t, "visibility", json_string(vis));
    return t;
}

/* One test per correctness case (or one for the whole part when none ran: the compile
 * log or the verdict says why), worth w_correct together; *ncases and *passed counted. */
static void correctness_tests(const cl_grade_row *row, double w_correct, const char *vis, json_t *tests,
                              int *ncases_out, int *passed_out)
{
    json_t *rep = row->report;
    int ncases = 0, passed = 0;
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(rep, "cases"), i, c) {
        const char *kind = json_string_value(json_object_get(c, "kind"));
        if (!kind || strcmp(kind, "bench"))
            ncases++;
    }
    if (ncases == 0) {
        cl_strbuf m;
        cl_sb_init(&m);
        cl_sb_printf(&m, "%s: %s", row->verdict, row->message ? row->message : "");
        const char *log = json_string_value(json_object_get(json_object_get(rep, "compile"), "log"));
        if (log && *log)
            cl_sb_printf(&m, "\n\n%s", log);
        json_array_append_new(tests, test("correctness", 0, w_correct, 0, cl_sb_str(&m), vis));
        cl_sb_free(&m);
    } else {
        double each = w_correct / ncases;
        json_array_foreach(json_object_get(rep, "cases"), i, c) {
            const char *kind = json_string_value(json_object_get(c, "kind"));
            if (kind && !strcmp(kind, "bench"))
                continue;
            const char *st = json_string_value(json_object_get(c, "status"));
            int ok = cl_case_passed(st);
            passed += ok;
            char name[256], msg[1024] = "";
            snprintf(name, sizeof name, "correctness: %s", json_string_value(json_object_get(c, "name")));
            if (!ok) {
                const char *where = json_string_value(json_object_get(c, "where"));
                json_t *e = json_object_get(c, "expected");
                if (where && json_is_number(e))
                    snprintf(msg, sizeof msg, "%s\nat %s: expected %.9g, got %.9g",
                             json_string_value(json_object_get(c, "message")) ?: st ?: "failed", where,
                             json_number_value(e), json_number_value(json_object_get(c, "got")));
                else
                    snprintf(msg, sizeof msg, "%s", json_string_value(json_object_get(c, "message")) ?: st ?: "failed");
            }
            json_array_append_new(tests, test(name, ok ? each : 0, each, ok, msg, vis));
        }
    }
    *ncases_out = ncases;
    *passed_out = passed;
}

/* The performance test (what the tier earned) and the late penalty, when there is one. */
static void performance_tests(const cl_grade_row *row, double w_correct, double w_top, int ncases, int passed,
                              const char *vis, json_t *tests)
{
    double perf = row->raw_score - (ncases ? w_correct * passed / ncases : 0);
    if (perf < 0)
        perf = 0;
    char pmsg[512];
    if (row->metric > 0 && row->fraction > 0)
        snprintf(pmsg, sizeof pmsg, "%.4g %s, %.1f%% of this GPU's ceiling; tier: %s", row->metric, row->metric_unit,
                 row->fraction * 100, row->tier[0] ? row->tier : "none");
    else if (row->metric > 0)
        snprintf(pmsg, sizeof pmsg, "%.4g %s, no ceiling measured to compare with; tier: %s", row->metric,
                 row->metric_unit, row->tier[0] ? row->tier : "none");
    else
        snprintf(pmsg, sizeof pmsg, "not timed: only a solution that passes every correctness case is");
    json_array_append_new(tests, test("performance", perf, w_top, perf > 0, pmsg, vis));
    if (row->late_days > 0) {
        char lmsg[128];
        snprintf(lmsg, sizeof lmsg, "%d day%s late: -%.0f%%", row->late_days, row->late_days == 1 ? "" : "s",
                 row->penalty * 100);
        json_array_append_new(tests, test("late penalty", -row->raw_score * row->penalty, 0, 0, lmsg, vis));
    }
}

/* The text a student reads on Gradescope: verdict, score, details, what the solution printed. */
static json_t *results_output(const cl_grade_row *row)
{
    json_t *rep = row->report;
    cl_strbuf o;
    cl_sb_init(&o);
    cl_sb_printf(&o, "%s: %s\nscore %.1f / %.0f\n", row->verdict, row->message ? row->message : "", row->score,
                 row->max_score);
    const char *detail = json_string_value(json_object_get(rep, "detail"));
    if (detail && *detail && !cl_verdict_is(row->verdict, CL_V_COMPILE_ERROR))
        cl_sb_printf(&o, "\n%s\n", detail);
    const char *sol_out = json_string_value(json_object_get(rep, "output"));
    if (sol_out && *sol_out) {
        size_t len = strlen(sol_out);
        cl_sb_printf(&o, "\nwhat your solution printed%s:\n%s\n", len > 4000 ? " (the last 4000 bytes)" : "",
                     len > 4000 ? sol_out + len - 4000 : sol_out);
    }
    json_t *text = json_string(cl_sb_str(&o));
    cl_sb_free(&o);
    return text;
}

json_t *cl_gradescope_results(const cl_grade_row *row, const cl_lab *lab, const cl_course_rules *rules,
                              int leaderboard)
{
    const char *vis = rules && rules->have_visibility ? rules->visibility : "visible";
    double w_correct = rules && rules->have_weights ? rules->w_correct : lab->w_correct;
    double w_top = rules && rules->have_weights ? rules->w_excellent : lab->w_excellent;
    json_t *out = json_object();
    json_t *tests = json_array();
    int ncases, passed;
    correctness_tests(row, w_correct, vis, tests, &ncases, &passed);
    performance_tests(row, w_correct, w_top, ncases, passed, vis, tests);
    json_object_set_new(out, "tests", tests);
    json_object_set_new(out, "score", json_real(row->score));
    json_object_set_new(out, "execution_time", json_integer((json_int_t)(row->seconds + 0.5)));
    json_object_set_new(out, "output", results_output(row));
    json_object_set_new(out, "output_format", json_string("text"));
    json_object_set_new(out, "visibility", json_string(vis));
    json_object_set_new(out, "stdout_visibility", json_string("hidden"));
    if (leaderboard) {
        json_t *lb = json_array();
        if (row->metric > 0)
            json_array_append_new(lb, json_pack("{s:s, s:f, s:s}", "name", row->metric_unit, "value", row->metric,
                                                "order", strcmp(row->metric_unit, "ms") ? "desc" : "asc"));
        json_array_append_new(lb, json_pack("{s:s, s:f, s:s}", "name", "score", "value", row->score, "order", "desc"));
        json_object_set_new(out, "leaderboard", lb);
    }
    return out;
}

/* ---- the command ---- */

static void protect_path(const char *path)
{
    struct stat st;
    if (!path || !*path || geteuid() != 0 || stat(path, &st) != 0)
        return;
    chmod(path, (st.st_mode & 07700) & ~(mode_t)S_ISUID); /* root's only */
}

/* Who handed the submission in and when, from Gradescope's metadata. A created_at that
 * cannot be read completely is refused when a deadline depends on it (never guessed). */
static int read_metadata(const cl_gradescope_opts *o, const cl_course_rules *rules, cl_submission *s, cl_err *err)
{
    snprintf(s->student, sizeof s->student, "student");
    json_t *meta = o->metadata_path ? json_load_file(o->metadata_path, 0, NULL) : NULL;
    const char *created = NULL;
    if (meta) {
        json_t *u = json_array_get(json_object_get(meta, "users"), 0);
        json_t *id = json_object_get(u, "id");
        if (json_is_integer(id))
            snprintf(s->student, sizeof s->student, "%lld", (long long)json_integer_value(id));
        else if (json_is_string(id))
            cl_student_id(json_string_value(id), s->student, sizeof s->student);
        const char *nm = json_string_value(json_object_get(u, "name"));
        const char *em = json_string_value(json_object_get(u, "email"));
        snprintf(s->name, sizeof s->name, "%s", nm ? nm : s->student);
        snprintf(s->email, sizeof s->email, "%s", em ? em : "");
        created = json_string_value(json_object_get(meta, "created_at"));
    }
    int rc = 0;
    long long t;
    if (created && cl_parse_time(created, &t) == 0)
        s->submitted_at = t;
    else if (rules->have_deadline)
        rc = cl_err_set(err, "the submission's time (created_at %s%s%s in %s) cannot be read, and the deadline "
                             "depends on it: not graded",
                        created ? "'" : "", created ? created : "missing", created ? "'" : "",
                        o->metadata_path ? o->metadata_path : "(no metadata)");
    else
        s->submitted_at = (long long)time(NULL); /* no deadline: the time changes nothing */
    json_decref(meta);
    if (!s->name[0])
        snprintf(s->name, sizeof s->name, "%s", s->student);
    return rc;
}

/* The submission folder Gradescope unpacked, hashed as `cudalab grade` hashes a folder. */
static int read_submission(const cl_gradescope_opts *o, cl_submission *s, cl_err *err)
{
    if (!cl_dir_exists(o->submission))
        return cl_err_set(err, "the submission folder %s does not exist", o->submission);
    snprintf(s->path, sizeof s->path, "%s", o->submission);
    snprintf(s->entry, sizeof s->entry, "submission");
    s->kind = CL_SUB_DIR;
    long long when;
    return cl_intake_hash(o->submission, s->sha256, &when, err);
}

/* Keeps the grader's files (results, metadata, course, secret) from the submission. */
static int hide_grader_files(const cl_gradescope_opts *o, const cl_course *course, cl_class_rt *rt, cl_err *err)
{
    char results_dir[CL_PATH_MAX];
    snprintf(results_dir, sizeof results_dir, "%s", o->results_path);
    char *slash = strrchr(results_dir, '/');
    if (slash)
        *slash = '\0';
    if (cl_mkdirs(results_dir, err))
        return -1;
    const char *hide[] = {results_dir, o->metadata_path, course->path[0] ? course->path : NULL,
                          course->secret_path[0] ? course->secret_path : NULL};
    for (size_t i = 0; i < sizeof hide / sizeof hide[0]; i++) {
        protect_path(hide[i]);
        cl_sandbox_hide(&rt->sb, hide[i]);
    }
    return 0;
}

/* results.json and the optional full report, from the graded row. A result that holds no
 * grade (no GPU, cudalab failed) gets no score: Gradescope shows the instructor a failed
 * autograder run to rerun, and the student pays nothing for the machine. */
static int write_results(const cl_gradescope_opts *o, const cl_grade_row *row, const cl_lab *lab,
                         const cl_course_rules *rules, const cl_course *course, cl_err *err)
{
    json_t *gs;
    if (cl_grade_row_scored(row)) {
        gs = cl_gradescope_results(row, lab, rules, course->leaderboard);
    } else {
        char msg[1400];
        snprintf(msg, sizeof msg, "The autograder could not grade this submission (%s): %s\nNo score was "
                 "recorded; the course staff will run it again.",
                 cl_verdict_is(row->verdict, CL_V_NO_DEVICE) ? "there was no GPU on the grading machine" : "a grader error",
                 row->message ? row->message : "");
        gs = json_pack("{s:s, s:s, s:s}", "output", msg, "visibility", "visible", "stdout_visibility", "hidden");
    }
    char *text = json_dumps(gs, JSON_INDENT(2));
    json_decref(gs);
    int rc = text ? cl_write_file_atomic(o->results_path, text, strlen(text), err) : cl_err_set(err, "out of memory");
    free(text);
    if (rc == 0 && o->report_path && json_dump_file(row->report, o->report_path, JSON_INDENT(2)) != 0)
        rc = cl_err_set(err, "cannot write %s", o->report_path);
    if (rc == 0 && !cl_grade_row_scored(row))
        rc = cl_err_set(err, "not graded (%s), no score written: %s", row->verdict, row->message ? row->message : "");
    return rc;
}

/* Without a course secret: a fresh random one (seeds are not reproducible then). */
static int ephemeral_secret(cl_course *course, cl_err *err)
{
    char tmp[CL_PATH_MAX];
    snprintf(tmp, sizeof tmp, "/tmp/cudalab-gs-secret-XXXXXX");
    if (!mkdtemp(tmp))
        return cl_err_set(err, "cannot make a temporary folder: %s", strerror(errno));
    int rc = cl_class_secret(course, tmp, err);
    cl_err e2;
    cl_rmtree(tmp, &e2);
    course->secret_path[0] = '\0';
    return rc;
}

int cl_gradescope_run(const cl_gradescope_opts *o_in, cl_err *err)
{
    cl_class_absolute_home();
    cl_gradescope_opts abs_o = *o_in;
    static char b[6][CL_PATH_MAX];
    abs_o.course_path = cl_class_abspath(o_in->course_path, b[0], sizeof b[0]);
    abs_o.submission = cl_class_abspath(o_in->submission, b[1], sizeof b[1]);
    abs_o.results_path = cl_class_abspath(o_in->results_path, b[2], sizeof b[2]);
    abs_o.metadata_path = cl_class_abspath(o_in->metadata_path, b[3], sizeof b[3]);
    abs_o.runner = cl_class_abspath(o_in->runner, b[4], sizeof b[4]);
    const cl_gradescope_opts *o = &abs_o;
    int rc = -1, have_lab = 0, have_rt = 0;
    cl_course course;
    cl_lab lab;
    cl_class_rt rt;
    memset(&rt, 0, sizeof rt);
    json_t *res = NULL;
    if (cl_course_load(o->course_path, &course, err))
        return -1;
    const char *labname = o->lab ? o->lab : course.nlabs == 1 ? course.lab_names[0] : NULL;
    if (!labname) {
        cl_err_set(err, "which lab? Give --lab, or one lab under labs: in the course config");
        goto done;
    }
    if (cl_lab_load(cl_home_dir(), labname, &lab, err))
        goto done;
    have_lab = 1;
    if (!course.secret && ephemeral_secret(&course, err))
        goto done;
    cl_course_rules rules;
    cl_course_rules_for(&course, labname, &rules);
    cl_submission s;
    memset(&s, 0, sizeof s);
    if (read_metadata(o, &rules, &s, err) || read_submission(o, &s, err) || hide_grader_files(o, &course, &rt, err))
        goto done;
    char gpus[8][32];
    int ngpu = o->runner ? 0 : cl_class_gpus(NULL, gpus, 8, err);
    if (ngpu < 0)
        goto done;
    if (cl_class_rt_init(&rt, &lab, o->runner, o->arch, o->no_sandbox ? CL_SANDBOX_NONE : course.sandbox,
                         course.sandbox_uid, gpus, ngpu > 1 ? 1 : ngpu, NULL, err))
        goto done;
    have_rt = 1;
    cl_class_job job;
    memset(&job, 0, sizeof job);
    job.lab = labname;
    job.course = &course;
    job.rules = rules;
    job.sub = &s;
    job.seed = cl_student_seed(course.secret, course.secret_len, labname, s.student, s.sha256);
    job.runner = o->runner;
    job.allow_prebuilt = o->allow_prebuilt;
    job.timeout_s = o->timeout_s;
    job.arch = o->arch;
    job.gpu = ngpu ? gpus[0] : NULL;
    res = cl_class_rt_run(&rt, &job, 0, o->watchdog_s);
    cl_grade_row row;
    cl_grade_row_from_result(&row, &s, &rules, &course, res);
    rc = write_results(o, &row, &lab, &rules, &course, err);
    cl_grade_row_free(&row);
done:
    json_decref(res);
    if (have_rt)
        cl_class_rt_free(&rt);
    if (have_lab)
        cl_lab_free(&lab);
    cl_course_free(&course);
    return rc;
}
