/* stage.c: one submission, alone, in a private directory.
 *
 *   <stage>/in/submission.<zip|tar|tar.gz|...>  the archive as submitted (archives only)
 *   <stage>/src/         what is compiled: the .cu file (as <lab>.cu), the folder's files,
 *                        or the archive's contents (extracted inside the sandbox)
 *
 * Names are fixed: a file is staged as <lab>.cu, an archive as in/submission.<kind>, and a
 * lone .cu of a folder or archive is renamed <lab>.cu, so no name a student chose (quotes,
 * 240 characters, upper-case extensions) reaches nvcc or the file system's limits.
 *   <stage>/cache, home  XDG_CACHE_HOME and HOME of the grading process
 *
 * cl_stage_copy runs with the instructor's rights and only copies bytes (regular files,
 * no links followed, sizes capped). cl_stage_prepare runs inside the sandbox: it parses the
 * archive (libarchive never sees a student's bytes with privileges) and finds the solution. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grader/classroom.h"
#include "strbuf.h"

static int ends_with_nocase(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && !strcasecmp(s + a - b, suffix);
}

/* The archive's fixed name in the stage: "submission" and its kind, lower case. */
static void archive_stage_name(const char *entry, char *out, size_t n)
{
    static const char *const exts[] = {".tar.gz", ".tar.xz", ".tar.bz2", ".tgz", ".tar", ".zip", NULL};
    const char *ext = "";
    for (int i = 0; exts[i] && !*ext; i++)
        if (ends_with_nocase(entry, exts[i]))
            ext = exts[i];
    snprintf(out, n, "in/submission%s", ext);
}

typedef struct copier {
    char *why;
    size_t why_n;
    size_t total;
    int entries;
} copier;

static int reject(copier *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int reject(copier *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->why, c->why_n, fmt, ap);
    va_end(ap);
    return 1;
}

/* Copies one regular file (through a link only with follow: the instructor's own), at
 * most max bytes. */
static int copy_one(copier *c, const char *from, const char *to, const char *shown, size_t max, int follow,
                    cl_err *err)
{
    int in = open(from, O_RDONLY | (follow ? 0 : O_NOFOLLOW) | O_CLOEXEC | O_NONBLOCK);
    if (in < 0)
        return errno == ELOOP ? reject(c, "%s is a symbolic link: links are not graded", shown)
                              : cl_err_set(err, "cannot read %s: %s", from, strerror(errno));
    struct stat st;
    if (fstat(in, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(in);
        return reject(c, "%s is not a regular file", shown);
    }
    if ((size_t)st.st_size > max) {
        close(in);
        return reject(c, "%s is %lld bytes; the limit is %zu", shown, (long long)st.st_size, max);
    }
    int out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (out < 0) {
        close(in);
        return cl_err_set(err, "cannot create %s: %s", to, strerror(errno));
    }
    char buf[65536];
    size_t mine = 0;
    int rc = 0;
    for (;;) {
        ssize_t got = read(in, buf, sizeof buf);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            rc = cl_err_set(err, "cannot read %s: %s", from, strerror(errno));
            break;
        }
        if (got == 0)
            break;
        mine += (size_t)got;
        c->total += (size_t)got;
        if (mine > max) {
            rc = reject(c, "%s is larger than %zu bytes", shown, max);
            break;
        }
        if (c->total > CL_STAGE_MAX_TOTAL) {
            rc = reject(c, "the submission holds more than %u bytes", CL_STAGE_MAX_TOTAL);
            break;
        }
        if (write(out, buf, (size_t)got) != got) {
            rc = cl_err_set(err, "cannot write %s: %s", to, strerror(errno));
            break;
        }
    }
    close(in);
    close(out);
    return rc;
}

static int copy_tree(copier *c, const char *from, const char *to, const char *rel, int depth, cl_err *err)
{
    if (depth > CL_STAGE_MAX_DEPTH)
        return reject(c, "%s is nested more than %d folders deep", rel, CL_STAGE_MAX_DEPTH);
    DIR *d = opendir(from);
    if (!d)
        return cl_err_set(err, "cannot read %s: %s", from, strerror(errno));
    struct dirent *e;
    int rc = 0;
    while (!rc && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (++c->entries > CL_STAGE_MAX_ENTRIES) {
            rc = reject(c, "the submission has more than %d files", CL_STAGE_MAX_ENTRIES);
            break;
        }
        char src[CL_PATH_MAX], dst[CL_PATH_MAX], r[CL_PATH_MAX];
        cl_path_join(src, sizeof src, from, e->d_name);
        cl_path_join(dst, sizeof dst, to, e->d_name);
        snprintf(r, sizeof r, "%s/%s", rel, e->d_name);
        struct stat st;
        if (lstat(src, &st) != 0) {
            rc = cl_err_set(err, "cannot read %s: %s", src, strerror(errno));
        } else if (S_ISLNK(st.st_mode)) {
            rc = reject(c, "%s is a symbolic link: links are not graded", r);
        } else if (S_ISDIR(st.st_mode)) {
            if (mkdir(dst, 0755) != 0)
                rc = cl_err_set(err, "cannot create %s: %s", dst, strerror(errno));
            else
                rc = copy_tree(c, src, dst, r, depth + 1, err);
        } else if (S_ISREG(st.st_mode)) {
            rc = copy_one(c, src, dst, r, CL_STAGE_MAX_FILE, 0, err);
        } else {
            rc = reject(c, "%s is a device, FIFO or socket: only files and folders are graded", r);
        }
    }
    closedir(d);
    return rc;
}

int cl_stage_copy(const cl_submission *s, const char *lab, const char *stage, int allow_prebuilt, char *why,
                  size_t why_n, cl_err *err)
{
    copier c = {why, why_n, 0, 0};
    why[0] = '\0';
    char in[CL_PATH_MAX], src[CL_PATH_MAX], dst[CL_PATH_MAX], name[CL_PATH_MAX];
    cl_path_join(in, sizeof in, stage, "in");
    cl_path_join(src, sizeof src, stage, "src");
    if (mkdir(in, 0755) != 0 || mkdir(src, 0755) != 0)
        return cl_err_set(err, "cannot create the stage in %s: %s", stage, strerror(errno));
    if (s->kind == CL_SUB_NONE)
        return reject(&c, "nothing was submitted");
    struct stat st; /* the submissions folder is the instructor's: its own links are followed */
    if (stat(s->path, &st) != 0)
        return reject(&c, "the submission %s has disappeared (or is a link to nothing)", s->entry);
    /* every submission is staged under a fixed name: a name never changes a grade */
    switch (s->kind) {
    case CL_SUB_DIR:
        return copy_tree(&c, s->path, src, s->entry, 0, err);
    case CL_SUB_ARCHIVE:
        archive_stage_name(s->entry, name, sizeof name);
        cl_path_join(dst, sizeof dst, stage, name);
        return copy_one(&c, s->path, dst, s->entry, CL_STAGE_MAX_ARCHIVE, 1, err);
    case CL_SUB_FILE: {
        const char *ext = ends_with_nocase(s->entry, ".cu") ? ".cu"
                          : allow_prebuilt && ends_with_nocase(s->entry, ".so") ? ".so" : NULL;
        if (!ext)
            return reject(&c, "%s is not a .cu file, a folder, or an archive (.zip, .tar, .tar.gz)", s->entry);
        snprintf(name, sizeof name, "%s%s", lab, ext);
        cl_path_join(dst, sizeof dst, src, name);
        return copy_one(&c, s->path, dst, s->entry, CL_STAGE_MAX_FILE, 1, err);
    }
    default:
        return reject(&c, "nothing was submitted");
    }
}

int cl_stage_hash(const cl_submission *s, const char *stage, char out[CL_SHA256_HEX], cl_err *err)
{
    char path[CL_PATH_MAX], name[CL_PATH_MAX];
    long long when;
    if (s->kind == CL_SUB_ARCHIVE) {
        archive_stage_name(s->entry, name, sizeof name);
        cl_path_join(path, sizeof path, stage, name);
        return cl_intake_hash(path, out, &when, err);
    }
    cl_path_join(path, sizeof path, stage, "src");
    if (s->kind == CL_SUB_DIR)
        return cl_intake_hash(path, out, &when, err);
    DIR *d = opendir(path); /* a file: the only one in src/ */
    struct dirent *e;
    int rc = cl_err_set(err, "the stage of %s holds no file", s->entry);
    while (d && (e = readdir(d)))
        if (e->d_name[0] != '.') {
            cl_path_join(name, sizeof name, path, e->d_name);
            rc = cl_intake_hash(name, out, &when, err);
            break;
        }
    if (d)
        closedir(d);
    return rc;
}

/* ---- finding the solution (inside the sandbox) ---- */

typedef struct found {
    char best[CL_PATH_MAX];
    int best_depth;
    cl_strbuf others;
    int count;
    char only[CL_PATH_MAX];
} found;

static void find_rec(found *f, const char *dir, const char *rel, int depth, const char *want, const char *ext)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char p[CL_PATH_MAX], r[CL_PATH_MAX];
        cl_path_join(p, sizeof p, dir, e->d_name);
        snprintf(r, sizeof r, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
        struct stat st;
        if (lstat(p, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode) && depth < CL_STAGE_MAX_DEPTH) {
            find_rec(f, p, r, depth + 1, want, ext);
        } else if (S_ISREG(st.st_mode) && ends_with_nocase(e->d_name, ext)) {
            if (!strcmp(e->d_name, want) && (!f->best[0] || depth < f->best_depth)) {
                snprintf(f->best, sizeof f->best, "%s", p);
                f->best_depth = depth;
            }
            f->count++;
            snprintf(f->only, sizeof f->only, "%s", p);
            cl_sb_printf(&f->others, "%s%s", f->count > 1 ? ", " : "", r);
        }
    }
    closedir(d);
}

int cl_stage_prepare(const cl_submission *s, const char *lab, const char *stage, int allow_prebuilt, char *solution,
                     size_t solution_n, char *why, size_t why_n, cl_err *err)
{
    why[0] = '\0';
    char src[CL_PATH_MAX];
    cl_path_join(src, sizeof src, stage, "src");
    if (s->kind == CL_SUB_ARCHIVE) {
        char arc[CL_PATH_MAX], name[CL_PATH_MAX];
        archive_stage_name(s->entry, name, sizeof name);
        cl_path_join(arc, sizeof arc, stage, name);
        int rc = cl_archive_extract(arc, src, why, why_n, err);
        if (rc)
            return rc;
    }
    found f = {0};
    cl_sb_init(&f.others);
    char want[160];
    const char *ext = ".cu";
    snprintf(want, sizeof want, "%s.cu", lab);
    find_rec(&f, src, "", 0, want, ext);
    if (!f.count && allow_prebuilt) { /* the CPU test suite submits prebuilt .so files */
        ext = ".so";
        snprintf(want, sizeof want, "%s.so", lab);
        find_rec(&f, src, "", 0, want, ext);
    }
    int rc = 0;
    if (f.best[0]) {
        snprintf(solution, solution_n, "%s", f.best);
    } else if (f.count == 1) {
        /* the only one, under the lab's name beside it (no <lab>.cu is there): the name a
         * student chose never reaches the compiler */
        char fixed[CL_PATH_MAX];
        snprintf(fixed, sizeof fixed, "%s", f.only);
        char *slash = strrchr(fixed, '/');
        snprintf(slash + 1, sizeof fixed - (size_t)(slash + 1 - fixed), "%s", want);
        snprintf(solution, solution_n, "%s", rename(f.only, fixed) == 0 ? fixed : f.only);
    }
    else if (f.count == 0)
        rc = (snprintf(why, why_n, "no .cu file in the submission (expected %s.cu)", lab), 1);
    else
        rc = (snprintf(why, why_n, "several .cu files (%s) and none named %s.cu: name your solution %s.cu",
                       cl_sb_str(&f.others), lab, lab), 1);
    cl_sb_free(&f.others);
    (void)err;
    return rc;
}
