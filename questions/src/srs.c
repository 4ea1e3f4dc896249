/* srs.c: FSRS-4.5 memory-state updates and scheduling.
 *
 * Reference: open-spaced-repetition, "The Algorithm" (FSRS-4.5), default weights
 * w0..w16 below. Deviations, all conservative: a lapse never raises stability
 * (S'f <= S), stability is floored at 0.1 day, and an "again" is shown again after 10
 * minutes (a relearning step) instead of after the model's interval. */
#include "questions/srs.h"

#include <math.h>

const double cl_fsrs_w[17] = {0.4872, 1.4003, 3.7145, 13.8206, 5.1618, 1.2298, 0.8975, 0.031, 1.6474,
                              0.1367, 1.0461, 2.1072, 0.0793, 0.3246, 1.587, 0.2272, 2.8755};

#define W cl_fsrs_w
#define DECAY (-0.5)
#define FACTOR (19.0 / 81.0)

static double clamp(double x, double lo, double hi) { return x < lo ? lo : x > hi ? hi : x; }

double cl_fsrs_retrievability(double t, double s)
{
    if (s <= 0)
        return 0;
    if (t < 0)
        t = 0;
    return pow(1 + FACTOR * t / s, DECAY);
}

double cl_fsrs_interval(double s, double retention)
{
    return s / FACTOR * (pow(retention, 1 / DECAY) - 1);
}

double cl_fsrs_init_stability(cl_rating r)
{
    double s = W[(int)r - 1];
    return s < 0.1 ? 0.1 : s;
}

double cl_fsrs_init_difficulty(cl_rating r)
{
    return clamp(W[4] - W[5] * ((int)r - 3), 1, 10);
}

double cl_fsrs_next_difficulty(double d, cl_rating r)
{
    double next = d - W[6] * ((int)r - 3);
    /* mean reversion towards the initial difficulty of a "good" */
    return clamp(W[7] * W[4] + (1 - W[7]) * next, 1, 10);
}

double cl_fsrs_recall_stability(double d, double s, double r, cl_rating rating)
{
    double hard = rating == CL_HARD ? W[15] : 1;
    double easy = rating == CL_EASY ? W[16] : 1;
    return s * (1 + exp(W[8]) * (11 - d) * pow(s, -W[9]) * (exp(W[10] * (1 - r)) - 1) * hard * easy);
}

double cl_fsrs_forget_stability(double d, double s, double r)
{
    return W[11] * pow(d, -W[12]) * (pow(s + 1, W[13]) - 1) * exp(W[14] * (1 - r));
}

void cl_card_review(cl_card *c, cl_rating rating, int64_t now)
{
    if (c->state == CL_CARD_NEW || c->last_review == 0 || c->stability <= 0) {
        c->stability = cl_fsrs_init_stability(rating);
        c->difficulty = cl_fsrs_init_difficulty(rating);
    } else {
        double elapsed = (double)(now - c->last_review) / 86400.0;
        double r = cl_fsrs_retrievability(elapsed, c->stability);
        double s;
        if (rating == CL_AGAIN) {
            s = cl_fsrs_forget_stability(c->difficulty, c->stability, r);
            if (s > c->stability)
                s = c->stability;
        } else {
            s = cl_fsrs_recall_stability(c->difficulty, c->stability, r, rating);
        }
        c->difficulty = cl_fsrs_next_difficulty(c->difficulty, rating);
        c->stability = s < 0.1 ? 0.1 : s;
    }
    c->reps++;
    c->last_review = now;
    if (rating == CL_AGAIN) {
        if (c->state == CL_CARD_REVIEW)
            c->lapses++;
        c->state = CL_CARD_LEARNING;
        c->due = now + CL_FSRS_RELEARN_SECONDS;
        return;
    }
    c->state = CL_CARD_REVIEW;
    double days = round(cl_fsrs_interval(c->stability, CL_FSRS_RETENTION));
    days = clamp(days, 1, CL_FSRS_MAX_INTERVAL_DAYS);
    c->due = now + (int64_t)days * 86400;
}

cl_rating cl_rating_for_score(double score)
{
    if (score < 0.5)
        return CL_AGAIN;
    if (score < 0.999)
        return CL_HARD;
    return CL_GOOD;
}
