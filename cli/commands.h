/* commands.h: the command table: every cudalab command, its arguments, summary and flags.
 *
 * The table (cli/command_table.c) is the one source for the parser in main.c (which
 * flags a command accepts, which take a value, global flags anywhere), `cudalab help`,
 * `-h/--help`, did-you-mean, shell completion and the man page (cli/cli_help.c). Adding a
 * command is one row there plus its cli/cmd_<name>.c; texts are English, their Chinese is
 * in common/i18n_catalogue.inc.
 *
 * Each command parses its own (already validated) arguments and returns an exit code from
 * the table below; main strips the global flags --lang and --no-color before it runs, and
 * passes --json on (wherever it was typed) to commands marked CL_CMD_JSON. */
#ifndef CUDALAB_COMMANDS_H
#define CUDALAB_COMMANDS_H

/* Exit codes, the same for every command (README, `cudalab help`). */
enum {
    CL_EXIT_OK = 0,       /* success */
    CL_EXIT_FAILED = 1,   /* the solution, answer or check failed */
    CL_EXIT_USAGE = 2,    /* the command line was wrong */
    CL_EXIT_ENV = 3,      /* no GPU, no nvcc, an unwritable folder: the environment */
    CL_EXIT_INTERNAL = 4, /* cudalab itself failed (a bug, or its data is broken) */
};

typedef struct cl_flag {
    const char *name;  /* long name without dashes: "seed" */
    const char *arg;   /* the value's placeholder ("N"), or NULL for a switch */
    const char *help;  /* one line, English */
} cl_flag;

enum { CL_CMD_JSON = 1, CL_CMD_HIDDEN = 2 };

typedef struct cl_command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *args;      /* positional arguments: "[LAB] [FILE]", or "" */
    const char *summary;   /* one line, English */
    const char *about;     /* a paragraph for --help, or NULL */
    const cl_flag *flags;  /* ends with {NULL}; flags meant for tests have help NULL */
    unsigned caps;         /* CL_CMD_JSON: --json prints a machine-readable report */
} cl_command;

/* labs */
int cmd_tour(int argc, char **argv);
int cmd_device(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_fetch(int argc, char **argv);
int cmd_hint(int argc, char **argv);
int cmd_compile(int argc, char **argv);
int cmd_test(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_submit(int argc, char **argv);
int cmd_ladder(int argc, char **argv);
/* the learner's loop */
int cmd_watch(int argc, char **argv);
int cmd_log(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_progress(int argc, char **argv);
/* questions */
int cmd_quiz(int argc, char **argv);
int cmd_review(int argc, char **argv);
int cmd_interview(int argc, char **argv);
int cmd_exam(int argc, char **argv);
int cmd_lint(int argc, char **argv);
/* classroom */
int cmd_grade(int argc, char **argv);
int cmd_gradescope(int argc, char **argv);
/* the tool itself */
int cmd_help(int argc, char **argv);
int cmd_completion(int argc, char **argv);
int cmd_man(int argc, char **argv);

extern const cl_command cl_commands[]; /* ends with {NULL} */
extern const cl_flag cl_global_flags[];

const cl_command *cl_command_find(const char *name);
const cl_flag *cl_command_flag(const cl_command *c, const char *name);

#endif
