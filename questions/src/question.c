/* question.c: small helpers over cl_question (the language setting is common/lang.c). */
#include "questions/question.h"

#include <stdlib.h>
#include <string.h>

static const char *const type_names[CL_Q_NTYPES] = {"single", "multi", "numeric", "order", "short"};

const char *cl_qtype_name(cl_qtype t)
{
    return (unsigned)t < CL_Q_NTYPES ? type_names[t] : "?";
}

int cl_qtype_parse(const char *name)
{
    for (int i = 0; i < CL_Q_NTYPES; i++)
        if (name && !strcmp(name, type_names[i]))
            return i;
    return -1;
}

const char *cl_qtext_get(const cl_qtext *t, cl_lang lang)
{
    if (lang == CL_LANG_ZH && t->zh && *t->zh)
        return t->zh;
    if (t->en)
        return t->en;
    return t->zh ? t->zh : "";
}

int cl_question_has_tag(const cl_question *q, const char *tag)
{
    for (int i = 0; i < q->ntags; i++)
        if (!strcmp(q->tags[i], tag))
            return 1;
    return 0;
}

int cl_question_shared_tags(const cl_question *a, const cl_question *b)
{
    int n = 0;
    for (int i = 0; i < a->ntags; i++)
        n += cl_question_has_tag(b, a->tags[i]);
    return n;
}

