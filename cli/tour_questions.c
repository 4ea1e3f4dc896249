/* tour_questions.c: the question bank's part of the tour: topics and counts, loaded with
 * the bank's own loader (the same rules `cudalab lint` applies). */
#include "tour_questions.h"

#include "paths.h"
#include "questions/bank.h"
#include "term.h"

static void count_problem(void *ctx, const char *msg)
{
    (void)msg;
    (*(int *)ctx)++;
}

void cl_tour_questions(FILE *f)
{
    char dir[CL_PATH_MAX];
    snprintf(dir, sizeof dir, "%s/questions", cl_home_dir());
    cl_bank b;
    cl_bank_init(&b);
    int problems = 0;
    cl_bank_load_dir(&b, dir, count_problem, &problems);
    for (int i = 0; i < b.ntopics; i++)
        fprintf(f, "  %-16s %3d questions  %s\n", b.topics[i].name, b.topics[i].nquestions,
                b.topics[i].title.en ? b.topics[i].title.en : "");
    if (!b.ntopics)
        fprintf(f, "  (no question files under %s)\n", dir);
    else
        fprintf(f, "  %d questions in %d topics: %scudalab quiz%s, %scudalab review%s, %scudalab interview%s\n", b.nq,
                b.ntopics, cl_c(f, CL_BOLD), cl_c0(f), cl_c(f, CL_BOLD), cl_c0(f), cl_c(f, CL_BOLD), cl_c0(f));
    if (problems)
        fprintf(f, "  %s%d problem%s in the bank files: run cudalab lint%s\n", cl_c(f, CL_YELLOW), problems,
                problems == 1 ? "" : "s", cl_c0(f));
    cl_bank_free(&b);
}
