/* exam_sheet.c: the exam's answer sheet (write, read with file:line errors) and
 * sitting the exam interactively or from a script. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "paths.h"
#include "questions/exam.h"
#include "strbuf.h"
#include "term.h"

int cl_sheet_write(const char *path, const cl_paper *p, const char *student, char *const *answers,
                   cl_err *err)
{
    cl_strbuf sb;
    cl_sb_init(&sb);
    cl_sb_append(&sb, "# cudalab exam answers: one line per question, \"<number> <id>: <answer>\".\n"
                      "# Change only the answers; an empty answer scores 0. Grade with\n"
                      "#   cudalab exam --grade <sheets...> --csv grades.csv\n");
    cl_sb_printf(&sb, "cudalab-exam: 1\nseed: %" PRIu64 "\nn: %d\ntopics: %s\ndifficulty: %d-%d\n"
                      "bank: %016" PRIx64 "\nstudent: %s\n",
                 p->spec.seed, p->n, p->spec.topics[0] ? p->spec.topics : "all", p->spec.dmin,
                 p->spec.dmax, p->fingerprint, student ? student : "");
    for (int i = 0; i < p->n; i++) {
        const char *a = answers && answers[i] ? answers[i] : "";
        /* one line per answer: a newline inside an answer would end it */
        char clean[2048];
        size_t o = 0;
        for (const char *c = a; *c && o + 1 < sizeof clean; c++)
            clean[o++] = (*c == '\n' || *c == '\r') ? ' ' : *c;
        clean[o] = '\0';
        cl_sb_printf(&sb, "%d %s:%s%s\n", i + 1, p->items[i].q.id, *clean ? " " : "", clean);
    }
    int rc = cl_write_file_atomic(path, cl_sb_str(&sb), sb.len, err);
    cl_sb_free(&sb);
    return rc;
}

void cl_sheet_free(cl_answer_sheet *s)
{
    for (int i = 0; i < s->nrows; i++)
        free(s->rows[i].answer);
    free(s->rows);
    memset(s, 0, sizeof *s);
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

static int parse_u64(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || *s == '-')
        return -1;
    *out = v;
    return 0;
}

static int read_header(cl_answer_sheet *s, int line, const char *key, char *val, int *version,
                       cl_err *err)
{
    uint64_t v;
    if (!strcmp(key, "cudalab-exam")) {
        if (strcmp(val, "1"))
            return cl_err_set(err, "%s:%d: this sheet is format %s; this cudalab reads format 1", s->path, line, val);
        *version = 1;
    } else if (!strcmp(key, "seed")) {
        if (parse_u64(val, &s->spec.seed))
            return cl_err_set(err, "%s:%d: seed must be a non-negative integer, not '%s'", s->path, line, val);
    } else if (!strcmp(key, "n")) {
        if (parse_u64(val, &v) || v < 1 || v > 10000)
            return cl_err_set(err, "%s:%d: n must be a positive integer, not '%s'", s->path, line, val);
        s->spec.n = (int)v;
    } else if (!strcmp(key, "topics")) {
        snprintf(s->spec.topics, sizeof s->spec.topics, "%s", strcmp(val, "all") ? val : "");
    } else if (!strcmp(key, "difficulty")) {
        if (sscanf(val, "%d-%d", &s->spec.dmin, &s->spec.dmax) != 2 || s->spec.dmin < 1 ||
            s->spec.dmax > 5 || s->spec.dmin > s->spec.dmax)
            return cl_err_set(err, "%s:%d: difficulty must look like 1-5, not '%s'", s->path, line, val);
    } else if (!strcmp(key, "bank")) {
        char *end;
        s->fingerprint = strtoull(val, &end, 16);
        if (*end || !*val)
            return cl_err_set(err, "%s:%d: bank must be a hexadecimal fingerprint, not '%s'", s->path, line, val);
    } else if (!strcmp(key, "student")) {
        snprintf(s->student, sizeof s->student, "%s", val);
    } else {
        return cl_err_set(err, "%s:%d: unknown header '%s' (expected cudalab-exam, seed, n, topics, "
                               "difficulty, bank, student)", s->path, line, key);
    }
    return 0;
}

int cl_sheet_read(const char *path, cl_answer_sheet *s, cl_err *err)
{
    memset(s, 0, sizeof *s);
    snprintf(s->path, sizeof s->path, "%s", path);
    s->spec.dmin = 1;
    s->spec.dmax = 5;
    char *text;
    size_t len;
    if (cl_read_file(path, 4u << 20, &text, &len, err))
        return -1;
    int version = 0, have_seed = 0, have_n = 0, cap = 0, line = 0;
    int rc = 0;
    /* strtok_r would merge empty lines and lose line numbers: walk by hand */
    char *p = text;
    if (!strncmp(p, "\xEF\xBB\xBF", 3)) /* saved by an editor that marks UTF-8 */
        p += 3;
    while (*p && rc == 0) {
        line++;
        char *nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        char *l = trim(p);
        p = nl ? nl + 1 : p + strlen(p);
        if (!*l || *l == '#')
            continue;
        if (isdigit((unsigned char)*l)) {
            char *end;
            long num = strtol(l, &end, 10);
            char *colon = strchr(end, ':');
            if (!isspace((unsigned char)*end) || !colon) {
                rc = cl_err_set(err, "%s:%d: expected \"<number> <id>: <answer>\"", path, line);
                break;
            }
            *colon = '\0';
            char *id = trim(end);
            if (num < 1 || num > 10000 || !*id || strlen(id) >= sizeof s->rows[0].id) {
                rc = cl_err_set(err, "%s:%d: expected \"<number> <id>: <answer>\"", path, line);
                break;
            }
            for (int i = 0; i < s->nrows; i++)
                if (s->rows[i].number == num) {
                    rc = cl_err_set(err, "%s:%d: question %ld is answered twice (first at line %d)", path,
                                    line, num, s->rows[i].line);
                    break;
                }
            if (rc)
                break;
            if (s->nrows == cap) {
                cap = cap ? cap * 2 : 32;
                cl_sheet_row *nr = realloc(s->rows, sizeof *nr * (size_t)cap);
                if (!nr) {
                    rc = cl_err_set(err, "out of memory");
                    break;
                }
                s->rows = nr;
            }
            cl_sheet_row *r = &s->rows[s->nrows++];
            r->number = (int)num;
            snprintf(r->id, sizeof r->id, "%s", id);
            r->answer = strdup(trim(colon + 1));
            r->line = line;
            continue;
        }
        char *colon = strchr(l, ':');
        if (!colon) {
            rc = cl_err_set(err, "%s:%d: expected \"key: value\" or \"<number> <id>: <answer>\"", path, line);
            break;
        }
        *colon = '\0';
        char *key = trim(l), *val = trim(colon + 1);
        have_seed |= !strcmp(key, "seed");
        have_n |= !strcmp(key, "n");
        rc = read_header(s, line, key, val, &version, err);
    }
    free(text);
    if (rc == 0 && (!version || !have_seed || !have_n))
        rc = cl_err_set(err, "%s: not a cudalab answer sheet (needs the cudalab-exam, seed and n headers)", path);
    if (rc == 0)
        for (int i = 0; i < s->nrows; i++)
            if (s->rows[i].number > s->spec.n) {
                rc = cl_err_set(err, "%s:%d: question %d, but the paper has %d", path, s->rows[i].line,
                                s->rows[i].number, s->spec.n);
                break;
            }
    if (rc)
        cl_sheet_free(s);
    return rc;
}

int cl_exam_take(const cl_paper *p, cl_io *io, const char *student, const char *path, int *answered,
                 cl_err *err)
{
    *answered = 0;
    char **answers = calloc((size_t)p->n, sizeof *answers);
    if (!answers)
        return cl_err_set(err, "out of memory");
    int rc = 0, resumed = 0;
    if (cl_file_exists(path)) {
        cl_answer_sheet old;
        if (cl_sheet_read(path, &old, err)) {
            free(answers);
            return cl_err_wrap(err, "%s exists and is not a readable answer sheet: choose another --out", path);
        }
        if (!cl_spec_same(&old.spec, &p->spec) || strcmp(old.student, student ? student : "")) {
            cl_sheet_free(&old);
            free(answers);
            return cl_err_set(err, "%s holds another paper's or another student's answers: choose another --out",
                              path);
        }
        for (int r = 0; r < old.nrows; r++) {
            int i = old.rows[r].number - 1;
            if (strcmp(old.rows[r].id, p->items[i].q.id)) {
                cl_sheet_free(&old);
                for (int k = 0; k < p->n; k++)
                    free(answers[k]);
                free(answers);
                return cl_err_set(err, "%s:%d: question %d is not '%s' on this paper: choose another --out", path,
                                  old.rows[r].line, i + 1, p->items[i].q.id);
            }
            if (old.rows[r].answer[0] && !answers[i]) {
                answers[i] = strdup(old.rows[r].answer);
                resumed++;
            }
        }
        cl_sheet_free(&old);
        if (resumed)
            fprintf(io->out, CL_TR(io->lang, "Resuming: %d answer%s already on %s.\n",
                                   "继续作答：已有 %d 个答案%s，保存在 %s。\n"),
                    resumed, CL_TR(io->lang, resumed == 1 ? "" : "s", ""), path);
    }
    rc = cl_sheet_write(path, p, student, answers, err);
    for (int i = 0; i < p->n && rc == 0; i++) {
        if (answers[i])
            continue;
        char header[256];
        snprintf(header, sizeof header, CL_TR(io->lang, "[%d/%d] %s · difficulty %d · %s",
                                                      "[%d/%d] %s · 难度 %d · %s"),
                 i + 1, p->n, p->items[i].q.topic, p->items[i].q.difficulty, p->items[i].q.id);
        cl_asked a;
        if (cl_ask(io, &p->items[i], header, &a))
            break;
        answers[i] = strdup(a.answer);
        rc = cl_sheet_write(path, p, student, answers, err);
    }
    for (int i = 0; i < p->n; i++) {
        *answered += answers[i] && answers[i][0];
        free(answers[i]);
    }
    free(answers);
    return rc;
}
