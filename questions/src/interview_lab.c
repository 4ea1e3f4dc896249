/* interview_lab.c: the interview's coding exercise: listing labs (lab.yaml through
 * grader/labconf.h), choosing one for the track and level, and whether a GPU is there to
 * grade it (interview_grade.c grades it). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grader/labconf.h"
#include "grader/proc.h"
#include "paths.h"
#include "questions/interview.h"
#include "questions/rng.h"
#include "questions/track.h"

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

int cl_gpu_present(void)
{
    const char *force = getenv("CUDALAB_GPU");
    if (force && !strcmp(force, "0"))
        return 0;
    char *argv[] = {"nvidia-smi", "-L", NULL};
    char *out = NULL;
    cl_err err;
    int rc = cl_proc_capture(argv, 60, 4096, &out, &err);
    free(out);
    return rc == 0;
}
