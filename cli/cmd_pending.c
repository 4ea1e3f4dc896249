/* cmd_pending.c: commands whose implementation has not landed yet (weak, so the real
 * cmd_<name>.c replaces each one). Deleted once every command exists. */
#include <stdio.h>

#include "commands.h"

#define PENDING(fn, name)                                                               \
    __attribute__((weak)) int fn(int argc, char **argv)                                 \
    {                                                                                   \
        (void)argc; (void)argv;                                                         \
        fprintf(stderr, "cudalab %s: not available in this build yet\n", name);         \
        return 2;                                                                       \
    }

PENDING(cmd_device, "device")
PENDING(cmd_list, "list")
PENDING(cmd_fetch, "fetch")
PENDING(cmd_hint, "hint")
PENDING(cmd_compile, "compile")
PENDING(cmd_test, "test")
PENDING(cmd_bench, "bench")
PENDING(cmd_submit, "submit")
PENDING(cmd_tour, "tour")
PENDING(cmd_quiz, "quiz")
PENDING(cmd_review, "review")
PENDING(cmd_interview, "interview")
PENDING(cmd_exam, "exam")
PENDING(cmd_lint, "lint")
PENDING(cmd_grade, "grade")
PENDING(cmd_gradescope, "gradescope")
