/* exam_grade.c: scoring answer sheets against their paper and writing the gradebook. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "questions/exam.h"

int cl_sheet_grade(const cl_paper *p, const cl_answer_sheet *s, double *scores, cl_err *err)
{
    for (int i = 0; i < p->n; i++)
        scores[i] = 0;
    for (int r = 0; r < s->nrows; r++) {
        const cl_sheet_row *row = &s->rows[r];
        const cl_shown *item = &p->items[row->number - 1];
        if (strcmp(row->id, item->q.id))
            return cl_err_set(err, "%s:%d: question %d of this paper is '%s', the sheet says '%s' (was "
                                   "the paper drawn from another version of the bank?)",
                              s->path, row->line, row->number, item->q.id, row->id);
        cl_grade g;
        cl_grade_answer(item, row->answer, CL_LANG_EN, &g);
        scores[row->number - 1] = g.score;
    }
    return 0;
}

/* A cell a spreadsheet would run as a formula (=, +, -, @, tab, CR first; a plain number
 * is not one): it gets a leading apostrophe, the usual defence against CSV injection. */
static int formula_like(const char *s)
{
    if (!strchr("=+-@\t\r", s[0]) || !s[0])
        return 0;
    char *end;
    strtod(s, &end);
    return end == s || *end != '\0';
}

void cl_csv_field(FILE *f, const char *s)
{
    if (!s)
        s = "";
    int guard = formula_like(s);
    if (!guard && !strpbrk(s, ",\"\r\n") && s[0] != ' ' && (!*s || s[strlen(s) - 1] != ' ')) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    if (guard)
        fputc('\'', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static const char *student_of(const cl_answer_sheet *s)
{
    if (s->student[0])
        return s->student;
    const char *base = strrchr(s->path, '/');
    return base ? base + 1 : s->path;
}

static const char *answer_given(const cl_answer_sheet *s, int number)
{
    for (int r = 0; r < s->nrows; r++)
        if (s->rows[r].number == number)
            return s->rows[r].answer;
    return "";
}

int cl_exam_write_csv(FILE *f, const cl_paper *const *papers, const cl_answer_sheet *sheets,
                      int nsheets, double *const *scores, int long_format, cl_err *err)
{
    if (long_format) {
        fputs("student,file,seed,number,id,topic,type,difficulty,score,answer,expected\n", f);
        for (int k = 0; k < nsheets; k++) {
            const cl_paper *p = papers[k];
            for (int i = 0; i < p->n; i++) {
                const cl_shown *it = &p->items[i];
                char key[2048];
                cl_answer_key(it, CL_LANG_EN, key, sizeof key);
                cl_csv_field(f, student_of(&sheets[k]));
                fputc(',', f);
                cl_csv_field(f, sheets[k].path);
                fprintf(f, ",%" PRIu64 ",%d,", p->spec.seed, i + 1);
                cl_csv_field(f, it->q.id);
                fputc(',', f);
                cl_csv_field(f, it->q.topic);
                fprintf(f, ",%s,%d,%.4g,", cl_qtype_name(it->q.type), it->q.difficulty, scores[k][i]);
                cl_csv_field(f, answer_given(&sheets[k], i + 1));
                fputc(',', f);
                cl_csv_field(f, key);
                fputc('\n', f);
            }
        }
        return 0;
    }
    for (int k = 1; k < nsheets; k++)
        if (!cl_spec_same(&papers[k]->spec, &papers[0]->spec))
            return cl_err_set(err, "%s and %s come from different papers (seed or selection differ): "
                                   "grade them separately or use --long",
                              sheets[0].path, sheets[k].path);
    const cl_paper *p = nsheets ? papers[0] : NULL;
    fputs("student,file,seed,score,max,percent", f);
    for (int i = 0; p && i < p->n; i++) {
        char col[256];
        snprintf(col, sizeof col, "%d:%s", i + 1, p->items[i].q.id);
        fputc(',', f);
        cl_csv_field(f, col);
    }
    fputc('\n', f);
    for (int k = 0; k < nsheets; k++) {
        double total = 0;
        for (int i = 0; i < p->n; i++)
            total += scores[k][i];
        cl_csv_field(f, student_of(&sheets[k]));
        fputc(',', f);
        cl_csv_field(f, sheets[k].path);
        fprintf(f, ",%" PRIu64 ",%.4g,%d,%.1f", p->spec.seed, total, p->n, 100.0 * total / p->n);
        for (int i = 0; i < p->n; i++)
            fprintf(f, ",%.4g", scores[k][i]);
        fputc('\n', f);
    }
    return 0;
}

int cl_exam_gradebook(const cl_bank *b, char *const *files, int nfiles, FILE *out, int long_format,
                      FILE *warn, int *graded, cl_err *err)
{
    *graded = 0;
    cl_answer_sheet *sheets = calloc((size_t)(nfiles ? nfiles : 1), sizeof *sheets);
    cl_paper *papers = calloc((size_t)(nfiles ? nfiles : 1), sizeof *papers);
    const cl_paper **pp = calloc((size_t)(nfiles ? nfiles : 1), sizeof *pp);
    double **scores = calloc((size_t)(nfiles ? nfiles : 1), sizeof *scores);
    if (!sheets || !papers || !pp || !scores) {
        free(sheets), free(papers), free(pp), free(scores);
        return cl_err_set(err, "out of memory");
    }
    int good = 0, bad = 0;
    uint64_t fp = cl_bank_fingerprint(b);
    for (int i = 0; i < nfiles; i++) {
        cl_err e;
        cl_answer_sheet *s = &sheets[good];
        if (cl_sheet_read(files[i], s, &e)) {
            fprintf(warn, "%s\n", e.msg);
            bad++;
            continue;
        }
        if (s->fingerprint && s->fingerprint != fp)
            fprintf(warn, "warning: %s: the question bank changed since this paper was drawn (bank %016" PRIx64
                          ", now %016" PRIx64 "); grading against the current bank\n",
                    files[i], s->fingerprint, fp);
        if (cl_paper_make(b, &s->spec, &papers[good], &e) ||
            !(scores[good] = calloc((size_t)papers[good].n, sizeof(double))) ||
            cl_sheet_grade(&papers[good], s, scores[good], &e)) {
            fprintf(warn, "%s: %s\n", files[i], e.msg);
            free(scores[good]);
            scores[good] = NULL;
            cl_paper_free(&papers[good]);
            cl_sheet_free(s);
            bad++;
            continue;
        }
        pp[good] = &papers[good];
        good++;
    }
    for (int i = 0; i < good; i++) /* one student, two sheets: both graded, and said */
        for (int j = 0; j < i; j++)
            if (!strcmp(student_of(&sheets[i]), student_of(&sheets[j])))
                fprintf(warn, "warning: two sheets from student '%s' (%s and %s): both are graded; keep the one "
                              "that counts\n", student_of(&sheets[i]), sheets[j].path, sheets[i].path);
    int rc = bad;
    if (good && cl_exam_write_csv(out, pp, sheets, good, scores, long_format, err))
        rc = -1;
    else if (!good)
        rc = cl_err_set(err, "no sheet could be graded");
    *graded = rc < 0 ? 0 : good;
    for (int i = 0; i < good; i++) {
        free(scores[i]);
        cl_paper_free(&papers[i]);
        cl_sheet_free(&sheets[i]);
    }
    free(sheets), free(papers), free(pp), free(scores);
    return rc;
}
