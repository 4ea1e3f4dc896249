/* course.c: the per-course config (YAML) -> cl_course, every error at file:line:col.
 *
 *   course: "GPU Programming, fall 2026"
 *   secret_file: course-secret.txt      # or secret: "..." (the file must not be world-readable)
 *   late: {penalty_per_day: 0.1, max_days: 3}
 *   sandbox: {mode: auto, uid: 64000}  # auto | namespaces | user | none
 *   slurm: {partition: gpu, gres: "gpu:1", time: "00:30:00", options: ["--account=cs"]}
 *   gradescope: {leaderboard: true}
 *   defaults: RULES
 *   labs: {reduce: RULES, ...}
 * where RULES = deadline, weights {correctness, pass, good, excellent}, tiers {pass, good,
 * excellent}, headers {allowed, banned}, libraries {allowed, banned}, sanitizer (bool),
 * limits {timeout_scale, max_file_mb, max_procs}, visibility (Gradescope). */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "grader/classroom.h"
#include "strbuf.h"
#include "yamlutil.h"

void cl_course_init(cl_course *c)
{
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%s", "(no course config)");
    c->sandbox = CL_SANDBOX_AUTO;
    c->sandbox_uid = 64000;
    snprintf(c->slurm_gres, sizeof c->slurm_gres, "gpu:1");
    snprintf(c->slurm_time, sizeof c->slurm_time, "01:00:00");
    c->leaderboard = 1;
    c->late_max_days = -1; /* no limit */
}

static void free_names(cl_name_list *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->v[i]);
    l->n = 0;
}

static void free_rules(cl_course_rules *r)
{
    free_names(&r->allowed_headers);
    free_names(&r->banned_headers);
    free_names(&r->allowed_libs);
    free_names(&r->banned_libs);
}

void cl_course_free(cl_course *c)
{
    free(c->secret);
    free_names(&c->slurm_extra);
    free_rules(&c->defaults);
    for (int i = 0; i < c->nlabs; i++) {
        free(c->lab_names[i]);
        free_rules(&c->labs[i]);
    }
    memset(c, 0, sizeof *c);
}

/* ---- small readers ---- */

static int read_names(cl_yaml *y, cl_ynode *n, const char *what, cl_name_list *l, cl_err *err)
{
    if (!cl_yaml_is_seq(n))
        return cl_yaml_errf(y, n, err, "%s must be a list of names", what);
    size_t len = cl_yaml_seq_len(n);
    if (len > CL_CLASS_MAX_NAMES)
        return cl_yaml_errf(y, n, err, "%s has %zu entries (at most %d)", what, len, CL_CLASS_MAX_NAMES);
    free_names(l);
    for (size_t i = 0; i < len; i++) {
        const char *s;
        cl_ynode *e = cl_yaml_seq_at(y, n, i);
        if (cl_yaml_as_str(y, e, what, &s, err))
            return -1;
        if (!*s)
            return cl_yaml_errf(y, e, err, "%s: empty name", what);
        l->v[l->n++] = strdup(s);
    }
    return 0;
}

static int read_num(cl_yaml *y, cl_ynode *map, const char *key, const char *what, double lo, double hi, double *out,
                    int *have, cl_err *err)
{
    cl_ynode *n = cl_yaml_get(y, map, key);
    if (!n)
        return 0;
    double v;
    if (cl_yaml_as_double(y, n, what, &v, err))
        return -1;
    if (!(v >= lo && v <= hi))
        return cl_yaml_errf(y, n, err, "%s must be between %g and %g, not %g", what, lo, hi, v);
    *out = v;
    if (have)
        *have = 1;
    return 0;
}

/* ---- RULES: one reader per key ---- */

static int read_deadline(cl_yaml *y, cl_ynode *v, const char *tz, cl_course_rules *r, cl_err *err)
{
    const char *s;
    if (cl_yaml_as_str(y, v, "deadline", &s, err))
        return -1;
    char why[400];
    if (cl_parse_deadline(s, tz, &r->deadline, why, sizeof why))
        return cl_yaml_errf(y, v, err, "%s", why);
    snprintf(r->deadline_text, sizeof r->deadline_text, "%s", s);
    r->have_deadline = 1;
    return 0;
}

static int read_weights(cl_yaml *y, cl_ynode *v, cl_course_rules *r, cl_err *err)
{
    static const char *const wk[] = {"correctness", "pass", "good", "excellent", NULL};
    if (!cl_yaml_is_map(v))
        return cl_yaml_errf(y, v, err, "weights must be a mapping {correctness, pass, good, excellent}");
    if (cl_yaml_check_keys(y, v, wk, err))
        return -1;
    double *outs[] = {&r->w_correct, &r->w_pass, &r->w_good, &r->w_excellent};
    for (int i = 0; wk[i]; i++) {
        cl_ynode *e = cl_yaml_need(y, v, wk[i], err);
        if (!e || cl_yaml_as_double(y, e, wk[i], outs[i], err))
            return -1;
        if (*outs[i] < 0 || *outs[i] > 1e6)
            return cl_yaml_errf(y, e, err, "weight %s must be between 0 and 1e6", wk[i]);
    }
    if (!(r->w_pass <= r->w_good && r->w_good <= r->w_excellent))
        return cl_yaml_errf(y, v, err, "weights must grow with the tier: pass <= good <= excellent");
    r->have_weights = 1;
    return 0;
}

static int read_tiers(cl_yaml *y, cl_ynode *v, cl_course_rules *r, cl_err *err)
{
    static const char *const tk[] = {"pass", "good", "excellent", NULL};
    if (!cl_yaml_is_map(v))
        return cl_yaml_errf(y, v, err, "tiers must be a mapping {pass, good, excellent}");
    if (cl_yaml_check_keys(y, v, tk, err))
        return -1;
    double *outs[] = {&r->tier_pass, &r->tier_good, &r->tier_excellent};
    for (int i = 0; tk[i]; i++) {
        cl_ynode *e = cl_yaml_need(y, v, tk[i], err);
        if (!e || cl_yaml_as_double(y, e, tk[i], outs[i], err))
            return -1;
        if (*outs[i] <= 0 || *outs[i] > 4)
            return cl_yaml_errf(y, e, err, "tier %s must be a fraction of the ceiling in (0, 4]", tk[i]);
    }
    if (!(r->tier_pass <= r->tier_good && r->tier_good <= r->tier_excellent))
        return cl_yaml_errf(y, v, err, "tiers must grow: pass <= good <= excellent");
    r->have_tiers = 1;
    return 0;
}

/* headers or libraries: {allowed: [...], banned: [...]}. */
static int read_allow_ban(cl_yaml *y, cl_ynode *v, const char *what, cl_name_list *allowed, int *have_allowed,
                          cl_name_list *banned, cl_err *err)
{
    static const char *const ab[] = {"allowed", "banned", NULL};
    if (!cl_yaml_is_map(v))
        return cl_yaml_errf(y, v, err, "%s must be a mapping {allowed: [...], banned: [...]}", what);
    if (cl_yaml_check_keys(y, v, ab, err))
        return -1;
    char name[64];
    cl_ynode *e;
    if ((e = cl_yaml_get(y, v, "allowed"))) {
        snprintf(name, sizeof name, "%s.allowed", what);
        if (read_names(y, e, name, allowed, err))
            return -1;
        *have_allowed = 1;
    }
    snprintf(name, sizeof name, "%s.banned", what);
    if ((e = cl_yaml_get(y, v, "banned")) && read_names(y, e, name, banned, err))
        return -1;
    return 0;
}

static int read_limits(cl_yaml *y, cl_ynode *v, cl_course_rules *r, cl_err *err)
{
    static const char *const lk[] = {"timeout_scale", "max_file_mb", "max_procs", NULL};
    if (!cl_yaml_is_map(v))
        return cl_yaml_errf(y, v, err, "limits must be a mapping {timeout_scale, max_file_mb, max_procs}");
    if (cl_yaml_check_keys(y, v, lk, err))
        return -1;
    double mb = 0, procs = 0;
    if (read_num(y, v, "timeout_scale", "limits.timeout_scale", 0.01, 100, &r->timeout_scale, &r->have_timeout_scale,
                 err) ||
        read_num(y, v, "max_file_mb", "limits.max_file_mb", 1, 1 << 20, &mb, &r->have_max_file, err) ||
        read_num(y, v, "max_procs", "limits.max_procs", 1, 1 << 20, &procs, &r->have_max_procs, err))
        return -1;
    r->max_file_bytes = (unsigned long long)(mb * 1048576.0);
    r->max_procs = (unsigned long long)procs;
    return 0;
}

static int read_visibility(cl_yaml *y, cl_ynode *v, cl_course_rules *r, cl_err *err)
{
    static const char *const vis[] = {"visible", "hidden", "after_due_date", "after_published", NULL};
    const char *s;
    if (cl_yaml_as_str(y, v, "visibility", &s, err))
        return -1;
    int ok = 0;
    for (int i = 0; vis[i]; i++)
        ok |= !strcmp(s, vis[i]);
    if (!ok)
        return cl_yaml_errf(y, v, err, "visibility must be visible, hidden, after_due_date or after_published");
    snprintf(r->visibility, sizeof r->visibility, "%s", s);
    r->have_visibility = 1;
    return 0;
}

/* RULES (defaults: or a lab's entry under labs:): every key checked, none ignored. */
static int read_rules(cl_yaml *y, cl_ynode *n, const char *where, const char *tz, cl_course_rules *r, cl_err *err)
{
    static const char *const keys[] = {"deadline", "weights", "tiers", "headers", "libraries",
                                       "sanitizer", "limits", "visibility", NULL};
    if (!cl_yaml_is_map(n))
        return cl_yaml_errf(y, n, err, "%s must be a mapping", where);
    if (cl_yaml_check_keys(y, n, keys, err))
        return -1;
    cl_ynode *v;
    if ((v = cl_yaml_get(y, n, "deadline")) && read_deadline(y, v, tz, r, err))
        return -1;
    if ((v = cl_yaml_get(y, n, "weights")) && read_weights(y, v, r, err))
        return -1;
    if ((v = cl_yaml_get(y, n, "tiers")) && read_tiers(y, v, r, err))
        return -1;
    if ((v = cl_yaml_get(y, n, "headers")) &&
        read_allow_ban(y, v, "headers", &r->allowed_headers, &r->have_allowed_headers, &r->banned_headers, err))
        return -1;
    if ((v = cl_yaml_get(y, n, "libraries")) &&
        read_allow_ban(y, v, "libraries", &r->allowed_libs, &r->have_allowed_libs, &r->banned_libs, err))
        return -1;
    if ((v = cl_yaml_get(y, n, "sanitizer"))) {
        if (cl_yaml_as_bool(y, v, "sanitizer", &r->sanitize, err))
            return -1;
        r->have_sanitize = 1;
    }
    if ((v = cl_yaml_get(y, n, "limits")) && read_limits(y, v, r, err))
        return -1;
    if ((v = cl_yaml_get(y, n, "visibility")) && read_visibility(y, v, r, err))
        return -1;
    return 0;
}

/* ---- the secret ---- */

static int check_private(cl_yaml *y, cl_ynode *n, const char *path, cl_err *err)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return cl_yaml_errf(y, n, err, "cannot read %s", path);
    if (st.st_mode & (S_IRGRP | S_IROTH | S_IWGRP | S_IWOTH))
        return cl_yaml_errf(y, n, err,
                            "%s holds the course secret but other users can read it (mode %04o): chmod 600 %s",
                            path, (unsigned)(st.st_mode & 07777), path);
    return 0;
}

static int read_secret(cl_yaml *y, cl_ynode *root, const char *cfg_path, cl_course *c, cl_err *err)
{
    cl_ynode *inl = cl_yaml_get(y, root, "secret"), *file = cl_yaml_get(y, root, "secret_file");
    if (inl && file)
        return cl_yaml_errf(y, file, err, "give either secret or secret_file, not both");
    const char *s;
    if (inl) {
        if (cl_yaml_as_str(y, inl, "secret", &s, err))
            return -1;
        if (strlen(s) < 16)
            return cl_yaml_errf(y, inl, err, "the course secret must have at least 16 characters");
        if (check_private(y, inl, cfg_path, err))
            return -1;
        c->secret = (unsigned char *)strdup(s);
        c->secret_len = strlen(s);
        return 0;
    }
    if (!file)
        return 0;
    if (cl_yaml_as_str(y, file, "secret_file", &s, err))
        return -1;
    if (s[0] == '/') {
        snprintf(c->secret_path, sizeof c->secret_path, "%s", s);
    } else { /* relative to the config file */
        char dir[CL_PATH_MAX];
        snprintf(dir, sizeof dir, "%s", cfg_path);
        char *slash = strrchr(dir, '/');
        if (slash)
            *slash = '\0';
        else
            snprintf(dir, sizeof dir, ".");
        cl_path_join(c->secret_path, sizeof c->secret_path, dir, s);
    }
    if (check_private(y, file, c->secret_path, err))
        return -1;
    char *data;
    size_t len;
    cl_err e2;
    if (cl_read_file(c->secret_path, 4096, &data, &len, &e2))
        return cl_yaml_errf(y, file, err, "secret_file: %s", e2.msg);
    while (len && isspace((unsigned char)data[len - 1]))
        data[--len] = '\0';
    if (len < 16) {
        free(data);
        return cl_yaml_errf(y, file, err, "%s: the course secret must have at least 16 characters", c->secret_path);
    }
    c->secret = (unsigned char *)data;
    c->secret_len = len;
    return 0;
}

/* ---- the file: one reader per top-level key ---- */

/* A lab under labs: must exist (a typo would silently drop its deadline and rules). */
static int check_lab_name(cl_yaml *y, cl_ynode *k, const char *name, cl_err *err)
{
    char p[CL_PATH_MAX];
    snprintf(p, sizeof p, "%s/labs/%s/lab.yaml", cl_home_dir(), name);
    if (!strchr(name, '/') && cl_file_exists(p))
        return 0;
    char *names[64];
    int n = 0;
    snprintf(p, sizeof p, "%s/labs", cl_home_dir());
    DIR *d = opendir(p);
    struct dirent *e;
    while (d && n < 63 && (e = readdir(d))) {
        char ly[CL_PATH_MAX];
        snprintf(ly, sizeof ly, "%s/%s/lab.yaml", p, e->d_name);
        if (e->d_name[0] != '.' && cl_file_exists(ly))
            names[n++] = strdup(e->d_name);
    }
    if (d)
        closedir(d);
    names[n] = NULL;
    const char *near = cl_did_you_mean(name, (const char *const *)names);
    if (near)
        cl_yaml_errf(y, k, err, "labs: there is no lab '%s': did you mean '%s'?", name, near);
    else
        cl_yaml_errf(y, k, err, "labs: there is no lab '%s' (`cudalab list` shows the labs)", name);
    for (int i = 0; i < n; i++)
        free(names[i]);
    return -1;
}

static int read_timezone(cl_yaml *y, cl_ynode *n, cl_course *c, cl_err *err)
{
    const char *s;
    if (cl_yaml_as_str(y, n, "timezone", &s, err))
        return -1;
    if (!cl_timezone_valid(s) || strlen(s) >= sizeof c->timezone)
        return cl_yaml_errf(y, n, err, "timezone '%s' is not a time zone this machine knows (an IANA name such "
                                       "as America/New_York, Europe/Berlin, Asia/Shanghai or UTC)", s);
    snprintf(c->timezone, sizeof c->timezone, "%s", s);
    return 0;
}

static int read_late(cl_yaml *y, cl_ynode *n, cl_course *c, cl_err *err)
{
    static const char *const k[] = {"penalty_per_day", "max_days", NULL};
    if (!cl_yaml_is_map(n))
        return cl_yaml_errf(y, n, err, "late must be a mapping {penalty_per_day, max_days}");
    if (cl_yaml_check_keys(y, n, k, err))
        return -1;
    double days = -1;
    if (read_num(y, n, "penalty_per_day", "late.penalty_per_day", 0, 1, &c->late_penalty_per_day, NULL, err) ||
        read_num(y, n, "max_days", "late.max_days", 0, 3650, &days, NULL, err))
        return -1;
    c->late_max_days = days < 0 ? -1 : (int)days;
    return 0;
}

static int read_sandbox(cl_yaml *y, cl_ynode *n, cl_course *c, cl_err *err)
{
    static const char *const k[] = {"mode", "uid", NULL};
    if (!cl_yaml_is_map(n))
        return cl_yaml_errf(y, n, err, "sandbox must be a mapping {mode, uid}");
    if (cl_yaml_check_keys(y, n, k, err))
        return -1;
    cl_ynode *m = cl_yaml_get(y, n, "mode");
    if (m) {
        const char *s;
        if (cl_yaml_as_str(y, m, "sandbox.mode", &s, err))
            return -1;
        if (!strcmp(s, "auto")) c->sandbox = CL_SANDBOX_AUTO;
        else if (!strcmp(s, "namespaces")) c->sandbox = CL_SANDBOX_NAMESPACES;
        else if (!strcmp(s, "user")) c->sandbox = CL_SANDBOX_USER;
        else if (!strcmp(s, "none")) c->sandbox = CL_SANDBOX_NONE;
        else
            return cl_yaml_errf(y, m, err, "sandbox.mode must be auto, namespaces, user or none");
    }
    double uid = 0;
    int have = 0;
    if (read_num(y, n, "uid", "sandbox.uid", 1, 4294967000.0, &uid, &have, err))
        return -1;
    if (have)
        c->sandbox_uid = (unsigned)uid;
    return 0;
}

static int read_slurm(cl_yaml *y, cl_ynode *n, cl_course *c, cl_err *err)
{
    static const char *const k[] = {"partition", "gres", "time", "options", NULL};
    if (!cl_yaml_is_map(n))
        return cl_yaml_errf(y, n, err, "slurm must be a mapping {partition, gres, time, options}");
    if (cl_yaml_check_keys(y, n, k, err))
        return -1;
    struct { const char *key; char *out; size_t size; } fields[] = {
        {"partition", c->slurm_partition, sizeof c->slurm_partition},
        {"gres", c->slurm_gres, sizeof c->slurm_gres},
        {"time", c->slurm_time, sizeof c->slurm_time}};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        cl_ynode *e = cl_yaml_get(y, n, fields[i].key);
        const char *s;
        if (!e)
            continue;
        if (cl_yaml_as_str(y, e, fields[i].key, &s, err))
            return -1;
        if (strchr(s, '\n') || strlen(s) >= fields[i].size)
            return cl_yaml_errf(y, e, err, "slurm.%s: one short line, please", fields[i].key);
        snprintf(fields[i].out, fields[i].size, "%s", s);
    }
    cl_ynode *e = cl_yaml_get(y, n, "options");
    if (e && read_names(y, e, "slurm.options", &c->slurm_extra, err))
        return -1;
    for (int i = 0; i < c->slurm_extra.n; i++)
        if (strchr(c->slurm_extra.v[i], '\n') || c->slurm_extra.v[i][0] != '-')
            return cl_yaml_errf(y, e, err, "slurm.options: each entry is one sbatch option (--name=value)");
    return 0;
}

static int read_gradescope(cl_yaml *y, cl_ynode *n, cl_course *c, cl_err *err)
{
    static const char *const k[] = {"leaderboard", NULL};
    if (!cl_yaml_is_map(n))
        return cl_yaml_errf(y, n, err, "gradescope must be a mapping {leaderboard}");
    if (cl_yaml_check_keys(y, n, k, err))
        return -1;
    cl_ynode *e = cl_yaml_get(y, n, "leaderboard");
    if (e && cl_yaml_as_bool(y, e, "gradescope.leaderboard", &c->leaderboard, err))
        return -1;
    return 0;
}

/* labs: {name: RULES, ...}: each name a lab that exists, once. */
static int read_labs(cl_yaml *y, cl_ynode *n, cl_course *c, cl_err *err)
{
    if (!cl_yaml_is_map(n))
        return cl_yaml_errf(y, n, err, "labs must be a mapping from lab name to its rules");
    size_t len = cl_yaml_map_len(n);
    if (len > CL_CLASS_MAX_LABS)
        return cl_yaml_errf(y, n, err, "at most %d labs", CL_CLASS_MAX_LABS);
    for (size_t i = 0; i < len; i++) {
        cl_ynode *k = cl_yaml_map_key(y, n, i);
        const char *name = cl_yaml_str(k);
        if (!name || !*name)
            return cl_yaml_errf(y, k, err, "lab names must be strings");
        if (check_lab_name(y, k, name, err))
            return -1;
        for (int j = 0; j < c->nlabs; j++)
            if (!strcmp(c->lab_names[j], name))
                return cl_yaml_errf(y, k, err, "lab '%s' appears twice", name);
        char where[160];
        snprintf(where, sizeof where, "labs.%s", name);
        c->lab_names[c->nlabs] = strdup(name);
        memset(&c->labs[c->nlabs], 0, sizeof c->labs[c->nlabs]);
        c->nlabs++;
        if (read_rules(y, cl_yaml_map_val(y, n, i), where, c->timezone, &c->labs[c->nlabs - 1], err))
            return -1;
    }
    return 0;
}

static int load(cl_yaml *y, const char *path, cl_course *c, cl_err *err)
{
    static const char *const top[] = {"course", "timezone", "secret", "secret_file", "late", "sandbox", "slurm",
                                      "gradescope", "defaults", "labs", NULL};
    cl_ynode *root = cl_yaml_root(y), *n;
    if (!root || !cl_yaml_is_map(root))
        return cl_err_set(err, "%s: a course config is a mapping (course:, defaults:, labs:, ...)", path);
    if (cl_yaml_check_keys(y, root, top, err))
        return -1;
    const char *s;
    if ((n = cl_yaml_get(y, root, "course"))) {
        if (cl_yaml_as_str(y, n, "course", &s, err))
            return -1;
        snprintf(c->name, sizeof c->name, "%s", s);
    } else {
        snprintf(c->name, sizeof c->name, "%s", path);
    }
    /* the time zone first: the deadlines below are read in it */
    if ((n = cl_yaml_get(y, root, "timezone")) && read_timezone(y, n, c, err))
        return -1;
    if (read_secret(y, root, path, c, err))
        return -1;
    if ((n = cl_yaml_get(y, root, "late")) && read_late(y, n, c, err))
        return -1;
    if ((n = cl_yaml_get(y, root, "sandbox")) && read_sandbox(y, n, c, err))
        return -1;
    if ((n = cl_yaml_get(y, root, "slurm")) && read_slurm(y, n, c, err))
        return -1;
    if ((n = cl_yaml_get(y, root, "gradescope")) && read_gradescope(y, n, c, err))
        return -1;
    if ((n = cl_yaml_get(y, root, "defaults")) && read_rules(y, n, "defaults", c->timezone, &c->defaults, err))
        return -1;
    if ((n = cl_yaml_get(y, root, "labs")) && read_labs(y, n, c, err))
        return -1;
    return 0;
}

int cl_course_load(const char *path, cl_course *c, cl_err *err)
{
    cl_course_init(c);
    if (!path)
        return 0;
    char *data;
    size_t len;
    if (cl_read_file(path, 1u << 20, &data, &len, err))
        return -1;
    cl_sha256_hex(data, len, c->hash);
    cl_yaml y;
    int rc = cl_yaml_load_string(&y, path, data, len, err);
    free(data);
    if (rc)
        return -1;
    snprintf(c->path, sizeof c->path, "%s", path);
    rc = load(&y, path, c, err);
    cl_yaml_free(&y);
    if (rc) {
        cl_course_free(c);
        return -1;
    }
    return 0;
}

/* ---- merging ---- */

static void copy_names(cl_name_list *dst, const cl_name_list *a, const cl_name_list *b)
{
    dst->n = 0;
    const cl_name_list *src[] = {a, b};
    for (int k = 0; k < 2; k++)
        for (int i = 0; src[k] && i < src[k]->n && dst->n < CL_CLASS_MAX_NAMES; i++) {
            int dup = 0;
            for (int j = 0; j < dst->n; j++)
                dup |= !strcmp(dst->v[j], src[k]->v[i]);
            if (!dup)
                dst->v[dst->n++] = src[k]->v[i]; /* borrowed: the course owns the strings */
        }
}

void cl_course_rules_for(const cl_course *c, const char *lab, cl_course_rules *out)
{
    const cl_course_rules *d = &c->defaults, *l = NULL;
    for (int i = 0; i < c->nlabs; i++)
        if (!strcmp(c->lab_names[i], lab))
            l = &c->labs[i];
    *out = *d;
    if (l) {
        if (l->have_deadline) {
            out->have_deadline = 1;
            out->deadline = l->deadline;
            memcpy(out->deadline_text, l->deadline_text, sizeof out->deadline_text);
        }
        if (l->have_weights) {
            out->have_weights = 1;
            out->w_correct = l->w_correct; out->w_pass = l->w_pass;
            out->w_good = l->w_good; out->w_excellent = l->w_excellent;
        }
        if (l->have_tiers) {
            out->have_tiers = 1;
            out->tier_pass = l->tier_pass; out->tier_good = l->tier_good; out->tier_excellent = l->tier_excellent;
        }
        if (l->have_sanitize) { out->have_sanitize = 1; out->sanitize = l->sanitize; }
        if (l->have_timeout_scale) { out->have_timeout_scale = 1; out->timeout_scale = l->timeout_scale; }
        if (l->have_max_file) { out->have_max_file = 1; out->max_file_bytes = l->max_file_bytes; }
        if (l->have_max_procs) { out->have_max_procs = 1; out->max_procs = l->max_procs; }
        if (l->have_visibility) { out->have_visibility = 1; memcpy(out->visibility, l->visibility, sizeof out->visibility); }
    }
    /* allow-lists: the lab's replaces the default's; ban lists add up */
    const cl_course_rules *ah = l && l->have_allowed_headers ? l : d;
    const cl_course_rules *al = l && l->have_allowed_libs ? l : d;
    out->have_allowed_headers = ah->have_allowed_headers;
    out->have_allowed_libs = al->have_allowed_libs;
    copy_names(&out->allowed_headers, &ah->allowed_headers, NULL);
    copy_names(&out->allowed_libs, &al->allowed_libs, NULL);
    copy_names(&out->banned_headers, &d->banned_headers, l ? &l->banned_headers : NULL);
    copy_names(&out->banned_libs, &d->banned_libs, l ? &l->banned_libs : NULL);
}

/* ---- what a grade depends on ---- */

static void digest_names(cl_strbuf *sb, const char *what, int have, const cl_name_list *l)
{
    cl_sb_printf(sb, "%s %d", what, have);
    for (int i = 0; i < l->n; i++)
        cl_sb_printf(sb, " %s", l->v[i]);
    cl_sb_append(sb, "\n");
}

void cl_course_grading_digest(const cl_course *c, const char *lab, char out[CL_SHA256_HEX])
{
    cl_course_rules r;
    cl_course_rules_for(c, lab, &r);
    cl_strbuf sb;
    cl_sb_init(&sb);
    char secret[CL_SHA256_HEX] = "";
    if (c->secret)
        cl_sha256_hex(c->secret, c->secret_len, secret);
    cl_sb_printf(&sb, "grading v1\nsecret %s\n", secret); /* the seeds */
    if (r.have_weights)
        cl_sb_printf(&sb, "weights %.17g %.17g %.17g %.17g\n", r.w_correct, r.w_pass, r.w_good, r.w_excellent);
    if (r.have_tiers)
        cl_sb_printf(&sb, "tiers %.17g %.17g %.17g\n", r.tier_pass, r.tier_good, r.tier_excellent);
    digest_names(&sb, "headers.allowed", r.have_allowed_headers, &r.allowed_headers);
    digest_names(&sb, "headers.banned", 1, &r.banned_headers);
    digest_names(&sb, "libraries.allowed", r.have_allowed_libs, &r.allowed_libs);
    digest_names(&sb, "libraries.banned", 1, &r.banned_libs);
    if (r.have_sanitize)
        cl_sb_printf(&sb, "sanitizer %d\n", r.sanitize);
    if (r.have_timeout_scale)
        cl_sb_printf(&sb, "timeout_scale %.17g\n", r.timeout_scale);
    if (r.have_max_file)
        cl_sb_printf(&sb, "max_file %llu\n", r.max_file_bytes);
    if (r.have_max_procs)
        cl_sb_printf(&sb, "max_procs %llu\n", r.max_procs);
    const char *text = cl_sb_str(&sb);
    cl_sha256_hex(text, strlen(text), out);
    cl_sb_free(&sb);
}
