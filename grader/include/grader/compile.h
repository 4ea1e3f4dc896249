/* compile.h: a solution .cu -> a shared object, with nvcc, cached.
 *
 * The flags are the lab's contract: -O3 -std=c++17 -shared -Xcompiler -fPIC -cudart shared,
 * machine code for exactly one architecture (this GPU's, or --arch), and the ABI header
 * on the include path. Results are cached under $XDG_CACHE_HOME/cudalab/build by a hash
 * of the source, the header, the flags and the nvcc version. nvcc's messages are kept as
 * the compiler wrote them (file(line): error: ...). */
#ifndef CUDALAB_COMPILE_H
#define CUDALAB_COMPILE_H

#include <stddef.h>

#include "err.h"

typedef struct cl_gpu_info {
    int present;
    int cc_major, cc_minor;
    char name[128];
} cl_gpu_info;

typedef struct cl_compile_opts {
    const char *source;      /* the .cu file */
    const char *arch;        /* "sm_90", "90", "sm_90a"; NULL: this GPU's (sm_80 without one) */
    const char *arch_suffix; /* "a": Hopper's sm_90a when the GPU is one ("" otherwise) */
    const char *extra_flags; /* the lab's nvcc_flags */
    int lineinfo;            /* -lineinfo, so the sanitizer can name source lines */
    const cl_gpu_info *gpu;  /* this GPU when the caller already asked; NULL: ask */
} cl_compile_opts;

typedef struct cl_compile_result {
    int ok;
    int cached;
    char so_path[4096];
    char arch[32];       /* as compiled: "sm_90a" */
    char note[256];      /* e.g. "no GPU found: compiled for sm_80" */
    double seconds;
    char *log;           /* compiler output, or NULL */
    char command[4096];
} cl_compile_result;

/* The first visible GPU (honours CUDA_VISIBLE_DEVICES), asked of nvidia-smi, else of
 * cudalab-probe. Never initialises CUDA in this process. */
void cl_detect_gpu(cl_gpu_info *gpu);
/* The first visible GPU's UUID ("GPU-...") and driver version ("580.159.04"), asked of
 * nvidia-smi; -1 without nvidia-smi or a GPU. */
int cl_gpu_identity(char *uuid, size_t uuid_n, char *driver, size_t driver_n);
/* The nvcc to use: $CUDALAB_NVCC, nvcc on PATH, or /usr/local/cuda/bin/nvcc; NULL if none. */
const char *cl_nvcc_path(void);

/* A tool of the toolkit nvcc belongs to ("cuobjdump", "compute-sanitizer"): its path in
 * out, 0 when it is there and executable, -1 otherwise. */
int cl_cuda_tool(const char *name, char *out, size_t n);

/* Compiles. Returns -1 only when compiling was impossible (no nvcc, no cache dir);
 * a compile error is res->ok == 0 with res->log. Free with cl_compile_result_free. */
int cl_compile(const cl_compile_opts *o, cl_compile_result *res, cl_err *err);
void cl_compile_result_free(cl_compile_result *res);

#endif
