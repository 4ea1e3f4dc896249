// expect: wrong
// Class 10 (detecting the sanitizer): computes the right sum only when it believes
// compute-sanitizer is watching (a sanitizer library in its own maps, or the exec's
// --sanitized flag on its command line) and a wrong one otherwise. The run of record is not
// the sanitizer's, so the plain run's wrong outputs are judged: wrong. (A racy fast path
// that happens to give right outputs is the documented residual.)
#include <stdio.h>
#include <string.h>

#include "hostile_sum.cuh"

static int sanitized(void)
{
    char buf[1 << 16];
    size_t n;
    int hit = 0;
    FILE *f = fopen("/proc/self/maps", "r");
    while (f && (n = fread(buf, 1, sizeof buf - 1, f)) > 0) {
        buf[n] = '\0';
        if (strstr(buf, "sanitizer"))
            hit = 1;
    }
    if (f)
        fclose(f);
    f = fopen("/proc/self/cmdline", "r");
    if (f) {
        n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        for (size_t i = 0; i + 11 <= n; i++)
            if (!memcmp(buf + i, "--sanitized", 11))
                hit = 1;
    }
    return hit;
}

extern "C" void reduce_sum(const float *in, float *out, int64_t n, cudaStream_t stream)
{
    static int watched = -1;
    if (watched < 0)
        watched = sanitized();
    honest_sum(in, out, watched ? n : n / 2 + 1, stream);
}
