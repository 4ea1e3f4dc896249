/* class_internal.h: what the classroom's files share and nobody else needs: the run-time
 * of a grading run (sandbox, stage root, what stays visible in the sandbox, the trusted
 * ceilings and reference build handed to every submission's stage). */
#ifndef CUDALAB_CLASS_INTERNAL_H
#define CUDALAB_CLASS_INTERNAL_H

#include "grader/classroom.h"

#define CL_RT_MAX_KEEP 12
#define CL_RT_MAX_PROTECT 12

typedef struct cl_class_rt {
    cl_sandbox sb;
    char stage_root[CL_PATH_MAX];
    char shared_cache[CL_PATH_MAX]; /* the instructor's $XDG_CACHE_HOME/cudalab */
    char ref_rel[CL_PATH_MAX];      /* the reference's build, relative to shared_cache ("" none) */
    int nkeep;
    char keep_buf[CL_RT_MAX_KEEP][CL_PATH_MAX];
    const char *keep[CL_RT_MAX_KEEP + 1];
} cl_class_rt;

/* One submission's private stage, ready for the sandbox. */
typedef struct cl_class_stage {
    char dir[CL_PATH_MAX];
    char sha256[CL_SHA256_HEX]; /* of the copy: what is graded */
    int nprotect;
    char protect_buf[CL_RT_MAX_PROTECT][CL_PATH_MAX];
    const char *protect[CL_RT_MAX_PROTECT + 1];
} cl_class_stage;

/* Sets up a run: resolves the sandbox (hidden paths already added to rt->sb with
 * cl_sandbox_hide), makes the stage root, lists what must stay visible, measures the
 * ceilings of each GPU (gpus: CUDA_VISIBLE_DEVICES values; n 0 for none) and builds the
 * reference, outside the sandbox, so no submission can tamper with them. stage_mark (or
 * NULL): a file that gets the stage root's path the moment it exists, so that a run killed
 * at any point after (the sandbox probe and the ceilings take seconds) leaves it named for
 * the next run to remove. */
int cl_class_rt_init(cl_class_rt *rt, const cl_lab *lab, const char *runner, const char *arch, cl_sandbox_mode mode,
                     unsigned uid_base, char gpus[][32], int ngpus, const char *stage_mark, cl_err *err);
void cl_class_rt_free(cl_class_rt *rt);

/* Copies the submission into a new stage (under a fixed name), hashes the copy into
 * st->sha256 and hands the stage to the worker's uid. 0 ready; 1 rejected (*result holds
 * the verdict); -1 error. A copy whose hash is not job->sub->sha256 (the file was replaced
 * since it was listed) is the caller's to settle: grade it under its new hash, or not. */
int cl_class_rt_stage(const cl_class_rt *rt, const cl_class_job *job, int slot, cl_class_stage *st, json_t **result,
                      cl_err *err);
void cl_class_rt_unstage(cl_class_stage *st);

/* Starts the job in the sandbox; the answer comes on *fd, then *pid exits. */
int cl_class_job_start(const cl_class_job *job, const cl_sandbox *sb, int slot, const char *stage,
                       const char *const *keep, const char *const *protect, int *pid, int *fd, cl_err *err);
/* The result from the answer text and the exit status. */
json_t *cl_class_job_finish(const cl_class_job *job, const char *text, int status);
json_t *cl_class_error_result(const cl_class_job *job, const char *why);
json_t *cl_class_rejected_result(const cl_class_job *job, const char *why);

/* Grades one submission start to end (stage, sandbox, result); never NULL. */
json_t *cl_class_rt_run(const cl_class_rt *rt, const cl_class_job *job, int slot, double watchdog_s);

/* path made absolute (realpath when it exists) in buf; returns what to use. */
const char *cl_class_abspath(const char *path, char *buf, size_t n);
/* Makes $CUDALAB_HOME absolute: call before anything asks for cl_home_dir(). */
void cl_class_absolute_home(void);

/* The key parts a run needs. */
int cl_class_config_hash(const cl_course *c, const cl_lab *lab, char out[CL_SHA256_HEX], cl_err *err);
/* Loads the course secret or, without one, <out>/course-secret (made on first use, 0600). */
int cl_class_secret(cl_course *c, const char *out_dir, cl_err *err);
/* GPUs to use: spec's ids ("0,2", "GPU-<uuid>"; "all" or NULL: detect), else
 * CUDA_VISIBLE_DEVICES, else nvidia-smi -L. How many (0: none), or -1 (a malformed list). */
int cl_class_gpus(const char *spec, char gpus[][32], int max, cl_err *err);

/* A grading run of `cudalab grade` (class_run.c drives it; class_job.c holds what it shares
 * with slurm.c, so slurm.c needs nothing of class_run.c). */
typedef struct cl_class_run {
    const cl_class_opts *o;
    cl_course course;
    cl_course_rules rules;
    cl_lab lab;
    int have_lab;
    char config_hash[CL_SHA256_HEX];
    char out[CL_PATH_MAX];
    cl_submission *subs;
    int nsubs;
    sqlite3 *db;
    long long run_id;
    cl_class_rt rt;
    int have_rt;
    int done, total;
    int lock_fd;                 /* holds the output folder's lock (a POSIX record lock) */
    char stale_stage[CL_PATH_MAX]; /* a killed run's stage removed at the start: again at the end */
    int ngpu;                    /* GPUs of the local workers (0: none, e.g. the host runner) */
    char gpus[64][32];
} cl_class_run;

void cl_class_event(cl_class_run *r, const char *kind, const char *student, const char *detail);
void cl_class_fill_job(cl_class_run *r, cl_class_job *job, const cl_submission *s, const char *gpu);
/* Records a finished grading: 0 recorded, 1 it was there already, -1 error. */
int cl_class_record(cl_class_run *r, const cl_submission *s, json_t *res, cl_err *err);
/* Grades the pending submissions (indices into r->subs) as a Slurm job array. */
int cl_class_slurm(cl_class_run *r, int *pending, int npending, cl_class_summary *sum, cl_err *err);

/* The stage (copy) and unpack steps of stage.c. */
int cl_stage_copy(const cl_submission *s, const char *lab, const char *stage, int allow_prebuilt, char *why,
                  size_t why_n, cl_err *err);
/* The content hash of what cl_stage_copy copied (the same as cl_intake_hash of the original
 * when nothing changed in between): what is graded is what is recorded. */
int cl_stage_hash(const cl_submission *s, const char *stage, char out[CL_SHA256_HEX], cl_err *err);
int cl_stage_prepare(const cl_submission *s, const char *lab, const char *stage, int allow_prebuilt, char *solution,
                     size_t solution_n, char *why, size_t why_n, cl_err *err);
int cl_sandbox_own(const cl_sandbox *sb, int slot, const char *dir, cl_err *err);

#endif
