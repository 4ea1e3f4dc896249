/* term.h: coloured, concise terminal output.
 *
 * Colour only when the stream is a terminal and NO_COLOR is unset (https://no-color.org),
 * or never when --no-color was given. Progress lines go to stderr, only on a terminal,
 * and are erased by the next ordinary line. */
#ifndef CUDALAB_TERM_H
#define CUDALAB_TERM_H

#include <stdio.h>

typedef enum { CL_NONE, CL_BOLD, CL_DIM, CL_RED, CL_GREEN, CL_YELLOW, CL_BLUE, CL_CYAN } cl_color;

/* Call once with the --no-color flag; the rest asks this module. */
void cl_term_init(int force_no_color);
int cl_term_color_on(FILE *f);
/* The escape sequence for c on f ("" when colour is off), and the reset. */
const char *cl_c(FILE *f, cl_color c);
const char *cl_c0(FILE *f);

/* Columns available on f: the terminal's width, else $COLUMNS, else fallback. */
int cl_term_width(FILE *f, int fallback);

/* A transient status line on stderr ("compiling reduce.cu…"); no-op off a terminal. */
void cl_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cl_progress_clear(void);

#endif
