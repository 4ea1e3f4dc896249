/* verdict.c: writes verdict lines to the private descriptor. */
#include "verdict.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int cl_verdict_open(cl_verdict_out *vo, int fd, const char *nonce)
{
    snprintf(vo->nonce, sizeof vo->nonce, "%s", nonce);
    vo->fd = -1;
    if (fd < 0)
        return 0;
    srand((unsigned)time(NULL) ^ (unsigned)getpid());
    int lo = 300 + rand() % 700;
    int nfd = fcntl(fd, F_DUPFD_CLOEXEC, lo);
    if (nfd < 0)
        return -1;
    close(fd);
    vo->fd = nfd;
    return 0;
}

int cl_verdict_emit(cl_verdict_out *vo, const char *event, json_t *obj)
{
    json_object_set_new(obj, "event", json_string(event));
    json_object_set_new(obj, "nonce", json_string(vo->nonce));
    char *line = json_dumps(obj, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(obj);
    if (!line)
        return -1;
    size_t len = strlen(line);
    line[len] = '\n'; /* json_dumps leaves room for the NUL we replace */
    int rc = 0;
    if (vo->fd < 0) {
        fwrite(line, 1, len + 1, stdout);
        fflush(stdout);
    } else {
        const char *p = line;
        size_t left = len + 1;
        while (left) {
            ssize_t w = write(vo->fd, p, left);
            if (w < 0 && errno == EINTR)
                continue;
            if (w < 0) { rc = -1; break; }
            p += w;
            left -= (size_t)w;
        }
    }
    free(line);
    return rc;
}
