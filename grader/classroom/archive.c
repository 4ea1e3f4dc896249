/* archive.c: a student's .tar / .tar.gz / .zip, extracted with libarchive, safely.
 *
 * Only regular files and folders come out. Refused, with a message for the student:
 * absolute paths, ".." components, symbolic and hard links, device files, FIFOs, sockets,
 * a name that appears twice, more than CL_STAGE_MAX_ENTRIES members, a member over
 * CL_STAGE_MAX_FILE or a total over CL_STAGE_MAX_TOTAL bytes (counted while decompressing,
 * so a lying header does not help), paths deeper than CL_STAGE_MAX_DEPTH. Files are
 * created with openat(O_EXCL | O_NOFOLLOW) below a directory descriptor, never by path,
 * so nothing can be written outside the target folder. On refusal the folder is emptied:
 * nothing half-extracted is ever graded. */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grader/classroom.h"

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && !strcasecmp(s + a - b, suffix);
}

int cl_is_archive_name(const char *name)
{
    return ends_with(name, ".tar") || ends_with(name, ".tar.gz") || ends_with(name, ".tgz") ||
           ends_with(name, ".zip") || ends_with(name, ".tar.xz") || ends_with(name, ".tar.bz2");
}

typedef struct extract {
    char *why;
    size_t why_n;
    int refused;
    size_t total;
    int entries;
} extract;

static int refuse(extract *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int refuse(extract *x, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->why, x->why_n, fmt, ap);
    va_end(ap);
    x->refused = 1;
    return 1;
}

/* Files that archivers add on their own: skipped, not refused. */
static int is_noise(const char *path)
{
    return !strncmp(path, "__MACOSX/", 9) || strstr(path, "/._") || !strncmp(path, "._", 2) ||
           strstr(path, ".DS_Store");
}

/* Checks a member's path; splits it into components in place. */
static int check_path(extract *x, char *path, char **parts, int *nparts)
{
    if (!*path)
        return refuse(x, "the archive has a member with an empty name");
    if (strlen(path) > 512)
        return refuse(x, "the archive has a member whose name is longer than 512 characters");
    if (path[0] == '/')
        return refuse(x, "member '%s' has an absolute path: archives must hold relative paths only", path);
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if (*p == '\\')
            return refuse(x, "member '%s' has a backslash in its name", path);
        if (*p < 0x20 || *p == 0x7f)
            return refuse(x, "a member's name contains control characters");
    }
    *nparts = 0;
    char *save = NULL;
    for (char *t = strtok_r(path, "/", &save); t; t = strtok_r(NULL, "/", &save)) {
        if (!strcmp(t, "."))
            continue;
        if (!strcmp(t, ".."))
            return refuse(x, "a member's path contains '..' (it would escape the folder): refused");
        if (*nparts >= CL_STAGE_MAX_DEPTH)
            return refuse(x, "a member is nested more than %d folders deep", CL_STAGE_MAX_DEPTH);
        parts[(*nparts)++] = t;
    }
    return 0;
}

/* Opens (creating as needed) the folder parts[0..n-1] below root; -1 on failure. */
static int open_parent(int root, char **parts, int n)
{
    int fd = dup(root);
    for (int i = 0; i < n && fd >= 0; i++) {
        if (mkdirat(fd, parts[i], 0755) != 0 && errno != EEXIST) {
            close(fd);
            return -1;
        }
        int next = openat(fd, parts[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        close(fd);
        fd = next;
    }
    return fd;
}

static int write_member(extract *x, struct archive *a, int parent, const char *name, const char *shown)
{
    int fd = openat(parent, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
        if (errno == EEXIST)
            return refuse(x, "member '%s' appears twice in the archive", shown);
        return refuse(x, "cannot create '%s': %s", shown, strerror(errno));
    }
    char buf[65536];
    size_t mine = 0;
    for (;;) {
        la_ssize_t got = archive_read_data(a, buf, sizeof buf);
        if (got == 0)
            break;
        if (got < 0) {
            close(fd);
            return refuse(x, "cannot read member '%s': %s", shown, archive_error_string(a));
        }
        mine += (size_t)got;
        x->total += (size_t)got;
        if (mine > CL_STAGE_MAX_FILE) {
            close(fd);
            return refuse(x, "member '%s' is larger than %u bytes once decompressed", shown, CL_STAGE_MAX_FILE);
        }
        if (x->total > CL_STAGE_MAX_TOTAL) {
            close(fd);
            return refuse(x, "the archive holds more than %u bytes once decompressed", CL_STAGE_MAX_TOTAL);
        }
        for (char *p = buf; got > 0;) {
            ssize_t w = write(fd, p, (size_t)got);
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0) {
                int e = errno;
                close(fd);
                return refuse(x, "cannot write '%s': %s", shown, strerror(e));
            }
            p += w;
            got -= w;
        }
    }
    close(fd);
    return 0;
}

static int extract_all(extract *x, struct archive *a, int root)
{
    struct archive_entry *e;
    for (;;) {
        int rc = archive_read_next_header(a, &e);
        if (rc == ARCHIVE_EOF)
            break;
        if (rc < ARCHIVE_WARN) {
            if (x->entries == 0)
                return refuse(x, "not a readable .tar, .tar.gz or .zip archive (%s)", archive_error_string(a));
            return refuse(x, "the archive is damaged: %s", archive_error_string(a));
        }
        if (++x->entries > CL_STAGE_MAX_ENTRIES)
            return refuse(x, "the archive has more than %d members", CL_STAGE_MAX_ENTRIES);
        const char *raw = archive_entry_pathname(e);
        if (!raw)
            raw = archive_entry_pathname_utf8(e);
        if (!raw)
            return refuse(x, "a member's name cannot be read");
        char shown[600], path[600];
        snprintf(shown, sizeof shown, "%s", raw);
        snprintf(path, sizeof path, "%s", raw);
        if (is_noise(path))
            continue;
        if (archive_entry_hardlink(e))
            return refuse(x, "member '%s' is a hard link: links are not allowed", shown);
        mode_t type = archive_entry_filetype(e);
        if (type == AE_IFLNK)
            return refuse(x, "member '%s' is a symbolic link: links are not allowed", shown);
        if (type != AE_IFREG && type != AE_IFDIR)
            return refuse(x, "member '%s' is a device, FIFO or socket: only files and folders are allowed", shown);
        if (archive_entry_size_is_set(e) && archive_entry_size(e) > (la_int64_t)CL_STAGE_MAX_FILE)
            return refuse(x, "member '%s' is larger than %u bytes", shown, CL_STAGE_MAX_FILE);
        char *parts[CL_STAGE_MAX_DEPTH + 1];
        int nparts = 0;
        if (check_path(x, path, parts, &nparts))
            return 1;
        if (nparts == 0)
            continue; /* "./" */
        if (type == AE_IFDIR) {
            int fd = open_parent(root, parts, nparts);
            if (fd < 0)
                return refuse(x, "cannot create folder '%s' (a file of that name exists?)", shown);
            close(fd);
            continue;
        }
        int parent = open_parent(root, parts, nparts - 1);
        if (parent < 0)
            return refuse(x, "cannot create the folder of '%s' (a file of that name exists?)", shown);
        int r = write_member(x, a, parent, parts[nparts - 1], shown);
        close(parent);
        if (r)
            return 1;
    }
    if (x->entries == 0)
        return refuse(x, "the archive is empty");
    return 0;
}

static void empty_dir(const char *dir)
{
    cl_err e;
    struct stat st;
    mode_t mode = stat(dir, &st) == 0 ? st.st_mode & 07777 : 0700;
    cl_rmtree(dir, &e);
    mkdir(dir, mode);
}

int cl_archive_extract(const char *archive, const char *dir, char *why, size_t why_n, cl_err *err)
{
    extract x = {why, why_n, 0, 0, 0};
    why[0] = '\0';
    struct stat st;
    if (lstat(archive, &st) != 0)
        return cl_err_set(err, "cannot read %s: %s", archive, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return refuse(&x, "the archive is not a regular file");
    if ((unsigned long long)st.st_size > CL_STAGE_MAX_ARCHIVE)
        return refuse(&x, "the archive is %lld bytes; the limit is %u", (long long)st.st_size, CL_STAGE_MAX_ARCHIVE);
    int root = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (root < 0)
        return cl_err_set(err, "cannot open %s: %s", dir, strerror(errno));
    /* names are UTF-8 here, whatever the grading process's locale: a zip that flags its
     * names as UTF-8 (Python, Java, 7-Zip) is unreadable in the "C" locale otherwise */
    locale_t utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
    locale_t before = utf8 ? uselocale(utf8) : (locale_t)0;
    struct archive *a = archive_read_new();
    archive_read_support_format_tar(a);
    archive_read_support_format_gnutar(a);
    archive_read_support_format_zip(a);
    archive_read_support_filter_gzip(a);
    archive_read_support_filter_bzip2(a);
    archive_read_support_filter_xz(a);
    int rc;
    if (archive_read_open_filename(a, archive, 65536) != ARCHIVE_OK)
        rc = refuse(&x, "not a readable .tar, .tar.gz or .zip archive (%s)", archive_error_string(a));
    else
        rc = extract_all(&x, a, root);
    archive_read_free(a);
    if (utf8) {
        uselocale(before);
        freelocale(utf8);
    }
    close(root);
    if (rc)
        empty_dir(dir);
    return rc;
}
