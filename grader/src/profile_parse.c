/* profile_parse.c: reading `ncu --csv --page raw` output into kernels and metrics in base
 * units. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grader/profile.h"

/* One CSV line into fields ("..." with "" for a quote). Returns the count; *end is where
 * the next line starts. Fields are malloc'ed. */
static int csv_line(const char *p, char ***fields, const char **end)
{
    int n = 0, cap = 16;
    char **f = malloc((size_t)cap * sizeof *f);
    for (;;) {
        size_t len = 0, fcap = 64;
        char *v = malloc(fcap);
        int quoted = *p == '"';
        if (quoted) p++;
        for (;;) {
            char c = *p;
            if (!c) break;
            if (quoted && c == '"') {
                if (p[1] == '"') { c = '"'; p++; }
                else { quoted = 0; p++; continue; }
            } else if (!quoted && (c == ',' || c == '\n' || c == '\r')) {
                break;
            }
            if (len + 1 >= fcap) v = realloc(v, fcap *= 2);
            v[len++] = c;
            p++;
        }
        v[len] = '\0';
        if (n == cap) f = realloc(f, (size_t)(cap *= 2) * sizeof *f);
        f[n++] = v;
        if (*p == ',') { p++; continue; }
        while (*p == '\r') p++;
        if (*p == '\n') p++;
        break;
    }
    *fields = f;
    *end = p;
    return n;
}

static void free_fields(char **f, int n)
{
    for (int i = 0; i < n; i++) free(f[i]);
    free(f);
}

/* The factor from a unit to its base unit: Kbyte 1e3, usecond 1e-6, Gbyte/second 1e9... */
static double unit_scale(const char *u)
{
    double s = 1;
    char num[64];
    const char *slash = strchr(u, '/');
    size_t nl = slash ? (size_t)(slash - u) : strlen(u);
    if (nl >= sizeof num) nl = sizeof num - 1;
    memcpy(num, u, nl);
    num[nl] = '\0';
    for (int part = 0; part < 2; part++) {
        const char *w = part ? (slash ? slash + 1 : "") : num;
        double f = 1;
        if (!strcmp(w, "msecond")) f = 1e-3;
        else if (!strcmp(w, "usecond")) f = 1e-6;
        else if (!strcmp(w, "nsecond")) f = 1e-9;
        else if (w[0] && w[1] && islower((unsigned char)w[1]) && strchr("KMGT", w[0]))
            f = w[0] == 'K' ? 1e3 : w[0] == 'M' ? 1e6 : w[0] == 'G' ? 1e9 : 1e12;
        s = part ? s / f : s * f;
    }
    return s;
}

static double parse_number(const char *s)
{
    char buf[128];
    size_t n = 0;
    for (; *s && n < sizeof buf - 1; s++)
        if (*s != ',' && *s != ' ')
            buf[n++] = *s;
    buf[n] = '\0';
    char *end;
    double v = strtod(buf, &end);
    return n && !*end ? v : NAN;
}

int cl_ncu_parse_csv(const char *text, cl_ncu_report *rep, cl_err *err)
{
    memset(rep, 0, sizeof *rep);
    /* the header: a line starting with "ID" */
    const char *p = text;
    while (p && *p && strncmp(p, "\"ID\",", 5)) {
        p = strchr(p, '\n');
        if (p) p++;
    }
    if (!p || !*p)
        return cl_err_set(err, "not an ncu raw CSV report (no \"ID\" header line)");
    char **head, **units;
    const char *next;
    int nh = csv_line(p, &head, &next);
    int nu = csv_line(next, &units, &next);
    int name_col = -1, first_metric = -1;
    for (int i = 0; i < nh; i++) {
        if (!strcmp(head[i], "Kernel Name")) name_col = i;
        if (first_metric < 0 && strstr(head[i], "__")) first_metric = i; /* metric names have "__" */
    }
    if (name_col < 0 || first_metric < 0 || nu != nh) {
        free_fields(head, nh);
        free_fields(units, nu);
        return cl_err_set(err, "ncu CSV: no 'Kernel Name' column, no metrics, or no units row");
    }
    int cap = 0;
    while (*next) {
        char **row;
        int nr = csv_line(next, &row, &next);
        if (nr != nh) { /* a blank or foreign line */
            free_fields(row, nr);
            continue;
        }
        if (rep->nkernels == cap)
            rep->kernels = realloc(rep->kernels, (size_t)(cap = cap ? 2 * cap : 8) * sizeof *rep->kernels);
        cl_ncu_kernel *k = &rep->kernels[rep->nkernels++];
        memset(k, 0, sizeof *k);
        snprintf(k->name, sizeof k->name, "%s", row[name_col]);
        k->nmetrics = nh - first_metric;
        k->names = malloc((size_t)k->nmetrics * sizeof *k->names);
        k->values = malloc((size_t)k->nmetrics * sizeof *k->values);
        for (int i = 0; i < k->nmetrics; i++) {
            k->names[i] = strdup(head[first_metric + i]);
            k->values[i] = parse_number(row[first_metric + i]) * unit_scale(units[first_metric + i]);
        }
        free_fields(row, nr);
    }
    free_fields(head, nh);
    free_fields(units, nu);
    if (rep->nkernels == 0)
        return cl_err_set(err, "ncu profiled no kernel (did the solution launch any in this case?)");
    return 0;
}

void cl_ncu_report_free(cl_ncu_report *rep)
{
    for (int i = 0; i < rep->nkernels; i++) {
        for (int m = 0; m < rep->kernels[i].nmetrics; m++)
            free(rep->kernels[i].names[m]);
        free(rep->kernels[i].names);
        free(rep->kernels[i].values);
    }
    free(rep->kernels);
    memset(rep, 0, sizeof *rep);
}

double cl_ncu_metric(const cl_ncu_kernel *k, const char *name)
{
    for (int i = 0; i < k->nmetrics; i++)
        if (!strcmp(k->names[i], name))
            return k->values[i];
    return NAN;
}
