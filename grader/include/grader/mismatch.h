/* mismatch.h: the full report of a failing correctness case, for a checker to fill from
 * its expected and produced outputs (self-contained: no runner or checker state).
 *
 *   arrays (cl_mismatch_*):  how many elements are wrong out of how many, the first ten
 *                            with their position in the lab's terms (row/column, box pair,
 *                            ...), expected, got, absolute and relative error against the
 *                            tolerance, the largest error and where, and a one-line guess
 *                            when the pattern is clear (only the last partial tile wrong,
 *                            every row off by one factor, NaN where the answer is finite,
 *                            transposed, zeros, a constant offset).
 *   topo_sort (cl_mismatch_topo) and nms (cl_mismatch_nms): which rule the answer breaks
 *                            and the smallest counterexample.
 * Each as text and JSON. An element passes when |got - expected| <= abs + rel * |expected|
 * (NaN and Inf pass only where expected is the same). */
#ifndef CUDALAB_MISMATCH_H
#define CUDALAB_MISMATCH_H

#include <jansson.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lang.h"

#define CL_MM_FIRST 10
/* The byte the judge fills every output with before a call: an element that still holds it
 * was never written (a NaN with the sign and every payload bit set, -1 as an integer). */
#define CL_POISON_BYTE 0xFF

typedef struct cl_mm_shape {
    const char *array;        /* "y", "out", "C" */
    int ndims;                /* 1..3, row-major, the last dimension fastest */
    long long dims[3];
    const char *names[3];     /* "row", "col"; "box a", "box b"; NULL: "i", "j", "k" */
} cl_mm_shape;

typedef struct cl_mm_tol {
    double abs, rel;
    const char *rule; /* the checker's own bound in words, where it is not abs + rel x |expected| */
} cl_mm_tol;

typedef struct cl_mm_elem {
    long long index;
    long long coord[3];
    double expected, got, abs_err, rel_err;
} cl_mm_elem;

typedef struct cl_mm_report {
    long long total, wrong, nonfinite; /* nonfinite: wrong elements that are NaN or Inf */
    int nfirst;
    cl_mm_elem first[CL_MM_FIRST];
    int have_worst;
    cl_mm_elem worst;                  /* largest absolute error (a non-finite one first) */
    cl_mm_tol tol;
    char pattern_id[32];               /* "" when no guess */
    char pattern[320];                 /* the guess in English */
    const char *pattern_fmt;           /* its format (a catalogue key) and arguments, to say it */
    char pattern_args[256];            /* again in the reader's language (cl_mm_say) */
} cl_mm_report;

/* ---- element by element, as a checker walks its output (any order, any subset) ---- */

#define CL_MM_NTILES 6 /* the tile sizes a partial tile is looked for at: 8 .. 256 */

typedef struct cl_mm_acc {
    cl_mm_shape shape;
    cl_mm_report rep;
    /* what the guess needs, gathered as elements come */
    long long size;                              /* elements in the array (total: those compared) */
    long long edge[3][CL_MM_NTILES];             /* wrong elements in dimension d's last partial tile */
    long long edge_any[CL_MM_NTILES];            /* ... in the last partial tile of any dimension */
    long long min_bad, max_ok, nan_wrong, poison_wrong, zero_wrong;
    double f0, o0, row_f;
    long long cur_row, rows_wrong, first_row;
    int one_factor, one_offset, per_row;
} cl_mm_acc;

void cl_mm_begin(cl_mm_acc *a, const cl_mm_shape *shape, const cl_mm_tol *tol);
/* One compared element at row-major index. ok: the checker's own judgement (1 right, 0
 * wrong), or -1 to judge by the tolerance. Returns 1 when the element is right. */
int cl_mm_add(cl_mm_acc *a, long long index, double expected, double got, int ok);
/* count elements from row-major index first on, all right (a checker that compared them in
 * bulk, on several threads); the same as count calls of cl_mm_add with ok = 1. */
void cl_mm_add_passed(cl_mm_acc *a, long long first, long long count);
/* Makes the guess; the report is a->rep. Returns the number wrong. */
long long cl_mm_end(cl_mm_acc *a);
/* The report with its shape, as JSON: {"kind": "elements", "array", "dims", "wrong",
 * "total", "size", "nonfinite", "tolerance", "first", "largest", "pattern"}. */
json_t *cl_mm_acc_json(const cl_mm_acc *a);

/* Prints a report made by cl_mm_acc_json or cl_mm_rule_json (as it came through the
 * verdict stream), each line after indent; brief: only the counts and the guess. */
void cl_mismatch_print(const json_t *report, const char *indent, int brief, FILE *f);
/* The same in lang, with at most rows of the first elements (0: only the counts and the
 * guess, as brief; CL_MM_FIRST: all). */
void cl_mismatch_print_lang(const json_t *report, const char *indent, int rows, cl_lang lang, FILE *f);

/* ---- texts said again in the reader's language ----
 * The judge writes a guess or a rule in English; the text travels with its format (a key of
 * common/i18n_catalogue.inc, marked CL_N) and its arguments as a JSON array, so cudalab can
 * say it in Chinese. Conversions: %d %i %c %s %e %f %g, with flags, width, precision, l/ll. */

/* text <- fmt and its arguments (English); args <- the arguments as a compact JSON array
 * ("" when they do not fit in argn). */
void cl_mm_format(char *text, size_t n, char *args, size_t argn, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
void cl_mm_vformat(char *text, size_t n, char *args, size_t argn, const char *fmt, va_list ap)
    __attribute__((format(printf, 5, 0)));
/* The text in lang: fmt's translation filled from args (a JSON array, or its text). The
 * fallback (the English text) when there is no fmt, or args do not fit its conversions. */
void cl_mm_say(cl_lang lang, const char *fmt, const json_t *args, const char *fallback, char *out, size_t n);
/* Sets "format" and "args" (args: cl_mm_format's JSON text) on a report's JSON object o. */
void cl_mm_set_format(json_t *o, const char *fmt, const char *args);

/* ---- whole arrays ---- */

/* Compares n elements. Returns the number wrong (0: the case passes). */
long long cl_mismatch_f32(const float *expected, const float *got, const cl_mm_shape *shape, const cl_mm_tol *tol,
                          cl_mm_report *rep);
long long cl_mismatch_f64(const double *expected, const double *got, const cl_mm_shape *shape, const cl_mm_tol *tol,
                          cl_mm_report *rep);
/* fp16 values as their IEEE binary16 bits. */
long long cl_mismatch_f16(const uint16_t *expected, const uint16_t *got, const cl_mm_shape *shape,
                          const cl_mm_tol *tol, cl_mm_report *rep);

json_t *cl_mismatch_json(const cl_mm_report *rep, const cl_mm_shape *shape);
/* The report as text (cl_mismatch_print of cl_mismatch_json). */
void cl_mismatch_text(const cl_mm_report *rep, const cl_mm_shape *shape, FILE *f);

/* ---- answers with more than one right form ---- */

typedef struct cl_mm_rule {
    int broken;        /* 0: the answer is valid */
    char rule[64];     /* "edge order", "permutation", "cycle reported", "suppression", ... */
    char text[512];    /* the rule in words, with the smallest counterexample */
    const char *fmt;   /* text's format and arguments (cl_mm_format) */
    char args[256];
    json_t *example;   /* the counterexample as data (owned; cl_mm_rule_free) */
} cl_mm_rule;

void cl_mm_rule_free(cl_mm_rule *r);
json_t *cl_mm_rule_json(const cl_mm_rule *r);

/* topo_sort: a CSR graph (row_ptr[n+1], col[m]); the solution's order[n] and status
 * (1 = "cycle"); has_cycle: the truth. Fills r; returns r->broken. */
int cl_mismatch_topo(int n, const int *row_ptr, const int *col, int has_cycle, const int *order, int status,
                     cl_mm_rule *r);

/* nms: boxes[4n] (x1,y1,x2,y2), scores[n], the threshold; the solution's keep[num_kept].
 * Greedy NMS keeps, in descending score (ties: lower index), each box whose IoU with every
 * box kept before it is <= threshold. Fills r; returns r->broken. */
int cl_mismatch_nms(int n, const float *boxes, const float *scores, float iou_threshold, const int *keep, int num_kept,
                    cl_mm_rule *r);

#endif
