/* mismatch.c: a failing array output compared element by element: counts, the first ten,
 * the worst, and a guess at the pattern. */
#include "grader/mismatch.h"

#include <math.h>
#include <string.h>

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

/* ---- pattern guesses, the clearest first ---- */

static void guess(cl_mm_report *r, const cl_mm_shape *s, const void *E, const void *G, getter get)
{
    long long n = r->total;
    const char *A = s->array ? s->array : "out";
    /* 1. only a partial tile at the end of a dimension is wrong (the tightest such bound) */
    static const long long tiles[] = {8, 16, 32, 64, 128, 256};
    int best_d = -1;
    long long best_full = 0, best_T = 0;
    for (int d = 0; d < s->ndims; d++) {
        for (size_t t = 0; t < sizeof tiles / sizeof *tiles; t++) {
            long long T = tiles[t], full = s->dims[d] / T * T;
            if (s->dims[d] % T == 0 || full == 0 || (best_d == d && full < best_full))
                continue;
            int all_edge = 1;
            long long c[3];
            for (long long i = 0; i < n && all_edge; i++)
                if (!elem_ok(get(E, i), get(G, i), &r->tol)) {
                    coords(s, i, c);
                    all_edge = c[d] >= full;
                }
            if (all_edge && (best_d < 0 || full >= best_full)) {
                best_d = d;
                best_full = full;
                best_T = T;
            }
        }
    }
    if (best_d >= 0) {
        strcpy(r->pattern_id, "partial_tile");
        snprintf(r->pattern, sizeof r->pattern,
                 "only the last partial tile is wrong: every wrong element has %s >= %lld (%s = %lld is not a "
                 "multiple of %lld): check the bounds for the last block",
                 dim_name(s, best_d), best_full, dim_name(s, best_d), s->dims[best_d], best_T);
        return;
    }
    /* 2. NaN or Inf where the answer is finite */
    if (r->nonfinite == r->wrong) {
        int all_nan = 1, tail = 1;
        long long first_bad = -1;
        for (long long i = 0; i < n; i++) {
            int bad = !elem_ok(get(E, i), get(G, i), &r->tol);
            if (bad && first_bad < 0) first_bad = i;
            if (first_bad >= 0 && !bad) tail = 0;
            if (bad && !isnan(get(G, i))) all_nan = 0;
        }
        strcpy(r->pattern_id, all_nan && tail ? "unwritten_tail" : "nonfinite");
        if (all_nan && tail)
            snprintf(r->pattern, sizeof r->pattern,
                     "%s[%lld..%lld] are NaN, the poison outputs start with: the end of the output was never written",
                     A, first_bad, n - 1);
        else
            snprintf(r->pattern, sizeof r->pattern,
                     "%lld element%s where the answer is finite: an exp() overflow (subtract the maximum first), "
                     "a division by zero, or an element never written (outputs start as NaN)",
                     r->nonfinite, r->nonfinite == 1 ? " is NaN or Inf" : "s are NaN or Inf");
        return;
    }
    /* 3. transposed (square 2-D only) */
    if (s->ndims == 2 && s->dims[0] == s->dims[1] && s->dims[0] > 1) {
        long long R = s->dims[0], match = 0;
        for (long long i = 0; i < n; i++)
            if (!elem_ok(get(E, i), get(G, i), &r->tol)) {
                long long row = i / R, col = i % R;
                match += elem_ok(get(E, col * R + row), get(G, i), &r->tol);
            }
        if (match == r->wrong) {
            strcpy(r->pattern_id, "transposed");
            snprintf(r->pattern, sizeof r->pattern, "%s looks transposed: %s[%s][%s] holds the answer for [%s][%s]", A,
                     A, dim_name(s, 0), dim_name(s, 1), dim_name(s, 1), dim_name(s, 0));
            return;
        }
    }
    /* 4. zeros */
    {
        int zeros = 1;
        for (long long i = 0; i < n && zeros; i++)
            if (!elem_ok(get(E, i), get(G, i), &r->tol)) zeros = get(G, i) == 0;
        if (zeros) {
            strcpy(r->pattern_id, "zeros");
            snprintf(r->pattern, sizeof r->pattern,
                     "every wrong element is 0: written by a path that skipped the work (an early return, a block that "
                     "did not run, a missing accumulation)");
            return;
        }
    }
    /* 5. one factor (everywhere, or per row) and 6. one offset */
    double f0 = NAN, o0 = NAN;
    int one_factor = 1, one_offset = 1, per_row = s->ndims >= 2;
    long long row_len = s->ndims >= 2 ? s->dims[s->ndims - 1] : n;
    double row_f = NAN;
    long long cur_row = -1;
    for (long long i = 0; i < n; i++) {
        double e = get(E, i), g = get(G, i);
        if (elem_ok(e, g, &r->tol)) continue;
        double f = e != 0 ? g / e : NAN, o = g - e;
        if (isnan(f0)) f0 = f;
        if (isnan(o0)) o0 = o;
        if (isnan(f) || fabs(f - f0) > 1e-3 * fabs(f0)) one_factor = 0;
        if (fabs(o - o0) > 1e-3 * fmax(fabs(o0), 1e-30) + r->tol.abs) one_offset = 0;
        long long row = i / row_len;
        if (row != cur_row) { cur_row = row; row_f = f; }
        else if (isnan(f) || fabs(f - row_f) > 1e-3 * fabs(row_f)) per_row = 0;
    }
    if (one_factor && r->wrong > 1) {
        strcpy(r->pattern_id, "one_factor");
        snprintf(r->pattern, sizeof r->pattern, "every wrong element is off by the same factor (got = %.6g x expected): "
                 "a scale applied twice or not at all", f0);
    } else if (one_offset && r->wrong > 1) {
        strcpy(r->pattern_id, "one_offset");
        snprintf(r->pattern, sizeof r->pattern, "every wrong element is off by the same amount (%+.6g): an initial value "
                 "or a bias added twice or not at all", o0);
    } else if (per_row && r->wrong > 1) {
        strcpy(r->pattern_id, "row_factor");
        snprintf(r->pattern, sizeof r->pattern, "each wrong %s is off by one factor of its own: the per-%s "
                 "normalisation (sum, max, mean or variance) is wrong", dim_name(s, 0), dim_name(s, 0));
    }
}

static long long compare(const void *E, const void *G, getter get, const cl_mm_shape *s, const cl_mm_tol *tol,
                         cl_mm_report *r)
{
    memset(r, 0, sizeof *r);
    r->tol = *tol;
    r->total = total_of(s);
    for (long long i = 0; i < r->total; i++) {
        double e = get(E, i), g = get(G, i);
        if (elem_ok(e, g, tol))
            continue;
        r->wrong++;
        cl_mm_elem x = make_elem(s, i, e, g);
        if (!isfinite(g)) r->nonfinite++;
        if (r->nfirst < CL_MM_FIRST) r->first[r->nfirst++] = x;
        if (!r->have_worst || x.abs_err > r->worst.abs_err) {
            r->worst = x;
            r->have_worst = 1;
        }
    }
    if (r->wrong)
        guess(r, s, E, G, get);
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

/* ---- output ---- */

static void where(const cl_mm_shape *s, const cl_mm_elem *x, char *out, size_t n)
{
    size_t len = (size_t)snprintf(out, n, "%s[", s->array ? s->array : "out");
    for (int d = 0; d < s->ndims && len < n; d++)
        len += (size_t)snprintf(out + len, n - len, "%s%s %lld", d ? ", " : "", dim_name(s, d), x->coord[d]);
    if (len < n) snprintf(out + len, n - len, "]");
}

static json_t *num(double v)
{
    return isfinite(v) ? json_real(v) : json_string(isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
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

json_t *cl_mismatch_json(const cl_mm_report *r, const cl_mm_shape *s)
{
    json_t *o = json_pack("{s:I, s:I, s:I, s:{s:f, s:f}}", "wrong", (json_int_t)r->wrong, "total",
                          (json_int_t)r->total, "nonfinite", (json_int_t)r->nonfinite, "tolerance", "abs", r->tol.abs,
                          "rel", r->tol.rel);
    json_t *first = json_array();
    for (int i = 0; i < r->nfirst; i++)
        json_array_append_new(first, elem_json(s, &r->first[i]));
    json_object_set_new(o, "first", first);
    if (r->have_worst)
        json_object_set_new(o, "largest", elem_json(s, &r->worst));
    if (r->pattern_id[0])
        json_object_set_new(o, "pattern", json_pack("{s:s, s:s}", "id", r->pattern_id, "text", r->pattern));
    return o;
}

void cl_mismatch_text(const cl_mm_report *r, const cl_mm_shape *s, FILE *f)
{
    fprintf(f, "%lld of %lld elements wrong (tolerance |got - expected| <= %.3g + %.3g x |expected|)\n", r->wrong,
            r->total, r->tol.abs, r->tol.rel);
    if (!r->nfirst)
        return;
    fprintf(f, "  %-32s %15s %15s %11s %11s\n", "where", "expected", "got", "abs err", "rel err");
    char w[256];
    for (int i = 0; i < r->nfirst; i++) {
        where(s, &r->first[i], w, sizeof w);
        fprintf(f, "  %-32s %15.8g %15.8g %11.3g %11.3g\n", w, r->first[i].expected, r->first[i].got,
                r->first[i].abs_err, r->first[i].rel_err);
    }
    if (r->wrong > r->nfirst)
        fprintf(f, "  ... and %lld more\n", r->wrong - r->nfirst);
    where(s, &r->worst, w, sizeof w);
    fprintf(f, "  largest error at %s: expected %.8g, got %.8g (abs %.3g, rel %.3g)\n", w, r->worst.expected,
            r->worst.got, r->worst.abs_err, r->worst.rel_err);
    if (r->pattern_id[0])
        fprintf(f, "  pattern: %s\n", r->pattern);
}
