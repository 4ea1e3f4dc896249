/* slurm.c: `cudalab grade --slurm`: one Slurm array task per submission.
 *
 *   <out>/slurm/run-<id>/manifest.json   what each task grades (its index) and how
 *   <out>/slurm/run-<id>/job.sh          #SBATCH --array=0-(N-1), --gres=gpu:1 (configurable)
 *   <out>/slurm/run-<id>/results/<i>.json  written by task i (atomically) when it is done
 *   <out>/slurm/run-<id>/logs/task-<i>.log
 *
 * The submitting process waits (squeue), merging results into the gradebook as they
 * arrive. If it is killed, a rerun first waits for a job of an earlier run that is still
 * queued or running, merges every result file it finds, and submits only what is left.
 * A task grades exactly like a local worker (the same sandbox, stage and checks). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "grader/result.h"
#include "class_internal.h"
#include "db.h"
#include "grader/proc.h"
#include "strbuf.h"

/* 'text' for a shell script: single quotes, embedded ones as '\'' */
static void shq(cl_strbuf *sb, const char *s)
{
    cl_sb_append(sb, "'");
    for (; *s; s++) {
        if (*s == '\'')
            cl_sb_append(sb, "'\\''");
        else
            cl_sb_appendn(sb, s, 1);
    }
    cl_sb_append(sb, "'");
}

static int run_cmd(char **argv, char **out, int *ok, cl_err *err)
{
    cl_proc_opts po = {0};
    po.argv = argv;
    po.timeout_s = 120;
    po.output_cap = 1 << 20;
    cl_proc_result pr;
    if (cl_proc_run(&po, &pr, err))
        return -1;
    *ok = pr.exited && pr.exit_code == 0;
    *out = pr.output;
    pr.output = NULL;
    cl_proc_result_free(&pr);
    return 0;
}

/* 1 while the job has tasks in the queue, 0 when none, -1 when squeue failed */
static int job_active(const char *job)
{
    char *argv[] = {"squeue", "-h", "-j", (char *)job, "-o", "%i", NULL};
    char *out = NULL;
    int ok = 0;
    cl_err err;
    if (run_cmd(argv, &out, &ok, &err)) {
        free(out);
        return -1;
    }
    int active = ok && out && strspn(out, " \n\t") < strlen(out);
    /* a job that left the controller's memory is reported as an invalid id: done */
    if (!ok && out && strstr(out, "Invalid job id"))
        ok = 1, active = 0;
    free(out);
    return ok ? active : -1;
}

/* ---- the manifest ---- */

static json_t *manifest_entry(const cl_class_run *r, const cl_submission *s, uint64_t seed)
{
    return json_pack("{s:s, s:s, s:s, s:s, s:s, s:i, s:s, s:I, s:b, s:I}", "student", s->student, "name", s->name,
                     "email", s->email, "entry", s->entry, "path", s->path, "kind", (int)s->kind, "sha256",
                     s->sha256, "submitted_at", (json_int_t)s->submitted_at, "in_roster", s->in_roster, "seed",
                     (json_int_t)seed);
}

static void entry_to_sub(json_t *e, cl_submission *s)
{
    memset(s, 0, sizeof *s);
#define S(f, k) snprintf(s->f, sizeof s->f, "%s", json_string_value(json_object_get(e, k)) ? json_string_value(json_object_get(e, k)) : "")
    S(student, "student");
    S(name, "name");
    S(email, "email");
    S(entry, "entry");
    S(path, "path");
    S(sha256, "sha256");
#undef S
    s->kind = (cl_sub_kind)json_integer_value(json_object_get(e, "kind"));
    s->submitted_at = json_integer_value(json_object_get(e, "submitted_at"));
    s->in_roster = json_is_true(json_object_get(e, "in_roster"));
}

/* ---- merging ---- */

/* Records every result file of a run folder whose submission is still pending; clears
 * those from pending. Returns how many were recorded. */
static int merge_dir(cl_class_run *r, const char *dir, int *pending, int npending, int *merged_flags,
                     int final_only, cl_err *err)
{
    char mpath[CL_PATH_MAX];
    snprintf(mpath, sizeof mpath, "%s/manifest.json", dir);
    json_t *m = json_load_file(mpath, 0, NULL);
    if (!m)
        return 0;
    json_t *entries = json_object_get(m, "entries");
    const char *chash = json_string_value(json_object_get(m, "config_hash"));
    int got = 0;
    size_t i;
    json_t *e;
    json_array_foreach(entries, i, e) {
        char rpath[CL_PATH_MAX];
        snprintf(rpath, sizeof rpath, "%s/results/%zu.json", dir, i);
        if (!chash || strcmp(chash, r->config_hash) || access(rpath, R_OK) != 0)
            continue;
        const char *student = json_string_value(json_object_get(e, "student"));
        const char *sha = json_string_value(json_object_get(e, "sha256"));
        for (int k = 0; k < npending; k++) {
            if (merged_flags[k])
                continue;
            const cl_submission *s = &r->subs[pending[k]];
            if (!student || !sha || strcmp(s->student, student) || strcmp(s->sha256, sha))
                continue;
            json_t *res = json_load_file(rpath, 0, NULL);
            if (!res || !json_is_object(json_object_get(res, "result"))) {
                json_decref(res);
                break;
            }
            /* an earlier run's error or no_device is not final: grade it again */
            const char *v = json_string_value(json_object_get(json_object_get(res, "result"), "verdict"));
            if (final_only && (!v || cl_verdict_is(v, CL_V_ERROR) || cl_verdict_is(v, CL_V_NO_DEVICE))) {
                json_decref(res);
                break;
            }
            json_object_set_new(res, "config_hash", json_string(r->config_hash));
            int rc = cl_class_record(r, s, res, err);
            json_decref(res);
            if (rc < 0) {
                json_decref(m);
                return -1;
            }
            merged_flags[k] = 1;
            if (rc == 0)
                got++;
            break;
        }
    }
    json_decref(m);
    return got;
}

/* Earlier runs' result folders, and a job of theirs that is still running: wait for it. */
static int merge_earlier(cl_class_run *r, int *pending, int npending, int *merged, double poll_s, cl_err *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(r->db, "SELECT id, slurm_job FROM runs WHERE mode='slurm' AND id<>? ORDER BY id", -1, &st,
                           NULL) != SQLITE_OK)
        return cl_err_set(err, "gradebook: %s", sqlite3_errmsg(r->db));
    sqlite3_bind_int64(st, 1, r->run_id);
    int rc = 0;
    while (rc >= 0 && sqlite3_step(st) == SQLITE_ROW) {
        long long id = sqlite3_column_int64(st, 0);
        const char *job = (const char *)sqlite3_column_text(st, 1);
        char dir[CL_PATH_MAX];
        snprintf(dir, sizeof dir, "%s/slurm/run-%lld", r->out, id);
        if (job && *job) {
            int warned = 0;
            while (job_active(job) == 1) {
                if (!warned++)
                    cl_class_event(r, "note", NULL, "waiting for the Slurm job of an earlier run, still in the queue");
                if (merge_dir(r, dir, pending, npending, merged, 1, err) < 0)
                    rc = -1;
                sleep((unsigned)(poll_s > 1 ? poll_s : 1));
            }
        }
        if (rc >= 0 && merge_dir(r, dir, pending, npending, merged, 1, err) < 0)
            rc = -1;
    }
    sqlite3_finalize(st);
    return rc < 0 ? -1 : 0;
}

static int write_job(cl_class_run *r, const char *dir, int n, cl_err *err)
{
    const cl_class_opts *o = r->o;
    const char *gres = o->slurm_gres ? o->slurm_gres : r->course.slurm_gres;
    const char *part = o->slurm_partition ? o->slurm_partition : r->course.slurm_partition;
    cl_strbuf sb;
    cl_sb_init(&sb);
    cl_sb_printf(&sb, "#!/bin/bash\n# cudalab grade --slurm: lab %s, %d submission%s, one array task each\n", o->lab, n,
                 n == 1 ? "" : "s");
    cl_sb_printf(&sb, "#SBATCH --job-name=cudalab-%s\n", o->lab);
    if (o->slurm_max_parallel > 0)
        cl_sb_printf(&sb, "#SBATCH --array=0-%d%%%d\n", n - 1, o->slurm_max_parallel);
    else
        cl_sb_printf(&sb, "#SBATCH --array=0-%d\n", n - 1);
    cl_sb_printf(&sb, "#SBATCH --output=%s/logs/task-%%a.log\n", dir);
    if (gres && *gres && strcmp(gres, "none"))
        cl_sb_printf(&sb, "#SBATCH --gres=%s\n", gres);
    if (part && *part)
        cl_sb_printf(&sb, "#SBATCH --partition=%s\n", part);
    if (r->course.slurm_time[0])
        cl_sb_printf(&sb, "#SBATCH --time=%s\n", r->course.slurm_time);
    for (int i = 0; i < r->course.slurm_extra.n; i++)
        cl_sb_printf(&sb, "#SBATCH %s\n", r->course.slurm_extra.v[i]);
    cl_sb_append(&sb, "set -u\nexport CUDALAB_HOME=");
    shq(&sb, cl_home_dir());
    cl_sb_append(&sb, "\nexec ");
    char exe[CL_PATH_MAX], manifest[CL_PATH_MAX];
    snprintf(exe, sizeof exe, "%s/cudalab", cl_exe_dir());
    snprintf(manifest, sizeof manifest, "%s/manifest.json", dir);
    shq(&sb, exe);
    cl_sb_append(&sb, " grade --task ");
    shq(&sb, manifest);
    cl_sb_append(&sb, " --index \"$SLURM_ARRAY_TASK_ID\"\n");
    char path[CL_PATH_MAX];
    snprintf(path, sizeof path, "%s/job.sh", dir);
    int rc = cl_write_file_atomic(path, sb.data, sb.len, err);
    cl_sb_free(&sb);
    if (rc == 0)
        chmod(path, 0700);
    return rc;
}

/* The run's folder: results/ (one file a task) and logs/. */
static int make_run_dir(const char *dir, cl_err *err)
{
    char sub[CL_PATH_MAX];
    snprintf(sub, sizeof sub, "%s/results", dir);
    if (cl_mkdirs(sub, err))
        return -1;
    snprintf(sub, sizeof sub, "%s/logs", dir);
    return cl_mkdirs(sub, err);
}

/* The run's options as every array task needs them. */
static json_t *manifest_head(const cl_class_run *r)
{
    const cl_class_opts *o = r->o;
    json_t *m = json_object();
    json_object_set_new(m, "lab", json_string(o->lab));
    json_object_set_new(m, "config_hash", json_string(r->config_hash));
    json_object_set_new(m, "out", json_string(r->out));
    json_object_set_new(m, "submissions", json_string(o->submissions));
    json_object_set_new(m, "home", json_string(cl_home_dir()));
    if (r->course.path[0])
        json_object_set_new(m, "course", json_string(r->course.path));
    if (o->roster)
        json_object_set_new(m, "roster", json_string(o->roster));
    if (o->runner)
        json_object_set_new(m, "runner", json_string(o->runner));
    json_object_set_new(m, "allow_prebuilt", json_boolean(o->allow_prebuilt));
    json_object_set_new(m, "timeout_s", json_real(o->timeout_s));
    if (o->arch)
        json_object_set_new(m, "arch", json_string(o->arch));
    json_object_set_new(m, "no_reference", json_boolean(o->no_reference));
    json_object_set_new(m, "sandbox", json_integer(o->no_sandbox ? CL_SANDBOX_NONE : o->sandbox != CL_SANDBOX_AUTO
                                                                                       ? o->sandbox
                                                                                       : r->course.sandbox));
    json_object_set_new(m, "watchdog_s", json_real(o->watchdog_s));
    return m;
}

/* dir/manifest.json: the options and one entry per submission not merged yet (task i is
 * pending[index_of[i]]). Returns how many tasks, or -1. */
static int write_manifest(cl_class_run *r, const char *dir, const int *pending, int npending, const int *merged,
                          int *index_of, cl_err *err)
{
    json_t *m = manifest_head(r);
    json_t *entries = json_array();
    int n = 0;
    for (int k = 0; k < npending; k++) {
        if (merged[k])
            continue;
        const cl_submission *s = &r->subs[pending[k]];
        cl_class_job job;
        cl_class_fill_job(r, &job, s, NULL);
        json_array_append_new(entries, manifest_entry(r, s, job.seed));
        index_of[n++] = k;
    }
    json_object_set_new(m, "entries", entries);
    char mpath[CL_PATH_MAX];
    snprintf(mpath, sizeof mpath, "%s/manifest.json", dir);
    int rc = json_dump_file(m, mpath, JSON_INDENT(1)) != 0 ? cl_err_set(err, "cannot write %s", mpath) : 0;
    json_decref(m);
    return rc ? -1 : n;
}

/* sbatch dir/job.sh; the job id goes into sum and the run's row. */
static int submit_job(cl_class_run *r, const char *dir, int n, cl_class_summary *sum, cl_err *err)
{
    char script[CL_PATH_MAX];
    snprintf(script, sizeof script, "%s/job.sh", dir);
    char *argv[] = {"sbatch", "--parsable", script, NULL};
    char *out = NULL;
    int ok = 0;
    if (run_cmd(argv, &out, &ok, err))
        return cl_err_wrap(err, "sbatch (is Slurm installed?)");
    if (!ok || !out || !*out) {
        int rc = cl_err_set(err, "sbatch refused the job: %s", out && *out ? out : "(no message)");
        free(out);
        return rc;
    }
    snprintf(sum->slurm_job, sizeof sum->slurm_job, "%.*s", (int)strcspn(out, ";\n "), out);
    free(out);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(r->db, "UPDATE runs SET slurm_job=? WHERE id=?", -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, sum->slurm_job, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(st, 2, r->run_id);
        sqlite3_step(st);
        sqlite3_finalize(st);
    }
    char msg[256];
    snprintf(msg, sizeof msg, "submitted Slurm job %s: %d array task%s", sum->slurm_job, n, n == 1 ? "" : "s");
    cl_class_event(r, "note", NULL, msg);
    return 0;
}

/* Waits for the job to leave the queue, merging results as they arrive, then once more. */
static int wait_for_job(cl_class_run *r, const char *dir, int *pending, int npending, int *merged, double poll_s,
                        const char *job, cl_err *err)
{
    int failures = 0;
    for (;;) {
        int active = job_active(job);
        if (merge_dir(r, dir, pending, npending, merged, 0, err) < 0)
            return -1;
        if (active == 0)
            break;
        if (active < 0 && ++failures > 24)
            return cl_err_set(err, "squeue keeps failing; the job %s may still run: run the same command again later "
                                   "to collect its results", job);
        if (active > 0)
            failures = 0;
        usleep((useconds_t)(poll_s * 1e6));
    }
    return merge_dir(r, dir, pending, npending, merged, 0, err) < 0 ? -1 : 0;
}

int cl_class_slurm(cl_class_run *r, int *pending, int npending, cl_class_summary *sum, cl_err *err)
{
    int *merged = calloc((size_t)npending, sizeof *merged);
    int *index_of = calloc((size_t)npending, sizeof *index_of);
    if (!merged || !index_of) {
        free(merged);
        free(index_of);
        return cl_err_set(err, "out of memory");
    }
    double poll_s = r->o->slurm_poll_s > 0 ? r->o->slurm_poll_s : 5;
    int rc = merge_earlier(r, pending, npending, merged, poll_s, err);
    int left = 0;
    for (int k = 0; k < npending; k++)
        left += !merged[k];
    char dir[CL_PATH_MAX];
    snprintf(dir, sizeof dir, "%s/slurm/run-%lld", r->out, r->run_id);
    int n = 0;
    if (rc == 0 && left > 0) {
        rc = make_run_dir(dir, err);
        if (rc == 0 && (n = write_manifest(r, dir, pending, npending, merged, index_of, err)) < 0)
            rc = -1;
        if (rc == 0)
            rc = write_job(r, dir, n, err);
        if (rc == 0)
            rc = submit_job(r, dir, n, sum, err);
        if (rc == 0)
            rc = wait_for_job(r, dir, pending, npending, merged, poll_s, sum->slurm_job, err);
    }
    for (int k = 0; k < n && rc == 0; k++)
        if (!merged[index_of[k]]) {
            sum->failed_tasks++;
            char note[CL_PATH_MAX + 128];
            snprintf(note, sizeof note, "task %d left no result (see %s/logs/task-%d.log); run again to retry it", k,
                     dir, k);
            cl_class_event(r, "note", r->subs[pending[index_of[k]]].student, note);
        }
    free(index_of);
    free(merged);
    return rc;
}

/* ---- the task ---- */

int cl_class_slurm_task(const char *manifest, int index, cl_err *err)
{
    cl_class_absolute_home();
    json_error_t je;
    json_t *m = json_load_file(manifest, 0, &je);
    if (!m)
        return cl_err_set(err, "%s:%d: %s", manifest, je.line, je.text);
    json_t *e = json_array_get(json_object_get(m, "entries"), (size_t)index);
    if (!e) {
        json_decref(m);
        return cl_err_set(err, "%s has no entry %d", manifest, index);
    }
    int rc = -1;
    cl_course course;
    cl_lab lab;
    int have_course = 0, have_lab = 0;
    cl_class_rt rt;
    memset(&rt, 0, sizeof rt);
    int have_rt = 0;
    const char *labname = json_string_value(json_object_get(m, "lab"));
    const char *course_path = json_string_value(json_object_get(m, "course"));
    const char *chash = json_string_value(json_object_get(m, "config_hash"));
    if (!labname || !chash) {
        cl_err_set(err, "%s: not a cudalab manifest", manifest);
        goto done;
    }
    if (cl_course_load(course_path, &course, err))
        goto done;
    have_course = 1;
    if (cl_lab_load(cl_home_dir(), labname, &lab, err))
        goto done;
    have_lab = 1;
    cl_submission s;
    entry_to_sub(e, &s);
    cl_class_job job;
    memset(&job, 0, sizeof job);
    job.lab = labname;
    job.course = &course;
    cl_course_rules_for(&course, labname, &job.rules);
    job.sub = &s;
    job.seed = (uint64_t)json_integer_value(json_object_get(e, "seed"));
    job.runner = json_string_value(json_object_get(m, "runner"));
    job.allow_prebuilt = json_is_true(json_object_get(m, "allow_prebuilt"));
    job.timeout_s = json_number_value(json_object_get(m, "timeout_s"));
    job.arch = json_string_value(json_object_get(m, "arch"));
    job.no_reference = json_is_true(json_object_get(m, "no_reference"));
    const char *hide[] = {json_string_value(json_object_get(m, "submissions")),
                          json_string_value(json_object_get(m, "out")), course_path,
                          course.secret_path[0] ? course.secret_path : NULL,
                          json_string_value(json_object_get(m, "roster"))};
    for (size_t i = 0; i < sizeof hide / sizeof hide[0]; i++)
        cl_sandbox_hide(&rt.sb, hide[i]);
    char gpus[8][32];
    int ngpu = job.runner ? 0 : cl_class_gpus(NULL, gpus, 8, err);
    if (ngpu < 0)
        ngpu = 0; /* the node's own CUDA_VISIBLE_DEVICES is Slurm's */
    if (ngpu > 1)
        ngpu = 1; /* Slurm gave this task its GPU: the first visible one */
    if (cl_class_rt_init(&rt, &lab, job.runner, job.arch,
                         (cl_sandbox_mode)json_integer_value(json_object_get(m, "sandbox")), course.sandbox_uid, gpus,
                         ngpu, NULL, err))
        goto done;
    have_rt = 1;
    json_t *res = cl_class_rt_run(&rt, &job, index % 4096, json_number_value(json_object_get(m, "watchdog_s")));
    json_object_set_new(res, "config_hash", json_string(chash));
    json_object_set_new(res, "sandbox", json_string(rt.sb.describe));
    char *text = json_dumps(res, JSON_COMPACT);
    json_decref(res);
    char dir[CL_PATH_MAX], path[CL_PATH_MAX];
    snprintf(dir, sizeof dir, "%s", manifest);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    snprintf(path, sizeof path, "%s/results/%d.json", dir, index);
    rc = text ? cl_write_file_atomic(path, text, strlen(text), err) : cl_err_set(err, "out of memory");
    free(text);
    if (rc == 0)
        chmod(path, 0600);
done:
    if (have_rt)
        cl_class_rt_free(&rt);
    if (have_lab)
        cl_lab_free(&lab);
    if (have_course)
        cl_course_free(&course);
    json_decref(m);
    return rc;
}
