/* paths.h: where cudalab finds its data and keeps its state.
 *
 *   home   labs/, reference/, questions/ (CUDALAB_HOME, else next to the executable's
 *          share/cudalab, else the source tree the binary was built from)
 *   data   $XDG_DATA_HOME/cudalab (default ~/.local/share/cudalab): progress database
 *   cache  $XDG_CACHE_HOME/cudalab (default ~/.cache/cudalab): device ceilings, builds
 *   (either: $TMPDIR/cudalab-<uid>/ when HOME is unset or cannot be written)
 * and small file helpers that every part needs. */
#ifndef CUDALAB_PATHS_H
#define CUDALAB_PATHS_H

#include <stddef.h>

#include "err.h"

#define CL_PATH_MAX 4096

/* Tell the path code where the running executable lives (argv[0] or /proc/self/exe). */
void cl_paths_set_exe(const char *argv0);

/* The directory holding labs/, reference/ and questions/. Never NULL. */
const char *cl_home_dir(void);
/* $XDG_DATA_HOME/cudalab and $XDG_CACHE_HOME/cudalab, created on demand; when HOME is unset
 * or read-only, a temporary folder (the warn callback hears about it once). */
void cl_paths_set_warn(void (*warn)(const char *why, const char *dir));
int cl_data_dir(char *out, size_t n, cl_err *err);
int cl_cache_dir(char *out, size_t n, cl_err *err);
/* Directory holding the cudalab executables (cudalab-run sits next to cudalab). */
const char *cl_exe_dir(void);

/* mkdir -p. */
int cl_mkdirs(const char *path, cl_err *err);
/* rm -rf of a directory tree we created (refuses "/" and ""). */
int cl_rmtree(const char *path, cl_err *err);
int cl_file_exists(const char *path);
int cl_dir_exists(const char *path);
/* Reads a whole file (NUL-terminated; *len excludes the NUL). Refuses files over max. */
int cl_read_file(const char *path, size_t max, char **data, size_t *len, cl_err *err);
/* Writes through a temporary file and rename(), so a reader never sees half a file. */
int cl_write_file_atomic(const char *path, const void *data, size_t len, cl_err *err);
int cl_copy_file(const char *from, const char *to, cl_err *err);
/* Joins a and b with one '/'. */
void cl_path_join(char *out, size_t n, const char *a, const char *b);

#endif
