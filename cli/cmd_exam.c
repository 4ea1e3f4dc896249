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
    if (csv)
        fprintf(stderr, "cudalab exam: graded %d sheet%s into %s%s\n", graded, graded == 1 ? "" : "s", csv,
                bad ? "; the sheets reported above were left out" : "");
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

int cmd_exam(int argc, char **argv)
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
    cl_exam_spec spec;
    memset(&spec, 0, sizeof spec);
    spec.n = 20;
    spec.dmin = 1;
    spec.dmax = 5;
    const char *seed_flag = NULL, *student = NULL, *out = NULL, *answers = NULL, *blank = NULL;
    const char *csv = NULL, *lang_flag = NULL, *bank_flag = NULL;
    int paper = 0, key = 0, grade = 0, long_format = 0, c;
    cl_err err;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 's': seed_flag = optarg; break;
        case 'n':
            if (cl_qf_int(optarg, "--n", 1, 1000, &spec.n, &err))
                return cl_cli_error("exam", "%s", err.msg), 2;
            break;
        case 't': {
            size_t len = strlen(spec.topics);
            snprintf(spec.topics + len, sizeof spec.topics - len, "%s%s", len ? "," : "", optarg);
            break;
        }
        case 'd':
            if (cl_parse_difficulty(optarg, &spec.dmin, &spec.dmax, &err))
                return cl_cli_error("exam", "%s", err.msg), 2;
            break;
        case 'u': student = optarg; break;
        case 'o': out = optarg; break;
        case 'a': answers = optarg; break;
        case 'P': paper = 1; break;
        case 'K': key = 1; break;
        case 'B': blank = optarg; break;
        case 'G': grade = 1; break;
        case 'c': csv = optarg; break;
        case 'L': long_format = 1; break;
        case 'l': lang_flag = optarg; break;
        case 'b': bank_flag = optarg; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (!grade && optind < argc)
        return cl_cli_error("exam", CL_T("unexpected argument '%s'"), argv[optind]), usage(stderr), 2;
    if (grade && optind >= argc)
        return cl_cli_error("exam", CL_T("--grade needs answer sheets")), 2;
    if (!grade && !seed_flag)
        return cl_cli_error("exam", CL_T("--seed is required (the class shares it)")), usage(stderr), 2;
    /* the student id names the answer sheet (exam-SEED-ID.txt): no folders, no way out of this one */
    if (student && !student_id_ok(student))
        return cl_cli_error("exam", CL_T("--student '%s' is not an id — use letters, digits, '.', '_', '-' or '@' "
                                         "(no '/' or '..')"), student), CL_EXIT_USAGE;
    if (key && !paper)
        return cl_cli_error("exam", CL_T("--key goes with --paper")), 2;
    cl_lang lang = cl_lang_current(); /* --lang is global: main has set it */
    (void)lang_flag;
    if (seed_flag && cl_qf_seed(seed_flag, &spec.seed, &err))
        return cl_cli_error("exam", "%s", err.msg), 2;

    char dir[4096];
    cl_qf_bank_dir(bank_flag, dir, sizeof dir);
    cl_bank bank;
    if (cl_qf_load_bank(dir, 1, stderr, &bank, &err))
        return cl_cli_error("exam", "%s", err.msg), 2;
    if (grade) {
        int rc = grade_sheets(&bank, argv + optind, argc - optind, csv, long_format);
        cl_bank_free(&bank);
        return rc;
    }
    cl_paper p;
    if (cl_paper_make(&bank, &spec, &p, &err)) {
        cl_bank_free(&bank);
        return cl_cli_error("exam", "%s", err.msg), 2;
    }
    if (!student || !*student)
        student = getenv("USER") && *getenv("USER") ? getenv("USER") : "student";
    int rc = 0;
    if (paper) {
        FILE *f = out ? fopen(out, "w") : stdout;
        if (!f) {
            cl_cli_error("exam", CL_T("cannot write %s: %s — check the folder and its permissions"), out,
                         strerror(errno));
            rc = 2;
        } else {
            cl_paper_print(f, &p, lang, key);
            if (f != stdout && fclose(f) != 0)
                cl_cli_error("exam", CL_T("cannot write %s: %s — check the folder and its permissions"), out,
                             strerror(errno)), rc = 2;
        }
    } else if (blank) {
        if (cl_sheet_write(blank, &p, student, NULL, &err))
            cl_cli_error("exam", "%s", err.msg), rc = 2;
        else
            cl_cli_error("exam", CL_T("blank sheet for %d questions written to %s"), p.n, blank);
    } else {
        char def[512];
        snprintf(def, sizeof def, "exam-%llu-%s.txt", (unsigned long long)spec.seed, student);
        const char *sheet = out ? out : def;
        FILE *in;
        if (cl_qf_open_input(answers, &in, &err)) {
            cl_cli_error("exam", "%s", err.msg);
            rc = 2;
        } else {
            cl_io io;
            cl_io_init(&io, in, stdout, lang, 0);
            io.feedback = 0;
            printf(cl_tr_lang(lang, "Exam · seed %llu · %d questions · answers are saved to %s after each one.\nNo feedback until the sheet is graded (cudalab exam --grade).\n"),
                   (unsigned long long)spec.seed, p.n, sheet);
            int answered;
            if (cl_exam_take(&p, &io, student, sheet, &answered, &err)) {
                cl_cli_error("exam", "%s", err.msg);
                rc = 2;
            } else {
                printf(cl_tr_lang(lang, "\n%d of %d answered; the sheet is %s\n"),
                       answered, p.n, sheet);
            }
            cl_qf_close_input(in);
        }
    }
    cl_paper_free(&p);
    cl_bank_free(&bank);
    return rc;
}
