/* link_proto.h: the messages between the judge (cudalab-run) and the solution's process
 * (cudalab-exec), over a SOCK_SEQPACKET socket that is the exec's descriptor 3.
 *
 * The judge drives; the exec answers. Shared memory crosses as file descriptors attached
 * to LM_MAP messages (SCM_RIGHTS): memfds on the host backend, CUDA VMM allocations
 * exported as POSIX descriptors on the GPU. The exec is untrusted once the solution is
 * loaded: the judge checks every reply's type and order, and a reply can only ever fail a
 * run (a wrong order, an early end, a reported error), never pass one. */
#ifndef CUDALAB_LINK_PROTO_H
#define CUDALAB_LINK_PROTO_H

#include <stdint.h>

#include "callargs.h"

#define CL_EXEC_FD 3

typedef enum cl_lm_type {
    /* judge -> exec */
    LM_MAP = 1,     /* id, bytes, readonly; one descriptor attached */
    LM_UNMAP_ALL,   /* the case is over: unmap every case buffer */
    LM_LOAD,        /* install the jail, load the solution, find the entry */
    LM_CALL,        /* k, args, builtin: arm call k (GPU: enqueue it behind go >= k) */
    LM_GO,          /* host backend: make call k now (the GPU uses the go word) */
    LM_KERNELS,     /* k: the k-th kernel launched inside the calls (answered LM_KERNEL) */
    /* exec -> judge */
    LM_HELLO = 100, /* the device is up: text = device name */
    LM_ACK,
    LM_LOADED,      /* status 0, or the failure in text (status: CL_LS_*) */
    LM_ARMED,
    LM_DONE,        /* status 0 (ev_ms: the exec's own event time) or an error in text */
    LM_KERNEL,      /* status CL_KS_*: text = the kernel's mangled name when CL_KS_NAME */
} cl_lm_type;

/* LM_KERNEL status */
enum { CL_KS_NAME = 0, CL_KS_END = 1, CL_KS_UNTRACKED = 2 };

/* LM_MAP ids below 0: the protocol's own words (GPU) */
#define CL_MAP_GO (-1)   /* written by the judge, read-only in the exec */
#define CL_MAP_DONE (-2) /* written by the exec's stream when call k is finished */

/* LM_LOADED status */
enum { CL_LS_OK = 0, CL_LS_LOAD_ERROR = 1, CL_LS_MISSING_SYMBOL = 2, CL_LS_JAIL = 3 };
/* LM_DONE status */
enum { CL_DS_OK = 0, CL_DS_CUDA_ERROR = 1, CL_DS_FATAL = 2, CL_DS_BAD_CALL = 3, CL_DS_READONLY = 4 };

typedef struct cl_lmsg {
    uint32_t type;
    int32_t status;
    uint64_t k;
    int32_t id;
    int32_t readonly;
    int32_t builtin; /* LM_CALL: the exec's own trusted copy kernel (calibration) */
    uint64_t bytes;
    double ev_ms;
    char text[1024];
    cl_args args;
} cl_lmsg;

/* CUDALAB_TRACE=1: each side prints the protocol's steps with a timestamp on stderr. */
void cl_lm_trace(const char *who, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Sends m (and fd when >= 0). 0 or -1. */
int cl_lm_send(int sock, const cl_lmsg *m, int fd);
/* Receives one message (and a descriptor into *fd, -1 when none; fd may be NULL to close
 * any). timeout_ms < 0 waits for ever. 0, -1 on EOF or error, -2 on timeout, -3 for
 * something that is not a message of this protocol. */
int cl_lm_recv(int sock, cl_lmsg *m, int *fd, int timeout_ms);

#endif
