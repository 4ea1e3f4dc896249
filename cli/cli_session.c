/* cli_session.c: the --json summary of quiz and review (see cli_session.h). */
#include "cli_session.h"

#include <stdio.h>
#include <stdlib.h>

json_t *cl_cli_session_json(const char *mode, uint64_t seed, const cl_session_result *r)
{
    json_t *topics = json_array();
    for (int i = 0; i < r->ntopics; i++) {
        const cl_topic_tally *t = &r->topics[i];
        json_array_append_new(topics, json_pack("{s:s, s:s, s:s, s:i, s:f}", "topic", t->topic ? t->topic : "",
                                                "title", cl_topic_display(&t->title, t->topic, CL_LANG_EN),
                                                "title_zh", cl_topic_display(&t->title, t->topic, CL_LANG_ZH),
                                                "asked", t->asked, "points", t->points));
    }
    return json_pack("{s:s, s:I, s:i, s:i, s:i, s:i, s:i, s:f, s:f, s:b, s:i, s:o}", "mode", mode, "seed",
                     (json_int_t)seed, "asked", r->asked, "right", r->right, "partial", r->partial, "wrong", r->wrong,
                     "skipped", r->skipped, "points", r->points, "percent",
                     r->asked ? 100.0 * r->points / r->asked : 0.0, "ended_early", r->ended_early, "deck_added",
                     r->deck_added, "topics", topics);
}

void cl_cli_json_print(json_t *o)
{
    char *s = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    if (s)
        puts(s);
    free(s);
    json_decref(o);
}
