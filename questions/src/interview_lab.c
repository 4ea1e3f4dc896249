/* interview_lab.c: the interview's coding exercise: listing labs (lab.yaml through
 * grader/labconf.h), choosing one for the track and level, and grading the workspace
 * with `cudalab test` in a child process when a GPU is present. */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "grader/labconf.h"
#include "paths.h"
#include "questions/interview.h"
#include "questions/rng.h"
#include "strbuf.h"

extern char **environ;

int cl_iv_list_labs(const char *home, cl_lab_brief **labs, int *n, cl_err *err)
{
    char **names = NULL;
    int count = 0;
    *labs = NULL;
    *n = 0;
    if (cl_lab_names(home, &names, &count, err))
        return -1;
    cl_lab_brief *out = calloc((size_t)(count ? count : 1), sizeof *out);
    if (!out) {
        cl_lab_names_free(names, count);
        return cl_err_set(err, "out of memory");
    }
    int k = 0;
    for (int i = 0; i < count; i++) {
        cl_lab *lab = calloc(1, sizeof *lab); /* large: keep it off the stack */
        cl_err e;
        if (!lab || cl_lab_load(home, names[i], lab, &e)) {
            free(lab);
            continue; /* a broken lab is lint's business; the interview picks another */
        }
        cl_lab_brief *b = &out[k++];
        snprintf(b->name, sizeof b->name, "%s", lab->name ? lab->name : names[i]);
        snprintf(b->title_en, sizeof b->title_en, "%s", lab->title.en ? lab->title.en : b->name);
        snprintf(b->title_zh, sizeof b->title_zh, "%s", lab->title.zh ? lab->title.zh : b->title_en);
        b->difficulty = lab->difficulty;
        for (int t = 0; t < lab->ntopics && t < 8; t++)
            snprintf(b->topics[b->ntopics++], sizeof b->topics[0], "%s", lab->topics[t]);
        cl_lab_free(lab);
        free(lab);
    }
    cl_lab_names_free(names, count);
    *labs = out;
    *n = k;
    return 0;
}

int cl_iv_pick_lab(const cl_lab_brief *labs, int n, cl_track t, int level, uint64_t seed)
{
    if (n <= 0)
        return -1;
    int best = -1;
    long best_key = 0;
    for (int i = 0; i < n; i++) {
        int pref = 50; /* not in the track's list */
        int p = 0;
        for (const char *const *l = cl_track_labs(t); *l; l++, p++)
            if (!strcmp(*l, labs[i].name)) {
                pref = p;
                break;
            }
        /* nearest difficulty first, then the track's preference, then a seeded tie-break */
        long key = (long)abs(labs[i].difficulty - level) * 100000 + (pref < 50 ? 0 : 50000) + pref * 100 +
                   (long)(cl_seed_mix(seed, (uint64_t)i) % 100);
        if (best < 0 || key < best_key) {
            best = i;
            best_key = key;
        }
    }
    return best;
}

static int run_quiet(char *const argv[])
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0)
        return -1;
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int cl_gpu_present(void)
{
    const char *force = getenv("CUDALAB_GPU");
    if (force && !strcmp(force, "0"))
        return 0;
    char *argv[] = {"nvidia-smi", "-L", NULL};
    return run_quiet(argv) == 0;
}

int cl_iv_grade_lab(const char *dir, FILE *out, char *verdict, size_t vn, char *note, size_t nn,
                    cl_err *err)
{
    char exe[CL_PATH_MAX];
    snprintf(exe, sizeof exe, "%s/cudalab", cl_exe_dir());
    int pipefd[2];
    if (pipe(pipefd))
        return cl_err_set(err, "pipe: %s", strerror(errno));
    fflush(out);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        close(pipefd[0]);
        close(pipefd[1]);
        return cl_err_set(err, "fork: %s", strerror(errno));
    }
    if (pid == 0) {
        /* the report comes back as JSON on stdout; progress and errors go to our stderr */
        if (chdir(dir) != 0)
            _exit(127);
        dup2(pipefd[1], STDOUT_FILENO);
        close(pipefd[0]);
        close(pipefd[1]);
        execl(exe, exe, "test", "--json", (char *)NULL);
        _exit(127);
    }
    close(pipefd[1]);
    cl_strbuf report;
    cl_sb_init(&report);
    char buf[4096];
    ssize_t got;
    while ((got = read(pipefd[0], buf, sizeof buf)) != 0) {
        if (got < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (report.len < (8u << 20))
            cl_sb_appendn(&report, buf, (size_t)got);
    }
    close(pipefd[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) {
            cl_sb_free(&report);
            return cl_err_set(err, "waitpid: %s", strerror(errno));
        }
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (code == 127) {
        cl_sb_free(&report);
        return cl_err_set(err, "could not run %s test in %s", exe, dir);
    }
    /* the verdict from the JSON report; the exit status when there is none */
    json_error_t jerr;
    json_t *j = json_loads(cl_sb_str(&report), 0, &jerr);
    const char *v = j ? json_string_value(json_object_get(j, "verdict")) : NULL;
    if (v) {
        const char *msg = json_string_value(json_object_get(j, "message"));
        json_int_t passed = json_integer_value(json_object_get(j, "passed"));
        json_int_t total = json_integer_value(json_object_get(j, "total"));
        snprintf(verdict, vn, "%s", v);
        if (total > 0)
            snprintf(note, nn, "%lld/%lld cases passed%s%.900s", (long long)passed, (long long)total,
                     msg && *msg ? "; " : "", msg ? msg : "");
        else
            snprintf(note, nn, "%.1000s", msg ? msg : "");
    } else {
        snprintf(verdict, vn, "%s", code == 0 ? "pass" : code == 1 ? "fail" : code == 3 ? "no_device" : "error");
        snprintf(note, nn, "cudalab test exited with status %d", code);
    }
    json_decref(j);
    cl_sb_free(&report);
    fprintf(out, "cudalab test: %s%s%s\n", verdict, *note ? " — " : "", note);
    return 0;
}
