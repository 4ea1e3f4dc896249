/* ask.h: showing a question, reading the answer, and giving feedback: the one place
 * where quiz, review, interview and exam talk to a person.
 *
 * Input is line-based plain stdio, so the same code serves a terminal (re-prompts on an
 * unreadable answer, asks for a self-rating) and a script (--answers FILE or a pipe:
 * each line is the next answer; an unreadable one counts as wrong and the run goes on).
 * Special inputs: an empty line skips the question, ":q" ends the session, end of input
 * ends it too. */
#ifndef CUDALAB_Q_ASK_H
#define CUDALAB_Q_ASK_H

#include <stddef.h>
#include <stdio.h>

#include "questions/grade.h"
#include "questions/srs.h"

typedef struct cl_io {
    FILE *in, *out;
    cl_lang lang;
    int interactive; /* in is a terminal */
    int rate;        /* after a right answer, ask how hard it felt */
    int feedback;    /* show right/wrong and the explanation (exams: 0) */
} cl_io;

/* rate: 1 on, 0 off, -1 on when in is a terminal. */
void cl_io_init(cl_io *io, FILE *in, FILE *out, cl_lang lang, int rate);

typedef struct cl_asked {
    cl_grade grade;
    char answer[2048];
    char expected[512]; /* the expected answer, filled by cl_session_ask (for scorecards) */
    cl_rating rating;
    double seconds;
    int end; /* the person asked to stop (":q") or the input ended */
} cl_asked;

/* Reads one line (without the newline) into buf. Returns 0, or -1 at end of input. */
int cl_io_read_line(cl_io *io, char *buf, size_t n);

/* Prints the question: a header line, the prompt, the choices or the shuffled items. */
void cl_show_question(const cl_io *io, const cl_shown *s, const char *header);

/* Shows s (with header), reads and grades an answer. Returns 0 when graded (a skip
 * is graded 0), 1 when the session should end before this question counted. */
int cl_ask(cl_io *io, const cl_shown *s, const char *header, cl_asked *out);

/* Right / partly right / wrong, the expected answer, the explanation and references. */
void cl_show_feedback(const cl_io *io, const cl_shown *s, const cl_asked *a);

/* Sets a->rating: the self-rating when io->rate and the answer was right, else the
 * rating the score earns. May set a->end (input ended at the rating prompt). */
void cl_ask_rating(cl_io *io, cl_asked *a);

/* The one-line expected answer with its text ("b) 32", "a, c", "32 way", ...). */
void cl_expected_text(const cl_shown *s, cl_lang lang, char *out, size_t n);

#endif
