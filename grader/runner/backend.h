/* backend.h: the device operations the engine needs, with two implementations:
 *   backend_cuda.cu  the real one (cudalab-run, the judge): CUDA runtime and driver, kernels
 *                    for fills, hashes, stamps and sentinels, VMM memory shared by descriptor
 *   backend_host.c   plain memory (cudalab-run-host): memfds shared with the solution's
 *                    process, so the CPU test suite drives the whole protocol with plain-C
 *                    solutions.
 * Every function returns 0 or -1 with be_error() describing the failure. */
#ifndef CUDALAB_BACKEND_H
#define CUDALAB_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "grader/gen.h"

typedef struct be_device {
    char name[256];
    char uuid[64];
    int cc_major, cc_minor;
    int sms;
    int clock_mhz, mem_clock_mhz, bus_width_bits;
    size_t mem_total, mem_free;
    int l2_bytes;
    int driver_version, runtime_version;
    int is_host; /* the host backend */
} be_device;

/* The solution host that goes with this backend (cudalab-exec or cudalab-exec-host). */
extern const char be_exec_name[];

int be_init(be_device *dev);
/* The device memory free now (after be_init). 0 or -1. */
int be_mem_free(size_t *free_bytes);
const char *be_error(void);

int be_malloc(void **p, size_t bytes);
void be_free(void *p);
int be_upload(void *dst, const void *src, size_t bytes);
int be_download(void *dst, const void *src, size_t bytes);
int be_memset(void *dst, int byte, size_t bytes);
int be_fill(void *dst, size_t count, cl_dtype t, const cl_gen *g);
/* Waits for the device and reports any error the solution caused (sticky or not). */
int be_sync(void);
/* 1 after an error that leaves the device unusable (the runner must stop). */
int be_fatal(void);
int be_mem_info(size_t *free_bytes, size_t *total_bytes);
/* ---- memory shared with the solution's process ---- */

/* Device memory the exec can map: *p is the judge's address, *fd a descriptor to send
 * (LM_MAP; the caller closes it), *map_bytes the size to map (bytes rounded up to the
 * sharing granularity). Free with be_share_free. */
int be_share_alloc(void **p, size_t bytes, size_t *map_bytes, int *fd);
void be_share_free(void *p, size_t map_bytes);
/* Device-to-device copy on the judge's stream (the snapshot of outputs). */
int be_copy(void *dst, const void *src, size_t bytes);
/* A keyed hash of bytes at p (a grader kernel on the GPU): inputs are compared with it
 * after every call. The key is secret, drawn per case. */
int be_hash(const void *p, size_t bytes, uint64_t key, uint64_t *h);
/* fp64 sum and sum of |x| of count generated elements, straight from the generator: a
 * reference no solution can have touched. */
int be_gen_sum(size_t count, cl_dtype t, const cl_gen *g, double *sum, double *abs_sum);
/* The index of the first fp16 NaN among count halves at p, or -1 (a grader kernel on the
 * GPU: a checker's scan of a whole output without downloading it). */
int be_find_nan16(const void *p, size_t count, long long *first);
/* L2 flush before a timed call (a grader kernel on the judge's stream). */
int be_flush_l2(void);

/* ---- the trusted bracket around a call (GPU; the host backend has none) ---- */

/* Allocates and exports the go word (device memory, read-only for the exec) and the done
 * word (host memory, a memfd, that the exec's stream writes and the judge's host reads).
 * 0 (fds and sizes set), 1 (none: host backend), -1. */
int be_words_export(int *go_fd, size_t *go_bytes, int *done_fd, size_t *done_bytes);
/* Whether the done word has reached k (a read of host memory: no CUDA call). */
int be_done_reached(uint64_t k);
/* Starts the sentinel that sees any other context take the GPU while the judge prepares. */
int be_sentinel_start(void);
/* Stamps t0, ends that sentinel, and sets go = k on the judge's stream. */
int be_go(uint64_t k);
/* The judge's stream waits for done >= k, stamps t1 and starts the snapshot sentinel. */
int be_wait_done(uint64_t k);
/* Ends the snapshot sentinel (after the snapshot copies). */
int be_sentinel_end(void);
/* Waits for the judge's streams, at most timeout_s (<= 0: no limit); then t1 - t0 and the
 * largest sentinel gap. */
int be_settle(double timeout_s, double *bracket_ms, double *gap_us, int *timed_out);
/* Writes done = k, so a judge stream waiting on a failed exec drains. */
void be_unblock(uint64_t k);

#endif
