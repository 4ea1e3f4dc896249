/* backend.h: the device operations the engine needs, with two implementations:
 *   backend_cuda.cu  the real one (cudalab-run): CUDA runtime, kernels for fills
 *   backend_host.c   plain memory (cudalab-run-host): lets the CPU test suite drive the
 *                    whole engine with plain-C solutions.
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

typedef void (*be_launch_fn)(void *state, const void *entry, void *stream);

typedef struct be_timing {
    double event_ms; /* stream events around the call */
    double wall_ms;  /* start event to an event after device-wide idle */
    double tail_ms;  /* device still busy after the stream's stop event (host clock) */
} be_timing;

int be_init(be_device *dev);
const char *be_error(void);
/* The stream handed to solutions (a cudaStream_t, NULL on the host). */
void *be_stream(void);

int be_malloc(void **p, size_t bytes);
void be_free(void *p);
int be_upload(void *dst, const void *src, size_t bytes);
int be_download(void *dst, const void *src, size_t bytes);
int be_memset(void *dst, int byte, size_t bytes);
int be_fill(void *dst, size_t count, cl_dtype t, const cl_gen *g);
/* fp64 sum and sum of |x| of count elements (a trusted grader kernel). */
int be_sum(const void *src, size_t count, cl_dtype t, double *sum, double *abs_sum);
/* Waits for the device and reports any error the solution caused (sticky or not). */
int be_sync(void);
/* 1 after an error that leaves the device unusable (the runner must stop). */
int be_fatal(void);
int be_mem_info(size_t *free_bytes, size_t *total_bytes);
/* Calls fn once, timed. Before the start event the L2 cache is evicted (by reading a
 * buffer twice its size) and the GPU is kept busy for a while, so the launch latency of
 * the host is not in the measurement. event_ms: events on the stream around the call;
 * wall_ms: from the start event to an event recorded once the whole device is idle
 * (covers work on other streams); tail_ms: host time the device stayed busy after the
 * stream's stop event. */
int be_timed_call(be_launch_fn fn, void *state, const void *entry, be_timing *t);
/* An untimed call followed by a sync. */
int be_call(be_launch_fn fn, void *state, const void *entry);

#endif
