/* classroom.h: grading a whole class (instructors), on one machine, on a Slurm cluster,
 * or inside Gradescope.
 *
 *   course config (YAML)  -> cl_course: weights, tiers, deadline, header and library
 *                            rules, limits, the course secret (never shown to students)
 *   submissions folder    -> cl_submission[]: a file, a folder or an archive per student
 *   each submission       -> staged alone in a private directory (archives extracted
 *                            safely), graded by cl_grade() inside the sandbox, rescored
 *                            with the course's weights and tiers
 *   results               -> the gradebook (SQLite, one transaction per result; the key
 *                            (student, lab, submission hash, config hash) makes a rerun
 *                            resume), then CSV, HTML, JUnit XML, Gradescope results.json.
 *
 * See docs/classroom.md for the threat model. */
#ifndef CUDALAB_CLASSROOM_H
#define CUDALAB_CLASSROOM_H

#include <jansson.h>
#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "grader/labconf.h"
#include "grader/result.h"
#include "paths.h"

/* ---------------------------------------------------------------- hashing (hash.c) */

#define CL_SHA256_HEX 65 /* 64 hex digits + NUL */

void cl_sha256_hex(const void *data, size_t n, char out[CL_SHA256_HEX]);
/* SHA-256 of a file's bytes, reading at most max bytes (-1 when larger or unreadable). */
int cl_sha256_file(const char *path, size_t max, char out[CL_SHA256_HEX], cl_err *err);
/* The per-student seed: 48 bits of HMAC-SHA256(secret, lab, student, submission hash).
 * Reproducible by whoever holds the secret; unpredictable for a student, also from the
 * seed of an earlier submission. */
uint64_t cl_student_seed(const unsigned char *secret, size_t secret_len, const char *lab, const char *student,
                         const char *submission_sha256);

/* ----------------------------------------------------------- course config (course.c) */

#define CL_CLASS_MAX_NAMES 32
#define CL_CLASS_MAX_LABS 16

typedef struct cl_name_list {
    int n;
    char *v[CL_CLASS_MAX_NAMES];
} cl_name_list;

/* What a course says about one lab (the `defaults:` merged with `labs: <name>:`). Each
 * have_* flag says the course set that item; otherwise lab.yaml's value stands. */
typedef struct cl_course_rules {
    int have_deadline;
    long long deadline;        /* Unix seconds */
    char deadline_text[64];
    int have_weights;
    double w_correct, w_pass, w_good, w_excellent;
    int have_tiers;
    double tier_pass, tier_good, tier_excellent;
    int have_allowed_headers;  /* then every #include must be in allowed_headers */
    cl_name_list allowed_headers, banned_headers;
    int have_allowed_libs;     /* then every library the solution loads must be allowed */
    cl_name_list allowed_libs, banned_libs; /* library stems: "cublas" */
    int have_sanitize, sanitize; /* compute-sanitizer gate */
    int have_timeout_scale;
    double timeout_scale;
    int have_max_file, have_max_procs;
    unsigned long long max_file_bytes, max_procs;
    int have_visibility;
    char visibility[32];       /* Gradescope test visibility */
} cl_course_rules;

typedef enum { CL_SANDBOX_AUTO, CL_SANDBOX_NAMESPACES, CL_SANDBOX_USER, CL_SANDBOX_NONE } cl_sandbox_mode;

typedef struct cl_course {
    char path[CL_PATH_MAX];    /* "" when no config was given (built-in defaults) */
    char name[128];
    char timezone[64];         /* the course's IANA time zone ("" none): local deadlines */
    char hash[CL_SHA256_HEX];  /* of the config file's bytes ("" without one) */
    char secret_path[CL_PATH_MAX]; /* secret_file:, "" when inline or absent */
    unsigned char *secret;
    size_t secret_len;
    double late_penalty_per_day; /* fraction of the score per started day late */
    int late_max_days;           /* later than this: score 0 */
    cl_sandbox_mode sandbox;
    unsigned sandbox_uid;        /* root only: first uid the sandbox runs as (one per worker) */
    char slurm_partition[64], slurm_gres[64], slurm_time[32];
    cl_name_list slurm_extra;    /* more #SBATCH options, verbatim */
    int leaderboard;             /* Gradescope leaderboard */
    cl_course_rules defaults;
    int nlabs;
    char *lab_names[CL_CLASS_MAX_LABS];
    cl_course_rules labs[CL_CLASS_MAX_LABS];
} cl_course;

/* Built-in defaults (no config). */
void cl_course_init(cl_course *c);
/* Loads a course YAML; every error names file:line:col. */
int cl_course_load(const char *path, cl_course *c, cl_err *err);
void cl_course_free(cl_course *c);
/* The rules for one lab (defaults merged with the lab's own section). The name lists
 * borrow the course's strings: valid while c lives; never free out. */
void cl_course_rules_for(const cl_course *c, const char *lab, cl_course_rules *out);
/* A hash of what in the course changes a lab's graded result (the secret, weights, tiers,
 * bans, sanitizer, limits), not of its text: comments, names, deadlines and the late
 * policy (applied when the reports are written), Slurm and Gradescope settings are not. */
void cl_course_grading_digest(const cl_course *c, const char *lab, char out[CL_SHA256_HEX]);
/* Dates (timeparse.c). An RFC 3339 time with its zone ("2026-11-20T14:22:32.365935-08:00",
 * "2026-12-01T23:59:00Z"): 0, or -1 when it cannot be read completely (never a guess). */
int cl_parse_time(const char *s, long long *out);
/* A course's deadline: RFC 3339, or a local time "2026-12-01T23:59" or a date "2026-12-01"
 * (the end of that day, 23:59:59) in time zone tz (IANA; without one local times are
 * refused). 0, or -1 with why. */
int cl_parse_deadline(const char *s, const char *tz, long long *out, char *why, size_t n);
/* 1 when tz is an IANA time zone this machine knows. */
int cl_timezone_valid(const char *tz);

/* ------------------------------------------------------- submissions (intake.c) */

typedef enum { CL_SUB_FILE, CL_SUB_DIR, CL_SUB_ARCHIVE, CL_SUB_NONE } cl_sub_kind;

typedef struct cl_submission {
    char student[128];          /* id: the entry's name without extension, made safe */
    char name[256];             /* from the roster, else the id */
    char email[256];
    char path[CL_PATH_MAX];     /* the file, folder or archive ("" when none was submitted) */
    char entry[256];            /* its name in the submissions folder */
    cl_sub_kind kind;
    char sha256[CL_SHA256_HEX]; /* content hash (files of a folder: names and contents) */
    long long submitted_at;     /* modification time, Unix seconds (a folder: its newest file's) */
    int in_roster;
    int renamed;                /* the id is not the entry's name: characters replaced or cut */
} cl_submission;

/* A student id from a name (names.c): letters, digits and marks of any script in NFC, and
 * ASCII "._@+-"; anything else '_'; at most 100 bytes, never a leading '.'. 1 when
 * characters were replaced or cut. */
int cl_student_id(const char *name, char *out, size_t n);
/* What ids are compared by: NFC, case folded (ALICE = alice). */
void cl_student_key(const char *id, char *out, size_t n);
/* README.md, roster.csv, notes.txt, ...: an instructor's file beside the submissions. */
int cl_intake_is_note(const char *entry);
/* The content hash of a file or folder, as cl_intake_scan computes it, and its time. */
int cl_intake_hash(const char *path, char out[CL_SHA256_HEX], long long *when, cl_err *err);

/* Lists the submissions of dir: every entry not starting with '.' is one student's (a .cu
 * file, an archive, or a folder; anything else gets a clear verdict when graded). skip: a
 * path inside dir to ignore (the output folder), may be NULL. roster: a CSV with a header
 * naming at least an id column (id, student, student_id, sid or email), optionally name
 * and email; its students without a submission are listed with kind CL_SUB_NONE. Notes
 * (unknown roster ids, renamed ids) go to note(ctx, msg). */
int cl_intake_scan(const char *dir, const char *skip, const char *roster, cl_submission **subs, int *n,
                   void (*note)(void *ctx, const char *msg), void *ctx, cl_err *err);

/* Limits on what a submission may contain. */
#define CL_STAGE_MAX_FILE (4u << 20)      /* one file */
#define CL_STAGE_MAX_TOTAL (32u << 20)    /* all files */
#define CL_STAGE_MAX_ARCHIVE (64u << 20)  /* the archive itself */
#define CL_STAGE_MAX_ENTRIES 256
#define CL_STAGE_MAX_DEPTH 16

/* Extracts an archive (.tar, .tar.gz, .tgz, .zip) into dir with libarchive, refusing absolute
 * paths, "..", links, device files and other special files, and the limits above. 1 with
 * why when refused (nothing is left half-extracted: dir is emptied), 0 ok, -1 error. */
int cl_archive_extract(const char *archive, const char *dir, char *why, size_t why_n, cl_err *err);
int cl_is_archive_name(const char *name);

/* ------------------------------------------------------------ sandbox (sandbox.c) */

typedef struct cl_sandbox {
    cl_sandbox_mode mode;        /* as resolved: NAMESPACES, USER or NONE */
    int as_root;
    unsigned uid;                /* root: the uid to run as (base + slot) */
    int nhide;
    char hide[16][CL_PATH_MAX];  /* paths no submission may see (covered, empty) */
    char describe[256];
} cl_sandbox;

/* Decides the mode (AUTO: namespaces if this kernel allows them, else, as root, a
 * separate uid, else an error) and checks it works by running a probe, which must reach
 * every path of keep (NULL-terminated, may be NULL). */
int cl_sandbox_resolve(cl_sandbox *sb, cl_sandbox_mode want, unsigned uid_base, const char *const *keep,
                       cl_err *err);
void cl_sandbox_hide(cl_sandbox *sb, const char *path);
/* Runs fn(ctx, out_fd) in a child process inside the sandbox: the hidden paths covered,
 * /tmp, /var/tmp and /dev/shm private, the filesystem read-only but for stage_dir, a new
 * PID namespace with its own /proc, no privileges (as root: uid sb->uid + slot), not
 * dumpable, and an environment reduced to a safe list plus env_set. fn writes its answer
 * to out_fd, a pipe whose other end the caller reads (*read_fd); *pid is the child the
 * caller waits for. A sandbox that cannot be built answers "E:<why>" on the pipe.
 * keep: paths that must stay visible, read-only (the runner, the lab home, the toolkit);
 * protect: paths inside stage_dir made read-only (the grader's own inputs). Both
 * NULL-terminated, may be NULL. */
int cl_sandbox_spawn(const cl_sandbox *sb, int slot, const char *stage_dir, const char *const *keep,
                     const char *const *protect, const char *const *env_set, int (*fn)(void *ctx, int out_fd),
                     void *ctx, int *pid, int *read_fd, cl_err *err);

/* Stops a child of cl_sandbox_spawn: SIGTERM first (it kills the gradings it started,
 * which run in sessions of their own, then ends), SIGKILL if it has not ended within 2 s.
 * Does not reap it: the caller waits for it as usual. */
void cl_sandbox_stop(int pid);

/* ------------------------------------------------------ grading one (class_grade.c) */

typedef struct cl_class_job {
    const char *lab;
    const cl_course *course;
    cl_course_rules rules;
    const cl_submission *sub;
    uint64_t seed;
    const char *runner;          /* NULL: cudalab-run; set: the host test runner */
    int allow_prebuilt;
    double timeout_s;            /* > 0: override lab.yaml's */
    const char *arch;
    int no_reference;
    const char *gpu;             /* CUDA_VISIBLE_DEVICES for this job; NULL: inherit */
    const char *shared_cache;    /* $XDG_CACHE_HOME/cudalab of the instructor (ceilings, reference) */
} cl_class_job;

/* Grades one submission: stage (in stage_dir), check headers, cl_grade, apply the
 * course's weights, tiers and library rules. Returns the result JSON (see
 * cl_class_result_json); never NULL. Runs inside the sandbox (or not, with mode NONE). */
json_t *cl_class_grade_one(const cl_class_job *job, const char *stage_dir);
/* Applies the course's weights and tiers to a graded result. */
void cl_class_rescore(const cl_course_rules *rules, const cl_lab *lab, cl_result *r);
/* A result for a submission that never reached the grader (missing, rejected). */
void cl_class_reject(const cl_lab *lab, const char *path, cl_verdict v, const char *why, cl_result *r);

/* ---------------------------------------------------- the gradebook (gradebook.c) */

typedef struct cl_grade_row {
    char student[128], name[256], email[256];
    char lab[64], sha256[CL_SHA256_HEX], config_hash[CL_SHA256_HEX];
    char submission[256];
    char verdict[32], tier[16];
    char *message;
    double raw_score, score, max_score;
    int has_score;               /* 0: not graded (no GPU, cudalab failed): no score, never a 0 */
    int late_days;
    double penalty;              /* fraction taken off for lateness */
    uint64_t seed;
    char gpu[128];
    long long graded_at, submitted_at;
    double seconds;
    double metric, fraction;     /* the slowest bench case: the lab's metric and of-ceiling */
    char metric_unit[24];
    json_t *report;              /* the whole cl_result JSON */
    int missing;                 /* in the roster, nothing submitted */
    int in_roster;
} cl_grade_row;

/* Opens (creating) a gradebook, bringing an older one to the current schema in one
 * transaction; a damaged one is reported and left as it is. */
int cl_gradebook_open(const char *path, sqlite3 **db, cl_err *err);
/* 1 when the key already has a final result, 0 when not (or only an `error` or
 * `no_device` one, which the next run grades again), -1 on error. */
int cl_gradebook_has(sqlite3 *db, const char *student, const char *lab, const char *sha256,
                     const char *config_hash, cl_err *err);
/* Records a result (its JSON as cl_class_grade_one made it) in one transaction. Returns 0
 * when recorded (replacing a non-final one), 1 when the key already had a final one (kept,
 * not replaced), -1 on error. */
int cl_gradebook_record(sqlite3 *db, long long run_id, const cl_submission *s, const cl_course *c,
                        const cl_course_rules *rules, json_t *result, cl_err *err);
/* Fills row from the stored result of the key; 1 when absent. */
int cl_gradebook_get(sqlite3 *db, const char *student, const char *lab, const char *sha256,
                     const char *config_hash, cl_grade_row *row, cl_err *err);
void cl_grade_row_free(cl_grade_row *row);
long long cl_gradebook_run_begin(sqlite3 *db, const char *lab, const char *mode, cl_err *err);
int cl_gradebook_run_end(sqlite3 *db, long long run_id, int graded, int skipped, const char *slurm_job, cl_err *err);
/* How many results the key set has in total and per student (tests, integrity). */
int cl_gradebook_count(sqlite3 *db, const char *lab, int *rows, cl_err *err);

/* The late penalty of a row, from when it was handed in and the course's deadline and
 * policy as they are now: late_days, penalty, score (from raw_score). */
void cl_grade_row_late(cl_grade_row *row, long long submitted_at, const cl_course_rules *rules, const cl_course *c);
/* Writes a row's lateness (submitted_at, late_days, penalty, score) back to its result. */
int cl_gradebook_update_late(sqlite3 *db, const cl_grade_row *row, cl_err *err);
/* 0 for a result that holds no grade (error, no_device, not graded): cudalab could not
 * grade it, which is never the student's fault; the gradebook stores its score as NULL and
 * reports show none. */
int cl_grade_row_scored(const cl_grade_row *row);
/* Fills a row from a result JSON (the late penalty from s and rules). */
void cl_grade_row_from_result(cl_grade_row *row, const cl_submission *s, const cl_course_rules *rules,
                              const cl_course *c, json_t *result);

/* ----------------------------------------------------------- reports (report_*.c) */

typedef struct cl_class_report {
    const char *lab;
    const char *title;
    const char *course;
    int metric;                  /* cl_metric */
    double copy_gbps, fp16_tflops; /* this GPU's ceilings (0: unknown) */
    char gpu[128];
    int nrows;
    cl_grade_row *rows;          /* one per student, sorted by student id */
} cl_class_report;

int cl_class_csv(const cl_class_report *rep, const char *path, cl_err *err);
/* index.html (class table, leaderboard, roofline) + students/<id>.html. Self-contained:
 * inline CSS and SVG, no JavaScript, a CSP that forbids scripts. */
int cl_class_html(const cl_class_report *rep, const char *dir, cl_err *err);
int cl_class_junit(const cl_class_report *rep, const char *path, cl_err *err);
/* An inline SVG roofline: x arithmetic intensity (FLOP/byte), y GFLOP/s, the memory roof
 * from the copy bandwidth and the fp16 Tensor Core roof when measured; one point per
 * (label, bench case). Appends to sb (a cl_strbuf *). */
struct cl_strbuf;
typedef struct cl_roof_point {
    const char *label;
    const char *href;            /* NULL: no link */
    double flops, bytes, seconds;
    int highlight;
} cl_roof_point;
void cl_roofline_svg(struct cl_strbuf *sb, const cl_roof_point *pts, int n, double copy_gbps, double fp16_tflops,
                     const char *title);


/* Gradescope's results.json from one graded row (the seed is not shown). */
json_t *cl_gradescope_results(const cl_grade_row *row, const cl_lab *lab, const cl_course_rules *rules,
                              int leaderboard);

typedef struct cl_gradescope_opts {
    const char *lab;             /* NULL: the course's only lab */
    const char *course_path;     /* may be NULL */
    const char *submission;      /* /autograder/submission */
    const char *results_path;    /* /autograder/results/results.json */
    const char *metadata_path;   /* /autograder/submission_metadata.json (may be absent) */
    const char *report_path;     /* also write the full report JSON here (NULL: no) */
    const char *runner;          /* the host test runner (tests) */
    int allow_prebuilt;
    double timeout_s, watchdog_s;
    const char *arch;
    int no_sandbox;
} cl_gradescope_opts;

int cl_gradescope_run(const cl_gradescope_opts *o, cl_err *err);

/* ------------------------------------------------------ a whole class (class_run.c) */

typedef struct cl_class_opts {
    const char *lab;
    const char *submissions;
    const char *roster;          /* may be NULL */
    const char *out;             /* output folder (gradebook, reports) */
    const char *course_path;     /* may be NULL */
    const char *runner;          /* the host test runner (tests); NULL: cudalab-run */
    int allow_prebuilt;
    double timeout_s;
    const char *arch;
    int no_reference;
    const char *gpus;            /* "0,1,3", a count "4", or NULL: detect */
    int jobs;                    /* workers when there is no GPU to count (host runner); 0: 1 */
    cl_sandbox_mode sandbox;     /* AUTO unless the user said otherwise */
    int no_sandbox;              /* --no-sandbox: grade without isolation (trusted code only) */
    double watchdog_s;           /* per submission, all stages; 0: 3600 */
    /* Slurm */
    int slurm;
    const char *slurm_gres;      /* NULL: the course's or "gpu:1"; "" or "none": no --gres */
    const char *slurm_partition;
    double slurm_poll_s;         /* 0: 5 */
    int slurm_max_parallel;      /* %N on the array; 0: no limit */
    int report_only;             /* do not grade: rebuild the reports from the gradebook */
    void (*event)(void *ctx, const char *kind, const char *student, const char *detail, int done, int total);
    void *ctx;
} cl_class_opts;

typedef struct cl_class_summary {
    int total;                   /* submissions (and roster entries without one) */
    int graded, skipped, missing, failed_tasks;
    int not_graded;              /* in the reports without a score (no GPU, cudalab failed, not yet) */
    int workers;
    char sandbox[256];
    char gradebook[CL_PATH_MAX], csv[CL_PATH_MAX], html[CL_PATH_MAX], junit[CL_PATH_MAX];
    char slurm_job[64];
    double seconds;
    int verdicts[CL_V_EXCELLENT + 1];
} cl_class_summary;

int cl_class_grade(const cl_class_opts *o, cl_class_summary *sum, cl_err *err);
/* A Slurm array task: grades entry `index` of the manifest and writes its result file. */
int cl_class_slurm_task(const char *manifest, int index, cl_err *err);

/* Writes the reports of the current submissions from the gradebook. */
int cl_class_write_reports(sqlite3 *db, const cl_class_opts *o, const cl_course *c, cl_submission *subs, int n,
                           cl_class_summary *sum, cl_err *err);

#endif
