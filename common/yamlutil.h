/* yamlutil.h: a thin, line-aware layer over libyaml's document API.
 *
 * Every lookup keeps the node's position, so each error can name file:line:column,
 * the way a compiler does. The document owns all nodes; free it with cl_yaml_free. */
#ifndef CUDALAB_YAMLUTIL_H
#define CUDALAB_YAMLUTIL_H

#include <stddef.h>
#include <yaml.h>

#include "err.h"

typedef struct cl_yaml {
    yaml_document_t doc;
    int loaded;
    char path[1024];
} cl_yaml;

typedef yaml_node_t cl_ynode;

/* Parses a file (max 8 MiB). A syntax error reads "path:line:col: message". */
int cl_yaml_load_file(cl_yaml *y, const char *path, cl_err *err);
int cl_yaml_load_string(cl_yaml *y, const char *name, const char *text, size_t len, cl_err *err);
void cl_yaml_free(cl_yaml *y);

cl_ynode *cl_yaml_root(cl_yaml *y);
int cl_yaml_line(const cl_ynode *n); /* 1-based */
int cl_yaml_col(const cl_ynode *n);  /* 1-based */

int cl_yaml_is_map(const cl_ynode *n);
int cl_yaml_is_seq(const cl_ynode *n);
int cl_yaml_is_scalar(const cl_ynode *n);

/* Map access: NULL when the key is absent (or n is not a map). */
cl_ynode *cl_yaml_get(cl_yaml *y, cl_ynode *map, const char *key);
/* Map iteration: count of pairs, i-th key node and value node. */
size_t cl_yaml_map_len(const cl_ynode *map);
cl_ynode *cl_yaml_map_key(cl_yaml *y, cl_ynode *map, size_t i);
cl_ynode *cl_yaml_map_val(cl_yaml *y, cl_ynode *map, size_t i);
/* Sequence access. */
size_t cl_yaml_seq_len(const cl_ynode *seq);
cl_ynode *cl_yaml_seq_at(cl_yaml *y, cl_ynode *seq, size_t i);

/* Scalar text, or NULL when n is not a scalar. */
const char *cl_yaml_str(const cl_ynode *n);

/* Typed reads; each fails with "path:line:col: <what> must be ...". */
int cl_yaml_as_int(cl_yaml *y, const cl_ynode *n, const char *what, long long *out, cl_err *err);
int cl_yaml_as_double(cl_yaml *y, const cl_ynode *n, const char *what, double *out, cl_err *err);
int cl_yaml_as_bool(cl_yaml *y, const cl_ynode *n, const char *what, int *out, cl_err *err);
int cl_yaml_as_str(cl_yaml *y, const cl_ynode *n, const char *what, const char **out, cl_err *err);

/* Required key of a map: error "path:line: missing key 'k'" (at the map's line). */
cl_ynode *cl_yaml_need(cl_yaml *y, cl_ynode *map, const char *key, cl_err *err);
/* Rejects keys not in allowed (NULL-terminated) and duplicate keys, naming their line. */
int cl_yaml_check_keys(cl_yaml *y, cl_ynode *map, const char *const *allowed, cl_err *err);
/* The name of names (NULL-terminated) a typo of word would be, or NULL: "did you mean". */
const char *cl_did_you_mean(const char *word, const char *const *names);

/* Formats an error located at node n: "path:line:col: msg". Returns -1. */
int cl_yaml_errf(cl_yaml *y, const cl_ynode *n, cl_err *err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
