/* class_run.c: `cudalab grade`: a folder of submissions -> the gradebook and the reports.
 *
 * Resume comes from the gradebook's key: a submission whose (student, lab, submission
 * hash, config hash) has a row is skipped. The rest is graded by one worker per GPU
 * (CUDA_VISIBLE_DEVICES set to its GPU; with the host test runner, --jobs workers), each
 * submission in its own sandboxed process, and recorded the moment it finishes, in its own
 * transaction: a run killed at any point loses only the gradings in flight. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "grader/proc.h"
#include "grader/result.h"
#include "class_internal.h"
#include "db.h"
#include "strbuf.h"

#define MAX_WORKERS 64

static void note_cb(void *ctx, const char *msg) { cl_class_event(ctx, "note", NULL, msg); }

/* ---- the local pool ---- */

typedef struct slot {
    int busy;
    int pid, fd;
    cl_strbuf text;
    cl_class_job job;
    cl_class_stage stage;
    double started;
    char gpu[32];
} slot;

/* Stages submission s on worker w and starts its grading: 1 started; 0 it ended at once
 * (refused when staged, or the sandbox could not start: its result is recorded); -1 the
 * result could not be recorded. A file replaced since it was listed is graded as the copy
 * made now: keyed, seeded and dated as that copy. */
static int start_one(cl_class_run *r, slot *sl, int w, cl_submission *s, cl_err *err)
{
    const char *gpu = r->ngpu > 0 ? sl->gpu : NULL;
    cl_class_fill_job(r, &sl->job, s, gpu);
    char detail[96];
    if (gpu)
        snprintf(detail, sizeof detail, "GPU %s", sl->gpu);
    else
        snprintf(detail, sizeof detail, "worker %d", w + 1);
    cl_class_event(r, "start", s->student, detail);
    json_t *res = NULL;
    int st = cl_class_rt_stage(&r->rt, &sl->job, w, &sl->stage, &res, err);
    if (st == 0 && strcmp(sl->stage.sha256, s->sha256)) {
        cl_err e2;
        char sha[CL_SHA256_HEX];
        if (cl_intake_hash(s->path, sha, &s->submitted_at, &e2) != 0)
            s->submitted_at = (long long)time(NULL);
        snprintf(s->sha256, sizeof s->sha256, "%s", sl->stage.sha256);
        cl_class_fill_job(r, &sl->job, s, gpu);
        cl_class_event(r, "note", s->student, "changed since the run began: the new version is graded");
    }
    if (st == 0 && cl_class_job_start(&sl->job, &r->rt.sb, w, sl->stage.dir, r->rt.keep, sl->stage.protect,
                                      &sl->pid, &sl->fd, err) == 0)
        return 1;
    if (st == 0)
        cl_class_rt_unstage(&sl->stage);
    if (!res)
        res = cl_class_error_result(&sl->job, err->msg);
    int rc = cl_class_record(r, s, res, err) < 0 ? -1 : 0;
    json_decref(res);
    return rc;
}

static int grade_local(cl_class_run *r, int *pending, int npending, cl_class_summary *sum, cl_err *err)
{
    int ngpu = r->ngpu;
    int nworkers = ngpu > 0 ? ngpu : (r->o->jobs > 0 ? r->o->jobs : 1);
    if (nworkers > MAX_WORKERS)
        nworkers = MAX_WORKERS;
    sum->workers = nworkers;
    slot *slots = calloc((size_t)nworkers, sizeof *slots);
    if (!slots)
        return cl_err_set(err, "out of memory");
    for (int w = 0; w < nworkers; w++) {
        cl_sb_init(&slots[w].text);
        if (ngpu > 0)
            snprintf(slots[w].gpu, sizeof slots[w].gpu, "%s", r->gpus[w]);
    }
    double watchdog = r->o->watchdog_s > 0 ? r->o->watchdog_s : 3600;
    int next = 0, busy = 0, rc = 0;
    while (rc == 0 && (next < npending || busy > 0)) {
        /* start work on every free worker */
        for (int w = 0; w < nworkers && next < npending; w++) {
            slot *sl = &slots[w];
            if (sl->busy)
                continue;
            int started = start_one(r, sl, w, &r->subs[pending[next++]], err);
            if (started < 0)
                rc = -1;
            if (started <= 0)
                continue;
            sl->busy = 1;
            sl->started = cl_mono_s();
            cl_sb_clear(&sl->text);
            busy++;
        }
        if (!busy)
            continue;
        struct pollfd pf[MAX_WORKERS];
        int map[MAX_WORKERS], n = 0;
        for (int w = 0; w < nworkers; w++)
            if (slots[w].busy) {
                pf[n] = (struct pollfd){slots[w].fd, POLLIN, 0};
                map[n++] = w;
            }
        int ready = poll(pf, (nfds_t)n, 250);
        if (ready < 0 && errno != EINTR) {
            rc = cl_err_set(err, "poll: %s", strerror(errno));
            break;
        }
        for (int i = 0; i < n; i++) {
            slot *sl = &slots[map[i]];
            int finished = 0, killed = 0;
            if (pf[i].revents & (POLLIN | POLLHUP | POLLERR)) {
                char buf[65536];
                ssize_t got = read(sl->fd, buf, sizeof buf);
                if (got > 0 && sl->text.len < (64u << 20))
                    cl_sb_appendn(&sl->text, buf, (size_t)got);
                finished = got <= 0;
            }
            if (!finished && cl_mono_s() - sl->started > watchdog) {
                cl_sandbox_stop(sl->pid); /* the worker, and the gradings it started */
                finished = killed = 1;
            }
            if (!finished)
                continue;
            close(sl->fd);
            int status = 0;
            waitpid(sl->pid, &status, 0);
            json_t *res;
            if (killed) {
                char why[200];
                snprintf(why, sizeof why, "grading this submission took longer than %.0f s (all stages): stopped",
                         watchdog);
                res = cl_class_error_result(&sl->job, why);
            } else {
                res = cl_class_job_finish(&sl->job, cl_sb_str(&sl->text), status);
            }
            cl_class_rt_unstage(&sl->stage);
            if (cl_class_record(r, sl->job.sub, res, err) < 0)
                rc = -1;
            json_decref(res);
            sl->busy = 0;
            busy--;
        }
    }
    /* on an error, stop what is still running */
    for (int w = 0; w < nworkers; w++) {
        if (slots[w].busy) {
            cl_sandbox_stop(slots[w].pid);
            close(slots[w].fd);
            waitpid(slots[w].pid, NULL, 0);
            cl_class_rt_unstage(&slots[w].stage);
        }
        cl_sb_free(&slots[w].text);
    }
    free(slots);
    return rc;
}

/* ---- reports ---- */

/* The report's row of submission s: its result from the gradebook (or missing, not graded
 * yet), with the roster's name, "not graded" said as such, and the late penalty from the
 * dates as they are now (written back to the gradebook when it changed). */
static int report_row(sqlite3 *db, const char *labname, const cl_lab *lab, const char *hash,
                      const cl_course_rules *rules, const cl_course *c, const cl_submission *s, cl_grade_row *row,
                      cl_err *err)
{
    int got = s->kind == CL_SUB_NONE ? 1 : cl_gradebook_get(db, s->student, labname, s->sha256, hash, row, err);
    if (got < 0)
        return -1;
    if (got == 1) { /* nothing submitted, or not graded (yet) */
        memset(row, 0, sizeof *row);
        snprintf(row->student, sizeof row->student, "%s", s->student);
        snprintf(row->lab, sizeof row->lab, "%s", labname);
        snprintf(row->verdict, sizeof row->verdict, "%s", s->kind == CL_SUB_NONE ? "missing" : "not_graded");
        row->message = strdup(s->kind == CL_SUB_NONE ? "nothing was submitted" : "not graded yet (run again)");
        row->max_score = cl_lab_max_score(lab);
        row->missing = s->kind == CL_SUB_NONE;
        row->has_score = row->missing; /* nothing submitted is a 0; not graded yet is no score */
    }
    snprintf(row->name, sizeof row->name, "%s", s->name);
    snprintf(row->email, sizeof row->email, "%s", s->email);
    row->in_roster = s->in_roster;
    if (got != 0)
        return 0;
    if (!cl_grade_row_scored(row)) { /* the instructor's to settle, not a grade */
        char msg[1400];
        snprintf(msg, sizeof msg, "not graded, no score recorded (%s): %s",
                 cl_verdict_is(row->verdict, CL_V_NO_DEVICE) ? "there was no GPU where it ran; run again on a GPU machine"
                                                    : "cudalab could not grade it; run again",
                 row->message ? row->message : "");
        free(row->message);
        row->message = strdup(msg);
    }
    long long was_at = row->submitted_at;
    int was_days = row->late_days;
    double was_pen = row->penalty;
    cl_grade_row_late(row, s->submitted_at, rules, c);
    if (was_at != row->submitted_at || was_days != row->late_days || was_pen != row->penalty)
        return cl_gradebook_update_late(db, row, err);
    return 0;
}

int cl_class_write_reports(sqlite3 *db, const cl_class_opts *o, const cl_course *c, cl_submission *subs, int n,
                           cl_class_summary *sum, cl_err *err)
{
    cl_lab lab;
    if (cl_lab_load(cl_home_dir(), o->lab, &lab, err))
        return -1;
    char hash[CL_SHA256_HEX];
    if (cl_class_config_hash(c, &lab, hash, err)) {
        cl_lab_free(&lab);
        return -1;
    }
    cl_course_rules rules;
    cl_course_rules_for(c, o->lab, &rules);
    cl_grade_row *rows = calloc((size_t)(n > 0 ? n : 1), sizeof *rows);
    cl_class_report rep = {0};
    rep.lab = o->lab;
    rep.title = lab.title.en;
    rep.course = c->name;
    rep.metric = (int)lab.metric;
    rep.rows = rows;
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        cl_grade_row *row = &rows[rep.nrows];
        const cl_submission *s = &subs[i];
        if (report_row(db, o->lab, &lab, hash, &rules, c, s, row, err)) {
            rc = -1;
            break;
        }
        if (row->report) {
            json_t *d = json_object_get(row->report, "device");
            if (!rep.gpu[0] && json_string_value(json_object_get(d, "name")))
                snprintf(rep.gpu, sizeof rep.gpu, "%s", json_string_value(json_object_get(d, "name")));
            if (rep.copy_gbps <= 0)
                rep.copy_gbps = json_number_value(json_object_get(d, "copy_gbps"));
            if (rep.fp16_tflops <= 0)
                rep.fp16_tflops = json_number_value(json_object_get(d, "fp16_tflops"));
        }
        if (sum) {
            if (!row->missing && strcmp(row->verdict, "not_graded"))
                sum->verdicts[cl_verdict_from_name(row->verdict)]++;
            sum->missing += row->missing;
            sum->not_graded += !cl_grade_row_scored(row);
        }
        rep.nrows++;
    }
    if (rc == 0) {
        char path[CL_PATH_MAX], dir[CL_PATH_MAX];
        cl_path_join(path, sizeof path, o->out, "grades.csv");
        rc = cl_class_csv(&rep, path, err);
        if (sum)
            snprintf(sum->csv, sizeof sum->csv, "%s", path);
        cl_path_join(dir, sizeof dir, o->out, "report");
        if (rc == 0)
            rc = cl_class_html(&rep, dir, err);
        if (sum)
            snprintf(sum->html, sizeof sum->html, "%s/index.html", dir);
        cl_path_join(path, sizeof path, o->out, "junit.xml");
        if (rc == 0)
            rc = cl_class_junit(&rep, path, err);
        if (sum)
            snprintf(sum->junit, sizeof sum->junit, "%s", path);
    }
    for (int i = 0; i < rep.nrows; i++)
        cl_grade_row_free(&rows[i]);
    free(rows);
    cl_lab_free(&lab);
    return rc;
}

/* ---- the whole run ---- */

/* 1 when path is dir or inside it (both real paths). */
static int inside(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    return !strncmp(path, dir, n) && (path[n] == '\0' || path[n] == '/' || (n == 1 && dir[0] == '/'));
}

/* The output folder: made (0700: the gradebook and the secret are the instructor's only),
 * never inside the submissions folder nor holding it, and one run at a time. */
static int open_out(cl_class_run *r, cl_err *err)
{
    const cl_class_opts *o = r->o;
    char subs[CL_PATH_MAX];
    if (!cl_dir_exists(o->submissions) || !realpath(o->submissions, subs))
        return cl_err_set(err, "the submissions folder %s does not exist", o->submissions);
    int existed = cl_dir_exists(o->out);
    if (cl_mkdirs(o->out, err))
        return -1;
    if (!realpath(o->out, r->out))
        return cl_err_set(err, "%s: %s", o->out, strerror(errno));
    if (inside(r->out, subs) || inside(subs, r->out)) {
        if (!existed)
            rmdir(r->out);
        return cl_err_set(err, "the output folder %s is %s the submissions folder %s: its files would be graded as "
                               "students next time; choose an --out outside it",
                          r->out, inside(r->out, subs) ? "inside" : "around", subs);
    }
    chmod(r->out, 0700);
    char lock[CL_PATH_MAX];
    cl_path_join(lock, sizeof lock, r->out, ".lock");
    r->lock_fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (r->lock_fd < 0)
        return cl_err_set(err, "cannot open %s: %s", lock, strerror(errno));
    /* a POSIX record lock, not flock: it belongs to this process alone, so the workers it
     * forks do not hold it, and it goes the moment this process does (a killed run's workers
     * may live on for a second or two, and with flock they kept the next run out) */
    struct flock lk = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
    if (fcntl(r->lock_fd, F_SETLK, &lk) != 0) {
        char pid[32] = "";
        ssize_t got = pread(r->lock_fd, pid, sizeof pid - 1, 0);
        pid[got > 0 ? got : 0] = '\0';
        pid[strcspn(pid, "\n")] = '\0';
        close(r->lock_fd);
        r->lock_fd = -1;
        return cl_err_set(err, "another cudalab grade (pid %s) is using the output folder %s: wait for it to "
                               "finish, or grade into another --out", *pid ? pid : "?", r->out);
    }
    char pid[32];
    int len = snprintf(pid, sizeof pid, "%d\n", (int)getpid());
    if (ftruncate(r->lock_fd, 0) != 0 || pwrite(r->lock_fd, pid, (size_t)len, 0) != len)
        return cl_err_set(err, "cannot write %s: %s", lock, strerror(errno));
    return 0;
}

/* Removes a stage root if it is one of ours: a cudalab-stage-* folder of this user (its
 * name is written before it is made, so anyone could have made that path meanwhile). */
static void remove_stage_root(const char *root)
{
    const char *base = strrchr(root, '/');
    struct stat st;
    cl_err e2;
    if (base && !strncmp(base + 1, "cudalab-stage-", 14) && lstat(root, &st) == 0 && S_ISDIR(st.st_mode) &&
        st.st_uid == geteuid())
        cl_rmtree(root, &e2);
}

/* A run killed with SIGKILL leaves its stage (students' sources) behind: the next run,
 * holding the lock, removes it. <out>/.stage names the stage root of the run in progress,
 * written by cl_class_rt_init the moment the stage exists. The killed run's workers and
 * their sandboxes outlive it by a second or two and may still write into that stage, so
 * its name is kept in `stale` (when given) and the stage removed again as this run ends. */
static void remove_stale_stage(const char *out, char *stale, size_t stale_n)
{
    char mark[CL_PATH_MAX], *old = NULL;
    size_t len;
    cl_err e2;
    cl_path_join(mark, sizeof mark, out, ".stage");
    if (cl_read_file(mark, CL_PATH_MAX, &old, &len, &e2) == 0) {
        old[strcspn(old, "\n")] = '\0';
        remove_stage_root(old);
        if (stale)
            snprintf(stale, stale_n, "%s", old);
        free(old);
    }
    unlink(mark);
}

/* One lab per output folder: a second lab's grades.csv would overwrite the first's. */
static int check_one_lab(cl_class_run *r, cl_err *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(r->db, "SELECT lab FROM results WHERE lab != ?1 UNION SELECT lab FROM runs WHERE lab != ?1 "
                                  "LIMIT 1", -1, &st, NULL) != SQLITE_OK)
        return cl_err_set(err, "gradebook: %s", sqlite3_errmsg(r->db));
    sqlite3_bind_text(st, 1, r->o->lab, -1, SQLITE_TRANSIENT);
    int rc = 0;
    if (sqlite3_step(st) == SQLITE_ROW)
        rc = cl_err_set(err, "the output folder %s holds the grades of lab '%s': grade '%s' into another --out "
                             "(the default is grades-%s)", r->out, (const char *)sqlite3_column_text(st, 0),
                        r->o->lab, r->o->lab);
    sqlite3_finalize(st);
    return rc;
}

static int setup(cl_class_run *r, cl_err *err)
{
    const cl_class_opts *o = r->o;
    if (!o->lab || !o->submissions || !o->out)
        return cl_err_set(err, "grading a class needs a lab, a submissions folder and an output folder");
    if (!o->runner || o->gpus) {
        r->ngpu = cl_class_gpus(o->gpus, r->gpus, MAX_WORKERS, err);
        if (r->ngpu < 0)
            return -1;
    }
    if (open_out(r, err))
        return -1;
    remove_stale_stage(r->out, r->stale_stage, sizeof r->stale_stage);
    if (cl_course_load(o->course_path, &r->course, err))
        return -1;
    if (cl_lab_load(cl_home_dir(), o->lab, &r->lab, err))
        return -1;
    r->have_lab = 1;
    if (cl_class_secret(&r->course, r->out, err) || cl_class_config_hash(&r->course, &r->lab, r->config_hash, err))
        return -1;
    cl_course_rules_for(&r->course, o->lab, &r->rules);
    char gb[CL_PATH_MAX];
    cl_path_join(gb, sizeof gb, r->out, "gradebook.sqlite");
    if (cl_gradebook_open(gb, &r->db, err) || check_one_lab(r, err))
        return -1;
    if (cl_intake_scan(o->submissions, r->out, o->roster, &r->subs, &r->nsubs, note_cb, r, err))
        return -1;
    return 0;
}

/* Every path of o absolute in abs: grading runs elsewhere (the stage, a Slurm node). */
static void absolute_opts(const cl_class_opts *o, cl_class_opts *abs)
{
    static char b_sub[CL_PATH_MAX], b_roster[CL_PATH_MAX], b_course[CL_PATH_MAX], b_runner[CL_PATH_MAX];
    *abs = *o;
    abs->submissions = cl_class_abspath(o->submissions, b_sub, sizeof b_sub);
    abs->roster = cl_class_abspath(o->roster, b_roster, sizeof b_roster);
    abs->course_path = cl_class_abspath(o->course_path, b_course, sizeof b_course);
    abs->runner = cl_class_abspath(o->runner, b_runner, sizeof b_runner);
}

/* What is left to grade: the submissions the gradebook has no row for under this config
 * (the others are skipped, and said so). Fills pending (room for r->nsubs) and returns how
 * many, or -1. */
static int list_pending(cl_class_run *r, int *pending, cl_class_summary *sum, cl_err *err)
{
    int npending = 0;
    for (int i = 0; i < r->nsubs; i++) {
        cl_submission *s = &r->subs[i];
        if (s->kind == CL_SUB_NONE)
            continue;
        int has = cl_gradebook_has(r->db, s->student, r->o->lab, s->sha256, r->config_hash, err);
        if (has < 0)
            return -1;
        if (has) {
            sum->skipped++;
            cl_class_event(r, "skip", s->student, "already graded (same submission, same config)");
        } else {
            pending[npending++] = i;
        }
    }
    return npending;
}

/* The sandbox hides these from every submission. */
static void hide_from_submissions(cl_class_run *r)
{
    const cl_class_opts *o = r->o;
    cl_sandbox_hide(&r->rt.sb, o->submissions);
    cl_sandbox_hide(&r->rt.sb, r->out);
    if (r->course.path[0])
        cl_sandbox_hide(&r->rt.sb, r->course.path);
    if (r->course.secret_path[0])
        cl_sandbox_hide(&r->rt.sb, r->course.secret_path);
    if (o->roster)
        cl_sandbox_hide(&r->rt.sb, o->roster);
}

/* Grading on this machine: the runtime (stage, sandbox, GPUs), its stage noted in
 * <out>/.stage for the next run to clean up, and the sandbox described. 0 or -1. */
static int start_local(cl_class_run *r, cl_class_summary *sum, cl_err *err)
{
    const cl_class_opts *o = r->o;
    cl_sandbox_mode mode = o->no_sandbox ? CL_SANDBOX_NONE : o->sandbox != CL_SANDBOX_AUTO ? o->sandbox
                                                                                          : r->course.sandbox;
    char mark[CL_PATH_MAX];
    cl_path_join(mark, sizeof mark, r->out, ".stage");
    if (cl_class_rt_init(&r->rt, &r->lab, o->runner, o->arch, mode, r->course.sandbox_uid, r->gpus, r->ngpu, mark,
                         err))
        return -1;
    r->have_rt = 1;
    snprintf(sum->sandbox, sizeof sum->sandbox, "%s", r->rt.sb.describe);
    cl_class_event(r, "note", NULL, r->rt.sb.describe);
    return 0;
}

/* Grades the pending submissions (locally or through Slurm) as one run of the gradebook. */
static int grade_pending(cl_class_run *r, int *pending, int npending, cl_class_summary *sum, cl_err *err)
{
    const cl_class_opts *o = r->o;
    hide_from_submissions(r);
    if (!o->slurm && start_local(r, sum, err))
        return -1;
    r->run_id = cl_gradebook_run_begin(r->db, o->lab, o->slurm ? "slurm" : "local", err);
    if (r->run_id < 0)
        return -1;
    int rc = o->slurm ? cl_class_slurm(r, pending, npending, sum, err) : grade_local(r, pending, npending, sum, err);
    sum->graded = r->done;
    cl_err e2;
    cl_gradebook_run_end(r->db, r->run_id, sum->graded, sum->skipped, sum->slurm_job, &e2);
    return rc;
}

/* Everything the run holds: the runtime and its stage, the lock, the gradebook, the lab. */
static void release_run(cl_class_run *r)
{
    if (r->have_rt) {
        cl_class_rt_free(&r->rt);
        remove_stale_stage(r->out, NULL, 0);
    }
    if (r->stale_stage[0])
        remove_stage_root(r->stale_stage);
    if (r->lock_fd >= 0)
        close(r->lock_fd); /* the lock goes with it */
    free(r->subs);
    cl_db_close(r->db);
    if (r->have_lab)
        cl_lab_free(&r->lab);
    cl_course_free(&r->course);
}

int cl_class_grade(const cl_class_opts *o_in, cl_class_summary *sum, cl_err *err)
{
    memset(sum, 0, sizeof *sum);
    double t0 = cl_mono_s();
    cl_class_absolute_home();
    cl_class_opts abs_o;
    absolute_opts(o_in, &abs_o);
    const cl_class_opts *o = &abs_o;
    cl_class_run r;
    memset(&r, 0, sizeof r);
    r.o = o;
    r.lock_fd = -1;
    int *pending = NULL;
    int rc = setup(&r, err);
    if (rc == 0) {
        snprintf(sum->gradebook, sizeof sum->gradebook, "%s/gradebook.sqlite", r.out);
        sum->total = r.nsubs;
    }
    if (rc == 0 && !o->report_only) {
        pending = calloc((size_t)(r.nsubs ? r.nsubs : 1), sizeof *pending);
        int npending = list_pending(&r, pending, sum, err);
        if (npending < 0)
            rc = -1;
        else
            r.total = npending;
        if (npending > 0)
            rc = grade_pending(&r, pending, npending, sum, err);
    }
    if (rc == 0) {
        cl_class_opts ro = *o;
        ro.out = r.out; /* absolute paths in the summary */
        rc = cl_class_write_reports(r.db, &ro, &r.course, r.subs, r.nsubs, sum, err);
    }
    release_run(&r);
    free(pending);
    sum->seconds = cl_mono_s() - t0;
    return rc;
}
