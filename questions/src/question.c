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

const char *cl_topic_display(const cl_qtext *title, const char *topic, cl_lang lang)
{
    const char *s = title ? cl_qtext_get(title, lang) : "";
    return *s ? s : topic ? topic : "";
}

static const char *const kind_names[CL_KIND_N] = {"recall", "understand", "apply", "analyse"};

const char *cl_qkind_name(cl_qkind k)
{
    return (unsigned)k < CL_KIND_N ? kind_names[k] : "?";
}

int cl_qkind_parse(const char *name)
{
    for (int i = 0; i < CL_KIND_N; i++)
        if (name && !strcmp(name, kind_names[i]))
            return i;
    return -1;
}

/* Units as the bank writes them, with the words a Chinese reader expects. */
static const struct {
    const char *en, *zh;
} unit_names[] = {
    {"bytes", "字节"},   {"byte", "字节"},         {"blocks", "个线程块"}, {"threads", "个线程"},
    {"sectors", "个 sector"}, {"iterations", "次"}, {"x", "倍"},           {"warps", "个线程束"},
    {"cycles", "个周期"}, {"steps", "步"},          {"instructions", "条指令"}, {"GB", "GB"},
    {"ms", "毫秒"},      {"us", "微秒"},          {"µs", "微秒"},         {"s", "秒"},
    {"lines", "行"},     {"registers", "个寄存器"}, {"ways", "路"},         {"stages", "级"},
    {"tokens", "个 token"}, {"requests", "个请求"}, {"GPUs", "块 GPU"},     {"bits", "位"},
    {"billion", "十亿"}, {"elements", "个元素"},   {"KB", "KB"},           {"MB", "MB"},
    {"wavefronts", "个 wavefront"}, {"values", "个值"}, {"token slots", "个 token 槽位"},
    {"sequences", "条序列"}, {"orders", "种顺序"}, {"allocations", "次分配"},
    {"all-reduces", "次 all-reduce"}, {"clocks", "个时钟周期"}, {"instructions/clock", "条指令/时钟"},
    {"SMs", "个 SM"},
};

const char *cl_unit_text(const char *unit, cl_lang lang)
{
    if (!unit)
        return "";
    if (lang != CL_LANG_ZH)
        return unit;
    for (size_t i = 0; i < sizeof unit_names / sizeof *unit_names; i++)
        if (!strcmp(unit, unit_names[i].en))
            return unit_names[i].zh;
    return unit;
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

