/* cmd_exam.c: `cudalab exam`: classroom exams: the same paper for the same seed, answers
 * on a plain-text sheet, graded offline into CSV. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_help.h"
#include "cli_util.h"
#include "commands.h"
#include "questions/exam.h"
#include "questions/frontend.h"
#include "questions/select.h"

static void usage(FILE *f)
{
    cl_help_print_command(f, cl_command_find("exam"));
}

static int grade_sheets(const cl_bank *bank, char **files, int nfiles, const char *csv, int long_format)
{
    FILE *out = csv ? fopen(csv, "w") : stdout;
    if (!out)
        return cl_cli_error("exam", CL_T("cannot write %s"), csv), 2;
    cl_err err;
    int graded, bad = cl_exam_gradebook(bank, files, nfiles, out, long_format, stderr, &graded, &err);
    if (out != stdout && fclose(out) != 0 && bad >= 0)
        bad = cl_err_set(&err, "cannot write %s", csv);
    if (bad < 0)
        return cl_cli_error("exam", "%s", err.msg), 2;
    if (csv) {
        fputs("cudalab exam: ", stderr);
        fprintf(stderr, CL_T("graded %d sheet%s into %s%s\n"), graded,
                cl_lang_current() == CL_LANG_ZH || graded == 1 ? "" : "s", csv,
                bad ? CL_T("; the sheets reported above were left out") : "");
    }
    return bad ? 1 : 0;
}

/* Letters (any script), digits, . _ - @; not empty, not starting with '.', no "..". */
/* An id names files and CSV rows: no path separator, no "..", no control character (what
 * looks like a spreadsheet formula is defused where the CSV is written). */
static int student_id_ok(const char *s)
{
    if (!*s || *s == '.' || strstr(s, ".."))
        return 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7f || *p == '/' || *p == '\\')
            return 0;
    return 1;
}

/* What the command line asked for. */
typedef struct exam_flags {
    cl_exam_spec spec;
    const char *seed, *student, *out, *answers, *blank, *csv, *bank;
    int paper, key, grade, long_format;
} exam_flags;

/* Reads the command line into f (the sheets of --grade stay at argv[optind...]).
 * Returns -1 to go on, else the exit code. */
static int parse_flags(int argc, char **argv, exam_flags *f)
{
    static const struct option opts[] = {
        {"seed", required_argument, NULL, 's'},    {"n", required_argument, NULL, 'n'},
        {"topic", required_argument, NULL, 't'},   {"difficulty", required_argument, NULL, 'd'},
        {"student", required_argument, NULL, 'u'}, {"out", required_argument, NULL, 'o'},
        {"answers", required_argument, NULL, 'a'}, {"paper", no_argument, NULL, 'P'},
        {"key", no_argument, NULL, 'K'},           {"blank", required_argument, NULL, 'B'},
        {"grade", no_argument, NULL, 'G'},         {"csv", required_argument, NULL, 'c'},
        {"long", no_argument, NULL, 'L'},          {"lang", required_argument, NULL, 'l'},
        {"bank", required_argument, NULL, 'b'},    {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    memset(f, 0, sizeof *f);
    f->spec.n = 20;
    f->spec.dmin = 1;
    f->spec.dmax = 5;
    int c;
    cl_err err;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 's': f->seed = optarg; break;
        case 'n':
            if (cl_qf_int(optarg, "--n", 1, 1000, &f->spec.n, &err))
                return cl_cli_error("exam", "%s", err.msg), 2;
            break;
        case 't': {
            size_t len = strlen(f->spec.topics);
            snprintf(f->spec.topics + len, sizeof f->spec.topics - len, "%s%s", len ? "," : "", optarg);
            break;
        }
        case 'd':
            if (cl_parse_difficulty(optarg, &f->spec.dmin, &f->spec.dmax, &err))
                return cl_cli_error("exam", "%s", err.msg), 2;
            break;
        case 'u': f->student = optarg; break;
        case 'o': f->out = optarg; break;
        case 'a': f->answers = optarg; break;
        case 'P': f->paper = 1; break;
        case 'K': f->key = 1; break;
        case 'B': f->blank = optarg; break;
        case 'G': f->grade = 1; break;
        case 'c': f->csv = optarg; break;
        case 'L': f->long_format = 1; break;
        case 'l': break; /* --lang is global: main has set it */
        case 'b': f->bank = optarg; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (!f->grade && optind < argc)
        return cl_cli_error("exam", CL_T("unexpected argument '%s'"), argv[optind]), usage(stderr), 2;
    if (f->grade && optind >= argc)
        return cl_cli_error("exam", CL_T("--grade needs answer sheets")), 2;
    if (!f->grade && !f->seed)
        return cl_cli_error("exam", CL_T("--seed is required (the class shares it)")), usage(stderr), 2;
    /* the student id names the answer sheet (exam-SEED-ID.txt): no folders, no way out of this one */
    if (f->student && !student_id_ok(f->student))
        return cl_cli_error("exam", CL_T("--student '%s' is not an id — use letters, digits, '.', '_', '-' or '@' "
                                         "(no '/' or '..')"), f->student), CL_EXIT_USAGE;
    if (f->key && !f->paper)
        return cl_cli_error("exam", CL_T("--key goes with --paper")), 2;
    if (f->seed && cl_qf_seed(f->seed, &f->spec.seed, &err))
        return cl_cli_error("exam", "%s", err.msg), 2;
    return -1;
}

/* --paper: the paper (with --key, the answers) on stdout or --out. */
static int print_paper(const cl_paper *p, const exam_flags *f)
{
    FILE *out = f->out ? fopen(f->out, "w") : stdout;
    if (!out) {
        cl_cli_error("exam", CL_T("cannot write %s: %s — check the folder and its permissions"), f->out, strerror(errno));
        return 2;
    }
    cl_paper_print(out, p, cl_lang_current(), f->key);
    if (out != stdout && fclose(out) != 0) {
        cl_cli_error("exam", CL_T("cannot write %s: %s — check the folder and its permissions"), f->out, strerror(errno));
        return 2;
    }
    return 0;
}

/* Sits the exam: each answer is saved to the sheet as it is given; no feedback. */
static int take_exam(const cl_paper *p, const exam_flags *f, const char *student)
{
    char def[512];
    snprintf(def, sizeof def, "exam-%llu-%s.txt", (unsigned long long)f->spec.seed, student);
    const char *sheet = f->out ? f->out : def;
    FILE *in;
    cl_err err;
    if (cl_qf_open_input(f->answers, &in, &err))
        return cl_cli_error("exam", "%s", err.msg), 2;
    cl_io io;
    cl_io_init(&io, in, stdout, cl_lang_current(), 0);
    io.feedback = 0;
    printf(CL_T("Exam · seed %llu · %d questions · answers are saved to %s after each one.\nNo feedback until the sheet is graded (cudalab exam --grade).\n"),
           (unsigned long long)f->spec.seed, p->n, sheet);
    int answered, rc = 0;
    if (cl_exam_take(p, &io, student, sheet, &answered, &err)) {
        cl_cli_error("exam", "%s", err.msg);
        rc = 2;
    } else {
        printf(CL_T("\n%d of %d answered; the sheet is %s\n"), answered, p->n, sheet);
    }
    cl_qf_close_input(in);
    return rc;
}

int cmd_exam(int argc, char **argv)
{
    exam_flags f;
    int rc = parse_flags(argc, argv, &f);
    if (rc >= 0)
        return rc;
    char dir[4096];
    cl_err err;
    cl_qf_bank_dir(f.bank, dir, sizeof dir);
    cl_bank bank;
    if (cl_qf_load_bank(dir, 1, stderr, &bank, &err))
        return cl_cli_error("exam", "%s", err.msg), 2;
    if (f.grade) {
        rc = grade_sheets(&bank, argv + optind, argc - optind, f.csv, f.long_format);
        cl_bank_free(&bank);
        return rc;
    }
    cl_paper p;
    if (cl_paper_make(&bank, &f.spec, &p, &err)) {
        cl_bank_free(&bank);
        return cl_cli_error("exam", "%s", err.msg), 2;
    }
    const char *student = f.student && *f.student ? f.student
                          : getenv("USER") && *getenv("USER") ? getenv("USER") : "student";
    if (f.paper)
        rc = print_paper(&p, &f);
    else if (f.blank) {
        rc = cl_sheet_write(f.blank, &p, student, NULL, &err) ? 2 : 0;
        if (rc)
            cl_cli_error("exam", "%s", err.msg);
        else
            cl_cli_error("exam", CL_T("blank sheet for %d questions written to %s"), p.n, f.blank);
    } else {
        rc = take_exam(&p, &f, student);
    }
    cl_paper_free(&p);
    cl_bank_free(&bank);
    return rc;
}
