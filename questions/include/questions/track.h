/* track.h: the interview tracks, each a list of question topics and preferred labs. */
#ifndef CUDALAB_Q_TRACK_H
#define CUDALAB_Q_TRACK_H

#include "lang.h"

typedef enum { CL_TRACK_CUDA = 0, CL_TRACK_INFERENCE, CL_TRACK_COMPILER, CL_NTRACKS } cl_track;

int cl_track_parse(const char *name, cl_track *out);
const char *cl_track_name(cl_track t);
/* The track as a person reads it, in lang ("LLM inference" / "大模型推理"). */
const char *cl_track_title(cl_track t, cl_lang lang);
/* The question topics of a track, most central first (NULL-terminated). */
const char *const *cl_track_topics(cl_track t);
/* Lab names a track prefers, in order (NULL-terminated). */
const char *const *cl_track_labs(cl_track t);

#endif
