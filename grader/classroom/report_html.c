/* report_html.c: the class report as static HTML.
 *
 *   report/index.html            the class table, the leaderboard, the class roofline
 *   report/students/<id>.html    every verdict and message of one student, their roofline,
 *                                compiler log, output, sanitizer report
 * Self-contained (inline CSS and SVG) and script-free: a Content-Security-Policy forbids
 * scripts, and every byte a student controls is escaped, so a submission that prints
 * <script> cannot run anything in the instructor's browser. */
#include <math.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <time.h>

#include "grader/result.h"
#include "grader/classroom.h"
#include "strbuf.h"

static const char *const css =
    "body{font:14px/1.45 system-ui,-apple-system,'DejaVu Sans',sans-serif;margin:24px;color:#1b1f24;max-width:1200px}"
    "h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px}.meta{color:#57606a}"
    "table{border-collapse:collapse;margin:8px 0}th,td{border-bottom:1px solid #d8dee4;padding:4px 10px;text-align:left;"
    "vertical-align:top}th{background:#f6f8fa}td.num{text-align:right;font-variant-numeric:tabular-nums}"
    ".v{display:inline-block;padding:1px 8px;border-radius:10px;font-size:12px;font-weight:600}"
    ".ok{background:#dafbe1;color:#116329}.warn{background:#fff8c5;color:#7d4e00}.bad{background:#ffebe9;color:#a40e26}"
    ".none{background:#eaeef2;color:#57606a}pre{background:#f6f8fa;padding:10px;overflow:auto;max-height:420px;"
    "white-space:pre-wrap}.chips span{margin-right:10px}.msg{max-width:520px}"
    "svg .grid{stroke:#eaeef2}svg .tick{font-size:11px;fill:#57606a}svg .axis{font-size:12px;fill:#1b1f24}"
    "svg .roof{fill:none;stroke:#cf222e;stroke-width:2}svg .rooflabel{font-size:11px;fill:#cf222e}"
    "svg .pt{fill:#0969da;fill-opacity:.75}svg .pt.hi{fill:#bf3989}svg .note{font-size:13px;fill:#57606a}";


static const char *vclass(const char *v)
{
    cl_verdict verdict = cl_verdict_from_name(v); /* CL_V_ERROR for the gradebook's own words */
    if (cl_verdict_ok(verdict) && verdict != CL_V_SLOW)
        return "ok";
    if (verdict == CL_V_SLOW || verdict == CL_V_NO_DEVICE)
        return "warn";
    if (!strcmp(v, "missing") || !strcmp(v, "not_graded"))
        return "none";
    return "bad";
}

static void head(cl_strbuf *sb, const char *title)
{
    cl_sb_append(sb, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                     "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
                     "style-src 'unsafe-inline'; img-src data:\">\n"
                     "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>");
    cl_sb_append_markup(sb, title);
    cl_sb_printf(sb, "</title>\n<style>%s</style></head>\n<body>\n", css);
}

static void badge(cl_strbuf *sb, const char *verdict)
{
    cl_sb_printf(sb, "<span class=\"v %s\">", vclass(verdict));
    cl_sb_append_markup(sb, verdict);
    cl_sb_append(sb, "</span>");
}

static void metric_cell(cl_strbuf *sb, const cl_grade_row *r)
{
    if (r->metric > 0) {
        cl_sb_printf(sb, "<td class=\"num\">%.4g ", r->metric);
        cl_sb_append_markup(sb, r->metric_unit);
        cl_sb_append(sb, "</td>");
    } else {
        cl_sb_append(sb, "<td class=\"num\">-</td>");
    }
    if (r->fraction > 0)
        cl_sb_printf(sb, "<td class=\"num\">%.1f%%</td>", r->fraction * 100);
    else
        cl_sb_append(sb, "<td class=\"num\">-</td>");
}

static void student_link(cl_strbuf *sb, const cl_grade_row *r, const char *prefix)
{
    cl_sb_append(sb, "<a class=\"student\" href=\"");
    cl_sb_append(sb, prefix);
    cl_sb_append_markup(sb, r->student); /* ids keep [A-Za-z0-9._@+-] only: a safe file name */
    cl_sb_append(sb, ".html\">");
    cl_sb_append_markup(sb, r->student);
    cl_sb_append(sb, "</a>");
}

/* bench cases of a report as roofline points */
static int roof_points(const cl_grade_row *r, cl_roof_point *pts, int max, const char *href, int highlight,
                       char labels[][160])
{
    int n = 0;
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(r->report, "cases"), i, c) {
        json_t *b = json_object_get(c, "bench");
        if (!b || n >= max)
            continue;
        double med = json_number_value(json_object_get(b, "median_ms"));
        if (med <= 0)
            continue;
        const char *cname = json_string_value(json_object_get(c, "name"));
        snprintf(labels[n], 160, "%s: %s", r->student, cname ? cname : "?");
        pts[n].label = labels[n];
        pts[n].href = href;
        pts[n].flops = json_number_value(json_object_get(b, "flops"));
        pts[n].bytes = json_number_value(json_object_get(b, "bytes"));
        pts[n].seconds = med * 1e-3;
        pts[n].highlight = highlight;
        n++;
    }
    return n;
}

static int higher_is_better(int metric) { return metric != CL_METRIC_TIME; }

static const cl_class_report *g_rep; /* for the leaderboard's sort */

static int by_rank(const void *a, const void *b)
{
    const cl_grade_row *x = *(const cl_grade_row *const *)a, *y = *(const cl_grade_row *const *)b;
    if (x->score != y->score)
        return x->score < y->score ? 1 : -1;
    double mx = x->metric, my = y->metric;
    if (mx != my) {
        if (mx <= 0) return 1;
        if (my <= 0) return -1;
        int hb = higher_is_better(g_rep->metric);
        return (mx < my) == hb ? 1 : -1;
    }
    return strcmp(x->student, y->student);
}

/* The page's head and its summary table: verdict, message, score, submission, seed, GPU. */
static void write_summary(const cl_class_report *rep, const cl_grade_row *r, const char *title, cl_strbuf *sb)
{
    head(sb, title);
    cl_sb_append(sb, "<p><a href=\"../index.html\">&larr; the class</a></p>\n<h1>");
    cl_sb_append_markup(sb, r->student);
    if (strcmp(r->name, r->student)) {
        cl_sb_append(sb, " <span class=\"meta\">");
        cl_sb_append_markup(sb, r->name);
        cl_sb_append(sb, "</span>");
    }
    cl_sb_append(sb, "</h1>\n<p class=\"meta\">");
    cl_sb_append_markup(sb, rep->lab);
    cl_sb_append(sb, ": ");
    cl_sb_append_markup(sb, rep->title);
    cl_sb_append(sb, "</p>\n<table id=\"summary\">\n<tr><th>verdict</th><td>");
    badge(sb, r->verdict);
    cl_sb_append(sb, "</td></tr>\n<tr><th>message</th><td class=\"msg\" id=\"message\">");
    cl_sb_append_markup(sb, r->message);
    if (cl_grade_row_scored(r))
        cl_sb_printf(sb, "</td></tr>\n<tr><th>score</th><td>%.1f / %.0f", r->score, r->max_score);
    else
        cl_sb_printf(sb, "</td></tr>\n<tr><th>score</th><td>none recorded (not graded) / %.0f", r->max_score);
    if (r->late_days > 0)
        cl_sb_printf(sb, " (%.1f before %d day%s late: &minus;%.0f%%)", r->raw_score, r->late_days,
                     r->late_days == 1 ? "" : "s", r->penalty * 100);
    cl_sb_append(sb, "</td></tr>\n<tr><th>submission</th><td>");
    cl_sb_append_markup(sb, r->submission);
    cl_sb_append(sb, " <span class=\"meta\">sha256 ");
    cl_sb_append_markup(sb, r->sha256);
    cl_sb_append(sb, "</span></td></tr>\n");
    if (r->seed)
        cl_sb_printf(sb, "<tr><th>seed</th><td>%llu <span class=\"meta\">(per student, from the course secret)</span>"
                         "</td></tr>\n", (unsigned long long)r->seed);
    if (r->gpu[0]) {
        cl_sb_append(sb, "<tr><th>GPU</th><td>");
        cl_sb_append_markup(sb, r->gpu);
        cl_sb_append(sb, "</td></tr>\n");
    }
    if (r->graded_at > 0) {
        char t[40];
        time_t tt = (time_t)r->graded_at;
        strftime(t, sizeof t, "%Y-%m-%d %H:%M:%S UTC", gmtime(&tt));
        cl_sb_printf(sb, "<tr><th>graded</th><td>%s, %.1f s</td></tr>\n", t, r->seconds);
    }
    cl_sb_append(sb, "</table>\n");
}

/* Every correctness case: status, where, expected, got. */
static void write_cases(json_t *cases, cl_strbuf *sb)
{
    json_t *c;
    size_t i;
    cl_sb_append(sb, "<h2>Correctness</h2>\n<table id=\"cases\"><tr><th>case</th><th>status</th><th>where</th>"
                     "<th>expected</th><th>got</th><th>message</th></tr>\n");
    json_array_foreach(cases, i, c) {
        const char *kind = json_string_value(json_object_get(c, "kind"));
        if (kind && !strcmp(kind, "bench"))
            continue;
        const char *st = json_string_value(json_object_get(c, "status"));
        cl_sb_append(sb, "<tr><td>");
        cl_sb_append_markup(sb, json_string_value(json_object_get(c, "name")));
        cl_sb_append(sb, "</td><td>");
        badge(sb, st ? st : "?");
        cl_sb_append(sb, "</td><td>");
        cl_sb_append_markup(sb, json_string_value(json_object_get(c, "where")));
        cl_sb_append(sb, "</td>");
        json_t *e = json_object_get(c, "expected"), *g = json_object_get(c, "got");
        if (json_is_number(e))
            cl_sb_printf(sb, "<td class=\"num\">%.9g</td><td class=\"num\">%.9g</td>", json_number_value(e),
                         json_number_value(g));
        else
            cl_sb_append(sb, "<td></td><td></td>");
        cl_sb_append(sb, "<td class=\"msg\">");
        cl_sb_append_markup(sb, json_string_value(json_object_get(c, "message")));
        cl_sb_append(sb, "</td></tr>\n");
    }
    cl_sb_append(sb, "</table>\n");
}

/* The timed cases: times, metric, fraction of the ceiling, the reference, the tier. */
static void write_bench(json_t *cases, cl_strbuf *sb)
{
    json_t *c;
    size_t i;
    cl_sb_append(sb, "<h2>Performance</h2>\n<table id=\"bench\"><tr><th>case</th><th>median ms</th>"
                     "<th>min ms</th><th>max ms</th><th>metric</th><th>of ceiling</th><th>vs reference</th>"
                     "<th>tier</th></tr>\n");
    int nb = 0;
    json_array_foreach(cases, i, c) {
        json_t *b = json_object_get(c, "bench");
        if (!b)
            continue;
        nb++;
        cl_sb_append(sb, "<tr><td>");
        cl_sb_append_markup(sb, json_string_value(json_object_get(c, "name")));
        cl_sb_printf(sb, "</td><td class=\"num\">%.4g</td><td class=\"num\">%.4g</td><td class=\"num\">%.4g</td>"
                         "<td class=\"num\">%.4g</td>",
                     json_number_value(json_object_get(b, "median_ms")),
                     json_number_value(json_object_get(b, "min_ms")),
                     json_number_value(json_object_get(b, "max_ms")),
                     json_number_value(json_object_get(b, "metric")));
        double f = json_number_value(json_object_get(b, "fraction"));
        double vr = json_number_value(json_object_get(b, "vs_reference"));
        if (f > 0) cl_sb_printf(sb, "<td class=\"num\">%.1f%%</td>", f * 100);
        else cl_sb_append(sb, "<td class=\"num\">-</td>");
        if (vr > 0) cl_sb_printf(sb, "<td class=\"num\">%.2fx</td>", vr);
        else cl_sb_append(sb, "<td class=\"num\">-</td>");
        cl_sb_append(sb, "<td>");
        cl_sb_append_markup(sb, json_string_value(json_object_get(b, "tier")));
        cl_sb_append(sb, "</td></tr>\n");
    }
    if (!nb)
        cl_sb_append(sb, "<tr><td colspan=\"8\" class=\"meta\">not timed (only a correct solution is)</td></tr>\n");
    cl_sb_append(sb, "</table>\n");
}

/* What the compiler, the sanitizer and the solution said, and the libraries it loaded. */
static void write_logs(json_t *rep_j, cl_strbuf *sb)
{
    size_t i;
    static const char *const blocks[][2] = {{"detail", "Details"},   {"sanitizer", "compute-sanitizer"},
                                            {"output", "Output of the solution"}};
    json_t *comp = json_object_get(rep_j, "compile");
    const char *log = json_string_value(json_object_get(comp, "log"));
    if (log && *log) {
        cl_sb_append(sb, "<h2>Compiler</h2>\n<pre id=\"compile-log\">");
        cl_sb_append_markup(sb, log);
        cl_sb_append(sb, "</pre>\n");
    }
    for (size_t k = 0; k < sizeof blocks / sizeof blocks[0]; k++) {
        const char *t = json_string_value(json_object_get(rep_j, blocks[k][0]));
        if (!t || !*t)
            continue;
        cl_sb_printf(sb, "<h2>%s</h2>\n<pre id=\"%s\">", blocks[k][1], blocks[k][0]);
        cl_sb_append_markup(sb, t);
        cl_sb_append(sb, "</pre>\n");
    }
    json_t *libs = json_object_get(rep_j, "libraries_loaded");
    if (json_array_size(libs)) {
        cl_sb_append(sb, "<h2>Libraries the solution loaded</h2>\n<ul>");
        json_t *l;
        json_array_foreach(libs, i, l) {
            cl_sb_append(sb, "<li>");
            cl_sb_append_markup(sb, json_string_value(l));
            cl_sb_append(sb, "</li>");
        }
        cl_sb_append(sb, "</ul>\n");
    }
}

static void write_student(const cl_class_report *rep, const cl_grade_row *r, cl_strbuf *sb)
{
    char title[400];
    snprintf(title, sizeof title, "%s: %s", r->student, rep->lab);
    write_summary(rep, r, title, sb);
    if (r->report) {
        json_t *cases = json_object_get(r->report, "cases");
        write_cases(cases, sb);
        write_bench(cases, sb);
        cl_roof_point pts[16];
        char labels[16][160];
        int n = roof_points(r, pts, 16, NULL, 1, labels);
        cl_sb_append(sb, "<h2>Roofline</h2>\n");
        cl_roofline_svg(sb, pts, n, rep->copy_gbps, rep->fp16_tflops, title);
        write_logs(r->report, sb);
    }
    cl_sb_append(sb, "</body></html>\n");
}

/* Pages of students no longer in the class (a folder removed, a roster changed) go. */
static void remove_stale_pages(const cl_class_report *rep, const char *sdir)
{
    DIR *d = opendir(sdir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n < 6 || strcmp(e->d_name + n - 5, ".html"))
            continue;
        int current = 0;
        for (int i = 0; i < rep->nrows && !current; i++)
            current = strlen(rep->rows[i].student) == n - 5 && !strncmp(rep->rows[i].student, e->d_name, n - 5);
        if (!current)
            unlinkat(dirfd(d), e->d_name, 0);
    }
    if (d)
        closedir(d);
}

/* Every student's page, students/<id>.html; pages of students who left go. */
static int write_student_pages(const cl_class_report *rep, const char *dir, cl_err *err)
{
    char sdir[CL_PATH_MAX], path[CL_PATH_MAX];
    cl_path_join(sdir, sizeof sdir, dir, "students");
    if (cl_mkdirs(sdir, err))
        return -1;
    cl_strbuf sb;
    cl_sb_init(&sb);
    for (int i = 0; i < rep->nrows; i++) {
        cl_sb_clear(&sb);
        write_student(rep, &rep->rows[i], &sb);
        char name[200];
        snprintf(name, sizeof name, "%s.html", rep->rows[i].student);
        cl_path_join(path, sizeof path, sdir, name);
        if (cl_write_file_atomic(path, sb.data, sb.len, err)) {
            cl_sb_free(&sb);
            return -1;
        }
    }
    cl_sb_free(&sb);
    remove_stale_pages(rep, sdir);
    return 0;
}

/* The class page's title line: lab, course, class size, date, GPU. */
static void class_header(const cl_class_report *rep, const char *title, cl_strbuf *sb)
{
    head(sb, title);
    cl_sb_append(sb, "<h1>");
    cl_sb_append_markup(sb, rep->lab);
    cl_sb_append(sb, ": ");
    cl_sb_append_markup(sb, rep->title);
    cl_sb_append(sb, "</h1>\n<p class=\"meta\">");
    cl_sb_append_markup(sb, rep->course);
    char t[40];
    time_t now = time(NULL);
    strftime(t, sizeof t, "%Y-%m-%d %H:%M UTC", gmtime(&now));
    cl_sb_printf(sb, " &middot; %d student%s &middot; %s", rep->nrows, rep->nrows == 1 ? "" : "s", t);
    if (rep->gpu[0]) {
        cl_sb_append(sb, " &middot; ");
        cl_sb_append_markup(sb, rep->gpu);
    }
    if (rep->copy_gbps > 0)
        cl_sb_printf(sb, " (copy bandwidth %.0f GB/s)", rep->copy_gbps);
    cl_sb_append(sb, "</p>\n");
}

/* How many of each verdict, and the mean of the scores that were given. */
static void verdict_chips(const cl_class_report *rep, cl_strbuf *sb)
{
    cl_sb_append(sb, "<p class=\"chips\" id=\"verdicts\">");
    const char *seen[64];
    int counts[64], nseen = 0;
    double total = 0;
    int graded = 0;
    for (int i = 0; i < rep->nrows; i++) {
        const char *v = rep->rows[i].verdict;
        int k = 0;
        while (k < nseen && strcmp(seen[k], v)) k++;
        if (k == nseen && nseen < 64) { seen[nseen] = v; counts[nseen++] = 0; }
        if (k < 64) counts[k]++;
        if (!rep->rows[i].missing && cl_grade_row_scored(&rep->rows[i])) { total += rep->rows[i].score; graded++; }
    }
    for (int k = 0; k < nseen; k++) {
        cl_sb_append(sb, "<span>");
        badge(sb, seen[k]);
        cl_sb_printf(sb, " %d</span>", counts[k]);
    }
    if (graded)
        cl_sb_printf(sb, "<span class=\"meta\">mean score %.1f</span>", total / graded);
    cl_sb_append(sb, "</p>\n");
}

/* One row per student: verdict, score (none when not graded), lateness, tier, metric. */
static void class_table(const cl_class_report *rep, cl_strbuf *sb)
{
    cl_sb_append(sb, "<h2>Class</h2>\n<table id=\"class\"><tr><th>student</th><th>name</th><th>verdict</th>"
                     "<th>score</th><th>late</th><th>tier</th><th>metric</th><th>of ceiling</th><th>message</th></tr>\n");
    for (int i = 0; i < rep->nrows; i++) {
        const cl_grade_row *r = &rep->rows[i];
        cl_sb_append(sb, "<tr class=\"row\"><td>");
        student_link(sb, r, "students/");
        cl_sb_append(sb, "</td><td>");
        cl_sb_append_markup(sb, r->name);
        cl_sb_append(sb, "</td><td>");
        badge(sb, r->verdict);
        if (cl_grade_row_scored(r))
            cl_sb_printf(sb, "</td><td class=\"num\">%.1f / %.0f</td><td class=\"num\">", r->score, r->max_score);
        else
            cl_sb_printf(sb, "</td><td class=\"num\">&mdash; / %.0f</td><td class=\"num\">", r->max_score);
        if (r->late_days > 0)
            cl_sb_printf(sb, "%d d (&minus;%.0f%%)", r->late_days, r->penalty * 100);
        cl_sb_append(sb, "</td><td>");
        cl_sb_append_markup(sb, r->tier);
        cl_sb_append(sb, "</td>");
        metric_cell(sb, r);
        cl_sb_append(sb, "<td class=\"msg\">");
        cl_sb_append_markup(sb, r->message);
        cl_sb_append(sb, "</td></tr>\n");
    }
    cl_sb_append(sb, "</table>\n");
}

/* The top 20 graded submissions: score, then the lab's metric. */
static void leaderboard(const cl_class_report *rep, cl_strbuf *sb)
{
    const cl_grade_row **order = calloc((size_t)(rep->nrows ? rep->nrows : 1), sizeof *order);
    int nl = 0;
    for (int i = 0; order && i < rep->nrows; i++)
        if (!rep->rows[i].missing && rep->rows[i].report && cl_grade_row_scored(&rep->rows[i]))
            order[nl++] = &rep->rows[i];
    g_rep = rep;
    if (nl)
        qsort(order, (size_t)nl, sizeof *order, by_rank);
    cl_sb_append(sb, "<section id=\"leaderboard\">\n<h2>Leaderboard</h2>\n<table><tr><th>#</th><th>student</th>"
                     "<th>score</th><th>metric</th><th>of ceiling</th></tr>\n");
    for (int i = 0; i < nl && i < 20; i++) {
        cl_sb_printf(sb, "<tr><td class=\"num\">%d</td><td>", i + 1);
        student_link(sb, order[i], "students/");
        cl_sb_printf(sb, "</td><td class=\"num\">%.1f</td>", order[i]->score);
        metric_cell(sb, order[i]);
        cl_sb_append(sb, "</tr>\n");
    }
    cl_sb_append(sb, "</table>\n</section>\n");
    free(order);
}

/* Every submission's timed cases on one roofline, each point linked to its page. */
static void class_roofline(const cl_class_report *rep, const char *title, cl_strbuf *sb)
{
    cl_roof_point *pts = calloc((size_t)(rep->nrows * 4 + 1), sizeof *pts);
    char (*labels)[160] = calloc((size_t)(rep->nrows * 4 + 1), sizeof *labels);
    char (*hrefs)[200] = calloc((size_t)(rep->nrows + 1), sizeof *hrefs);
    int np = 0;
    for (int i = 0; pts && labels && hrefs && i < rep->nrows; i++) {
        if (!rep->rows[i].report)
            continue;
        snprintf(hrefs[i], 200, "students/%s.html", rep->rows[i].student);
        np += roof_points(&rep->rows[i], pts + np, 4, hrefs[i], 0, labels + np);
    }
    cl_sb_append(sb, "<h2>Roofline</h2>\n<p class=\"meta\">Each point is a timed case of a submission, against "
                     "this GPU's measured ceilings.</p>\n");
    cl_roofline_svg(sb, pts, np, rep->copy_gbps, rep->fp16_tflops, title);
    free(pts);
    free(labels);
    free(hrefs);
}

int cl_class_html(const cl_class_report *rep, const char *dir, cl_err *err)
{
    if (write_student_pages(rep, dir, err))
        return -1;
    char title[300], path[CL_PATH_MAX];
    snprintf(title, sizeof title, "%s: class report", rep->lab);
    cl_strbuf sb;
    cl_sb_init(&sb);
    class_header(rep, title, &sb);
    verdict_chips(rep, &sb);
    class_table(rep, &sb);
    leaderboard(rep, &sb);
    class_roofline(rep, title, &sb);
    cl_sb_append(&sb, "</body></html>\n");
    cl_path_join(path, sizeof path, dir, "index.html");
    int rc = cl_write_file_atomic(path, sb.data, sb.len, err);
    cl_sb_free(&sb);
    return rc;
}
