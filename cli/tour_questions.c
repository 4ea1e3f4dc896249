/* tour_questions.c: the question bank's part of the tour: topics and counts, loaded with
 * the bank's own loader (the same rules `cudalab lint` applies). */
#include "tour_questions.h"

#include "i18n.h"
#include "paths.h"
#include "questions/bank.h"
#include "term.h"

static void count_problem(void *ctx, const char *msg)
{
    (void)msg;
    (*(int *)ctx)++;
}

void cl_tour_questions(FILE *f, json_t *json)
{
    char dir[CL_PATH_MAX];
    snprintf(dir, sizeof dir, "%s/questions", cl_home_dir());
    cl_bank b;
    cl_bank_init(&b);
    int problems = 0;
    cl_bank_load_dir(&b, dir, count_problem, &problems);
    if (json) {
        json_t *topics = json_array();
        for (int i = 0; i < b.ntopics; i++)
            json_array_append_new(topics, json_pack("{s:s, s:i, s:s?, s:s?}", "topic", b.topics[i].name,
                                                    "questions", b.topics[i].nquestions, "title", b.topics[i].title.en,
                                                    "title_zh", b.topics[i].title.zh));
        json_object_set_new(json, "questions",
                            json_pack("{s:i, s:o, s:i}", "total", b.nq, "topics", topics, "problems", problems));
        cl_bank_free(&b);
        return;
    }
    for (int i = 0; i < b.ntopics; i++) {
        fprintf(f, "  ");
        cl_fput_padded(b.topics[i].name, 16, f);
        fprintf(f, " %3d %s  %s\n", b.topics[i].nquestions, CL_T("questions"), cl_qtext_get(&b.topics[i].title, cl_lang_current()));
    }
    if (!b.ntopics)
        fprintf(f, CL_T("  (no question files under %s)\n"), dir);
    else
        fprintf(f, CL_T("  %d questions in %d topics: %scudalab quiz%s, %scudalab review%s, %scudalab interview%s\n"),
                b.nq, b.ntopics, cl_c(f, CL_BOLD), cl_c0(f), cl_c(f, CL_BOLD), cl_c0(f), cl_c(f, CL_BOLD), cl_c0(f));
    if (problems)
        fprintf(f, CL_T("  %s%d problem(s) in the question files: run cudalab lint%s\n"), cl_c(f, CL_YELLOW), problems,
                cl_c0(f));
    cl_bank_free(&b);
}
