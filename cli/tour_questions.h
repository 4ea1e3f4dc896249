/* tour_questions.h: the question-bank part of the tour (what works without a GPU). */
#ifndef CUDALAB_TOUR_QUESTIONS_H
#define CUDALAB_TOUR_QUESTIONS_H

#include <stdio.h>

void cl_tour_questions(FILE *f);

#endif
