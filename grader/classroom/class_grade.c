/* class_grade.c: one submission of a class, from its stage to a result JSON.
 *
 * Runs inside the sandbox (sandbox.c): unpack the archive, find the solution, enforce the
 * course's header allow-list, cl_grade() with the student's seed and the course's limits
 * and bans, then rescore with the course's weights and tiers and enforce its library
 * allow-list. Paths of the private stage are cut from every message, so reports read
 * "reduce.cu(12): error", not "/tmp/cudalab-stage-Xa81/alice/src/reduce.cu(12)". */
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

#include "class_internal.h"
#include "grader/grade.h"
#include "grader/report.h"
#include "grader/score.h"
#include "strbuf.h"

/* ---- rescoring ---- */

void cl_class_rescore(const cl_course_rules *rules, const cl_lab *lab_in, cl_result *r)
{
    if (!rules->have_weights && !rules->have_tiers)
        return;
    cl_lab lab = *lab_in; /* shallow: only numbers change */
    if (rules->have_weights) {
        lab.w_correct = rules->w_correct;
        lab.w_pass = rules->w_pass;
        lab.w_good = rules->w_good;
        lab.w_excellent = rules->w_excellent;
    }
    if (rules->have_tiers) {
        lab.tier_pass = rules->tier_pass;
        lab.tier_good = rules->tier_good;
        lab.tier_excellent = rules->tier_excellent;
    }
    int tiered = r->verdict == CL_V_SLOW || r->verdict == CL_V_PASS || r->verdict == CL_V_GOOD ||
                 r->verdict == CL_V_EXCELLENT;
    if (tiered) {
        r->verdict = CL_V_CORRECT;
        cl_score_bench(&lab, r);
    }
    cl_score_total(&lab, r);
    if (r->verdict == CL_V_SLOW)
        cl_result_set(r, CL_V_SLOW, "correct, but below the pass tier (%.0f%% of %s)", lab.tier_pass * 100,
                      cl_ceiling_name(lab.ceiling));
    else if (r->verdict >= CL_V_PASS)
        cl_result_set(r, r->verdict, "correct, %s tier", cl_verdict_name(r->verdict));
}

void cl_class_reject(const cl_lab *lab, const char *path, cl_verdict v, const char *why, cl_result *r)
{
    cl_result_init(r);
    if (lab) {
        snprintf(r->lab, sizeof r->lab, "%s", lab->name);
        snprintf(r->title, sizeof r->title, "%s", lab->title.en);
        r->metric = (int)lab->metric;
        r->max_score = cl_lab_max_score(lab);
    }
    snprintf(r->solution, sizeof r->solution, "%s", path ? path : "");
    cl_result_set(r, v, "%s", why);
}

/* ---- in the sandbox ---- */

static void cut(char **s, const char *prefix)
{
    if (!*s || !*prefix)
        return;
    size_t n = strlen(prefix);
    char *p;
    while ((p = strstr(*s, prefix)))
        memmove(p, p + n, strlen(p + n) + 1);
}

/* Every `from` in *s becomes `to` (*s is malloc'd). */
static void replace_all(char **s, const char *from, const char *to)
{
    if (!*s || !*from || !strstr(*s, from))
        return;
    cl_strbuf sb;
    cl_sb_init(&sb);
    size_t n = strlen(from);
    for (const char *p = *s, *q; *p; p = q + n) {
        q = strstr(p, from);
        if (!q) {
            cl_sb_append(&sb, p);
            break;
        }
        cl_sb_appendn(&sb, p, (size_t)(q - p));
        cl_sb_append(&sb, to);
        if (!q[n])
            break;
    }
    free(*s);
    *s = strdup(cl_sb_str(&sb));
    cl_sb_free(&sb);
}

/* A file is staged as <lab>.cu (a name never changes a grade); the messages a student
 * reads name their file as they handed it in. */
static void name_the_file(cl_result *r, const cl_class_job *job)
{
    if (job->sub->kind != CL_SUB_FILE)
        return;
    char staged[160];
    const char *dot = strrchr(job->sub->entry, '.');
    snprintf(staged, sizeof staged, "%s%s", job->lab, dot && !strcasecmp(dot, ".so") ? ".so" : ".cu");
    char **ptrs[] = {&r->message, &r->message_tr, &r->detail, &r->compile_log, &r->output, &r->sanitizer};
    for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++)
        replace_all(ptrs[i], staged, job->sub->entry);
    for (int i = 0; i < r->ncases; i++)
        replace_all(&r->cases[i].message, staged, job->sub->entry);
    if (!strcmp(r->solution, staged))
        snprintf(r->solution, sizeof r->solution, "%s", job->sub->entry);
}

static void cut_paths(cl_result *r, const char *stage)
{
    char pre[CL_PATH_MAX + 8];
    snprintf(pre, sizeof pre, "%s/src/", stage);
    char *fields[] = {r->message, r->detail, r->compile_log, r->output, r->sanitizer};
    char **ptrs[] = {&r->message, &r->message_tr, &r->detail, &r->compile_log, &r->output, &r->sanitizer};
    (void)fields;
    for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++)
        cut(ptrs[i], pre);
    for (int i = 0; i < r->ncases; i++)
        cut(&r->cases[i].message, pre);
    char sol[sizeof r->solution];
    snprintf(sol, sizeof sol, "%s", r->solution);
    if (!strncmp(sol, pre, strlen(pre)))
        snprintf(r->solution, sizeof r->solution, "%s", sol + strlen(pre));
    /* what remains of the stage's own path (the build cache) */
    snprintf(pre, sizeof pre, "%s/", stage);
    for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++)
        cut(ptrs[i], pre);
}

/* The course's header allow-list: every #include must name an allowed header. */
static int check_headers(const cl_course_rules *rules, const char *solution, const char *shown, char *why,
                         size_t n)
{
    if (!rules->have_allowed_headers)
        return 0;
    char *src;
    size_t len;
    cl_err err;
    if (cl_read_file(solution, 4u << 20, &src, &len, &err))
        return 0; /* cl_grade says what is wrong with the file */
    int line = 1, bad = 0;
    for (char *p = src; *p && !bad; line++) {
        char *eol = strchr(p, '\n');
        if (eol)
            *eol = '\0';
        const char *q = p + strspn(p, " \t");
        if (*q == '#') {
            q++;
            q += strspn(q, " \t");
            if (!strncmp(q, "include", 7)) {
                q += 7;
                q += strspn(q, " \t");
                char name[256] = "";
                if (*q == '<' || *q == '"') {
                    char close = *q == '<' ? '>' : '"';
                    const char *e = strchr(q + 1, close);
                    if (e)
                        snprintf(name, sizeof name, "%.*s", (int)(e - q - 1), q + 1);
                }
                int ok = 0;
                for (int i = 0; i < rules->allowed_headers.n && !ok; i++)
                    ok = !strcmp(name, rules->allowed_headers.v[i]);
                if (!ok) {
                    snprintf(why, n, "%s:%d: includes %s, which is not on this course's list of allowed headers",
                             shown, line, name[0] ? name : "(a computed name)");
                    bad = 1;
                }
            }
        }
        p = eol ? eol + 1 : p + strlen(p);
    }
    free(src);
    return bad;
}

static const char *lib_stem_allowed(const cl_course_rules *rules, const char *soname)
{
    const char *b = strrchr(soname, '/');
    b = b ? b + 1 : soname;
    if (!strncmp(b, "lib", 3))
        b += 3;
    for (int i = 0; i < rules->allowed_libs.n; i++) {
        size_t n = strlen(rules->allowed_libs.v[i]);
        if (!strncmp(b, rules->allowed_libs.v[i], n) && (b[n] == '.' || b[n] == '-' || b[n] == '_' || !b[n]))
            return rules->allowed_libs.v[i];
    }
    return NULL;
}

json_t *cl_class_grade_one(const cl_class_job *job, const char *stage)
{
    cl_result r;
    cl_lab lab;
    cl_err err;
    int have_lab = cl_lab_load(cl_home_dir(), job->lab, &lab, &err) == 0;
    char solution[CL_PATH_MAX] = "", why[1024] = "";
    const char *shown = job->sub->entry;
    if (!have_lab) {
        cl_class_reject(NULL, shown, CL_V_ERROR, err.msg, &r);
        goto out;
    }
    int rc = cl_stage_prepare(job->sub, job->lab, stage, job->allow_prebuilt, solution, sizeof solution, why,
                              sizeof why, &err);
    if (rc) {
        cl_class_reject(&lab, shown, rc > 0 ? CL_V_COMPILE_ERROR : CL_V_ERROR,
                        rc > 0 ? why : err.msg, &r);
        if (rc > 0) {
            char msg[1200];
            snprintf(msg, sizeof msg, "submission rejected: %s", why);
            cl_result_set(&r, CL_V_COMPILE_ERROR, "%s", msg);
        }
        goto scored;
    }
    char rel[CL_PATH_MAX];
    snprintf(rel, sizeof rel, "%s", job->sub->kind == CL_SUB_FILE ? job->sub->entry : solution + strlen(stage) + 5);
    if (check_headers(&job->rules, solution, rel, why, sizeof why)) {
        cl_class_reject(&lab, rel, CL_V_BANNED, why, &r);
        goto scored;
    }
    const char *bh[CL_CLASS_MAX_NAMES + 1] = {0}, *bl[CL_CLASS_MAX_NAMES + 1] = {0};
    for (int i = 0; i < job->rules.banned_headers.n; i++)
        bh[i] = job->rules.banned_headers.v[i];
    for (int i = 0; i < job->rules.banned_libs.n; i++)
        bl[i] = job->rules.banned_libs.v[i];
    cl_grade_opts o = {0};
    o.lab = job->lab;
    o.solution = solution;
    o.test = 1;
    o.bench = 1;
    o.sanitize = job->rules.have_sanitize && job->rules.sanitize;
    o.have_seed = 1;
    o.seed = job->seed;
    o.arch = job->arch;
    o.no_reference = job->no_reference;
    o.runner = job->runner;
    o.allow_prebuilt = job->allow_prebuilt;
    o.timeout_scale = job->rules.have_timeout_scale ? job->rules.timeout_scale : 0;
    o.timeout_s = job->timeout_s;
    o.extra_banned_headers = bh;
    o.extra_banned_libs = bl;
    o.max_file_bytes = job->rules.have_max_file ? job->rules.max_file_bytes : 0;
    o.max_procs = job->rules.have_max_procs ? job->rules.max_procs : 0;
    if (cl_grade(&o, &r, &err)) {
        cl_class_reject(&lab, rel, CL_V_ERROR, err.msg, &r);
        goto scored;
    }
    cl_class_rescore(&job->rules, &lab, &r);
    if (job->rules.have_allowed_libs)
        for (int i = 0; i < r.nlibs; i++)
            if (!lib_stem_allowed(&job->rules, r.libs[i])) {
                r.score = 0;
                cl_result_set(&r, CL_V_BANNED, "the solution loaded %s while it ran, which this course does not allow",
                              r.libs[i]);
                break;
            }
scored:
    r.seed = job->seed;
    cut_paths(&r, stage);
    name_the_file(&r, job);
out:;
    json_t *res = json_object();
    json_object_set_new(res, "result", cl_result_to_json(&r));
    json_object_set_new(res, "student", json_string(job->sub->student));
    json_object_set_new(res, "sha256", json_string(job->sub->sha256));
    json_object_set_new(res, "solution", json_string(r.solution));
    cl_result_free(&r);
    if (have_lab)
        cl_lab_free(&lab);
    return res;
}

/* ---- outside: stage, spawn, collect ---- */

typedef struct job_ctx {
    const cl_class_job *job;
    const char *stage;
} job_ctx;

static int job_fn(void *vctx, int out)
{
    job_ctx *c = vctx;
    json_t *j = cl_class_grade_one(c->job, c->stage);
    char *s = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    if (!s)
        return -1;
    size_t left = strlen(s);
    const char *p = s;
    while (left) {
        ssize_t w = write(out, p, left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        p += w;
        left -= (size_t)w;
    }
    free(s);
    return left ? -1 : 0;
}

/* A result made here rather than by grading: the grading process failed (error), or
 * staging refused the submission (compile_error). */
static json_t *made_result(const cl_class_job *job, cl_verdict v, const char *message)
{
    cl_result r;
    cl_lab lab;
    cl_err err;
    int have = cl_lab_load(cl_home_dir(), job->lab, &lab, &err) == 0;
    cl_class_reject(have ? &lab : NULL, job->sub->entry, v, message, &r);
    r.seed = job->seed;
    json_t *res = json_object();
    json_object_set_new(res, "result", cl_result_to_json(&r));
    json_object_set_new(res, "student", json_string(job->sub->student));
    json_object_set_new(res, "sha256", json_string(job->sub->sha256));
    cl_result_free(&r);
    if (have)
        cl_lab_free(&lab);
    return res;
}

json_t *cl_class_error_result(const cl_class_job *job, const char *why)
{
    return made_result(job, CL_V_ERROR, why);
}

json_t *cl_class_rejected_result(const cl_class_job *job, const char *why)
{
    char msg[1200];
    snprintf(msg, sizeof msg, "submission rejected: %s", why);
    return made_result(job, CL_V_COMPILE_ERROR, msg);
}

int cl_class_job_start(const cl_class_job *job, const cl_sandbox *sb, int slot, const char *stage,
                       const char *const *keep, const char *const *protect, int *pid, int *fd, cl_err *err)
{
    static job_ctx ctx; /* read by the child only, right after fork */
    ctx.job = job;
    ctx.stage = stage;
    char gpu_env[128];
    const char *env[2] = {NULL, NULL};
    if (job->gpu) {
        snprintf(gpu_env, sizeof gpu_env, "CUDA_VISIBLE_DEVICES=%s", job->gpu);
        env[0] = gpu_env;
    }
    return cl_sandbox_spawn(sb, slot, stage, keep, protect, env, job_fn, &ctx, pid, fd, err);
}

/* Reads a finished job's answer (JSON, or "E:why" from the sandbox). */
json_t *cl_class_job_finish(const cl_class_job *job, const char *text, int status)
{
    if (text && text[0] == '{') {
        json_t *j = json_loads(text, 0, NULL);
        if (j && json_is_object(json_object_get(j, "result")))
            return j;
        json_decref(j);
    }
    char why[1024];
    if (text && !strncmp(text, "E:", 2))
        snprintf(why, sizeof why, "cudalab could not grade this submission: %s", text + 2);
    else if (WIFSIGNALED(status))
        snprintf(why, sizeof why, "cudalab could not grade this submission: the grading process was killed by signal %d",
                 WTERMSIG(status));
    else
        snprintf(why, sizeof why, "cudalab could not grade this submission: the grading process ended without a "
                                  "result (exit code %d)", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return cl_class_error_result(job, why);
}
