/* cmd_watch.c: cudalab watch [LAB]: the edit-test loop in one window. Re-tests the
 * workspace's solution on every save (inotify on the workspace folder, not polling),
 * shows the first failing case (its mismatch report in short) and how far the student has come (cases passed, best tier
 * so far), and takes keys for the next hint, a bench and a submit. On a terminal the keys
 * act at once (raw mode); otherwise (--lines, or stdin not a terminal) one key a line.
 * Quits on q, Ctrl-C, or when the workspace disappears. Every test is recorded in the
 * history like a 'cudalab test'. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "grader/result.h"
#include "cli_grade.h"
#include "cli_help.h"
#include "cli_util.h"
#include "commands.h"
#include "db.h"
#include "grader/grade.h"
#include "grader/history.h"
#include "grader/proc.h"
#include "grader/mismatch.h"
#include "grader/workspace.h"
#include "term.h"

#define WATCH_ROWS 5 /* elements of the first failing case shown */

static volatile sig_atomic_t g_stop;
static volatile sig_atomic_t g_testing; /* a re-test is running: a signal ends it at once */
static struct termios g_saved_tty;
static int g_raw;

/* Ctrl-C, SIGTERM or SIGHUP: stop watching. A re-test in flight is killed (its result is
 * neither shown nor recorded); a bench or submit started by a key finishes first. */
static void on_signal(int sig)
{
    (void)sig;
    g_stop = 1;
    if (g_testing)
        cl_proc_stop_running();
}

static void raw_on(void)
{
    struct termios t;
    if (tcgetattr(STDIN_FILENO, &g_saved_tty))
        return;
    t = g_saved_tty;
    t.c_lflag &= ~(tcflag_t)(ICANON | ECHO); /* keys at once, unechoed; ISIG kept: Ctrl-C still quits */
    t.c_cc[VMIN] = 1;
    t.c_cc[VTIME] = 0;
    if (tcsetattr(STDIN_FILENO, TCSANOW, &t) == 0)
        g_raw = 1;
}

static void raw_off(void)
{
    if (g_raw)
        tcsetattr(STDIN_FILENO, TCSANOW, &g_saved_tty);
    g_raw = 0;
}

typedef struct watch {
    cl_workspace ws;
    const char *base;   /* the solution's file name */
    const char *runner; /* --runner (tests) */
    const char *arch;
    double timeout_s;
    int have_seed;
    uint64_t seed;
    int lines;          /* line mode */
    int runs;
    int best_passed;
} watch;

static void keys_line(const watch *w)
{
    FILE *f = stdout;
    printf("%s%s%s%s\n", cl_c(f, CL_DIM), CL_T("keys: h hint · b bench · s submit · t test again · q quit"),
           w->lines ? CL_T(" (then Enter)") : "", cl_c0(f));
    fflush(stdout);
}

/* The compact report of one test run: the first failing case, the progress. */
static void show(watch *w, const cl_result *r)
{
    FILE *f = stdout;
    const char *B = cl_c(f, CL_BOLD), *D = cl_c(f, CL_DIM), *Z = cl_c0(f);
    char now[16];
    time_t t = time(NULL);
    strftime(now, sizeof now, "%H:%M:%S", localtime(&t));
    if (!w->lines && isatty(STDOUT_FILENO))
        printf("\033[2J\033[H");
    printf(CL_T("%s== run %d: %s %s(%s)%s\n"), B, w->runs, w->base, D, now, Z);
    const cl_case_result *first = NULL;
    for (int i = 0; i < r->ncases && !first; i++)
        if (!r->cases[i].bench && r->cases[i].status && !cl_case_passed(r->cases[i].status))
            first = &r->cases[i];
    int ok = cl_verdict_ok(r->verdict);
    char verdict[64]; /* CORRECT in English; Chinese has no capitals: the verdict's own word */
    snprintf(verdict, sizeof verdict, "%s", CL_T(cl_verdict_name(r->verdict)));
    if (cl_lang_current() != CL_LANG_ZH)
        for (char *v = verdict; *v; v++)
            *v = (char)toupper((unsigned char)*v);
    printf("%s%s%s  %s\n", cl_c(f, ok ? CL_GREEN : CL_RED), verdict, Z,
           r->message ? cl_result_message(r) : "");
    if (first) {
        printf(CL_T("  first failing case: %s%s%s: %s\n"), B, first->name, Z, first->message ? first->message : first->status);
        if (first->where && first->has_values)
            printf(CL_T("    at %s: expected %.9g, got %.9g\n"), first->where, first->expected, first->got);
        if (first->mismatch) { /* what went wrong, in short: the first few elements, the largest, the guess */
            json_t *m = json_loads(first->mismatch, 0, NULL);
            cl_mismatch_print_lang(m, "    ", WATCH_ROWS, cl_lang_current(), stdout);
            json_decref(m);
        }
    } else if (!ok && r->detail) {
        /* a compile error and the like: its first lines */
        int lines = 0;
        for (const char *p = r->detail; *p && lines < 12; p++) {
            fputc(*p, stdout);
            lines += *p == '\n';
        }
        if (lines == 0) fputc('\n', stdout);
    }
    if (r->passed > w->best_passed)
        w->best_passed = r->passed;
    char tier[64];
    snprintf(tier, sizeof tier, "%s", CL_T("none yet (b to bench)"));
    sqlite3 *db;
    cl_err err;
    cl_lab_summary s;
    if (cl_db_open(NULL, &db, &err) == 0 && cl_history_summary(db, w->ws.lab, &s, &err) == 0 && s.best_tier[0])
        snprintf(tier, sizeof tier, "%s", s.best_tier);
    cl_db_close(db);
    printf(CL_T("  progress: %d/%d cases pass (best %d/%d) · best tier: %s\n"), r->passed, r->total, w->best_passed,
           r->total, tier);
    keys_line(w);
}

static void test_once(watch *w)
{
    cl_grade_opts o = {0};
    o.lab = w->ws.lab;
    o.solution = w->ws.solution;
    o.test = 1;
    o.arch = w->arch;
    o.runner = w->runner;
    o.allow_prebuilt = w->runner != NULL;
    o.timeout_s = w->timeout_s;
    o.have_seed = w->have_seed;
    o.seed = w->seed;
    if (!w->lines)
        o.progress = cl_cli_progress;
    char *source = NULL;
    size_t len = 0;
    cl_err err;
    if (cl_read_file(w->ws.solution, CL_HISTORY_SOURCE_MAX, &source, &len, &err)) {
        printf(CL_T("waiting for %s: %s\n"), w->base, err.msg);
        fflush(stdout);
        return;
    }
    w->runs++;
    cl_result r;
    g_testing = 1;
    int failed = cl_grade(&o, &r, &err);
    g_testing = 0;
    if (g_stop) { /* killed by the signal that stops the watch: not a result */
        cl_progress_clear();
        if (!failed)
            cl_result_free(&r);
    } else if (failed) {
        cl_progress_clear();
        cl_cli_error("watch", CL_T("%s"), err.msg);
    } else {
        cl_progress_clear();
        cl_cli_record(&r, "test", source, len, w->ws.dir, 0, 1);
        show(w, &r);
        cl_result_free(&r);
    }
    free(source);
}

/* b and s: the whole 'cudalab bench' / 'submit', as if typed in the workspace. */
static void run_command(watch *w, const char *cmd)
{
    char *args[8];
    int n = 0;
    args[n++] = (char *)cmd;
    if (w->runner && strcmp(cmd, "hint")) {
        args[n++] = "--runner";
        args[n++] = (char *)w->runner;
    }
    if (w->arch && strcmp(cmd, "hint")) {
        args[n++] = "--arch";
        args[n++] = (char *)w->arch;
    }
    args[n] = NULL;
    raw_off();
    printf("%s== %s%s\n", cl_c(stdout, CL_BOLD), cmd, cl_c0(stdout));
    fflush(stdout);
    if (!strcmp(cmd, "hint"))
        cmd_hint(n, args);
    else
        cl_cli_grade_main(n, args, !strcmp(cmd, "bench") ? CL_MODE_BENCH : CL_MODE_SUBMIT);
    if (!w->lines)
        raw_on();
    keys_line(w);
}

static void usage(FILE *f)
{
    cl_help_print_command(f, cl_command_find("watch"));
}

/* Reads the command line into w and *lab. Returns -1 to go on, else the exit code. */
static int parse_flags(int argc, char **argv, watch *w, const char **lab)
{
    static const struct option opts[] = {
        {"seed", required_argument, 0, 's'}, {"arch", required_argument, 0, 'a'},
        {"timeout", required_argument, 0, 't'}, {"lines", no_argument, 0, 'l'},
        {"runner", required_argument, 0, 'R'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int ch;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (ch) {
        case 's':
            if (cl_cli_seed(optarg, &w->seed))
                return 2;
            w->have_seed = 1;
            break;
        case 'a': w->arch = optarg; break;
        case 't':
            w->timeout_s = atof(optarg);
            if (w->timeout_s <= 0)
                return cl_cli_error("watch", "%s", CL_T("--timeout wants seconds > 0")), 2;
            break;
        case 'l': w->lines = 1; break;
        case 'R': w->runner = optarg; break; /* the test suite's host runner */
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (argc - optind > 1) {
        usage(stderr);
        return 2;
    }
    *lab = optind < argc ? argv[optind] : NULL;
    return -1;
}

/* Finds the workspace (of lab, when given) around the current folder and moves into it. */
static int enter_workspace(watch *w, const char *lab)
{
    cl_err err;
    int found = cl_workspace_find(".", &w->ws, &err);
    if (found < 0)
        return cl_cli_error("watch", CL_T("%s"), err.msg), 2;
    if (found != 0 || (lab && strcmp(lab, w->ws.lab))) {
        cl_cli_error("watch", CL_T("run it inside a workspace%s%s (cudalab fetch %s, then cd into it)"),
                     lab ? " of " : "", lab ? lab : "", lab ? lab : "<lab>");
        return 2;
    }
    if (chdir(w->ws.dir))
        return cl_cli_error("watch", CL_T("cannot enter %s"), w->ws.dir), 2;
    w->base = strrchr(w->ws.solution, '/') ? strrchr(w->ws.solution, '/') + 1 : w->ws.solution;
    return 0;
}

/* The inotify watches: the workspace for saves; its parent for the workspace itself going
 * away (a folder in use as a working directory may never report its own deletion). */
typedef struct watches {
    int fd, wd, wd_parent;
    char ws_name[CL_PATH_MAX]; /* the workspace's name in its parent */
} watches;

static int watches_open(const watch *w, watches *n)
{
    char parent[CL_PATH_MAX];
    snprintf(parent, sizeof parent, "%s", w->ws.dir);
    char *slash = strrchr(parent, '/');
    snprintf(n->ws_name, sizeof n->ws_name, "%s", slash ? w->ws.dir + (slash - parent) + 1 : w->ws.dir);
    if (slash)
        *(slash == parent ? slash + 1 : slash) = '\0';
    n->wd_parent = -1;
    n->fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
    n->wd = n->fd < 0 ? -1
                      : inotify_add_watch(n->fd, w->ws.dir, IN_CLOSE_WRITE | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF);
    if (n->wd >= 0 && slash)
        n->wd_parent = inotify_add_watch(n->fd, parent, IN_DELETE | IN_MOVED_FROM | IN_ONLYDIR);
    if (n->fd < 0 || n->wd < 0) {
        cl_cli_error("watch", CL_T("cannot watch %s: %s"), w->ws.dir, strerror(errno));
        if (n->fd >= 0)
            close(n->fd);
        return 2;
    }
    return 0;
}

/* Reads the pending events: a save is often several (write, close, rename), so those of
 * the next 100 ms count as the same one. Returns 1 when the solution changed; *gone when
 * the workspace went away. */
static int watches_read(const watch *w, const watches *n, int *gone)
{
    int changed = 0;
    for (;;) {
        char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
        ssize_t len = read(n->fd, buf, sizeof buf);
        if (len <= 0) {
            struct pollfd q = {n->fd, POLLIN, 0};
            if (poll(&q, 1, 100) > 0)
                continue;
            break;
        }
        for (char *q = buf; q < buf + len;) {
            struct inotify_event *ev = (struct inotify_event *)q;
            if (ev->wd == n->wd_parent) {
                if (ev->len && !strcmp(ev->name, n->ws_name))
                    *gone = 1;
            } else if (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED))
                *gone = 1;
            else if (ev->len && !strcmp(ev->name, w->base))
                changed = 1;
            q += sizeof *ev + ev->len;
        }
    }
    if (!cl_dir_exists(w->ws.dir))
        *gone = 1;
    return changed;
}

static void catch_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal; /* no SA_RESTART: poll returns at once */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

/* Keys typed one a line (--lines): collects a line, then its first character counts. */
typedef struct key_line {
    char text[256];
    size_t len;
} key_line;

/* Reads one byte of stdin and acts on the key it completes. Returns 0, or -1 at the end
 * of stdin (no more keys; the watching goes on). */
static int read_key(watch *w, key_line *kl)
{
    char c;
    if (read(STDIN_FILENO, &c, 1) <= 0)
        return -1;
    if (w->lines) {
        if (c != '\n') {
            if (kl->len < sizeof kl->text - 1)
                kl->text[kl->len++] = c;
            return 0;
        }
        kl->text[kl->len] = '\0';
        c = kl->len ? kl->text[0] : ' ';
        kl->len = 0;
    }
    switch (c) {
    case 'q': g_stop = 1; break;
    case 'h': run_command(w, "hint"); break;
    case 'b': run_command(w, "bench"); break;
    case 's': run_command(w, "submit"); break;
    case 't': test_once(w); break;
    case ' ': break;
    default: keys_line(w);
    }
    return 0;
}

int cmd_watch(int argc, char **argv)
{
    watch w;
    memset(&w, 0, sizeof w);
    const char *lab;
    int rc = parse_flags(argc, argv, &w, &lab);
    if (rc >= 0)
        return rc;
    if (enter_workspace(&w, lab))
        return 2;
    if (!isatty(STDIN_FILENO))
        w.lines = 1;
    watches n;
    if (watches_open(&w, &n))
        return 2;
    catch_signals();
    if (!w.lines)
        raw_on();
    printf(CL_T("watching %s in %s\n"), w.base, w.ws.dir);
    test_once(&w);

    int stdin_open = 1, gone = 0;
    key_line kl = {{0}, 0};
    while (!g_stop && !gone) {
        struct pollfd p[2] = {{n.fd, POLLIN, 0}, {STDIN_FILENO, POLLIN, 0}};
        if (poll(p, stdin_open ? 2 : 1, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if ((p[0].revents & POLLIN) && watches_read(&w, &n, &gone) && !gone)
            test_once(&w);
        if (!gone && stdin_open && (p[1].revents & (POLLIN | POLLHUP)) && read_key(&w, &kl) < 0)
            stdin_open = 0;
    }
    raw_off();
    close(n.fd);
    if (gone)
        printf(CL_T("the workspace %s is gone; stopped watching.\n"), w.ws.dir);
    else
        printf("%s\n", CL_T("stopped watching."));
    return 0;
}
