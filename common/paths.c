/* paths.c: XDG directories, the cudalab home, and small file helpers. */
#include "paths.h"
#include "i18n.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef CUDALAB_SOURCE_DIR
#define CUDALAB_SOURCE_DIR "."
#endif

static char g_exe_dir[CL_PATH_MAX];
static char g_home[CL_PATH_MAX];

void cl_paths_set_exe(const char *argv0)
{
    char buf[CL_PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n > 0) {
        buf[n] = '\0';
    } else if (argv0 && realpath(argv0, buf)) {
        /* resolved */
    } else {
        snprintf(g_exe_dir, sizeof g_exe_dir, ".");
        return;
    }
    snprintf(g_exe_dir, sizeof g_exe_dir, "%s", dirname(buf));
}

const char *cl_exe_dir(void)
{
    if (!g_exe_dir[0])
        cl_paths_set_exe(NULL);
    return g_exe_dir;
}

static int looks_like_home(const char *dir)
{
    char p[CL_PATH_MAX];
    snprintf(p, sizeof p, "%s/labs/include/cudalab_lab.h", dir);
    return cl_file_exists(p);
}

const char *cl_home_dir(void)
{
    if (g_home[0])
        return g_home;
    const char *env = getenv("CUDALAB_HOME");
    if (env && *env) {
        snprintf(g_home, sizeof g_home, "%s", env);
        return g_home;
    }
    char cand[CL_PATH_MAX];
    snprintf(cand, sizeof cand, "%s/../share/cudalab", cl_exe_dir());
    if (looks_like_home(cand)) {
        char real[CL_PATH_MAX];
        snprintf(g_home, sizeof g_home, "%s", realpath(cand, real) ? real : cand);
        return g_home;
    }
    snprintf(g_home, sizeof g_home, "%s", CUDALAB_SOURCE_DIR);
    return g_home;
}

static void (*g_warn)(const char *why, const char *dir);

void cl_paths_set_warn(void (*warn)(const char *why, const char *dir)) { g_warn = warn; }

/* $XDG_x_HOME/cudalab, else $HOME/<fallback>/cudalab; when neither can be used (HOME unset,
 * read-only), a folder of this user's under $TMPDIR or /tmp, with a one-line warning. */
static int xdg_dir(const char *var, const char *fallback, char *out, size_t n, cl_err *err)
{
    const char *base = getenv(var), *home = getenv("HOME");
    char why[CL_PATH_MAX + 64] = "";
    if (base && *base) {
        snprintf(out, n, "%s/cudalab", base);
        if (cl_mkdirs(out, err) == 0)
            return 0;
        snprintf(why, sizeof why, "%s", err ? err->msg : "");
    } else if (home && *home) {
        snprintf(out, n, "%s/%s/cudalab", home, fallback);
        if (cl_mkdirs(out, err) == 0)
            return 0;
        snprintf(why, sizeof why, "%s", err ? err->msg : "");
    } else {
        snprintf(why, sizeof why, CL_T("neither $%s nor $HOME is set"), var);
    }
    const char *tmp = getenv("TMPDIR");
    snprintf(out, n, "%s/cudalab-%u/%s", tmp && *tmp ? tmp : "/tmp", (unsigned)getuid(),
             strrchr(fallback, '/') ? strrchr(fallback, '/') + 1 : fallback + 1);
    if (cl_mkdirs(out, err))
        return cl_err_wrap(err, "%s, and the temporary folder failed too", why);
    static int warned;
    if (g_warn && !warned++)
        g_warn(why, out);
    return 0;
}

int cl_data_dir(char *out, size_t n, cl_err *err)
{
    return xdg_dir("XDG_DATA_HOME", ".local/share", out, n, err);
}

int cl_cache_dir(char *out, size_t n, cl_err *err)
{
    return xdg_dir("XDG_CACHE_HOME", ".cache", out, n, err);
}

int cl_mkdirs(const char *path, cl_err *err)
{
    char buf[CL_PATH_MAX];
    snprintf(buf, sizeof buf, "%s", path);
    size_t len = strlen(buf);
    for (size_t i = 1; i <= len; i++) {
        if (buf[i] == '/' || buf[i] == '\0') {
            char c = buf[i];
            buf[i] = '\0';
            if (mkdir(buf, 0755) != 0 && errno != EEXIST)
                return cl_err_set(err, CL_T("cannot create directory %s: %s"), buf, strerror(errno));
            buf[i] = c;
        }
    }
    if (!cl_dir_exists(path))
        return cl_err_set(err, "%s exists and is not a directory", path);
    return 0;
}

int cl_rmtree(const char *path, cl_err *err)
{
    if (!path || !*path || strcmp(path, "/") == 0)
        return cl_err_set(err, "refusing to remove '%s'", path ? path : "");
    struct stat st;
    if (lstat(path, &st) != 0)
        return errno == ENOENT ? 0 : cl_err_set(err, "%s: %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        if (!d)
            return cl_err_set(err, "cannot open %s: %s", path, strerror(errno));
        struct dirent *e;
        int rc = 0;
        while (rc == 0 && (e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            char child[CL_PATH_MAX];
            cl_path_join(child, sizeof child, path, e->d_name);
            rc = cl_rmtree(child, err);
        }
        closedir(d);
        if (rc)
            return rc;
        if (rmdir(path) != 0)
            return cl_err_set(err, "cannot remove %s: %s", path, strerror(errno));
        return 0;
    }
    if (unlink(path) != 0)
        return cl_err_set(err, "cannot remove %s: %s", path, strerror(errno));
    return 0;
}

int cl_file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int cl_dir_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int cl_read_file(const char *path, size_t max, char **data, size_t *len, cl_err *err)
{
    *data = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return cl_err_set(err, "cannot open %s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return cl_err_set(err, "%s is not a regular file", path);
    }
    if ((size_t)st.st_size > max) {
        close(fd);
        return cl_err_set(err, "%s is too large (%lld bytes, limit %zu)", path,
                          (long long)st.st_size, max);
    }
    size_t cap = (size_t)st.st_size + 1, got = 0;
    char *buf = malloc(cap);
    if (!buf) {
        close(fd);
        return cl_err_set(err, "out of memory reading %s", path);
    }
    for (;;) {
        if (got + 1 >= cap) { /* file grew while we read it: stop at the limit */
            if (cap > max) break;
            char *nb = realloc(buf, cap * 2);
            if (!nb) break;
            buf = nb;
            cap *= 2;
        }
        ssize_t r = read(fd, buf + got, cap - 1 - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            free(buf);
            close(fd);
            return cl_err_set(err, "cannot read %s: %s", path, strerror(errno));
        }
        if (r == 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    buf[got] = '\0';
    *data = buf;
    if (len)
        *len = got;
    return 0;
}

int cl_write_file_atomic(const char *path, const void *data, size_t len, cl_err *err)
{
    char tmp[CL_PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return cl_err_set(err, "cannot write %s: %s", tmp, strerror(errno));
    const char *p = data;
    size_t left = len;
    while (left) {
        ssize_t w = write(fd, p, left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0) {
            int e = errno;
            close(fd);
            unlink(tmp);
            return cl_err_set(err, "cannot write %s: %s", tmp, strerror(e));
        }
        p += w;
        left -= (size_t)w;
    }
    if (fsync(fd) != 0 || close(fd) != 0) {
        unlink(tmp);
        return cl_err_set(err, "cannot write %s: %s", tmp, strerror(errno));
    }
    if (rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        return cl_err_set(err, "cannot rename %s to %s: %s", tmp, path, strerror(e));
    }
    return 0;
}

int cl_copy_file(const char *from, const char *to, cl_err *err)
{
    char *data;
    size_t len;
    if (cl_read_file(from, (size_t)1 << 30, &data, &len, err))
        return -1;
    int rc = cl_write_file_atomic(to, data, len, err);
    free(data);
    return rc;
}

void cl_path_join(char *out, size_t n, const char *a, const char *b)
{
    size_t la = strlen(a);
    if (la && a[la - 1] == '/')
        snprintf(out, n, "%s%s", a, b);
    else
        snprintf(out, n, "%s/%s", a, b);
}
