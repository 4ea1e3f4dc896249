/* question.h: one question of the bank, as the rest of cudalab sees it.
 *
 * A question is either static (everything comes from questions/<topic>.yaml) or a
 * family entry (family != NULL: the YAML names a generator in questions/gen/, which
 * fills type, prompt, choices, answer and explanation from a seed; see family.h).
 * Graders, the quiz and the exam only ever see concrete questions. */
#ifndef CUDALAB_Q_QUESTION_H
#define CUDALAB_Q_QUESTION_H

#include <stdint.h>

#include "lang.h" /* cl_lang, cl_lang_pick, CL_TR: one language setting for all of cudalab */

#define CL_Q_MAX_CHOICES 8
#define CL_Q_MIN_ITEMS 3
#define CL_Q_MAX_ITEMS 8
#define CL_Q_MAX_VARIANTS 5
#define CL_Q_MAX_PARAMS 12

typedef enum {
    CL_Q_SINGLE = 0,
    CL_Q_MULTI,
    CL_Q_NUMERIC,
    CL_Q_ORDER,
    CL_Q_SHORT,
    CL_Q_NTYPES
} cl_qtype;

/* What a question asks the candidate to do (the `kind` key; lint reports the mix):
 * recall a fact, explain a mechanism, apply it (compute a figure), or analyse (predict
 * what code does, find the bug, choose and justify a design). */
typedef enum {
    CL_KIND_RECALL = 0,
    CL_KIND_UNDERSTAND,
    CL_KIND_APPLY,
    CL_KIND_ANALYSE,
    CL_KIND_N
} cl_qkind;

/* A text in both languages. */
typedef struct cl_qtext {
    const char *en;
    const char *zh;
} cl_qtext;

/* One key point of a short-answer rubric: matched when any alternative occurs, or when
 * the answer holds a number within tolerance of `number` (has_number). `label` names the
 * point in feedback ("subtract the row maximum" / "减去行最大值"); may be empty. */
typedef struct cl_kwgroup {
    int nalts;
    const char **alts;
    cl_qtext label;
    int has_number;
    double number, tol_abs, tol_rel;
} cl_kwgroup;

typedef struct cl_question {
    const char *id;
    const char *topic;
    cl_qtext topic_title; /* the topic file's `title` (empty in a question built by hand) */
    const char *file; /* where it was defined, for messages */
    int line;
    int difficulty;  /* 1..5 */
    const char *family; /* generator name, or NULL for a static question */
    uint64_t seed;      /* the seed a generated question was drawn from */
    int nvariants;      /* family entry: the generator variants a draw picks from */
    int variants[CL_Q_MAX_VARIANTS];
    int variant;        /* a generated question: the variant drawn (1..5) */
    int nparams;        /* a generated question: its drawn parameters (lint recomputes) */
    double params[CL_Q_MAX_PARAMS];
    cl_qkind kind;

    cl_qtype type;
    cl_qtext prompt;
    cl_qtext explanation;
    int ntags;
    const char **tags;
    int nrefs;
    const char **refs;
    int nseeds;
    const char **seeds; /* "002:8" */

    /* single, multi */
    int nchoices;
    cl_qtext choices[CL_Q_MAX_CHOICES];
    int answer;          /* single: 0-based index */
    unsigned answer_set; /* multi: bit i set = choice i is right */

    /* numeric */
    double number;
    double tol_abs, tol_rel; /* one of them is used; the other is 0 */
    const char *unit;        /* may be "" */

    /* order: items in the correct order */
    int nitems;
    cl_qtext items[CL_Q_MAX_ITEMS];

    /* short */
    cl_qtext model_answer;
    int need;
    int ngroups;
    cl_kwgroup *groups;
} cl_question;

const char *cl_qtype_name(cl_qtype t);
const char *cl_qkind_name(cl_qkind k);
/* -1 when name is not a kind. */
int cl_qkind_parse(const char *name);
/* A unit in lang: "bytes" -> "字节", "sectors" -> "个 sector"; unknown units unchanged. */
const char *cl_unit_text(const char *unit, cl_lang lang);
/* -1 when name is not a type. */
int cl_qtype_parse(const char *name);
/* The text in lang, falling back to English. Never NULL. */
const char *cl_qtext_get(const cl_qtext *t, cl_lang lang);
/* The name a person reads for a question's topic: its title in lang, else the topic id. */
const char *cl_topic_display(const cl_qtext *title, const char *topic, cl_lang lang);
/* Does the question carry this tag? */
int cl_question_has_tag(const cl_question *q, const char *tag);
/* Number of tags two questions share. */
int cl_question_shared_tags(const cl_question *a, const cl_question *b);


#endif
