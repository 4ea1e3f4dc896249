/* intake.c: the submissions folder and the roster -> one cl_submission per student.
 *
 * Every entry not starting with '.' is one student's submission: alice.cu, alice.zip,
 * alice.tar.gz or a folder alice/. The student id is the name without its extension, made
 * safe for file names ([A-Za-z0-9._@+-]). Nothing is followed or opened beyond reading the
 * bytes for the content hash; staging and judging come later (stage.c). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grader/classroom.h"
#include "strbuf.h"

#define HASH_MAX_BYTES (64u << 20)

static void notef(void (*note)(void *, const char *), void *ctx, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void notef(void (*note)(void *, const char *), void *ctx, const char *fmt, ...)
{
    if (!note)
        return;
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    note(ctx, buf);
}

/* The raw name of an entry without its extension: "alice.tar.gz" -> "alice",
 * "bob.smith.CU" -> "bob.smith"; a folder keeps its whole name. */
static void entry_stem(const char *entry, int is_dir, char *base, size_t n)
{
    snprintf(base, n, "%s", entry);
    if (is_dir)
        return;
    static const char *const exts[] = {".tar.gz", ".tar.xz", ".tar.bz2", ".tgz", ".tar", ".zip", NULL};
    size_t len = strlen(base);
    for (int i = 0; exts[i]; i++) {
        size_t el = strlen(exts[i]);
        if (len > el && !strcasecmp(base + len - el, exts[i])) {
            base[len - el] = '\0';
            return;
        }
    }
    char *dot = strrchr(base, '.');
    if (dot && dot != base)
        *dot = '\0';
}

/* The student id of an entry (names.c); 1 when characters had to be replaced or cut. */
static int student_id(const char *entry, int is_dir, char *out, size_t n)
{
    char base[256];
    entry_stem(entry, is_dir, base, sizeof base);
    return cl_student_id(base, out, n);
}

/* Files an instructor keeps beside the submissions (README.md, roster.csv, NOTES):
 * notes, not students. Folders are always students'. */
int cl_intake_is_note(const char *entry)
{
    static const char *const stems[] = {"readme", "license", "notes", "roster", NULL};
    /* not .txt, .pdf or .docx: a student who hands one in gets a verdict that says why */
    static const char *const exts[] = {".md", ".csv", ".tsv", ".json", ".yaml", ".yml", ".html", ".sqlite", ".xlsx",
                                       ".ods", NULL};
    char stem[256];
    entry_stem(entry, 0, stem, sizeof stem);
    for (int i = 0; stems[i]; i++)
        if (!strcasecmp(stem, stems[i]))
            return 1;
    const char *dot = strrchr(entry, '.');
    for (int i = 0; dot && dot != entry && exts[i]; i++)
        if (!strcasecmp(dot, exts[i]))
            return 1;
    return 0;
}

/* ---- content hashes ---- */

typedef struct dir_hash {
    cl_strbuf list;
    int entries;
    size_t bytes;
    int over;
    long long newest; /* the newest modification time of its files */
} dir_hash;

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void hash_dir_rec(dir_hash *h, const char *path, const char *rel, int depth)
{
    DIR *d = opendir(path);
    if (!d) {
        cl_sb_printf(&h->list, "unreadable %s\n", rel);
        return;
    }
    char **names = NULL;
    int n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            names = realloc(names, (size_t)cap * sizeof *names);
        }
        names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, cmp_str);
    for (int i = 0; i < n; i++) {
        char full[CL_PATH_MAX], r[CL_PATH_MAX];
        cl_path_join(full, sizeof full, path, names[i]);
        snprintf(r, sizeof r, "%s%s%s", rel, *rel ? "/" : "", names[i]);
        struct stat st;
        if (++h->entries > 4 * CL_STAGE_MAX_ENTRIES || lstat(full, &st) != 0) {
            h->over = 1;
            continue;
        }
        if (S_ISDIR(st.st_mode) && depth < CL_STAGE_MAX_DEPTH) {
            cl_sb_printf(&h->list, "dir %s\n", r);
            hash_dir_rec(h, full, r, depth + 1);
        } else if (S_ISREG(st.st_mode) && h->bytes + (size_t)st.st_size <= HASH_MAX_BYTES) {
            char hex[CL_SHA256_HEX];
            cl_err err;
            h->bytes += (size_t)st.st_size;
            if ((long long)st.st_mtime > h->newest)
                h->newest = (long long)st.st_mtime;
            if (cl_sha256_file(full, HASH_MAX_BYTES, hex, &err))
                snprintf(hex, sizeof hex, "unreadable");
            cl_sb_printf(&h->list, "file %s %lld %s\n", r, (long long)st.st_size, hex);
        } else { /* links, devices, oversize: staging refuses them; the name and size identify them */
            cl_sb_printf(&h->list, "other %s %o %lld %lld\n", r, (unsigned)st.st_mode, (long long)st.st_size,
                         (long long)st.st_mtime);
        }
    }
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* The content hash of a submission and when it was handed in: a file's modification
 * time, or for a folder the newest of its files' (copying a folder around changes the
 * folder's own time, not its files'). */
static void hash_entry(const char *path, const struct stat *st, char out[CL_SHA256_HEX], long long *when)
{
    cl_err err;
    *when = (long long)st->st_mtime;
    if (S_ISDIR(st->st_mode)) {
        dir_hash h = {0};
        cl_sb_init(&h.list);
        hash_dir_rec(&h, path, "", 0);
        const char *s = cl_sb_str(&h.list);
        cl_sha256_hex(s, strlen(s), out);
        cl_sb_free(&h.list);
        if (h.newest)
            *when = h.newest;
        return;
    }
    if (S_ISREG(st->st_mode) && (size_t)st->st_size <= HASH_MAX_BYTES && cl_sha256_file(path, HASH_MAX_BYTES, out, &err) == 0)
        return;
    /* a special file or a huge file: refused when staged, whatever its bytes */
    char meta[256];
    snprintf(meta, sizeof meta, "unhashed %o %lld %lld", (unsigned)st->st_mode, (long long)st->st_size,
             (long long)st->st_mtime);
    cl_sha256_hex(meta, strlen(meta), out);
}

int cl_intake_hash(const char *path, char out[CL_SHA256_HEX], long long *when, cl_err *err)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return cl_err_set(err, "cannot read %s: %s", path, strerror(errno));
    hash_entry(path, &st, out, when);
    return 0;
}

/* ---- the roster ---- */

/* One CSV record (RFC 4180: quotes, doubled quotes, commas and newlines inside quotes). */
static int csv_record(const char **pp, char **fields, int max)
{
    const char *p = *pp;
    if (!*p)
        return -1;
    int n = 0;
    cl_strbuf f;
    cl_sb_init(&f);
    for (;;) {
        cl_sb_clear(&f);
        if (*p == '"') {
            p++;
            for (; *p; p++) {
                if (*p == '"' && p[1] == '"') { cl_sb_appendn(&f, "\"", 1); p++; }
                else if (*p == '"') { p++; break; }
                else cl_sb_appendn(&f, p, 1);
            }
            while (*p && *p != ',' && *p != '\n' && *p != '\r')
                p++;
        } else {
            while (*p && *p != ',' && *p != '\n' && *p != '\r')
                cl_sb_appendn(&f, p++, 1);
        }
        if (n < max)
            fields[n++] = strdup(cl_sb_str(&f));
        if (*p == ',') {
            p++;
            continue;
        }
        if (*p == '\r')
            p++;
        if (*p == '\n')
            p++;
        break;
    }
    cl_sb_free(&f);
    *pp = p;
    return n;
}

static void trim(char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        s[--n] = '\0';
    size_t k = strspn(s, " \t");
    memmove(s, s + k, strlen(s + k) + 1);
}

/* The column named one of names; "Student ID" and "student-id" are student_id. */
static int col_of(char **h, int n, const char *const *names)
{
    for (int k = 0; names[k]; k++)
        for (int i = 0; i < n; i++) {
            char norm[128];
            snprintf(norm, sizeof norm, "%s", h[i]);
            for (char *c = norm; *c; c++)
                if (*c == ' ' || *c == '-')
                    *c = '_';
            if (!strcasecmp(norm, names[k]))
                return i;
        }
    return -1;
}

static int add_sub(cl_submission **subs, int *n, int *cap)
{
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 32;
        cl_submission *g = realloc(*subs, (size_t)*cap * sizeof **subs);
        if (!g)
            return -1;
        *subs = g;
    }
    memset(&(*subs)[*n], 0, sizeof **subs);
    return (*n)++;
}

static int read_roster(const char *path, cl_submission **subs, int *n, int *cap,
                       void (*note)(void *, const char *), void *ctx, cl_err *err)
{
    char *text;
    size_t len;
    if (cl_read_file(path, 16u << 20, &text, &len, err))
        return -1;
    const char *p = text;
    if (!strncmp(p, "\xEF\xBB\xBF", 3)) /* a spreadsheet's BOM */
        p += 3;
    char *h[32] = {0};
    int nh = csv_record(&p, h, 32);
    static const char *const id_names[] = {"id", "student", "student_id", "sid", "username", "login", "email", NULL};
    static const char *const name_names[] = {"name", "full_name", "fullname", "student_name", NULL};
    static const char *const email_names[] = {"email", "e-mail", "mail", NULL};
    for (int i = 0; i < nh; i++)
        trim(h[i]);
    int ci = nh > 0 ? col_of(h, nh, id_names) : -1, cn = col_of(h, nh, name_names), ce = col_of(h, nh, email_names);
    for (int i = 0; i < nh; i++)
        free(h[i]);
    if (ci < 0) {
        free(text);
        return cl_err_set(err, "%s:1: the roster's header names no id column (id, student, student_id, sid, "
                               "username, login or email)", path);
    }
    int line = 1, base = *n;
    for (;;) {
        char *f[32] = {0};
        int nf = csv_record(&p, f, 32);
        if (nf < 0)
            break;
        line++;
        if (nf == 1 && !*f[0]) { /* blank line */
            free(f[0]);
            continue;
        }
        if (ci >= nf) {
            for (int i = 0; i < nf; i++) free(f[i]);
            free(text);
            return cl_err_set(err, "%s:%d: this row has no id column", path, line);
        }
        for (int i = 0; i < nf; i++)
            trim(f[i]);
        char id[128], key[512];
        cl_student_id(f[ci], id, sizeof id);
        cl_student_key(id, key, sizeof key);
        int found = -1;
        for (int k = 0; k < *n && found == -1; k++) {
            char other[512];
            cl_student_key((*subs)[k].student, other, sizeof other);
            if (!strcmp(other, key))
                found = (*subs)[k].in_roster ? -2 : k;
        }
        if (found >= 0 && strcmp((*subs)[found].student, id)) /* the LMS's spelling: ALICE for alice.cu */
            snprintf((*subs)[found].student, sizeof (*subs)[found].student, "%s", id);
        if (found == -2)
            notef(note, ctx, "%s:%d: student '%s' is listed twice; the first row counts", path, line, id);
        if (found == -2) {
            for (int i = 0; i < nf; i++) free(f[i]);
            continue;
        }
        if (found < 0) {
            found = add_sub(subs, n, cap);
            if (found < 0) {
                for (int i = 0; i < nf; i++) free(f[i]);
                free(text);
                return cl_err_set(err, "out of memory");
            }
            cl_submission *s = &(*subs)[found];
            snprintf(s->student, sizeof s->student, "%s", id);
            s->kind = CL_SUB_NONE;
        }
        cl_submission *s = &(*subs)[found];
        s->in_roster = 1;
        if (cn >= 0 && cn < nf && *f[cn])
            snprintf(s->name, sizeof s->name, "%s", f[cn]);
        if (ce >= 0 && ce < nf)
            snprintf(s->email, sizeof s->email, "%s", f[ce]);
        for (int i = 0; i < nf; i++)
            free(f[i]);
    }
    free(text);
    for (int k = 0; k < base; k++)
        if (!(*subs)[k].in_roster)
            notef(note, ctx, "%s: '%s' is not in the roster (graded anyway)", (*subs)[k].entry, (*subs)[k].student);
    return 0;
}

/* ---- the folder ---- */

static int cmp_sub(const void *a, const void *b)
{
    return strcmp(((const cl_submission *)a)->student, ((const cl_submission *)b)->student);
}

/* Two entries whose ids collide: the same name twice (alice.cu and alice.zip, or Alice.cu
 * and alice.cu) is two submissions of one student, which the instructor must settle; ids
 * that only collide because characters were replaced or cut (a?b.cu and a_b.cu) get a
 * suffix from the entry's own name, the same on every run. */
static int settle_collisions(cl_submission *subs, int n, const char *dir, cl_err *err)
{
    for (int i = 0; i < n; i++) {
        char ki[512];
        cl_student_key(subs[i].student, ki, sizeof ki);
        for (int j = i + 1; j < n; j++) {
            char kj[512];
            cl_student_key(subs[j].student, kj, sizeof kj);
            if (strcmp(ki, kj))
                continue;
            char si[256], sj[256], fi[512], fj[512];
            entry_stem(subs[i].entry, subs[i].kind == CL_SUB_DIR, si, sizeof si);
            entry_stem(subs[j].entry, subs[j].kind == CL_SUB_DIR, sj, sizeof sj);
            cl_student_key(si, fi, sizeof fi);
            cl_student_key(sj, fj, sizeof fj);
            if (!strcmp(fi, fj))
                return cl_err_set(err, "two submissions for student '%s' in %s: '%s' and '%s' (keep one)",
                                  subs[i].student, dir, subs[i].entry, subs[j].entry);
            cl_submission *move[2] = {subs[i].renamed ? &subs[i] : NULL, subs[j].renamed ? &subs[j] : NULL};
            if (!move[0] && !move[1])
                move[1] = &subs[j];
            for (int m = 0; m < 2; m++) {
                if (!move[m])
                    continue;
                char h[CL_SHA256_HEX], id[128];
                cl_sha256_hex(move[m]->entry, strlen(move[m]->entry), h);
                snprintf(id, sizeof id, "%.90s~%.6s", move[m]->student, h);
                snprintf(move[m]->student, sizeof move[m]->student, "%s", id);
                move[m]->renamed = 1;
            }
            i = -1; /* ids changed: look again */
            break;
        }
    }
    return 0;
}

int cl_intake_scan(const char *dir, const char *skip, const char *roster, cl_submission **subs, int *n,
                   void (*note)(void *ctx, const char *msg), void *ctx, cl_err *err)
{
    *subs = NULL;
    *n = 0;
    int cap = 0;
    DIR *d = opendir(dir);
    if (!d)
        return cl_err_set(err, "cannot open the submissions folder %s: %s", dir, strerror(errno));
    struct stat skip_st;
    int have_skip = skip && stat(skip, &skip_st) == 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[CL_PATH_MAX];
        cl_path_join(path, sizeof path, dir, e->d_name);
        struct stat st;
        /* the folder is the instructor's: a link they made is followed (a dangling one is
         * graded as missing its file); links inside a student's folder are not */
        struct stat lst;
        if (lstat(path, &lst) != 0)
            continue;
        if (stat(path, &st) != 0)
            st = lst;
        else if (S_ISLNK(lst.st_mode)) { /* said, so a link nobody meant is noticed */
            char target[CL_PATH_MAX];
            ssize_t tn = readlink(path, target, sizeof target - 1);
            target[tn > 0 ? tn : 0] = '\0';
            notef(note, ctx, "%s: a link to %s, followed (links in the submissions folder itself are the "
                  "instructor's)", e->d_name, target);
        }
        if (have_skip && st.st_dev == skip_st.st_dev && st.st_ino == skip_st.st_ino)
            continue;
        if (!S_ISDIR(st.st_mode) && cl_intake_is_note(e->d_name)) {
            notef(note, ctx, "%s: a note, not a submission (not graded)", e->d_name);
            continue;
        }
        int k = add_sub(subs, n, &cap);
        if (k < 0) {
            closedir(d);
            return cl_err_set(err, "out of memory");
        }
        cl_submission *s = &(*subs)[k];
        s->renamed = student_id(e->d_name, S_ISDIR(st.st_mode), s->student, sizeof s->student);
        snprintf(s->entry, sizeof s->entry, "%s", e->d_name);
        snprintf(s->path, sizeof s->path, "%s", path);
        s->kind = S_ISDIR(st.st_mode) ? CL_SUB_DIR : cl_is_archive_name(e->d_name) ? CL_SUB_ARCHIVE : CL_SUB_FILE;
        hash_entry(path, &st, s->sha256, &s->submitted_at);
    }
    closedir(d);
    qsort(*subs, (size_t)*n, sizeof **subs, cmp_sub);
    if (settle_collisions(*subs, *n, dir, err)) {
        free(*subs);
        *subs = NULL;
        *n = 0;
        return -1;
    }
    for (int i = 0; i < *n; i++) {
        cl_submission *s = &(*subs)[i];
        if (s->renamed)
            notef(note, ctx, "'%s' is graded as student '%s' (ids keep letters and digits of any script and ._@+-)",
                  s->entry, s->student);
    }
    if (roster && read_roster(roster, subs, n, &cap, note, ctx, err)) {
        free(*subs);
        *subs = NULL;
        *n = 0;
        return -1;
    }
    for (int i = 0; i < *n; i++)
        if (!(*subs)[i].name[0])
            snprintf((*subs)[i].name, sizeof (*subs)[i].name, "%s", (*subs)[i].student);
    qsort(*subs, (size_t)*n, sizeof **subs, cmp_sub);
    return 0;
}
