/* command_table.c: every cudalab command and its flags (see commands.h). One row a command;
 * flags with help NULL are for the test suite and stay out of help and completion. */
#include <stddef.h>
#include <string.h>

#include "commands.h"

#define END {NULL, NULL, NULL}

/* --json is added by CL_CMD_JSON; --lang, --no-color, --help, --version are global. */
const cl_flag cl_global_flags[] = {
    {"lang", "en|zh", "language of every message (default: CUDALAB_LANG, the config file, the locale)"},
    {"no-color", NULL, "no colours (also when NO_COLOR is set or the output is not a terminal)"},
    {"json", NULL, "print a machine-readable report on stdout (commands that report)"},
    {"help", NULL, "show help (also -h)"},
    {"version", NULL, "show the version (also -V)"},
    END,
};

#define GRADE_FLAGS                                                                                   \
    {"reference", NULL, "grade the lab's reference solution"},                                       \
    {"skeleton", NULL, "grade the lab's starting skeleton"},                                         \
    {"seed", "N", "reproduce a run (every report prints its seed)"},                                 \
    {"arch", "sm_XY", "compile for this architecture instead of this GPU's"},                        \
    {"timeout", "S", "wall-clock limit per run in seconds (default: the lab's)"},                    \
    {"junit", "FILE", "write a JUnit XML report"},                                                   \
    {"verbose", NULL, "list every case, not only the failures"},                                     \
    {"runner", "PATH", NULL}
static const cl_flag F_COMPILE[] = {GRADE_FLAGS, END};
#define REMOTE_FLAGS                                                                                  \
    {"remote", "HOST", "grade on HOST over ssh (cudalab installed there); the report is recorded here"},  \
    {"slurm", NULL, "grade through srun (with --remote: srun on HOST)"},                             \
    {"slurm-args", "ARGS", "srun's options (default --gres=gpu:1), e.g. '-p gpu --gres=gpu:1'"},     \
    {"remote-cudalab", "CMD", "the cudalab command on the remote host (default cudalab)"}
static const cl_flag F_TEST[] = {
    GRADE_FLAGS, {"sanitize", NULL, "also run the correctness cases under compute-sanitizer"}, REMOTE_FLAGS, END};
static const cl_flag F_BENCH[] = {
    GRADE_FLAGS,
    {"sanitize", NULL, "also run the correctness cases under compute-sanitizer"},
    {"no-reference", NULL, "do not time the reference alongside (faster)"},
    {"profile", NULL, "then run Nsight Compute (ncu) on your kernels for the slowest bench case"},
    REMOTE_FLAGS,
    END};
static const cl_flag F_LADDER[] = {END};
static const cl_flag F_WATCH[] = {
    {"seed", "N", "the seed of every test run"},
    {"arch", "sm_XY", "compile for this architecture instead of this GPU's"},
    {"timeout", "S", "wall-clock limit per run in seconds (default: the lab's)"},
    {"lines", NULL, "read one key per line (the default when stdin is not a terminal)"},
    {"runner", "PATH", NULL},
    END};
static const cl_flag F_LOG[] = {{"limit", "N", "at most N attempts (newest first)"}, END};
static const cl_flag F_COMPARE[] = {END};
static const cl_flag F_PROGRESS[] = {END};
static const cl_flag F_TOUR[] = {END};
static const cl_flag F_DEVICE[] = {{"refresh", NULL, "measure the ceilings again"}, END};
static const cl_flag F_LIST[] = {END};
static const cl_flag F_FETCH[] = {
    {"dir", "PARENT", "create the workspace inside PARENT (default: here)"},
    {"force", NULL, "overwrite an existing solution"},
    END};
static const cl_flag F_HINT[] = {{"all", NULL, "every hint at once"}, END};

#define QUESTION_FLAGS                                                                                \
    {"seed", "S", "repeat a session: same questions, same generated numbers"},                       \
    {"answers", "FILE", "read answers from FILE, one per line ('-' = stdin)"},                       \
    {"bank", "DIR", "question folder (default: the installed questions/)"}
static const cl_flag F_QUIZ[] = {
    QUESTION_FLAGS,
    {"topic", "T", "only these topics (repeat or comma-separate)"},
    {"n", "N", "how many questions (default 10)"},
    {"difficulty", "D", "1..5, or a range such as 2-4"},
    {"id", "ID", "exactly these questions"},
    {"rate", NULL, "after a right answer, ask how hard it felt (default on a terminal)"},
    {"no-rate", NULL, "do not ask how hard it felt"},
    {"no-record", NULL, "do not write to the progress database"},
    END};
static const cl_flag F_REVIEW[] = {
    QUESTION_FLAGS,
    {"n", "N", "at most N cards (default 20)"},
    {"all", NULL, "every card in the deck, due or not"},
    {"status", NULL, "show the deck (size, due now, next due) and exit"},
    {"rate", NULL, "after a right answer, ask how hard it felt (default on a terminal)"},
    {"no-rate", NULL, "do not ask how hard it felt"},
    END};
static const cl_flag F_INTERVIEW[] = {
    QUESTION_FLAGS,
    {"minutes", "M", "length of the interview (default 45: 60% theory, 40% coding)"},
    {"track", "T", "cuda (default), inference or compiler"},
    {"questions", "N", "main theory questions (default: about one per 2.5 minutes)"},
    {"lab", "NAME", "the coding lab (default: one near the level you reach)"},
    {"no-lab", NULL, "theory only"},
    {"workspace", "DIR", "where to fetch the lab (default ./cudalab-interview-<time>)"},
    {"no-record", NULL, "do not write to the progress database"},
    END};
static const cl_flag F_EXAM[] = {
    {"seed", "S", "the paper: the same seed gives every student the same questions"},
    {"answers", "FILE", "read answers from FILE, one per line ('-' = stdin)"},
    {"bank", "DIR", "question folder (default: the installed questions/)"},
    {"n", "N", "how many questions (default 20)"},
    {"topic", "T", "only these topics"},
    {"difficulty", "D", "1..5, or a range such as 2-4"},
    {"student", "ID", "the student's id, used in the answer sheet's name (letters, digits, . _ -)"},
    {"out", "FILE", "where to write the answer sheet or the paper"},
    {"paper", NULL, "print the paper instead of taking the exam"},
    {"key", NULL, "with --paper: include the answer key"},
    {"blank", "FILE", "write a blank answer sheet to fill in offline"},
    {"grade", NULL, "grade the answer sheets given as arguments"},
    {"csv", "FILE", "with --grade: write the gradebook to FILE"},
    {"long", NULL, "with --grade: one row per question instead of per student"},
    END};
static const cl_flag F_LINT[] = {
    {"questions-only", NULL, "lint only the question bank"},
    {"labs-only", NULL, "lint only the labs"},
    {"bank", "DIR", "question folder (default: the installed questions/)"},
    {"seeds", "FILE", "check that every seed question listed in FILE is covered"},
    {"no-seeds", NULL, "skip the seed coverage check"},
    {"samples", "N", "draws of each generated family (default 25)"},
    {"seed-map", NULL, "print the seed -> question ids table (markdown) and exit"},
    {"stats", NULL, "print questions per topic and kind (markdown) after linting"},
    END};
static const cl_flag F_GRADE[] = {
    {"lab", "LAB", "the lab the submissions solve"},
    {"submissions", "DIR", "a .cu file, a folder, or a .zip/.tar/.tar.gz per student"},
    {"out", "DIR", "output folder (default: grades-LAB)"},
    {"roster", "FILE", "a CSV with an id column (and name, email): missing students show"},
    {"course", "FILE", "course config (weights, tiers, deadline, bans, secret, limits)"},
    {"gpus", "LIST", "GPUs to use by id (1 is GPU 1), one worker each: 0,2 or all (default: all)"},
    {"slurm", NULL, "submit a Slurm job array (one task per submission) and wait"},
    {"gres", "G", "the array's --gres (default: the course's, or gpu:1; none for no GPU request)"},
    {"partition", "P", "the array's partition"},
    {"max-parallel", "N", "at most N Slurm tasks at once"},
    {"timeout", "S", "wall-clock limit per run instead of the lab's"},
    {"arch", "sm_XY", "compile for this architecture"},
    {"no-reference", NULL, "do not time the reference alongside"},
    {"no-sandbox", NULL, "grade without isolation (only for code you trust)"},
    {"report-only", NULL, "only rebuild the reports from the gradebook"},
    {"jobs", "N", NULL},
    {"poll", "S", NULL},
    {"runner", "PATH", NULL},
    {"task", "FILE", NULL},
    {"index", "I", NULL},
    {"watchdog", "S", NULL},
    END};
static const cl_flag F_GRADESCOPE[] = {
    {"lab", "LAB", "the lab (default: the course config's)"},
    {"course", "FILE", "course config (default: /autograder/source/course.yaml)"},
    {"submission", "DIR", "the submission (default: /autograder/submission)"},
    {"results", "FILE", "results.json to write (default: /autograder/results/results.json)"},
    {"metadata", "FILE", "submission_metadata.json (default: Gradescope's)"},
    {"report", "FILE", "also write the full report as JSON"},
    {"timeout", "S", "wall-clock limit per run instead of the lab's"},
    {"arch", "sm_XY", "compile for this architecture"},
    {"no-sandbox", NULL, "grade without isolation"},
    {"runner", "PATH", NULL},
    END};
static const cl_flag F_NONE[] = {END};

const cl_command cl_commands[] = {
    {"tour", cmd_tour, "", "grade every lab's reference on this GPU (or show what works without one)",
     "With a GPU: measures it and grades every lab's reference solution exactly as a submission is graded. "
     "Without one: says so, and shows what works anyway (compiling, the question bank).",
     F_TOUR, CL_CMD_JSON},
    {"device", cmd_device, "", "show this GPU and its measured ceilings",
     "Copy bandwidth (a vectorised copy kernel) and cuBLAS's fp16 Tensor Core rate, measured once per GPU "
     "and driver, then cached.",
     F_DEVICE, CL_CMD_JSON},
    {"list", cmd_list, "", "list the labs with difficulty, topics and your best result", NULL, F_LIST, CL_CMD_JSON},
    {"fetch", cmd_fetch, "LAB", "create a workspace folder for a lab",
     "Creates PARENT/LAB/ with the skeleton, the README and the lab header. An existing solution is never "
     "overwritten without --force.",
     F_FETCH, CL_CMD_JSON},
    {"hint", cmd_hint, "[LAB] [N]", "show the next hint for the current lab",
     "Inside a workspace each call shows the next hint, from gentle to specific; N shows that one.", F_HINT,
     CL_CMD_JSON},
    {"compile", cmd_compile, "[LAB] [FILE]", "compile a solution with nvcc (works without a GPU)",
     "LAB and FILE default to the workspace you are in (see cudalab fetch).", F_COMPILE, CL_CMD_JSON},
    {"test", cmd_test, "[LAB] [FILE]", "compile and check correctness on every case",
     "LAB and FILE default to the workspace you are in (see cudalab fetch).", F_TEST, CL_CMD_JSON},
    {"bench", cmd_bench, "[LAB] [FILE]", "measure performance against this GPU's ceilings",
     "Correctness first, then each bench case timed as a fraction of this GPU's ceiling and next to the "
     "reference.",
     F_BENCH, CL_CMD_JSON},
    {"submit", cmd_submit, "[LAB] [FILE]", "test + bench, scored and recorded in your progress", NULL, F_BENCH,
     CL_CMD_JSON},
    {"ladder", cmd_ladder, "LAB", "grade every step of a lab's ladder on this GPU: verdict, speed-up",
     "Grades every step of LAB's ladder (labs/LAB/ladder/NN_<step>.cu) on this GPU: verdict, fraction of the "
     "ceiling, and speed-up over the step before. Without a GPU it says so and exits 3.",
     F_LADDER, CL_CMD_JSON},
    {"watch", cmd_watch, "[LAB]", "re-test on every save, with keys for hint, bench, submit",
     "Inside a workspace: tests your solution on every save and shows the first failing case and your progress. "
     "Keys: h next hint, b bench, s submit, t test again, q quit (Ctrl-C quits too). Each test is recorded "
     "(cudalab log).",
     F_WATCH, 0},
    {"log", cmd_log, "[LAB]", "your attempts at a lab: verdict, cases, tier, seed, source",
     "Every test, bench and submit, newest first: verdict, cases passed, tier, score, seed and the hash of the "
     "source graded. LAB defaults to the workspace you are in; outside one, every lab.",
     F_LOG, CL_CMD_JSON},
    {"compare", cmd_compare, "[A B]", "two attempts case by case, and the source diff",
     "A and B are attempt numbers from cudalab log. Shows per case what was fixed or broken and which bench "
     "cases got faster or slower, then the diff from A's source to B's. Without A and B: the last two attempts "
     "of the workspace's lab.",
     F_COMPARE, CL_CMD_JSON},
    {"progress", cmd_progress, "", "every lab's best tier and the review queue",
     "Every lab's best tier (any bench or submit), best submitted score, attempts, and the question review "
     "queue (cudalab review).",
     F_PROGRESS, CL_CMD_JSON},
    {"quiz", cmd_quiz, "", "practise theory questions",
     "Immediate feedback and the explanation. Questions you have seen least come first; wrong or hard answers "
     "enter cudalab review. Answers: a letter (b), letters (ac), letters in order (cabd), a number, or text; "
     "an empty line skips, :q stops.",
     F_QUIZ, CL_CMD_JSON},
    {"review", cmd_review, "", "spaced review of what you got wrong",
     "FSRS-4.5 scheduling: a card comes back when you are about to forget it.", F_REVIEW, CL_CMD_JSON},
    {"interview", cmd_interview, "", "a timed mock interview with a scorecard",
     "Theory questions that start at difficulty 2 and ramp with your answers, then one coding lab fetched into "
     "a workspace, then a scorecard.",
     F_INTERVIEW, 0},
    {"exam", cmd_exam, "[SHEET...]", "a classroom exam: the same questions for the same seed",
     "Take the exam (answers saved after each one), print the paper, or grade answer sheets into a CSV.",
     F_EXAM, 0},
    {"lint", cmd_lint, "[FILE.yaml...]", "validate labs and questions (file:line errors)",
     "Checks every questions/<topic>.yaml and every lab; prints file:line:col: message per problem.", F_LINT, 0},
    {"grade", cmd_grade, "", "grade a folder of submissions (instructors)",
     "Every submission graded in a sandbox; a gradebook (SQLite), grades.csv, an HTML report and junit.xml "
     "in the output folder. A rerun grades only what changed.",
     F_GRADE, CL_CMD_JSON},
    {"gradescope", cmd_gradescope, "", "run inside Gradescope's autograder and write results.json",
     "See docs/gradescope.md for the setup.sh and run_autograder to upload.", F_GRADESCOPE, 0},
    {"help", cmd_help, "[COMMAND]", "show help for cudalab or one command", NULL, F_NONE, CL_CMD_JSON},
    {"completion", cmd_completion, "bash|zsh|fish", "print a shell completion script",
     "Installed by cmake --install; or: source <(cudalab completion bash).", F_NONE, 0},
    {"man", cmd_man, "", "print the man page (roff)", NULL, F_NONE, 0},
    {NULL, NULL, NULL, NULL, NULL, NULL, 0},
};

const cl_command *cl_command_find(const char *name)
{
    for (const cl_command *c = cl_commands; c->name; c++)
        if (!strcmp(c->name, name))
            return c;
    return NULL;
}

const cl_flag *cl_command_flag(const cl_command *c, const char *name)
{
    for (const cl_flag *f = c->flags; f->name; f++)
        if (!strcmp(f->name, name))
            return f;
    return NULL;
}
