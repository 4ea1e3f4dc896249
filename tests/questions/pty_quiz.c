/* pty_quiz.c: drives `cudalab quiz` through a pseudo-terminal, the way a person would:
 * waits for each prompt, types, and checks what a terminal user sees (colour, a
 * re-prompt after an unreadable answer, the self-rating question, Chinese text).
 *
 *   test_q_pty <cudalab> <fixture bank folder>
 * Exits 0 when every expectation held; prints the transcript on failure. */
#include <errno.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct session {
    int fd;
    pid_t pid;
    char out[65536];
    size_t len, seen; /* bytes read; bytes already matched by expect */
} session;

static int failures;

static void fail(session *s, const char *what)
{
    fprintf(stderr, "FAIL: %s\n--- transcript ---\n%.*s\n--- end ---\n", what, (int)s->len, s->out);
    failures++;
}

static int spawn(session *s, char *const argv[])
{
    memset(s, 0, sizeof *s);
    struct winsize ws = {40, 120, 0, 0};
    s->pid = forkpty(&s->fd, NULL, NULL, &ws);
    if (s->pid < 0) {
        perror("forkpty");
        return -1;
    }
    if (s->pid == 0) {
        unsetenv("NO_COLOR"); /* a terminal: colour is expected */
        setenv("TERM", "xterm", 1);
        execv(argv[0], argv);
        perror("execv");
        _exit(127);
    }
    return 0;
}

/* Reads until needle appears after what earlier expects consumed, or 10 s pass. */
static int expect(session *s, const char *needle)
{
    time_t end = time(NULL) + 10;
    for (;;) {
        s->out[s->len] = '\0';
        char *hit = strstr(s->out + s->seen, needle);
        if (hit) {
            s->seen = (size_t)(hit - s->out) + strlen(needle);
            return 0;
        }
        int left = (int)(end - time(NULL));
        if (left <= 0 || s->len + 1 >= sizeof s->out)
            break;
        struct pollfd p = {s->fd, POLLIN, 0};
        if (poll(&p, 1, left * 1000) <= 0)
            break;
        ssize_t n = read(s->fd, s->out + s->len, sizeof s->out - 1 - s->len);
        if (n <= 0)
            break; /* EIO: the child closed the terminal */
        s->len += (size_t)n;
    }
    char msg[256];
    snprintf(msg, sizeof msg, "expected to see \"%s\"", needle);
    fail(s, msg);
    return -1;
}

static void type(session *s, const char *text)
{
    size_t n = strlen(text);
    if (write(s->fd, text, n) != (ssize_t)n)
        perror("write");
}

static int finish(session *s)
{
    /* drain until the child exits, then reap it */
    for (;;) {
        struct pollfd p = {s->fd, POLLIN, 0};
        if (poll(&p, 1, 10000) <= 0)
            break;
        ssize_t n = read(s->fd, s->out + s->len, sizeof s->out - 1 - s->len);
        if (n <= 0)
            break;
        s->len += (size_t)n;
    }
    s->out[s->len] = '\0';
    close(s->fd);
    int status = 0;
    for (int i = 0; i < 100; i++) {
        pid_t r = waitpid(s->pid, &status, WNOHANG);
        if (r == s->pid)
            return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
        usleep(100000);
    }
    kill(s->pid, SIGKILL);
    waitpid(s->pid, &status, 0);
    fail(s, "the quiz did not exit");
    return -1;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s <cudalab> <bank>\n", argv[0]);
        return 2;
    }
    char *exe = argv[1], *bank = argv[2];
    session s;
    /* a fresh progress database: earlier runs must not change what this one sees */
    char dir[] = "/tmp/cl-qpty.XXXXXX", db[64];
    if (!mkdtemp(dir))
        return perror("mkdtemp"), 1;
    snprintf(db, sizeof db, "%s/progress.db", dir);
    setenv("CUDALAB_DB", db, 1);
    setenv("XDG_DATA_HOME", dir, 1);
    setenv("XDG_CACHE_HOME", dir, 1);

    /* 1. a single-choice question: a bad answer is re-asked, a right one is green, and
     *    a terminal user is asked how it felt ("h" puts it in the review deck) */
    char *quiz1[] = {exe, "quiz", "--bank", bank, "--id", "fx-mem-banks", "--seed", "1", "--lang", "en", NULL};
    if (spawn(&s, quiz1))
        return 1;
    expect(&s, "How many banks");
    expect(&s, "c)");
    expect(&s, "> ");
    type(&s, "zz\r");
    expect(&s, "'z' is not a choice");
    expect(&s, "> "); /* asked again, not counted */
    type(&s, "b\r");
    expect(&s, "\033[32m"); /* green on a terminal */
    expect(&s, "Right.");
    expect(&s, "How did it feel?");
    type(&s, "h\r");
    expect(&s, "added to your review deck");
    expect(&s, "Score:");
    expect(&s, "1.0/1 (100%)");
    if (finish(&s) != 0)
        fail(&s, "quiz 1 exited with an error");
    if (strstr(s.out, "Wrong."))
        fail(&s, "the unreadable answer was graded");

    /* 2. Chinese, an order question shown shuffled, and :q to stop early */
    char *quiz2[] = {exe, "quiz", "--bank", bank, "--id", "fx-warp-launch-order,fx-warp-size", "--seed", "3",
                     "--lang", "zh", NULL};
    if (spawn(&s, quiz2))
        return 1;
    expect(&s, "[1/2]");
    expect(&s, "> ");
    if (strstr(s.out, "把一次 kernel 启动的步骤排好顺序")) {
        if (!strstr(s.out, "d)"))
            fail(&s, "four items were not shown");
        type(&s, "abcd\r");
        expect(&s, "答案："); /* never the identity order: "abcd" cannot be right */
    } else {
        if (!strstr(s.out, "一个 warp 有多少个线程"))
            fail(&s, "neither question was shown in Chinese");
        type(&s, "16\r");
        expect(&s, "错误");
    }
    expect(&s, "[2/2]");
    expect(&s, "> ");
    type(&s, ":q\r");
    expect(&s, "得分");
    if (finish(&s) != 0)
        fail(&s, "quiz 2 exited with an error");

    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    if (failures)
        fprintf(stderr, "%d expectation%s failed\n", failures, failures == 1 ? "" : "s");
    else
        printf("pty quiz: ok\n");
    return failures ? 1 : 0;
}
