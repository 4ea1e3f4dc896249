/* srs.h: spaced repetition with FSRS-4.5 (the Free Spaced Repetition Scheduler).
 *
 * A card is one question a learner got wrong or found hard. Its memory state is a
 * stability S (days until recall falls to 90%) and a difficulty D (1..10). Each review
 * gives a rating; FSRS updates S and D and schedules the next review when predicted
 * recall falls to the desired retention (90%, i.e. after S days). The formulas and the
 * default weights are FSRS-4.5's, see docs/questions.md. Pure functions: no I/O. */
#ifndef CUDALAB_Q_SRS_H
#define CUDALAB_Q_SRS_H

#include <stdint.h>

typedef enum { CL_AGAIN = 1, CL_HARD = 2, CL_GOOD = 3, CL_EASY = 4 } cl_rating;

typedef enum { CL_CARD_NEW = 0, CL_CARD_LEARNING = 1, CL_CARD_REVIEW = 2 } cl_card_state;

typedef struct cl_card {
    char qid[128];
    char topic[64];
    double stability;    /* days */
    double difficulty;   /* 1..10 */
    int64_t due;         /* unix seconds */
    int64_t last_review; /* unix seconds, 0 = never */
    int reps, lapses;
    cl_card_state state;
} cl_card;

#define CL_FSRS_RETENTION 0.9
#define CL_FSRS_MAX_INTERVAL_DAYS 365
#define CL_FSRS_RELEARN_SECONDS 600 /* after "again": see it again in 10 minutes */

extern const double cl_fsrs_w[17];

/* R(t, S) = (1 + 19/81 * t / S) ^ -0.5 */
double cl_fsrs_retrievability(double elapsed_days, double stability);
/* Days until recall falls to `retention` (= S at 90%). */
double cl_fsrs_interval(double stability, double retention);
double cl_fsrs_init_stability(cl_rating r);
double cl_fsrs_init_difficulty(cl_rating r);
double cl_fsrs_next_difficulty(double d, cl_rating r);
double cl_fsrs_recall_stability(double d, double s, double r, cl_rating rating);
double cl_fsrs_forget_stability(double d, double s, double r);

/* Applies one review at time now (unix seconds): updates the memory state, reps,
 * lapses and the due time. A new card takes the initial state of its first rating. */
void cl_card_review(cl_card *c, cl_rating rating, int64_t now);

/* The rating a graded answer earns when the learner does not rate it: < 0.5 Again,
 * < 1 Hard (partly right), 1 Good. */
cl_rating cl_rating_for_score(double score);

#endif
