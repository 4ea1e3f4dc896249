/* callargs.h: one call of a solution's entry point, as data.
 *
 * The judge (cudalab-run) never calls student code. A checker describes the call it wants
 * (each argument: a pointer into one of the case's shared buffers, an integer, a float, or
 * one struct of plain bytes whose pointer fields are named), the judge sends that
 * description to the solution's process (cudalab-exec), and the exec, which has the same
 * buffers mapped at addresses of its own, rebuilds the arguments and makes the call through
 * libffi. Nothing in it is a pointer of the judge's: a struct of fixed size, safe to copy
 * across the socket and checked field by field on arrival. */
#ifndef CUDALAB_CALLARGS_H
#define CUDALAB_CALLARGS_H

#include <stddef.h>
#include <stdint.h>

#define CL_MAX_ARGS 16
#define CL_MAX_BLOB 512
#define CL_MAX_BLOB_PTRS 16
#define CL_MAX_SHARED 32 /* shared buffers of one case */

typedef enum cl_arg_kind {
    CL_ARG_PTR = 1, /* buffer id + byte offset (id -1: a NULL pointer) */
    CL_ARG_I32,
    CL_ARG_I64,
    CL_ARG_F32,
    CL_ARG_BLOB,    /* a pointer to the call's blob, with its pointer fields patched */
} cl_arg_kind;

typedef struct cl_arg {
    int32_t kind;
    int32_t buf;
    uint64_t off;
    int64_t i;
    float f;
} cl_arg;

typedef struct cl_blob_ptr {
    uint32_t at; /* byte offset of the pointer field in the blob */
    int32_t buf;
    uint64_t off;
} cl_blob_ptr;

typedef struct cl_args {
    int32_t n;
    cl_arg a[CL_MAX_ARGS];
    uint32_t blob_len;
    int32_t nptr;
    cl_blob_ptr ptr[CL_MAX_BLOB_PTRS];
    unsigned char blob[CL_MAX_BLOB];
    int32_t overflow; /* the checker asked for more than fits: a checker bug */
} cl_args;

#endif
