/* report_csv.c: the gradebook as CSV, one row per student, for spreadsheets and LMS imports.
 *
 * RFC 4180 quoting. Text a student controls (names, messages) never starts a cell with
 * =, +, -, @, tab or CR: a spreadsheet would run it as a formula, so such cells get a
 * leading apostrophe (the usual defence against CSV injection). */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "grader/classroom.h"
#include "strbuf.h"

static void cell(cl_strbuf *sb, const char *s, int text)
{
    if (!s)
        s = "";
    int quote = strpbrk(s, ",\"\r\n") != NULL;
    int guard = text && (s[0] == '=' || s[0] == '+' || s[0] == '-' || s[0] == '@' || s[0] == '\t' || s[0] == '\r');
    if (guard)
        quote = 1;
    if (quote)
        cl_sb_append(sb, "\"");
    if (guard)
        cl_sb_append(sb, "'");
    for (const char *p = s; *p; p++) {
        if (*p == '"')
            cl_sb_append(sb, "\"\"");
        else
            cl_sb_appendn(sb, p, 1);
    }
    if (quote)
        cl_sb_append(sb, "\"");
}

static void num(cl_strbuf *sb, double v, const char *fmt)
{
    char buf[64];
    snprintf(buf, sizeof buf, fmt, v);
    cl_sb_append(sb, buf);
}

int cl_class_csv(const cl_class_report *rep, const char *path, cl_err *err)
{
    cl_strbuf sb;
    cl_sb_init(&sb);
    cl_sb_append(&sb, "student,name,email,lab,verdict,score,max_score,raw_score,late_days,penalty,tier,metric,"
                      "metric_unit,of_ceiling,submission,sha256,graded_at,message\r\n");
    for (int i = 0; i < rep->nrows; i++) {
        const cl_grade_row *r = &rep->rows[i];
        cell(&sb, r->student, 1);
        cl_sb_append(&sb, ",");
        cell(&sb, r->name, 1);
        cl_sb_append(&sb, ",");
        cell(&sb, r->email, 1);
        cl_sb_append(&sb, ",");
        cell(&sb, r->lab, 1);
        cl_sb_append(&sb, ",");
        cell(&sb, r->verdict, 0);
        cl_sb_append(&sb, ",");
        int scored = cl_grade_row_scored(r); /* not graded: no score, never a 0 */
        if (scored)
            num(&sb, r->score, "%.2f");
        cl_sb_append(&sb, ",");
        num(&sb, r->max_score, "%.0f");
        cl_sb_append(&sb, ",");
        if (scored)
            num(&sb, r->raw_score, "%.2f");
        cl_sb_append(&sb, ",");
        num(&sb, r->late_days, "%.0f");
        cl_sb_append(&sb, ",");
        num(&sb, r->penalty, "%.3f");
        cl_sb_append(&sb, ",");
        cell(&sb, r->tier, 0);
        cl_sb_append(&sb, ",");
        if (r->metric > 0)
            num(&sb, r->metric, "%.6g");
        cl_sb_append(&sb, ",");
        cell(&sb, r->metric > 0 ? r->metric_unit : "", 0);
        cl_sb_append(&sb, ",");
        if (r->fraction > 0)
            num(&sb, r->fraction, "%.4f");
        cl_sb_append(&sb, ",");
        cell(&sb, r->submission, 1);
        cl_sb_append(&sb, ",");
        cell(&sb, r->sha256, 0);
        cl_sb_append(&sb, ",");
        if (r->graded_at > 0) {
            char t[32];
            time_t tt = (time_t)r->graded_at;
            strftime(t, sizeof t, "%Y-%m-%dT%H:%M:%SZ", gmtime(&tt));
            cl_sb_append(&sb, t);
        }
        cl_sb_append(&sb, ",");
        cell(&sb, r->message, 1);
        cl_sb_append(&sb, "\r\n");
    }
    int rc = cl_write_file_atomic(path, sb.data, sb.len, err);
    cl_sb_free(&sb);
    return rc;
}
