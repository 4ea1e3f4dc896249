/* schema.c: reads one questions/<topic>.yaml and enforces every rule of
 * docs/question-format.md, reporting each problem as file:line:col. A question with a
 * problem is left out; the rest of the file still loads. */
#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bank_internal.h"
#include "questions/family.h"
#include "yamlutil.h"

typedef struct loader {
    cl_yaml *y;
    cl_bank *b;
    cl_report_fn report;
    void *ctx;
    int problems;
    const char *file;  /* arena copy of the path */
    const char *topic; /* arena copy of the topic name */
    cl_qtext title;    /* the topic's title, given to each of its questions */
} loader;

static void problem(loader *L, const cl_ynode *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void problem(loader *L, const cl_ynode *n, const char *fmt, ...)
{
    char msg[1536];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cl_err e;
    cl_yaml_errf(L->y, n, &e, "%s", msg);
    if (L->report)
        L->report(L->ctx, e.msg);
    L->problems++;
}

/* ---- small validators ---------------------------------------------------------- */

static int matches_charset(const char *s, const char *extra)
{
    if (!s || !*s)
        return 0;
    for (; *s; s++)
        if (!(islower((unsigned char)*s) || isdigit((unsigned char)*s) || strchr(extra, *s)))
            return 0;
    return 1;
}

/* "NNN:N": a seed file number and a question number. */
static int valid_seed_ref(const char *s)
{
    int i = 0;
    for (; i < 3; i++)
        if (!isdigit((unsigned char)s[i]))
            return 0;
    if (s[3] != ':' || !isdigit((unsigned char)s[4]))
        return 0;
    for (i = 4; s[i]; i++)
        if (!isdigit((unsigned char)s[i]))
            return 0;
    return 1;
}

static int valid_url(const char *s)
{
    const char *rest = !strncmp(s, "https://", 8) ? s + 8 : !strncmp(s, "http://", 7) ? s + 7 : NULL;
    if (!rest || !*rest || *rest == '/')
        return 0;
    for (; *rest; rest++)
        if (isspace((unsigned char)*rest))
            return 0;
    return 1;
}

/* Reports every key not in allowed (with a hint from explain) and every duplicate. */
static void check_keys(loader *L, cl_ynode *map, const char *const *allowed,
                       const char *(*explain)(const char *key, void *arg), void *arg)
{
    size_t n = cl_yaml_map_len(map);
    for (size_t i = 0; i < n; i++) {
        cl_ynode *kn = cl_yaml_map_key(L->y, map, i);
        const char *k = cl_yaml_str(kn);
        if (!k) {
            problem(L, kn, "keys must be plain strings");
            continue;
        }
        int ok = 0;
        for (const char *const *a = allowed; *a; a++)
            if (!strcmp(*a, k)) {
                ok = 1;
                break;
            }
        if (!ok) {
            const char *why = explain ? explain(k, arg) : NULL;
            if (why) {
                problem(L, kn, "%s", why);
            } else {
                char list[512] = "";
                for (const char *const *a = allowed; *a; a++) {
                    strncat(list, *a, sizeof list - strlen(list) - 3);
                    if (a[1])
                        strncat(list, ", ", sizeof list - strlen(list) - 1);
                }
                problem(L, kn, "unknown key '%s' (expected one of: %s)", k, list);
            }
        }
        for (size_t j = 0; j < i; j++) {
            const char *prev = cl_yaml_str(cl_yaml_map_key(L->y, map, j));
            if (prev && !strcmp(prev, k)) {
                problem(L, kn, "duplicate key '%s' (first at line %d)", k,
                        cl_yaml_line(cl_yaml_map_key(L->y, map, j)));
                break;
            }
        }
    }
}

/* A non-empty string scalar. */
static const char *get_string(loader *L, cl_ynode *n, const char *what)
{
    const char *s = cl_yaml_str(n);
    if (!s) {
        problem(L, n, "%s must be a string", what);
        return NULL;
    }
    if (cl_is_blank(s)) {
        problem(L, n, "%s must not be empty", what);
        return NULL;
    }
    return cl_arena_strdup(&L->b->arena, s);
}

/* A bilingual map {en: ..., zh: ...}, both present and non-empty. */
static int parse_text(loader *L, cl_ynode *n, const char *what, cl_qtext *out)
{
    memset(out, 0, sizeof *out);
    if (!cl_yaml_is_map(n)) {
        problem(L, n, "%s must be a map with 'en' and 'zh' (e.g. {en: \"...\", zh: \"...\"})", what);
        return -1;
    }
    int before = L->problems;
    static const char *const keys[] = {"en", "zh", NULL};
    check_keys(L, n, keys, NULL, NULL);
    const char *names[2] = {"en", "zh"};
    const char **dst[2] = {&out->en, &out->zh};
    for (int i = 0; i < 2; i++) {
        cl_ynode *v = cl_yaml_get(L->y, n, names[i]);
        char w[128];
        snprintf(w, sizeof w, "%s.%s", what, names[i]);
        if (!v)
            problem(L, n, "%s: missing '%s' (both languages are required)", what, names[i]);
        else
            *dst[i] = get_string(L, v, w);
    }
    return L->problems == before ? 0 : -1;
}

/* A required key: reports "missing key" at the map. */
static cl_ynode *need(loader *L, cl_ynode *map, const char *key)
{
    cl_ynode *v = cl_yaml_get(L->y, map, key);
    if (!v)
        problem(L, map, "missing key '%s'", key);
    return v;
}

static int get_int(loader *L, cl_ynode *n, const char *what, long long *out)
{
    cl_err e;
    if (cl_yaml_as_int(L->y, n, what, out, &e)) {
        if (L->report)
            L->report(L->ctx, e.msg);
        L->problems++;
        return -1;
    }
    return 0;
}

static int get_double(loader *L, cl_ynode *n, const char *what, double *out)
{
    cl_err e;
    double v = 0;
    if (cl_yaml_as_double(L->y, n, what, &v, &e)) {
        if (L->report)
            L->report(L->ctx, e.msg);
        L->problems++;
        return -1;
    }
    if (!isfinite(v)) {
        problem(L, n, "%s must be a finite number", what);
        return -1;
    }
    *out = v;
    return 0;
}

/* A list of non-empty strings; URL or seed-reference checks on request. */
enum { LIST_PLAIN, LIST_URL, LIST_SEED, LIST_TAG };

static int parse_string_list(loader *L, cl_ynode *n, const char *what, int kind, int min,
                             const char ***out, int *count)
{
    *out = NULL;
    *count = 0;
    if (!cl_yaml_is_seq(n)) {
        problem(L, n, "%s must be a list (e.g. [a, b])", what);
        return -1;
    }
    size_t len = cl_yaml_seq_len(n);
    if ((int)len < min) {
        problem(L, n, "%s needs at least %d entr%s", what, min, min == 1 ? "y" : "ies");
        return -1;
    }
    const char **v = cl_arena_alloc(&L->b->arena, (len ? len : 1) * sizeof *v);
    int before = L->problems;
    for (size_t i = 0; i < len; i++) {
        cl_ynode *e = cl_yaml_seq_at(L->y, n, i);
        const char *s = get_string(L, e, what);
        if (!s)
            continue;
        if (kind == LIST_URL && !valid_url(s))
            problem(L, e, "%s entry '%s' must be an http(s):// URL", what, s);
        else if (kind == LIST_SEED && !valid_seed_ref(s))
            problem(L, e, "%s entry '%s' must name a seed file and a question, like \"002:8\"", what, s);
        else if (kind == LIST_TAG && strpbrk(s, " \t\n"))
            problem(L, e, "%s entry '%s' must not contain spaces (use hyphens)", what, s);
        v[(*count)++] = s;
    }
    *out = v;
    return L->problems == before ? 0 : -1;
}

/* tolerance: exactly one of {abs: x} or {rel: x}; sets *abs or *rel. */
static void parse_tolerance(loader *L, cl_ynode *t, double *abs, double *rel)
{
    if (!cl_yaml_is_map(t) || cl_yaml_map_len(t) != 1) {
        problem(L, t, "tolerance must be exactly one of {abs: x} or {rel: x}");
        return;
    }
    static const char *const keys[] = {"abs", "rel", NULL};
    int before = L->problems;
    check_keys(L, t, keys, NULL, NULL);
    if (L->problems != before)
        return;
    const char *k = cl_yaml_str(cl_yaml_map_key(L->y, t, 0));
    cl_ynode *v = cl_yaml_map_val(L->y, t, 0);
    double d;
    if (get_double(L, v, k, &d))
        return;
    if (d < 0)
        problem(L, v, "tolerance %s must be >= 0", k);
    else if (!strcmp(k, "rel") && d >= 1)
        problem(L, v, "a relative tolerance of %g accepts almost anything (use < 1, e.g. 0.01 for 1%%)", d);
    else if (!strcmp(k, "abs"))
        *abs = d;
    else
        *rel = d;
}

/* ---- the question types ------------------------------------------------------------ */

static void parse_choices(loader *L, cl_ynode *qn, cl_question *q)
{
    cl_ynode *n = need(L, qn, "choices");
    if (!n)
        return;
    if (!cl_yaml_is_seq(n)) {
        problem(L, n, "choices must be a list of {en, zh} maps");
        return;
    }
    size_t len = cl_yaml_seq_len(n);
    if (len < 2 || len > CL_Q_MAX_CHOICES) {
        problem(L, n, "a %s question needs 2 to %d choices, not %zu", cl_qtype_name(q->type),
                CL_Q_MAX_CHOICES, len);
        if (len > CL_Q_MAX_CHOICES)
            return;
    }
    for (size_t i = 0; i < len; i++) {
        char what[32];
        snprintf(what, sizeof what, "choice %c", (char)('a' + i));
        cl_ynode *c = cl_yaml_seq_at(L->y, n, i);
        if (parse_text(L, c, what, &q->choices[i]) == 0) {
            for (size_t j = 0; j < i; j++)
                if (q->choices[j].en && !strcmp(q->choices[j].en, q->choices[i].en))
                    problem(L, c, "choice %c repeats choice %c", (char)('a' + i), (char)('a' + j));
        }
    }
    q->nchoices = (int)len;
}

static void parse_single(loader *L, cl_ynode *qn, cl_question *q)
{
    parse_choices(L, qn, q);
    cl_ynode *a = need(L, qn, "answer");
    long long v;
    if (!a)
        return;
    if (!cl_yaml_is_scalar(a)) {
        problem(L, a, "a single question's answer is one 0-based choice index (e.g. answer: 1)");
        return;
    }
    if (get_int(L, a, "answer", &v))
        return;
    if (q->nchoices && (v < 0 || v >= q->nchoices))
        problem(L, a, "answer %lld is out of range: choices are 0..%d (0-based)", v, q->nchoices - 1);
    q->answer = (int)v;
}

static void parse_multi(loader *L, cl_ynode *qn, cl_question *q)
{
    parse_choices(L, qn, q);
    cl_ynode *a = need(L, qn, "answer");
    if (!a)
        return;
    if (!cl_yaml_is_seq(a) || cl_yaml_seq_len(a) == 0) {
        problem(L, a, "a multi question's answer is a non-empty list of 0-based indices (e.g. [0, 2])");
        return;
    }
    long long prev = -1;
    for (size_t i = 0; i < cl_yaml_seq_len(a); i++) {
        cl_ynode *e = cl_yaml_seq_at(L->y, a, i);
        long long v;
        if (get_int(L, e, "answer index", &v))
            continue;
        if (q->nchoices && (v < 0 || v >= q->nchoices)) {
            problem(L, e, "answer index %lld is out of range: choices are 0..%d", v, q->nchoices - 1);
            continue;
        }
        if (v <= prev) {
            problem(L, e, "answer indices must be sorted and unique (%lld after %lld)", v, prev);
            continue;
        }
        prev = v;
        if (v >= 0 && v < CL_Q_MAX_CHOICES)
            q->answer_set |= 1u << v;
    }
}

static void parse_numeric(loader *L, cl_ynode *qn, cl_question *q)
{
    cl_ynode *a = need(L, qn, "answer");
    if (a) {
        if (!cl_yaml_is_scalar(a))
            problem(L, a, "a numeric question's answer is one number");
        else
            get_double(L, a, "answer", &q->number);
    }
    cl_ynode *t = need(L, qn, "tolerance");
    if (t)
        parse_tolerance(L, t, &q->tol_abs, &q->tol_rel);
    cl_ynode *u = need(L, qn, "unit");
    if (u) {
        const char *s = cl_yaml_str(u);
        if (!s)
            problem(L, u, "unit must be a string (\"\" when the answer has no unit)");
        else
            q->unit = cl_arena_strdup(&L->b->arena, s);
    }
}

static void parse_order(loader *L, cl_ynode *qn, cl_question *q)
{
    cl_ynode *n = need(L, qn, "items");
    if (!n)
        return;
    if (!cl_yaml_is_seq(n)) {
        problem(L, n, "items must be a list of {en, zh} maps, in the correct order");
        return;
    }
    size_t len = cl_yaml_seq_len(n);
    if (len < CL_Q_MIN_ITEMS || len > CL_Q_MAX_ITEMS) {
        problem(L, n, "an order question needs %d to %d items, not %zu", CL_Q_MIN_ITEMS,
                CL_Q_MAX_ITEMS, len);
        if (len > CL_Q_MAX_ITEMS)
            return;
    }
    for (size_t i = 0; i < len; i++) {
        char what[32];
        snprintf(what, sizeof what, "item %zu", i + 1);
        cl_ynode *c = cl_yaml_seq_at(L->y, n, i);
        if (parse_text(L, c, what, &q->items[i]) == 0)
            for (size_t j = 0; j < i; j++)
                if (q->items[j].en && !strcmp(q->items[j].en, q->items[i].en))
                    problem(L, c, "item %zu repeats item %zu", i + 1, j + 1);
    }
    q->nitems = (int)len;
}

/* One rubric point: a list of alternatives (the short form), or a map with a bilingual
 * label and `any` alternatives and/or a `number` with a `tolerance`. */
static void parse_point(loader *L, cl_ynode *g, const char *what, cl_kwgroup *grp)
{
    memset(grp, 0, sizeof *grp);
    if (cl_yaml_is_seq(g)) {
        parse_string_list(L, g, what, LIST_PLAIN, 1, &grp->alts, &grp->nalts);
        return;
    }
    if (!cl_yaml_is_map(g)) {
        problem(L, g, "%s must be a list of alternatives, e.g. [warp, 线程束], or a map "
                      "{label: {en, zh}, any: [...], number: x, tolerance: {rel: x}}", what);
        return;
    }
    static const char *const keys[] = {"label", "any", "number", "tolerance", NULL};
    check_keys(L, g, keys, NULL, NULL);
    cl_ynode *lab = need(L, g, "label");
    if (lab)
        parse_text(L, lab, "label", &grp->label);
    cl_ynode *any = cl_yaml_get(L->y, g, "any");
    if (any)
        parse_string_list(L, any, what, LIST_PLAIN, 1, &grp->alts, &grp->nalts);
    cl_ynode *num = cl_yaml_get(L->y, g, "number");
    cl_ynode *tol = cl_yaml_get(L->y, g, "tolerance");
    if (num) {
        grp->has_number = get_double(L, num, "number", &grp->number) == 0;
        if (tol)
            parse_tolerance(L, tol, &grp->tol_abs, &grp->tol_rel);
        else
            problem(L, g, "%s has a number but no tolerance ({abs: x} or {rel: x})", what);
    } else if (tol) {
        problem(L, tol, "%s has a tolerance but no number", what);
    }
    if (!any && !num)
        problem(L, g, "%s needs 'any' alternatives or a 'number'", what);
}

static void parse_short(loader *L, cl_ynode *qn, cl_question *q)
{
    cl_ynode *m = need(L, qn, "model_answer");
    if (m)
        parse_text(L, m, "model_answer", &q->model_answer);
    cl_ynode *r = need(L, qn, "rubric");
    if (!r)
        return;
    if (!cl_yaml_is_map(r)) {
        problem(L, r, "rubric must be a map {need: N, points: [...]} (or keywords: [[alt, ...], ...])");
        return;
    }
    static const char *const keys[] = {"need", "keywords", "points", NULL};
    check_keys(L, r, keys, NULL, NULL);
    cl_ynode *kw = cl_yaml_get(L->y, r, "points");
    if (!kw)
        kw = cl_yaml_get(L->y, r, "keywords");
    if (cl_yaml_get(L->y, r, "points") && cl_yaml_get(L->y, r, "keywords"))
        problem(L, r, "rubric has both 'points' and 'keywords': keep one");
    if (!kw) {
        problem(L, r, "missing key 'points'");
    } else if (!cl_yaml_is_seq(kw) || cl_yaml_seq_len(kw) == 0) {
        problem(L, kw, "points must be a non-empty list");
    } else {
        size_t ng = cl_yaml_seq_len(kw);
        q->groups = cl_arena_alloc(&L->b->arena, ng * sizeof *q->groups);
        for (size_t i = 0; i < ng; i++) {
            char what[48];
            snprintf(what, sizeof what, "key point %zu", i + 1);
            parse_point(L, cl_yaml_seq_at(L->y, kw, i), what, &q->groups[q->ngroups++]);
        }
    }
    cl_ynode *nd = need(L, r, "need");
    long long v;
    if (nd && get_int(L, nd, "need", &v) == 0) {
        if (v < 1)
            problem(L, nd, "need must be at least 1");
        else if (q->ngroups && v > q->ngroups)
            problem(L, nd, "need is %lld but there are only %d key points", v, q->ngroups);
        q->need = (int)v;
    }
}

/* variants: a list of distinct integers 1..5 (the generator's variants this entry draws). */
static void parse_variants(loader *L, cl_ynode *n, cl_question *q)
{
    if (!cl_yaml_is_seq(n) || cl_yaml_seq_len(n) == 0 || cl_yaml_seq_len(n) > CL_Q_MAX_VARIANTS) {
        problem(L, n, "variants must be a list of 1 to %d distinct numbers 1..5, e.g. [1, 2, 3]",
                CL_Q_MAX_VARIANTS);
        return;
    }
    for (size_t i = 0; i < cl_yaml_seq_len(n); i++) {
        cl_ynode *e = cl_yaml_seq_at(L->y, n, i);
        long long v;
        if (get_int(L, e, "variant", &v))
            continue;
        if (v < 1 || v > 5) {
            problem(L, e, "variant %lld is not 1..5", v);
            continue;
        }
        for (int j = 0; j < q->nvariants; j++)
            if (q->variants[j] == v)
                problem(L, e, "variant %lld is listed twice", v);
        q->variants[q->nvariants++] = (int)v;
    }
}

/* ---- keys per kind --------------------------------------------------------------- */

static const char *const keys_common[] = {"id", "difficulty", "type", "kind", "tags", "prompt",
                                          "explanation", "refs", "seeds"};
static const char *const keys_by_type[CL_Q_NTYPES][3] = {
    {"choices", "answer", NULL},            /* single */
    {"choices", "answer", NULL},            /* multi */
    {"answer", "tolerance", "unit"},        /* numeric */
    {"items", NULL, NULL},                  /* order */
    {"model_answer", "rubric", NULL},       /* short */
};
static const char *const keys_family[] = {"id", "family", "difficulty", "variants", "tags", "refs", "seeds", NULL};

static const char *explain_type_key(const char *key, void *arg)
{
    static char buf[256];
    const int type = *(const int *)arg;
    for (int t = 0; t < CL_Q_NTYPES; t++)
        for (int i = 0; i < 3 && keys_by_type[t][i]; i++)
            if (!strcmp(keys_by_type[t][i], key)) {
                snprintf(buf, sizeof buf, "key '%s' does not belong to a %s question (it is for %s)",
                         key, cl_qtype_name((cl_qtype)type), cl_qtype_name((cl_qtype)t));
                return buf;
            }
    if (!strcmp(key, "family")) {
        snprintf(buf, sizeof buf, "a family entry has no 'type': remove 'type' or 'family'");
        return buf;
    }
    if (!strcmp(key, "topic")) {
        snprintf(buf, sizeof buf, "unknown key 'topic': a question's topic is its file's 'topic'");
        return buf;
    }
    return NULL;
}

static const char *explain_family_key(const char *key, void *arg)
{
    static char buf[256];
    const char *family = arg;
    for (size_t i = 0; i < sizeof keys_common / sizeof *keys_common; i++)
        if (!strcmp(keys_common[i], key)) {
            snprintf(buf, sizeof buf, "a family entry has no '%s': generator '%s' writes it", key,
                     family ? family : "?");
            return buf;
        }
    for (int t = 0; t < CL_Q_NTYPES; t++)
        for (int i = 0; i < 3 && keys_by_type[t][i]; i++)
            if (!strcmp(keys_by_type[t][i], key)) {
                snprintf(buf, sizeof buf, "a family entry has no '%s': generator '%s' writes it",
                         key, family ? family : "?");
                return buf;
            }
    return NULL;
}

static void note_id(loader *L, const char *id, int line, cl_ynode *n)
{
    cl_bank *b = L->b;
    for (int i = 0; i < b->nseen; i++)
        if (!strcmp(b->seen[i].id, id)) {
            problem(L, n, "duplicate id '%s' (first at %s:%d)", id, b->seen[i].file, b->seen[i].line);
            return;
        }
    b->seen = cl_grow(b->seen, &b->seen_cap, b->nseen + 1, sizeof *b->seen);
    b->seen[b->nseen++] = (cl_seen_id){id, L->file, line};
}

static void parse_id(loader *L, cl_ynode *qn, cl_question *q)
{
    cl_ynode *idn = need(L, qn, "id");
    if (!idn)
        return;
    q->id = get_string(L, idn, "id");
    if (q->id && !matches_charset(q->id, "-"))
        problem(L, idn, "id '%s' must use only a-z, 0-9 and '-'", q->id);
    else if (q->id)
        note_id(L, q->id, cl_yaml_line(idn), idn);
}

/* A generated entry: the family, its keys, the variants it may draw. */
static void parse_family_entry(loader *L, cl_ynode *qn, cl_ynode *fam, cl_question *q)
{
    q->family = get_string(L, fam, "family");
    if (q->family && !cl_family_find(q->family)) {
        char known[512] = "";
        for (const cl_family *const *f = cl_family_table; *f; f++) {
            strncat(known, (*f)->name, sizeof known - strlen(known) - 3);
            if (f[1])
                strncat(known, ", ", sizeof known - strlen(known) - 1);
        }
        problem(L, fam, "unknown family '%s' (known: %s)", q->family, known);
    }
    check_keys(L, qn, keys_family, explain_family_key, (void *)q->family);
    q->kind = CL_KIND_APPLY; /* a generated question always computes a figure */
    cl_ynode *vn = cl_yaml_get(L->y, qn, "variants");
    if (vn)
        parse_variants(L, vn, q);
}

/* The type and the keys it allows; returns the type, or -1 when it is missing or unknown. */
static int parse_type(loader *L, cl_ynode *qn, cl_question *q)
{
    int type = -1;
    cl_ynode *tn = need(L, qn, "type");
    if (tn) {
        const char *ts = cl_yaml_str(tn);
        type = cl_qtype_parse(ts);
        if (type < 0)
            problem(L, tn, "type '%s' is not one of single, multi, numeric, order, short", ts ? ts : "(not a string)");
    }
    if (type >= 0) {
        const char *allowed[16];
        int n = 0;
        for (size_t i = 0; i < sizeof keys_common / sizeof *keys_common; i++)
            allowed[n++] = keys_common[i];
        for (int i = 0; i < 3 && keys_by_type[type][i]; i++)
            allowed[n++] = keys_by_type[type][i];
        allowed[n] = NULL;
        check_keys(L, qn, allowed, explain_type_key, &type);
        q->type = (cl_qtype)type;
    }
    return type;
}

/* A written entry: type, kind, prompt, explanation and the keys of its type. */
static void parse_static_entry(loader *L, cl_ynode *qn, cl_question *q)
{
    int type = parse_type(L, qn, q);
    cl_ynode *kn = cl_yaml_get(L->y, qn, "kind"); /* absent: recall, never counted as applied */
    if (kn) {
        int k = cl_qkind_parse(cl_yaml_str(kn));
        if (k < 0)
            problem(L, kn, "kind '%s' is not one of recall, understand, apply, analyse",
                    cl_yaml_str(kn) ? cl_yaml_str(kn) : "(not a string)");
        else
            q->kind = (cl_qkind)k;
    }
    cl_ynode *p = need(L, qn, "prompt");
    if (p)
        parse_text(L, p, "prompt", &q->prompt);
    cl_ynode *e = need(L, qn, "explanation");
    if (e)
        parse_text(L, e, "explanation", &q->explanation);
    switch (type) {
    case CL_Q_SINGLE: parse_single(L, qn, q); break;
    case CL_Q_MULTI: parse_multi(L, qn, q); break;
    case CL_Q_NUMERIC: parse_numeric(L, qn, q); break;
    case CL_Q_ORDER: parse_order(L, qn, q); break;
    case CL_Q_SHORT: parse_short(L, qn, q); break;
    default: break;
    }
}

/* What both kinds of entry have: difficulty, tags, refs, seeds. */
static void parse_common_keys(loader *L, cl_ynode *qn, cl_question *q)
{
    cl_ynode *d = need(L, qn, "difficulty");
    long long dv;
    if (d && get_int(L, d, "difficulty", &dv) == 0) {
        if (dv < 1 || dv > 5)
            problem(L, d, "difficulty must be 1..5, not %lld", dv);
        q->difficulty = (int)dv;
    }
    cl_ynode *tags = cl_yaml_get(L->y, qn, "tags");
    if (tags && !(cl_yaml_is_scalar(tags) && !*cl_yaml_str(tags)))
        parse_string_list(L, tags, "tags", LIST_TAG, 0, &q->tags, &q->ntags);
    cl_ynode *refs = need(L, qn, "refs");
    if (refs)
        parse_string_list(L, refs, "refs", LIST_URL, 1, &q->refs, &q->nrefs);
    cl_ynode *seeds = cl_yaml_get(L->y, qn, "seeds");
    if (seeds)
        parse_string_list(L, seeds, "seeds", LIST_SEED, 0, &q->seeds, &q->nseeds);
}

static void parse_question(loader *L, cl_ynode *qn)
{
    if (!cl_yaml_is_map(qn)) {
        problem(L, qn, "each question must be a map (starting with '- id: ...')");
        return;
    }
    int before = L->problems;
    cl_question q;
    memset(&q, 0, sizeof q);
    q.file = L->file;
    q.line = cl_yaml_line(qn);
    q.topic = L->topic;
    q.topic_title = L->title;

    parse_id(L, qn, &q);
    cl_ynode *fam = cl_yaml_get(L->y, qn, "family");
    if (fam)
        parse_family_entry(L, qn, fam, &q);
    else
        parse_static_entry(L, qn, &q);
    parse_common_keys(L, qn, &q);

    if (L->problems != before)
        return;
    cl_bank *b = L->b;
    b->q = cl_grow(b->q, &b->q_cap, b->nq + 1, sizeof *b->q);
    b->q[b->nq++] = q;
}

/* ---- files --------------------------------------------------------------------------- */

static void file_stem(const char *path, char *out, size_t n)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    snprintf(out, n, "%s", base);
    char *dot = strrchr(out, '.');
    if (dot && (!strcmp(dot, ".yaml") || !strcmp(dot, ".yml")))
        *dot = '\0';
}

int cl_bank_load_file(cl_bank *b, const char *path, cl_report_fn report, void *ctx)
{
    cl_yaml y;
    cl_err err;
    if (cl_yaml_load_file(&y, path, &err)) {
        if (report)
            report(ctx, err.msg);
        return 1;
    }
    loader L = {&y, b, report, ctx, 0, cl_arena_strdup(&b->arena, path), NULL};
    cl_ynode *root = cl_yaml_root(&y);
    if (!cl_yaml_is_map(root)) {
        problem(&L, root, "a topic file is a map with 'topic', 'title' and 'questions'");
        cl_yaml_free(&y);
        return L.problems;
    }
    static const char *const keys[] = {"topic", "title", "questions", NULL};
    check_keys(&L, root, keys, NULL, NULL);

    char stem[256];
    file_stem(path, stem, sizeof stem);
    cl_ynode *tn = need(&L, root, "topic");
    const char *topic = tn ? get_string(&L, tn, "topic") : NULL;
    if (topic && !matches_charset(topic, "_"))
        problem(&L, tn, "topic '%s' must use only a-z, 0-9 and '_'", topic);
    else if (topic && strcmp(topic, stem))
        problem(&L, tn, "topic '%s' must equal the file name '%s'", topic, stem);
    L.topic = topic ? topic : cl_arena_strdup(&b->arena, stem);
    for (int i = 0; i < b->ntopics; i++)
        if (!strcmp(b->topics[i].name, L.topic))
            problem(&L, tn ? tn : root, "topic '%s' is also defined in %s", L.topic, b->topics[i].file);

    cl_topic t;
    memset(&t, 0, sizeof t);
    t.name = L.topic;
    t.file = L.file;
    cl_ynode *title = need(&L, root, "title");
    if (title)
        parse_text(&L, title, "title", &t.title);
    L.title = t.title;

    int first = b->nq;
    cl_ynode *qs = need(&L, root, "questions");
    if (qs && !cl_yaml_is_seq(qs))
        problem(&L, qs, "questions must be a list");
    else if (qs)
        for (size_t i = 0; i < cl_yaml_seq_len(qs); i++)
            parse_question(&L, cl_yaml_seq_at(&y, qs, i));
    t.nquestions = b->nq - first;
    b->topics = cl_grow(b->topics, &b->topics_cap, b->ntopics + 1, sizeof *b->topics);
    b->topics[b->ntopics++] = t;
    cl_yaml_free(&y);
    return L.problems;
}

