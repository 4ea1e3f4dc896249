/* link_proto.c: sending and receiving the judge <-> exec messages (see link_proto.h). */
#include "link_proto.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int cl_lm_send(int sock, const cl_lmsg *m, int fd)
{
    struct iovec iov = {(void *)m, sizeof *m};
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } ctl;
    struct msghdr mh;
    memset(&mh, 0, sizeof mh);
    mh.msg_iov = &iov;
    mh.msg_iovlen = 1;
    if (fd >= 0) {
        memset(&ctl, 0, sizeof ctl);
        mh.msg_control = ctl.buf;
        mh.msg_controllen = sizeof ctl.buf;
        struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(c), &fd, sizeof fd);
    }
    for (;;) {
        ssize_t n = sendmsg(sock, &mh, MSG_NOSIGNAL);
        if (n == (ssize_t)sizeof *m)
            return 0;
        if (n < 0 && errno == EINTR)
            continue;
        return -1;
    }
}

int cl_lm_recv(int sock, cl_lmsg *m, int *fd, int timeout_ms)
{
    if (fd)
        *fd = -1;
    struct pollfd p = {sock, POLLIN, 0};
    for (;;) {
        int r = poll(&p, 1, timeout_ms);
        if (r < 0 && errno == EINTR)
            continue;
        if (r == 0)
            return -2;
        if (r < 0)
            return -1;
        break;
    }
    struct iovec iov = {m, sizeof *m};
    union {
        char buf[CMSG_SPACE(sizeof(int) * 4)];
        struct cmsghdr align;
    } ctl;
    struct msghdr mh;
    memset(&mh, 0, sizeof mh);
    mh.msg_iov = &iov;
    mh.msg_iovlen = 1;
    mh.msg_control = ctl.buf;
    mh.msg_controllen = sizeof ctl.buf;
    ssize_t n;
    do
        n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
    while (n < 0 && errno == EINTR);
    int got_fd = -1;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
            continue;
        size_t nfd = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < nfd; i++) {
            int f;
            memcpy(&f, CMSG_DATA(c) + i * sizeof(int), sizeof f);
            if (got_fd < 0 && fd)
                got_fd = f;
            else
                close(f); /* one descriptor a message, and only where one is expected */
        }
    }
    if (n != (ssize_t)sizeof *m || (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
        if (got_fd >= 0)
            close(got_fd);
        return n <= 0 ? -1 : -3;
    }
    m->text[sizeof m->text - 1] = '\0';
    if (fd)
        *fd = got_fd;
    return 0;
}

void cl_lm_trace(const char *who, const char *fmt, ...)
{
    static int on = -1;
    if (on < 0)
        on = getenv("CUDALAB_TRACE") != NULL;
    if (!on)
        return;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    fprintf(stderr, "[%ld.%06ld %s] %s\n", (long)ts.tv_sec, ts.tv_nsec / 1000, who, buf);
}
