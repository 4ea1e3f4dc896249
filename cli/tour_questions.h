/* tour_questions.h: the question-bank part of the tour (what works without a GPU). */
#ifndef CUDALAB_TOUR_QUESTIONS_H
#define CUDALAB_TOUR_QUESTIONS_H

#include <jansson.h>
#include <stdio.h>

/* Prints the topics and counts (json NULL), or adds them to json as "questions". */
void cl_tour_questions(FILE *f, json_t *json);

#endif
