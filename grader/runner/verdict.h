/* verdict.h: the runner's side of the verdict channel.
 *
 * One JSON object per line on a private file descriptor (not stdout/stderr, which belong
 * to the solution), each carrying the nonce the parent sent on stdin. The parent trusts
 * nothing else: a run without a final "done" line with the right nonce has FAILED. */
#ifndef CUDALAB_VERDICT_H
#define CUDALAB_VERDICT_H

#include <jansson.h>

typedef struct cl_verdict_out {
    int fd;
    char nonce[80];
} cl_verdict_out;

/* Moves fd to a random high descriptor (closing the original) so a solution cannot
 * guess it, and remembers the nonce. */
int cl_verdict_open(cl_verdict_out *vo, int fd, const char *nonce);
/* Adds "event" and "nonce" to obj, writes it as one line, and releases obj. */
int cl_verdict_emit(cl_verdict_out *vo, const char *event, json_t *obj);

#endif
