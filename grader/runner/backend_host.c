/* backend_host.c: the engine's device operations on plain host memory.
 *
 * cudalab-run-host is built with this backend so the CPU test suite can drive the whole
 * engine (poisoning, guard zones, timing, verdicts, timeouts) with solutions written in
 * plain C: a "device pointer" is a malloc'd pointer and the stream is NULL. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend.h"

static char g_err[1024];

static int fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_err, sizeof g_err, fmt, ap);
    va_end(ap);
    return -1;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

const char *be_error(void) { return g_err; }
void *be_stream(void) { return NULL; }
int be_fatal(void) { return 0; }

int be_init(be_device *dev)
{
    memset(dev, 0, sizeof *dev);
    snprintf(dev->name, sizeof dev->name, "host (test backend)");
    snprintf(dev->uuid, sizeof dev->uuid, "HOST-0");
    dev->sms = 1;
    dev->mem_total = (size_t)1 << 30;
    dev->mem_free = (size_t)1 << 30;
    dev->is_host = 1;
    return 0;
}

int be_malloc(void **p, size_t bytes)
{
    *p = aligned_alloc(256, (bytes + 255) / 256 * 256 + 256);
    return *p ? 0 : fail("out of host memory (%zu bytes)", bytes);
}

void be_free(void *p) { free(p); }
int be_upload(void *dst, const void *src, size_t bytes) { memcpy(dst, src, bytes); return 0; }
int be_download(void *dst, const void *src, size_t bytes) { memcpy(dst, src, bytes); return 0; }
int be_memset(void *dst, int byte, size_t bytes) { memset(dst, byte, bytes); return 0; }

int be_fill(void *dst, size_t count, cl_dtype t, const cl_gen *g)
{
    for (size_t i = 0; i < count; i++) {
        switch (t) {
        case CL_F32: ((float *)dst)[i] = cl_gen_f32(g, i); break;
        case CL_F64: ((double *)dst)[i] = cl_gen_value(g, i); break;
        case CL_F16: ((uint16_t *)dst)[i] = cl_gen_f16(g, i); break;
        case CL_I32: ((int *)dst)[i] = (int)cl_gen_value(g, i); break;
        default: return fail("fill: unknown dtype %d", (int)t);
        }
    }
    return 0;
}

int be_sync(void) { return 0; }

int be_mem_info(size_t *free_bytes, size_t *total_bytes)
{
    *free_bytes = (size_t)1 << 30;
    *total_bytes = (size_t)1 << 30;
    return 0;
}

int be_call(be_launch_fn fn, void *state, const void *entry)
{
    fn(state, entry, NULL);
    return 0;
}

int be_timed_call(be_launch_fn fn, void *state, const void *entry, be_timing *t)
{
    double t0 = now_ms();
    fn(state, entry, NULL);
    double t1 = now_ms();
    t->event_ms = t1 - t0;
    t->wall_ms = t1 - t0;
    t->tail_ms = 0;
    return 0;
}

int be_sum(const void *src, size_t count, cl_dtype t, double *sum, double *abs_sum)
{
    double s = 0, a = 0;
    for (size_t i = 0; i < count; i++) {
        double v;
        switch (t) {
        case CL_F32: v = ((const float *)src)[i]; break;
        case CL_F64: v = ((const double *)src)[i]; break;
        case CL_F16: v = cl_f16_to_f32(((const uint16_t *)src)[i]); break;
        case CL_I32: v = ((const int *)src)[i]; break;
        default: return fail("sum: unknown dtype %d", (int)t);
        }
        s += v;
        a += v < 0 ? -v : v;
    }
    *sum = s;
    *abs_sum = a;
    return 0;
}
