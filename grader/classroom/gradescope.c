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

json_t *cl_gradescope_results(const cl_grade_row *row, const cl_lab *lab, const cl_course_rules *rules,
                              int leaderboard)
{
    const char *vis = rules && rules->have_visibility ? rules->visibility : "visible";
    double w_correct = rules && rules->have_weights ? rules->w_correct : lab->w_correct;
    double w_top = rules && rules->have_weights ? rules->w_excellent : lab->w_excellent;
    json_t *rep = row->report;
    json_t *out = json_object();
    json_t *tests = json_array();
    /* correctness, case by case */
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
            int ok = st && !strcmp(st, "pass");
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
    /* performance: what the tier earned */
    double perf = row->raw_score - (ncases ? w_correct * passed / ncases : 0);
    if (perf < 0)
        perf = 0;
    char pmsg[512];
    if (row->metric > 0)
        snprintf(pmsg, sizeof pmsg, "%.4g %s%s%.1f%% of this GPU's ceiling; tier: %s", row->metric, row->metric_unit,
                 row->fraction > 0 ? ", " : "", row->fraction * 100, row->tier[0] ? row->tier : "none");
    else
        snprintf(pmsg, sizeof pmsg, "not timed: only a solution that passes every correctness case is");
    json_array_append_new(tests, test("performance", perf, w_top, perf > 0, pmsg, vis));
    if (row->late_days > 0) {
        char lmsg[128];
        snprintf(lmsg, sizeof lmsg, "%d day%s late: -%.0f%%", row->late_days, row->late_days == 1 ? "" : "s",
                 row->penalty * 100);
        json_array_append_new(tests, test("late penalty", -row->raw_score * row->penalty, 0, 0, lmsg, vis));
    }
    json_object_set_new(out, "tests", tests);
    json_object_set_new(out, "score", json_real(row->score));
    json_object_set_new(out, "execution_time", json_integer((json_int_t)(row->seconds + 0.5)));
    cl_strbuf o;
    cl_sb_init(&o);
    cl_sb_printf(&o, "%s: %s\nscore %.1f / %.0f\n", row->verdict, row->message ? row->message : "", row->score,
                 row->max_score);
    const char *detail = json_string_value(json_object_get(rep, "detail"));
    if (detail && *detail && strcmp(row->verdict, "compile_error"))
        cl_sb_printf(&o, "\n%s\n", detail);
    const char *sol_out = json_string_value(json_object_get(rep, "output"));
    if (sol_out && *sol_out) {
        size_t len = strlen(sol_out);
        cl_sb_printf(&o, "\nwhat your solution printed%s:\n%s\n", len > 4000 ? " (the last 4000 bytes)" : "",
                     len > 4000 ? sol_out + len - 4000 : sol_out);
    }
    json_object_set_new(out, "output", json_string(cl_sb_str(&o)));
    cl_sb_free(&o);
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
    int rc = -1;
    cl_course course;
    cl_lab lab;
    int have_lab = 0;
    cl_class_rt rt;
    memset(&rt, 0, sizeof rt);
    int have_rt = 0;
    json_t *meta = NULL, *res = NULL;
    if (cl_course_load(o->course_path, &course, err))
        return -1;
    const char *labname = o->lab;
    if (!labname && course.nlabs == 1)
        labname = course.lab_names[0];
    if (!labname) {
        cl_err_set(err, "which lab? Give --lab, or one lab under labs: in the course config");
        goto done;
    }
    if (cl_lab_load(cl_home_dir(), labname, &lab, err))
        goto done;
    have_lab = 1;
    if (!course.secret) { /* no secret: a fresh random one; seeds are not reproducible then */
        char tmp[CL_PATH_MAX];
        snprintf(tmp, sizeof tmp, "/tmp/cudalab-gs-secret-XXXXXX");
        if (mkdtemp(tmp) && cl_class_secret(&course, tmp, err) == 0) {
            cl_err e2;
            cl_rmtree(tmp, &e2);
            course.secret_path[0] = '\0';
        } else {
            goto done;
        }
    }
    cl_course_rules rules;
    cl_course_rules_for(&course, labname, &rules);
    /* who and when */
    cl_submission s;
    memset(&s, 0, sizeof s);
    snprintf(s.student, sizeof s.student, "student");
    if (o->metadata_path && (meta = json_load_file(o->metadata_path, 0, NULL))) {
        json_t *u = json_array_get(json_object_get(meta, "users"), 0);
        json_t *id = json_object_get(u, "id");
        if (json_is_integer(id))
            snprintf(s.student, sizeof s.student, "%lld", (long long)json_integer_value(id));
        else if (json_is_string(id))
            snprintf(s.student, sizeof s.student, "%s", json_string_value(id));
        const char *nm = json_string_value(json_object_get(u, "name"));
        const char *em = json_string_value(json_object_get(u, "email"));
        snprintf(s.name, sizeof s.name, "%s", nm ? nm : s.student);
        snprintf(s.email, sizeof s.email, "%s", em ? em : "");
        const char *created = json_string_value(json_object_get(meta, "created_at"));
        long long t;
        if (created && cl_parse_time(created, &t) == 0)
            s.submitted_at = t;
    }
    if (!s.name[0])
        snprintf(s.name, sizeof s.name, "%s", s.student);
    if (!s.submitted_at)
        s.submitted_at = (long long)time(NULL);
    /* the submission: the folder Gradescope unpacked */
    if (!cl_dir_exists(o->submission)) {
        cl_err_set(err, "the submission folder %s does not exist", o->submission);
        goto done;
    }
    snprintf(s.path, sizeof s.path, "%s", o->submission);
    snprintf(s.entry, sizeof s.entry, "submission");
    s.kind = CL_SUB_DIR;
    {
        /* the same content hash as `cudalab grade` gives a folder */
        cl_submission *subs = NULL;
        int n = 0;
        char parent[CL_PATH_MAX], real[CL_PATH_MAX];
        if (!realpath(o->submission, real)) {
            cl_err_set(err, "%s: %s", o->submission, strerror(errno));
            goto done;
        }
        snprintf(parent, sizeof parent, "%s", real);
        char *slash = strrchr(parent, '/');
        const char *base = slash ? slash + 1 : real;
        if (slash && slash != parent)
            *slash = '\0';
        if (cl_intake_scan(parent, NULL, NULL, &subs, &n, NULL, NULL, err) == 0)
            for (int i = 0; i < n; i++)
                if (!strcmp(subs[i].entry, base))
                    snprintf(s.sha256, sizeof s.sha256, "%s", subs[i].sha256);
        free(subs);
        if (!s.sha256[0])
            cl_sha256_hex(real, strlen(real), s.sha256);
    }
    /* keep the grader's files from the submission */
    char results_dir[CL_PATH_MAX];
    snprintf(results_dir, sizeof results_dir, "%s", o->results_path);
    char *slash = strrchr(results_dir, '/');
    if (slash)
        *slash = '\0';
    if (cl_mkdirs(results_dir, err))
        goto done;
    const char *hide[] = {results_dir, o->metadata_path, course.path[0] ? course.path : NULL,
                          course.secret_path[0] ? course.secret_path : NULL};
    for (size_t i = 0; i < sizeof hide / sizeof hide[0]; i++) {
        protect_path(hide[i]);
        cl_sandbox_hide(&rt.sb, hide[i]);
    }
    char gpus[8][32];
    int ngpu = o->runner ? 0 : cl_class_gpus(NULL, gpus, 8);
    if (ngpu > 1)
        ngpu = 1;
    if (cl_class_rt_init(&rt, &lab, o->runner, o->arch, o->no_sandbox ? CL_SANDBOX_NONE : course.sandbox,
                         course.sandbox_uid, gpus, ngpu, err))
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
    json_t *gs = cl_gradescope_results(&row, &lab, &rules, course.leaderboard);
    char *text = json_dumps(gs, JSON_INDENT(2));
    json_decref(gs);
    rc = text ? cl_write_file_atomic(o->results_path, text, strlen(text), err) : cl_err_set(err, "out of memory");
    free(text);
    if (rc == 0 && o->report_path) {
        json_t *full = json_incref(row.report);
        rc = json_dump_file(full, o->report_path, JSON_INDENT(2)) == 0 ? 0
                                                                       : cl_err_set(err, "cannot write %s", o->report_path);
        json_decref(full);
    }
    cl_grade_row_free(&row);
done:
    json_decref(res);
    json_decref(meta);
    if (have_rt)
        cl_class_rt_free(&rt);
    if (have_lab)
        cl_lab_free(&lab);
    cl_course_free(&course);
    return rc;
}
