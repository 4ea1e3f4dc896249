/* cmd_watch.c: cudalab watch [LAB]: the edit-test loop in one window. Re-tests the
 * workspace's solution on every save (inotify on the workspace folder, not polling),
 * shows the first failing case and how far the student has come (cases passed, best tier
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
#include "cli_util.h"
#include "commands.h"
#include "db.h"
#include "grader/grade.h"
#include "grader/history.h"
#include "grader/workspace.h"
#include "term.h"

static volatile sig_atomic_t g_stop;
static struct termios g_saved_tty;
static int g_raw;

static void on_signal(int sig)
{
    (void)sig;
    g_stop = 1;
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
    printf("%skeys: h hint · b bench · s submit · t test again · q quit%s%s\n", cl_c(f, CL_DIM),
           w->lines ? " (then Enter)" : "", cl_c0(f));
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
    printf("%s== run %d: %s %s(%s)%s\n", B, w->runs, w->base, D, now, Z);
    const cl_case_result *first = NULL;
    for (int i = 0; i < r->ncases && !first; i++)
        if (!r->cases[i].bench && r->cases[i].status && !cl_case_passed(r->cases[i].status))
            first = &r->cases[i];
    int ok = cl_verdict_ok(r->verdict);
    char verdict[32];
    snprintf(verdict, sizeof verdict, "%s", cl_verdict_name(r->verdict));
    for (char *v = verdict; *v; v++)
        *v = (char)toupper((unsigned char)*v);
    printf("%s%s%s  %s\n", cl_c(f, ok ? CL_GREEN : CL_RED), verdict, Z,
           r->message ? r->message : "");
    if (first) {
        printf("  first failing case: %s%s%s: %s\n", B, first->name, Z, first->message ? first->message : first->status);
        if (first->where && first->has_values)
            printf("    at %s: expected %.9g, got %.9g\n", first->where, first->expected, first->got);
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
    char tier[32] = "none yet (b to bench)";
    sqlite3 *db;
    cl_err err;
    cl_lab_summary s;
    if (cl_db_open(NULL, &db, &err) == 0 && cl_history_summary(db, w->ws.lab, &s, &err) == 0 && s.best_tier[0])
        snprintf(tier, sizeof tier, "%s", s.best_tier);
    cl_db_close(db);
    printf("  progress: %d/%d cases pass (best %d/%d) · best tier: %s\n", r->passed, r->total, w->best_passed,
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
        printf("waiting for %s: %s\n", w->base, err.msg);
        fflush(stdout);
        return;
    }
    w->runs++;
    cl_result r;
    if (cl_grade(&o, &r, &err)) {
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
    fprintf(f, "usage: cudalab watch [LAB] [--seed N] [--arch sm_XY] [--timeout S] [--lines]\n"
               "  Inside a workspace: tests your solution on every save and shows the first\n"
               "  failing case and your progress. Keys: h next hint, b bench, s submit,\n"
               "  t test again, q quit (Ctrl-C quits too). --lines reads one key per line\n"
               "  (the default when stdin is not a terminal). Each test is recorded ('cudalab log').\n");
}

int cmd_watch(int argc, char **argv)
{
    static const struct option opts[] = {
        {"seed", required_argument, 0, 's'}, {"arch", required_argument, 0, 'a'},
        {"timeout", required_argument, 0, 't'}, {"lines", no_argument, 0, 'l'},
        {"runner", required_argument, 0, 'R'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    watch w;
    memset(&w, 0, sizeof w);
    int ch;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (ch) {
        case 's':
            if (cl_cli_seed(optarg, &w.seed))
                return 2;
            w.have_seed = 1;
            break;
        case 'a': w.arch = optarg; break;
        case 't':
            w.timeout_s = atof(optarg);
            if (w.timeout_s <= 0) {
                cl_cli_error("watch", "%s", CL_T("--timeout wants seconds > 0"));
                return 2;
            }
            break;
        case 'l': w.lines = 1; break;
        case 'R': w.runner = optarg; break; /* the test suite's host runner */
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (argc - optind > 1) {
        usage(stderr);
        return 2;
    }
    cl_err err;
    int found = cl_workspace_find(".", &w.ws, &err);
    if (found < 0) {
        cl_cli_error("watch", CL_T("%s"), err.msg);
        return 2;
    }
    const char *lab = optind < argc ? argv[optind] : NULL;
    if (found != 0 || (lab && strcmp(lab, w.ws.lab))) {
        cl_cli_error("watch", CL_T("run it inside a workspace%s%s (cudalab fetch %s, then cd into it)"),
                lab ? " of " : "", lab ? lab : "", lab ? lab : "<lab>");
        return 2;
    }
    if (chdir(w.ws.dir)) {
        cl_cli_error("watch", CL_T("cannot enter %s"), w.ws.dir);
        return 2;
    }
    w.base = strrchr(w.ws.solution, '/') ? strrchr(w.ws.solution, '/') + 1 : w.ws.solution;
    if (!isatty(STDIN_FILENO))
        w.lines = 1;

    /* the workspace for saves; its parent for the workspace itself going away (a folder
     * in use as a working directory may never report its own deletion) */
    char parent[CL_PATH_MAX];
    snprintf(parent, sizeof parent, "%s", w.ws.dir);
    char *slash = strrchr(parent, '/');
    const char *ws_name = slash ? w.ws.dir + (slash - parent) + 1 : w.ws.dir;
    if (slash)
        *(slash == parent ? slash + 1 : slash) = '\0';
    int ifd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK), wd_parent = -1;
    int wd = ifd < 0 ? -1 : inotify_add_watch(ifd, w.ws.dir, IN_CLOSE_WRITE | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF);
    if (wd >= 0 && slash)
        wd_parent = inotify_add_watch(ifd, parent, IN_DELETE | IN_MOVED_FROM | IN_ONLYDIR);
    if (ifd < 0 || wd < 0) {
        cl_cli_error("watch", CL_T("cannot watch %s: %s"), w.ws.dir, strerror(errno));
        if (ifd >= 0) close(ifd);
        return 2;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal; /* no SA_RESTART: poll returns at once */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    if (!w.lines)
        raw_on();
    printf("watching %s in %s\n", w.base, w.ws.dir);
    test_once(&w);

    int rc = 0, stdin_open = 1, gone = 0;
    char line[256];
    size_t line_len = 0;
    while (!g_stop && !gone) {
        struct pollfd p[2] = {{ifd, POLLIN, 0}, {STDIN_FILENO, POLLIN, 0}};
        int n = poll(p, stdin_open ? 2 : 1, -1);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (p[0].revents & POLLIN) {
            /* a save is often several events (write, close, rename): take all of them, and
             * those of the next 100 ms, as one */
            int changed = 0;
            for (;;) {
                char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
                ssize_t len = read(ifd, buf, sizeof buf);
                if (len <= 0) {
                    struct pollfd q = {ifd, POLLIN, 0};
                    if (poll(&q, 1, 100) > 0)
                        continue;
                    break;
                }
                for (char *q = buf; q < buf + len;) {
                    struct inotify_event *ev = (struct inotify_event *)q;
                    if (ev->wd == wd_parent) {
                        if (ev->len && !strcmp(ev->name, ws_name))
                            gone = 1;
                    } else if (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED))
                        gone = 1;
                    else if (ev->len && !strcmp(ev->name, w.base))
                        changed = 1;
                    q += sizeof *ev + ev->len;
                }
            }
            if (gone || !cl_dir_exists(w.ws.dir)) {
                gone = 1;
                break;
            }
            if (changed)
                test_once(&w);
        }
        if (stdin_open && (p[1].revents & (POLLIN | POLLHUP))) {
            char c;
            ssize_t got = read(STDIN_FILENO, &c, 1);
            if (got <= 0) {
                stdin_open = 0; /* no more keys; keep watching */
                continue;
            }
            if (w.lines) {
                if (c != '\n') {
                    if (line_len < sizeof line - 1) line[line_len++] = c;
                    continue;
                }
                line[line_len] = '\0';
                c = line_len ? line[0] : ' ';
                line_len = 0;
            }
            switch (c) {
            case 'q': g_stop = 1; break;
            case 'h': run_command(&w, "hint"); break;
            case 'b': run_command(&w, "bench"); break;
            case 's': run_command(&w, "submit"); break;
            case 't': test_once(&w); break;
            case ' ': break;
            default:
                keys_line(&w);
            }
        }
    }
    raw_off();
    close(ifd);
    if (gone) {
        printf("the workspace %s is gone; stopped watching.\n", w.ws.dir);
    } else {
        printf("stopped watching.\n");
    }
    return rc;
}
