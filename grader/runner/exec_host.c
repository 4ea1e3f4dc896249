/* exec_host.c: the solution process's device operations on plain memory (the host
 * backend of the CPU test suite): buffers are memfds the judge created, mapped read-only
 * for inputs; a call is timed with the process's monotonic clock. */
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "exec_backend.h"
#include "link_proto.h"

static double g_t0, g_t1;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

int xb_init(char *name, size_t n, char *err, size_t errn)
{
    (void)err;
    (void)errn;
    snprintf(name, n, "host (test backend)");
    return 0;
}

int xb_map(int fd, size_t bytes, int readonly, void **ptr, char *err, size_t errn)
{
    void *p = mmap(NULL, bytes, readonly ? PROT_READ : PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        snprintf(err, errn, "mmap of a shared buffer (%zu bytes): %s", bytes, strerror(errno));
        return -1;
    }
    *ptr = p;
    return 0;
}

void xb_unmap(void *ptr, size_t bytes) { munmap(ptr, bytes); }

int xb_map_word(int id, int fd, size_t bytes, char *err, size_t errn)
{
    (void)id, (void)fd, (void)bytes;
    snprintf(err, errn, "the host backend has no protocol words");
    return -1;
}

/* no GPUs here: the hostile suite names a device node to stand for another worker's GPU */
const char *const *xb_foreign_devices(void)
{
    static const char *list[2];
    list[0] = getenv("CUDALAB_TEST_FOREIGN_DEVICE");
    return list;
}

/* The host backend runs no kernels; the CPU tests name some in CUDALAB_TEST_KERNELS_RAN
 * (comma-separated) to check how the names travel to the report. */
static char *g_ran[16];
static int g_nran = -1;

int xb_track_kernels(char *err, size_t errn)
{
    const char *names = getenv("CUDALAB_TEST_KERNELS_RAN");
    if (!names) {
        snprintf(err, errn, "the host backend runs no kernels");
        return -1;
    }
    char *copy = strdup(names), *save = NULL;
    g_nran = 0;
    for (char *t = strtok_r(copy, ",", &save); t && g_nran < 16; t = strtok_r(NULL, ",", &save))
        g_ran[g_nran++] = strdup(t);
    free(copy);
    return 0;
}

int xb_kernels_tracked(void) { return g_nran >= 0; }
const char *xb_kernel_ran(int i) { return i >= 0 && i < g_nran ? g_ran[i] : NULL; }

int xb_gated(void) { return 0; }
void *xb_stream(void) { return NULL; }

int xb_loaded(char *err, size_t errn)
{
    (void)err, (void)errn;
    return 0;
}

int xb_arm(uint64_t k, char *err, size_t errn)
{
    (void)k, (void)err, (void)errn;
    return 0;
}

int xb_call(uint64_t k, void (*fn)(void *), void *ctx, char *err, size_t errn)
{
    (void)k, (void)err, (void)errn;
    g_t0 = now_ms();
    fn(ctx);
    g_t1 = now_ms();
    return 0;
}

int xb_finish(double *ev_ms, char *err, size_t errn)
{
    (void)err, (void)errn;
    *ev_ms = g_t1 - g_t0;
    return CL_DS_OK;
}

void xb_builtin_copy(void *dst, const void *src, size_t bytes) { memcpy(dst, src, bytes); }

void *xb_scratch_alloc(size_t bytes) { return aligned_alloc(256, (bytes + 255) / 256 * 256); }
void xb_scratch_free(void *p) { free(p); }
