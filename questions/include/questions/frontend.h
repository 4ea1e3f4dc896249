/* frontend.h: what every question command does before its real work: find and load
 * the bank (warning about bad questions), open the progress database, pick the seed,
 * the clock and the answer stream. Kept here so that cli/cmd_*.c only parse and print. */
#ifndef CUDALAB_Q_FRONTEND_H
#define CUDALAB_Q_FRONTEND_H

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>

#include "err.h"
#include "questions/bank.h"

/* The bank folder: flag if given, else $CUDALAB_HOME-or-install/questions. */
void cl_qf_bank_dir(const char *flag, char *out, size_t n);
/* Loads the bank. Each problem is printed to warn as "warning: file:line:col: ..."; with
 * strict any problem fails (an exam must not silently lose a question). */
int cl_qf_load_bank(const char *dir, int strict, FILE *warn, cl_bank *b, cl_err *err);
/* Opens the progress database and creates the question tables. */
int cl_qf_open_db(sqlite3 **db, cl_err *err);
/* Unix seconds: $CUDALAB_NOW when set (tests), else the clock. */
int64_t cl_qf_now(void);
/* The seed: flag parsed (decimal), else one from the clock and the pid. */
int cl_qf_seed(const char *flag, uint64_t *seed, cl_err *err);
/* The answer stream: NULL or "-" is stdin, else the file (closed with cl_qf_close_input). */
int cl_qf_open_input(const char *path, FILE **in, cl_err *err);
void cl_qf_close_input(FILE *in);
/* Parses a positive int option ("--n 10"). */
int cl_qf_int(const char *s, const char *what, int lo, int hi, int *out, cl_err *err);

#endif
