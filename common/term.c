/* term.c: colour decisions and the transient progress line. */
#include "term.h"

#include <stdarg.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

static int g_no_color = -1;
static int g_progress_shown;

void cl_term_init(int force_no_color)
{
    const char *nc = getenv("NO_COLOR");
    g_no_color = force_no_color || (nc && *nc);
}

int cl_term_color_on(FILE *f)
{
    if (g_no_color < 0)
        cl_term_init(0);
    if (g_no_color)
        return 0;
    const char *term = getenv("TERM");
    if (term && !*term)
        return 0;
    if (term && !__builtin_strcmp(term, "dumb"))
        return 0;
    return isatty(fileno(f));
}

const char *cl_c(FILE *f, cl_color c)
{
    static const char *codes[] = {"", "\033[1m", "\033[2m", "\033[31m", "\033[32m",
                                  "\033[33m", "\033[34m", "\033[36m"};
    if (!cl_term_color_on(f))
        return "";
    return codes[c];
}

const char *cl_c0(FILE *f) { return cl_term_color_on(f) ? "\033[0m" : ""; }

void cl_progress(const char *fmt, ...)
{
    if (!isatty(STDERR_FILENO))
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("\r\033[2K", stderr);
    if (!g_no_color && cl_term_color_on(stderr))
        fputs("\033[2m", stderr);
    vfprintf(stderr, fmt, ap);
    if (!g_no_color && cl_term_color_on(stderr))
        fputs("\033[0m", stderr);
    va_end(ap);
    fflush(stderr);
    g_progress_shown = 1;
}

void cl_progress_clear(void)
{
    if (!g_progress_shown)
        return;
    fputs("\r\033[2K", stderr);
    fflush(stderr);
    g_progress_shown = 0;
}

int cl_term_width(FILE *f, int fallback)
{
    struct winsize ws;
    if (isatty(fileno(f)) && ioctl(fileno(f), TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
        return ws.ws_col;
    const char *c = getenv("COLUMNS");
    int w = c ? atoi(c) : 0;
    return w >= 20 ? w : fallback;
}
