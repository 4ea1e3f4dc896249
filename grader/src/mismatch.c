/* mismatch.c: a failing array output compared element by element: counts, the first ten,
 * the worst, and a guess at the pattern. Elements come one at a time (cl_mm_add), as a
 * checker walks its output, or as whole arrays (cl_mismatch_f32 and friends). */
#include "grader/mismatch.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "i18n.h"

static const long long tiles[CL_MM_NTILES] = {8, 16, 32, 64, 128, 256};

typedef double (*getter)(const void *a, long long i);

static double get_f32(const void *a, long long i) { return ((const float *)a)[i]; }
static double get_f64(const void *a, long long i) { return ((const double *)a)[i]; }
static double get_f16(const void *a, long long i)
{
    uint16_t h = ((const uint16_t *)a)[i];
    int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
    double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m | 1024, e - 25);
    return s ? -v : v;
}

static void coords(const cl_mm_shape *s, long long i, long long *c)
{
    for (int d = s->ndims - 1; d >= 0; d--) {
        long long dim = s->dims[d] > 0 ? s->dims[d] : 1;
        c[d] = i % dim;
        i /= dim;
    }
}

static long long total_of(const cl_mm_shape *s)
{
    long long n = 1;
    for (int d = 0; d < s->ndims; d++) n *= s->dims[d];
    return n;
}

static int elem_ok(double e, double g, const cl_mm_tol *t)
{
    if (isnan(e) || isinf(e))
        return (isnan(e) && isnan(g)) || e == g;
    if (!isfinite(g))
        return 0;
    return fabs(g - e) <= t->abs + t->rel * fabs(e);
}

static cl_mm_elem make_elem(const cl_mm_shape *s, long long i, double e, double g)
{
    cl_mm_elem x;
    memset(&x, 0, sizeof x);
    x.index = i;
    coords(s, i, x.coord);
    x.expected = e;
    x.got = g;
    x.abs_err = isfinite(g) && isfinite(e) ? fabs(g - e) : INFINITY;
    x.rel_err = e != 0 ? x.abs_err / fabs(e) : (x.abs_err == 0 ? 0 : INFINITY);
    return x;
}

static const char *dim_name(const cl_mm_shape *s, int d)
{
    static const char *const dflt[] = {"i", "j", "k"};
    return s->names[d] ? s->names[d] : dflt[d];
}

/* ---- element by element ---- */

void cl_mm_begin(cl_mm_acc *a, const cl_mm_shape *shape, const cl_mm_tol *tol)
{
    memset(a, 0, sizeof *a);
    a->shape = *shape;
    if (a->shape.ndims < 1 || a->shape.ndims > 3) {
        a->shape.ndims = 1;
        a->shape.dims[0] = 0;
    }
    a->size = total_of(&a->shape);
    a->rep.tol = *tol;
    a->min_bad = -1;
    a->max_ok = -1;
    a->f0 = a->o0 = NAN;
    a->cur_row = -1;
    a->one_factor = a->one_offset = 1;
    a->per_row = a->shape.ndims >= 2;
}

/* CL_POISON_BYTE everywhere: a NaN with the sign and every payload bit set (as float, double
 * or half, widened to double). A NaN the solution computed is another one: CUDA's canonical
 * 0x7fffffff, or x86's 0xffc00000. */
static int is_poison(double g)
{
    if (!isnan(g))
        return 0;
    uint64_t b;
    memcpy(&b, &g, sizeof b);
    return (b >> 63) && ((b >> 42) & 0x3ff) == 0x3ff;
}

void cl_mm_add_passed(cl_mm_acc *a, long long first, long long count)
{
    if (!a || count <= 0)
        return;
    a->rep.total += count;
    if (first + count - 1 > a->max_ok) a->max_ok = first + count - 1;
}

int cl_mm_add(cl_mm_acc *a, long long i, double e, double g, int ok)
{
    cl_mm_report *r = &a->rep;
    r->total++;
    if (ok < 0)
        ok = elem_ok(e, g, &r->tol);
    if (ok) {
        if (i > a->max_ok) a->max_ok = i;
        return 1;
    }
    r->wrong++;
    cl_mm_elem x = make_elem(&a->shape, i, e, g);
    if (!isfinite(g)) r->nonfinite++;
    if (isnan(g)) a->nan_wrong++;
    if (is_poison(g)) a->poison_wrong++;
    if (g == 0) a->zero_wrong++;
    if (r->nfirst < CL_MM_FIRST) r->first[r->nfirst++] = x;
    if (!r->have_worst || x.abs_err > r->worst.abs_err) {
        r->worst = x;
        r->have_worst = 1;
    }
    if (a->min_bad < 0 || i < a->min_bad) a->min_bad = i;
    /* in the last partial tile of a dimension? */
    for (int t = 0; t < CL_MM_NTILES; t++) {
        int any = 0;
        for (int d = 0; d < a->shape.ndims; d++) {
            long long full = a->shape.dims[d] / tiles[t] * tiles[t];
            if (a->shape.dims[d] % tiles[t] && full && x.coord[d] >= full) {
                a->edge[d][t]++;
                any = 1;
            }
        }
        a->edge_any[t] += any;
    }
    /* one factor, one offset, one factor per row */
    double f = e != 0 ? g / e : NAN, o = g - e;
    if (isnan(a->f0)) a->f0 = f;
    if (isnan(a->o0)) a->o0 = o;
    if (isnan(f) || fabs(f - a->f0) > 1e-3 * fabs(a->f0)) a->one_factor = 0;
    if (!(fabs(o - a->o0) <= 1e-3 * fmax(fabs(a->o0), 1e-30) + r->tol.abs)) a->one_offset = 0;
    long long row_len = a->shape.ndims >= 2 ? a->shape.dims[a->shape.ndims - 1] : a->size;
    long long row = row_len > 0 ? i / row_len : 0;
    if (row != a->cur_row) {
        if (a->rows_wrong++ == 0) a->first_row = row;
        a->cur_row = row;
        a->row_f = f;
    } else if (isnan(f) || fabs(f - a->row_f) > 1e-3 * fabs(a->row_f)) {
        a->per_row = 0;
    }
    return 0;
}

/* ---- pattern guesses, the clearest first ---- */

static void set_pattern(cl_mm_report *r, const char *id, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void set_pattern(cl_mm_report *r, const char *id, const char *fmt, ...)
{
    snprintf(r->pattern_id, sizeof r->pattern_id, "%s", id);
    r->pattern_fmt = fmt;
    va_list ap;
    va_start(ap, fmt);
    cl_mm_vformat(r->pattern, sizeof r->pattern, r->pattern_args, sizeof r->pattern_args, fmt, ap);
    va_end(ap);
}

static int guess_partial_tile(cl_mm_acc *a)
{
    cl_mm_report *r = &a->rep;
    const cl_mm_shape *s = &a->shape;
    /* one dimension, the tightest bound (the largest full part); among equally tight
     * tiles, the commonest size first */
    static const int pref[CL_MM_NTILES] = {2, 1, 3, 4, 0, 5}; /* 32, 16, 64, 128, 8, 256 */
    int best_d = -1, best_t = -1;
    long long best_full = 0;
    for (int d = 0; d < s->ndims; d++)
        for (int p = 0; p < CL_MM_NTILES; p++) {
            int t = pref[p];
            long long full = s->dims[d] / tiles[t] * tiles[t];
            if (a->edge[d][t] == r->wrong && full && s->dims[d] % tiles[t] && (best_d < 0 || full > best_full)) {
                best_d = d;
                best_t = t;
                best_full = full;
            }
        }
    if (best_d >= 0) {
        set_pattern(r, "partial_tile",
                    CL_N("only the last partial tile is wrong: every wrong element has %s >= %lld (%s = %lld is not "
                         "a multiple of %lld): check the bounds for the last block"),
                    dim_name(s, best_d), best_full, dim_name(s, best_d), s->dims[best_d], tiles[best_t]);
        return 1;
    }
    /* the edge tiles of several dimensions (a grid rounded down in each): the tightest */
    best_t = -1;
    for (int p = 0; p < CL_MM_NTILES && s->ndims > 1; p++) {
        int t = pref[p];
        if (a->edge_any[t] != r->wrong)
            continue;
        long long tight = 0;
        for (int d = 0; d < s->ndims; d++)
            tight += s->dims[d] % tiles[t] ? s->dims[d] / tiles[t] * tiles[t] : s->dims[d];
        if (best_t < 0 || tight > best_full) {
            best_t = t;
            best_full = tight;
        }
    }
    if (best_t < 0)
        return 0;
    int t = best_t, n = 0, dd[3];
    for (int d = 0; d < s->ndims; d++)
        if (a->edge[d][t])
            dd[n++] = d;
#define EDGE(k) dim_name(s, dd[k]), s->dims[dd[k]] / tiles[t] * tiles[t]
    if (n == 1)
        set_pattern(r, "partial_tile",
                    CL_N("only the last partial tiles are wrong: every wrong element has %s >= %lld (tiles of %lld): "
                         "check the bounds for the last blocks (a grid rounded down, or a missing bounds check)"),
                    EDGE(0), tiles[t]);
    else if (n == 2)
        set_pattern(r, "partial_tile",
                    CL_N("only the last partial tiles are wrong: every wrong element has %s >= %lld or %s >= %lld "
                         "(tiles of %lld): check the bounds for the last blocks (a grid rounded down, or a missing "
                         "bounds check)"),
                    EDGE(0), EDGE(1), tiles[t]);
    else
        set_pattern(r, "partial_tile",
                    CL_N("only the last partial tiles are wrong: every wrong element has %s >= %lld or %s >= %lld or "
                         "%s >= %lld (tiles of %lld): check the bounds for the last blocks (a grid rounded down, or a "
                         "missing bounds check)"),
                    EDGE(0), EDGE(1), EDGE(2), tiles[t]);
#undef EDGE
    return 1;
}

static int guess(cl_mm_acc *a, const void *E, const void *G, getter get)
{
    cl_mm_report *r = &a->rep;
    const cl_mm_shape *s = &a->shape;
    const char *A = s->array ? s->array : "out";
    if (guess_partial_tile(a))
        return 1;
    /* NaN or Inf where the answer is finite */
    if (r->nonfinite == r->wrong) {
        int tail = a->poison_wrong == r->wrong && a->max_ok < a->min_bad && r->total == a->size;
        if (tail && a->min_bad == 0)
            set_pattern(r, "unwritten",
                        CL_N("no element of %s was written (all still hold the NaN poison): did the kernel run at "
                             "all? (a grid of 0 blocks, an early return, a launch error not checked)"), A);
        else if (tail)
            set_pattern(r, "unwritten_tail",
                        CL_N("%s[%lld..%lld] are NaN, the poison outputs start with: the end of the output was never "
                             "written"), A, a->min_bad, a->size - 1);
        else if (r->nonfinite == 1)
            set_pattern(r, "nonfinite",
                        CL_N("1 element is NaN or Inf where the answer is finite: an exp() overflow (subtract the "
                             "maximum first), a division by zero, or an element never written (outputs start as NaN)"));
        else
            set_pattern(r, "nonfinite",
                        CL_N("%lld elements are NaN or Inf where the answer is finite: an exp() overflow (subtract the "
                             "maximum first), a division by zero, or an element never written (outputs start as NaN)"),
                        r->nonfinite);
        return 1;
    }
    /* transposed (square 2-D, whole arrays only) */
    if (E && s->ndims == 2 && s->dims[0] == s->dims[1] && s->dims[0] > 1) {
        long long R = s->dims[0], match = 0;
        for (long long i = 0; i < a->size; i++)
            if (!elem_ok(get(E, i), get(G, i), &r->tol))
                match += elem_ok(get(E, (i % R) * R + i / R), get(G, i), &r->tol);
        if (match == r->wrong) {
            set_pattern(r, "transposed", CL_N("%s looks transposed: %s[%s][%s] holds the answer for [%s][%s]"), A, A,
                        dim_name(s, 0), dim_name(s, 1), dim_name(s, 1), dim_name(s, 0));
            return 1;
        }
    }
    if (a->zero_wrong == r->wrong) {
        set_pattern(r, "zeros",
                    CL_N("every wrong element is 0: written by a path that skipped the work (an early return, a block "
                         "that did not run, a missing accumulation)"));
        return 1;
    }
    if (r->wrong < 2)
        return 0;
    const char *row = dim_name(s, s->ndims >= 2 ? s->ndims - 2 : 0);
    if (a->one_factor) {
        if (a->rows_wrong == 1 && s->ndims >= 2)
            set_pattern(r, "one_factor",
                        CL_N("every wrong element is in %s %lld and off by the same factor (got = %.6g x expected): "
                             "that %s's normalisation (sum, max, mean or variance) is wrong"),
                        row, a->first_row % s->dims[s->ndims - 2], a->f0, row);
        else
            set_pattern(r, "one_factor",
                        CL_N("every wrong element is off by the same factor (got = %.6g x expected): a scale applied "
                             "twice or not at all"), a->f0);
    } else if (a->one_offset) {
        set_pattern(r, "one_offset",
                    CL_N("every wrong element is off by the same amount (%+.6g): an initial value or a bias added "
                         "twice or not at all"), a->o0);
    } else if (a->per_row) {
        set_pattern(r, "row_factor",
                    CL_N("each wrong %s is off by one factor of its own: the per-%s normalisation (sum, max, mean or "
                         "variance) is wrong"), row, row);
    } else {
        return 0;
    }
    return 1;
}

long long cl_mm_end(cl_mm_acc *a)
{
    if (a->rep.wrong && !a->rep.pattern_id[0])
        guess(a, NULL, NULL, NULL);
    return a->rep.wrong;
}

/* ---- whole arrays ---- */

static long long compare(const void *E, const void *G, getter get, const cl_mm_shape *s, const cl_mm_tol *tol,
                         cl_mm_report *r)
{
    cl_mm_acc a;
    cl_mm_begin(&a, s, tol);
    for (long long i = 0; i < a.size; i++)
        cl_mm_add(&a, i, get(E, i), get(G, i), -1);
    if (a.rep.wrong)
        guess(&a, E, G, get);
    *r = a.rep;
    return r->wrong;
}

long long cl_mismatch_f32(const float *e, const float *g, const cl_mm_shape *s, const cl_mm_tol *t, cl_mm_report *r)
{
    return compare(e, g, get_f32, s, t, r);
}

long long cl_mismatch_f64(const double *e, const double *g, const cl_mm_shape *s, const cl_mm_tol *t, cl_mm_report *r)
{
    return compare(e, g, get_f64, s, t, r);
}

long long cl_mismatch_f16(const uint16_t *e, const uint16_t *g, const cl_mm_shape *s, const cl_mm_tol *t,
                          cl_mm_report *r)
{
    return compare(e, g, get_f16, s, t, r);
}

/* ---- texts that travel with their format and arguments (cl_mm_format, cl_mm_say) ---- */

typedef struct conv {
    char spec[24]; /* '%', flags, width, precision: no length, no letter */
    int longs;     /* l: 1, ll: 2 */
    char c;        /* the letter */
    size_t len;    /* characters of the conversion in the format */
} conv;

/* The conversion at p ('%'). -1 when it is not one cl_mm_format takes. */
static int parse_conv(const char *p, conv *cv)
{
    const char *q = p + 1;
    size_t k = 0;
    cv->spec[k++] = '%';
    while (*q && strchr("-+ #0", *q) && k < 8)
        cv->spec[k++] = *q++;
    while (isdigit((unsigned char)*q) && k < 12)
        cv->spec[k++] = *q++;
    if (*q == '.') {
        cv->spec[k++] = *q++;
        while (isdigit((unsigned char)*q) && k < 18)
            cv->spec[k++] = *q++;
    }
    cv->spec[k] = '\0';
    cv->longs = 0;
    while (*q == 'l') {
        cv->longs++;
        q++;
    }
    cv->c = *q;
    if (!*q || !strchr("dicsefg%", *q) || isdigit((unsigned char)*q))
        return -1;
    cv->len = (size_t)(q + 1 - p);
    return 0;
}

static void put(char *out, size_t n, size_t *len, const char *s, size_t sn)
{
    if (*len + 1 >= n)
        return;
    if (sn > n - 1 - *len)
        sn = n - 1 - *len;
    memcpy(out + *len, s, sn);
    *len += sn;
    out[*len] = '\0';
}

/* one value by a conversion: the spec with "ll" for integers */
static int conv_int(char *buf, size_t n, const conv *cv, long long v)
{
    char spec[32];
    snprintf(spec, sizeof spec, "%sll%c", cv->spec, cv->c == 'i' ? 'd' : cv->c);
    if (cv->c == 'c')
        snprintf(spec, sizeof spec, "%sc", cv->spec);
    return cv->c == 'c' ? snprintf(buf, n, spec, (int)v) : snprintf(buf, n, spec, v);
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
static int conv_dbl(char *buf, size_t n, const conv *cv, double v)
{
    char spec[32];
    snprintf(spec, sizeof spec, "%s%c", cv->spec, cv->c);
    return snprintf(buf, n, spec, v);
}

static int conv_str(char *buf, size_t n, const conv *cv, const char *v)
{
    char spec[32];
    snprintf(spec, sizeof spec, "%ss", cv->spec);
    return snprintf(buf, n, spec, v);
}
#pragma GCC diagnostic pop

static json_t *num(double v)
{
    return isfinite(v) ? json_real(v) : json_string(isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
}

void cl_mm_vformat(char *text, size_t n, char *args, size_t argn, const char *fmt, va_list ap)
{
    json_t *a = json_array();
    size_t len = 0;
    char buf[512];
    if (n)
        text[0] = '\0';
    for (const char *p = fmt; *p;) {
        const char *pc = strchr(p, '%');
        if (!pc) {
            put(text, n, &len, p, strlen(p));
            break;
        }
        put(text, n, &len, p, (size_t)(pc - p));
        conv cv;
        if (parse_conv(pc, &cv)) { /* not for this function: the rest as it is */
            put(text, n, &len, pc, strlen(pc));
            break;
        }
        p = pc + cv.len;
        int w = 0;
        if (cv.c == '%') {
            put(text, n, &len, "%", 1);
            continue;
        } else if (cv.c == 'd' || cv.c == 'i' || cv.c == 'c') {
            long long v = cv.longs >= 2 ? va_arg(ap, long long) : cv.longs ? va_arg(ap, long) : va_arg(ap, int);
            w = conv_int(buf, sizeof buf, &cv, v);
            json_array_append_new(a, json_integer(v));
        } else if (cv.c == 's') {
            const char *v = va_arg(ap, const char *);
            w = conv_str(buf, sizeof buf, &cv, v ? v : "(null)");
            json_array_append_new(a, json_string(v ? v : "(null)"));
        } else {
            double v = va_arg(ap, double);
            w = conv_dbl(buf, sizeof buf, &cv, v);
            json_array_append_new(a, num(v));
        }
        if (w > 0)
            put(text, n, &len, buf, (size_t)w < sizeof buf ? (size_t)w : sizeof buf - 1);
    }
    char *js = json_dumps(a, JSON_COMPACT);
    if (argn)
        snprintf(args, argn, "%s", js && strlen(js) < argn ? js : "");
    free(js);
    json_decref(a);
}

void cl_mm_format(char *text, size_t n, char *args, size_t argn, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cl_mm_vformat(text, n, args, argn, fmt, ap);
    va_end(ap);
}

void cl_mm_say(cl_lang lang, const char *fmt, const json_t *args, const char *fallback, char *out, size_t n)
{
    snprintf(out, n, "%s", fallback ? fallback : "");
    if (!fmt || !json_is_array(args))
        return;
    char *res = malloc(n), buf[512];
    size_t len = 0, k = 0;
    int ok = res != NULL;
    if (ok)
        res[0] = '\0';
    for (const char *p = cl_tr_lang(lang, fmt); ok && *p;) {
        const char *pc = strchr(p, '%');
        if (!pc) {
            put(res, n, &len, p, strlen(p));
            break;
        }
        put(res, n, &len, p, (size_t)(pc - p));
        conv cv;
        if (parse_conv(pc, &cv)) {
            ok = 0;
            break;
        }
        p = pc + cv.len;
        if (cv.c == '%') {
            put(res, n, &len, "%", 1);
            continue;
        }
        json_t *v = json_array_get(args, k++);
        int w = -1;
        if ((cv.c == 'd' || cv.c == 'i' || cv.c == 'c') && json_is_integer(v))
            w = conv_int(buf, sizeof buf, &cv, json_integer_value(v));
        else if (cv.c == 's' && json_is_string(v))
            w = conv_str(buf, sizeof buf, &cv, json_string_value(v));
        else if (strchr("efg", cv.c) && json_is_number(v))
            w = conv_dbl(buf, sizeof buf, &cv, json_number_value(v));
        else if (strchr("efg", cv.c) && json_is_string(v)) /* "nan", "inf" */
            w = snprintf(buf, sizeof buf, "%s", json_string_value(v));
        if (w < 0) {
            ok = 0;
            break;
        }
        put(res, n, &len, buf, (size_t)w < sizeof buf ? (size_t)w : sizeof buf - 1);
    }
    if (ok && k == json_array_size(args))
        snprintf(out, n, "%s", res);
    free(res);
}

/* ---- output: JSON, and text made from the JSON (what travels through the verdict stream) ---- */

static void where(const cl_mm_shape *s, const cl_mm_elem *x, char *out, size_t n)
{
    size_t len = (size_t)snprintf(out, n, "%s[", s->array ? s->array : "out");
    for (int d = 0; d < s->ndims && len < n; d++)
        len += (size_t)snprintf(out + len, n - len, "%s%s %lld", d ? ", " : "", dim_name(s, d), x->coord[d]);
    if (len < n) snprintf(out + len, n - len, "]");
}

static json_t *elem_json(const cl_mm_shape *s, const cl_mm_elem *x)
{
    char w[256];
    where(s, x, w, sizeof w);
    json_t *c = json_object();
    for (int d = 0; d < s->ndims; d++)
        json_object_set_new(c, dim_name(s, d), json_integer(x->coord[d]));
    json_t *o = json_pack("{s:s, s:I, s:o}", "where", w, "index", (json_int_t)x->index, "position", c);
    json_object_set_new(o, "expected", num(x->expected));
    json_object_set_new(o, "got", num(x->got));
    json_object_set_new(o, "abs_error", num(x->abs_err));
    json_object_set_new(o, "rel_error", num(x->rel_err));
    return o;
}

/* "format" and "args" of a text made by cl_mm_format, onto o */
void cl_mm_set_format(json_t *o, const char *fmt, const char *args)
{
    json_t *a = fmt && args && args[0] ? json_loads(args, 0, NULL) : NULL;
    if (!json_is_array(a)) {
        json_decref(a);
        return;
    }
    json_object_set_new(o, "format", json_string(fmt));
    json_object_set_new(o, "args", a);
}

json_t *cl_mismatch_json(const cl_mm_report *r, const cl_mm_shape *s)
{
    json_t *o = json_pack("{s:s, s:s, s:I, s:I, s:I, s:{s:f, s:f}}", "kind", "elements", "array",
                          s->array ? s->array : "out", "wrong", (json_int_t)r->wrong, "total", (json_int_t)r->total,
                          "nonfinite", (json_int_t)r->nonfinite, "tolerance", "abs", r->tol.abs, "rel", r->tol.rel);
    if (r->tol.rule)
        json_object_set_new(json_object_get(o, "tolerance"), "rule", json_string(r->tol.rule));
    json_t *dims = json_array();
    for (int d = 0; d < s->ndims; d++)
        json_array_append_new(dims, json_pack("{s:s, s:I}", "name", dim_name(s, d), "size", (json_int_t)s->dims[d]));
    json_object_set_new(o, "dims", dims);
    json_object_set_new(o, "size", json_integer(total_of(s)));
    json_t *first = json_array();
    for (int i = 0; i < r->nfirst; i++)
        json_array_append_new(first, elem_json(s, &r->first[i]));
    json_object_set_new(o, "first", first);
    if (r->have_worst)
        json_object_set_new(o, "largest", elem_json(s, &r->worst));
    if (r->pattern_id[0]) {
        json_t *p = json_pack("{s:s, s:s}", "id", r->pattern_id, "text", r->pattern);
        cl_mm_set_format(p, r->pattern_fmt, r->pattern_args);
        json_object_set_new(o, "pattern", p);
    }
    return o;
}

json_t *cl_mm_acc_json(const cl_mm_acc *a) { return cl_mismatch_json(&a->rep, &a->shape); }

static const char *jstr(const json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "?";
}

/* a number as set by num(): a real, an integer, or "nan"/"inf"/"-inf" */
static void fmt_num(const json_t *v, const char *fmt, char *out, size_t n)
{
    if (json_is_number(v))
        snprintf(out, n, fmt, json_number_value(v));
    else
        snprintf(out, n, "%s", json_is_string(v) ? json_string_value(v) : "?");
}

/* text of o ("text", said again in lang from "format" and "args" where they are) */
static void said(const json_t *o, cl_lang lang, char *out, size_t n)
{
    cl_mm_say(lang, json_string_value(json_object_get(o, "format")), json_object_get(o, "args"), jstr(o, "text"),
              out, n);
}

/* s in width columns, on the left or the right (CJK counts 2) */
static void col(FILE *f, const char *s, int width, int right)
{
    int pad = width - cl_text_width(s);
    if (right && pad > 0)
        fprintf(f, "%*s", pad, "");
    fputs(s, f);
    if (!right && pad > 0)
        fprintf(f, "%*s", pad, "");
}

static void row(FILE *f, const char *indent, const char *w, const char *e, const char *g, const char *ae,
                const char *re)
{
    fprintf(f, "%s  ", indent);
    col(f, w, 32, 0);
    fputc(' ', f);
    col(f, e, 15, 1);
    fputc(' ', f);
    col(f, g, 15, 1);
    fputc(' ', f);
    col(f, ae, 11, 1);
    fputc(' ', f);
    col(f, re, 11, 1);
    fputc('\n', f);
}

static void print_elem(const json_t *x, const char *indent, FILE *f)
{
    char e[32], g[32], ae[16], re[16];
    fmt_num(json_object_get(x, "expected"), "%.8g", e, sizeof e);
    fmt_num(json_object_get(x, "got"), "%.8g", g, sizeof g);
    fmt_num(json_object_get(x, "abs_error"), "%.3g", ae, sizeof ae);
    fmt_num(json_object_get(x, "rel_error"), "%.3g", re, sizeof re);
    row(f, indent, jstr(x, "where"), e, g, ae, re);
}

static void print_rule(const json_t *j, const char *indent, cl_lang lang, FILE *f)
{
    char text[1024];
    said(j, lang, text, sizeof text);
    fputs(indent, f);
    fprintf(f, cl_tr_lang(lang, "rule broken: %s\n"), cl_tr_lang(lang, jstr(j, "rule")));
    fprintf(f, "%s  %s\n", indent, text);
    json_t *ex = json_object_get(j, "example");
    if (ex && json_object_size(ex)) {
        char *s = json_dumps(ex, JSON_COMPACT | JSON_SORT_KEYS);
        if (s) {
            fprintf(f, "%s  ", indent);
            fprintf(f, cl_tr_lang(lang, "counterexample: %s\n"), s);
        }
        free(s);
    }
}

static void print_pattern(const json_t *p, const char *indent, cl_lang lang, FILE *f)
{
    char text[1024];
    said(p, lang, text, sizeof text);
    fprintf(f, "%s  ", indent);
    fprintf(f, cl_tr_lang(lang, "pattern: %s\n"), text);
}

void cl_mismatch_print_lang(const json_t *j, const char *indent, int rows, cl_lang lang, FILE *f)
{
    if (!json_is_object(j))
        return;
    if (!strcmp(jstr(j, "kind"), "rule")) {
        print_rule(j, indent, lang, f);
        return;
    }
    long long wrong = json_integer_value(json_object_get(j, "wrong")),
              total = json_integer_value(json_object_get(j, "total")),
              size = json_integer_value(json_object_get(j, "size"));
    json_t *tol = json_object_get(j, "tolerance");
    fputs(indent, f);
    fprintf(f, cl_tr_lang(lang, "%lld of %lld elements wrong"), wrong, total);
    if (size > total)
        fprintf(f, cl_tr_lang(lang, " (checked %lld of the %lld in %s)"), total, size, jstr(j, "array"));
    if (json_is_string(json_object_get(tol, "rule")))
        fprintf(f, cl_tr_lang(lang, " (tolerance: %s)\n"), jstr(tol, "rule"));
    else
        fprintf(f, cl_tr_lang(lang, " (tolerance |got - expected| <= %.3g + %.3g x |expected|)\n"),
                json_number_value(json_object_get(tol, "abs")), json_number_value(json_object_get(tol, "rel")));
    json_t *first = json_object_get(j, "first");
    json_t *p = json_object_get(j, "pattern");
    if (rows <= 0) {
        if (p)
            print_pattern(p, indent, lang, f);
        return;
    }
    if (!json_array_size(first))
        return;
    row(f, indent, cl_tr_lang(lang, "where"), cl_tr_lang(lang, "expected"), cl_tr_lang(lang, "got"),
        cl_tr_lang(lang, "abs err"), cl_tr_lang(lang, "rel err"));
    long long shown = 0;
    size_t i;
    json_t *x;
    json_array_foreach(first, i, x) {
        if (shown == rows)
            break;
        print_elem(x, indent, f);
        shown++;
    }
    if (wrong > shown) {
        fprintf(f, "%s  ", indent);
        fprintf(f, cl_tr_lang(lang, "... and %lld more\n"), wrong - shown);
    }
    json_t *w = json_object_get(j, "largest");
    if (w) {
        char e[32], g[32], ae[16], re[16];
        fmt_num(json_object_get(w, "expected"), "%.8g", e, sizeof e);
        fmt_num(json_object_get(w, "got"), "%.8g", g, sizeof g);
        fmt_num(json_object_get(w, "abs_error"), "%.3g", ae, sizeof ae);
        fmt_num(json_object_get(w, "rel_error"), "%.3g", re, sizeof re);
        fprintf(f, "%s  ", indent);
        fprintf(f, cl_tr_lang(lang, "largest error at %s: expected %s, got %s (abs %s, rel %s)\n"), jstr(w, "where"),
                e, g, ae, re);
    }
    if (p)
        print_pattern(p, indent, lang, f);
}

void cl_mismatch_print(const json_t *j, const char *indent, int brief, FILE *f)
{
    cl_mismatch_print_lang(j, indent, brief ? 0 : CL_MM_FIRST, cl_lang_current(), f);
}

void cl_mismatch_text(const cl_mm_report *r, const cl_mm_shape *s, FILE *f)
{
    json_t *j = cl_mismatch_json(r, s);
    cl_mismatch_print(j, "", 0, f);
    json_decref(j);
}
