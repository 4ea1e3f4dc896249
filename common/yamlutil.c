/* yamlutil.c: libyaml document loading and typed, line-aware accessors. */
#include "yamlutil.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "paths.h"

int cl_yaml_load_string(cl_yaml *y, const char *name, const char *text, size_t len, cl_err *err)
{
    memset(y, 0, sizeof *y);
    snprintf(y->path, sizeof y->path, "%s", name);
    yaml_parser_t p;
    if (!yaml_parser_initialize(&p))
        return cl_err_set(err, "%s: cannot initialise the YAML parser", name);
    yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
    if (!yaml_parser_load(&p, &y->doc)) {
        yaml_mark_t m = p.problem_mark;
        cl_err_set(err, "%s:%zu:%zu: YAML syntax error: %s%s%s", name, m.line + 1,
                   m.column + 1, p.problem ? p.problem : "unknown problem",
                   p.context ? " " : "", p.context ? p.context : "");
        yaml_parser_delete(&p);
        return -1;
    }
    yaml_parser_delete(&p);
    y->loaded = 1;
    if (!yaml_document_get_root_node(&y->doc)) {
        cl_yaml_free(y);
        return cl_err_set(err, "%s:1:1: the file is empty", name);
    }
    return 0;
}

int cl_yaml_load_file(cl_yaml *y, const char *path, cl_err *err)
{
    char *text;
    size_t len;
    memset(y, 0, sizeof *y);
    if (cl_read_file(path, 8u << 20, &text, &len, err))
        return -1;
    int rc = cl_yaml_load_string(y, path, text, len, err);
    free(text);
    return rc;
}

void cl_yaml_free(cl_yaml *y)
{
    if (y->loaded)
        yaml_document_delete(&y->doc);
    y->loaded = 0;
}

cl_ynode *cl_yaml_root(cl_yaml *y) { return y->loaded ? yaml_document_get_root_node(&y->doc) : NULL; }
int cl_yaml_line(const cl_ynode *n) { return n ? (int)n->start_mark.line + 1 : 0; }
int cl_yaml_col(const cl_ynode *n) { return n ? (int)n->start_mark.column + 1 : 0; }
int cl_yaml_is_map(const cl_ynode *n) { return n && n->type == YAML_MAPPING_NODE; }
int cl_yaml_is_seq(const cl_ynode *n) { return n && n->type == YAML_SEQUENCE_NODE; }
int cl_yaml_is_scalar(const cl_ynode *n) { return n && n->type == YAML_SCALAR_NODE; }

const char *cl_yaml_str(const cl_ynode *n)
{
    return cl_yaml_is_scalar(n) ? (const char *)n->data.scalar.value : NULL;
}

size_t cl_yaml_map_len(const cl_ynode *map)
{
    if (!cl_yaml_is_map(map))
        return 0;
    return (size_t)(map->data.mapping.pairs.top - map->data.mapping.pairs.start);
}

cl_ynode *cl_yaml_map_key(cl_yaml *y, cl_ynode *map, size_t i)
{
    if (i >= cl_yaml_map_len(map))
        return NULL;
    return yaml_document_get_node(&y->doc, map->data.mapping.pairs.start[i].key);
}

cl_ynode *cl_yaml_map_val(cl_yaml *y, cl_ynode *map, size_t i)
{
    if (i >= cl_yaml_map_len(map))
        return NULL;
    return yaml_document_get_node(&y->doc, map->data.mapping.pairs.start[i].value);
}

cl_ynode *cl_yaml_get(cl_yaml *y, cl_ynode *map, const char *key)
{
    size_t n = cl_yaml_map_len(map);
    for (size_t i = 0; i < n; i++) {
        const char *k = cl_yaml_str(cl_yaml_map_key(y, map, i));
        if (k && strcmp(k, key) == 0)
            return cl_yaml_map_val(y, map, i);
    }
    return NULL;
}

size_t cl_yaml_seq_len(const cl_ynode *seq)
{
    if (!cl_yaml_is_seq(seq))
        return 0;
    return (size_t)(seq->data.sequence.items.top - seq->data.sequence.items.start);
}

cl_ynode *cl_yaml_seq_at(cl_yaml *y, cl_ynode *seq, size_t i)
{
    if (i >= cl_yaml_seq_len(seq))
        return NULL;
    return yaml_document_get_node(&y->doc, seq->data.sequence.items.start[i]);
}

int cl_yaml_errf(cl_yaml *y, const cl_ynode *n, cl_err *err, const char *fmt, ...)
{
    char msg[1536];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (n)
        return cl_err_set(err, "%s:%d:%d: %s", y->path, cl_yaml_line(n), cl_yaml_col(n), msg);
    return cl_err_set(err, "%s: %s", y->path, msg);
}

int cl_yaml_as_str(cl_yaml *y, const cl_ynode *n, const char *what, const char **out, cl_err *err)
{
    const char *s = cl_yaml_str(n);
    if (!s)
        return cl_yaml_errf(y, n, err, "%s must be a string", what);
    *out = s;
    return 0;
}

int cl_yaml_as_int(cl_yaml *y, const cl_ynode *n, const char *what, long long *out, cl_err *err)
{
    const char *s = cl_yaml_str(n);
    if (!s || !*s)
        return cl_yaml_errf(y, n, err, "%s must be an integer", what);
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 0);
    if (errno || *end) {
        /* allow 2^k and 1e6 style integers written as exact doubles */
        double d;
        if (cl_yaml_as_double(y, n, what, &d, NULL) == 0 && d == floor(d) && fabs(d) < 9.0e18) {
            *out = (long long)d;
            return 0;
        }
        return cl_yaml_errf(y, n, err, "%s must be an integer, not '%s'", what, s);
    }
    *out = v;
    return 0;
}

int cl_yaml_as_double(cl_yaml *y, const cl_ynode *n, const char *what, double *out, cl_err *err)
{
    const char *s = cl_yaml_str(n);
    if (!s || !*s)
        return cl_yaml_errf(y, n, err, "%s must be a number", what);
    if (!strcasecmp(s, ".inf") || !strcasecmp(s, "+.inf")) { *out = INFINITY; return 0; }
    if (!strcasecmp(s, "-.inf")) { *out = -INFINITY; return 0; }
    /* "2^28" is accepted: sizes read better that way */
    const char *caret = strchr(s, '^');
    if (caret) {
        char *e1, *e2;
        double b = strtod(s, &e1), e = strtod(caret + 1, &e2);
        if (e1 == caret && !*e2) {
            *out = pow(b, e);
            return 0;
        }
    }
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno == ERANGE || *end)
        return cl_yaml_errf(y, n, err, "%s must be a number, not '%s'", what, s);
    *out = v;
    return 0;
}

int cl_yaml_as_bool(cl_yaml *y, const cl_ynode *n, const char *what, int *out, cl_err *err)
{
    const char *s = cl_yaml_str(n);
    if (s && (!strcmp(s, "true") || !strcmp(s, "yes"))) { *out = 1; return 0; }
    if (s && (!strcmp(s, "false") || !strcmp(s, "no"))) { *out = 0; return 0; }
    return cl_yaml_errf(y, n, err, "%s must be true or false", what);
}

cl_ynode *cl_yaml_need(cl_yaml *y, cl_ynode *map, const char *key, cl_err *err)
{
    if (!cl_yaml_is_map(map)) {
        cl_yaml_errf(y, map, err, "expected a mapping with key '%s'", key);
        return NULL;
    }
    cl_ynode *v = cl_yaml_get(y, map, key);
    if (!v)
        cl_yaml_errf(y, map, err, "missing key '%s'", key);
    return v;
}

/* Levenshtein distance, case-insensitive, of short words (longer ones: a large number). */
static int word_distance(const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b);
    if (na > 63 || nb > 63)
        return 1 << 20;
    int row[64];
    for (size_t j = 0; j <= nb; j++)
        row[j] = (int)j;
    for (size_t i = 1; i <= na; i++) {
        int diag = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= nb; j++) {
            int up = row[j];
            int same = (a[i - 1] | 0x20) == (b[j - 1] | 0x20);
            int best = diag + !same;
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[nb];
}

const char *cl_did_you_mean(const char *word, const char *const *names)
{
    const char *best = NULL;
    int best_d = 1 << 20;
    for (const char *const *n = names; n && *n; n++) {
        int d = word_distance(word, *n);
        if (d < best_d) {
            best_d = d;
            best = *n;
        }
    }
    /* close enough to be a typo: a third of the word, at least one edit */
    int limit = (int)strlen(word) / 3;
    return best && best_d <= (limit > 1 ? limit : 1) ? best : NULL;
}

int cl_yaml_check_keys(cl_yaml *y, cl_ynode *map, const char *const *allowed, cl_err *err)
{
    if (!cl_yaml_is_map(map))
        return cl_yaml_errf(y, map, err, "expected a mapping");
    size_t n = cl_yaml_map_len(map);
    for (size_t i = 0; i < n; i++) {
        cl_ynode *kn = cl_yaml_map_key(y, map, i);
        const char *k = cl_yaml_str(kn);
        if (!k)
            return cl_yaml_errf(y, kn, err, "keys must be plain strings");
        int ok = 0;
        for (const char *const *a = allowed; *a; a++)
            if (!strcmp(*a, k)) { ok = 1; break; }
        if (!ok) {
            char list[512] = "";
            for (const char *const *a = allowed; *a; a++) {
                strncat(list, *a, sizeof list - strlen(list) - 3);
                if (a[1]) strncat(list, ", ", sizeof list - strlen(list) - 1);
            }
            const char *near = cl_did_you_mean(k, allowed);
            if (near)
                return cl_yaml_errf(y, kn, err, "unknown key '%s': did you mean '%s'? (expected one of: %s)", k, near,
                                    list);
            return cl_yaml_errf(y, kn, err, "unknown key '%s' (expected one of: %s)", k, list);
        }
        for (size_t j = 0; j < i; j++) {
            const char *prev = cl_yaml_str(cl_yaml_map_key(y, map, j));
            if (prev && !strcmp(prev, k))
                return cl_yaml_errf(y, kn, err, "duplicate key '%s' (first at line %d)", k,
                                    cl_yaml_line(cl_yaml_map_key(y, map, j)));
        }
    }
    return 0;
}
