/* remote.c: grading over ssh and/or srun: the script, the transfer, the report back. */
#include "grader/remote.h"

#include <jansson.h>
#include <nettle/base64.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grader/proc.h"
#include "grader/report.h"
#include "strbuf.h"

#define REPORT_MARK "@@cudalab-report@@"
#define MAX_WORDS 64

/* 'text' for POSIX sh, every ' as '\'' */
static void shq(cl_strbuf *sb, const char *s)
{
    cl_sb_appendn(sb, (char[]){'\''}, 1);
    for (; *s; s++) {
        if (*s == '\'')
            cl_sb_append(sb, "'\\''");
        else
            cl_sb_appendn(sb, (char[]){*s}, 1);
    }
    cl_sb_appendn(sb, (char[]){'\''}, 1);
}

char *cl_remote_script(const cl_remote_opts *o)
{
    cl_strbuf cmd;
    cl_sb_init(&cmd);
    const char *cudalab = o->cudalab ? o->cudalab : getenv("CUDALAB_REMOTE_CUDALAB");
    cl_sb_append(&cmd, cudalab && *cudalab ? cudalab : "cudalab"); /* a command line: may hold env settings */
    cl_sb_appendn(&cmd, (char[]){' '}, 1);
    shq(&cmd, o->mode);
    cl_sb_appendn(&cmd, (char[]){' '}, 1);
    shq(&cmd, o->lab);
    if (o->reference)
        cl_sb_append(&cmd, " --reference");
    else if (o->skeleton)
        cl_sb_append(&cmd, " --skeleton");
    else {
        cl_sb_append(&cmd, " \"$d\"/");
        shq(&cmd, o->solution_name);
    }
    cl_sb_append(&cmd, " --json");
    if (o->have_seed)
        cl_sb_printf(&cmd, " --seed %llu", (unsigned long long)o->seed);
    if (o->arch) {
        cl_sb_append(&cmd, " --arch ");
        shq(&cmd, o->arch);
    }
    if (o->timeout_s > 0)
        cl_sb_printf(&cmd, " --timeout %g", o->timeout_s);
    if (o->sanitize)
        cl_sb_append(&cmd, " --sanitize");
    if (o->no_reference)
        cl_sb_append(&cmd, " --no-reference");
    if (o->runner) {
        cl_sb_append(&cmd, " --runner ");
        shq(&cmd, o->runner);
    }

    cl_strbuf sb;
    cl_sb_init(&sb);
    cl_sb_append(&sb, "d=$(mktemp -d \"${TMPDIR:-/tmp}/cudalab-remote.XXXXXX\") || exit 90\n"
                   "trap 'rm -rf \"$d\"' EXIT\n");
    if (!o->reference && !o->skeleton) {
        cl_sb_append(&sb, "base64 -d > \"$d\"/");
        shq(&sb, o->solution_name);
        cl_sb_append(&sb, " || exit 91\n");
    }
    cl_sb_append(&sb, "cd \"$d\" || exit 92\n");
    cl_sb_append(&sb, cmd.data);
    /* the log on stdout, before the mark: ssh carries stdout and stderr on two channels in
     * no fixed order, and a log on stderr could arrive after the mark (and be lost) */
    cl_sb_append(&sb, " > \"$d/.report\" 2> \"$d/.log\"\n"
                   "cat \"$d/.log\"\n"
                   "echo " REPORT_MARK "\n"
                   "cat \"$d/.report\"\n"
                   /* 0 whatever the verdict (the report carries it): srun may drop a failed
                    * task's output */
                   "exit 0\n");
    cl_sb_free(&cmd);
    return cl_sb_take(&sb);
}

/* Splits s on blanks into argv words (no quoting: ssh and srun options need none). */
static int split_words(char *s, char **argv, int max)
{
    int n = 0;
    for (char *tok = strtok(s, " \t"); tok && n < max; tok = strtok(NULL, " \t"))
        argv[n++] = tok;
    return n;
}

static char *base64(const char *data, size_t len)
{
    char *out = malloc(BASE64_ENCODE_RAW_LENGTH(len) + 2);
    if (!out)
        return NULL;
    base64_encode_raw(out, len, (const uint8_t *)data);
    size_t n = BASE64_ENCODE_RAW_LENGTH(len);
    out[n] = '\n';
    out[n + 1] = '\0';
    return out;
}

int cl_remote_grade(const cl_remote_opts *o, cl_result *r, cl_err *err)
{
    cl_result_init(r);
    char *script = cl_remote_script(o);
    char *ssh_words = strdup(o->ssh ? o->ssh : getenv("CUDALAB_SSH") && *getenv("CUDALAB_SSH") ? getenv("CUDALAB_SSH") : "ssh");
    char *slurm_words = strdup(o->slurm_args ? o->slurm_args : "--gres=gpu:1");
    char *argv[3 * MAX_WORDS + 8];
    int n = 0;
    cl_strbuf remote;
    cl_sb_init(&remote);
    if (o->host) {
        n += split_words(ssh_words, argv + n, MAX_WORDS);
        argv[n++] = "-o";
        argv[n++] = "BatchMode=yes"; /* never a password prompt in the middle of grading */
        argv[n++] = "--";
        argv[n++] = (char *)o->host;
        /* ssh hands one string to the remote login shell */
        if (o->slurm) {
            cl_sb_append(&remote, "srun ");
            cl_sb_append(&remote, o->slurm_args ? o->slurm_args : "--gres=gpu:1");
            cl_sb_append(&remote, " ");
        }
        cl_sb_append(&remote, "sh -c ");
        shq(&remote, script);
        argv[n++] = remote.data;
    } else {
        argv[n++] = "srun";
        n += split_words(slurm_words, argv + n, MAX_WORDS);
        argv[n++] = "sh";
        argv[n++] = "-c";
        argv[n++] = script;
    }
    argv[n] = NULL;
    char *input = o->source ? base64(o->source, o->source_len) : NULL;
    cl_proc_opts po = {0};
    po.argv = argv;
    po.stdin_data = input ? input : "";
    po.timeout_s = o->wall_s > 0 ? o->wall_s : 3600;
    po.output_cap = 32u << 20;
    cl_proc_result pr;
    int rc = cl_proc_run(&po, &pr, err);
    const char *what = o->host ? (o->slurm ? "ssh + srun" : "ssh") : "srun";
    if (rc) {
        cl_err_wrap(err, "cannot start %s", what);
    } else {
        const char *mark = pr.output ? strstr(pr.output, REPORT_MARK "\n") : NULL;
        json_error_t je;
        json_t *j = mark ? json_loads(mark + strlen(REPORT_MARK) + 1, 0, &je) : NULL;
        if (!j) {
            char how[256];
            cl_proc_describe(&pr, po.timeout_s, how, sizeof how);
            /* what the remote side said: ssh's or srun's error, or cudalab's */
            size_t len = mark ? (size_t)(mark - pr.output) : pr.output_len;
            const char *out = pr.output ? pr.output : "";
            if (len > 1500) {
                out += len - 1500;
                len = 1500;
            }
            rc = cl_err_set(err, "%s (%s): no report came back%s%.*s", what, how, len ? ":\n" : "", (int)len, out);
        } else {
            cl_result_from_json(j, r);
            /* what was asked of it (the JSON report does not say) */
            r->did_test = 1;
            r->did_bench = strcmp(o->mode, "test") != 0;
            r->did_sanitize = o->sanitize;
            if (mark > pr.output) { /* the remote cudalab's messages, kept for the detail */
                char *log = strndup(pr.output, (size_t)(mark - pr.output));
                if (log && *log && !r->detail)
                    r->detail = log;
                else
                    free(log);
            }
            json_decref(j);
        }
    }
    cl_proc_result_free(&pr);
    cl_sb_free(&remote);
    free(input);
    free(script);
    free(ssh_words);
    free(slurm_words);
    return rc;
}
