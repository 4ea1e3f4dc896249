/* backend_host.c: the engine's device operations on plain host memory.
 *
 * cudalab-run-host is built with this backend so the CPU test suite can drive the whole
 * judge (the protocol with the solution's process, poisoning, guard zones, timing,
 * verdicts, timeouts) with solutions written in plain C: a "device pointer" is host
 * memory, and memory shared with the solution's process is a memfd it maps. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "backend.h"

const char be_exec_name[] = "cudalab-exec-host";
static char g_err[1024];

static int fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_err, sizeof g_err, fmt, ap);
    va_end(ap);
    return -1;
}

const char *be_error(void) { return g_err; }
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

int be_mem_free(size_t *free_bytes)
{
    *free_bytes = (size_t)1 << 30;
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
    uint64_t key[CL_GEN_KEYS];
    cl_gen_keys(g, key);
    for (size_t i = 0; i < count; i++) {
        double v = cl_gen_value_keyed(g, key, i);
        switch (t) {
        case CL_F32: ((float *)dst)[i] = (float)v; break;
        case CL_F64: ((double *)dst)[i] = v; break;
        case CL_F16: ((uint16_t *)dst)[i] = cl_f32_to_f16((float)v); break;
        case CL_I32: ((int *)dst)[i] = (int)v; break;
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

int be_share_alloc(void **p, size_t bytes, size_t *map_bytes, int *fd)
{
    size_t page = 4096, n = (bytes + page - 1) / page * page;
    if (!n)
        n = page;
    int f = memfd_create("cudalab-buffer", MFD_CLOEXEC);
    if (f < 0)
        return fail("memfd_create: %s", strerror(errno));
    if (ftruncate(f, (off_t)n)) {
        close(f);
        return fail("out of shared memory (%zu bytes): %s", n, strerror(errno));
    }
    void *m = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED, f, 0);
    if (m == MAP_FAILED) {
        close(f);
        return fail("mmap (%zu bytes): %s", n, strerror(errno));
    }
    *p = m;
    *fd = f;
    *map_bytes = n;
    return 0;
}

void be_share_free(void *p, size_t map_bytes)
{
    if (p)
        munmap(p, map_bytes);
}

int be_hash(const void *p, size_t bytes, uint64_t key, uint64_t *h)
{
    const unsigned char *b = p;
    uint64_t acc = 0;
    size_t i = 0;
    for (; i + 8 <= bytes; i += 8) {
        uint64_t w;
        memcpy(&w, b + i, 8);
        acc += cl_mix64(w ^ key ^ (i * 0x9E3779B97F4A7C15ull));
    }
    if (i < bytes) {
        uint64_t w = 0;
        memcpy(&w, b + i, bytes - i);
        acc += cl_mix64(w ^ key ^ (i * 0x9E3779B97F4A7C15ull));
    }
    *h = acc ^ bytes;
    return 0;
}

int be_find_nan16(const void *p, size_t count, long long *first)
{
    const uint16_t *h = p;
    *first = -1;
    for (size_t i = 0; i < count; i++)
        if (cl_f16_is_nan(h[i])) {
            *first = (long long)i;
            break;
        }
    return 0;
}

int be_gen_sum(size_t count, cl_dtype t, const cl_gen *g, double *sum, double *abs_sum)
{
    double s = 0, a = 0;
    uint64_t key[CL_GEN_KEYS];
    cl_gen_keys(g, key);
    for (size_t i = 0; i < count; i++) {
        double v = cl_gen_value_keyed(g, key, i);
        switch (t) {
        case CL_F32: v = (float)v; break;
        case CL_F64: break;
        case CL_F16: v = cl_f16_to_f32(cl_f32_to_f16((float)v)); break;
        case CL_I32: v = (int)v; break;
        default: return fail("sum: unknown dtype %d", (int)t);
        }
        s += v;
        a += v < 0 ? -v : v;
    }
    *sum = s;
    *abs_sum = a;
    return 0;
}

int be_flush_l2(void) { return 0; }
int be_copy(void *dst, const void *src, size_t bytes) { memcpy(dst, src, bytes); return 0; }

/* the host backend brackets calls with the link's own clock: no words, no sentinel */
int be_words_export(int *go_fd, size_t *go_bytes, int *done_fd, size_t *done_bytes)
{
    *go_fd = *done_fd = -1;
    *go_bytes = *done_bytes = 0;
    return 1;
}
int be_done_reached(uint64_t k) { (void)k; return 0; }
int be_sentinel_start(void) { return 0; }
int be_go(uint64_t k) { (void)k; return fail("the host backend has no go word"); }
int be_wait_done(uint64_t k) { (void)k; return fail("the host backend has no done word"); }
int be_sentinel_end(void) { return 0; }
int be_settle(double timeout_s, double *bracket_ms, double *gap_us, int *timed_out)
{
    (void)timeout_s;
    *bracket_ms = *gap_us = 0;
    *timed_out = 0;
    return 0;
}
void be_unblock(uint64_t k) { (void)k; }
