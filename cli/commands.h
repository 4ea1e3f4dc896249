/* commands.h: every cudalab subcommand. Each lives in cli/cmd_<name>.c, parses its own
 * arguments, calls into the libraries, prints, and returns the process exit status
 * (0 ok, 1 the thing checked failed, 2 usage or environment error). */
#ifndef CUDALAB_COMMANDS_H
#define CUDALAB_COMMANDS_H

typedef struct cl_command {
    const char *name;
    const char *summary;
    int (*run)(int argc, char **argv);
} cl_command;

/* labs (grader) */
int cmd_device(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_fetch(int argc, char **argv);
int cmd_hint(int argc, char **argv);
int cmd_compile(int argc, char **argv);
int cmd_test(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_submit(int argc, char **argv);
int cmd_tour(int argc, char **argv);
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

extern const cl_command cl_commands[];

#endif
